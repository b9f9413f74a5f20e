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

import sys
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import draw_s3  # noqa: E402
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
    """`draw_s6.draw` with this batch's seed, per-paper cap and target, a repeated formula kept once."""
    return draw_s6.draw(distinct(candidates), counts, per, drawn, SEED, PER_PAPER, TARGET)


def main() -> int:
    return draw_s6.main(draw, GOLD_FILES)


if __name__ == "__main__":
    sys.exit(main())
