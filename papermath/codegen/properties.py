"""Properties an equation's result has whatever the inputs, derived from its tree and its operators' rules.

Two properties, each a rule per operation held as data (`DEGREE`, `RANGE`, keyed by the operation names of the
operator spec's `evaluate` column, `papermath.math.operators`, and of the functions, `papermath.evaluate.ops`):

- **Scaling symmetry** (homogeneity). Each operation says how scaling its operands by positive factors scales its
  value: a sum needs its terms scaled alike, a product multiplies the factors' scales, exp/log/σ/softmax need an
  argument that does not change, |x| and max/min keep the scale, a square root halves it, a cosine similarity
  ignores it. Propagated through the tree, this gives linear constraints on the exponents w_k of the scalings
  x_k → 2^{w_k} x_k; any non-zero solution is a symmetry of the equation: the result becomes 2^D times itself
  (D = 0: unchanged). `σ(βx)` is unchanged when β doubles and x halves; `softmax(QK^T/√d)V` when Q doubles and K
  halves; DPO's loss when a policy's and the reference's probability of one answer double together.
- **Range**: interval arithmetic over the tree with every input unknown (−∞, ∞): exp > 0, σ in (0, 1), a norm or
  a square ≥ 0, a mean of values in [a, b] in [a, b], a log of values in (0, 1] ≤ 0, … . A bounded result is a
  check (`-log σ(z) ≥ 0`, `1 - σ(z) ∈ (0, 1)`, `\\frac{1}{N}\\sum_i \\|x_i - y_i\\|^2 ≥ 0`).

Neither uses papermath's evaluator: the expected value of a symmetry check is the generated code's own result at
the unscaled inputs times 2^D, that of a range check the interval. Both test the code against the tree's
operators, not the tree against the paper (a misread tree with the same symmetries passes); the paper's own
statements (a = b = c, a declared shape) are the checks that test the reading (`papermath.codegen.checks`).
"""
from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any
from dataclasses import dataclass
from fractions import Fraction

from ..evaluate.ops import FUNCTION_NAMES
from ..math import ast as A
from ..math import operators as O
from ..math import to_latex

INF = math.inf
Interval = tuple[float, float]
UNKNOWN: Interval = (-INF, INF)

# --- how each operation scales (homogeneity rules) ----------------------------------------------------------------
# "sum": operands scaled alike, the value too; "product": the scales multiply; "quotient": they divide;
# "same": one operand, the value scales with it (positively homogeneous of degree 1: |x|, relu, −x);
# "alike": several operands scaled alike, the value too (max, min, clip); "invariant": the operands must not
# change, nor does the value (exp, log, σ, softmax, an abstract function); "half": √x; "ignores": the value does
# not change whatever the operands' scales (cosine similarity, unit normalisation); "count": the operand must
# not change (a product over an index: its number of factors is not known here).
DEGREE: dict[str, str] = {
    # operator spec, `evaluate` column
    "add": "sum", "sub": "sum", "mul": "product", "div": "quotient", "dot": "product", "product": "product",
    "outer": "product", "neg": "same", "identity": "same", "not": "invariant", "reduce": "same",
    "expectation": "same", "softmax": "invariant", "compare": "compare",
    # reductions that are not sums
    "prod": "count", "argmax": "argument", "argmin": "argument",
    # functions (evaluate/ops.py)
    "exp": "invariant", "log": "invariant", "log2": "invariant", "sqrt": "half", "sigmoid": "invariant",
    "logsigmoid": "invariant", "tanh": "invariant", "relu": "same", "softplus": "invariant", "silu": "invariant",
    "gelu": "invariant", "sin": "invariant", "cos": "invariant", "abs": "same", "sign": "ignores",
    "floor": "invariant", "ceil": "invariant", "log_softmax": "invariant", "logsumexp": "invariant",
    "mean": "same", "sum": "same", "var": "double", "std": "same", "norm": "same", "trace": "same",
    "det": "invariant", "diag": "same", "inverse": "inverse", "transpose": "same", "kl": "invariant",
    "entropy": "invariant", "max2": "alike", "min2": "alike", "clip": "alike",
    "cosine_similarity": "ignores", "layer_norm": "invariant", "rmsnorm": "invariant", "l2_normalize": "ignores",
    "gaussian": "invariant",  # 𝒩(2x; 2μ, 4Σ) = 𝒩(x; μ, Σ)/2^d: d is a size not known here, so nothing moves
}


def _monotone(f: Callable[[float], float]) -> Callable[[Sequence[Interval]], Interval]:
    def rule(args: Sequence[Interval]) -> Interval:
        lo, hi = args[0]
        return (f(lo), f(hi))
    return rule


def _safe(f: Callable[[float], float], lo_limit: float, hi_limit: float) -> Callable[[float], float]:
    def g(x: float) -> float:
        if x == -INF:
            return lo_limit
        if x == INF:
            return hi_limit
        try:
            return f(x)
        except (OverflowError, ValueError):
            return hi_limit if x > 0 else lo_limit
    return g


def _log(args: Sequence[Interval]) -> Interval:
    lo, hi = args[0]
    if lo < 0:
        return UNKNOWN
    return (-INF if lo == 0 else math.log(lo), INF if hi == INF else (math.log(hi) if hi > 0 else -INF))


def _relu(args: Sequence[Interval]) -> Interval:
    lo, hi = args[0]
    return (max(lo, 0.0), max(hi, 0.0))


def _abs(args: Sequence[Interval]) -> Interval:
    lo, hi = args[0]
    if lo >= 0:
        return (lo, hi)
    if hi <= 0:
        return (-hi, -lo)
    return (0.0, max(-lo, hi))


def _fixed(lo: float, hi: float) -> Callable[[Sequence[Interval]], Interval]:
    return lambda args: (lo, hi)


