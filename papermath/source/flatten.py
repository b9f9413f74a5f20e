"""Flatten a paper's LaTeX sources into one text with a map from every character back to its file.

The main file is found, `\\input`/`\\include`/`\\subfile`/`\\import`/`\\subimport` are inlined (recursively,
never outside the source root, cycles refused), the `.bbl` is put in at `\\bibliography`, and comments,
`comment` environments and `\\iffalse … \\fi` are dropped. Verbatim material (`verbatim`, `lstlisting`,
`minted`, `\\verb`, `\\url`) is copied untouched. Problems are diagnostics with the file, line and column
of the command that caused them; flattening itself only fails when there is nothing to read.

Local classes and packages (`\\documentclass`, `\\LoadClass`, `\\usepackage`, `\\RequirePackage` naming a
.cls or .sty shipped with the paper) and the .tex files they `\\input` are not inlined: they are collected,
comment-stripped, for the macro layer, which only records their definitions.

The scanner jumps from one interesting token to the next with a single regex, so text is copied in
runs, never character by character.
"""
from __future__ import annotations

import os
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import Diagnostic, SourceError
from ..spans import LineIndex, Position, Segment, SourceMap
from .resolve import SourceTree

MAX_INCLUDE_DEPTH = 32
"""Deepest chain of nested includes followed."""
MAX_FLAT_CHARS = 64 * 1024 * 1024
"""Cap on the flattened text: repeated includes of large files stop here."""
MAX_PACKAGE_CHARS = 16 * 1024 * 1024
"""Cap on the text of the local classes and packages read for their definitions."""

_VERBATIM_ENVS = ("verbatim", "verbatim*", "Verbatim", "Verbatim*", "BVerbatim", "LVerbatim",
                  "lstlisting", "minted", "spverbatim", "comment")

# One pass finds every token that matters; everything between two tokens is copied as a run.
_TOKEN = re.compile(
    r"(?=[\\%])"  # every token starts with one of these: lets the engine skip plain text fast
    r"(?:(?P<esc>\\[\\%])"
    r"|(?P<comment>%[^\n]*)"
    r"|\\begin\s*\{(?P<env>" + "|".join(re.escape(e) for e in _VERBATIM_ENVS) + r")\}"
    r"|\\(?P<inc>input|include|subfile)\s*\{(?P<inc_arg>[^{}\n]*)\}"
    r"|\\input[ \t]+(?P<inc_bare>[^\s{}\\%]+)"
    r"|\\(?P<imp>import|subimport|inputfrom|subinputfrom|includefrom|subincludefrom)\*?\s*"
    r"\{(?P<imp_dir>[^{}\n]*)\}\s*\{(?P<imp_file>[^{}\n]*)\}"
    r"|\\(?P<iffalse>iffalse)(?![a-zA-Z@])"
    r"|\\(?P<verb>verb|lstinline|mintinline)(?![a-zA-Z@])"
    r"|\\(?P<url>url|href|path)\s*\{"
    r"|\\(?P<bib>bibliography)\s*\{[^{}]*\}"
    r"|\\end\s*\{(?P<enddoc>document)\})"
)
_CONDITIONAL = re.compile(
    r"\\(?:(?P<fi>fi)|(?P<else>else)|(?P<if>if[a-zA-Z@]*))(?![a-zA-Z@])|(?P<skip>\\[\\%]|%[^\n]*)")
# Commands that start with \if but are not TeX conditionals (so they do not nest inside \iffalse).
_NOT_CONDITIONALS = frozenset({
    "ifthenelse", "ifbool", "iftoggle", "ifdef", "ifundef", "ifcsdef", "ifcsundef", "ifdefstring",
    "ifstrequal", "ifstrempty", "ifblank", "ifnumcomp", "ifdimcomp", "ifdefempty", "ifcsempty",
    "ifdefmacro", "ifcsmacro", "ifboolexpr", "ifboolexpe", "ifpackageloaded", "ifclassloaded",
})
# An \iffalse that is the body of a definition (\let\ifx\iffalse, \def\x{\iffalse}) is not skipped.
_IN_DEFINITION = re.compile(
    r"(?:\\(?:let|def|gdef|edef|xdef)\s*\\[a-zA-Z@]+\s*=?\s*\{?"
    r"|\\(?:newcommand|renewcommand|providecommand)\*?\s*\{?\\[a-zA-Z@]+\}?\s*(?:\[\d\])?\s*\{)\s*$")
