"""Constructs the evaluator used to refuse, now lowered (issue 15, session 14): each with hand-worked numbers, the
generated NumPy code run on the same values, and the corpus equation that showed the cause (skipped when
../shared is absent). A refusal that stays right is tested too: it says why."""
import argparse
from pathlib import Path

import numpy as np
import pytest

from papermath.codegen import Citation, call_arguments, generate
from papermath.evaluate import EvaluationError, evaluate

CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpus" / "papers"


def run_code(ev):
    """The generated NumPy function called on the evaluation's own inputs (our generated code, not the paper's)."""
    code = generate(ev, Citation("test", None, None), module="refusal_case")
    namespace: dict = {"__name__": "generated"}
    exec(compile(code.numpy, "refusal_case.py", "exec"), namespace)
    return namespace[code.function](*call_arguments(ev))


# (construct, formula, values, expected value worked by hand)
CASES = [
    # A chain broken across displays: the one written side is the computation (2 + 3).
    ("continuation row, left side on the previous display", r"& \le a + b", {"a": 2, "b": 3}, 5.0),
    ("continuation row, right side on the next display", r"a b =", {"a": 2, "b": 3}, 6.0),
    ("continuation row of a lower bound", r"& \geq \|x - y\|^2", {"x": [1, 2], "y": [0, 0]}, 5.0),
    # Several variables under one sum: the sum nested one variable at a time, (1 + 2)(10 + 20 + 30) = 180.
    ("sum over two variables", r"\sum_{i, j} a_i b_j", {"a": [1, 2], "b": [10, 20, 30]}, 180.0),
    # (a1 b1)(a1 b2)(a2 b1)(a2 b2) = (1)(3)(2)(6) = 36.
    ("product over two variables", r"\prod_{i, j} a_i b_j", {"a": [1, 2], "b": [1, 3]}, 36.0),
    # A tuple of variables: sum over i, j of c_{i,j} = 1 + 2 + 3 + 4.
    ("sum over a tuple of variables", r"\sum_{(i, j)} c_{i, j}", {"c": [[1, 2], [3, 4]]}, 10.0),
    # An indexed family over a range: the members a_1 … a_3 of a longer sequence.
    ("set of a range's members", r"S = \{a_j \mid 1 \le j \le 3\}", {"a": [4, 5, 6, 7]}, [4.0, 5.0, 6.0]),
    # The top-2 gate of a mixture of experts: s = (0.1, 0.5, 0.3, 0.9) keeps 0.5 and 0.9.
    ("top-k gate over a set-builder",
     r"g_i = \begin{cases} s_i, & s_i \in \operatorname{Topk}(\{s_j | 1 \leqslant j \leqslant N\}, K) \\ 0, "
     r"& \text{otherwise} \end{cases}", {"s": [0.1, 0.5, 0.3, 0.9], "N": 4, "K": 2}, [0.0, 0.5, 0.0, 0.9]),
    # A concatenation written with its pattern: o_1, o_2, …, o_3 stacked, [1, 2] [3, 4] [5, 6].
    ("concatenation with a pattern and '…'", r"u = [o_1; o_2; \ldots; o_n]",
     {"o": [[1, 2], [3, 4], [5, 6]], "n": 3}, [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]),
    # σ² I beside an x of another size: one variance for every entry. N(1; 0, 1) = e^{-1/2} / √(2π).
    ("standard normal at a number", r"\mathcal{N}(x; 0, \mathbf{I})", {"x": 1.0}, np.exp(-0.5) / np.sqrt(2 * np.pi)),
    # Three entries, variance 4: Π exp(-x²/8) / √(8π) over x = 1, 2, 3.
    ("isotropic normal, σ² I", r"\mathcal{N}(x; \mu, s^2 \mathbf{I})", {"x": [1, 2, 3], "\\mu": [0, 0, 0], "s": 2},
     float(np.prod(np.exp(-np.array([1.0, 4.0, 9.0]) / 8) / np.sqrt(8 * np.pi)))),
    # `a_{k-t}` in a sum from k = t counts from 0: Σ_t Σ_{k=t}^{2} a_{k-t} with a = (1, 10, 100), t = 0, 1, 2:
    # t=0: a_0+a_1+a_2 = 111; t=1: a_0+a_1 = 11; t=2: a_0 = 1 → 123.
    # The positions where a condition holds: l = (5, 1, 4), threshold 3 → positions 1 and 3 (counted from 1).
    ("set of the positions a condition keeps", r"S = \{ i \mid l_i \geq c \}", {"l": [5, 1, 4], "c": 3}, [1.0, 3.0]),
    # min-p's threshold with the median written in upright text: med(1, 2, 3, 10) = 2.5, (10 - 2.5) / 2 = 3.75.
    ("median written as \\text{med}", r"n = \frac{M - \text{med}(l)}{s}", {"l": [1, 2, 3, 10], "M": 10, "s": 2}, 3.75),
    # A side in big-O is an order of growth: the other side is computed, (1 + 3) / 2 = 2.
    ("a side in big-O is dropped", r"\frac{1}{T}\sum_{t=1}^{T} g_t = \mathcal{O}\left(\frac{1}{\sqrt{T}}\right)",
     {"g": [1, 3], "T": 2}, 2.0),
    # A differential equation as one Euler–Maruyama step: dx = a x dt + b dw = 2·3·0.1 + 0.5·0.2 = 0.7.
    ("a differential equation, one Euler step", r"\mathrm{d} x = a x \,\mathrm{d} t + b \,\mathrm{d} w",
     {"a": 2, "x": 3, "b": 0.5, "\\mathrm{d} t": 0.1, "\\mathrm{d} w": 0.2}, 0.7),
    # A draw beside the computation is its input: x = a x_0 + b ε = 2·3 + 0.5·0.2 = 6.1.
    ("a draw beside the computation", r"x = a x_0 + b \epsilon, \epsilon \sim \mathcal{N}(0, I)",
     {"a": 2, "x_0": 3, "b": 0.5, "\\epsilon": 0.2}, 6.1),
    ("an offset from the lower limit counts from 0", r"\sum_{t=0}^{2} \sum_{k=t}^{2} a_{k-t}", {"a": [1, 10, 100]},
     123.0),
]


