"""argmax / argmin under a condition: the argument is the variable's value at the best KEPT term.

The evaluator counted the best term among the terms the condition keeps but looked it up among all the range's
values (`\\operatorname*{argmax}_{i: x_i > 1} x_i` over x = (1, 5, 3) gave 1: the range's first value, for the kept
list's first term), and the generated code for a range of positions dropped the condition (argmin over all of x).
The evaluator's value and the generated NumPy and torch code must each give the argument worked by hand."""
import numpy as np
import pytest

from papermath.codegen import call_arguments
from papermath.evaluate import evaluate

from conftest import generated_functions

# (formula, x, the argument worked by hand: positions count from 1)
CASES = [
    # kept: i = 2 (5), i = 3 (3); the largest is at i = 2
    (r"\operatorname*{argmax}_{i: x_i > 1} x_i", [1, 5, 3], 2.0),
    # kept: i = 2 (5), i = 3 (3); the smallest kept is at i = 3 (the unfiltered argmin would be i = 1)
    (r"\operatorname*{argmin}_{i: x_i > 1} x_i", [1, 5, 3], 3.0),
    # kept: i = 1 (4), i = 3 (6); the smallest is at i = 1
    (r"\operatorname*{argmin}_{i: x_i > 2} x_i", [4, 1, 6], 1.0),
    # kept: i = 3 (7), i = 4 (2); the largest is at i = 3
    (r"\operatorname*{argmax}_{i: x_i < 8} x_i", [9, 8, 7, 2], 3.0),
    # no condition: the largest of all is at i = 2
    (r"\operatorname*{argmax}_{i} x_i", [1, 5, 3], 2.0),
]


@pytest.mark.parametrize("latex, x, expected", CASES, ids=[c[0] for c in CASES])
def test_the_argument_is_the_best_kept_position(latex, x, expected):
    ev = evaluate(latex, {"x": x})
    assert float(ev.value) == expected
    arrays = {"x": np.asarray(x, dtype=float)}
    for function in generated_functions(ev, "argument_case"):
        assert float(np.asarray(function(*call_arguments(ev, arrays)), dtype=float)) == expected
