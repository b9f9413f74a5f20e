"""How often papermath's formula trees agree with careful readers: structural gold, formula by formula.

    .venv/bin/python benchmarks/tree_accuracy.py [--gold DIR] [--json] [--failures] [--key KEY …]

Gold (`benchmarks/tree_gold/*.jsonl`, format in the round's TREE_GOLD_FORMAT notes) was written by readers
who never saw papermath's trees: one record per formula, each a list of structural assertions (`apply`,
`product`, `power`, `sup_label`, `index`, `reduction`, `relation`, `statements`, `node`, …) that point at
parts of the formula with LaTeX fragments. The LaTeX itself is read from `../shared` at run time: for the
verdict sets (A, A-multiline-whole, B) from `../shared/gold/parser/verdicts.jsonl`, for new corpus records
from the paper under `../shared/corpus/papers/<paper>` (the equation found by id, checked against its
`latex_head`). A record may carry its own `latex` (test fixtures).

A formula is RIGHT when every assertion holds. Corpus formulas (sets A, A-multiline-whole, corpus) are
parsed with their paper, so the paper's notation decides what syntax cannot; set B (no paper) is parsed bare.
A decision papermath leaves unresolved-ambiguous at an asserted place fails that assertion. A fragment that
cannot be located is a gold problem: listed separately, and the formula is left out of the rates.

Fragments are located on TeX tokens (`\\name`, `\\x`, one character) with whitespace and sizing/spacing
commands dropped; `nth` (1-based) picks a later occurrence of an assertion's anchor (apply → `at`, else the
function; product → first factor; relation → left side; reduction → operator), and the assertion's other
fragments are the next occurrences after it. A tree node matches a fragment when it covers exactly the same
tokens (outer braces aside).

Prints the right-rate overall, per set, for multi-line displays and per error class; `--failures` also
prints each failing assertion with papermath's tree (never show that to the gold writers); `--json` prints
everything as one JSON object.
"""
from __future__ import annotations

import argparse
import json
import re
import sys
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Optional

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from papermath.errors import MathParseError, PapermathError  # noqa: E402
from papermath.math import ast as A  # noqa: E402
from papermath.math import tables as T  # noqa: E402

SHARED = ROOT.parent / "shared"
VERDICTS = SHARED / "gold" / "parser" / "verdicts.jsonl"
PAPERS = SHARED / "corpus" / "papers"
GOLD = ROOT / "benchmarks" / "tree_gold"

TARGETS = {"corpus (A + C)": 95.0, "B own": 95.0, "multi-line (all)": 90.0}
SET_NAMES = {"A": "A corpus-random", "A-multiline-whole": "A multi-line whole", "B": "B own",
             "corpus": "C new corpus"}
PAPER_SETS = {"A", "A-multiline-whole", "corpus", "fresh-corpus", "fresh-corpus-s3", "fresh-corpus-s4",
              "fresh-corpus-s6", "fresh-corpus-s7", "fresh-corpus-s8"}
"""Sets read with their paper (`fresh-corpus`, `fresh-corpus-s3`: benchmarks/tree_fresh, corpus formulas judged after
the dev gold)."""

IGNORED = {
    r"\left", r"\right", r"\bigl", r"\bigr", r"\Bigl", r"\Bigr", r"\biggl", r"\biggr", r"\Biggl",
    r"\Biggr", r"\big", r"\Big", r"\bigg", r"\Bigg", r"\middle", r"\displaystyle", r"\textstyle",
    r"\,", r"\;", r"\:", r"\!", r"\quad", r"\qquad", "~",
}
# wrappers that change nothing in the structure (papermath's parser skips them too)
IGNORED |= {"\\" + name for name, skipped in T.TRANSPARENT.items() if skipped == 0}
TOKEN = re.compile(r"\\[A-Za-z]+|\\.|\S", re.DOTALL)
BRACKETS = {"(": ")", "[": "]", "{": "}", r"\{": r"\}", r"\lbrace": r"\rbrace", r"\langle": r"\rangle",
            "|": "|", r"\|": r"\|", r"\lVert": r"\rVert", r"\lvert": r"\rvert"}

Interval = tuple[int, int]
PRODUCT_OPS = ("\\cdot", "\\times", "*", "\\odot", "\\otimes")
"""Explicit multiplications (juxtaposition is a Product node)."""


# --- locating fragments ------------------------------------------------------------------------------

class Formula:
    """A formula's kept tokens (whitespace and sizing dropped) with their character offsets."""

    def __init__(self, latex: str) -> None:
        self.latex = latex
        self.toks: list[str] = []
        self.starts: list[int] = []
        self.ends: list[int] = []
        skip_group = False
        depth = 0
        skip = 0
        for m in TOKEN.finditer(latex):
            tok = m.group()
            if skip:
                skip -= 1
                continue
            if tok == r"\mathop" and re.match(r"\s*\{\s*\}", latex[m.end():]):
                skip = 2  # `\mathop{}\!\mathrm{d}x`: the empty operator is spacing, as `\!` is
                continue
            if skip_group:
                # `\color{blue}`: the colour's name is layout, like the command
                depth += tok == "{"
                depth -= tok == "}"
                if depth <= 0:
                    skip_group = False
                continue
            if tok in IGNORED:
                continue
            if tok in (r"\color", r"\ref", r"\eqref", r"\label"):
                skip_group, depth = True, 0  # colours and cross-references are no mathematics
                continue
            self.toks.append(tok)
            self.starts.append(m.start())
            self.ends.append(m.end())
        self._match = _brace_matches(self.toks)

    def locate(self, frag: str, nth: int = 1, start: int = 0, end: Optional[int] = None) -> Optional[Interval]:
        """Token interval [i, j) of the nth occurrence of `frag` within toks[start:end], brace-stripped."""
        needle = Formula(frag).toks if frag is not self.latex else self.toks
        if not needle:
            return None
        stop = len(self.toks) if end is None else end
        n = len(needle)
        seen = 0
        for i in range(start, stop - n + 1):
            if self.toks[i:i + n] == needle:
                seen += 1
                if seen == nth:
                    return (i, i + n)
        return None

    def interval(self, span: A.Span) -> Optional[Interval]:
        """The kept tokens a node span covers, brace-stripped (None when it covers none)."""
        s, e = span
        i = _bisect_left(self.starts, s)
        j = i
        while j < len(self.toks) and self.ends[j] <= e:
            j += 1
        if j <= i:
            return None
        return self.strip((i, j))

    def strip(self, iv: Interval) -> Interval:
        i, j = iv
        while j - i >= 2 and self.toks[i] == "{" and self._match.get(i) == j - 1:
            i, j = i + 1, j - 1
        return (i, j)

    def text(self, iv: Optional[Interval]) -> str:
        if iv is None:
            return ""
        return "".join(self.toks[iv[0]:iv[1]])

    def unbracket(self, iv: Interval) -> Optional[Interval]:
        """The interval inside one outer pair of brackets, if the interval is exactly such a pair."""
        i, j = iv
        if j - i >= 2 and BRACKETS.get(self.toks[i]) == self.toks[j - 1]:
            return (i + 1, j - 1)
        return None