# Commands that load a class or package → the extension TeX adds to each comma-separated name they give.
_LOADERS = {
    "documentclass": ".cls", "LoadClass": ".cls", "LoadClassWithOptions": ".cls",
    "usepackage": ".sty", "RequirePackage": ".sty", "RequirePackageWithOptions": ".sty",
}
_LOADED_EXTENSIONS = tuple(sorted(set(_LOADERS.values())))
# A load command or an \input, in the order they appear (TeX reads the files in that order).
_LOAD = re.compile(
    r"\\(?P<loader>" + "|".join(_LOADERS) + r")(?![a-zA-Z@])\s*(?:\[[^\]]*\])?\s*\{(?P<names>[^{}]*)\}"
    r"|\\input(?![a-zA-Z@])\s*(?:\{(?P<input>[^{}\n]*)\}|(?P<bare>[^\s{}\\%]+))")
_DOCUMENTCLASS = re.compile(r"^[^%\n]*\\documentclass", re.MULTILINE)
_BEGIN_DOCUMENT = re.compile(r"^[^%\n]*\\begin\s*\{document\}", re.MULTILINE)
_INCLUDE_NAMES = re.compile(
    r"^[^%\n]*?\\(?:input|include|subfile)\s*\{([^{}\n]*)\}"
    r"|^[^%\n]*?\\(?:import|subimport)\*?\s*\{([^{}\n]*)\}\s*\{([^{}\n]*)\}", re.MULTILINE)
_DROPPED = ("drop", "pending-fi")
_MAIN_NAMES = ("main.tex", "ms.tex", "paper.tex", "article.tex")


@dataclass(frozen=True)
class FlatSource:
    """A paper's sources joined into one text, with the map back to the original files."""

    source_map: SourceMap
    """Flattened text and the map from each of its characters to (file, offset)."""
    main_file: str
    """Path of the main file relative to the source root."""
    format: str
    """"latex" or "markdown"."""
    files: tuple[str, ...]
    """Files whose text was read into the flattened text, in the order they were first read."""
    package_files: tuple[SourceMap, ...]
    """Local .cls classes, .sty packages and the .tex files they input, in loading order, comment-stripped,
    for the macro layer (not inlined)."""
    bbl_included: bool
    """Whether a .bbl bibliography was put into the flattened text."""
    diagnostics: tuple[Diagnostic, ...]
    """Problems found that did not stop flattening (missing includes, cycles, Latin-1 files, …)."""
    root: Path | None = None
    """The source directory the files were read from."""

    @property
    def text(self) -> str:
        """The flattened text."""
        return self.source_map.text


@dataclass
class _Event:
    """A token found by the scanner: text [start, end) of a file is dropped or replaced."""

    start: int
    end: int
    kind: str
    """"drop", "include", "bib", "enddoc"."""
    command: str = ""
    target: str = ""
    import_dir: str | None = None


@dataclass
class _File:
    text: str
    events: list[_Event] | None = None
    lines: LineIndex | None = None


