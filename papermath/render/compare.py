"""A comparison of two 'mean ± spread' results (`papermath compare`) as terminal text."""
from __future__ import annotations

from ..stats import Comparison, Interval


def _fmt(x: float) -> str:
    return f"{x:.3f}"


def _interval_line(interval: Interval, difference: float) -> str:
    if interval.df is None:
        quantile = "z(0.975)"
    elif float(interval.df).is_integer():
        quantile = f"t(0.975, {interval.df:g})"
    else:
        quantile = f"t(0.975, {interval.df:.2f})"
    return (f"{quantile} = {interval.multiplier:.3f}: {difference:g} ± {interval.multiplier:.3f} × "
            f"{interval.standard_error:.3f} = [{_fmt(interval.low)}, {_fmt(interval.high)}]"
            f"  {'excludes' if interval.excludes_zero else 'contains'} 0")


def render_comparison(comparison: Comparison) -> str:
    """The two results, the difference, each 95% interval worked out, the verdict and its assumptions."""
    c = comparison
    n_a, n_b = c.runs
    reading = ("standard deviation across runs" if c.spread == "sd" else "standard error of each mean")
    runs = f"{n_a} runs each" if n_a == n_b else f"{n_a} and {n_b} runs"
    lines = [(f"A = {c.first.mean:g} ± {c.first.spread:g}, B = {c.second.mean:g} ± {c.second.spread:g}, "
              f"{runs}; ± read as the {reading}"), ""]
    rows = [("difference", f"A − B = {c.first.mean:g} − {c.second.mean:g} = {c.difference:g}")]
    labels = {"normal": "normal 95%", "student-t": "Student t 95%", "welch": "Welch t 95%",
              "paired-t": "paired t 95%"}
    for interval in (c.normal, c.student_t, c.welch, c.paired):
        if interval is None:
            continue
        rows.append((labels[interval.method], interval.formula))
        rows.append(("", _interval_line(interval, c.difference)))
    width = max(len(label) for label, _ in rows) + 2
    lines += [f"  {label:<{width}}{text}" for label, text in rows]
    lines += ["", (f"verdict: {c.verdict} (the {labels[c.decisive]} interval "
                   f"{'excludes' if c.decisive_interval.excludes_zero else 'contains'} zero)")]
    if c.decisive != "normal" and c.normal.excludes_zero != c.decisive_interval.excludes_zero:
        lines.append("  the normal interval disagrees: 1.96 treats the estimated spread as known, "
                     "which few runs do not justify")
    lines += ["", "assumptions:"] + [f"  - {a}" for a in c.assumptions]
    return "\n".join(lines)
