"""Checks a generated test makes that do not come from papermath's evaluator, so that they can fail on a misreading.

The expected values of a generated test are the evaluator's: the same reading computed twice, which agrees with
itself whatever the reading is (self-consistency). These checks come from somewhere else and can fail:

- the shape the paper's text declares for what the equation defines (`\\mathbf{c}^{KV}_t \\in \\mathbb{R}^{d_c}`);
- properties the notation itself states (guide 002): a softmax's rows sum to 1 and are positive; a sigmoid lies
  in (0, 1); a log-sigmoid is ≤ 0 and −log σ ≥ 0; a norm, a squared norm, a KL divergence, an exponential or a
  square root is ≥ 0; a term over the sum of its own kind lies in [0, 1]; an argmax over [a, b] lies in [a, b];
  a distribution restricted to a set sums to 1 over it.

Each check is one test function named `test_independent_…` with a comment saying where it comes from.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from ..math import ast as A
from ..math import parse, to_latex
from ..errors import PapermathError
from ..evaluate.ops import FUNCTION_NAMES


@dataclass(frozen=True)
class Check:
    """One independent check of the result."""

    name: str
    """Test function suffix (`rows_sum_to_one`)."""
    why: str
    """Where it comes from, for the comment."""
    body: tuple[str, ...]
    """Lines of the test body after `result = …` (indented by 4)."""


def independent_checks(latex: str, *, target_shape: Optional[tuple[int, ...]] = None,
                       shape_source: str = "", functions: frozenset[str] = frozenset(),
                       implementations: tuple[tuple[str, str], ...] = ()) -> list[Check]:
    """The checks this equation allows, from its tree and the text's declared shape of what it defines."""
    checks: list[Check] = []
    if target_shape is not None:
        checks.append(Check("shape_the_paper_declares", f"the paper declares its shape: {shape_source}",
                            (f"assert np.shape(result) == {tuple(target_shape)!r}",)))
    try:
        tree = parse(latex, functions=functions).tree
    except PapermathError:
        return checks
    node = _computation(tree)
    if node is None:
        return checks
    ops = dict(implementations)
    checks += _property_checks(node, ops)
    return checks


def _computation(tree: A.Node) -> Optional[A.Node]:
    node = tree
    while isinstance(node, (A.Rows, A.Sequence)):
        items = [i for i in (node.statements if isinstance(node, A.Rows) else node.items) if not isinstance(i, A.Empty)]
        if not items:
            return None
        node = items[-1]
    if isinstance(node, A.Relation):
        if not all(op in ("=", ":=", "\\coloneqq", "\\triangleq", "\\approx", "\\leftarrow", "\\gets", "\\equiv")
                   for op in node.ops):
            return None
        node = node.operands[-1]
    return _strip(node)


def _strip(node: A.Node) -> A.Node:
    while isinstance(node, (A.Group, A.Annotated)):
        node = node.body
    return node


def _op(node: A.Node, ops: dict[str, str]) -> Optional[str]:
    """The operation at the top of `node`: softmax, sigmoid, logsigmoid, neglogsigmoid, nonneg, ratio, argmax…"""
    node = _strip(node)
    if isinstance(node, A.Apply) and isinstance(node.func, A.Symbol) and not node.given and not node.params:
        key = to_latex(node.func)
        name = ops.get(key) or FUNCTION_NAMES.get(node.func.name.lstrip("\\"))
        if name in ("softmax", "sigmoid", "exp", "sqrt", "relu", "softplus", "abs"):
            return {"exp": "nonneg", "sqrt": "nonneg", "relu": "nonneg", "softplus": "nonneg",
                    "abs": "nonneg"}.get(name, name)
        if name == "log" and len(node.args) == 1 and _op(node.args[0], ops) == "sigmoid":
            return "logsigmoid"
        if name == "kl":
            return "nonneg"
    if isinstance(node, A.Reduction) and node.op == "softmax":
        return "softmax"
    if isinstance(node, (A.Norm, A.Abs, A.Divergence)):
        return "nonneg"
    if isinstance(node, A.Power) and isinstance(_strip(node.base), A.Norm):
        return "nonneg"
    if isinstance(node, A.Power) and isinstance(node.exponent, A.Number) and node.exponent.value in ("2", "4"):
        return "nonneg"
    if isinstance(node, A.Root):
        return "nonneg"
    if isinstance(node, A.UnaryOp) and node.op == "-" and _op(node.operand, ops) == "logsigmoid":
        return "neglogsigmoid"
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
    elif op == "sigmoid":
        out.append(Check("sigmoid_between_zero_and_one", "guide 002: the sigmoid 1/(1+e^-z) lies strictly in (0, 1)",
                         ("values = np.asarray(result, dtype=float)", "assert np.all((values > 0) & (values < 1))")))
    elif op == "logsigmoid":
        out.append(Check("log_sigmoid_not_positive", "log σ(z) ≤ 0: σ(z) is a probability",
                         ("assert np.all(np.asarray(result, dtype=float) <= 0)",)))
    elif op == "neglogsigmoid":
        out.append(Check("negative_log_sigmoid_not_negative", "−log σ(z) ≥ 0: σ(z) is a probability (guide 000: DPO)",
                         ("assert np.all(np.asarray(result, dtype=float) >= 0)",)))
    elif op == "nonneg":
        out.append(Check("not_negative", "a norm, square, exponential, root or divergence is never negative",
                         ("assert np.all(np.asarray(result, dtype=float) >= -1e-12)",)))
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
