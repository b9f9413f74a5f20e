"""The second reader (SymPy's LaTeX parser, not papermath's tree) and the check it writes into generated tests.

Its values are checked here against numbers worked by hand; where it cannot read a formula or has no opinion
(a matrix product, an unknown function, a bound) it writes no check. Skipped without sympy and its ANTLR runtime
(`pip install -e '.[bench]'`)."""
import dataclasses
import sys
import types

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from papermath.codegen import generate
from papermath.codegen import second_reader as SR
from papermath.codegen.checks import second_reader_check
from papermath.evaluate import evaluate

pytestmark = pytest.mark.skipif(not SR.available(), reason="needs sympy and antlr4-python3-runtime 4.11 "
                                                           "(pip install -e '.[bench]')")


@pytest.mark.parametrize("latex, side", [
    (r"c_{t+1}=\frac{r+1}{t+r+1},", r"\frac{r+1}{t+r+1}"),
    (r"L &= a + b \\ &= c + d.", "c + d"),
    (r"q_\lambda\left(m| x\right)\coloneqq (1-\lambda) q(m|x)", "(1-\\lambda) q(m|x)"),
    (r"P'(v) = \frac{a}{b} \quad \text{for } v \in V", r"\frac{a}{b}"),
    (r"G \le \frac{a}{b}", ""),  # a bound: nothing to compute
    (r"\{x_i = 1\} = 0", "0"),  # a relation inside braces is not the statement's
])
def test_the_computed_side_is_cut_from_the_text(latex, side):
    assert SR.computed_side(latex) == side


def test_a_schedule_value_worked_by_hand():
    # schedule_free (20): c_{t+1} = (r+1)/(t+r+1) at r = 2, t = 3 is 3/6 = 0.5
    ev = evaluate(r"c_{t+1}=\frac{r+1}{t+r+1}", {"r": 2, "t": 3})
    reading = SR.read(ev)
    assert reading is not None and reading.agrees and reading.value == pytest.approx(0.5)


def test_an_elementwise_formula_on_vectors_worked_by_hand():
    # DyT (2): γ * tanh(α x) + β, elementwise over the channels
    values = {r"\gamma": [1.5, -0.5], r"\alpha": 0.7, "x": [0.5, -1.2], r"\beta": [0.1, 0.0]}
    ev = evaluate(r"\mathrm{DyT}(x) = \gamma * \tanh(\alpha x) + \beta", values)
    reading = SR.read(ev)
    assert reading is not None and reading.agrees
    np.testing.assert_allclose(reading.value, [1.5 * np.tanh(0.35) + 0.1, -0.5 * np.tanh(-0.84)])


@pytest.mark.parametrize("latex, values, shapes", [
    ("y = x W", {"W": [[1.0, 2.0], [3.0, 4.0]], "x": [1.0, 1.0]}, {"W": ("n", "n"), "x": ("n",)}),  # shapes that do
    # not line up as written (a vector before a matrix, no transpose)
    (r"y = \|X\|^2", {"X": [[1.0, 2.0], [0.0, 1.0]]}, {"X": ("n", "n")}),  # a matrix's operator norm
    ("y = 3", {}, {}),  # a constant
])
def test_no_opinion_means_no_check(latex, values, shapes):
    ev = evaluate(latex, values, declared_shapes=shapes)
    assert SR.read(ev) is None and second_reader_check(ev) is None


def test_the_generated_test_fails_where_the_two_readers_disagree(tmp_path):
    """papermath's value replaced by a wrong one (as a misreading would give): the check written from SymPy's
    value fails, while the self-consistency test (the evaluator's value) cannot tell."""
    ev = evaluate(r"c_{t+1}=\frac{r+1}{t+r+1}", {"r": 2, "t": 3})
    wrong = dataclasses.replace(ev, value=np.float64(0.75))
    check = second_reader_check(wrong)
    assert check is not None and "DISAGREE" in check.why
    namespace = {"np": np, "result": 0.75}
    with pytest.raises(AssertionError):
        exec(compile("\n".join(check.body), "check.py", "exec"), namespace)  # our own check template
    right = second_reader_check(ev)
    assert right is not None and "they agree" in right.why
    exec(compile("\n".join(right.body), "check.py", "exec"), {"np": np, "result": 0.5})


def test_the_check_is_written_into_the_generated_test():
    code = generate(evaluate(r"c_{t+1}=\frac{r+1}{t+r+1}", {"r": 2, "t": 3}))
    body = code.test.split("def test_independent_second_reader_agrees():")[1].split("\n\n\n")[0]
    assert "SymPy's LaTeX parser" in body and "np.float64(0.5)" in body


def test_a_function_the_text_names_and_paper_text_reaching_sympy_only_as_latex():
    """A function the text names concretely (σ = sigmoid) is given to SymPy by name: σ(0) + 1 = 1.5. Function
    names from the paper are used only when they are plain identifiers naming a known elementwise function;
    anything else is no check, never code."""
    ev = evaluate(r"y = \sigma(x) + 1", {"x": 0.0}, implementations={r"\sigma": "sigmoid"})
    reading = SR.read(ev)
    assert reading is not None and reading.agrees and reading.value == pytest.approx(1.5)
    hostile = r"\operatorname{os.system}"
    ev = evaluate(rf"y = {hostile}(x) + 1", {"x": 0.0}, implementations={hostile: "sigmoid"})
    assert SR.read(ev) is None