def _hull2(pick: Callable[[float, float], float]) -> Callable[[Sequence[Interval]], Interval]:
    return lambda args: (pick(args[0][0], args[1][0]), pick(args[0][1], args[1][1])) if len(args) == 2 else UNKNOWN


def _sqrt(args: Sequence[Interval]) -> Interval:
    lo, hi = args[0]
    return (math.sqrt(max(lo, 0.0)), math.sqrt(hi) if hi >= 0 else 0.0)


def _sigmoid(x: float) -> float:
    return 1.0 / (1.0 + math.exp(-x)) if x >= 0 else math.exp(x) / (1.0 + math.exp(x))


RANGE: dict[str, Callable[[Sequence[Interval]], Interval]] = {
    "exp": _monotone(_safe(math.exp, 0.0, INF)),
    "log": _log,
    "sqrt": _sqrt,
    "sigmoid": _monotone(_safe(_sigmoid, 0.0, 1.0)),
    "logsigmoid": _monotone(_safe(lambda x: -math.log1p(math.exp(-x)) if x > -700 else x, -INF, 0.0)),
    "tanh": _monotone(_safe(math.tanh, -1.0, 1.0)),
    "relu": _relu,
    "softplus": _monotone(_safe(lambda x: math.log1p(math.exp(x)) if x < 700 else x, 0.0, INF)),
    "abs": _abs,
    "norm": _fixed(0.0, INF),
    "var": _fixed(0.0, INF),
    "std": _fixed(0.0, INF),
    "kl": _fixed(0.0, INF),
    "entropy": _fixed(0.0, INF),
    "sin": _fixed(-1.0, 1.0),
    "cos": _fixed(-1.0, 1.0),
    "sign": _fixed(-1.0, 1.0),
    "cosine_similarity": _fixed(-1.0, 1.0),
    "l2_normalize": _fixed(-1.0, 1.0),
    "softmax": _fixed(0.0, 1.0),
    "gaussian": _fixed(0.0, INF),  # a density
    "log_softmax": _fixed(-INF, 0.0),
    "max2": _hull2(max),
    "min2": _hull2(min),
    "mean": lambda args: args[0],
    "identity": lambda args: args[0],
    "transpose": lambda args: args[0],
}
"""Operation → the interval of its value from its arguments' intervals (an operation not listed: unknown)."""

RANGE_OPERANDS: dict[str, tuple[int, int | None]] = {
    "max2": (2, 2), "min2": (2, 2), "kl": (1, None), "cosine_similarity": (1, None), "gaussian": (1, None),
    "softmax": (1, None), "log_softmax": (1, None), "entropy": (1, None), "norm": (1, None),
}
"""How many operands a `RANGE` rule reads (fewest, most; None: any number): one unless listed. An application
with another number of operands (`\\exp()`, `\\tanh(x, y)` in a mutated or misread formula) has an unknown range —
the rules index their operands, so the count is checked before a rule runs."""

CONSTANTS = {"\\pi": math.pi, "e": math.e, "\\infty": INF}
IDENTITY = frozenset({"\\mathbf{I}", "\\mathbb{I}", "I", "\\mathbf{I}_{d}"})
"""The identity matrix's names (when the equation takes no input of that name): fixed entries in [0, 1]."""
"""Symbols that are numbers wherever they appear (when the equation takes no input of that name)."""


@dataclass
class _Context:
    variables: dict[str, int]
    """Input key (spaces removed) → position in the scaling vector; inputs that may be scaled."""
    frozen: set[str]
    """Input keys (spaces removed) that are sizes or counts: never scaled, positive."""
    abstract: dict[str, int]
    """Functions the paper leaves abstract (their LaTeX, spaces removed) → position of their output's scaling (the
    generated code takes them as callables: a test may scale what they return)."""
    implementations: dict[str, str]
    """Function LaTeX (spaces removed) → operation."""
    bound: tuple[str, ...] = ()
    defined: dict[str, tuple[_Linear | None, Interval]] | None = None
    constraints: list[_Linear] | None = None


class _Unknown(Exception):
    """The tree holds something the rules do not cover: no property is claimed."""


class _Linear:
    """A linear form Σ a_k w_k in the scaling exponents (the degree of a value)."""

    def __init__(self, coefficients: dict[int, Fraction] | None = None):
        self.c = {k: v for k, v in (coefficients or {}).items() if v}

    def __add__(self, other: _Linear) -> _Linear:
        out = dict(self.c)
        for k, v in other.c.items():
            out[k] = out.get(k, Fraction(0)) + v
        return _Linear(out)

    def scale(self, factor: Fraction) -> _Linear:
        return _Linear({k: v * factor for k, v in self.c.items()})

    def __sub__(self, other: _Linear) -> _Linear:
        return self + other.scale(Fraction(-1))

    def value(self, w: Sequence[Fraction]) -> Fraction:
        return sum((v * w[k] for k, v in self.c.items()), Fraction(0))


ZERO = _Linear()
_LARGEST = 64
# past these a formula is no paper's equation (a fuzzed chain x_0 = x_1 = … = x_156 took 95 s): no symmetry claimed
_MOST_INPUTS = 64
_MOST_SIDES = 16
"""A symmetry whose effect is past 2^64 (`x^{10^{40}}`) is not checked: floats cannot show it."""


def _key(node: A.Node) -> str:
    return to_latex(node).replace(" ", "")


def _base_key(node: A.Node) -> str:
    while isinstance(node, (A.Indexed, A.Group)):
        node = node.base if isinstance(node, A.Indexed) else node.body
    return _key(node)


def _strip(node: A.Node) -> A.Node:
    while isinstance(node, (A.Group, A.Annotated)):
        node = node.body
    return node


@dataclass(frozen=True)
class Scaling:
    """A symmetry: scaling input k by 2^{factors[k]} multiplies the result by 2^{degree}."""

    factors: tuple[int, ...]
    """Exponent per scalable input, in `keys` order (0: not scaled)."""
    keys: tuple[str, ...]
    """The scalable inputs' keys."""
    degree: Fraction
    """The result's exponent."""


