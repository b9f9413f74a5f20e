"""papermath's formula syntax tree: frozen dataclasses, one per kind of notation.

Every node has `span = (start, end)`, character offsets into the formula string. Spans are left out of
equality (`compare=False`), so two trees that read the same are equal wherever they were written: that
is what the round trip `parse(to_latex(t)).tree == t` checks.

Semantics are explicit for the stages that consume the tree:
- `Product` is juxtaposition (`QK^\\top`): a matrix or scalar product, decided later from shapes;
  `Apply` is a function application, with `certainty` saying how sure the parser is.
- Scripts are classified: `Indexed` (index), `Symbol.sub_label`/`sup_label` (label), `Power`,
  `Transpose`, `Inverse`, `Symbol.optimum` (`^*`), `Symbol.primes`.
- `Reduction` binds variables (sum, prod, max, argmax, expectation, integral, limit, softmax axis…).
"""
from __future__ import annotations

from collections.abc import Callable, Iterator
import dataclasses
from dataclasses import dataclass, field, fields
from typing import Any, Optional

Span = tuple[int, int]


class Node:
    """Base of all syntax-tree nodes."""

    __slots__ = ()
    span: Span

    @property
    def type(self) -> str:
        return type(self).__name__


def _span() -> Any:
    return field(default=(0, 0), compare=False, repr=False)


@dataclass(frozen=True)
class Empty(Node):
    """Nothing: an empty group `{}` or the missing left side of a continuation row (`&= b`)."""

    span: Span = _span()


@dataclass(frozen=True)
class Number(Node):
    """A numeric literal."""

    value: str
    """Digits as written (`0.5`, `12`)."""
    span: Span = _span()


@dataclass(frozen=True)
class Symbol(Node):
    """A named quantity: a letter or a name, with its font, accents and labels (not its indices)."""

    name: str
    """The letter (`x`), the macro (`\\alpha`) or a multi-letter name (`Attention`)."""
    font: Optional[str] = None
    """Font code: bf, cal, scr, bb, rm, sf, it, frak, tt, op (\\operatorname); None for default."""
    accents: tuple[str, ...] = ()
    """Accents from the outside in (`\\hat{\\bar x}` → ("hat", "bar"))."""
    sub_label: Optional[Node] = None
    """A subscript that names rather than indexes (`p_{\\text{base}}`, `\\theta_{old}`, `D_{KL}`)."""
    sup_label: Optional[Node] = None
    """A superscript that names (`W^{DKV}`, `h^{(\\ell)}`, `A^\\dagger`)."""
    primes: int = 0
    """Number of primes (`v'` → 1)."""
    optimum: bool = False
    """True for `^*` / `^\\star`: the optimal value of the quantity."""
    span: Span = _span()


@dataclass(frozen=True)
class Text(Node):
    """Prose inside math: `\\text{if } …`."""

    text: str
    """The text as written, whitespace collapsed."""
    span: Span = _span()


@dataclass(frozen=True)
class Ellipsis_(Node):
    """An ellipsis: `\\ldots`, `\\cdots`, `\\vdots`, `\\ddots`."""

    kind: str
    """Canonical form: "...", "\\cdots", "\\vdots", "\\ddots"."""
    span: Span = _span()


@dataclass(frozen=True)
class Opaque(Node):
    """An unknown macro (tolerant mode only), kept verbatim with its brace arguments."""

    macro: str
    """The macro, with backslash."""
    args: tuple[str, ...] = ()
    """Its brace arguments, verbatim."""
    span: Span = _span()


@dataclass(frozen=True)
class Indexed(Node):
    """An indexed quantity `x_i`, `W_{ij}`, `x_{1:T}`, `\\mathrm{softmax}(z)_j`."""

    base: Node
    """What is indexed."""
    indices: tuple[Node, ...]
    """One node per index (`W_{ij}` → (i, j); `W_{i,j}` → (i, j))."""
    span: Span = _span()


@dataclass(frozen=True)
class Labeled(Node):
    """A label script on something that is not a plain symbol (`(x)^{(k)}`)."""

    base: Node
    """What the label is attached to."""
    label: Node
    """The label."""
    position: str
    """"sub" or "sup"."""
    span: Span = _span()


