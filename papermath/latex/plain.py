"""LaTeX → plain text for titles, captions, cells and headings. Tables say what each command does."""
from __future__ import annotations

import re

from .macros import read_group, read_optional
from .tokens import ALIGN, BGROUP, CS, EGROUP, MATH, PAR, SPACE, SUB, SUP, TEXT, TILDE, Token, detokenize

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


def _plain(toks: list[Token], text: str, keep_math: bool, out: list[str], mark_refs: bool = False) -> None:
    i = 0
    n = len(toks)
    while i < n:
        tok = toks[i]
        kind = tok.kind
        if kind == TEXT:
            out.append(tok.text)
            i += 1
        elif kind in (SPACE, PAR) or kind == TILDE:
            out.append(" ")
            i += 1
        elif kind in (BGROUP, EGROUP, ALIGN):
            out.append(" " if kind == ALIGN else "")
            i += 1
        elif kind == MATH:
            j = i + 1
            double = j < n and toks[j].kind == MATH
            if double:
                j += 1
            k = j
            while k < n and toks[k].kind != MATH:
                k += 1
            inner = toks[j:k]
            if keep_math:
                out.append("$" + detokenize(inner, text).strip() + "$")
            i = k + (2 if double else 1)
        elif kind in (SUP, SUB):
            i += 1
        elif kind == CS:
            name = tok.text
            if name in SYMBOLS:
                out.append(SYMBOLS[name])
                i += 1
            elif name in ACCENTS:
                i += 1  # the accented letter follows and is kept
            elif name in REF_COMMANDS:
                j = i + 1
                if j < n and toks[j].kind == TEXT and toks[j].text == "*":
                    j += 1
                _, j = read_optional(toks, j)
                label, j = read_group(toks, j)
                if label is not None and name in ("crefrange", "Crefrange"):
                    end_label, j = read_group(toks, j)
                    label = label + [Token(TEXT, ",", 0, 0, True)] + (end_label or [])
                n = len(toks)
                if mark_refs and label is not None:
                    out.append(REF_OPEN + name + REF_SEP + "".join(t.text for t in label).strip() + REF_CLOSE)
                else:
                    out.append("??")
                i = j
            elif name == "texorpdfstring":  # the TeX string is what the PDF prints; the other is a bookmark's
                shown, j = read_group(toks, i + 1)
                _, j = read_group(toks, j)
                n = len(toks)
                _plain(list(shown or []), text, keep_math, out, mark_refs)
                i = max(j, i + 1)
            elif name in DROP:
                j = i + 1
                if j < n and toks[j].kind == TEXT and toks[j].text.startswith("*"):
                    j += 1
                _, j = read_optional(toks, j)
                for _ in range(DROP[name]):
                    _, j = read_group(toks, j)
                n = len(toks)
                i = max(j, i + 1)
            elif name in ("(", "["):
                close = ")" if name == "(" else "]"
                k = i + 1
                while k < n and not (toks[k].kind == CS and toks[k].text == close):
                    k += 1
                if keep_math:
                    out.append("$" + detokenize(toks[i + 1:k], text).strip() + "$")
                i = k + 1
            else:
                j = i + 1
                _, j2 = read_optional(toks, j)
                n = len(toks)
                j = j2
                for _ in range(DROP_LEADING_ARGS.get(name, 0)):
                    _, j = read_group(toks, j)
                    n = len(toks)
                i = j
                # The visible argument (if any) is walked as ordinary tokens: braces vanish.
        else:
            i += 1


def collapse(s: str) -> str:
    """Whitespace collapsed to single spaces (what `\\s+` → " " and a strip give: `str.split` splits on the same
    characters)."""
    return " ".join(s.split())
