"""Build the document model from expanded tokens: sections, paragraphs, display equations with the
numbers LaTeX would print, footnotes, floats, algorithms, labels and references.

The builder walks the token list once. Environment and command behaviour is looked up in tables;
counters follow LaTeX's rules (secnumdepth, \\appendix, \\numberwithin, subequations, \\tag, \\nonumber).
"""
from __future__ import annotations

import bisect
import re
from dataclasses import dataclass, field

from ..errors import Diagnostic
from ..spans import SourceMap, Span
from .document import (Algorithm, AlgorithmLine, Document, Equation, Float, Footnote, InlineMath,
                       PaperInfo, Paragraph, Reference, Section, Sentence)
from .macros import group_text, read_group, read_optional
from .plain import REF_COMMANDS, collapse, plain_text, resolve_refs
from .sentences import split_sentences
from .tokens import ALIGN, BGROUP, CS, EGROUP, MATH, PAR, SPACE, TEXT, Token, detokenize

# -- grammar tables ------------------------------------------------------------------------------
SECTION_LEVELS = {"part": -1, "chapter": 0, "section": 1, "subsection": 2, "subsubsection": 3,
                  "paragraph": 4, "subparagraph": 5}
# Display environments: name → (numbered, multi-row).
DISPLAY_ENVS = {
    "equation": (True, False), "equation*": (False, False),
    "align": (True, True), "align*": (False, True),
    "gather": (True, True), "gather*": (False, True),
    "multline": (True, False), "multline*": (False, False),
    "eqnarray": (True, True), "eqnarray*": (False, True),
    "flalign": (True, True), "flalign*": (False, True),
    "alignat": (True, True), "alignat*": (False, True),
    "xalignat": (True, True), "xalignat*": (False, True),
    "displaymath": (False, False), "dmath": (True, False), "dmath*": (False, False),
    "math": (False, False),
}
ENV_LEADING_ARGS = {"alignat": 1, "alignat*": 1, "xalignat": 1, "xalignat*": 1, "tabular": 1, "tabular*": 2,
                    "tabularx": 2, "array": 1, "minipage": 1, "subfigure": 1, "subtable": 1, "wrapfigure": 2,
                    "tabulary": 2, "xltabular": 2, "longtable": 1, "multicols": 1, "adjustbox": 1,
                    "threeparttable": 0, "resizebox": 2}
FLOAT_ENVS = {"figure": "figure", "figure*": "figure", "table": "table", "table*": "table",
              "wrapfigure": "figure", "wraptable": "table", "SCfigure": "figure", "sidewaysfigure": "figure",
              "sidewaystable": "table"}
SUBFLOAT_ENVS = {"subfigure", "subtable", "subfloat"}
ALGORITHM_ENVS = {"algorithm", "algorithm*", "algorithm2e"}
ALGORITHMIC_ENVS = {"algorithmic", "algorithmic*", "algorithmicx"}
TABULAR_ENVS = {"tabular", "tabular*", "tabularx", "tabulary", "xltabular", "longtable", "supertabular"}
OPAQUE_ENVS = {"verbatim", "verbatim*", "lstlisting", "minted", "Verbatim", "comment", "tikzpicture",
               "filecontents", "filecontents*", "pgfpicture", "axis"}
LIST_ENVS = {"itemize", "enumerate", "description", "compactitem", "compactenum", "inparaenum", "outline"}
TITLE_COMMANDS = {"title", "icmltitle", "papertitle", "Title"}
AUTHOR_COMMANDS = {"author", "icmlauthor", "Author", "name"}
# Algorithmic line commands: name → numbered?
ALGORITHMIC_LINES = {
    "State": True, "STATE": True, "If": True, "IF": True, "ElsIf": True, "ELSIF": True, "Else": True, "ELSE": True,
    "EndIf": True, "ENDIF": True, "For": True, "FOR": True, "ForAll": True, "FORALL": True, "EndFor": True,
    "ENDFOR": True, "While": True, "WHILE": True, "EndWhile": True, "ENDWHILE": True, "Repeat": True,
    "REPEAT": True, "Until": True, "UNTIL": True, "Loop": True, "LOOP": True, "EndLoop": True, "ENDLOOP": True,
    "Return": True, "RETURN": True, "Procedure": True, "EndProcedure": True, "Function": True,
    "EndFunction": True, "Call": False, "Require": False, "REQUIRE": False, "Ensure": False, "ENSURE": False,
    "Input": False, "Output": False, "INPUT": False, "OUTPUT": False, "Statex": False, "KwIn": False,
    "KwOut": False, "KwData": False, "KwResult": False, "PRINT": True, "Print": True,
}
NUMBERWITHIN_COMMANDS = {"numberwithin", "counterwithin", "counterwithin*"}
CODE_HOSTS = re.compile(r"https?://(?:www\.)?(?:github\.com|gitlab\.com|huggingface\.co|bitbucket\.org|"
                        r"[\w.-]+\.github\.io|colab\.research\.google\.com|codeberg\.org)[^\s}{\\,;)\]]*",
                        re.I)
ROW_BREAK = {"\\", "cr", "crcr"}
COUNTER_STEPS = {"addtocounter", "stepcounter", "refstepcounter"}
ROW_NUMBER_SUPPRESS = {"nonumber", "notag"}
LAYOUT_ONLY_IN_ROW = {"label", "tag", "nonumber", "notag"}
CONTINUATION_START = re.compile(r"^\s*(?:\\(?:quad|qquad|;|,|!|:|hspace\{[^}]*\}|phantom\{[^}]*\}|hphantom\{[^}]*\})\s*)*"
                                r"(?:=|<|>|\+|-|\\(?:le|leq|ge|geq|approx|propto|cdot|times|equiv|sim|simeq|triangleq|ll|gg|coloneqq|to|rightarrow|Rightarrow|iff|implies|leqslant|geqslant|neq|ne|pm|mp)\b)")
ALPHA = "abcdefghijklmnopqrstuvwxyz"