@dataclass(frozen=True)
class Primed(Node):
    """Primes on something that is not a plain symbol (`(f g)'`)."""

    base: Node
    """What is primed."""
    count: int
    """Number of primes."""
    span: Span = _span()


@dataclass(frozen=True)
class Power(Node):
    """A power `x^2`, `e^{z_j}`, `\\|x\\|_2^2`."""

    base: Node
    """The base."""
    exponent: Node
    """The exponent."""
    span: Span = _span()


@dataclass(frozen=True)
class Transpose(Node):
    """A transpose `K^\\top`, `x^T`, `W^{\\mathsf T}`."""

    base: Node
    """What is transposed."""
    span: Span = _span()


@dataclass(frozen=True)
class Inverse(Node):
    """An inverse `A^{-1}`."""

    base: Node
    """What is inverted."""
    span: Span = _span()


@dataclass(frozen=True)
class Slice(Node):
    """A range in an index: `x_{1:T}`, `X_{t,:}`."""

    start: Optional[Node]
    """First position (None when omitted)."""
    stop: Optional[Node]
    """Last position, inclusive as papers write it (None when omitted)."""
    span: Span = _span()


@dataclass(frozen=True)
class BinOp(Node):
    """An explicit infix operator: + - \\pm \\cdot \\times / \\odot \\otimes \\circ \\cup \\cap …"""

    op: str
    """Canonical operator token (`+`, `\\cdot`, `/`)."""
    left: Node
    """Left operand."""
    right: Node
    """Right operand."""
    span: Span = _span()


@dataclass(frozen=True)
class UnaryOp(Node):
    """A prefix operator: `-x`, `\\pm x`, `\\neg p`, or `<t` in `x_{<t}`."""

    op: str
    """Canonical operator token."""
    operand: Node
    """The operand."""
    span: Span = _span()


@dataclass(frozen=True)
class Product(Node):
    """Juxtaposition `QK^\\top`, `2x`, `\\beta\\log\\sigma(z)`: a product whose kind (matrix or scalar) is
    decided from shapes later."""

    factors: tuple[Node, ...]
    """Factors, left to right (at least two)."""
    span: Span = _span()


@dataclass(frozen=True)
class Apply(Node):
    """A function applied to arguments: `\\mathrm{Attention}(Q,K,V)`, `\\log p(x)`, `p_\\theta(y \\mid x)`."""

    func: Node
    """The function (usually a Symbol)."""
    args: tuple[Node, ...]
    """Arguments (the event, for a conditional probability)."""
    given: tuple[Node, ...] = ()
    """Conditioning arguments after `\\mid` / `|` (`p(y \\mid x)` → (x,))."""
    params: tuple[Node, ...] = ()
    """Parameters after `;` (`p(y \\mid x; \\theta)` → (θ,))."""
    certainty: str = "known"
    """known (table), declared (the paper declares it), conditional (has a `\\mid`), ambiguous
    (`f(x)` with an unknown `f`: application or product); once resolved, the strength of the evidence that
    decided it (place, paper, formula, convention: see `evidence.STRENGTHS`)."""
    brackets: str = "()"
    """"()", "[]", "{}" or "" for prefix application without brackets (`\\log x`)."""
    span: Span = _span()


@dataclass(frozen=True)
class Divergence(Node):
    """A divergence between two distributions: `D_{KL}(p \\| q)`, `\\mathrm{KL}(p||q)`."""

    func: Node
    """The divergence's name (`D_{KL}`, `KL`)."""
    left: Node
    """First argument (the distribution the average runs over)."""
    right: Node
    """Second argument."""
    span: Span = _span()


