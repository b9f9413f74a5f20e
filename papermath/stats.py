"""Statistics for results claims: comparing two `mean ± spread` entries, and pass@k.

Guide 002 ("Densities, variance and error bars") compares 82.3 ± 0.4 with 81.5 ± 0.4 over four runs
per model: the verdict depends on whether 0.4 is a standard deviation across runs or already a standard
error. `compare_scores` does that calculation (normal, Student-t, Welch and paired intervals) and
`pass_at_k` is the Codex paper's unbiased estimator (Chen et al. 2021, eq. 1) in its stable product form.
Quantiles come from SciPy, never from hand-written tables.
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import cast

import numpy as np
from scipy import stats as _scipy_stats

from .errors import UsageError

CONFIDENCE = 0.95
SPREAD_READINGS = ("sd", "se")
VERDICT_POSITIVE = "supports a positive difference"
VERDICT_NEGATIVE = "supports a negative difference"
VERDICT_UNDECIDED = "does not establish which is higher"

# `±`, `+-`, `+/-` and LaTeX's `\pm` all separate a mean from its spread.
_PLUS_MINUS = re.compile(r"\s*(?:±|\+/-|\+-|\\pm(?![A-Za-z]))\s*")
_NUMBER = re.compile(r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?")


@dataclass(frozen=True)
class Score:
    """One table entry such as `82.3 ± 0.4`."""

    mean: float
    """The reported mean score."""
    spread: float
    """The number after ±: a standard deviation across runs or a standard error, as the caption says."""
    text: str
    """The entry as the user wrote it."""


@dataclass(frozen=True)
class Interval:
    """A 95% interval for the difference of the two means."""

    method: str
    """"normal", "student-t", "welch" or "paired-t"."""
    standard_error: float
    """The standard error of the difference this interval uses."""
    multiplier: float
    """The quantile the standard error is multiplied by (1.96 for the normal interval)."""
    df: float | None
    """Degrees of freedom of the t distribution; None for the normal interval."""
    low: float
    """Lower end."""
    high: float
    """Upper end."""
    formula: str
    """How the standard error and degrees of freedom were computed, in words and numbers."""

    @property
    def half_width(self) -> float:
        return self.multiplier * self.standard_error

    @property
    def excludes_zero(self) -> bool:
        return self.low > 0 or self.high < 0


@dataclass(frozen=True)
class Comparison:
    """The result of comparing two `mean ± spread` entries (guide 002's calculation)."""

    first: Score
    """The first entry (A)."""
    second: Score
    """The second entry (B)."""
    runs: tuple[int, int]
    """Number of runs behind each mean."""
    spread: str
    """How the ± figure is read: "sd" (standard deviation across runs) or "se" (standard error of the mean)."""
    difference: float
    """A − B."""
    standard_error: float
    """Standard error of the difference, sqrt(se_A² + se_B²) (or of the mean paired difference)."""
    normal: Interval
    """The normal approximation (1.96), which treats the estimated spread as known."""
    student_t: Interval
    """The equal-variance (pooled) Student-t interval with n_A + n_B − 2 degrees of freedom."""
    welch: Interval | None
    """The Welch interval (Welch–Satterthwaite degrees of freedom), when asked for."""
    paired: Interval | None
    """The paired-t interval on within-pair differences, when asked for."""
    decisive: str
    """The method of the interval the verdict rests on."""
    verdict: str
    """One of VERDICT_POSITIVE, VERDICT_NEGATIVE, VERDICT_UNDECIDED."""
    assumptions: tuple[str, ...]
    """The assumptions under which the verdict holds."""

    @property
    def decisive_interval(self) -> Interval:
        # the verdict's interval is always computed (welch/paired are None only when they did not decide)
        return cast(Interval, {"normal": self.normal, "student-t": self.student_t,
                               "welch": self.welch, "paired-t": self.paired}[self.decisive])


@dataclass(frozen=True)
class PassAtK:
    """pass@k for one k: the chance that at least one of k samples drawn from n passes, c of n passing."""

    n: int
    """Samples generated per problem."""
    c: int
    """How many of them passed."""
    k: int
    """Samples the metric allows."""
    value: float
    """1 − C(n−c, k) / C(n, k)."""


def parse_score(text: str) -> Score:
    """Read `82.3±0.4`, `82.3 +- 0.4` or `82.3 \\pm 0.4`."""
    parts = _PLUS_MINUS.split(text.strip())
    if len(parts) != 2 or not all(_NUMBER.fullmatch(p.strip()) for p in parts):
        raise UsageError(f"cannot read {text!r} as 'mean ± spread' (e.g. '82.3±0.4', '82.3+-0.4', "
                         f"'82.3 \\pm 0.4')")
    mean, spread = (float(p) for p in parts)
    if spread < 0 or not math.isfinite(spread) or not math.isfinite(mean):
        raise UsageError(f"in {text!r}: the spread after ± must be a finite number ≥ 0")
    return Score(mean, spread, text.strip())


def parse_runs(text: str) -> tuple[int, int]:
    """`4` means four runs for each model; `4,5` four for the first and five for the second."""
    pieces = [p.strip() for p in str(text).split(",")]
    if len(pieces) not in (1, 2) or not all(p.isdigit() for p in pieces):
        raise UsageError(f"--runs takes one count or two separated by a comma (e.g. 4 or 4,5), not {text!r}")
    counts = [int(p) for p in pieces]
    if len(counts) == 1:
        counts *= 2
    if min(counts) < 2:
        raise UsageError("--runs: each model needs at least 2 runs to estimate a spread")
    return counts[0], counts[1]


def _verdict(interval: Interval) -> str:
    if interval.low > 0:
        return VERDICT_POSITIVE
    if interval.high < 0:
        return VERDICT_NEGATIVE
    return VERDICT_UNDECIDED


def _t_interval(method: str, difference: float, se: float, df: float, formula: str) -> Interval:
    t = float(_scipy_stats.t.ppf(0.5 + CONFIDENCE / 2, df))
    return Interval(method, se, t, df, difference - t * se, difference + t * se, formula)


def compare_scores(first: Score | str, second: Score | str, runs: int | tuple[int, int] | str = 4,
                   spread: str = "sd", *, welch: bool = False, paired: bool = False,
                   pair_sd: float | None = None) -> Comparison:
    """Compare two means reported as `mean ± spread` (guide 002, "Densities, variance and error bars").

    `spread="sd"` reads the ± figure as the standard deviation across runs (each mean's standard error is
    sd/√n); `spread="se"` reads it as each mean's standard error already. `pair_sd` is the standard
    deviation of the within-pair differences, required for `paired=True`.
    """
    a = parse_score(first) if isinstance(first, str) else first
    b = parse_score(second) if isinstance(second, str) else second
    if isinstance(runs, str):
        n_a, n_b = parse_runs(runs)
    elif isinstance(runs, int):
        n_a, n_b = parse_runs(str(runs))
    else:
        n_a, n_b = parse_runs(",".join(str(r) for r in runs))
    if spread not in SPREAD_READINGS:
        raise UsageError(f"--spread must be 'sd' (standard deviation across runs) or 'se' (standard error "
                         f"of each mean), not {spread!r}")
    # Rounded so that 82.3 − 81.5 prints as 0.8, not 0.7999999999999972.
    diff = round(a.mean - b.mean, 12)
    # Both readings reduce to each run set's standard deviation s and each mean's standard error s/√n.
    if spread == "sd":
        sd_a, sd_b = a.spread, b.spread
        se_a, se_b = sd_a / math.sqrt(n_a), sd_b / math.sqrt(n_b)
        se_words = f"sqrt({a.spread:g}²/{n_a} + {b.spread:g}²/{n_b})"
    else:
        se_a, se_b = a.spread, b.spread
        sd_a, sd_b = se_a * math.sqrt(n_a), se_b * math.sqrt(n_b)
        se_words = f"sqrt({a.spread:g}² + {b.spread:g}²)"
    se = math.hypot(se_a, se_b)
    z = float(_scipy_stats.norm.ppf(0.5 + CONFIDENCE / 2))
    normal = Interval("normal", se, z, None, diff - z * se, diff + z * se,
                      f"SE = {se_words} = {se:.3f}")

    df_pooled = n_a + n_b - 2
    pooled_var = ((n_a - 1) * sd_a**2 + (n_b - 1) * sd_b**2) / df_pooled
    se_pooled = math.sqrt(pooled_var * (1 / n_a + 1 / n_b))
    pooled_words = (f"SE = {se_words} = {se_pooled:.3f}" if math.isclose(se_pooled, se, rel_tol=1e-12)
                    else f"pooled SD = {math.sqrt(pooled_var):.3f}, SE = pooled SD × sqrt(1/{n_a} + 1/{n_b})"
                         f" = {se_pooled:.3f}")
    student = _t_interval("student-t", diff, se_pooled, df_pooled,
                          f"{pooled_words}; df = {n_a} + {n_b} − 2 = {df_pooled}")

    welch_interval = None
    if welch:
        v_a, v_b = se_a**2, se_b**2
        denominator = v_a**2 / (n_a - 1) + v_b**2 / (n_b - 1)
        # Both spreads zero: no uncertainty left; fall back to the pooled df rather than divide by zero.
        df_welch = (v_a + v_b) ** 2 / denominator if denominator > 0 else float(df_pooled)
        welch_interval = _t_interval("welch", diff, se, df_welch,
                                     f"SE = {se_words} = {se:.3f}; Welch–Satterthwaite df = "
                                     f"(se_A² + se_B²)² / (se_A⁴/{n_a - 1} + se_B⁴/{n_b - 1}) = {df_welch:.2f}")

    paired_interval = None
    if paired:
        if n_a != n_b:
            raise UsageError(f"--paired needs the same number of runs for both models (pairs), "
                             f"not {n_a} and {n_b}")
        if pair_sd is None:
            raise UsageError(
                "--paired needs --pair-sd: the standard deviation of the within-pair differences "
                "(score A − score B on the same task or seed). The two ± figures cannot give it: it depends "
                "on how strongly the paired scores move together, which a table of means does not report.")
        if pair_sd < 0 or not math.isfinite(pair_sd):
            raise UsageError("--pair-sd must be a finite number ≥ 0")
        se_pair = pair_sd / math.sqrt(n_a)
        paired_interval = _t_interval("paired-t", diff, se_pair, n_a - 1,
                                      f"SE = {pair_sd:g}/sqrt({n_a}) = {se_pair:.3f}; df = {n_a} − 1 = {n_a - 1}")

    decisive = "paired-t" if paired else "welch" if welch else "student-t"
    assumptions = [
        "the runs are independent" if not paired
        else "the pairs are independent (e.g. independently sampled tasks or seeds)",
        "run scores are approximately normal" if not paired
        else "the within-pair differences are approximately normal",
    ]
    if not paired:
        assumptions.append("the two models' unequal variances are allowed for (Welch)" if welch
                           else "the two models have equal population variances (use --welch otherwise)")
    figure = "standard deviation across runs" if spread == "sd" else "standard error of each mean"
    assumptions.append(f"the ± figure is the {figure} — check the table's caption")
    decisive_interval = cast(Interval, {"paired-t": paired_interval, "welch": welch_interval,
                                        "student-t": student}[decisive])
    return Comparison(a, b, (n_a, n_b), spread, diff, decisive_interval.standard_error if paired else se,
                      normal, student, welch_interval, paired_interval, decisive, _verdict(decisive_interval),
                      tuple(assumptions))


def pass_at_k(n: int, c: int, k: int) -> float:
    """The unbiased pass@k estimator 1 − C(n−c, k)/C(n, k), without forming huge binomials.

    Chen et al. (2021), eq. 1 and their numerically stable form `1 - prod(1 - k / arange(n-c+1, n+1))`.
    """
    for name, value in (("n", n), ("c", c), ("k", k)):
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
            raise UsageError(f"pass@k: {name} must be a whole number, not {value!r}")
    if n < 1:
        raise UsageError(f"pass@k: n (samples per problem) must be ≥ 1, not {n}")
    if not 0 <= c <= n:
        raise UsageError(f"pass@k: c (correct samples) must be between 0 and n = {n}, not {c}")
    if not 1 <= k <= n:
        raise UsageError(f"pass@k: k must be between 1 and n = {n}, not {k}: the estimator draws k of the "
                         f"n samples without replacement")
    if n - c < k:
        return 1.0  # every set of k samples contains a correct one
    return float(1.0 - np.prod(1.0 - k / np.arange(n - c + 1, n + 1, dtype=np.float64)))


def parse_ks(text: str) -> tuple[int, ...]:
    """`1,10,100` → (1, 10, 100)."""
    pieces = [p.strip() for p in str(text).split(",") if p.strip()]
    if not pieces or not all(p.isdigit() for p in pieces):
        raise UsageError(f"--k takes whole numbers separated by commas (e.g. 1,10,100), not {text!r}")
    return tuple(int(p) for p in pieces)


def pass_at_k_table(n: int, c: int, ks: tuple[int, ...] | list[int]) -> tuple[PassAtK, ...]:
    """pass@k for each k, validated together."""
    return tuple(PassAtK(n, c, k, pass_at_k(n, c, k)) for k in ks)
