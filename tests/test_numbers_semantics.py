"""Numbers and code that compute what the paper means (issue 15): indices, samples, functions, names, shapes.

Every expected value here is worked by hand or by an independent library call (scipy, a loop written in the
test), never copied from papermath's output.
"""
from __future__ import annotations

import json
import math
import re
import shlex
from pathlib import Path

import numpy as np
import pytest
from scipy import stats

from papermath.cli import main
from papermath.codegen import Citation, call_arguments, generate
from papermath.evaluate import evaluate

CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpus" / "papers"
needs_corpus = pytest.mark.skipif(not CORPUS.is_dir(), reason="corpus ../shared/corpus/papers absent")


def run_code(ev, torch=False):
    """Call the generated NumPy (or PyTorch) function on the evaluation's own inputs (PyTorch: skipped without
    torch, after the NumPy checks before it have run)."""
    if torch:
        pytest.importorskip("torch")
    code = generate(ev, Citation("test"))
    namespace: dict = {"__name__": "generated"}
    exec(compile(code.torch if torch else code.numpy, "generated.py", "exec"), namespace)  # our generated code
    result = namespace[code.function](*call_arguments(ev))
    return np.asarray(result.detach().numpy() if hasattr(result, "detach") else result, dtype=float)


# --- indices ---------------------------------------------------------------------------------------------------
SCHEDULE_FREE_23 = r"c_{t+1} = \frac{\gamma^2_t}{\sum^t_{i=1} \gamma^2_i}"


@pytest.mark.parametrize("values", [{"gamma": [2, 2, 1]}, {"\\gamma_i": [2, 2, 1]}, {"gamma": [2, 2, 1], "t": 3}])
def test_a_free_index_with_a_value_selects_one_element(values):
    # γ_t with t = 3 (the sum's bound, inferred from γ's length when not set) is the last entry: 1 / (4 + 4 + 1)
    ev = evaluate(SCHEDULE_FREE_23, values)
    assert np.ndim(ev.value) == 0
    assert float(ev.value) == pytest.approx(1 / 9)
    assert float(run_code(ev)) == pytest.approx(1 / 9)


