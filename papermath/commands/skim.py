"""`papermath skim SOURCE`: triage a paper."""
from __future__ import annotations

import json

HELP = "triage a paper: title, version, outline, equations, code links"
DESCRIPTION = """Triage a paper: title and the exact version read, the abstract,
the introduction's contributions, the numbered outline with each display equation under its section (with the
number the PDF prints), captions, algorithm boxes, links to the authors' code, and the sections holding the most
new equations (where the method is).

SOURCE is a directory, a .tex or .md file, an arXiv e-print archive (.tar.gz, .tar, .gz), or an arXiv id
(1706.03762v7; without a version the latest is resolved and recorded). Downloads are cached in the per-user
cache directory (PAPERMATH_CACHE overrides; PAPERMATH_ARXIV_URL points at a mirror)."""


def add_arguments(parser) -> None:
    parser.add_argument("source", metavar="SOURCE", help="directory, .tex/.md file, .zip or arXiv archive, arXiv id or URL")
    parser.add_argument("--json", action="store_true", help="print JSON (schema: docs/json-schema.md)")
    parser.add_argument("--width", type=int, default=None, help="terminal width for the text view")


def run(args) -> int:
    from ..paper import open as open_paper
    from ..render.skim import skim_json, skim_text

    doc = open_paper(args.source).doc
    if args.json:
        print(json.dumps(skim_json(doc), ensure_ascii=False, indent=2))
    else:
        print(skim_text(doc, width=args.width), end="")
    return 0
