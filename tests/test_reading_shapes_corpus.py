"""Shapes read from what the paper's text states (issue 14, "equations entirely right"), one test per way papers
state a shape, each with its corpus example. The expected dimensions were checked by hand against the papers."""
from __future__ import annotations

import pytest

from papermath.check.symbols import canonical

from conftest import corpus_equation, symbol_row

pytestmark = pytest.mark.corpus

# (how the paper states it, paper, equation, symbol row, the dimensions)
SHAPES = [
    ("a complex space: where Q ∈ ℂ^d is a unitary matrix", "LEN", "8", r"\mathbf{Q}", ("d",)),
    ("an interval: w̃ ∈ [0, 1) is the guidance scale, a scalar", "GMFlow", "8", r"\tilde{w}", ()),
    ("a chain of an equality and a membership: A = (a_{h,q,k}) ∈ ℝ^{H×T×T}", "hyla", "1", r"\mathcal{A}",
     ("H", "T", "T")),
    ("a power of a set: m ∈ {0,1}^K", "TabDiff", "8", r"\mathbf{m}", ("K",)),
    ("a draw with the identity covariance I_{M_num}", "TabDiff", "3", r"\mathbf\epsilon", (r"M_{\text{num}}",)),
    ("declared once with another spelling of its label (x^{\\rm num} ∈ ℝ^{M_num})", "TabDiff", "3",
     r"\mathbf{x}^{\text{num}}_{t}", (r"M_\mathrm{num}",)),  # the declaration writes M_{{\rm num}}
    ("declared at another value of its running index (X^0 ∈ ℝ^{D×N} for X^i)", "eomt", "1", r"\mathbf{X}^{i}",
     ("D", "N")),
    ("the display's own reduction: min over x ∈ ℝ^{d_x}", "LEN", "1", r"\mathbf{x}", ("d_{x}",)),
    ("written as its entries: Δx = (Δx_1, Δx_2)", "grid-cell-conformal-isometry", "1", r"\mathbf{\Delta x}",
     ("2",)),
    ("written as its entries: Y = [y_i]_{i=1}^N", "maskgit-2202.04200", "1", r"\mathbf{Y}", ("N",)),
    ("a membership outranks another sentence's 'd-dimensional': x = (x_1, x_2) ∈ ℝ^2",
     "grid-cell-conformal-isometry", "1", r"\mathbf{x}", ("2",)),
]


@pytest.mark.parametrize("how, paper, key, latex, dims", SHAPES, ids=[s[0] for s in SHAPES])
def test_each_way_a_paper_states_a_shape(how, paper, key, latex, dims):
    row = symbol_row(corpus_equation(paper, key), latex)
    assert row.shape is not None, (how, row.shape_cue)
    assert tuple(canonical(d) for d in row.shape) == tuple(canonical(d) for d in dims), (how, row.shape, row.shape_cue)


def test_the_members_of_a_tuple_a_chain_builds_get_no_shape_from_it():
    # LEN: "z := (x, y) ∈ ℝ^d": z has d entries; x alone does not (its own space is ℝ^{d_x})
    row = symbol_row(corpus_equation("LEN", "1"), r"\mathbf{y}")
    assert row.shape is not None and canonical(row.shape[0]) == canonical("d_{y}"), (row.shape, row.shape_cue)


def test_another_displays_draw_gives_no_shape_here():
    # TabDiff (5) uses ε drawn by (3)'s display: what (3) draws is said of (3), not stated for (5)
    row = symbol_row(corpus_equation("TabDiff", "5"), r"\mathbf\epsilon")
    assert row.shape is None, (row.shape, row.shape_cue)
