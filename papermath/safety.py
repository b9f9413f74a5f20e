"""Text from a paper in outputs that programs read: one line, a fence it cannot close, a shell word it cannot break.

Generated Python has its own rules (`papermath.codegen.safe`, built on `one_line`); HTML is escaped by the
renderer and JSON by `json`. For the rest:
- `one_line(text)`: no line break of any kind, no NUL or other control character, no bidi override, no lone
  surrogate — for a comment, a Markdown heading or table cell, a prompt's header line;
- `fence(text, info)`: a Markdown code block whose fence is longer than any run of backticks in `text`, so a
  formula cannot end the block early and forge the lines after it;
- `shell_word(text)`: one POSIX shell word (`shlex.quote`), for hints such as `--set 'x_i=…'`.
"""
from __future__ import annotations

import re
import shlex
import unicodedata

_BREAKS = frozenset("\t\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029")


def _char(char: str) -> str:
    if char in _BREAKS:
        return " "
    if unicodedata.category(char) in ("Cc", "Cf", "Cs", "Zl", "Zp"):
        return "?"
    return char


def one_line(text: str, limit: int | None = None) -> str:
    """`text` on one line: line breaks become spaces; NUL, control and format characters (bidi overrides, which
    make text read differently from how it runs) and lone surrogates become `?`; cut to `limit` with `…`."""
    if type(text) is not str:
        text = str.__str__(text) if isinstance(text, str) else str(text)
    if limit is not None:
        text = text[: limit * 2]
    # A printable text holds no break, control, format, surrogate or line/paragraph separator character (what
    # `str.isprintable` says no to is Unicode's Other and Separator categories but the space): it is kept as is.
    safe = (text if text.isprintable() else "".join(_char(c) for c in text)).strip()
    if limit is not None and len(safe) > limit:
        safe = safe[: limit - 1] + "…"
    return safe


def fence(text: str, info: str = "") -> list[str]:
    """`text` as a fenced Markdown code block (a list of lines): the fence is one backtick longer than the
    longest run of backticks in `text` (at least three), so nothing inside can close it."""
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    marks = "`" * max(3, longest + 1)
    body = "\n".join(one_line(line) if line.strip() else "" for line in text.splitlines()) if text else ""
    return [marks + info, body, marks]


def shell_word(text: str) -> str:
    """`text` as one POSIX shell word, quoted when needed (`x_i=…` → `'x_i=…'`)."""
    return shlex.quote(one_line(text))
