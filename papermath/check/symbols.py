"""Symbols: each row's quote, guesses, shapes and roles against the paper; coverage of the equation's symbols.

The paper's side of an equation comes from `papermath read` on the LaTeX source (definitions, roles with their
cue words, shapes from `\\in \\mathbb{R}^{…}`, the undefined list). For a plain-text or PDF paper the symbols come
from the reading's own formula and only the quotes can be checked against the text.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from ..errors import MathParseError
from .model import EquationEntry, ReadingRow
from .report import Finding, RowResult
from .text import PaperText, QuoteMatch, compact, compact_symbol

GUIDE_ROLES = ("input data", "trained weight", "frozen model", "fixed setting", "random sample")
"""Guide 002's five roles: the ones a quote's words can contradict."""
# Words a reading may use for a role → the role (first match wins).
ROLE_SYNONYMS: tuple[tuple[str, re.Pattern], ...] = tuple((role, re.compile(p, re.I)) for role, p in (
    ("defined here", r"defined here|output|left[- ]hand side|result|defined by this"),
    ("computed", r"computed|intermediate|derived|activation"),
    ("frozen model", r"frozen|reference model|teacher"),
    ("fixed setting", r"fixed setting|hyper-?parameter|setting|constant|config"),
    ("random sample", r"random|sample|noise"),
    ("trained weight", r"trained|learn|weight|parameter"),
    ("input data", r"input|data|observ"),
    ("index", r"^index|loop"),
    ("function", r"function|operator|notation"),
    ("unknown", r"unknown|unclear|\?"),
))
COMPATIBLE = ({"input data", "random sample"},)
"""Roles that a quote's words do not separate (data is often sampled)."""
UNKNOWN_SHAPES = {"", "?", "-", "—", "unknown", "n/a", "not stated", "not given"}
TYPE_WORDS = {"function", "operator", "set", "distribution", "model", "policy", "notation", "index", "integer set"}
SCALAR_WORDS = {"scalar", "number", "real", "real number", "integer", "()", "probability", "count"}


@dataclass(frozen=True)
class PaperSymbol:
    """One symbol of the equation as the paper gives it."""

    latex: str
    """Written form (`s_{i,t}`)."""
    id: str
    """`eq:15/sym:s_{i,t}`."""
    kind: str
    """symbol, function, operator or index."""
    role: str
    """Role decided by `read` (or "unknown")."""
    role_cue: str | None
    """The words that decided it."""
    shape: tuple[str, ...] | None
    """Shape from the text, None when the text gives none."""
    shape_cue: str | None
    """The text that gave the shape."""
    definition: str | None
    """The defining quote `read` found (None: the paper does not define it)."""
    definition_where: str | None
    """`§2.1.2, main.tex:349` for that quote."""
    conventional: str | None
    """The conventional meaning of standard notation."""
    lhs: bool
    """On the left-hand side of this equation."""
    undefined: bool
    """Listed by `read` as not defined in the paper."""
    forms: frozenset[str]
    """Compact spellings used to match a reading's row (full written form and the bare symbol)."""
    analysed: bool = True
    """False when the paper could not be analysed (plain text or PDF): only quotes are checked then."""
    home_context: frozenset[int] = frozenset()
    """Passages around the display that defines the symbol (its lead-in, its "where"): a quote from them may
    introduce the symbol without writing it."""


# --- symbol spellings -----------------------------------------------------------------------------------------

def canonical(latex: str) -> str:
    """The written form papermath's parser gives a lone symbol (`\\mathbf{c}_{t}^{KV}` → `\\mathbf{c}^{KV}_{t}`)."""
    from ..analysis.symbols import collect, written_form
    from ..math import parse
    text = latex.strip()
    try:
        info = collect(parse(text).tree)
    except (MathParseError, RecursionError, ValueError):
        return text
    if len(info.uses) == 1:
        return written_form(info.uses[0])
    if not info.uses and info.operators:
        return {"transpose": "^{\\top}"}.get(info.operators[0], text)
    return text


def _key(latex: str) -> str:
    c = compact_symbol(latex).replace("^\\prime", "'") if latex else ""
    return re.sub(r"\^t(?![a-z])", lambda _: "^\\top", c)


_SUBSCRIPT = r"_(?:\{(?:[^{}]|\{(?:[^{}]|\{[^{}]*\})*\})*\}|[^{}\s])"


