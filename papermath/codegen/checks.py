"""Checks a generated test makes that do not come from papermath's evaluator, so that they can fail on a misreading.

The expected values of a generated test are the evaluator's: the same reading computed twice, which agrees with
itself whatever the reading is (self-consistency). These checks come from somewhere else and can fail:

- the shape the paper's text declares for what the equation defines (`\\mathbf{c}^{KV}_t \\in \\mathbb{R}^{d_c}`);
- properties of the constructs (guide 002): a softmax's rows sum to 1 and are positive; a term over the sum of
  its own kind lies in [0, 1]; an argmax over [a, b] lies in [a, b];
- what the equation's operators imply whatever the inputs (`papermath.codegen.properties`, rules per operation
  as data): the range of the result (σ in (0, 1), −log σ ≥ 0, a norm or a square ≥ 0, …) and its scaling
  symmetries (σ(βx) unchanged when β doubles and x halves).

- the value a second reader of the LaTeX (SymPy's parser, `papermath.codegen.second_reader`) gives at the test's
  inputs.

What each is measured against differs, and the generated test's comments say it: the text's declared shape, the
other sides the paper states equal and the second reader can fail when papermath's tree misreads the paper; the
construct properties and the tree-derived range and symmetries hold for whatever the tree reads, so they check
the code against the tree only (benchmarks/codegen_coverage.py counts only the former as independent).

Each check is one test function named `test_independent_…` with a comment saying where it comes from.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..errors import PapermathError
from ..evaluate.ops import FUNCTION_NAMES
from ..math import ast as A
from ..math import operators as O
from ..math import parse, to_latex
from .properties import INF, Scaling, derive


@dataclass(frozen=True)
class Check:
    """One independent check of the result."""

    name: str
    """Test function suffix (`rows_sum_to_one`)."""
    why: str
    """Where it comes from, for the comment."""
    body: tuple[str, ...]
    """Lines of the test body after `result = …` (indented by 4)."""


@dataclass(frozen=True)
class Parameter:
    """One parameter of the generated function, as the checks see it."""

    key: str
    """The input's key (the symbol's LaTeX, `papermath.evaluate.Input.key`)."""
    source: str
    """"set", "chosen" (a value: may be scaled), "dimension" (a size: never scaled), "callable" (a function the
    paper leaves abstract: a test may scale or shift what it returns)."""


def independent_checks(latex: str, *, target_shape: tuple[int, ...] | None = None,
                       shape_source: str = "", functions: frozenset[str] = frozenset(),
                       implementations: tuple[tuple[str, str], ...] = (),
                       parameters: tuple[Parameter, ...] = (), abstract: tuple[str, ...] = (),
                       function: str = "f") -> list[Check]:
    """The checks this equation allows, from its tree, its operators' properties
    (`papermath.codegen.properties`) and the text's declared shape of what it defines. `parameters` are the
    generated function's inputs in order (`inputs()` of the test returns them, then the abstract callables)."""
    checks: list[Check] = []
    if target_shape is not None:
        checks.append(Check("shape_the_paper_declares", f"the paper declares its shape: {shape_source}",
                            (f"assert np.shape(result) == {tuple(target_shape)!r}",)))
    try:
        tree = parse(latex, functions=functions).tree
    except PapermathError:
        return checks
    found = _computation(tree)
    if found is None:
        return checks
    node, statements, sides = found
    ops = dict(implementations)
    special = _property_checks(node, ops)
    checks += special
    keys = {p.key.replace(" ", "") for p in parameters} | {k for k, _ in statements}
    if not any(to_latex(n).replace(" ", "") in keys for side in (node, *sides) for n in A.walk(side)):
        return checks  # a constant (`… = 0`): nothing of the inputs to check
    if abstract and not any(p.source == "callable" for p in parameters):
        parameters += tuple(Parameter(k, "callable") for k in abstract)  # inputs() passes them after the values
    callables = [p.key for p in parameters if p.source == "callable"]
    derived = derive(node, statements, sides=sides,
                     variables=[p.key for p in parameters if p.source in ("set", "chosen")],
                     frozen=[p.key for p in parameters if p.source not in ("set", "chosen", "callable")],
                     abstract=callables, implementations=ops)
    if derived is None:
        return checks
    low, high = derived.range
    if (low > -INF or high < INF) and not any(c.name in _RANGE_KINDS for c in special):
        checks.append(_range_check(low, high))
    if derived.scaling is not None and parameters:
        checks.append(_scaling_check(derived.scaling, parameters, function))
    if derived.shift is not None and parameters:
        checks.append(_shift_check(derived.shift, parameters, function))
    return checks


