"""Code it: generated NumPy code agrees with the evaluator (property test), and its pytest file passes."""
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from papermath.cli import main
from papermath.codegen import Citation, call_arguments, generate
from papermath.evaluate import EvaluationError, evaluate

CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpus" / "papers"
ATTENTION = r"\mathrm{Attention}(Q,K,V)=\mathrm{softmax}\left(\frac{QK^\top}{\sqrt{d_k}}\right)V"
SHAPES = {"Q": ("n", "d_k"), "K": ("m", "d_k"), "V": ("m", "d_v")}

# (formula, declared shapes): from guides 000 and 002 and from corpus papers' equations (written out).
TABLE = [
    (ATTENTION, SHAPES),
    (r"\log\sum_i e^{z_i}", {"z": ("n",)}),
    (r"D_{\mathrm{KL}}(p\|q)=\sum_i p_i\log\frac{p_i}{q_i}", {"p": ("n",), "q": ("n",)}),
    (r"H(p)=-\sum_i p_i\log p_i", {"p": ("n",)}),
    (r"\mathbb{E}[X]=\sum_x x\,p(x)", {"x": ("n",), "p": ("n",)}),
    (r"\mathcal{L}=\theta_1^2+3\theta_2^2", {"\\theta": ("2",)}),
    (r"\mathrm{DyT}(x) = \gamma * \tanh(\alpha x) + \beta", {"x": ("B", "T", "C"), "\\gamma": ("C",), "\\beta": ("C",), "\\alpha": ()}),
    (r"\mathbf{c}_{t}^{KV} = W^{DKV}\mathbf{h}_{t}", {"W^{DKV}": ("d_c", "d"), "\\mathbf{h}": ("d",)}),
    (r"\mathbf{k}_{t}^{C} = W^{UK}\mathbf{c}_{t}^{KV}", {"W^{UK}": ("d_h n_h", "d_c"), "\\mathbf{c}^{KV}": ("d_c",)}),
    (r"y_i=\sum_{j=1}^{d}W_{ij}x_j", {"W": ("n", "d"), "x": ("d",)}),
    (r"\sigma(W x + b)", {"W": ("m", "n"), "x": ("n",), "b": ("m",)}),
    (r"\mathrm{softmax}(z)", {"z": ("n",)}),
    (r"\frac{1}{N}\sum_{i=1}^{N} x_i", {"x": ("n",)}),
    (r"\|x\|_2^2", {"x": ("n",)}),
    (r"x^\top y", {"x": ("n",), "y": ("n",)}),
    (r"x y^\top", {"x": ("n",), "y": ("m",)}),
    (r"\log\sigma(\beta (r_w - r_l))", {"r_w": ("B",), "r_l": ("B",), "\\beta": ()}),
    (r"\max(0, 1 - y f)", {"y": ("n",), "f": ("n",)}),
    (r"\mathbb{E}[X]", {"X": ("n",)}),
    (r"\tilde{r}_i = \frac{r_i - \mathrm{mean}(r)}{\mathrm{std}(r)}", {"r": ("G",)}),
    (r"\mathrm{RMS}(x) = \sqrt{\frac{1}{d}\sum_{i=1}^{d} x_i^2}", {"x": ("d",)}),
    (r"\hat{x} = \frac{x - \mu}{\sqrt{\sigma^2 + \epsilon}}", {"x": ("d",), "\\mu": (), "\\sigma": (), "\\epsilon": ()}),
    (r"h_t = \tanh(W h_{t-1} + U x_t)", {"W": ("d", "d"), "U": ("d", "k"), "h_{t-1}": ("d",), "x": ("k",)}),
    (r"\mathrm{FFN}(x) = \max(0, x W_1 + b_1) W_2 + b_2", {"x": ("n", "d"), "W_{1}": ("d", "f"), "b_{1}": ("f",), "W_{2}": ("f", "d"), "b_{2}": ("d",)}),
    (r"\mathrm{pass@}k = 1 - \frac{\binom{n-c}{k}}{\binom{n}{k}}", {"n": (), "c": (), "k": ()},
     {"n": 10, "c": 3, "k": 2}),
    (r"h' = W_0 x + B A x", {"W_{0}": ("d", "k"), "B": ("d", "r"), "A": ("r", "k"), "x": ("k",)}),
    (r"\mathcal{L} = -\sum_{t=1}^{T} \log p_t", {"p": ("T",)}),
    (r"\theta \leftarrow \theta - \eta g", {"\\theta": ("n",), "g": ("n",), "\\eta": ()}),
    (r"s = \frac{q^\top k}{\sqrt{d}}", {"q": ("d",), "k": ("d",), "d": ()}),
    (r"\mathrm{acc}=\frac{1}{N}\sum_{i=1}^{N}\mathbf{1}[\hat y_i=y_i]", {"\\hat{y}": ("N",), "y": ("N",)}),
    (r"\mathrm{LSE}(z) = m + \log\sum_i e^{z_i - m}", {"z": ("n",), "m": ()}),
    (r"x_{t+1} = (1 - \beta) x_t + \beta u", {"x_{t}": ("d",), "u": ("d",), "\\beta": ()}),
]


