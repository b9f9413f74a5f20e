"""Terminal views of `numbers` and `shapes`: numbered steps in rich tables that wrap instead of cutting labels."""
from __future__ import annotations

import sys
from typing import IO, Any

from .tables import print_table, steps_table

EXTREME_OPS = ("softmax", "matmul", "result", "sigmoid", "logsigmoid", "E", "sum")


def _how(item: Any) -> str:
    return {"set": "set", "chosen": item.note or "chosen", "dimension": item.note or "dimension"}.get(
        item.source, item.source)


def evaluation_tables(ev: Any, width: int | None = None) -> list:
    """The values table and the steps table of an evaluation."""
    from ..evaluate import fmt

    values = steps_table("values", ("symbol", "value", "how"), [(i.key, fmt(i.value), _how(i)) for i in ev.inputs],
                         styles=("cyan", None, "dim"), numbered=False, width=width, main_share=0.2)
    steps = steps_table("steps, inside out", ("sub-expression", "value", "note"),
                        [(s.latex, fmt(s.value), s.note) for s in ev.steps], styles=("cyan", "bold", "dim"),
                        width=width)
    return [values, steps]


def print_evaluation(ev: Any, width: int | None = None, file: IO[str] | None = None) -> None:
    """Values, numbered steps, the result, checks and notes."""
    from ..evaluate import fmt

    out = file if file is not None else sys.stdout
    values, steps = evaluation_tables(ev, width)
    print_table(values, width, out)
    print(file=out)
    print_table(steps, width, out)
    print(file=out)
    print(f"result: {ev.result_latex} = {fmt(ev.value)}", file=out)
    for check in ev.checks:
        print(f"check: {check}", file=out)
    for note in ev.notes:
        print(f"note: {note}", file=out)


def print_extreme(run: Any, width: int | None = None, file: IO[str] | None = None) -> None:
    """One --extreme re-run: the steps that show saturation, then what changed."""
    from ..evaluate import fmt

    out = file if file is not None else sys.stdout
    rows = [(s.latex, fmt(s.value, 4)) for s in run.evaluation.steps if s.op in EXTREME_OPS]
    title = f"extreme: {', '.join(run.scaled) or 'nothing'} × {run.factor:g}"
    print_table(steps_table(title, ("sub-expression", "value"), rows, styles=("cyan", "bold"), width=width),
                width, out)
    for change in run.changes:
        print(f"  changed: {change}", file=out)


def shapes_table(report: Any, width: int | None = None):
    """Every sub-expression of a shape report with its shape and note, numbered inside out."""
    from ..analysis.shapes import show

    return steps_table(None, ("sub-expression", "shape", "note"),
                       [(s.latex, show(s.shape), s.note) for s in report.steps], styles=("cyan", "bold", "dim"),
                       width=width)
