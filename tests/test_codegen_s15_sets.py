"""Session 15, issue 15: sums, products and extrema over a condition or a set (`\\sum_{k<t}`, `\\sum_{j \\neq i}`,
`\\prod_{t \\in T}`, `\\max_{j \\neq i}`), indicators (`\\mathbb{1}\\{t \\in X\\}`), read by the second reader from the
paper's own LaTeX (its own rewrite and range, not papermath's lowering). Numbers worked by hand."""

from pathlib import Path

import numpy as np
import pytest

from papermath.codegen import second_reader as SR
from papermath.evaluate import evaluate

from conftest import corpus_evaluation

CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpus" / "papers"
needs_reader = pytest.mark.skipif(not SR.available(), reason="needs sympy and antlr4-python3-runtime 4.11 "
                                  "(the second reader)")


@pytest.mark.parametrize("subscript, expected", [
    ("k<t", ("k", ["lt"], ["t"])),
    ("j \\neq i", ("j", ["ne"], ["i"])),
    ("i \\in S", ("i", ["in"], ["S"])),
    ("b", ("b", [], [])),
    ("\\substack{j=1 \\\\ j \\neq i}", ("j", ["eq", "ne"], ["1", "i"])),
    ("\\substack{j=1 j \\neq i}", ("j", ["eq", "ne"], ["1", "i"])),  # the line break dropped by computed_side
    ("1 \\le j \\le n", ("j", ["ge", "le"], ["1", "n"])),
    ("t > k", ("t", ["gt"], ["k"])),
    ("v' \\in \\mathcal{V}", ("v'", ["in"], ["\\mathcal{V}"])),
    ("(s, a)", None),  # several variables: not read
    ("u, v", None),
    ("p_\\theta", None),  # not a name a sum binds
])
def test_a_subscript_is_read_as_conditions_on_one_variable(subscript, expected):
    assert SR._conditions(subscript) == expected


@pytest.mark.parametrize("latex, rewritten", [
    ("\\sum_{k<t} a_k", "\\sum_{k=@Qqwherelt@(t)}^{@Qqwhole@} a_k"),
    ("\\sum\\limits_{\\omega \\in \\Omega} x", "\\sum_{\\omega=@Qqwherein@(\\Omega)}^{@Qqwhole@} x"),
    ("\\sum_{k<t}^\\infty g_k", "\\sum_{k=@Qqwherelt@(t)}^{\\infty} g_k"),
    ("\\max_{j \\neq i} a_j", "\\sum_{j=@Qqmaxwherene@(i)}^{@Qqwhole@} a_j"),
    ("\\sum_{i=1}^{n} x_i", "\\sum_{i=1}^{n} x_i"),  # SymPy's own form, left alone
    ("\\sum_{(s,a)} d(s)", "\\sum_{(s,a)} d(s)"),
])
def test_conditioned_reductions_rewrite(latex, rewritten):
    assert SR._conditioned_reductions(latex) == rewritten


@pytest.mark.parametrize("latex, values, value", [
    # j = 1, 3 (j ≠ 2): 1 + 4 = 5
    (r"y = \sum_{j \neq i} a_j", {"a": [1.0, 2.0, 4.0], "i": 2}, 5.0),
    # k = 1, 2 (k < 3): 0.5²·1 + 0.5·2 = 1.25
    (r"y = \sum_{k<t} \gamma^{t-k} a_k", {"a": [1.0, 2.0, 4.0], "t": 3, "\\gamma": 0.5}, 1.25),
    # s over the members 1, 3: 1 + 9 = 10
    (r"y = \sum_{s \in S} s^2", {"S": [1.0, 3.0]}, 10.0),
    # j = 1, 3: max(1, 4) = 4
    (r"y = \max_{j \neq i} a_j", {"a": [1.0, 7.0, 4.0], "i": 2}, 4.0),
    # j = 2, 3 (j = 1 … 3, j ≠ 1): 2 + 4 = 6
    (r"y = \sum_{\substack{j=1 \\ j \neq i}}^{n} a_j", {"a": [1.0, 2.0, 4.0], "i": 1, "n": 3}, 6.0),
    # the indicator is 0 at t = 1, 1 at t = 2, 3: 0.5⁰ · 0.5¹ · 0.5¹ = 0.25
    (r"y = \prod_{t \in T} p^{\mathbb{1}\{t \in X\}}", {"p": 0.5, "T": [1.0, 2.0, 3.0], "X": [2.0, 3.0]}, 0.25),
    # no condition, j over the positions of a: 1 + 2 + 4 = 7
    (r"y = \sum_{j} a_j", {"a": [1.0, 2.0, 4.0]}, 7.0),
    # no lower limit, the upper one kept: i = 1, 2 (i ≤ 2): 1 + 2 = 3
    (r"y = \sum_{i}^{n} a_i", {"a": [1.0, 2.0, 4.0], "n": 2}, 3.0),
])
@needs_reader
def test_the_second_reader_computes_a_conditioned_reduction(latex, values, value):
    ev = evaluate(latex, values)
    assert float(ev.value) == pytest.approx(value)
    reading = SR.reading_or_reason(ev)
    assert isinstance(reading, SR.SecondReading), reading
    assert reading.agrees and reading.value == pytest.approx(value)


