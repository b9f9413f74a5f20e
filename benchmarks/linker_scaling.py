"""How the definition linker's time grows with the length of raw paragraph text (it should grow linearly).

    .venv/bin/python benchmarks/linker_scaling.py

`link_spans` runs on raw LaTeX, where a paragraph can hold a run of thousands of spaces, a table with
thousands of cells or a sentence with thousands of formulas. For each shape, the text is built at n and at
4n characters; the ratio of the two times is printed (≈ 4 linear, ≈ 16 quadratic).
"""
from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from papermath.analysis.definitions import link_spans  # noqa: E402

SHAPES = {
    "spaces after 'Denote by $x$ the'": lambda n: "Denote by $x$ the " + " " * n + "x y.",
    "spaces after 'where $x$ is the'": lambda n: "where $x$ is the " + " " * n + "x y.",
    "one sentence, many appositives": lambda n: "the matrix $x$ and " * (n // 19),
    "one sentence, a list of formulas": lambda n: "$x$ and " * (n // 8),
    "table cells": lambda n: "$x$ & " * (n // 6),
    "table rows": lambda n: "$a$ & b \\\\ " * (n // 11),
    "'where' definitions": lambda n: "where $x_i$ is the input, " * (n // 26),
}


def best_of(text: str, runs: int = 3) -> float:
    best = float("inf")
    for _ in range(runs):
        start = time.perf_counter()
        link_spans(text)
        best = min(best, time.perf_counter() - start)
    return best


def main() -> int:
    n = 25_000
    print(f"{'shape':36} {'n chars':>8} {'s':>7} {'4n chars':>9} {'s':>7} {'ratio':>6}")
    worst = 0.0
    for name, make in SHAPES.items():
        small, large = make(n), make(4 * n)
        t_small, t_large = best_of(small), best_of(large)
        ratio = t_large / t_small if t_small else float("inf")
        worst = max(worst, ratio)
        print(f"{name:36} {len(small):8d} {t_small:7.3f} {len(large):9d} {t_large:7.3f} {ratio:6.1f}")
    print(f"worst ratio {worst:.1f} (4 is linear, 16 quadratic)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