def _bisect_left(values: list[int], x: int) -> int:
    lo, hi = 0, len(values)
    while lo < hi:
        mid = (lo + hi) // 2
        if values[mid] < x:
            lo = mid + 1
        else:
            hi = mid
    return lo


def _brace_matches(toks: list[str]) -> dict[int, int]:
    out: dict[int, int] = {}
    stack: list[int] = []
    for i, t in enumerate(toks):
        if t == "{":
            stack.append(i)
        elif t == "}" and stack:
            out[stack.pop()] = i
    return out


def _canon(text: str) -> str:
    """A fragment as node texts are compared: kept tokens, outer braces stripped."""
    f = Formula(text)
    return f.text(f.strip((0, len(f.toks)))) if f.toks else ""


# --- the tree, indexed by the tokens each node covers -------------------------------------------------

class TreeView:
    """Every node of a tree with its token interval; lookups by interval."""

    def __init__(self, tree: A.Node, formula: Formula, decisions: Iterable[Any] = ()) -> None:
        self.formula = formula
        self.tree = tree
        self.nodes: list[tuple[A.Node, Optional[Interval]]] = []
        self.at: dict[Interval, list[A.Node]] = defaultdict(list)
        self.iv: dict[int, Optional[Interval]] = {}
        for node in A.walk(tree):
            iv = formula.interval(node.span)
            self.nodes.append((node, iv))
            self.iv[id(node)] = iv
            if iv is not None:
                self.at[iv].append(node)
        self.ambiguous: set[Interval] = set()
        for d in decisions:
            if getattr(d, "status", None) == "ambiguous" or getattr(d, "strength", None) == "ambiguous":
                iv = formula.interval(d.span)
                if iv is not None:
                    self.ambiguous.add(iv)

    def interval_of(self, node: Any) -> Optional[Interval]:
        if node is None:
            return None
        if isinstance(node, tuple) and node and node[0] == "iv":
            return node[1]
        if id(node) in self.iv:
            return self.iv[id(node)]
        return self.formula.interval(node.span)

    def text_of(self, node: Any) -> str:
        return self.formula.text(self.interval_of(node))

    def nodes_at(self, iv: Interval) -> list[A.Node]:
        """Nodes covering exactly these tokens, outermost first, with the bases they share a span with."""
        out: list[A.Node] = []
        for node in self.at.get(iv, []):
            out.append(node)
        return out


def _chain(node: A.Node) -> Iterable[A.Node]:
    """A scripted atom and the bases under it (`x_0^w` → Indexed, the Symbol x{^w})."""
    while True:
        yield node
        if isinstance(node, (A.Indexed, A.Primed, A.Power, A.Transpose, A.Inverse, A.Labeled)):
            node = node.base
        else:
            return


# --- assertion checks ---------------------------------------------------------------------------------

class GoldProblem(Exception):
    """A fragment of the gold cannot be located in the formula."""


@dataclass
class Check:
    holds: bool
    why: str = ""


def _find(f: Formula, frag: Any, nth: int = 1, start: int = 0, end: Optional[int] = None,
          what: str = "fragment") -> Interval:
    if not isinstance(frag, str):
        raise GoldProblem(f"{what} is not a string: {frag!r}")
    got = f.locate(frag, nth, start, end)
    if got is None:
        raise GoldProblem(f"{what} {frag!r} (occurrence {nth}) not found")
    return f.strip(got)


def _factors(node: A.Node) -> list[A.Node]:
    if isinstance(node, A.Product):
        out: list[A.Node] = []
        for factor in node.factors:
            out.extend(_factors(factor) if isinstance(factor, A.Product) else [factor])
        return out
    if isinstance(node, A.BinOp) and node.op in PRODUCT_OPS:
        return _factors_operand(node.left) + _factors_operand(node.right)
    return [node]


def _factors_operand(node: A.Node) -> list[A.Node]:
    if isinstance(node, A.Product) or (isinstance(node, A.BinOp) and node.op in PRODUCT_OPS):
        return _factors(node)
    return [node]


def _operands(node: A.Node) -> list[A.Node]:
    """The factors of an explicit multiplication with its right operand whole (`X \\cdot \\Delta B` → X, ΔB)."""
    if isinstance(node, A.BinOp) and node.op in PRODUCT_OPS:
        return _factors_operand(node.left) + [node.right]
    return _factors(node)


def _contiguous(seq: list[Optional[Interval]], want: list[Interval]) -> bool:
    n = len(want)
    return any(seq[i:i + n] == want for i in range(len(seq) - n + 1))


def _decided(view: TreeView, iv: Optional[Interval]) -> bool:
    return iv is None or iv not in view.ambiguous


