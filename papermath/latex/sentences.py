"""Sentence splitting that never splits inside math nor after abbreviations (e.g., i.e., Fig., et al.)."""
from __future__ import annotations

import re

ABBREVIATIONS = frozenset({
    "e.g", "i.e", "etc", "cf", "vs", "fig", "figs", "eq", "eqs", "eqn", "sec", "secs", "tab", "al", "resp",
    "approx", "no", "ref", "refs", "app", "appx", "thm", "def", "lem", "prop", "cor", "alg", "ch", "dr",
    "mr", "ms", "prof", "viz", "w.r.t", "wrt", "st", "i.i.d", "iid", "incl", "max", "min", "avg", "std",
    "var", "et al", "sect", "nos", "vol", "pp", "ed", "eds",
})

_MATH = re.compile(r"\$\$.*?\$\$|\$(?:\\.|[^$\\])*\$|\\\(.*?\\\)|\\\[.*?\\\]", re.DOTALL)
_BOUNDARY = re.compile(r"([.!?])([\"”’)\]]*)\s+(?=[A-Z0-9\\$(\[“\"‘])")
_WORD_BEFORE = re.compile(r"([A-Za-z][A-Za-z.]*)$")


def _mask(m: re.Match) -> str:
    formula = m.group()
    head = formula[:-1].rstrip()  # the formula up to its closing delimiter
    if len(formula) > 3 and formula[0] == "$" and formula[1] != "$" and head.endswith(".") and \
            not head.endswith(".."):
        return "$" + "x" * (len(formula) - 2) + "."
    return "$" + "x" * (len(formula) - 1)


def split_sentences(text: str) -> list[tuple[int, int]]:
    """(start, end) character ranges of the sentences of `text`."""
    # Math is masked (a full stop inside it never ends a sentence) but keeps its `$`, which may start one; a
    # formula that closes with a full stop ("… = \\frac{1}{2}.$ Then") ends its sentence.
    masked = _MATH.sub(_mask, text)
    spans: list[tuple[int, int]] = []
    start = 0
    for m in _BOUNDARY.finditer(masked):
        end = m.end(2)
        if m.group(1) == ".":
            before = _WORD_BEFORE.search(masked, max(0, m.start(1) - 40), m.start(1))
            if before:
                word = before.group(1).lower().rstrip(".")
                if word in ABBREVIATIONS or (len(before.group(1)) == 1 and before.group(1).isupper()):
                    continue
                tail = masked[max(0, m.start(1) - 6):m.start(1)].lower()
                if tail.endswith("et al"):
                    continue
        if end > start:
            spans.append((start, end))
        start = m.end()
    if start < len(text) and text[start:].strip():
        spans.append((start, len(text)))
    return spans
