"""The reader: a paper as one self-contained HTML page with hover definitions and per-equation panels.

`render_page(doc, reading, panels)` returns `index.html`; `write_site(...)` writes it with the bundled assets
(KaTeX, reader.js, reader.css) into a directory that works from `file://`, offline.

A paper is untrusted input. Every piece of it reaches the page either HTML-escaped (text, attributes) or as
JSON inside a `<script type="application/json">` block that is never executed (its `<`, `>`, `&` are escaped
too). The page's Content-Security-Policy allows scripts from the bundled files only; KaTeX renders the formulas
in the browser with `trust` limited to the one command papermath inserts itself (`\\htmlData{pm=N}`, which tags a
symbol with the index of its reading in the JSON block).
"""
from __future__ import annotations

import bisect
import functools
import html
import json
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, replace
from importlib import resources
from pathlib import Path
from typing import Any

from ..analysis.reading import EquationReading, PaperReading, ReductionReading, SymbolReading
from ..latex.document import Algorithm, Document, Equation, Paragraph, Section
from ..math import operators as O
from ..math import tables as T
from .jsonout import to_jsonable

CSP = ("default-src 'none'; script-src 'self'; style-src 'self'; font-src 'self'; img-src 'self' data:; "
       "connect-src 'none'; object-src 'none'; base-uri 'none'; form-action 'none'; "
       "require-trusted-types-for 'script'")
"""The page's Content-Security-Policy: nothing but the bundled files; no inline script; no network."""

ASSET_FILES = ("reader.js", "reader.css", "katex/katex.min.js", "katex/katex.min.css", "katex/LICENSE")
"""Bundled files the page loads (plus `katex/fonts/*.woff2`)."""

PANEL_PARTS = ("shapes", "numbers", "code")
"""Optional per-equation panel parts computed by later stages (shape table, small-number steps, code)."""

# Commands removed before KaTeX sees a formula: the page prints equation numbers itself, and spacing or
# page-layout commands have no meaning in a browser. name → number of braced arguments dropped with it.
_DROP_COMMANDS = {"label": 1, "tag": 1, "vspace": 1, "nonumber": 0, "notag": 0, "displaybreak": 0,
                  "pagebreak": 0, "nopagebreak": 0, "allowdisplaybreaks": 0, "intertext": 1,
                  "shortintertext": 1, "addtocounter": 2, "setcounter": 2, "stepcounter": 1,
                  "refstepcounter": 1}
# Font and wrapper commands KaTeX lacks, mapped to ones it has.
_RENAME_COMMANDS = {"mathds": "mathbb", "mathbbm": "mathbb", "bm": "boldsymbol", "ensuremath": "",
                    "textsc": "text", "mathscr": "mathcal", "bbold": "mathbb", "eqref": "text",
                    "ref": "text", "cite": "text", "citep": "text", "citet": "text"}
# KaTeX macros that every page passes (the paper's own definitions are already expanded by the latex stage).
BASE_MACROS = {"\\mathds": "\\mathbb{#1}", "\\ensuremath": "#1", "\\vspace": "", "\\mathbbm": "\\mathbb{#1}",
               "\\bm": "\\boldsymbol{#1}", "\\argmax": "\\operatorname*{arg\\,max}",
               "\\argmin": "\\operatorname*{arg\\,min}", "\\E": "\\mathbb{E}", "\\nicefrac": "{}^{#1}\\!/{}_{#2}",
               "\\Tilde": "\\tilde{#1}", "\\hdots": "\\dots", "\\xspace": "", "\\qed": "\\square",
               "\\hfill": "\\quad", "\\addlinespace": "",
               "\\blackdiamond": "\\blacklozenge"}
# Environments that group rows one under the other without alignment points.
_GATHER_ENVS = {"multline", "multline*", "gather", "gather*"}

_REF_RE = re.compile(r"\\(?:eq|auto|c|C|Eq|fig|sec|tab|name)?ref\s*\{([^{}]*)\}")
_MATH_RE = re.compile(r"(?<!\\)\$\$(.+?)(?<!\\)\$\$|(?<!\\)\$(.+?)(?<!\\)\$|\\\((.+?)\\\)|\\\[(.+?)\\\]", re.S)


@dataclass(frozen=True)
class Panel:
    """What the optional later stages say about one equation (shape table, small-number steps, code)."""

    parts: Mapping[str, Any]
    """part name (one of PANEL_PARTS) → JSON-ready result, or a string saying why it is not available."""


# ---------------------------------------------------------------------------------------------- formulas

def _skip_group(latex: str, i: int) -> int:
    """Index just past the braced group starting at or after `i` (skipping spaces and a `*`); `i` if none."""
    j = i
    while j < len(latex) and latex[j] in " \t\n*":
        j += 1
    if j >= len(latex) or latex[j] != "{":
        return i
    depth = 0
    for k in range(j, len(latex)):
        c = latex[k]
        if c == "\\":
            continue
        if c == "{" and (k == 0 or latex[k - 1] != "\\"):
            depth += 1
        elif c == "}" and latex[k - 1] != "\\":
            depth -= 1
            if depth == 0:
                return k + 1
    return len(latex)


_CMD_RE = re.compile(r"\\([A-Za-z]+)\*?")


def katex_source(latex: str, env: str = "equation") -> str:
    """The formula as KaTeX should see it: labels, tags and layout commands removed, unsupported font
    commands mapped, a row with alignment points (`&`) or line breaks wrapped in `aligned` (`gathered` for
    multline and gather)."""
    return katex_layout(katex_body(latex), env)


_MEMO = 16384
"""Entries kept by each memo of a pure function of text below (a page repeats its formulas, its symbols and its
definition quotes: SISS's page asks for one symbol's key 8,229 times for 630 rows)."""


@functools.lru_cache(maxsize=_MEMO)
def katex_body(latex: str) -> str:
    """The formula with labels, tags and layout commands removed and unsupported font commands mapped."""
    return _katex_body_edits(latex)[0]


_SAME_TREE_RENAMES = frozenset(name for name, new in _RENAME_COMMANDS.items()
                               if new and T.FONTS.get(name) is not None and T.FONTS.get(name) == T.FONTS.get(new))
"""Renames after which papermath's parser reads the same tree (`\\bm` and `\\boldsymbol` are one bold font):
the page tags symbols from the original formula's tree, already parsed, instead of parsing the rewrite again."""


