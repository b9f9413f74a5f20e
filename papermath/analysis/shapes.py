"""Shapes first: propagate symbolic shapes (`[n, d_k]`) through an equation and report what does not line up.

    >>> report = infer_shapes(r"\\mathrm{softmax}(QK^\\top/\\sqrt{d_k})V",
    ...                       {"Q": ("n", "d_k"), "K": ("m", "d_k"), "V": ("m", "d_v")})
    >>> report.result            # ("n", "d_v")

Shapes come from the text (`papermath.analysis.read`: `W^{DKV} \\in \\mathbb{R}^{d_c \\times d}`) and from
`--shape` overrides. Both column-vector papers (`W h`) and row-vector papers (`Q K^\\top`) are read. A mismatch
is a misreading and is reported naming both operands, their shapes and a hint; an unknown function or an
undeclared symbol gives an unknown shape, said so, never a guess. Papers do not inherit NumPy's broadcasting:
every broadcast is stated in the note.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping, Optional, cast

from ..errors import MathParseError, PapermathError
from ..math import ast as A
from ..math import operators as O
from ..math import parse, to_latex
from ..evaluate.lower import ENTRY, normalize_dim, symbol_key
from ..evaluate.ops import FUNCTION_NAMES, OPS

Shape = tuple[str, ...]


CONVENTIONAL_SHAPES: dict[str, Shape] = {"Q": ("n", "d_{k}"), "K": ("m", "d_{k}"), "V": ("m", "d_{v}")}
"""Guide 000's attention shapes, used only for a bare formula with Q, K and V and nothing declared (and said so)."""


@dataclass(frozen=True)
class ShapeStep:
    """One row of the shape table: sub-expression | shape | note."""

    latex: str
    """The sub-expression (normalized LaTeX)."""
    shape: Optional[Shape]
    """Its shape (`()` a scalar), None when unknown."""
    note: str
    """How it was obtained (`[n, d_k] @ [d_k, m] → [n, m]`, `declared: W \\in …`, `unknown function f`)."""
    status: str = "ok"
    """ok, unknown or mismatch."""


@dataclass(frozen=True)
class ShapeMismatch:
    """Two operands whose shapes do not line up."""

    latex: str
    """The expression where they meet."""
    left: str
    """Left operand (LaTeX)."""
    left_shape: Shape
    """Its shape."""
    right: str
    """Right operand (LaTeX)."""
    right_shape: Shape
    """Its shape."""
    message: str
    """The full message."""
    hint: str = ""
    """What the reader probably meant."""


@dataclass(frozen=True)
class ShapeReport:
    """Shapes through one equation."""

    latex: str
    """The formula."""
    steps: tuple[ShapeStep, ...]
    """Symbols first, then operations inside out."""
    mismatches: tuple[ShapeMismatch, ...]
    """What does not line up."""
    unknown: tuple[str, ...]
    """Why some shapes are unknown (undeclared symbols, unknown functions)."""
    symbols: dict[str, Optional[Shape]] = field(default_factory=dict)
    """Symbol key → shape used (declared, overridden, or inferred for what the equation defines)."""
    result: Optional[Shape] = None
    """Shape of the last computed expression."""
    sources: dict[str, str] = field(default_factory=dict)
    """Symbol key → where its shape came from (text, --shape, conventional, inferred)."""
    defined: dict[str, Shape] = field(default_factory=dict)
    """What the equation defines, as written with its indices (`\\mathbf{c}^{KV}_{t}`) → its shape."""

    @property
    def complete(self) -> bool:
        """Every shape known and nothing mismatched."""
        return not self.mismatches and not self.unknown and self.result is not None


def show(shape: Optional[Shape]) -> str:
    """`[n, d_k]`, `scalar`, or `?`."""
    if shape is None:
        return "?"
    if shape == ():
        return "scalar"
    return "[" + ", ".join(_plain(d) for d in shape) + "]"


def _plain(dim: str) -> str:
    return dim.replace("_{", "_").replace("}", "").replace("{", "") if dim.count("{") <= 2 else dim


def _same(a: str, b: str) -> bool:
    return normalize_dim(a).replace(" ", "") == normalize_dim(b).replace(" ", "")


def dims_of_space(node: A.Node) -> Optional[Shape]:
    """`\\mathbb{R}^{n \\times d}` → ("n", "d"); `\\mathbb{R}` → ()."""
    if isinstance(node, A.Symbol) and node.font == "bb" and node.name in ("R", "N", "Z", "C"):
        return ()
    if isinstance(node, A.Power) and isinstance(node.base, A.Symbol) and node.base.font == "bb":
        dims: list[str] = []

        def split(n: A.Node) -> None:
            if isinstance(n, A.BinOp) and n.op in ("\\times", "*", "\\cdot"):
                split(n.left)
                split(n.right)
            else:
                dims.append(normalize_dim(to_latex(n)))
        split(node.exponent)
        return tuple(dims)
    return None