def test_a_function_the_paper_leaves_abstract_takes_the_numbers_outputs():
    """ε_θ is abstract: the second reader uses the output papermath's numbers gave it for the same arguments
    (the generated test's double), and computes the arithmetic around it: (ε − ε_θ(x_t, t))² by hand."""
    ev = evaluate(r"L = (\epsilon - \epsilon_\theta(x_t, t))^2", {r"\epsilon": 0.5, "x_t": 1.0, "t": 2.0})
    (_, _, calls), = ev.abstract
    (_, output), = calls
    reading = SR.read(ev)
    assert reading is not None and reading.agrees
    assert reading.value == pytest.approx((0.5 - float(output)) ** 2)


def test_the_gradient_of_an_abstract_function_is_read_as_a_function_of_the_point():
    """Schedule-free eq. (4): z_{t+1} = z_t − γ ∇f(y_t, ζ_t), f abstract. SymPy reads no ∇: the second reader
    reads ∇f as a function of (y_t, ζ_t), its value the test's double, and the update around it by hand."""
    ev = evaluate(r"z_{t+1} =z_{t}-\gamma\nabla f(y_{t}, \zeta_t)",
                  {"z_{t}": 0.5, "\\gamma": 0.1, "y_{t}": 2.0, "\\zeta_t": 3.0})
    (head, _, ((arguments, output),)), = ev.abstract
    assert head == "\\nabla f" and [float(a) for a in arguments] == [2.0, 3.0]
    reading = SR.read(ev)
    assert reading is not None and reading.agrees
    assert reading.value == pytest.approx(0.5 - 0.1 * float(output))
    assert SR.read(evaluate(r"g = \nabla_x (x^2)", {"x": 1.0})) is None  # ∇ with its variable: no such reading


def test_max_and_euler_number_mean_one_thing():
    ev = evaluate(r"y = \max(a, b) + e^{c}", {"a": 1.0, "b": 3.0, "c": 0.0})
    reading = SR.read(ev)
    assert reading is not None and reading.value == pytest.approx(4.0)


def test_an_input_that_is_a_sub_expression_is_one_symbol_for_sympy():
    """`V^{*}(x_{t-1}, c)` given one value (SymPy's grammar cannot read a starred function): replaced by a
    placeholder in the text; SymPy reads the difference around it. 2 − 5 = −3 by hand."""
    values = {r"V^{*}(x_{t - 1}, c)": 2.0, r"Q^{*}(x_{t}, c)": 5.0}
    ev = evaluate(r"A = V^{*}(x_{t - 1}, c) - Q^{*}(x_{t}, c)", values)
    reading = SR.read(ev)
    assert reading is not None and reading.agrees and reading.value == pytest.approx(-3.0)


def test_with_scalars_a_norm_is_an_absolute_value_and_an_inner_product_a_product():
    # ‖x − y‖² + 2⟨a − b, c⟩ at x = 3, y = 1, a = 2, b = 0.5, c = 4: 4 + 2·1.5·4 = 16
    values = {"x": 3.0, "y": 1.0, "a": 2.0, "b": 0.5, "c": 4.0}
    ev = evaluate(r"L = \lVert x - y \rVert_2^2 + 2 \langle a - b, c \rangle", values)
    reading = SR.read(ev)
    assert reading is not None and reading.agrees and reading.value == pytest.approx(16.0)


def test_nothing_the_second_reader_reads_is_compiled_or_executed():
    """The expression comes from the paper: its value is computed by SymPy's algebra element by element, never by
    Python source built from it (`lambdify` writes source and runs it): no exec, eval or compile call is made while
    the second reader reads (recorded, not refused: pytest itself compiles between tests)."""
    import builtins

    ev = evaluate(r"\mathrm{DyT}(x) = \gamma * \tanh(\alpha x) + \beta",
                  {r"\gamma": [1.5, -0.5], r"\alpha": 0.7, "x": [0.5, -1.2], r"\beta": [0.1, 0.0]})
    scalar = evaluate(r"y = \sigma(x) + 1", {"x": 0.0}, implementations={r"\sigma": "sigmoid"})
    SR.read(ev), SR.read(scalar)  # SymPy's own imports and caches before the record starts
    calls, saved = [], {name: getattr(builtins, name) for name in ("exec", "eval", "compile")}

    def recorder(name):
        def record(*args, **kwargs):
            calls.append((name, str(args[0])[:80]))
            return saved[name](*args, **kwargs)
        return record

    try:
        for name in saved:
            setattr(builtins, name, recorder(name))
        reading, scalar_reading = SR.read(ev), SR.read(scalar)
    finally:
        for name, original in saved.items():
            setattr(builtins, name, original)
    assert calls == []
    assert reading is not None and reading.agrees
    np.testing.assert_allclose(reading.value, [1.5 * np.tanh(0.35) + 0.1, -0.5 * np.tanh(-0.84)])
    assert scalar_reading.value == pytest.approx(1.5)