@functools.lru_cache(maxsize=_MEMO)
def _katex_body_edits(latex: str) -> tuple[str, tuple[tuple[int, int], ...] | None]:
    """`katex_body(latex)`, and where the body's offsets stand against the formula's when only renames of
    `_SAME_TREE_RENAMES` changed it: (formula offset, body − formula offset from there on) per rename, the
    body's leading white space cut first; None when anything else changed it (a command dropped, another
    rename, a line break cut in half)."""
    out: list[str] = []
    edits: list[tuple[int, int]] | None = []
    shift = 0
    i = 0
    while True:
        m = _CMD_RE.search(latex, i)
        if m is None:
            out.append(latex[i:])
            break
        out.append(latex[i:m.start()])
        name = m.group(1)
        if name in _DROP_COMMANDS:
            j = m.end()
            for _ in range(_DROP_COMMANDS[name]):
                j = _skip_group(latex, j)
            i = j
            edits = None
        elif name in _RENAME_COMMANDS:
            new = _RENAME_COMMANDS[name]
            out.append("\\" + new if new else "")
            i = m.end()
            if edits is not None and name in _SAME_TREE_RENAMES:
                shift += len(new) + 1 - len(m.group(0))
                edits.append((m.end(), shift))
            else:
                edits = None
        else:
            out.append(m.group(0))
            i = m.end()
    joined = "".join(out)
    body = joined.strip()
    # A lone trailing backslash (a line break cut in half) is not a command.
    if body.endswith("\\") and (len(body) - len(body.rstrip("\\"))) % 2 == 1:
        body = body[:-1].rstrip()
        edits = None
    if edits is None or body == latex:
        return body, None
    lead = len(joined) - len(joined.lstrip())
    return body, tuple((at, delta - lead) for at, delta in [(0, 0)] + edits)


@functools.lru_cache(maxsize=_MEMO)
def katex_layout(body: str, env: str = "equation") -> str:
    """A formula body wrapped in `aligned` when it has top-level `&` or `\\\\` (`gathered` for multline)."""
    return _laid_out(body, env, *_top_level_layout_of(body))


def _laid_out(body: str, env: str, amps: bool, breaks: bool) -> str:
    """`katex_layout` of `body` given its top-level `&` and `\\\\` (a body with its symbols tagged has those of
    the untagged body: a tagged symbol holds neither)."""
    if env in _GATHER_ENVS and (breaks or amps):
        body = body.replace("&", " ")
        return "\\begin{gathered}" + body + "\\end{gathered}"
    if amps or breaks:
        return "\\begin{aligned}" + body + "\\end{aligned}"
    return body


@functools.lru_cache(maxsize=_MEMO)
def _top_level_layout_of(body: str) -> tuple[bool, bool]:
    return _top_level_layout(body)


def _top_level_layout(latex: str) -> tuple[bool, bool]:
    """Whether the formula has `&` or `\\\\` outside braces and outside nested environments."""
    depth = 0
    env_depth = 0
    amps = breaks = False
    i = 0
    n = len(latex)
    while i < n:
        c = latex[i]
        if c == "\\":
            if latex.startswith("\\begin", i):
                env_depth += 1
                i += 6
                continue
            if latex.startswith("\\end", i):
                env_depth = max(env_depth - 1, 0)
                i += 4
                continue
            if i + 1 < n and latex[i + 1] == "\\":
                if depth == 0 and env_depth == 0:
                    breaks = True
                i += 2
                continue
            i += 2
            continue
        if c == "{":
            depth += 1
        elif c == "}":
            depth = max(depth - 1, 0)
        elif c == "&" and depth == 0 and env_depth == 0:
            amps = True
        i += 1
    return amps, breaks


def katex_macros(doc: Document) -> dict[str, str]:
    """KaTeX's `macros` option for this paper: the shims plus the paper's `\\DeclareMathOperator`s."""
    macros = dict(BASE_MACROS)
    for command, text in doc.operators.items():
        name = command.lstrip("\\")
        if re.fullmatch(r"[A-Za-z]+", name) and re.fullmatch(r"[A-Za-z0-9 ,.\-]+", text or ""):
            macros["\\" + name] = "\\operatorname{" + text + "}"
    return macros


@functools.lru_cache(maxsize=_MEMO)
def norm_symbol(latex: str) -> str:
    """A key that two spellings of one symbol share: no spaces, no braces around one-character scripts."""
    s = re.sub(r"\s+", "", latex)
    s = re.sub(r"([_^])\{([A-Za-z0-9])\}", r"\1\2", s)
    s = re.sub(r"^\{(.*)\}$", r"\1", s)
    return s


class SymbolIndex:
    """Symbol readings numbered for the page: the `N` in `\\htmlData{pm=N}` indexes `entries`."""

    def __init__(self, defined_by: Mapping[str, tuple[str, str | None]] | None = None) -> None:
        self.entries: list[dict[str, Any]] = []
        self._by_id: dict[str, int] = {}
        self._defined_by = dict(defined_by or {})

    def add(self, sym: SymbolReading, equation: EquationReading) -> int:
        if sym.id in self._by_id:
            return self._by_id[sym.id]
        entry = to_jsonable(sym)
        entry["equation"] = equation.id
        entry["equation_number"] = equation.number
        undefined = {norm_symbol(u) for u in equation.undefined}
        entry["undefined"] = sym.definition is None and bool({norm_symbol(sym.latex), norm_symbol(sym.symbol)}
                                                             & undefined)
        if sym.definition is not None:
            entry["quote_parts"] = prose_parts(sym.definition.quote)
        else:
            by = self._defined_by.get(norm_symbol(sym.symbol)) or self._defined_by.get(norm_symbol(sym.latex))
            if by is not None and by[0] != equation.id:
                entry["defined_by"], entry["defined_by_number"] = by
        entry["status"] = symbol_status(entry)
        self._by_id[sym.id] = len(self.entries)
        self.entries.append(entry)
        return self._by_id[sym.id]

    def add_bound(self, variable: str, reduction: ReductionReading, equation: EquationReading,
                  row: SymbolReading | None = None) -> int:
        """A variable a sum, max or expectation binds: not a symbol of the paper, but worth a hover (with the
        reading's own row for it, where the reading has one: the range, and the sentence that says more)."""
        symbol_id = f"{equation.id}/bound:{variable}"
        if symbol_id in self._by_id:
            return self._by_id[symbol_id]
        sym = SymbolReading(symbol_id, variable, variable, (), "index", "index", f"bound by {reduction.op}", None,
                            None, None, None) if row is None else replace(row, id=symbol_id)
        entry = to_jsonable(sym)
        entry.update(equation=equation.id, equation_number=equation.number, bound=reduction_head(reduction),
                     status="bound")
        self._by_id[symbol_id] = len(self.entries)
        self.entries.append(entry)
        return self._by_id[symbol_id]

    def index_of(self, symbol_id: str) -> int | None:
        return self._by_id.get(symbol_id)


