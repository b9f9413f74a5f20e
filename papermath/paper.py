"""The paper session: a paper read once, as one model, and shared by every command.

    paper = papermath.open("paper/")          # the document, loaded once
    eq = paper.equation("15")                  # 15, (15), eq:15, eq:u2, a \\label, a printed form
    paper.formula(eq.id).result.tree           # parsed once, with a source map back to file:line:column
    paper.reading(eq)                          # the reading of one equation (cached)
    paper.read()                               # the reading of every display equation

Every display and inline formula of the paper (running text, captions, footnotes, the abstract, table cells,
algorithm lines) is a `Formula`: a stable id, the LaTeX as parsed, where it stands, its parse result or the
error as a `Diagnostic`, and a map from each character of the formula to the original file, line and column, so
a parser warning on a real paper names `main.tex:9:35`. What a command computes for one equation is computed
lazily, from the session, and kept with the paper; the sessions themselves are kept in a small bounded cache, so
an MCP server or the HTML build reuses one paper instead of reloading it.
"""
from __future__ import annotations

import bisect
import contextlib
import difflib
import gc
import os
import re
import threading
from collections import OrderedDict
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterator

from .errors import Diagnostic, MathParseError, UsageError
from .spans import LineIndex, Position, Span

if TYPE_CHECKING:  # the session imports its stages only when they are used
    from .analysis.read import PaperIndex
    from .analysis.reading import EquationReading, PaperReading, SymbolReading
    from .latex.document import Document, Equation
    from .math import ParseResult

__all__ = ["Paper", "Formula", "Place", "open", "paper_of", "clear_cache"]

_OFFSET = re.compile(r"\s*\(at offset (\d+)\)$")


@dataclass(frozen=True)
class Place:
    """Where a formula stands in the paper."""

    kind: str
    """`display`, or the kind of text holding an inline formula: `text`, `item`, `caption`, `footnote`,
    `abstract` (paragraphs), `table` (a table cell), `algorithm` (an algorithm line)."""
    container: str
    """Id of what holds it: the equation (`eq:15`), paragraph (`p:17`), table (`tab:1`) or algorithm (`alg:2`)."""
    sentence: int | None = None
    """Index of the sentence of the paragraph it stands in (inline formulas of paragraphs only)."""
    index: int = 0
    """0-based position among the formulas of its container."""


@dataclass(frozen=True)
class FormulaSourceMap:
    """Formula character offset → original source offset, as sorted runs copied verbatim from the source.

    Characters no run covers (text a macro produced, a space papermath collapsed) map to the source offset just
    after the run before them: the macro call that produced them."""

    file: str
    """The source file the formula was read from."""
    runs: tuple[tuple[int, int, int], ...]
    """(formula offset, source offset, length) of each verbatim run, in formula order."""
    start: int
    """Source offset the formula starts at (where unmatched leading characters map)."""

    def offset(self, formula_offset: int) -> int:
        """The source offset of the formula's character at `formula_offset`."""
        if not self.runs:
            return self.start
        keys = [r[0] for r in self.runs]
        k = bisect.bisect_right(keys, formula_offset) - 1
        if k < 0:
            return self.runs[0][1] if formula_offset >= 0 else self.start
        a, b, size = self.runs[k]
        if formula_offset < a + size:
            return b + (formula_offset - a)
        return b + size


