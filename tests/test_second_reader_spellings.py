"""The second reader's pre-pass over the paper's own LaTeX (session 13): spellings TeX prints alike or that name one
element read alike, so that SymPy's reading of the paper meets the generated code's inputs by their names — each
rewrite decided from the LaTeX alone, never from papermath's tree. Values are worked by hand; a planted wrong value
must make the check disagree; where the text does not say (a projection with no bracket before a sign), no check.
Skipped without sympy and its ANTLR runtime (`pip install -e '.[bench]'`)."""
import dataclasses

import numpy as np
import pytest

from papermath.codegen import second_reader as SR
from papermath.codegen.checks import second_reader_check
from papermath.evaluate import evaluate

pytestmark = pytest.mark.skipif(not SR.available(), reason="needs sympy and antlr4-python3-runtime 4.11 "
                                                           "(pip install -e '.[bench]')")


@pytest.mark.parametrize("written, same", [
    (r"\tilde g_t", r"\tilde{g}_{t}"),  # an accent takes the next token, braces or not
    (r"\hat {\bm{x}}", r"\hat{\mathbf{x}}"),  # a space before the accent's braces
    (r"\bm{x}[k]", r"\mathbf{x}_{k}"),  # an index in brackets, as code writes it
    (r"\bm{z}[i-1][r[j]]", r"\mathbf{z}_{i - 1, r_{j}}"),  # two indices, one an element itself
    (r"\bm{x}[k]^2", r"\mathbf{x}_{k}^{2}"),
    (r"\bm{v_{\theta,k}'}", r"\mathbf{v}'_{\theta, k}"),  # the prime after the scripts or before: one quantity
    (r"\bm{v_{\theta^*}}", r"\mathbf{v}_{\theta^{*}}"),  # a decoration inside a subscript, braced or not
    (r"\Delta {x}_1^4", r"{\Delta x}_{1}^{4}"),  # the first component of the increment Δx
])
def test_spellings_that_name_one_quantity_read_alike(written, same):
    assert SR._parse(written) == SR._parse(same)


@pytest.mark.parametrize("written, other", [
    (r"\tilde g_t", r"g_{t}"),  # the accent is part of the name
    (r"\bm{x}[k]", r"\mathbf{x}_{j}"),
    (r"\bm{z}[i][j]", r"\mathbf{z}_{j, i}"),  # the order of the indices counts
    (r"\bm{v_{\theta,k}'}", r"\mathbf{v}_{\theta, k}"),
    (r"\Delta x_1", r"{\Delta x}_{2}"),
])
def test_spellings_of_other_quantities_stay_apart(written, other):
    assert SR._parse(written) != SR._parse(other)


@pytest.mark.parametrize("written", [r"c[a b]", r"\sqrt[3]{x}", r"[a, b]", r"x [k]"])
def test_a_bracket_that_is_no_index_is_left_alone(written):
    # a product in brackets, a root's degree, a list, a bracket after a space (a product): not an element
    assert SR._bracket_indices(written) == written


@pytest.mark.parametrize("latex, cut", [
    (r"a \le b,", (["a", "b"], ["≤"])),  # the sentence's comma is no second statement
    (r"0 & \leq \frac{a}{b} \leq \frac{1}{\lambda},", (["0", r"\frac{a}{b}", r"\frac{1}{\lambda}"], ["≤", "≤"])),
    (r"a \le b, c \le d", None),  # two statements still are
])
def test_a_comparison_ending_the_sentence(latex, cut):
    assert SR.comparison_sides(latex) == cut


@pytest.mark.parametrize("text, unwrapped", [
    (r"{\sigma(t) = -\log(1 - t)}.", r"\sigma(t) = -\log(1 - t)"),
    (r"{a}_b = c", r"{a}_b = c"),  # a group with a script: not one group around the statement
    (r"{a} + {b}", r"{a} + {b}"),
])
def test_one_group_around_the_whole_statement_is_dropped(text, unwrapped):
    assert SR._without_outer_braces(text) == unwrapped