def usable(shape: Any) -> bool:
    return shape is not None and all(isinstance(d, str) and d and "?" not in d for d in shape)


class _Infer:
    def __init__(self, declared: Mapping[str, Shape], sources: Mapping[str, str]) -> None:
        self.declared = {k: tuple(normalize_dim(d) for d in v) for k, v in declared.items() if usable(v)}
        self.sources = dict(sources)
        self.dimensions = {d for shape in self.declared.values() for d in shape}
        self.steps: list[ShapeStep] = []
        self.leaf_steps: dict[str, ShapeStep] = {}
        self.mismatches: list[ShapeMismatch] = []
        self.unknown: list[str] = []
        self.bound: set[str] = set()
        self.defined: dict[str, Optional[Shape]] = {}
        self.concat_last: dict[str, Shape] = {}
        self.exact: dict[str, Optional[Shape]] = {}

    def step(self, node: A.Node, shape: Optional[Shape], note: str, status: str = "ok") -> Optional[Shape]:
        self.steps.append(ShapeStep(to_latex(node), shape, note, status if shape is not None or status != "ok"
                                    else "unknown"))
        return shape

    def unknown_because(self, reason: str) -> None:
        if reason not in self.unknown:
            self.unknown.append(reason)

    def mismatch(self, node: A.Node, left: A.Node, ls: Shape, right: A.Node, rs: Shape, what: str,
                 hint: str = "") -> None:
        message = f"{to_latex(node)}: {to_latex(left)} {show(ls)} {what} {to_latex(right)} {show(rs)}"
        if hint:
            message += f": {hint}"
        self.mismatches.append(ShapeMismatch(to_latex(node), to_latex(left), ls, to_latex(right), rs, message, hint))
        self.steps.append(ShapeStep(to_latex(node), None, message, "mismatch"))

    # --- leaves ---------------------------------------------------------------------------------------
    def leaf(self, key: str, node: A.Node) -> Optional[Shape]:
        if key in self.defined:
            return self.defined[key]
        if key in self.bound or key in ("e", "\\pi", "\\infty") or normalize_dim(key) in self.dimensions:
            return ()
        if key not in self.declared and key + ENTRY in self.declared:
            key = key + ENTRY
        if key in self.declared:
            shape = self.declared[key]
            if key not in self.leaf_steps:
                source = self.sources.get(key, "declared")
                self.leaf_steps[key] = ShapeStep(key, shape, source)
            return shape
        if key not in self.leaf_steps:
            self.leaf_steps[key] = ShapeStep(key, None, "no shape in the text: give one with --shape", "unknown")
            self.unknown_because(f"{key}: no shape declared")
        return None

    def shape(self, node: A.Node) -> Optional[Shape]:
        method = getattr(self, "s_" + type(node).__name__.rstrip("_"), None)
        if method is None:
            self.unknown_because(f"{type(node).__name__} not handled: {to_latex(node)[:40]}")
            return None
        return method(node)

    def s_Number(self, node: A.Number) -> Shape:
        return ()

    def s_Symbol(self, node: A.Symbol) -> Optional[Shape]:
        return self.leaf(symbol_key(node), node)

    def s_Labeled(self, node: A.Node) -> Optional[Shape]:
        return self.leaf(to_latex(node), node)

    s_Primed = s_Labeled

    def s_Group(self, node: A.Group) -> Optional[Shape]:
        return self.shape(node.body)

    def s_Annotated(self, node: A.Annotated) -> Optional[Shape]:
        return self.shape(node.body)

    def s_Indexed(self, node: A.Indexed) -> Optional[Shape]:
        whole = to_latex(node)
        if whole in self.declared or whole in self.defined or normalize_dim(whole) in self.dimensions:
            return self.leaf(whole, node)
        if isinstance(node.base, A.Symbol) and symbol_key(node.base) + ENTRY in self.declared \
                and symbol_key(node.base) not in self.declared:
            return self.leaf(symbol_key(node.base), node)  # declared per entry: the indices name the entry
        base = self.shape(node.base) if not isinstance(node.base, A.Symbol) else self.leaf(symbol_key(node.base), node)
        if base is None:
            return None
        indices = list(node.indices)
        free = [not self._is_bound(i) for i in indices]
        while len(indices) > len(base) and any(free):
            k = free.index(True)
            indices.pop(k)
            free.pop(k)
        if len(indices) > len(base):
            self.unknown_because(f"{whole}: more indices than {to_latex(node.base)} {show(base)} has axes")
            return None
        out = [d for d, f in zip(base, free + [True] * (len(base) - len(free))) if f]
        shape = tuple(out)
        if shape != base:
            self.step(node, shape, f"entry of {to_latex(node.base)} {show(base)}")
        return shape

    def _is_bound(self, index: A.Node) -> bool:
        """Does the index pick one position? A number or a sum's variable does; a free index ranges over its axis,
        and so does arithmetic on free indices only (`z_{t,i-1}` beside `z_{t,i}`: the step before, not an entry)."""
        if isinstance(index, A.Number):
            return True
        if isinstance(index, A.Symbol):
            return to_latex(index) in self.bound
        names = [to_latex(n) for n in A.walk(index) if isinstance(n, A.Symbol)]
        return not names or any(name in self.bound for name in names)

    # --- operations -------------------------------------------------------------------------------------
    def s_Transpose(self, node: A.Transpose) -> Optional[Shape]:
        base = self.shape(node.base)
        if base is None:
            return None
        if len(base) == 1:
            return self.step(node, ("1",) + base, "a row: the transposed column vector")
        if len(base) == 2:
            return self.step(node, (base[1], base[0]), f"transpose: {show(base)} → {show((base[1], base[0]))}")
        return base

    def s_Inverse(self, node: A.Inverse) -> Optional[Shape]:
        base = self.shape(node.base)
        return self.step(node, base, "inverse, shape unchanged") if base is not None else None

    def s_Product(self, node: A.Product) -> Optional[Shape]:
        current_node = node.factors[0]
        current = self.shape(current_node)
        for factor in node.factors[1:]:
            right = self.shape(factor)
            current = self.product(node, current_node, current, factor, right)
            current_node = node
        return current

    def product(self, node: A.Node, left: A.Node, ls: Optional[Shape], right: A.Node, rs: Optional[Shape],
                dot: bool = False) -> Optional[Shape]:
        if ls is None or rs is None:
            return None
        if ls == () or rs == ():
            return self.step(node, ls or rs, "scalar multiple, shape unchanged" if (ls or rs) else "scalar product")
        if ls[0] == "1" and len(ls) == 2 and len(rs) == 1:
            if _same(ls[1], rs[0]):
                return self.step(node, (), f"{show(ls)} @ {show(rs)} → scalar (dot product)")
            self.mismatch(node, left, ls, right, rs, "·", f"lengths {_plain(ls[1])} ≠ {_plain(rs[0])}")
            return None
        if len(ls) == 1 and len(rs) == 2 and rs[0] == "1":
            return self.step(node, (ls[0], rs[1]), f"{show(ls)} @ {show(rs)} → {show((ls[0], rs[1]))} (outer product)")
        if len(ls) == 1 and len(rs) == 1:
            if _same(ls[0], rs[0]):
                if dot:
                    return self.step(node, (), f"{show(ls)} · {show(rs)} → scalar (dot product)")
                return self.step(node, ls, f"{show(ls)} * {show(rs)} entrywise (two vectors side by side)")
            self.mismatch(node, left, ls, right, rs, "next to", f"lengths {_plain(ls[0])} ≠ {_plain(rs[0])}")
            return None
        inner_l = ls[-1]
        inner_r = rs[0] if len(rs) == 1 else rs[-2]
        if not _same(inner_l, inner_r):
            hint = f"inner dimensions {_plain(inner_l)} ≠ {_plain(inner_r)}"
            if len(rs) >= 2 and _same(ls[-1], rs[-1]):
                hint += f" — did you mean {to_latex(_strip(right))}^T?"
            elif len(ls) >= 2 and len(rs) >= 2 and _same(ls[-2], rs[-2]):
                hint += f" — did you mean {to_latex(_strip(left))}^T?"
            self.mismatch(node, left, ls, right, rs, "@", hint)
            return None
        if len(rs) == 1:
            out = ls[:-1]
        elif len(ls) == 1:
            out = rs[:-2] + rs[-1:]
        else:
            out = ls[:-1] + rs[-1:]
        note = f"{show(ls)} @ {show(rs)} → {show(out)}"
        if len(ls) == 1:
            note += " (row vector times matrix)"
        return self.step(node, out, note)

    def elementwise(self, node: A.Node, left: A.Node, ls: Optional[Shape], right: A.Node, rs: Optional[Shape],
                    op: str) -> Optional[Shape]:
        if ls is None or rs is None:
            return None
        if ls == rs or (len(ls) == len(rs) and all(_same(a, b) for a, b in zip(ls, rs))):
            return self.step(node, ls, "same shape, entrywise" if ls else "scalars")
        if ls == () or rs == ():
            return self.step(node, ls or rs, f"a scalar {op} every entry")
        short, long_ = (ls, rs) if len(ls) < len(rs) else (rs, ls)
        if len(short) < len(long_) and all(_same(a, b) for a, b in zip(short, long_[-len(short):])):
            axes = ", ".join(_plain(d) for d in long_[:len(long_) - len(short)])
            return self.step(node, long_, f"broadcast: {show(short)} repeated over {axes} of {show(long_)} "
                                          "(stated: papers do not inherit NumPy's rules)")
        self.mismatch(node, left, ls, right, rs, op, "shapes differ and share no trailing axes")
        return None

    def s_BinOp(self, node: A.BinOp) -> Optional[Shape]:
        spec = O.binary(node.op)
        rule = spec.shape if spec is not None else None
        if (rule == "product" or isinstance(rule, O.Refused)) and any(
                dims_of_space(side) is not None or isinstance(side, (A.SetLiteral, A.SetBuilder, A.Interval))
                for side in (node.left, node.right)):
            self.unknown_because(f"{to_latex(node)[:40]}: a product of sets (a domain), not a value")
            return None
        ls, rs = self.shape(node.left), self.shape(node.right)
        if rule == "elementwise":
            return self.elementwise(node, node.left, ls, node.right, rs, node.op)
        if rule == "divide":
            if rs == () and ls is not None:
                return self.step(node, ls, "a scalar divide, shape unchanged")
            return self.elementwise(node, node.left, ls, node.right, rs, "/")
        if rule in ("dot", "product"):
            return self.product(node, node.left, ls, node.right, rs, dot=rule == "dot")
        if rule == "outer" and ls is not None and rs is not None:
            return self.step(node, ls + rs, "outer (Kronecker) product")
        why = spec.refusal("shapes") if spec is not None else None
        self.unknown_because(f"operator {node.op} not handled" + (f": {why}" if why else ""))
        return None

    def s_Frac(self, node: A.Frac) -> Optional[Shape]:
        ls, rs = self.shape(node.num), self.shape(node.den)
        if rs == () and ls is not None:
            return self.step(node, ls, "a scalar divide, shape unchanged")
        return self.elementwise(node, node.num, ls, node.den, rs, "/")

    def s_UnaryOp(self, node: A.UnaryOp) -> Optional[Shape]:
        spec = O.unary(node.op)
        if spec is None or spec.shape != "operand":
            self.unknown_because(f"operator {node.op} not handled")
            return None
        return self.shape(node.operand)

    def s_Root(self, node: A.Root) -> Optional[Shape]:
        shape = self.shape(node.body)
        if shape == ():
            return ()
        return self.step(node, shape, "entrywise root") if shape is not None else None

    def s_Power(self, node: A.Power) -> Optional[Shape]:
        if dims_of_space(node) is not None:
            return dims_of_space(node)
        base = self.shape(node.base) if not (isinstance(node.base, A.Symbol) and node.base.name == "e") else ()
        exponent = self.shape(node.exponent)
        if base is None or exponent is None:
            return None
        if base == ():
            return self.step(node, exponent, "exponential, entrywise") if exponent else ()
        return self.step(node, base, "entrywise power") if exponent == () else \
            self.elementwise(node, node.base, base, node.exponent, exponent, "^")

    def s_Apply(self, node: A.Apply) -> Optional[Shape]:
        func = node.func
        name = func.name.lstrip("\\") if isinstance(func, A.Symbol) else ""
        key = symbol_key(func) if isinstance(func, (A.Symbol, A.Indexed)) else to_latex(func)
        if node.given or node.params:
            return self.step(node, (), "a probability (one number per sample)")
        if to_latex(node) in self.declared:
            return self.leaf(to_latex(node), node)
        if key in self.declared and len(node.args) == 1 and node.certainty == "ambiguous":
            return self.product(node, func, self.declared[key], node.args[0], self.shape(node.args[0]))
        op = FUNCTION_NAMES.get(name)
        args = [self.shape(a) for a in node.args]
        if op is None:
            self.unknown_because(f"{to_latex(func)}: unknown function, its output shape is not known")
            return self.step(node, None, f"unknown function {to_latex(func)}: shape not known (not guessed)",
                             "unknown")
        if any(a is None for a in args):
            return None
        if op in ("max2", "min2") and len(args) == 2:
            return self.elementwise(node, node.args[0], args[0], node.args[1], args[1], name)
        if op in ("max2", "min2", "mean", "sum", "var", "std", "norm", "trace", "det", "logsumexp") or op == "kl":
            return self.step(node, (), f"{name}: reduces to a scalar")
        if op == "softmax" and args:  # `softmax[` with nothing inside: no argument, no shape (below)
            shape = cast(Shape, args[0])  # every argument's shape is known (above)
            note = "each row sums to 1 (softmax over the last axis)" if len(shape) >= 2 else "sums to 1"
            return self.step(node, shape, note)
        if OPS[op].elementwise and len(args) == 1:
            return self.step(node, args[0], f"{name} entrywise, shape unchanged")
        return self.step(node, args[0] if args else None, f"{name}")

    def s_Divergence(self, node: A.Divergence) -> Optional[Shape]:
        ls, rs = self.shape(node.left), self.shape(node.right)
        if ls is not None and rs is not None and ls != rs and ls and rs:
            self.mismatch(node, node.left, ls, node.right, rs, "vs", "the two distributions differ in shape")
            return None
        return self.step(node, (), "divergence: a scalar")

    def s_Norm(self, node: A.Norm) -> Optional[Shape]:
        self.shape(node.body)
        return self.step(node, (), "norm: a scalar")

    def s_Abs(self, node: A.Abs) -> Optional[Shape]:
        return self.shape(node.body)

    def s_Indicator(self, node: A.Indicator) -> Optional[Shape]:
        self.shape(node.condition)
        return self.step(node, (), "indicator: 1 or 0")

    def s_Relation(self, node: A.Relation) -> Optional[Shape]:
        shapes = [self.shape(o) for o in node.operands]
        return () if all(s is not None for s in shapes) else None

    def s_Cases(self, node: A.Cases) -> Optional[Shape]:
        shapes = [self.shape(v) for v, _ in node.rows]
        known = [s for s in shapes if s is not None]
        return self.step(node, known[0], "piecewise") if known else None

    def s_Gradient(self, node: A.Gradient) -> Optional[Shape]:
        if node.body is not None:
            self.shape(node.body)
        if node.wrt is None:
            return None
        return self.step(node, self.shape(node.wrt), "gradient: the shape of what it is taken with respect to")

    def s_Tuple(self, node: A.Tuple) -> Optional[Shape]:
        items = [self.shape(i) for i in node.items]
        return (str(len(items)),) if all(i == () for i in items) else None

    def s_Matrix(self, node: A.Matrix) -> Optional[Shape]:
        if not node.rows:
            return None  # an empty \begin{pmatrix}\end{pmatrix} states no shape
        return (str(len(node.rows)), str(max(len(r) for r in node.rows)))

    def s_SetLiteral(self, node: A.SetLiteral) -> Shape:
        return (str(len(node.items)),)

    def s_Binom(self, node: A.Binom) -> Shape:
        return ()

    def s_Factorial(self, node: A.Factorial) -> Optional[Shape]:
        return self.shape(node.body)

    def s_Concat(self, node: A.Concat) -> Optional[Shape]:
        if any(isinstance(i, A.Ellipsis_) for i in node.items):
            self.unknown_because(f"{to_latex(node)[:40]}: a concatenation with '…' (length not checked)")
            return None
        found = [self.shape(i) for i in node.items]
        shapes = [s for s in found if s is not None]
        if len(shapes) < len(found):
            return None
        if all(len(s) >= 2 and s[:-1] == shapes[0][:-1] for s in shapes):
            self.concat_last[to_latex(node)] = shapes[0][:-1] + (" + ".join(_plain(s[-1]) for s in shapes),)
        parts = [s[0] if s else "1" for s in shapes]
        rest = {tuple(s[1:]) for s in shapes}
        if len(rest) > 1:
            self.unknown_because(f"{to_latex(node)[:40]}: parts differ beyond the first axis")
            return None
        return self.step(node, (" + ".join(_plain(p) for p in parts),) + next(iter(rest)),
                         "stacked along the first axis")

    def s_Reduction(self, node: A.Reduction) -> Optional[Shape]:
        for v in node.variables:
            self.bound.add(to_latex(v))
        for part in (node.lower, node.upper, node.domain, node.distribution):
            if part is not None and not isinstance(part, (A.Symbol, A.Indexed)):
                self.shape(part)
        if node.body is None:
            return None
        body = self.shape(node.body)
        if body is None:
            return None
        over = ", ".join(to_latex(v) for v in node.variables) or "its samples"
        spec = O.reduction(node.op)
        rule = spec.shape if spec is not None else "body"
        if rule == "scalar":
            return self.step(node, (), f"{node.op} over {over}: the argument")
        if rule == "expectation":
            if node.variables:
                return self.step(node, body, f"expectation over {over}: shape of one sample's value")
            return self.step(node, body[1:] if body else body,
                             "expectation: mean over the samples (first axis)" if body else "expectation")
        if rule == "softmax":
            return self.step(node, body, f"softmax over {over}: sums to 1 along it")
        if not node.variables and rule == "reduce":
            return self.step(node, (), f"{node.op} over all entries")
        return self.step(node, body, f"{node.op} over {over}: each term {show(body)}")

    def s_Empty(self, node: A.Node) -> None:
        return None

    def s_Text(self, node: A.Node) -> None:
        return None


