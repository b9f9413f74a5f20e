"""Session 15, issue 15: an input whose written index is bound by a reduction runs over that reduction's range.

A sub-expression the equation takes as one input (`A(a_t \\mid s_t)`, `\\nabla_\\theta \\log
\\pi_\\theta(a_t \\mid s_t)`, `\\hat\\pi^2(b \\mid s_t)`) that mentions the variable of a sum or product it sits
in is chosen as a table with one leading axis per such variable, one entry per term (a bound index runs over the
sequence, guide 002). Until this session it was one value for every term, so the code summed the same term three
or four times, and the second reader (SymPy on the paper's own LaTeX) had to refuse: "an input given one value
depends on a variable a sum or 𝔼 binds". Here: the evaluator's table, the NumPy and torch code reading entry t of
it (checked on new tables with the numbers worked by hand), the second reader reading the same entry, and the
refusal where no table was made. Corpus cases skip when ../shared is absent."""
import dataclasses
from pathlib import Path

import numpy as np
import pytest

from papermath.codegen import call_arguments
from papermath.codegen import second_reader as SR
from papermath.evaluate import evaluate

from conftest import corpus_evaluation, generated_functions

CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpus" / "papers"
needs_reader = pytest.mark.skipif(not SR.available(), reason="needs sympy and antlr4-python3-runtime 4.11 "
                                                              "(pip install -e '.[bench]')")


def _namespaces(ev):
    return generated_functions(ev, "bound_case")


def _call(function, ev, values):
    arrays = {key: np.asarray(value, dtype=float) for key, value in values.items()}
    return float(np.asarray(function(*call_arguments(ev, arrays)), dtype=float))


# (corpus example, formula, fixed settings, the tables' keys → their shapes as chosen, new inputs for the code,
#  the value worked by hand on those inputs)
CASES = [
    # advantage-alignment (23), its horizon a number T = 3: Σ_{t=0}^{3} γ^t A_t g_t with γ = 2, A = (1, 2, 3, 4),
    # g = (1, 1, 1, 1): 1·1 + 2·2 + 4·3 + 8·4 = 49 (one value for every t would give (1 + 2 + 4 + 8)·A·g)
    ("advantage-alignment (23)",
     r"\nabla_{\theta}V(\theta) = \sum_{t=0}^{T}\gamma^t A(a_t|s_t) \nabla_\theta \log \pi_{\theta}(a_t|s_t)",
     {"T": 3, "\\gamma": 2},
     {"A(a_{t} \\mid s_{t})": (4,), "\\nabla_\\theta  \\log \\pi_\\theta (a_{t} \\mid s_{t})": (4,)},
     {"A(a_{t} \\mid s_{t})": [1, 2, 3, 4], "\\nabla_\\theta  \\log \\pi_\\theta (a_{t} \\mid s_{t})": [1, 1, 1, 1]},
     49.0),
    # advantage-alignment (5): π(b_t|s_t)(∇Q(s_t, b_t) − Σ_b π(b|s_t) ∇Q(s_t, b)) with π(b|s_t) = (0.2, 0.3, 0.5),
    # ∇Q(s_t, b) = (1, 2, 3), π(b_t|s_t) = 0.5, ∇Q(s_t, b_t) = 4: 0.5 · (4 − (0.2 + 0.6 + 1.5)) = 0.85
    ("advantage-alignment (5)",
     r"\hat{\pi}^2(b_t|s_t) \left( \nabla_{\theta_1}Q^2(s_t, b_t) - \sum_b \hat{\pi}^2(b|s_t) \nabla_{\theta_1} "
     r"Q^2(s_t, b)\right)", {},
     {"\\hat{\\pi}^{2}(b \\mid s_{t})": (3,), "\\nabla_{\\theta_{1}} Q^{2}(s_{t}, b)": (3,)},
     {"\\hat{\\pi}^{2}(b \\mid s_{t})": [0.2, 0.3, 0.5], "\\nabla_{\\theta_{1}} Q^{2}(s_{t}, b)": [1, 2, 3],
      "\\hat{\\pi}^{2}(b_{t} \\mid s_{t})": 0.5, "\\nabla_{\\theta_{1}} Q^{2}(s_{t}, b_{t})": 4},
     0.85),
    # a product over the steps of a chain: Π_{k=1}^{3} p(x_k | x_{k-1}) with p = (0.5, 0.5, 0.2): 0.05
    ("a chain's likelihood", r"L = \prod_{k=1}^{K} p(x_k \mid x_{k-1})", {"K": 3},
     {"p(x_{k} \\mid x_{k - 1})": (3,)}, {"p(x_{k} \\mid x_{k - 1})": [0.5, 0.5, 0.2]}, 0.05),
    # two sums: the table's axes in the order the key writes the variables (j, then i): shape (3, 2).
    # Σ_{i=1}^{2} Σ_{j=1}^{3} j p(y_j | x_i) with rows j = (1, 2), (3, 4), (5, 6): 1·3 + 2·7 + 3·11 = 50
    ("two bound indices", r"S = \sum_{i=1}^{2}\sum_{j=1}^{3} j \, p(y_j \mid x_i)", {},
     {"p(y_{j} \\mid x_{i})": (3, 2)}, {"p(y_{j} \\mid x_{i})": [[1, 2], [3, 4], [5, 6]]}, 50.0),
]