@lru_cache(maxsize=65536)
def symbol_forms(latex: str) -> tuple[str, str]:
    """(full key, base key) of a symbol: the base drops a trailing subscript (`s_{i,t}` → `s`,
    `\\mathbf{x}_{t - {\\Delta t}}` → `\\mathbf{x}`)."""
    full = canonical(latex)
    base = re.sub(_SUBSCRIPT + "$", "", full)
    base = re.sub(_SUBSCRIPT + r"(?=\^)", "", base)
    return _key(full), _key(base)


def paper_symbols_from_reading(eq_reading, doc=None) -> list[PaperSymbol]:
    """The paper's symbols for one equation, from `papermath read`'s EquationReading."""
    from ..analysis.read import display_context
    out = []
    undefined = set(eq_reading.undefined)
    for s in eq_reading.symbols:
        where = None
        if s.definition is not None:
            d = s.definition
            where = (f"§{d.section}, " if d.section else "") + f"{d.file}:{d.line}"
        full, base = symbol_forms(s.latex)
        forms = {full, _key(s.latex), _key(s.symbol)}
        if s.kind != "operator":
            forms.add(base)
        home = doc.equation(s.defined_by) if doc is not None and getattr(s, "defined_by", None) else None
        context = frozenset(int(pid[2:]) for pid in (display_context(doc, home) if home else ())
                            if pid.startswith("p:") and pid[2:].isdigit())
        out.append(PaperSymbol(s.latex, s.id, s.kind, s.role, s.role_cue, s.shape, s.shape_cue,
                               s.definition.quote if s.definition else None, where, s.conventional,
                               s.role == "defined here", s.latex in undefined, frozenset(forms),
                               home_context=context))
    return out


def paper_symbols_from_formula(latex: str, eq_id: str) -> list[PaperSymbol]:
    """For a plain-text or PDF paper: the symbols of the reading's own formula, nothing else known."""
    from ..analysis.symbols import collect, written_form
    from ..math import parse
    from ..math.printer import to_latex
    try:
        info = collect(parse(latex).tree)
    except (MathParseError, RecursionError):
        return []
    out = []
    for use in info.uses:
        written = written_form(use)
        full, base = symbol_forms(written)
        out.append(PaperSymbol(written, f"{eq_id}/sym:{written}", use.kind, "unknown", None, None, None, None,
                               None, None, use.lhs, False, frozenset({full, base, _key(use.key)}), analysed=False))
    for op in info.operators:
        latex_op = {"transpose": "^{\\top}", "norm": "\\|\\cdot\\|", "gradient": "\\nabla"}.get(op, op)
        out.append(PaperSymbol(latex_op, f"{eq_id}/sym:{latex_op}", "operator", "function", None, None, None, None,
                               None, op, False, False, frozenset({_key(latex_op)}), analysed=False))
    for red in info.reductions:
        op = to_latex(red.operator)
        out.append(PaperSymbol(op, f"{eq_id}/sym:{op}", "operator", "function", None, None, None, None, None,
                               red.op, False, False, frozenset({_key(op)}), analysed=False))
    return out


def match_row(row: ReadingRow, symbols: list[PaperSymbol]) -> PaperSymbol | None:
    full, base = symbol_forms(row.symbol)
    for s in symbols:  # the row's own spelling first: A is not A_1, although A_1's forms hold its base A
        if symbol_forms(s.latex)[0] == full:
            return s
    for s in symbols:
        if full in s.forms:
            return s
    for s in symbols:
        if base in s.forms and s.kind != "index":
            return s
    return None


# --- roles and shapes -----------------------------------------------------------------------------------------

def role_of(text: str) -> str | None:
    t = text.strip().lower()
    if not t:
        return None
    for role, pattern in ROLE_SYNONYMS:
        if pattern.search(t):
            return role
    return None


