"""Plug in small numbers: guides 000 and 002's worked numbers, reproduced by the evaluator and the CLI."""
import json

import numpy as np
import pytest

from papermath.cli import main
from papermath.errors import UsageError
from papermath.evaluate import EvaluationError, evaluate, extremes, parse_assignment

ATTENTION = r"\mathrm{Attention}(Q,K,V)=\mathrm{softmax}\left(\frac{QK^\top}{\sqrt{d_k}}\right)V"
SHAPES = {"Q": ("n", "d_k"), "K": ("m", "d_k"), "V": ("m", "d_v")}
GUIDE_000 = {"Q": [[1, 0]], "K": [[1, 0], [0, 1], [1, 1]], "V": [[10, 0], [0, 10], [5, 5]]}
DPO = (r"\mathcal{L}_{\mathrm{DPO}} = -\mathbb{E}_{(x,y_w,y_l)\sim\mathcal{D}}\left[\log\sigma\left(\beta\log"
       r"\frac{\pi_\theta(y_w\mid x)}{\pi_{\mathrm{ref}}(y_w\mid x)}-\beta\log\frac{\pi_\theta(y_l\mid x)}"
       r"{\pi_{\mathrm{ref}}(y_l\mid x)}\right)\right]")


def test_guide_000_attention():
    ev = evaluate(ATTENTION, GUIDE_000, declared_shapes=SHAPES)
    np.testing.assert_allclose(np.round(ev.value, 3), [[6.017, 3.983]])
    steps = [np.round(s.value, 3).tolist() for s in ev.steps]
    assert [[1.0, 0.0, 1.0]] in steps and [[0.707, 0.0, 0.707]] in steps and [[0.401, 0.198, 0.401]] in steps
    assert ev.input("d_{k}").source == "dimension" and "inferred from Q" in ev.input("d_{k}").note


def test_guide_000_extreme_saturates():
    ev = evaluate(ATTENTION, GUIDE_000, declared_shapes=SHAPES)
    ten, tenth = extremes(ev, declared_shapes=SHAPES)
    assert ten.scaled == ("Q",)
    weights = [s for s in ten.evaluation.steps if s.op == "softmax"][0].value
    np.testing.assert_allclose(np.round(weights, 4), [[0.4998, 0.0004, 0.4998]])
    assert any("hard selection" in c for c in ten.changes)
    assert any("uniform" in c for c in tenth.changes)


def test_guide_002_two_keys():
    ev = evaluate(ATTENTION, {"Q": [[1.0]], "K": [[0.0], [np.log(3.0)]], "V": [[2, 0], [0, 4]]}, declared_shapes=SHAPES)
    weights = [s for s in ev.steps if s.op == "softmax"][0].value
    np.testing.assert_allclose(weights, [[0.25, 0.75]])
    np.testing.assert_allclose(ev.value, [[0.5, 3.0]])


def test_guide_002_causal_mask():
    x = np.random.default_rng(0).normal(size=(3, 4))
    mask = np.where(np.tril(np.ones((3, 3))) > 0, 0.0, -np.inf)
    ev = evaluate(r"\mathrm{softmax}\left(\frac{QK^\top}{\sqrt{d_k}} + M\right)V", {"Q": x, "K": x, "V": x, "M": mask},
                  declared_shapes=SHAPES)
    weights = [s for s in ev.steps if s.op == "softmax"][0].value
    np.testing.assert_allclose(weights.sum(axis=1), 1.0)
    assert np.all(weights[np.triu_indices(3, k=1)] == 0)
    assert ev.value.shape == (3, 4)


@pytest.mark.parametrize("formula, values, expected", [
    (r"\log\sum_i e^{z_i}", {"z": [1000, 1001]}, 1001.313),
    (r"\mathrm{LSE}(z) = m + \log\sum_i e^{z_i - m}", {"z": [1000, 1001], "m": 1001}, 1001.313),
    (r"\mathbb{E}[X]=\sum_x x\,p(x)", {"x": [1, 3], "p": [0.75, 0.25]}, 1.5),
    (r"\mathbb{E}[X]", {"X": [1, 1, 1, 3]}, 1.5),
    (r"\mathbb{E}_{x\sim p}[x]", {"x": [1, 3], "p": [0.75, 0.25]}, 1.5),
    (r"D_{\mathrm{KL}}(p\|q)=\sum_i p_i\log\frac{p_i}{q_i}", {"p": [0.9, 0.1], "q": [0.5, 0.5]}, 0.368),
    (r"D_{\mathrm{KL}}(p\|q)", {"p": [0.9, 0.1], "q": [0.5, 0.5]}, 0.368),
    (r"H(p)=-\sum_i p_i\log p_i", {"p": [0.9, 0.1]}, 0.325),
    (r"\frac{1}{N}\sum_{i=1}^{N}\mathbf{1}[\hat y_i=y_i]", {"\\hat{y}": [0, 1, 1], "y": [0, 0, 1]}, 0.667),
    (r"\binom{5}{2}", {}, 10.0),
    (r"f(\theta) = (\theta-3)^2", {"theta": 3}, 0.0),
    (r"\hat{\theta}=\arg\max_{\theta \in S} -(\theta-3)^2", {"S": [1, 2, 3, 4]}, 3.0),
    (r"\max_i z_i", {"z": [1, 5, 2]}, 5.0),
    (r"\prod_{i=1}^{3} i", {}, 6.0),
    (r"f(x)=\begin{cases} x & x>0 \\ 0 & \text{otherwise}\end{cases}", {"x": [-1, 2]}, [0.0, 2.0]),
    (r"\sum_{t} \log p_t", {"p": [0.5, 0.2, 0.1]}, -4.605),
])
def test_worked_numbers(formula, values, expected):
    ev = evaluate(formula, values)
    np.testing.assert_allclose(np.round(ev.value, 3), expected, atol=1e-3)


