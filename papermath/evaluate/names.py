"""The names a person types for an equation's symbols (`--set`, `--shape`, `--fn`), matched to the equation.

A user writes `A`, `gamma`, `x_t`, `p_ref(x^w_0|c)` or the paper's own `\\mathbf{A}`; the equation has
`{\\bm{A}}`, `\\gamma`, `\\mathbf{x}_t`, `p_{\\text{ref}}(\\mathbf{x}^w_0 \\mid \\mathbf{c})`. A name matches, in
this order, and only when the match is unique:

1. exactly (the same tree: `\\bm{x}` and `\\mathbf{x}` print alike);
2. up to fonts, `\\text`/`\\mathrm`, braces and spacing (`x_t` → `\\mathbf{x}_{t}`, `p_ref` → `p_{\\text{ref}}`);
3. a whole sequence through one of its entries: `\\gamma_i`, `\\mathbf{x}_k`, `a_{h,q,k}` where the equation
   binds i, k (or h): the value's leading axes run over those indices (`\\mathbf{v}_{\\theta, i}`: θ is a label
   and stays in the name, the axis runs over i);
4. the bare letter of an indexed symbol (`gamma` → the sequence `\\gamma_t`, `\\gamma_i`).

Anything else is an error that says what the equation has, closest names first ("did you mean").
Nothing is evaluated: names are parsed by papermath's formula parser.
"""
from __future__ import annotations

import difflib
import re
from dataclasses import dataclass
from typing import Any, Iterable, Mapping, Optional

from ..errors import MathParseError, UsageError
from ..math import ast as A
from ..math import parse, to_latex

_FONTS = re.compile(r"\\(?:mathbf|bm|boldsymbol|mathrm|mathit|mathsf|textrm|textit|textbf|text|operatorname\*?|"
                    r"ensuremath|pmb|mathnormal|left|right|big|Big|bigg|Bigg)(?![A-Za-z])")
_GREEK_LABELS = {"\\theta", "\\phi", "\\varphi", "\\psi", "\\omega", "\\vartheta"}
"""Greek subscripts that name a model's parameters (`v_{\\theta, i}`, `\\epsilon_\\theta`) when nothing binds them."""


@dataclass(frozen=True)
class Binding:
    """One typed name matched to the equation."""

    typed: str
    """The name as the user typed it (normalized to LaTeX)."""
    key: str
    """The key the evaluator uses: a symbol (`\\mathbf{x}`), a sequence's name, or a sub-expression's LaTeX."""
    how: str
    """exact, fonts, sequence, letter."""
    axes: tuple[str, ...] = ()
    """For a sequence: the indices its leading axes run over, in order."""


def loose(text: str) -> str:
    """A name without fonts, `\\text`, sizing, braces and spaces: `\\mathbf{x}_{t}` → `x_t`."""
    text = _FONTS.sub("", text)
    text = text.replace("\\mid", "|").replace("\\vert", "|").replace("\\lvert", "|").replace("\\rvert", "|")
    return re.sub(r"[{}\s]|\\[,;:!]|~", "", text)


def bound_variables(tree: A.Node) -> set[str]:
    """Every variable some operator of the equation binds: sums, products, max, 𝔼, set-builders, `for v ∈ S`."""
    bound: set[str] = set()
    for node in A.walk(tree):
        if isinstance(node, A.Reduction):
            bound.update(to_latex(v) for v in node.variables)
        elif isinstance(node, A.SetBuilder) and isinstance(node.element, A.Relation) and node.element.operands:
            bound.add(to_latex(node.element.operands[0]))
        elif isinstance(node, A.Annotated) and node.kind == "condition" and isinstance(node.body, A.Relation) \
                and node.body.ops == ("\\in",):
            bound.add(to_latex(node.body.operands[0]))  # `\\text{for } v \\in S`
        elif isinstance(node, A.Product):
            # `… \quad \text{for } v \in S`: the clause binds v.
            factors = list(node.factors)
            for first, second in zip(factors, factors[1:]):
                if isinstance(first, A.Text) and first.text.strip().lower() in ("for", "for all", "where"):
                    bound.add(to_latex(second))
    return bound


def position_indices(tree: A.Node) -> set[str]:
    """Free indices of a sequence the equation enumerates: `head_i` beside `head_1, \\cdots, head_h` runs over
    positions, so `W_i^Q` names a sequence over i as a bound index would (`x_t` beside a lone `x_0` does not)."""
    enumerated: set[str] = set()
    for node in A.walk(tree):
        items = getattr(node, "items", None) if not isinstance(node, A.Apply) else node.args
        if isinstance(items, tuple) and any(isinstance(i, A.Ellipsis_) for i in items):
            for item in items:
                for inner in A.walk(item):
                    if isinstance(inner, A.Indexed):
                        enumerated.add(to_latex(inner.base))
    out: set[str] = set()
    for node in A.walk(tree):
        if isinstance(node, A.Indexed) and to_latex(node.base) in enumerated:
            out |= {to_latex(i) for i in node.indices if isinstance(i, A.Symbol)}
    return out