@dataclass(frozen=True)
class Reduction(Node):
    """An operator that binds variables: sum, prod, union…, int, max/min/sup/inf, argmax/argmin, lim,
    expectation (`\\mathbb E_{x\\sim p}[…]`), softmax/topk along an axis, …"""

    op: str
    """Canonical operator: sum, prod, int, max, min, argmax, argmin, sup, inf, lim, E, softmax, …"""
    operator: Node
    """The operator as written, as a node (a Symbol: `\\sum`, `\\mathbb{E}`, `\\hat{\\mathbb E}`)."""
    under: Optional[Node]
    """The whole under-script (lower limit, range or condition), as parsed."""
    over: Optional[Node]
    """The whole over-script (upper limit)."""
    body: Optional[Node]
    """What is reduced (None when nothing follows)."""
    variables: tuple[Node, ...] = ()
    """Bound variables (`\\sum_{i=1}` → (i,); `\\mathbb E_{(x,y)\\sim D}` → (x, y); `\\int … dx` → (x,))."""
    lower: Optional[Node] = None
    """Lower limit (`\\sum_{i=1}` → 1; `\\int_a` → a)."""
    upper: Optional[Node] = None
    """Upper limit (`^N`)."""
    domain: Optional[Node] = None
    """The set the variables run over (`\\sum_{v\\in V}` → V)."""
    distribution: Optional[Node] = None
    """For an expectation: the distribution sampled (`x \\sim p` → p)."""
    condition: Optional[Node] = None
    """A condition on the variables (`\\sum_{i: c_i>0}`, `\\lim_{x\\to 0}` → x \\to 0)."""
    brackets: str = ""
    """Brackets written around the body ("[]", "()", "{}", or "")."""
    samples: tuple[Node, ...] = ()
    """Every `variables \\sim distribution` relation in the under-script, in order
    (`\\mathbb E_{q\\sim P(Q),\\, o\\sim\\pi(\\cdot\\mid q)}` → two relations)."""
    differentials: tuple[Node, ...] = ()
    """For an integral: the differentials written after the body (`dx`, `\\mathrm{d}\\bm{x}_0`), as `Differential`
    nodes where they stand; their variables are in `variables`."""
    span: Span = _span()


@dataclass(frozen=True)
class Derivative(Node):
    """A derivative written as a fraction: `\\frac{d}{dx}`, `\\frac{\\partial L}{\\partial \\theta_i}`."""

    kind: str
    """"d" (total) or "partial"."""
    body: Optional[Node]
    """What is differentiated (None for the bare operator `\\frac{d}{dx}`)."""
    wrt: tuple[Node, ...]
    """Variables differentiated against."""
    order: Optional[Node] = None
    """Order for `\\frac{d^2 y}{dx^2}`."""
    span: Span = _span()


@dataclass(frozen=True)
class Differential(Node):
    """A differential `dx`, `\\partial \\mathcal L` outside a derivative fraction."""

    kind: str
    """"d" or "partial"."""
    body: Node
    """The quantity."""
    span: Span = _span()


@dataclass(frozen=True)
class Gradient(Node):
    """`\\nabla_\\theta \\mathcal L`: the gradient of body with respect to `wrt`."""

    wrt: Optional[Node]
    """The variable under the nabla (None if not written)."""
    order: Optional[Node]
    """A superscript on nabla (`\\nabla^2`)."""
    body: Optional[Node]
    """What is differentiated."""
    span: Span = _span()


@dataclass(frozen=True)
class Relation(Node):
    """A relation or a chain: `a = b = c`, `x \\sim p`, `\\theta \\leftarrow \\theta - \\eta g`."""

    operands: tuple[Node, ...]
    """n+1 operands."""
    ops: tuple[str, ...]
    """n canonical relations (`=`, `:=`, `\\le`, `\\in`, `\\sim`, `\\leftarrow`, …)."""
    notes: tuple[Optional[Node], ...] = ()
    """Per relation: text stacked over it (`\\overset{\\text{iid}}{\\sim}` → Text(iid)), or None."""
    span: Span = _span()


@dataclass(frozen=True)
class Frac(Node):
    """A fraction `\\frac{a}{b}`."""

    num: Node
    """Numerator."""
    den: Node
    """Denominator."""
    span: Span = _span()


@dataclass(frozen=True)
class Root(Node):
    """`\\sqrt{x}`, `\\sqrt[n]{x}`."""

    body: Node
    """Radicand."""
    index: Optional[Node] = None
    """Root index (None for square root)."""
    span: Span = _span()


@dataclass(frozen=True)
class Group(Node):
    """One expression in parentheses or brackets: `(a+b)`, `[x]`."""

    body: Node
    """The expression."""
    open: str = "("
    """Opening delimiter: "(", "[", "{", "<"."""
    close: str = ")"
    """Closing delimiter."""
    span: Span = _span()