def second_reader_check(ev: Any, module: str = "", function: str = "", rendering: bool = False) -> Check | None:
    """The value SymPy's LaTeX parser gives the computed side at the test's inputs (`second_reader`), as a
    literal the generated test compares with: a reader of the paper's text that does not use papermath's tree.
    None where it
    cannot read the equation or has no opinion (see `papermath.codegen.second_reader`). For a comparison or
    bound, each side's value, compared with what the generated `{function}_sides` of `module` returns (without
    `module` and `function`, no check for a comparison). The reader reads the paper's own text
    (`Evaluation.source_latex`); with `rendering`, papermath's rendering of its tree instead (`ev.latex`): a check
    named `rendering_reread_…`, NOT independent of papermath's reading (it catches code that computes something
    else than the tree says, not a tree that misreads the paper)."""
    from . import literal_code, safe
    from .second_reader import read

    reading = read(ev, rendering)
    if reading is None:
        return None
    stem = "rendering_reread_agrees" if rendering else "second_reader_agrees"
    reader = ("SymPy's LaTeX parser (sympy.parsing.latex) re-reading papermath's rendering of its own tree (NOT "
              "independent of papermath's reading)" if rendering else
              "SymPy's LaTeX parser (sympy.parsing.latex), reading the paper's own LaTeX without papermath's tree")
    verdict = "they agree at generation time" if reading.agrees else (
        "they DISAGREE at generation time (papermath's code gives another value): look at which reading the "
        "paper means")
    if reading.sides:
        if not module or not function:
            return None
        sides = safe.identifier(f"{function}_sides", "function name")
        return Check(f"{stem}_on_each_side",
                     f"{reader}, reads the sides cut from the text as {reading.expression} and gives each side this "
                     "value at these "
                     f"inputs; {verdict}. Each side is compared, not whether the relation holds: the test's inputs "
                     "need not satisfy the paper's assumptions",
                     (f"from {safe.identifier(module, 'module name')} import {sides}",
                      f"sides = {sides}(*inputs())",
                      f"assert len(sides) == {len(reading.value)}",
                      *(f"np.testing.assert_allclose(np.asarray(sides[{k}], dtype=float), {literal_code(value)}, "
                        "rtol=1e-6, atol=1e-9)" for k, value in enumerate(reading.value))))
    return Check(stem, f"{reader}, reads the computed side as {reading.expression} and gives this value at these "
                 f"inputs; {verdict}",
                 (f"np.testing.assert_allclose(np.asarray(result, dtype=float), {literal_code(reading.value)}, "
                  "rtol=1e-6, atol=1e-9)",))


_RANGE_KINDS = ("softmax_rows_sum_to_one", "share_between_zero_and_one", "argmax_in_its_interval")


def _range_check(low: float, high: float) -> Check:
    shown = f"[{low + 0.0:g}, {high + 0.0:g}]".replace("inf", "∞")
    body = ["values = np.asarray(result, dtype=float)"]
    if low > -INF:
        body.append(f"assert np.all(values >= {low!r} - 1e-9 * max(1.0, abs({low!r})))")
    if high < INF:
        body.append(f"assert np.all(values <= {high!r} + 1e-9 * max(1.0, abs({high!r})))")
    return Check("range_its_operators_allow",
                 f"whatever the inputs, the equation's operators keep the result in {shown} (interval arithmetic "
                 "over the tree: exp > 0, σ in (0, 1), norms and squares ≥ 0, a mean within its terms' range, …)",
                 tuple(body))


