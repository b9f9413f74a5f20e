"""The paper's text as passages, and the quote search `check` runs over it.

A quote is found when it occurs in a passage verbatim, or after normalisation: whitespace and line breaks
removed, hyphenation at line breaks undone, typographic quotes and dashes unified, Unicode symbols mapped to
their LaTeX commands (`σ` ↔ `\\sigma`, `∈` ↔ `\\in`, `ℝ` ↔ `\\mathbb{R}`), math delimiters, braces, spacing
commands, `\\left`/`\\right`, font commands and citations dropped, and case folded. The paper's LaTeX is read
with its macros expanded (the document model), so `\\R` in the source and `\\mathbb{R}` in a quote agree.
When a quote is not found, the closest passage is located (a character 4-gram filter, then a window search with
difflib's SequenceMatcher) and reported with its similarity.
"""
from __future__ import annotations

import bisect
import difflib
import json
import re
import unicodedata
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from pathlib import Path

from ..analysis.definitions import notation_row, row_quote
from ..errors import PapermathError, SourceError

PDF_WARNING = ("PDF text flattens subscripts, superscripts and fractions into one line: a quote with math may "
               "not be found in it; check against the paper's LaTeX source (arXiv \"TeX Source\") when you can")

# Unicode characters and the LaTeX a paper writes for them (Greek letters come from papermath/data/greek.json).
_SYMBOLS = {
    "∈": "\\in", "∉": "\\notin", "×": "\\times", "≤": "\\leq", "≥": "\\geq", "≠": "\\neq", "≈": "\\approx",
    "∑": "\\sum", "∏": "\\prod", "√": "\\sqrt", "→": "\\to", "←": "\\leftarrow", "∞": "\\infty", "⊤": "\\top",
    "·": "\\cdot", "⋅": "\\cdot", "∂": "\\partial", "∇": "\\nabla", "ℝ": "\\mathbbr", "𝔼": "\\mathbbe",
    "∼": "\\sim", "∝": "\\propto", "≪": "\\ll", "≫": "\\gg", "⊙": "\\odot", "⊗": "\\otimes", "∥": "\\|",
    "…": "...", "⋯": "\\cdots", "−": "-", "–": "-", "—": "-", "‐": "-", "‑": "-",
    "“": '"', "”": '"', "„": '"', "«": '"', "»": '"', "‘": "'", "’": "'", "′": "'", "\u00ad": "",
}
# LaTeX spellings that mean the same as another (after braces are gone).
_LATEX_ALIASES = {"\\le": "\\leq", "\\ge": "\\geq", "\\ne": "\\neq", "\\gets": "\\leftarrow", "\\intercal": "\\top",
                  "\\ldots": "...", "\\dots": "...", "\\lvert": "|", "\\rvert": "|", "\\vert": "|",
                  "\\lVert": "\\|", "\\rVert": "\\|", "\\Vert": "\\|", "\\mathds": "\\mathbb",
                  "\\varepsilon": "\\epsilon", "\\bm": "", "\\boldsymbol": "", "\\mathbf": "", "\\mathrm": "",
                  "\\operatorname": "", "\\operatorname*": "", "\\text": "", "\\textrm": "", "\\textbf": "",
                  "\\textit": "", "\\emph": "", "\\mathit": "", "\\mathsf": "", "\\texttt": "", "\\left": "",
                  "\\right": "", "\\big": "", "\\Big": "", "\\bigg": "", "\\Bigg": "", "\\bigl": "", "\\bigr": "",
                  "\\Bigl": "", "\\Bigr": "", "\\displaystyle": "", "\\textstyle": "", "\\limits": "",
                  "\\nolimits": "", "\\&": "&", "\\%": "%", "\\_": "_", "\\#": "#", "\\{": "(", "\\}": ")"}
