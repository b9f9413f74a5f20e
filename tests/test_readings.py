"""The guides' worked readings: every data file loads, every hand-worked number comes out of the reading's
code, the headline numbers of the guides are there, the equations agree with the evaluator, the quotes stand
where the data says, and the commands render them."""
from __future__ import annotations

import json
import math
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

from papermath import worked
from papermath.analysis.reading import KINDS, ROLES
from papermath.cli import main
from papermath.errors import PapermathError, UsageError
from papermath.readings import (_parse, evaluate_check, load_readings, printed_test, reading_json, run_example, verify,
                                worked_reading)
from papermath.render.worked import render_markdown, render_text

SHARED = Path(__file__).resolve().parents[2] / "shared"
QUOTE_FILES = {"guide 000": SHARED / "seeds" / "000_e1df5d2e30f6bbca.txt",
               "guide 002": SHARED / "seeds" / "002_580031ffd6dcaa71.txt",
               "DeepSeek-V3 main.tex": SHARED / "corpus" / "papers" / "deepseek-v3-2412.19437" / "main.tex"}

READINGS = load_readings()
EXAMPLES = [(r.name, e.name) for r in READINGS for e in r.examples]
CHECKS = [(r.name, i) for r in READINGS for i in range(len(r.evaluator))]
QUOTES = [(r.name, s.latex) for r in READINGS for s in r.symbols if s.quote is not None]

# The list of worked readings: every one must be there.
REQUIRED = {"attention", "softmax-logsumexp", "lm-chain-rule-nll", "cross-entropy", "kl-divergence", "dpo",
            "grpo-advantages", "grpo-vs-dapo-averaging", "pass-at-k", "log-mean-vs-mean-log",
            "gradient-descent-step", "conditional-probability", "accuracy-indicators", "binomial-coefficient",
            "uniform-density", "moe-balance-loss"}

# The guides' headline numbers, written here independently of the data files: (reading, example, output, value,
# tolerance). A data file that drifted from the guide fails here even if its own expected values moved with it.
GUIDE_NUMBERS = [
    ("attention", "guide 000: one query, three keys", "out", [[6.017, 3.983]], 1e-3),
    ("attention", "guide 000: one query, three keys", "weights", [[0.401, 0.198, 0.401]], 1e-3),
    ("attention", "guide 000 extreme: Q times ten", "weights", [[0.4998, 0.0004, 0.4998]], 1e-4),
    ("attention", "guide 002: two keys with scaled scores (0, log 3)", "out", [[0.5, 3.0]], 1e-9),
    ("softmax-logsumexp", "guide 002: z = (1000, 1001)", "lse", 1001.313, 1e-3),
    ("lm-chain-rule-nll", "guide 002: three tokens with probabilities 0.5, 0.2, 0.1", "p", 0.01, 1e-12),
    ("cross-entropy", "guide 002: q = (0.5, 0.5) against p = (0.9, 0.1)", "entropy", 0.325, 1e-3),
    ("cross-entropy", "guide 002: q = (0.5, 0.5) against p = (0.9, 0.1)", "cross_entropy", 0.693, 1e-3),
    ("kl-divergence", "guide 002: p = (0.9, 0.1), q = (0.5, 0.5)", "forward", 0.37, 5e-3),
    ("kl-divergence", "guide 002: p = (0.5, 0.5), q = (1, 0)", "forward", math.inf, 0),
    ("kl-divergence", "guide 002: p = (0.5, 0.5), q = (1, 0)", "reverse", math.log(2), 1e-12),
    ("grpo-advantages", "one correct answer out of four; a value model's predictions", "grpo_n_minus_1",
     [1.5, -0.5, -0.5, -0.5], 1e-12),
    ("grpo-vs-dapo-averaging", "a 2-token answer and an 8-token answer", "token_weight", 0.1, 1e-12),
    ("grpo-vs-dapo-averaging", "a 2-token answer and an 8-token answer", "answer_weights", [0.25, 0.0625], 1e-12),
    ("pass-at-k", "n = 5, c = 2, k = 2", "estimate", 0.7, 1e-12),
    ("log-mean-vs-mean-log", "guide 002: probabilities 0.9 and 0.1", "loss_mean_log", 1.20, 5e-3),
    ("log-mean-vs-mean-log", "guide 002: probabilities 0.9 and 0.1", "loss_log_mean", 0.69, 5e-3),
    ("gradient-descent-step", "guide 002: θ = (2, 1), η = 0.1", "theta_new", [1.6, 0.4], 1e-12),
    ("gradient-descent-step", "guide 002: θ = (2, 1), η = 0.1", "loss_before", 7.0, 1e-12),
    ("gradient-descent-step", "guide 002: θ = (2, 1), η = 0.1", "loss_after", 3.04, 1e-12),
    ("conditional-probability", "guide 002: 100 responses, 60 correct, 50 valid JSON, 40 both", "a_given_b", 0.8,
     1e-12),
    ("conditional-probability", "guide 002: 100 responses, 60 correct, 50 valid JSON, 40 both", "p_both", 0.4, 1e-12),
    ("conditional-probability", "guide 002: 100 responses, 60 correct, 50 valid JSON, 40 both", "p_a_times_p_b", 0.3,
     1e-12),
    ("accuracy-indicators", "guide 002: (cat, dog, dog) against (cat, cat, dog)", "accuracy", 2 / 3, 1e-12),
    ("binomial-coefficient", "guide 002: five items have ten distinct pairs", "comb", 10, 0),
    ("uniform-density", "guide 002: the interval from 0.1 to 0.2", "density", 2.0, 1e-12),
    ("uniform-density", "guide 002: the interval from 0.1 to 0.2", "log_density", math.log(2), 1e-12),
    ("moe-balance-loss", "perfectly balanced routing: Σ f_i P_i = 1", "loss", 1.0, 1e-12),
]