@dataclass(frozen=True)
class Formula:
    """One formula of the paper, parsed once."""

    id: str
    """Stable id: `eq:15` / `eq:u3` for display equations; `m:<container>:<k>` for the k-th inline formula of a
    paragraph, table or algorithm (`m:p:17:2`, `m:tab:1:0`, `m:alg:2:5`)."""
    latex: str
    """The formula as parsed (macros expanded; every offset below indexes into it)."""
    display: bool
    """True for a display equation."""
    place: Place
    """Where it stands."""
    span: Span
    """Where it starts in the original source (for an inline formula, its opening delimiter)."""
    result: ParseResult | None
    """The syntax tree and tolerant-mode warnings, None when it does not parse."""
    error: Diagnostic | None
    """Why it does not parse, at the source position of the failure; None when it parses."""
    equation: Equation | None = None
    """The display equation (display formulas only)."""
    _source: Any = field(default=None, compare=False, repr=False)

    @property
    def tree(self):
        """The syntax tree, or None."""
        return self.result.tree if self.result is not None else None

    @cached_property
    def source_map(self) -> FormulaSourceMap:
        """The map from this formula's characters to the original source (built on first use)."""
        return self._source.source_map(self)

    def position(self, offset: int) -> Position:
        """Original file:line:column of the formula's character at `offset` (where the formula starts when the
        original file's text is not at hand)."""
        if self.span.file not in self._source.files:
            return self.span.position
        return self._source.position(self.span.file, self.source_map.offset(offset))

    @property
    def warnings(self) -> tuple[Diagnostic, ...]:
        """The parser's warnings, each at the source position it is about."""
        if self.result is None:
            return ()
        return tuple(self._diagnostic("warning", w) for w in self.result.warnings)

    def _diagnostic(self, severity: str, message: str) -> Diagnostic:
        m = _OFFSET.search(message)
        if m is None:
            return Diagnostic(severity, f"{self.id}: {message}", self.span.position)
        return Diagnostic(severity, f"{self.id}: {message[:m.start()]}", self.position(int(m.group(1))))


# -- aligning a formula with its source ------------------------------------------------------------------------


_DIFFLIB_WORK = 1_000_000
"""len(formula) × len(window) past which a formula is aligned piece by piece, not by difflib: difflib's matching
blocks took 4.4 s of CPU on one 1,529-character display whose macros expand (issue 12: bounded work)."""

_PIECE = re.compile(r"\S+")


def _piece_runs(latex: str, chunk: str, start: int, reach: int = 200) -> tuple[tuple[int, int, int], ...]:
    """Runs for each whitespace-free piece of `latex` found verbatim in `chunk`, in order, each looked for at
    most `reach` characters past the previous one (linear: a piece a macro produced is skipped, and maps to
    the source just after the piece before it)."""
    runs = []
    at = 0
    for m in _PIECE.finditer(latex):
        piece = m.group()
        found = chunk.find(piece, at, at + reach + len(piece))
        if found >= 0:
            runs.append((m.start(), start + found, len(piece)))
            at = found + len(piece)
    return tuple(runs)


def align(latex: str, source: str, start: int, file: str, *, window: int | None = None) -> FormulaSourceMap:
    """Runs of `latex` copied verbatim from `source` at or after `start` (difflib's matching blocks over a window
    a little longer than the formula; whitespace the document collapsed is skipped on both sides)."""
    limit = window if window is not None else 2 * len(latex) + 400
    chunk = source[start:start + limit]
    if chunk.startswith(latex):
        return FormulaSourceMap(file, ((0, start, len(latex)),), start)
    if len(latex) * len(chunk) > _DIFFLIB_WORK:
        # difflib is quadratic: a long formula (a macro's expansion, a broken paper) is aligned piece by piece
        return FormulaSourceMap(file, _piece_runs(latex, chunk, start), start)
    matcher = difflib.SequenceMatcher(None, latex, chunk, autojunk=False)
    runs = tuple((a, start + b, size) for a, b, size in matcher.get_matching_blocks() if size)
    return FormulaSourceMap(file, runs, start)