def _letters(n: int) -> str:
    """LaTeX's \\Alph: 1 → A, 27 → AA (enough for appendices)."""
    s = ""
    while n > 0:
        n, r = divmod(n - 1, 26)
        s = ALPHA[r].upper() + s
    return s


@dataclass
class _Counters:
    levels: list[int] = field(default_factory=lambda: [0] * 7)  # index = level + 1 (part at 0)
    equation: int = 0
    figure: int = 0
    table: int = 0
    algorithm: int = 0
    footnote: int = 0
    appendix: bool = False
    secnumdepth: int = 3
    has_chapters: bool = False
    equation_within: str | None = None  # "section" / "chapter" / "subsection"
    figure_within: str | None = None
    table_within: str | None = None
    sub_parent: str | None = None  # subequations: the parent number
    sub_index: int = 0

    def section_number(self, level: int) -> str:
        parts = []
        top = 0 if self.has_chapters else 1
        for lv in range(top, level + 1):
            value = self.levels[lv + 1]
            if lv == top and self.appendix:
                parts.append(_letters(value) if value > 0 else "0")
            else:
                parts.append(str(value))
        return ".".join(parts)

    def prefix_for(self, within: str | None) -> str:
        if within is None:
            return ""
        level = SECTION_LEVELS.get(within, 1)
        return self.section_number(level) + "."


