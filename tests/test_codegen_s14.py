"""Session 14, issue 15: causes of code-ok equations whose generated test carried no independent check, or a
failing one, each fixed at its mechanism and checked here with numbers worked by hand.

- evaluator: a free index on a symbol that is one number here (`\\beta_t` beside the constant `\\beta`) names a
  quantity of its own, not the number with its index dropped; a statement a prose word introduces
  (`\\text{where}~head_i = …`) is the statement, not a condition to test;
- second reader (SymPy on the paper's own LaTeX): an application's value raised to a power
  (`\\pi_\\theta(a|s)^2`) is the input given for it; an element picked by several indices (`g'_{j,t}` in a sum
  over j, t free); a letter the formula itself uses as a number (an index's arithmetic, a whole argument) times a
  bracket (`t(\\beta_t - \\beta_{t+1})`); a conditional subscript (`\\sigma_{t|t-1}`) as one name; `sin(…)` and an
  input's word (`pos`) typed in plain italics.
Corpus cases skip when ../shared is absent."""
import math
from pathlib import Path

import numpy as np
import pytest

from papermath.codegen import second_reader as SR
from papermath.evaluate import evaluate

from conftest import corpus_evaluation

CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpus" / "papers"
needs_reader = pytest.mark.skipif(not SR.available(), reason="needs sympy and antlr4-python3-runtime 4.11 "
                                                              "(pip install -e '.[bench]')")


def _inputs(ev):
    return {key: float(np.asarray(ev.input(key).value)) for key in ev.params}


# --- evaluator: an element of a scalar is a quantity of its own ------------------------------------------------
def test_a_free_index_on_a_declared_scalar_names_its_own_quantity():
    # schedule_free (10) with the text's `\beta \in [0, 1]`: β_t is one value of the schedule, an input of its own
    ev = evaluate(r"y_t = \beta_t x_t + (1-\beta_t) z_t", {}, declared_shapes={"\\beta": ()})
    assert "\\beta_{t}" in ev.params and "\\beta" not in ev.params
    v = _inputs(ev)
    b, x, z = v["\\beta_{t}"], v["x_{t}"], v["z_{t}"]
    assert float(ev.value) == pytest.approx(b * x + (1 - b) * z)


@pytest.mark.parametrize("latex, bare, element, expected", [
    # GMFlow (52): Σ'_k = Σ + c²Σ_k; with Σ = 2, c = 3, Σ_k = 5 → 2 + 9·5 = 47 (chosen values, recomputed)
    (r"\Sigma'_k = \Sigma + c^2 \Sigma_k", "\\Sigma", "\\Sigma_{k}",
     lambda v: v["\\Sigma"] + v["c"] ** 2 * v["\\Sigma_{k}"]),
    # GMFlow (47): (Σ + Σ_k)^{-1}
    (r"\Sigma'_k = (\Sigma + \Sigma_k)^{-1}", "\\Sigma", "\\Sigma_{k}",
     lambda v: 1 / (v["\\Sigma"] + v["\\Sigma_{k}"])),
])
def test_a_bare_scalar_and_its_indexed_family_are_two_inputs(latex, bare, element, expected):
    ev = evaluate(latex, {})
    assert bare in ev.params and element in ev.params
    v = _inputs(ev)
    assert v[bare] != v[element]  # distinct quantities, distinct values
    assert float(ev.value) == pytest.approx(expected(v))


def test_a_given_scalar_still_means_its_element():
    # the user sets β = 0.25: that is what they mean by β_t (no second input appears)
    ev = evaluate(r"y_t = \beta_t x_t", {"\\beta": 0.25, "x_t": 4.0})
    assert float(ev.value) == pytest.approx(1.0)
    assert "\\beta_{t}" not in ev.params


@pytest.mark.parametrize("latex, values, expected", [
    (r"\text{where}~y &= a + b", {"a": 1.0, "b": 2.0}, 3.0),
    (r"\text{with}~y = a b", {"a": 2.0, "b": 5.0}, 10.0),
])
def test_a_word_that_introduces_a_statement_is_not_a_condition(latex, values, expected):
    assert float(evaluate(latex, values).value) == pytest.approx(expected)