class _Sources:
    """The original files of a paper with one line index each (built on first use), for positions."""

    def __init__(self, files: dict[str, str]) -> None:
        self.files = files
        self._lines: dict[str, LineIndex] = {}

    def lines(self, file: str) -> LineIndex:
        index = self._lines.get(file)
        if index is None:
            index = self._lines[file] = LineIndex(self.files.get(file, ""))
        return index

    def position(self, file: str, offset: int) -> Position:
        line, column = self.lines(file).line_col(offset)
        return Position(file, offset, line, column)

    def source_map(self, formula: Formula) -> FormulaSourceMap:
        text = self.files.get(formula.span.file)
        if not text:
            return FormulaSourceMap(formula.span.file, (), formula.span.start)
        start = formula.span.start
        if formula.place.kind in ("table", "algorithm"):
            # The container's span is where the table or box starts: find the formula's first run of text.
            head = formula.latex[:12]
            at = text.find(head, start, start + 200_000) if head else -1
            start = at if at >= 0 else start
        return align(formula.latex, text, start, formula.span.file)


# -- the session -----------------------------------------------------------------------------------------------

# A quote is searched for from its sentence's start up to this far (a sentence and the formulas in it): a quote
# the source spells otherwise (a macro) is not looked for through the whole rest of the file each time.
_LOCATE_WINDOW = 20_000

_GC_PAUSES = 0
_GC_LOCK = threading.Lock()


@contextlib.contextmanager
def gc_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector while a paper is built and read: building millions of small tuples
    and nodes sets it off again and again for nothing (they are alive until the paper is dropped). Measured
    on the 24 corpus papers: loading 43% and reading 15% less CPU. Nested pauses are counted; the collector is
    restored to how it was found.

    When the outermost pause ends, what it built is frozen (`gc.freeze`): left in the youngest generation, all
    of it would be scanned by the first collection after the pause, and again as it ages (on DiffusionDPO one
    such collection cost `html` 0.086 s, `read` 0.036 s in 9). Frozen objects are freed by reference counting
    as usual; the collector looks at them again (`gc.unfreeze`) when a session is dropped from the cache
    (`_remember`, `clear_cache`), so a server's dropped papers are collected."""
    global _GC_PAUSES
    with _GC_LOCK:
        if _GC_PAUSES == 0:
            paused = gc.isenabled()
            if paused:
                gc.disable()
            _gc_state.append(paused)
        _GC_PAUSES += 1
    try:
        yield
    finally:
        with _GC_LOCK:
            _GC_PAUSES -= 1
            if _GC_PAUSES == 0 and _gc_state.pop():
                gc.freeze()
                gc.enable()


def _unfreeze() -> None:
    """Give every frozen object back to the collector (a session was dropped: its cycles are garbage now)."""
    with _GC_LOCK:
        gc.unfreeze()


_gc_state: list[bool] = []