def parse_shape(text: str) -> tuple[str, ...] | str | None:
    """A reading's shape cell → dims tuple (`()` a scalar, `?` an unknown size), a type word, or None."""
    t = " ".join(text.strip().strip("`").split())
    low = t.lower().strip("$ ")
    if low in UNKNOWN_SHAPES:
        return None
    if low in SCALAR_WORDS or low.startswith("scalar"):
        return ()
    if low in TYPE_WORDS or low.split(" ")[0] in TYPE_WORDS:
        return "function" if low.startswith(("function", "operator", "notation")) else low.split(" ")[0]
    m = re.search(r"(?:vector|sequence)\s+of\s+(?:length|size|dimension)\s+\$?([^$,]+)\$?", t, re.I)
    if m:
        return (_dim(m.group(1)),)
    m = re.search(r"\$?([^$\s]+)\$?-dimensional", t, re.I)
    if m:
        return (_dim(m.group(1)),)
    body = re.sub(r"\\mathbb\s*\{?R\}?\s*\^|ℝ\s*\^|^R\s*\^", "", t.strip("$ "))
    body = body.strip()
    if body.startswith("{") and body.endswith("}"):
        body = body[1:-1]
    body = body.strip("[]() ")
    if low in ("vector",):
        return ("?",)
    if low in ("matrix",):
        return ("?", "?")
    if not body:
        return ()
    parts = [p for p in re.split(r"\s*(?:,|\\times|×|\s+x\s+|\*)\s*", body) if p.strip()]
    if not parts:
        return None
    return tuple(_dim(p) for p in parts)


def _dim(text: str) -> str:
    t = text.strip().strip("$").strip()
    if t in ("?", "…", "..."):
        return "?"
    return compact(t)


def shape_text(shape) -> str:
    if shape is None:
        return "not stated"
    if shape == ():
        return "scalar"
    if isinstance(shape, str):
        return shape
    return "[" + ", ".join(shape) + "]"


def _shape_in_quote(quote: str, row_symbol: str) -> tuple[str, ...] | None:
    """`W^{UK},W^{UV} \\in \\mathbb{R}^{d_h n_h \\times d_c}` in a quote gives the shape of the symbols listed."""
    full, base = symbol_forms(row_symbol)
    maths = [a or b for a, b in re.findall(r"\$([^$]+)\$|\\\((.+?)\\\)", quote)]
    # The symbol as written first (`W^{out} \in \mathbb{R}^{D \times D}` over its slices `W^{out}_h \in …`),
    # then any form of its letter.
    for exact in (True, False):
        for m_text in maths:
            parsed = _parsed_shape(m_text, full, base, exact)
            if parsed is not None:
                return parsed
    return None


def _parsed_shape(math: str, full: str, base: str, exact: bool = False) -> tuple[str, ...] | None:
    """The dimensions a prose formula gives the symbol, read by the parser (nested braces included):
    `X \\in \\mathbb{R}^{N \\times d_{\\text{model}}}` → (N, d_model)."""
    from ..analysis.definitions import is_component, membership_groups
    from ..analysis.read import _real_space_dims
    from ..math import parse, to_latex
    try:
        tree = parse(math).tree
    except (MathParseError, RecursionError):
        return None
    for subjects, op, rhs in membership_groups(tree):
        if op != "\\in" or rhs is None:
            continue
        subjects = tuple(n for n in subjects if not is_component(n))
        forms = [symbol_forms(to_latex(n)) for n in subjects]
        if any(f == full for f, _ in forms) if exact else any(full in pair or base in pair for pair in forms):
            dims = _real_space_dims(rhs)
            if dims is not None:
                return tuple(compact(d) for d in dims)
    return None


def _shapes_agree(reading, paper) -> bool:
    if isinstance(reading, str) or isinstance(paper, str):
        return True  # a type word: nothing to compare dims with
    if len(reading) != len(paper):
        return False
    return all(a == "?" or b == "?" or a == b for a, b in zip(reading, paper))


def _clause_with(quote: str, row_symbol: str) -> str:
    """The clause of a quote that mentions the symbol (split outside math on `;`, `,` and `and`)."""
    pieces, depth, cur = [], False, []
    for ch in quote:
        if ch == "$":
            depth = not depth
        if not depth and ch in ";,":
            pieces.append("".join(cur))
            cur = []
            continue
        cur.append(ch)
    pieces.append("".join(cur))
    for piece in pieces:
        if _mentions(piece, row_symbol):
            return piece
    return quote


def _math_bases(segments: list[str]) -> set[str] | None:
    """Base keys of every symbol the quote's math writes (`P^{k}_{i+1+k}` → `p^k`); None if one does not parse."""
    out: set[str] = set()
    for segment in segments:
        bases = _segment_bases(segment)
        if bases is None:
            return None
        out |= bases
    return out


@lru_cache(maxsize=65536)
def _segment_bases(segment: str) -> frozenset[str] | None:
    """`_math_bases` of one formula (read asks it of the same sentences for many symbols: once per formula)."""
    from ..analysis.symbols import collect, written_form
    from ..math import parse
    try:
        info = collect(parse(segment).tree)
    except (MathParseError, RecursionError, ValueError):
        return None
    return frozenset(form for use in info.uses for form in symbol_forms(written_form(use)))


