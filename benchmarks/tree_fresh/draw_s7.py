"""The draw behind ``corpus_s7.jsonl`` (session 7; standard library + ``papermath skim --json`` and the document
model, never the parser).

Pool as in ``draw_s6.py`` with ``corpus_s6.jsonl`` added to the gold it excludes: every display equation skim lists
that is in no gold set (matched by ``(paper, eq_id)`` or by the first 30 characters of its formula, lone-symbol
displays left out), then the inline formulas (``$…$``, keyed ``m:<paragraph>:<k>`` as the paper session keys them)
of at least ``INLINE_MIN`` characters that show one of ``draw_s4.WEAK``'s classes. A candidate whose first 30
characters repeat an earlier candidate of the same paper is left out (the same formula written twice).
``random.Random(SEED).shuffle`` of each pool, then rounds: in each round every paper, fewest formulas in the
existing gold first, gives its next shuffled candidate, at most ``PER_PAPER`` per paper (displays and inline
together) and ``draw_s3.MAX_CHARS`` characters, until ``TARGET``. Prints the drawn formulas as JSON.
"""
from __future__ import annotations

import json
import random
import sys
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import draw_s3  # noqa: E402
import draw_s4  # noqa: E402
import draw_s6  # noqa: E402

SEED, TARGET, PER_PAPER, INLINE_MIN = 20261207, 64, 4, 20
GOLD_FILES = [*draw_s6.GOLD_FILES, HERE / "corpus_s6.jsonl"]


def distinct(candidates: list[dict]) -> list[dict]:
    """Candidates in order, a formula repeated in its paper (same first 30 characters) kept once."""
    seen: set = set()
    out = []
    for eq in candidates:
        key = (eq["paper"], draw_s3._canon(eq["latex"]))
        if key not in seen:
            seen.add(key)
            out.append(eq)
    return out


def draw(candidates: list[dict], counts: Counter, per: Counter, drawn: list[dict]) -> list[dict]:
    """Round by round, each paper (fewest gold formulas first) gives its next shuffled candidate."""
    candidates = distinct(candidates)
    random.Random(SEED).shuffle(candidates)
    papers = sorted({eq["paper"] for eq in candidates}, key=lambda p: (counts[p], p))
    queues = {p: [eq for eq in candidates if eq["paper"] == p and len(eq["latex"]) <= draw_s3.MAX_CHARS]
              for p in papers}
    for _ in range(PER_PAPER):
        for paper in papers:
            if queues[paper] and len(drawn) < TARGET and per[paper] < PER_PAPER:
                drawn.append(queues[paper].pop(0))
                per[paper] += 1
    return drawn


def main() -> int:
    if not draw_s3.validate_corpus.PAPERS.exists():
        print(f"skipped: {draw_s3.validate_corpus.PAPERS} is absent")
        return 0
    draw_s3.GOLD_FILES[:] = GOLD_FILES
    draw_s6.GOLD_FILES[:] = GOLD_FILES
    candidates = [eq for eq in draw_s3.pool() if eq["latex"].strip()]
    counts = draw_s6.gold_counts()
    print(len(candidates), "displays in the pool", file=sys.stderr)
    per: Counter = Counter()
    drawn = draw(candidates, counts, per, [])
    pairs, heads = draw_s3.judged()
    inline = [eq for eq in draw_s4.inline_pool(pairs, heads) if len(eq["latex"].strip()) >= INLINE_MIN and
              "graphics" not in eq["latex"] and draw_s4.weak_classes(eq["latex"])]
    print(len(inline), "inline formulas in the pool", file=sys.stderr)
    drawn = draw(inline, counts, per, drawn)
    for eq in drawn:
        eq["weak"] = draw_s4.weak_classes(eq["latex"])
        eq["gold_before"] = counts[eq["paper"]]
    json.dump(drawn, sys.stdout, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
