"""Symbols of a formula: what is a quantity, what is a function or operator, which indices are bound.

A symbol's *key* is the symbol without its indices (`x_i` and `x_j` share the key `x`; bold `x` is another
key; `W^{UK}` and `W^{UV}` are different keys). Keys are printed by `papermath.math.to_latex`, so the same
symbol written in an equation and in the prose gets the same key.
"""
from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field, fields, replace
from typing import Any, cast

from ..math import ast, to_latex

@dataclass
class SymbolUse:
    """Everything one formula says about one symbol key (mutable while collecting)."""

    key: str
    """The symbol without its indices, labels kept (`s`, `N_{r}`, `W^{UK}`)."""
    node: ast.Node
    """The first node that wrote it."""
    kind: str
    """symbol, function or index."""
    indices: list[str] = field(default_factory=list)
    """Indices of its first occurrence (`s_{i,t}` → [i, t])."""
    all_indices: set[str] = field(default_factory=set)
    """Every index it carries anywhere in the formula."""
    first_written: str = ""
    sampled: bool = False
    lhs: bool = False
    known_function: bool = False
    """True when the parser's tables know the function (log, tanh, softmax, …)."""
    bound_by: str = ""
    """The reduction that binds it when that is an expectation or an optimisation (`E`, `argmin`, …): such a
    variable is a sample or the thing optimised, and gets a row; an index of a sum gets none."""
    written: list[str] = field(default_factory=list)
    """Every distinct form the formula writes it in (`x_{t,95}`, `x_{t,5}`), first first."""
    clause_lhs: bool = False
    """The left side of an equality in the display's `where`/`with` clause (`… \\text{ with } \\tilde{A}_h = …`):
    defined by this display, though not what its main statement defines (its lead-in is not about it)."""


@dataclass(frozen=True)
class FormulaSymbols:
    """The symbols of one formula."""

    uses: tuple[SymbolUse, ...]
    """Distinct symbols, functions and free indices, in order of first appearance."""
    bound: frozenset[str]
    """Variables bound by a reduction (never reported as undefined)."""
    reductions: tuple[ast.Reduction, ...]
    """Reduction nodes in order."""
    operators: tuple[str, ...]
    """Conventional operators used: transpose, norm, indicator, gradient, hadamard, …"""
    lhs_keys: tuple[str, ...]
    """Keys on the left-hand side of the first relation (what the formula defines)."""
    relation_ops: tuple[str, ...]
    """The relation operators of the top-level statement(s)."""
    notations: tuple[tuple[str, str], ...] = ()
    """Operator notations a sentence of the paper can define (`[\\cdot;\\cdot]` "denotes concatenation",
    `\\mathds{1}(\\cdot)` "the indicator function", `\\oplus`, `\\langle\\cdot,\\cdot\\rangle`): (the key its prose
    mentions carry, the form the reading shows), in order of first use."""


LABEL_EXPONENT_LETTERS = frozenset({"k", "l", "\\ell", "m", "n", "s", "r", "j"})


def label_exponent(exponent: ast.Node) -> bool:
    """`h^{k}`, `h^{\\prime k}`, `h^{k-1}`, `h^{(\\ell)}`: a superscript that numbers a layer or depth, not a power."""
    names = [n for n in ast.walk(exponent)]
    if any(isinstance(n, ast.Symbol) and n.name in ("\\prime", "'") for n in names):
        return True
    core = exponent.body if isinstance(exponent, ast.Group) else exponent
    if isinstance(core, ast.Symbol):
        return core.name in LABEL_EXPONENT_LETTERS and core.font is None
    if isinstance(core, ast.BinOp) and core.op in ("+", "-"):
        return isinstance(core.left, ast.Symbol) and core.left.name in LABEL_EXPONENT_LETTERS and \
            isinstance(core.right, ast.Number)
    return False


def braceless(latex: str) -> str:
    """A spelling with its braces and spaces dropped (`x_{t}` and `x_t`, `W^{ Q }` and `W^Q` compare equal)."""
    return re.sub(r"[{}\s]", "", latex)


def symbol_key(node: ast.Node) -> str | None:
    """The key of a symbol-like node (indices stripped), or None if it is not one."""
    if isinstance(node, ast.Power) and label_exponent(node.exponent):
        base = symbol_key(node.base)
        return None if base is None else f"{base}^{{{_label_text(node.exponent)}}}"
    while True:
        if isinstance(node, ast.Symbol):
            return to_latex(node)
        if isinstance(node, (ast.Indexed, ast.Transpose, ast.Inverse, ast.Primed)):
            node = node.base
            continue
        if isinstance(node, ast.Group) and isinstance(node.body, (ast.Symbol, ast.Indexed)):
            node = node.body
            continue
        return None


def _label_text(exponent: ast.Node) -> str:
    """A depth label without its step: `\\prime k` and `k-1` both name the k-th family (`h^{k}`)."""
    letters = [n for n in ast.walk(exponent) if isinstance(n, ast.Symbol) and n.name in LABEL_EXPONENT_LETTERS]
    primes = any(isinstance(n, ast.Symbol) and n.name in ("\\prime", "'") for n in ast.walk(exponent))
    text = to_latex(letters[0]) if letters else ""
    return ("\\prime " if primes else "") + text if text or primes else to_latex(exponent)


def _index_names(indices) -> list[str]:
    names = []
    for idx in indices:
        if isinstance(idx, ast.Symbol):
            names.append(to_latex(idx))
        else:
            names.append(to_latex(idx))
    return names