def symbol_status(entry: Mapping[str, Any]) -> str:
    """How the page marks a symbol: defined (a quote), bound, undefined (the reading says the paper never
    defines it), conventional (standard notation), equation (defined by another equation of the paper),
    here (the quantity this equation defines), or unquoted (no defining sentence found)."""
    if entry.get("bound"):
        return "bound"
    if entry.get("definition"):
        return "defined"
    if entry.get("undefined"):
        return "undefined"
    if entry.get("conventional"):
        return "conventional"
    if entry.get("defined_by"):
        return "equation"
    if entry.get("role") == "defined here":
        return "here"
    return "unquoted"


def defined_by_map(reading: PaperReading | None) -> dict[str, tuple[str, str | None]]:
    """Symbol → (id, number) of the first equation that defines it (its left-hand side)."""
    found: dict[str, tuple[str, str | None]] = {}
    for eq in reading.equations if reading is not None else ():
        for symbol in eq.defines:
            found.setdefault(norm_symbol(symbol), (eq.id, eq.number))
    return found


Lookup = Callable[[str, "str | None"], "int | None"]
"""(normalized full latex, normalized base symbol or None) → entry index, or None."""


def lookup_for(entries: Iterable[tuple[SymbolReading, int]]) -> Lookup:
    """A lookup that matches a written symbol to a reading: by its full form first (`s_{i,t}`), then by the
    symbol without indices (`x_j` is the same `x` as `x_i`)."""
    by_latex: dict[str, int] = {}
    by_symbol: dict[str, int] = {}
    for sym, index in entries:
        by_latex.setdefault(norm_symbol(sym.latex), index)
        by_symbol.setdefault(norm_symbol(sym.symbol), index)

    def lookup(full: str, base: str | None = None) -> int | None:
        for key in (full, base):
            if key is None:
                continue
            if key in by_latex:
                return by_latex[key]
            if key in by_symbol:
                return by_symbol[key]
        return None
    return lookup


def _balanced(text: str) -> bool:
    depth = 0
    i = 0
    while i < len(text):
        c = text[i]
        if c == "\\":
            i += 2
            continue
        if c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
            if depth < 0:
                return False
        i += 1
    return depth == 0


def _wrappable(text: str) -> bool:
    return (bool(text.strip()) and _balanced(text) and "&" not in text and "\\\\" not in text
            and "\\begin" not in text and "\\end" not in text and "\\left" not in text and "\\right" not in text
            and "%" not in text)


@functools.lru_cache(maxsize=8192)
def _parsed(latex: str):
    """The formula's syntax tree (None when it does not parse); papers repeat formulas, so parse each once."""
    from ..math import parse
    try:
        return parse(latex).tree
    except Exception:  # noqa: BLE001 - a formula the parser rejects is rendered untagged
        return None


def _body_tree(body: str, source: str | None) -> tuple[Any, Callable[[int], int]]:
    """The syntax tree of the KaTeX body `body` of the formula `source`, and the map from the tree's offsets to the
    body's. When the body only renames commands the parser reads alike (`_katex_body_edits`), the tree is the
    formula's own (parsed once, as the reading parsed it) with its offsets moved by the renames; else the body's."""
    edits = _katex_body_edits(source)[1] if source is not None and katex_body(source) == body else None
    if edits is None:
        return _parsed(body), _same_offset
    starts = [at for at, _ in edits]

    def moved(offset: int) -> int:
        return offset + edits[bisect.bisect_right(starts, offset) - 1][1]
    return _parsed(source), moved


def _same_offset(offset: int) -> int:
    return offset


def symbol_spans(latex: str, lookup: Lookup, source: str | None = None) -> list[tuple[int, int, int]]:
    """Non-overlapping (start, end, entry) spans of the symbols written in `latex`, outermost first wins.
    `source`: the formula `latex` is the KaTeX body of (`katex_body(source) == latex`), whose tree serves when
    the body only renames its font commands.

    Uses papermath's formula parser for exact spans; a formula it cannot parse gets no tags (it still renders,
    and its symbols stay hoverable in the panel's table and the glossary)."""
    from ..math import ast
    from ..math.printer import to_latex
    tree, at = _body_tree(latex, source)
    if tree is None:
        return []
    spans: list[tuple[int, int, int]] = []

    def visit(node) -> None:
        if isinstance(node, (ast.Symbol, ast.Indexed)):
            start, end = at(node.span[0]), at(node.span[1])
            text = latex[start:end]
            base = node.base if isinstance(node, ast.Indexed) else node
            # The whole symbol before its base (`\\mathcal{D}_c` before `\\mathcal{D}`); each spelled as written
            # first, then in the printer's normal form (computed only when needed: printing is the slow part).
            hit = None
            for node_, written in ((node, text), (base, latex[at(base.span[0]):at(base.span[1])])):
                hit = lookup(norm_symbol(written), None)
                if hit is None:
                    try:
                        hit = lookup(norm_symbol(to_latex(node_)), None)
                    except Exception:  # noqa: BLE001 - a node the printer cannot print is simply not tagged
                        hit = None
                if hit is not None:
                    break
            if hit is not None and end > start and _wrappable(text):
                spans.append((start, end, hit))
                return
        if isinstance(node, ast.Text):
            return
        for child in ast.children(node):
            visit(child)

    visit(tree)
    spans.sort()
    kept: list[tuple[int, int, int]] = []
    last_end = -1
    for start, end, hit in spans:
        if start >= last_end:
            kept.append((start, end, hit))
            last_end = end
    return kept


_LARGE_OPERATORS = {"\\sum", "\\prod", "\\coprod", "\\int", "\\iint", "\\iiint", "\\oint", "\\bigcup",
                    "\\bigcap", "\\bigoplus", "\\bigotimes", "\\bigvee", "\\bigwedge", "\\lim", "\\max",
                    "\\min", "\\sup", "\\inf", "\\argmax", "\\argmin", "\\limsup", "\\liminf"}


def wrap_symbols(latex: str, lookup: Lookup, source: str | None = None) -> tuple[str, list[int]]:
    """The formula with each known symbol wrapped as `\\htmlData{pm=N}{…}`, and the entries used (`source`: as
    `symbol_spans` takes it)."""
    spans = symbol_spans(latex, lookup, source)
    out: list[str] = []
    pos = 0
    used: list[int] = []
    for start, end, hit in spans:
        text = latex[start:end]
        if text.strip() in _LARGE_OPERATORS:
            continue  # a group would move the operator's limits beside it
        out.append(latex[pos:start])
        tagged = "\\htmlData{pm=%d}{%s}" % (hit, text)
        # A script written without braces (`x_t`) needs them once its argument is a command with arguments.
        if latex[:start].rstrip().endswith(("_", "^")):
            tagged = "{" + tagged + "}"
        out.append(tagged)
        used.append(hit)
        pos = end
    out.append(latex[pos:])
    return "".join(out), used


