"""Score papermath's readings against careful readers' gold readings (`../shared/gold/readings/dev.json`).

    .venv/bin/python benchmarks/reading_accuracy.py                 # table overall and per paper, causes
    .venv/bin/python benchmarks/reading_accuracy.py --papers SISS --misses 40   # list the misses
    .venv/bin/python benchmarks/reading_accuracy.py --json-dir DIR  # score saved `read --json` outputs
                                                                    # (DIR/<paper>.json) instead of reading

What is scored (the gold README's definitions):
- **quote right**: of the symbols the gold marks `defined: true`, papermath's quote contains the gold quote or
  one of its `alt_quotes`. Both sides are normalised the same way: the gold quote (written with the author's
  macros) is expanded with the paper's own macro table and turned into text exactly as the document model
  turns a paragraph into text; then `\\ensuremath`, braces, `~`, all whitespace and the closing `;,.:` are dropped.
- **false-undefined**: a `defined: true` symbol that papermath lists as not defined in the paper.
- **role**: papermath's role equals the gold `role` or one of `alt_roles`/`role_alt`.
- **shape**: over symbols whose gold states a shape: papermath's dimensions equal it (or an `alt_shapes`;
  `debatable` ones also accept no shape). Dimensions compare after the symbol normalisation below.
- **kind**: equals the gold `kind` or one of `alt_kinds`/`kind_alt`.
- **reductions**: each gold reduction matched one-to-one to a papermath reduction of the same operator whose
  bound variables are the same set (a gold `over` written in words matches on the operator alone).
- **entirely right**: every gold symbol has a row with the right quote (or, for a `defined: false` symbol, no
  definition claimed — listed undefined, reported "mentioned, not defined" with its mention, or quoting one of the
  gold's `alt_quotes` — and not listed undefined when it is conventional), the right role, no wrong shape; and the
  kind and the reductions are right.

Symbol matching (gold key ↔ papermath row) is one normalisation, not per-case: both spellings are split into
TeX atoms, font commands of one family map to one marker (`\\bm`, `\\boldsymbol`, `\\mathbf`, `\\pmb` → bold;
`\\mathrm`, `\\text`, `\\textrm`, `\\operatorname`, `\\texttt`, `\\mathtt` → roman; a font around one scripted
letter is the letter's: `\\bm{x_0}` is `\\bm{x}_0`), braces and spaces go,
`'` is `^\\prime`, and each atom's scripts are written superscript first; array indexing is a subscript
(`r[j]` is `r_j`, `z[i][j]` is `z_{i,j}`), accents have one spelling each (`\\overline` is `\\bar`), operator names
are roman (`\\log` is `\\text{log}`), a set of members is its members' symbol (`\\{t^N\\}` is `t^N`), and an
operator's placeholder argument goes (`\\mathbb{1}[\\cdot]` is `\\mathbb{1}`). A gold symbol matches a row whose
written form or bare symbol normalises to the gold key or to one of its `merged_from` forms (failing that, the one
row whose `also_written` forms — the other indices its equation writes it with — holds it exactly) (the gold merges
indexed forms of one symbol); when several rows match, the exact key wins, then the order of `merged_from`.
A gold symbol counts as listed undefined when any row it matches is.
"""
from __future__ import annotations

import argparse
import difflib
import json
import re
import sys
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

SHARED = ROOT.parent / "shared"
CORPUS = SHARED / "corpus" / "papers"
GOLD = SHARED / "gold" / "readings" / "dev.json"

# --- normalisation -------------------------------------------------------------------------------------------

_BOLD = {"bm", "boldsymbol", "mathbf", "pmb", "mathbfit", "bf", "vb", "bold"}
_ROMAN = {"mathrm", "text", "textrm", "operatorname", "texttt", "mathtt", "textsc", "rm", "mathsf", "textnormal",
          "textup", "mathup", "operatorname*"}
_DROP = {"ensuremath", "left", "right", "displaystyle", "textstyle", "big", "Big", "bigg", "Bigg", "bigl", "bigr",
         "Bigl", "Bigr", "mathopen", "mathclose", "mathord", "limits", "nolimits"}