def principal_keys(tree: ast.Node) -> list[str]:
    """The symbols a formula in prose is *about*: `X \\in \\mathbb R^{…}` → X; `a, b` → a, b; `f(x)` → f."""
    node = tree
    if isinstance(node, ast.Rows) and node.statements:
        node = node.statements[0]
    if isinstance(node, ast.Relation) and node.operands:
        node = node.operands[0]
    if isinstance(node, ast.Sequence) or (isinstance(node, ast.Tuple) and node.open == ""):
        items = node.items
    else:
        items = (node,)
    keys = []
    for item in items:
        key = symbol_key(item)
        if key is None and isinstance(item, ast.Apply):
            key = symbol_key(item.func)
        if key is None and isinstance(item, ast.Reduction) and item.op == "softmax":
            key = None
        if key is not None:
            keys.append(key)
    return keys


ROW_BINDERS = frozenset({"E", "argmin", "argmax", "min", "max", "sup", "inf"})
"""Reductions whose variables keep a row: an expectation's samples, the variables optimised over."""

LHS_RELATIONS = frozenset({"=", ":=", "\\triangleq", "\\coloneqq", "\\equiv", "\\leftarrow", "\\approx",
                           "\\propto", "\\doteq", "\\stackrel{def}{=}", "\\overset{def}{=}"})


def _base_letter(node: ast.Node) -> str | None:
    while not isinstance(node, ast.Symbol):
        if isinstance(node, (ast.Indexed, ast.Transpose, ast.Inverse, ast.Primed, ast.Power)):
            node = node.base
        elif isinstance(node, ast.Group):
            node = node.body
        else:
            return None
    return node.name


# Bases whose one-letter subscripts are usually labels (N_r, K_r, d_k, n_h, T_max): counts and dimensions.
_DIMENSION_LIKE = re.compile(r"^(?:[A-Z]|d|n)$")


def merge_words(node: ast.Node, warnings: list[str] | None = None) -> ast.Node:
    """`lrate`, `step\\_num` written in plain italics are one name, not a product of letters."""
    if warnings is None:
        warnings = []
    if isinstance(node, ast.Product):
        factors = list(node.factors)
        merged: list[ast.Node] = []
        run: list[ast.Symbol] = []

        def flush():
            letters = "".join(f.name for f in run if f.name != "\\_")
            if len(run) > 1 and (len(letters) >= 3 and any(f.name == "\\_" for f in run) or len(letters) >= 4):
                name = "".join("_" if f.name == "\\_" else f.name for f in run)
                merged.append(ast.Symbol(name, "rm", span=(run[0].span[0], run[-1].span[1])))
                warnings.append(f"read {name} as one name, not a product of letters")
            else:
                merged.extend(run)
            run.clear()

        for f in factors:
            if isinstance(f, ast.Symbol) and f.font is None and not f.accents and f.sub_label is None and \
                    f.sup_label is None and (f.name.isalpha() or f.name == "\\_"):
                run.append(f)
            else:
                flush()
                merged.append(merge_words(f, warnings))
        flush()
        if len(merged) == 1:
            return merged[0]
        return ast.Product(tuple(merged), span=node.span)
    if isinstance(node, (ast.Symbol, ast.Number, ast.Text)):
        return node
    changes: dict[str, object] = {}
    for part in fields(cast(Any, node)):  # every node class is a dataclass
        if part.name == "span":
            continue
        value = getattr(node, part.name)
        if isinstance(value, ast.Node):
            new = merge_words(value, warnings)
            if new is not value:
                changes[part.name] = new
        elif isinstance(value, tuple) and value and all(isinstance(v, ast.Node) for v in value):
            new_items = tuple(merge_words(v, warnings) for v in value)
            if any(a is not b for a, b in zip(new_items, value)):
                changes[part.name] = new_items
    return replace(cast(Any, node), **changes) if changes else node


def _statements(tree: ast.Node) -> tuple[ast.Node, ...]:
    """Align rows, and `a = b, \\quad c = d` written on one row, are separate statements."""
    rows = tree.statements if isinstance(tree, ast.Rows) else (tree,)
    out: list[ast.Node] = []
    for row in rows:
        if isinstance(row, ast.Sequence) and any(isinstance(i, ast.Relation) for i in row.items):
            out.extend(row.items)
        else:
            out.append(row)
    return tuple(out)


# The words that open a clause defining what the display uses (`… \\text{ with } \\tilde{A}_h = …`,
# `…, \\text{where } a_i = …`): the left side of its equality is defined by this display as much as the main one.
_DEFINING_CLAUSE = frozenset({"where", "with", "here"})


def _where_clause_statements(statements) -> list[ast.Node]:
    """The equalities of the `where`/`with` clauses a display appends to its statements (not `for i = 1, …, n` or
    `if x = 0`, which range over or test a value)."""
    found: list[ast.Node] = []
    stack = [s for s in statements if isinstance(s, ast.Annotated)]
    while stack:
        node = stack.pop()
        if node.kind != "condition" or not isinstance(node.note, ast.Text) or \
                node.note.text.strip(" ,;:").lower() not in _DEFINING_CLAUSE:
            continue
        for item in _statements(node.body):
            if isinstance(item, ast.Relation):
                found.append(item)
    return found