@pytest.mark.parametrize("latex, text, draws", [
    (r"\mathbb{E}_{x \sim p}[x^2 + a]", " @Qqexpecta@(x^2 + a)", {"Qqexpecta": r"x \sim p"}),
    (r"\mathbb{E}_{t}\left[ y \right] + 1", " @Qqexpecta@( y ) + 1", {"Qqexpecta": "t"}),
    (r"\|x - z\|_2^2", " @Qqnormtwo@(x - z)^2", {}),
    (r"\lVert (x) \rVert_{1}", " @Qqnormone@( (x) )", {}),
    (r"\left\| A \right\|_F", " @Qqnormfro@( A )", {}),
])
def test_the_rewrites_into_forms_sympy_reads(latex, text, draws):
    assert SR.reader_forms(latex) == (text, draws)


@pytest.mark.parametrize("latex", [r"\mathbb{E}_{x}", r"\|x\|_\infty", r"\mathbb{E}_{x}[x", r"\langle a b \rangle"])
def test_a_construct_the_rewrites_cannot_place_is_no_reading(latex):
    with pytest.raises(SR._NotRewritten):
        SR.reader_forms(latex)


@pytest.mark.parametrize("latex, values, shapes, by_hand", [
    # 𝔼 over the draws of x: the mean over its samples of x² + a = (4 + 9 + 1)/3 + 2
    (r"L = \mathbb{E}_{x}[x^2 + a]", {"x": [2.0, 3.0, 1.0], "a": 2.0}, {}, 14 / 3 + 2),
    # a sum binds its index: Σ_{i=1}^{3} w_i x_i = 2·1 + 3·3 + 1·2
    (r"L = \sum_{i=1}^{n} w_i x_i", {"n": 3, "w": [2.0, 3.0, 1.0], "x": [1.0, 3.0, 2.0]}, {}, 13.0),
    # a Euclidean norm of a vector: ‖(1, 2) − (4, 6)‖² = 9 + 16
    (r"y = \|x - z\|_2^2", {"x": [1.0, 2.0], "z": [4.0, 6.0]}, {"x": ("n",), "z": ("n",)}, 25.0),
])
def test_expectations_sums_and_norms_worked_by_hand(latex, values, shapes, by_hand):
    ev = evaluate(latex, values, declared_shapes=shapes)
    reading = SR.read(ev)
    assert reading is not None and reading.agrees and reading.value == pytest.approx(by_hand)


@pytest.mark.parametrize("latex, values, shapes", [
    (r"y = \|x - z\|_2^2", {"x": [1.0, 2.0], "z": [4.0, 6.0]}, {"x": ("n",), "z": ("n",)}),
    (r"L = \mathbb{E}_{x}[x^2 + a]", {"x": [2.0, 3.0, 1.0], "a": 2.0}, {}),
    (r"L = \sum_{i=1}^{n} w_i x_i", {"n": 3, "w": [2.0, 3.0, 1.0], "x": [1.0, 3.0, 2.0]}, {}),
])
def test_a_planted_disagreement_on_the_new_forms_fails_the_check(latex, values, shapes):
    """papermath's value replaced by another (as a misread tree would give): the check SymPy's reading writes
    fails on it."""
    ev = evaluate(latex, values, declared_shapes=shapes)
    wrong = dataclasses.replace(ev, value=np.float64(float(ev.value) + 1.0))
    check = second_reader_check(wrong)
    assert check is not None and "DISAGREE" in check.why
    with pytest.raises(AssertionError):
        exec(compile("\n".join(check.body), "check.py", "exec"), {"np": np, "result": float(ev.value) + 1.0})


@pytest.mark.parametrize("latex, values, shapes", [
    (r"L = \sum_{i=1}^{2} w_i", {"w": [2.0, 3.0, 1.0]}, {}),  # a sum over part of the array: no element rule
    (r"L = \mathbb{E}_{p}[x]", {"x": [2.0, 3.0, 1.0]}, {}),  # the subscript names no input: no sample axis
    (r"L = \mathbb{E}_{(x, y \sim D}[x]", {"x": [2.0, 3.0, 1.0]}, {}),  # a draw SymPy cannot parse
])
def test_the_array_walk_has_no_opinion_where_its_algebra_says_nothing(latex, values, shapes):
    ev = evaluate(latex, values, declared_shapes=shapes)
    assert SR.read(ev) is None