_DROP = re.compile(
    r"(?<=\w)-[ \t]*\r?\n[ \t]*(?=\w)"                        # hyphenation at a line break
    r"|\\(?:cite[a-z]*|ref|eqref|autoref|cref|Cref|label|footnotemark|url|href)\*?(?:\[[^\]]*\])*\{[^{}]*\}"
    r"|\\color\{[^{}]*\}"
    r"|\\[,;:! ]"                                             # spacing commands
    r"|\\[()\[\]]|\$|[{}~\s]"                                 # math delimiters, braces, spaces
)
_COMMAND = re.compile(r"\\[A-Za-z]+\*?|\\[&%_#{}|]")
_TRAILING = ".,;: "


@lru_cache(maxsize=1)
def _unicode_table() -> dict[str, str]:
    table = dict(_SYMBOLS)
    data = json.loads(resources.files("papermath.data").joinpath("greek.json").read_text(encoding="utf-8"))
    for letter in data.get("letters", []):
        uni, latex = letter.get("unicode"), letter.get("latex")
        if uni and latex and len(uni) == 1 and uni not in table:
            table[uni] = latex
    table["ϵ"] = "\\epsilon"
    table["ε"] = "\\epsilon"
    table["φ"] = "\\phi"
    table["ϕ"] = "\\phi"
    return table


def normalize(text: str, fold: bool = True) -> tuple[str, list[int]]:
    """The compact form used for matching, and for each of its characters the offset in `text` it came from.
    `fold=False` keeps letter case: symbols are case-sensitive (R is not r), prose is not."""
    table = _unicode_table()
    out: list[str] = []
    where: list[int] = []
    i, n = 0, len(text)

    def emit(s: str, at: int) -> None:
        for ch in s:
            out.append(ch)
            where.append(at)

    while i < n:
        m = _DROP.match(text, i)
        if m and m.end() > i:
            i = m.end()
            continue
        ch = text[i]
        if ch in "`'-" and text.startswith(("``", "''", "--"), i):
            emit('"' if ch != "-" else "-", i)
            i += 3 if text.startswith("---", i) else 2
            continue
        if ch == "\\":
            m = _COMMAND.match(text, i)
            if m:
                cmd = m.group(0)
                emit(_LATEX_ALIASES.get(cmd, cmd).casefold() if fold else _LATEX_ALIASES.get(cmd, cmd), i)
                i = m.end()
                continue
        if ch in table:
            emit(table[ch].casefold() if fold else table[ch], i)
        elif ord(ch) < 128:
            emit(ch.casefold() if fold else ch, i)
        else:
            nfkc = unicodedata.normalize("NFKC", ch)
            emit(nfkc.casefold() if fold else nfkc, i)
        i += 1
    return "".join(out), where


def compact(text: str) -> str:
    return normalize(text)[0]


def compact_symbol(text: str) -> str:
    """`compact` without case folding: the spelling of a symbol (`R` and `r` are two symbols)."""
    return normalize(text, fold=False)[0]


@dataclass(frozen=True)
class Passage:
    """A stretch of the paper's text a quote is searched in: a paragraph, a footnote, a caption, a PDF page."""

    text: str
    """The text (LaTeX with macros expanded for a LaTeX source)."""
    section: str | None
    """Printed section number (or title) it stands in."""
    file: str
    """File it stands in (for a PDF: `paper.pdf, page 3`)."""
    line: int
    """Line it starts on (1 for a PDF page)."""
    starts: tuple[int, ...] = (0,)
    """Offsets in `text` where a new source line or sentence begins (to give the line of a match)."""
    lines: tuple[int, ...] = ()
    """The line of each entry of `starts`."""
    raw: bool = False
    """Raw LaTeX source (the paper's own macros unexpanded), searched after the expanded text."""

    def line_at(self, offset: int) -> int:
        if not self.lines:
            return self.line
        k = bisect.bisect_right(self.starts, offset) - 1
        return self.lines[max(k, 0)]


