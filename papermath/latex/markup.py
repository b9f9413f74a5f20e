"""Clean formulas: the mathematics kept, presentation markup dropped.

A formula as stored (`Equation.latex`, `InlineMath.latex`) keeps what it says, not how it was coloured, boxed,
annotated or sized: `\\ensuremath{x}` → `x`, `\\textcolor{red}{x}` → `x`, `\\eqnmarkbox[blue]{n}{x}` → `x`,
`\\annotate{…}{n}{text}` and `\\footnotesize` → nothing. Each command is a spec (how many optional arguments,
then each mandatory argument kept or dropped), so a new package is one line here, not a new branch. Tokens
keep their source offsets, so a cleaned formula still maps back to the characters it came from.
"""
from __future__ import annotations

import operator

from .tokens import CS, EGROUP, MATH, SPACE, TEXT, Token

KEEP, DROP = "keep", "drop"
# name → (optional arguments, mandatory arguments in order: kept or dropped)
MARKUP: dict[str, tuple[int, tuple[str, ...]]] = {
    # wrappers whose argument is the mathematics
    "ensuremath": (0, (KEEP,)), "texorpdfstring": (0, (KEEP, DROP)), "hl": (0, (KEEP,)),
    "highlight": (0, (KEEP,)), "protect": (0, ()),
    # colour (xcolor, color)
    "textcolor": (1, (DROP, KEEP)), "mathcolor": (1, (DROP, KEEP)), "colorbox": (1, (DROP, KEEP)),
    "fcolorbox": (2, (DROP, DROP, KEEP)), "color": (1, (DROP,)), "colorlet": (1, (DROP, DROP)),
    "definecolor": (1, (DROP, DROP, DROP)),
    # annotate-equations, tikzmark
    "eqnmarkbox": (1, (DROP, KEEP)), "eqnmark": (1, (DROP, KEEP)), "eqnhighlight": (1, (DROP, KEEP)),
    "eqncolor": (1, (DROP, KEEP)), "eqnhighlightcolorbox": (0, (DROP, KEEP)),
    "eqnhighlightfbox": (0, (DROP, KEEP)), "tikzmarknode": (1, (DROP, KEEP)), "tikzmark": (1, (DROP,)),
    "annotate": (1, (DROP, DROP, DROP)), "annotatetwo": (1, (DROP, DROP, DROP, DROP)),
    "addvalue": (0, (DROP, DROP)), "subnode": (1, (DROP, KEEP)),
    # font sizes and spacing that say nothing mathematical
    "tiny": (0, ()), "scriptsize": (0, ()), "footnotesize": (0, ()), "small": (0, ()), "normalsize": (0, ()),
    "large": (0, ()), "Large": (0, ()), "LARGE": (0, ()), "huge": (0, ()), "Huge": (0, ()),
    "fontsize": (0, (DROP, DROP)), "selectfont": (0, ()), "vspace": (0, (DROP,)), "hspace": (0, (DROP,)),
    "setlength": (0, (DROP, DROP)), "addtolength": (0, (DROP, DROP)), "allowdisplaybreaks": (1, ()),
    "displaybreak": (1, ()), "noalign": (0, (DROP,)), "expandafter": (0, ()), "begingroup": (0, ()),
    "endgroup": (0, ()), "relax": (0, ()), "strut": (0, ()), "mathstrut": (0, ()), "centering": (0, ()),
    "vskip": (0, ()), "hskip": (0, ()), "noindent": (0, ()),
}
# \mathchoice{display}{text}{script}{scriptscript}: a display formula shows the first.
CHOICES = {"mathchoice": 4}
STARRED = frozenset({"vspace", "hspace"})
_DIMENSION_AFTER = frozenset({"vskip", "hskip"})


_NAMES = frozenset(MARKUP) | frozenset(CHOICES)
"""Every command `clean_formula` removes or unwraps (one set lookup per token in the scans below)."""
_TEXT = operator.itemgetter(1)  # a token's text


def is_markup(name: str) -> bool:
    return name in _NAMES


def clean_formula(tokens: list[Token]) -> list[Token]:
    """The formula's tokens without presentation markup (see MARKUP). Never fails: unknown shapes pass."""
    if _NAMES.isdisjoint(map(_TEXT, tokens)):  # no such command (a word spelled like one only costs the walk)
        return tokens
    from .macros import read_group, read_optional  # macros records definitions with is_markup: no cycle at import
    toks = list(tokens)
    out: list[Token] = []
    i, n = 0, len(toks)
    while i < n:
        tok = toks[i]
        if tok.kind != CS or not (tok.text in MARKUP or tok.text in CHOICES):
            out.append(tok)
            i += 1
            continue
        name = tok.text
        j = i + 1
        if name in CHOICES:
            first, j = read_group(toks, j)
            for _ in range(CHOICES[name] - 1):
                _, j = read_group(toks, j)
            out.extend(clean_formula(first or []))
            i, n = max(j, i + 1), len(toks)
            continue
        optional, mandatory = MARKUP[name]
        if name in STARRED and j < n and toks[j].kind == TEXT and toks[j].text == "*":
            j += 1
        for _ in range(optional):
            _, j = read_optional(toks, j)
        kept: list[Token] = []
        complete = True
        for role in mandatory:
            group, k = read_group(toks, j)
            if group is None:
                # A one-token argument (\color red is not LaTeX, but \textcolor{red}x is)
                k = _skip_spaces(toks, j)
                if k >= len(toks) or toks[k].kind == EGROUP:
                    complete = False
                    break
                group, k = [toks[k]], k + 1
            if role == KEEP:
                kept.extend(group)
            j = k
        n = len(toks)
        if not complete:
            i += 1  # the command alone goes; what follows stays
            continue
        if name in _DIMENSION_AFTER:
            j = _skip_dimension(toks, j)
        out.extend(clean_formula(kept))
        i = max(j, i + 1)
    return out


def _skip_spaces(toks: list[Token], j: int) -> int:
    while j < len(toks) and toks[j].kind == SPACE:
        j += 1
    return j


def _skip_dimension(toks: list[Token], j: int) -> int:
    """Past `2pt`, `-1.5ex plus 1fil` after \\vskip/\\hskip."""
    k = _skip_spaces(toks, j)
    if k < len(toks) and toks[k].kind == TEXT and toks[k].text[:1] in "-+.0123456789":
        return k + 1
    return j



def clean_math_runs(tokens: list[Token]) -> list[Token]:
    """Running text with the formulas in it (`$…$`, `\\(…\\)`) cleaned; the words around them untouched."""
    if _NAMES.isdisjoint(map(_TEXT, tokens)):  # no such command (a word spelled like one only costs the walk)
        return tokens
    out: list[Token] = []
    i, n = 0, len(tokens)
    while i < n:
        tok = tokens[i]
        closing = MATH if tok.kind == MATH else (")" if tok.kind == CS and tok.text == "(" else None)
        if closing is None:
            out.append(tok)
            i += 1
            continue
        k = i + 1
        while k < n and not (tokens[k].kind == MATH if closing == MATH else
                             (tokens[k].kind == CS and tokens[k].text == closing)):
            k += 1
        out.append(tok)
        out.extend(clean_formula(tokens[i + 1:k]))
        if k < n:
            out.append(tokens[k])
        i = k + 1
    return out
