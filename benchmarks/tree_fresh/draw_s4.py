"""The draw behind ``corpus_s4.jsonl`` (session 4; standard library + the document model, never the parser).

Pool: the display equations ``papermath skim --json`` lists that are in no gold set (``draw_s3.GOLD_FILES`` plus
``corpus_s3.jsonl``), and the inline formulas (``$…$``) of the paragraphs (``load_document``: the document model),
keyed ``m:<paragraph>:<k>`` as the paper session keys them. Each candidate is scored by the weak classes of the
session-3 held-out figures its LaTeX shows (regular expressions on the source text, below); the draw takes, per
class in turn, the next candidate of ``random.Random(SEED)``-shuffled order that shows it, at most 4 per paper,
45 displays and 20 inline formulas of at least 12 characters, then 8 more inline formulas of at least 20
characters that show the two weakest classes (reduction and function-argument scope). Prints the drawn formulas as JSON.
"""
from __future__ import annotations

import json
import random
import re
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import draw_s3  # noqa: E402

SEED, DISPLAYS, INLINE, WEAKEST, PER_PAPER = 20261204, 45, 20, 8, 4
GOLD_FILES = [*draw_s3.GOLD_FILES, HERE / "corpus_s3.jsonl"]
RED = r"\\(?:sum|prod|max|min|arg\s*max|arg\s*min|argmax|argmin|mathbb\{E\}|lim|sup|inf)\b"
WEAK = {
    "REDUCTION_SCOPE": re.compile(RED + r"(?:_(?:\{(?:[^{}]|\{[^{}]*\})*\}|\S))?(?:\^(?:\{[^{}]*\}|\S))?\s*"
                                  r"(?!\\left|\[|\(|\\\{|\{)[\\A-Za-z]"),
    "MULTI_LETTER_NAME": re.compile(r"\\(?:mathrm|operatorname|textrm|mathit|text)\{[A-Za-z]{2,}\}|"
                                    r"(?<![\\A-Za-z])[A-Z]{2,}(?![a-z])"),
    "TEXT_AS_PRODUCT": re.compile(r"\\text(?:rm|bf|it)?\{[^}]*[a-z]{2,}"),
    "FUNCTION_ARG_SCOPE": re.compile(r"\\(?:log|exp|det|tr|sin|cos|tanh|sigma)\s*(?:\\frac|\\left|[A-Za-z]|\\[a-z])"),
    "GRADIENT_SCOPE": re.compile(r"\\nabla"),
    "BRACKET_ARGS_AS_INTERVAL": re.compile(r"(?:[A-Za-z}]|\\right\))\s*(?:\\left)?\[|\\left\["),
    "LABEL_AS_POWER": re.compile(r"\^\{?\s*(?:\\text|\\mathrm|[a-zA-Z(]|\\[a-z]+)"),
    "APPLY_AS_PRODUCT": re.compile(r"[A-Za-z}](?:_\{[^{}]*\}|_\S)?(?:\^\{[^{}]*\}|\^\S)?\s*\("),
}


def weak_classes(latex: str) -> list[str]:
    return [name for name, rx in WEAK.items() if rx.search(latex)]


def inline_pool(pairs: set, heads: set) -> list[dict]:
    from papermath.latex import load_document
    out = []
    for folder in sorted(p.name for p in draw_s3.validate_corpus.PAPERS.iterdir() if p.is_dir()):
        doc = load_document(str(draw_s3.validate_corpus.PAPERS / folder))
        counts: dict[str, int] = {}
        for m in doc.inline_math:
            k = counts.get(m.paragraph, 0)
            counts[m.paragraph] = k + 1
            key = f"m:{m.paragraph}:{k}"
            if len(m.latex.strip()) < 12 or (folder, key) in pairs or (folder, draw_s3._canon(m.latex)) in heads:
                continue
            out.append({"paper": folder, "eq_id": key, "number": None, "file": m.span.file, "line": m.span.line,
                        "latex": m.latex, "ml": False, "inline": True})
    return out


def draw(candidates: list[dict], target: int, per: dict) -> list[dict]:
    random.Random(SEED).shuffle(candidates)
    drawn: list[dict] = []
    names = list(WEAK)
    while len(drawn) < target:
        before = len(drawn)
        for name in names:
            for eq in candidates:
                if eq in drawn or per.get(eq["paper"], 0) >= PER_PAPER or len(eq["latex"]) > draw_s3.MAX_CHARS:
                    continue
                if name in weak_classes(eq["latex"]):
                    per[eq["paper"]] = per.get(eq["paper"], 0) + 1
                    drawn.append(eq)
                    break
            if len(drawn) >= target:
                break
        if len(drawn) == before:
            break
    return drawn


def main() -> int:
    if not draw_s3.validate_corpus.PAPERS.exists():
        print(f"skipped: {draw_s3.validate_corpus.PAPERS} is absent")
        return 0
    draw_s3.GOLD_FILES[:] = GOLD_FILES
    pairs, heads = draw_s3.judged()
    displays = draw_s3.pool()
    inline = inline_pool(pairs, heads)
    print(len(displays), "displays and", len(inline), "inline formulas in the pool", file=sys.stderr)
    per: dict[str, int] = {}
    drawn = draw(displays, DISPLAYS, per) + draw(inline, INLINE, {})
    weakest = [eq for eq in inline if eq not in drawn and len(eq["latex"]) >= 20 and "graphics" not in eq["latex"]
               and {"REDUCTION_SCOPE", "FUNCTION_ARG_SCOPE"} & set(weak_classes(eq["latex"]))]
    drawn += draw(weakest, WEAKEST, {})
    for eq in drawn:
        eq["weak"] = weak_classes(eq["latex"])
    json.dump(drawn, sys.stdout, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