def check_apply(a: dict, f: Formula, view: TreeView) -> Check:
    nth = a.get("nth", 1)
    if "at" in a:
        at = _find(f, a["at"], nth, what="at")
        func = _find(f, a["apply"], 1, at[0], at[1], what="function")
        bound: Optional[int] = at[1]
    else:
        at = None
        func = _find(f, a["apply"], nth, what="function")
        bound = None
    cursor = func[1]
    want: dict[str, list[Interval]] = {}
    for key in ("args", "given", "params"):
        want[key] = []
        for arg in a.get(key, []):
            got = _find(f, arg, 1, cursor, bound, what=key[:-1])
            want[key].append(got)
            cursor = got[1]
    # the arguments pin the application down; the function is the same text at or after the anchor
    # (gold may name the first `\\log` of a formula and the arguments of a later one)
    func_text = f.text(func)
    candidates = [n for n in _applications(view) if
                  view.interval_of(n.func) == func or (view.text_of(n.func) == func_text and
                                                       (view.interval_of(n.func) or (-1,))[0] >= func[0])]
    if at is not None:
        candidates = [n for n in candidates if view.interval_of(n) == at] or candidates
    if not candidates:
        found = view.nodes_at(at) if at is not None else []
        what = ", ".join(sorted({type(n).__name__ for n in found})) or "no node there"
        return Check(False, f"no application of {a['apply']!r} ({what})")
    reasons = []
    for node in candidates:
        ok = _arguments_match(view, node, want)
        if not ok and at is None:
            # the gold's anchor is the first occurrence of the function's text; the arguments may belong to
            # a later application of the same function: locate them from that application on
            fiv, niv = view.interval_of(node.func), view.interval_of(node)
            if fiv is not None and niv is not None:
                try:
                    cursor, again = fiv[1], {}
                    for key in ("args", "given", "params"):
                        again[key] = []
                        for arg in a.get(key, []):
                            got = _find(f, arg, 1, cursor, niv[1], what=key[:-1])
                            again[key].append(got)
                            cursor = got[1]
                    ok = _arguments_match(view, node, again)
                except GoldProblem:
                    ok = False
        if not ok:
            got_args = [view.interval_of(x) for x in _args(node)]
            got_given = [view.interval_of(x) for x in getattr(node, "given", ())]
            reasons.append(f"arguments {[f.text(x) for x in got_args]} given {[f.text(x) for x in got_given]}")
            continue
        if getattr(node, "certainty", "") == "ambiguous" or not _decided(view, view.interval_of(node)):
            return Check(False, "left ambiguous (application or product)")
        return Check(True)
    return Check(False, "; ".join(dict.fromkeys(reasons)))


@dataclass(frozen=True)
class _Operator:
    """An operator with an axis written before its bracketed operand (`\\operatorname{Softmax}_j(z)`): an
    application of `Softmax_j` to z, stood in for as an Apply over token intervals."""

    func: tuple
    args: tuple
    given: tuple = ()
    params: tuple = ()
    certainty: str = "known"
    span: tuple = (0, 0)


def _applications(view: TreeView) -> list[Any]:
    """Applications, divergences (`D_{KL}(p \\| q)` applies D to p and q), and operators with an axis applied to
    a bracketed operand (`\\operatorname{Softmax}_j(z)`)."""
    out: list[Any] = [n for n, _ in view.nodes if isinstance(n, A.Apply) or
                      (isinstance(n, A.Divergence) and not isinstance(n.func, A.Empty))]
    for n, iv in view.nodes:
        if isinstance(n, A.Reduction) and n.brackets == "()" and n.body is not None and iv is not None:
            body = view.interval_of(n.body)
            if body is not None and body[0] - 1 > iv[0]:
                out.append(_Operator(("iv", (iv[0], body[0] - 1)), (n.body,), span=n.span))
    return out


def _args(node: A.Node) -> tuple:
    return (node.left, node.right) if isinstance(node, A.Divergence) else node.args  # type: ignore[attr-defined]


def _arguments_match(view: TreeView, node: A.Node, want: dict[str, list[Interval]]) -> bool:
    got_args = [view.interval_of(x) for x in _args(node)]
    got_given = [view.interval_of(x) for x in getattr(node, "given", ())]
    got_params = [view.interval_of(x) for x in getattr(node, "params", ())]
    if not want["given"] and not want["params"]:
        # arguments written without a bar or `;` may be listed in any of the three, in order
        return got_args + got_given + got_params == want["args"] or got_args == want["args"]
    return got_args == want["args"] and got_given == want["given"] and \
        (got_params == want["params"] or not want["params"] and not got_params)


def check_product(a: dict, f: Formula, view: TreeView) -> Check:
    frags = a["product"]
    want = [_find(f, frags[0], a.get("nth", 1), what="first factor")]
    for frag in frags[1:]:
        want.append(_find(f, frag, 1, want[-1][1], what="next factor"))
    for node, _ in view.nodes:
        if isinstance(node, A.Product) or (isinstance(node, A.BinOp) and node.op in PRODUCT_OPS):
            ok = False
            whole = [node.left, node.right] if isinstance(node, A.BinOp) else []
            for factors in (_factors(node), _operands(node), whole):
                # (`h d_v \times d_{model}`: an explicit multiplication of two products, each operand whole)
                got = [view.interval_of(x) for x in factors]
                # a reduction factor may be named by its operator and scripts (`\beta T \mathbb{E}_t[…]`)
                got = [_operator_part(view, x, iv, want) for x, iv in zip(factors, got)]
                ok = ok or _contiguous(got, want)
            if ok:
                if not _decided(view, view.interval_of(node)):
                    return Check(False, "left ambiguous (product or application)")
                return Check(True)
    span = (want[0][0], want[-1][1])
    found = view.nodes_at(span)
    what = ", ".join(sorted({type(n).__name__ for n in found})) or "no node covers exactly these factors"
    return Check(False, f"no product of these factors ({what})")


ACCENTS = {"\\" + name for name in T.ACCENTS}


def _operator_part(view: TreeView, node: A.Node, iv: Optional[Interval], want: list[Interval]) -> Optional[Interval]:
    """A reduction's interval, or its operator-and-scripts part when a wanted factor names exactly that."""
    if isinstance(node, A.Reduction) and iv is not None and node.body is not None:
        body = view.interval_of(node.body)
        for w in want:
            if body is not None and w[0] == iv[0] and iv[0] < w[1] <= body[0]:
                return w
    return iv


def _script_nodes(view: TreeView, iv: Interval) -> list[A.Node]:
    """The scripted atom at these tokens and the bases under it. A fragment right after an accent (`g_t` in
    `\\tilde g_t`) is the accented atom: TeX sets the scripts on the accented letter."""
    nodes = view.nodes_at(iv)
    toks = view.formula.toks
    if not nodes and iv[0] > 0 and toks[iv[0] - 1] in ACCENTS:
        nodes = view.nodes_at((iv[0] - 1, iv[1]))
    if not nodes and iv[0] > 1 and toks[iv[0] - 1] == "{" and toks[iv[0] - 2].startswith("\\") and \
            toks[iv[0] - 2][1:2].isalpha() and iv[1] < len(toks) and toks[iv[1]] == "}":
        # `\overline{\Delta r}`, `\bm{x_{0}}`: the name inside an accent or a font command is the styled name
        nodes = view.nodes_at((iv[0] - 2, iv[1] + 1))
    toks = view.formula.toks
    if not nodes and iv[1] < len(toks) and toks[iv[1]] in ("^", "'"):
        # `\mathbf{q}_{t, i}` asserted on `\mathbf{q}_{t, i}^C`: the atom goes on with its other script
        end = iv[1] + 1
        if toks[iv[1]] == "^" and end < len(toks):
            if toks[end] == "{":
                depth = 0
                while end < len(toks):
                    depth += toks[end] == "{"
                    depth -= toks[end] == "}"
                    end += 1
                    if depth == 0:
                        break
            else:
                end += 1
        nodes = view.nodes_at((iv[0], end))
    out: list[A.Node] = []
    for node in nodes:
        out.extend(_chain(node))
    return out