@dataclass(frozen=True)
class QuoteMatch:
    """Where a quote was found, or the closest passage when it was not."""

    quote: str
    """The quote as the reading gives it."""
    found: bool
    """Found verbatim or after normalisation."""
    how: str | None
    """`verbatim` or `normalised`, None when not found."""
    section: str | None
    """Section of the passage (found, or closest)."""
    file: str | None
    """File of the passage."""
    line: int | None
    """Line where the match (or the closest stretch) starts."""
    similarity: float
    """1.0 when found; otherwise the similarity of the closest stretch (difflib ratio, 0…1)."""
    closest: str | None
    """The closest stretch of the paper's text when not found."""
    passage: int | None = None
    """Index of the passage (to compare claims with the paper's wording)."""


class PaperText:
    """The passages of a paper, normalised once, with a 4-gram index for the closest-passage search."""

    def __init__(self, passages: list[Passage], *, kind: str, name: str, document=None,
                 warnings: tuple[str, ...] = ()) -> None:
        self.passages = passages
        self.kind = kind
        """`latex`, `markdown`, `text` or `pdf`."""
        self.name = name
        self.document = document
        """The document model for a LaTeX/Markdown paper (None for plain text and PDF)."""
        self.warnings = warnings
        self._compact = [normalize(p.text) for p in passages]
        self._grams = [_grams(c) for c, _ in self._compact]
        self._raw = [" ".join(p.text.split()) for p in passages]

    # -- search ------------------------------------------------------------------------------------------------
    def find(self, quote: str) -> QuoteMatch:
        """Search one quote: verbatim, then normalised, then the closest passage."""
        raw = " ".join(quote.split()).strip()
        q = compact(quote).strip(_TRAILING)
        if not q:
            return QuoteMatch(quote, False, None, None, None, None, 0.0, None)
        for k, (c, where) in enumerate(self._compact):
            at = c.find(q)
            if at < 0:
                continue
            p = self.passages[k]
            how = "verbatim" if raw.strip(_TRAILING) in self._raw[k] else "normalised"
            if p.raw:
                how = "LaTeX source"
            return QuoteMatch(quote, True, how, p.section, p.file, p.line_at(where[at]), 1.0, None, k)
        return self._closest(quote, q)

    def occurs_in(self, quote: str, passages) -> bool:
        """Whether the quote stands in one of these passages (a sentence the paper writes twice is found at its
        first occurrence by `find`)."""
        q = compact(quote).strip(_TRAILING)
        return bool(q) and any(0 <= k < len(self._compact) and q in self._compact[k][0] for k in passages)

    def mentions(self, symbol_compact: str) -> bool:
        """Whether any passage contains the (compact) symbol at all."""
        return any(symbol_compact in c for c, _ in self._compact)

    def _closest(self, quote: str, q: str) -> QuoteMatch:
        qgrams = _grams(q)
        if not qgrams:
            return QuoteMatch(quote, False, None, None, None, None, 0.0, None)
        scored = sorted(((len(qgrams & g) / len(qgrams), k) for k, g in enumerate(self._grams) if g),
                        reverse=True)[:8]
        best = (0.0, None, 0, 0)
        for _, k in scored:
            c = self._compact[k][0]
            ratio, start, end = _best_window(q, c)
            if ratio > best[0]:
                best = (ratio, k, start, end)
        ratio, k, start, end = best
        if k is None:
            return QuoteMatch(quote, False, None, None, None, None, 0.0, None)
        p = self.passages[k]
        c, where = self._compact[k]
        lo = where[start] if start < len(where) else len(p.text)
        hi = where[end - 1] + 1 if 0 < end <= len(where) else len(p.text)
        lo, hi = _widen(p.text, lo, hi)
        return QuoteMatch(quote, False, None, p.section, p.file, p.line_at(lo), round(ratio, 3),
                          " ".join(p.text[lo:hi].split()), k)

    def sentence_around(self, passage: int, quote: str) -> str:
        """The sentence(s) of a passage that hold a found quote (for comparing a claim's wording)."""
        text = self.passages[passage].text
        c, where = self._compact[passage]
        q = compact(quote).strip(_TRAILING)
        at = c.find(q)
        if at < 0:
            return text
        lo, hi = where[at], where[min(at + len(q), len(where)) - 1] + 1
        start = max(text.rfind(". ", 0, lo), text.rfind("? ", 0, lo), text.rfind("! ", 0, lo))
        start = 0 if start < 0 else start + 2
        ends = [e for e in (text.find(". ", hi), text.find("? ", hi), text.find("! ", hi)) if e >= 0]
        end = min(ends) + 1 if ends else len(text)
        return text[start:end]

    def sentences(self):
        """Every sentence of the paper as (passage index, sentence text)."""
        for k, p in enumerate(self.passages):
            for s in re.split(r"(?<=[.!?])\s+(?=[A-Z$\\(])", p.text):
                if s.strip():
                    yield k, s.strip()