def _moves(symmetry: Scaling, parameters: tuple[Parameter, ...]) -> tuple[list[tuple[int, int, bool]], list[str]]:
    """(position in inputs(), exponent or shift, is a callable) per moved parameter, and the moves in words. The
    symmetry's factors are in `derive`'s order: the value inputs, then the callables (a name may be both)."""
    order = [i for i, p in enumerate(parameters) if p.source in ("set", "chosen")]
    order += [i for i, p in enumerate(parameters) if p.source == "callable"]
    moves, names = [], []
    for position, factor in zip(order, symmetry.factors):
        if factor:
            callable_ = parameters[position].source == "callable"
            moves.append((position, factor, callable_))
            names.append(f"{parameters[position].key.strip()}{' (its output)' if callable_ else ''}")
    return moves, names


def _moved_inputs(moves: list[tuple[int, int, bool]], how: str) -> list[str]:
    """Test lines that build `args`: inputs() with the moved parameters scaled (`how` "*") or shifted ("+"); a
    callable's output is moved by wrapping it."""
    step = "2.0 ** power" if how == "*" else "float(power)"
    return ["def moved(f, m):",
            f"    return lambda *a: np.asarray(f(*a), dtype=float) {how} m",
            "",
            "args = list(inputs())",
            f"for position, power, is_callable in {tuple(moves)!r}:",
            "    if is_callable:",
            f"        args[position] = moved(args[position], {step})",
            "    else:",
            f"        args[position] = np.asarray(args[position], dtype=float) {how} {step}"]


def _scaling_check(scaling: Scaling, parameters: tuple[Parameter, ...], function: str) -> Check:
    moves, names = _moves(scaling, parameters)
    shown = ", ".join(f"{name} × 2^{f}" for name, (_, f, _) in zip(names, moves))
    degree = scaling.degree
    effect = "leaves the result unchanged" if degree == 0 else f"multiplies the result by 2^{degree}"
    body = [*_moved_inputs(moves, "*"),
            f"expected = 2.0 ** {float(degree)!r} * np.asarray(result, dtype=float)",
            f"np.testing.assert_allclose(np.asarray({function}(*args), dtype=float), expected, rtol=1e-9, atol=1e-12)"]
    return Check("scaling_symmetry_of_its_operators",
                 f"the equation's operators make it homogeneous: scaling {shown} {effect} (sums need terms scaled "
                 "alike, products multiply scales, exp/log/σ/softmax need an unchanged argument)", tuple(body))


def _shift_check(shift: Scaling, parameters: tuple[Parameter, ...], function: str) -> Check:
    moves, names = _moves(shift, parameters)
    shown = ", ".join(f"{name} + {f}" for name, (_, f, _) in zip(names, moves))
    moved = shift.degree
    effect = "leaves the result unchanged" if moved == 0 else f"adds {moved} to the result"
    body = [*_moved_inputs(moves, "+"),
            f"expected = np.asarray(result, dtype=float) + {float(moved)!r}",
            "scale = 1.0 + float(np.max(np.abs(expected))) if np.size(expected) else 1.0",
            f"np.testing.assert_allclose(np.asarray({function}(*args), dtype=float), expected, rtol=1e-9, "
            "atol=1e-9 * scale)"]
    return Check("translation_symmetry_of_its_operators",
                 f"the equation's operators make it move with a shift: adding {shown} {effect} (a difference of "
                 "two shifted terms does not move, softmax ignores a shift, a norm or a nonlinearity needs an "
                 "unchanged argument)", tuple(body))


def _computation(tree: A.Node) -> tuple[A.Node, list[tuple[str, A.Node]], tuple[A.Node, ...]] | None:
    """The computed side of the last statement, (key, right side) of the definitions before it, and the other
    sides the statement says are equal to it (`a = b = c`: the code computes them too)."""
    node = tree
    statements: list[tuple[str, A.Node]] = []
    while isinstance(node, (A.Rows, A.Sequence)):
        items = [i for i in (node.statements if isinstance(node, A.Rows) else node.items) if not isinstance(i, A.Empty)]
        if not items:
            return None
        for earlier in items[:-1]:
            if isinstance(earlier, A.Relation) and all(_defines(op) for op in earlier.ops) \
                    and not isinstance(earlier.operands[0], A.Empty):
                statements.append((to_latex(earlier.operands[0]), earlier.operands[-1]))
        node = items[-1]
    sides: tuple[A.Node, ...] = ()
    if isinstance(node, A.Relation):
        if not all(_defines(op) for op in node.ops):
            return None
        sides = tuple(node.operands[1:-1])
        node = node.operands[-1]
    return _strip(node), statements, sides