def labels_as_indices(tree: A.Node, bound: set[str]) -> A.Node:
    """A subscript label that holds a variable the equation binds is an index after all (`\\mathbf{v}_{\\theta, i}`
    inside `\\sum_i`): the symbol becomes `Indexed(v, (θ, i))`."""
    from dataclasses import replace

    def labelled(node: A.Node) -> Optional[A.Node]:
        if isinstance(node, A.Symbol) and node.sub_label is not None:
            parts = node.sub_label.items if isinstance(node.sub_label, A.Sequence) else (node.sub_label,)
            if any(isinstance(p, A.Symbol) and to_latex(p) in bound for p in parts):
                return A.Indexed(replace(node, sub_label=None), tuple(parts), span=node.span)
            return node
        return None

    return A.rewrite(tree, labelled)


def is_axis_index(index: A.Node, bound: set[str], given: Iterable[str] = ()) -> bool:
    """True when a subscript is a position (i, t+1, 0, a bound variable), False when it is a label (θ, \\text{ref})."""
    if isinstance(index, (A.Number, A.BinOp, A.UnaryOp, A.Slice)):
        return True
    if isinstance(index, A.Text):
        return False
    if isinstance(index, A.Symbol):
        key = to_latex(index)
        if key in bound or key in set(given):
            return True
        if index.font in ("rm", "text", "op") or index.sub_label is not None or index.sup_label is not None:
            return False
        if key in _GREEK_LABELS:
            return False
        return True
    return False


def split_indexed(node: A.Indexed, bound: set[str], given: Iterable[str] = ()) -> tuple[str, list[A.Node]]:
    """(name, position indices) of an indexed symbol: `\\mathbf{v}_{\\theta, i}` → (`\\mathbf{v}_{\\theta}`, [i])."""
    from .lower import symbol_key

    given = set(given)
    labels = [i for i in node.indices if not is_axis_index(i, bound, given)]
    axes = [i for i in node.indices if is_axis_index(i, bound, given)]
    if labels:
        return to_latex(A.Indexed(node.base, tuple(labels))), axes
    return symbol_key(node), axes


_RUN = 6
"""Longest run of a product's factors that may be one named quantity."""


def _candidates(trees: list[A.Node]) -> dict[str, A.Node]:
    """Every sub-expression a name may denote, by its LaTeX."""
    out: dict[str, A.Node] = {}
    for tree in trees:
        for node in A.walk(tree):
            if isinstance(node, (A.Number, A.Empty, A.Text, A.Rows, A.Sequence, A.Relation, A.Ellipsis_)):
                continue
            out.setdefault(to_latex(node), node)
            if isinstance(node, A.Product) and len(node.factors) > 2:
                # a run of factors can be one quantity (`A^2 (s_t, a_t, b_t)` inside a longer product); runs
                # of at most _RUN factors, so a long product costs linear work, not cubic
                for i in range(len(node.factors)):
                    for j in range(i + 2, min(len(node.factors) + (0 if i == 0 else 1), i + _RUN + 1)):
                        run = A.Product(node.factors[i:j])
                        out.setdefault(to_latex(run), run)
    return out


def _nameable(node: A.Node) -> bool:
    if isinstance(node, (A.Symbol, A.Indexed, A.Labeled, A.Primed, A.Gradient)):
        return True
    if isinstance(node, A.Apply):
        return True
    if isinstance(node, A.Product):
        return any(isinstance(f, A.Tuple) for f in node.factors) or all(
            isinstance(f, A.Symbol) for f in node.factors)
    return False


def parse_name(text: str) -> A.Node:
    try:
        return parse(text).tree
    except MathParseError as error:
        raise UsageError(f"cannot read the symbol {text!r}: {error.message}") from None


_LAST_TABLE: tuple = ((), None)
"""The trees of the last `_table` and its result (the trees held, so their ids are never reused): `resolve_shapes`
asks once per declared shape about the same tree. One tuple, replaced whole (safe across threads)."""