def _grams(c: str, n: int = 4) -> set[str]:
    return {c[i:i + n] for i in range(max(len(c) - n + 1, 0))}


def _best_window(q: str, c: str) -> tuple[float, int, int]:
    """The window of `c` most similar to `q` (difflib ratio), coarse step first, then refined."""
    m = len(q)
    if len(c) <= m:
        return difflib.SequenceMatcher(None, q, c, autojunk=False).ratio(), 0, len(c)
    matcher = difflib.SequenceMatcher(None, autojunk=False)
    matcher.set_seq2(q)
    step = max(1, m // 6)

    def score(start: int) -> float:
        matcher.set_seq1(c[start:start + m])
        if matcher.real_quick_ratio() < best[0] or matcher.quick_ratio() < best[0]:
            return 0.0
        return matcher.ratio()

    best = [0.0, 0]
    for start in list(range(0, len(c) - m + 1, step)) + [len(c) - m]:
        r = score(start)
        if r > best[0]:
            best = [r, start]
    centre = best[1]
    for start in range(max(0, centre - step), min(len(c) - m, centre + step) + 1):
        r = score(start)
        if r > best[0]:
            best = [r, start]
    return best[0], best[1], best[1] + m


def _widen(text: str, lo: int, hi: int) -> tuple[int, int]:
    while lo > 0 and not text[lo - 1].isspace():
        lo -= 1
    while hi < len(text) and not text[hi].isspace():
        hi += 1
    return lo, hi


# --- opening a paper ------------------------------------------------------------------------------------------

def open_paper_text(source: str) -> PaperText:
    """A paper to check quotes against: LaTeX/Markdown source (directory, file, archive, arXiv id), a .txt file
    (plain text, one passage per paragraph or line), or a .pdf (needs the `pdf` extra)."""
    path = Path(source)
    suffix = path.suffix.lower()
    if suffix == ".pdf":
        return _pdf_text(path)
    if suffix == ".txt":
        return _plain_text(path)
    from ..latex import document_from_tree
    from ..source import flatten, open_source
    tree = open_source(source)
    doc = document_from_tree(tree)
    text = paper_text_from_document(doc, source_passages(flatten(tree)) if doc.paper.format == "latex" else ())
    return text


def source_passages(flat) -> list[Passage]:
    """The flattened LaTeX (comments already stripped) by blank-line paragraphs: a quote copied from the .tex,
    with the paper's own macros (`$\\vx$`), is found here when the expanded text does not have it."""
    smap = flat.source_map
    out = []
    for m in re.finditer(r"\S(?:.*?)(?=\n[ \t]*\n|\Z)", smap.text, re.S):
        body = m.group(0)
        if len(body.strip()) < 20:
            continue
        pos = smap.locate(m.start())
        starts, lines = [0], [pos.line]
        for nl in re.finditer(r"\n", body):
            starts.append(nl.end())
            lines.append(pos.line + len(lines))
        out.append(Passage(body, None, pos.file, pos.line, tuple(starts), tuple(lines), raw=True))
    return out


def paper_text_from_document(doc, source: list[Passage] | tuple = ()) -> PaperText:
    """Passages of a document model: paragraphs (in order, so passage k is paragraph `p:k`), footnotes,
    captions, then the raw LaTeX source (`source`) for quotes that keep the paper's macros."""
    passages: list[Passage] = []
    labels: dict[str | None, str | None] = {}

    order = {sec.id: k for k, sec in enumerate(doc.sections)}

    def label(section_id):
        """The printed number of the innermost numbered section (a `\\paragraph` heading adds its title)."""
        if section_id not in labels:
            sec = doc.section_by_id(section_id)
            if sec is None:
                labels[section_id] = None
            elif sec.number:
                labels[section_id] = sec.number
            else:
                numbered = next((s for s in reversed(doc.sections[:order[sec.id]]) if s.number and
                                 s.level < sec.level), None)
                title = sec.title.rstrip(". ")
                labels[section_id] = f"{numbered.number} ({title})" if numbered else title
        return labels[section_id]

    for para in doc.paragraphs:
        parts, starts, lines, offset = [], [], [], 0
        for s in para.sentences or ():
            starts.append(offset)
            lines.append(s.span.line)
            parts.append(s.text)
            offset += len(s.text) + 1
        text = " ".join(parts) if parts else para.text
        passages.append(Passage(text, label(para.section), para.span.file, para.span.line,
                                tuple(starts) or (0,), tuple(lines)))
    known = {p.text for p in passages}
    for fn in doc.footnotes:
        if fn.text not in known:
            passages.append(Passage(fn.text, None, fn.span.file, fn.span.line))
    caption_sections = {(p.span.file, p.span.line): p.section for p in doc.paragraphs if p.kind == "caption"}
    for fl in doc.floats:
        if fl.caption:
            passages.append(Passage(fl.caption, None, fl.span.file, fl.span.line))
        for cells in fl.cells:  # a notation table's row is quoted as "$D$ & & Data dimension."
            if notation_row(cells) is not None:
                passages.append(Passage(row_quote(cells), label(caption_sections.get((fl.span.file, fl.span.line))),
                                        fl.span.file, fl.span.line))
    passages.extend(source)
    return PaperText(passages, kind=doc.paper.format, name=doc.paper.source, document=doc)


def _plain_text(path: Path) -> PaperText:
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise SourceError(f"paper not found: {path}") from None
    except (OSError, UnicodeDecodeError) as error:
        raise SourceError(f"cannot read {path}: {error}") from None
    passages: list[Passage] = []
    block: list[tuple[int, str]] = []

    def flush():
        if block:
            starts, lines, parts, offset = [], [], [], 0
            for lineno, line in block:
                starts.append(offset)
                lines.append(lineno)
                parts.append(line)
                offset += len(line) + 1
            passages.append(Passage("\n".join(parts), None, path.name, block[0][0], tuple(starts), tuple(lines)))
            block.clear()

    for lineno, line in enumerate(text.splitlines(), 1):
        if line.strip():
            block.append((lineno, line))
        else:
            flush()
    flush()
    return PaperText(passages, kind="text", name=str(path))


def _pdf_text(path: Path) -> PaperText:
    try:
        import pypdf
    except ImportError:
        raise PapermathError("reading a PDF needs the pdf extra: pip install 'papermath[pdf]'") from None
    if not path.is_file():
        raise SourceError(f"paper not found: {path}")
    try:
        reader = pypdf.PdfReader(str(path))
        pages = [page.extract_text() or "" for page in reader.pages]
    except Exception as error:  # pypdf raises many types for a damaged file; wrap them all
        raise SourceError(f"cannot read the PDF {path}: {error}") from None
    passages = [Passage(text, None, f"{path.name}, page {k}", 1) for k, text in enumerate(pages, 1) if text.strip()]
    return PaperText(passages, kind="pdf", name=str(path), warnings=(PDF_WARNING,))