# --- second reader ---------------------------------------------------------------------------------------------
@needs_reader
@pytest.mark.parametrize("latex, values, expected", [
    # advantage-alignment (20)'s product: π(a|s)² A(a|s) at π = 0.5, A = 3 → 0.75
    (r"L = \pi_{\theta}(a|s)^2 A(a|s)", {"\\pi_\\theta(a|s)": 0.5, "A(a|s)": 3.0}, 0.75),
    # schedule_free (u18): t(α_{t+1} − α_t) at t = 2, α_{t+1} = 7, α_t = 4 → 6
    (r"\alpha_t - 1 = t(\alpha_{t+1}-\alpha_t)", {"t": 2.0, "\\alpha_{t+1}": 7.0, "\\alpha_t": 4.0}, 6.0),
    # TabDiff (10)'s form: t a whole argument of σ(t) on the left → σ(t) = a + t(b − a) at 1, 3, 0.5 → 2
    (r"\sigma(t) = a + t(b - a)", {"t": 0.5, "a": 1.0, "b": 3.0}, 2.0),
    # DiffusionDPO (1)'s variance: σ_{t|t-1}² σ_{t-1}² / σ_t² at 2, 3, 6 → 4·9/36 = 1
    (r"v = \sigma_{t|t-1}^2\frac{\sigma_{t-1}^2}{\sigma_t^2}",
     {"\\sigma_{t|t-1}": 2.0, "\\sigma_{t-1}": 3.0, "\\sigma_t": 6.0}, 1.0),
    # GMFlow (21): NLL in bits; q = [1/2, 1/4, 1/8] over 3 draws of x_t (q varies with the draw): −log₂ q =
    # [1, 2, 3], mean 2, over D = 2 → 1
    (r"\mathit{NLL} = \frac{1}{D} \mathbb{E}_{t,x_0,x_t}[-\log_2 q_{\theta}(x_0 | x_t)]",
     {"D": 2, "q_\\theta(x_0|x_t)": [0.5, 0.25, 0.125]}, 1.0),
    # GMFlow (9)'s mixture mean: Σ_k A_k {μ_x}_k with A = [1, 2, 3], μ_x = [4, 5, 6] → 4 + 10 + 18 = 32
    (r"y = \sum_{k=1}^K A_k {\mu_\text{x}}_k", {"K": 3, "A": [1.0, 2.0, 3.0], "\\mu_\\text{x}": [4.0, 5.0, 6.0]},
     32.0),
])
def test_the_second_reader_reads_it_and_agrees(latex, values, expected):
    ev = evaluate(latex, values)
    assert float(ev.value) == pytest.approx(expected)
    reading = SR.read(ev)
    assert reading is not None and reading.agrees and reading.value == pytest.approx(expected)


@needs_reader
def test_an_element_of_several_indices_normalises_over_the_bound_one():
    # deepseek-v3 (13): g_{i,t} = g'_{i,t} / Σ_j g'_{j,t} with g' = [3, 1, 2] (t fixed) → [1/2, 1/6, 1/3]
    ev = evaluate(r"g_{i,t} = \frac{g'_{i,t}}{\sum_{j=1}^{N_r} g'_{j,t}}", {"g'": [3.0, 1.0, 2.0], "N_r": 3})
    np.testing.assert_allclose(ev.value, [0.5, 1 / 6, 1 / 3])
    reading = SR.read(ev)
    assert reading is not None and reading.agrees
    np.testing.assert_allclose(reading.value, [0.5, 1 / 6, 1 / 3])


@needs_reader
def test_bare_sin_and_an_input_word():
    # attention (u3): PE = sin(pos / 10000^{2i/d}) at pos = 3, i = 0, d = 4 → sin(3)
    ev = evaluate(r"PE_{(pos,2i)} = sin(pos / 10000^{2i/d})", {})
    v = _inputs(ev)
    pos = v[next(k for k in ev.params if "pos" in k)]
    assert float(ev.value) == pytest.approx(math.sin(pos / 10000 ** (2 * v["i"] / v["d"])))
    reading = SR.read(ev)
    assert reading is not None and reading.agrees


@needs_reader
@pytest.mark.parametrize("latex, values", [
    # f is never a number in the formula: SymPy's application stands, an unknown function, no opinion
    (r"y = x - f(x + v)", {"x": 1.0, "v": 2.0}),
    # ε_f: f only a subscript's label, no evidence that f is a number
    (r"y = \epsilon_f + f(x)", {"\\epsilon_f": 1.0, "x": 2.0}),
])
def test_a_letter_with_no_evidence_of_a_number_stays_applied(latex, values):
    assert not SR._numbers_times_brackets(latex.split("=", 1)[1], latex).count("\\cdot")


@pytest.mark.parametrize("side, formula, expected", [
    (r"t(a - b)", r"u_t = t(a - b) + \beta_{t+1}", r"t \cdot (a - b)"),
    (r"\gamma \left(x\right)", r"y = \gamma \left(x\right) + c^{\gamma-1}", r"\gamma \cdot \left(x\right)"),
    (r"k(a)", r"y = k(a) + w_{i,k}", r"k \cdot (a)"),
    (r"k(a)", r"y = k(a) + w_{k}", r"k(a)"),  # a lone subscript may be a label: no evidence
])
def test_numbers_times_brackets_table(side, formula, expected):
    assert " ".join(SR._numbers_times_brackets(side, formula).split()) == expected