@pytest.mark.parametrize("latex, cut", [
    (r"\sum_{t = 0}^{T} \gamma_{t}^{2} \le 4 M^{2}", ([r"\sum_{t = 0}^{T} \gamma_{t}^{2}", "4 M^{2}"], ["≤"])),
    (r"0 \le \frac{a}{b} \le \frac{1}{1 - \lambda}", (["0", r"\frac{a}{b}", r"\frac{1}{1 - \lambda}"], ["≤", "≤"])),
    (r"f(x) \ge g(x), \forall x \in R", (["f(x)", "g(x)"], ["≥"])),  # the condition is dropped
    (r"a \le b \quad \text{for } t \le T", (["a", "b"], ["≤"])),
    (r"T = \sum_t a_t \le b", (["T", r"\sum_t a_t", "b"], ["=", "≤"])),
    (r"a &\le b \\ &< c.", (["a", "b", "c"], ["≤", "<"])),  # rows of one chain
    (r"\{x \le 1\} = 2 \le 3", ([r"\{x \le 1\}", "2", "3"], ["=", "≤"])),  # a relation in braces is not the chain's
    (r"a \le b \quad c \le d", None),  # two statements
    (r"a \le b, \mathrm{and}\ c \le d", None),
    (r"a \le b, c", None),
    (r"y = a + b", None),  # a value, not a comparison (computed_side reads it)
    (r"x \in S", None), (r"p \propto q \le 1", None), (r"a \le (b", None), (r"a \le \cdots", None), (r"\le b", None),
])
def test_the_sides_of_a_comparison_are_cut_from_the_text(latex, cut):
    assert SR.comparison_sides(latex) == cut


_BOUND = r"\sum_{t = 0}^{T} \gamma_{t}^{2} \le 4 M^{2} \lVert \mathbf{z}_{0} - \mathbf{z}^{*}\rVert ^{2}"
_BOUND_VALUES = {"T": 2, r"\gamma": [1.0, 2.0, 3.0], "M": 2.0, r"\mathbf{z}_{0}": 3.0, r"\mathbf{z}^{*}": 5.0}


def test_each_side_of_a_bound_worked_by_hand():
    """LEN: Σ_{t=0}^{2} γ_t² = 1 + 4 + 9 = 14 and 4 M² ‖z_0 − z*‖² = 16 · 4 = 64: each side, not only whether
    14 ≤ 64 holds (the test's inputs need not satisfy the paper's assumptions, so the bit says little)."""
    ev = evaluate(_BOUND, _BOUND_VALUES)
    reading = SR.read(ev)
    assert reading is not None and reading.sides and reading.agrees
    assert reading.value == [pytest.approx(14.0), pytest.approx(64.0)]
    assert "≤" in reading.expression


def test_a_planted_disagreement_on_a_side_fails_the_generated_check(tmp_path):
    """papermath's value of one side replaced (as a misread tree would give): the check fails on it; the
    generated module's `…_sides` returns what the check compares."""
    ev = evaluate(_BOUND, _BOUND_VALUES)
    code = generate(ev, module="bound")
    assert "def expression_sides(" in code.numpy and "test_independent_second_reader_agrees_on_each_side" in code.test
    wrong = dataclasses.replace(ev, sides=((np.asarray(15.0), ev.sides[0][1]), ev.sides[1]))
    check = second_reader_check(wrong, "bound", "expression")
    assert check is not None and "DISAGREE" in check.why
    body = "\n".join(check.body)
    module = types.ModuleType("bound")
    for sides, fails in (((15.0, 64.0), True), ((14.0, 64.0), False)):
        module.expression_sides = lambda *args, _s=sides: _s
        sys.modules["bound"] = module
        try:
            if fails:
                with pytest.raises(AssertionError):
                    exec(compile(body, "check.py", "exec"), {"np": np, "inputs": tuple})  # our own check template
            else:
                exec(compile(body, "check.py", "exec"), {"np": np, "inputs": tuple})
        finally:
            sys.modules.pop("bound", None)
    assert second_reader_check(ev) is None  # no module to import the sides from: no check


def test_the_generated_sides_function_runs_and_the_generated_test_passes(tmp_path):
    import subprocess
    code = generate(evaluate(_BOUND, _BOUND_VALUES), module="bound_run")
    code.write(tmp_path)
    result = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-k", "each_side",
                             str(tmp_path)], capture_output=True, text=True, cwd=tmp_path)
    assert result.returncode == 0 and "1 passed" in result.stdout, result.stdout[-500:]


@pytest.mark.parametrize("latex, values, shapes, by_hand", [
    # 𝔼 with no bracket takes the rest of its term: mean(x²) + a = (4 + 9 + 1)/3 + 2, not mean(x² + a)·…
    (r"L = \mathbb{E}_{x} x^2 + a", {"x": [2.0, 3.0, 1.0], "a": 2.0}, {}, 14 / 3 + 2),
    # a draw the operand does not use: 𝔼 of one value is that value (x is no input): 2·3 − 1
    (r"L = \mathbb{E}_{x \sim p} a b - c", {"a": 2.0, "b": 3.0, "c": 1.0}, {}, 5.0),
    # ⟨a, b⟩ of vectors and |·| elementwise: (1·3 + 2·(−1)) + |−2| summed by hand
    (r"y = \langle a, b \rangle + \lvert c \rvert", {"a": [1.0, 2.0], "b": [3.0, -1.0], "c": -2.0},
     {"a": ("n",), "b": ("n",)}, 3.0),
    # a decorated name and a numeral with a 3 in it (`\\mathit{Numeral…}` spelled no `d`): z* + 30
    (r"y = \mathbf{z}^{*} + 30", {r"\mathbf{z}^{*}": 2.0}, {}, 32.0),
    # an index pair: s_{i, t} / 2 is one symbol to SymPy
    (r"y = \frac{s_{i, t}}{2}", {"s_{i, t}": 3.0}, {}, 1.5),
])
def test_new_forms_worked_by_hand(latex, values, shapes, by_hand):
    ev = evaluate(latex, values, declared_shapes=shapes)
    reading = SR.read(ev)
    assert reading is not None and reading.agrees and reading.value == pytest.approx(by_hand)
    wrong = dataclasses.replace(ev, value=np.float64(float(ev.value) + 1.0))
    check = second_reader_check(wrong)
    assert check is not None and "DISAGREE" in check.why  # a planted disagreement fails the check
    with pytest.raises(AssertionError):
        exec(compile("\n".join(check.body), "check.py", "exec"), {"np": np, "result": float(ev.value) + 1.0})


