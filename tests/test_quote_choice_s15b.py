"""Which sentence is quoted as a symbol's definition (issue 14, session 15, second pass): the mechanism on formulas of
our own and on the corpus sentence that showed it (Tanh-Init, s11 G081; s11 is development data since session 15).
"""
from __future__ import annotations

import pytest

from papermath.analysis.definitions import sentence_mentions
from papermath.analysis.read import _scalar_value

# (formula, whether it gives its subject a number): the range of an index inside a script is not a value
SCALAR_VALUES = [
    (r"\{\Phi_m\}_{m=1}^\infty", False),  # Tanh-Init: "Suppose that $…$ is a sequence of functions"
    (r"\{x_k\}_{k=1}^{K}", False),
    (r"w \in [1, +\infty)", True),
    (r"w \approx 1.4", True),
    (r"\lambda = 0", True),
    (r"f(x) = 0", False),
]


@pytest.mark.parametrize("math, valued", SCALAR_VALUES)
def test_a_scalar_value_stands_outside_scripts(math, valued):
    assert _scalar_value(math) is valued


def test_a_sequence_with_an_index_range_is_not_a_value_of_its_members():
    """The corpus sentence keys Φ_m as a member of the sequence it names, and is no longer set apart as a value of
    the letter (level 2, 'another meaning'): it defines Φ_m (tier 0). It still ranks after running text for the
    corollary's display because it stands in a lemma (s11 G081 stays a miss)."""
    found = [m for m in sentence_mentions(r"Suppose that $\{\Phi_m\}_{m=1}^\infty$ is a sequence of functions.", 0, 0,
                                          frozenset()) if m is not None]
    assert found[0].elements == (r"\Phi_{m}",) and found[0].pattern == "is" and found[0].strength == 3
    assert not _scalar_value(found[0].math)