def entry(row):
    """(formula, shapes, values): values are chosen by papermath unless the row gives them."""
    return row[0], row[1], (row[2] if len(row) > 2 else {})


def run_module(code, ev, values=None):
    namespace: dict = {"__name__": "generated"}
    exec(compile(code.numpy, f"{code.module}.py", "exec"), namespace)
    return namespace[code.function](*call_arguments(ev, values))


@pytest.mark.parametrize("row", TABLE, ids=[f"eq{i}" for i in range(len(TABLE))])
def test_generated_code_matches_evaluator_on_chosen_values(row):
    formula, shapes, given = entry(row)
    ev = evaluate(formula, given, declared_shapes=shapes)
    assert np.all(np.isfinite(ev.value))
    code = generate(ev)
    np.testing.assert_allclose(np.asarray(run_module(code, ev), float), ev.value, rtol=1e-9, atol=1e-12)
    assert len(code.numpy.split(f"def {code.function}")[1].splitlines()) <= 30


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(index=st.integers(0, len(TABLE) - 1), seed=st.integers(0, 2 ** 32 - 1))
def test_property_generated_code_agrees_with_evaluator_on_random_inputs(index, seed):
    formula, shapes, given = entry(TABLE[index])
    base = evaluate(formula, given, declared_shapes=shapes)
    rng = np.random.default_rng(seed)
    values = {}
    for item in base.inputs:
        if item.source != "chosen":
            continue
        value = np.asarray(item.value, float)
        positive = np.all(value > 0)
        fresh = rng.uniform(0.1, 2.0, size=value.shape) if positive else rng.normal(size=value.shape)
        if np.all((value > 0) & (value < 1)) and value.ndim:
            fresh = fresh / fresh.sum() if np.isclose(value.sum(), 1) else rng.uniform(0.05, 0.95, size=value.shape)
        values[item.key] = fresh
    values.update(given)
    try:
        ev = evaluate(formula, values, declared_shapes=shapes)
    except EvaluationError:
        return
    code = generate(ev)
    result = run_module(code, ev)
    np.testing.assert_allclose(np.asarray(result, float), ev.value, rtol=1e-8, atol=1e-10)


def test_generated_files_pass_their_own_tests(tmp_path):
    for i, row in enumerate(TABLE):
        formula, shapes, given = entry(row)
        ev = evaluate(formula, given, declared_shapes=shapes)
        generate(ev, Citation("guide table", None, str(i)), module=f"eq{i}_{ev.function_name}").write(tmp_path)
    result = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(tmp_path)],
                            capture_output=True, text=True, cwd=tmp_path, timeout=600)
    assert result.returncode == 0, result.stdout[-3000:]
    assert f"{len(TABLE)} passed" in result.stdout or "passed" in result.stdout


