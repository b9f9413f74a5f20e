"""Roles from how the paper states them (issue 14, session 15): each mechanism on a self-written paragraph with its
negative, then on the corpus example that showed it (skipped without ../shared)."""
from __future__ import annotations

import pytest

from papermath.analysis.read import read_document
from papermath.latex import document_from_string

from conftest import corpus_equation, symbol_row

DOC = "\\documentclass{article}\n\\begin{document}\n%s\n\\end{document}\n"


def reading(body: str, number: str = "1"):
    return read_document(document_from_string(DOC % body), [number]).equations[0]


def row(body: str, latex: str, number: str = "1"):
    eq = reading(body, number)
    found = [s for s in eq.symbols if latex in (s.latex, s.symbol)]
    assert found, f"{latex} not among {[s.latex for s in eq.symbols]}"
    return found[0]


RECURRENCE = "\\begin{equation} x_{t+1} = (1 - c) x_t + c z \\end{equation}"
ENDS = "\\begin{equation} t_i = t_1 + \\frac{i-1}{N-1} (t_N - t_1) \\end{equation}"
NOISED = "where $x_0$ is the clean image.\n\\begin{equation} x_t = x_0 + \\sigma \\epsilon \\end{equation}"
MEMBER_CASES = [
    # --- the right side's earlier step of what the left side defines is a row of its own, computed by the rule …
    (RECURRENCE, "x_{t}", "computed", "the previous step of $x_{t + 1}$"),
    # … the left side keeps its own row
    (RECURRENCE, "x_{t + 1}", "defined here", "left-hand side"),
    # … the ends a closed-form sequence runs between are other members too
    (ENDS, "t_{1}", "computed", "another member of the sequence $t_{i}$"),
    # … a member a sentence defines on its own is what that sentence says (the clean image: data)
    (NOISED, "x_{0}", "input data", None),
]


@pytest.mark.parametrize("case", MEMBER_CASES, ids=lambda c: f"{c[1]}->{c[2]}")
def test_another_member_of_the_left_sides_sequence(case):
    body, symbol, want, cue = case
    found = row(body, symbol)
    assert found.role == want
    if cue is not None:
        assert found.role_cue.startswith(cue)


def test_an_inequality_between_members_splits_nothing():
    """`f(x_{t+1}) \\le f(x_t)` defines no member: one row for x, with both forms."""
    eq = reading("\\begin{equation} f(x_{t+1}) \\le f(x_t) \\end{equation}")
    assert [s.latex for s in eq.symbols if s.symbol == "x"] == ["x_{t + 1}"]


AFFINE_CASES = [
    # --- in a display that defines a function of an input, what multiplies the input is a linear map's weight …
    ("\\begin{equation} \\mathrm{FFN}(x) = \\max(0, x W_1 + b_1) W_2 + b_2 \\end{equation}", "W_{1}",
     "trained weight"),
    # … what multiplies what the function computed from the input as well
    ("\\begin{equation} \\mathrm{FFN}(x) = \\max(0, x W_1 + b_1) W_2 + b_2 \\end{equation}", "W_{2}",
     "trained weight"),
    # … and what is added to such a product is its bias
    ("\\begin{equation} \\mathrm{FFN}(x) = \\max(0, x W_1 + b_1) W_2 + b_2 \\end{equation}", "b_{2}",
     "trained weight"),
    ("\\begin{equation} g(\\mathbf{x}) = \\mathrm{Softmax}(\\mathbf{W}^{\\text{gate}} \\mathbf{x}) \\end{equation}",
     "\\mathbf{W}^{\\text{gate}}", "trained weight"),
    # … a product that defines no function of an input says nothing
    ("\\begin{equation} y = x W + b \\end{equation}", "W", "unknown"),
    # … nor does a loss, whose argument is what training changes
    ("\\begin{equation} L(\\theta) = \\| A \\theta - y \\|^2 \\end{equation}", "A", "unknown"),
    # … and the words still decide first
    ("where $W_1$ is a temperature hyperparameter.\n"
     "\\begin{equation} f(x) = x W_1 \\end{equation}", "W_{1}", "fixed setting"),
]