@dataclass(frozen=True)
class Tuple(Node):
    """A tuple or argument list: `(x, y_w, y_l)`, `\\langle a, b\\rangle`."""

    items: tuple[Node, ...]
    """Items (at least two)."""
    open: str = "("
    """Opening delimiter."""
    close: str = ")"
    """Closing delimiter."""
    span: Span = _span()


@dataclass(frozen=True)
class Interval(Node):
    """An interval `(0,1]`, `[a,b]`."""

    lower: Node
    """Left end."""
    upper: Node
    """Right end."""
    left_closed: bool
    """True for `[`."""
    right_closed: bool
    """True for `]`."""
    span: Span = _span()


@dataclass(frozen=True)
class Concat(Node):
    """Concatenation `[a; b]`."""

    items: tuple[Node, ...]
    """Concatenated parts."""
    span: Span = _span()


@dataclass(frozen=True)
class SetLiteral(Node):
    """`\\{1, 2, 3\\}`."""

    items: tuple[Node, ...]
    """Members."""
    span: Span = _span()


@dataclass(frozen=True)
class SetBuilder(Node):
    """`\\{x \\in S \\mid \\text{condition}\\}` (the bar or a colon)."""

    element: Node
    """The element (often `x \\in S`)."""
    condition: Node
    """The condition."""
    span: Span = _span()


@dataclass(frozen=True)
class Abs(Node):
    """`|x|`: absolute value, or the size of a set (`|o_i|`)."""

    body: Node
    """The operand."""
    span: Span = _span()


@dataclass(frozen=True)
class Norm(Node):
    """`\\|x\\|`, `\\|x\\|_2`."""

    body: Node
    """The operand."""
    order: Optional[Node] = None
    """The subscript (2, F, \\infty), if written."""
    span: Span = _span()


@dataclass(frozen=True)
class Delimited(Node):
    """Other paired delimiters: floor, ceil, `\\langle\\cdot\\rangle`, `[[\\cdot]]`."""

    kind: str
    """"floor", "ceil", "angle" or "[[".."""
    body: Node
    """Content."""
    span: Span = _span()


@dataclass(frozen=True)
class Indicator(Node):
    """An indicator `\\mathbb 1[c]`, `\\mathbf 1(c)`, `\\mathbb{1}_{c}`: 1 when c holds, else 0."""

    symbol: Node
    """The one as written (Symbol 1 in bf/bb)."""
    condition: Node
    """The condition."""
    brackets: str = "[]"
    """"[]", "()", "{}" or "_" for a subscript condition."""
    span: Span = _span()


@dataclass(frozen=True)
class Cases(Node):
    """`\\begin{cases} v & \\text{if } c \\\\ … \\end{cases}`."""

    rows: tuple[tuple[Node, Optional[Node]], ...]
    """(value, condition) per row; condition None when omitted."""
    span: Span = _span()


@dataclass(frozen=True)
class Matrix(Node):
    """A matrix: pmatrix, bmatrix, array, …"""

    env: str
    """Environment name."""
    rows: tuple[tuple[Node, ...], ...]
    """Cells, row by row."""
    span: Span = _span()


@dataclass(frozen=True)
class Binom(Node):
    """`\\binom{n}{k}`."""

    n: Node
    """Top."""
    k: Node
    """Bottom."""
    span: Span = _span()


@dataclass(frozen=True)
class Factorial(Node):
    """`n!`."""

    body: Node
    """Operand."""
    span: Span = _span()


@dataclass(frozen=True)
class Annotated(Node):
    """`\\underbrace{x}_{note}`, `\\overset{a}{x}`: a body with a note that is not an index."""

    body: Node
    """The annotated expression."""
    note: Node
    """The note."""
    kind: str
    """"underbrace", "overbrace", "overset", "underset"."""
    span: Span = _span()


@dataclass(frozen=True)
class Sequence(Node):
    """Several statements in one formula, separated by commas/semicolons (`a=1,\\ b=2`)."""

    items: tuple[Node, ...]
    """Statements."""
    separators: tuple[str, ...] = ()
    """Separators between them ("," or ";")."""
    span: Span = _span()


@dataclass(frozen=True)
class Rows(Node):
    """Rows of an align block, one statement each (continuation rows already joined)."""

    statements: tuple[Node, ...]
    """One per row."""
    span: Span = _span()