# --- corpus ----------------------------------------------------------------------------------------------------


@pytest.mark.corpus
@pytest.mark.skipif(not CORPUS.is_dir(), reason="corpus ../shared/corpus/papers absent")
def test_attention_head_is_the_attention_of_its_projections():
    # attention (u2) `\text{where}~head_i = Attention(QW^Q_i, …)`: until now the code returned head_i == Attention
    # (a 0/1 array) and the second reader's check failed; head_i is Attention's output
    ev = corpus_evaluation("attention-1706.03762", "eq:u2")
    (_, _, calls), = ev.abstract
    np.testing.assert_allclose(ev.value, calls[0][1])
    if SR.available():
        assert SR.read(ev).agrees


@pytest.mark.corpus
@pytest.mark.skipif(not CORPUS.is_dir(), reason="corpus ../shared/corpus/papers absent")
def test_schedule_free_interpolation_keeps_beta_t():
    ev = corpus_evaluation("schedule_free", "eq:10")
    assert "\\beta_{t}" in ev.params
    if SR.available():
        assert SR.read(ev).agrees


# --- second reader: what the test's inputs hold under 𝔼 ----------------------------------------------------------
@needs_reader
def test_an_expectation_over_one_draw_is_its_value():
    # SISS (2): the inputs hold one draw of the vector x_t (papermath takes no mean): ε = 0.5 and the double's
    # ε_θ(x_t, t) = [2, 3, 1] give ‖[−1.5, −2.5, −0.5]‖² = 2.25 + 6.25 + 0.25 = 8.75, read draw and all
    ev = evaluate(r"L = \mathbb{E}_{q(x_t|x)}\left\|\epsilon-\epsilon_\theta(x_t, t)\right\|_2^2",
                  {"x_t": [1.0, 2.0, 2.0], "\\epsilon": 0.5, "t": 1})
    (_, _, ((_, output),)), = ev.abstract
    assert float(ev.value) == pytest.approx(np.sum((0.5 - np.asarray(output)) ** 2))
    reading = SR.read(ev)
    assert reading is not None and reading.agrees and reading.value == pytest.approx(float(ev.value))


@needs_reader
def test_a_batched_call_is_read_one_draw_at_a_time():
    # DiffusionDPO (15): 𝔼 over 3 draws of r(x_0, c); the numbers call r once on the batch, the reader once per
    # draw: the double answers the s-th draw with the s-th output, and the mean is the outputs' mean
    ev = evaluate(r"J = \mathbb{E}_{c \sim p(c), x_0 \sim p_\theta(x_0|c)} r(x_0, c)",
                  {"x_0": [1.0, 2.0, 3.0], "c": [2.0, 1.0, 1.0]})
    (_, _, ((_, output),)), = ev.abstract
    assert float(ev.value) == pytest.approx(np.mean(output))
    reading = SR.read(ev)
    assert reading is not None and reading.agrees


@pytest.mark.parametrize("args, known, output, expected", [
    ((2.0, 1.0), ([1.0, 2.0, 3.0], [2.0, 1.0, 1.0]), [7.0, 8.0, 9.0], 8.0),  # the second draw
    ((2.0, 2.0), ([1.0, 2.0, 3.0], [2.0, 1.0, 1.0]), [7.0, 8.0, 9.0], None),  # no one draw of that call
    ((2.0,), ([1.0, 2.0],), [[1.0, 2.0], [3.0, 4.0]], [3.0, 4.0]),  # an output per draw that is a vector
])
def test_one_sample_of_a_batched_call(args, known, output, expected):
    got = SR._one_sample_of(args, known, np.asarray(output))
    if expected is None:
        assert got is None
    else:
        np.testing.assert_allclose(got, expected)


# --- evaluator: a logarithm's base; second reader: group elements, typewriter heads, inputs that vary with a draw --
@pytest.mark.parametrize("latex, values, expected", [
    (r"y = \log_2(q)", {"q": 8.0}, 3.0),        # was ln 8 = 2.079: the subscript base was dropped
    (r"y = -\log_2 q", {"q": 0.25}, 2.0),
    (r"y = \log_{10} q", {"q": 1000.0}, 3.0),
    (r"y = \log q", {"q": math.e ** 2}, 2.0),    # no base: the natural log, as before
])
def test_a_logarithm_to_the_base_its_subscript_names(latex, values, expected):
    assert float(evaluate(latex, values).value) == pytest.approx(expected)


