"""Source positions: every entity papermath reports can be traced back to a file, line and column.

The flattener joins a paper's files into one text; a `SourceMap` maps each character of that text
back to the file it came from. Offsets are 0-based, lines and columns 1-based (as editors show them).
"""
from __future__ import annotations

import bisect
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Position:
    """One character's place in an original source file."""

    file: str
    """Path of the file relative to the source root (or the name given for a bare string)."""
    offset: int
    """0-based character offset in that file."""
    line: int
    """1-based line number."""
    column: int
    """1-based column number (characters, not bytes)."""

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.column}"


@dataclass(frozen=True)
class Span:
    """A range of characters in one original file: [start, end)."""

    file: str
    """Path of the file relative to the source root."""
    start: int
    """0-based offset of the first character."""
    end: int
    """0-based offset one past the last character."""
    line: int
    """1-based line of the first character."""
    column: int
    """1-based column of the first character."""

    @property
    def position(self) -> Position:
        return Position(self.file, self.start, self.line, self.column)

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.column}"


class LineIndex:
    """Offset → (line, column) for one text, by binary search over line starts."""

    __slots__ = ("_starts",)

    def __init__(self, text: str) -> None:
        starts = [0]
        find = text.find
        i = find("\n")
        while i >= 0:
            starts.append(i + 1)
            i = find("\n", i + 1)
        self._starts = starts

    def line_col(self, offset: int) -> tuple[int, int]:
        line = bisect.bisect_right(self._starts, offset) - 1
        return line + 1, offset - self._starts[line] + 1

    def line_start(self, line: int) -> int:
        """Offset of the first character of 1-based `line`."""
        return self._starts[min(max(line - 1, 0), len(self._starts) - 1)]


@dataclass(frozen=True)
class Segment:
    """A run of the flattened text copied verbatim from one file."""

    flat_start: int
    """Offset of the run in the flattened text."""
    flat_end: int
    """Offset one past the run's end in the flattened text."""
    file: str
    """File the run was copied from."""
    file_start: int
    """Offset in that file of the run's first character."""


@dataclass(frozen=True)
class SourceMap:
    """The flattened text of a paper and the map from each of its characters to the original files."""

    text: str
    """The flattened text (includes inlined, comments removed)."""
    segments: tuple[Segment, ...]
    """Verbatim runs, sorted by flat_start, non-overlapping."""
    files: dict[str, str] = field(default_factory=dict, compare=False, repr=False)
    """Original text of every file that contributed a segment."""
    _line_index: dict = field(default_factory=dict, compare=False, repr=False)
    _starts: list = field(default_factory=list, compare=False, repr=False)

    @staticmethod
    def identity(text: str, file: str = "<string>") -> "SourceMap":
        """A map for text that is its own single source file."""
        return SourceMap(text, (Segment(0, len(text), file, 0),), {file: text})

    def _segment_for(self, flat_offset: int) -> Segment:
        if not self._starts:
            self._starts.extend(s.flat_start for s in self.segments)
        i = bisect.bisect_right(self._starts, flat_offset) - 1
        if i < 0:
            i = 0
        seg = self.segments[i]
        # An offset in a gap (synthetic text) belongs to the end of the previous run.
        return seg

    def _lines(self, file: str) -> LineIndex:
        index = self._line_index.get(file)
        if index is None:
            index = self._line_index[file] = LineIndex(self.files.get(file, ""))
        return index

    def locate(self, flat_offset: int) -> Position:
        """Where the flattened text's character at `flat_offset` stands in its original file."""
        if not self.segments:
            return Position("<empty>", 0, 1, 1)
        seg = self._segment_for(flat_offset)
        local = min(flat_offset, max(seg.flat_end - 1, seg.flat_start)) - seg.flat_start
        offset = seg.file_start + max(local, 0)
        line, col = self._lines(seg.file).line_col(offset)
        return Position(seg.file, offset, line, col)

    def span(self, flat_start: int, flat_end: int) -> Span:
        """The original-file span of flattened [flat_start, flat_end) (clipped to the start's file)."""
        start = self.locate(flat_start)
        end_pos = self.locate(max(flat_end - 1, flat_start))
        end = end_pos.offset + 1 if end_pos.file == start.file else start.offset + 1
        return Span(start.file, start.offset, max(end, start.offset), start.line, start.column)
