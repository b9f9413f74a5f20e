"""`papermath shapes`: write every shape and check that the equation lines up (guide 000, 'shapes first')."""
from __future__ import annotations

import argparse
import json
import re
from dataclasses import dataclass
from typing import Any

from ..errors import MathParseError, UsageError

HELP = "shapes first: propagate symbolic shapes through an equation and report mismatches"
DESCRIPTION = """\
Propagate shapes through one equation: each symbol's shape (from the paper's text, or --shape), then each
operation inside out, as a table: sub-expression | shape | note. A mismatch is reported naming both
operands and their shapes, with a hint; an unknown function or an undeclared symbol has an unknown shape,
said so, never guessed. Exit code 1 when something does not line up.

examples:
  papermath shapes paper/ --eq 1
  papermath shapes --latex 'QK' --shape 'Q=n,d_k' --shape 'K=n,d_k'
  papermath shapes --latex '\\mathrm{DyT}(x) = \\gamma * \\tanh(\\alpha x) + \\beta' \\
      --shape 'x=B,T,C' --shape '\\gamma=C' --shape '\\beta=C' --shape '\\alpha=scalar'
"""


@dataclass(frozen=True)
class Target:
    """The equation a command works on."""

    latex: str
    """The formula."""
    label: str
    """How to name it in output (`eq:1 (1) §2.1.1` or `formula`)."""
    paper: str
    """Paper title, or "formula given on the command line"."""
    version: str | None
    """arXiv id and version when known."""
    number: str | None
    """The paper's equation number."""
    functions: frozenset[str]
    """Names the paper declares as operators."""
    declared: dict[str, tuple[str, ...]]
    """Shapes: from the text (read), overridden by --shape."""
    sources: dict[str, str]
    """Where each shape came from."""
    notes: tuple[str, ...]
    """What could not be read."""
    parsed: Any = None
    """The formula's parse (`ParseResult`) when the paper session already has it, else None."""
    implementations: dict[str, str] | None = None
    """Functions the paper's text names concretely (key → operation, e.g. `\\phi` → relu); --fn overrides."""


def add_source_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("source", nargs="?",
                        help="paper: a directory, .tex file, .zip or arXiv archive, arXiv id or URL")
    parser.add_argument("--eq", metavar="N", help="the paper's equation number as printed (15, 3a), id (eq:15, "
                                                  "eq:u2) or label")
    parser.add_argument("--label", metavar="LABEL", help="the equation by its \\label (same as --eq LABEL)")
    parser.add_argument("--latex", metavar="FORMULA",
                        help="a formula instead of a paper's equation; with SOURCE --eq N, a part of equation N "
                             "(some of its rows, a bracket) read with that equation's context")
    parser.add_argument("--shape", action="append", default=[], metavar="SYMBOL=DIMS",
                        help="a symbol's shape, e.g. 'Q=n,d_k' or 'alpha=scalar' (repeatable; overrides the text)")
    parser.add_argument("--json", action="store_true", help="print JSON")
    parser.add_argument("--width", type=int, default=None, metavar="COLUMNS",
                        help="terminal width for the tables (default: the terminal's, or COLUMNS)")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_source_arguments(parser)