_ATOM = re.compile(r"\\[A-Za-z@]+\*?|\\.|[{}]|\s+|.", re.S)


_BLACKBOARD = re.compile(r"\\(?:mathds|mathbbm)(?![A-Za-z])")
_ACCENTS = {"bar", "hat", "tilde", "vec", "dot", "ddot", "check", "breve"}
_ACCENT_SPELLINGS = {"overline": "bar", "widehat": "hat", "widetilde": "tilde", "overrightarrow": "vec"}
# Operator names TeX sets upright: `\\log` and `\\text{log}` are one spelling.
_OPERATOR_NAMES = {"log", "exp", "ln", "sin", "cos", "tan", "tanh", "min", "max", "argmin", "argmax", "det", "tr",
                   "sup", "inf", "lim", "sgn", "diag"}
# `\\mathbb{1}[\\cdot]`, `f(\\cdot, \\cdot)`: the operator's written form with placeholder arguments.
_PLACEHOLDER_ARGS = re.compile(r"(?:\\left)?[\[(]\s*\\cdot(?:\s*,\s*\\cdot)*\s*(?:\\right)?[\])]$")


def _tokens(s: str) -> list[str]:
    s = s.replace("\\mathbbm", "\\mathbb").replace("\\mid", "|").replace("\\vert", "|")
    s = re.sub(r"\\(overline|widehat|widetilde|overrightarrow)(?![A-Za-z])",
               lambda m: "\\" + _ACCENT_SPELLINGS[m.group(1)], s)
    out = []
    for t in _ATOM.findall(s):
        if t.isspace() or t == "~" or t in ("\\,", "\\;", "\\!", "\\:", "\\ "):
            continue
        if t == "'":
            out += ["^", "\\prime"]
            continue
        out.append(t)
    return out


def _group(toks: list[str], i: int) -> tuple[list, int]:
    """One argument: a braced group (as a nested list) or one token."""
    if i >= len(toks):
        return [], i
    if toks[i].startswith("\\") and toks[i][1:] in _BOLD | _ROMAN | _ACCENTS:  # `_\text{ref}`, `_\bar{M}`: the
        # command and its argument
        arg, j = _group(toks, i + 1)
        return _tree([toks[i], "{"] + [_flat(arg)] + ["}"]), j
    if toks[i] == "{":
        depth, j = 1, i + 1
        while j < len(toks) and depth:
            depth += {"{": 1, "}": -1}.get(toks[j], 0)
            j += 1
        return _tree(toks[i + 1:j - 1]), j
    return _tree([toks[i]]), i + 1


def _tree(toks: list[str]) -> list:
    """Atoms with their scripts: [(base, sup, sub), …] where each part is a normalised string."""
    atoms: list[list[str]] = []
    i = 0
    while i < len(toks):
        t = toks[i]
        if t in ("^", "_") and atoms:
            arg, i = _group(toks, i + 1)
            slot = 1 if t == "^" else 2
            atoms[-1][slot] += ("," if atoms[-1][slot] else "") + _flat(arg)
            continue
        if t in ("^", "_"):
            arg, i = _group(toks, i + 1)
            atoms.append(["", _flat(arg) if t == "^" else "", _flat(arg) if t == "_" else ""])
            continue
        name = t[1:] if t.startswith("\\") else None
        if name in _DROP:
            i += 1
            continue
        if name in _OPERATOR_NAMES:
            atoms.append([f"R({name})", "", ""])
            i += 1
            continue
        if t == "[" and atoms and not atoms[-1][1]:  # `r[j]`, `z[i][j]`: array indexing is a subscript
            depth, j = 1, i + 1
            while j < len(toks) and depth:
                depth += {"[": 1, "]": -1}.get(toks[j], 0)
                j += 1
            atoms[-1][2] += ("," if atoms[-1][2] else "") + _flat(_tree(toks[i + 1:j - 1]))
            i = j
            continue
        if name in _BOLD or name in _ROMAN:
            arg, i = _group(toks, i + 1)
            marker = "B" if name in _BOLD else "R"
            if len(arg) == 1 and (arg[0][1] or arg[0][2]):  # `\bm{x_0}` is `\bm{x}_0`: the letter's font
                atoms.append([f"{marker}({arg[0][0]})", arg[0][1], arg[0][2]])
                continue
            atoms.append([f"{marker}({_flat(arg)})", "", ""])
            continue
        if t == "{":
            arg, i = _group(toks, i)
            atoms.append([_flat(arg), "", ""])
            continue
        if t == "}":
            i += 1
            continue
        atoms.append([t, "", ""])
        i += 1
    return atoms


