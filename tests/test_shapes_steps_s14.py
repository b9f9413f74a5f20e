"""An index written as arithmetic on free indices (`z_{t+1}`, `x_{t-\\Delta t}`, `z_{t,i-1}`) is a step of the
sequence, as the free index itself is: it ranges over the axis, it does not pick one entry. A number or a sum's
variable (or arithmetic on one) still picks an entry."""
import pytest

from papermath.analysis.shapes import infer_shapes

D = {"z": ("d",), "x": ("D",), "w": ("n",)}


@pytest.mark.parametrize("formula, expected", [
    (r"y = z_{t+1}", ("d",)),                                 # the next iterate, a d-vector (was: an entry, scalar)
    (r"y = x_{t - \Delta t}", ("D",)),                        # the state one step earlier
    (r"y = z_{t,i-1}", ("d",)),                               # an inner step: both indices run
    (r"y = \sum_{i=1}^{n} w_{i-1}", ()),                      # a sum's variable, shifted: one entry per term
    (r"y = w_{2}", ()),                                       # a number picks an entry
])
def test_arithmetic_on_free_indices_is_a_step(formula, expected):
    report = infer_shapes(formula, D)
    assert report.result == expected, report