# ---------------------------------------------------------------------------------------------- HTML pieces

def esc(text: Any) -> str:
    """HTML-escaped text (quotes too, so it is safe in attributes)."""
    return html.escape("" if text is None else str(text), quote=True)


def math_html(latex: str, lookup: Lookup | None, *, display: bool = False, env: str = "equation") -> str:
    """A formula for the page: the escaped source as text (shown if KaTeX fails) and, in data attributes,
    the KaTeX input with symbols tagged and the untagged fallback."""
    if lookup is None:
        return _untagged_math_html(latex, display, env)
    return _math_html(latex, lookup, display, env)


@functools.lru_cache(maxsize=_MEMO)
def _untagged_math_html(latex: str, display: bool, env: str) -> str:
    return _math_html(latex, None, display, env)


def _math_html(latex: str, lookup: Lookup | None, display: bool, env: str) -> str:
    env = env if display else "inline"
    body = katex_body(latex)
    plain = katex_layout(body, env)
    tagged = plain
    if lookup is not None:
        tagged = _laid_out(wrap_symbols(body, lookup, latex)[0], env, *_top_level_layout_of(body))
    # Always a span (a display is a block by its class): a div would end the paragraph it stands in.
    cls = "pm-math pm-display-math" if display else "pm-math"
    tagged_attr = f' data-tex="{esc(tagged)}"' if tagged != plain else ""
    return f'<span class="{cls}"{tagged_attr} data-plain="{esc(plain)}">{esc(latex)}</span>'


@functools.lru_cache(maxsize=_MEMO)
def _plain_text(segment: str) -> str:
    from ..latex.plain import plain_text
    from ..latex.tokens import tokenize
    try:
        text = plain_text(tokenize(segment), segment, keep_math=False)
    except Exception:  # noqa: BLE001 - odd LaTeX in running text is shown as written, never dropped
        text = re.sub(r"\s+", " ", segment).strip()
    text = re.sub(r" ([.,;:)])", r"\1", text)
    if text and segment[:1].isspace():
        text = " " + text
    if text and segment[-1:].isspace() or (segment.endswith("~") and text):
        text = text + " "
    return text


def prose_html(text: str, lookup: Lookup | None, doc: Document | None = None) -> str:
    """Running text (LaTeX with math) as HTML: text escaped, `\\ref`s linked, inline math rendered."""
    out: list[str] = []
    pos = 0
    for m in _MATH_RE.finditer(text):
        out.append(_text_html(text[pos:m.start()], doc))
        inner = next(g for g in m.groups() if g is not None)
        display = m.group(1) is not None or m.group(4) is not None
        out.append(math_html(inner, lookup, display=False) if not display
                   else math_html(inner, lookup, display=True))
        pos = m.end()
    out.append(_text_html(text[pos:], doc))
    return "".join(out)


def prose_parts(text: str) -> list[list[str]]:
    """Running text split for the browser: `["text", plain text]` and `["math", latex]` pieces."""
    return [list(part) for part in _prose_parts(text)]


@functools.lru_cache(maxsize=_MEMO)
def _prose_parts(text: str) -> tuple[tuple[str, str], ...]:
    parts: list[tuple[str, str]] = []
    pos = 0
    for m in _MATH_RE.finditer(text):
        if m.start() > pos:
            parts.append(("text", _plain_text(_REF_RE.sub("??", text[pos:m.start()]))))
        parts.append(("math", katex_source(next(g for g in m.groups() if g is not None), "inline")))
        pos = m.end()
    if pos < len(text):
        parts.append(("text", _plain_text(_REF_RE.sub("??", text[pos:]))))
    return tuple(p for p in parts if p[1])


def _text_html(segment: str, doc: Document | None) -> str:
    out: list[str] = []
    pos = 0
    for m in _REF_RE.finditer(segment):
        out.append(esc(_plain_text(segment[pos:m.start()])))
        label = m.group(1).strip()
        target = doc.labels.get(label) if doc is not None else None
        number = _number_of(doc, target) if target else None
        shown = number or "?"
        if m.group(0).startswith("\\eqref") and number:
            shown = f"({number})"
        printed = _printed_reference(doc, m.group(0))
        if printed and printed != "??":
            shown = printed
        if target:
            out.append(f'<a class="pm-ref" href="#{esc(target)}" data-ref="{esc(target)}">{esc(shown)}</a>')
        else:
            out.append(f'<span class="pm-ref pm-unresolved" title="{esc(label)}">{esc(shown)}</span>')
        pos = m.end()
    out.append(esc(_plain_text(segment[pos:])))
    return "".join(out)


def _printed_reference(doc: Document | None, command: str) -> str | None:
    """What the PDF prints for one `\\ref`-like command (`Eq. (2)`, `Section 3.1`), when the document knows."""
    render = getattr(doc, "render_references", None)
    if render is None:
        return None
    try:
        printed = render(command)
    except Exception:  # noqa: BLE001 - a reference style that cannot print this one falls back to the number
        return None
    return printed.strip() if printed and printed != command else None


def _number_of(doc: Document | None, target: str) -> str | None:
    return doc.number_of(target) if doc is not None else None


_HEADING_TAG = {0: "h2", 1: "h2", 2: "h3", 3: "h4", 4: "h5", 5: "h6"}


def title_html(title: str | None) -> str:
    """A heading's title: text escaped, `$…$` maths rendered (`E $\\beta$ Ablation` shows a β)."""
    if not title:
        return ""
    return prose_html(title, None, None) if "$" in title or "\\(" in title else esc(title)


def section_html(sec: Section) -> str:
    tag = _HEADING_TAG.get(sec.level, "h6")
    number = f'<span class="pm-secnum">{esc(sec.number)}</span> ' if sec.number else ""
    return (f'<{tag} class="pm-section" id="{esc(sec.id)}">{number}{title_html(sec.title)}'
            f'<a class="pm-anchor" href="#{esc(sec.id)}" aria-label="link to this section">#</a></{tag}>')


def _symbol_cell(entry: dict[str, Any]) -> str:
    return math_html(entry["latex"], None)


def _shape_text(entry: dict[str, Any]) -> str:
    shape = entry.get("shape")
    if shape is None:
        return "—"
    if not shape:
        return "scalar"
    return " × ".join(shape)


def _shape_html(entry: dict[str, Any]) -> str:
    shape = entry.get("shape")
    if not shape:
        return esc(_shape_text(entry))
    return math_html(" \\times ".join(shape), None)