def check_power(a: dict, f: Formula, view: TreeView) -> Check:
    iv = _find(f, a["power"], a.get("nth", 1), what="power")
    nodes = _script_nodes(view, iv)
    if not _decided(view, iv):
        return Check(False, "left ambiguous (label or power)")
    if any(isinstance(n, A.Power) for n in nodes):
        return Check(True)
    if any(isinstance(n, A.Inverse) for n in nodes) and a["power"].replace(" ", "").endswith("^{-1}"):
        return Check(True)  # `\gamma_t^{-1}`: the power -1 (papermath says inverse)
    return Check(False, f"not a power ({_kinds_text(nodes)})")


def check_sup_label(a: dict, f: Formula, view: TreeView) -> Check:
    iv = _find(f, a["sup_label"], a.get("nth", 1), what="sup_label")
    nodes = _script_nodes(view, iv)
    if not _decided(view, iv):
        return Check(False, "left ambiguous (label or power)")
    for n in nodes:
        if isinstance(n, A.Power):
            return Check(False, "read as a power")
        if (isinstance(n, A.Symbol) and (n.sup_label is not None or n.optimum or n.primes)) or \
                (isinstance(n, A.Labeled) and n.position == "sup") or isinstance(n, A.Primed) or \
                (isinstance(n, A.Annotated) and n.kind == "overbrace" and not isinstance(n.note, A.Empty)):
            return Check(True)  # a prime, or the name written over a brace, counts as a label
    return Check(False, f"no superscript label ({_kinds_text(nodes)})")


def check_sub_label(a: dict, f: Formula, view: TreeView) -> Check:
    iv = _find(f, a["sub_label"], a.get("nth", 1), what="sub_label")
    nodes = _script_nodes(view, iv)
    for n in nodes:
        if (isinstance(n, A.Symbol) and n.sub_label is not None) or (isinstance(n, A.Labeled) and n.position == "sub"):
            return Check(True)
    return Check(False, f"no subscript label ({_kinds_text(nodes)})")


def check_index(a: dict, f: Formula, view: TreeView) -> Check:
    iv = _find(f, a["index"], a.get("nth", 1), what="index")
    nodes = _script_nodes(view, iv)
    want = [_canon(x) for x in a.get("indices", [])]
    seen = []
    for n in nodes:
        if isinstance(n, A.Indexed):
            got = [view.text_of(x) for x in n.indices]
            if not want or got == want:
                return Check(True)
            # `z[i][j]`: nested index groups read as one list of indices
            inner = n.base
            while isinstance(inner, A.Indexed) and view.interval_of(inner) is not None:
                got = [view.text_of(x) for x in inner.indices] + got
                inner = inner.base
            if got == want:
                return Check(True)
            seen.append(got)
    if seen:
        return Check(False, f"indices {seen[0]}")
    return Check(False, f"not indexed ({_kinds_text(nodes)})")


def check_transpose(a: dict, f: Formula, view: TreeView) -> Check:
    iv = _find(f, a["transpose"], a.get("nth", 1), what="transpose")
    nodes = _script_nodes(view, iv)
    return Check(any(isinstance(n, A.Transpose) for n in nodes), f"no transpose ({_kinds_text(nodes)})")


def check_inverse(a: dict, f: Formula, view: TreeView) -> Check:
    iv = _find(f, a["inverse"], a.get("nth", 1), what="inverse")
    nodes = _script_nodes(view, iv)
    return Check(any(isinstance(n, A.Inverse) for n in nodes), f"no inverse ({_kinds_text(nodes)})")


EXPECTATION = "E"
"""The op of an expectation reduction (`\\mathbb{E}`, `\\mathop{\\mathbb{E}}`, `\\operatorname{E}`)."""


def _body_matches(f: Formula, view: TreeView, red: A.Reduction, want: Interval) -> bool:
    body = view.interval_of(red.body)
    if body is None:
        return False
    options = {body}
    if red.brackets and body[0] > 0:
        options.add((body[0] - 1, body[1] + 1))
    if isinstance(red.body, A.Group):
        inner = view.interval_of(red.body.body)
        if inner is not None:
            options.add(inner)  # `\arg\max_i [g_i + \log\pi_i]`: the brackets are the body's
    cond = view.interval_of(red.condition) if red.op == EXPECTATION and red.condition is not None else None
    if cond is not None and cond[0] == body[1] + 1 and f.toks[body[1]] in ("|", "\\mid"):
        # `\mathbb{E}[g_t | z_t]`: a conditional expectation's tree keeps the body g_t and its condition z_t; the
        # gold writes the body through its condition (and asserts the condition apart: see tree_fresh/README.md).
        # Only an expectation: no other reduction takes its condition after a bar inside its brackets
        options.add((body[0], cond[1]))
    wants = {want}
    inner = f.unbracket(want)
    if inner is not None:
        wants.add(inner)
    return bool(options & wants)


