"""The only ways text from a paper may enter generated code: as data, as a sanitised comment, or as a checked name.

Every string that comes from a paper (title, version, equation number, LaTeX, symbol names, quotes) is hostile
until proven otherwise: a title `Attention\"\"\"; import os; …` closes a hand-built docstring and runs when the
generated test is run. So every emitter of Python source goes through these four functions:

- `literal(text)`: `repr()` of a plain `str`, which is always exactly one string literal whatever the text holds
  (quotes, backslashes, newlines, NUL, lone surrogates are all escaped);
- `comment(text)`: one line of text safe after `#`: no line break of any kind, no NUL, no control character, no
  lone surrogate, and no `coding:` cookie (which on a module's first two lines would change how Python decodes
  the rest of the file);
- `identifier(name)`: a name Python accepts as an identifier and not a keyword, else `UnsafeCodeError`;
- `check_module(source)`: the source, encoded as it will be written, compiles (`compile`, which parses and
  also runs the checks `ast.parse` skips: a repeated parameter name, `return` outside a function); else
  `UnsafeCodeError` naming the file and the line. Compiling runs nothing.
"""
from __future__ import annotations

import keyword
import re

from ..errors import PapermathError
from ..safety import one_line


class UnsafeCodeError(PapermathError):
    """Generated code would not be valid Python, or a name from the paper is not a safe identifier."""


_CODING = re.compile(r"coding([:=])", re.IGNORECASE)


def literal(text: str) -> str:
    """A Python string literal whose value is exactly `text` (a plain `str`; a subclass could override repr)."""
    if type(text) is not str:
        raise TypeError(f"literal() takes a plain str, not {type(text).__name__}")
    return str.__repr__(text)


def comment(text: str, limit: int = 500) -> str:
    """`text` made safe to follow `#` on one line (`papermath.safety.one_line`: no line break, NUL, control
    character, bidi override or lone surrogate), with any `coding:` cookie broken (`coding :`), cut at `limit`."""
    return _CODING.sub(r"coding \1", one_line(text, limit))


def identifier(name: str, what: str = "name") -> str:
    """`name` itself when Python accepts it as an identifier that is not a keyword; else `UnsafeCodeError`."""
    if type(name) is not str or not name.isidentifier() or keyword.iskeyword(name) or not name.isascii():
        raise UnsafeCodeError(f"generated code refused: the {what} {comment(repr(name), 80)} is not a plain Python "
                              "identifier")
    return name


def check_module(source: str, filename: str = "<generated>") -> str:
    """`source` itself when it compiles exactly as it will be written (UTF-8 bytes, so a coding cookie or a
    lone surrogate is caught too); else `UnsafeCodeError` naming the file, line and reason."""
    try:
        data = source.encode("utf-8")
    except UnicodeEncodeError as error:
        raise UnsafeCodeError(f"generated code refused: {filename} would hold a character that cannot be written "
                              f"as UTF-8 (offset {error.start})") from None
    try:
        # compile, not only ast.parse: `def f(W, W)` parses but is a SyntaxError when the module is imported
        compile(data, filename, "exec", dont_inherit=True)
    except (SyntaxError, ValueError) as error:
        line = getattr(error, "lineno", None)
        where = f"{filename}:{line}" if line else filename
        reason = comment(getattr(error, "msg", None) or str(error), 120)
        raise UnsafeCodeError(f"generated code refused: {where} is not valid Python ({reason}); "
                              "nothing was written") from None
    return source