@dataclass
class _Builder:
    text: str
    smap: SourceMap
    tokens: list[Token]
    diagnostics: list[Diagnostic]
    documentclass: str = "article"
    counters: _Counters = field(default_factory=_Counters)
    sections: list[Section] = field(default_factory=list)
    paragraphs: list[Paragraph] = field(default_factory=list)
    equations: list[Equation] = field(default_factory=list)
    inline_math: list[InlineMath] = field(default_factory=list)
    footnotes: list[Footnote] = field(default_factory=list)
    floats: list[Float] = field(default_factory=list)
    algorithms: list[Algorithm] = field(default_factory=list)
    labels: dict[str, str] = field(default_factory=dict)
    label_numbers: dict[str, str | None] = field(default_factory=dict)
    references: list[tuple[str, str, int]] = field(default_factory=list)
    title: str | None = None
    authors: list[str] = field(default_factory=list)
    abstract: str | None = None
    lists: list[tuple[str | None, int, list[str]]] = field(default_factory=list)
    links: list[str] = field(default_factory=list)
    # paragraph accumulation
    _para: list[Token] = field(default_factory=list)
    _para_kind: str = "text"
    _last_labelable: str | None = None
    _current_section_id: str | None = None
    _current_numbered: str | None = None
    _pending_eq_before: list[int] = field(default_factory=list)
    _deferred_footnotes: list = field(default_factory=list)
    _group: int = 0
    _unnumbered: int = 0
    _in_document: bool = False
    theorems: dict[str, tuple[str, str | None]] = field(default_factory=dict)
    """\\newtheorem environments: name → (counter name, reset-within section unit or None)."""
    theorem_counts: dict[str, int] = field(default_factory=dict)

    # -- helpers -------------------------------------------------------------------------------
    def span(self, start: int, end: int | None = None) -> Span:
        return self.smap.span(start, end if end is not None else start + 1)

    def diag(self, severity: str, message: str, start: int) -> None:
        self.diagnostics.append(Diagnostic(severity, message, self.smap.locate(start)))

    def flush_paragraph(self) -> None:
        """End the running paragraph; footnotes whose marks it carries follow it as paragraphs of their own."""
        kind = self._para_kind
        self._emit_paragraph()
        if self._deferred_footnotes and kind != "footnote":
            self._flush_footnotes()

    def _emit_paragraph(self) -> None:
        toks = self._para
        self._para = []
        kind = self._para_kind
        self._para_kind = "text"
        if not toks:
            return
        # Trim whitespace-only paragraphs.
        if all(t.kind in (SPACE, PAR) or (t.kind == TEXT and not t.text.strip()) for t in toks):
            return
        pid = f"p:{len(self.paragraphs)}"
        text, anchors = _detok_with_map(toks, self.text)
        stripped = text.strip()
        if not stripped:
            return
        lead = len(text) - len(text.lstrip())
        sentences = []
        for a, b in split_sentences(stripped):
            flat = _flat_at(anchors, a + lead)
            sentences.append(Sentence(collapse(stripped[a:b]), self.span(flat)))
        para = Paragraph(pid, self._current_section_id, collapse(stripped), tuple(sentences),
                         self.span(toks[0].start), kind)
        self.paragraphs.append(para)
        if self._pending_eq_before and kind not in ("footnote", "caption"):
            for k in self._pending_eq_before:
                self.equations[k] = _replace(self.equations[k], paragraph_after=pid)
            self._pending_eq_before = []
        for link in CODE_HOSTS.findall(text):
            self.links.append(link.rstrip(".}"))

    # -- the walk ------------------------------------------------------------------------------
    def build(self) -> None:
        toks = self.tokens
        self.documentclass = _documentclass(toks)
        if self.documentclass in ("book", "report", "memoir", "scrbook", "scrreprt"):
            self.counters.has_chapters = True
            self.counters.secnumdepth = 2
            self.counters.equation_within = "chapter"
            self.counters.figure_within = "chapter"
            self.counters.table_within = "chapter"
        has_begin_document = any(t.kind == CS and t.text == "begin" and _env_name_at(toks, i + 1) == "document"
                                 for i, t in enumerate(toks) if t.kind == CS and t.text == "begin")
        self._in_document = not has_begin_document
        self.walk(toks, 0, len(toks), top=True)
        self.flush_paragraph()

    def walk(self, toks: list[Token], i: int, end: int, top: bool = False) -> None:
        """Walk tokens[i:end] as running text."""
        while i < end:
            tok = toks[i]
            kind = tok.kind
            if kind == PAR:
                self.flush_paragraph()
                i += 1
                continue
            if kind == MATH:
                i = self.math_shift(toks, i, end)
                continue
            if kind != CS:
                if self._in_document:
                    self._para.append(tok)
                i += 1
                continue
            name = tok.text
            handler = COMMAND_HANDLERS.get(name)
            if handler is not None:
                i = handler(self, toks, i, end)
                continue
            if name in SECTION_LEVELS:
                i = self.section(toks, i, end)
                continue
            if name in REF_COMMANDS:
                j = i + 1
                if j < end and toks[j].kind == TEXT and toks[j].text.startswith("*"):
                    j += 1
                group, j2 = read_group(toks, j)
                if group is not None:
                    for lab in group_text(group).split(","):
                        self.references.append((name, lab.strip(), tok.start))
                    if self._in_document:
                        self._para.extend(toks[i:j2])
                    i = j2
                    continue
            if self._in_document:
                self._para.append(tok)
            i += 1

    # -- commands ------------------------------------------------------------------------------
    def cmd_begin(self, toks, i, end):
        name, j = _read_env_name(toks, i + 1)
        if name is None:
            self.diag("warning", "\\begin without an environment name", toks[i].start)
            return i + 1
        if name == "document":
            self._in_document = True
            return j
        close = _find_end(toks, j, end, name)
        if close is None:
            self.diag("error", f"\\begin{{{name}}} has no matching \\end{{{name}}}", toks[i].start)
            close_start, after = end, end
        else:
            close_start, after = close
        if name in DISPLAY_ENVS:
            self.display(toks, i, j, close_start, name)
            return after
        if name in OPAQUE_ENVS:
            return after
        if name == "abstract":
            self.flush_paragraph()
            self.abstract = collapse(detokenize(toks[j:close_start], self.text)) or None
            first = len(self.paragraphs)
            self._para_kind = "abstract"
            self.walk(toks, j, close_start)
            self.flush_paragraph()
            for k in range(first, len(self.paragraphs)):
                self.paragraphs[k] = _replace(self.paragraphs[k], kind="abstract")
            return after
        if name in FLOAT_ENVS:
            self.float_env(toks, j, close_start, FLOAT_ENVS[name])
            return after
        if name in ALGORITHM_ENVS:
            self.algorithm_env(toks, i, j, close_start)
            return after
        if name in ALGORITHMIC_ENVS:
            self.algorithm_env(toks, i, j, close_start, bare=True)
            return after
        if name == "subequations":
            self.counters.equation += 1
            saved = (self.counters.sub_parent, self.counters.sub_index)
            self.counters.sub_parent = self.counters.prefix_for(self.counters.equation_within) + str(self.counters.equation)
            self.counters.sub_index = 0
            self._last_labelable = f"eq:{self.counters.sub_parent}"
            self._label_target_number = self.counters.sub_parent
            self.walk(toks, j, close_start)
            self.counters.sub_parent, self.counters.sub_index = saved
            return after
        if name in LIST_ENVS:
            self.flush_paragraph()
            first = len(self.paragraphs)
            items = self.list_env(toks, j, close_start)
            self.lists.append((self._current_section_id, first, items))
            return after
        if name in TABULAR_ENVS:
            return after
        if name in self.theorems:
            counter, within = self.theorems[name]
            if counter:
                prefix = self.counters.prefix_for(within)
                key = counter + "@" + prefix  # a counter numbered within a section restarts in each one
                self.theorem_counts[key] = self.theorem_counts.get(key, 0) + 1
                number = prefix + str(self.theorem_counts[key])
                self._last_labelable = f"{name}:{number}"
                self._label_target_number = number
            else:
                self._last_labelable = None
            self.walk(toks, j, close_start)
            return after
        # Any other environment: its content is running text (center, minipage, proof, …).
        skip = ENV_LEADING_ARGS.get(name, 0)
        k = j
        _, k = read_optional(toks, k)
        for _ in range(skip):
            _, k = read_group(toks, k)
        self.walk(toks, k, close_start)
        return after

    def cmd_end(self, toks, i, end):
        name, j = _read_env_name(toks, i + 1)
        if name == "document":
            self.flush_paragraph()
            self._in_document = False
            return len(toks) if end == len(toks) else j
        if name is not None and self._in_document:
            self.diag("warning", f"\\end{{{name}}} without a matching \\begin", toks[i].start)
        return j

    def section(self, toks, i, end):
        tok = toks[i]
        level = SECTION_LEVELS[tok.text]
        j = i + 1
        starred = False
        if j < end and toks[j].kind == TEXT and toks[j].text.startswith("*"):
            starred = True
            if toks[j].text != "*":
                toks[j] = Token(TEXT, toks[j].text[1:], toks[j].start + 1, toks[j].end, toks[j].expanded)
            else:
                j += 1
        _, j = read_optional(toks, j)
        title_toks, k = read_group(toks, j)
        if title_toks is None:
            return i + 1
        self.flush_paragraph()
        c = self.counters
        number = None
        if level >= 0 and not starred:
            c.levels[level + 1] += 1
            for lower in range(level + 2, len(c.levels)):
                c.levels[lower] = 0
            if level == (0 if c.has_chapters else 1):
                if c.equation_within in ("section", "chapter") and (level == 1 or c.equation_within == "chapter"):
                    c.equation = 0
                if c.figure_within in ("section", "chapter"):
                    c.figure = 0
                if c.table_within in ("section", "chapter"):
                    c.table = 0
            elif c.equation_within == "subsection" and level == 2:
                c.equation = 0
            if level <= c.secnumdepth:
                number = c.section_number(level)
        title = plain_text(title_toks, self.text, mark_refs=True)
        sid = f"sec:{number}" if number else f"sec:u{len(self.sections)}"
        section = Section(sid, level, number, title, self.span(tok.start, toks[k - 1].end),
                          appendix=c.appendix)
        self.sections.append(section)
        self._current_section_id = sid
        if number is not None or level <= 3:
            self._current_numbered = number if number is not None else (
                None if level <= 1 else self._current_numbered)
        self._last_labelable = sid
        self._label_target_number = number
        return k

    def cmd_appendix(self, toks, i, end):
        c = self.counters
        c.appendix = True
        top = 0 if c.has_chapters else 1
        c.levels[top + 1] = 0
        return i + 1

    def cmd_label(self, toks, i, end):
        group, j = read_group(toks, i + 1)
        if group is None:
            return i + 1
        label = group_text(group)
        if self._last_labelable is not None:
            self.labels.setdefault(label, self._last_labelable)
            self.label_numbers.setdefault(label, getattr(self, "_label_target_number", None))
            if self._last_labelable.startswith("sec:"):
                for k in range(len(self.sections) - 1, -1, -1):
                    if self.sections[k].id == self._last_labelable:
                        if self.sections[k].label is None:
                            self.sections[k] = _replace(self.sections[k], label=label)
                        break
        return j

    def cmd_title(self, toks, i, end):
        _, j = read_optional(toks, i + 1)
        group, k = read_group(toks, j)
        if group is None:
            return i + 1
        if self.title is None:
            self.title = plain_text(group, self.text, keep_math=True) or None
        return k

    def cmd_author(self, toks, i, end):
        j = i + 1
        _, j = read_optional(toks, j)
        group, k = read_group(toks, j)
        if group is None:
            return i + 1
        text = plain_text(group, self.text, keep_math=False)
        if text:
            self.authors.append(text)
        # \thanks marks use the footnote counter; conference styles (NeurIPS, ICML, …) do not reset it at
        # \maketitle, so the first footnote of the body is numbered after them (Attention's footnote 4).
        self.counters.footnote += sum(1 for t in group if t.kind == CS and t.text == "thanks")
        return k

    def cmd_abstract_command(self, toks, i, end):
        group, k = read_group(toks, i + 1)
        if group is None:
            return i + 1
        self.abstract = collapse(detokenize(group, self.text))
        return k

    def cmd_footnote(self, toks, i, end):
        tok = toks[i]
        opt, j = read_optional(toks, i + 1)
        group, k = read_group(toks, j)
        if group is None:
            return i + 1
        if tok.text == "footnotetext":
            number = group_text(opt) if opt else str(self.counters.footnote)
        elif opt:
            number = group_text(opt)
        else:
            self.counters.footnote += 1
            number = str(self.counters.footnote)
        paragraph = f"p:{len(self.paragraphs)}"
        text = collapse(detokenize(group, self.text))
        fid = f"fn:{number}"
        if any(f.id == fid for f in self.footnotes):
            fid = f"fn:{number}.{len(self.footnotes)}"
        self.footnotes.append(Footnote(fid, number, text, paragraph, self.span(tok.start)))
        for link in CODE_HOSTS.findall(text):
            self.links.append(link.rstrip(".}"))
        # The footnote's own text may define symbols: it becomes a footnote paragraph right after the
        # paragraph that carries its mark (so the mark's paragraph keeps the id recorded above).
        self._deferred_footnotes.append(group)
        if not self._para:
            self._flush_footnotes()
        return k

    def _flush_footnotes(self) -> None:
        pending, self._deferred_footnotes = self._deferred_footnotes, []
        for group in pending:
            saved_para, saved_kind = self._para, self._para_kind
            self._para, self._para_kind = [], "footnote"
            self.walk(group, 0, len(group))
            self.flush_paragraph()
            self._para, self._para_kind = saved_para, saved_kind

    def cmd_footnotemark(self, toks, i, end):
        opt, j = read_optional(toks, i + 1)
        if not opt:
            self.counters.footnote += 1
        return j if opt else i + 1

    def cmd_numberwithin(self, toks, i, end):
        j = i + 1
        if j < end and toks[j].kind == TEXT and toks[j].text.startswith("*"):
            j += 1
        counter, j = read_group(toks, j)
        within, k = read_group(toks, j)
        if counter is None or within is None:
            return i + 1
        name, parent = group_text(counter), group_text(within)
        if name == "equation":
            self.counters.equation_within = parent
        elif name == "figure":
            self.counters.figure_within = parent
        elif name == "table":
            self.counters.table_within = parent
        return k

    def cmd_setcounter(self, toks, i, end):
        counter, j = read_group(toks, i + 1)
        value, k = read_group(toks, j)
        if counter is None or value is None:
            return i + 1
        name = group_text(counter)
        try:
            number = int(group_text(value))
        except ValueError:
            return k
        if name == "secnumdepth":
            self.counters.secnumdepth = number
        elif name == "equation":
            self.counters.equation = number
        elif name in ("section", "subsection", "chapter"):
            self.counters.levels[SECTION_LEVELS[name] + 1] = number
        return k

    def cmd_url(self, toks, i, end):
        group, k = read_group(toks, i + 1)
        if group is None:
            return i + 1
        url = "".join(t.text if t.kind != CS else t.text for t in group).strip()
        if CODE_HOSTS.match(url):
            self.links.append(url)
        if self._in_document:
            self._para.extend(toks[i:k])
        return k

    def cmd_newtheorem(self, toks, i, end):
        """\\newtheorem{name}[shared]{Title}[within] and the unnumbered \\newtheorem*{name}{Title}."""
        j = i + 1
        starred = j < end and toks[j].kind == TEXT and toks[j].text == "*"
        if starred:
            j += 1
        name, j = read_group(toks, j)
        if name is None:
            return i + 1
        shared, j = read_optional(toks, j)
        _, j = read_group(toks, j)
        within, j = read_optional(toks, j)
        env = group_text(name)
        if starred:
            self.theorems[env] = ("", None)
        elif shared:
            parent = group_text(shared)
            self.theorems[env] = (self.theorems.get(parent, (parent, None))[0] or parent,
                                  self.theorems.get(parent, ("", None))[1])
        else:
            self.theorems[env] = (env, group_text(within) if within else None)
        return j

    def cmd_inline_paren(self, toks, i, end):
        close = _find_cs(toks, i + 1, end, ")")
        if close is None:
            self.diag("error", "\\( without a matching \\)", toks[i].start)
            return i + 1
        self.add_inline(toks, i + 1, close, toks[i].start)
        if self._in_document:
            self._para.extend(toks[i:close + 1])
        return close + 1

    def cmd_display_bracket(self, toks, i, end):
        close = _find_cs(toks, i + 1, end, "]")
        if close is None:
            self.diag("error", "\\[ without a matching \\]", toks[i].start)
            return i + 1
        self.display(toks, i, i + 1, close, "\\[")
        return close + 1

    def add_inline(self, toks, a, b, start):
        if not self._in_document:
            return
        latex = detokenize(toks[a:b], self.text).strip()
        self.inline_math.append(InlineMath(latex, f"p:{len(self.paragraphs)}", self.span(start)))

    def math_shift(self, toks, i, end):
        """`$…$` inline, `$$…$$` display."""
        if i + 1 < end and toks[i + 1].kind == MATH and toks[i + 1].start == toks[i].end:
            k = i + 2
            while k + 1 < end and not (toks[k].kind == MATH and toks[k + 1].kind == MATH):
                k += 1
            if k + 1 >= end:
                self.diag("error", "$$ without a closing $$", toks[i].start)
                return i + 2
            self.display(toks, i, i + 2, k, "$$")
            return k + 2
        k = i + 1
        while k < end and toks[k].kind != MATH:
            if toks[k].kind == PAR:
                break
            k += 1
        if k >= end or toks[k].kind != MATH:
            self.diag("error", "$ without a closing $ before the paragraph ends", toks[i].start)
            if self._in_document:
                self._para.append(toks[i])
            return i + 1
        self.add_inline(toks, i + 1, k, toks[i].start)
        if self._in_document:
            self._para.extend(toks[i:k + 1])
        return k + 1

    # -- display math ---------------------------------------------------------------------------
    def display(self, toks, begin_index, content_start, content_end, env):
        if not self._in_document:
            return
        numbered_env, multi_row = DISPLAY_ENVS.get(env, (False, False))
        # Text before the display ends a paragraph for context purposes.
        self.flush_paragraph()
        before = f"p:{len(self.paragraphs) - 1}" if self.paragraphs else None
        content = toks[content_start:content_end]
        skip = ENV_LEADING_ARGS.get(env, 0)
        k = 0
        for _ in range(skip):
            _, k = read_group(content, k)
        content = content[k:]
        rows = _split_rows(content) if multi_row else [content]
        group = self._group
        self._group += 1
        # Statement groups: a row starting with a relation/operator continues the previous statement.
        parsed = [self._row_info(r) for r in rows]
        parsed = [p for p in parsed if p["latex"].strip() or p["tag"] is not None or p["label"]]
        statements: list[list[dict]] = []
        for info in parsed:
            if statements and CONTINUATION_START.match(info["latex"].lstrip("& \t\n")) and \
                    not any(r["numbered"] for r in statements[-1]):
                statements[-1].append(info)
            elif statements and CONTINUATION_START.match(info["latex"].lstrip("& \t\n")) and \
                    not (numbered_env and info["numbered"]):
                statements[-1].append(info)
            else:
                statements.append([info])
        first_index = len(self.equations)
        for stmt in statements:
            numbered_rows = [r for r in stmt if (numbered_env and r["numbered"]) or r["tag"] is not None]
            if len(numbered_rows) <= 1:
                units = [stmt]
            else:
                units = [[r] for r in stmt]
            for unit in units:
                has_number = [r for r in unit if (numbered_env and r["numbered"]) or r["tag"] is not None]
                number = None
                for r in has_number:
                    number = self._next_number(r)
                latex = " ".join(r["latex"].strip() for r in unit).strip()
                label = next((r["label"] for r in unit if r["label"]), None)
                extra_labels = [lab for r in unit for lab in r["labels"][1:]]
                start = unit[0]["start"] if unit[0]["start"] >= 0 else toks[begin_index].start
                if number is not None:
                    eid = f"eq:{number}"
                    if any(e.id == eid for e in self.equations):
                        eid = f"eq:{number}~{len(self.equations)}"
                else:
                    self._unnumbered += 1
                    eid = f"eq:u{self._unnumbered}"
                eq = Equation(eid, number, latex, env, self._current_numbered, self._current_section_id,
                              label, self.span(start), paragraph_before=before, row=parsed.index(unit[0]),
                              group=group)
                self.equations.append(eq)
                for lab in ([label] if label else []) + extra_labels:
                    self.labels.setdefault(lab, eid)
                    self.label_numbers.setdefault(lab, number)
        self._pending_eq_before.extend(range(first_index, len(self.equations)))
        self._last_labelable = None

    def _next_number(self, row: dict) -> str:
        c = self.counters
        c.equation += row.get("counter_add", 0)
        tag = row["tag"]
        if tag == "\\theequation":
            # \tag{\theequation} after \addtocounter (a \numberthis macro): the counter's value, not a new step
            return c.prefix_for(c.equation_within) + str(c.equation)
        if isinstance(tag, tuple):  # \tag{\ref{eq:x}}: the number of an earlier equation, printed again
            return self.label_numbers.get(tag[1]) or "??"
        if tag is not None:
            return tag
        if c.sub_parent is not None:
            c.sub_index += 1
            return f"{c.sub_parent}{ALPHA[(c.sub_index - 1) % 26]}"
        c.equation += 1
        return c.prefix_for(c.equation_within) + str(c.equation)

    def _row_info(self, row: list[Token]) -> dict:
        numbered = True
        tag = None
        counter_add = 0
        labels: list[str] = []
        kept: list[Token] = []
        j = 0
        n = len(row)
        while j < n:
            tok = row[j]
            if tok.kind == CS and tok.text in ROW_NUMBER_SUPPRESS:
                numbered = False
                j += 1
                continue
            if tok.kind == CS and tok.text == "label":
                group, k = read_group(row, j + 1)
                n = len(row)
                if group is not None:
                    labels.append(group_text(group))
                    j = k
                    continue
            if tok.kind == CS and tok.text == "tag":
                k = j + 1
                if k < n and row[k].kind == TEXT and row[k].text.startswith("*"):
                    k += 1
                group, k2 = read_group(row, k)
                n = len(row)
                if group is not None:
                    names = [t.text for t in group if t.kind == CS]
                    if names == ["theequation"]:
                        tag = "\\theequation"
                    elif names and names[0] in REF_COMMANDS:
                        ref_group, _ = read_group(group, 1)
                        tag = ("ref", group_text(ref_group))
                    else:
                        tag = plain_text(group, self.text, keep_math=True).replace("$", "")
                    j = k2
                    continue
            if tok.kind == CS and tok.text in COUNTER_STEPS:
                counter, k = read_group(row, j + 1)
                amount, k2 = (read_group(row, k) if tok.text == "addtocounter" else ([], k))
                n = len(row)
                if counter is not None and group_text(counter) == "equation":
                    try:
                        counter_add += int(group_text(amount)) if tok.text == "addtocounter" else 1
                    except ValueError:
                        pass
                    j = k2
                    continue
            kept.append(tok)
            j += 1
        latex = detokenize(kept, self.text)
        latex = collapse(latex)
        start = next((t.start for t in row if t.kind not in (SPACE, PAR)), -1)
        return {"latex": latex, "numbered": numbered, "tag": tag, "counter_add": counter_add,
                "label": labels[0] if labels else None,
                "labels": labels, "start": start}

    # -- floats, algorithms, lists ------------------------------------------------------------------
    def float_env(self, toks, j, close, kind):
        self.flush_paragraph()
        _, j = read_optional(toks, j)
        c = self.counters
        cells = _table_cells(toks, j, close, self.text) if kind == "table" else ()
        i = j
        subdepth = 0
        last_id = None
        sub_count = 0
        sub_label: tuple[str, str] | None = None  # (parent id, "3a") for a label inside a subfigure/subtable
        while i < close:
            tok = toks[i]
            if tok.kind == CS and tok.text == "caption" and subdepth > 0:
                # A subfigure's caption: LaTeX prints (a), (b), … and \ref gives the parent's number + letter.
                sub_count += 1
                parent = (c.prefix_for(c.table_within if kind == "table" else c.figure_within)
                          + str((c.table if kind == "table" else c.figure) + 1))
                sub_label = (f"{'tab' if kind == 'table' else 'fig'}:{parent}", f"{parent}{ALPHA[(sub_count - 1) % 26]}")
            elif tok.kind == CS and tok.text == "label" and subdepth > 0 and sub_label is not None:
                group, k = read_group(toks, i + 1)
                if group is not None:
                    label = group_text(group)
                    self.labels.setdefault(label, sub_label[0])
                    self.label_numbers.setdefault(label, sub_label[1])
                    i = k
                    continue
            if tok.kind == CS and tok.text == "begin":
                name, _ = _read_env_name(toks, i + 1)
                if name in SUBFLOAT_ENVS:
                    subdepth += 1
            elif tok.kind == CS and tok.text == "end":
                name, _ = _read_env_name(toks, i + 1)
                if name in SUBFLOAT_ENVS:
                    subdepth -= 1
            elif tok.kind == CS and tok.text in ("caption", "captionof") and subdepth == 0:
                k = i + 1
                if tok.text == "captionof":
                    group, k = read_group(toks, k)
                    if group is not None:
                        kind = "table" if group_text(group) == "table" else "figure"
                _, k = read_optional(toks, k)
                group, k2 = read_group(toks, k)
                if group is not None:
                    if kind == "table":
                        c.table += 1
                        number = c.prefix_for(c.table_within) + str(c.table)
                    else:
                        c.figure += 1
                        number = c.prefix_for(c.figure_within) + str(c.figure)
                    fid = f"{'tab' if kind == 'table' else 'fig'}:{number}"
                    caption = plain_text(group, self.text, mark_refs=True)
                    self.floats.append(Float(fid, kind, number, caption, None, self.span(tok.start), cells))
                    last_id = len(self.floats) - 1
                    self._last_labelable = fid
                    self._label_target_number = number
                    # Caption text can define symbols too.
                    saved = self._para, self._para_kind
                    self._para, self._para_kind = [], "caption"
                    self.walk(group, 0, len(group))
                    self.flush_paragraph()
                    self._para, self._para_kind = saved
                    i = k2
                    continue
            elif tok.kind == CS and tok.text == "label":
                group, k = read_group(toks, i + 1)
                if group is not None and last_id is not None:
                    label = group_text(group)
                    f = self.floats[last_id]
                    if f.label is None:
                        self.floats[last_id] = _replace(f, label=label)
                    self.labels.setdefault(label, f.id)
                    self.label_numbers.setdefault(label, f.number)
                    i = k
                    continue
            elif tok.kind == CS and tok.text in ("url", "href"):
                group, k = read_group(toks, i + 1)
                if group is not None:
                    url = "".join(t.text for t in group)
                    if CODE_HOSTS.match(url):
                        self.links.append(url)
            i += 1
        self._last_labelable = None

    def algorithm_env(self, toks, begin, j, close, bare=False):
        self.flush_paragraph()
        c = self.counters
        caption = ""
        label = None
        number = None
        if not bare:
            c.algorithm += 1
            number = str(c.algorithm)
        lines: list[AlgorithmLine] = []
        line_no = 0
        i = j
        current: list[Token] | None = None
        current_kw = ""
        current_start = 0
        current_numbered = False

        def finish():
            nonlocal current, line_no
            if current is None:
                return
            text = collapse(detokenize(current, self.text))
            num = None
            if current_numbered:
                line_no += 1
                num = line_no
            lines.append(AlgorithmLine(num, current_kw, text, self.span(current_start)))
            current = None

        while i < close:
            tok = toks[i]
            if tok.kind == CS and tok.text == "caption" and not bare:
                _, k = read_optional(toks, i + 1)
                group, k2 = read_group(toks, k)
                if group is not None:
                    caption = plain_text(group, self.text, mark_refs=True)
                    i = k2
                    continue
            if tok.kind == CS and tok.text == "label":
                group, k = read_group(toks, i + 1)
                if group is not None:
                    label = group_text(group)
                    i = k
                    continue
            if tok.kind == CS and tok.text in ALGORITHMIC_LINES:
                finish()
                current = [tok]
                current_kw = tok.text
                current_start = tok.start
                current_numbered = ALGORITHMIC_LINES[tok.text]
                i += 1
                continue
            if tok.kind == CS and tok.text in ("begin", "end"):
                name, k = _read_env_name(toks, i + 1)
                if name in ALGORITHMIC_ENVS:
                    finish()
                    if tok.text == "begin":
                        _, k = read_optional(toks, k)
                    i = k
                    continue
            if current is not None:
                current.append(tok)
            i += 1
        finish()
        aid = f"alg:{number}" if number else f"alg:u{len(self.algorithms)}"
        self.algorithms.append(Algorithm(aid, number, caption, label, tuple(lines), self.span(toks[begin].start)))
        if label:
            self.labels.setdefault(label, aid)
            self.label_numbers.setdefault(label, number)

    def list_env(self, toks, j, close) -> list[str]:
        items: list[str] = []
        starts = [k for k in range(j, close) if toks[k].kind == CS and toks[k].text == "item"
                  and _depth_ok(toks, j, k)]
        bounds = starts + [close]
        if not starts:
            self.walk(toks, j, close)
            self.flush_paragraph()
            return items
        for a, b in zip(bounds, bounds[1:]):
            k = a + 1
            opt, k = read_optional(toks, k)
            self._para_kind = "item"
            before = len(self.paragraphs)
            self.walk(toks, k, b)
            self.flush_paragraph()
            text = " ".join(p.text for p in self.paragraphs[before:])
            if opt:
                text = plain_text(opt, self.text) + " " + text
            items.append(text)
        return items


