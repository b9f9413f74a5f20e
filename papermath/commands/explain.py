"""`papermath explain`: read one formula in words, inside out, with a code analog per operator."""
from __future__ import annotations

import argparse
import shutil

from ..analysis.explain import explain
from ..render.explain import render_explanation

HELP = "read a formula in words, inside out, with a code analog per operator and notation warnings"
DESCRIPTION = """\
Read a LaTeX formula (math mode, no $ signs) the way a careful reader does: from the inside out, one line per
operator or sub-expression, each with a NumPy/PyTorch analog. [n] stands for the result of step n.
Readings come from papermath's notation dictionary (the same data `read` uses for conventional meanings):
they are the usual meanings in ML papers, never a paper's own definition — quote the paper for that.

It warns where notation has several meanings: σ (sigmoid or standard deviation), a parenthesised
superscript (a label, not a power), x_{1:T} (includes T, unlike a Python slice), ‖ in KL vs | in a
conditional vs ‖x‖, p(·|x) (a whole distribution), ∝ (a constant left out), := (a definition), the scope
of a sum's index, (a, b) as an interval or a pair, and more.

With --eq, the argument is a paper (directory, .tex/.md file, archive or arXiv id) and the display
equation with that number is explained (the MCP server's `explain` tool calls it this way).

examples:
  papermath explain '\\mathbb{E}_{x\\sim p}[f(x)]'
  papermath explain examples/attention-note --eq 1
  papermath explain 'y_i=\\sum_{j=1}^{d}W_{ij}x_j'
  papermath explain --json 'D_{\\mathrm{KL}}(p\\Vert q)'
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("latex", metavar="LATEX", help="the formula, in LaTeX math mode (with --eq: a paper SOURCE)")
    parser.add_argument("--eq", action="append", metavar="N",
                        help="explain the paper's equation N (number as printed, or id eq:15); repeatable")
    parser.add_argument("--json", action="store_true", help="print the explanation as JSON")
    parser.add_argument("--width", type=int, default=None,
                        help="wrap lines at this many columns (default: the terminal's width, at most 120)")
    parser.add_argument("--function", action="append", default=[], metavar="NAME",
                        help="a name the paper declares as a function (repeatable)")


def _paper_equations(source: str, keys: list[str]) -> list[tuple[str, str | None, str]]:
    """(id, printed number, LaTeX) of the asked-for display equations of a paper."""
    from ..paper import open as open_paper

    paper = open_paper(source)
    return [(e.id, e.number, e.latex) for e in (paper.equation(key) for key in keys)]


def run(args: argparse.Namespace) -> int:
    functions = frozenset(args.function)
    width = args.width or min(shutil.get_terminal_size((100, 24)).columns, 120)
    if args.eq:
        equations = _paper_equations(args.latex, args.eq)
        results = [(eq_id, number, explain(latex, functions=functions)) for eq_id, number, latex in equations]
        if args.json:
            from ..render.jsonout import dumps
            print(dumps({"schema": "papermath.explain/1", "source": args.latex, "equations": [
                {"id": eq_id, "number": number, "explanation": result} for eq_id, number, result in results]}))
        else:
            print("\n\n".join(f"{eq_id} ({number or 'unnumbered'})\n{render_explanation(result, width)}"
                              for eq_id, number, result in results))
        return 0
    result = explain(args.latex, functions=functions)
    if args.json:
        from ..render.jsonout import dumps, to_jsonable
        print(dumps({"schema": "papermath.explain/1", **to_jsonable(result)}))
        return 0
    print(render_explanation(result, width))
    return 0