def _defines(op: str) -> bool:
    spec = O.relation(op)
    return spec is not None and spec.evaluate in ("define", "update", "approximate", "equivalent")


def _strip(node: A.Node) -> A.Node:
    while isinstance(node, (A.Group, A.Annotated)):
        node = node.body
    return node


def _op(node: A.Node, ops: dict[str, str]) -> str | None:
    """The construct at the top of `node` that has a property beyond its range: softmax, a share, an argmax."""
    node = _strip(node)
    if isinstance(node, A.Apply) and isinstance(node.func, A.Symbol) and not node.given and not node.params:
        name = ops.get(to_latex(node.func)) or FUNCTION_NAMES.get(node.func.name.lstrip("\\"))
        if name == "softmax":
            return "softmax"
    if isinstance(node, A.Reduction) and node.op == "softmax":
        return "softmax"
    if isinstance(node, A.Reduction) and node.op in ("argmax", "argmin") and isinstance(node.domain, A.Interval):
        return "argmax_interval"
    if isinstance(node, A.Frac) and _own_sum(node):
        return "ratio"
    return None


def _own_sum(node: A.Frac) -> bool:
    """`x_t / \\sum_i x_i`, `\\gamma_t^2 / \\sum_i \\gamma_i^2`: a term over the sum of terms of the same form."""
    den = _strip(node.den)
    if not (isinstance(den, A.Reduction) and den.op == "sum" and den.body is not None and len(den.variables) == 1):
        return False
    var = to_latex(den.variables[0])
    body, num = _strip(den.body), _strip(node.num)
    not_negative = (isinstance(num, A.Power) and isinstance(num.exponent, A.Number) and num.exponent.value == "2") \
        or (isinstance(num, A.Apply) and isinstance(num.func, A.Symbol) and num.func.name in ("\\exp", "exp", "P", "p"))
    return not_negative and type(body) is type(num) and _same_but_index(body, num, var)


def _same_but_index(body: A.Node, num: A.Node, var: str) -> bool:
    text_body, text_num = to_latex(body), to_latex(num)
    for other in _index_symbols(num):
        if text_body == text_num.replace(other, var) and other != var:
            return True
    return text_body == text_num


def _index_symbols(node: A.Node) -> list[str]:
    return [to_latex(i) for n in A.walk(node) if isinstance(n, A.Indexed) for i in n.indices if isinstance(i, A.Symbol)]


def _property_checks(node: A.Node, ops: dict[str, str]) -> list[Check]:
    op = _op(node, ops)
    out = []
    if op == "softmax":
        out.append(Check("softmax_rows_sum_to_one", "guide 002: softmax weights are positive and each row sums to 1",
                         ("values = np.asarray(result, dtype=float)", "assert np.all(values > 0)",
                          "np.testing.assert_allclose(values.sum(axis=-1), 1.0, rtol=1e-9)")))
    elif op == "ratio":
        out.append(Check("share_between_zero_and_one", "a term over the sum of the terms of its kind is a share in "
                         "[0, 1] when the terms are not negative",
                         ("values = np.asarray(result, dtype=float)",
                          "assert np.all((values >= -1e-12) & (values <= 1 + 1e-12))")))
    elif op == "argmax_interval":
        interval = _strip(node).domain
        assert isinstance(interval, A.Interval)
        out.append(Check("argmax_in_its_interval", f"an argmax over {to_latex(interval)} lies in it",
                         (f"assert {_number(interval.lower)} - 1e-9 <= float(result) <= {_number(interval.upper)} + 1e-9",)))
    return out


def _number(node: A.Node) -> str:
    if isinstance(node, A.Number):
        return repr(float(node.value))
    if isinstance(node, A.UnaryOp) and node.op == "-" and isinstance(node.operand, A.Number):
        return repr(-float(node.operand.value))
    return "float('-inf')" if "inf" in to_latex(node) and "-" in to_latex(node) else "float('inf')"
