"""Build the document model from expanded tokens: sections, paragraphs, display equations with the
numbers LaTeX would print, footnotes, floats, algorithms, labels and references.

The builder walks the token list once. Environment and command behaviour is looked up in tables;
counters follow LaTeX's rules (secnumdepth, \\appendix, \\numberwithin, subequations, \\tag, \\nonumber).
"""
from __future__ import annotations

import bisect
import itertools
import re
from dataclasses import dataclass, field

from ..errors import Diagnostic
from ..spans import SourceMap, Span
from ..limits import MAX_DEPTH
from .counters import CounterTable, class_preamble
from .document import (
    Algorithm,
    AlgorithmLine,
    Document,
    Equation,
    Float,
    Footnote,
    InlineMath,
    PaperInfo,
    Paragraph,
    Reference,
    Section,
    Sentence,
)
from .frontmatter import author_names, title_from_front
from .macros import DEF_LIKE, NEWCOMMAND_LIKE, group_text, read_group, read_optional
from .markup import clean_formula, clean_math_runs
from .plain import REF_COMMANDS, REF_OPEN, collapse, plain_text, resolve_known_refs, resolve_refs
from .refs import RefStyle
from .sentences import split_sentences
from .tokens import ALIGN, BGROUP, CS, EGROUP, MATH, PAR, SPACE, TEXT, TILDE, Token, detokenize

# -- grammar tables ------------------------------------------------------------------------------
SECTION_LEVELS = {"part": -1, "chapter": 0, "section": 1, "subsection": 2, "subsubsection": 3,
                  "paragraph": 4, "subparagraph": 5}
# KOMA-Script's unnumbered headings that still enter the table of contents: \addsec{…} is \section*{…}.
UNNUMBERED_HEADINGS = {"addpart": "part", "addchap": "chapter", "addsec": "section"}
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
    "IEEEeqnarray": (True, True), "IEEEeqnarray*": (False, True), "numcases": (True, True),
    "math": (False, False),
}
ENV_LEADING_ARGS = {"IEEEeqnarray": 1, "IEEEeqnarray*": 1, "numcases": 1, "alignat": 1, "alignat*": 1, "xalignat": 1, "xalignat*": 1, "tabular": 1, "tabular*": 2,
                    "tabularx": 2, "array": 1, "minipage": 1, "subfigure": 1, "subtable": 1, "wrapfigure": 2,
                    "tabulary": 2, "xltabular": 2, "longtable": 1, "multicols": 1, "adjustbox": 1,
                    "threeparttable": 0, "resizebox": 2}
FLOAT_ENVS = {"figure": "figure", "figure*": "figure", "table": "table", "table*": "table",
              "wrapfigure": "figure", "wraptable": "table", "SCfigure": "figure", "sidewaysfigure": "figure",
              "sidewaystable": "table"}
SUBFLOAT_ENVS = {"subfigure", "subtable", "subfloat"}
# Sub-float commands (subfig's \\subfloat[cap]{body}, subcaption's \\subcaptionbox{cap}{body}): mandatory args.
SUBFLOAT_COMMANDS = {"subfloat": 1, "subcaptionbox": 2, "subfigure": 1}
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
# Kind (counter) of a label's target, by the target id's prefix (theorem-likes use their environment's name).
TARGET_KINDS = {"eq": "equation", "fig": "figure", "tab": "table", "alg": "algorithm", "lst": "listing",
                "fn": "footnote"}
LEVEL_NAMES = {level: name for name, level in SECTION_LEVELS.items()}
# Id prefix of a \\refstepcounter target, by counter (others use the counter's name: `lemma:3`).
COUNTER_ID_PREFIX = {"equation": "eq", "section": "sec", "subsection": "sec", "subsubsection": "sec",
                     "chapter": "sec", "figure": "fig", "table": "tab", "algorithm": "alg", "footnote": "fn"}
CODE_HOSTS = re.compile(r"https?://(?:www\.)?(?:github\.com|gitlab\.com|huggingface\.co|bitbucket\.org|"
                        r"[\w.-]+\.github\.io|colab\.research\.google\.com|codeberg\.org)[^\s}{\\,;)\]]*",
                        re.IGNORECASE)
ROW_BREAK = {"\\", "cr", "crcr"}
COUNTER_COMMANDS = {"addtocounter", "stepcounter", "refstepcounter", "setcounter"}
HAND_NUMBER_SPACING = {"quad", "qquad", "hfill", "hspace", ",", ";", " "}
ROW_NUMBER_SUPPRESS = {"nonumber", "notag"}
LAYOUT_ONLY_IN_ROW = {"label", "tag", "nonumber", "notag"}
CONTINUATION_START = re.compile(r"^\s*(?:\\(?:quad|qquad|;|,|!|:|hspace\{[^}]*\}|phantom\{[^}]*\}|hphantom\{[^}]*\})\s*)*"
                                r"(?:=|<|>|\+|-|\\(?:le|leq|ge|geq|approx|propto|cdot|times|equiv|sim|simeq|triangleq|ll|gg|coloneqq|to|rightarrow|Rightarrow|iff|implies|leqslant|geqslant|neq|ne|pm|mp)\b)")
ALPHA = "abcdefghijklmnopqrstuvwxyz"


_FLOAT_PREFIX = {"figure": "fig", "table": "tab"}


def _continues_statement(statement: "_Statement", row: dict, numbered_env: bool) -> bool:
    """Does this row of a multi-row display continue the statement above it? It does when it opens with a
    relation or an operator (`&= …`, `& - …`), or when the statement so far leaves an operator without its
    operand or a bracket open (`\\mathbb{E}_{…} \\\\ &\\Bigg[ …`: papermath.math.row_is_open). A row that
    prints its own number never joins a statement that already prints one: each keeps the number TeX gives it."""
    if numbered_env and row["numbered"] and statement.numbered:
        return False
    if CONTINUATION_START.match(row["latex"].lstrip("& \t\n")):
        # a signed row with a relation of its own stays in the display's unit (its id and number do not move)
        # but as a statement of its own: the unit keeps the row break, which the parser reads the same way
        row["own_statement"] = _signed_own_statement(row["latex"])
        return True
    return statement.is_open()


def _signed_own_statement(latex: str) -> bool:
    """Does a row that opens with a sign before its alignment point put a relation of its own there
    (`- w B(x) &\\le …`)? It is then a statement of its own, as the parser reads it: a continuation starts at or
    after the alignment point (`& - w B(x)`)."""
    from ..math.parser import row_sets_own_relation
    from ..math.tokens import tokenize
    tokens = tokenize(latex)
    first = next((i for i, t in enumerate(tokens) if t.kind != "cmd" or t.text not in _SPACING), len(tokens))
    return first < len(tokens) and tokens[first].kind == "punct" and tokens[first].text in "+-" and \
        row_sets_own_relation(tokens, first)


_SIZED = frozenset("left right big Big bigg Bigg bigl Bigl biggl Biggl bigr Bigr biggr Biggr bigm Bigm middle".split())
_OPENERS, _CLOSERS = frozenset({"(", "[", "\\{", "\\langle", "\\lbrace", "\\lVert", "\\lvert"}), \
    frozenset({")", "]", "\\}", "\\rangle", "\\rbrace", "\\rVert", "\\rvert"})
_UNMARKED = frozenset({"\\label", "\\tag", "\\nonumber", "\\notag", "\\limits", "\\nolimits", "\\displaystyle"})
_NAME_WRAPPERS = frozenset({"\\mathbb", "\\mathrm", "\\operatorname", "\\mathop", "\\mathbf", "\\mathsf",
                            "\\mathcal", "\\text", "\\textrm", "\\bm", "\\boldsymbol"})