def _flat(atoms: list) -> str:
    return "".join(base + (f"^({sup})" if sup else "") + (f"_({sub})" if sub else "") for base, sup, sub in atoms)


def canon(latex: str) -> str:
    """The normal form of a symbol's spelling (module docstring)."""
    latex = _PLACEHOLDER_ARGS.sub("", (latex or "").strip())  # `\mathbb{1}[\cdot]`: the operator itself
    latex = _BLACKBOARD.sub(r"\\mathbb", latex)  # `\mathds{1}`, `\mathbbm{1}`: blackboard bold, as `\mathbb{1}`
    whole_set = re.fullmatch(r"\\\{(.*)\\\}", latex, re.S)  # `\{t^N\}`: the symbol of its members
    if whole_set and "\\{" not in whole_set.group(1):
        latex = whole_set.group(1)
    form = _flat(_tree(_tokens(latex)))
    m = re.fullmatch(r"\^\((.*)\)", form)  # `^{\top}`: a bare script is its mark
    return m.group(1) if m else form


def _text_key(text: str) -> str:
    """Quote comparison form: `\\ensuremath`, `\\xspace` and text-style commands (`\\textsc`, `\\emph`, … their
    words kept), braces, `~`, whitespace and closing punctuation dropped; TeX's
    quote ligatures (``…'') written as the characters they print (“…”), as plain text writes them."""
    text = re.sub(r"\\(?:ensuremath|xspace|textsc|textbf|textit|textsl|emph)\b", "", text or "")
    text = text.replace("``", "\u201c").replace("''", "\u201d")
    return re.sub(r"[{}\s~]", "", text).rstrip(";,.:")


# --- the paper's macros, to expand gold quotes -----------------------------------------------------------------

class PaperMacros:
    """The paper's macro table, and gold text expanded with it as the document model does for paragraphs."""

    def __init__(self, source: Path) -> None:
        from papermath.latex.macros import Expander, MacroTable
        from papermath.latex.tokens import tokenize
        from papermath.source import flatten, open_source
        flat = flatten(open_source(str(source)))
        self.table = MacroTable()
        for package in flat.package_files:
            Expander(self.table, package=True).expand(tokenize(package.text))
        Expander(self.table).expand(tokenize(flat.source_map.text))
        self._cache: dict[str, str] = {}

    def text(self, latex: str) -> str:
        if latex not in self._cache:
            from papermath.latex.macros import Expander
            from papermath.latex.plain import plain_text
            from papermath.latex.tokens import tokenize
            try:
                expanded = Expander(self.table).expand(tokenize(latex))
                self._cache[latex] = plain_text(expanded, latex)
            except Exception:  # noqa: BLE001 - a gold string the tokenizer rejects is compared unexpanded
                self._cache[latex] = latex
        return self._cache[latex]

    def math(self, latex: str) -> str:
        """A formula (a gold key or an `over` item) with the paper's macros expanded."""
        return self.text(f"${latex}$").strip().strip("$")


# --- scoring ---------------------------------------------------------------------------------------------------

@dataclass
class Tally:
    equations: int = 0
    symbols: int = 0
    defined: int = 0
    quote_right: int = 0
    false_undefined: int = 0
    mentioned_only: int = 0
    role_right: int = 0
    shape_stated: int = 0
    shape_right: int = 0
    kind_right: int = 0
    reductions: int = 0
    reductions_right: int = 0
    entirely_right: int = 0
    causes: Counter = field(default_factory=Counter)
    # Per equation not entirely right: the spoiler groups (SPOILERS) that keep it from being right. `spoiled_by`
    # counts the equations each group spoils; `only` the equations that group alone spoils (fixing that group
    # alone would make them entirely right); `combinations` the sets of groups.
    spoiled_by: Counter = field(default_factory=Counter)
    only: Counter = field(default_factory=Counter)
    only_with_quote: Counter = field(default_factory=Counter)  # spoiled by that group and at most quotes
    combinations: Counter = field(default_factory=Counter)

    def add(self, other: Tally) -> None:
        for name in self.__dataclass_fields__:
            value = getattr(self, name)
            if isinstance(value, Counter):
                value.update(getattr(other, name))
            else:
                setattr(self, name, getattr(self, name) + getattr(other, name))