def test_every_required_reading_is_there_and_well_formed():
    names = {r.name for r in READINGS}
    assert REQUIRED <= names, REQUIRED - names
    for reading in READINGS:
        assert reading.kind in KINDS and reading.symbols and reading.examples, reading.name
        assert all(s.role in ROLES for s in reading.symbols)
        assert reading.source.guide in ("guide 000", "guide 002")
        assert "def " + reading.function in reading.code
        assert all(example.source in ("guide 000", "guide 002", "papermath") for example in reading.examples)
    assert load_readings() is READINGS  # cached


def test_readings_cite_arxiv_ids_and_versions_only_where_known():
    by_name = {r.name: r.source for r in READINGS}
    assert (by_name["attention"].arxiv, by_name["attention"].equation) == ("1706.03762", "1")
    assert (by_name["moe-balance-loss"].arxiv, by_name["moe-balance-loss"].equation,
            by_name["moe-balance-loss"].paper_section) == ("2412.19437", "17–20", "2.1.2")
    assert by_name["grpo-advantages"].paper_section == "4.1.1" and "v1 §2.2.1" in by_name["grpo-advantages"].note
    assert by_name["pass-at-k"].arxiv == "2107.03374" and by_name["pass-at-k"].equation == "1"
    assert all(source.version is None for source in by_name.values())  # the seed text names none for these papers


@pytest.mark.parametrize("name, example", EXAMPLES, ids=[f"{n}: {e}" for n, e in EXAMPLES])
def test_every_hand_worked_number_comes_out(name, example):
    reading = worked_reading(name)
    result = run_example(reading, next(e for e in reading.examples if e.name == example))
    assert result.ok, [(o.name, o.expected, o.actual) for o in result.outputs if not o.ok]


@pytest.mark.parametrize("name, example, output, value, tol", GUIDE_NUMBERS,
                         ids=[f"{n}: {o}" for n, _, o, _, _ in GUIDE_NUMBERS])
def test_the_guides_numbers(name, example, output, value, tol):
    reading = worked_reading(name)
    ex = next(e for e in reading.examples if e.name == example)
    got = {o.name: o.actual for o in run_example(reading, ex).outputs}[output]
    got = np.asarray([math.inf if g == "inf" else g for g in np.ravel(got)] if isinstance(got, list) or got == "inf"
                     else got, dtype=float).reshape(np.shape(value))
    np.testing.assert_allclose(got, value, rtol=0, atol=tol)


@pytest.mark.parametrize("name, index", CHECKS, ids=[f"{n}[{i}]" for n, i in CHECKS])
def test_equations_agree_with_the_evaluator(name, index):
    check = worked_reading(name).evaluator[index]
    try:
        value, ok = evaluate_check(check)
    except ImportError as error:
        pytest.skip(f"papermath.evaluate is not importable in this checkout ({error}); "
                    "the evaluator stage has not landed")
    assert ok, (check.latex, value, check.expected)


@pytest.mark.parametrize("name, symbol", QUOTES, ids=[f"{n}: {s}" for n, s in QUOTES])
def test_every_quote_stands_where_the_reading_says(name, symbol):
    quote = next(s.quote for s in worked_reading(name).symbols if s.latex == symbol and s.quote)
    path = QUOTE_FILES[quote.file]
    if not path.exists():
        pytest.skip(f"../shared is absent ({path} not found): the guides and corpus exist in CI and dev sessions only")
    lines = path.read_text(encoding="utf-8").splitlines()
    assert quote.text in lines[quote.line - 1], (quote.file, quote.line)