@pytest.mark.parametrize("latex, values, reason", [
    # A^{j}_{t} given one value though it varies with j: a constant term would make any reading agree
    (r"y = \sum_{j \neq i} A^{j}_{t}", {"A^{j}_{t}": 2.0, "i": 1},
     "not rewritten: an input given one value depends on a variable a sum or 𝔼 binds"),
    # b picks no element and nothing states its range (Q a function the paper leaves abstract)
    (r"y = \sum_{b} \exp Q(s, b)", {"s": 2.0},
     "no opinion: a sum whose range nothing states (it picks no element, or arrays of several lengths or starts)"),
])
@needs_reader
def test_a_conditioned_reduction_without_a_reading(latex, values, reason):
    ev = evaluate(latex, values)
    assert SR.reading_or_reason(ev) == reason


@pytest.mark.parametrize("code, value, side, holds", [
    ("ne", 2.0, 2.0, False), ("ne", 1.0, 2.0, True), ("lt", 1.0, 2.0, True), ("le", 2.0, 2.0, True),
    ("gt", 2.0, 2.0, False), ("ge", 3.0, 2.0, True), ("in", 2.0, [1.0, 2.0], True), ("ni", 2.0, [1.0, 2.0], False),
])
def test_a_condition_holds(code, value, side, holds):
    assert SR._holds(code, value, side) is holds


@pytest.mark.parametrize("codes, sides, upper, bounds", [
    (["lt"], [3.0], None, (None, 2)),
    (["eq", "ne"], [1.0, 2.0], 3.0, (1, 3)),
    (["ge", "le"], [1.0, 4.0], None, (1, 4)),
    (["lt"], [3.0], float("inf"), (None, 2)),  # `\\sum_{k<t}^\\infty`: t decides
    (["gt"], [0.0], 5.0, (1, 5)),
])
def test_whole_bounds(codes, sides, upper, bounds):
    assert SR._whole_bounds(codes, sides, upper) == bounds


@pytest.mark.corpus
@pytest.mark.skipif(not CORPUS.is_dir(), reason="corpus ../shared/corpus/papers absent")
@needs_reader
def test_tabdiff_total_variation_over_a_set():
    # TabDiff (19) TVD = 1/2 Σ_{ω∈Ω} |R(ω) − S(ω)|: ω over the members of Ω, R and S the test's doubles
    ev = corpus_evaluation("TabDiff", "eq:19")
    reading = SR.reading_or_reason(ev)
    assert isinstance(reading, SR.SecondReading), reading
    assert reading.agrees
    np.testing.assert_allclose(reading.value, ev.value)


@needs_reader
def test_an_indexed_function_is_a_member_of_a_family():
    # F(x) = Σ_{k=1}^{3} f_k(x): f_k is member k of a family, its callable takes k first; the chosen outputs
    # f(1, 2) = 2, f(2, 2) = 3, f(3, 2) = 5 are three members' outputs, 2 + 3 + 5 = 10 (read as one function f(x)
    # they were one value three times)
    ev = evaluate(r"F(x) = \sum_{k=1}^{3} f_k(x)", {"x": 2.0})
    assert float(ev.value) == 10.0
    ((latex, param, calls),) = ev.abstract
    assert latex == "f" and [float(args[0]) for args, _ in calls] == [1.0, 2.0, 3.0]
    assert [float(out) for _, out in calls] == [2.0, 3.0, 5.0]
    assert any(f"{param}(k, x)" in line[1] for line in ev.lines)
    reading = SR.reading_or_reason(ev)
    assert isinstance(reading, SR.SecondReading) and reading.agrees and reading.value == pytest.approx(10.0)


def test_a_label_on_a_function_is_no_family_index():
    # ε_θ(x): θ labels the network, nothing binds it: one function of x
    ev = evaluate(r"y = \epsilon_\theta(x)", {"x": 2.0})
    ((_, _, calls),) = ev.abstract
    assert [len(args) for args, _ in calls] == [1]


