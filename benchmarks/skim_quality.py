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


def resolved_by_tex(paper: Path) -> set[str] | None:
    """The labels pdflatex resolves in this paper (cached compile), or None without TeX Live / for Markdown."""
    main_file, fmt = find_main_file(paper)
    if not engine_available() or fmt != "latex":
        return None
    return set(compile_numbers(paper, main_file, timeout=300).labels)


def markup_in(data) -> list[tuple[str, str]]:
    """(JSON path, command) for every presentation command left in any string of the skim JSON."""
    hits: list[tuple[str, str]] = []

    def walk(value, path: str) -> None:
        if isinstance(value, dict):
            for key, item in value.items():
                walk(item, f"{path}.{key}")
        elif isinstance(value, list):
            for item in value:
                walk(item, path + "[]")
        elif isinstance(value, str):
            hits.extend((path, m.group()) for m in MARKUP.finditer(value))

    walk({k: v for k, v in data.items() if k != "diagnostics"}, "")
    return hits


def check_paper(data: dict, tex_labels: set[str] | None) -> dict:
    """What a reader would object to in one paper's skim JSON (every list empty / flag true = fine)."""
    unresolved = set(data["references"]["unresolved"])
    if tex_labels is not None:
        unresolved &= tex_labels
    method = data["method_sections"][0] if data["method_sections"] else None
    return {
        "title": data["paper"]["title"] is not None,
        "debris": [a for a in data["authors"] if AUTHOR_DEBRIS.search(a)],
        "unresolved": sorted(unresolved),
        "markup": markup_in(data),
        "latex_markup": [e["latex"] for e in data["equations"] if MARKUP.search(e["latex"])],
        "method": method,
        "body_method": (method is not None and not _is_appendix(data, method["section"])) or not data["equations"],
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=CORPUS)
    args = parser.parse_args(argv)
    if not args.corpus.is_dir():
        print(f"skim_quality: {args.corpus} does not exist (../shared is present in CI and dev sessions only)")
        return 0
    print(f"{'paper':30} {'title':>5} {'authors':>8} {'debris':>6} {'unres.':>6} {'markup':>9} {'other':>5}"
          "  method (first)")
    totals = {"papers": 0, "title": 0, "debris": 0, "unresolved": 0, "markup": 0, "other": 0, "body_method": 0}
    for paper in sorted((d for d in args.corpus.iterdir() if d.is_dir()), key=lambda p: p.name.lower()):
        data = skim(paper)
        found = check_paper(data, resolved_by_tex(paper))
        other = len(found["markup"]) - len(found["latex_markup"])
        totals["papers"] += 1
        totals["title"] += found["title"]
        totals["debris"] += len(found["debris"])
        totals["unresolved"] += len(found["unresolved"])
        totals["markup"] += len(found["latex_markup"])
        totals["other"] += other
        totals["body_method"] += found["body_method"]
        method = found["method"]
        where = f"{method['section']} {method['title'][:40]}" if method else "-"
        if method and not found["body_method"]:
            where += "  (appendix!)"
        dirty = f"{len(found['latex_markup'])}/{len(data['equations'])}"
        print(f"{paper.name:30} {'ok' if found['title'] else 'NULL':>5} {len(data['authors']):>8} "
              f"{len(found['debris']):>6} {len(found['unresolved']):>6} {dirty:>9} {other:>5}  {where}")
        for a in found["debris"][:3]:
            print(f"    author with debris: {a!r}")
        for label in found["unresolved"][:3]:
            print(f"    unresolved (TeX resolves it): {label}")
        for path, command in found["markup"][:3]:
            print(f"    markup {command} in {path}")
    print(f"{'total':30} {totals['title']}/{totals['papers']} titles; {totals['debris']} authors with debris; "
          f"{totals['unresolved']} unresolved references TeX resolves; {totals['markup']} latex fields with markup "
          f"({totals['other']} markup commands in other fields); "
          f"{totals['body_method']}/{totals['papers']} method in the body (or no equations)")
    return 0


def _is_appendix(data: dict, number: str) -> bool:
    for section in data["sections"]:
        if (section["number"] or section["id"]) == number:
            return bool(section.get("appendix"))
    return False


if __name__ == "__main__":
    sys.exit(main())