def _mentions(text: str, row_symbol: str) -> bool:
    full, base = symbol_forms(row_symbol)
    maths = re.findall(r"\$([^$]+)\$|\\\((.+?)\\\)", text)
    keys = {k for k in (full, base, _key(row_symbol)) if k}
    bases = _math_bases([a or b for a, b in maths]) if maths else None
    if bases is not None:
        # The parser tells symbols apart: P_i is not P^{k}_{i+1+k}, s_{i,t} is s_{j,t}'s symbol.
        if keys & bases:
            return True
        # The same letter with a varying label (`A^{j}` for `A^{2}`, `p_{S}` for `p_{A}`, ε_{orig} for ε): read
        # uses such a sentence only as evidence, the way candidates.same_family_meaning allows.
        from ..analysis.candidates import key_family, same_family_meaning
        for key in keys:
            for other in bases:
                if other != key and key_family(other) == key_family(key) and same_family_meaning(key, other):
                    return True
        if _family_written(row_symbol, [a or b for a, b in maths]):
            return True
    elif maths:
        haystacks = [compact_symbol(a or b) for a, b in maths]
        for key in keys:
            pattern = re.compile(r"(?<![a-z\\])" + re.escape(key) + r"(?![a-z])")
            if any(pattern.search(h) for h in haystacks):
                return True
        if not any(k.lstrip("\\").isalpha() and len(k.lstrip("\\")) >= 3 for k in keys):
            return False
        # A named function (softmax, Sigmoid) may be named in words beside the quote's math.
    # Plain text (a guide, a PDF) and named functions: words keep their spaces, so match the symbol as a word.
    words = " ".join(compact_symbol(w) for w in text.split())
    for key in keys:
        bare = key.lstrip("\\")
        if maths and not (bare.isalpha() and len(bare) >= 3):
            continue
        # A one-letter symbol keeps its case (Q is not q); a named function is a word (softmax, Softmax).
        flags = re.I if len(bare) >= 3 else 0
        if re.search(r"(?<![A-Za-z\\])\\?" + re.escape(bare) + r"(?![A-Za-z])", words, flags):
            return True
    return False


def _family_written(row_symbol: str, maths: list[str]) -> bool:
    """The same test on the keys as `read` writes them (braced scripts: `w^{k + 1}` and `w^{\\ell}` are one
    family, which the compact forms `w^k+1`, `w^\\ell` do not show), the members of a collection included
    (`\\mathbf{W}^{\\ell} = [w_{ij}^{\\ell}]` writes w^{\\ell})."""
    from ..analysis.candidates import key_family, same_family_meaning
    from ..analysis.definitions import _mention_keys, _parse, element_keys
    from ..analysis.symbols import symbol_key
    tree = _parse(row_symbol)
    key = symbol_key(tree) if tree is not None else None
    if key is None:
        return False
    for math in maths:
        found = _parse(math)
        if found is None:
            continue
        keys, _ = _mention_keys(found, frozenset())
        for other in keys + element_keys(found, frozenset()):
            if other != key and key_family(other) == key_family(key) and same_family_meaning(key, other):
                return True
    return False


def _is_subject(latex: str, row_symbol: str) -> bool:
    """Whether the prose formula is about the symbol (`X \\in …`, `x \\sim …`, `X = …`), not only holds it."""
    from ..analysis.definitions import _mention_keys, _parse
    tree = _parse(latex)
    if tree is None:
        return _mentions(f"${latex}$", row_symbol)
    keys, bases = _mention_keys(tree, frozenset())
    full, base = symbol_forms(row_symbol)
    return any(symbol_forms(k)[0] in (full, base) or symbol_forms(k)[1] in (full, base) for k in keys + bases)


