"""LaTeX → plain text for titles, captions, cells and headings. Tables say what each command does."""
from __future__ import annotations

import re
from collections.abc import Callable
from typing import NamedTuple

from .macros import read_group, read_optional
from .tokens import ALIGN, CS, MATH, PAR, SPACE, TEXT, TILDE, Token, detokenize

# Commands whose argument is the visible text.
UNWRAP = {
    "textbf", "textit", "emph", "textsc", "texttt", "textrm", "textsf", "textmd", "textup", "textsl",
    "underline", "uline", "mbox", "hbox", "text", "textnormal", "small", "large", "Large", "huge",
    "fbox", "makebox", "framebox", "centerline", "ul", "textcolor", "colorbox", "highlight", "hl",
    "protect", "nolinkurl", "footnotesize", "scriptsize", "tiny", "normalsize", "bfseries", "mathrm",
    "mathbf", "textsuperscript", "textsubscript", "boldsymbol", "bm", "ensuremath", "titlefont",
}
# Commands that take leading non-text arguments before the visible one: name → how many to drop.
DROP_LEADING_ARGS = {"textcolor": 1, "colorbox": 1, "href": 1, "makebox": 0, "rotatebox": 1, "scalebox": 1,
                     "resizebox": 2, "raisebox": 1, "multicolumn": 2, "multirow": 2, "parbox": 1}
# Commands dropped together with their arguments: name → number of mandatory arguments.
DROP = {
    "label": 1, "cite": 1, "citep": 1, "citet": 1, "citealp": 1, "citeauthor": 1, "citeyear": 1, "nocite": 1,
    "vspace": 1, "hspace": 1, "includegraphics": 1, "thanks": 1, "footnote": 1, "footnotemark": 0,
    "color": 1, "setlength": 2, "addtolength": 2, "vskip": 0, "hskip": 0, "input": 1, "url": 1,
    "newline": 0, "linebreak": 0, "pagebreak": 0, "newpage": 0, "clearpage": 0, "centering": 0,
    "noindent": 0, "par": 0, "bigskip": 0, "medskip": 0, "smallskip": 0, "hfill": 0, "vfill": 0,
    "quad": 0, "qquad": 0, "xspace": 0, "maketitle": 0, "toprule": 0, "midrule": 0, "bottomrule": 0,
    "hline": 0, "cline": 1, "cmidrule": 1, "raggedright": 0, "raggedleft": 0, "normalfont": 0,
    "itshape": 0, "bf": 0, "it": 0, "rm": 0, "sf": 0, "tt": 0, "sc": 0, "em": 0, "selectfont": 0,
    "fontsize": 2, "phantom": 1, "vphantom": 1, "hphantom": 1, "index": 1, "affiliation": 1, "email": 1,
    "icmlaffiliation": 2, "icmlcorrespondingauthor": 2, "icmlkeywords": 1, "and": 0, "AND": 0,
}
REF_COMMANDS = {"ref": "", "eqref": "", "autoref": "", "Autoref": "", "cref": "", "Cref": "", "pageref": "",
                "nameref": "", "Eqref": "", "figref": "", "secref": "", "tabref": "", "subref": "", "labelcref": "",
                "crefrange": "", "Crefrange": ""}
SYMBOLS = {"&": "&", "%": "%", "$": "$", "#": "#", "_": "_", "{": "{", "}": "}", "\\": " ", ",": " ", ";": " ",
           " ": " ", "-": "", "/": "", "ldots": "…", "dots": "…", "LaTeX": "LaTeX", "TeX": "TeX", "S": "§",
           "textendash": "–", "textemdash": "—", "textquoteright": "’", "ss": "ß", "o": "ø", "ae": "æ",
           "i": "i", "l": "ł", "textbackslash": "\\", "copyright": "©", "dag": "†", "ddag": "‡", "textbar": "|",
           "textless": "<", "textgreater": ">", "textasciitilde": "~", "ldots ": "…", "@": ""}
ACCENTS = {"'", "`", "^", "\"", "~", "=", ".", "u", "v", "H", "c", "d", "b", "r", "k", "t"}



REF_OPEN, REF_SEP, REF_CLOSE = "\ue000", "\ue002", "\ue001"
"""Brackets around a reference (command, separator, labels) in text whose references are resolved after the
whole document is read."""
_REF_MARK = re.compile(REF_OPEN + "(?:([^" + REF_SEP + REF_CLOSE + "]*)" + REF_SEP + ")?(.*?)" + REF_CLOSE)


def plain_text(tokens: list[Token], text: str, keep_math: bool = True, mark_refs: bool = False) -> str:
    """Readable text of a token list: formatting removed, math kept as `$…$` LaTeX (or dropped).

    A `\\ref` prints as "??" — or, with `mark_refs`, as its command and labels between REF_OPEN and REF_CLOSE,
    for `resolve_refs` once every label is known."""
    out: list[str] = []
    _plain(list(tokens), text, keep_math, out, mark_refs)
    s = "".join(out)
    s = s.replace("``", "“").replace("''", "”").replace("---", "—").replace("--", "–")
    return " ".join(s.split())


def resolve_refs(text: str, numbers) -> str:
    """Replace marked references with what they print: `numbers` is a label → number dict (a reference prints
    its number, `\\eqref` in parentheses; "??" when unresolved, as LaTeX prints) or a `refs.RefStyle`."""
    if hasattr(numbers, "render"):
        return _REF_MARK.sub(lambda m: numbers.render(m.group(1) or "ref", m.group(2)), text)
    return _REF_MARK.sub(lambda m: _number_text(m.group(1), m.group(2), numbers) or "??", text)