@pytest.mark.parametrize("latex, values", [
    # a term that varies with the sum's index given one value: a constant read would agree with anything
    (r"V = \sum_{t = 0}^{2} \gamma^{t} A(a_{t} \mid s_{t})", {r"\gamma": 2.0, r"A(a_{t} \mid s_{t})": 0.5}),
    # ∞ given a value (papermath chose one): a sum to ∞ is no sum to 3
    (r"V = \sum_{t = 0}^{\infty} \gamma^{t}", {r"\gamma": 0.5, r"\infty": 3.0}),
])
def test_no_reading_where_an_input_would_make_any_reading_agree(latex, values):
    try:
        ev = evaluate(latex, values)
    except Exception:  # papermath refuses it: nothing to check
        return
    assert SR.read(ev) is None


@pytest.mark.parametrize("latex, text", [
    (r"\mathbb{E}_{x} x^2 + a", " @Qqexpecta@(x^2 )+ a"),
    (r"\mathbb{E}_{x} - \log \sigma(a - b) + c", r" @Qqexpecta@(- \log \sigma(a - b) )+ c"),  # its own sign
    (r"(\mathbb{E}_x a b) + 1", "( @Qqexpecta@(a b)) + 1"),  # the enclosing bracket ends the term
    (r"\mathbb{E}_{x} |a - b| + c", " @Qqexpecta@(|a - b| )+ c"),  # a sign between bars is inside
    (r"\mathbb{E}_{x} \lvert a - b\rvert", " @Qqexpecta@(@Qqabs@( a - b))"),
    (r"\langle a, f(b, c) \rangle", " @Qqinner@( a,  f(b, c) )"),
])
def test_the_new_rewrites(latex, text):
    assert SR.reader_forms(latex)[0] == text


@pytest.mark.parametrize("latex, spelled", [
    (r"z^{*}", r"z_{\mathit{Qqs"), (r"\mathbf{z}_{0}^{*}", r"z_{\mathit{Qqs"), (r"a_{t, i}^{2}", "}}^{2}"),
    (r"\gamma_t^2", r"\gamma_t^2"),
    # a decoration subscript names a quantity too (`z_*` did not parse): spelled like `z^{*}`
    (r"x_\star", r"x_{\mathit{Qqs"), (r"z_*", r"z_{\mathit{Qqs"),
    # an accent on a letter is another quantity (SymPy read `\tilde{g}` as tilde·g, and `\tilde{g}_t` not at all)
    (r"\tilde{g}_{t}", r"g_{\mathit{Qqs"), (r"\hat{y}", r"y_{\mathit{Qqs"),
    # a prime before a subscript, a superscript before a subscript: moved where SymPy reads them, as TeX does
    (r"z'_{t}", r"z_{t}'"), (r"\sigma^2_t", r"\sigma_t^2"),
    # a braced group with a script (SymPy cannot script a group): one letter unbraced, else one spelled symbol
    (r"{d}_{\text{model}}", r"d_{model}"), (r"{\Delta x}_{1}", r"G_{\mathit{Qqg"), (r"{x'}_{1}", r"x_{1}'"),
])
def test_decorations_and_index_pairs_are_one_symbol(latex, spelled):
    assert spelled in SR.clean(latex)
    assert "d" not in SR.clean(latex).split("Qqs")[-1].split("}")[0] if "Qqs" in SR.clean(latex) else True


_PIECES = st.sampled_from([r"\mathbb{E}", "_", "^", "{", "}", "(", ")", "[", "]", r"\{", r"\}", "|", r"\|",
                           r"\lVert", r"\rVert", r"\lvert", r"\rvert", r"\left", r"\right", r"\langle", r"\rangle",
                           ",", ";", "&", r"\\", r"\le", r"\ge", "=", "<", ">", r"\in", r"\quad", r"\forall",
                           r"\text{for }", r"\mathrm{and}", "+", "-", r"\pm", "x", "y_{t, i}", "z^{*}", "'", r"\sum",
                           r"\sim", "p(x)", r"\mid", "2", "30", " ", r"\sigma", "\\", r"\underbrace",
                           r"\overset", r"\min", r"\max", r"\operatorname{Ab}", r"\mathrm{cat}", r"\Delta x"])