@needs_corpus
def test_schedule_free_23_is_the_scalar_one_ninth(capsys):
    assert main(["numbers", str(CORPUS / "schedule_free"), "--eq", "23", "--set", "gamma=[2,2,1]", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["value"] == pytest.approx(1 / 9)


def test_index_arithmetic_counts_each_sequence_from_where_the_equation_starts_it():
    # x_0 = x_T + Σ_{i=N}^{1} v_i (t_{i-1} - t_i): t runs 0..N (t_0 appears), v runs 1..N. By hand, N = 3:
    t = [0.0, 0.3, 0.6, 1.0]
    v = [[0.3, -0.2], [0.6, 0.1], [-0.4, 0.9]]
    x_T = [0.8, -1.1]
    want = np.array(x_T) + sum(np.array(v[i - 1]) * (t[i - 1] - t[i]) for i in (3, 2, 1))
    ev = evaluate(r"\bm{x_{0}}= \bm{x_{T}}+ \sum_{i=N}^{1}\bm{v_{\theta,i}} (t_{i-1} - t_{i})",
                  {"\\bm{x_{T}}": x_T, "\\bm{v_{\\theta,i}}": v, "t_i": t, "N": 3})
    np.testing.assert_allclose(ev.value, want)
    np.testing.assert_allclose(run_code(ev), want)


@pytest.mark.parametrize("latex, length, by_hand", [
    # g_{t-1} at t = 1 reaches g_0: g runs 0..T, T + 1 entries; Σ (g_t - g_{t-1})² over the chosen g, by hand
    (r"S = \sum_{t=1}^T (g_t - g_{t-1})^2", 4, lambda g: sum((g[t] - g[t - 1]) ** 2 for t in (1, 2, 3))),
    # z_{t+1} at t = T reaches z_{T+1}: z runs 1..T+1; the sum telescopes to z_{T+1} - z_1
    (r"S = \sum_{t=1}^T (z_{t+1} - z_t)", 4, lambda z: z[3] - z[0]),
])
def test_a_chosen_sequence_is_long_enough_for_every_index_the_equation_reaches(latex, length, by_hand):
    ev = evaluate(latex, {})
    (sequence,) = [i for i in ev.inputs if i.key not in ("T", "S")]
    values = np.asarray(sequence.value, dtype=float)
    assert values.shape == (length,)
    assert float(ev.value) == pytest.approx(by_hand(values))
    assert float(run_code(ev)) == pytest.approx(by_hand(values))


def test_a_free_index_used_as_a_number_is_evaluated_per_position():
    # A*_t = A1_t + β γ (Σ_{k<t} γ^{t-k} A1_k) A2_t for t = 1..4, by a loop written here
    a1, a2, beta, gamma = [0.5, -0.3, 0.8, 0.2], [-0.4, 0.6, 0.1, -0.7], 1.5, 0.9
    want = [a1[t] + beta * gamma * sum(gamma ** (t - k) * a1[k] for k in range(t)) * a2[t] for t in range(4)]
    ev = evaluate(r"A^*(s_t, a_t, b_t) = \left(A^1(s_t, a_t, b_t) + \beta \gamma \cdot \left(\sum_{k<t} "
                  r"\gamma^{t-k} A^{1}(s_k, a_k, b_k) \right)A^2(s_t, a_t, b_t)\right)",
                  {"A^1(s_t, a_t, b_t)": a1, "A^2(s_t, a_t, b_t)": a2, "beta": beta, "gamma": gamma})
    np.testing.assert_allclose(ev.value, want)
    np.testing.assert_allclose(run_code(ev), want)


def test_a_free_index_that_does_not_line_up_as_an_axis_is_stacked():
    # Σ_k (Σ_h a_{h,q,k} W_h) x_k for each query q (row q of the result), by a loop written here
    rng = np.random.default_rng(0)
    a, w, x = rng.normal(size=(2, 3, 3)), rng.normal(size=(2, 4, 4)), rng.normal(size=(3, 4))
    want = np.stack([sum(sum(a[h, q, k] * w[h] for h in range(2)) @ x[k] for k in range(3)) for q in range(3)])
    ev = evaluate(r"\sum_{k=1}^T \left(\sum_{h=1}^H a_{h,q,k} W_h \right) \mathbf{x}_k",
                  {"a_{h,q,k}": a, "W_h": w, "\\mathbf{x}_k": x})
    np.testing.assert_allclose(ev.value, want)
    np.testing.assert_allclose(run_code(ev), want)


def test_x_t_and_x_0_are_distinct_inputs():
    ev = evaluate(r"y = x_t - x_0", {"x_t": 5.0, "x_0": 2.0})
    assert float(ev.value) == 3.0 and {i.key for i in ev.inputs} == {"x_{t}", "x_{0}"}


# --- given sub-expressions, names -------------------------------------------------------------------------------
def test_a_given_gradient_is_used_where_it_occurs():
    # Schedule-free eq. (4): z_{t+1} = z_t - γ ∇f(y_t, ζ_t) = [0.5, -1, 2] - 0.1 [0.5, 0, 0.01]
    ev = evaluate(r"z_{t+1} =z_{t}-\gamma\nabla f(y_{t}, \zeta_t)",
                  {"z_{t}": [0.5, -1.0, 2.0], "\\gamma": 0.1, "\\nabla f(y_{t}, \\zeta_t)": [0.5, 0.0, 0.01]})
    np.testing.assert_allclose(ev.value, [0.45, -1.0, 1.999])


def test_the_gradient_of_an_abstract_function_is_a_callable_of_its_own():
    # Schedule-free: Σ_{t=1}^T ‖∇F(y_t) - ∇F(y_{t-1})‖² with F left abstract. The code takes ∇F as a callable;
    # with ∇F = 2·(·) (F(y) = ‖y‖²) and y = [1, 3, 0, 2] (y_0..y_3) it is 4 (2² + 3² + 2²) = 68, by hand.
    latex = r"S=\sum_{t=1}^T \|\nabla F(y_t)-\nabla F(y_{t-1})\|^2"
    ev = evaluate(latex, {"T": 3, "y": [1.0, 3.0, 0.0, 2.0]})
    assert [param for _, param, _ in ev.abstract] == ["nabla_F"]
    code = generate(ev, Citation("test"))
    namespace: dict = {"__name__": "generated"}
    exec(compile(code.numpy, "generated.py", "exec"), namespace)  # our generated code
    assert namespace[code.function](3, np.array([1.0, 3.0, 0.0, 2.0]), lambda y: 2 * y) == pytest.approx(68.0)
    # ∇f(y_t, ζ_t) with nothing under ∇: in its first argument, the variable; a callable all the same
    ev = evaluate(r"g_t=\nabla f(y_t,\zeta_t)", {"y_t": [1.0, 2.0], "\\zeta_t": [0.5, 0.5]})
    assert [param for _, param, _ in ev.abstract] == ["nabla_f"] and np.shape(ev.value) == (2,)


def test_the_set_hint_for_a_chosen_output_is_one_shell_word():
    # a prime in the formula would end a hand-quoted '…' early: the hint quotes the whole assignment for the shell
    ev = evaluate(r"g_t=\nabla f(z'_t,\zeta_t)", {"z'_t": [1.0, 2.0], r"\zeta_t": [0.5, 0.5]})
    note = next(n for n in ev.notes if "--set" in n)
    hint = note.split("--set ", 1)[1].split(" or a function", 1)[0]
    words = shlex.split(hint)
    assert len(words) == 1 and words[0].startswith(r"\nabla f(z'") and words[0].endswith("=…"), hint


@pytest.mark.parametrize("typed", ["A", "\\bm{A}", "\\mathbf{A}"])
def test_names_match_as_a_person_types_them(typed):
    ev = evaluate(r"\mathbf{y} = {\bm{A}} \mathbf{x}", {typed: [[1, 2], [3, 4]], "x": [1, 1]})
    np.testing.assert_allclose(ev.value, [3, 7])


def test_a_name_that_matches_nothing_is_an_error_naming_the_closest(capsys):
    assert main(["numbers", "--latex", r"\mathbf{y} = \mathbf{A} x", "--set", "Zzz=1"]) == 2
    assert "no symbol or sub-expression" in capsys.readouterr().err
    assert main(["numbers", "--latex", r"\mathbf{y} = \mathbf{A} x", "--set", "Ab=1"]) == 2
    assert "did you mean" in capsys.readouterr().err
    assert main(["shapes", "--latex", r"\mathbf{A} x", "--shape", "Zzz=n"]) == 2
    assert main(["shapes", "--latex", r"\mathbf{A} x", "--shape", "A=n,n", "--shape", "x=n"]) == 0
    assert "[n, n] @ [n] → [n]" in capsys.readouterr().out


# --- functions --------------------------------------------------------------------------------------------------
def test_fn_gives_a_function_its_meaning(capsys):
    assert main(["numbers", "--latex", r"h = \phi(x) + 1", "--set", "x=[-1,2]", "--fn", "phi=relu", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["value"] == [1.0, 3.0]
    assert main(["numbers", "--latex", r"h = \phi(x)", "--set", "x=1", "--fn", "phi=relux"]) == 2
    assert "unknown function" in capsys.readouterr().err


def test_cosine_similarity_and_layer_norm_by_hand():
    ev = evaluate(r"s = \mathrm{sim}(a, b)", {"a": [1, 0], "b": [1, 1]}, implementations={"sim": "cosine_similarity"})
    assert float(ev.value) == pytest.approx(1 / math.sqrt(2))
    ev = evaluate(r"y = \mathrm{LN}(x)", {"x": [1.0, 3.0]}, implementations={"LN": "layer_norm"})
    np.testing.assert_allclose(ev.value, np.array([-1.0, 1.0]) / math.sqrt(1 + 1e-5))
    np.testing.assert_allclose(run_code(ev, torch=True), ev.value)


def test_an_abstract_function_is_a_callable_parameter_never_a_stand_in():
    ev = evaluate(r"L = \|\epsilon - \epsilon_\theta(x_t, t)\|^2", {"epsilon": [1.0, 2.0], "x_t": [0.5, 0.5], "t": 3})
    assert not ev.standins and [param for _, param, _ in ev.abstract] == ["epsilon_theta"]
    code = generate(ev, Citation("test"))
    assert "def loss(epsilon, x_t, t, epsilon_theta):" in code.numpy and "args[0]" not in code.numpy
    out = ev.abstract[0][2][0][1]  # the output the numbers used for ε_θ(x_t, t)
    assert float(ev.value) == pytest.approx(float(np.sum((np.array([1.0, 2.0]) - out) ** 2)))
    assert float(run_code(ev)) == pytest.approx(float(ev.value))


def test_a_matrix_is_never_applied():
    # LEN (8): Q (U + λ I)^{-1} Q^{-1} F with Q a matrix is Q · (U + λI)^{-1} · Q^{-1} · F
    rng = np.random.default_rng(1)
    q, u, f = rng.normal(size=(3, 3)), np.triu(rng.normal(size=(3, 3))) + 3 * np.eye(3), rng.normal(size=3)
    ev = evaluate(r"{\bm{h}} = {\bm{Q}} ( {\bm{U}} + \lambda {\bm{I}}_d)^{-1} {\bm{Q}}^{-1} {\bm{F}}({\bm{z}}_t)",
                  {"Q": q, "U": u, "lambda": 0.5, "\\mathbf{F}(\\mathbf{z}_t)": f, "d": 3})
    want = q @ np.linalg.inv(u + 0.5 * np.eye(3)) @ np.linalg.inv(q) @ f
    np.testing.assert_allclose(ev.value, want)
    np.testing.assert_allclose(run_code(ev), want)


# --- samples, stable reductions ---------------------------------------------------------------------------------
DDPM = r"L = \mathbb{E}_{x_0, \epsilon, t}\left[\omega(\lambda_t)\|\epsilon-\epsilon_\theta(x_t,t)\|_2^2\right]"


def test_an_expectation_is_a_mean_over_samples_with_the_norm_per_sample():
    eps, pred, w = [[0.1, -0.2, 0.3], [0.0, 0.5, -0.1]], [[0.3, 0.1, 0.0], [-0.2, 0.4, 0.2]], [1.0, 2.0]
    want = np.mean([w[b] * np.sum((np.array(eps[b]) - pred[b]) ** 2) for b in range(2)])
    ev = evaluate(DDPM, {"\\epsilon": eps, "\\epsilon_\\theta(x_t,t)": pred, "\\omega(\\lambda_t)": w})
    assert float(ev.value) == pytest.approx(want)
    assert float(run_code(ev)) == pytest.approx(want)


def test_numpy_and_torch_agree_on_a_batched_call():
    pytest.importorskip("torch")
    rng = np.random.default_rng(2)
    ev = evaluate(DDPM, {"\\epsilon": rng.normal(size=(5, 4)), "\\epsilon_\\theta(x_t,t)": rng.normal(size=(5, 4)),
                         "\\omega(\\lambda_t)": rng.uniform(size=5)})
    assert ev.samples is not None and ev.samples.size == 5
    np.testing.assert_allclose(run_code(ev, torch=True), run_code(ev), rtol=1e-12)


def test_log_sum_exp_stays_finite_at_d_4096():
    # GMFlow (6): -log Σ_k exp(-‖u - μ_k‖²/(2 s²) - D log s + log A_k) at D = 4096, where exp underflows
    rng = np.random.default_rng(3)
    u, mu, a, s = rng.normal(size=4096), rng.normal(size=(2, 4096)), np.array([0.3, 0.7]), 0.5
    terms = [-np.sum((u - mu[k]) ** 2) / (2 * s ** 2) - 4096 * np.log(s) + np.log(a[k]) for k in range(2)]
    top = max(terms)
    want = -(top + np.log(sum(np.exp(z - top) for z in terms)))
    ev = evaluate(r"\mathcal{L} = -\log \sum_{k=1}^K \exp \left(-\frac{1}{2 s^2} \|{\bm{u}} - {\bm{\mu}}_k\|^2 - "
                  r"D \log s + \log A_k \right)", {"u": u, "\\bm{\\mu}_k": mu, "A_k": a, "s": s, "D": 4096})
    assert np.isfinite(ev.value) and float(ev.value) == pytest.approx(want)
    assert float(run_code(ev)) == pytest.approx(want)


def test_argmax_over_an_interval():
    # llm-sci-use: argmax_α Σ log((1-α) p_i + α q_i); the derivative Σ (q_i - p_i)/((1-α)p_i + α q_i) = 0 by bisection
    p, q = np.array([0.2, 0.5, 0.1, 0.4, 0.3]), np.array([0.6, 0.1, 0.5, 0.45, 0.2])
    lo, hi = 0.0, 1.0
    for _ in range(100):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if np.sum((q - p) / ((1 - mid) * p + mid * q)) > 0 else (lo, mid)
    ev = evaluate(r"\hat\alpha = \operatorname*{argmax}_{\alpha\in [0,1]}\sum_{i=1}^N\log\left((1-\alpha)"
                  r"\hat\mathcal{P}(X_i)+\alpha \hat\mathcal{Q}(X_i)\right)",
                  {"\\hat\\mathcal{P}(X_i)": p, "\\hat\\mathcal{Q}(X_i)": q})
    assert float(ev.value) == pytest.approx(lo, abs=1e-7)
    assert float(run_code(ev)) == pytest.approx(lo, abs=1e-7)


def test_a_definition_for_v_in_a_set_is_kept_on_the_set():
    # min-p (3): P'(v) = P(v) / Σ_{v' ∈ V_min} P(v') for v ∈ V_min, token ids from 0
    p = [0.15, 0.5, 0.01, 0.3, 0.04]
    ev = evaluate(r"P'(v) = \frac{P(v \mid x_{1:t-1})}{\sum_{v' \in \mathcal{V}_{\text{min}}} P(v' \mid x_{1:t-1})} "
                  r"\quad \text{for } v \in \mathcal{V}_{\text{min}}",
                  {"P(v \\mid x_{1:t-1})": p, "\\mathcal{V}_{\\text{min}}": [0, 1, 3]})
    np.testing.assert_allclose(ev.value, [0.15 / 0.95, 0.5 / 0.95, 0, 0.3 / 0.95, 0])
    assert float(np.sum(ev.value)) == pytest.approx(1.0)


def test_a_sum_inside_an_expectation_runs_per_sample():
    # cross-entropy per sample, then the mean over the two samples, by hand
    p, q = [[0.9, 0.1], [0.5, 0.5]], [[0.5, 0.5], [0.9, 0.1]]
    want = -np.mean([sum(p[b][k] * math.log(q[b][k]) for k in range(2)) for b in range(2)])
    ev = evaluate(r"H = -\mathbb{E}_{x}[\sum_k p_k \log q_k]", {"p": p, "q": q})
    assert float(ev.value) == pytest.approx(want)
    assert float(run_code(ev)) == pytest.approx(want)


@pytest.mark.parametrize("latex, values, want", [
    (r"y = a_1 + \cdots + a_n", {"a": [1, 2, 3], "n": 3}, 6.0),
    (r"y = a_1 + a_2 + \dots + a_n", {"a": [1, 2, 3, 4], "n": 4}, 10.0),
    (r"y = \mathrm{Concat}(h_1, \cdots, h_n) W", {"h": [[[1.0], [2.0]], [[3.0], [4.0]]], "n": 2, "W": [[1.0], [10.0]]},
     [[31.0], [42.0]]),
])
def test_an_ellipsis_with_a_clear_pattern(latex, values, want):
    ev = evaluate(latex, values)
    np.testing.assert_allclose(ev.value, want)
    np.testing.assert_allclose(run_code(ev), want)


def test_a_listed_family_with_an_ellipsis_keeps_each_member():
    # GRPO (DeepSeek-V3): A_i = (r_i - mean({r_1, r_2, ⋯, r_G})) / std(…). The rewards of a group are members told
    # apart by their index: r = [1, 1, 4] has mean 2 (a set of distinct values, {1, 4}, would give 2.5)
    ev = evaluate(r"m = \operatorname{mean}(\{r_1, r_2, \cdots, r_G\})", {"r": [1.0, 1.0, 4.0], "G": 3})
    assert float(ev.value) == pytest.approx(2.0)
    assert float(run_code(ev)) == pytest.approx(2.0)
    assert float(run_code(ev, torch=True)) == pytest.approx(2.0)


def test_a_function_defined_by_another_equation_is_computed_from_it():
    # head_i = DiffAttn(X; W_i^Q, W_i^K, W_i^V, λ) with DiffAttn from DIFF_ATTN, for two heads, then concatenated
    from papermath.evaluate.ops import EquationFunction

    rng = np.random.default_rng(5)
    x, wq, wk, wv = rng.normal(size=(3, 4)), rng.normal(size=(2, 4, 2)), rng.normal(size=(2, 4, 2)), \
        rng.normal(size=(2, 4, 2))

    def head(i):
        q, k = x @ wq[i], x @ wk[i]
        return (_softmax(q[:, :1] @ k[:, :1].T) - 0.5 * _softmax(q[:, 1:] @ k[:, 1:].T)) @ (x @ wv[i])

    want = np.concatenate([head(0), head(1)], axis=-1)
    ev = evaluate(r"\begin{aligned} \mathrm{head}_i &= \operatorname{DiffAttn}(X; W_i^Q, W_i^K, W_i^V, \lambda) \\ "
                  r"\operatorname{M}(X) &= \operatorname{Concat}(\mathrm{head}_1, \cdots, \mathrm{head}_h) \end{aligned}",
                  {"X": x, "W_i^Q": wq, "W_i^K": wk, "W_i^V": wv, "lambda": 0.5, "h": 2}, dim_sizes={"d": 1},
                  implementations={"DiffAttn": EquationFunction("(1)", DIFF_ATTN)})
    np.testing.assert_allclose(ev.value, want)
    np.testing.assert_allclose(run_code(ev), want)
    np.testing.assert_allclose(run_code(ev, torch=True), want)


def test_the_words_that_name_a_function_belong_to_its_clause():
    from papermath.evaluate.ops import function_from_words

    both = r"$\operatorname{LN}(\cdot)$ uses RMSNorm for each head, and $\operatorname{Concat}(\cdot)$ concatenates"
    assert function_from_words(both, r"\operatorname{LN}") == "rmsnorm"
    assert function_from_words(both, r"\operatorname{Concat}") is None
    assert function_from_words(r"here we set it to be a ReLU, $\phi(x) = \max(0, x)$", r"\phi") == "relu"


# --- the new-user cases of issue 15 -----------------------------------------------------------------------------
DIFF_ATTN = (r"\begin{aligned} \relax [Q_1 ; Q_2&] = X W^Q ,\quad [K_1 ; K_2] = X W^K ,\quad V = X W^V \\ "
             r"\operatorname{DiffAttn}&(X) = (\mathrm{softmax}(\frac{Q_1 K^{T}_1}{\sqrt{d}}) - \lambda~"
             r"\mathrm{softmax}(\frac{Q_2 K^{T}_2}{\sqrt{d}}))V \end{aligned}")


def _softmax(z):
    z = np.exp(z - z.max(axis=-1, keepdims=True))
    return z / z.sum(axis=-1, keepdims=True)


def test_diff_attention_splits_x_w_q_and_uses_the_given_v():
    rng = np.random.default_rng(4)
    x, wq, wk, v = rng.normal(size=(3, 4)), rng.normal(size=(4, 4)), rng.normal(size=(4, 4)), rng.normal(size=(3, 2))
    q, k = x @ wq, x @ wk
    q1, q2, k1, k2 = q[:, :2], q[:, 2:], k[:, :2], k[:, 2:]
    want = (_softmax(q1 @ k1.T / np.sqrt(2)) - 0.5 * _softmax(q2 @ k2.T / np.sqrt(2))) @ v
    ev = evaluate(DIFF_ATTN, {"X": x, "W^Q": wq, "W^K": wk, "V": v, "lambda": 0.5, "d": 2})
    np.testing.assert_allclose(ev.value, want)
    np.testing.assert_allclose(run_code(ev), want)
    assert not any("not used" in n for n in ev.notes)


@needs_corpus
def test_diff_transformer_1_uses_the_given_v(capsys):
    assert main(["numbers", str(CORPUS / "Diff-Transformer"), "--eq", "1", "--set", "V=[[1,0],[0,1]]",
                 "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert not any("not used" in n for n in out["notes"])
    assert any("split along its last axis" in n for n in out["notes"])


def test_a_gaussian_is_its_density_through_the_log_density():
    x, mu, var = np.array([0.5, -1.0]), np.array([0.2, 0.1]), 0.3
    want = np.exp(np.sum(stats.norm.logpdf(x, mu, np.sqrt(var))))
    ev = evaluate(r"p(x_{t-1}|x_t) = \mathcal{N}(x_{t-1}; \mu, s\mathbf{I})", {"x_{t-1}": x, "mu": mu, "s": var})
    assert float(ev.value) == pytest.approx(want)
    assert float(run_code(ev)) == pytest.approx(want)
    assert float(run_code(ev, torch=True)) == pytest.approx(want)


@needs_corpus
def test_diffusion_dpo_1_is_a_gaussian_density(capsys):
    assert main(["numbers", str(CORPUS / "DiffusionDPO"), "--eq", "1", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert any("Gaussian log-density" in s["note"] for s in out["steps"])
    assert any("Gaussian density" in n for n in out["notes"]) and out["value"] > 0


@needs_corpus
def test_dpo_8_defaults_give_a_nonzero_margin(capsys):
    assert main(["numbers", str(CORPUS / "DiffusionDPO"), "--eq", "8", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    beta = next(i for i in out["inputs"] if i["key"] == "\\beta")
    assert np.ndim(beta["value"]) == 0  # a hyperparameter is one number, not one per sample
    winner = [i["value"] for i in out["inputs"] if "^{w}" in i["key"]]
    loser = [i["value"] for i in out["inputs"] if "^{l}" in i["key"]]
    assert winner != loser
    margin = next(s["value"] for s in out["steps"] if s["latex"].startswith("\\beta \\log") and " - " in s["latex"])
    assert np.all(np.abs(np.asarray(margin)) > 1e-6)
    assert abs(out["value"] - math.log(2)) > 1e-6


# --- generated tests that can fail on a misreading --------------------------------------------------------------
def test_generated_tests_carry_independent_checks():
    code = generate(evaluate(r"w = \mathrm{softmax}(z)", {"z": [1.0, 2.0, 3.0]}), Citation("test"))
    assert "def test_independent_softmax_rows_sum_to_one" in code.test
    assert "self-consistency only" in code.test
    ev = evaluate(r"y = \sigma(z)", {"z": [0.0, 5.0]}, implementations={"sigma": "sigmoid"})
    test = generate(ev, Citation("test")).test
    assert "test_independent_range_its_operators_allow" in test and "result in [0, 1]" in test


def _independent_body(test: str, name: str) -> str:
    check = test.split(f"def test_independent_{name}():")[1].split("\n\n\n")[0]
    return "\n".join(line[4:] for line in check.splitlines() if line.strip() and not line.strip().startswith("#"))


def _run_check(code, numpy_source: str, name: str) -> None:
    namespace: dict = {"__name__": "t"}
    exec(compile(numpy_source, "m.py", "exec"), namespace)  # our generated code (possibly with a planted misreading)
    test_namespace: dict = {"__name__": "t_test", "np": np}
    exec(compile(code.test.split("def test_")[0].split(f"from {code.module} import {code.function}")[1], "t.py",
                 "exec"), test_namespace)
    exec(compile(_independent_body(code.test, name), "check.py", "exec"),
         {**test_namespace, code.function: namespace[code.function], "result": namespace[code.function](
             *test_namespace["inputs"]())})


@pytest.mark.parametrize("latex, scaled, effect", [
    (r"y = \sigma(\beta x)", r"\beta × 2^-1, x × 2^1", "unchanged"),
    (r"\mathrm{Attention}(Q,K,V)=\mathrm{softmax}(QK^\top/\sqrt{d_k})V", "Q × 2^-1", "2^2"),
    (r"L = \frac{1}{N}\sum_{i=1}^{N} \|x_i - y_i\|^2", "x × 2^1, y × 2^1", "2^2"),
    ((r"\mathcal{L} = -\log \sigma(\beta \log \frac{\pi_\theta(y_w|x)}{\pi_{ref}(y_w|x)} - \beta \log "
      r"\frac{\pi_\theta(y_l|x)}{\pi_{ref}(y_l|x)})"), r"\pi_\theta (y_{w} \mid x) × 2^1", "unchanged"),
])
def test_scaling_symmetries_come_from_the_operators(latex, scaled, effect):
    # Homogeneity rules per operation (papermath.codegen.properties): a sum scales its terms alike, a product
    # multiplies scales, σ/exp/log/softmax need an unchanged argument; the symmetry is a check the code must pass.
    code = generate(evaluate(latex, {}), Citation("test"))
    test = code.test
    assert "def test_independent_scaling_symmetry_of_its_operators" in test
    comment = test.split("def test_independent_scaling_symmetry_of_its_operators():")[1].split("\n")[1]
    assert scaled in comment and effect in comment
    _run_check(code, code.numpy, "scaling_symmetry_of_its_operators")


def test_the_scaling_check_fails_on_a_misreading():
    # A term the code squares where the tree does not (x_i - y_i)² read as x_i - y_i²: the symmetry breaks.
    code = generate(evaluate(r"L = \frac{1}{N}\sum_{i=1}^{N} \|x_i - y_i\|^2", {}), Citation("test"))
    planted = re.sub(r"(\by\[[^\]]*\])", r"\1 ** 2", code.numpy, count=1)
    assert planted != code.numpy
    with pytest.raises(AssertionError):
        _run_check(code, planted, "scaling_symmetry_of_its_operators")


def test_ranges_compose_through_the_tree():
    from papermath.codegen.checks import Parameter, independent_checks

    def bounds(latex, keys):
        checks = independent_checks(latex, parameters=tuple(Parameter(k, "chosen") for k in keys))
        found = [c for c in checks if c.name == "range_its_operators_allow"]
        return found[0].why.split("result in ")[1].split(" (")[0] if found else None

    assert bounds(r"L = -\log \sigma(z)", ["z"]) == "[0, ∞]"
    assert bounds(r"p = 1 - \sigma(z)", ["z"]) == "[0, 1]"
    assert bounds(r"L = \frac{1}{2}\|x - y\|^2 + \exp(z)", ["x", "y", "z"]) == "[0, ∞]"
    assert bounds(r"y = \tanh(x) + 1", ["x"]) == "[0, 2]"
    assert bounds(r"y = x - z", ["x", "z"]) is None  # nothing bounds a difference of two inputs
    assert bounds(r"y = x \ldots z", ["x", "z"]) is None  # an ellipsis is not a value: no claim


def test_an_independent_check_fails_on_a_misreading(tmp_path):
    # The test a softmax gets fails when the code does not compute one: the check does not come from the evaluator.
    code = generate(evaluate(r"w = \mathrm{softmax}(z)", {"z": [1.0, 2.0, 3.0]}), Citation("test"))
    broken = code.numpy.replace("softmax(z, axis=-1)", "np.exp(z)")
    assert broken != code.numpy
    namespace: dict = {"__name__": "t"}
    check = code.test.split("def test_independent_softmax_rows_sum_to_one():")[1].split("\n\n\n")[0]
    exec(compile(broken, "w.py", "exec"), namespace)  # our generated code, with the misreading planted
    namespace["inputs"] = lambda: (np.array([1.0, 2.0, 3.0]),)
    body = "\n".join(line[4:] for line in check.splitlines() if line.strip() and not line.strip().startswith("#"))
    with pytest.raises(AssertionError):
        exec(compile(body, "check.py", "exec"), {**namespace, "np": np})


@needs_corpus
def test_the_mcp_numbers_tool_takes_values_and_functions():
    from papermath.mcp_server import build_tools, call_tool

    tools = build_tools()
    out = call_tool(tools, "numbers", {"source": str(CORPUS / "schedule_free"), "eq": "23", "set": ["gamma=[2,2,1]"]})
    assert out["value"] == pytest.approx(1 / 9)
    values = ["SE_\\theta^{(w)}=[0.5]", "SE_{\\text{ref}}^{(w)}=[0.2]", "SE_\\theta^{(l)}=[0.1]",
              "SE_{\\text{ref}}^{(l)}=[0.3]", "beta=2"]
    out = call_tool(tools, "numbers", {"source": str(CORPUS / "DiffusionDPO"), "eq": "46", "set": values,
                                       "fn": ["sigma=sigmoid"]})
    # -log σ(-β/2 ((0.5 - 0.2) - (0.1 - 0.3))) = -log σ(-0.5)
    assert out["value"] == pytest.approx(-math.log(1 / (1 + math.exp(0.5))))


def test_translation_symmetries_and_abstract_outputs():
    # softmax ignores a shift of its argument; ‖ε − ε_θ(x_t, t)‖² is unchanged when ε and what ε_θ returns move
    # together, and scales by 4 when both double: the test moves the abstract function's output by wrapping it.
    code = generate(evaluate(r"w = \mathrm{softmax}(z)", {"z": [1.0, 2.0, 3.0]}), Citation("test"))
    assert "adding z + 1 leaves the result unchanged" in code.test
    _run_check(code, code.numpy, "translation_symmetry_of_its_operators")
    code = generate(evaluate(r"L = \|\epsilon - \epsilon_\theta(x_t, t)\|^2", {}), Citation("test"))
    assert r"\epsilon × 2^1, \epsilon_\theta (its output) × 2^1 multiplies the result by 2^2" in code.test
    assert r"adding \epsilon + 1, \epsilon_\theta (its output) + 1 leaves the result unchanged" in code.test
    for name in ("scaling_symmetry_of_its_operators", "translation_symmetry_of_its_operators"):
        _run_check(code, code.numpy, name)
    planted = code.numpy.replace("diff = epsilon - apply", "diff = epsilon + apply", 1)
    assert planted != code.numpy
    with pytest.raises(AssertionError):
        _run_check(code, planted, "translation_symmetry_of_its_operators")


def test_a_gaussian_density_is_positive_and_moves_with_its_mean():
    # 𝒩(x + c; μ + c, Σ) = 𝒩(x; μ, Σ) and a density is ≥ 0: both hold whatever papermath's evaluator computes.
    code = generate(evaluate(r"p = \mathcal{N}(x; \mu, s\mathbf{I})", {"x": [0.5, -1.0], "mu": [0.2, 0.1], "s": 0.3}),
                    Citation("test"))
    assert r"adding x + 1, \mu + 1 leaves the result unchanged" in code.test
    for name in ("translation_symmetry_of_its_operators", "range_its_operators_allow"):
        _run_check(code, code.numpy, name)


@pytest.mark.parametrize("latex, value", [
    (r"y = a_1 + a_2 + \dots + a_n", 10.0),
    (r"y = a_1 + a_2 + a_3 + \cdots + a_n", 10.0),
    (r"y = a_1 + \cdots + a_n", 10.0),
])
def test_a_series_with_an_ellipsis_runs_the_pattern(latex, value):
    assert float(evaluate(latex, {"a": [1.0, 2.0, 3.0, 4.0], "n": 4}).value) == value


def test_a_term_before_the_ellipsis_that_breaks_the_pattern_is_refused_not_dropped():
    # it used to be dropped silently: a_1 + b + … + a_n summed a_1..a_n and lost b
    from papermath.evaluate.lower import EvaluationError
    with pytest.raises(EvaluationError, match="does not follow the pattern"):
        evaluate(r"y = a_1 + b + \dots + a_n", {"a": [1.0, 2.0, 3.0, 4.0], "n": 4, "b": 7.0})


@pytest.mark.parametrize("latex, given, value", [
    # the resolution's projection of the whole side (its constraint names the left side): ‖(3, 4)‖ = 5 > 1
    (r"z_{t+1} = \Pi_{\|z_{t+1}\|\le D} z_t - \eta g_t", {"z_t": [3.0, 4.0], "D": 1.0, r"\eta": 0.5,
                                                          "g_t": [0.0, 0.0]}, [0.6, 0.8]),
    # a bracket after the subscript: (0.3, 0.4) - (0, 0.1) = (0.3, 0.3) lies inside the unit ball
    (r"z_{t+1} = \Pi_{\|z\|\le D} \left[z_t - \eta g_t \right]", {"z_t": [0.3, 0.4], "D": 1.0, r"\eta": 1.0,
                                                                  "g_t": [0.0, 0.1]}, [0.3, 0.3]),
    (r"z_{t+1} = \Pi_{\|z\|\le D} \left[z_t - \eta g_t \right]", {"z_t": [3.0, 4.0], "D": 2.0, r"\eta": 1.0,
                                                                  "g_t": [0.0, 0.0]}, [1.2, 1.6]),
])
def test_a_projection_onto_a_ball_is_computed_however_the_tree_holds_it(latex, given, value):
    ev = evaluate(latex, given)
    np.testing.assert_allclose(ev.value, value)
    assert not ev.abstract  # the projection is known, never a callable the user must supply