def test_attention_code_reads_like_guide_000():
    ev = evaluate(ATTENTION, {"Q": [[1, 0]], "K": [[1, 0], [0, 1], [1, 1]], "V": [[10, 0], [0, 10], [5, 5]]},
                  declared_shapes=SHAPES)
    code = generate(ev, Citation("Attention Is All You Need", "1706.03762v7", "1"))
    assert "def attention(Q, K, V):" in code.numpy
    assert "d_k = Q.shape[1]" in code.numpy and "Q @ K.T" in code.numpy and "softmax(" in code.numpy
    assert "equation (1)" in code.numpy and "1706.03762v7" in code.numpy
    assert "F.softmax" in code.torch
    assert "[[6.017" in code.test or "6.01" in code.test


def test_torch_variant_agrees_with_numpy():
    torch = pytest.importorskip("torch")
    for row in TABLE:
        formula, shapes, given = entry(row)
        ev = evaluate(formula, given, declared_shapes=shapes)
        code = generate(ev)
        namespace: dict = {"__name__": "generated_torch"}
        exec(compile(code.torch, "t.py", "exec"), namespace)
        result = namespace[code.function](*[ev.input(k).value for k in ev.params])
        np.testing.assert_allclose(np.asarray(torch.as_tensor(result), float), ev.value, rtol=1e-6, atol=1e-9)


def test_cli_code_writes_files(tmp_path, capsys):
    assert main(["code", "--latex", ATTENTION, "--set", "Q=[[1,0]]", "--set", "K=[[1,0],[0,1],[1,1]]",
                 "--set", "V=[[10,0],[0,10],[5,5]]", "--out", str(tmp_path)]) == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == [".papermath-output", "attention.py", "attention_torch.py",
                                                         "test_attention.py"]


@pytest.mark.corpus
@pytest.mark.skipif(not CORPUS.is_dir(), reason="corpus ../shared/corpus/papers absent")
def test_corpus_equation_code(capsys):
    assert main(["code", str(CORPUS / "deepseek-v3-2412.19437"), "--eq", "1"]) == 0
    out = capsys.readouterr().out
    assert "DeepSeek-V3 Technical Report" in out and "equation (1)" in out and "W_DKV @ h" in out


def corpus_equations(limit=40):
    from papermath.analysis.shapes import shapes_in_context
    from papermath.latex import load_document

    out = []
    for name in ("deepseek-v3-2412.19437", "DyT", "attention-1706.03762", "Diff-Transformer", "schedule_free"):
        doc = load_document(CORPUS / name)
        functions = frozenset(doc.operators)
        for equation in doc.equations:
            shapes, _, _ = shapes_in_context(doc, equation)
            try:
                ev = evaluate(equation.latex, {}, declared_shapes=shapes, functions=functions)
            except EvaluationError:
                continue
            out.append((name, equation, shapes, functions, ev))
            if len(out) >= limit:
                return out
    return out


@pytest.mark.corpus
@pytest.mark.skipif(not CORPUS.is_dir(), reason="corpus ../shared/corpus/papers absent")
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_property_corpus_equations(data):
    table = _CORPUS_TABLE or _CORPUS_TABLE.extend(corpus_equations()) or _CORPUS_TABLE
    assert len(table) >= 30
    name, equation, shapes, functions, base = data.draw(st.sampled_from(table))
    rng = np.random.default_rng(data.draw(st.integers(0, 2 ** 32 - 1)))
    values = {i.key: rng.uniform(0.2, 2.0, size=np.shape(i.value)) for i in base.inputs if i.source == "chosen"}
    try:
        ev = evaluate(equation.latex, values, declared_shapes=shapes, functions=functions)
    except EvaluationError:
        return
    code = generate(ev, Citation(name, None, equation.number))
    np.testing.assert_allclose(np.asarray(run_module(code, ev), float), ev.value, rtol=1e-8, atol=1e-10, equal_nan=True)


_CORPUS_TABLE: list = []