def _definition_html(entry: dict[str, Any], lookup: Lookup | None, doc: Document | None) -> str:
    definition = entry.get("definition")
    status = entry.get("status") or symbol_status(entry)
    if definition:
        where = _where(definition)
        return (f'<q class="pm-quote">{prose_html(definition["quote"], lookup, doc)}</q> '
                f'<span class="pm-where">{where}</span>')
    if status == "undefined":
        return '<span class="pm-undef-note">not defined in the paper — do not guess</span>'
    if status == "conventional":
        return ('<span class="pm-conventional-note">not defined in the paper; standard notation</span> '
                f'<span class="pm-conventional">conventional meaning (not a definition): '
                f'{esc(entry["conventional"])}</span>')
    if status == "equation":
        label = f'({entry["defined_by_number"]})' if entry.get("defined_by_number") else entry["defined_by"]
        return (f'<span class="pm-equation-note">defined by equation '
                f'<a href="#{esc(entry["defined_by"])}">{esc(label)}</a></span>')
    if status == "here":
        return '<span class="pm-here-note">what this equation defines</span>'
    return '<span class="pm-unquoted-note">no defining sentence found in the paper</span>'


_ROW_CLASS = {"undefined": ' class="pm-undef-row"', "conventional": ' class="pm-conventional-row"',
              "unquoted": ' class="pm-unquoted-row"'}


def _where(definition: Mapping[str, Any]) -> str:
    label = f'{esc(definition.get("file"))}:{esc(definition.get("line"))}'
    section = definition.get("section")
    if section:
        label = f"§{esc(section)}, " + label
    paragraph = definition.get("paragraph")
    if paragraph:
        return f'<a class="pm-def-link" href="#{esc(paragraph)}">{label}</a>'
    return label


def panel_html(reading: EquationReading, entries: list[dict[str, Any]], index: SymbolIndex,
               lookup: Lookup, panel: Panel | None, doc: Document | None) -> str:
    """The panel under a display equation: kind, symbols, reductions, shapes, small numbers, code."""
    undefined = len(reading.undefined)
    summary = (f'<span class="pm-kind">{esc(reading.kind)}</span> · {len(reading.symbols)} symbols'
               + (f' · <span class="pm-undef-count">{undefined} undefined</span>' if undefined else ""))
    rows = []
    for sym in reading.symbols:
        i = index.index_of(sym.id)
        entry = entries[i] if i is not None else to_jsonable(sym)
        cls = _ROW_CLASS.get(entry.get("status") or symbol_status(entry), "")
        rows.append(f'<tr{cls} id="{esc(sym.id)}"><td>{_symbol_cell(entry)}</td><td>{esc(sym.role)}</td>'
                    f'<td>{_shape_html(entry)}</td><td>{_definition_html(entry, lookup, doc)}</td></tr>')
    symbols = ('<table class="pm-table"><thead><tr><th>symbol</th><th>role</th><th>shape</th>'
               '<th>meaning (quoted from the paper)</th></tr></thead><tbody>' + "".join(rows)
               + "</tbody></table>") if rows else "<p>No symbols found.</p>"
    red_rows = []
    for red in reading.reductions:
        limits = r" \ldots ".join(x for x in (red.lower, red.upper) if x)
        extra = [math_html(red.condition, None)] if red.condition else []
        if red.distribution:
            extra.append("sampled from " + math_html(red.distribution, None))
        red_rows.append(f"<tr><td>{math_html(reduction_head(red), None)}</td><td>{esc(red.op)}</td>"
                        f"<td>{_maybe_math(', '.join(red.over))}</td><td>{_maybe_math(limits)}</td>"
                        f"<td>{'; '.join(extra) or '—'}</td></tr>")
    reductions = ('<table class="pm-table"><thead><tr><th>reduction</th><th>op</th><th>runs over</th>'
                  '<th>limits</th><th>condition</th></tr></thead><tbody>' + "".join(red_rows)
                  + "</tbody></table>") if red_rows else "<p>No sums, means or other reductions.</p>"
    parts = [
        f'<p class="pm-kind-line">Kind: <strong>{esc(reading.kind)}</strong>'
        + (f' <span class="pm-cue">(cue: {esc(reading.kind_cue)})</span>' if reading.kind_cue else "") + "</p>",
        "<h4>Symbols</h4>", symbols,
        "<h4>Reductions</h4>", reductions,
    ]
    if reading.undefined:
        parts.append('<p class="pm-undef-list">Not defined in the paper (do not guess): '
                     + ", ".join(math_html(u, None) for u in reading.undefined) + "</p>")
    if reading.warnings:
        parts.append('<ul class="pm-warnings">' + "".join(f"<li>{esc(w)}</li>" for w in reading.warnings)
                     + "</ul>")
    titles = {"shapes": "Shapes", "numbers": "Small numbers, step by step", "code": "Code"}
    for part in PANEL_PARTS:
        parts.append(f"<h4>{titles[part]}</h4>")
        value = panel.parts.get(part) if panel is not None else None
        parts.append(_part_html(part, value))
    return (f'<details class="pm-panel" data-eq="{esc(reading.id)}"><summary>{summary}</summary>'
            + "".join(parts) + "</details>")


_REDUCTION_OPS = O.strings(O.REDUCTION, "html")
"""Reduction → the LaTeX head its panel row shows, from the operator spec (`papermath.math.operators`)."""


def _maybe_math(latex: str) -> str:
    return math_html(latex, None) if latex else "—"


def reduction_head(red: ReductionReading) -> str:
    """The operator with what it runs over (`\\sum_{j=1}^{N_r}`), for the panel: the whole reduction can be
    long, and the reading may have shortened it."""
    op = _REDUCTION_OPS.get(red.op, "\\operatorname{%s}" % re.sub(r"[^A-Za-z]", "", red.op or "op"))
    if red.distribution:
        under = ", ".join(red.over) + " \\sim " + red.distribution if red.over else red.distribution
    elif red.lower is not None:
        under = (", ".join(red.over) + " = " if red.over else "") + red.lower
    elif red.condition:
        under = red.condition
    else:
        under = ", ".join(red.over)
    head = op + ("_{" + under + "}" if under else "")
    if red.upper is not None:
        head += "^{" + red.upper + "}"
    return head if _balanced(head) else op