def resolve_known_refs(text: str, numbers: dict[str, str | None]) -> str:
    """Replace the marked references whose labels are known already; later ones stay marked."""
    return _REF_MARK.sub(lambda m: _number_text(m.group(1), m.group(2), numbers) or m.group(), text)


def _number_text(command: str | None, labels: str, numbers: dict[str, str | None]) -> str | None:
    found = [numbers.get(label.strip()) for label in labels.split(",")]
    if not found or not all(found):
        return None
    if command == "eqref":
        return ", ".join(f"({n})" for n in found)
    return ", ".join(n for n in found if n)


class _PlainRun(NamedTuple):
    """One token list being read as plain text (see `plain_text`)."""

    toks: list[Token]
    text: str
    keep_math: bool
    out: list[str]
    mark_refs: bool


def _plain(toks: list[Token], text: str, keep_math: bool, out: list[str], mark_refs: bool = False) -> None:
    run = _PlainRun(toks, text, keep_math, out, mark_refs)
    i = 0
    while i < len(toks):  # reading an optional argument may split a token: the length is read each time
        tok = toks[i]
        if tok.kind == CS:
            i = _COMMAND_READERS.get(tok.text, _unwrap)(run, i)
        else:
            i = _KIND_READERS.get(tok.kind, _skip)(run, i)


# Each reader appends what the token at `i` (and its arguments) prints, and returns the index after them.
def _text(run: _PlainRun, i: int) -> int:
    run.out.append(run.toks[i].text)
    return i + 1


def _space(run: _PlainRun, i: int) -> int:
    run.out.append(" ")
    return i + 1


def _skip(run: _PlainRun, i: int) -> int:
    return i + 1  # braces vanish; a script's marker goes, its argument is read as text


def _dollar_math(run: _PlainRun, i: int) -> int:
    toks, n = run.toks, len(run.toks)
    j = i + 1
    double = j < n and toks[j].kind == MATH
    if double:
        j += 1
    k = j
    while k < n and toks[k].kind != MATH:
        k += 1
    if run.keep_math:
        run.out.append("$" + detokenize(toks[j:k], run.text).strip() + "$")
    return k + (2 if double else 1)


def _symbol(run: _PlainRun, i: int) -> int:
    run.out.append(SYMBOLS[run.toks[i].text])
    return i + 1


def _reference(run: _PlainRun, i: int) -> int:
    toks, name = run.toks, run.toks[i].text
    j = i + 1
    if j < len(toks) and toks[j].kind == TEXT and toks[j].text == "*":
        j += 1
    _, j = read_optional(toks, j)
    label, j = read_group(toks, j)
    if label is not None and name in ("crefrange", "Crefrange"):
        end_label, j = read_group(toks, j)
        label = label + [Token(TEXT, ",", 0, 0, True)] + (end_label or [])
    if run.mark_refs and label is not None:
        run.out.append(REF_OPEN + name + REF_SEP + "".join(t.text for t in label).strip() + REF_CLOSE)
    else:
        run.out.append("??")
    return j


def _pdf_string(run: _PlainRun, i: int) -> int:
    """`\\texorpdfstring{TeX}{PDF}`: the TeX string is what the PDF prints; the other is a bookmark's."""
    shown, j = read_group(run.toks, i + 1)
    _, j = read_group(run.toks, j)
    _plain(list(shown or []), run.text, run.keep_math, run.out, run.mark_refs)
    return max(j, i + 1)


def _drop(run: _PlainRun, i: int) -> int:
    toks = run.toks
    j = i + 1
    if j < len(toks) and toks[j].kind == TEXT and toks[j].text.startswith("*"):
        j += 1
    _, j = read_optional(toks, j)
    for _ in range(DROP[toks[i].text]):
        _, j = read_group(toks, j)
    return max(j, i + 1)


def _inline_math(run: _PlainRun, i: int) -> int:
    """`\\( … \\)`, `\\[ … \\]`."""
    toks, n = run.toks, len(run.toks)
    close = ")" if toks[i].text == "(" else "]"
    k = i + 1
    while k < n and not (toks[k].kind == CS and toks[k].text == close):
        k += 1
    if run.keep_math:
        run.out.append("$" + detokenize(toks[i + 1:k], run.text).strip() + "$")
    return k + 1


def _unwrap(run: _PlainRun, i: int) -> int:
    """Any other command goes with its optional and leading non-text arguments; the visible argument (if any) is
    read on as ordinary tokens, its braces vanishing."""
    toks = run.toks
    name = toks[i].text
    _, j = read_optional(toks, i + 1)
    for _ in range(DROP_LEADING_ARGS.get(name, 0)):
        _, j = read_group(toks, j)
    return j


_KIND_READERS: dict[str, Callable[[_PlainRun, int], int]] = {
    TEXT: _text, SPACE: _space, PAR: _space, TILDE: _space, ALIGN: _space, MATH: _dollar_math}
"""Token kind → its reader (other than a command's); any other kind is skipped."""

_COMMAND_READERS: dict[str, Callable[[_PlainRun, int], int]] = {
    # built from the lowest precedence up, so that a name in two tables is read by the earlier one of the tables
    "(": _inline_math, "[": _inline_math, **dict.fromkeys(DROP, _drop), "texorpdfstring": _pdf_string,
    **dict.fromkeys(REF_COMMANDS, _reference), **dict.fromkeys(ACCENTS, _skip), **dict.fromkeys(SYMBOLS, _symbol)}
"""Command name → its reader; any other command is unwrapped (`_unwrap`)."""


def collapse(s: str) -> str:
    """Whitespace collapsed to single spaces (what `\\s+` → " " and a strip give: `str.split` splits on the same
    characters)."""
    return " ".join(s.split())