def _sum_matches(total: str, other: str) -> bool:
    """`d + d` against `2 d`: the same number of equal parts."""
    parts = [p.strip() for p in total.split("+")]
    if len(parts) < 2 or len(set(parts)) != 1:
        return False
    return other.replace(" ", "") in (f"{len(parts)}{parts[0]}".replace(" ", ""), f"{parts[0]}{len(parts)}")


def _strip(node: A.Node) -> A.Node:
    while isinstance(node, A.Group):
        node = node.body
    return node


def _statements(tree: A.Node) -> list[A.Node]:
    if isinstance(tree, A.Rows):
        return [s for t in tree.statements for s in _statements(t)]
    if isinstance(tree, A.Sequence):
        return [s for t in tree.items for s in _statements(t)]
    return [tree]


def infer_shapes(formula: str | A.Node, declared_shapes: Mapping[str, Shape] | None = None, *,
                 sources: Mapping[str, str] | None = None, functions: frozenset[str] = frozenset(),
                 conventional: bool = False) -> ShapeReport:
    """Symbolic shapes through a formula. `declared_shapes`: symbol key → dims (from `read` or `--shape`).

    `conventional=True` (for a bare formula, not a paper's equation) gives Q, K and V guide 000's attention
    shapes when nothing declares them, and says so."""
    if isinstance(formula, str):
        tree = parse(formula, functions=functions).tree
    else:
        tree = formula
    declared = dict(declared_shapes or {})
    sources = dict(sources or {})
    keys = {symbol_key(n) for n in A.walk(tree) if isinstance(n, A.Symbol)}
    if conventional and {"Q", "K", "V"} <= keys and not any(k in declared for k in ("Q", "K", "V")):
        for key, shape in CONVENTIONAL_SHAPES.items():
            declared[key] = shape
            sources[key] = "conventional shape (guide 000), not from the paper"
    infer = _Infer(declared, sources)
    result: Optional[Shape] = None
    for statement in _statements(tree):
        result = _statement(infer, statement)
    symbols = {k.removesuffix(ENTRY): s.shape for k, s in infer.leaf_steps.items()}
    symbols.update(infer.defined)
    steps = tuple(infer.leaf_steps.values()) + tuple(infer.steps)
    return ShapeReport(to_latex(tree), steps, tuple(infer.mismatches), tuple(infer.unknown), symbols, result,
                       {k: s.note for k, s in infer.leaf_steps.items()},
                       {k: v for k, v in infer.exact.items() if v is not None})