# --- traversal -----------------------------------------------------------------------------------

_CHILD_FIELDS: dict[type, tuple[str, ...]] = {}


def _child_fields(cls: type) -> tuple[str, ...]:
    names = _CHILD_FIELDS.get(cls)
    if names is None:
        names = tuple(f.name for f in fields(cls) if f.name != "span")
        _CHILD_FIELDS[cls] = names
    return names


def children(node: Node) -> Iterator[Node]:
    """The direct child nodes of `node`, in field order (nested tuples flattened), each once: a reduction keeps the
    same node in several fields (`\\mathbb{E}_{\\tau \\sim \\pi}`: its subscript is also its draw), and a walker
    that took it once per field would do 2^depth work on reductions nested in subscripts."""
    return iter(child_list(node))


def child_list(node: Node) -> list[Node]:
    """`children(node)` as a new list (what the walkers use: no iterator to build)."""
    kids = _KIDS.get(type(node))
    if kids is None:
        kids = _KIDS[type(node)] = _compile_children(type(node))
    return kids(node)


_LEAF_TYPES = frozenset(("str", "Optional[str]", "tuple[str, ...]", "int", "bool"))
"""Field annotations that hold no node: `children` does not look into these fields (a Symbol's name, an
operator's spelling), which is most of the fields of the most common nodes."""

_KIDS: dict[type, Callable[[Node], list[Node]]] = {}


def _compile_children(cls: type) -> Callable[[Node], list[Node]]:
    """The `child_list` of one node class, unrolled over the fields that can hold a node: the walkers call it for
    every node of every tree, and a loop over all fields by name with getattr was the hottest code of a read."""
    names = _node_fields(cls)
    if not names:
        return _no_children
    lines = ["def kids(node):", "    found = []", "    append = found.append"]
    for name in names:
        lines += [f"    value = node.{name}",
                  "    if isinstance(value, Node):",
                  "        append(value)",
                  "    elif isinstance(value, tuple):",
                  "        for item in value:",
                  "            if isinstance(item, Node):",
                  "                append(item)",
                  "            elif isinstance(item, tuple):",
                  "                found.extend([sub for sub in item if isinstance(sub, Node)])"]
    lines += ["    if len(found) < 2:",
              "        return found",
              "    return list({id(child): child for child in found}.values())  # first occurrence kept, in order"]
    namespace: dict[str, Any] = {"Node": Node}
    exec("\n".join(lines), namespace)  # noqa: S102 - code built from the dataclass's own field names
    return namespace["kids"]


def _no_children(node: Node) -> list[Node]:
    return []


def walk(node: Node) -> Iterator[Node]:
    """`node` and all its descendants, depth first, parents before children. A tree is immutable, so its order
    is worked out once while it is among the last `_WALK_CACHE` walked: the stages walk the same equation's
    tree again and again (the evaluator's set-up walks each statement a dozen times per run, and a panel runs
    it several times), and the walk was the hottest code of `html`."""
    found = _WALKED.get(id(node))
    if found is not None and found[0] is node:
        return iter(found[1])
    order = _walk_order(node)
    if len(_WALKED) >= _WALK_CACHE:
        _WALKED.clear()
    _WALKED[id(node)] = (node, order)
    return iter(order)


_WALK_CACHE = 4096
_WALKED: dict[int, tuple[Node, tuple[Node, ...]]] = {}
"""id(tree) → (the tree, its nodes in walk order); the tree is held so that its id is not reused meanwhile."""


def _walk_order(node: Node) -> tuple[Node, ...]:
    out = []
    stack = [node]
    pop = stack.pop
    extend = stack.extend
    append = out.append
    kids_of = _KIDS
    while stack:
        current = pop()
        append(current)
        kids = kids_of.get(type(current))
        found = kids(current) if kids is not None else child_list(current)
        if found:
            found.reverse()
            extend(found)
    return tuple(out)


def rewrite(node: Node, fn: Callable[[Node], Optional[Node]]) -> Node:
    """`node` rebuilt top-down: `fn(n)` returns a replacement for `n` (used as is, not descended into) or None to
    descend; a node whose children all come back unchanged is returned itself. Children are the nodes `children()`
    yields (nested tuples included), so every rewrite sees the tree the walkers see. A node held in several fields
    is rewritten once and stays shared."""
    return _rewrite(node, fn, {})