@pytest.mark.parametrize("reading", READINGS, ids=[r.name for r in READINGS])
def test_the_printed_test_passes(reading):
    # The test `papermath reading NAME` prints is generated from our own data file; running it checks that what
    # a reader copies really passes.
    namespace: dict = {}
    exec(compile(printed_test(reading), f"<test of {reading.name}>", "exec"), namespace)  # noqa: S102 - our code
    namespace[f"test_{reading.function}"]()


# ---- independent re-derivations of the same quantities ----

@pytest.mark.parametrize("n", range(1, 13))
def test_pass_at_k_equals_the_exact_binomial_ratio(n):
    for c in range(n + 1):
        for k in range(1, n + 1):
            exact = 1 - Fraction(math.comb(n - c, k), math.comb(n, k))
            assert worked.pass_at_k(n, c, k) == pytest.approx(float(exact), abs=1e-12), (n, c, k)


def test_cross_entropy_is_entropy_plus_forward_kl():
    rng = np.random.default_rng(0)
    for _ in range(20):
        p, q = rng.dirichlet(np.ones(4)), rng.dirichlet(np.ones(4))
        cross, ent, gap = worked.cross_entropy_entropy(p, q)
        forward, reverse = worked.kl_forward_reverse(p, q)
        assert cross == pytest.approx(ent + forward) and gap == pytest.approx(forward)
        assert forward >= 0 and reverse >= 0


def test_causal_mask_as_the_guide_checks_it():
    x = np.random.default_rng(0).normal(size=(3, 4))
    out, w = worked.attention(x, x, x, allowed=np.tril(np.ones((3, 3), dtype=bool)))
    assert out.shape == (3, 4)
    np.testing.assert_allclose(w.sum(axis=1), 1.0)
    assert np.all(w[np.triu_indices(3, k=1)] == 0)
    with pytest.raises(ValueError, match="at least one allowed key"):
        worked.attention(x, x, x, allowed=np.zeros((3, 3), dtype=bool))


def test_gradient_step_agrees_with_a_numerical_gradient():
    theta = np.array([2.0, 1.0])
    grad, _, loss, _ = worked.gradient_descent_step(theta, 0.1)
    eps = 1e-6
    numeric = [(worked.gradient_descent_step(theta + eps * e, 0.1)[2] - loss) / eps for e in np.eye(2)]
    np.testing.assert_allclose(grad, numeric, atol=1e-4)


def test_logsumexp_matches_scipy_and_does_not_overflow():
    from scipy.special import logsumexp, softmax
    z = np.array([1000.0, 1001.0, 990.0])
    weights, lse = worked.softmax_logsumexp(z)
    assert lse == pytest.approx(logsumexp(z)) and np.isfinite(lse)
    np.testing.assert_allclose(weights, softmax(z))


def test_dpo_loss_matches_the_guides_torch_form():
    torch = pytest.importorskip("torch", reason="torch is an optional extra (pip install torch==2.13.0, CPU)")
    import torch.nn.functional as F
    pi_w, pi_l, ref_w, ref_l = (np.array(v) for v in ([-1.0, -3.0], [-2.0, -1.0], [-1.5, -2.0], [-1.5, -2.5]))
    margin = 0.1 * ((torch.tensor(pi_w) - torch.tensor(ref_w)) - (torch.tensor(pi_l) - torch.tensor(ref_l)))
    expected = -F.logsigmoid(margin).mean().item()
    assert worked.dpo_loss(pi_w, pi_l, ref_w, ref_l, beta=0.1)[1] == pytest.approx(expected)


def test_grpo_advantages_np_std_vs_torch_std():
    torch = pytest.importorskip("torch", reason="torch is an optional extra (pip install torch==2.13.0, CPU)")
    r = np.array([1.0, 0.0, 0.0, 0.0])
    grpo_n, grpo_n_minus_1, _ = worked.grpo_ppo_advantages(r, np.zeros(4))
    t = torch.tensor(r)
    np.testing.assert_allclose(grpo_n_minus_1, ((t - t.mean()) / t.std()).numpy())
    np.testing.assert_allclose(grpo_n, (r - r.mean()) / np.std(r))


# ---- loading errors ----

@pytest.mark.parametrize("text, message", [
    ("{", "papermath/data/readings/bad.json:1:2"),
    ("{}", "malformed reading"),
])
def test_malformed_data_files_fail_cleanly(text, message):
    with pytest.raises(PapermathError, match=message):
        _parse("bad.json", text)


def test_a_data_file_with_an_unknown_role_or_function_is_rejected():
    data = Path(__file__).resolve().parents[1] / "papermath" / "data" / "readings"
    raw = json.loads((data / "binomial-coefficient.json").read_text(encoding="utf-8"))
    raw["symbols"][0]["role"] = "vibes"
    raw["code"]["function"] = "no_such_function"
    with pytest.raises(PapermathError) as error:
        _parse("binomial-coefficient.json", json.dumps(raw))
    assert "role 'vibes'" in str(error.value) and "no function 'no_such_function'" in str(error.value)