_DEFINING = O.shaped(O.RELATION, "define")
"""Relations whose left side takes the right side's shape (`=`, `:=`, `≜`, `≈`, `←`…), from the operator spec."""


def _statement(infer: _Infer, node: A.Node) -> Optional[Shape]:
    if not isinstance(node, A.Relation):
        return infer.shape(node)
    unknown = [op for op in node.ops if O.relation(op) is None]
    if unknown:
        infer.unknown_because(f"relation {unknown[0]} not handled")
        return None
    if node.ops and all(op in ("\\in",) for op in node.ops):
        space = _declared_space(infer, node)
        if space is not None:
            return space
    defining = node.ops[0] in _DEFINING
    # Compute right to left: the right-most side is the computation, the others name or restate it.
    shapes: list[Optional[Shape]] = [None] * len(node.operands)
    shapes[-1] = infer.shape(node.operands[-1])
    for index in range(len(node.operands) - 2, 0, -1):
        shapes[index] = _middle_side(infer, node.operands[index], shapes[-1], defining)
    target = node.operands[0]
    computed = next((s for s in shapes[1:][::-1] if s is not None), None)
    shapes[0] = _defined_side(infer, target, computed) if defining else infer.shape(target)
    _compare_sides(infer, node, shapes)
    return computed


def _declared_space(infer: _Infer, node: A.Relation) -> Optional[Shape]:
    """`x, y \\in \\mathbb{R}^d`: each left side is declared with the space's shape (returned); None when the right
    side is not a space with dimensions."""
    space = dims_of_space(node.operands[-1])
    if space is None:
        return None
    for operand in node.operands[:-1]:
        key = symbol_key(operand)
        infer.declared[key] = space
        infer.leaf_steps[key] = ShapeStep(key, space, f"declared: {to_latex(node)}")
    return space


