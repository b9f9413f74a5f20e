"""papermath's own exceptions. Each carries where it happened and a short, specific message.

Library errors (tarfile, urllib, …) are wrapped in these at the stage boundary; nothing else escapes
to the user as a traceback.
"""
from __future__ import annotations

from dataclasses import dataclass

from .spans import Position


class PapermathError(Exception):
    """Base of every error papermath raises on purpose."""

    def __init__(self, message: str, position: Position | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.position = position

    def __str__(self) -> str:
        if self.position is not None:
            return f"{self.position}: {self.message}"
        return self.message


class SourceError(PapermathError):
    """The source cannot be found, fetched, unpacked or flattened."""


class FetchError(SourceError):
    """Downloading from arXiv (or a mirror) failed."""


class UnsafeArchiveError(SourceError):
    """An archive member would escape the unpack root, is a device, or the archive is too large."""


class IncludeError(SourceError):
    """An \\input/\\include cannot be followed: missing file, cycle, or a path outside the root."""


class LatexError(PapermathError):
    """The LaTeX source is malformed: unbalanced braces, a missing \\end, …"""


class MacroError(LatexError):
    """A macro definition or expansion failed (bad signature, runaway recursion, size limit)."""


class MathParseError(PapermathError):
    """A formula could not be parsed. `offset` is in the formula string; `snippet` shows a caret."""

    def __init__(self, message: str, formula: str = "", offset: int = 0,
                 position: Position | None = None) -> None:
        super().__init__(message, position)
        self.formula = formula
        self.offset = offset

    @property
    def snippet(self) -> str:
        """The formula around the offset (at most 60 characters each side) and a caret under the offset."""
        offset = max(self.offset, 0)
        start = max(0, offset - 60)
        line = self.formula[start:offset + 60].replace("\n", " ")
        lead = "…" if start else ""
        tail = "…" if offset + 60 < len(self.formula) else ""
        return f"{lead}{line}{tail}\n{' ' * (len(lead) + offset - start)}^"

    def __str__(self) -> str:
        where = f"{self.position}: " if self.position is not None else ""
        return f"{where}{self.message} (at offset {self.offset})\n{self.snippet}"


class UsageError(PapermathError):
    """The command line asked for something that does not exist (an equation number, a symbol, …)."""


@dataclass(frozen=True)
class Diagnostic:
    """A problem found in a paper that did not stop the run: reported, never swallowed."""

    severity: str
    """"error" or "warning"."""
    message: str
    """Short, specific description."""
    position: Position | None = None
    """Where in the original source, when known."""

    def __str__(self) -> str:
        where = f"{self.position}: " if self.position is not None else ""
        return f"{where}{self.severity}: {self.message}"

    @staticmethod
    def from_error(error: PapermathError, severity: str = "error") -> "Diagnostic":
        return Diagnostic(severity, error.message, error.position)