# What can spoil an equation, one group per condition of "entirely right" (module docstring).
SPOILERS = ("equation not found", "no row", "quote", "undefined claim", "role", "shape", "kind", "reductions")


def _spoiler(what: str, cause: str) -> str:
    """The spoiler group of a miss."""
    if what == "quote" and cause in ("gold undefined, quoted", "conventional listed undefined",
                                     "gold undefined, not listed"):
        return "undefined claim"
    return {"row": "no row", "equation": "equation not found"}.get(what, what)


def _spoilers(found: list[Miss]) -> frozenset[str]:
    """The spoiler groups of one equation's misses; a symbol with no row is spoiled by that alone."""
    rowless = {m.symbol for m in found if m.what == "row"}
    return frozenset(_spoiler(m.what, m.cause) for m in found if m.what == "row" or m.symbol not in rowless)


@dataclass
class Miss:
    paper: str
    eq: str
    symbol: str
    what: str
    cause: str
    detail: str


def _unfont(form: str) -> str:
    return re.sub(r"[BR]\(|\\math(?:cal|bb|frak|scr)\b|\)", "", form)


def _base(form: str) -> str:
    """The first atom of a normal form, its scripts dropped (`B(x)^(w)_(0)` → `B(x)`)."""
    depth = 0
    for k, ch in enumerate(form):
        depth += {"(": 1, ")": -1}.get(ch, 0)
        if depth == 0 and ch in "^_" and k:
            return form[:k]
    return form


def _rows_for(gold_key: str, gold: dict, rows: list[dict], macros: PaperMacros) -> list[dict]:
    """The rows a gold symbol matches: exact normal forms first; then, only when exactly one row matches,
    with fonts ignored; then the same on the first atom alone (`Q^1` ↔ a row that dropped the label)."""
    forms = list(dict.fromkeys(canon(f) for key in [gold_key] + list(gold.get("merged_from", []))
                               for f in (key, macros.math(key))))
    spellings = [{canon(row.get("latex", "")), canon(row.get("symbol", ""))} for row in rows]
    # A row reads every form its equation writes the symbol in (`x^{k}_{j}` beside `x^{k}_{i}`): when no row is
    # spelled as the gold key, the row that also writes it (exactly) is that symbol's.
    if not any(spelled & set(forms) for spelled in spellings):
        also = [row for row in rows if {canon(f) for f in row.get("also_written") or ()} & set(forms)]
        if len(also) == 1:
            return also
    for step, loosen in enumerate((lambda f: f, _unfont, lambda f: _unfont(_base(f)))):
        wanted = [loosen(f) for f in forms]
        found = []
        for order, (row, spelled) in enumerate(zip(rows, spellings)):
            ranks = [k for k, f in enumerate(wanted) if f in {loosen(x) for x in spelled}]
            if ranks:
                found.append((min(ranks), order, row))
        if found and (step == 0 or len(found) == 1):
            return [row for _, _, row in sorted(found, key=lambda t: (t[0], t[1]))]
    return []


def _quote_contains(ours: str | None, gold_quotes: list[str], macros: PaperMacros) -> bool:
    if not ours:
        return False
    mine = _text_key(ours)
    return any(q and (_text_key(macros.text(q)) in mine or _text_key(q) in mine) for q in gold_quotes)


def _dims(shape, macros: PaperMacros) -> tuple[str, ...] | None:
    if shape is None:
        return None
    return tuple(_dim_form(canon(macros.math(_braced_word_scripts(str(d))).replace("ℓ", "\\ell"))) for d in shape)


def _braced_word_scripts(dim: str) -> str:
    """A dimension written in shorthand (`d_model`, `D^head`, `M_num`) has the word as its script."""
    return re.sub(r"([_^])([A-Za-z]{2,})\b", r"\1{\2}", dim)


