"""`papermath parse`: show how papermath reads one LaTeX formula."""
from __future__ import annotations

import argparse
import json
import sys

from ..errors import MathParseError

HELP = "parse one LaTeX formula into papermath's syntax tree"
DESCRIPTION = """\
Parse a LaTeX formula (math mode, no $ signs) and print its syntax tree, indented, then a plain-English
reading. Tolerant by default: an unknown macro becomes an opaque node and a warning.

examples:
  papermath parse '\\mathrm{softmax}(QK^\\top/\\sqrt{d_k})V'
  papermath parse --json 'p_\\theta(y \\mid x)'
  printf '%s\\n' 'x^2' '\\frac{a}' | papermath parse --lines

--lines reads one formula per line from standard input and prints one JSON object per line:
  {"ok": true|false, "error": …, "warnings": […], "tree": …}
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("latex", nargs="?", help="the formula (omit with --lines)")
    parser.add_argument("--json", action="store_true", help="print the tree as JSON")
    parser.add_argument("--strict", action="store_true",
                        help="fail on unknown macros and anything tolerant mode would only warn about")
    parser.add_argument("--lines", action="store_true",
                        help="read formulas from standard input, one per line; print one JSON object per line")
    parser.add_argument("--function", action="append", default=[], metavar="NAME",
                        help="a name the paper declares as a function (repeatable)")


def _one_line(latex: str, strict: bool, functions: frozenset[str]) -> dict:
    from ..math import parse, to_dict

    try:
        result = parse(latex, strict=strict, functions=functions)
    except MathParseError as error:
        return {"ok": False, "error": error.message, "offset": error.offset, "warnings": [], "tree": None}
    return {"ok": True, "error": None, "warnings": list(result.warnings), "tree": to_dict(result.tree),
            "decisions": [d.to_dict() for d in result.decisions]}


def run(args: argparse.Namespace) -> int:
    from ..math import parse, read_aloud, to_dict, to_latex
    from ..render.tree import format_decisions, format_tree

    functions = frozenset(args.function)
    if args.lines:
        out = sys.stdout
        for line in sys.stdin:
            latex = line.rstrip("\n")
            out.write(json.dumps(_one_line(latex, args.strict, functions), ensure_ascii=False) + "\n")
        return 0
    if args.latex is None:
        raise MathParseError("give a formula, or --lines to read formulas from standard input")
    result = parse(args.latex, strict=args.strict, functions=functions)
    if args.json:
        print(json.dumps({"schema": "papermath.parse/1", "source": result.source, "warnings": list(result.warnings),
                          "tree": to_dict(result.tree), "decisions": [d.to_dict() for d in result.decisions]},
                         ensure_ascii=False, indent=2))
        return 0
    print("\n".join(format_tree(result.tree)))
    print()
    print(f"normalized: {to_latex(result.tree)}")
    print(f"reads:      {read_aloud(result.tree)}")
    decisions = format_decisions(result)
    if decisions:
        print("decisions (what syntax cannot decide; a bare formula has only its own evidence and conventions):")
        for line in decisions:
            print("  " + line)
    for warning in result.warnings:
        print(f"warning: {warning}")
    return 0