def _depth_ok(toks, j, k) -> bool:
    """True when toks[k] is not inside a nested list environment started after j."""
    depth = 0
    for t in range(j, k):
        tok = toks[t]
        if tok.kind == CS and tok.text in ("begin", "end"):
            name, _ = _read_env_name(toks, t + 1)
            if name in LIST_ENVS:
                depth += 1 if tok.text == "begin" else -1
    return depth == 0


COMMAND_HANDLERS = {
    "begin": _Builder.cmd_begin, "end": _Builder.cmd_end, "appendix": _Builder.cmd_appendix,
    "label": _Builder.cmd_label, "footnote": _Builder.cmd_footnote, "footnotetext": _Builder.cmd_footnote,
    "footnotemark": _Builder.cmd_footnotemark, "numberwithin": _Builder.cmd_numberwithin,
    "counterwithin": _Builder.cmd_numberwithin, "setcounter": _Builder.cmd_setcounter,
    "url": _Builder.cmd_url, "(": _Builder.cmd_inline_paren, "[": _Builder.cmd_display_bracket,
    "abstract": _Builder.cmd_abstract_command, "newtheorem": _Builder.cmd_newtheorem,
}
for _name in TITLE_COMMANDS:
    COMMAND_HANDLERS[_name] = _Builder.cmd_title
