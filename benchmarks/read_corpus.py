"""Time `papermath read` (all display equations) on corpus papers, next to the skim of the same paper.

    .venv/bin/python benchmarks/read_corpus.py [--papers deepseek-v3-2412.19437,attention-1706.03762]

Targets: issue 4, the whole DeepSeek-V3 report read in under 2 s on the 2-core machine; issue 18, a whole-paper
read ≤ 0.2 s median over the corpus. Prints, per paper, the time to build the document model (skim), the time to
read every equation (the paper session: index, then each reading), their sum, and how many symbols got a quoted
definition; wall and CPU seconds both (the machine is shared: CPU time is what the process itself spent), and the
median of each column.
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from papermath import paper as session  # noqa: E402

CORPUS = ROOT.parent / "shared" / "corpus" / "papers"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--papers", default="", help="comma-separated paper directories (default: all)")
    args = parser.parse_args(argv)
    if not CORPUS.is_dir():
        print(f"{CORPUS} not found: the corpus lives in ../shared (CI and developer sessions only)")
        return 0
    names = [n for n in args.papers.split(",") if n] or sorted(p.name for p in CORPUS.iterdir() if p.is_dir())
    session.open(str(CORPUS / names[0])).read()  # warm imports and caches once, outside the timings
    print(f"{'paper':32} {'eqs':>4} {'symbols':>7} {'quoted':>6} {'undef':>5} {'skim s':>7} {'read s':>7} "
          f"{'total s':>7} {'cpu skim':>8} {'cpu read':>8} {'cpu tot':>7}")
    rows = []
    for name in names:
        from papermath.math import clear_parse_cache
        clear_parse_cache()
        session.clear_cache()
        t0, c0 = time.perf_counter(), time.process_time()
        paper = session.open(str(CORPUS / name))
        t1, c1 = time.perf_counter(), time.process_time()
        reading = paper.read()
        t2, c2 = time.perf_counter(), time.process_time()
        symbols = [s for e in reading.equations for s in e.symbols if s.kind == "symbol"]
        quoted = sum(1 for s in symbols if s.definition is not None)
        undefined = sum(len(e.undefined) for e in reading.equations)
        row = (t1 - t0, t2 - t1, t2 - t0, c1 - c0, c2 - c1, c2 - c0)
        rows.append(row)
        print(f"{name:32} {len(reading.equations):4d} {len(symbols):7d} {quoted:6d} {undefined:5d} "
              + " ".join(f"{v:7.3f}" if k < 3 else f"{v:8.3f}" if k < 5 else f"{v:7.3f}" for k, v in enumerate(row)))
    totals = [sum(r[k] for r in rows) for k in range(6)]
    medians = [statistics.median(r[k] for r in rows) for k in range(6)]
    for label, values in (("total", totals), ("median", medians)):
        print(f"{label:32} {'':4} {'':7} {'':6} {'':5} "
              + " ".join(f"{v:7.3f}" if k < 3 else f"{v:8.3f}" if k < 5 else f"{v:7.3f}" for k, v in enumerate(values)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