@dataclass
class _Flattener:
    root: Path
    main_file: str
    diagnostics: list[Diagnostic] = field(default_factory=list)
    cache: dict[str, _File] = field(default_factory=dict)
    pieces: list[str] = field(default_factory=list)
    segments: list[Segment] = field(default_factory=list)
    read_order: list[str] = field(default_factory=list)
    length: int = 0
    bbl_included: bool = False
    bbl_file: str | None = None
    overflow: bool = False
    _all_files: frozenset[str] | None = None
    _files_by_lower_name: dict[str, str] | None = None
    _real_root: Path | None = None

    # ----- files -------------------------------------------------------------------------------------
    def load(self, rel: str) -> _File | None:
        cached = self.cache.get(rel)
        if cached is not None:
            return cached
        loaded = read_text(self.root / rel, rel, self.diagnostics)
        if loaded is None:
            return None
        entry = self.cache[rel] = _File(loaded)
        return entry

    def position(self, rel: str, offset: int) -> Position:
        entry = self.cache[rel]
        if entry.lines is None:
            entry.lines = LineIndex(entry.text)
        line, col = entry.lines.line_col(offset)
        return Position(rel, offset, line, col)

    def diagnose(self, severity: str, message: str, rel: str, offset: int) -> None:
        self.diagnostics.append(Diagnostic(severity, message, self.position(rel, offset)))

    # ----- output ------------------------------------------------------------------------------------
    def emit(self, rel: str, text: str, start: int, end: int) -> None:
        if end <= start or self.overflow:
            return
        if self.length + (end - start) > MAX_FLAT_CHARS:
            self.overflow = True
            self.diagnose("error", f"flattened text exceeds {MAX_FLAT_CHARS} characters; the rest is skipped",
                          rel, start)
            return
        self.segments.append(Segment(self.length, self.length + end - start, rel, start))
        self.pieces.append(text[start:end])
        self.length += end - start

    # ----- the walk ----------------------------------------------------------------------------------
    def run(self) -> None:
        self.bbl_file = self._find_bbl()
        self.inline(self.main_file, stack=(), import_dir="", body_only=False)
        if self.bbl_file and not self.bbl_included:
            # No \bibliography command: the .bbl goes at the end of the document.
            self.inline_bbl()

    def inline(self, rel: str, stack: tuple[str, ...], import_dir: str, body_only: bool) -> None:
        entry = self.load(rel)
        if entry is None:
            return
        if rel not in self.read_order:
            self.read_order.append(rel)
        if rel == self.bbl_file:  # the paper \input its .bbl itself: do not add it a second time
            self.bbl_included = True
        if entry.events is None:
            entry.events = scan(entry.text, rel, self._scan_diagnostic(rel))
        text = entry.text
        pos, stop = 0, len(text)
        if body_only:  # a \subfile is a whole document: only its body is inlined
            begin = re.search(r"\\begin\s*\{document\}", text)
            end = re.search(r"\\end\s*\{document\}", text)
            if begin:
                pos = begin.end()
            if end and end.start() >= pos:
                stop = end.start()
        for event in entry.events:
            if event.start < pos:
                continue
            if event.start >= stop:
                break
            self.emit(rel, text, pos, event.start)
            pos = event.end
            if event.kind == "include":
                self.follow(rel, event, stack + (rel,), import_dir)
            elif event.kind == "bib":
                if self.bbl_file and not self.bbl_included:
                    self.inline_bbl()
                else:
                    pos = event.start  # keep the command itself when there is no .bbl to put in
            elif event.kind == "enddoc":
                if rel == self.main_file and self.bbl_file and not self.bbl_included and not stack \
                        and not self._has_later_bibliography(entry, event.start):
                    self.inline_bbl()
                pos = event.start  # \end{document} itself is kept
        self.emit(rel, text, pos, stop)

    def _has_later_bibliography(self, entry: _File, offset: int) -> bool:
        return any(e.kind == "bib" and e.start > offset for e in entry.events or ())

    def _scan_diagnostic(self, rel: str):
        def report(severity: str, message: str, offset: int) -> None:
            self.diagnose(severity, message, rel, offset)
        return report

    def inline_bbl(self) -> None:
        assert self.bbl_file is not None
        self.bbl_included = True
        entry = self.load(self.bbl_file)
        if entry is None:
            return
        if self.bbl_file not in self.read_order:
            self.read_order.append(self.bbl_file)
        if entry.events is None:
            entry.events = [e for e in scan(entry.text, self.bbl_file, self._scan_diagnostic(self.bbl_file))
                            if e.kind in _DROPPED]
        pos = 0
        for event in entry.events:
            self.emit(self.bbl_file, entry.text, pos, event.start)
            pos = event.end
        self.emit(self.bbl_file, entry.text, pos, len(entry.text))

    def follow(self, rel: str, event: _Event, stack: tuple[str, ...], import_dir: str) -> None:
        name = event.target.strip()
        command = f"\\{event.command}"
        shown = f"{command}{{{event.import_dir}}}{{{name}}}" if event.import_dir is not None else f"{command}{{{name}}}"
        if not name or "#" in name:
            return  # inside a macro definition: not a file name
        if event.command in ("import", "inputfrom", "includefrom"):
            new_import_dir = event.import_dir or ""
        elif event.import_dir is not None:  # subimport and friends: relative to the current import dir
            new_import_dir = os.path.join(import_dir, event.import_dir)
        elif event.command == "subfile":
            new_import_dir = os.path.dirname(rel)
        else:
            new_import_dir = import_dir
        found = self.resolve(name, new_import_dir, os.path.dirname(rel), force_tex=event.command == "include")
        if found == "outside":
            self.diagnose("error", f"{shown} points outside the source root; not read", rel, event.start)
            return
        if found is None:
            self.diagnose("error", f"{shown}: file not found in the source ({name})", rel, event.start)
            return
        if found in stack:
            chain = " -> ".join(stack[stack.index(found):] + (found,))
            self.diagnose("error", f"{shown} would read {found} again: include cycle {chain}", rel, event.start)
            return
        if len(stack) >= MAX_INCLUDE_DEPTH:
            self.diagnose("error", f"{shown}: includes nested deeper than {MAX_INCLUDE_DEPTH}", rel, event.start)
            return
        self.inline(found, stack, new_import_dir, body_only=event.command == "subfile")

    def resolve(self, name: str, import_dir: str, file_dir: str, *, force_tex: bool) -> str | None:
        """The root-relative path an include names, "outside" if it leaves the root, or None if missing."""
        if force_tex or name.endswith(".tex"):
            candidates = [name if name.endswith(".tex") else name + ".tex"]
        else:
            candidates = [name + ".tex", name]
        bases = [import_dir] + ([file_dir] if file_dir and file_dir != import_dir else [])
        for base in bases:
            for candidate in candidates:
                joined = os.path.normpath(os.path.join(base, candidate))
                if os.path.isabs(candidate) or joined == ".." or joined.startswith(".." + os.sep):
                    return "outside"
                if joined.replace(os.sep, "/") not in self.all_files:
                    continue
                # Lexically inside; a symlink in a user's directory could still lead out.
                full = (self.root / joined).resolve()
                if not full.is_relative_to(self.real_root):
                    return "outside"
                if full.is_file():
                    return joined.replace(os.sep, "/")
        return None

    @property
    def all_files(self) -> frozenset[str]:
        if self._all_files is None:
            self._all_files = frozenset(
                os.path.relpath(os.path.join(d, f), self.root).replace(os.sep, "/")
                for d, _, names in os.walk(self.root, followlinks=False) for f in names)
        return self._all_files

    @property
    def files_by_lower_name(self) -> dict[str, str]:
        if self._files_by_lower_name is None:
            self._files_by_lower_name = {}
            for rel in sorted(self.all_files):  # sorted: two names differing only in case resolve the same way
                self._files_by_lower_name.setdefault(rel.lower(), rel)
        return self._files_by_lower_name

    @property
    def real_root(self) -> Path:
        if self._real_root is None:
            self._real_root = self.root.resolve()
        return self._real_root

    def _find_bbl(self) -> str | None:
        stem = os.path.splitext(self.main_file)[0]
        if (self.root / f"{stem}.bbl").is_file():
            return f"{stem}.bbl"
        bbls = sorted(p.name for p in self.root.glob("*.bbl"))
        return bbls[0] if len(bbls) == 1 else None

    # ----- package files -----------------------------------------------------------------------------
    def package_maps(self, flat_text: str) -> tuple[SourceMap, ...]:
        """Local classes and packages the text loads, the ones they load in turn, and the .tex files they
        \\input: each file once, depth first in loading order (a class before the packages it requires)."""
        maps: list[SourceMap] = []
        seen: set[str] = set(self.read_order)
        total = 0
        pending = [_loaded_names(flat_text)]
        while pending:
            name = next(pending[-1], None)
            if name is None:
                pending.pop()
                continue
            found = self.find_loaded(name)
            if found is None or found in seen:
                continue  # a standard class or package (article, amsmath): nothing local to read
            seen.add(found)
            stripped = self.strip_file(found)
            if stripped is None:
                continue
            total += len(stripped.text)
            if total > MAX_PACKAGE_CHARS:
                self.diagnose("warning", f"local classes and packages exceed {MAX_PACKAGE_CHARS} characters; "
                                         f"{found} and the rest are not read for definitions", found, 0)
                break
            maps.append(stripped)
            pending.append(_loaded_names(stripped.text))
        return tuple(maps)

    def find_loaded(self, name: str) -> str | None:
        """The root-relative path of a local file that a load command or package \\input names, or None.

        Looked up at the root, then beside the main file; a bare .cls/.sty name also case-insensitively,
        as TeX on a case-insensitive file system finds EMNLP2023.sty as emnlp2023.sty.
        """
        main_dir = os.path.dirname(self.main_file)
        found = self.resolve(name, "", main_dir, force_tex=False)
        if found is None and "/" not in name and name.endswith(_LOADED_EXTENSIONS):
            for base in dict.fromkeys(("", main_dir)):
                actual = self.files_by_lower_name.get(os.path.join(base, name).lower())
                if actual is not None:
                    found = self.resolve(actual, "", "", force_tex=False)
                    break
        return None if found == "outside" else found

    def strip_file(self, rel: str) -> SourceMap | None:
        entry = self.load(rel)
        if entry is None:
            return None
        return _strip_events(entry.text, rel, self._scan_diagnostic(rel))


