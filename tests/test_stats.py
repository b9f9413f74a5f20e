"""`compare` and `passk`: guide 002's error-bar calculation and the Codex pass@k estimator."""
from __future__ import annotations

import json
import math
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats as scipy_stats

from papermath.cli import main
from papermath.errors import UsageError
from papermath.stats import (VERDICT_NEGATIVE, VERDICT_POSITIVE, VERDICT_UNDECIDED, Score, compare_scores,
                             parse_runs, parse_score, pass_at_k, pass_at_k_table)

# ---- guide 002, "Densities, variance and error bars": 82.3 ± 0.4 vs 81.5 ± 0.4, four runs each ----


def test_sd_reading_excludes_zero_with_guide_figures():
    result = compare_scores("82.3±0.4", "81.5±0.4", runs=4, spread="sd")
    assert result.difference == pytest.approx(0.8)
    assert result.standard_error == pytest.approx(math.sqrt(0.4**2 / 4 + 0.4**2 / 4))  # 0.283
    assert result.normal.multiplier == pytest.approx(1.96, abs=1e-3)
    assert result.student_t.df == 6
    assert result.student_t.multiplier == pytest.approx(2.447, abs=1e-3)
    assert (result.student_t.low, result.student_t.high) == pytest.approx((0.108, 1.492), abs=1e-3)
    assert result.student_t.excludes_zero
    assert result.verdict == VERDICT_POSITIVE


def test_se_reading_contains_zero_with_guide_figures():
    result = compare_scores("82.3±0.4", "81.5±0.4", runs=4, spread="se")
    assert result.standard_error == pytest.approx(0.566, abs=1e-3)  # nothing divided by √4
    assert result.student_t.multiplier == pytest.approx(2.447, abs=1e-3)
    assert (result.student_t.low, result.student_t.high) == pytest.approx((-0.584, 2.184), abs=1e-3)
    assert not result.student_t.excludes_zero
    assert result.verdict == VERDICT_UNDECIDED
    # The normal approximation also contains zero here, but is narrower than the t interval.
    assert result.normal.half_width < result.student_t.half_width


def test_welch_equals_pooled_when_variances_and_runs_are_equal():
    result = compare_scores("82.3±0.4", "81.5±0.4", runs=4, spread="sd", welch=True)
    assert result.welch is not None
    assert result.welch.df == pytest.approx(6.0)
    assert (result.welch.low, result.welch.high) == pytest.approx((result.student_t.low, result.student_t.high))
    assert result.decisive == "welch"


def test_welch_against_scipy_on_raw_runs():
    # Two run sets with different spreads and sizes: Welch from summaries matches scipy on the raw data.
    a = [80.1, 82.0, 83.5, 81.9, 84.2]
    b = [79.0, 79.4, 79.9]
    mean_a, mean_b = sum(a) / len(a), sum(b) / len(b)
    sd_a, sd_b = scipy_stats.tstd(a), scipy_stats.tstd(b)
    result = compare_scores(Score(mean_a, float(sd_a), "A"), Score(mean_b, float(sd_b), "B"), runs=(5, 3),
                            spread="sd", welch=True)
    reference = scipy_stats.ttest_ind(a, b, equal_var=False).confidence_interval(0.95)
    assert (result.welch.low, result.welch.high) == pytest.approx((reference.low, reference.high), rel=1e-9)
    pooled = scipy_stats.ttest_ind(a, b, equal_var=True).confidence_interval(0.95)
    assert (result.student_t.low, result.student_t.high) == pytest.approx((pooled.low, pooled.high), rel=1e-9)


def test_paired_interval_matches_scipy_on_differences():
    a = [82.0, 82.5, 82.1, 82.6]
    b = [81.4, 81.6, 81.3, 81.7]
    diffs = [x - y for x, y in zip(a, b)]
    result = compare_scores(Score(sum(a) / 4, 0.4, "A"), Score(sum(b) / 4, 0.4, "B"), runs=4, spread="sd",
                            paired=True, pair_sd=float(scipy_stats.tstd(diffs)))
    reference = scipy_stats.ttest_rel(a, b).confidence_interval(0.95)
    assert result.paired.df == 3
    assert (result.paired.low, result.paired.high) == pytest.approx((reference.low, reference.high), rel=1e-9)
    assert result.verdict == VERDICT_POSITIVE