def _middle_side(infer: _Infer, operand: A.Node, computed: Optional[Shape], defining: bool) -> Optional[Shape]:
    """The shape of a side between the first and the last (`a = b = c`): a name not declared elsewhere that a defining
    relation gives is defined here with the computation's shape; a split vector restates it."""
    key = symbol_key(operand) if isinstance(operand, (A.Symbol, A.Indexed)) else None
    if defining and key is not None and key not in infer.declared and to_latex(operand) not in infer.declared:
        infer.defined[key] = computed
        infer.steps.append(ShapeStep(to_latex(operand), computed, "defined here: the right-hand side's shape"))
        return computed
    if defining and isinstance(operand, A.Concat) and any(isinstance(i, A.Ellipsis_) for i in operand.items):
        infer.steps.append(ShapeStep(to_latex(operand), computed, "the same vector, split into parts"))
        return None
    return infer.shape(operand)


def _defined_side(infer: _Infer, target: A.Node, computed: Optional[Shape]) -> Optional[Shape]:
    """The left side of a defining relation: defined here with the computed shape unless the text declares it
    (then its own shape is worked out, and returned, to be compared); None when it is defined here."""
    key = symbol_key(target.func) if isinstance(target, A.Apply) else (
        symbol_key(target) if isinstance(target, (A.Symbol, A.Indexed)) else None)
    declared = (infer.declared.get(key) or infer.declared.get(key + ENTRY)) if key else None
    if declared is None and isinstance(target, A.Indexed) and to_latex(target) in infer.declared:
        declared = infer.declared[to_latex(target)]
    if key is not None and not isinstance(target, A.Apply):
        infer.exact[to_latex(target)] = computed
    if key is not None and declared is None and not isinstance(target, A.Apply):
        infer.defined[key] = computed
        infer.steps.append(ShapeStep(to_latex(target), computed, "defined here: the right-hand side's shape"))
    elif isinstance(target, A.Apply):
        for arg in target.args:
            infer.shape(arg)
        infer.steps.append(ShapeStep(to_latex(target), computed, "defined here: the right-hand side's shape"))
    elif isinstance(target, A.Concat) and any(isinstance(i, A.Ellipsis_) for i in target.items):
        infer.steps.append(ShapeStep(to_latex(target), computed, "the same vector, split into parts"))
    else:
        return infer.shape(target)
    return None