def test_a_logarithm_to_another_base_is_refused():
    from papermath.evaluate import EvaluationError
    with pytest.raises(EvaluationError, match="base b"):
        evaluate(r"y = \log_b q", {"q": 8.0, "b": 2.0})


@needs_reader
def test_a_typewriter_word_applied_is_a_function():
    # hyla (u3): Z = FFN(X) + X with FFN abstract: the reader computes X + the double's FFN(X)
    ev = evaluate(r"Z = \texttt{FFN}(X) + X", {"X": 2.0})
    (_, _, ((_, output),)), = ev.abstract
    assert float(ev.value) == pytest.approx(float(output) + 2.0)
    reading = SR.read(ev)
    assert reading is not None and reading.agrees


@needs_reader
def test_a_written_out_family_is_the_whole_input():
    # deepseek-v3 (28), GRPO's advantage: (r_i − mean{r_1, …, r_G}) / std{r_1, …, r_G}, the values chosen (r_i an
    # input of its own, r the family): e.g. r_i = 3, r = [1, 2, 3] give mean 2, population std √(2/3), 1.2247
    ev = evaluate(r"A_i = \frac{r_i - {\operatorname{mean}(\{r_1, r_2, \cdots, r_G\})}}"
                  r"{{\operatorname{std}(\{r_1, r_2, \cdots, r_G\})}}", {})
    r, r_i = np.asarray(ev.input("r").value), float(ev.input("r_{i}").value)
    expected = (r_i - r.mean()) / r.std()
    assert float(ev.value) == pytest.approx(expected)
    reading = SR.read(ev)
    assert reading is not None and reading.agrees and reading.value == pytest.approx(expected)
    assert SR._vector(np.array([1.0, 2.0, 3.0])).std() == pytest.approx(math.sqrt(2 / 3))


@pytest.mark.parametrize("latex, kept", [
    (r"\{r_1, r_2, \cdots, r_G\}", False),   # G = 3 = len(r): the whole input
    (r"\{r_1, r_2, \cdots, r_5\}", True),    # five members of a three-vector: left as written
    (r"\{q_1, q_2, \cdots, q_G\}", True),    # q is no input
])
def test_whole_families_table(latex, kept):
    ev = evaluate(r"y = \operatorname{mean}(\{r_1, r_2, \cdots, r_G\})", {"r": [1.0, 2.0, 3.0], "G": 3})
    assert (SR._whole_families(latex, ev) == latex) is kept


@needs_reader
def test_a_set_written_out_as_an_argument():
    # OptimalSteps (16): ‖F(x', v_θ, {k, n}) − x[n]‖² with F abstract: the set {k, n} is its members in increasing
    # order (as the numbers pass it), so the double answers and the square is (F − x_n)²
    ev = evaluate(r"L = \left\lVert\mathcal{F}(\bm{x'}, \bm{v_\theta},\{k,n\}) - \bm{x}[n]\right\rVert^2_2", {})
    (_, _, ((args, output),)), = ev.abstract
    np.testing.assert_allclose(args[2], sorted({float(ev.input("k").value), float(ev.input("n").value)}))
    x_n = float(ev.input("\\mathbf{x}_{n}").value)
    assert float(ev.value) == pytest.approx((float(output) - x_n) ** 2)
    reading = SR.read(ev)
    assert reading is not None and reading.agrees


@pytest.mark.parametrize("side, expected", [
    (r"F(x, \{k,n\})", r"F(x,  @Qqset@(k, n))"),
    (r"\{v \in V : p_v \ge c\}", r"\{v \in V : p_v \ge c\}"),   # a set-builder: left alone
    (r"\{a\}", r"\{a\}"),                                       # one item: a group
    (r"\{x_1, \ldots, x_n\}", r"\{x_1, \ldots, x_n\}"),         # a pattern: left alone
])
def test_written_sets_table(side, expected):
    assert SR._written_sets(side) == expected


@needs_reader
def test_an_old_style_upright_word_applied_is_a_function():
    # TabDiff (20): ρ = {\rm Cov}(x, y) / (σ_x σ_y) with Cov abstract: the double's Cov(x, y) over 0.5·4 = 2
    ev = evaluate(r"\rho_{x, y} = \frac{ {\rm Cov} (x, y)}{\sigma_x \sigma_y}",
                  {"x": 2.0, "y": 3.0, "\\sigma_x": 0.5, "\\sigma_y": 4.0})
    (_, _, ((_, output),)), = ev.abstract
    assert float(ev.value) == pytest.approx(float(output) / 2.0)
    reading = SR.read(ev)
    assert reading is not None and reading.agrees
