"""The draw behind ``corpus_s8.jsonl`` (session 8; standard library + ``papermath skim --json`` and the document
model, never the parser).

``draw_s7.py``'s pool and rounds with ``corpus_s7.jsonl`` added to the gold it excludes and this batch's own seed,
per-paper cap and target: every display equation skim lists that is in no gold set, then the inline formulas of at
least ``draw_s6.INLINE_MIN`` characters that show a weak class of ``draw_s4.WEAK``, a formula repeated in its paper
kept once, ``random.Random(SEED)``-shuffled, in rounds where the papers with fewest formulas in the existing gold
give theirs first. Prints the drawn formulas as JSON.
"""
from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import draw_s6  # noqa: E402
import draw_s7  # noqa: E402

SEED, TARGET, PER_PAPER = 20261208, 64, 4
GOLD_FILES = [*draw_s7.GOLD_FILES, HERE / "corpus_s7.jsonl"]


def draw(candidates: list[dict], counts: Counter, per: Counter, drawn: list[dict]) -> list[dict]:
    """`draw_s6.draw` with this batch's seed, per-paper cap and target, a repeated formula kept once."""
    return draw_s6.draw(draw_s7.distinct(candidates), counts, per, drawn, SEED, PER_PAPER, TARGET)


def main() -> int:
    return draw_s6.main(draw, GOLD_FILES)


if __name__ == "__main__":
    sys.exit(main())