def _same_shape(a: Shape, b: Shape) -> bool:
    """Two sides' shapes agree: equal, or axis by axis the same size written differently (`n+1` and `n + 1`, a
    sum written out)."""
    return a == b or (len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))) or \
        (len(a) == len(b) and all(_same(x, y) or _same(x.replace(" + ", " ").replace(" ", ""), y.replace(" ", ""))
                                  or _sum_matches(x, y) for x, y in zip(a, b)))


def _compare_sides(infer: _Infer, node: A.Relation, shapes: list[Optional[Shape]]) -> None:
    """Neighbouring sides whose shapes are known must agree (a concatenation may be read along its last axis to
    agree); a disagreement is reported as a mismatch."""
    known = [(node.operands[i], s) for i, s in enumerate(shapes) if s is not None]
    for (left, ls), (right, rs) in zip(known, known[1:]):
        for concat, other in ((left, rs), (right, ls)):
            alternative = infer.concat_last.get(to_latex(concat))
            if alternative is not None and _same_shape(alternative, other):
                infer.steps.append(ShapeStep(to_latex(concat), alternative,
                                             "joined along the last axis (the other side's shape says so)"))
                ls = rs = other
        if not _same_shape(ls, rs):
            if ls == () or rs == () and node.ops[0] not in ("=", ":="):
                continue
            infer.mismatch(node, left, ls, right, rs, node.ops[0], "the two sides differ in shape")