@pytest.mark.parametrize("case", AFFINE_CASES, ids=lambda c: f"{c[1]}->{c[2]}")
def test_the_weights_of_a_linear_map_of_the_input(case):
    body, symbol, want = case
    assert row(body, symbol).role == want


ALGORITHM = ("\\begin{algorithm}\\caption{Training}\\begin{algorithmic}[1]\n"
             "\\STATE \\textbf{Initialize:} discount factor $\\gamma$, actor parameters $\\theta^1$\n"
             "\\STATE Optimize $L$ w.r.t. $\\theta^1$\n\\end{algorithmic}\\end{algorithm}\n")
GRADIENT = "\\begin{equation} g = \\mathbb{E}_{s} [\\nabla_{\\theta^1} \\log \\pi(a | s)] \\end{equation}"


@pytest.mark.parametrize("body, symbol, want", [
    # --- a noun before a symbol in an algorithm line declares its role (actor parameters: trained weights) …
    (GRADIENT + "\n" + ALGORITHM, "\\theta^{1}", "trained weight"),
    # … a line that only uses it says nothing, nor does the paper without the box
    (GRADIENT + "\n" + ALGORITHM.replace("actor parameters $\\theta^1$", "the rest"), "\\theta^{1}", "unknown"),
    (GRADIENT, "\\theta^{1}", "unknown"),
])
def test_a_noun_in_an_algorithm_line(body, symbol, want):
    assert row(body, symbol).role == want


@pytest.mark.corpus
@pytest.mark.parametrize("paper, number, symbol, want", [
    ("schedule_free", "2", "x_{t}", "computed"),                      # x_{t+1} = (1 - c_{t+1}) x_t + c_{t+1} z_{t+1}
    ("schedule_free", "2", "x_{t + 1}", "defined here"),
    ("Tanh-Init", "u2", "x_{n}", "computed"),                         # x_{n+1} = \phi_a(x_n)
    ("OptimalSteps", "11", "\\mathbf{z}_{i - 1,r_{j}}", "computed"),   # z[i][j] = F(z[i-1][r[j]], …)
    ("attention-1706.03762", "2", "W_{1}", "trained weight"),         # FFN(x) = max(0, xW_1 + b_1) W_2 + b_2
    ("attention-1706.03762", "2", "b_{2}", "trained weight"),
    ("attention-1706.03762", "2", "x", "input data"),
    ("hyla", "u1", "\\mathbf{W}^{\\text{gate}}", "trained weight"),    # Softmax(Top_k(W^gate x))
    ("advantage-alignment", "8", "\\theta^{1}", "trained weight"),    # "Initialize: … actor parameters $\theta^1$"
])
def test_roles_on_the_corpus(paper, number, symbol, want):
    assert symbol_row(corpus_equation(paper, number), symbol).role == want


@pytest.mark.corpus
def test_the_earlier_member_quotes_the_sequences_sentence():
    """OptimalSteps (11): z[i-1][r[j]] is a member of z[i][j], which "we denote … as $\\bm{z}[i][j]$" defines."""
    quote = symbol_row(corpus_equation("OptimalSteps", "11"), "\\mathbf{z}_{i - 1,r_{j}}").definition.quote
    assert "we denote the optimal denoised result" in quote


POLAR = ("The input velocity $\\Delta x$ can also be represented as $(\\Delta r, \\theta)$ in polar coordinates, "
         "where $\\Delta r = \\|\\Delta x\\|$ is the displacement.\n"
         "\\begin{equation} y = f(\\Delta r) g(\\theta) \\end{equation}")