class Paper:
    """A paper loaded once: its document, its formulas (each parsed once) and what was computed from them."""

    def __init__(self, doc: Document) -> None:
        self.doc = doc
        """The document model (`papermath.latex.Document`)."""
        self.functions: frozenset[str] = frozenset(doc.operators.values()) | frozenset(doc.operators)
        """Operator names the paper declares (`\\DeclareMathOperator`): every stage parses with this one set."""
        self._sources = _Sources(doc.sources)
        self._parsed: dict[str, ParseResult | MathParseError] = {}
        self._formulas: dict[str, Formula] = {}
        self._readings: dict[str, EquationReading] = {}
        self._symbol_parts: dict[str, Any] = {}
        self.skipped: list[Diagnostic] = []
        """Equations whose reading ran out of the per-formula time budget (`papermath.budget`)."""
        self._lock = threading.RLock()
        self.cache: dict[str, Any] = {}
        """Per-paper results of later stages (shapes context, …), keyed by the stage; dropped with the paper."""

    def __repr__(self) -> str:
        return f"Paper({self.doc.paper.title or self.doc.paper.source!r}, {len(self.doc.equations)} equations)"

    # -- parsing -------------------------------------------------------------------------------------------
    def parse_result(self, latex: str) -> ParseResult | MathParseError:
        """The parse of `latex` with the paper's operators, or the error (each distinct formula parsed once)."""
        found = self._parsed.get(latex)
        if found is None:
            from .budget import BudgetExceeded, formula_budget
            from .math import parse
            try:
                with formula_budget("formula"):
                    found = parse(latex, functions=self.functions)
            except MathParseError as error:
                found = error
            except BudgetExceeded as error:
                found = MathParseError(error.message, latex, 0)
            except RecursionError:
                found = MathParseError("formula nested too deeply", latex, 0)
            self._parsed[latex] = found
        return found

    def parse(self, latex: str) -> ParseResult | None:
        """The parse of `latex` with the paper's operators, None when it does not parse."""
        found = self.parse_result(latex)
        return None if isinstance(found, MathParseError) else found

    def position(self, file: str, offset: int) -> Position:
        """file:line:column of an offset in one of the paper's original files (line index built once per file)."""
        return self._sources.position(file, offset)

    def locate_text(self, text: str, file: str, near_offset: int) -> int | None:
        """1-based line where `text` (whitespace-insensitive, its first 8 words) starts in `file`, searching
        from `near_offset`."""
        source = self.doc.sources.get(file)
        if not source or not text.strip():
            return None
        words = text.split()[:8]
        start = max(near_offset, 0)
        at = _find_words(source, words, start, start + _LOCATE_WINDOW if near_offset > 0 else len(source))
        return None if at < 0 else self._sources.lines(file).line_col(at)[0]

    # -- formulas ------------------------------------------------------------------------------------------
    def _make(self, fid: str, latex: str, display: bool, place: Place, span: Span, equation=None) -> Formula:
        found = self.parse_result(latex)
        result = None if isinstance(found, MathParseError) else found
        formula = Formula(fid, latex, display, place, span, result, None, equation, self._sources)
        if isinstance(found, MathParseError):
            message = f"{fid}: formula does not parse: {found.message}"
            error = Diagnostic("error", message, formula.position(found.offset))
            formula = Formula(fid, latex, display, place, span, None, error, equation, self._sources)
        return formula

    def _equation_formula(self, eq: Equation) -> Formula:
        formula = self._formulas.get(eq.id)
        if formula is None:
            formula = self._formulas[eq.id] = self._make(eq.id, eq.latex, True, Place("display", eq.id), eq.span, eq)
        return formula

    @cached_property
    def formulas(self) -> tuple[Formula, ...]:
        """Every formula of the paper in reading order of kind: display equations, then the inline formulas of
        paragraphs (text, items, captions, footnotes, abstract), then table cells, then algorithm lines."""
        with self._lock:
            out = [self._equation_formula(eq) for eq in self.doc.equations]
            out += list(self._inline_formulas())
            for formula in out:
                self._formulas.setdefault(formula.id, formula)
            return tuple(out)

    def _inline_formulas(self) -> Iterator[Formula]:
        from .analysis.definitions import _MATH, _inner

        doc = self.doc
        counts: dict[str, int] = {}
        for m in doc.inline_math:
            para = doc.paragraph(m.paragraph)
            k = counts.get(m.paragraph, 0)
            counts[m.paragraph] = k + 1
            kind = para.kind if para is not None else "text"
            yield self._make(f"m:{m.paragraph}:{k}", m.latex, False,
                             Place(kind, m.paragraph, _sentence_of(para, m.span), k), m.span)
        for table in doc.floats:
            k = 0
            for row in table.cells:
                for cell in row:
                    for found in _MATH.finditer(cell):
                        latex = (found.group(_inner(found)) or "").strip()
                        if latex:
                            yield self._make(f"m:{table.id}:{k}", latex, False, Place("table", table.id, None, k),
                                             table.span)
                            k += 1
        for algorithm in doc.algorithms:
            k = 0
            for line in algorithm.lines:
                for found in _MATH.finditer(line.text):
                    latex = (found.group(_inner(found)) or "").strip()
                    if latex:
                        yield self._make(f"m:{algorithm.id}:{k}", latex, False,
                                         Place("algorithm", algorithm.id, None, k), line.span)
                        k += 1

    def formula(self, key: str) -> Formula:
        """A formula by id (`eq:15`, `m:p:17:2`) or an equation by any key `equation` accepts."""
        if key.startswith("m:"):
            found = next((f for f in self.formulas if f.id == key), None)
            if found is None:
                raise UsageError(f"no formula {key!r} in this paper")
            return found
        return self._equation_formula(self.equation(key))

    @property
    def diagnostics(self) -> tuple[Diagnostic, ...]:
        """The document's diagnostics, then every formula's parse error and warning at its source position."""
        out = list(self.doc.diagnostics)
        for formula in self.formulas:
            if formula.error is not None:
                out.append(formula.error)
            out.extend(formula.warnings)
        return tuple(out)

    # -- equations -----------------------------------------------------------------------------------------
    def find_equation(self, key: str) -> Equation | None:
        """The equation a key names, or None: a number as printed (`15`, `(15)`, `3a`), an id (`eq:15`,
        `eq:u2`), a `\\label` (with or without `label:`), or any printed form the document knows."""
        key = key.strip()
        if not key:
            return None
        doc = self.doc
        eq = doc.equation(key)
        if eq is None and not key.startswith("eq:"):
            eq = doc.equation("eq:" + key.strip("()"))
        if eq is None and key.startswith("label:"):
            eq = doc.equation(key[len("label:"):])
        return eq

    def equation(self, key: str) -> Equation:
        """The equation a key names (see `find_equation`); a `UsageError` naming the range and the nearest keys
        when there is none."""
        eq = self.find_equation(key)
        if eq is None:
            raise UsageError(self._no_equation(key))
        from .api import bind  # the same Equation (equal, same hash), with .reading/.shapes()/.numbers()/.code()
        return bind(self, eq)

    def check(self, reading: Any, eq: str | list[str] | None = None) -> Any:
        """Check a reading (`paper.equation("1").reading`, read's JSON, a Markdown reading or its path) against
        the paper; the report (`.passed`, `.json()`, notebook display). See `papermath.api`."""
        from .api import check
        return check(self, reading, eq)

    def _no_equation(self, key: str) -> str:
        doc = self.doc
        numbers = [e.number for e in doc.equations if e.number]
        if numbers:
            span = f"numbers run ({numbers[0]})–({numbers[-1]})"
        else:
            span = "the paper numbers no equation"
        unnumbered = sum(1 for e in doc.equations if not e.number)
        if unnumbered:
            span += f"; unnumbered ones are eq:u1 … eq:u{unnumbered}"
        candidates = numbers + [e.id for e in doc.equations] + [e.label for e in doc.equations if e.label]
        close = difflib.get_close_matches(key.strip().strip("()"), candidates, n=3, cutoff=0.6)
        hint = f"; did you mean {', '.join(close)}?" if close else ""
        return f"no equation {key!r} in this paper ({span}){hint}"

    # -- what later stages compute ---------------------------------------------------------------------------
    @cached_property
    def index(self) -> PaperIndex:
        """What the prose says and what each equation uses and defines, indexed once (`analysis.read`)."""
        from .analysis.read import build_paper_index
        with self._lock, gc_paused():
            return build_paper_index(self)

    def reading(self, eq: Equation | str) -> EquationReading:
        """The reading of one display equation (computed once per paper)."""
        from .analysis.read import read_equation
        if isinstance(eq, str):
            eq = self.equation(eq)
        found = self._readings.get(eq.id)
        if found is None:
            index = self.index
            with self._lock, gc_paused():
                found = self._within_budget(eq, lambda: read_equation(index, eq, self._symbol_parts.get(eq.id)))
                self._readings[eq.id] = found
        return found

    def symbols(self, eq: Equation | str) -> tuple[SymbolReading, ...]:
        """The symbol rows of one equation's reading, as `reading(eq).symbols` gives them, without what else a
        reading asks of the other displays (its kind, the equations that use it): what the shapes of an
        equation and of the equations before it are read from. Computed once per paper."""
        from .analysis.read import EquationSymbols, read_symbols
        if isinstance(eq, str):
            eq = self.equation(eq)
        found = self._readings.get(eq.id)
        if found is not None:
            return found.symbols
        if eq.id not in self._symbol_parts:
            index = self.index
            with self._lock, gc_paused():
                part = self._within_budget(eq, lambda: read_symbols(index, eq))
                if not isinstance(part, EquationSymbols) and part is not None:  # over the budget: the reading says so
                    self._readings[eq.id] = part
                    return part.symbols
                self._symbol_parts[eq.id] = part
        part = self._symbol_parts[eq.id]
        return part.symbols if part is not None else ()

    def _within_budget(self, eq: Equation, compute) -> Any:
        """`compute()` within the formula's time budget; over it, the unread reading (and a diagnostic)."""
        from .analysis.read import unread_equation
        from .budget import BudgetExceeded, formula_budget
        try:
            with formula_budget(eq.id):
                return compute()
        except BudgetExceeded as error:
            self.skipped.append(Diagnostic("error", error.message, eq.span.position))
            return unread_equation(self.doc, eq, "not read: over the time budget", error.message)

    def read(self, keys: list[str] | None = None) -> PaperReading:
        """Readings of every display equation, or of the ones named by number, id or label."""
        from .analysis.read import read_document
        with gc_paused():
            return read_document(self, keys)

    def _stage(self, stage: str, eq: Equation | str, compute) -> Any:
        if isinstance(eq, str):
            eq = self.equation(eq)
        results = self.cache.setdefault(stage, {})
        if eq.id not in results:
            with self._lock, gc_paused():
                results[eq.id] = compute(eq)
        return results[eq.id]

    def shapes(self, eq: Equation | str) -> Any:
        """The shape table of one equation (`analysis.shapes.ShapeReport`) with the shapes the text declares and
        those earlier equations give (what `papermath shapes SOURCE --eq N` shows); computed once per paper."""
        def compute(eq: Equation) -> Any:
            from .analysis.shapes import infer_shapes, shapes_in_context
            declared, sources, _ = shapes_in_context(self, eq)
            parsed = self.parse(eq.latex)
            return infer_shapes(parsed.tree if parsed is not None else eq.latex, declared, sources=sources,
                                functions=self.functions)
        return self._stage("shapes", eq, compute)

    def numbers(self, eq: Equation | str) -> Any:
        """Small numbers through one equation (`evaluate.Evaluation`), as `papermath numbers SOURCE --eq N`
        computes them with no --set; computed once per paper. Raises `EvaluationError` when it cannot."""
        def compute(eq: Equation) -> Any:
            from .analysis.shapes import shapes_in_context
            from .evaluate import evaluate
            declared, _, _ = shapes_in_context(self, eq)
            return evaluate(eq.latex, {}, declared_shapes=declared, functions=self.functions)
        return self._stage("numbers", eq, compute)

    def code(self, eq: Equation | str) -> Any:
        """NumPy/PyTorch code and its test for one equation (`codegen.GeneratedCode`), from `numbers(eq)`."""
        def compute(eq: Equation) -> Any:
            from .codegen import Citation, generate
            paper = self.doc.paper
            version = (paper.arxiv_id + (paper.version or "")) if paper.arxiv_id else None
            return generate(self.numbers(eq), Citation(paper.title or paper.source, version, eq.number))
        return self._stage("code", eq, compute)

    @cached_property
    def notation(self) -> Any:
        """The paper-wide notation index (`papermath.analysis.notation_index.NotationIndex`: every occurrence of
        every symbol, the evidence about each), built on first use."""
        from .analysis.notation_index import build_index
        with self._lock, gc_paused():
            return build_index(self.doc)