@pytest.mark.parametrize("construct, formula, values, expected", CASES, ids=[c[0] for c in CASES])
def test_construct_hand_worked(construct, formula, values, expected):
    ev = evaluate(formula, values)
    np.testing.assert_allclose(np.asarray(ev.value, float), expected, rtol=1e-12)
    assert not ev.standins, f"{construct}: a stand-in"
    np.testing.assert_allclose(np.asarray(run_code(ev), float), expected, rtol=1e-12)


def test_continuation_row_says_nothing_is_compared():
    ev = evaluate(r"& \le a + b", {"a": 2, "b": 3})
    assert any("not in this display" in note and "nothing is compared" in note for note in ev.notes)
    assert not ev.checks  # no verdict on a relation whose other side is not written here


def test_euler_step_wiener_increment_has_the_shape_of_x():
    """dw of a vector Wiener process has x's entries (x ∈ ℝ^D): [2·3·0.1 + 0.5·0.2, 2·1·0.1 + 0.5·0.4]."""
    formula = r"\mathrm{d} \mathbf{x} = a \mathbf{x} \,\mathrm{d} t + b \,\mathrm{d} \mathbf{w}"
    ev = evaluate(formula, {"a": 2, "\\mathbf{x}": [3, 1], "b": 0.5, "\\mathrm{d} t": 0.1,
                            "\\mathrm{d} \\mathbf{w}": [0.2, 0.4]}, declared_shapes={"\\mathbf{x}": ("D",)})
    np.testing.assert_allclose(ev.value, [0.7, 0.4])
    chosen = evaluate(formula, {}, declared_shapes={"\\mathbf{x}": ("D",)})
    assert np.shape(chosen.input("\\mathrm{d} \\mathbf{w}").value) == np.shape(chosen.input("\\mathbf{x}").value)
    assert any("one Euler step" in note for note in chosen.notes)


def test_index_drawn_by_the_expectation_is_one_value_per_sample():
    """`λ_t` inside 𝔼_t with no value for λ: one quantity with one value per sample (it used to crash, a float of a
    vector); the expectation is the mean over the samples of λ_t x_t."""
    ev = evaluate(r"L = \mathbb{E}_{t}[\lambda_t x_t]", {})
    lam, x = (np.asarray(ev.input(key).value, float) for key in ("\\lambda_{t}", "x_{t}"))
    assert lam.shape == x.shape == (3,)  # one value per sample
    np.testing.assert_allclose(float(ev.value), float(np.mean(lam * x)), rtol=1e-12)
    np.testing.assert_allclose(float(run_code(ev)), float(np.mean(lam * x)), rtol=1e-12)
    chosen = evaluate(r"L = \mathbb{E}_{t}[\omega(\lambda_t)]", {})
    assert any("drawn by the expectation" in note for note in chosen.notes)
    assert [a[1] for a in chosen.abstract] == ["omega"]  # ω a callable parameter, never the identity
    np.testing.assert_allclose(np.asarray(run_code(chosen), float), np.asarray(chosen.value, float))