# Notation SymPy's grammar does not read, rewritten by class (the same cleaning for the formula and each input's
# key), each with values worked by hand: SymPy's value must equal the hand-worked one, and papermath's.
_LN3 = float(np.log(3))


@pytest.mark.parametrize("latex, values, shapes, by_hand", [
    # a braced group with a script is one symbol (SymPy cannot script a group): 2 + 2·3
    (r"c = {\Delta x}_{1} + 2 {\Delta x}_{2}", {r"{\Delta x}_{1}": 2, r"{\Delta x}_{2}": 3}, {}, 8.0),
    # a superscript written first is the same script in TeX (SymPy drops a subscript after it): 3² + 1
    (r"y = \sigma^{2}_{t} + 1", {r"\sigma_{t}": 3}, {}, 10.0),
    # a word in a superscript names a quantity, it is no power: 5 − 2
    (r"y = \mathbf{x}^{\mathrm{cat}}_{s} - \mathbf{x}_{t}", {r"\mathbf{x}^{\mathrm{cat}}_{s}": 5, r"\mathbf{x}_{t}": 2},
     {}, 3.0),
    (r"y = W^{Q}_{i} - W^{K}_{i}", {r"W^{Q}_{i}": 5, r"W^{K}_{i}": 2}, {}, 3.0),
    # an italic or upright word is one symbol, not a product of its letters (`d` is no differential): 6 / 3
    (r"y = \frac{\mathit{pos}}{\mathrm{model}}", {r"\mathit{pos}": 6, r"\mathrm{model}": 3}, {}, 2.0),
    # a word applied to a bracket is a function; softmax of a vector: (1, 3) / 4
    (r"y = \mathrm{softmax}(u)", {"u": [0.0, _LN3]}, {"u": ("n",)}, [0.25, 0.75]),
    # \min\{a, b\} is \min(a, b): 2 + 1
    (r"y = \min\{a, b\} + 1", {"a": 2, "b": 5}, {}, 3.0),
    # an annotation is about the value, not part of it: (2 + 3)·4
    (r"y = \underbrace{a + b}_{\text{sum}} c", {"a": 2, "b": 3, "c": 4}, {}, 20.0),
    (r"y \overset{(a)}{=} a b", {"a": 2, "b": 3}, {}, 6.0),
    # a trailing clause says where the statement holds: 2 log 1 + 3
    (r"r = \beta \log p + q, \forall t", {r"\beta": 2, "p": 1, "q": 3}, {}, 3.0),
    # σ applied is the logistic sigmoid (the guides' reading): σ(0) = 1/2, σ(ln 3) = 3/4
    (r"p = \sigma(r_{1} - r_{2})", {"r_{1}": 3, "r_{2}": 3}, {}, 0.5),
    (r"p = \sigma(r_{1} - r_{2})", {"r_{1}": _LN3, "r_{2}": 0}, {}, 0.75),
    # a free index picks one element, the origin set by the sum over the whole array (schedule_free (23)):
    # t = 3 from γ's length, γ_t = γ[2] = 3, so 3² / (1 + 4 + 9)
    (r"c_{t + 1} = \frac{\gamma_{t}^{2}}{\sum_{i = 1}^{t} \gamma_{i}^{2}}", {r"\gamma": [1.0, 2.0, 3.0]},
     {r"\gamma": ("n",)}, 9 / 14),
])
def test_notation_classes_read_by_hand(latex, values, shapes, by_hand):
    ev = evaluate(latex, values, declared_shapes=shapes)
    reading = SR.read(ev)
    assert reading is not None and reading.agrees
    np.testing.assert_allclose(reading.value, by_hand, rtol=1e-9)