def _named_gradient(node: ast.Node) -> ast.Gradient | None:
    """`\\nabla \\mathbf{F}(\\mathbf{z})` → `\\nabla \\mathbf{F}`: the plain gradient of a named symbol, without its
    arguments; None for anything else (`\\nabla_x f`, `\\nabla^2 f`, `\\nabla (a + b)`)."""
    if not isinstance(node, ast.Gradient) or node.wrt is not None or node.order is not None:
        return None
    body = node.body.func if isinstance(node.body, ast.Apply) else node.body
    if not isinstance(body, ast.Symbol):
        return None
    return ast.Gradient(wrt=None, order=None, body=body)


def _walk_names(node: ast.Node):
    """Like ast.walk, but a Symbol's labels (`W^{DKV}`, `FFN^{(s)}`) are part of its name, not names of their own."""
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        if not isinstance(current, ast.Symbol):
            stack.extend(reversed(list(ast.children(current))))


def _index_stats(statements, bound: set[str]) -> tuple[dict[str, set[str]], set[str]]:
    """For each simple index name: the base letters it indexes; and names that also stand alone as symbols."""
    carriers: dict[str, set[str]] = {}
    standalone: set[str] = set()
    index_nodes: set[int] = set()
    for stmt in statements:
        for node in _walk_names(stmt):
            if isinstance(node, ast.Indexed):
                letter = _base_letter(node.base) or "?"
                if any(not isinstance(i, ast.Number) for i in node.indices):
                    carriers.setdefault("#letter-indexed", set()).add(letter)
                for idx in node.indices:
                    index_nodes.add(id(idx))
                    if isinstance(idx, ast.Symbol) and not _DIMENSION_LIKE.match(letter):
                        carriers.setdefault(to_latex(idx), set()).add(letter)
            elif isinstance(node, ast.Reduction):
                for var in node.variables:
                    index_nodes.add(id(var))
    for stmt in statements:
        for node in _walk_names(stmt):
            if isinstance(node, ast.Symbol) and id(node) not in index_nodes:
                standalone.add(to_latex(node))
    return carriers, standalone


def _label_writes_names(label: ast.Node | None) -> bool:
    """A label that is an expression of other quantities (`X \\setminus A`) or a labelled quantity itself
    (`M_{\\text{num}}`), not a name of its own (`\\text{num}`, `QK`, `i`)."""
    if isinstance(label, ast.BinOp):
        return any(isinstance(n, ast.Symbol) for n in ast.children(label))
    return isinstance(label, ast.Symbol) and (label.sub_label is not None or label.sup_label is not None) and \
        label.font != "rm"


def _step_in_label(label: ast.Node | None) -> ast.Symbol | None:
    """The running letter of a step label in parentheses (`^{(t)}`, `^{(t+1)}`, `^{(k-1)}`): an iteration counter the
    label is written at, not a power; None for any other label."""
    if not isinstance(label, ast.Group) or label.open != "(":
        return None
    body = label.body
    if isinstance(body, ast.BinOp) and body.op in ("+", "-") and isinstance(body.right, ast.Number):
        body = body.left
    if isinstance(body, ast.Symbol) and body.font is None and not body.accents and body.sub_label is None and \
            body.sup_label is None and (len(body.name) == 1 and body.name.isalpha() or body.name == "\\ell"):
        return body
    return None


def _names_outside_indices(node: ast.Node):
    """The nodes of a bound variable without the subscripts of its indexed symbols (`x_t` → x, not t)."""
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        if isinstance(current, ast.Indexed):
            stack.append(current.base)
        else:
            stack.extend(reversed(list(ast.children(current))))


def _formulas_in_words(text: str, warnings: list[str]) -> tuple[ast.Node, ...]:
    """The statements of the formulas written inside words (`\\text{if $c_i < n$}`)."""
    from ..errors import MathParseError
    from ..math import parse
    found: list[ast.Node] = []
    for math in re.findall(r"\$([^$]+)\$", text):
        try:
            inner = parse(math).tree
        except (MathParseError, RecursionError):
            continue
        found.extend(merge_words(s, warnings) for s in _statements(inner))
    return tuple(found)


def collect(tree: ast.Node, ordinals: frozenset[str] = frozenset()) -> FormulaSymbols:
    """Walk one formula's tree and sort its names into symbols, functions, free and bound indices.

    A one-letter subscript is an *index* when it varies — bound by a reduction, written "the $i$-th …" in the
    paper (`ordinals`), carried by symbols of two different letters, or standing alone in the formula —
    and otherwise a *label* that belongs to the name (`N_r`, `d_k`, `K_r`).
    """
    warnings: list[str] = []
    statements = tuple(merge_words(stmt, warnings) for stmt in _statements(tree))
    collector = _Collector(statements, ordinals, _find_bindings(statements, warnings))
    collector.read_left_sides(statements)
    for stmt in statements:
        collector.visit(stmt)
    return collector.result()


@dataclass
class _Bindings:
    """What binds a formula's names, found in one walk of its statements before any name is sorted."""

    walked: list[ast.Node] = field(default_factory=list)
    """The statements walked: the formula's own, then those of the formulas written inside its words."""
    in_words: dict[int, tuple[ast.Node, ...]] = field(default_factory=dict)
    """Text node id → the statements of the formulas written inside it (`\\text{if $c_i < n$}`)."""
    bound: set[str] = field(default_factory=set)
    """Names a reduction, a set builder or an operator named in words binds."""
    bound_forms: set[str] = field(default_factory=set)
    """The variables as a reduction writes them (`b`, `x_t`)."""
    kept: dict[str, str] = field(default_factory=dict)
    """Names bound by an expectation or an optimisation (→ its operator): they keep their row."""
    sampled: set[str] = field(default_factory=set)
    """Names an expectation draws (its density's argument, the left side of a `\\sim` it is taken over)."""


