"""`papermath read SOURCE [--eq N | --label L]`: the reading of each display equation."""
from __future__ import annotations

import json

HELP = "read equations: quoted definitions, roles, shapes from the text, undefined symbols, kind, reductions"
DESCRIPTION = """Read display equations the way guide 002's read-paper-math skill does, deterministically:
for each equation, every symbol with the sentence of the paper that defines it (quoted, with section, file and
line), its role (input data, trained weight, frozen model, fixed setting, random sample, index, function,
defined here, computed) with the words that decided it, its shape when the text gives one; standard notation
marked conventional; what every sum, mean, softmax, max or expectation runs over; the kind of statement; and
an honest list of the symbols the paper never defines ("do not guess").

SOURCE is a directory, a .tex/.md file, an archive or an arXiv id (see `papermath skim --help`)."""


def add_arguments(parser) -> None:
    parser.add_argument("source", metavar="SOURCE", help="directory, .tex/.md file, archive, or arXiv id")
    parser.add_argument("--eq", action="append", metavar="N",
                        help="equation number as printed (15, 3a), or id (eq:15, eq:u2); repeatable")
    parser.add_argument("--label", action="append", metavar="LABEL", help="equation by its \\label; repeatable")
    fmt = parser.add_mutually_exclusive_group()
    fmt.add_argument("--json", action="store_true", help="print JSON (schema: docs/json-schema.md)")
    fmt.add_argument("--format", choices=("text", "md", "json"), default="text",
                     help="text (default), md (a reading a person can edit), json")
    parser.add_argument("--width", type=int, default=None, help="terminal width for the text view")


def run(args) -> int:
    from ..paper import open as open_paper
    from ..render.reading import reading_json, reading_markdown, reading_text

    paper = open_paper(args.source)
    keys = (args.eq or []) + (args.label or [])
    reading = paper.read(keys or None)
    fmt = "json" if args.json else args.format
    if fmt == "json":
        print(json.dumps(reading_json(reading), ensure_ascii=False, indent=2))
    elif fmt == "md":
        print(reading_markdown(reading), end="")
    else:
        print(reading_text(reading, width=args.width), end="")
    return 0