@pytest.mark.parametrize("body, symbol, want", [
    # --- the coordinates a sentence rewrites a quantity in have the role its noun gives it (the input's: data) …
    (POLAR, "\\theta", "input data"),
    # … though an equality computes one of them from it
    (POLAR, "\\Delta r", "input data"),
    # … without the rewriting the equality computes it
    (POLAR.replace("can also be represented as $(\\Delta r, \\theta)$ in polar coordinates, where", "has"),
     "\\Delta r", "computed"),
    # … and a whole whose noun names no role gives none
    ("The quantity $z$ can be written as $(a, b)$.\n\\begin{equation} y = a + b \\end{equation}", "a", "unknown"),
])
def test_the_coordinates_of_a_represented_quantity(body, symbol, want):
    assert row(body, symbol).role == want


@pytest.mark.corpus
@pytest.mark.parametrize("number, symbol", [("27", "\\theta"), ("27", "\\Delta r"), ("31", "\\theta")])
def test_coordinates_on_the_corpus(number, symbol):
    """grid-cell: "The input velocity $\\Delta x$ can also be represented as $(\\Delta r, \\theta)$ in polar
    coordinates, where $\\Delta r = \\|\\Delta x\\|$ …"."""
    found = symbol_row(corpus_equation("grid-cell-conformal-isometry", number), symbol)
    assert (found.role, found.role_cue.split(" (")[0]) == ("input data", "a coordinate of $\\Delta {\\bm{x}}$")


NETWORK = "We train a network $\\mu_\\theta$ with learnable parameters $\\theta$.\n"
SUBSCRIPT_CASES = [
    # --- a model applied to its input with a Greek subscript is written with its weights: a row for them …
    (NETWORK + "\\begin{equation} L = \\| u - \\mu_{\\theta}(x_t) \\|^2 \\end{equation}", "\\theta",
     "trained weight"),
    # … the trained weights even where no sentence names them
    ("\\begin{equation} L = - \\log q_{\\phi}(u | x_t) \\end{equation}", "\\phi", "trained weight"),
    # … what a sentence says it is, where one does
    ("where $\\lambda$ is the mixing weight, a hyperparameter.\n"
     "\\begin{equation} y = q_{\\lambda}(x) \\end{equation}", "\\lambda", None),
]


@pytest.mark.parametrize("case", SUBSCRIPT_CASES, ids=lambda c: f"{c[1]}->{c[2]}")
def test_the_weights_a_model_is_subscripted_with(case):
    body, symbol, want = case
    eq = reading(body)
    found = [s for s in eq.symbols if s.latex == symbol]
    if want is None:  # λ is no weight letter: no row of its own
        assert not found
    else:
        assert found and found[0].role == want


def test_a_latin_subscript_is_no_model_weight():
    """`p_t(x)`: a time, not weights; no row is added for it."""
    eq = reading("\\begin{equation} y = p_{t}(x) \\end{equation}")
    assert [s.role for s in eq.symbols if s.latex == "t"] in ([], ["index"])


CLEAN = ("The diffusion model adds Gaussian noise to a data point $x_0$ to give a noisy version $x_t$ of it.\n"
         "\\begin{equation} L = \\mathbb{E}_{x_0} \\| f(x_t) - x_0 \\|^2 \\end{equation}")
KERNEL = ("The model adds Gaussian noise to a data point $x_0$ in the forward process:\n"
          "\\begin{equation} q(x_t | x_0) = \\mathcal{N}(x_t | a_t x_0, s_t^2 I) \\end{equation}")


@pytest.mark.parametrize("body, symbol, want", [
    # --- a family first written at a member the paper defines alone keeps that member's row (the data) …
    (CLEAN, "x_{0}", "input data"),
    # … and its forms at running positions are a row of their own (the noisy version)
    (CLEAN, "x_{t}", "random sample"),
])
def test_running_members_beside_a_defined_first_member(body, symbol, want):
    assert row(body, symbol).role == want


def test_a_sentence_about_another_member_does_not_define_this_one():
    """"a data point $x_0$" defines x_0, a row of its own in the display, not the x_t beside it: no data role for
    x_t from it, and not its quote."""
    x_t = row(KERNEL, "x_{t}")
    assert x_t.role != "input data"
    assert x_t.definition is None or "data point" not in x_t.definition.quote
    assert row(KERNEL, "x_{0}").role == "input data"