@dataclass(frozen=True)
class Derived:
    """What the tree and the operators' rules give for the result."""

    scaling: Scaling | None
    range: Interval
    shift: Scaling | None = None
    """A translation symmetry: adding `factors[k]` to input k (to an abstract function's output) adds `degree`
    to the result (`softmax(z + c) = softmax(z)`, `‖(x + c) − (y + c)‖ = ‖x − y‖`, `σ(r_w − r_l)` with r shifted)."""


def derive(node: A.Node, statements: Sequence[tuple[str, A.Node]], *, sides: Sequence[A.Node] = (),
           variables: Sequence[str],
           frozen: Sequence[str] = (), abstract: Sequence[str] = (),
           implementations: Mapping[str, str] | None = None) -> Derived | None:
    """The scaling symmetry and range of `node` (the computed side), after `statements` ((key, right side)
    defined earlier in the same display). `variables`: the inputs that may be scaled; `frozen`: sizes, counts and
    indices; `sides`: other sides stated equal to `node` (the code computes them too: they constrain the symmetry
    alike). None when the tree holds something the rules do not cover."""
    ctx = _Context({k.replace(" ", ""): i for i, k in enumerate(variables)}, {k.replace(" ", "") for k in frozen},
                   {k.replace(" ", ""): len(variables) + i for i, k in enumerate(abstract)},
                   {k.replace(" ", ""): v for k, v in (implementations or {}).items()}, (), {}, [])
    keys = (*variables, *abstract)
    degree: _Linear | None = None
    try:
        for key, rhs in statements:
            ctx.defined[key.replace(" ", "")] = (_or_none(_degree, rhs, ctx), _or_unknown(rhs, ctx))
        # the code returns one of the sides the statement says are equal: the hull of their ranges holds for it
        interval = _hull([_range(n, ctx) for n in (node, *sides)])
    except (_Unknown, RecursionError, ZeroDivisionError, OverflowError, ValueError):
        interval = UNKNOWN
    if len(keys) > _MOST_INPUTS or len(sides) > _MOST_SIDES:
        return Derived(None, interval)  # the symmetry search is cubic in the inputs: bounded work, no claim
    degree = _or_none(_degree, node, ctx)
    for side in sides:
        other = _or_none(_degree, side, ctx) if degree is not None else None
        if other is None:
            degree = None
            break
        _require(other - degree, ctx)
    scaling = None
    w = _symmetry(ctx.constraints or [], len(keys)) if degree is not None else None
    if w is not None and degree is not None and abs(degree.value(w)) <= _LARGEST:
        scaling = Scaling(tuple(int(x) for x in w), keys, degree.value(w))
    return Derived(scaling, interval, _shift_symmetry(node, statements, sides, ctx, keys))


def _or_unknown(node: A.Node, ctx: _Context) -> Interval:
    try:
        return _range(node, ctx)
    except (_Unknown, RecursionError, ZeroDivisionError, OverflowError, ValueError):
        return UNKNOWN


def _or_none(rule: Callable[[A.Node, _Context], _Linear], node: A.Node, ctx: _Context) -> _Linear | None:
    saved = list(ctx.constraints or [])
    try:
        return rule(node, ctx)
    except (_Unknown, RecursionError, ZeroDivisionError, OverflowError, ValueError):
        ctx.constraints[:] = saved
        return None


