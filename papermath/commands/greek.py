"""`papermath greek`: the Greek-letter reference (name, LaTeX, Unicode, common meanings in ML papers)."""
from __future__ import annotations

import argparse
import dataclasses
import json

from ..notation import greek_letter, load_greek
from ..render.greek import render_letter, render_table

HELP = "the Greek-letter reference: name, LaTeX, Unicode, common meanings in ML papers"
DESCRIPTION = """\
The Greek-letter reference: each letter's name, LaTeX command, Unicode character and the meanings it
commonly has in ML papers. These are conventions, not definitions: a paper defines its own symbols, and
a reading must quote that definition (σ in DPO is the sigmoid, not a standard deviation).

Without LETTER, lists every letter. LETTER may be a name (epsilon), a LaTeX command (\\epsilon) or the
character itself (ε); capitals (Sigma, \\Sigma, Σ) and variant forms (\\varepsilon, \\varphi, \\vartheta)
are included.

examples:
  papermath greek
  papermath greek sigma
  papermath greek '\\eta' --json
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("letter", nargs="?", metavar="LETTER",
                        help="a name (epsilon), LaTeX command (\\epsilon) or character (ε); omit for all letters")
    parser.add_argument("--json", action="store_true", help="print the result as JSON")


def run(args: argparse.Namespace) -> int:
    letters = (greek_letter(args.letter),) if args.letter else load_greek()
    if args.json:
        data = [dataclasses.asdict(letter) for letter in letters]
        print(json.dumps(data[0] if args.letter else data, indent=2, ensure_ascii=False))
    elif args.letter:
        print(render_letter(letters[0]))
    else:
        print(render_table(letters))
    return 0