def check_reduction(a: dict, f: Formula, view: TreeView) -> Check:
    op = _find(f, a["reduction"], a.get("nth", 1), what="operator")
    candidates = [n for n, iv in view.nodes if isinstance(n, A.Reduction) and iv is not None and iv[0] == op[0]]
    candidates += [n for n, iv in view.nodes if isinstance(n, A.Reduction) and n not in candidates and
                   view.interval_of(n.operator) is not None and view.interval_of(n.operator)[0] == op[0]]
    if not candidates:
        found = [n for n, iv in view.nodes if iv is not None and iv[0] == op[0]]
        return Check(False, f"no reduction there ({_kinds_text(found)})")
    red = candidates[0]
    assert isinstance(red, A.Reduction)
    if "over" in a:
        want = sorted(_canon(v) for v in a["over"])
        got = sorted(view.text_of(v) for v in red.variables)
        if want != got:
            return Check(False, f"binds {got}, not {want}")
    if "body" in a:
        want_body = _find(f, a["body"], 1, op[1], what="body")
        if not _body_matches(f, view, red, want_body):
            return Check(False, f"body is {view.text_of(red.body)!r}")
    for piece in a.get("body_covers", []):
        want_piece = _find(f, piece, 1, op[1], what="body piece")
        body = view.interval_of(red.body)
        if body is None or not (body[0] <= want_piece[0] and want_piece[1] <= body[1]):
            return Check(False, f"body {view.text_of(red.body)!r} does not reach {piece!r}")
    if "distribution" in a:
        want_d = _canon(a["distribution"])
        got_d = {view.text_of(red.distribution)} | {view.text_of(s.operands[-1]) for s in red.samples
                                                     if isinstance(s, A.Relation)}
        if want_d not in got_d:
            return Check(False, f"distribution {sorted(got_d)}")
    if "condition" in a:
        want_c = _canon(a["condition"])
        got_c = {view.text_of(red.condition), view.text_of(red.domain)}
        if want_c not in got_c:
            return Check(False, f"condition {view.text_of(red.condition)!r}")
    return Check(True)


def _canon_relation(sign: str) -> str:
    sign = sign.strip()
    two = {"<=": "\\le", ">=": "\\ge", "!=": "\\ne"}
    return two.get(sign) or T.RELATIONS.get(sign, sign)


def check_relation(a: dict, f: Formula, view: TreeView) -> Check:
    nth = a.get("nth", 1)
    if "chain" in a:
        chain = a["chain"]
        parts = [_find(f, chain[0], nth, what="chain start")]
        for frag in chain[1:]:
            parts.append(_find(f, frag, 1, parts[-1][1], what="chain part"))
        operands = parts[0::2]
        ops = [_canon_relation(x) for x in chain[1::2]]
        for node, _ in view.nodes:
            if isinstance(node, A.Relation):
                got = [view.interval_of(x) for x in node.operands]
                if list(node.ops) == ops and got == operands:
                    return Check(True)
        return Check(False, "no such chain")
    lhs = _find(f, a["lhs"], nth, what="lhs")
    sign_iv = _find(f, a["relation"], 1, lhs[1], what="sign")
    rhs = _find(f, a["rhs"], 1, sign_iv[1], what="rhs")
    sign = _canon_relation(a["relation"])
    seen = []
    for node, _ in view.nodes:
        if isinstance(node, A.Relation):
            for i, op in enumerate(node.ops):
                left, right = view.interval_of(node.operands[i]), view.interval_of(node.operands[i + 1])
                if left == lhs:
                    seen.append(f"{view.text_of(node.operands[i])} {op} {view.text_of(node.operands[i + 1])}")
                if op == sign and left == lhs and right == rhs:
                    return Check(True)
    return Check(False, "sides are " + "; ".join(seen) if seen else "no relation with this left side")


def _statement_count(tree: A.Node) -> int:
    rows = tree.statements if isinstance(tree, A.Rows) else (tree,)
    count = 0
    for row in rows:
        if _is_annotation(row) and count:
            continue  # a row that is only a condition (`\text{s.t. } …`) qualifies the statement above it
        if isinstance(row, A.Sequence):
            count += sum(1 for item in row.items if not _is_annotation(item))
        else:
            count += 1
    return count


def _is_annotation(node: A.Node) -> bool:
    """A condition or prose that qualifies a statement (`\\text{for } i = 1, …`), not a statement of its own."""
    return (isinstance(node, A.Annotated) and node.kind == "condition") or isinstance(node, A.Text)


def check_statements(a: dict, f: Formula, view: TreeView) -> Check:
    got = _statement_count(view.tree)
    return Check(got == a["statements"], f"{got} statements")


NODE_KINDS: dict[str, tuple[type, ...]] = {
    "norm": (A.Norm,), "abs": (A.Abs,), "set": (A.SetLiteral,), "set_builder": (A.SetBuilder,),
    "interval": (A.Interval,), "tuple": (A.Tuple,), "group": (A.Group,), "concat": (A.Concat,),
    "indicator": (A.Indicator,), "fraction": (A.Frac,), "root": (A.Root,), "matrix": (A.Matrix,),
    "cases": (A.Cases,), "derivative": (A.Derivative,), "differential": (A.Differential,),
    "gradient": (A.Gradient,), "divergence": (A.Divergence,), "text": (A.Text,), "ellipsis": (A.Ellipsis_,),
    "number": (A.Number,), "symbol": (A.Symbol,), "power": (A.Power,), "apply": (A.Apply,),
    "relation": (A.Relation,),
}


def kinds(node: A.Node) -> set[str]:
    """The semantic kinds of the gold format a node is."""
    out = {k for k, types in NODE_KINDS.items() if isinstance(node, types)}
    if isinstance(node, A.Product) or (isinstance(node, A.BinOp) and node.op in PRODUCT_OPS):
        out.add("product")
    if isinstance(node, A.BinOp) and node.op == "+":
        out.add("sum")
    if isinstance(node, A.Reduction) and node.op == "sum":
        out.add("sum")
    if isinstance(node, A.BinOp) and node.op == "-":
        out.add("difference")
    if isinstance(node, A.UnaryOp) and node.op == "-":
        out.add("negation")
    if isinstance(node, A.Apply) and isinstance(node.func, A.Empty) and node.given:
        out.add("condition")
    if isinstance(node, A.Annotated) and node.kind == "condition":
        out.add("condition")
    if isinstance(node, A.Apply) and node.certainty == "ambiguous":
        out.discard("apply")
    return out


def _kinds_text(nodes: Iterable[A.Node]) -> str:
    names = sorted({type(n).__name__.rstrip("_") for n in nodes})
    return ", ".join(names) if names else "no node there"


def _base(node: A.Node) -> Optional[A.Node]:
    for name in ("base", "body", "func"):
        value = getattr(node, name, None)
        if isinstance(value, A.Node):
            return value
    return None


def _arg(node: A.Node) -> Optional[A.Node]:
    if isinstance(node, A.Apply) and node.args:
        return node.args[0]
    value = getattr(node, "body", None)
    return value if isinstance(value, A.Node) else None


