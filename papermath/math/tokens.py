"""Tokenizer for one formula: LaTeX math text → tokens with their offsets in the formula.

Whitespace and `%` comments produce no token; `space_before` records them, because a run of
letters written without spaces (`softmax`) may be one name.
"""
from __future__ import annotations

import re

from .tables import UNICODE_TOKENS

# Token kinds.
CMD = "cmd"          # \alpha, \, , \{ … (text includes the backslash)
LETTER = "letter"    # one letter
NUMBER = "number"    # 12, 0.5
LBRACE = "{"
RBRACE = "}"
SUP = "^"
SUB = "_"
AMP = "&"
NEWLINE = "\\\\"     # the row separator \\
PRIME = "'"
PUNCT = "punct"      # any other single character: + - = ( ) [ ] , ; : ! | / * . < > ? @ "
EOF = "eof"


class Token:
    """One token: its kind, its text (canonical for Unicode stand-ins) and its [start, end) offsets."""

    __slots__ = ("kind", "text", "start", "end", "space_before")

    def __init__(self, kind: str, text: str, start: int, end: int, space_before: bool) -> None:
        self.kind = kind
        self.text = text
        self.start = start
        self.end = end
        self.space_before = space_before

    def __repr__(self) -> str:
        return f"Token({self.kind!r}, {self.text!r}, {self.start}, {self.end})"


_THOUSANDS = re.compile(r"\{,\}\d{3}(?!\d)")
_SINGLE = {"{": LBRACE, "}": RBRACE, "^": SUP, "_": SUB, "&": AMP, "'": PRIME}


def tokenize(text: str) -> list[Token]:
    """Split `text` into tokens; the list always ends with an EOF token at len(text)."""
    tokens: list[Token] = []
    append = tokens.append
    i, n = 0, len(text)
    space = False
    while i < n:
        c = text[i]
        if c in " \t\n\r~":
            space = True
            i += 1
            continue
        if c == "%":
            j = text.find("\n", i)
            i = n if j < 0 else j + 1
            space = True
            continue
        if c == "\\":
            if i + 1 >= n:
                # a backslash a formula ends with: the control space `\<newline>` whose line end was trimmed
                # (a backslash alone is a lone backslash)
                append(Token(CMD, "\\ " if tokens else "\\", i, n, space))
                i = n
            elif text[i + 1].isascii() and text[i + 1].isalpha():
                j = i + 2
                while j < n and text[j].isascii() and text[j].isalpha():
                    j += 1
                append(Token(CMD, text[i:j], i, j, space))
                i = j
            elif text[i + 1] == "\\":
                append(Token(NEWLINE, "\\\\", i, i + 2, space))
                i += 2
            else:
                nxt = text[i + 1]
                if nxt in "\n\t\r":
                    nxt = " "
                append(Token(CMD, "\\" + nxt, i, i + 2, space))
                i += 2
        elif c.isdigit() and c.isascii():
            j = i + 1
            while j < n and text[j].isdigit() and text[j].isascii():
                j += 1
            while j - i <= 3 or "{,}" in text[i:j]:
                # `1{,}048{,}576`: a braced comma separates thousands (TeX's way to keep a comma's space out)
                group = _THOUSANDS.match(text, j)
                if group is None:
                    break
                j = group.end()
            if j + 1 < n and text[j] == "." and text[j + 1].isdigit() and text[j + 1].isascii():
                j += 1
                while j < n and text[j].isdigit() and text[j].isascii():
                    j += 1
            append(Token(NUMBER, text[i:j].replace("{,}", ""), i, j, space))
            i = j
        elif c in _SINGLE:
            append(Token(_SINGLE[c], c, i, i + 1, space))
            i += 1
        elif c in UNICODE_TOKENS:
            mapped = UNICODE_TOKENS[c]
            if mapped == " ":
                space = True
                i += 1
                continue
            append(Token(CMD, mapped, i, i + 1, space))
            i += 1
        elif c.isalpha():
            append(Token(LETTER, c, i, i + 1, space))
            i += 1
        else:
            append(Token(PUNCT, c, i, i + 1, space))
            i += 1
        space = False
    append(Token(EOF, "", n, n, space))
    return tokens