def _find_bindings(statements: tuple[ast.Node, ...], warnings: list[str]) -> _Bindings:
    """Walk the statements, and the formulas written inside their words as they are found, for what binds."""
    found = _Bindings()
    pending = list(statements)
    while pending:
        stmt = pending.pop(0)
        found.walked.append(stmt)
        for node in ast.walk(stmt):
            bind = _BINDERS.get(type(node))
            if bind is not None:
                pending.extend(bind(node, found, warnings))
    return found


def _bind_words(node: ast.Text, found: _Bindings, warnings: list[str]) -> tuple[ast.Node, ...]:
    """`\\text{if $c_i < \\text{sorted}_j(c_j)[n]$}`: the formulas written inside words are the formula's too; their
    statements are walked next."""
    if "$" not in node.text:
        return ()
    found.in_words[id(node)] = _formulas_in_words(node.text, warnings)
    return found.in_words[id(node)]


def _bind_reduction(node: ast.Reduction, found: _Bindings, warnings: list[str]) -> tuple[ast.Node, ...]:
    if node.op == "E" and not node.variables and isinstance(node.under, ast.Apply):
        # `\\mathbb{E}_{p_X(x)}`, `\\mathbb{E}_{q(x_t | x)}`: the density's argument is the sample.
        for arg in node.under.args:
            for key in principal_keys(arg) or [k for k in [symbol_key(arg)] if k]:
                found.kept.setdefault(key, "E")
                found.sampled.add(key)
    for var in node.variables:
        found.bound_forms.add(to_latex(var))
        if node.op in ROW_BINDERS:
            for key in principal_keys(var) or [k for k in [symbol_key(var)] if k]:
                found.kept.setdefault(key, node.op)
        # An expectation over x_t binds the sample x_t, not its time t (ε_θ(x_t, t) still uses t);
        # a sum's variable binds every name it writes.
        for sub in (_names_outside_indices(var) if node.op in ROW_BINDERS else ast.walk(var)):
            if isinstance(sub, ast.Symbol):
                found.bound.add(to_latex(sub))
    for sample in node.samples:
        if isinstance(sample, ast.Relation) and sample.operands:
            found.sampled.update(principal_keys(sample.operands[0]))
    return ()


def _bind_word_operator_index(node: ast.Apply, found: _Bindings, warnings: list[str]) -> tuple[ast.Node, ...]:
    """\\text{sorted}_j(c_j): a subscript of an operator named in words that its argument carries runs over it
    (f_i(x_i), a family of functions, keeps its index)."""
    if not isinstance(node.func, ast.Indexed):
        return ()
    in_args = {to_latex(sub) for a in node.args for sub in _walk_names(a) if isinstance(sub, ast.Symbol)}
    for idx in node.func.indices:
        if isinstance(idx, ast.Symbol) and len(idx.name) == 1 and to_latex(idx) in in_args and \
                _is_function_word(node.func.base):
            found.bound.add(to_latex(idx))
    return ()


def _bind_set_builder(node: ast.SetBuilder, found: _Bindings, warnings: list[str]) -> tuple[ast.Node, ...]:
    """{s_{j,t} | 1 <= j <= N}, {i | l'_i >= M - n}: the set binds the names its element and its condition share
    (j, i); the others (N, l', M) are the paper's quantities."""
    element = node.element
    if isinstance(element, ast.Relation) and element.operands:
        element = element.operands[0]  # {v \in V : …}: v is the element, V its range
    in_element = {to_latex(sub) for sub in _walk_names(element) if isinstance(sub, ast.Symbol)}
    for sub in _walk_names(node.condition):
        if isinstance(sub, ast.Symbol) and len(sub.name) == 1 and sub.font is None and to_latex(sub) in in_element:
            found.bound.add(to_latex(sub))
    return ()


_BINDERS: dict[type, Callable[[Any, _Bindings, list[str]], tuple[ast.Node, ...]]] = {
    ast.Text: _bind_words, ast.Reduction: _bind_reduction, ast.Apply: _bind_word_operator_index,
    ast.SetBuilder: _bind_set_builder}
"""Node type → what a node of that type binds (and the statements it adds to the walk)."""


