"""Mechanisms behind 'equations entirely right' (issue 14), one table per mechanism."""
import pytest

from papermath.analysis.read import _OPTIMUM_AT_TOP

# An optimum written at the top of the right side makes the equation an objective, however the
# paper spells the operator: the \mathop{...} wrappers are as common as \operatorname.
OPTIMUM_SPELLINGS = [
    (r"\mathop{\arg\min}_{s} \|x - y\|", True),
    (r"\mathop{\text{argmin}}_{\theta} L(\theta)", True),
    (r"\mathop{\mathrm{argmax}}_{a} Q(s, a)", True),
    (r"\arg\min_{x} f(x)", True),
    (r"\operatorname*{arg\,min}_x f(x)", True),
    (r"\max_{i} v_i", True),
    (r"\mathop{\sum}_{i} v_i", False),
    (r"\maxout(x)", False),
    (r"a + \min_i v_i", False),
]


@pytest.mark.parametrize("rhs,is_optimum", OPTIMUM_SPELLINGS)
def test_optimum_at_top_of_right_side(rhs: str, is_optimum: bool) -> None:
    assert bool(_OPTIMUM_AT_TOP.match(rhs)) is is_optimum