def check_node(a: dict, f: Formula, view: TreeView) -> Check:
    iv = _find(f, a["node"], a.get("nth", 1), what="node")
    nodes = view.nodes_at(iv)
    if a["is"] == "symbol":
        # a scripted atom is the symbol it scripts (`\\Delta {x}_1`: the one name Δx, indexed by 1), however its
        # scripts' spans fall
        nodes = nodes + [n for n in _script_nodes(view, iv) if n not in nodes]
    if a["is"] == "derivative" and not any(isinstance(n, A.Derivative) for n in nodes):
        # `\frac{d}{d\alpha}` applied to what follows: the derivative node starts with the operator
        nodes = nodes + [n for n, niv in view.nodes if isinstance(n, A.Derivative) and niv is not None and
                         niv[0] == iv[0] and niv[1] > iv[1]]
    for node in nodes:
        if a["is"] not in kinds(node):
            continue
        if "base_is" in a:
            base = _base(node)
            if base is None or a["base_is"] not in kinds(base):
                continue
        if "arg_is" in a:
            arg = _arg(node)
            if arg is None or a["arg_is"] not in kinds(arg):
                continue
        return Check(True)
    return Check(False, f"is {_kinds_text(nodes)}")


def check_one_name(a: dict, f: Formula, view: TreeView) -> Check:
    iv = _find(f, a["one_name"], a.get("nth", 1), what="one_name")
    nodes = _script_nodes(view, iv)
    if not _decided(view, iv):
        return Check(False, "left ambiguous (one name or a product)")
    if any(isinstance(n, (A.Symbol, A.Opaque)) for n in nodes):
        return Check(True)
    if any(isinstance(n, A.Text) for n in nodes):
        return Check(True)
    # the letters of a name that carries labels (`SE` in `SE_\\theta^{(w)}`): the symbol starts here, is named so
    for node, niv in view.nodes:
        if isinstance(node, A.Symbol) and niv is not None and niv[0] == iv[0] and niv[1] > iv[1] and \
                f.toks[iv[1]] in ("_", "^", "'") and \
                (node.sub_label is not None or node.sup_label is not None or node.primes):
            return Check(True)  # the name, then its scripts
    return Check(False, f"is {_kinds_text(nodes)}")


def _straddles(view: TreeView, iv: Interval) -> Optional[A.Node]:
    for node, niv in view.nodes:
        if niv is None:
            continue
        if niv[0] < iv[0] < niv[1] < iv[1] or iv[0] < niv[0] < iv[1] < niv[1]:
            return node
    return None


def check_prose(a: dict, f: Formula, view: TreeView) -> Check:
    iv = _find(f, a["prose"], a.get("nth", 1), what="prose")
    for node, niv in view.nodes:
        if isinstance(node, A.Product) and niv is not None:
            for factor in node.factors:
                fiv = view.interval_of(factor)
                if isinstance(factor, A.Text) and fiv is not None and iv[0] <= fiv[0] and fiv[1] <= iv[1]:
                    return Check(False, "the prose is a factor of a product")
    node = _straddles(view, iv)
    if node is not None:
        return Check(False, f"a {type(node).__name__} runs across the prose's boundary")
    # the smallest node that holds the whole qualified statement must not multiply it into something
    holders = [(niv[1] - niv[0], n) for n, niv in view.nodes if niv is not None and niv[0] <= iv[0] and
               iv[1] <= niv[1]]
    if holders:
        smallest = min(holders, key=lambda x: x[0])[1]
        if isinstance(smallest, A.Product) and view.interval_of(smallest) != iv:
            return Check(False, "multiplied into a product")
    return Check(True)


LEAVES = (A.Symbol, A.Number, A.Text, A.Ellipsis_, A.Opaque)


def check_not_dropped(a: dict, f: Formula, view: TreeView) -> Check:
    iv = _find(f, a["not_dropped"], a.get("nth", 1), what="not_dropped")
    if view.nodes_at(iv):
        return Check(True)
    covered = set()
    for node, niv in view.nodes:
        if isinstance(node, LEAVES) and niv is not None:
            covered.update(range(niv[0], niv[1]))
    structural = set(T.RELATIONS) | set(T.BINARY_OPS) | {"\\stackrel", "\\overset", "\\underset", "\\mid"}
    missing = [f.toks[i] for i in range(iv[0], iv[1]) if i not in covered and f.toks[i] not in structural and
               (f.toks[i][0].isalnum() or (f.toks[i].startswith("\\") and f.toks[i][1:2].isalpha()))]
    return Check(not missing, f"dropped: {' '.join(missing)}")


def check_gradient(a: dict, f: Formula, view: TreeView) -> Check:
    op = _find(f, a["gradient"], a.get("nth", 1), what="gradient")
    grads = [n for n, iv in view.nodes if isinstance(n, A.Gradient) and iv is not None and iv[0] == op[0]]
    if not grads:
        return Check(False, "no gradient there")
    grad = grads[0]
    assert isinstance(grad, A.Gradient)
    if "wrt" in a:
        want = _canon(a["wrt"])
        if view.text_of(grad.wrt) != want:
            return Check(False, f"with respect to {view.text_of(grad.wrt)!r}")
    if "body" in a:
        body = _find(f, a["body"], 1, op[0], what="body")
        if view.interval_of(grad.body) != body:
            return Check(False, f"body is {view.text_of(grad.body)!r}")
    return Check(True)


CHECKS = {
    "apply": check_apply, "product": check_product, "power": check_power, "sup_label": check_sup_label,
    "sub_label": check_sub_label, "index": check_index, "transpose": check_transpose,
    "inverse": check_inverse, "reduction": check_reduction, "relation": check_relation,
    "chain": check_relation, "statements": check_statements, "node": check_node, "one_name": check_one_name,
    "prose": check_prose, "not_dropped": check_not_dropped, "gradient": check_gradient,
}


def assertion_kind(a: dict) -> Optional[str]:
    for kind in CHECKS:
        if kind in a:
            return "relation" if kind == "chain" else kind
    return None


# --- loading gold, LaTeX and papers -------------------------------------------------------------------