for _name in AUTHOR_COMMANDS:
    COMMAND_HANDLERS[_name] = _Builder.cmd_author


# -- token utilities ------------------------------------------------------------------------------
def _replace(obj, **changes):
    from dataclasses import replace
    return replace(obj, **changes)


def _read_env_name(toks, i):
    group, j = read_group(toks, i)
    if group is None:
        return None, i
    return "".join(t.text for t in group if t.kind != SPACE), j


def _env_name_at(toks, i):
    return _read_env_name(toks, i)[0]


def _find_end(toks, j, end, name):
    """Index range of the matching \\end{name}: (index of \\end, index after it)."""
    depth = 0
    k = j
    n = min(end, len(toks))
    while k < n:
        tok = toks[k]
        if tok.kind == CS and (tok.text == "begin" or tok.text == "end"):
            env, after = _read_env_name(toks, k + 1)
            if env == name:
                if tok.text == "begin":
                    depth += 1
                elif depth == 0:
                    return k, after
                else:
                    depth -= 1
            k = after if env is not None else k + 1
            continue
        k += 1
    return None


def _find_cs(toks, j, end, name):
    for k in range(j, min(end, len(toks))):
        if toks[k].kind == CS and toks[k].text == name:
            return k
    return None


def _split_rows(content: list[Token]) -> list[list[Token]]:
    """Rows of an align-like body: split at `\\\\` outside braces and nested environments."""
    rows: list[list[Token]] = [[]]
    depth = 0
    env_depth = 0
    i = 0
    n = len(content)
    while i < n:
        tok = content[i]
        if tok.kind == BGROUP:
            depth += 1
        elif tok.kind == EGROUP:
            depth -= 1
        elif tok.kind == CS and tok.text in ("begin", "end"):
            env_depth += 1 if tok.text == "begin" else -1
        elif tok.kind == CS and tok.text in ROW_BREAK and depth == 0 and env_depth == 0:
            # `\\[2pt]` and `\\*` belong to the break.
            j = i + 1
            if j < n and content[j].kind == TEXT and content[j].text.startswith("*"):
                j += 1
            # amsmath's \\ takes [dim] only when it follows at once: "\\ [x]" starts the next row.
            opt, j2 = (None, j)
            if j < n and content[j].kind == TEXT and content[j].text.startswith("[") and \
                    content[j].start == content[j - 1].end:
                opt, j2 = read_optional(content, j)
                n = len(content)
            rows.append([])
            i = j2 if opt is not None else j
            continue
        elif tok.kind == CS and tok.text == "intertext" and depth == 0 and env_depth == 0:
            _, j = read_group(content, i + 1)
            rows.append([])
            i = j
            continue
        rows[-1].append(tok)
        i += 1
    return rows