class _Collector:
    """The names of one formula's statements, sorted as they are visited (see `collect`)."""

    def __init__(self, statements: tuple[ast.Node, ...], ordinals: frozenset[str], bindings: _Bindings) -> None:
        self.ordinals = ordinals
        self.bindings = bindings
        self.carriers, self.standalone = _index_stats(tuple(bindings.walked), bindings.bound)
        self.counts = _enumeration_counts(bindings.walked)
        self.letter_indexed = self.carriers.get("#letter-indexed", set())
        # `x_0 = x_T + \int_T^0 f_t x_t dt`: a member at a fixed position that the left side defines is a quantity
        # of its own, not one entry of the sequence the right side runs over (its row says "defined here"; x_t's
        # does not)
        self.own_members = {to_latex(node) for node in _fixed_members_defined(statements)
                            if _base_letter(node.base) in self.letter_indexed}
        self.uses: dict[str, SymbolUse] = {}
        self.reductions: list[ast.Reduction] = []
        self.operators: list[str] = []
        self.notations: list[tuple[str, str]] = []
        self.lhs_keys: list[str] = []
        self.relation_ops: list[str] = []
        self.clause_keys: list[str] = []
        self.defined_gradients: dict[str, ast.Gradient] = {}

    # -- indices and keys ------------------------------------------------------------------------------------
    def is_index(self, idx: ast.Node, base_letter: str | None = None) -> bool:
        if isinstance(idx, ast.Number):
            # W_1, W_2, b_1 are different parameters — unless the formula also writes x_i (then x_1 is an entry).
            return base_letter in self.letter_indexed
        if isinstance(idx, (ast.Indexed, ast.Text)) or (isinstance(idx, ast.Symbol) and idx.font == "rm"):
            return False  # a subscript with its own subscript, or words: part of the name (\\lambda_{q_1})
        if isinstance(idx, ast.Relation) and idx.ops and all(op in ("\\mid", "|") for op in idx.ops):
            # `\\sigma_{t|t-1}`, `\\alpha_{t \\mid s}`: a transition from one step to another, a quantity of its own
            # (α_{t|s} = α_t/α_s), not the member σ_t of the schedule at a position
            return False
        if not isinstance(idx, ast.Symbol):
            return True  # t+1, <t, 1:T, numbers: positions
        name = to_latex(idx)
        return (name in self.bindings.bound or name in self.ordinals or len(self.carriers.get(name, ())) >= 2
                or name in self.standalone or len(name) > 1 and not name.startswith("\\"))

    def split(self, node: ast.Indexed) -> tuple[str | None, list[str], list[ast.Node]]:
        """(key with label subscripts, index names, index nodes)."""
        base_key = symbol_key(node.base)
        if base_key is None:
            return None, [], list(node.indices)
        if to_latex(node) in self.own_members:
            return f"{base_key}_{{{','.join(to_latex(i) for i in node.indices)}}}", [], []
        letter = _base_letter(node.base)
        labels = [i for i in node.indices if not self.is_index(i, letter)]
        indices = [i for i in node.indices if self.is_index(i, letter)]
        if labels and len(labels) == len(node.indices):
            key = f"{base_key}_{{{','.join(to_latex(i) for i in labels)}}}"
        elif labels:
            key = base_key
            indices = list(node.indices)
        else:
            key = base_key
        return key, [to_latex(i) for i in indices], indices

    def add(self, key: str, node: ast.Node, kind: str, indices: list[str] | None = None) -> SymbolUse:
        use = self.uses.get(key)
        if use is None:
            use = self.uses[key] = SymbolUse(key, node, kind, indices=list(indices or ()))
            use.first_written = to_latex(node)
        if kind == "function" and use.kind != "function":
            use.kind = "function"
        form = to_latex(node)
        if form not in use.written:
            use.written.append(form)
        use.all_indices.update(indices or ())
        return use

    def key_of(self, node: ast.Node) -> str | None:
        node = _accented_family(node) or node
        if _word_operator(node):
            return to_latex(_word_of(node))
        named = node.base if isinstance(node, ast.Indexed) else node
        if _is_function_word(named):
            return to_latex(named)
        if isinstance(node, ast.Indexed):
            return self.split(node)[0]
        return symbol_key(node)

    # -- what the statements define ----------------------------------------------------------------------------
    def read_left_sides(self, statements: tuple[ast.Node, ...]) -> None:
        """The keys the left sides of `=`-like relations define: the main statements' (`lhs_keys`) and their
        `where`-clauses' (`clause_keys`); and the relation operators of the main statements."""
        for stmt in (*statements, *_where_clause_statements(statements)):
            if not isinstance(stmt, ast.Relation):
                continue
            in_clause = not any(stmt is own for own in statements)
            if not in_clause:
                self.relation_ops.extend(stmt.ops)  # the kind is the main statement's, not its where-clause's
            if stmt.ops and stmt.ops[0] in LHS_RELATIONS:
                self._read_left_side(stmt, self.clause_keys if in_clause else self.lhs_keys)

    def _read_left_side(self, stmt: ast.Relation, keys: list[str]) -> None:
        first = stmt.operands[0]
        if isinstance(first, ast.Concat) and len(stmt.operands) > 2:
            first = stmt.operands[1]  # [k_1; …; k_n] = k = W c: the middle term is the one named
        if isinstance(first, ast.Empty) or first is None:
            return
        items = first.items if isinstance(first, (ast.Sequence, ast.Concat)) else (first,)
        for item in items:
            target = item.func if isinstance(item, ast.Apply) else item
            gradient = _named_gradient(target)
            if gradient is not None:
                # `\\nabla \\mathbf{F}(\\mathbf{z}) := […]`: the display defines the Jacobian as a quantity of its
                # own, which gets a row (an operator applied to a function it defines nowhere does not)
                self.defined_gradients[to_latex(gradient)] = gradient
                keys.append(to_latex(gradient))
                continue
            key = self.key_of(target)
            if key is not None:
                keys.append(key)

    # -- the visit -------------------------------------------------------------------------------------------
    def visit(self, node: ast.Node | None, in_index: bool = False) -> None:
        """Sort the names under `node` (`in_index`: it stands in a subscript that runs over positions)."""
        if node is None:
            return
        notation = notation_of(node)
        if notation is not None:
            self.notations.append(notation)
        visit_as = _VISITS.get(type(node))
        if visit_as is not None and visit_as(self, node, in_index):
            return
        for child in ast.children(node):
            self.visit(child, in_index)

    def visit_label(self, node: ast.Node) -> None:
        """p_{X \\setminus A}, \\mathbf{I}_{M_{\\text{num}}}: the quantities a label writes are symbols too."""
        if isinstance(node, ast.Symbol) and _label_writes_names(node.sub_label):
            self.visit(node.sub_label)
        step = _step_in_label(node.sup_label) if isinstance(node, ast.Symbol) else None
        if step is not None:
            self.visit(step, in_index=True)  # `m_i^{(t+1)}`: the mask at iteration t+1 runs over the iterations t

    # Each `_visit_*` sorts one node type's names and returns True when its children need no generic visit.
    def _visit_reduction(self, node: ast.Reduction, in_index: bool) -> bool:
        self.reductions.append(node)
        if node.op in ROW_BINDERS:
            for var in node.variables:
                self.visit(var)
            for sample in node.samples:
                if isinstance(sample, ast.Relation):
                    for operand in sample.operands[1:]:
                        self.visit(operand)
        for part in (node.lower, node.upper, node.domain, node.distribution, node.condition, node.body):
            self.visit(part)
        return True

    def _visit_apply(self, node: ast.Apply, in_index: bool) -> bool:
        func = node.func
        named = func.base if isinstance(func, ast.Indexed) else func
        if isinstance(named, ast.Text) and _is_function_word(named):
            self._visit_word_function(node, named)
            return True
        if isinstance(func, ast.Indexed):
            key, indices, index_nodes = self.split(func)
        else:
            key, indices, index_nodes = symbol_key(func), [], []
        if key is not None:
            use = self.add(key, func, "function", indices)
            use.known_function = use.known_function or node.certainty == "known"
            for idx in index_nodes:
                self.visit(idx, in_index=True)
            self.visit_label(func.base if isinstance(func, ast.Indexed) else func)
        else:
            self.visit(func)
        for part in node.args + node.given + node.params:
            self.visit(part)
        return True

    def _visit_word_function(self, node: ast.Apply, named: ast.Text) -> None:
        """\\texttt{MHSA}(…), \\text{clip}(…), \\text{MHA}_q(X): a function named in words (`named`)."""
        func = node.func
        indices = [to_latex(i) for i in func.indices] if isinstance(func, ast.Indexed) else []
        use = self.add(to_latex(named), func, "function", indices)
        # a word in lower case (sorted, clip) is the standard function of that name unless the paper says
        use.known_function = use.known_function or named.text.islower()
        if isinstance(func, ast.Indexed):
            for idx in func.indices:
                self.visit(idx, in_index=True)
        for part in node.args + node.given + node.params:
            self.visit(part)

    def _visit_labeled(self, node: ast.Labeled, in_index: bool) -> bool:
        if not _word_operator(node):
            return False
        # \text{Pr}_{\mu}^{\pi^1, \pi^2}: a distribution or operator named in words, with its scripts
        self.add(to_latex(_word_of(node)), node, "function")
        labelled: ast.Node = node
        while isinstance(labelled, ast.Labeled):
            self.visit(labelled.label)
            labelled = labelled.base
        return True

    def _visit_annotated(self, node: ast.Annotated, in_index: bool) -> bool:
        accented = _accented_family(node)
        if accented is None:
            return False
        self.visit(accented, in_index)
        return True

    def _visit_indexed(self, node: ast.Indexed, in_index: bool) -> bool:
        key, indices, index_nodes = self.split(node)
        if key is not None:
            self.add(key, node, "symbol", indices)
            for idx in node.indices:
                if id(idx) in self.counts:
                    self.add(to_latex(idx), idx, "symbol").kind = "symbol"
            self.visit_label(node.base)
            base = node.base
            while isinstance(base, (ast.Transpose, ast.Inverse, ast.Power, ast.Primed)):
                if isinstance(base, ast.Power):
                    self.visit(base.exponent)
                if isinstance(base, ast.Transpose):
                    self.operators.append("transpose")
                base = base.base
        else:
            self.visit(node.base)
        for idx in index_nodes:
            self.visit(idx, in_index=True)
        return True

    def _visit_symbol(self, node: ast.Symbol, in_index: bool) -> bool:
        key = to_latex(node)
        if node.name in _MARKS:
            return True
        if key in self.ordinals and not in_index:
            self.uses.setdefault(key, SymbolUse(key, node, "index", first_written=key))
            return True
        if in_index:
            if key not in self.uses and len(key) == 1 or key.startswith("\\") and key not in self.uses:
                self.uses.setdefault(key, SymbolUse(key, node, "index", first_written=key))
        else:
            self.add(key, node, "symbol")
            self.visit_label(node)
            if node.sub_label is not None and id(node.sub_label) in self.counts:
                self.add(to_latex(node.sub_label), node.sub_label, "symbol").kind = "symbol"
        return True

    def _visit_power(self, node: ast.Power, in_index: bool) -> bool:
        if not label_exponent(node.exponent):
            return False
        base = node.base
        key = symbol_key(node)
        if isinstance(base, ast.Indexed) and key is not None:
            _, indices, index_nodes = self.split(base)
            self.add(key, node, "symbol", indices)
            for idx in index_nodes:
                self.visit(idx, in_index=True)
            return True
        if key is not None:
            self.add(key, node, "symbol")
            return True
        return False

    def _visit_transpose(self, node: ast.Transpose, in_index: bool) -> bool:
        self.operators.append("transpose")
        return False

    def _visit_norm(self, node: ast.Norm, in_index: bool) -> bool:
        self.operators.append("norm")
        return False

    def _visit_indicator(self, node: ast.Indicator, in_index: bool) -> bool:
        self.operators.append("indicator")
        self.visit(node.condition)
        return True

    def _visit_gradient(self, node: ast.Gradient, in_index: bool) -> bool:
        self.operators.append("gradient")
        named = _named_gradient(node)
        if named is not None and to_latex(named) in self.defined_gradients:
            self.add(to_latex(named), named, "symbol")
        return False

    def _visit_binop(self, node: ast.BinOp, in_index: bool) -> bool:
        if node.op in _NAMED_PRODUCTS:
            self.operators.append(node.op)
        return False

    def _visit_divergence(self, node: ast.Divergence, in_index: bool) -> bool:
        self.operators.append("divergence")
        self.add(to_latex(node.func), node.func, "function")
        self.visit(node.left)
        self.visit(node.right)
        return True

    def _visit_relation(self, node: ast.Relation, in_index: bool) -> bool:
        if "\\sim" not in node.ops:
            return False
        for child in ast.children(node):
            self.visit(child, in_index)
        for key in principal_keys(node.operands[0]):
            if key in self.uses:
                self.uses[key].sampled = True
        return True

    def _visit_text(self, node: ast.Text, in_index: bool) -> bool:
        for stmt in self.bindings.in_words.get(id(node), ()):
            self.visit(stmt, in_index)
        return True

    def _visit_leaf(self, node: ast.Node, in_index: bool) -> bool:
        return True

    # -- the result ------------------------------------------------------------------------------------------
    def result(self) -> FormulaSymbols:
        uses, bindings = self.uses, self.bindings
        for key in self.lhs_keys:
            if key in uses:
                uses[key].lhs = True
        for use in uses.values():  # `[Q_1; Q_2] = X W^Q` defines Q (read with the index 1)
            if not use.lhs and written_form(use) in self.lhs_keys:
                use.lhs = True
            if not use.lhs and (use.key in self.clause_keys or written_form(use) in self.clause_keys):
                use.clause_lhs = True
        # An index bound by a sum is not a free symbol of the formula; a sample of an expectation and the variable
        # of an argmin are symbols the reader must know (they keep a row, marked with what binds them).
        kept = bindings.kept
        for key in list(uses):
            use = uses[key]
            if key in kept or written_form(use) in kept:
                use.bound_by = kept.get(key) or kept[written_form(use)]
                use.sampled = use.sampled or use.bound_by == "E" or key in bindings.sampled
                continue
            if key in bindings.bound and use.kind in ("symbol", "index") and not use.lhs and \
                    not _free_member(use, bindings.bound_forms):
                del uses[key]
        return FormulaSymbols(tuple(uses.values()), frozenset(bindings.bound), tuple(self.reductions),
                              tuple(dict.fromkeys(self.operators)), tuple(dict.fromkeys(self.lhs_keys)),
                              tuple(self.relation_ops), tuple(dict.fromkeys(self.notations)))