def _loaded_names(text: str) -> Iterator[str]:
    """The file names that `text` loads, in order: `name.cls`/`name.sty` for each loaded class or package,
    and the names given to `\\input`. Names inside macro definitions (`#1`) are skipped."""
    for match in _LOAD.finditer(text):
        if match.group("loader") is not None:
            extension = _LOADERS[match.group("loader")]
            names = [n.strip() + extension for n in match.group("names").split(",") if n.strip()]
        else:
            names = [(match.group("input") or match.group("bare") or "").strip()]
        yield from (n for n in names if n and "#" not in n)


def _strip_events(text: str, rel: str, report) -> SourceMap:
    segments: list[Segment] = []
    pieces: list[str] = []
    pos = length = 0
    for event in scan(text, rel, report):
        if event.kind not in _DROPPED:
            continue
        if event.start > pos:
            segments.append(Segment(length, length + event.start - pos, rel, pos))
            pieces.append(text[pos:event.start])
            length += event.start - pos
        pos = event.end
    if pos < len(text):
        segments.append(Segment(length, length + len(text) - pos, rel, pos))
        pieces.append(text[pos:])
    return SourceMap("".join(pieces), tuple(segments), {rel: text})


def strip_comments(text: str, file: str = "<string>") -> tuple[SourceMap, tuple[Diagnostic, ...]]:
    """`text` without comments, comment environments and \\iffalse blocks, mapped back to `file`."""
    found: list[Diagnostic] = []
    index = LineIndex(text)

    def report(severity: str, message: str, offset: int) -> None:
        line, col = index.line_col(offset)
        found.append(Diagnostic(severity, message, Position(file, offset, line, col)))

    return _strip_events(text, file, report), tuple(found)