def test_negative_difference_verdict():
    assert compare_scores("70.0±0.2", "75.0±0.2", runs=5, spread="sd").verdict == VERDICT_NEGATIVE


@pytest.mark.parametrize("text, mean, spread", [
    ("82.3±0.4", 82.3, 0.4),
    ("82.3 ± 0.4", 82.3, 0.4),
    ("82.3+-0.4", 82.3, 0.4),
    ("82.3 +/- 0.4", 82.3, 0.4),
    (r"82.3 \pm 0.4", 82.3, 0.4),
    (r"-1.5\pm.25", -1.5, 0.25),
])
def test_parse_score_forms(text, mean, spread):
    score = parse_score(text)
    assert (score.mean, score.spread) == (mean, spread)


@pytest.mark.parametrize("text", ["82.3", "82.3±", "±0.4", "82.3±-0.4", "a±b", r"82.3\pmx0.4", "82.3±0.4±0.1"])
def test_parse_score_rejects(text):
    with pytest.raises(UsageError):
        parse_score(text)


@pytest.mark.parametrize("text, expected", [("4", (4, 4)), ("4,5", (4, 5)), (" 3 , 10 ", (3, 10))])
def test_parse_runs(text, expected):
    assert parse_runs(text) == expected


@pytest.mark.parametrize("text", ["1", "4,1", "0", "4,5,6", "four", "-4", ""])
def test_parse_runs_rejects(text):
    with pytest.raises(UsageError):
        parse_runs(text)


def test_paired_needs_pair_sd_and_equal_runs():
    with pytest.raises(UsageError, match="--pair-sd"):
        compare_scores("82.3±0.4", "81.5±0.4", runs=4, spread="sd", paired=True)
    with pytest.raises(UsageError, match="same number of runs"):
        compare_scores("82.3±0.4", "81.5±0.4", runs=(4, 5), spread="sd", paired=True, pair_sd=0.3)


def test_bad_spread_reading():
    with pytest.raises(UsageError, match="--spread"):
        compare_scores("82.3±0.4", "81.5±0.4", runs=4, spread="ci")


# ---- pass@k: Chen et al. (2021), eq. 1 ----


def exact_pass_at_k(n: int, c: int, k: int) -> Fraction:
    return 1 - Fraction(math.comb(n - c, k), math.comb(n, k))