def quote_role(quote: str, row_symbol: str) -> tuple[str | None, str | None]:
    """The role the quote's words attached to the symbol give it — the same reading of a sentence `read` uses
    (the predicate after the symbol, then the head of its own noun phrase), never a cue word that belongs to
    another noun of the sentence."""
    from ..analysis.cues import role_from_description
    from ..analysis.definitions import classify_sentence
    full, base = symbol_forms(row_symbol)
    for f in classify_sentence(quote):
        if f.pattern in (None, "ordinal") or f.description is None:
            continue
        if not _is_subject(f.latex, row_symbol):
            continue  # the words describe the formula's subject, not a symbol inside it
        description = quote[f.description[0]:f.description[1]]
        after = quote[f.end + 1:f.clause[1]]
        predicate = after[:90] if re.match(r"\s*(?:,\s*)?(?:\$[^$]*+\$\s*+,?\s*+)*+(?:and\s+\$[^$]*\$\s*)?(?:,\s*)?"
                                           r"(?:is|are|was|were|be|being)\b", after, re.I) else ""
        found = role_from_description(description, predicate)
        if found is not None and found[0] in GUIDE_ROLES:
            return found[0], found[1]
    return None, None


# --- the row check --------------------------------------------------------------------------------------------

def check_rows(entry: EquationEntry, symbols: list[PaperSymbol], paper: PaperText,
               number: str | None, context: frozenset[int] = frozenset()) -> tuple[list[RowResult], list[Finding]]:
    rows: list[RowResult] = []
    covered: set[str] = set()
    for row in entry.rows:
        match = match_row(row, symbols)
        if match is not None:
            covered.add(match.id)
        rows.append(_check_row(row, match, paper, number, bool(symbols), context))
    findings: list[Finding] = []
    for s in symbols:
        if s.kind != "symbol" or s.id in covered:
            continue
        if any(o.id in covered and s.forms & o.forms for o in symbols if o is not s):
            continue
        where = f'; the paper: "{_short(s.definition)}" ({s.definition_where})' if s.definition else ""
        findings.append(Finding("coverage", "fail", f"${s.latex}$ is in the equation but not in the table{where}",
                                s.latex, entry.line or None))
    listed_undefined = {symbol_forms(u)[0] for u in entry.undefined}
    for u in entry.undefined:
        s = next((p for p in symbols if symbol_forms(u)[0] in p.forms), None)
        if s is not None and s.definition and s.analysed:
            findings.append(Finding("undefined", "warn", f"${u}$ is listed as undefined, but the paper defines it: "
                                    f'"{_short(s.definition)}" ({s.definition_where})', u, entry.line or None))
    for s in symbols:
        if s.undefined and s.analysed and not (s.forms & listed_undefined) and s.kind == "symbol":
            row = next((r for r in rows if r.paper_symbol == s.id), None)
            if row is not None and row.status == "guess":
                continue  # already failed as a guess
            findings.append(Finding("undefined", "warn", f"the paper never defines ${s.latex}$: list it under "
                                    "Undefined (guide 002, step 2)", s.latex, entry.line or None))
    return rows, findings