def _find_words(source: str, words: list[str], start: int, end: int) -> int:
    """Where `words` first stand in `source[start:end]` one after another, each separated from the next by white
    space (what the pattern `w1\\s+w2\\s+…` finds, without compiling one per quote), or -1. A word holds no white
    space, so the white space after a word is all skipped before the next word is compared."""
    first = words[0]
    at = source.find(first, start, end)
    while at >= 0:
        k = at + len(first)
        for word in words[1:]:
            gap = k
            while k < end and source[k].isspace():
                k += 1
            if k == gap or not source.startswith(word, k, end):
                break
            k += len(word)
        else:
            return at
        at = source.find(first, at + 1, end)
    return -1


# -- opening papers: one session per source, a few kept ----------------------------------------------------------

_MAX_PAPERS = 4
_PAPERS: OrderedDict[tuple, Paper] = OrderedDict()
_BY_DOC: OrderedDict[int, Paper] = OrderedDict()
_CACHE_LOCK = threading.Lock()


def _signature(source: str) -> tuple | None:
    """What identifies the source's current content cheaply: the path and every file's size and mtime; None
    when the source is not a local path (an arXiv id: its versioned download does not change)."""
    path = Path(source)
    try:
        if path.is_file():
            st = path.stat()
            return (str(path.resolve()), st.st_size, st.st_mtime_ns)
        if path.is_dir():
            stamps = []
            for root, _, names in os.walk(path):
                for name in names:
                    st = os.stat(os.path.join(root, name))
                    stamps.append((os.path.join(root, name), st.st_size, st.st_mtime_ns))
            return (str(path.resolve()), tuple(sorted(stamps)))
    except OSError:
        return None
    return None