def _dim_form(form: str) -> str:
    """A dimension's label in words is the same label in any font (`d_{\\text{model}}` is `d_model`)."""
    return re.sub(r"R\(([A-Za-z]+)\)", r"\1", form)


def _concrete(shape) -> bool:
    return shape is not None and len(shape) > 0 and any(d not in ("?", "") for d in shape)


_REDUCTION_OPS = {"product": "prod", "integral": "int", "expectation": "E", "mathbb{E}": "E", "Softmax": "softmax",
                  "mean": "mean", "topk": "topk", "sum": "sum", "E": "E"}


def _op(name: str) -> str:
    name = (name or "").strip().lstrip("\\")
    return _REDUCTION_OPS.get(name, name.lower())


def _over_items(over: str, macros: PaperMacros) -> tuple[frozenset[str], ...] | None:
    """Bound variables of a gold `over` ("\\x_0, \\noise, t"), as written and with the paper's macros expanded;
    None when it is written in words."""
    # a tuple drawn together ("(\\xw_0,\\xl_0), t") binds each of its members
    items = [p.strip().strip("()").strip() for p in re.split(r",(?![^{]*\})", over or "") if p.strip().strip("()")]
    if not items or any(".." in item or re.search(r"[A-Za-z]{3,}", re.sub(r"\\[A-Za-z]+", "", item))
                        for item in items):
        return None
    return frozenset(canon(i) for i in items), frozenset(canon(macros.math(i)) for i in items)


def _over_matches(ours: list[str], want: tuple[frozenset[str], ...]) -> bool:
    """Our bound variables equal the gold's, as written or with fonts ignored (the gold's `x` for the paper's
    bold x), as symbols are matched."""
    mine = frozenset(canon(v) for v in ours)
    return mine in want or frozenset(_unfont(v) for v in mine) in {frozenset(_unfont(v) for v in w) for w in want}


def _reductions_right(gold: list[dict], ours: list[dict], macros: PaperMacros) -> tuple[int, bool]:
    remaining = list(ours)
    matched = 0
    for g in gold:
        want_op, want_over = _op(g.get("op", "")), _over_items(g.get("over", ""), macros)
        for k, r in enumerate(remaining):
            if _op(r.get("op", "")) != want_op:
                continue
            if want_over is not None and not _over_matches(r.get("over", []), want_over):
                continue
            matched += 1
            del remaining[k]
            break
    extra = [r for r in remaining if _op(r.get("op", "")) in set(_REDUCTION_OPS.values()) | {"min", "max", "argmin",
                                                                                             "argmax", "prod"}]
    return matched, matched == len(gold) and not extra


def _find_equation(gold_key: str, gold_eq: dict, equations: list[dict]) -> dict | None:
    by_id = {e["id"]: e for e in equations}
    # A number can be printed twice (an appendix restates (8) as eq:8~24 beside another display eq:8~71): of the
    # displays carrying the gold's number, the one whose LaTeX is closest to the gold's.
    numbered = [e for e in equations if e.get("number") == gold_key]
    found = by_id.get(gold_key) or by_id.get(f"eq:{gold_key}")
    if len(numbered) > 1 and gold_eq.get("latex"):
        want = canon(gold_eq["latex"])
        found = max(numbered, key=lambda e: (difflib.SequenceMatcher(None, want, canon(e.get("latex", ""))).ratio(),
                                             -numbered.index(e)))
    elif numbered:
        found = numbered[0]
    line = gold_eq.get("line")
    if line and (found is None or abs(found.get("line", 0) - line) > 3):
        near = [e for e in equations if abs(e.get("line", 0) - line) <= 3]
        if near:
            found = min(near, key=lambda e: abs(e["line"] - line))
    return found


