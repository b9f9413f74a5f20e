"""The document model: a paper as its reader sees it. Frozen dataclasses, source spans everywhere.

Ids are stable and used identically in JSON, HTML anchors and CLI output: `sec:3.2.1`, `eq:15`
(unnumbered displays: `eq:u4`), `fn:4`, `fig:2`, `tab:1`, `alg:1`, `p:17` (paragraphs).
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from ..errors import Diagnostic
from ..spans import Span
from .refs import RefStyle


@dataclass(frozen=True)
class PaperInfo:
    """Which paper this is and exactly which version was read."""

    title: str | None
    """Title as printed (macros expanded, formatting removed)."""
    source: str
    """What the user gave: a path, an archive or an arXiv id."""
    arxiv_id: str | None
    """arXiv identifier without version, when known."""
    version: str | None
    """arXiv version read (`v7`), when the source is an arXiv id."""
    main_file: str
    """The main file (relative to the source root)."""
    format: str
    """`latex` or `markdown`."""


@dataclass(frozen=True)
class Section:
    """A sectioning heading and the numbering LaTeX gives it."""

    id: str
    """Stable id: `sec:3.2.1`, or `sec:u5` for an unnumbered heading."""
    level: int
    """0 chapter, 1 section, 2 subsection, 3 subsubsection, 4 paragraph, 5 subparagraph."""
    number: str | None
    """Printed number (`3.2.1`, `A.2`), None when unnumbered."""
    title: str
    """Heading text, plain."""
    span: Span
    """Where the heading command stands."""
    label: str | None = None
    """`\\label` attached to the heading, if any."""
    appendix: bool = False
    """True for headings after `\\appendix`."""


@dataclass(frozen=True)
class Sentence:
    """One sentence of a paragraph (never split inside math or after e.g., i.e., Fig., et al.)."""

    text: str
    """The sentence: LaTeX with macros expanded, math kept, whitespace collapsed."""
    span: Span
    """Where it starts in the original source."""
    rendered: str | None = None
    """The sentence with every `\\ref`/`\\eqref`/`\\cref`/`\\autoref` as the PDF prints it ("Eq. (2)"); None when
    it has no reference (then `text` is what it prints)."""

    @property
    def display(self) -> str:
        """What to show a reader: `rendered` when there is one, else `text`."""
        return self.rendered if self.rendered is not None else self.text


@dataclass(frozen=True)
class Paragraph:
    """A block of running text between blank lines, headings or display equations."""

    id: str
    """Stable id: `p:17`."""
    section: str | None
    """Id of the innermost heading it sits under."""
    text: str
    """LaTeX with macros expanded, math kept, whitespace collapsed."""
    sentences: tuple[Sentence, ...]
    """The paragraph split into sentences."""
    span: Span
    """Where it starts."""
    kind: str = "text"
    """`text`, `item` (a list item), `footnote`, `caption`, `abstract`."""
    rendered: str | None = None
    """The paragraph with every reference as the PDF prints it; None when it has none."""

    @property
    def display(self) -> str:
        """What to show a reader: `rendered` when there is one, else `text`."""
        return self.rendered if self.rendered is not None else self.text


@dataclass(frozen=True)
class Equation:
    """One display equation (one numbered row of an align counts as one)."""

    id: str
    """Stable id: `eq:15`; unnumbered ones `eq:u3`."""
    number: str | None
    """The number LaTeX prints (`15`, `3a`, `A.1`, a `\\tag`), or None."""
    latex: str
    """The formula (macros expanded; `\\label`, `\\nonumber`, `\\tag` removed; continuation rows joined)."""
    env: str
    """Environment it came from (`align`, `equation*`, `\\[`, `$$`, …)."""
    section: str | None
    """Printed number of the innermost numbered section (`3.2.1`), None if none."""
    section_id: str | None
    """Id of the innermost heading (numbered or not)."""
    label: str | None
    """`\\label` of this row, if any."""
    span: Span
    """Where the row starts in the original source."""
    paragraph_before: str | None = None
    """Id of the paragraph just before the display."""
    paragraph_after: str | None = None
    """Id of the paragraph just after it (often the "where …" clause)."""
    row: int = 0
    """0-based row index inside its environment."""
    group: int = 0
    """Index of the display environment (rows of one align share it)."""


@dataclass(frozen=True)
class InlineMath:
    """A `$…$` or `\\(…\\)` formula in running text."""

    latex: str
    """The formula, macros expanded."""
    paragraph: str
    """Id of the paragraph it sits in."""
    span: Span
    """Where it starts."""


@dataclass(frozen=True)
class Footnote:
    """A footnote with the number LaTeX prints."""

    id: str
    """`fn:4`."""
    number: str
    """Printed mark."""
    text: str
    """Footnote text (LaTeX, macros expanded)."""
    paragraph: str | None
    """Paragraph that carries the mark."""
    span: Span
    """Where the `\\footnote` stands."""


@dataclass(frozen=True)
class Float:
    """A figure or table caption (with table cell text for tables)."""

    id: str
    """`fig:2` / `tab:1`."""
    kind: str
    """`figure` or `table`."""
    number: str | None
    """Printed number."""
    caption: str
    """Caption text, plain."""
    label: str | None
    """`\\label` of the float."""
    span: Span
    """Where the caption stands."""
    cells: tuple[tuple[str, ...], ...] = ()
    """Table cell text, row by row (plain)."""


@dataclass(frozen=True)
class AlgorithmLine:
    """One line of an algorithmic box."""

    number: int | None
    """Line number as printed (None for \\Require/\\Ensure/\\Statex)."""
    keyword: str
    """The command that opened the line (`State`, `For`, `Require`, …)."""
    text: str
    """The line's LaTeX, macros expanded."""
    span: Span
    """Where the line starts."""