@pytest.mark.corpus
@pytest.mark.parametrize("paper, number, symbol, want", [
    ("GMFlow", "3", "\\mathbf\\theta ", "trained weight"),            # \bm{\mu}_{\bm{\theta}}(\bm{x}_t)
    ("semanticist", "u1", "\\mathbf{x}_{t}", "random sample"),        # beside x_0 ~ q_data: "a noisy version x_t"
    ("semanticist", "u1", "\\mathbf{x}_{0}", "input data"),
])
def test_subscripts_and_members_on_the_corpus(paper, number, symbol, want):
    assert symbol_row(corpus_equation(paper, number), symbol).role == want


@pytest.mark.parametrize("body, symbol, want", [
    # --- "parameterized by a neural network $\phi$": what parameterizes the function is the network's weights …
    ("The reward $r(x)$ can be parameterized by a neural network $\\phi$.\n"
     "\\begin{equation} L(\\phi) = - \\log \\sigma(r_\\phi(x)) \\end{equation}", "\\phi", "trained weight"),
    # … a network named without "parameterized by" is the function it computes
    ("The reward is computed by a neural network $\\phi$.\n"
     "\\begin{equation} y = \\phi(x) \\end{equation}", "\\phi", "function"),
])
def test_parameterized_by_a_network(body, symbol, want):
    assert row(body, symbol).role == want


@pytest.mark.corpus
def test_parameterized_by_a_network_on_the_corpus():
    """DiffusionDPO (4): "$r(\\boldsymbol{c},\\boldsymbol{x}_0)$ can be parameterized by a neural network $\\phi$"."""
    assert symbol_row(corpus_equation("DiffusionDPO", "4"), "\\phi").role == "trained weight"


@pytest.mark.parametrize("display, symbol, want", [
    # --- a coefficient written with the step alone that scales a term of the display defining that step's
    # quantity is a schedule …
    ("x_t = \\alpha_t x_0 + \\beta_t \\epsilon", "\\beta_{t}", "fixed setting"),
    ("q(x_t | x_0) = \\mathcal{N}(x_t | \\alpha_t x_0, \\sigma_t^2 I)", "\\sigma_{t}", "fixed setting"),
    ("x_{t+1} = x_t - \\eta_t g_t", "\\eta_{t}", "fixed setting"),
    # … a coefficient at another index, or in a display that defines nothing at a step, is not
    ("x_t = \\alpha_s x_0 + \\epsilon", "\\alpha_{s}", "unknown"),
    ("y = \\alpha_t x_0 + \\beta_t \\epsilon", "\\beta_{t}", "unknown"),
])
def test_a_coefficient_at_the_defined_step_is_a_schedule(display, symbol, want):
    assert row(f"\\begin{{equation}} {display} \\end{{equation}}", symbol).role == want


@pytest.mark.parametrize("body, want", [
    # --- the step a run stops at is a horizon, a setting, though written as an index …
    ("Schedules require the optimization stopping step $T$ in advance.\n"
     "\\begin{equation} F(x_T) \\le \\frac{c}{\\sqrt{T}} \\end{equation}", "fixed setting"),
    # … a step the sentence only names stays the index it is
    ("The bound holds at the step $T$.\n\\begin{equation} F(x_T) \\le \\frac{c}{\\sqrt{T}} \\end{equation}", "index"),
])
def test_a_stopping_step_is_a_setting(body, want):
    assert row(body, "T").role == want


@pytest.mark.corpus
@pytest.mark.parametrize("paper, number, symbol, want", [
    ("OptimalSteps", "1", "\\alpha_{t}", "fixed setting"),   # q(x_t|x_0) = N(x_t | alpha_t x_0, sigma_t^2 I)
    ("OptimalSteps", "1", "\\sigma_{t}", "fixed setting"),
])
def test_schedule_coefficients_on_the_corpus(paper, number, symbol, want):
    assert symbol_row(corpus_equation(paper, number), symbol).role == want