def score_equation(paper: str, key: str, gold_eq: dict, ours: dict | None, macros: PaperMacros,
                   misses: list[Miss]) -> Tally:
    t = Tally(equations=1)
    first_miss = len(misses)
    if ours is None:
        t.causes["equation not found"] += 1
        t.symbols += len(gold_eq["symbols"])
        t.defined += sum(1 for g in gold_eq["symbols"].values() if g["defined"])
        misses.append(Miss(paper, key, "-", "equation", "equation not found", ""))
        return t
    rows = ours.get("symbols", [])
    undefined = {canon(u) for u in ours.get("undefined", [])}
    mentioned = {canon(u) for u in ours.get("mentioned", [])}
    all_right = True
    for gkey, g in gold_eq["symbols"].items():
        t.symbols += 1
        matched = _rows_for(gkey, g, rows, macros)
        row = matched[0] if matched else None
        listed_undefined = any(canon(r.get("latex", "")) in undefined for r in matched)
        definition = (row or {}).get("definition") or {}
        quote = definition.get("quote")
        gold_quotes = [q for q in [g.get("quote")] + list(g.get("alt_quotes") or []) if q]
        symbol_right = True
        if row is None:
            t.causes["symbol: no row"] += 1
            misses.append(Miss(paper, key, gkey, "row", "no row", ", ".join(r["latex"] for r in rows)[:160]))
            symbol_right = False
        if g["defined"]:
            t.defined += 1
            if listed_undefined:
                t.false_undefined += 1
            elif any(canon(r.get("latex", "")) in mentioned for r in matched):
                t.mentioned_only += 1
            if _quote_contains(quote, gold_quotes, macros):
                t.quote_right += 1
            else:
                symbol_right = False
                if row is not None:
                    cause = _quote_cause(row, quote, gold_quotes, listed_undefined, macros)
                    t.causes["quote: " + cause] += 1
                    first = (gold_quotes or [""])[0]  # a defined symbol the gold gives no quote for
                    misses.append(Miss(paper, key, gkey, "quote", cause, f"ours: {quote!r} | gold: {first!r}"))
        elif row is not None:
            # "mentioned, not defined" (the mention as its evidence) claims no definition, as the issue asks of a
            # symbol the paper never defines; a quote holding one of the gold's alternates is what the gold accepts
            reported_mentioned = any(canon(r.get("latex", "")) in mentioned for r in matched) and \
                definition.get("strength") != "defines"
            accepted = bool(gold_quotes) and _quote_contains(quote, gold_quotes, macros)
            if quote and not g.get("conventional") and not reported_mentioned and not accepted:
                t.causes["gold undefined: papermath quotes something"] += 1
                misses.append(Miss(paper, key, gkey, "quote", "gold undefined, quoted", repr(quote)[:200]))
                symbol_right = False
            elif g.get("conventional") and listed_undefined:
                t.causes["gold conventional: listed undefined"] += 1
                misses.append(Miss(paper, key, gkey, "quote", "conventional listed undefined", ""))
                symbol_right = False
            elif not g.get("conventional") and not listed_undefined and not quote and not reported_mentioned:
                t.causes["gold undefined: not listed undefined"] += 1
                misses.append(Miss(paper, key, gkey, "quote", "gold undefined, not listed", ""))
                symbol_right = False
        roles = {g["role"]} | set(g.get("alt_roles") or []) | set(g.get("role_alt") or [])
        if row is not None and row.get("role") in roles:
            t.role_right += 1
        else:
            symbol_right = False
            if row is not None:
                t.causes[f"role: {row.get('role')} for {g['role']}"] += 1
                misses.append(Miss(paper, key, gkey, "role", f"{row.get('role')} for {g['role']}",
                                   str(row.get("role_cue"))[:120]))
        ours_shape = _dims(row.get("shape"), macros) if row is not None else None
        if g.get("shape") is not None:
            t.shape_stated += 1
            accepted = [_dims(g["shape"], macros)] + [_dims(s, macros) for s in g.get("alt_shapes") or []]
            if ours_shape in accepted or (g.get("debatable") and ours_shape is None):
                t.shape_right += 1
            else:
                symbol_right = False
                t.causes["shape: wrong or missing"] += 1
                misses.append(Miss(paper, key, gkey, "shape", "wrong or missing",
                                   f"ours {ours_shape} gold {g['shape']}"))
        elif _concrete(ours_shape) and not g.get("debatable"):
            symbol_right = False
            t.causes["shape: claimed, gold states none"] += 1
            misses.append(Miss(paper, key, gkey, "shape", "claimed, gold none", str(ours_shape)))
        all_right = all_right and symbol_right
    kinds = {gold_eq["kind"]} | set(gold_eq.get("alt_kinds") or []) | set(gold_eq.get("kind_alt") or [])
    if ours.get("kind") in kinds:
        t.kind_right += 1
    else:
        all_right = False
        t.causes[f"kind: {ours.get('kind')} for {gold_eq['kind']}"] += 1
        misses.append(Miss(paper, key, "-", "kind", f"{ours.get('kind')} for {gold_eq['kind']}",
                           str(ours.get("kind_cue"))))
    matched, red_ok = _reductions_right(gold_eq.get("reductions", []), ours.get("reductions", []), macros)
    t.reductions += len(gold_eq.get("reductions", []))
    t.reductions_right += matched
    if not red_ok:
        all_right = False
        t.causes["reductions: wrong"] += 1
        misses.append(Miss(paper, key, "-", "reductions", "wrong",
                           f"ours {[(r['op'], r['over']) for r in ours.get('reductions', [])]} gold "
                           f"{[(r['op'], r['over']) for r in gold_eq.get('reductions', [])]}"))
    t.entirely_right += int(all_right)
    _count_spoilers(t, _spoilers(misses[first_miss:]), all_right)
    return t