_SPACING = frozenset({"\\,", "\\;", "\\:", "\\!", "\\quad", "\\qquad"})


@dataclass
class _Statement:
    """A statement of a multi-row display as its rows are read: each row's tokens are read once, so a display
    of n rows costs n rows, not n² (a mutated paper's 10,000-row align hung the loader in campaign 9)."""
    rows: list[dict] = field(default_factory=list)
    """The rows so far, as `_row_info` gives them."""
    numbered: bool = False
    """Whether one of the rows prints a number."""
    depth: int = 0
    """Brackets opened and not closed so far (`\\left.`/`\\right.` open or close nothing)."""
    kept: list = field(default_factory=list)
    """The statement's tokens without sizes, labels and tags: what its end is read from."""

    def add(self, row: dict) -> None:
        self.rows.append(row)
        self.numbered = self.numbered or bool(row["numbered"])
        from ..math.tokens import tokenize
        toks = [t for t in tokenize(row["latex"]) if t.kind not in ("eof", "&")]
        i = 0
        while i < len(toks):
            t = toks[i]
            if t.kind == "cmd" and t.text[1:] in _SIZED:
                i += 2 if i + 1 < len(toks) and toks[i + 1].text == "." else 1
                continue
            if t.text in _UNMARKED:
                i += 1
                if t.text in ("\\label", "\\tag") and i < len(toks) and toks[i].kind == "{":
                    i = _past_group(toks, i)
                continue
            self.depth += (t.text in _OPENERS) - (t.text in _CLOSERS)
            self.kept.append(t)
            i += 1

    def is_open(self) -> bool:
        """Does the statement leave something for the next row: a bracket still open (`\\Bigg[ …`), a trailing
        relation or operator (`= `, `+`), or an operator that still lacks its operand (`\\mathbb{E}_{p(x)}`,
        `\\sum_{i=1}^n`, `\\max_\\theta`) at its end? Read from the formula's tokens alone (the same rules as
        papermath.math.row_is_open, without parsing: the document is built before any formula is parsed, and
        each formula is parsed once)."""
        from ..math import tables
        if self.depth > 0:
            return True
        end = len(self.kept)
        while end and self.kept[end - 1].text in _SPACING:
            end -= 1
        if not end or self.kept[end - 1].text in (",", ".", ";"):
            return False
        last = self.kept[end - 1].text
        if last in tables.BINARY_OPS or last in tables.RELATIONS or last in "=<>":
            return True
        return _ends_in_operator_head(self.kept[max(0, end - _OPERATOR_HEAD_REACH):end])


_OPERATOR_HEAD_REACH = 400
"""Tokens back from a statement's end in which an operator head and its scripts are looked for: a head's scripts
are a formula's subscripts, never a display's worth of rows."""


def _past_group(toks, i: int) -> int:
    """Index after the brace group opening at toks[i]."""
    depth = 0
    for k in range(i, len(toks)):
        depth += (toks[k].kind == "{") - (toks[k].kind == "}")
        if depth == 0:
            return k + 1
    return len(toks)


def _ends_in_operator_head(toks) -> bool:
    """`… \\sum_{i}^{n}`, `… \\mathbb{E}_{x \\sim p}`, `… \\operatorname*{arg\\,max}_\\theta`: the tokens end with a
    big or named operator and only its scripts, so its body is on the next row."""
    from ..math import tables
    end = len(toks)
    while end >= 2 and toks[end - 2].kind in ("_", "^") or end >= 1 and toks[end - 1].kind == "}":
        if toks[end - 1].kind == "}":
            start = _group_start(toks, end - 1)
            if start < 1 or toks[start - 1].kind not in ("_", "^"):
                break
            end = start - 1
        else:
            end -= 2
    if end < 1:
        return False
    head = toks[end - 1]
    if head.kind == "cmd":
        name = head.text[1:]
        return name in tables.BIG_OPERATORS or name in tables.LIMIT_OPERATORS
    if head.kind == "}":
        start = _group_start(toks, end - 1)
        word = "".join(t.text for t in toks[start + 1:end - 1] if t.kind in ("letter", "cmd")).replace("\\,", " ")
        wrapper = toks[start - 1].text if start >= 1 else ""
        if start >= 2 and wrapper == "*":
            wrapper = toks[start - 2].text
        return wrapper in _NAME_WRAPPERS and (word in tables.EXPECTATION_NAMES or word in tables.LIMIT_OPERATORS)
    return False


def _group_start(toks, close: int) -> int:
    """Index of the `{` matching the `}` at toks[close]."""
    depth = 0
    for k in range(close, -1, -1):
        depth += (toks[k].kind == "}") - (toks[k].kind == "{")
        if depth == 0:
            return k
    return -1


@dataclass
class _FloatState:
    """What a float environment's walk knows so far."""

    kind: str
    cells: tuple = ()
    subdepth: int = 0
    last_id: int | None = None
    """Index in floats of the caption already read, if any."""
    sub_label: tuple[str, str] | None = None
    """(parent id, "3a") for a label naming the current sub-figure."""
    sub_until: int = -1
    """Labels before this token index name the current sub-figure."""
    continued: bool = False
    """`\\ContinuedFloat` (caption/subfig): this float continues the previous one and prints its number."""