@pytest.mark.parametrize("name, latex, settings, tables, new_inputs, expected", CASES, ids=[c[0] for c in CASES])
def test_a_sub_expression_with_a_bound_index_is_a_table_over_the_reduction(name, latex, settings, tables,
                                                                            new_inputs, expected):
    ev = evaluate(latex, settings)
    for key, shape in tables.items():
        assert np.shape(ev.input(key).value) == shape, key
        assert key in dict(ev.tables)
    numpy_function, torch_function = _namespaces(ev)
    assert _call(numpy_function, ev, new_inputs) == pytest.approx(expected)
    assert _call(torch_function, ev, new_inputs) == pytest.approx(expected)


def test_the_chosen_table_gives_each_term_its_own_entry():
    # the evaluator's own value is the sum of γ^t · (entry t of each table): recomputed here from the tables
    ev = evaluate(CASES[0][1], CASES[0][2])
    a = np.asarray(ev.input("A(a_{t} \\mid s_{t})").value)
    g = np.asarray(ev.input("\\nabla_\\theta  \\log \\pi_\\theta (a_{t} \\mid s_{t})").value)
    assert len(set(a.tolist())) > 1  # distinct terms: one value repeated would hide a dropped index
    assert float(ev.value) == pytest.approx(sum(2.0 ** t * a[t] * g[t] for t in range(4)))
    assert dict(ev.tables)["A(a_{t} \\mid s_{t})"] == ("t",)


def test_a_sub_expression_outside_any_reduction_stays_one_value():
    # π(b_t|s_t) with t free and no sum over t: one input of one value, no table
    ev = evaluate(CASES[1][1], {})
    assert np.shape(ev.input("\\hat{\\pi}^{2}(b_{t} \\mid s_{t})").value) == ()
    assert "\\hat{\\pi}^{2}(b_{t} \\mid s_{t})" not in dict(ev.tables)


@needs_reader
@pytest.mark.parametrize("case", [CASES[1], CASES[2]], ids=["unbounded sum over b", "product over k"])
def test_the_second_reader_reads_the_entry_of_the_current_term(case):
    _, latex, settings, _, _, _ = case
    ev = evaluate(latex, settings)
    reading = SR.reading_or_reason(ev)
    assert isinstance(reading, SR.SecondReading), reading
    assert reading.agrees
    assert reading.value == pytest.approx(float(ev.value))


@needs_reader
def test_the_second_reader_refuses_where_no_table_was_made():
    # the same evaluation with its tables forgotten: a term that varies with b read as a constant would make
    # any reading agree, so no reading
    ev = evaluate(CASES[1][1], {})
    reason = SR.reading_or_reason(dataclasses.replace(ev, tables=()))
    assert reason == "not rewritten: an input given one value depends on a variable a sum or 𝔼 binds"