@pytest.mark.parametrize("side, key, rewritten", [
    # the input found from `G` or `p`: the font's brace before it goes with it, so the braces stay balanced
    (r"{\rm Gap}(x; \beta) \le 2", r"\mathrm{Gap}(x; \beta)", r" @Inputa@  \le 2"),
    (r"\omega \log {p}_{\theta}(x | y)", r"p_\theta (x \mid y)", r"\omega \log  @Inputa@ "),
    # a brace that belongs to a larger group (it holds `a` too): not this input's, no placeholder
    (r"{a p}(x)", r"p(x)", r"{a p}(x)"),
])
def test_an_input_given_one_value_is_cut_with_its_braces(side, key, rewritten):
    assert SR._opaque_inputs(side, (key,))[0] == rewritten


# OptimalSteps (21): ‖x' − x[k] + (n − k)(v'_θ − v_θ*)‖², the paper writing x[k] where the code's input is x_k.
_STEP = r"L = \left\lVert\bm{x'}-\bm{x}[k] + (n-k)(\bm{v'_{\theta}} - \bm{v_{\theta^*}})\right\rVert^2_2"
_STEP_VALUES = {r"\mathbf{x}'": [1.0, 2.0], r"\mathbf{x}_{k}": [0.0, 1.0], "n": 3.0, "k": 1.0,
                r"\mathbf{v}'_{\theta}": [0.5, 0.0], r"\mathbf{v}_{\theta^{*}}": [0.0, 1.0]}


def test_an_element_written_in_brackets_worked_by_hand():
    # x' − x_k = (1, 1); (n − k)(v' − v*) = 2 · (0.5, −1) = (1, −2); the sum (2, −1): squared norm 5
    ev = evaluate(_STEP, _STEP_VALUES)
    reading = SR.read(ev)
    assert reading is not None and reading.agrees and reading.value == pytest.approx(5.0)


def test_a_planted_misreading_of_the_bracketed_element_fails_the_check():
    ev = evaluate(_STEP, _STEP_VALUES)
    wrong = dataclasses.replace(ev, value=np.float64(2.0))  # ‖x' − x + …‖² with x[k] read as x · k, say
    check = second_reader_check(wrong)
    assert check is not None and "DISAGREE" in check.why
    with pytest.raises(AssertionError):
        exec(compile("\n".join(check.body), "check.py", "exec"), {"np": np, "result": 2.0})  # our own template


# schedule_free: ‖g̃_t − g_{t−1}‖ ≤ m_{t−1}, written `\tilde g_t` without braces and ending with the sentence's comma.
_BOUND = r"\|\tilde g_t -g_{t-1}\|&\le m_{t-1},"
_BOUND_VALUES = {r"\tilde{g}_{t}": [3.0, 4.0], "g_{t - 1}": [0.0, 0.0], "m_{t - 1}": 2.0}


def test_a_bound_with_a_bare_accent_worked_by_hand():
    ev = evaluate(_BOUND, _BOUND_VALUES, declared_shapes={r"\tilde{g}_{t}": ("n",), "g_{t - 1}": ("n",)})
    reading = SR.read(ev)
    assert reading is not None and reading.sides and reading.agrees
    assert reading.value == [pytest.approx(5.0), pytest.approx(2.0)]  # ‖(3, 4)‖ = 5


def test_a_planted_misreading_of_a_side_disagrees():
    ev = evaluate(_BOUND, _BOUND_VALUES, declared_shapes={r"\tilde{g}_{t}": ("n",), "g_{t - 1}": ("n",)})
    wrong = dataclasses.replace(ev, sides=((np.asarray(7.0), ev.sides[0][1]), ev.sides[1]))  # |3| + |4|, say
    reading = SR.read(wrong)
    assert reading is not None and not reading.agrees