@dataclass
class _Builder:
    text: str
    smap: SourceMap
    tokens: list[Token]
    diagnostics: list[Diagnostic]
    documentclass: str = "article"
    counters: CounterTable = field(default_factory=CounterTable)
    appendix: bool = False
    """True after \\appendix."""
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
    _only_referenced: frozenset[str] | None = None
    """mathtools' showonlyrefs: the labels \\eqref/\\refeq/\\noeqref name; other displays print no number."""
    _in_document: bool = False
    theorems: dict[str, str] = field(default_factory=dict)
    """\\newtheorem environments: name → the counter they step ("" for unnumbered ones)."""
    restatables: dict[str, tuple[str, list[Token], int, str | None]] = field(default_factory=dict)
    """thm-restate's `restatable` bodies: macro name → (environment, body, equation counter at its start,
    the theorem's number), so `\\name*` prints it again with the same numbers."""
    _label_target_number: str | None = None
    _restating: bool = False
    _open_restatables: set[str] = field(default_factory=set)
    """The restatable bodies being typeset or restated now: a body that restates itself (a restatable whose
    `\\end` is lost, holding the rest of the paper and its `\\macro*`) is printed once, as TeX would fail to."""
    _caption_type: str | None = None
    _mainmatter: bool = True
    label_kinds: dict[str, str] = field(default_factory=dict)
    """\\label → the counter it names (`equation`, `appendix`, `lemma`), for what \\cref/\\autoref print."""
    crefnames: dict[str, tuple[str, str]] = field(default_factory=dict)
    Crefnames: dict[str, tuple[str, str]] = field(default_factory=dict)
    cref_options: set[str] = field(default_factory=set)
    walk_depth: int = 0
    """How many environments, captions, footnotes and groups the text being read sits inside (each a Python
    frame or more: the bound keeps a mutated paper's hundreds of nested levels from exhausting the stack)."""

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
        text, anchors = _detok_with_map(clean_math_runs(toks), self.text)
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
            self.links.append(clean_link(link))

    # -- the walk ------------------------------------------------------------------------------
    def build(self) -> None:
        toks = self.tokens
        self.documentclass, options = _documentclass(toks)
        self.counters = CounterTable.for_class(self.documentclass, options)
        self.counters.set("secnumdepth", self.counters.secnumdepth)
        declared = class_preamble(self.documentclass, options)
        if declared:  # the class's own theorem-likes, as if its .cls were read first
            from .tokens import tokenize
            saved, self._in_document = self._in_document, False
            class_tokens = tokenize(declared)
            self.walk(class_tokens, 0, len(class_tokens))
            self._in_document = saved
        has_begin_document = any(t.kind == CS and t.text == "begin" and _env_name_at(toks, i + 1) == "document"
                                 for i, t in enumerate(toks) if t.kind == CS and t.text == "begin")
        self._in_document = not has_begin_document
        self.walk(toks, 0, len(toks), top=True)
        self.flush_paragraph()

    def walk(self, toks: list[Token], i: int, end: int, top: bool = False) -> None:
        """Walk tokens[i:end] as running text."""
        self._nested(self._walk, toks, i, end)

    def _nested(self, read, toks: list[Token], i: int, end: int):
        """`read(toks, i, end)` one level deeper: walks and \\begin are where the builder recurses (a float reads
        its body's environments itself), so both count."""
        if self.walk_depth >= MAX_DEPTH:
            # TeX nests a few levels in real papers; a mutated one nests hundreds, a recursion each
            self.diag("error", f"text nested more than {MAX_DEPTH} levels deep (environments, captions, footnotes): "
                      "its content is not read", toks[i].start if i < len(toks) else 0)
            return end
        self.walk_depth += 1
        try:
            return read(toks, i, end)
        finally:
            self.walk_depth -= 1

    def _walk(self, toks: list[Token], i: int, end: int) -> None:
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
            if name in self.restatables:
                i = self.restate(toks, i, end)
                continue
            if name in SECTION_LEVELS or name in UNNUMBERED_HEADINGS:
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
        return self._nested(self._begin, toks, i, end)

    def _begin(self, toks, i, end):
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
        handler = self._environment_handler(name)
        handler(self, name, toks, i, j, close_start)
        return after

    def _environment_handler(self, name: str):
        """What `\\begin{name}` does: a named handler, else the handler of its kind, else running text."""
        if name in ENVIRONMENT_HANDLERS:
            return ENVIRONMENT_HANDLERS[name]
        for kinds, handler in ENVIRONMENT_KINDS:
            if name in kinds:
                return handler
        if name in self.theorems:
            return _Builder.env_theorem
        return _Builder.env_text

    # -- environments (each: name, tokens, index of \begin, body start, body end) ------------------------
    def env_display(self, name, toks, i, j, close):
        self.display(toks, i, j, close, name)

    def env_opaque(self, name, toks, i, j, close):
        if name == "lstlisting":
            self.listing_options(toks, j, close)

    def env_empheq(self, name, toks, i, j, close):
        """empheq[decorations]{align}: the environment named in its argument numbers the rows."""
        _, k = read_optional(toks, j)
        inner, k = read_group(toks, k)
        inner_name = group_text(inner) if inner else ""
        if inner_name in DISPLAY_ENVS:
            self.display(toks, i, k, close, inner_name)
        else:
            self.env_text(name, toks, i, j, close)

    def env_appendices(self, name, toks, i, j, close):
        """The appendix package's environment: \\appendix for its body."""
        self.cmd_appendix(toks, i, close)
        self.walk(toks, j, close)

    def env_abstract(self, name, toks, i, j, close):
        self.flush_paragraph()
        self.abstract = collapse(detokenize(clean_formula(toks[j:close]), self.text)) or None
        first = len(self.paragraphs)
        self._para_kind = "abstract"
        self.walk(toks, j, close)
        self.flush_paragraph()
        for k in range(first, len(self.paragraphs)):
            self.paragraphs[k] = _replace(self.paragraphs[k], kind="abstract")

    def env_float(self, name, toks, i, j, close):
        self.float_env(toks, j, close, FLOAT_ENVS[name])

    def env_algorithm(self, name, toks, i, j, close):
        self.algorithm_env(toks, i, j, close, bare=name in ALGORITHMIC_ENVS)

    def env_subequations(self, name, toks, i, j, close):
        self.subequations(toks, j, close)

    def env_list(self, name, toks, i, j, close):
        self.flush_paragraph()
        first = len(self.paragraphs)
        items = self.list_env(toks, j, close)
        self.lists.append((self._current_section_id, first, items))

    def env_skip(self, name, toks, i, j, close):
        """Tables: their cells are read with their float (see float_env)."""

    def env_restatable(self, name, toks, i, j, close):
        self.restatable(toks, j, close)

    def env_theorem(self, name, toks, i, j, close):
        self.theorem_env(name, toks, j, close)

    def env_text(self, name, toks, i, j, close):
        """Any other environment: its content is running text (center, minipage, proof, …)."""
        k = j
        _, k = read_optional(toks, k)
        for _ in range(ENV_LEADING_ARGS.get(name, 0)):
            _, k = read_group(toks, k)
        self.walk_scoped(toks, k, close)

    def subequations(self, toks, j, close):
        """amsmath's subequations: one step of `equation`, printed as the parent; the rows inside count
        `equation` again from zero and print `\\theparentequation\\alph{equation}` (3a, 3b, …)."""
        c = self.counters
        c.step("equation")
        parent = c.format("equation")
        saved_format = c.counters["equation"].format
        saved_parent_format = c.counters["parentequation"].format if c.has("parentequation") else None
        c.set("parentequation", c.value("equation"))
        c.set_format("parentequation", [Token(TEXT, parent, 0, 0, True)])
        c.set("equation", 0)
        c.set_format("equation", r"\theparentequation\alph{equation}")
        self._last_labelable = f"eq:{parent}"
        self._label_target_number = parent
        self.walk(toks, j, close)
        c.set("equation", c.value("parentequation"))
        c.counters["equation"].format = saved_format
        if saved_parent_format is not None:
            c.counters["parentequation"].format = saved_parent_format

    def theorem_env(self, name, toks, j, close, number: str | None = None):
        """A \\newtheorem environment: steps its counter (unless restated with a fixed number) and is the
        target of the labels inside it that no equation or item takes."""
        counter = self.theorems.get(name, "")
        saved = (self._last_labelable, self._label_target_number)
        if number is None and counter:
            self.counters.step(counter)
            number = self.counters.format(counter)
        if number is not None:
            self._last_labelable = f"{name}:{number}"
            self._label_target_number = number
        else:
            self._last_labelable = None
        _, j = read_optional(toks, j)  # the theorem's name: [Bellman]
        self.walk_scoped(toks, j, close)
        self._last_labelable, self._label_target_number = saved

    def walk_scoped(self, toks, j, close):
        """Walk an environment's body: the label target set inside (an equation, a step) ends with it, as
        LaTeX's \\@currentlabel is local to the group."""
        saved = (self._last_labelable, self._label_target_number)
        self.walk(toks, j, close)
        self._last_labelable, self._label_target_number = saved

    def restatable(self, toks, j, close):
        """thm-restate: `\\begin{restatable}[Name]{theorem}{macro}` typesets the theorem and keeps it, so
        `\\macro*` (or `\\macro`) prints it again later with the same theorem and equation numbers."""
        _, k = read_optional(toks, j)
        env, k = read_group(toks, k)
        macro, k = read_group(toks, k)
        if env is None or macro is None:
            self.walk(toks, j, close)
            return
        env_name = group_text(env)
        equation_start = self.counters.value("equation")
        counter = self.theorems.get(env_name, "")
        number = None
        if counter:
            self.counters.step(counter)
            number = self.counters.format(counter)
        body = toks[k:close]
        name = group_text(macro)
        self.restatables[name] = (env_name, body, equation_start, number)
        self._open_restatables.add(name)
        try:
            self.theorem_env(env_name, body, 0, len(body), number=number if counter else None)
        finally:
            self._open_restatables.discard(name)

    def restate(self, toks, i, end):
        """`\\macro*`: a restatable theorem printed again with the numbers it had (thm-restate restores the
        counters); plain `\\macro` typesets it anew, stepping the theorem and equation counters again. Either
        way its labels keep their first definition."""
        name = toks[i].text
        env_name, body, equation_start, number = self.restatables[name]
        j = i + 1
        starred = j < end and toks[j].kind == TEXT and toks[j].text == "*"
        if starred:
            j += 1
        if name in self._open_restatables:
            self.diag("warning", f"\\{name} restates the theorem it stands in (is its \\end{{restatable}} "
                      "missing?): not printed again", toks[i].start)
            return j
        saved_value = self.counters.value("equation")
        saved_restating = self._restating
        if starred:
            self.counters.set("equation", equation_start)
        self._restating = starred
        self.flush_paragraph()
        self._open_restatables.add(name)
        try:
            self.theorem_env(env_name, list(body), 0, len(body), number=number if starred else None)
        finally:
            self._open_restatables.discard(name)
        self._restating = saved_restating
        if starred:
            self.counters.set("equation", saved_value)
        return j

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
        starred = tok.text in UNNUMBERED_HEADINGS
        if starred:
            tok = Token(tok.kind, UNNUMBERED_HEADINGS[tok.text], tok.start, tok.end, tok.expanded)
        level = SECTION_LEVELS[tok.text]
        j = i + 1
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
        if tok.text == "chapter" and not self._mainmatter:
            starred = True  # \\frontmatter / \\backmatter: chapters are not numbered
        if starred and c.starred_headings_reset:
            c.reset_within(tok.text)
        # LaTeX's \@sect steps a heading's counter only at levels \secnumdepth numbers.
        if not starred and (level >= 0 or tok.text == "part") and level <= c.value("secnumdepth"):
            c.step(tok.text)
            number = c.format(tok.text)
        title = plain_text(title_toks, self.text, mark_refs=True)
        sid = f"sec:{number}" if number else f"sec:u{len(self.sections)}"
        section = Section(sid, level, number, title, self.span(tok.start, toks[k - 1].end),
                          appendix=self.appendix)
        self.sections.append(section)
        self._current_section_id = sid
        if number is not None or level <= 3:
            self._current_numbered = number if number is not None else (
                None if level <= 1 else self._current_numbered)
        if number is not None:  # an unnumbered heading does no \\refstepcounter: its \\label names what came before
            self._last_labelable = sid
            self._label_target_number = number
        for t in range(len(title_toks)):  # \\section{Method \\label{sec:m}}: the label names the heading
            if title_toks[t].kind == CS and title_toks[t].text == "label":
                self.cmd_label(title_toks, t, len(title_toks))
        return k

    def cmd_matter(self, toks, i, end):
        """\\frontmatter, \\mainmatter, \\backmatter (book classes): only the main matter numbers chapters."""
        self._mainmatter = toks[i].text == "mainmatter"
        return i + 1

    def cmd_declaretheorem(self, toks, i, end):
        """thmtools' \\declaretheorem[numberwithin=section, sibling=theorem, numbered=no]{lemma}."""
        opt, j = read_optional(toks, i + 1)
        name, k = read_group(toks, j)
        if name is None:
            return i + 1
        env = group_text(name)
        options = dict(_key_values(group_text(opt) if opt else ""))
        shared = options.get("sibling") or options.get("sharenumber") or options.get("sharecounter")
        if options.get("numbered", "yes") in ("no", "false"):
            self.theorems[env] = ""
        elif shared:
            self.theorems[env] = self.theorems.get(shared) or shared
            if not self.counters.has(self.theorems[env]):
                self.counters.define(self.theorems[env])
        else:
            self.theorems[env] = env
            self.counters.define(env)
            within = options.get("numberwithin") or options.get("parent")
            if within:
                self.counters.number_within(env, within)
        return k

    def cmd_appendix(self, toks, i, end):
        self.appendix = True
        self.counters.appendix()
        return i + 1

    def cmd_label(self, toks, i, end):
        """\\label takes TeX's \\@currentlabel: the last \\refstepcounter in the enclosing groups."""
        group, j = read_group(toks, i + 1)
        if group is None:
            return i + 1
        label = group_text(group)
        if self._last_labelable is not None:
            self.define_label(label, self._last_labelable, self._label_target_number)
            if self._last_labelable.startswith("sec:") and not self._restating:
                for k in range(len(self.sections) - 1, -1, -1):
                    if self.sections[k].id == self._last_labelable:
                        if self.sections[k].label is None:
                            self.sections[k] = _replace(self.sections[k], label=label)
                        break
        return j

    def define_label(self, label: str, target: str, number: str | None, kind: str | None = None) -> None:
        """A label defined twice refers to its last definition (TeX warns, and the .aux read last wins); a
        theorem restated with `\\name*` defines none. `kind` is the counter it names (for \\cref's name);
        by default it follows from the target."""
        if self._restating or not label:
            return
        self.labels[label] = target
        self.label_numbers[label] = number
        self.label_kinds[label] = kind or self._kind_of(target)

    def _kind_of(self, target: str) -> str:
        prefix = target.split(":", 1)[0]
        if prefix == "sec":
            section = next((s for s in reversed(self.sections) if s.id == target), None)
            if section is None:
                return "section"
            name = LEVEL_NAMES.get(section.level, "section")
            if section.appendix:
                top = 0 if self.counters.has_chapters else 1
                return {top: "appendix", top + 1: "subappendix"}.get(section.level, name)
            return name
        return TARGET_KINDS.get(prefix, prefix)

    def cmd_crefname(self, toks, i, end):
        """`\\crefname{equation}{Eq.}{Eqs.}` / `\\Crefname{…}`: the paper's names for \\cref / \\Cref."""
        groups = []
        j = i + 1
        for _ in range(3):
            group, j = read_group(toks, j)
            if group is None:
                return i + 1
            groups.append(plain_text(group, self.text))
        table = self.crefnames if toks[i].text == "crefname" else self.Crefnames
        table[groups[0]] = (groups[1], groups[2])
        return j

    def cmd_usepackage(self, toks, i, end):
        """Package options that change what the document prints (cleveref's capitalise / noabbrev)."""
        opt, j = read_optional(toks, i + 1)
        names, k = read_group(toks, j)
        if names is None:
            return i + 1
        if "cleveref" in group_text(names).replace(" ", "").split(",") and opt:
            options = group_text(opt).replace(" ", "").split(",")
            self.cref_options.update(options)
        return k

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
        for name in author_names(group, self.text):
            if name not in self.authors:
                self.authors.append(name)
        # \thanks marks use the footnote counter; conference styles (NeurIPS, ICML, …) do not reset it at
        # \maketitle, so the first footnote of the body is numbered after them (Attention's footnote 4).
        self.counters.add("footnote", sum(1 for t in group if t.kind == CS and t.text == "thanks"))
        return k

    def cmd_abstract_command(self, toks, i, end):
        group, k = read_group(toks, i + 1)
        if group is None:
            return i + 1
        self.abstract = collapse(detokenize(clean_formula(group), self.text))
        return k

    def cmd_footnote(self, toks, i, end):
        tok = toks[i]
        opt, j = read_optional(toks, i + 1)
        group, k = read_group(toks, j)
        if group is None:
            return i + 1
        if tok.text == "footnotetext":
            number = group_text(opt) if opt else self.counters.format("footnote")
        elif opt:
            number = group_text(opt)
        else:
            self.counters.step("footnote")
            number = self.counters.format("footnote")
        paragraph = f"p:{len(self.paragraphs)}"
        text = collapse(detokenize(group, self.text))
        fid = f"fn:{number}"
        if any(f.id == fid for f in self.footnotes):
            fid = f"fn:{number}.{len(self.footnotes)}"
        self.footnotes.append(Footnote(fid, number, text, paragraph, self.span(tok.start)))
        for link in CODE_HOSTS.findall(text):
            self.links.append(clean_link(link))
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
            self.counters.step("footnote")
        return j if opt else i + 1

    def cmd_numberwithin(self, toks, i, end):
        """\\numberwithin{c}{p}, \\counterwithin{c}{p} (and their * forms, which only reset), \\counterwithout."""
        command = toks[i].text
        j = i + 1
        starred = j < end and toks[j].kind == TEXT and toks[j].text == "*"
        if starred:
            j += 1
        counter, j = read_group(toks, j)
        within, k = read_group(toks, j)
        if counter is None or within is None:
            return i + 1
        name, parent = group_text(counter), group_text(within)
        if command == "counterwithout":
            self.counters.remove_reset(parent, name)
            if not starred:
                self.counters.set_format(name, rf"\arabic{{{name}}}")
        elif starred:
            self.counters.add_reset(parent, name)
        else:
            self.counters.number_within(name, parent)
        return k

    def counter_value(self, toks: list[Token]) -> int | None:
        """An integer argument: `3`, `-1`, `\\value{equation}`, `\\value{x}+1` is not TeX (calc), so no."""
        text = group_text(toks)
        try:
            return int(text)
        except ValueError:
            pass
        names = [t.text for t in toks if t.kind == CS]
        if names == ["value"]:
            inner, _ = read_group(toks, next(k for k, t in enumerate(toks) if t.kind == CS) + 1)
            return self.counters.value(group_text(inner))
        return None

    def cmd_counter(self, toks, i, end):
        """\\setcounter, \\addtocounter, \\stepcounter, \\refstepcounter on any counter, where they stand."""
        command = toks[i].text
        counter, j = read_group(toks, i + 1)
        if counter is None:
            return i + 1
        name = group_text(counter)
        if command in ("setcounter", "addtocounter"):
            value, k = read_group(toks, j)
            amount = self.counter_value(value) if value is not None else None
            if amount is None:
                return max(k, j)
            if command == "setcounter":
                self.counters.set(name, amount)
            else:
                self.counters.add(name, amount)
            return k
        self.counters.step(name)
        if command == "refstepcounter":
            number = self.counters.format(name)
            prefix = COUNTER_ID_PREFIX.get(name, name)
            self._last_labelable = f"{prefix}:{number}"
            self._label_target_number = number
        return j

    def cmd_addtoreset(self, toks, i, end):
        """`\\@addtoreset{equation}{section}` (after \\makeatletter): reset a counter with another."""
        child, j = read_group(toks, i + 1)
        parent, k = read_group(toks, j)
        if child is None or parent is None:
            return i + 1
        self.counters.add_reset(group_text(parent), group_text(child))
        return k

    def cmd_newcounter(self, toks, i, end):
        counter, j = read_group(toks, i + 1)
        if counter is None:
            return i + 1
        parent, k = read_optional(toks, j)
        self.counters.define(group_text(counter), group_text(parent) if parent else None)
        return k if parent is not None else j

    def cmd_counter_format(self, toks, i, end):
        """`\\renewcommand{\\theequation}{E.\\thechapter.\\arabic{equation}}` (the macro layer passes only
        definitions of counter formats through)."""
        j = i + 1
        if j < end and toks[j].kind == TEXT and toks[j].text == "*":
            j += 1
        group, k = read_group(toks, j)
        if group is not None:
            names = [t for t in group if t.kind == CS]
        elif j < end and toks[j].kind == CS:
            names, k = [toks[j]], j + 1
        else:
            return i + 1
        if len(names) != 1 or not names[0].text.startswith("the"):
            return i + 1
        if toks[i].text in DEF_LIKE:
            while k < end and toks[k].kind != BGROUP:
                k += 1
        else:
            for _ in range(2):
                _, k = read_optional(toks, k)
        body, after = read_group(toks, k)
        if body is None:
            return i + 1
        self.counters.set_format(names[0].text[3:], body)
        return after

    def cmd_url(self, toks, i, end):
        group, k = read_group(toks, i + 1)
        if group is None:
            return i + 1
        url = "".join(t.text for t in group).strip()
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
            self.theorems[env] = ""
        elif shared:
            parent = group_text(shared)
            self.theorems[env] = self.theorems.get(parent) or parent
            if not self.counters.has(self.theorems[env]):
                self.counters.define(self.theorems[env])
        else:
            self.theorems[env] = env
            self.counters.define(env)
            if within:
                self.counters.number_within(env, group_text(within))
        return j

    def cmd_mathtoolsset(self, toks, i, end):
        """`\\mathtoolsset{showonlyrefs}`: only displays whose label is referenced with \\eqref (or \\refeq,
        \\noeqref) print, and step, a number, wherever in the document the reference stands."""
        group, j = read_group(toks, i + 1)
        if group is None:
            return i + 1
        setting = group_text(group).replace(" ", "")
        if re.search(r"(?:^|,)showonlyrefs(?:=true)?(?:,|$)", setting):
            self._only_referenced = frozenset(_labels_referenced(self.tokens, ("eqref", "refeq", "noeqref")))
        elif re.search(r"(?:^|,)showonlyrefs=false(?:,|$)", setting):
            self._only_referenced = None
        return j

    def listing_options(self, toks, j, close):
        """`\\begin{lstlisting}[caption=…, label=lst:x]`: a captioned listing steps `lstlisting` ("Listing 2")."""
        opt, _ = read_optional(toks, j)
        if not opt:
            return
        options = detokenize(opt, self.text)
        if not re.search(r"(?<![\w])caption\s*=", options):
            return
        self.counters.step("lstlisting")
        number = self.counters.format("lstlisting")
        m = re.search(r"(?<![\w])label\s*=\s*\{?([^,}\]]+)", options)
        if m:
            self.define_label(m.group(1).strip(), f"lst:{number}", number)

    def cmd_captionsetup(self, toks, i, end):
        """`\\captionsetup{type=figure}` makes the next \\caption outside a float a figure's (teaser images)."""
        _, j = read_optional(toks, i + 1)
        group, k = read_group(toks, j)
        if group is None:
            return i + 1
        m = re.search(r"\btype\s*=\s*(\w+)", group_text(group))
        if m:
            self._caption_type = m.group(1)
        return k

    def cmd_caption(self, toks, i, end):
        """A caption outside a float environment: \\captionof{figure}{…}, or \\caption after \\captionsetup{type=…}.
        It steps that float's counter and is the target of the labels that follow it in the enclosing group."""
        j = i + 1
        kind = self._caption_type
        if toks[i].text == "captionof":
            if j < end and toks[j].kind == TEXT and toks[j].text == "*":
                j += 1
            group, j = read_group(toks, j)
            kind = group_text(group) if group else None
        _, j = read_optional(toks, j)
        group, k = read_group(toks, j)
        if group is None or kind not in ("figure", "table"):
            return k if group is not None else i + 1
        self.flush_paragraph()
        self._add_caption(kind, group, toks[i].start)
        self._caption_type = None
        return k

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
        for t in range(a, b):  # a \\label in inline math takes the current target, as anywhere in TeX
            if toks[t].kind == CS and toks[t].text == "label":
                self.cmd_label(toks, t, b)
        latex = detokenize(clean_formula(toks[a:b]), self.text).strip()
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
        # amsmath numbers the empty row a final `\\` opens ("a \\ b \\" prints three numbers); other empty
        # rows print nothing.
        last = len(parsed) - 1
        parsed = [p for k, p in enumerate(parsed)
                  if p["latex"].strip() or p["tag"] is not None or p["label"] or p["ops"]
                  or (k == last > 0 and numbered_env and p["numbered"])]
        read: list[_Statement] = []
        for info in parsed:
            if not read or not _continues_statement(read[-1], info, numbered_env):
                read.append(_Statement())
            read[-1].add(info)
        statements = [statement.rows for statement in read]
        first_index = len(self.equations)
        for stmt in statements:
            numbered_rows = [r for r in stmt if (numbered_env and r["numbered"]) or r["tag"] is not None]
            if len(numbered_rows) <= 1:
                units = [stmt]
            else:
                units = [[r] for r in stmt]
            for unit in units:
                number = None
                for r in unit:
                    number = self._row_number(r, numbered_env) or number
                latex = "".join((" \\\\ " if r.get("own_statement") else " ") * (k > 0) + r["latex"].strip()
                                for k, r in enumerate(unit)).strip()
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
                    if number is not None:
                        self.define_label(lab, eid, number)
                    elif self._last_labelable is not None:  # no number here: \\label takes the enclosing target
                        self.define_label(lab, self._last_labelable, self._label_target_number)
        self._pending_eq_before.extend(range(first_index, len(self.equations)))

    def _row_number(self, row: dict, numbered_env: bool) -> str | None:
        """The number one row prints: its counter commands run first (where they stand, as TeX reads the row),
        then amsmath's own step of `equation` at the end of a numbered row, or its `\\tag`. A row of an
        unnumbered display that steps `equation` itself (`$$ … \\refstepcounter{equation}~(\\theequation) $$`)
        prints the counter by hand."""
        c = self.counters
        stepped = False
        for command, name, amount in row["ops"]:
            if command == "setcounter":
                c.set(name, amount)
            elif command == "addtocounter":
                c.add(name, amount)
            else:
                c.step(name)
                stepped = stepped or name == "equation"
        if row["tag"] is not None:
            if self._only_referenced is not None:
                # mathtools (show_manual_tags off): a labelled tag prints when referenced; an unlabelled one
                # prints nothing yet steps `equation` (its \\stepcounter in \\MT_extended_tagform:n).
                if not row["labels"]:
                    c.step("equation")
                    return None
                if not any(lab in self._only_referenced for lab in row["labels"]):
                    return None
            return self._tag_text(row["tag"])
        if numbered_env and row["numbered"] and (self._only_referenced is None
                                                 or any(lab in self._only_referenced for lab in row["labels"])):
            c.step("equation")
            return c.format("equation")
        if stepped:
            return c.format("equation")
        return None

    def _tag_text(self, group: list[Token]) -> str:
        """What `\\tag{…}` prints: counter formats as their values now, references as the numbers their labels
        got (marked for after the whole document when the label comes later), formatting removed."""
        toks = []
        for tok in group:
            if tok.kind == CS and tok.text.startswith("the") and self.counters.has(tok.text[3:]):
                toks.append(Token(TEXT, self.counters.format(tok.text[3:]), tok.start, tok.end, True))
            else:
                toks.append(tok)
        text = plain_text(toks, self.text, keep_math=True, mark_refs=True).replace("$", "")
        return resolve_known_refs(text, self.label_numbers)

    def _row_info(self, row: list[Token]) -> dict:
        """One row's formula and what numbers it: \\nonumber, \\tag, \\label, counter commands (in order)."""
        original, row = row, clean_formula(row)
        numbered = True
        tag = None
        ops: list[tuple[str, str, int]] = []
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
                    tag = group
                    j = k2
                    continue
            if tok.kind == CS and tok.text in ("eqno", "leqno"):
                # Plain TeX's $$ … \\eqno(5) $$: what follows is the number, printed as written.
                tag = _strip_parentheses(row[j + 1:])
                break
            if tok.kind == CS and tok.text in COUNTER_COMMANDS:
                counter, k = read_group(row, j + 1)
                amount_toks, k2 = (read_group(row, k) if tok.text in ("addtocounter", "setcounter") else ([], k))
                n = len(row)
                amount = self.counter_value(amount_toks) if amount_toks else 1
                if counter is not None and amount is not None:
                    ops.append((tok.text, group_text(counter), amount))
                    j = k2
                    continue
            if tok.kind == CS and tok.text.startswith("the") and self.counters.has(tok.text[3:]):
                # A number printed by hand, "~(\theequation)": the display's number, not part of its formula.
                _drop_hand_number_marks(kept)
                j += 1
                if j < n and row[j].kind == TEXT and row[j].text.startswith(")"):
                    rest = row[j].text[1:]
                    j += 1
                    if rest.strip():
                        kept.append(Token(TEXT, rest, row[j - 1].start + 1, row[j - 1].end, row[j - 1].expanded))
                continue
            kept.append(tok)
            j += 1
        latex = detokenize(kept, self.text)
        latex = collapse(latex)
        start = next((t.start for t in original if t.kind not in (SPACE, PAR)), -1)
        return {"latex": latex, "numbered": numbered, "tag": tag, "ops": ops,
                "label": labels[0] if labels else None,
                "labels": labels, "start": start}

    # -- floats, algorithms, lists ------------------------------------------------------------------
    def float_env(self, toks, j, close, kind):
        saved = (self._last_labelable, self._label_target_number)
        self._float_env(toks, j, close, kind)
        self._last_labelable, self._label_target_number = saved

    def _float_env(self, toks, j, close, kind):
        self.flush_paragraph()
        _, j = read_optional(toks, j)
        state = _FloatState(kind, _table_cells(toks, j, close, self.text) if kind == "table" else ())
        i = j
        while i < close:
            tok = toks[i]
            if tok.kind != CS:
                i += 1
                continue
            name = tok.text
            if name in SUBFLOAT_COMMANDS or name == "subcaption" or (name == "caption" and state.subdepth > 0):
                self._float_subcaption(toks, i, close, state)
                i += 1  # a \\label inside the sub-caption's own text is read as one after it
            elif name == "label" and state.sub_label is not None and (i < state.sub_until or state.subdepth > 0):
                i = self._float_label(toks, i, close, state, sub=True)
            elif name in ("begin", "end"):
                i = self._float_environment(toks, i, close, state)
            elif name in ("caption", "captionof"):
                i = self._float_caption(toks, i, state)
            elif name == "label":
                i = self._float_label(toks, i, close, state, sub=False)
            elif name == "ContinuedFloat":
                state.continued = True
                i += 1
            else:
                if name in ("url", "href"):
                    group, _ = read_group(toks, i + 1)
                    url = "".join(t.text for t in group or [])
                    if CODE_HOSTS.match(url):
                        self.links.append(url)
                i += 1

    def _float_subcaption(self, toks, i, close, state: _FloatState) -> None:
        """A sub-figure's caption prints (a), (b), …; \\ref gives \\thefigure\\thesubfigure ("3a")."""
        c, kind = self.counters, state.kind
        c.step("sub" + kind)
        parent = c.format(kind) if state.last_id is not None or state.continued else c.format_next(kind)
        state.sub_label = (f"{_FLOAT_PREFIX[kind]}:{parent}", parent + c.format("sub" + kind))
        name = toks[i].text
        _, k = read_optional(toks, i + 1)
        _, k = read_optional(toks, k)
        for _ in range(SUBFLOAT_COMMANDS.get(name, 1)):
            _, k = read_group(toks, k)
        state.sub_until = k if name in SUBFLOAT_COMMANDS else _next_end(toks, k, close)

    def _float_environment(self, toks, i, close, state: _FloatState) -> int:
        name, _ = _read_env_name(toks, i + 1)
        if name in SUBFLOAT_ENVS:
            state.subdepth += 1 if toks[i].text == "begin" else -1
        elif toks[i].text == "begin" and (name in ALGORITHM_ENVS or name in FLOAT_ENVS or name in DISPLAY_ENVS):
            # An algorithm (or a table) inside a figure counts and captions itself; a display is numbered.
            return self.cmd_begin(toks, i, close)
        return i + 1

    def _float_caption(self, toks, i, state: _FloatState) -> int:
        if state.subdepth > 0:
            return i + 1
        k = i + 1
        if toks[i].text == "captionof":
            group, k = read_group(toks, k)
            if group is not None:
                state.kind = "table" if group_text(group) == "table" else "figure"
        _, k = read_optional(toks, k)
        group, k2 = read_group(toks, k)
        if group is None:
            return i + 1
        self._add_caption(state.kind, group, toks[i].start, state.cells, step=not state.continued)
        state.last_id = len(self.floats) - 1
        return k2

    def _float_label(self, toks, i, close, state: _FloatState, sub: bool) -> int:
        group, k = read_group(toks, i + 1)
        if group is None:
            return i + 1
        label = group_text(group)
        if sub and state.sub_label is not None:
            self.define_label(label, state.sub_label[0], state.sub_label[1], kind="sub" + state.kind)
        elif state.last_id is not None:
            f = self.floats[state.last_id]
            if f.label is None:
                self.floats[state.last_id] = _replace(f, label=label)
            self.define_label(label, f.id, f.number)
        else:
            # Before the caption, \\label takes what \\@currentlabel holds: the section (TeX resolves it so).
            self.cmd_label(toks, i, close)
        return k

    def _add_caption(self, kind: str, group: list[Token], start: int, cells=(), step: bool = True) -> None:
        """A figure or table caption: steps its counter (not in a continued float, which prints the number of
        the one it continues), becomes the label target, and its text is a caption paragraph (captions define
        symbols too)."""
        if step:
            self.counters.step(kind)
        number = self.counters.format(kind)
        fid = f"{_FLOAT_PREFIX[kind]}:{number}"
        if any(f.id == fid for f in self.floats):
            fid = f"{fid}~{len(self.floats)}"
        caption = plain_text(group, self.text, mark_refs=True)
        self.floats.append(Float(fid, kind, number, caption, None, self.span(start), cells))
        self._last_labelable, self._label_target_number = fid, number
        saved = self._para, self._para_kind
        self._para, self._para_kind = [], "caption"
        self.walk(group, 0, len(group))
        self.flush_paragraph()
        self._para, self._para_kind = saved

    def algorithm_env(self, toks, begin, j, close, bare=False):
        self.flush_paragraph()
        c = self.counters
        caption = ""
        label = None
        number = None
        line_labels: list[tuple[str, int]] = []  # \\label inside a numbered line: a reference prints the line number
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
            text = collapse(detokenize(clean_formula(current), self.text))
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
                    # The float counter steps at \\caption; a \\label inside the caption names the algorithm.
                    finish()
                    c.step("algorithm")
                    number = c.format("algorithm")
                    caption = plain_text(group, self.text, mark_refs=True)
                    inner = next((t for t in range(len(group)) if group[t].kind == CS and group[t].text == "label"),
                                 None)
                    if inner is not None and label is None:
                        label = group_text(read_group(group, inner + 1)[0])
                    i = k2
                    continue
            if tok.kind == CS and tok.text == "label":
                group, k = read_group(toks, i + 1)
                if group is not None:
                    if current is not None and current_numbered:
                        line_labels.append((group_text(group), line_no + 1))
                    elif label is None:
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
        self.algorithms.append(Algorithm(aid, number, caption, label, tuple(lines), self.span(toks[begin].start),
                                         self._current_section_id))
        if label:
            self.define_label(label, aid, number)
        for line_label, line_number in line_labels:
            self.define_label(line_label, aid, str(line_number), kind="line")

    def list_env(self, toks, j, close) -> list[str]:
        items: list[str] = []
        starts = [k for k in range(j, close) if toks[k].kind == CS and toks[k].text == "item"
                  and _depth_ok(toks, j, k)]
        bounds = starts + [close]
        if not starts:
            self.walk(toks, j, close)
            self.flush_paragraph()
            return items
        for a, b in itertools.pairwise(bounds):
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


