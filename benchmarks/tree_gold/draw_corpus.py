"""Reproduce the random draw behind ``corpus.jsonl`` (standard library; runs ``papermath skim --json`` only).

Pool: every display equation skim lists for the folders of ``../shared/corpus/papers``, minus the
``(paper, eq_id)`` pairs judged in ``../shared/gold/parser/verdicts.jsonl``. An equation is multi-line when its
source text (from its line/column to the next equation or the end of its environment) holds a ``\\\\`` row break
once breaks inside cases/matrix/array environments and ``\\substack`` are ignored. With
``random.Random(SEED).shuffle`` of the pool (skim order, papers alphabetical): phase 1 takes, per paper, the first
``PER_PAPER`` single-line equations in shuffled order; phase 2 every multi-line one; phase 3 the rest in shuffled
order until ``TARGET``. A lone-symbol display is skipped (and counted). The draw was made at papermath 72d67c5;
skim ids may shift later, which is why every record also carries ``latex_head``, ``file`` and ``line``.

Run: ``python benchmarks/tree_gold/draw_corpus.py`` prints the drawn (paper, eq_id) list and the counts.
"""

from __future__ import annotations

import json
import random
import re
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import validate_corpus

SEED, TARGET, PER_PAPER = 20261201, 240, 2
ENV_END = re.compile(r"\\end\{(equation\*?|align\*?|multline\*?|gather\*?|eqnarray\*?|flalign\*?)\}|\$\$|\\\]")
NESTED = re.compile(r"\\begin\{(cases|bmatrix|pmatrix|matrix|vmatrix|Bmatrix|array|smallmatrix|dcases|rcases)\}"
                    r".*?\\end\{\1\}", re.DOTALL)
ROW_END = re.compile(r"(\\\\(\[[^\]]*\])?|\\(numberthis|label\{[^}]*\}|nonumber|notag|end\{\w+\*?\})|\s|[.,])*$")


def source_span(lines: list[str], eq: dict, nxt: dict | None) -> str:
    row, col = eq["line"] - 1, eq["column"] - 1
    text = "\n".join(lines[row:row + 80])[col:]
    if nxt and nxt["file"] == eq["file"] and nxt["line"] >= eq["line"]:
        off = sum(len(x) + 1 for x in lines[row:nxt["line"] - 1]) - col + nxt["column"] - 1
        text = text[:off] if off > 0 else text
    end = ENV_END.search(text[1:])
    return text[:end.start() + 1] if end else text


def multi_line(span: str) -> bool:
    prev = None
    while prev != span:
        prev, span = span, NESTED.sub("X", span)
    span = re.sub(r"\\substack\{(?:[^{}]|\{[^{}]*\})*\}", "X", span)
    span = "\n".join(re.sub(r"(?<!\\)%.*", "", x) for x in span.split("\n"))
    return "\\\\" in ROW_END.sub("", span.rstrip())


def trivial(latex: str) -> bool:
    s = re.sub(r"\\label\{[^}]*\}|[\s.,;&]", "", latex)
    return re.fullmatch(r"(\\[A-Za-z]+|[A-Za-z0-9])(_(\{[^{}]*\}|[A-Za-z0-9]))?", s) is not None


def pool() -> list[dict]:
    judged = validate_corpus.judged_pairs()
    cache: dict = {}
    out = []
    for folder in sorted(p.name for p in validate_corpus.PAPERS.iterdir() if p.is_dir()):
        eqs = list(validate_corpus.skim_equations(folder, cache).values())
        for i, eq in enumerate(eqs):
            lines = (validate_corpus.PAPERS / folder / eq["file"]).read_text(
                encoding="utf-8", errors="replace").split("\n")
            span = source_span(lines, eq, eqs[i + 1] if i + 1 < len(eqs) else None)
            if (folder, eq["id"]) not in judged:
                out.append({"paper": folder, "eq_id": eq["id"], "latex": eq["latex"], "ml": multi_line(span)})
    return out


def draw() -> tuple[list[dict], int]:
    pool_ = pool()
    order = list(range(len(pool_)))
    random.Random(SEED).shuffle(order)
    chosen: list[int] = []
    skipped: list[int] = []

    def take(i: int) -> bool:
        if i in chosen or i in skipped:
            return False
        if trivial(pool_[i]["latex"]):
            skipped.append(i)
            return False
        chosen.append(i)
        return True

    for paper in sorted({p["paper"] for p in pool_}):
        n = 0
        for i in order:
            if pool_[i]["paper"] == paper and not pool_[i]["ml"] and n < PER_PAPER and take(i):
                n += 1
    for i in order:
        if pool_[i]["ml"]:
            take(i)
    for i in order:
        if len(chosen) >= TARGET:
            break
        take(i)
    return [pool_[i] for i in chosen], len(skipped)


def main() -> int:
    if not validate_corpus.PAPERS.exists():
        print(f"skipped: {validate_corpus.PAPERS} is absent")
        return 0
    drawn, skipped = draw()
    for d in drawn:
        print(json.dumps({"paper": d["paper"], "eq_id": d["eq_id"], "multi_line": d["ml"]}))
    per = Counter(d["paper"] for d in drawn)
    print(f"{len(drawn)} drawn, {sum(d['ml'] for d in drawn)} multi-line, {skipped} skipped as trivial; "
          + ", ".join(f"{p} {n}" for p, n in sorted(per.items())), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
