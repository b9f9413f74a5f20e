"""`papermath read SOURCE [--eq N | --label L]`: the reading of each display equation."""
from __future__ import annotations

import json

HELP = "read equations: quoted definitions, roles, shapes from the text, undefined symbols, kind, reductions"
DESCRIPTION = """Read display equations the way a careful reader does, deterministically: for each equation,
every symbol with the sentence of the paper that defines it (quoted, with section, file and line), its role
(input data, trained weight, frozen model, fixed setting, random sample, index, function, defined here,
computed) with the words that decided it, its shape when the text gives one; standard notation marked
conventional; what every sum, mean, softmax, max or expectation runs over; the kind of statement; and an honest
list of the symbols the paper never defines ("do not guess").

SOURCE is a directory, a .tex/.md file, a .zip or arXiv e-print archive, an arXiv id (2412.19437v2, arXiv:…)
or an arXiv abs/pdf/html URL.

examples:
  papermath read paper/ --eq 15
  papermath read paper/ --eq 15 --symbol 'W^{UK}' --json     one symbol's row
  papermath read paper/ --eq 15 --brief --json               first definitions only, no context paragraphs"""


def add_arguments(parser) -> None:
    parser.add_argument("source", metavar="SOURCE", help="directory, .tex/.md file, archive, arXiv id or URL")
    parser.add_argument("--eq", action="append", metavar="N",
                        help="equation number as printed (15, 3a), or id (eq:15, eq:u2); repeatable")
    parser.add_argument("--label", action="append", metavar="LABEL", help="equation by its \\label; repeatable")
    parser.add_argument("--symbol", action="append", metavar="SYMBOL",
                        help="only this symbol's row, as the paper writes it (W^{UK}, \\gamma or gamma); repeatable")
    parser.add_argument("--brief", action="store_true",
                        help="first definitions only: no redefinitions, no context paragraphs (shorter JSON)")
    fmt = parser.add_mutually_exclusive_group()
    fmt.add_argument("--json", action="store_true", help="print JSON (schema: docs/schemas/read.json)")
    fmt.add_argument("--format", choices=("text", "md", "json"), default="text",
                     help="text (default), md (a reading a person can edit), json")
    parser.add_argument("--width", type=int, default=None, help="terminal width for the text view")


def _normal(name: str) -> str:
    return "".join(name.split()).lstrip("\\").replace("{", "").replace("}", "")


def only_symbols(reading, names: list[str]):
    """The reading with each equation's symbols narrowed to `names` (matched ignoring spaces, braces and a leading
    backslash, against the symbol as written, its name without indices, or its id); a UsageError naming the
    equation's symbols when a name matches none."""
    import dataclasses
    import difflib

    from ..errors import UsageError

    wanted = {_normal(n): n for n in names}
    equations, matched = [], set()
    for eq in reading.equations:
        keep = []
        for s in eq.symbols:
            forms = {_normal(s.latex), _normal(s.symbol), _normal(s.id.rsplit("/sym:", 1)[-1])}
            hit = forms & set(wanted)
            if hit:
                keep.append(s)
                matched |= hit
        equations.append(dataclasses.replace(eq, symbols=tuple(keep)))
    missing = [wanted[k] for k in wanted if k not in matched]
    if missing:
        known = sorted({s.latex for eq in reading.equations for s in eq.symbols})
        close = difflib.get_close_matches(missing[0], known, n=3, cutoff=0.5)
        hint = f"; did you mean {', '.join(close)}?" if close else ""
        raise UsageError(f"no symbol {missing[0]!r} in {', '.join(e.id for e in reading.equations)} "
                         f"(its symbols: {', '.join(known[:30])}){hint}")
    return dataclasses.replace(reading, equations=tuple(equations))


def brief_json(data: dict) -> dict:
    """The read JSON with first definitions only (no `redefinitions`, no context paragraphs)."""
    for eq in data["equations"]:
        eq.pop("context_before", None)
        eq.pop("context_after", None)
        for s in eq["symbols"]:
            s.pop("redefinitions", None)
    data["brief"] = True
    return data


def run(args) -> int:
    from ..paper import open as open_paper
    from ..render.reading import reading_json, reading_markdown, reading_text

    paper = open_paper(args.source)
    keys = (args.eq or []) + (args.label or [])
    reading = paper.read(keys or None)
    if args.symbol:
        reading = only_symbols(reading, args.symbol)
    fmt = "json" if args.json else args.format
    if fmt == "json":
        data = reading_json(reading)
        print(json.dumps(brief_json(data) if args.brief else data, ensure_ascii=False, indent=2))
    elif fmt == "md":
        print(reading_markdown(reading), end="")
    else:
        print(reading_text(reading, width=args.width), end="")
    return 0