def _declared_with_index(key: str, cue: Optional[str]) -> bool:
    """True when the text declares one entry (`\\mathbf{h}_t \\in \\mathbb{R}^d`, `W_h \\in …`): the shape is per
    index."""
    if not cue or "\\in" not in cue:
        return False
    before = cue.strip("$ ").split("\\in")[0]
    for part in before.split(","):
        try:
            node = parse(part.strip()).tree
        except (MathParseError, PapermathError):
            continue
        if isinstance(node, A.Indexed) and symbol_key(node) == key:
            return True
    return False


def _session(doc: Any) -> Any:
    """The paper session of a `Paper` or a `Document` (one per document, kept by `papermath.paper`)."""
    from ..paper import Paper, paper_of
    return doc if isinstance(doc, Paper) else paper_of(doc)


def functions_for(doc: Any, equation: Any) -> tuple[dict[str, str], dict[str, str]]:
    """Functions of the equation the paper's text names concretely ("here we set it to be a ReLU", "sim
    computes the cosine similarities"): (function key → operation, key → the quote)."""
    from ..evaluate.ops import function_from_words

    try:
        symbols = _session(doc).symbols(equation)
    except Exception:  # read is another stage: no reading, no functions from the text
        return {}, {}
    ops: dict[str, str] = {}
    quotes: dict[str, str] = {}
    for symbol in symbols:
        definition = getattr(symbol, "definition", None)
        if symbol.kind != "function" or definition is None:
            continue
        op = function_from_words(definition.quote, symbol.symbol)
        if op is not None:
            ops[symbol.symbol] = op
            quotes[symbol.symbol] = definition.quote
    return ops, quotes