@dataclass(frozen=True)
class Algorithm:
    """An algorithm box: caption and numbered lines."""

    id: str
    """`alg:1`."""
    number: str | None
    """Printed number."""
    caption: str
    """Caption text, plain."""
    label: str | None
    """`\\label` of the box."""
    lines: tuple[AlgorithmLine, ...]
    """The numbered lines."""
    span: Span
    """Where the box starts."""
    section_id: str | None = None
    """Id of the innermost heading it sits under."""


@dataclass(frozen=True)
class Reference:
    """A `\\ref`/`\\eqref`/… and what it resolved to."""

    command: str
    """`ref`, `eqref`, `autoref`, `cref`, …"""
    label: str
    """The label referred to."""
    target: str | None
    """Id of the target (`eq:15`), None when unresolved."""
    number: str | None
    """Printed number of the target."""
    span: Span
    """Where the reference stands."""
    text: str | None = None
    """What the PDF prints for it: "3.1", "(2)", "Eq. (2)", "Section 3.1", "??" when TeX cannot resolve it."""


@dataclass(frozen=True)
class Document:
    """A paper's document model. Built once per source; never mutated."""

    paper: PaperInfo
    """Which paper and version."""
    authors: tuple[str, ...]
    """Author block, plain, as given."""
    abstract: str | None
    """Abstract text (LaTeX, macros expanded)."""
    sections: tuple[Section, ...]
    """Headings in order."""
    paragraphs: tuple[Paragraph, ...]
    """Running text in order."""
    equations: tuple[Equation, ...]
    """Display equations in order (numbered and unnumbered)."""
    inline_math: tuple[InlineMath, ...]
    """Inline formulas in order."""
    footnotes: tuple[Footnote, ...]
    """Footnotes in order."""
    floats: tuple[Float, ...]
    """Figure and table captions in order."""
    algorithms: tuple[Algorithm, ...]
    """Algorithm boxes in order."""
    labels: dict[str, str]
    """`\\label` → target id."""
    references: tuple[Reference, ...]
    """Every `\\ref`-like command, resolved where possible."""
    operators: dict[str, str]
    """`\\DeclareMathOperator` declarations: command → operator text."""
    contributions: tuple[str, ...]
    """The introduction's contributions list, when there is one."""
    code_links: tuple[str, ...]
    """Links to code the paper gives (GitHub, GitLab, Hugging Face, project pages)."""
    diagnostics: tuple[Diagnostic, ...]
    """Problems found that did not stop the run."""
    sources: dict[str, str] = field(default_factory=dict, compare=False, repr=False)
    """Original text of every source file (to place a quote on its exact line)."""
    label_numbers: dict[str, str | None] = field(default_factory=dict)
    """`\\label` → the number a `\\ref` to it prints (`3.1`, `A.2`, `2b`), as TeX resolves it."""
    ref_style: RefStyle | None = field(default=None, compare=False, repr=False)
    """How this paper's references print (see `render_references`)."""
    _index: dict = field(default_factory=dict, compare=False, repr=False)
    _sections: dict = field(default_factory=dict, compare=False, repr=False)
    _numbers: dict = field(default_factory=dict, compare=False, repr=False)

    def equation(self, key: str) -> Equation | None:
        """Find an equation by number (`15`), id (`eq:15`) or label (`eq:foo`)."""
        if not self._index:
            for eq in self.equations:
                self._index.setdefault(eq.id, eq)
                if eq.number is not None:
                    self._index.setdefault(eq.number, eq)
                if eq.label:
                    self._index.setdefault("label:" + eq.label, eq)
        key = key.strip().strip("()")
        return self._index.get(key) or self._index.get("label:" + key)

    def render_references(self, text: str) -> str:
        """`text` (LaTeX from this paper) with every `\\ref`-like command replaced by what the PDF prints."""
        if self.ref_style is None:
            return text
        return self.ref_style.render_text(text)

    def section_by_id(self, section_id: str | None) -> Section | None:
        if not self._sections:
            for sec in self.sections:
                self._sections.setdefault(sec.id, sec)
        return self._sections.get(section_id)

    def number_of(self, target: str) -> str | None:
        """The printed number of the equation, section, float or algorithm whose id is `target` (the first of
        them, in that order, with that id); for another id, what follows its `kind:` prefix."""
        if not self._numbers:
            kinds: tuple[tuple[Any, ...], ...] = (self.algorithms, self.floats, self.sections, self.equations)
            for items in kinds:  # equations first, then sections, floats, algorithms: the first one wins
                self._numbers.update((item.id, item.number) for item in reversed(items))
        if target in self._numbers:
            return self._numbers[target]
        return target.split(":", 1)[1] if ":" in target else None

    def paragraph(self, paragraph_id: str | None) -> Paragraph | None:
        if paragraph_id is None or not paragraph_id.startswith("p:"):
            return None
        try:
            index = int(paragraph_id[2:])
        except ValueError:
            return None
        return self.paragraphs[index] if 0 <= index < len(self.paragraphs) else None

    def locate_text(self, text: str, file: str, near_offset: int) -> int | None:
        """1-based line where `text` (whitespace-insensitive) starts in `file`, searching from `near_offset`."""
        source = self.sources.get(file)
        if not source or not text.strip():
            return None
        words = text.split()[:8]
        pattern = r"\s+".join(re.escape(w) for w in words)
        m = re.compile(pattern).search(source, max(near_offset, 0))
        if m is None:
            return None
        return source.count("\n", 0, m.start()) + 1

    @property
    def unresolved_references(self) -> tuple[Reference, ...]:
        return tuple(r for r in self.references if r.target is None)