def _check_row(row: ReadingRow, s: PaperSymbol | None, paper: PaperText, number: str | None,
               have_symbols: bool, context: frozenset[int]) -> RowResult:
    """`context`: passages next to the equation (the paragraph before, the "where" after); a quote from them may
    describe the left-hand side or a function in words without writing the symbol."""
    findings: list[Finding] = []
    line = row.line or None
    quote: QuoteMatch | None = None
    sid = s.id if s else None
    if s is None and have_symbols:
        findings.append(Finding("coverage", "fail", f"${row.symbol}$ is not a symbol of this equation", row.symbol,
                                line))
        return RowResult(row.symbol, "absent", None, tuple(findings), row.line)
    if row.quote:
        quote = paper.find(row.quote)
        if not quote.found:
            closest = f'; closest ({quote.similarity:.0%}): "{_short(quote.closest or "", 120)}"' \
                if quote.closest else ""
            findings.append(Finding("quote", "fail", f"quote NOT FOUND in the paper{closest}", row.symbol, line))
            if s is not None and s.analysed and s.definition is None and s.conventional is None and \
                    not s.lhs and s.role != "computed":
                findings.append(Finding("guess", "fail", "guess: the paper does not define it", row.symbol, line))
            return RowResult(row.symbol, "guess", quote, tuple(findings), row.line, sid)
        around = context | (s.home_context if s is not None else frozenset())
        in_context = quote.passage is not None and (quote.passage in around or paper.occurs_in(row.quote, around))
        if quote.how == "LaTeX source":
            findings.append(Finding("quote", "info", "found in the LaTeX source with the paper's own macros: "
                                    "whether it names the symbol, and its role words, are not checked", row.symbol,
                                    line))
        elif not in_context and not _mentions(row.quote, row.symbol) and not (s is not None and s.kind == "operator"):
            findings.append(Finding("quote", "fail", f"the quote is in the paper but does not mention ${row.symbol}$",
                                    row.symbol, line))
    meaning = row.meaning.strip()
    if s is not None and s.analysed and s.definition is None and not row.quote:
        standard = s.kind in ("function", "operator") or s.conventional is not None
        if meaning and not standard and not s.lhs and s.role != "computed":
            findings.append(Finding("guess", "fail", "guess: the paper does not define it", row.symbol, line))
            return RowResult(row.symbol, "guess", None, tuple(findings), row.line, sid)
    if s is not None and s.analysed and s.definition is not None and not row.quote and meaning and \
            s.kind == "symbol" and not s.lhs and s.role != "computed":
        findings.append(Finding("guess", "fail", f'a meaning without a quote: the paper says "{_short(s.definition)}"'
                                f" ({s.definition_where})", row.symbol, line))
        return RowResult(row.symbol, "guess", None, tuple(findings), row.line, sid)
    if s is not None and not s.analysed and not row.quote and meaning and s.kind == "symbol" and not s.lhs and \
            role_of(row.role) not in ("computed", "defined here"):
        findings.append(Finding("guess", "fail", "a meaning without a quote: nothing ties it to the paper's text",
                                row.symbol, line))
        return RowResult(row.symbol, "guess", None, tuple(findings), row.line, sid)
    if s is None and not row.quote and meaning:
        findings.append(Finding("guess", "fail", "a meaning without a quote", row.symbol, line))
        return RowResult(row.symbol, "guess", None, tuple(findings), row.line, sid)
    findings.extend(_compare_shape(row, s, quote, line))
    findings.extend(_compare_role(row, s, quote, number, line))
    findings.extend(_compare_meaning(row, quote, line))
    failed = any(f.severity == "fail" for f in findings)
    if failed:
        status = "mismatch"
    elif quote is not None:
        status = "verified"
    elif s is not None and (s.kind in ("function", "operator") or s.conventional) and not s.lhs:
        status = "standard"
    elif s is not None and (s.lhs or s.role == "computed") or role_of(row.role) in ("defined here", "computed"):
        status = "by equation"
    else:
        status = "unquoted"
        if s is not None and s.definition:
            findings.append(Finding("quote", "warn", f'no quote; the paper defines it: "{_short(s.definition)}" '
                                    f"({s.definition_where})", row.symbol, line))
    return RowResult(row.symbol, status, quote, tuple(findings), row.line, sid)


def _compare_shape(row: ReadingRow, s: PaperSymbol | None, quote: QuoteMatch | None, line) -> list[Finding]:
    claimed = parse_shape(row.shape)
    if claimed is None:
        return []
    paper_shape, cue = None, None
    if quote is not None and quote.found and quote.how != "LaTeX source":
        paper_shape = _shape_in_quote(row.quote, row.symbol)
        cue = "the quote"
    if paper_shape is None and s is not None and s.shape is not None and s.shape_cue and \
            s.definition and quote is not None and quote.found and \
            compact(s.definition).strip(".;, ") == compact(row.quote).strip(".;, "):
        paper_shape = tuple(compact(d) if d != "?" else "?" for d in s.shape)
        cue = f'"{_short(s.shape_cue, 80)}"'
    if paper_shape is None and s is not None and s.shape is not None and s.shape_cue and "\\in" in s.shape_cue:
        paper_shape = tuple(compact(d) if d != "?" else "?" for d in s.shape)
        cue = f'"{_short(s.shape_cue, 80)}"'
    if paper_shape is None:
        return []
    if _shapes_agree(claimed, paper_shape):
        return []
    return [Finding("shape", "fail", f"the reading says {shape_text(claimed)}; the paper says "
                    f"{shape_text(paper_shape)} ({cue})", row.symbol, line)]