def _count_spoilers(t: Tally, spoilers: frozenset[str], all_right: bool) -> None:
    assert bool(spoilers) != all_right, spoilers  # every spoiled equation names what spoils it
    if spoilers:
        t.spoiled_by.update(spoilers)
        t.combinations[" + ".join(s for s in SPOILERS if s in spoilers)] += 1
        if len(spoilers) == 1:
            t.only.update(spoilers)
        if len(spoilers - {"quote"}) == 1:
            t.only_with_quote.update(spoilers - {"quote"})


def _quote_cause(row: dict, quote: str | None, gold_quotes: list[str], listed_undefined: bool,
                 macros: PaperMacros) -> str:
    if listed_undefined:
        return "listed undefined"
    if not quote:
        return f"no quote ({row.get('role')})"
    later = [d.get("quote") for d in row.get("redefinitions") or []] + \
        [c.get("quote") for c in row.get("candidates") or []]
    if any(_quote_contains(q, gold_quotes, macros) for q in later if q):
        return "right sentence ranked below another"
    mine = _text_key(quote)
    if any(mine and (mine in _text_key(macros.text(q)) or mine in _text_key(q)) for q in gold_quotes):
        return "clause cut shorter than the gold quote"
    return "another sentence"


# --- driver ----------------------------------------------------------------------------------------------------

def read_paper(paper: str) -> dict:
    from papermath.analysis.read import read_document
    from papermath.latex import load_document
    from papermath.render.reading import reading_json
    return reading_json(read_document(load_document(str(CORPUS / paper))))


def _pct(a: int, b: int) -> str:
    return f"{100 * a / b:5.1f}%" if b else "    -"


def print_table(rows: list[tuple[str, Tally]]) -> None:
    head = (f"{'paper':30} {'eqs':>4} {'syms':>5} {'def':>4} {'quote':>6} {'f-undef':>7} {'role':>6} "
            f"{'shape':>9} {'kind':>6} {'reduct':>7} {'right':>7}")
    print(head)
    print("-" * len(head))
    for name, t in rows:
        print(f"{name:30} {t.equations:4d} {t.symbols:5d} {t.defined:4d} {_pct(t.quote_right, t.defined):>6} "
              f"{_pct(t.false_undefined, t.defined):>7} {_pct(t.role_right, t.symbols):>6} "
              f"{t.shape_right:>3}/{t.shape_stated:<3}  {_pct(t.kind_right, t.equations):>6} "
              f"{_pct(t.reductions_right, t.reductions):>7} {t.entirely_right:>3}/{t.equations:<3}")