def declared_shapes_for(doc: Any, equation: Any) -> tuple[dict[str, Shape], dict[str, str], list[str]]:
    """Shapes the paper's text declares for an equation's symbols, from the equation's reading (`doc` is a
    `Paper` session or a `Document`): (key → shape, key → cue, notes)."""
    try:
        symbols = _session(doc).symbols(equation)  # the reading's rows (its kind and used-by are not needed)
    except (PapermathError, MathParseError) as error:
        return {}, {}, [f"read failed on this equation: {error}"]
    except Exception as error:  # read is another stage: one broken reading is a note, not a crash
        return {}, {}, [f"read failed on this equation: {type(error).__name__}: {error}"]
    shapes: dict[str, Shape] = {}
    cues: dict[str, str] = {}
    dims = set()
    for symbol in symbols:
        if usable(symbol.shape):
            for d in symbol.shape:
                dims.add(normalize_dim(d))
    for symbol in symbols:
        if not usable(symbol.shape) or symbol.kind in ("index", "function") or normalize_dim(symbol.symbol) in dims:
            continue
        key = symbol.symbol + ENTRY if _declared_with_index(symbol.symbol, symbol.shape_cue) else symbol.symbol
        shapes[key] = tuple(symbol.shape)
        cues[key] = f"from the text: {symbol.shape_cue}" if symbol.shape_cue else "from the text"
    return shapes, cues, []


def _context_equations(paper: Any, equation: Any) -> list[Any]:
    """The earlier equations whose definitions can reach `equation`: those defining a symbol it uses, then those
    defining a symbol one of them uses, and so on — from the paper's inverted indexes, in document order."""
    index = paper.index
    position = index.order.get(equation.id)
    if position is None:
        return []
    wanted: set[str] = set()
    todo = [equation.id]
    while todo:
        info = index.formulas.get(todo.pop())
        if info is None or info[0] is None:
            continue
        for use in info[0].uses:
            for other in index.equations.definers_before(use.key, position):
                if other not in wanted:
                    wanted.add(other)
                    todo.append(other)
    return [paper.doc.equation(eq_id) for eq_id in sorted(wanted, key=index.order.__getitem__)]


def _shapes_before(paper: Any, equation: Any) -> tuple[dict[str, Shape], dict[str, str]]:
    """The shapes earlier equations give to what they define, as seen from `equation` (cached per paper)."""
    cache = paper.cache.setdefault("shapes-before", {})
    found = cache.get(equation.id)
    if found is not None:
        return found
    known: dict[str, Shape] = {}
    known_sources: dict[str, str] = {}
    for eq in _context_equations(paper, equation):
        text_shapes, _, _ = declared_shapes_for(paper, eq)
        parsed = paper.parse(eq.latex)
        if parsed is None:
            continue
        try:
            report = infer_shapes(parsed.tree, {**known, **text_shapes}, functions=paper.functions)
        except (PapermathError, RecursionError):
            continue
        where = f"equation ({eq.number})" if eq.number else eq.id
        for key, shape in report.defined.items():
            if usable(shape) and key not in text_shapes:
                known[key] = shape
                known_sources[key] = f"defined by {where}"
    found = cache[equation.id] = (known, known_sources)
    return found


def shapes_in_context(doc: Any, equation: Any) -> tuple[dict[str, Shape], dict[str, str], list[str]]:
    """The text's declarations for `equation`, plus the shapes earlier equations give to what they define
    (equation (1) defines `\\mathbf{c}^{KV}_t` as [d_c]; equation (2) uses it): (key → shape, key → cue, notes).
    Only the equations whose definitions reach this one are read and shape-checked, each once per paper."""
    paper = _session(doc)
    declared, sources, notes = declared_shapes_for(paper, equation)
    earlier, earlier_sources = _shapes_before(paper, equation)
    shapes = dict(earlier)
    cues = dict(earlier_sources)
    for key in list(shapes):
        try:
            plain = symbol_key(parse(key).tree)
        except (MathParseError, PapermathError):
            plain = key
        if key in declared or plain in declared or plain + ENTRY in declared:
            shapes.pop(key)
            cues.pop(key, None)
    shapes.update(declared)
    cues.update(sources)
    return shapes, cues, notes