def _rewrite(node: Node, fn: Callable[[Node], Optional[Node]], done: dict[int, Node]) -> Node:
    known = done.get(id(node))
    if known is not None:
        return known
    found = fn(node)
    if found is not None:
        done[id(node)] = found
        return found
    changes: dict[str, Any] | None = None
    for name in _node_fields(type(node)):  # a field that holds no node (a name, a spelling) comes back as it was
        value = getattr(node, name)
        if isinstance(value, Node):
            new = _rewrite(value, fn, done)
        elif isinstance(value, tuple) and value:
            new = _rewrite_value(value, fn, done)
        else:
            continue
        if new is not value:
            if changes is None:
                changes = {}
            changes[name] = new
    out = _replaced(node, changes) if changes else node
    done[id(node)] = out
    return out


def replace(obj: Any, /, **changes: Any) -> Any:
    """`dataclasses.replace`, fast for a node (the parser and the resolver rebuild tens of thousands of nodes a
    paper): a node's copy with `changes` (see `_replaced`); anything else, or a field a node does not have, goes
    through `dataclasses.replace` itself."""
    cls = type(obj)
    names = _FIELD_SETS.get(cls)
    if names is None:
        if not (isinstance(obj, Node) and hasattr(cls, "__dataclass_fields__")):
            return dataclasses.replace(obj, **changes)
        names = _FIELD_SETS[cls] = frozenset(f.name for f in fields(cls))
    if not changes:
        return _replaced(obj, {})
    if not names.issuperset(changes):
        return dataclasses.replace(obj, **changes)
    return _replaced(obj, changes)


_FIELD_SETS: dict[type, frozenset[str]] = {}


def _replaced(node: Node, changes: dict[str, Any]) -> Node:
    """`dataclasses.replace(node, **changes)` without its per-call field introspection: no node class has an
    `__post_init__` or a field left out of `__init__`, so the copy is the node's fields with the changes."""
    cls: Any = type(node)
    names = _ALL_FIELDS.get(cls)
    if names is None:
        names = _ALL_FIELDS[cls] = tuple(f.name for f in fields(cls))
    values = node.__dict__
    out = object.__new__(cls)
    out.__dict__.update({name: values[name] for name in names})
    out.__dict__.update(changes)
    return out


_ALL_FIELDS: dict[type, tuple[str, ...]] = {}


def _rewrite_value(value: Any, fn: Callable[[Node], Optional[Node]], done: dict[int, Node]) -> Any:
    if isinstance(value, Node):
        return _rewrite(value, fn, done)
    if isinstance(value, tuple) and value:
        items = tuple([_rewrite_value(item, fn, done) for item in value])
        for a, b in zip(items, value):
            if a is not b:
                return items
        return value
    return value


_NODE_FIELDS: dict[type, tuple[str, ...]] = {}


def _node_fields(cls: type) -> tuple[str, ...]:
    """The fields of a node class whose annotation can hold a node (`_LEAF_TYPES` are the others)."""
    names = _NODE_FIELDS.get(cls)
    if names is None:
        names = _NODE_FIELDS[cls] = tuple(f.name for f in fields(cls) if f.name != "span" and
                                          f.type not in _LEAF_TYPES)
    return names


def to_dict(node: Any) -> Any:
    """The tree as JSON-ready data: `{"type": "Symbol", "span": [s, e], <fields>…}`."""
    if isinstance(node, Node):
        out: dict[str, Any] = {"type": type(node).__name__.rstrip("_"), "span": list(node.span)}
        for name in _child_fields(type(node)):
            out[name] = to_dict(getattr(node, name))
        return out
    if isinstance(node, tuple):
        return [to_dict(item) for item in node]
    return node


NODE_TYPES: tuple[type, ...] = tuple(
    cls for cls in list(globals().values())
    if isinstance(cls, type) and issubclass(cls, Node) and cls is not Node)
"""Every node class, for schema documentation and tests."""


