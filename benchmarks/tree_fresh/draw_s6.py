"""The draw behind ``corpus_s6.jsonl`` (session 6; standard library + ``papermath skim --json``, never the parser).

Pool: every display equation skim lists for the corpus papers that is in no gold set (``draw_s4.GOLD_FILES``
plus ``corpus_s4.jsonl``), matched by ``(paper, eq_id)`` or by the first 30 characters of its formula, lone-symbol
displays left out. ``random.Random(SEED).shuffle`` of the pool (papers alphabetical, skim order), then rounds:
in each round every paper, fewest formulas in the existing gold first, gives its next shuffled display, at most
``PER_PAPER`` per paper and ``MAX_CHARS`` characters, until ``TARGET``. Papers the gold has judged least thus
come first and every paper with displays left contributes.

Only 31 non-trivial displays are left in no gold set (22 under the per-paper cap), so the batch is filled with
inline formulas (``$…$``, ``draw_s4.inline_pool``: keyed ``m:<paragraph>:<k>`` as the paper session keys them) of at
least ``INLINE_MIN`` characters that show one of ``draw_s4.WEAK``'s classes, drawn the same way (same rounds, the
per-paper cap counting the displays already taken). Prints the drawn formulas as JSON.
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

SEED, TARGET, PER_PAPER, INLINE_MIN = 20261206, 56, 5, 20
GOLD_FILES = [*draw_s4.GOLD_FILES, HERE / "corpus_s4.jsonl"]


def gold_counts() -> Counter:
    """Formulas per paper over every existing gold file."""
    counts: Counter = Counter()
    for path in GOLD_FILES:
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                paper = json.loads(line).get("paper")
                if paper:
                    counts[paper] += 1
    return counts


def draw(candidates: list[dict], counts: Counter, per: Counter, drawn: list[dict], seed: int = SEED,
         per_paper: int = PER_PAPER, target: int = TARGET) -> list[dict]:
    """Round by round, each paper (fewest gold formulas first) gives its next shuffled candidate."""
    random.Random(seed).shuffle(candidates)
    papers = sorted({eq["paper"] for eq in candidates}, key=lambda p: (counts[p], p))
    queues = {p: [eq for eq in candidates if eq["paper"] == p and len(eq["latex"]) <= draw_s3.MAX_CHARS]
              for p in papers}
    for _ in range(per_paper):
        for paper in papers:
            if queues[paper] and len(drawn) < target and per[paper] < per_paper:
                drawn.append(queues[paper].pop(0))
                per[paper] += 1
    return drawn


def main(draw_pool=draw, gold_files: list | None = None) -> int:
    """Draw the displays, then the inline formulas, with `draw_pool` (a later session's draw passes its own, and
    the gold files it excludes)."""
    if not draw_s3.validate_corpus.PAPERS.exists():
        print(f"skipped: {draw_s3.validate_corpus.PAPERS} is absent")
        return 0
    if gold_files is not None:
        GOLD_FILES[:] = gold_files
    draw_s3.GOLD_FILES[:] = GOLD_FILES
    candidates = [eq for eq in draw_s3.pool() if eq["latex"].strip()]  # an empty row skim lists is no formula
    counts = gold_counts()
    print(len(candidates), "displays in the pool", file=sys.stderr)
    per: Counter = Counter()
    drawn = draw_pool(candidates, counts, per, [])
    pairs, heads = draw_s3.judged()
    inline = [eq for eq in draw_s4.inline_pool(pairs, heads) if len(eq["latex"].strip()) >= INLINE_MIN and
              "graphics" not in eq["latex"] and draw_s4.weak_classes(eq["latex"])]
    print(len(inline), "inline formulas in the pool", file=sys.stderr)
    drawn = draw_pool(inline, counts, per, drawn)
    for eq in drawn:
        eq["weak"] = draw_s4.weak_classes(eq["latex"])
        eq["gold_before"] = counts[eq["paper"]]
    json.dump(drawn, sys.stdout, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
