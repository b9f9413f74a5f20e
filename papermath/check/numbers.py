"""Numbers: the reading's small-number check, re-run with papermath's evaluator.

The inputs are `SYMBOL=VALUE` assignments (`Q=[[1,0]]; d_k=2`, backticks optional, separated by `;` or
commas); the result is a value, optionally after `NAME =`. The equation is the paper's own formula (the reading's
when the paper cannot be analysed). The claimed result agrees when every entry matches to the precision it is
written with (half a unit in its last decimal place). Nothing is evaluated from strings: values go through the
evaluator's literal reader, formulas through the math parser.
"""
from __future__ import annotations

import re

import numpy as np

from ..errors import PapermathError
from .model import NumberCheck, ReadingRow
from .report import NumbersResult


def split_assignments(text: str) -> list[str]:
    """`Q=[[1,0]], K=[[1,0]]; d_k=2` → ["Q=[[1,0]]", "K=[[1,0]]", "d_k=2"] (commas inside brackets kept)."""
    ticks = re.findall(r"`([^`]+)`", text)
    if ticks:
        parts = []
        for t in ticks:
            parts.extend(split_assignments(t) if ";" in t else [t])
        return [p.strip() for p in parts if "=" in p]
    parts, depth, cur = [], 0, []
    for k, ch in enumerate(text):
        if ch in "[({":
            depth += 1
        elif ch in "])}":
            depth -= 1
        if depth == 0 and (ch == ";" or (ch == "," and re.match(r"\s*[\\A-Za-z][^=,]*=", text[k + 1:]))):
            parts.append("".join(cur))
            cur = []
            continue
        cur.append(ch)
    parts.append("".join(cur))
    return [p.strip() for p in parts if p.strip()]


def claimed_value(text: str):
    """The value a result line claims: the part after the last top-level `=` (or `≈`)."""
    from ..evaluate import literal
    ticks = re.findall(r"`([^`]+)`", text)
    t = ticks[-1].strip() if ticks else text.strip()
    t = re.sub(r"\s+(?:\([A-Za-z][^()]*\)|—.*|–.*|--.*)$", "", t)  # a trailing remark in words
    depth, cut = 0, -1
    for k, ch in enumerate(t):
        if ch in "[({":
            depth += 1
        elif ch in "])}":
            depth -= 1
        elif depth == 0 and ch in "=≈":
            cut = k
    value = t[cut + 1:].strip().strip("`").strip()
    return literal(value), value


def _decimals(text: str) -> int:
    places = [len(m) for m in re.findall(r"\d\.(\d+)", text)]
    return max(places) if places else 0


def rerun(check: NumberCheck, latex: str, rows: tuple[ReadingRow, ...] = (),
          functions: frozenset[str] = frozenset()) -> NumbersResult:
    """Re-run the equation on the reading's inputs and compare with the claimed result."""
    try:
        from ..evaluate import EvaluationError, evaluate, fmt, parse_assignment
    except ImportError as error:  # the evaluator is part of papermath; only a broken install lands here
        return NumbersResult(check.inputs, check.result, None, None, f"evaluator not available ({error})")
    try:
        values = {}
        for part in split_assignments(check.inputs):
            a = parse_assignment(part)
            values[a.key] = a.value
        claimed, claimed_text = claimed_value(check.result)
    except PapermathError as error:
        return NumbersResult(check.inputs, check.result, None, None, f"cannot read the numbers: {error.message}")
    if not values:
        return NumbersResult(check.inputs, check.result, None, None, "no inputs (write SYMBOL=VALUE; …)")
    shapes = _declared_shapes(rows)
    evaluation = None
    error_message = ""
    for declared in ((shapes, ) if shapes else ()) + ({},):
        try:
            evaluation = evaluate(latex, values, declared_shapes=declared, choose=False, functions=functions)
            break
        except (EvaluationError, PapermathError) as error:
            error_message = error.message
        except (ValueError, TypeError, IndexError, ArithmeticError) as error:
            error_message = f"{type(error).__name__}: {error}"
    if evaluation is None:
        return NumbersResult(check.inputs, check.result, None, None, f"not re-run: {error_message}")
    stand_ins = [n for n in evaluation.notes if "stood in" in n]
    computed = fmt(evaluation.value, max(_decimals(claimed_text), 3))
    steps = tuple(f"{s.latex} = {fmt(s.value)}" for s in evaluation.steps if s.op not in ("input",))
    if stand_ins:
        return NumbersResult(check.inputs, check.result, computed, None,
                             "not compared: the evaluator does not know a function of the equation — " + stand_ins[0],
                             steps)
    got = np.asarray(evaluation.value, dtype=float)
    want = np.asarray(claimed, dtype=float)
    if np.squeeze(got).shape != np.squeeze(want).shape:
        return NumbersResult(check.inputs, check.result, computed, False,
                             f"shape differs: re-run gives {list(got.shape)}, the reading claims {list(want.shape)}",
                             steps)
    places = _decimals(claimed_text)
    # Half a unit in the last written decimal place; whole numbers are claimed exactly.
    tolerance = 0.5 * 10.0 ** (-places) + 1e-9 if places else 1e-6
    ok = bool(np.allclose(np.squeeze(got), np.squeeze(want), rtol=1e-6, atol=tolerance, equal_nan=True))
    how = f"re-run with papermath's evaluator; agreement to ±{tolerance:.3g}"
    return NumbersResult(check.inputs, check.result, computed, ok, how if ok else "MISMATCH: " + how, steps)


def _declared_shapes(rows) -> dict[str, tuple[str, ...]]:
    from .symbols import canonical
    out = {}
    for row in rows:
        dims = _raw_dims(row.shape)
        if dims and all(d and d != "?" for d in dims):
            out[canonical(row.symbol)] = dims
    return out


def _raw_dims(text: str) -> tuple[str, ...] | None:
    t = text.strip().strip("`$ ")
    m = re.fullmatch(r"\[(.+)\]", t)
    if not m:
        return None
    return tuple(d.strip() for d in re.split(r"\s*,\s*", m.group(1)) if d.strip())