def _table_cells(toks, j, close, text) -> tuple[tuple[str, ...], ...]:
    rows: list[tuple[str, ...]] = []
    i = j
    while i < close:
        tok = toks[i]
        if tok.kind == CS and tok.text == "begin":
            name, k = _read_env_name(toks, i + 1)
            if name in TABULAR_ENVS:
                end = _find_end(toks, k, close, name)
                if end is None:
                    break
                body_start = k
                _, body_start = read_optional(toks, body_start)
                for _ in range(ENV_LEADING_ARGS.get(name, 1)):
                    _, body_start = read_group(toks, body_start)
                for row in _split_rows(toks[body_start:end[0]]):
                    cells, cur = [], []
                    depth = env_depth = 0
                    in_math = False  # `&` inside `$…$` or a nested matrix separates its columns, not the table's
                    for t in row:
                        if t.kind == BGROUP:
                            depth += 1
                        elif t.kind == EGROUP:
                            depth -= 1
                        elif t.kind == MATH:
                            in_math = not in_math
                        elif t.kind == CS and t.text in ("begin", "end"):
                            env_depth += 1 if t.text == "begin" else -1
                        if t.kind == ALIGN and depth == 0 and env_depth == 0 and not in_math:
                            cells.append(plain_text(cur, text))
                            cur = []
                        else:
                            cur.append(t)
                    cells.append(plain_text(cur, text))
                    if any(cells):
                        rows.append(tuple(cells))
                i = end[1]
                continue
        i += 1
    return tuple(rows)