def sexpr(node: Any) -> str:
    """A compact one-line view of a tree, for tests and debugging: `(Product Q (Transpose K))`.

    Symbols print as their name, with decorations in braces when present
    (`W{^DKV}`, `x{bf,hat}`, `\\theta{*}`); other nodes as `(Type child… key=value…)`.
    """
    if node is None:
        return "_"
    if isinstance(node, tuple):
        return "[" + " ".join(sexpr(item) for item in node) + "]"
    if not isinstance(node, Node):
        return str(node)
    special = _SEXPR.get(type(node))
    return special(node) if special is not None else _fields_sexpr(node)


def _symbol_sexpr(node: Symbol) -> str:
    decorations = []
    if node.font:
        decorations.append(node.font)
    decorations.extend(node.accents)
    if node.sub_label is not None:
        decorations.append("_" + sexpr(node.sub_label))
    if node.sup_label is not None:
        decorations.append("^" + sexpr(node.sup_label))
    if node.primes:
        decorations.append("'" * node.primes)
    if node.optimum:
        decorations.append("*")
    return node.name + ("{" + ",".join(decorations) + "}" if decorations else "")


def _relation_sexpr(node: Relation) -> str:
    out = [sexpr(node.operands[0])]
    for op, operand in zip(node.ops, node.operands[1:]):
        out += [op, sexpr(operand)]
    return "(Relation " + " ".join(out) + ")"


def _reduction_sexpr(node: Reduction) -> str:
    keyed = [f"{name}={sexpr(getattr(node, name))}" for name in
             ("variables", "lower", "upper", "domain", "distribution", "condition")
             if getattr(node, name) not in (None, ())]
    return "(" + " ".join([node.op, sexpr(node.body)] + keyed) + ")"


def _fields_sexpr(node: Node) -> str:
    """`(Type positional… key=value…)`: the positional children in order, then every other field that is set."""
    parts = [type(node).__name__.rstrip("_")]
    keyed = []
    positional = _POSITIONAL.get(type(node), ())
    defaults = {f.name: f.default for f in fields(node)}  # type: ignore[arg-type]
    for name in _child_fields(type(node)):
        value = getattr(node, name)
        default = defaults.get(name)
        if isinstance(value, Node) or (isinstance(value, tuple) and name in positional):
            if name in positional:
                parts.append(sexpr(value))
            else:
                keyed.append(f"{name}={sexpr(value)}")
        elif value is None or value == () or (value == default and not isinstance(default, type(field))):
            continue
        else:
            keyed.append(f"{name}={sexpr(value) if isinstance(value, tuple) else value}")
    return "(" + " ".join(parts + keyed) + ")"


_SEXPR: dict[type, Callable[[Any], str]] = {
    Symbol: _symbol_sexpr,
    Number: lambda node: node.value,
    Empty: lambda node: "()",
    Text: lambda node: repr(node.text),
    BinOp: lambda node: f"({node.op} {sexpr(node.left)} {sexpr(node.right)})",
    UnaryOp: lambda node: f"({node.op} {sexpr(node.operand)})",
    Relation: _relation_sexpr,
    Reduction: _reduction_sexpr,
}
"""Node types whose view is not `(Type fields…)`."""


def _positional() -> dict[type, tuple[str, ...]]:
    return {
        Indexed: ("base", "indices"), Labeled: ("base", "label"), Primed: ("base",), Power: ("base", "exponent"),
        Transpose: ("base",), Inverse: ("base",), Slice: ("start", "stop"), BinOp: ("left", "right"),
        UnaryOp: ("operand",), Product: ("factors",), Apply: ("func", "args"), Divergence: ("func", "left", "right"),
        Reduction: ("body",), Derivative: ("body",), Differential: ("body",), Gradient: ("body",),
        Relation: ("operands",), Frac: ("num", "den"), Root: ("body",), Group: ("body",), Tuple: ("items",),
        Interval: ("lower", "upper"), Concat: ("items",), SetLiteral: ("items",),
        SetBuilder: ("element", "condition"), Abs: ("body",), Norm: ("body",), Delimited: ("body",),
        Indicator: ("condition",), Binom: ("n", "k"), Factorial: ("body",), Annotated: ("body",),
        Sequence: ("items",), Rows: ("statements",), Matrix: ("rows",), Cases: ("rows",),
    }


_POSITIONAL = _positional()