def _key_values(text: str):
    """`a=1, b = {x}, c` → (a, 1), (b, x), (c, "")."""
    for part in text.split(","):
        key, _, value = part.partition("=")
        if key.strip():
            yield key.strip(), value.strip().strip("{}").strip()


def _strip_parentheses(toks: list[Token]) -> list[Token]:
    """`(5)` → `5` (the parentheses \\eqno users type are the ones \\tag adds)."""
    text_tokens = [t for t in toks if t.kind not in (SPACE, PAR)]
    if len(text_tokens) >= 1 and text_tokens[0].kind == TEXT and text_tokens[0].text.startswith("(") and \
            text_tokens[-1].kind == TEXT and text_tokens[-1].text.endswith(")"):
        first, last = text_tokens[0], text_tokens[-1]
        inner = toks[toks.index(first):toks.index(last) + 1]
        if first is last:
            return [first._replace(text=first.text[1:-1])]
        return [first._replace(text=first.text[1:])] + inner[1:-1] + [last._replace(text=last.text[:-1])]
    return list(toks)


def _next_end(toks, k, close) -> int:
    """Index of the next \\end or \\caption at or after k (where a sub-caption's labels stop)."""
    for t in range(k, close):
        if toks[t].kind == CS and toks[t].text in ("end", "caption", "subcaption"):
            return t
    return close