def load_gold(directory: Path) -> list[dict]:
    records: list[dict] = []
    seen: dict[str, str] = {}
    order = {"verdicts.jsonl": 0, "own.jsonl": 1, "corpus.jsonl": 2}
    for path in sorted(directory.glob("*.jsonl"), key=lambda p: (order.get(p.name, 9), p.name)):
        for lineno, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if not line.strip():
                continue
            try:
                rec = json.loads(line)
            except json.JSONDecodeError as error:
                print(f"{path.name}:{lineno}: not JSON ({error.msg}); line skipped", file=sys.stderr)
                continue
            key = rec.get("key")
            if key in seen:
                continue  # own.jsonl is superseded by verdicts.jsonl for the same key
            seen[key] = path.name
            rec["_file"] = f"{path.name}:{lineno}"
            records.append(rec)
    return records


def load_verdicts() -> dict[str, dict]:
    if not VERDICTS.is_file():
        return {}
    with VERDICTS.open(encoding="utf-8") as fh:
        return {r["key"]: r for r in map(json.loads, fh)}


class Papers:
    """Each corpus paper loaded once, with what papermath knows about its notation."""

    def __init__(self, bare: bool = False) -> None:
        self._cache: dict[str, Any] = {}
        self.bare = bare
        """Parse context records without their context (the formula alone, as set B is read)."""
        self._scratch: Optional[Any] = None

    def written(self, rec: dict, latex: str) -> Any:
        """The paper a context record stands for: its `context` sentences, the formula as a numbered display,
        then its `context_after` sentences ("where $W$ is …"), read by papermath as a one-page paper."""
        import tempfile
        if self._scratch is None:
            self._scratch = tempfile.TemporaryDirectory(prefix="tree_context_")
        folder = Path(self._scratch.name) / re.sub(r"[^A-Za-z0-9_-]", "_", rec.get("key", "record"))
        folder.mkdir(parents=True, exist_ok=True)
        body = (f"{rec.get('context', '')}\n\\begin{{equation}}\n{latex}\n\\end{{equation}}\n"
                f"{rec.get('context_after', '')}\n")
        text = ("\\documentclass{article}\n\\usepackage{amsmath,amssymb}\n" + rec.get("preamble", "")
                + "\n\\begin{document}\n" + body + "\\end{document}\n")
        (folder / "main.tex").write_text(text, encoding="utf-8")
        return _open_paper(folder)

    def get(self, name: str) -> Any:
        if name not in self._cache:
            self._cache[name] = _open_paper(PAPERS / name)
        return self._cache[name]


def _open_paper(path: Path) -> Any:
    """The paper as papermath reads it: the session (`papermath.open`) when it exists, else the document."""
    import papermath
    opener = getattr(papermath, "open", None)
    if opener is not None:
        return opener(str(path))
    from papermath.latex import load_document
    return load_document(str(path))


def _document(paper: Any) -> Any:
    return getattr(paper, "document", None) or getattr(paper, "doc", None) or paper


def equation_latex(rec: dict, paper: Any) -> Optional[str]:
    """A corpus record's LaTeX, found by id and checked against `latex_head` (or found by the head alone)."""
    doc = _document(paper)
    head = _canon(rec.get("latex_head", ""))
    equations = list(getattr(doc, "equations", ()))
    for eq in equations:
        if eq.id == rec.get("eq_id") and (not head or _canon(eq.latex).startswith(head[:30])):
            return eq.latex
    if str(rec.get("eq_id", "")).startswith("m:"):
        # an inline record is found among the inline formulas first: a display may start with the same symbol
        # (minp's `\mathcal{V}_{\text{min}}` opens a display too)
        found = inline_latex(rec, doc, head)
        if found is not None:
            return found
    for eq in equations:
        if head and _canon(eq.latex).startswith(head[:30]):
            return eq.latex
    if str(rec.get("eq_id", "")).startswith("m:"):
        return inline_latex(rec, doc, head)
    return None


def inline_latex(rec: dict, doc: Any, head: str) -> Optional[str]:
    """An inline formula's LaTeX: `m:<paragraph>:<k>` is the k-th `$…$` of the paragraph (the paper session's id),
    checked against `latex_head`; else the first inline formula of the paper with that head."""
    counts: dict[str, int] = {}
    found = None
    for m in getattr(doc, "inline_math", ()):
        k = counts.get(m.paragraph, 0)
        counts[m.paragraph] = k + 1
        same_head = not head or _canon(m.latex).startswith(head[:30])
        if f"m:{m.paragraph}:{k}" == rec["eq_id"] and same_head:
            return m.latex
        if found is None and head and same_head:
            found = m.latex
    return found


_INDEXES: dict[int, Any] = {}


def _notation_index(paper: Any) -> Any:
    """The paper's notation index (papermath.analysis.notation_index), built once; None where papermath has none."""
    index = getattr(paper, "notation", None)
    if index is not None:
        return index
    if id(paper) not in _INDEXES:
        try:
            from papermath.analysis.notation_index import build_index
        except ImportError:
            _INDEXES[id(paper)] = None
        else:
            _INDEXES[id(paper)] = build_index(_document(paper))
    return _INDEXES[id(paper)]


def parse_in_context(latex: str, paper: Any) -> tuple[A.Node, tuple]:
    """The tree papermath gives this formula: with its paper's notation, or bare when `paper` is None."""
    from papermath.math import parse
    if paper is not None:
        index = _notation_index(paper)
        if index is not None:
            result = index.parse_latex(latex)
        else:
            doc = _document(paper)
            operators = getattr(doc, "operators", {}) or {}
            functions = frozenset(operators.values()) | frozenset(operators)
            result = parse(latex, functions=functions)
    else:
        result = parse(latex)
    return result.tree, tuple(getattr(result, "decisions", ()))


# --- scoring ------------------------------------------------------------------------------------------

@dataclass
class Outcome:
    key: str
    set: str
    classes: list[str]
    multi_line: bool
    right: Optional[bool] = None
    failures: list[str] = field(default_factory=list)
    gold_problems: list[str] = field(default_factory=list)
    error: Optional[str] = None
    tree: str = ""
    assertions: int = 0
    held: int = 0