def _compare_role(row: ReadingRow, s: PaperSymbol | None, quote: QuoteMatch | None, number, line) -> list[Finding]:
    claimed = role_of(row.role)
    if claimed is None:
        return []
    out = []
    if s is not None and s.analysed:
        if s.lhs and claimed in GUIDE_ROLES:
            out.append(Finding("role", "fail", f"the reading says {claimed}; it is the left-hand side of "
                               f"({number or '?'}): defined here", row.symbol, line))
            return out
        if claimed == "defined here" and not s.lhs:
            out.append(Finding("role", "fail", "the reading says defined here, but it is not on the left-hand side",
                               row.symbol, line))
            return out
    if claimed not in GUIDE_ROLES or quote is None or not quote.found or quote.how == "LaTeX source":
        return out
    said, cue = quote_role(row.quote, row.symbol)
    if said is None or said == claimed or any({said, claimed} <= group for group in COMPATIBLE):
        return out
    if said == "trained weight" and claimed == "fixed setting" and (cue or "").lower() in ("parameter", "parameters"):
        return out  # a bare "parameter" names a weight or a setting; read decides by the values the paper sets
    out.append(Finding("role", "fail", f'the reading says {claimed}; the paper\'s words "{cue}" say {said}',
                       row.symbol, line))
    return out


# Words that name one of two opposite things: a reading that says one where the quote says the other has
# swapped them ("the winning image" for the symbol the paper calls losing).
OPPOSITES: tuple[tuple[str, str], ...] = (
    ("winning", "losing"), ("winner", "loser"), ("preferred", "dispreferred"), ("chosen", "rejected"),
    ("positive", "negative"), ("upper", "lower"), ("maximum", "minimum"), ("largest", "smallest"),
    ("input", "output"), ("encoder", "decoder"), ("source", "target"), ("real", "fake"), ("clean", "noisy"),
    ("teacher", "student"), ("forward", "reverse"), ("first", "second"), ("left", "right"), ("row", "column"),
    ("mean", "variance"), ("numerator", "denominator"), ("prior", "posterior"), ("training", "test"),
    ("shared", "routed"), ("keys", "queries"), ("key", "query"), ("old", "new"), ("agent", "opponent"),
)
_OPPOSITE = {a: b for a, b in OPPOSITES} | {b: a for a, b in OPPOSITES}


def _words(text: str) -> set[str]:
    plain = re.sub(r"\$[^$]*\$|\\\(.+?\\\)", " ", text or "")
    plain = re.sub(r"\\[A-Za-z]+\{([^{}]*)\}", r"\1", plain)
    return {w.lower() for w in re.findall(r"[A-Za-z]+", plain)}


def _compare_meaning(row: ReadingRow, quote: QuoteMatch | None, line) -> list[Finding]:
    """The reading's meaning words against the clause of its quote about the symbol: a word whose opposite the
    clause uses, and which the clause never uses itself, is a swap."""
    meaning = row.meaning.strip()
    if not meaning or quote is None or not quote.found or not row.quote:
        return []
    said = _words(meaning)
    text = _clause_with(row.quote, row.symbol)
    clause = _words(text)
    for word in sorted(said):
        other = _OPPOSITE.get(word)
        if not other or other in said or other not in clause:
            continue
        if word not in clause:
            return [Finding("meaning", "fail", f'the reading says "{word}"; its quote says "{other}" for '
                            f"${row.symbol}$", row.symbol, line)]
        # Both words: "$x^w_0$ and $x^l_0$ denoting the winning and losing samples" pairs them in order.
        mine = _respective(text, row.symbol, (word, other))
        if mine is not None and mine != word:
            return [Finding("meaning", "fail", f'the reading says "{word}"; its quote pairs ${row.symbol}$ with '
                            f'"{mine}"', row.symbol, line)]
    return []


def _respective(text: str, row_symbol: str, pair: tuple[str, str]) -> str | None:
    """Which word of an opposite pair a sentence gives the symbol when it lists formulas and then the words
    in the same order (its position among the listed formulas); None when it does not say."""
    maths = [m.group(0) for m in re.finditer(r"\$[^$]+\$|\\\(.+?\\\)", text)]
    full, _ = symbol_forms(row_symbol)

    def writes(math: str) -> bool:  # strictly this symbol: x^l is not x^w here
        bases = _math_bases([math.strip("$")]) if math.startswith("$") else None
        return bases is not None and full in bases
    at = next((k for k, m in enumerate(maths) if writes(m)), None)
    if at is None or len(maths) < 2:
        return None
    plain = re.sub(r"\$[^$]*\$|\\\(.+?\\\)", " ", text).lower()
    found = sorted((m.start(), w) for w in pair for m in [re.search(r"\b" + w + r"\b", plain)] if m)
    if len(found) != 2 or at >= 2:
        return None
    return found[at][1]


def _short(text: str | None, n: int = 100) -> str:
    text = " ".join((text or "").split())
    return text if len(text) <= n else text[: n - 1] + "…"