def _remember(cache: OrderedDict, key: Any, paper: Paper) -> None:
    cache[key] = paper
    cache.move_to_end(key)
    while len(cache) > _MAX_PAPERS:
        cache.popitem(last=False)
        _unfreeze()


def open(source: str | os.PathLike | Document, *, cache_dir=None) -> Paper:  # noqa: A001 - papermath.open
    """Open a paper (a directory, a .tex/.md file, an archive, an arXiv id, or an already-built Document) as a
    session. The last few sessions are kept: opening the same unchanged source again returns the same Paper."""
    from .latex.document import Document
    if isinstance(source, Document):
        return paper_of(source)
    source = os.fspath(source)
    signature = _signature(source)
    key = (source, signature, str(cache_dir))
    with _CACHE_LOCK:
        paper = _PAPERS.get(key) if signature is not None or not Path(source).exists() else None
        if paper is not None:
            _PAPERS.move_to_end(key)
            return paper
    from .latex import load_document
    with gc_paused():
        paper = Paper(load_document(source, cache_dir=cache_dir))
    with _CACHE_LOCK:
        _remember(_PAPERS, key, paper)
        _remember(_BY_DOC, id(paper.doc), paper)
    return paper


def paper_of(doc: Document) -> Paper:
    """The session of an already-built document (the same Paper each time, while it is among the last few)."""
    with _CACHE_LOCK:
        paper = _BY_DOC.get(id(doc))
        if paper is not None and paper.doc is doc:
            _BY_DOC.move_to_end(id(doc))
            return paper
        paper = Paper(doc)
        _remember(_BY_DOC, id(doc), paper)
        return paper


def clear_cache() -> None:
    """Forget every kept session (benchmarks, tests, a server told that a paper changed)."""
    with _CACHE_LOCK:
        _PAPERS.clear()
        _BY_DOC.clear()
    _unfreeze()


def _sentence_of(para, span: Span) -> int | None:
    """Index of the paragraph's sentence that holds the source offset `span.start` (same file only)."""
    if para is None or not para.sentences:
        return None
    starts = [s.span.start if s.span.file == span.file else -1 for s in para.sentences]
    k = bisect.bisect_right(starts, span.start) - 1
    return max(k, 0)