def load_target(args: argparse.Namespace) -> Target:
    from ..analysis.shapes import shapes_in_context
    from ..evaluate.values import parse_shape

    overrides = dict(parse_shape(text) for text in args.shape)
    key = args.eq if args.eq is not None else getattr(args, "label", None)
    if args.latex is not None and (args.source is None) != (key is None):
        raise UsageError("give SOURCE --eq N, --latex FORMULA, or SOURCE --eq N --latex PART (a part of equation N)")
    if args.latex is not None and args.source is None:
        overrides = _matched_shapes(overrides, args.latex, frozenset())
        sources = {k: "--shape" for k in overrides}
        return Target(args.latex, "formula", "formula given on the command line", None, None, frozenset(),
                      overrides, sources, ())
    if args.source is None or key is None:
        raise UsageError("give SOURCE --eq N (a paper's equation) or --latex FORMULA")
    from ..paper import open as open_paper

    paper = open_paper(args.source)
    doc = paper.doc
    equation = paper.equation(key)
    latex, part = equation.latex, ""
    if args.latex is not None:
        if not part_of(args.latex, equation.latex):
            raise UsageError(f"--latex is not a part of {equation.id} ({equation.number or 'unnumbered'}): give a "
                             f"piece of its LaTeX as the paper writes it (spacing, & and \\\\ aside)")
        latex, part = args.latex, " part"
    declared, sources, notes = shapes_in_context(paper, equation)
    from ..analysis.shapes import functions_for
    implementations, quotes = functions_for(paper, equation)
    notes = list(notes) + [f"{k} = {op}, from the text: \"{quotes[k][:120]}\"" for k, op in implementations.items()]
    overrides = _matched_shapes(overrides, latex, paper.functions)
    declared.update(overrides)
    sources.update({k: "--shape" for k in overrides})
    title = getattr(doc.paper, "title", None) or str(args.source)
    version = None
    if getattr(doc.paper, "arxiv_id", None):
        version = doc.paper.arxiv_id + (doc.paper.version or "")
    label = f"{equation.id} ({equation.number}){part}" + (f" §{equation.section}" if equation.section else "")
    span = getattr(equation, "span", None)
    if span is not None and getattr(span, "file", None):
        label += f" {span.file}:{span.line}:{span.column}"
    return Target(latex, label, title, version, equation.number, paper.functions,
                  declared, sources, tuple(notes), paper.parse(latex), implementations)


_LAYOUT = re.compile(r"\\\\(\[[^\]]*\])?|&|\s+")
"""What does not change a formula's content: row breaks (with their spacing), alignment points, white space."""


def part_of(part: str, latex: str) -> bool:
    """True when `part` is a piece of `latex` as the paper writes it (layout aside): some rows of a statement,
    a bracket, one side."""
    piece = _LAYOUT.sub("", part).rstrip(".,;")
    return bool(piece) and piece in _LAYOUT.sub("", latex)


def _matched_shapes(overrides: dict[str, tuple[str, ...]], latex: str, functions: frozenset[str]
                    ) -> dict[str, tuple[str, ...]]:
    """--shape names matched to the equation as --set names are (`A` → `\\mathbf{A}`); a name that matches
    nothing is an error with the closest names."""
    from ..evaluate import resolve_shapes
    from ..math import parse

    if not overrides:
        return overrides
    try:
        tree = parse(latex, functions=functions).tree
    except MathParseError:
        return overrides  # the command reports the parse error with its position
    return resolve_shapes(overrides, tree, strict=True)


def report_json(report: Any) -> dict:
    from ..analysis.shapes import show

    return {
        "latex": report.latex,
        "result": list(report.result) if report.result is not None else None,
        "complete": report.complete,
        "steps": [{"latex": s.latex, "shape": list(s.shape) if s.shape is not None else None, "shown": show(s.shape),
                   "note": s.note, "status": s.status} for s in report.steps],
        "mismatches": [{"latex": m.latex, "left": m.left, "left_shape": list(m.left_shape), "right": m.right,
                        "right_shape": list(m.right_shape), "message": m.message, "hint": m.hint}
                       for m in report.mismatches],
        "unknown": list(report.unknown),
    }


def run(args: argparse.Namespace) -> int:
    from ..analysis.shapes import infer_shapes, show

    target = load_target(args)
    try:
        report = infer_shapes(target.latex, target.declared, sources=target.sources, functions=target.functions,
                              conventional=target.number is None and target.label == "formula")
    except MathParseError as error:
        raise UsageError(f"{target.label}: the formula does not parse: {error.message}") from None
    if args.json:
        print(json.dumps({"schema": "papermath.shapes/1", "equation": target.label, "notes": list(target.notes),
                          **report_json(report)},
                         ensure_ascii=False, indent=2))
        return 1 if report.mismatches else 0
    print(f"{target.label}   {report.latex}")
    print()
    from ..render.steps import shapes_table
    from ..render.tables import print_table

    width = getattr(args, "width", None)
    print_table(shapes_table(report, width), width)
    print()
    print(f"result: {show(report.result)}")
    for mismatch in report.mismatches:
        print(f"mismatch: {mismatch.message}")
    for reason in report.unknown:
        print(f"unknown: {reason}")
    for note in target.notes:
        print(f"note: {note}")
    return 1 if report.mismatches else 0