def scan(text: str, rel: str, report) -> list[_Event]:
    """The tokens of one file that flattening acts on, sorted and non-overlapping; opaque regions yield none."""
    events = _scan_unordered(text, report)
    # A \fi closing an \iffalse's \else branch is found ahead of the scan: put it in order.
    if any(e.kind == "pending-fi" for e in events):
        events.sort(key=lambda e: e.start)
        ordered: list[_Event] = []
        for event in events:
            if ordered and event.start < ordered[-1].end:
                continue
            ordered.append(event)
        events = ordered
    return events


def _scan_unordered(text: str, report) -> list[_Event]:
    events: list[_Event] = []
    search = _TOKEN.search
    pos = 0
    n = len(text)
    while True:
        m = search(text, pos)
        if m is None:
            return events
        start, pos = m.start(), m.end()
        group = m.lastgroup
        if group == "esc":
            continue
        if group == "comment":
            line_start = text.rfind("\n", 0, start) + 1
            if text[line_start:start].strip(" \t") == "" and pos < n:
                # A line holding only a comment disappears with its newline (as in TeX: no blank line).
                events.append(_Event(line_start, pos + 1, "drop"))
                pos += 1
            else:
                events.append(_Event(start, pos, "drop"))
        elif m.group("env") is not None:
            env = m.group("env")
            end = re.compile(r"\\end\s*\{" + re.escape(env) + r"\}").search(text, pos)
            if end is None:
                report("warning", f"\\begin{{{env}}} is never closed; read to the end of the file", start)
                if env == "comment":
                    events.append(_Event(start, n, "drop"))
                return events
            if env == "comment":
                events.append(_Event(start, end.end(), "drop"))
            pos = end.end()
        elif "#" in (m.group(group) or ""):
            continue  # \input{#1} inside a macro definition names no file
        elif group == "inc_arg":
            events.append(_Event(start, pos, "include", m.group("inc"), m.group(group)))
        elif group == "inc_bare":
            events.append(_Event(start, pos, "include", "input", m.group(group)))
        elif group == "imp_file":
            events.append(_Event(start, pos, "include", m.group("imp"), m.group("imp_file"), m.group("imp_dir")))
        elif group == "iffalse":
            line_start = text.rfind("\n", 0, start) + 1
            if _IN_DEFINITION.search(text, line_start, start):
                continue  # \let\ifdraft\iffalse defines a switch; it does not skip anything here
            pos = _skip_iffalse(text, start, pos, events, report)
        elif group == "verb":
            pos = _skip_inline_verbatim(text, pos, m.group("verb"))
        elif group == "url":
            close = text.find("}", pos)
            pos = close + 1 if close >= 0 else pos
        elif group == "bib":
            events.append(_Event(start, pos, "bib"))
        elif group == "enddoc":
            events.append(_Event(start, pos, "enddoc"))


