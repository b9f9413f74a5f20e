"""A pass@k table (`papermath passk`) as terminal text."""
from __future__ import annotations

from ..stats import PassAtK


def render_pass_at_k(rows: tuple[PassAtK, ...]) -> str:
    """The estimator with n and c, then one line per k."""
    n, c = rows[0].n, rows[0].c
    lines = [f"pass@k = 1 − C(n−c, k)/C(n, k) = 1 − ∏_(i=n−c+1..n) (1 − k/i), with n = {n} samples, c = {c} correct",
             "", f"  {'k':>6}  pass@k"]
    lines += [f"  {row.k:>6}  {row.value:.4f}" for row in rows]
    return "\n".join(lines)