def test_lse_is_stable():
    ev = evaluate(r"\log\sum_i e^{z_i}", {"z": [1000, 1001]})
    assert np.isfinite(ev.value) and "log-sum-exp" in ev.steps[0].note


def test_gradient_step_guide_002():
    ev = evaluate(r"\mathcal{L}=\theta_1^2+3\theta_2^2 \\ \theta \leftarrow \theta - \eta\nabla_\theta\mathcal{L}",
                  {"theta": [2, 1], "eta": 0.1})
    np.testing.assert_allclose(ev.value, [1.6, 0.4], atol=1e-8)
    assert "\\mathcal{L} 7 → 3.04" in ev.checks


def guide_dpo(pi_w, pi_l, ref_w, ref_l, beta=0.1):
    """Guide 000's four-line function, in NumPy (log-sigmoid written stably)."""
    margin = beta * ((pi_w - ref_w) - (pi_l - ref_l))
    return -(-np.logaddexp(0.0, -margin)).mean()


def test_dpo_from_its_equation_agrees_with_guide_000():
    rng = np.random.default_rng(1)
    for _ in range(5):
        logs = rng.normal(-2.0, 1.0, size=(4, 6))
        values = {"beta": 0.1, r"\pi_\theta(y_w\mid x)": np.exp(logs[0]), r"\pi_{\mathrm{ref}}(y_w\mid x)": np.exp(logs[2]),
                  r"\pi_\theta(y_l\mid x)": np.exp(logs[1]), r"\pi_{\mathrm{ref}}(y_l\mid x)": np.exp(logs[3])}
        ev = evaluate(DPO, values)
        np.testing.assert_allclose(ev.value, guide_dpo(*logs), rtol=1e-10)
    assert any("Monte Carlo" in s.note for s in ev.steps)


def test_chosen_values_are_shown():
    ev = evaluate(r"\mathrm{DyT}(x) = \gamma * \tanh(\alpha x) + \beta",
                  declared_shapes={"x": ("B", "T", "C"), "\\gamma": ("C",), "\\beta": ("C",), "\\alpha": ()})
    assert {i.source for i in ev.inputs} == {"chosen"}
    assert ev.value.shape == ev.input("x").value.shape


def test_range_bound_inferred_and_said():
    ev = evaluate(r"\sum_{i=1}^{N} y_i", {"y": [1, 2, 3]})
    assert ev.value == 6 and any("N = 3" in n for n in ev.notes)


@pytest.mark.parametrize("text, key", [("epsilon=0", "\\epsilon"), ("\\epsilon=0", "\\epsilon"),
                                       ("\\hat{y}=[1,2]", "\\hat{y}"), ("W^{UK}=[[1,2]]", "W^{UK}"),
                                       ("n=3", "n")])
def test_set_keys(text, key):
    assert parse_assignment(text).key == key


@pytest.mark.parametrize("bad", ["Q", "Q=__import__('os')", "Q=[[1,2],[3]]", "=3", "x=open('f')"])
def test_bad_set_values_fail_cleanly(bad):
    with pytest.raises(UsageError):
        parse_assignment(bad)


def test_an_entry_with_a_bound_index_names_the_whole_sequence():
    assert float(evaluate(r"\sum_i x_i", {"x_i": [1, 2]}).value) == 3.0


def test_a_name_that_matches_nothing_is_an_error_with_did_you_mean():
    with pytest.raises(UsageError, match="did you mean 'x'"):
        evaluate(r"\sum_i x_i", {"xx": [1, 2]})


def test_integral_is_not_evaluated():
    with pytest.raises(EvaluationError):
        evaluate(r"\int_0^1 x\,dx", {})