REFUSALS = [
    # (formula, values, words the refusal must say): right refusals, each with its reason.
    ("", {}, "holds no formula"),
    (r"\sum_{i, j : i < j} a_i b_j", {"a": [1, 2], "b": [3, 4]}, "reductions over 2 variables"),  # a shared condition
    # Big-O alone states an order of growth: nothing to compute (it used to be an abstract callable).
    (r"TS = \mathcal{O}(m^{2/3} \log \log (1/\epsilon))", {}, "order of growth"),
    (r"\tilde{\mathcal{O}}(d^2)", {}, "order of growth"),
    # A draw alone is a statement about a distribution, not a value.
    (r"a \sim \mathcal{N}(1, 2)", {}, "sampling statement"),
    # A position before the first entry is out of range (NumPy would wrap round to the last entry silently).
    (r"\sum_{t=1}^{2} a_{t-2}", {"a": [1, 10]}, "index out of range"),
]


@pytest.mark.parametrize("formula, values, words", REFUSALS)
def test_refusal_says_why(formula, values, words):
    with pytest.raises(EvaluationError) as caught:
        evaluate(formula, values)
    assert words in caught.value.message


def _corpus_evaluation(paper, label):
    from papermath.analysis.shapes import shapes_in_context
    from papermath.commands.numbers import evaluation_inputs
    from papermath.latex import load_document

    doc = load_document(CORPUS / paper)
    functions = frozenset(doc.operators)
    equation = next(e for e in doc.equations if e.id == label)
    declared, _, _ = shapes_in_context(doc, equation)
    target = argparse.Namespace(declared=declared, latex=equation.latex, functions=functions, label=equation.id)
    _, shapes = evaluation_inputs(argparse.Namespace(set=[]), target)
    return evaluate(equation.latex, {}, declared_shapes=shapes, functions=functions)


CORPUS_CASES = [
    # (paper, equation, callables the code must take, what the notes must say)
    ("DiffusionDPO", "eq:2", ["omega", "epsilon_theta"], "drawn by the expectation"),  # λ_t, x_t inside 𝔼_t
    ("OptimalSteps", "eq:23", [], "not in this display"),  # `& \geq ‖(n - k)(v_θ - v_θ*)‖²`
    ("deepseek-v3-2412.19437", "eq:14", [], ""),  # the Topk gate over {s_{j,t} | 1 ≤ j ≤ N_r}
]


@pytest.mark.corpus
@pytest.mark.skipif(not CORPUS.is_dir(), reason="corpus ../shared/corpus/papers absent")
@pytest.mark.parametrize("paper, label, callables, note", CORPUS_CASES)
def test_corpus_equation_now_gives_code(paper, label, callables, note):
    ev = _corpus_evaluation(paper, label)
    assert not ev.standins
    assert [a[1] for a in ev.abstract] == callables
    assert not note or any(note in n for n in ev.notes)
    np.testing.assert_allclose(np.asarray(run_code(ev), float), np.asarray(ev.value, float), rtol=1e-9)


@pytest.mark.corpus
@pytest.mark.skipif(not CORPUS.is_dir(), reason="corpus ../shared/corpus/papers absent")
def test_corpus_topk_gate_keeps_the_top_scores():
    """DeepSeek-V3 (14): g'_{i,t} keeps s_{i,t} where it is among the K_r largest of s_{1,t} … s_{N_r,t}."""
    ev = _corpus_evaluation("deepseek-v3-2412.19437", "eq:14")
    s = np.asarray(ev.input("s_{i, t}").value if any(i.key == "s_{i, t}" for i in ev.inputs)
                   else next(i.value for i in ev.inputs if i.key == "s"), float)
    k = int(next(i.value for i in ev.inputs if i.key == "K_{r}"))
    top = np.sort(s)[::-1][:k]
    np.testing.assert_allclose(np.asarray(ev.value, float), np.where(np.isin(s, top), s, 0.0))