def _table(trees: list[A.Node]):
    """(bound, positions, candidates, symbols, by_loose) of the equation's trees: what `resolve` matches names to
    (read only; the last one kept)."""
    global _LAST_TABLE
    from .lower import symbol_key

    last, found = _LAST_TABLE
    if found is not None and len(last) == len(trees) and all(a is b for a, b in zip(last, trees)):
        return found
    given = tuple(trees)
    bound: set[str] = set()
    for tree in trees:
        bound |= bound_variables(tree)
    trees = [labels_as_indices(tree, bound) for tree in trees]
    positions = set().union(*(position_indices(tree) for tree in trees)) if trees else set()
    candidates = _candidates(trees)
    symbols: dict[str, str] = {}
    for latex, node in candidates.items():
        if isinstance(node, A.Symbol):
            symbols.setdefault(symbol_key(node), latex)
        elif isinstance(node, A.Indexed):
            symbols.setdefault(symbol_key(node), symbol_key(node))
            name, _ = split_indexed(node, bound)
            symbols.setdefault(name, name)
    by_loose: dict[str, list[str]] = {}
    for key in list(candidates) + list(symbols):
        by_loose.setdefault(loose(key), [])
        if key not in by_loose[loose(key)]:
            by_loose[loose(key)].append(key)
    found = (bound, positions, candidates, symbols, by_loose)
    _LAST_TABLE = (given, found)
    return found


def resolve(typed: Mapping[str, Any], trees: list[A.Node], *, option: str = "--set",
            extra: Iterable[str] = (), shown: Mapping[str, str] | None = None) -> tuple[dict[str, Any], list[Binding]]:
    """Match typed names to the equation: (evaluator key → value, the bindings). `extra` are other names the
    option may legitimately use (dimensions of declared shapes). Raises UsageError naming close matches."""
    if not typed:
        return {}, []
    bound, positions, candidates, symbols, by_loose = _table(trees)
    extra = set(extra)
    out: dict[str, Any] = {}
    bindings: list[Binding] = []
    for name, value in typed.items():
        binding = _match(name, candidates, symbols, by_loose, bound | positions, extra)
        if binding is None:
            raise UsageError(_unknown(name, option, candidates, symbols, (shown or {}).get(name, name)))
        out[binding.key] = value
        bindings.append(binding)
    return out, bindings


def _match(name: str, candidates: dict[str, A.Node], symbols: dict[str, str], by_loose: dict[str, list[str]],
           bound: set[str], extra: set[str]) -> Binding | None:
    from .lower import symbol_key

    if name in extra:
        return Binding(name, name, "exact")
    try:
        node = labels_as_indices(parse(name).tree, bound)
        latex = to_latex(node)
    except MathParseError:
        node, latex = None, name
    # A sequence through one entry: `\gamma_i` with i bound names all of γ.
    if isinstance(node, A.Indexed):
        seq_name, axes = split_indexed(node, bound)
        if any(to_latex(i) in bound for i in axes) and all(isinstance(i, A.Symbol) for i in axes):
            for key in (seq_name, *by_loose.get(loose(seq_name), [])):
                if key in symbols:
                    return Binding(name, key, "sequence", tuple(to_latex(i) for i in axes))
    if latex in candidates:
        return Binding(name, _key_of(candidates[latex], latex), "exact")
    if latex in symbols:
        return Binding(name, latex, "exact")
    if latex in extra:
        return Binding(name, latex, "exact")
    matches = by_loose.get(loose(latex), [])
    if len(matches) == 1:
        key = matches[0]
        if key in candidates:
            return Binding(name, _key_of(candidates[key], key), "fonts")
        return Binding(name, key, "fonts")
    if len(matches) > 1:
        keys = {(_key_of(candidates[m], m) if m in candidates else m) for m in matches}
        if len(keys) == 1:
            return Binding(name, keys.pop(), "fonts")
        return None
    # The bare letter of an indexed symbol: `gamma` → γ_t, γ_i.
    if node is not None and isinstance(node, A.Symbol):
        letters = [k for k in symbols if loose(k) == loose(latex)]
        if len(letters) == 1:
            return Binding(name, letters[0], "letter")
    _ = symbol_key
    return None


def _key_of(node: A.Node, latex: str) -> str:
    from .lower import symbol_key

    if isinstance(node, A.Symbol):
        return symbol_key(node)
    return latex


def _unknown(name: str, option: str, candidates: dict[str, A.Node], symbols: dict[str, str], typed: str) -> str:
    # shortest first, ties in the order the equation writes them (a set's order would change with the hash seed)
    names = sorted(dict.fromkeys([k for k, n in candidates.items() if _nameable(n)] + list(symbols)), key=len)
    close = difflib.get_close_matches(loose(name), [loose(n) for n in names], n=3, cutoff=0.5)
    suggestions = [n for c in close for n in names if loose(n) == c][:3]
    listed = ", ".join(names[:12]) + (" …" if len(names) > 12 else "")
    hint = f"; did you mean {' or '.join(repr(s) for s in dict.fromkeys(suggestions))}?" if suggestions else ""
    return f"{option} {typed}: the equation has no symbol or sub-expression {typed!r}{hint} (it has: {listed})"