GRID = [(n, c, k) for n in (1, 2, 5, 10, 20, 50, 200) for c in sorted({0, 1, 2, n // 3, n // 2, n - 1, n})
        for k in sorted({1, 2, 5, 10, 100, n}) if 0 <= c <= n and k <= n]


@pytest.mark.parametrize("n, c, k", GRID)
def test_pass_at_k_matches_exact_binomials(n, c, k):
    assert pass_at_k(n, c, k) == pytest.approx(float(exact_pass_at_k(n, c, k)), rel=1e-12, abs=1e-15)


def test_pass_at_k_edge_cases():
    assert pass_at_k(10, 10, 3) == 1.0  # c = n
    assert pass_at_k(10, 8, 3) == 1.0  # n − c = 2 < k = 3
    assert pass_at_k(10, 0, 3) == 0.0
    assert pass_at_k(200, 12, 1) == pytest.approx(12 / 200)  # pass@1 is c/n


def test_pass_at_k_large_n_does_not_overflow():
    # C(2000, 1000) has ~600 digits: the product form stays a float without forming it.
    assert pass_at_k(2000, 3, 1000) == pytest.approx(float(exact_pass_at_k(2000, 3, 1000)), rel=1e-10)


@pytest.mark.parametrize("n, c, k", [(10, 2, 11), (10, 11, 1), (10, -1, 1), (0, 0, 1), (10, 2, 0)])
def test_pass_at_k_rejects(n, c, k):
    with pytest.raises(UsageError):
        pass_at_k(n, c, k)


def test_pass_at_k_table_values():
    rows = pass_at_k_table(200, 12, (1, 10, 100))
    assert [r.k for r in rows] == [1, 10, 100]
    assert [r.value for r in rows] == pytest.approx([float(exact_pass_at_k(200, 12, k)) for k in (1, 10, 100)])


# ---- through the CLI ----


def test_cli_compare_sd_and_se(capsys):
    assert main(["compare", "82.3±0.4", "81.5±0.4", "--runs", "4", "--spread", "sd"]) == 0
    out = capsys.readouterr().out
    assert "t(0.975, 6) = 2.447" in out
    assert "[0.108, 1.492]" in out
    assert "verdict: supports a positive difference" in out
    assert "equal population variances" in out
    assert main(["compare", "82.3±0.4", "81.5±0.4", "--runs", "4", "--spread", "se"]) == 0
    out = capsys.readouterr().out
    assert "SE = sqrt(0.4² + 0.4²) = 0.566" in out
    assert "verdict: does not establish which is higher" in out


def test_cli_compare_json(capsys):
    assert main(["compare", "82.3 +- 0.4", r"81.5 \pm 0.4", "--runs", "4", "--spread", "se", "--welch",
                 "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["verdict"] == VERDICT_UNDECIDED
    assert data["decisive"] == "welch"
    assert data["student_t"]["df"] == 6
    assert data["student_t"]["excludes_zero"] is False
    assert data["welch"]["df"] == pytest.approx(6.0)
    assert data["standard_error"] == pytest.approx(0.5657, abs=1e-4)


def test_cli_compare_errors_exit_2(capsys):
    assert main(["compare", "82.3", "81.5±0.4", "--runs", "4", "--spread", "sd"]) == 2
    assert "mean ± spread" in capsys.readouterr().err
    assert main(["compare", "82.3±0.4", "81.5±0.4", "--runs", "4", "--spread", "sd", "--paired"]) == 2
    assert "--pair-sd" in capsys.readouterr().err


def test_cli_passk(capsys):
    assert main(["passk", "--n", "200", "--c", "12", "--k", "1,10,100"]) == 0
    out = capsys.readouterr().out.splitlines()
    table = {int(line.split()[0]): line.split()[1] for line in out if line.strip()[:1].isdigit()}
    assert table == {1: "0.0600", 10: f"{float(exact_pass_at_k(200, 12, 10)):.4f}",
                     100: f"{float(exact_pass_at_k(200, 12, 100)):.4f}"}


def test_cli_passk_json_and_error(capsys):
    assert main(["passk", "--n", "5", "--c", "5", "--k", "1,5", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert [row["value"] for row in data["pass_at_k"]] == [1.0, 1.0]
    assert main(["passk", "--n", "5", "--c", "1", "--k", "6"]) == 2
    assert "k must be between 1 and n = 5" in capsys.readouterr().err


GOLDEN_SD = """\
A = 82.3 ± 0.4, B = 81.5 ± 0.4, 4 runs each; ± read as the standard deviation across runs

  difference     A − B = 82.3 − 81.5 = 0.8
  normal 95%     SE = sqrt(0.4²/4 + 0.4²/4) = 0.283
                 z(0.975) = 1.960: 0.8 ± 1.960 × 0.283 = [0.246, 1.354]  excludes 0
  Student t 95%  SE = sqrt(0.4²/4 + 0.4²/4) = 0.283; df = 4 + 4 − 2 = 6
                 t(0.975, 6) = 2.447: 0.8 ± 2.447 × 0.283 = [0.108, 1.492]  excludes 0

verdict: supports a positive difference (the Student t 95% interval excludes zero)

assumptions:
  - the runs are independent
  - run scores are approximately normal
  - the two models have equal population variances (use --welch otherwise)
  - the ± figure is the standard deviation across runs — check the table's caption
"""


def test_cli_compare_golden_output(capsys):
    assert main(["compare", "82.3±0.4", "81.5±0.4", "--runs", "4", "--spread", "sd"]) == 0
    assert capsys.readouterr().out == GOLDEN_SD


@settings(max_examples=300, deadline=None)
@given(st.integers(1, 300).flatmap(lambda n: st.tuples(st.just(n), st.integers(0, n), st.integers(1, n))))
def test_pass_at_k_property_exact_and_monotone(nck):
    n, c, k = nck
    value = pass_at_k(n, c, k)
    assert 0.0 <= value <= 1.0
    assert value == pytest.approx(float(exact_pass_at_k(n, c, k)), rel=1e-11, abs=1e-14)
    if k < n:  # more attempts never lower the chance of a pass
        assert pass_at_k(n, c, k + 1) >= value - 1e-12
    if c < n:  # more correct samples never lower it either
        assert pass_at_k(n, c + 1, k) >= value - 1e-12