@pytest.mark.parametrize("latex, values, gradient_shape", [
    # ∇f(z) of an f the paper leaves abstract: the gradient of a scalar function, z's shape [2]
    (r"w = z - \gamma \nabla f(z)", {"z": [1.0, 2.0], "\\gamma": 2.0}, (2,)),
    # a bold head is a vector-valued map: ∇F(z) is its Jacobian [2, 2]
    (r"w = (\nabla \mathbf{F}(z) + \lambda I_d)^{-1} z", {"z": [1.0, 2.0], "\\lambda": 3.0, "d": 2}, (2, 2)),
])
def test_the_gradient_of_an_abstract_function(latex, values, gradient_shape):
    ev = evaluate(latex, values)
    (gradient,) = [i for i in ev.inputs if i.key.startswith("\\nabla")]
    assert np.shape(gradient.value) == gradient_shape
    assert np.shape(ev.value) == (2,)


@pytest.mark.corpus
@pytest.mark.skipif(not CORPUS.is_dir(), reason="corpus ../shared/corpus/papers absent")
@needs_reader
def test_schedule_free_inner_iterate_keeps_the_declared_shape():
    # schedule_free (21) z_{t,i} = z_{t,i-1} − γ∇f(z_{t,i-1}), z ∈ ℝ^d: ∇f(z_{t,i-1}) has z's shape, so the result
    # is a d-vector, as the text declares; the second reader agrees (z − 2·g elementwise)
    ev = corpus_evaluation("schedule_free", "eq:21")
    assert ev.target_shape == np.shape(ev.value) == (2,)
    z = ev.input("z_{t, i - 1}").value
    gradient = ev.input("\\nabla f(z_{t, i - 1})").value
    np.testing.assert_allclose(ev.value, np.asarray(z) - float(ev.input("\\gamma").value) * np.asarray(gradient))
    reading = SR.reading_or_reason(ev)
    assert isinstance(reading, SR.SecondReading) and reading.agrees


@pytest.mark.corpus
@pytest.mark.skipif(not CORPUS.is_dir(), reason="corpus ../shared/corpus/papers absent")
@needs_reader
def test_gmflow_mixture_is_a_sum_over_its_components():
    # GMFlow (28) q(u) := Σ_{k=1}^{K} q_k(u): each q_k a component, the family's callable called with k
    ev = corpus_evaluation("GMFlow", "eq:28")
    ((_, param, calls),) = ev.abstract
    assert sorted(float(args[0]) for args, _ in calls) == [1.0, 2.0, 3.0]
    assert float(ev.value) == pytest.approx(sum(float(out) for _, out in calls))
    reading = SR.reading_or_reason(ev)
    assert isinstance(reading, SR.SecondReading) and reading.agrees


@pytest.mark.parametrize("latex, values, declared, value, target", [
    # g_{i,t} declared a number, computed at every i at once (s_{i,t} read as all of s): [1+1, 2+0, 3+2] = [2, 2, 5],
    # one member per position of s
    (r"g_{i, t} = s_{i, t} + b_{i}", {"s": [1.0, 2.0, 3.0], "b": [1.0, 0.0, 2.0]}, {"g_{i, t}": ()}, [2.0, 2.0, 5.0],
     (3,)),
    (r"g_{i} = 2 s_{i}", {"s": [1.0, 2.0, 3.0]}, {"g_{i}": ()}, [2.0, 4.0, 6.0], (3,)),
    # the whole vector s, no member read at i: the declared number stands, and the check fails on [3]
    (r"g_{i} = 2 s", {"s": [1.0, 2.0, 3.0]}, {"g_{i}": ()}, [2.0, 4.0, 6.0], ()),
    (r"g = 2 s", {"s": [1.0, 2.0, 3.0]}, {"g": ()}, [2.0, 4.0, 6.0], ()),
])
def test_a_declared_member_computed_at_every_free_index(latex, values, declared, value, target):
    ev = evaluate(latex, values, declared_shapes=declared)
    np.testing.assert_allclose(ev.value, value)
    assert ev.target_shape == target


@pytest.mark.corpus
@pytest.mark.skipif(not CORPUS.is_dir(), reason="corpus ../shared/corpus/papers absent")
def test_deepseek_gate_declared_per_expert():
    # deepseek-v3 (16) g'_{i,t} (a number per expert i and token t) = s_{i,t} where s_{i,t} + b_i is among the
    # K_r largest: computed for every expert i at once, one gate per expert
    ev = corpus_evaluation("deepseek-v3-2412.19437", "eq:16")
    assert ev.target_shape == np.shape(ev.value) == (len(ev.input("s").value),)


@pytest.mark.parametrize("latex, value", [
    # t aᵀv = 7 · (1·2 + 1·3) = 35: the number scales the row, the row times v is the inner product
    (r"y = t a^{\top} v", 35.0),
    (r"y = - t a^{\top} v", -35.0),
    (r"y = a^{\top} v t", 35.0),
])
def test_a_number_times_a_row_stays_a_row(latex, value):
    ev = evaluate(latex, {"t": 7.0, "a": [1.0, 1.0], "v": [2.0, 3.0]})
    assert float(ev.value) == pytest.approx(value)