@pytest.mark.parametrize("latex, values, read", [
    # Π with no bracket before a sign: Π(z_t) − η g_t or Π(z_t − η g_t)? the text does not say: no reading
    (r"z_{t+1} = \Pi_{\|z\|\le D} z_t - \eta g_t", {"z_t": [3.0, 4.0], "D": 1.0, r"\eta": 0.5, "g_t": [1.0, 0.0]},
     None),
    # with the bracket it says: Π((3, 4) − 0.5 (2, 0)) = Π((2, 4)) = (2, 4)/√20 · 1
    (r"z_{t+1} = \Pi_{\|z\|\le D} \left[z_t - \eta g_t \right]", {"z_t": [3.0, 4.0], "D": 1.0, r"\eta": 0.5,
                                                                   "g_t": [2.0, 0.0]},
     [2 / np.sqrt(20), 4 / np.sqrt(20)]),
])
def test_a_projection_is_read_only_where_its_operand_is_written(latex, values, read):
    ev = evaluate(latex, values, declared_shapes={"z_t": ("n",), "g_t": ("n",)})
    reading = SR.read(ev)
    if read is None:
        assert reading is None
    else:
        assert reading is not None and reading.agrees
        np.testing.assert_allclose(reading.value, read)


@pytest.mark.parametrize("index, terms", [
    ("t", ((1, "t"),)), ("t-1", ((1, "t"), (-1, 1))), ("-Numeralb + i", ((-1, 1), (1, "i"))),
    ("i + k", ((1, "i"), (1, "k"))),
    ("Numeralb/Numeralc + t", None), ("2i", None), ("Qqsabc", None), ("", None),  # a half step, a product, a name
])
def test_an_index_is_a_sum_of_names_and_whole_numbers(index, terms):
    assert SR._index_terms(index) == terms


# schedule_free: η_t = D / √(m_t² + Σ_{i=1}^t ‖g̃_i − g_{i−1}‖²): g̃ picked at 1…t, g at 0…t−1 (each array starts
# where the indices the sum picks of it start, those indices as many as its elements).
_STEP_SIZE = r"\eta_t = \frac{D}{\sqrt{m_t^2+\sum_{i=1}^t \|\tilde g_i-g_{i-1}\|^2}}"
_STEP_SIZE_VALUES = {"D": 2.0, "m_t": 1.0, "t": 3, r"\tilde{g}": [1.0, 1.0, 1.0], "g": [1.0, 0.0, 2.0]}


def test_index_arithmetic_in_a_sum_worked_by_hand():
    # (g̃_1 − g_0, g̃_2 − g_1, g̃_3 − g_2) = (0, 1, −1): Σ = 2, so 2 / √(1 + 2)
    ev = evaluate(_STEP_SIZE, _STEP_SIZE_VALUES)
    reading = SR.read(ev)
    assert reading is not None and reading.agrees and reading.value == pytest.approx(2 / np.sqrt(3))


def test_a_planted_off_by_one_disagrees():
    ev = evaluate(_STEP_SIZE, _STEP_SIZE_VALUES)
    wrong = dataclasses.replace(ev, value=np.float64(2 / np.sqrt(1 + 0 + 1 + 4)))  # g̃_i − g_i, say
    reading = SR.read(wrong)
    assert reading is not None and not reading.agrees


@pytest.mark.parametrize("g, read", [
    ([1.0, 0.0, 2.0, 1.0], 1 + 4 + 1),  # g_0 … g_3: (0 − 1)² + (2 − 0)² + (1 − 2)²
    ([1.0, 0.0, 2.0, 1.0, 5.0], None),  # one element more than the sum picks: where g starts the text does not say
])
def test_an_array_starts_where_the_sums_pick_it_only_when_they_pick_all_of_it(g, read):
    ev = evaluate(r"S = \sum_{t=1}^{T} (g_t - g_{t-1})^2", {"T": 3, "g": g})
    reading = SR.read(ev)
    if read is None:
        assert reading is None
    else:
        assert reading is not None and reading.agrees and reading.value == pytest.approx(read)