def test_cli_guide_000(capsys):
    assert main(["numbers", "--latex", ATTENTION, "--set", "Q=[[1,0]]", "--set", "K=[[1,0],[0,1],[1,1]]",
                 "--set", "V=[[10,0],[0,10],[5,5]]", "--extreme"]) == 0
    out = capsys.readouterr().out
    assert "[[6.017, 3.983]]" in out and "[[0.4998, 0.0004, 0.4998]]" in out and "d_{k}    2 " in out


def test_cli_json_and_errors(capsys):
    assert main(["numbers", "--latex", r"\log\sum_i e^{z_i}", "--set", "z=[1000,1001]", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert round(data["value"], 3) == 1001.313
    assert main(["numbers", "--latex", r"\sum_i x_i", "--set", "y_i=[1,2]"]) == 2
    assert "did you mean" in capsys.readouterr().err


def test_dimensions_can_be_set():
    ev = evaluate(ATTENTION, {"n": 3, "d_k": 4}, declared_shapes=SHAPES)
    assert ev.input("Q").value.shape == (3, 4) and ev.input("K").value.shape[1] == 4
    assert not any("not used" in n for n in ev.notes)


@pytest.mark.parametrize("formula", [
    r"\int_0^1 x\,dx", r"\frac{a}", r"\lim_{x\to 0} f(x)", r"x \in \mathbb{R}^{n}", r"a_1 + \cdots",
    r"\frac{\partial L}{\partial \theta}", r"\text{only prose}", r"\{ [1, 2] \}",
])
def test_bad_formulas_fail_cleanly(formula):
    with pytest.raises(EvaluationError):
        evaluate(formula, {})


CORPUS = __import__("pathlib").Path(__file__).resolve().parents[2] / "shared" / "corpus" / "papers"


@pytest.mark.corpus
@pytest.mark.skipif(not CORPUS.is_dir(), reason="corpus ../shared/corpus/papers absent")
def test_every_deepseek_equation_evaluates_or_fails_cleanly():
    from papermath.latex import load_document

    doc = load_document(CORPUS / "deepseek-v3-2412.19437")
    evaluated = 0
    for equation in doc.equations:
        try:
            evaluate(equation.latex, {}, functions=frozenset(doc.operators))
            evaluated += 1
        except EvaluationError as error:
            assert error.message
    assert evaluated >= 15


def test_golden_numbers_output(capsys):
    assert main(["numbers", "--latex", r"\log\sum_i e^{z_i}", "--set", "z=[1000,1001]", "--width", "100"]) == 0
    assert capsys.readouterr().out == """\
formula   \\log {\\sum_{i} e^{z_{i}}}

values
symbol   value          how
───────────────────────────
z        [1000, 1001]   set

steps, inside out
#   sub-expression              value      note
────────────────────────────────────────────────────────────────────────────────────────────────────
1   \\log {\\sum_{i} e^{z_{i}}}   1001.313   log-sum-exp over i: max 1001 taken out, exponentials
                                           never exceed 1 [1000, 1001]

result: \\log {\\sum_{i} e^{z_{i}}} = 1001.313
"""


def test_dpo_agrees_with_guide_000_torch_function():
    torch = pytest.importorskip("torch")
    import torch.nn.functional as F

    def dpo_loss(pi_w, pi_l, ref_w, ref_l, beta=0.1):  # guide 000's four lines, verbatim
        margin = beta * ((pi_w - ref_w) - (pi_l - ref_l))
        return -F.logsigmoid(margin).mean()

    logs = np.random.default_rng(7).normal(-3.0, 2.0, size=(4, 16))
    values = {"beta": 0.1, r"\pi_\theta(y_w\mid x)": np.exp(logs[0]), r"\pi_\theta(y_l\mid x)": np.exp(logs[1]),
              r"\pi_{\mathrm{ref}}(y_w\mid x)": np.exp(logs[2]), r"\pi_{\mathrm{ref}}(y_l\mid x)": np.exp(logs[3])}
    expected = dpo_loss(*(torch.tensor(row) for row in logs)).item()
    np.testing.assert_allclose(evaluate(DPO, values).value, expected, rtol=1e-10)


def test_a_part_of_a_paper_equation_is_evaluated_in_its_context(capsys):
    """`SOURCE --eq N --latex PART`: some rows or a bracket of equation N, with N's context (a gold record of
    the authors' numbers names the bracket of a statement this way); a formula not part of N is an error."""
    paper = "examples/attention-note"
    assert main(["numbers", paper, "--eq", "4", "--latex", r"\alpha  \sum_{i=1}^{N} f_i P_i", "--set", "alpha=0.5",
                 "--set", "f_i=[1,2]", "--set", "P_i=[3,4]", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["equation"].startswith("eq:4 (4) part") and out["value"] == pytest.approx(0.5 * (1 * 3 + 2 * 4))
    assert main(["numbers", paper, "--eq", "4", "--latex", r"\alpha + 1"]) == 2
    assert "is not a part of eq:4 (4)" in capsys.readouterr().err
    assert main(["numbers", "--eq", "4", "--latex", r"\alpha"]) == 2