@pytest.mark.parametrize("side, expected", [
    # a sum with no range over a table of 3 entries: b from 1 to 3, as papers count
    (r"\sum_b @Inputa@", r"\sum_{b=1}^{3} @Inputa@"),
    (r"\sum_{b} w_b", r"\sum_{b=1}^{3} w_b"),
    # a range already written, or a condition: left as written
    (r"\sum_{b=0}^{2} w_b", r"\sum_{b=0}^{2} w_b"),
    (r"\sum_{b \neq c} w_b", r"\sum_{b \neq c} w_b"),
])
def test_a_sum_with_no_range_runs_over_every_entry_of_what_it_indexes(side, expected):
    @dataclasses.dataclass(frozen=True)
    class Item:
        value: object

    @dataclasses.dataclass(frozen=True)
    class Stub:
        params: tuple = ("w", "q(b)")
        tables: tuple = (("q(b)", ("b",)),)

        def input(self, key):
            return Item({"w": np.ones(3), "q(b)": np.ones(3)}[key])

    assert SR._whole_ranges(side, Stub(), {"q(b)": "Inputa"}) == expected


def test_a_sum_with_no_range_over_inputs_of_different_lengths_is_left():
    @dataclasses.dataclass(frozen=True)
    class Item:
        value: object

    @dataclasses.dataclass(frozen=True)
    class Stub:
        params: tuple = ("w", "v")
        tables: tuple = ()

        def input(self, key):
            return Item({"w": np.ones(3), "v": np.ones(2)}[key])

    assert SR._whole_ranges(r"\sum_b w_b v_b", Stub(), {}) == r"\sum_b w_b v_b"


@needs_reader
@pytest.mark.skipif(not CORPUS.is_dir(), reason="the corpus (../shared/corpus/papers) is absent")
@pytest.mark.parametrize("label", ["eq:5", "eq:45", "eq:u10"])
def test_corpus_policy_gradient_terms_are_read_by_the_second_reader(label):
    # advantage-alignment (5), (45) and the row after (45): Σ_b π̂²(b|s_t) ∇Q²(…, b), tables over b
    ev = corpus_evaluation("advantage-alignment", label)
    assert any("b" in variables for _, variables in ev.tables)
    reading = SR.reading_or_reason(ev)
    assert isinstance(reading, SR.SecondReading) and reading.agrees, reading


# --- nested ranges: an inner limit written with the outer variable ---------------------------------------------
# (formula, chosen values by key after evaluation are replaced by these, expected worked by hand). Each sequence's
# size and first index come from every term of the nested sums, not the first outer term's.
NESTED = [
    # advantage-alignment (u6)'s left side: Σ_{t=0}^{3} Σ_{l=0}^{t} b_l, b = (2, 3, 1, 2) from b_0:
    # 2 + 5 + 6 + 8 = 21 (until this session the inner t was a bound of its own, chosen 3, and b had one entry)
    (r"S=\sum_{t=0}^{3} \sum_{l=0}^{t} b_l", {"b": [2, 3, 1, 2]}, 21.0),
    # from 1: b = (2, 3, 1) from b_1: 2 + 5 + 6 = 13
    (r"S=\sum_{t=1}^{3} \sum_{l=1}^{t} b_l", {"b": [2, 3, 1]}, 13.0),
    # advantage-alignment (u7)/(u8): a convolution, b_{t-k} reaches b_0 … b_3. a = (2, 3, 1, 2), b = (1, 3, 2, 1):
    # 2 + (6 + 3) + (4 + 9 + 1) + (2 + 6 + 3 + 2) = 38
    (r"S=\sum_{t=0}^{3} \sum_{k=0}^{t} a_k b_{t-k}", {"a": [2, 3, 1, 2], "b": [1, 3, 2, 1]}, 38.0),
    # b_{k-t} for k ≥ t: (2 + 9 + 2 + 2) + (3 + 3 + 4) + (1 + 6) + 2 = 34
    (r"S=\sum_{t=0}^{3} \sum_{k=t}^{3} a_k b_{k-t}", {"a": [2, 3, 1, 2], "b": [1, 3, 2, 1]}, 34.0),
    # advantage-alignment (19): Σ_{k=t+1}^{3} is empty at t = 3 (not k = 4, 3 counted down). A = (2, 3, 1, 2) from
    # A_0, B = (1, 3, 2) from B_1: 2·6 + 3·5 + 1·2 + 0 = 29
    (r"S=\sum_{t=0}^{3} \sum_{k=t+1}^{3} A_t B_k", {"A": [2, 3, 1, 2], "B": [1, 3, 2]}, 29.0),
    # a table over an inner variable: A(s_k | a_k) for k ≤ t, γ = 2, A = (1, 2, 3, 4):
    # 1 + (2 + 2) + (4 + 4 + 3) + (8 + 8 + 6 + 4) = 42
    (r"S=\sum_{t=0}^{3} \sum_{k=0}^{t} \gamma^{t-k} A(s_k \mid a_k)", {"A(s_{k} \\mid a_{k})": [1, 2, 3, 4]}, 42.0),
    # counted down with fixed limits (DiffusionDPO (20)'s Σ_{t=T}^{0}): the same terms, 8·4 + 4·3 + 2·2 + 1 = 49
    (r"S=\sum_{t=3}^{0} \gamma^{t} A(s_t \mid a_t)", {"A(s_{t} \\mid a_{t})": [1, 2, 3, 4]}, 49.0),
]