_MARKS = frozenset({"\\prime", "'", "\\dagger", "\\ast", "*", "\\cdot", "\\bullet", "\\cdots", "\\ldots"})
"""Marks and placeholders (π(·|s)), not quantities."""

_NAMED_PRODUCTS = frozenset({"\\odot", "\\otimes", "\\circ", "\\oplus"})
"""Binary operators a reading names among the formula's conventional operators."""

_VISITS: dict[type, Callable[[_Collector, Any, bool], bool]] = {
    ast.Reduction: _Collector._visit_reduction, ast.Apply: _Collector._visit_apply,
    ast.Labeled: _Collector._visit_labeled, ast.Annotated: _Collector._visit_annotated,
    ast.Indexed: _Collector._visit_indexed, ast.Symbol: _Collector._visit_symbol, ast.Power: _Collector._visit_power,
    ast.Transpose: _Collector._visit_transpose, ast.Norm: _Collector._visit_norm,
    ast.Indicator: _Collector._visit_indicator, ast.Gradient: _Collector._visit_gradient,
    ast.BinOp: _Collector._visit_binop, ast.Divergence: _Collector._visit_divergence,
    ast.Relation: _Collector._visit_relation, ast.Text: _Collector._visit_text,
    ast.Number: _Collector._visit_leaf, ast.Opaque: _Collector._visit_leaf, ast.Ellipsis_: _Collector._visit_leaf,
    ast.Empty: _Collector._visit_leaf}