def _skip_iffalse(text: str, start: int, pos: int, events: list[_Event], report) -> int:
    """Drop `\\iffalse … \\fi` (nested conditionals counted); with `\\else`, keep the else branch."""
    depth = 0
    search = _CONDITIONAL.search
    while True:
        m = search(text, pos)
        if m is None:
            report("warning", "\\iffalse is never closed by \\fi; dropped to the end of the file", start)
            events.append(_Event(start, len(text), "drop"))
            return len(text)
        pos = m.end()
        if m.group("skip") is not None:
            continue
        if m.group("if") is not None:
            name = m.group("if")
            if name in _NOT_CONDITIONALS or text.endswith("\\newif", 0, m.start()):
                continue
            depth += 1
        elif m.group("fi") is not None:
            if depth == 0:
                events.append(_Event(start, pos, "drop"))
                return pos
            depth -= 1
        elif depth == 0:  # \else of the \iffalse: its branch is read, the matching \fi dropped
            events.append(_Event(start, pos, "drop"))
            fi = _matching_fi(text, pos)
            if fi is not None:
                events.append(_Event(fi[0], fi[1], "pending-fi"))
            return pos


def _matching_fi(text: str, pos: int) -> tuple[int, int] | None:
    depth = 0
    for m in _CONDITIONAL.finditer(text, pos):
        if m.group("skip") is not None or m.group("else") is not None:
            continue
        if m.group("if") is not None:
            if m.group("if") not in _NOT_CONDITIONALS and not text.endswith("\\newif", 0, m.start()):
                depth += 1
        elif depth == 0:
            return m.start(), m.end()
        else:
            depth -= 1
    return None


def _skip_inline_verbatim(text: str, pos: int, command: str) -> int:
    """The offset after `\\verb|…|`, `\\lstinline{…}` or `\\mintinline{lang}{…}` starting at `pos`."""
    if command == "mintinline":
        close = text.find("}", pos)
        if close < 0:
            return pos
        pos = close + 1
    if pos < len(text) and text[pos] == "*":
        pos += 1
    if pos < len(text) and text[pos] == "[" and command != "verb":
        close = text.find("]", pos)
        pos = close + 1 if close >= 0 else pos
    if pos >= len(text) or text[pos] in " \n\t":
        return pos
    delimiter = "}" if text[pos] == "{" and command != "verb" else text[pos]
    close = text.find(delimiter, pos + 1)
    line_end = text.find("\n", pos + 1)
    if close < 0 or (line_end >= 0 and close > line_end):
        return pos + 1
    return close + 1


def read_text(path: Path, rel: str, diagnostics: list[Diagnostic]) -> str | None:
    """A source file's text: UTF-8, else Latin-1 with a warning naming the file."""
    try:
        data = path.read_bytes()
    except OSError as exc:
        diagnostics.append(Diagnostic("error", f"cannot read {rel}: {exc.strerror or exc}", Position(rel, 0, 1, 1)))
        return None
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        text = data.decode("latin-1")
        line, col = LineIndex(text).line_col(exc.start)
        diagnostics.append(Diagnostic(
            "warning", f"{rel} is not valid UTF-8 (byte 0x{data[exc.start]:02x}); read as Latin-1",
            Position(rel, exc.start, line, col)))
        return text