def _symmetry(constraints: list[_Linear], n: int) -> list[Fraction] | None:
    """A non-zero integer vector w with every constraint's form zero (the sum of a nullspace basis), or None."""
    if n == 0:
        return None
    rows = [[c.c.get(k, Fraction(0)) for k in range(n)] for c in constraints if c.c]
    pivots: list[int] = []
    r = 0
    for col in range(n):
        pivot = next((i for i in range(r, len(rows)) if rows[i][col] != 0), None)
        if pivot is None:
            continue
        rows[r], rows[pivot] = rows[pivot], rows[r]
        lead = rows[r][col]
        rows[r] = [v / lead for v in rows[r]]
        for i in range(len(rows)):
            if i != r and rows[i][col] != 0:
                f = rows[i][col]
                rows[i] = [a - f * b for a, b in zip(rows[i], rows[r])]
        pivots.append(col)
        r += 1
    free = [c for c in range(n) if c not in pivots]
    if not free:
        return None
    w = [Fraction(0)] * n
    for f in free:
        w[f] += 1
        for i, p in enumerate(pivots):
            w[p] -= rows[i][f]
    scale = math.lcm(*(x.denominator for x in w))
    ints = [x * scale for x in w]
    divisor = math.gcd(*(int(x) for x in ints)) or 1
    w = [Fraction(int(x) // divisor) for x in ints]
    if not any(w) or max(abs(x) for x in w) > 8:
        return None
    return w


def _variable(node: A.Node, ctx: _Context) -> tuple[str, str] | None:
    """(how, key) when `node` is an input or a defined value: ("var"|"frozen"|"defined", key)."""
    for key in (_key(node), _base_key(node)):
        if ctx.defined and key in ctx.defined:
            return "defined", key
        if key in ctx.variables:
            return "var", key
        if key in ctx.frozen:
            return "frozen", key
    return None


def _freeze_inside(node: A.Node | None, ctx: _Context) -> None:
    """Inputs inside an index, a bound or a range are counts or positions: they must not be scaled."""
    if node is None:
        return
    for sub in A.walk(node):
        for key in (_key(sub), _base_key(sub)):
            if key in ctx.variables:
                ctx.constraints.append(_Linear({ctx.variables[key]: Fraction(1)}))


def _abstract_index(node: A.Apply, ctx: _Context) -> int | None:
    for key in (_key(node.func), _base_key(node.func)):
        if key in ctx.abstract:
            return ctx.abstract[key]
    return None


def _gaussian(node: A.Apply) -> bool:
    """`\\mathcal{N}(x; \\mu, \\Sigma)`: the Gaussian density at x (what the evaluator computes for this form)."""
    func = _strip(node.func)
    return (isinstance(func, A.Symbol) and func.name == "N" and func.font == "cal" and func.sub_label is None
            and len(node.args) == 1 and len(node.params) == 2 and not node.given)


def _function_op(node: A.Apply, ctx: _Context) -> str | None:
    if _gaussian(node) and _key(node.func) not in ctx.abstract:
        return "gaussian"
    key = _key(node.func)
    if key in ctx.implementations:
        op = ctx.implementations[key]
        return "abstract" if op.startswith("equation") else op
    if key in ctx.abstract or _base_key(node.func) in ctx.abstract:
        return "abstract"
    func = _strip(node.func)
    if isinstance(func, A.Symbol) and not func.sub_label and not func.sup_label and not func.accents:
        return FUNCTION_NAMES.get(func.name.lstrip("\\"))
    if isinstance(func, A.Indexed) and isinstance(func.base, A.Symbol) and func.base.name.lstrip("\\") == "log":
        return "log"
    return None


def _degree(node: A.Node, ctx: _Context) -> _Linear:
    node = _strip(node)
    found = _variable(node, ctx)
    if found is not None:
        how, key = found
        if how == "defined":
            if isinstance(node, A.Indexed):
                for index in node.indices:
                    _freeze_inside(index, ctx)
            degree = ctx.defined[key][0]
            if degree is None:
                raise _Unknown(key)
            return degree
        if isinstance(node, A.Indexed):
            for index in node.indices:
                _freeze_inside(index, ctx)
        return _Linear({ctx.variables[key]: Fraction(1)}) if how == "var" else ZERO
    handler = _DEGREE_BY_NODE.get(type(node))
    if handler is None:
        raise _Unknown(type(node).__name__)  # not a value these rules know (an ellipsis, words): no claim
    return handler(node, ctx)


def _degree_number(node: A.Number, ctx: _Context) -> _Linear:
    return ZERO


def _degree_symbol(node: A.Symbol, ctx: _Context) -> _Linear:
    name = _key(node)
    if name in ctx.bound or name in CONSTANTS or name in IDENTITY:
        return ZERO
    raise _Unknown(name)


def _degree_indexed(node: A.Indexed, ctx: _Context) -> _Linear:
    base = _strip(node.base)
    if isinstance(base, A.Symbol) and _key(base) in ctx.bound:
        return ZERO
    raise _Unknown(_key(node))


def _degree_binop(node: A.BinOp, ctx: _Context) -> _Linear:
    spec = O.binary(node.op)
    rule = DEGREE.get(spec.evaluate) if spec and isinstance(spec.evaluate, str) else None
    return _combine(rule, [_degree(node.left, ctx), _degree(node.right, ctx)], ctx)


def _degree_unaryop(node: A.UnaryOp, ctx: _Context) -> _Linear:
    spec = O.unary(node.op)
    rule = DEGREE.get(spec.evaluate) if spec and isinstance(spec.evaluate, str) else None
    return _combine(rule, [_degree(node.operand, ctx)], ctx)


def _degree_product(node: A.Product, ctx: _Context) -> _Linear:
    return _combine("product", [_degree(f, ctx) for f in node.factors], ctx)


def _degree_frac(node: A.Frac, ctx: _Context) -> _Linear:
    return _combine("quotient", [_degree(node.num, ctx), _degree(node.den, ctx)], ctx)


def _degree_power(node: A.Power, ctx: _Context) -> _Linear:
    exponent = _strip(node.exponent)
    base = _degree(node.base, ctx)
    value = _number(exponent)
    if value is not None:
        return base.scale(value)
    _require(_degree(exponent, ctx), ctx)
    _require(base, ctx)
    return ZERO


def _degree_transpose(node: A.Transpose, ctx: _Context) -> _Linear:
    return _degree(node.base, ctx)


def _degree_inverse(node: A.Inverse, ctx: _Context) -> _Linear:
    return _degree(node.base, ctx).scale(Fraction(-1))


def _degree_root(node: A.Root, ctx: _Context) -> _Linear:
    if node.index is not None:
        value = _number(_strip(node.index))
        if value is None or value == 0:
            raise _Unknown("root")
        return _degree(node.body, ctx).scale(1 / value)
    return _degree(node.body, ctx).scale(Fraction(1, 2))


def _degree_norm(node: A.Node, ctx: _Context) -> _Linear:
    return _degree(node.body, ctx)


def _degree_divergence(node: A.Divergence, ctx: _Context) -> _Linear:
    _require(_degree(node.left, ctx), ctx)
    _require(_degree(node.right, ctx), ctx)
    return ZERO


def _degree_apply(node: A.Apply, ctx: _Context) -> _Linear:
    op = _function_op(node, ctx)
    if op is None or ((node.given or node.params) and op not in ("abstract", "gaussian")):
        raise _Unknown(_key(node))
    args = [_degree(a, ctx) for a in (*node.args, *node.given, *node.params)]
    if op == "abstract":
        for a in args:
            _require(a, ctx)
        index = _abstract_index(node, ctx)
        return ZERO if index is None else _Linear({index: Fraction(1)})
    return _combine(DEGREE.get(op), args, ctx)


def _degree_reduction(node: A.Reduction, ctx: _Context) -> _Linear:
    return _reduction_degree(node, ctx)


def _degree_indicator(node: A.Indicator, ctx: _Context) -> _Linear:
    _condition(node.condition, ctx)
    return ZERO


def _degree_cases(node: A.Cases, ctx: _Context) -> _Linear:
    values = []
    for value, condition in node.rows:
        if condition is not None:
            _condition(condition, ctx)
        values.append(_degree(value, ctx))
    return _combine("alike", values, ctx)


def _degree_matrix(node: A.Matrix, ctx: _Context) -> _Linear:
    return _combine("alike", [_degree(c, ctx) for row in node.rows for c in row], ctx)


def _degree_concat(node: A.Node, ctx: _Context) -> _Linear:
    if not (node.items):
        raise _Unknown(type(node).__name__)
    return _combine("alike", [_degree(c, ctx) for c in node.items], ctx)


def _degree_delimited(node: A.Delimited, ctx: _Context) -> _Linear:
    pair = _inner_product(node)
    if pair is not None:
        return _combine("product", [_degree(p, ctx) for p in pair], ctx)
    if node.kind in ("floor", "ceil"):
        return _combine("invariant", [_degree(node.body, ctx)], ctx)
    raise _Unknown(type(node).__name__)


_DEGREE_BY_NODE: dict[type, Callable[[Any, _Context], _Linear]] = {
    A.Number: _degree_number,
    A.Symbol: _degree_symbol,
    A.Indexed: _degree_indexed,
    A.BinOp: _degree_binop,
    A.UnaryOp: _degree_unaryop,
    A.Product: _degree_product,
    A.Frac: _degree_frac,
    A.Power: _degree_power,
    A.Transpose: _degree_transpose,
    A.Inverse: _degree_inverse,
    A.Root: _degree_root,
    A.Norm: _degree_norm,
    A.Abs: _degree_norm,
    A.Divergence: _degree_divergence,
    A.Apply: _degree_apply,
    A.Reduction: _degree_reduction,
    A.Indicator: _degree_indicator,
    A.Cases: _degree_cases,
    A.Matrix: _degree_matrix,
    A.Concat: _degree_concat,
    A.Tuple: _degree_concat,
    A.Delimited: _degree_delimited,
}


def _inner_product(node: A.Delimited) -> tuple[A.Node, A.Node] | None:
    """`⟨a, b⟩`: the two sides of an inner product (bilinear: scales multiply, a shift is not allowed)."""
    body = _strip(node.body)
    if node.kind == "angle" and isinstance(body, A.Tuple) and len(body.items) == 2:
        return body.items[0], body.items[1]
    return None


def _condition(node: A.Node, ctx: _Context) -> None:
    node = _strip(node)
    if isinstance(node, A.Text):  # "otherwise"
        return
    if isinstance(node, A.Relation) and all(O.relation(op) and O.relation(op).evaluate == "compare" for op in node.ops):
        degrees = [_degree(o, ctx) for o in node.operands]
        _combine("alike", degrees, ctx)
        return
    raise _Unknown("condition")


def _reduction_body_context(node: A.Reduction, ctx: _Context) -> tuple[str, A.Node, _Context]:
    """The reduction's evaluation op, its body and the body's context. Inputs in a bound, a range or a condition (which
    terms are reduced) must not move: each is constrained to stay as it is; the bound variables are bound inside."""
    spec = O.reduction(node.op)
    if spec is None or not isinstance(spec.evaluate, str) or node.body is None:
        raise _Unknown(f"reduction {node.op}")
    names = tuple(_key(v) for v in node.variables)
    parts = (node.lower, node.upper, node.domain, node.condition) if node.op == "E" else (
        node.lower, node.upper, node.domain, node.under, node.over, node.condition)
    for part in parts:
        if part is not None:
            for sub in A.walk(part):
                key = _key(sub)
                if key in ctx.variables and key not in names:
                    ctx.constraints.append(_Linear({ctx.variables[key]: Fraction(1)}))
    inner = _Context(ctx.variables, ctx.frozen, ctx.abstract, ctx.implementations, ctx.bound + names, ctx.defined,
                     ctx.constraints)
    return spec.evaluate, node.body, inner


def _reduction_degree(node: A.Reduction, ctx: _Context) -> _Linear:
    evaluate, body_node, inner = _reduction_body_context(node, ctx)
    body = _degree(body_node, inner)
    rule = DEGREE.get(node.op) or DEGREE.get(evaluate)
    if rule == "argument":
        return ZERO  # a positive scaling of the body keeps its maximiser
    return _combine(rule, [body], ctx)


def _require(form: _Linear, ctx: _Context) -> None:
    if form.c:
        ctx.constraints.append(form)


COMBINE_OPERANDS: dict[str, tuple[int, int | None]] = {
    "quotient": (2, 2), "same": (1, 1), "half": (1, 1), "double": (1, 1), "inverse": (1, 1),
}
"""How many operands a `DEGREE` rule reads (fewest, most; None: any): at least one unless listed. Another count
(a quotient of one operand, √ of two) has no scaling rule."""


def _combine(rule: str | None, args: list[_Linear], ctx: _Context) -> _Linear:
    if rule is None or not _operand_count_fits(COMBINE_OPERANDS.get(rule, (1, None)), len(args)):
        raise _Unknown(f"no scaling rule {rule} for {len(args)} operand(s)")
    if rule in ("sum", "alike", "compare"):
        for other in args[1:]:
            _require(other - args[0], ctx)
        return ZERO if rule == "compare" else args[0]
    if rule == "product":
        total = ZERO
        for a in args:
            total = total + a
        return total
    if rule == "quotient":
        return args[0] - args[1]
    if rule == "same":
        return args[0]
    if rule in ("invariant", "count"):
        for a in args:
            _require(a, ctx)
        return ZERO
    if rule == "ignores":
        return ZERO
    if rule == "half":
        return args[0].scale(Fraction(1, 2))
    if rule == "double":
        return args[0].scale(Fraction(2))
    if rule == "inverse":
        return args[0].scale(Fraction(-1))
    raise _Unknown(rule)


def _number(node: A.Node) -> Fraction | None:
    node = _strip(node)
    if isinstance(node, A.Number):
        try:
            return Fraction(node.value)
        except ValueError:
            return None
    if isinstance(node, A.UnaryOp) and node.op == "-":
        inner = _number(node.operand)
        return -inner if inner is not None else None
    if isinstance(node, A.Frac):
        num, den = _number(node.num), _number(node.den)
        return num / den if num is not None and den else None
    return None


# --- range ----------------------------------------------------------------------------------------------------


def _add(a: Interval, b: Interval) -> Interval:
    return (a[0] + b[0] if not (a[0] == -INF or b[0] == -INF) else -INF,
            a[1] + b[1] if not (a[1] == INF or b[1] == INF) else INF)


def _neg(a: Interval) -> Interval:
    return (-a[1], -a[0])


def _mul(a: Interval, b: Interval) -> Interval:
    products = []
    for x in a:
        for y in b:
            if (x == 0 and abs(y) == INF) or (y == 0 and abs(x) == INF):
                products.append(0.0)
            else:
                products.append(x * y)
    return (min(products), max(products))


def _div(a: Interval, b: Interval) -> Interval:
    lo, hi = b
    if lo <= 0 <= hi:
        if lo == 0 and hi > 0 and a[0] >= 0:
            return (0.0, INF)  # a non-negative value over a positive one (the denominator is not 0 where it runs)
        return UNKNOWN
    inverse = (1 / hi if hi != INF else 0.0, 1 / lo if lo != -INF else 0.0)
    return _mul(a, inverse)


def _sum_of(a: Interval) -> Interval:
    """A sum of an unknown number (≥ 0) of terms each in `a`."""
    return (0.0 if a[0] >= 0 else -INF, 0.0 if a[1] <= 0 else INF)


def _hull(values: list[Interval]) -> Interval:
    return (min(v[0] for v in values), max(v[1] for v in values))


def _range(node: A.Node, ctx: _Context) -> Interval:
    node = _strip(node)
    found = _variable(node, ctx)
    if found is not None:
        how, key = found
        if how == "defined":
            return ctx.defined[key][1]
        return (1.0, INF) if how == "frozen" else UNKNOWN
    handler = _RANGE_BY_NODE.get(type(node))
    if handler is None:
        raise _Unknown(type(node).__name__)  # not a value these rules know (an ellipsis, words): no claim
    return handler(node, ctx)


def _range_number(node: A.Number, ctx: _Context) -> Interval:
    value = float(Fraction(node.value))
    return (value, value)


def _range_symbol(node: A.Symbol, ctx: _Context) -> Interval:
    name = _key(node)
    if name in CONSTANTS:
        return (CONSTANTS[name], CONSTANTS[name])
    if name in IDENTITY:
        return (0.0, 1.0)
    return UNKNOWN


def _range_binop(node: A.BinOp, ctx: _Context) -> Interval:
    spec = O.binary(node.op)
    how = spec.evaluate if spec else None
    left, right = _range(node.left, ctx), _range(node.right, ctx)
    if how == "add":
        return _add(left, right)
    if how == "sub":
        return _add(left, _neg(right))
    if how == "mul":
        return _mul(left, right)
    if how == "div":
        return _div(left, right)
    if how in ("dot", "product", "outer"):
        return _sum_of(_mul(left, right)) if how != "outer" else _mul(left, right)
    return UNKNOWN


def _range_unaryop(node: A.UnaryOp, ctx: _Context) -> Interval:
    inner = _range(node.operand, ctx)
    return _neg(inner) if node.op == "-" else inner if node.op == "+" else UNKNOWN


def _range_product(node: A.Product, ctx: _Context) -> Interval:
    total = _range(node.factors[0], ctx)
    for f in node.factors[1:]:
        total = _mul(total, _range(f, ctx))
    # juxtaposed matrices multiply by sums of products: a sign survives, a bound does not
    return _sum_of(total)


def _range_frac(node: A.Frac, ctx: _Context) -> Interval:
    return _div(_range(node.num, ctx), _range(node.den, ctx))


def _range_power(node: A.Power, ctx: _Context) -> Interval:
    exponent = _number(node.exponent)
    base = _range(node.base, ctx)
    if exponent is not None and exponent.denominator == 1 and exponent.numerator % 2 == 0 and exponent > 0:
        low = 0.0 if base[0] <= 0 <= base[1] else min(abs(base[0]), abs(base[1])) ** int(exponent)
        top = max(abs(base[0]), abs(base[1]))
        return (low, INF if top == INF else top ** int(exponent))
    if exponent is not None and exponent > 0 and base[0] >= 0:
        return (base[0] ** float(exponent), base[1] ** float(exponent) if base[1] != INF else INF)
    if exponent is not None and exponent < 0 and base[0] > 0:
        return (base[1] ** float(exponent) if base[1] != INF else 0.0, base[0] ** float(exponent))
    return UNKNOWN


def _range_root(node: A.Root, ctx: _Context) -> Interval:
    return _sqrt([_range(node.body, ctx)]) if node.index is None else (0.0, INF)


def _range_norm(node: A.Norm, ctx: _Context) -> Interval:
    return (0.0, INF)


def _range_abs(node: A.Abs, ctx: _Context) -> Interval:
    return _abs([_range(node.body, ctx)])


def _range_divergence(node: A.Divergence, ctx: _Context) -> Interval:
    return (0.0, INF)  # a divergence is ≥ 0 by definition


def _range_indicator(node: A.Indicator, ctx: _Context) -> Interval:
    return (0.0, 1.0)


def _range_transpose(node: A.Transpose, ctx: _Context) -> Interval:
    return _range(node.base, ctx)


def _range_apply(node: A.Apply, ctx: _Context) -> Interval:
    op = _function_op(node, ctx)
    rule = RANGE.get(op) if op else None
    operands = (*node.args, *node.params)
    if rule is None or not _operand_count_fits(RANGE_OPERANDS.get(op or "", (1, 1)), len(operands)):
        return UNKNOWN
    return rule([_range(a, ctx) for a in operands])


def _operand_count_fits(counts: tuple[int, int | None], n: int) -> bool:
    fewest, most = counts
    return n >= fewest and (most is None or n <= most)


def _range_reduction(node: A.Reduction, ctx: _Context) -> Interval:
    if node.body is None:
        return UNKNOWN
    body = _range(node.body, ctx)
    if node.op == "softmax":
        return (0.0, 1.0)
    if node.op in ("E", "max", "min", "sup", "inf", "stack", "mean"):
        return body
    if node.op == "sum":
        return _sum_of(body)
    if node.op == "prod" and body[0] >= 0:
        return (0.0, 1.0 if body[1] <= 1 else INF)
    return UNKNOWN


def _range_cases(node: A.Cases, ctx: _Context) -> Interval:
    return _hull([_range(value, ctx) for value, _ in node.rows])


def _range_matrix(node: A.Matrix, ctx: _Context) -> Interval:
    return _hull([_range(c, ctx) for row in node.rows for c in row])


_RANGE_BY_NODE: dict[type, Callable[[Any, _Context], Interval]] = {
    A.Number: _range_number,
    A.Symbol: _range_symbol,
    A.BinOp: _range_binop,
    A.UnaryOp: _range_unaryop,
    A.Product: _range_product,
    A.Frac: _range_frac,
    A.Power: _range_power,
    A.Root: _range_root,
    A.Norm: _range_norm,
    A.Abs: _range_abs,
    A.Divergence: _range_divergence,
    A.Indicator: _range_indicator,
    A.Transpose: _range_transpose,
    A.Apply: _range_apply,
    A.Reduction: _range_reduction,
    A.Cases: _range_cases,
    A.Matrix: _range_matrix,
}


# --- translation symmetry -----------------------------------------------------------------------------------------
# How adding a constant to an operand moves an operation's value: "passes" (the value moves with it: +, −, mean,
# max, E), "ignores" (the value does not move whatever the shift: softmax, argmax, layer norm), "fixed" (the operand
# must not move: exp, log, σ, a norm, a square, a sum over an index whose number of terms is not known here).
SHIFT: dict[str, str] = {
    "identity": "passes", "mean": "passes", "max2": "alike", "min2": "alike", "logsumexp": "passes",
    "transpose": "passes", "softmax": "ignores", "log_softmax": "ignores", "layer_norm": "ignores",
    "reduce": "passes", "expectation": "passes", "stack": "passes", "argmax": "ignores", "argmin": "ignores",
    "sum": "fixed", "prod": "fixed",
}


def _shift_symmetry(node: A.Node, statements: Sequence[tuple[str, A.Node]], sides: Sequence[A.Node],
                    scaled: _Context, keys: tuple[str, ...]) -> Scaling | None:
    ctx = _Context(scaled.variables, scaled.frozen, scaled.abstract, scaled.implementations, (), {}, [])
    try:
        for key, rhs in statements:
            ctx.defined[key.replace(" ", "")] = (_or_none(_shift, rhs, ctx), UNKNOWN)
        moved = _shift(node, ctx)
        for side in sides:
            _require(_shift(side, ctx) - moved, ctx)
    except (_Unknown, RecursionError, ZeroDivisionError, OverflowError, ValueError):
        return None
    w = _symmetry(ctx.constraints or [], len(keys))
    if w is None or abs(moved.value(w)) > _LARGEST:
        return None
    return Scaling(tuple(int(x) for x in w), keys, moved.value(w))


def _shift(node: A.Node, ctx: _Context) -> _Linear:
    node = _strip(node)
    found = _variable(node, ctx)
    if found is not None:
        how, key = found
        if isinstance(node, A.Indexed):
            for index in node.indices:
                _freeze_inside(index, ctx)
        if how == "defined":
            moved = ctx.defined[key][0]
            if moved is None:
                raise _Unknown(key)
            return moved
        return _Linear({ctx.variables[key]: Fraction(1)}) if how == "var" else ZERO
    handler = _SHIFT_BY_NODE.get(type(node))
    if handler is None:
        raise _Unknown(type(node).__name__)  # not a value these rules know (an ellipsis, words): no claim
    return handler(node, ctx)


def _shift_number(node: A.Number, ctx: _Context) -> _Linear:
    return ZERO


def _shift_symbol(node: A.Symbol, ctx: _Context) -> _Linear:
    if _key(node) in ctx.bound or _key(node) in CONSTANTS or _key(node) in IDENTITY:
        return ZERO
    raise _Unknown(_key(node))


def _shift_indexed(node: A.Indexed, ctx: _Context) -> _Linear:
    base = _strip(node.base)
    if isinstance(base, A.Symbol) and _key(base) in ctx.bound:
        return ZERO
    raise _Unknown(_key(node))


def _shift_binop(node: A.BinOp, ctx: _Context) -> _Linear:
    spec = O.binary(node.op)
    how = spec.evaluate if spec else None
    if how in ("add", "sub"):
        left, right = _shift(node.left, ctx), _shift(node.right, ctx)
        return left + right if how == "add" else left - right
    if how in ("mul", "dot", "product", "outer"):
        return _shift_factors([node.left, node.right], ctx)
    if how == "div":
        return _shift_quotient(node.left, node.right, ctx)
    raise _Unknown(node.op)


def _shift_unaryop(node: A.UnaryOp, ctx: _Context) -> _Linear:
    inner = _shift(node.operand, ctx)
    if node.op in ("-", "\\neg"):
        return inner.scale(Fraction(-1))
    if node.op == "+":
        return inner
    raise _Unknown(node.op)


def _shift_product(node: A.Product, ctx: _Context) -> _Linear:
    return _shift_factors(list(node.factors), ctx)


def _shift_frac(node: A.Frac, ctx: _Context) -> _Linear:
    return _shift_quotient(node.num, node.den, ctx)


def _shift_power(node: A.Power, ctx: _Context) -> _Linear:
    if _number(node.exponent) == 1:
        return _shift(node.base, ctx)
    _fixed_shift([node.base, node.exponent], ctx)
    return ZERO


def _shift_transpose(node: A.Transpose, ctx: _Context) -> _Linear:
    return _shift(node.base, ctx)


def _shift_inverse(node: A.Node, ctx: _Context) -> _Linear:
    _fixed_shift([node.base if isinstance(node, A.Inverse) else node.body], ctx)
    return ZERO


def _shift_divergence(node: A.Divergence, ctx: _Context) -> _Linear:
    _fixed_shift([node.left, node.right], ctx)
    return ZERO


def _shift_apply(node: A.Apply, ctx: _Context) -> _Linear:
    op = _function_op(node, ctx)
    if op is None or ((node.given or node.params) and op not in ("abstract", "gaussian")):
        raise _Unknown(_key(node))
    args = [*node.args, *node.given, *node.params]
    if op == "gaussian":
        # 𝒩(x + c; μ + c, Σ) = 𝒩(x; μ, Σ): the density depends on x − μ only
        _shift_rule("alike", args[:2], ctx)
        _fixed_shift(args[2:], ctx)
        return ZERO
    if op == "abstract":
        _fixed_shift(args, ctx)
        index = _abstract_index(node, ctx)
        return ZERO if index is None else _Linear({index: Fraction(1)})
    return _shift_rule(SHIFT.get(op, "fixed"), args, ctx)


def _shift_reduction(node: A.Reduction, ctx: _Context) -> _Linear:
    evaluate, body, inner = _reduction_body_context(node, ctx)
    rule = SHIFT.get(node.op) or SHIFT.get(evaluate, "fixed")
    return _shift_rule(rule, [body], inner)


def _shift_indicator(node: A.Indicator, ctx: _Context) -> _Linear:
    _shift_condition(node.condition, ctx)
    return ZERO


def _shift_cases(node: A.Cases, ctx: _Context) -> _Linear:
    values = []
    for value, condition in node.rows:
        if condition is not None:
            _shift_condition(condition, ctx)
        values.append(value)
    return _shift_rule("alike", values, ctx)


def _shift_matrix(node: A.Matrix, ctx: _Context) -> _Linear:
    return _shift_rule("alike", [c for row in node.rows for c in row], ctx)


def _shift_concat(node: A.Node, ctx: _Context) -> _Linear:
    if not (node.items):
        raise _Unknown(type(node).__name__)
    return _shift_rule("alike", list(node.items), ctx)


def _shift_delimited(node: A.Delimited, ctx: _Context) -> _Linear:
    if not ((_inner_product(node) is not None or node.kind in ("floor", "ceil"))):
        raise _Unknown(type(node).__name__)
    pair = _inner_product(node)
    _fixed_shift(list(pair) if pair is not None else [node.body], ctx)
    return ZERO


_SHIFT_BY_NODE: dict[type, Callable[[Any, _Context], _Linear]] = {
    A.Number: _shift_number,
    A.Symbol: _shift_symbol,
    A.Indexed: _shift_indexed,
    A.BinOp: _shift_binop,
    A.UnaryOp: _shift_unaryop,
    A.Product: _shift_product,
    A.Frac: _shift_frac,
    A.Power: _shift_power,
    A.Transpose: _shift_transpose,
    A.Inverse: _shift_inverse,
    A.Root: _shift_inverse,
    A.Norm: _shift_inverse,
    A.Abs: _shift_inverse,
    A.Divergence: _shift_divergence,
    A.Apply: _shift_apply,
    A.Reduction: _shift_reduction,
    A.Indicator: _shift_indicator,
    A.Cases: _shift_cases,
    A.Matrix: _shift_matrix,
    A.Concat: _shift_concat,
    A.Tuple: _shift_concat,
    A.Delimited: _shift_delimited,
}


def _shift_rule(rule: str, args: list[A.Node], ctx: _Context) -> _Linear:
    if rule == "passes" and len(args) == 1:
        return _shift(args[0], ctx)
    if rule == "alike" and args:
        forms = [_shift(a, ctx) for a in args]
        for other in forms[1:]:
            _require(other - forms[0], ctx)
        return forms[0]
    if rule == "ignores":
        for a in args:
            _shift(a, ctx)  # still walked: an input inside an index must not move
        return ZERO
    _fixed_shift(args, ctx)
    return ZERO


def _shift_condition(node: A.Node, ctx: _Context) -> None:
    node = _strip(node)
    if isinstance(node, A.Text):
        return
    if isinstance(node, A.Relation) and all(O.relation(op) and O.relation(op).evaluate == "compare" for op in node.ops):
        _shift_rule("alike", list(node.operands), ctx)
        return
    raise _Unknown("condition")


def _fixed_shift(args: Sequence[A.Node], ctx: _Context) -> None:
    for a in args:
        _require(_shift(a, ctx), ctx)


def _shift_factors(factors: list[A.Node], ctx: _Context) -> _Linear:
    """A product moves with one factor only when the others are numbers (2(x + c) = 2x + 2c); otherwise no factor
    may move (β(x + c) moves by βc, which depends on β's value)."""
    numbers = [_number(f) for f in factors]
    rest = [f for f, n in zip(factors, numbers) if n is None]
    if len(rest) == 1:
        factor = Fraction(1)
        for n in numbers:
            if n is not None:
                factor *= n
        return _shift(rest[0], ctx).scale(factor)
    _fixed_shift(factors, ctx)
    return ZERO


def _shift_quotient(num: A.Node, den: A.Node, ctx: _Context) -> _Linear:
    value = _number(den)
    if value:
        return _shift(num, ctx).scale(1 / value)
    _fixed_shift([num, den], ctx)
    return ZERO