@pytest.mark.parametrize("g, read", [
    # the right side picks g_0 … g_3, so g starts at 0 for the left side too: Σ_{t=1}^{3} g_t = 0 + 2 + 1
    ([1.0, 0.0, 2.0, 1.0], [3.0, 6.0]),
    ([1.0, 0.0, 2.0, 1.0, 5.0], None),  # no side picks all of g: nothing says where it starts
])
def test_an_array_starts_where_the_whole_comparison_picks_it(g, read):
    ev = evaluate(r"\sum_{t=1}^{T} g_t \le \sum_{t=1}^{T} (g_t - g_{t-1})^2,", {"T": 3, "g": g})
    reading = SR.read(ev)
    if read is None:
        assert reading is None
    else:
        assert reading is not None and reading.sides and reading.agrees
        assert reading.value == [pytest.approx(v) for v in read]


@pytest.mark.parametrize("latex, side", [
    # a where-clause defines what the statement uses: its `=` is not the statement's
    (r"p(x)=\frac{1}{\sigma} e^{-y}, \text { where } y=\frac{x-\mu}{\sigma}", r"\frac{1}{\sigma} e^{-y}"),
    (r"t_i = \frac{i}{N} \quad where\ i = 0 \ldots N", r"\frac{i}{N}"),
    (r"a = b \quad c = d", "d"),  # no where: the last statement, as before
    (r"\{x \text{where} y = 1\} = 2", "2"),  # inside a group: not the statement's clause
])
def test_a_where_clause_is_not_the_computed_side(latex, side):
    assert SR.computed_side(latex) == side


def test_braces_that_group_a_functions_argument_read_as_a_bracket():
    # GPS: p(x) = (1/σ) exp{−(y + exp{−y})}, by hand at σ = 2, y = 0: exp(−1) / 2
    ev = evaluate(r"p(x)=\frac{1}{\sigma} \exp \{-(y+\exp \{-y\})\}", {r"\sigma": 2.0, "y": 0.0})
    reading = SR.read(ev)
    assert reading is not None and reading.agrees and reading.value == pytest.approx(np.exp(-1) / 2)
    wrong = dataclasses.replace(ev, value=np.float64(np.exp(-1)))  # the 1/σ dropped, say
    assert not SR.read(wrong).agrees


@pytest.mark.parametrize("head, applied", [
    (r"{\bm{\mu}}_{\theta}^{{\rm cat}}(x, y, t)", True),  # a group with scripts before several arguments
    (r"\frac{a}{b}(x, y)", False),  # no scripts: not a function's head
    (r"{\bm{\mu}}^{2}(x)", False),  # one argument: power times a bracket, or an application — left to SymPy
])
def test_a_scripted_group_applied_to_several_arguments_is_a_function(head, applied):
    assert ("@Qqfn" in SR._scripted_heads(head)) is applied


def test_a_scripted_groups_function_name_is_its_inputs_name():
    assert SR._scripted_heads(r"{\bm{\mu}}_{\theta}^{{\rm cat}}(x, t)").split("@")[1] == \
        "Qqfn" + SR.head_function_name(r"\mathbf\mu _\theta ^\mathrm{cat}")


_GUIDED = (r"L = (1+\omega)\log{\bm{\mu}}_{\theta}^{{\rm cat}}(x, y, t)"
           r" - \omega\log{\bm{\mu}}_{\theta}^{{\rm cat}}(x, t)")


def test_a_function_of_a_scripted_group_worked_by_hand():
    # TabDiff (u5): the arithmetic around μ's two calls, each output the test's double for those arguments
    ev = evaluate(_GUIDED, {r"\omega": 2.0, "x": 3.0, "y": 5.0, "t": 7.0})
    (_, _, calls), = ev.abstract
    outputs = {len(arguments): float(output) for arguments, output in calls}
    reading = SR.read(ev)
    assert reading is not None and reading.agrees
    assert reading.value == pytest.approx(3 * np.log(outputs[3]) - 2 * np.log(outputs[2]))
    wrong = dataclasses.replace(ev, value=np.float64(3 * np.log(outputs[2]) - 2 * np.log(outputs[3])))  # swapped
    assert not SR.read(wrong).agrees


def test_an_increment_after_a_fraction_is_one_quantity():
    assert SR._parse(r"\frac{1}{2}\Delta {x}_1") == SR._parse(r"\frac{1}{2} {\Delta x}_{1}")
