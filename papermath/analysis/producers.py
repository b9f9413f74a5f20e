"""What a display's "where" clause says its left side is, through the factor that produces it.

A row `k^R_t = RoPE(W^{KR} h_t)` is often explained only through its factors: "where … $W^{KR} \\in
\\mathbb{R}^{d \\times d}$ is the matrix used to produce the decoupled key that carries RoPE". The noun phrase after
"to produce" names the left side; no sentence writes k^R_t itself with a definition. This clause says what the
symbol is better than the lead-in of the whole display ("The core of MLA is the low-rank joint compression …:"),
which speaks of every row at once.
"""
from __future__ import annotations

import re

from ..latex.document import Equation
from .candidates import lead_paragraph, paragraph_index
from .cues import LOSS_NAME
from .definitions import sentence_mentions
from .reading import Definition
from .symbols import SymbolUse, written_form

_PRODUCES = re.compile(r"^(?:the|a|an)\s+(?:[\w\-]+\s+){0,3}?(?:(?:used|applied)\s+)?to\s+"
                       r"(?:produce|generate|compute|obtain|yield|output|form)\s+(?:the|a|an)\s+[A-Za-z]", re.I)
"""A description that says what its subject produces: "the matrix (used) to produce the decoupled queries …"."""


def produced_by_clause(index, home: Equation, use: SymbolUse) -> Definition | None:
    """The clause of `home`'s "where" paragraph that describes a factor of `home`'s right side as what produces
    the symbol, `home`'s left side; None when there is none. (Only a strong definition of a factor counts: "$W$ is
    the matrix used to produce the …", not a passing mention.)"""
    info = index.formulas[home.id][0] if home.id in index.formulas else None
    if info is None or not any(u.lhs and u.key == use.key for u in info.uses):
        return None
    factors = {u.key for u in info.uses if not u.lhs} | {written_form(u) for u in info.uses if not u.lhs}
    para = index.doc.paragraph(home.paragraph_after)
    if para is None:
        return None
    for k, sentence in enumerate(para.sentences):
        for m in sentence_mentions(sentence.text, paragraph_index(para.id), k, index.ordinals):
            if m is None or m.strength < 3 or not set(m.keys) & factors or {use.key, written_form(use)} & set(m.keys):
                continue
            if _PRODUCES.match(m.description or ""):
                from .read import _section_label  # (read imports this module)
                return Definition(m.quote, _section_label(index.doc, para.section), sentence.span.file,
                                  sentence.span.line, "produced-by", para.id)
    return None



def loss_named_in_words(index, eq: Equation, use: SymbolUse) -> Definition | None:
    """The sentence of the display's lead paragraph that names a loss by its label in words ("the Dice loss" for
    `\\mathcal{L}_{\\textrm{dice}}`, beside "the binary-cross entropy (BCE)" for the acronym): no formula writes it,
    but the words say which loss it is. Only a loss: a weight `\\lambda_{\\textrm{dice}}` is not "the Dice loss"."""
    from .read import _WORD_LABEL, _section_label  # (read imports this module)
    labels = _WORD_LABEL.findall(use.key)
    if len(labels) != 1 or not LOSS_NAME.match(use.key):
        return None
    para = lead_paragraph(index.doc, eq)
    named = re.compile(r"\b" + re.escape(labels[0]) + r"\s+loss\b", re.I)
    for sentence in para.sentences if para is not None else ():
        if named.search(re.sub(r"\$[^$]*\$", " ", sentence.text)):
            return Definition(sentence.text.strip(), _section_label(index.doc, para.section), sentence.span.file,
                              sentence.span.line, "named-in-words", para.id)
    return None