# ----- finding the main file --------------------------------------------------------------------------

def find_main_file(root: Path, diagnostics: list[Diagnostic] | None = None) -> tuple[str, str]:
    """The main file of the paper in `root` (relative path) and its format ("latex" or "markdown")."""
    diagnostics = diagnostics if diagnostics is not None else []
    tex_files = sorted(p.relative_to(root).as_posix() for p in root.rglob("*.tex") if p.is_file())
    texts = {}
    for rel in tex_files:
        text = read_text(root / rel, rel, [])
        if text is not None:
            texts[rel] = text
    candidates = [r for r, t in texts.items() if _DOCUMENTCLASS.search(t) and _BEGIN_DOCUMENT.search(t)]
    if not candidates:
        candidates = [r for r, t in texts.items() if _BEGIN_DOCUMENT.search(t)]
        if candidates:
            diagnostics.append(Diagnostic(
                "warning", f"no file has both \\documentclass and \\begin{{document}}; using {_pick(candidates, texts)}"))
    if not candidates and len(texts) == 1:
        candidates = list(texts)
        diagnostics.append(Diagnostic("warning", f"no \\begin{{document}} found; reading the only .tex file {candidates[0]}"))
    if candidates:
        return _pick(candidates, texts), "latex"
    markdown = sorted((p for p in root.rglob("*.md") if p.is_file()), key=lambda p: (-p.stat().st_size, str(p)))
    if markdown:
        return markdown[0].relative_to(root).as_posix(), "markdown"
    if texts:
        return _pick(list(texts), texts), "latex"
    raise SourceError(f"no LaTeX or Markdown file in {root}")


def _included_names(text: str) -> set[str]:
    names = set()
    for m in _INCLUDE_NAMES.finditer(text):
        if m.group(1) is not None:
            name = m.group(1).strip()
        else:
            name = os.path.join(m.group(2).strip(), m.group(3).strip())
        name = os.path.normpath(name)
        names.add(name if name.endswith(".tex") else name + ".tex")
    return names


def _pick(candidates: list[str], texts: dict[str, str]) -> str:
    if len(candidates) == 1:
        return candidates[0]
    includes = {rel: _included_names(texts[rel]) for rel in texts}
    included = set().union(*includes.values())
    top = [c for c in candidates if c not in included] or candidates
    # Then the one that includes most, then a conventional name, then the name.
    return min(top, key=lambda c: (-len(includes[c] & set(texts)),
                                   0 if os.path.basename(c) in _MAIN_NAMES else 1, c))


# ----- the stage ---------------------------------------------------------------------------------------

def flatten(tree: SourceTree) -> FlatSource:
    """Join the paper in `tree` into one comment-free text with a map back to the original files."""
    try:
        return _flatten(tree)
    except OSError as exc:  # listing the source directory failed (permissions, a vanished folder)
        raise SourceError(f"cannot read the sources in {tree.root}: {exc.strerror or exc}") from exc


def _flatten(tree: SourceTree) -> FlatSource:
    diagnostics: list[Diagnostic] = []
    root = tree.root
    if tree.main_hint:
        main = tree.main_hint
        fmt = "markdown" if main.lower().endswith((".md", ".markdown")) else "latex"
        if not (root / main).is_file():
            raise SourceError(f"main file {main} not found in {root}")
    else:
        main, fmt = find_main_file(root, diagnostics)
    if fmt == "markdown":
        text = read_text(root / main, main, diagnostics)
        if text is None:
            raise SourceError(f"cannot read {main} in {root}")
        return FlatSource(SourceMap.identity(text, main), main, "markdown", (main,), (), False,
                          tuple(diagnostics), root)
    flattener = _Flattener(root, main, diagnostics)
    flattener.run()
    if main not in flattener.cache:
        raise SourceError(f"cannot read the main file {main} in {root}")
    flat_text = "".join(flattener.pieces)
    files = {rel: flattener.cache[rel].text for rel in flattener.read_order}
    source_map = SourceMap(flat_text, tuple(flattener.segments), files)
    packages = flattener.package_maps(flat_text)
    return FlatSource(source_map, main, "latex", tuple(flattener.read_order), packages,
                      flattener.bbl_included, tuple(flattener.diagnostics), root)