@pytest.mark.parametrize("latex, values, shapes, implementations, by_hand", [
    # a word the text names concretely (`--fn`): σ(0) = 1/2, σ(ln 3) = 3/4
    (r"y = \operatorname{Sigmoid}(u)", {"u": [0.0, _LN3]}, {"u": ("n",)}, {r"\operatorname{Sigmoid}": "sigmoid"},
     [0.5, 0.75]),
    # a Greek letter the text names (σ = tanh here, not the sigmoid convention): tanh(0)
    (r"p = \sigma(a)", {"a": 0.0}, {}, {r"\sigma": "tanh"}, 0.0),
])
def test_functions_the_text_names(latex, values, shapes, implementations, by_hand):
    ev = evaluate(latex, values, declared_shapes=shapes, implementations=implementations)
    reading = SR.read(ev)
    assert reading is not None and reading.agrees
    np.testing.assert_allclose(reading.value, by_hand, rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("latex, values, shapes, by_hand", [
    # a product in the order the text writes it: W x = (1·1 + 2·1, 3·1 + 4·1)
    ("y = W x", {"W": [[1.0, 2.0], [3.0, 4.0]], "x": [1.0, 1.0]}, {"W": ("n", "n"), "x": ("n",)}, [3.0, 7.0]),
    # two matrices: A B swaps B's columns of A's rows here (B a permutation)
    (r"y = A B", {"A": [[1.0, 2.0], [3.0, 4.0]], "B": [[0.0, 1.0], [1.0, 0.0]]}, {"A": ("n", "n"), "B": ("n", "n")},
     [[2.0, 1.0], [4.0, 3.0]]),
    # a transposed vector times a vector is their inner product: (1, 2)·((2, 1)(1, 1) − (1, 0)) = (1, 2)·(2, 3)
    (r"f = y^{\top} (A x - b)", {"y": [1.0, 2.0], "A": [[2.0, 1.0], [1.0, 1.0]], "x": [1.0, 1.0], "b": [1.0, -1.0]},
     {"y": ("n",), "A": ("n", "n"), "x": ("n",), "b": ("n",)}, 8.0),
    # the inverse of a square matrix: diag(2, 4)^{-1} (2, 4) = (1, 1)
    (r"z = (A)^{-1} v", {"A": [[2.0, 0.0], [0.0, 4.0]], "v": [2.0, 4.0]}, {"A": ("n", "n"), "v": ("n",)}, [1.0, 1.0]),
])
def test_products_in_the_texts_order(latex, values, shapes, by_hand):
    ev = evaluate(latex, values, declared_shapes=shapes)
    reading = SR.read(ev)
    assert reading is not None and reading.agrees
    np.testing.assert_allclose(reading.value, by_hand, rtol=1e-9)


def test_an_abstract_function_of_a_vector_takes_the_tests_double():
    """The double answers for the array argument the numbers used; SymPy computes the arithmetic around it."""
    ev = evaluate(r"y = F(\mathbf{v}) + 1", {r"\mathbf{v}": [1.0, 2.0]}, declared_shapes={r"\mathbf{v}": ("n",)})
    ((_, _, ((arguments, output),)),) = ev.abstract
    np.testing.assert_allclose(arguments[0], [1.0, 2.0])
    reading = SR.read(ev)
    assert reading is not None and reading.agrees
    np.testing.assert_allclose(reading.value, np.asarray(output) + 1)


@pytest.mark.parametrize("latex, values, shapes", [
    # a free index with a value but no sum saying where γ starts (γ_2 is γ[1] or γ[2]): no opinion
    (r"y = \gamma_{t} + 1", {r"\gamma": [1.0, 2.0, 3.0], "t": 2}, {r"\gamma": ("n",)}),
    # softmax of a matrix: over which axis is the notation's, not SymPy's to guess
    (r"y = \mathrm{softmax}(U)", {"U": [[0.0, 1.0], [2.0, 3.0]]}, {"U": ("n", "n")}),
    # σ is an input here (a standard deviation), so σ(a + b) is not read as a sigmoid
    (r"y = \sigma(a + b)", {r"\sigma": 2.0, "a": 1.0, "b": 3.0}, {}),
])
def test_no_opinion_where_the_notation_does_not_say(latex, values, shapes):
    ev = evaluate(latex, values, declared_shapes=shapes)
    assert SR.read(ev) is None and second_reader_check(ev) is None


@pytest.mark.parametrize("latex, rewritten", [
    (r"a = \underbrace{(1 - c)}_{\triangleq b} x", r"a = {(1 - c)} x"),
    (r"\overbrace{x + y}^{\text{note}} z", r"{x + y} z"),
    (r"C \overset{(a)}{=} b", r"C  =  b"),
    (r"\underbrace{x", r"\underbrace{x"),  # unbalanced: left as it is
])
def test_annotations_are_dropped(latex, rewritten):
    assert SR.without_annotations(latex) == rewritten


@settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.lists(_PIECES, max_size=40).map("".join))
def test_the_rewrites_are_total(text):
    """Whatever the text: `comparison_sides` gives sides or None, `clean` a string, `reader_forms` a text or
    `_NotRewritten` (the issue-12 fuzzing runs them on every formula)."""
    cut = SR.comparison_sides(text)
    assert cut is None or len(cut[0]) == len(cut[1]) + 1
    assert isinstance(SR.clean(text), str)
    assert isinstance(SR.without_annotations(text), str)
    try:
        side, draws = SR.reader_forms(text)
        assert isinstance(side, str) and isinstance(draws, dict)
    except SR._NotRewritten:
        pass


@pytest.mark.parametrize("text", [
    r"\mathbb{E}_{x} " * 2000 + "a",  # nested 𝔼 with no bracket
    r"\lVert a \rVert + " * 2000 + "b",
    r"\langle a, b \rangle " * 2000,
    "a_{t, i}^{*} " * 3000,
    r"a \le " * 3000 + "b",
    "(" * 5000 + r"a \le b",
    r"\mathbb{E}_{x} - " * 3000,
    r"\min\{a, " * 2000 + "b" + r"\}" * 2000,
    r"\underbrace{a}_{b} " * 2000,
    r"{\Delta x}_{1} " * 3000,
    r"\operatorname{Ab}(x) " * 3000,
])
def test_long_inputs_stay_bounded(text):
    """Long and deep inputs complete (each rewrite is one pass over the text per construct it rewrites)."""
    SR.comparison_sides(text)
    SR.clean(text)
    SR.without_annotations(text)
    try:
        SR.reader_forms(text)
    except SR._NotRewritten:
        pass