_CLI_HINTS: list[tuple[re.Pattern[str], Any]] = [
    (re.compile(r"\s*\((?:give|override with|set it with|or give)\b(?:[^()']|'[^']*')*?--[a-z](?:[^()']|'[^']*')*\)"),
     ""),
    (re.compile(r"[;:,]?\s*(?:give|set) (?:one|it|them|a value)? ?with --[a-z]+(?:\s+'[^']*'|\s+\S+)?"), ""),
    (re.compile(r"\s*\(?or a function with --fn\)?"), ""),
    (re.compile(r"--set\s+'([^'=]+)=[^']*'"), r"a value for \1"),
    (re.compile(r"--shape\s+'([^'=]+)=[^']*'"), r"a shape for \1"),
    (re.compile(r"--(set|shape|fn|dim|scale)\b"), lambda m: {"set": "a value", "shape": "a shape", "fn": "a function",
                                                            "dim": "a size", "scale": "a scale"}[m.group(1)]),
]


def page_text(text: str) -> str:
    """Text written for the command line, reworded for the page: hints to pass an option are dropped (the
    reader has no options), a leftover option name becomes what it gives ("a value", "a shape")."""
    for pattern, replacement in _CLI_HINTS:
        text = pattern.sub(replacement, text)
    return re.sub(r"\s{2,}", " ", text).strip()


def _part_html(part: str, value: Any) -> str:
    """A panel part: None (stage missing), a string (why there is nothing), or a dict with `tables`
    (columns, rows, `math`: indices of LaTeX columns, optional title), `notes` and `code` (name → source)."""
    if value is None:
        return f'<p class="pm-na">Not available in this version of papermath ({esc(part)}).</p>'
    if isinstance(value, str):
        return f'<p class="pm-na">{esc(page_text(value))}</p>'
    if not isinstance(value, Mapping):
        return f'<pre class="pm-json">{esc(json.dumps(value, ensure_ascii=False, indent=2))}</pre>'
    out: list[str] = []
    for table in value.get("tables", ()):
        math_columns = set(table.get("math", ()))
        if table.get("title"):
            out.append(f'<p class="pm-table-title">{esc(table["title"])}</p>')
        head = "".join(f"<th>{esc(c)}</th>" for c in table.get("columns", ()))
        rows = []
        for row in table.get("rows", ()):
            cells = []
            for i, cell in enumerate(row):
                text = _cell(cell)
                if i not in math_columns:
                    text = page_text(text) if "--" in text else text
                if i in math_columns and text:
                    cells.append(f"<td>{math_html(text, None)}</td>")
                elif "\n" in text:
                    cells.append(f'<td><pre class="pm-cell">{esc(text)}</pre></td>')
                else:
                    cells.append(f"<td>{esc(text)}</td>")
            rows.append("<tr>" + "".join(cells) + "</tr>")
        out.append(f'<table class="pm-table"><thead><tr>{head}</tr></thead><tbody>{"".join(rows)}</tbody></table>')
    notes = value.get("notes") or ()
    if notes:
        out.append('<ul class="pm-notes">' + "".join(f"<li>{esc(page_text(n))}</li>" for n in notes) + "</ul>")
    for name, code in (value.get("code") or {}).items():
        if isinstance(code, str) and code.strip():
            out.append(_code_block(code, str(name)))
    return "".join(out) or f'<p class="pm-na">Nothing to show ({esc(part)}).</p>'


def _cell(value: Any) -> str:
    if isinstance(value, (list, tuple)):
        return " × ".join(str(v) for v in value) if value else "scalar"
    if isinstance(value, Mapping):
        return json.dumps(value, ensure_ascii=False)
    return "" if value is None else str(value)


def _code_block(code: str, name: str) -> str:
    return (f'<div class="pm-code"><div class="pm-code-head"><span>{esc(name)}</span>'
            f'<button type="button" class="pm-copy">Copy</button></div>'
            f'<pre><code>{esc(code)}</code></pre></div>')


def equation_html(eq: Equation, reading: EquationReading | None, entries: list[dict[str, Any]],
                  index: SymbolIndex, panel: Panel | None,
                  doc: Document | None) -> str:
    """A display equation: anchor with its stable id, the formula, its printed number, and its panel."""
    lookup = None
    if reading is not None:
        binders = {norm_symbol(v): red for red in reading.reductions for v in red.over}
        pairs = [(s, index.add_bound(s.latex, binders[norm_symbol(s.latex)], reading, s)
                  if s.bound_by is not None and norm_symbol(s.latex) in binders else index.add(s, reading))
                 for s in reading.symbols]
        known = {norm_symbol(s.latex) for s in reading.symbols} | {norm_symbol(s.symbol) for s in reading.symbols}
        for red in reading.reductions:
            for variable in red.over:
                if norm_symbol(variable) not in known:
                    i = index.add_bound(variable, red, reading)
                    pairs.append((SymbolReading("", variable, variable, (), "index", "index", None, None, None,
                                                None, None), i))
        lookup = lookup_for(pairs)
    number = f'<span class="pm-eqnum">({esc(eq.number)})</span>' if eq.number else ""
    body = math_html(eq.latex, lookup, display=True, env=eq.env)
    panel_part = ""
    if reading is not None and lookup is not None:
        panel_part = panel_html(reading, entries, index, lookup, panel, doc)
    else:
        panel_part = ('<details class="pm-panel"><summary>reading not available</summary>'
                      '<p class="pm-na">papermath could not read this equation (see the diagnostics).</p>'
                      "</details>")
    return (f'<div class="pm-equation" id="{esc(eq.id)}" tabindex="-1" data-number="{esc(eq.number or "")}">'
            f'<div class="pm-eqrow">{body}{number}'
            f'<button type="button" class="pm-copy-tex" data-latex="{esc(eq.latex)}" '
            f'title="copy this equation\'s LaTeX" aria-label="copy the LaTeX of equation {esc(eq.number or eq.id)}">'
            f'TeX</button>'
            f'<a class="pm-anchor" href="#{esc(eq.id)}" aria-label="link to this equation">#</a></div>'
            f"{panel_part}</div>")


def glossary_html(glossary: list[tuple[int, list[str]]], entries: list[dict[str, Any]],
                  lookup: Lookup | None, doc: Document | None) -> str:
    """All symbols of the paper, one row per distinct symbol, with the equations that use it."""
    rows = []
    for i, uses in glossary:
        entry = entries[i]
        cls = _ROW_CLASS.get(entry.get("status") or symbol_status(entry), "")
        links = ", ".join(f'<a href="#{esc(u)}">{esc(_eq_label(u, doc))}</a>' for u in uses)
        rows.append(f'<tr{cls} data-search="{esc(entry["latex"] + " " + _quote_of(entry))}">'
                    f"<td>{math_html(entry['latex'], None)}</td><td>{esc(entry.get('role'))}</td>"
                    f"<td>{_shape_html(entry)}</td><td>{_definition_html(entry, lookup, doc)}</td>"
                    f"<td>{links}</td></tr>")
    return ('<section id="glossary" class="pm-glossary"><h2>Glossary of symbols</h2>'
            '<table class="pm-table"><thead><tr><th>symbol</th><th>role</th><th>shape</th>'
            '<th>meaning (quoted from the paper)</th><th>used in</th></tr></thead><tbody>'
            + "".join(rows) + "</tbody></table></section>")


