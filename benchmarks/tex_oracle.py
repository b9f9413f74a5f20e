#!/usr/bin/env python3
"""Every display number the PDF prints, from pdflatex itself, against papermath's: per paper and in total.

Each LaTeX paper in ../shared/corpus/papers (or --corpus DIR) is compiled twice with pdflatex and
`papermath/data/pmoracle.sty` loaded before `\\documentclass` (see papermath/latex/texoracle.py); results are
cached by source hash, so only changed papers are compiled again (--no-cache forces it).

    .venv/bin/python benchmarks/tex_oracle.py
    .venv/bin/python benchmarks/tex_oracle.py --papers DyT,LEN --verbose
"""
from __future__ import annotations

import argparse
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from papermath.latex import load_document
from papermath.latex.texoracle import compare_labels, compare_numbers, compile_numbers, engine_available, engine_version
from papermath.source.flatten import find_main_file

CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpus" / "papers"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=CORPUS)
    parser.add_argument("--papers", help="comma-separated paper directory names (default: all)")
    parser.add_argument("--no-cache", action="store_true", help="compile again even when a cached result exists")
    parser.add_argument("--jobs", type=int, default=2, help="papers compiled at once (default 2)")
    parser.add_argument("--timeout", type=float, default=300.0, help="seconds per paper (default 300)")
    parser.add_argument("--keep", type=Path, help="compile in DIR/<paper> and leave the files there (implies --no-cache)")
    parser.add_argument("--verbose", action="store_true", help="list every difference")
    args = parser.parse_args(argv)
    if not args.corpus.is_dir():
        print(f"tex_oracle: {args.corpus} does not exist (../shared is present in CI and dev sessions only)")
        return 0
    if not engine_available():
        print("tex_oracle: pdflatex is not installed (apt-get install texlive-latex-extra …); nothing to compare")
        return 0
    papers = sorted((d for d in args.corpus.iterdir() if d.is_dir()), key=lambda p: p.name.lower())
    if args.papers:
        wanted = set(args.papers.split(","))
        papers = [p for p in papers if p.name in wanted]
    mains = {}
    for paper in papers:
        main_file, fmt = find_main_file(paper)
        if fmt == "latex":
            mains[paper] = main_file
    print(f"engine: {engine_version()}; {len(mains)} LaTeX papers")
    started = time.perf_counter()
    with ThreadPoolExecutor(max(1, args.jobs)) as pool:
        results = dict(zip(mains, pool.map(lambda p: compile_numbers(
            p, mains[p], timeout=args.timeout, use_cache=not (args.no_cache or args.keep),
            keep_dir=args.keep / p.name if args.keep else None), mains)))
    compile_seconds = time.perf_counter() - started
    total = matched = equal = labels_total = labels_matched = 0
    print(f"{'paper':30} {'matched/total':>14} {'ours':>5} {'labels':>9} {'compile':>8}  notes")
    for paper, tex in results.items():
        doc = load_document(str(paper))
        cmp = compare_numbers(doc, tex, limit=1000 if args.verbose else 5)
        lab = compare_labels(doc, tex)
        labels_total += lab.total
        labels_matched += lab.matched
        total += cmp.total
        matched += cmp.matched
        equal += cmp.equal and tex.ok
        notes = []
        if not tex.ok:
            notes.append("TeX failed: " + tex.message[:80])
        if tex.stubs:
            notes.append(f"{len(tex.stubs)} stubs")
        when = "cached" if tex.cached else f"{tex.seconds:.1f}s"
        print(f"{paper.name:30} {f'{cmp.matched}/{cmp.total}':>14} {len(cmp.ours):>5} "
              f"{f'{lab.matched}/{lab.total}':>9} {when:>8}  {'; '.join(notes)}")
        for line in cmp.mismatches:
            print("    " + line)
        problems = [f"unresolved by papermath: {x}" for x in lab.unresolved] + list(lab.wrong)
        for line in problems[:None if args.verbose else 5]:
            print("    label " + line)
    print(f"{'total':30} {f'{matched}/{total}':>14}       {f'{labels_matched}/{labels_total}':>9} "
          f"{compile_seconds:6.1f}s  {equal}/{len(results)} papers with every printed number equal")
    return 0


if __name__ == "__main__":
    sys.exit(main())
