"""TeX-ish tokens over the flattened text.

A token is a tuple `(kind, text, start, end, expanded)`: `start`/`end` are offsets in the flattened
text of the characters it came from; tokens produced by a macro expansion carry the span of the macro
use and `expanded=True`. Runs of ordinary characters are one `TEXT` token (far faster than TeX's one
token per character); `[`, `]` and `*` stand alone so optional arguments and starred forms never need
a split. Argument scanning splits a run when a macro takes a single character.
"""
from __future__ import annotations

import re
from typing import NamedTuple

CS, TEXT, SPACE, PAR, BGROUP, EGROUP, MATH, ALIGN, PARAM, SUP, SUB, TILDE = (
    "cs", "text", "space", "par", "{", "}", "$", "&", "#", "^", "_", "~")
NOEXPAND = "cs!"
"""A control sequence the expander must not expand again (a `\\let` copy, a self-reference). The
expander turns it back into CS in its output, so later stages never see this kind."""


class Token(NamedTuple):
    kind: str
    """One of the kind constants above."""
    text: str
    """For CS the command name without backslash (`frac`, `\\\\` for a line break), else the characters."""
    start: int
    """Offset in the flattened text of the first character (of the macro use, when expanded)."""
    end: int
    """Offset one past the last character."""
    expanded: bool = False
    """True when the token came out of a macro body rather than straight from the source."""


_TOKEN_RE = re.compile(
    r"\\[A-Za-z@]+"                       # a control word
    r"|\\[\s\S]"                          # a control symbol
    r"|\n[ \t\r\f]*\n[ \t\r\n\f]*"          # a blank line (a paragraph break)
    r"|[ \t\r\n\f]+"                       # white space
    r"|[{}$&#^_~]"                         # one special character
    r"|[^\\{}$&#^_~ \t\r\n\f\[\]*]+|[\[\]*]"  # a run of ordinary characters; [, ] and * alone
    r"|\\"                                # a lone backslash at the end
)
"""Every character belongs to one match, so the matches are contiguous: `tokenize` takes their strings
(`findall`, no match objects) and counts the offsets itself. The first character tells the kind."""
_SPECIAL_KIND = {"{": BGROUP, "}": EGROUP, "$": MATH, "&": ALIGN, "#": PARAM, "^": SUP, "_": SUB, "~": TILDE}
_BACKSLASH, _NEWLINE = "\\", "\n"
_FIRST_KIND = {**_SPECIAL_KIND, " ": SPACE, "\t": SPACE, "\r": SPACE, "\f": SPACE, "\n": _NEWLINE,
               "\\": _BACKSLASH}


_new_token = tuple.__new__  # NamedTuple's own __new__ is a Python function: too slow for a million tokens


def tokenize(text: str, start: int = 0, end: int | None = None) -> list[Token]:
    """Tokens of `text[start:end]`, positions relative to `text`."""
    out: list[Token] = []
    append = out.append
    kind_of = _FIRST_KIND.get
    new = _new_token
    s = start
    for chars in _TOKEN_RE.findall(text, start, len(text) if end is None else end):
        e = s + len(chars)
        kind = kind_of(chars[0], TEXT)
        if kind is TEXT:
            append(new(Token, (TEXT, chars, s, e, False)))
        elif kind is _BACKSLASH:  # a control word or symbol; a lone backslash is text
            append(new(Token, (CS, chars[1:], s, e, False) if e - s > 1 else (TEXT, chars, s, e, False)))
        elif kind is SPACE:
            append(new(Token, (SPACE, " ", s, e, False)))
        elif kind is _NEWLINE:  # white space from a newline: a blank line when it holds a second newline
            append(new(Token, (PAR, "\n\n", s, e, False) if "\n" in chars[1:] else (SPACE, " ", s, e, False)))
        else:
            append(new(Token, (kind, chars, s, e, False)))
        s = e
    return out


def token_source(token: Token) -> str:
    """The LaTeX spelling of one token."""
    if token.kind == CS or token.kind == NOEXPAND:
        return "\\" + token.text
    return token.text


def detokenize(tokens, text: str | None = None) -> str:
    """LaTeX source for `tokens`. Runs of unexpanded, contiguous tokens are sliced from `text` verbatim."""
    parts: list[str] = []
    run_start = run_end = -1
    prev_cs_word = False
    for tok in tokens:
        if text is not None and not tok.expanded:
            if tok.start == run_end:
                run_end = tok.end
                continue
            if run_start >= 0:
                parts.append(text[run_start:run_end])
                prev_cs_word = False
            run_start, run_end = tok.start, tok.end
            continue
        if run_start >= 0:
            parts.append(text[run_start:run_end])
            prev_cs_word = _ends_with_cs_word(text[run_start:run_end])
            run_start = run_end = -1
        spelled = token_source(tok)
        if prev_cs_word and spelled[:1].isalpha():
            parts.append(" ")
        parts.append(spelled)
        prev_cs_word = tok.kind == CS and tok.text[:1].isalpha()
    if run_start >= 0:
        parts.append(text[run_start:run_end])
    return "".join(parts)


_CS_WORD_END = re.compile(r"\\[A-Za-z@]+$")


def _ends_with_cs_word(s: str) -> bool:
    return bool(_CS_WORD_END.search(s))