"""Node type → how `_Collector.visit` sorts its names; every other type is visited through its children."""


def _fixed_members_defined(statements) -> list[ast.Indexed]:
    """The left sides (of `=`-like relations) written as one member at numbered positions (`x_0`, `W_{1,2}`)."""
    found = []
    for stmt in statements:
        if isinstance(stmt, ast.Relation) and stmt.ops and stmt.ops[0] in LHS_RELATIONS:
            first = stmt.operands[0]
            if isinstance(first, ast.Indexed) and first.indices and \
                    all(isinstance(i, ast.Number) for i in first.indices):
                found.append(first)
    return found


CONCAT_KEY = "[\\cdot;\\cdot]"
INNER_PRODUCT_KEY = "\\langle\\cdot,\\cdot\\rangle"
NORM_KEY = "\\|\\cdot\\|"
"""The prose key of a norm written with a placeholder ("We use $\\Vert \\cdot \\Vert$ to denote the spectral norm")."""


def notation_of(node: ast.Node) -> tuple[str, str] | None:
    """(prose key, shown form) of an operator notation the paper may define in words: a concatenation
    `[a; b]`, an inner product `\\langle a, b\\rangle`, a norm `\\|x\\|` ("where $\\|\\cdot\\|$ is the $\\ell_2$
    norm"), an indicator `\\mathds{1}(…)`, a direct sum
    `\\oplus`/`\\bigoplus`; None for anything else."""
    if isinstance(node, ast.Concat):
        return CONCAT_KEY, CONCAT_KEY
    if isinstance(node, ast.Delimited) and node.kind == "angle" and isinstance(node.body, ast.Tuple) and \
            len(node.body.items) == 2:
        return INNER_PRODUCT_KEY, INNER_PRODUCT_KEY
    if isinstance(node, ast.Indicator) and isinstance(node.symbol, ast.Symbol):
        return to_latex(node.symbol), to_latex(node.symbol)
    if isinstance(node, ast.Norm):
        return NORM_KEY, NORM_KEY
    if isinstance(node, ast.Reduction) and node.op == "direct_sum":
        return "\\oplus", to_latex(node.operator)
    if isinstance(node, ast.BinOp) and node.op == "\\oplus":
        return "\\oplus", "\\oplus"
    return None


