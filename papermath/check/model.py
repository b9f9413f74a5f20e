"""A reading as `papermath check` sees it: what a person or an LLM wrote about an equation, before checking.

Parsed from the JSON of `papermath read` or from a Markdown reading laid out like the guides (docs/readings.md).
Every element keeps the line of the reading file it came from, so a finding can point at it.
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ReadingRow:
    """One row of a symbol table: symbol | shape or type | meaning | role | quote."""

    symbol: str
    """The symbol as written in the reading (LaTeX, without the `$` delimiters)."""
    shape: str
    """Shape or type as written (`[d_c, d]`, `scalar`, `function`, `?`, or empty)."""
    meaning: str
    """The meaning the reading gives (may be empty when the quote says it all)."""
    role: str
    """Role as written (input data, trained weight, frozen model, fixed setting, random sample, index, …)."""
    quote: str
    """The sentence of the paper quoted as the definition (empty when none is given)."""
    line: int
    """Line of the reading file the row stands on (1-based; 0 for JSON)."""


@dataclass(frozen=True)
class NumberCheck:
    """The reading's small-number check: inputs and the result it claims."""

    inputs: str
    """The inputs as written (`u_t=[1,0]; e_i=[2,1]`)."""
    result: str
    """The claimed result as written (`s_{i,t} = 0.8808` or `[[6.017, 3.983]]`)."""
    line: int
    """Line of the `- inputs:` entry."""


@dataclass(frozen=True)
class Claim:
    """A statement the reading makes about what the paper says or shows, with the quote it rests on."""

    text: str
    """The claim in the reading's words."""
    quote: str
    """The paper's words it rests on (may be empty: then the closest passage is looked up)."""
    line: int
    """Line of the reading file."""


@dataclass(frozen=True)
class EquationEntry:
    """Everything a reading says about one equation."""

    key: str
    """How the reading names the equation: its printed number (`15`) or its id (`eq:u3`)."""
    id: str | None
    """The id the reading gives (`eq:15`), if any."""
    section: str | None
    """Section as written."""
    kind: str | None
    """Kind of statement as written (computation, definition, objective, …), without its cue."""
    latex: str | None
    """The formula as the reading gives it."""
    rows: tuple[ReadingRow, ...]
    """The symbol table."""
    undefined: tuple[str, ...]
    """Symbols the reading lists as not defined in the paper."""
    reductions: tuple[str, ...]
    """The reductions as written."""
    numbers: NumberCheck | None
    """The small-number check, when filled in."""
    claims: tuple[Claim, ...]
    """Claims about what the paper says."""
    line: int
    """Line of the equation's heading."""


@dataclass(frozen=True)
class Reading:
    """A reading file: one or more equations of one paper."""

    path: str
    """The file read."""
    format: str
    """`markdown` or `json`."""
    title: str | None
    """Paper title as the reading gives it."""
    source: str | None
    """The `Source:` line: arXiv id and version, or a path."""
    equations: tuple[EquationEntry, ...]
    """The equations it reads."""