def _documentclass(toks) -> str:
    for i, tok in enumerate(toks[:5000]):
        if tok.kind == CS and tok.text == "documentclass":
            _, j = read_optional(toks, i + 1)
            group, _ = read_group(toks, j)
            return group_text(group) if group else "article"
    return "article"


def _detok_with_map(toks: list[Token], text: str) -> tuple[str, list[tuple[int, int, bool]]]:
    """Detokenize and return anchors (text offset, flat offset, verbatim?) at each piece's start."""
    pieces: list[str] = []
    anchors: list[tuple[int, int, bool]] = []
    pos = 0
    run_start = run_end = -1
    after_word = False  # the last piece ended with a control word: a following letter needs a space

    def emit(piece: str, flat: int, verbatim: bool) -> None:
        nonlocal pos
        if after_word and piece[:1].isalpha():
            pieces.append(" ")
            pos += 1
        anchors.append((pos, flat, verbatim))
        pieces.append(piece)
        pos += len(piece)

    for tok in toks:
        if not tok.expanded and tok.start == run_end:
            run_end = tok.end
            continue
        if run_start >= 0:
            emit(text[run_start:run_end], run_start, True)
            after_word = False
            run_start = run_end = -1
        if not tok.expanded:
            run_start, run_end = tok.start, tok.end
            continue
        emit(("\\" + tok.text) if tok.kind == CS else tok.text, tok.start, False)
        after_word = tok.kind == CS and tok.text[:1].isalpha()
    if run_start >= 0:
        emit(text[run_start:run_end], run_start, True)
    return "".join(pieces), anchors