def _accented_family(node: ast.Node) -> ast.Indexed | None:
    """`\\overline{\\mathrm{head}_i}` read as `\\bar{\\mathrm{head}}_i`: an accent over an indexed symbol marks another
    quantity (the normalised head), a family of its own, not a use of `head_i`."""
    if isinstance(node, ast.Annotated) and node.kind == "accent" and isinstance(node.note, ast.Text):
        body = node.body.body if isinstance(node.body, ast.Group) else node.body
        if isinstance(body, ast.Indexed) and isinstance(body.base, ast.Symbol):
            return replace(body, base=replace(body.base, accents=body.base.accents + (node.note.text,)))
    return None


def _enumeration_counts(statements) -> set[int]:
    """Ids of the letters that end an enumeration: `\\tilde{A}_1, \\tilde{A}_2, \\ldots, \\tilde{A}_H`,
    `\\{o_1, o_2, \\cdots, o_G\\}`, `\\overline{head_1}, \\cdots, \\overline{head_h}`. A list counted from 1 (or 0) to a
    letter writes how many there are: the letter is a quantity of the paper (the number of heads), not a label."""
    found: set[int] = set()

    def last_script(item: ast.Node) -> ast.Node | None:
        while isinstance(item, (ast.Annotated, ast.Group)):
            item = item.body
        if isinstance(item, ast.Indexed) and item.indices:
            return item.indices[-1]
        if isinstance(item, ast.Symbol):
            return item.sub_label
        return None

    for stmt in statements:
        for node in ast.walk(stmt):
            for name in ("items", "factors", "args"):
                items = getattr(node, name, None)
                if not isinstance(items, tuple) or len(items) < 3:
                    continue
                for k in range(1, len(items) - 1):
                    if not isinstance(items[k], ast.Ellipsis_):
                        continue
                    first, end = last_script(items[0]), last_script(items[k + 1])
                    if isinstance(first, ast.Number) and first.value in ("0", "1") and \
                            isinstance(end, ast.Symbol) and end.font is None and not end.accents and \
                            end.sub_label is None and end.sup_label is None and \
                            (len(end.name) == 1 or end.name == "\\ell"):
                        found.add(id(end))
    return found


def _word_operator(node: ast.Node) -> bool:
    """`\\text{Pr}_{\\mu}^{\\pi^1, \\pi^2}`: a name in words carrying scripts (the parser's Labeled). Its key is
    the word (`\\text{Pr}`), as for `\\text{MHA}_q(X)`: every labelling of it is one row, found by the word."""
    return isinstance(node, ast.Labeled) and _is_function_word(_word_of(node))


def _word_of(node: ast.Node) -> ast.Node:
    while isinstance(node, ast.Labeled):
        node = node.base
    return node


def _free_member(use: SymbolUse, bound_forms: set[str]) -> bool:
    """`\\hat\\pi(b_t|s_t) = … / \\sum_b …`: the sum binds `b`; `b_t`, written outside it, is the paper's action at
    time t — a member of the family the reduction does not bind, so the key keeps its row."""
    return any(form not in bound_forms for form in use.written if form.startswith(use.key + "_"))


_FUNCTION_WORD = re.compile(r"^[A-Za-z][A-Za-z0-9\-]*$")
_CONNECTIVES = frozenset({"if", "for", "and", "or", "where", "with", "otherwise", "else", "s", "st", "subject",
                          "to", "when", "then", "of", "in", "on", "at", "by", "as", "all", "any", "some"})


def _is_function_word(node: ast.Node) -> bool:
    """`\\texttt{MHSA}`, `\\text{clip}`: a name written in words (not a connective like "if" or "for")."""
    return isinstance(node, ast.Text) and _FUNCTION_WORD.match(node.text) is not None and \
        node.text.lower() not in _CONNECTIVES


def written_form(use: SymbolUse) -> str:
    """`s_{i,t}` for key `s` with indices (i, t): the id form the CLI and JSON share."""
    if use.indices and use.kind != "index":
        return f"{use.key}_{{{','.join(use.indices)}}}"
    return use.key


formulas_in_words = _formulas_in_words
"""The formulas written inside words (`\\text{if $c_i < …$}`), parsed: for readers that walk a display's tree."""