def _drop_hand_number_marks(kept: list[Token]) -> None:
    """Remove what stands before a hand-printed number: its "(" and the spacing or tie before it."""
    while kept and kept[-1].kind == SPACE:
        kept.pop()
    if kept and kept[-1].kind == TEXT and kept[-1].text.endswith("("):
        last = kept.pop()
        if last.text[:-1]:
            kept.append(Token(TEXT, last.text[:-1], last.start, last.end - 1, last.expanded))
    while kept and (kept[-1].kind in (SPACE, TILDE) or (kept[-1].kind == CS and kept[-1].text in HAND_NUMBER_SPACING)):
        kept.pop()


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
    "counterwithin": _Builder.cmd_numberwithin, "counterwithout": _Builder.cmd_numberwithin,
    "setcounter": _Builder.cmd_counter, "addtocounter": _Builder.cmd_counter,
    "stepcounter": _Builder.cmd_counter, "refstepcounter": _Builder.cmd_counter,
    "newcounter": _Builder.cmd_newcounter, "@addtoreset": _Builder.cmd_addtoreset,
    "appendices": _Builder.cmd_appendix, "captionsetup": _Builder.cmd_captionsetup,
    "frontmatter": _Builder.cmd_matter, "mainmatter": _Builder.cmd_matter, "backmatter": _Builder.cmd_matter,
    "declaretheorem": _Builder.cmd_declaretheorem, "crefname": _Builder.cmd_crefname, "Crefname": _Builder.cmd_crefname, "usepackage": _Builder.cmd_usepackage,
    "caption": _Builder.cmd_caption, "captionof": _Builder.cmd_caption,
    "url": _Builder.cmd_url, "(": _Builder.cmd_inline_paren, "[": _Builder.cmd_display_bracket,
    "abstract": _Builder.cmd_abstract_command, "newtheorem": _Builder.cmd_newtheorem,
    "mathtoolsset": _Builder.cmd_mathtoolsset,
}
ENVIRONMENT_HANDLERS = {
    "empheq": _Builder.env_empheq, "appendices": _Builder.env_appendices, "appendix": _Builder.env_appendices,
    "abstract": _Builder.env_abstract, "subequations": _Builder.env_subequations,
    "restatable": _Builder.env_restatable,
}
ENVIRONMENT_KINDS = (
    (DISPLAY_ENVS, _Builder.env_display), (OPAQUE_ENVS, _Builder.env_opaque), (FLOAT_ENVS, _Builder.env_float),
    (ALGORITHM_ENVS | ALGORITHMIC_ENVS, _Builder.env_algorithm), (LIST_ENVS, _Builder.env_list),
    (TABULAR_ENVS, _Builder.env_skip),
)
for _name in (*NEWCOMMAND_LIKE, *DEF_LIKE):  # only counter formats get here (see macros.is_counter_format)
    COMMAND_HANDLERS[_name] = _Builder.cmd_counter_format
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
                            cells.append(plain_text(clean_formula(cur), text))
                            cur = []
                        else:
                            cur.append(t)
                    cells.append(plain_text(clean_formula(cur), text))
                    if any(cells):
                        rows.append(tuple(cells))
                i = end[1]
                continue
        i += 1
    return tuple(rows)