def print_spoilers(total: Tally, combinations: int) -> None:
    spoiled = total.equations - total.entirely_right
    print(f"\nspoilers of the {spoiled} equations not entirely right (equations spoiled by the group; in brackets "
          "the equations that group alone spoils, which fixing it alone would make entirely right, and those it "
          "spoils with at most quotes besides):")
    for name in sorted(SPOILERS, key=lambda n: (-total.only[n], -total.spoiled_by[n])):
        print(f"  {name:18} {total.spoiled_by[name]:4d}  [{total.only[name]} alone, "
              f"{total.only_with_quote[name]} with quotes]")
    print("  most frequent combinations:")
    for combination, n in total.combinations.most_common(combinations):
        print(f"    {n:4d}  {combination}")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--gold", default=str(GOLD), help="gold readings (default: ../shared/gold/readings/dev.json)")
    parser.add_argument("--papers", default="", help="comma-separated papers (default: every paper of the gold)")
    parser.add_argument("--json-dir", default=None, help="score saved `read --json` files DIR/<paper>.json")
    parser.add_argument("--misses", type=int, default=0, help="list this many misses (per kind of miss)")
    parser.add_argument("--what", default="", help="only list misses of these kinds (quote,role,kind,...)")
    parser.add_argument("--causes", type=int, default=25, help="how many causes to print")
    parser.add_argument("--combinations", type=int, default=10, help="how many spoiler combinations to print")
    parser.add_argument("--spoilers", action="store_true", help="list each spoiled equation's spoilers")
    args = parser.parse_args(argv)
    gold_path = Path(args.gold)
    if not gold_path.is_file() or not CORPUS.is_dir():
        print(f"{gold_path} or {CORPUS} not found: the gold lives in ../shared (CI and developer sessions only)")
        return 0
    gold = json.loads(gold_path.read_text())
    papers = [p for p in args.papers.split(",") if p] or [p for p in gold if gold[p]]
    total = Tally()
    per_paper: list[tuple[str, Tally]] = []
    misses: list[Miss] = []
    for paper in papers:
        if args.json_dir:
            reading = json.loads((Path(args.json_dir) / f"{paper}.json").read_text())
        else:
            reading = read_paper(paper)
        macros = PaperMacros(CORPUS / paper)
        tally = Tally()
        for key, gold_eq in gold[paper].items():
            ours = _find_equation(key, gold_eq, reading["equations"])
            tally.add(score_equation(paper, key, gold_eq, ours, macros, misses))
        per_paper.append((paper, tally))
        total.add(tally)
    print_table(per_paper + [("ALL", total)])
    print()
    print(f"quote right {total.quote_right}/{total.defined} = {_pct(total.quote_right, total.defined).strip()} of "
          f"defined symbols; false-undefined {total.false_undefined}/{total.defined} = "
          f"{_pct(total.false_undefined, total.defined).strip()} (and {total.mentioned_only} more reported as "
          f"mentioned, not defined); role {total.role_right}/{total.symbols} = "
          f"{_pct(total.role_right, total.symbols).strip()}; shape {total.shape_right}/{total.shape_stated}; "
          f"kind {total.kind_right}/{total.equations} = {_pct(total.kind_right, total.equations).strip()}; "
          f"reductions {total.reductions_right}/{total.reductions}; entirely right "
          f"{total.entirely_right}/{total.equations} = {_pct(total.entirely_right, total.equations).strip()}")
    print("\nmisses by cause:")
    for cause, n in total.causes.most_common(args.causes):
        print(f"  {n:4d}  {cause}")
    print_spoilers(total, args.combinations)
    if args.spoilers:
        print("\nspoilers per equation not entirely right:")
        by_equation: dict[tuple[str, str], list[Miss]] = {}
        for m in misses:
            by_equation.setdefault((m.paper, m.eq), []).append(m)
        for (paper, eq), found in by_equation.items():
            print(f"  {paper} ({eq}): " + "; ".join(f"{_spoiler(m.what, m.cause)} {m.symbol}"
                                                    + (f" [{m.cause}]" if m.what in ("role", "kind") else "")
                                                    for m in found))
    if args.misses:
        wanted = {w for w in args.what.split(",") if w}
        shown: Counter = Counter()
        print()
        for m in misses:
            if wanted and m.what not in wanted:
                continue
            if shown[m.what] >= args.misses:
                continue
            shown[m.what] += 1
            print(f"[{m.what}] {m.paper} ({m.eq}) {m.symbol}: {m.cause} — {m.detail}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
