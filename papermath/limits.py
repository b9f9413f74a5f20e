"""The documented limits that keep every stage bounded on hostile input (issue 12). One place, one number each.

- `MAX_DEPTH` (50): how deeply a formula may nest — brackets, braces, scripts, accents, fractions, roots,
  operators, and chains of binary operators (`a + b + … ` nests one level per operator). The parser refuses a
  deeper formula with a `MathParseError` at the place it crosses the limit, so no later stage (printer, read
  aloud, JSON, explain, shapes, evaluator, codegen) ever sees a tree deeper than this. Real formulas stay far
  below it (the deepest of the corpus's 658 display equations is 18).
  The document builder uses the same bound for floats inside floats (LaTeX allows none; an algorithm or a
  table in a figure is two deep): a deeper one is a diagnostic and its content is not read.
- `MAX_TOKENS` (4000): how long one formula may be, in TeX tokens (`\\frac`, `{`, `x`, `12` are one each);
  the parser refuses a longer one (and, without tokenizing it, one of more than 16 characters per allowed
  token). Every stage's work grows with the formula, so this bounds them all; the corpus's longest display
  equation has 1498 tokens.
- `MAX_TERMS` (`PAPERMATH_MAX_TERMS`, default 10000): how many terms and steps the evaluator computes for one sum,
  product, max or expectation, and how many entries one value may have; past it evaluation is refused with a
  clear message instead of running for minutes.
- `FORMULA_SECONDS` (`PAPERMATH_FORMULA_SECONDS`, default 5): the time one formula may take in a whole-paper
  `read`; past it that formula becomes a diagnostic and the rest of the paper is read.
"""
from __future__ import annotations

import os


def _env_number(name: str, default: float, kind=float):
    try:
        value = kind(os.environ.get(name, default))
    except ValueError:
        return default
    return value if value > 0 else default


MAX_DEPTH = 50
"""Deepest nesting of a formula the parser accepts (tree levels)."""

MAX_TOKENS = 4000
"""Longest formula the parser accepts, in tokens."""

MAX_TERMS: int = _env_number("PAPERMATH_MAX_TERMS", 10_000, int)
"""Most terms and steps one evaluation computes, and most entries one value holds."""

FORMULA_SECONDS: float = _env_number("PAPERMATH_FORMULA_SECONDS", 5.0)
"""Time budget of one formula in a whole-paper read."""