def _quote_of(entry: Mapping[str, Any]) -> str:
    definition = entry.get("definition") or {}
    return definition.get("quote") or ""


def _eq_label(eq_id: str, doc: Document | None) -> str:
    if doc is not None:
        eq = doc.equation(eq_id)
        if eq is not None and eq.number:
            return f"({eq.number})"
    return eq_id


# ---------------------------------------------------------------------------------------------- the page

def _json_block(data: Any) -> str:
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    text = (text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
            .replace("\u2028", "\\u2028").replace("\u2029", "\\u2029"))
    return f'<script type="application/json" id="pm-data">{text}</script>'


def _flow(doc: Document) -> list[tuple[str, Any]]:
    """Sections, paragraphs and display equations in reading order."""
    section_order = {s.id: i for i, s in enumerate(doc.sections)}
    after: dict[str | None, list[Equation]] = {}
    for eq in doc.equations:
        after.setdefault(eq.paragraph_before, []).append(eq)
    items: list[tuple[str, Any]] = []
    next_section = 0

    def sections_up_to(section_id: str | None) -> None:
        nonlocal next_section
        if section_id is None or section_id not in section_order:
            return
        target = section_order[section_id]
        while next_section <= target:
            items.append(("section", doc.sections[next_section]))
            next_section += 1

    orphans = [eq for eq in after.pop(None, [])]
    boxes = _algorithms_after(doc)
    for paragraph in doc.paragraphs:
        if paragraph.kind == "abstract":
            continue
        sections_up_to(paragraph.section)
        while orphans and _section_index(orphans[0], section_order) <= section_order.get(paragraph.section or "", -1):
            items.append(("equation", orphans.pop(0)))
        items.append(("paragraph", paragraph))
        for eq in after.pop(paragraph.id, []):
            sections_up_to(eq.section_id)
            items.append(("equation", eq))
        for box in boxes.pop(paragraph.id, []):
            items.append(("algorithm", box))
    for eq in orphans + [e for rest in after.values() for e in rest]:
        items.append(("equation", eq))
    for box in [b for rest in boxes.values() for b in rest]:
        items.append(("algorithm", box))
    while next_section < len(doc.sections):
        items.append(("section", doc.sections[next_section]))
        next_section += 1
    return items


def _algorithms_after(doc: Document) -> dict[str | None, list[Algorithm]]:
    """Each algorithm box under the last paragraph of its file that starts before it (None: at the end)."""
    placed: dict[str | None, list[Algorithm]] = {}
    for box in doc.algorithms:
        before = None
        for paragraph in doc.paragraphs:
            if paragraph.span.file == box.span.file and paragraph.span.start < box.span.start:
                if paragraph.kind not in ("caption", "footnote"):
                    before = paragraph.id
        placed.setdefault(before, []).append(box)
    return placed


_ALGORITHM_KEYWORDS = {"Require": "Require:", "Ensure": "Ensure:", "KwIn": "Input:", "KwOut": "Output:",
                       "KwData": "Data:", "KwResult": "Result:", "Input": "Input:", "Output": "Output:",
                       "For": "for", "ForAll": "for all", "ForEach": "for each", "While": "while", "If": "if",
                       "ElsIf": "else if", "ElseIf": "else if", "Else": "else", "Repeat": "repeat",
                       "Until": "until", "Return": "return", "Function": "function", "Procedure": "procedure",
                       "EndFor": "end for", "EndWhile": "end while", "EndIf": "end if", "Loop": "loop",
                       "EndFunction": "end function", "EndProcedure": "end procedure"}


def algorithm_html(box: Algorithm, lookup: Lookup | None, doc: Document) -> str:
    """An algorithm box: its caption and numbered lines, math rendered and symbols hoverable."""
    rows = []
    for line in box.lines:
        text = re.sub(r"^\\s*\\" + re.escape(line.keyword) + r"\b\*?", "", line.text.strip())
        text = re.sub(r"\\Comment\s*\{", " ▷ {", text)
        keyword = _ALGORITHM_KEYWORDS.get(line.keyword, "")
        number = f'<span class="pm-algno">{line.number}:</span> ' if line.number is not None else ""
        head = f'<strong class="pm-algkw">{esc(keyword)}</strong> ' if keyword else ""
        rows.append(f'<li>{number}{head}{prose_html(text, lookup, doc)}</li>')
    title = f"Algorithm {esc(box.number)}: " if box.number else "Algorithm: "
    return (f'<figure class="pm-algorithm" id="{esc(box.id)}"><figcaption>{title}{esc(box.caption)}'
            f'</figcaption><ol>{"".join(rows)}</ol></figure>')


def diagnostics_html(doc: Document, reading: PaperReading | None) -> str:
    """What papermath could not settle, said where the reader can see it."""
    found = list(doc.diagnostics) + (list(reading.diagnostics) if reading is not None else [])
    if not found:
        return ""
    items = "".join(f"<li>{esc(d)}</li>" for d in found)
    return (f'<details class="pm-diagnostics" id="diagnostics"><summary>{len(found)} diagnostics: what papermath '
            f"could not settle in this paper</summary><ul>{items}</ul></details>")


def _section_index(eq: Equation, order: Mapping[str, int]) -> int:
    return order.get(eq.section_id or "", -1)


def caption_floats(doc: Document) -> dict[str, Any]:
    """Caption paragraph id → the figure or table it captions (same file and line, else the same text)."""
    out: dict[str, Any] = {}
    captions = [p for p in doc.paragraphs if p.kind == "caption"]
    by_line = {(p.span.file, p.span.line): p for p in captions}
    by_text = {" ".join(p.text.split()): p for p in captions}
    for float_ in getattr(doc, "floats", ()):
        paragraph = by_line.get((float_.span.file, float_.span.line)) or by_text.get(" ".join(float_.caption.split()))
        if paragraph is not None and paragraph.id not in out:
            out[paragraph.id] = float_
    return out


def _toc_html(doc: Document) -> str:
    items = []
    for sec in doc.sections:
        if sec.level > 3:
            continue
        number = f"{esc(sec.number)} " if sec.number else ""
        items.append(f'<li class="pm-toc-l{sec.level}"><a href="#{esc(sec.id)}">'
                     f'{number}{title_html(sec.title)}</a></li>')
    return '<nav class="pm-toc" aria-label="contents"><h2>Contents</h2><ul>' + "".join(items) + \
        '<li><a href="#glossary">Glossary of symbols</a></li></ul></nav>'


