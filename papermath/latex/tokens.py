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
    r"\\(?P<word>[A-Za-z@]+)"
    r"|\\(?P<sym>[\s\S])"
    r"|(?P<par>\n[ \t\r\f]*\n[ \t\r\n\f]*)"
    r"|(?P<space>[ \t\r\n\f]+)"
    r"|(?P<special>[{}$&#^_~])"
    r"|(?P<text>[^\\{}$&#^_~ \t\r\n\f\[\]*]+|[\[\]*])"
    r"|(?P<lone>\\)"
)
_SPECIAL_KIND = {"{": BGROUP, "}": EGROUP, "$": MATH, "&": ALIGN, "#": PARAM, "^": SUP, "_": SUB, "~": TILDE}


_new_token = tuple.__new__  # NamedTuple's own __new__ is a Python function: too slow for a million tokens
_WORD, _SYM, _PAR_GROUP, _SPACE_GROUP, _SPECIAL, _TEXT_GROUP, _LONE = range(1, 8)


def tokenize(text: str, start: int = 0, end: int | None = None) -> list[Token]:
    """Tokens of `text[start:end]`, positions relative to `text`."""
    out: list[Token] = []
    append = out.append
    special = _SPECIAL_KIND
    for m in _TOKEN_RE.finditer(text, start, len(text) if end is None else end):
        group = m.lastindex
        s, e = m.span()
        if group == _TEXT_GROUP:
            append(_new_token(Token, (TEXT, m.group(), s, e, False)))
        elif group == _WORD:
            append(_new_token(Token, (CS, m.group(1), s, e, False)))
        elif group == _SPACE_GROUP:
            append(_new_token(Token, (SPACE, " ", s, e, False)))
        elif group == _SPECIAL:
            ch = m.group()
            append(_new_token(Token, (special[ch], ch, s, e, False)))
        elif group == _SYM:
            append(_new_token(Token, (CS, m.group(2), s, e, False)))
        elif group == _PAR_GROUP:
            append(_new_token(Token, (PAR, "\n\n", s, e, False)))
        else:
            append(_new_token(Token, (TEXT, "\\", s, e, False)))
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
