"""The draw behind ``corpus_s3.jsonl`` (session 3; standard library + ``papermath skim --json``, never the parser).

Pool: every display equation skim lists for the corpus papers that is in none of the gold sets (``verdicts.jsonl``
of ../shared, ``tree_gold/verdicts.jsonl`` and ``corpus.jsonl``, ``tree_fresh/corpus.jsonl``), matched by
``(paper, eq_id)`` or by the first 30 characters of its formula, lone-symbol displays left out: 140 at the draw.
``random.Random(SEED).shuffle`` of the pool (papers alphabetical, skim order), then the first 60 with at most 6 per
paper and at most 1500 characters. Prints the drawn equations as JSON.
"""
from __future__ import annotations

import json
import random
import re
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tree_gold"))
import draw_corpus  # noqa: E402
import validate_corpus  # noqa: E402

ROOT = HERE.parent.parent
GOLD_FILES = [ROOT / "benchmarks/tree_gold/corpus.jsonl", ROOT / "benchmarks/tree_gold/verdicts.jsonl",
              ROOT / "benchmarks/tree_fresh/corpus.jsonl", ROOT.parent / "shared/gold/parser/verdicts.jsonl"]
SEED, TARGET, PER_PAPER, MAX_CHARS = 20261203, 60, 6, 1500


def _canon(latex: str) -> str:
    return re.sub(r"\s+", "", latex)[:30]


def judged() -> tuple[set, set]:
    pairs, heads = set(), set()
    for path in GOLD_FILES:
        for line in path.read_text(encoding="utf-8").splitlines():
            if not line.strip():
                continue
            rec = json.loads(line)
            if rec.get("paper"):
                pairs.add((rec["paper"], rec.get("eq_id")))
                pairs.update((rec["paper"], e) for e in rec.get("eq_ids") or [])
            head = rec.get("latex_head") or (rec.get("latex") or "")[:40]
            if head:
                heads.add((rec.get("paper"), _canon(head)))
    return pairs, heads


def pool() -> list[dict]:
    pairs, heads = judged()
    cache: dict = {}
    out = []
    for folder in sorted(p.name for p in validate_corpus.PAPERS.iterdir() if p.is_dir()):
        eqs = list(validate_corpus.skim_equations(folder, cache).values())
        for i, eq in enumerate(eqs):
            lines = (validate_corpus.PAPERS / folder / eq["file"]).read_text(
                encoding="utf-8", errors="replace").split("\n")
            span = draw_corpus.source_span(lines, eq, eqs[i + 1] if i + 1 < len(eqs) else None)
            if (folder, eq["id"]) in pairs or (folder, _canon(eq["latex"])) in heads or \
                    draw_corpus.trivial(eq["latex"]):
                continue
            out.append({"paper": folder, "eq_id": eq["id"], "number": eq.get("number"), "file": eq["file"],
                        "line": eq["line"], "latex": eq["latex"], "ml": draw_corpus.multi_line(span)})
    return out


def main() -> int:
    if not validate_corpus.PAPERS.exists():
        print(f"skipped: {validate_corpus.PAPERS} is absent")
        return 0
    drawn, per = [], {}
    candidates = pool()
    print(len(candidates), "in the pool", file=sys.stderr)
    random.Random(SEED).shuffle(candidates)
    for eq in candidates:
        if per.get(eq["paper"], 0) >= PER_PAPER or len(eq["latex"]) > MAX_CHARS:
            continue
        per[eq["paper"]] = per.get(eq["paper"], 0) + 1
        drawn.append(eq)
        if len(drawn) >= TARGET:
            break
    json.dump(drawn, sys.stdout, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