def clean_link(link: str) -> str:
    """A link as written in a sentence, without the sentence's punctuation after it ("… at github.com/x/y.")."""
    link = link.rstrip(".,;:}'\"")
    if link.endswith(")") and link.count("(") < link.count(")"):
        link = link[:-1]
    return link


def _labels_referenced(toks, commands: tuple[str, ...]) -> set[str]:
    """Every label named by these reference commands anywhere in the tokens (`\\eqref{a}`, `\\noeqref{a,b}`)."""
    found: set[str] = set()
    for i, tok in enumerate(toks):
        if tok.kind == CS and tok.text in commands:
            group, _ = read_group(toks, i + 1)
            found.update(part.strip() for part in group_text(group).split(",") if part.strip())
    return found


def _documentclass(toks) -> tuple[str, frozenset[str]]:
    """The class name and its options (`\\documentclass[compsoc]{IEEEtran}`); article when none is given."""
    for i, tok in enumerate(toks[:5000]):
        if tok.kind == CS and tok.text == "documentclass":
            opt, j = read_optional(toks, i + 1)
            group, _ = read_group(toks, j)
            options = frozenset(o.strip() for o in group_text(opt).split(",")) if opt else frozenset()
            return (group_text(group) if group else "article"), options
    return "article", frozenset()


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
                   diagnostics: list[Diagnostic], macros: dict | None = None) -> Document:
    """The document model of an expanded token list. `macros` (the paper's definitions) give the names
    its `\\autoref`s print (`\\sectionautorefname`)."""
    builder = _Builder(smap.text, smap, tokens, list(diagnostics) + check_braces(tokens, smap))
    builder.build()
    _resolve_forward_tags(builder)
    style = _ref_style(builder, macros or {})
    references = []
    for command, label, start in builder.references:
        target = builder.labels.get(label)
        references.append(Reference(command, label, target, builder.label_numbers.get(label) if target else None,
                                    builder.span(start), text=style.render(command, label)))
    # Headings and captions may cite labels defined later ("Proof of Theorem 3"): resolve them now.
    numbers = builder.label_numbers
    sections = [_replace(sec, title=resolve_refs(sec.title, style)) for sec in builder.sections]
    style.titles.update({sec.label: sec.title for sec in sections if sec.label})
    floats = [_replace(f, caption=resolve_refs(f.caption, style)) for f in builder.floats]
    algorithms = [_replace(a, caption=resolve_refs(a.caption, style)) for a in builder.algorithms]
    paragraphs = [_rendered(p, style) for p in builder.paragraphs]
    intro_items = _contributions(builder)
    title = builder.title
    if title is None:
        begin = next((k for k, t in enumerate(tokens) if t.kind == CS and t.text == "begin"
                      and _env_name_at(tokens, k + 1) == "document"), 0)
        title = title_from_front(tokens, begin, smap.text)
    info = PaperInfo(title, paper.source, paper.arxiv_id, paper.version, paper.main_file, paper.format)
    first: dict[str, str] = {}
    for link in builder.links:  # the same repository written with and without its final slash is one link
        first.setdefault(link.rstrip("/"), link)
    links = tuple(first.values())
    return Document(info, tuple(builder.authors), builder.abstract, tuple(sections),
                    tuple(paragraphs), tuple(builder.equations), tuple(builder.inline_math),
                    tuple(builder.footnotes), tuple(floats), tuple(algorithms),
                    dict(builder.labels), tuple(references), dict(operators), intro_items, links,
                    tuple(builder.diagnostics), sources=dict(smap.files),
                    label_numbers={k: v for k, v in numbers.items() if k in builder.labels}, ref_style=style)