# --- session 12: the second reader reads the paper's own text, not papermath's rendering of its tree ---

def test_the_reader_reads_the_papers_text_not_papermaths_rendering():
    """`ev.latex` is papermath's rendering of its tree; the reader reads `ev.source_latex`. Without a text of the
    paper's own it has no (independent) opinion; `rendering=True` re-reads the rendering (a check named apart)."""
    ev = evaluate(r"\begin{aligned} y &= \left(1 - c\right) x \,, \end{aligned}", {"c": 0.25, "x": 2.0})
    assert ev.source_latex.startswith(r"\begin{aligned}") and ev.latex != ev.source_latex
    reading = SR.read(ev)
    assert reading is not None and reading.agrees and reading.value == pytest.approx(1.5)
    no_text = dataclasses.replace(ev, source_latex="")
    assert SR.read(no_text) is None and "no text of the paper's own" in SR.reading_or_reason(no_text)
    assert SR.read(no_text, rendering=True) is not None
    assert second_reader_check(ev).name == "second_reader_agrees"
    assert second_reader_check(no_text, rendering=True).name == "rendering_reread_agrees"


@pytest.mark.parametrize("source, text", [
    (r"\begin{aligned} a &= b \end{aligned}", "a &= b"),
    (r"\begin{alignat}{2} a &= b \end{alignat}", "a &= b"),
    # an indented continued line is layout; a `\quad` that starts a condition stays
    (r"a &= b &\qquad - c \\ &\quad + d", r"a &= b &  - c \\ &  + d"),
    (r"a = b \quad \text{for } t", r"a = b \quad \text{for } t"),
])
def test_paper_text_drops_layout_only(source, text):
    class Ev:
        source_latex = source
    assert SR.paper_text(Ev()) == text


@pytest.mark.parametrize("side, key, found", [
    # the paper's spelling and papermath's name of an input differ in fonts, braces, spaces, `|` for `\mid`
    (r"\frac{p_{\theta}(\boldsymbol{x}_0|\boldsymbol{c})}{2}", r"p_\theta (\mathbf{x}_{0} \mid \mathbf{c})",
     r"p_{\theta}(\boldsymbol{x}_0|\boldsymbol{c})"),
    (r"\log p^*_{\theta}(x|c)", r"p_\theta^{*}(x \mid c)", r"p_{\theta}^*(x|c)"),
    # not inside another name: an accent, or a script after it, makes it another quantity
    (r"\hat{p}(x|c)", r"p(x \mid c)", None),
    (r"p(x|c)_t", r"p(x \mid c)", None),
])
def test_an_input_is_found_in_the_papers_spelling(side, key, found):
    side = SR._subscript_first(side)
    spans = SR._spelled_in(side, key)
    assert [side[a:b] for a, b in spans] == ([found] if found else [])


@pytest.mark.parametrize("latex, read", [
    (r"K^T_1", r"K_{1}^{\top}"), (r"x^{\mathsf{T}} y", r"x^{\top} y"), (r"x^\text{T}", r"x^{\top}"),
    (r"x^{Tt}", r"x^{Tt}"),  # a superscript word, not T alone
])
def test_a_superscript_t_is_the_transpose(latex, read):
    assert SR._TRANSPOSE_T.sub(lambda _m: "^{\\top}", SR._subscript_first(latex)).replace("_1", "_{1}") == read


@pytest.mark.parametrize("latex, same", [
    (r"x^\prime_k", r"x'_k"), (r"{\rm cat}", r"\mathrm{cat}"), (r"\Tilde{p}", r"\tilde{p}"), (r"\dfrac12", r"\frac12"),
    (r"\left(1-c\right)x", r"(1-c)x"), (r"{\bm{\mu}}_{{\bm{\theta}}}", r"\mu_{\theta}"), (r"a^2 \,,", r"a^2"),
])
def test_spellings_tex_prints_alike_read_alike(latex, same):
    assert SR._parse(SR._without_trailing(latex)) == SR._parse(same)


@pytest.mark.parametrize("latex, applied", [
    # a name with a superscript before a bracket listing several arguments: a function applied to them
    (r"r^1(s_t, a_t, b_t)", True), (r"Q^2_t(b_t, c)", True),
    # one argument: power times a bracket, or an application — the text does not say; left to SymPy
    (r"V^1(s)", False), (r"x^2(a + b)", False),
])
def test_a_scripted_head_applied_to_several_arguments_is_a_function(latex, applied):
    assert ("@Qqfn" in SR._scripted_heads(latex)) is applied


def test_a_scripted_heads_name_is_the_same_in_either_spelling():
    assert SR.head_function_name(r"Q^{2}_{t}") == SR.head_function_name(r"Q^2_t") == SR.head_function_name(r"Q_t^{2}")
    assert SR.head_function_name(r"Q^{2}") != SR.head_function_name(r"Q^{1}")
