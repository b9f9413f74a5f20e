"""`papermath check READING --paper SOURCE [--eq N] [--json]`: verify a reading against the paper."""
from __future__ import annotations

import json

HELP = "check a reading (Markdown or read's JSON) against the paper: quotes, symbols, shapes, roles, numbers, claims"
DESCRIPTION = """Check a reading of a paper's equations against the paper, mechanically. For each equation of the
reading:

  quotes   every quote searched in the paper, verbatim or after normalisation (whitespace, line breaks,
           hyphenation, macros expanded, σ ↔ \\sigma, typographic quotes); found → section, file and line;
           NOT FOUND → the closest passage and its similarity, and the row is marked a guess
  symbols  every symbol of the equation is in the table and every row is a symbol of it; a meaning for a
           symbol the paper never defines is flagged "guess: the paper does not define it"; shapes and roles
           compared with the paper's words (R^{…} memberships, "hyper-parameter", "learnable", …)
  numbers  the small-number check (- inputs: / - result:) re-run with papermath's evaluator
  claims   each claim compared with the paper's wording: a hedge dropped ("we suspect", "likely", "may")
           or added, certainty added ("shows", "proves", "always", "because")

READING is a Markdown reading (docs/readings.md; `papermath read --format md` writes one) or the JSON of
`papermath read --json`. SOURCE is the paper: a LaTeX directory, .tex, archive or arXiv id (quotes searched in
the text with macros expanded), a .txt file (plain text), or a .pdf (needs the pdf extra; PDF text flattens
subscripts, superscripts and fractions).

Exit status: 0 when every check passes, 1 when any fails (usable in the CI of a repository of readings),
2 on an error (a reading that cannot be read, a paper that cannot be opened)."""


def add_arguments(parser) -> None:
    parser.add_argument("reading", metavar="READING", help="the reading: Markdown (.md) or papermath read JSON; - reads it from standard input")
    parser.add_argument("--paper", required=True, metavar="SOURCE",
                        help="the paper: LaTeX directory/.tex/archive/arXiv id or URL, a .txt file, or a .pdf")
    parser.add_argument("--eq", action="append", metavar="N", help="check only this equation (repeatable)")
    parser.add_argument("--json", action="store_true", help="print the report as JSON (schema papermath.check/1)")
    parser.add_argument("--width", type=int, default=100, help="terminal width of the text report")


def run(args) -> int:
    from ..check import check_file, report_json, report_text

    report = check_file(args.reading, args.paper, args.eq)
    if args.json:
        print(json.dumps(report_json(report), ensure_ascii=False, indent=2))
    else:
        print(report_text(report, width=args.width), end="")
    return 0 if report.passed else 1