def _flat_at(anchors, text_offset: int) -> int:
    if not anchors:
        return 0
    keys = [a[0] for a in anchors]
    k = max(bisect.bisect_right(keys, text_offset) - 1, 0)
    pos, flat, verbatim = anchors[k]
    return flat + (text_offset - pos) if verbatim else flat


def check_braces(tokens: list[Token], smap: SourceMap) -> list[Diagnostic]:
    """Unbalanced braces, each reported where it stands (the model is still built, tolerantly)."""
    found: list[Diagnostic] = []
    open_at: list[Token] = []
    for tok in tokens:
        if tok.kind == BGROUP:
            open_at.append(tok)
        elif tok.kind == EGROUP:
            if open_at:
                open_at.pop()
            else:
                found.append(Diagnostic("error", "unbalanced braces: '}' closes nothing", smap.locate(tok.start)))
    for tok in open_at[:5]:
        found.append(Diagnostic("error", "unbalanced braces: '{' is never closed", smap.locate(tok.start)))
    return found


def build_document(tokens: list[Token], smap: SourceMap, paper: PaperInfo, operators: dict[str, str],
                   diagnostics: list[Diagnostic]) -> Document:
    """The document model of an expanded token list."""
    builder = _Builder(smap.text, smap, tokens, list(diagnostics) + check_braces(tokens, smap))
    builder.build()
    references = []
    for command, label, start in builder.references:
        target = builder.labels.get(label)
        references.append(Reference(command, label, target, builder.label_numbers.get(label) if target else None,
                                    builder.span(start)))
    # Headings and captions may cite labels defined later ("Proof of Theorem 3"): resolve them now.
    numbers = builder.label_numbers
    sections = [_replace(sec, title=resolve_refs(sec.title, numbers)) for sec in builder.sections]
    floats = [_replace(f, caption=resolve_refs(f.caption, numbers)) for f in builder.floats]
    algorithms = [_replace(a, caption=resolve_refs(a.caption, numbers)) for a in builder.algorithms]
    intro_items = _contributions(builder)
    title = builder.title
    info = PaperInfo(title, paper.source, paper.arxiv_id, paper.version, paper.main_file, paper.format)
    seen = set()
    links = tuple(x for x in builder.links if not (x in seen or seen.add(x)))
    return Document(info, tuple(builder.authors), builder.abstract, tuple(sections),
                    tuple(builder.paragraphs), tuple(builder.equations), tuple(builder.inline_math),
                    tuple(builder.footnotes), tuple(floats), tuple(algorithms),
                    dict(builder.labels), tuple(references), dict(operators), intro_items, links,
                    tuple(builder.diagnostics), sources=dict(smap.files))


def _contributions(builder: _Builder) -> tuple[str, ...]:
    intro_ids = {s.id for s in builder.sections if "introduction" in s.title.lower()}
    for section_id, para_index, items in builder.lists:
        if section_id in intro_ids and items:
            context = " ".join(p.text.lower() for p in builder.paragraphs[max(0, para_index - 2):para_index])
            if "contribution" in context or "summar" in context or "we " in context:
                return tuple(collapse(x) for x in items)
    return ()