def test_unknown_reading_names_the_ones_there_are():
    with pytest.raises(UsageError, match="did you mean kl-divergence"):
        worked_reading("kl")


# ---- rendering and the commands ----

def test_text_view_of_a_reading():
    reading = worked_reading("kl-divergence")
    text = render_text(reading, width=100)
    assert text.startswith("kl-divergence — Forward and reverse KL divergence\n"
                           "  source: guide 002, \"Notation reference: Cross-entropy and KL divergence\"\n")
    assert "    p      [K]       input data  the target;" in text
    assert "    ✓ guide 002: p = (0.5, 0.5), q = (1, 0) [guide 002]" in text
    assert "        out: forward = inf (expected inf ± 0.001)" in text
    assert "  code (papermath.worked.kl_forward_reverse):\n    def kl_forward_reverse(p, q):" in text


def test_markdown_view_is_laid_out_like_the_guides_tables():
    md = render_markdown(worked_reading("attention"))
    assert "| symbol | shape | meaning | role | quote |" in md
    assert "| $Q$ | [n, d_k] | queries, one row per query | input data |" in md
    assert "| guide 000: one query, three keys (guide 000) |" in md and "| out | [[6.017, 3.983]] |" in md
    assert "```python\ndef attention(q, k, v, allowed=None):" in md


def test_json_view_has_the_code_test_and_results():
    data = reading_json(worked_reading("pass-at-k"))
    assert data["name"] == "pass-at-k" and data["code"]["function"] == "papermath.worked.pass_at_k"
    assert "def pass_at_k" in data["code"]["source"] and "def test_pass_at_k" in data["code"]["test"]
    assert all(r["ok"] for r in data["results"]) and len(data["results"]) == 4
    assert data["symbols"][2]["quote"]["file"] == "guide 002"


def test_cli_readings_and_reading(capsys):
    assert main(["readings"]) == 0
    out = capsys.readouterr().out
    assert f"{len(READINGS)} readings; numbers re-run: {len(READINGS)} ok" in out
    assert all(name in out for name in REQUIRED)
    assert main(["readings", "--json"]) == 0
    listed = json.loads(capsys.readouterr().out)
    assert {r["name"] for r in listed} >= REQUIRED and all(r["verified"] for r in listed)
    assert main(["reading", "softmax-logsumexp"]) == 0
    assert "out: lse = 1001.31 (expected 1001.31 ± 0.001)" in capsys.readouterr().out
    assert main(["reading", "dpo", "--format", "md"]) == 0
    assert capsys.readouterr().out.startswith("# Direct Preference Optimization loss\n")
    assert main(["reading", "moe-balance-loss", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["source"]["equation"] == "17–20"
    assert main(["reading", "nope"]) == 2
    assert "no worked reading 'nope'" in capsys.readouterr().err
    assert main(["reading"]) == 2
    assert "which one?" in capsys.readouterr().out


def test_every_reading_renders_in_every_format():
    for reading in READINGS:
        results = verify(reading)
        assert render_text(reading, results).count("✓") == len(reading.examples)
        assert render_markdown(reading, results).startswith(f"# {reading.title}")
        json.dumps(reading_json(reading, results))


def test_readings_speak_the_read_contract_and_render_through_the_read_renderer():
    render = pytest.importorskip("papermath.render.reading", reason="the read renderer is not in this checkout")
    reading = worked_reading("attention")
    eq = reading.equation_reading()
    assert eq.id == "reading:attention" and eq.number == "1" and eq.kind == "computation"
    assert [s.latex for s in eq.symbols][:3] == ["Q", "K", "V"]
    assert eq.symbols[0].definition.quote == "Queries are “packed together into a matrix $Q$”"
    assert eq.symbols[0].definition.line == 17 and eq.symbols[0].conventional == "queries, one row per query"
    text = "\n".join(render.equation_text(eq, 100))
    assert "kind: computation" in text and "softmax over each row: the key axis" in text
    assert '"Queries are “packed together into a matrix $Q$”"' in text
    for worked_one in READINGS:  # every reading converts
        assert worked_one.equation_reading().symbols


def test_cli_reading_in_the_read_layout(capsys):
    pytest.importorskip("papermath.render.reading", reason="the read renderer is not in this checkout")
    assert main(["reading", "dpo", "--format", "read"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("reading:dpo (unnumbered)")
    assert "kind: objective — a loss minimized over θ" in out
    assert "E over x, y_w, y_l ~ \\mathcal{D}" in out
