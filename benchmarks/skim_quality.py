#!/usr/bin/env python3
"""What `papermath skim --json` says about each corpus paper, checked the way a reader would check it.

Per paper: the title (null?), the authors (any markup or affiliation debris left?), the references TeX resolves
that papermath leaves unresolved (from pdflatex's .aux via papermath/latex/texoracle.py, cached; without TeX
Live, papermath's own unresolved list), `latex` fields still carrying presentation markup (\\ensuremath, sizes,
colour, annotation), and whether "Where the method is" names a body section first.

    .venv/bin/python benchmarks/skim_quality.py
"""
from __future__ import annotations

import argparse
import contextlib
import io
import json
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from papermath.cli import main as cli_main
from papermath.latex.texoracle import compile_numbers, engine_available
from papermath.source.flatten import find_main_file

CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpus" / "papers"
MARKUP = re.compile(r"\\(?:ensuremath|tiny|scriptsize|footnotesize|small|normalsize|large|Large|LARGE|huge|Huge"
                    r"|textcolor|colorbox|color|eqnmarkbox|eqnmark|tikzmarknode|annotate|texorpdfstring|vspace"
                    r"|hspace|expandafter)(?![A-Za-z])")
AUTHOR_DEBRIS = re.compile(r"[\\{}$^@]|tabular|\bUniversity\b|\bInstitute\b|\bauthor\b", re.IGNORECASE)


def skim(paper: Path) -> dict:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        cli_main(["skim", str(paper), "--json"])
    return json.loads(out.getvalue())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=CORPUS)
    args = parser.parse_args(argv)
    if not args.corpus.is_dir():
        print(f"skim_quality: {args.corpus} does not exist (../shared is present in CI and dev sessions only)")
        return 0
    tex = engine_available()
    print(f"{'paper':30} {'title':>5} {'authors':>8} {'debris':>6} {'unres.':>6} {'markup':>9}  method (first)")
    totals = {"papers": 0, "title": 0, "debris": 0, "unresolved": 0, "markup": 0, "body_method": 0}
    for paper in sorted((d for d in args.corpus.iterdir() if d.is_dir()), key=lambda p: p.name.lower()):
        data = skim(paper)
        totals["papers"] += 1
        title_ok = data["paper"]["title"] is not None
        debris = [a for a in data["authors"] if AUTHOR_DEBRIS.search(a)]
        unresolved = set(data["references"]["unresolved"])
        main_file, fmt = find_main_file(paper)
        if tex and fmt == "latex":
            resolved_by_tex = compile_numbers(paper, main_file, timeout=300).labels
            unresolved = {label for label in unresolved if label in resolved_by_tex}
        latex_fields = [e["latex"] for e in data["equations"]]
        dirty = sum(1 for latex in latex_fields if MARKUP.search(latex))
        method = data["method_sections"][0] if data["method_sections"] else None
        body = method is not None and not _is_appendix(data, method["section"])
        totals["title"] += title_ok
        totals["debris"] += len(debris)
        totals["unresolved"] += len(unresolved)
        totals["markup"] += dirty
        totals["body_method"] += body or not data["equations"]
        where = f"{method['section']} {method['title'][:40]}" if method else "-"
        if method and not body:
            where += "  (appendix!)"
        print(f"{paper.name:30} {'ok' if title_ok else 'NULL':>5} {len(data['authors']):>8} {len(debris):>6} "
              f"{len(unresolved):>6} {f'{dirty}/{len(latex_fields)}':>9}  {where}")
        for a in debris[:3]:
            print(f"    author with debris: {a!r}")
        for label in sorted(unresolved)[:3]:
            print(f"    unresolved (TeX resolves it): {label}")
    print(f"{'total':30} {totals['title']}/{totals['papers']} titles; {totals['debris']} authors with debris; "
          f"{totals['unresolved']} unresolved references TeX resolves; {totals['markup']} latex fields with markup; "
          f"{totals['body_method']}/{totals['papers']} method in the body (or no equations)")
    return 0


def _is_appendix(data: dict, number: str) -> bool:
    for section in data["sections"]:
        if (section["number"] or section["id"]) == number:
            return bool(section.get("appendix"))
    return False


if __name__ == "__main__":
    sys.exit(main())