@pytest.mark.parametrize("latex, inputs, expected", NESTED, ids=[c[0] for c in NESTED])
def test_nested_ranges_size_each_sequence_for_every_term(latex, inputs, expected):
    ev = evaluate(latex, {"\\gamma": 2} if "\\gamma" in latex else {})
    for key, value in inputs.items():
        assert np.shape(ev.input(key).value) == np.shape(value), key
    numpy_function, torch_function = _namespaces(ev)
    assert _call(numpy_function, ev, inputs) == pytest.approx(expected)
    assert _call(torch_function, ev, inputs) == pytest.approx(expected)


# --- a softmax over a written variable ---------------------------------------------------------------------------
LN2, LN5 = 0.6931471805599453, 1.6094379124341003
SOFTMAX = [
    # softmax_j(s_j) over s = (0, ln 2, ln 5): e^s = (1, 2, 5), over 8 → (0.125, 0.25, 0.625) (until this session j
    # was one chosen number and the softmax of one value, 1.0)
    (r"y = \operatorname{softmax}_j(s_j)", {"s": [0, LN2, LN5]}, [0.125, 0.25, 0.625]),
    # a range written: j = 1, 2 of s = (0, ln 2, ln 5): (1, 2) / 3
    (r"y = \operatorname{softmax}_{j=1}^{2}(s_j)", {"s": [0, LN2, LN5]}, [1 / 3, 2 / 3]),
    # deepseek-v3 (10)'s form: Σ_j Softmax_j(s_j) v_j, the entry of the current j; v = (8, 4, 16):
    # 0.125·8 + 0.25·4 + 0.625·16 = 12
    (r"o = \sum_{j=1}^{3} \operatorname{Softmax}_j(s_j) v_j", {"s": [0, LN2, LN5], "v": [8, 4, 16]}, 12.0),
]


@pytest.mark.parametrize("latex, values, expected", SOFTMAX, ids=[c[0] for c in SOFTMAX])
def test_a_softmax_over_a_variable_normalizes_along_that_variable(latex, values, expected):
    ev = evaluate(latex, values)
    assert np.asarray(ev.value, dtype=float) == pytest.approx(np.asarray(expected))
    assert "j" not in ev.params  # the softmax's variable is no input
    numpy_function, torch_function = _namespaces(ev)
    for function in (numpy_function, torch_function):
        out = np.asarray(function(*call_arguments(ev)), dtype=float)
        assert out == pytest.approx(np.asarray(expected))