def _ref_style(builder: _Builder, macros: dict) -> RefStyle:
    """How this paper's references print: its labels, and the names its packages and definitions give."""
    autoref = {}
    for name, macro in macros.items():
        if name.endswith("autorefname") and not macro.n_args:
            autoref[name[:-len("autorefname")]] = plain_text(list(macro.body), builder.text)
    options = builder.cref_options
    return RefStyle(numbers=dict(builder.label_numbers), kinds=dict(builder.label_kinds),
                    cref=dict(builder.crefnames), Cref=dict(builder.Crefnames), autoref=autoref,
                    counters={env: counter for env, counter in builder.theorems.items() if counter},
                    capitalise=bool(options & {"capitalise", "capitalize"}), noabbrev="noabbrev" in options)


def _rendered(paragraph: Paragraph, style: RefStyle) -> Paragraph:
    """The paragraph and its sentences with every reference as the PDF prints it."""
    if "ref" not in paragraph.text:
        return paragraph
    sentences = tuple(_replace(s, rendered=style.render_text(s.text)) if "ref" in s.text else s
                      for s in paragraph.sentences)
    return _replace(paragraph, rendered=style.render_text(paragraph.text), sentences=sentences)


def _resolve_forward_tags(builder: _Builder) -> None:
    """`\\tag{\\ref{x} revisited}` before `\\label{x}`: TeX's second run prints the number; so do we."""
    renamed: dict[str, str] = {}
    taken = {eq.id for eq in builder.equations}
    for k, eq in enumerate(builder.equations):
        if eq.number is None or REF_OPEN not in eq.number:
            continue
        number = resolve_refs(eq.number, builder.label_numbers)
        eid = f"eq:{number}"
        if eid in taken:
            eid = f"eq:{number}~{k}"
        taken.add(eid)
        renamed[eq.id] = eid
        builder.equations[k] = _replace(eq, id=eid, number=number)
    if renamed:
        for label, target in builder.labels.items():
            if target in renamed:
                builder.labels[label] = renamed[target]
                builder.label_numbers[label] = builder.equations[
                    next(k for k, e in enumerate(builder.equations) if e.id == renamed[target])].number


def _contributions(builder: _Builder) -> tuple[str, ...]:
    intro_ids = {s.id for s in builder.sections if "introduction" in s.title.lower()}
    for section_id, para_index, items in builder.lists:
        if section_id in intro_ids and items:
            context = " ".join(p.text.lower() for p in builder.paragraphs[max(0, para_index - 2):para_index])
            if "contribution" in context or "summar" in context or "we " in context:
                return tuple(collapse(x) for x in items)
    return ()