def render_page(doc: Document, reading: PaperReading | None = None,
                panels: Mapping[str, Panel] | None = None, *, asset_prefix: str = "assets/",
                notes: Iterable[str] = ()) -> str:
    """The reader page for `doc`. `reading` gives hover definitions and panels (None: text and math only);
    `panels` gives each equation's optional shape/number/code parts by equation id."""
    panels = panels or {}
    index = SymbolIndex(defined_by_map(reading))
    readings = {r.id: r for r in reading.equations} if reading is not None else {}
    body: list[str] = []
    # Equations first, so prose can point at the readings of the symbols they define.
    equation_parts: dict[str, str] = {}
    for eq in doc.equations:
        equation_parts[eq.id] = equation_html(eq, readings.get(eq.id), index.entries, index,
                                              panels.get(eq.id), doc)
    glossary, prose_lookup = _glossary(reading, index)
    captions = caption_floats(doc)
    for kind, item in _flow(doc):
        if kind == "section":
            body.append(section_html(item))
        elif kind == "equation":
            body.append(equation_parts[item.id])
        elif kind == "algorithm":
            body.append(algorithm_html(item, prose_lookup, doc))
        else:
            paragraph = _paragraph_html(item, prose_lookup, doc)
            float_ = captions.get(item.id)
            if float_ is not None:  # the figure or table a \ref names: its caption, for the reference preview
                paragraph = (f'<figure class="pm-float" id="{esc(float_.id)}" data-kind="{esc(float_.kind)}" '
                             f'data-number="{esc(float_.number or "")}">{paragraph}</figure>')
            body.append(paragraph)
    title = doc.paper.title or doc.paper.source
    version = " ".join(x for x in (doc.paper.arxiv_id, doc.paper.version) if x)
    abstract = ""
    if doc.abstract:
        abstract = (f'<section class="pm-abstract" id="abstract"><h2>Abstract</h2>'
                    f"<p>{prose_html(doc.abstract, prose_lookup, doc)}</p></section>")
    notes_html = "".join(f'<p class="pm-note">{esc(n)}</p>' for n in notes)
    data = {"symbols": index.entries, "macros": katex_macros(doc),
            "equations": [eq.id for eq in doc.equations]}
    prefix = esc(asset_prefix)
    return "\n".join([
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        f'<meta http-equiv="Content-Security-Policy" content="{esc(CSP)}">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        '<meta name="referrer" content="no-referrer">',
        '<link rel="icon" href="data:,">',  # no favicon request
        f"<title>{esc(title)} — papermath reader</title>",
        f'<link rel="stylesheet" href="{prefix}katex/katex.min.css">',
        f'<link rel="stylesheet" href="{prefix}reader.css">',
        "</head><body>",
        '<header class="pm-header"><div class="pm-brand">papermath reader</div>'
        '<input type="search" id="pm-search" placeholder="Search symbols and text (/)" '
        'aria-label="search symbols and text" autocomplete="off">'
        '<span class="pm-keys">j/k: next/previous equation · /: search · Esc: close</span>'
        '<button type="button" id="pm-theme" class="pm-theme" aria-label="colour theme: follows the system" '
        'title="colour theme: system, dark or light">◐</button></header>',
        '<div id="pm-results" class="pm-results" hidden></div>',
        '<div class="pm-layout">',
        _toc_html(doc),
        '<main class="pm-main">',
        f'<h1 class="pm-title">{esc(title)}</h1>',
        '<p class="pm-meta">' + " · ".join(esc(x) for x in (", ".join(doc.authors), version,
                                                            f"source: {doc.paper.source}") if x) + "</p>",
        notes_html,
        abstract,
        "\n".join(body),
        diagnostics_html(doc, reading),
        glossary_html(glossary, index.entries, prose_lookup, doc),
        "</main></div>",
        '<div id="pm-tooltip" class="pm-tooltip" role="tooltip" hidden></div>',
        _json_block(data),
        f'<script src="{prefix}katex/katex.min.js"></script>',
        f'<script src="{prefix}reader.js"></script>',
        "</body></html>",
    ]) + "\n"


def _glossary(reading: PaperReading | None, index: SymbolIndex) -> tuple[list[tuple[int, list[str]]], Lookup | None]:
    """Distinct symbols of the paper (first defined reading wins) and the lookup prose uses."""
    if reading is None:
        return [], None
    chosen: dict[str, int] = {}
    uses: dict[str, list[str]] = {}
    order: list[str] = []
    for eq in reading.equations:
        for sym in eq.symbols:
            key = norm_symbol(sym.symbol)
            i = index.add(sym, eq)
            if key not in chosen:
                chosen[key] = i
                order.append(key)
                uses[key] = []
            elif not index.entries[chosen[key]].get("definition") and sym.definition is not None:
                chosen[key] = i
            if eq.id not in uses[key]:
                uses[key].append(eq.id)
    pairs = []
    by_full: list[tuple[SymbolReading, int]] = []
    for key in order:
        pairs.append((chosen[key], uses[key]))
    for eq in reading.equations:
        for sym in eq.symbols:
            i = chosen[norm_symbol(sym.symbol)]
            by_full.append((sym, i))
    return pairs, lookup_for(by_full)


def _paragraph_html(paragraph: Paragraph, lookup: Lookup | None, doc: Document) -> str:
    cls = f"pm-p pm-{esc(paragraph.kind)}"
    return (f'<p class="{cls}" id="{esc(paragraph.id)}" data-line="{paragraph.span.line}">'
            f"{prose_html(paragraph.text, lookup, doc)}</p>")


def asset_dir() -> Path:
    """The bundled assets (KaTeX and the reader's script and style)."""
    return Path(str(resources.files("papermath.render") / "html_assets"))


def write_site(doc: Document, out_dir: str | Path, reading: PaperReading | None = None,
               panels: Mapping[str, Panel] | None = None, notes: Iterable[str] = ()) -> Path:
    """Write `index.html` and `assets/` into `out_dir` (created if missing). Returns the page's path."""
    from ..output import OutputFolder
    text = render_page(doc, reading, panels, notes=notes)
    with OutputFolder.claim(out_dir, "html") as out:
        out.path("index.html")  # refuse before writing anything if index.html is not papermath's
        out.copy_tree(asset_dir(), "assets", skip=lambda path: "__pycache__" in path.parts or path.suffix == ".pyc"
                      or path.suffix == ".py")
        out.remove_stale("assets")
        page = out.write_text("index.html", text)
    return page
