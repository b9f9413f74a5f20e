"""Time `papermath read` (all display equations) on corpus papers, next to the skim of the same paper.

    .venv/bin/python benchmarks/read_corpus.py [--papers deepseek-v3-2412.19437,attention-1706.03762]

Target (issue 4): the whole DeepSeek-V3 report read in under 2 s on the 2-core machine. Prints, per paper,
the time to build the document model (skim), the time to read every equation, their sum, and how many
symbols got a quoted definition.
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from papermath.analysis.read import read_document  # noqa: E402
from papermath.latex import load_document  # noqa: E402

CORPUS = ROOT.parent / "shared" / "corpus" / "papers"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--papers", default="", help="comma-separated paper directories (default: all)")
    args = parser.parse_args(argv)
    if not CORPUS.is_dir():
        print(f"{CORPUS} not found: the corpus lives in ../shared (CI and developer sessions only)")
        return 0
    names = [n for n in args.papers.split(",") if n] or sorted(p.name for p in CORPUS.iterdir() if p.is_dir())
    load_document(str(CORPUS / names[0]))  # warm imports and caches once, outside the timings
    print(f"{'paper':32} {'eqs':>4} {'symbols':>7} {'quoted':>6} {'undef':>5} {'skim s':>7} {'read s':>7} {'total s':>7}")
    total = 0.0
    for name in names:
        t0 = time.perf_counter()
        doc = load_document(str(CORPUS / name))
        t1 = time.perf_counter()
        reading = read_document(doc)
        t2 = time.perf_counter()
        symbols = [s for e in reading.equations for s in e.symbols if s.kind == "symbol"]
        quoted = sum(1 for s in symbols if s.definition is not None)
        undefined = sum(len(e.undefined) for e in reading.equations)
        total += t2 - t0
        print(f"{name:32} {len(reading.equations):4d} {len(symbols):7d} {quoted:6d} {undefined:5d} "
              f"{t1 - t0:7.3f} {t2 - t1:7.3f} {t2 - t0:7.3f}")
    print(f"{'total':32} {'':4} {'':7} {'':6} {'':5} {'':7} {'':7} {total:7.3f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