def score_record(rec: dict, verdicts: dict[str, dict], papers: Papers) -> Outcome:
    set_name = rec.get("set", "?")
    out = Outcome(rec.get("key", "?"), set_name, list(rec.get("classes", [])), bool(rec.get("multi_line")))
    latex = rec.get("latex")
    verdict = verdicts.get(out.key)
    if latex is None and verdict is not None:
        latex = verdict["latex"]
        out.multi_line = out.multi_line or bool(verdict.get("multi_line"))
    paper = None
    if latex is not None and (rec.get("context") or rec.get("context_after")) and not papers.bare:
        paper = papers.written(rec, latex)
    if set_name in PAPER_SETS and rec.get("paper"):
        try:
            paper = papers.get(rec["paper"])
        except PapermathError as error:
            out.error = f"paper {rec['paper']}: {error}"
            return out
        if latex is None:
            latex = equation_latex(rec, paper)
    if latex is None:
        out.gold_problems.append("the formula's LaTeX cannot be found (no verdict, no equation with this id/head)")
        return out
    try:
        tree, decisions = parse_in_context(latex, paper)
    except MathParseError as error:
        out.right = False
        out.error = f"does not parse: {error.message}"
        return out
    formula = Formula(latex)
    view = TreeView(tree, formula, decisions)
    out.tree = A.sexpr(tree)
    for a in rec.get("expect", []):
        kind = assertion_kind(a)
        if kind is None:
            out.gold_problems.append(f"unknown assertion {a}")
            continue
        try:
            result = CHECKS[kind](a, formula, view)
        except GoldProblem as problem:
            out.gold_problems.append(f"{kind}: {problem}")
            continue
        out.assertions += 1
        if result.holds:
            out.held += 1
        else:
            out.failures.append(f"{json.dumps(a, ensure_ascii=False)} — {result.why}")
    if out.gold_problems:
        return out
    out.right = not out.failures
    return out


def _rate(outcomes: list[Outcome]) -> tuple[int, int]:
    scored = [o for o in outcomes if o.right is not None]
    return sum(1 for o in scored if o.right), len(scored)


def summarize(outcomes: list[Outcome]) -> dict:
    rows: dict[str, tuple[int, int]] = {}
    rows["all"] = _rate(outcomes)
    for set_name, label in SET_NAMES.items():
        rows[label] = _rate([o for o in outcomes if o.set == set_name])
    for set_name in sorted({o.set for o in outcomes} - set(SET_NAMES)):
        rows[set_name] = _rate([o for o in outcomes if o.set == set_name])
    rows["corpus (A + C)"] = _rate([o for o in outcomes if o.set in ("A", "A-multiline-whole", "corpus")])
    rows["multi-line (all)"] = _rate([o for o in outcomes if o.multi_line or "MULTILINE" in o.classes])
    classes: dict[str, tuple[int, int]] = {}
    for cls in sorted({c for o in outcomes for c in o.classes}):
        classes[cls] = _rate([o for o in outcomes if cls in o.classes])
    assertions = (sum(o.held for o in outcomes if o.right is not None),
                  sum(o.assertions for o in outcomes if o.right is not None))
    return {"sets": rows, "classes": classes, "assertions": assertions}


def _pct(right: int, total: int) -> str:
    return f"{100.0 * right / total:5.1f}%" if total else "    —"


def print_table(summary: dict, outcomes: list[Outcome], show_failures: bool, gold_dir: Path) -> None:
    files = sorted({o.set for o in outcomes})
    print(f"tree accuracy against {gold_dir} ({len(outcomes)} gold formulas; sets: {', '.join(files)})")
    print(f"{'':28} {'right':>6} {'of':>5} {'rate':>7}  target")
    for label, (right, total) in summary["sets"].items():
        if not total and label != "all":
            continue
        target = TARGETS.get(label)
        mark = ""
        if target is not None and total:
            mark = f"≥{target:.0f}% " + ("met" if 100.0 * right / total >= target else "NOT met")
        print(f"{label:28} {right:6} {total:5} {_pct(right, total):>7}  {mark}")
    held, total = summary["assertions"]
    print(f"{'assertions holding':28} {held:6} {total:5} {_pct(held, total):>7}")
    print()
    print("per error class (formulas whose gold names the class):")
    for cls, (right, total) in summary["classes"].items():
        print(f"  {cls:26} {right:6} {total:5} {_pct(right, total):>7}")
    problems = [o for o in outcomes if o.gold_problems]
    if problems:
        print()
        print(f"unlocatable gold ({len(problems)} formulas, left out of the rates):")
        for o in problems:
            for p in o.gold_problems:
                print(f"  {o.key}: {p}")
    errors = [o for o in outcomes if o.error]
    if errors:
        print()
        print("formulas papermath could not read:")
        for o in errors:
            print(f"  {o.key}: {o.error}")
    if show_failures:
        print()
        print("failing assertions:")
        for o in outcomes:
            if o.right is False:
                print(f"  {o.key} [{o.set}] {' '.join(o.classes)}")
                for fail in o.failures:
                    print(f"      {fail}")
                print(f"      tree: {o.tree}")


def main(argv: Optional[list[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--gold", type=Path, default=GOLD, help="directory of gold *.jsonl files")
    parser.add_argument("--json", action="store_true", help="print the figures and outcomes as JSON")
    parser.add_argument("--failures", action="store_true",
                        help="list every failing assertion with papermath's tree (not for gold writers)")
    parser.add_argument("--key", action="append", default=[], help="score only these keys (repeatable)")
    parser.add_argument("--set", action="append", default=[], help="score only these sets (repeatable)")
    parser.add_argument("--bare", action="store_true",
                        help="parse records that carry a paper `context` without it (the formula alone)")
    args = parser.parse_args(argv)
    if not args.gold.is_dir() or not list(args.gold.glob("*.jsonl")):
        print(f"skipped: no gold files in {args.gold}")
        return 0
    records = load_gold(args.gold)
    if args.key:
        records = [r for r in records if r.get("key") in set(args.key)]
    if args.set:
        records = [r for r in records if r.get("set") in set(args.set)]
    verdicts = load_verdicts()
    needs_shared = [r for r in records if "latex" not in r]
    if needs_shared and not SHARED.is_dir():
        print(f"skipped: {SHARED} is absent (the formulas' LaTeX is read from there)")
        return 0
    papers = Papers(bare=args.bare)
    outcomes = [score_record(rec, verdicts, papers) for rec in records]
    summary = summarize(outcomes)
    if args.json:
        print(json.dumps({"summary": summary, "outcomes": [o.__dict__ for o in outcomes]}, ensure_ascii=False,
                         indent=1))
    else:
        print_table(summary, outcomes, args.failures, args.gold)
    return 0


if __name__ == "__main__":
    sys.exit(main())
