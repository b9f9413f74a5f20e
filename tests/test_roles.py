"""Roles from mechanisms the text and the structure give (issue 14): each mechanism on a self-written paragraph,
then on the corpus example that showed it (skipped without ../shared)."""
from __future__ import annotations

import pytest

from papermath.analysis.read import read_document
from papermath.latex import document_from_string, load_document

from conftest import corpus_paper

DOC = "\\documentclass{article}\n\\begin{document}\n%s\n\\end{document}\n"


def reading_of(body: str, number: str = "1"):
    return read_document(document_from_string(DOC % body), [number]).equations[0]


def role(eq, latex: str) -> str:
    found = [s for s in eq.symbols if latex in (s.latex, s.symbol)]
    assert found, f"{latex} not among {[s.latex for s in eq.symbols]}"
    return found[0].role


@pytest.mark.parametrize("body, symbol, want", [
    # an equality in the prose whose left side is the symbol: computed by it
    ("For each head the inputs are projected into keys $K = W X$ with weights $W$ and inputs $X$.\n"
     "\\begin{equation} A = K^\\top q \\end{equation}", "K", "computed"),
    ("Here $A(s, a) := Q(s, a) - V(s)$ denotes the advantage of the agent.\n"
     "\\begin{equation} J = \\sum_t A(s_t, a_t) \\end{equation}", "A", "computed"),
    # a named loss on the right side is computed from the model's outputs
    ("\\begin{equation} \\mathcal{L} = \\mathcal{L}_{ce} + \\lambda \\mathcal{L}_{dice} \\end{equation}",
     "\\mathcal{L}_{ce}", "computed"),
    # a statistic or a derivative of something is computed from it
    ("\\begin{equation} z = (x - M) / \\sigma \\end{equation}\n"
     "where $\\sigma$ is the standard deviation of the logits.",
     "\\sigma", "computed"),
    ("\\begin{equation} g = \\alpha' x \\end{equation}\n"
     "where $\\alpha'$ is the first order derivative of the schedule.",
     "\\alpha'", "computed"),
    # a count or a size the prose gives the symbol
    ("Consider a feedforward network with $L$ layers.\n\\begin{equation} y = L w \\end{equation}", "L",
     "fixed setting"),
    ("We unlearn a set $A$ of size $k$.\n\\begin{equation} y = k w \\end{equation}", "k", "fixed setting"),
])
def test_role_mechanisms(body, symbol, want):
    assert role(reading_of(body), symbol) == want


@pytest.mark.parametrize("body, symbol, want", [
    # a column, a slice, an entry of another symbol has its role
    ("The inputs $X \\in \\mathbb{R}^{D \\times T}$ are given, and $x_k \\in \\mathbb{R}^D$ the $k$-th column of $X$.\n"
     "\\begin{equation} y = W x_k \\end{equation}", "x", "input data"),
    # a noun the prose attaches to the symbol where it does not define it
    ("The goal is to estimate $\\alpha$ based on observed documents $\\{X_i\\}_{i=1}^N$.\n"
     "\\begin{equation} y = f(X) \\end{equation}", "X", "input data"),
    # a constant object is a setting
    ("\\begin{equation} y = f(x, \\emptyset) \\end{equation}\nwhere $\\emptyset$ is the null condition.",
     "\\emptyset", "fixed setting"),
    # a bare "parameter" the paper sets to values is a setting, not a trained weight
    ("The two parts are balanced through a parameter $\\lambda$.\n\\begin{equation} y = \\lambda a + b "
     "\\end{equation}\nWe find that $\\lambda=0$ behaves like deletion.", "\\lambda", "fixed setting"),
])
def test_role_mechanisms_from_other_sentences(body, symbol, want):
    assert role(reading_of(body), symbol) == want


def test_a_hyphenated_name_is_no_count():
    eq = reading_of("We find an $\\epsilon$-saddle point of $f$.\n\\begin{equation} y = \\epsilon w \\end{equation}")
    assert role(eq, "\\epsilon") != "fixed setting"


def test_a_distribution_parameterized_by_a_weight_is_not_trained():
    eq = reading_of("A mixture distribution parameterized by $\\lambda$ weighs the two densities.\n"
                    "\\begin{equation} y = \\lambda a + (1 - \\lambda) b \\end{equation}")
    assert role(eq, "\\lambda") != "trained weight"
    eq = reading_of("A network parameterized by $\\theta$ predicts the noise.\n"
                    "\\begin{equation} y = \\theta x \\end{equation}")
    assert role(eq, "\\theta") == "trained weight"


@pytest.mark.corpus
@pytest.mark.parametrize("paper, number, symbol, want", [
    ("hyla", "1", "\\mathrm{K}_{h}", "computed"),                 # keys $K_h = W^{key}_h X$
    ("advantage-alignment", "3", "A^{1}", "computed"),             # $A^1(s, a, b) := Q^1(s, a, b) - V^1(s)$ denotes …
    ("Diff-Transformer", "5", "\\operatorname{SwiGLU}", "function"),  # a named operation stays a function
    ("eomt", "2", "\\mathcal{L}_{\\text{bce}}", "computed"),        # a named loss
    ("SISS", "4", "k", "fixed setting"),                           # "unlearning set $A$ of size $k$"
    ("Tanh-Init", "eq:u6", "L", "fixed setting"),                  # "a feedforward neural network with $L$ layers"
    ("TabDiff", "9", "\\alpha'_{t}", "computed"),                  # "the first order derivative of $\\alpha_t$"
    ("hyla", "1", "D^{\\text{head}}", "fixed setting"),            # $D^{head} = D/H$: a constant from constants
    ("hyla", "2", "\\mathbf{x}", "input data"),                     # "$x_k$ … the $k$-th column of $X$"
    ("hyla", "2", "a", "computed"),                                 # entries of 𝒜, which (1) computes
    ("SISS", "5", "\\lambda", "fixed setting"),                     # "a parameter λ" … "λ=0 and λ=1 behave like"
    ("semanticist", "eq:u7", "\\emptyset", "fixed setting"),        # "the null condition"
])
def test_role_mechanisms_on_the_corpus(paper, number, symbol, want):
    eq = read_document(load_document(str(corpus_paper(paper))), [number]).equations[0]
    assert role(eq, symbol) == want


@pytest.mark.parametrize("lead, want", [
    ("The general form of the transformation can be formulated as:", "definition"),
    ("It defines a truncation threshold:", "definition"),
    ("The update is then", "computation"),
])
def test_a_lead_in_that_defines_makes_a_definition(lead, want):
    eq = reading_of(f"{lead}\n\\begin{{equation}} n = \\beta \\cdot s \\end{{equation}}")
    assert eq.kind == want


def test_an_appendix_lemma_computes_nothing_in_the_main_text():
    # SISS (2): an appendix lemma's ε = ½Lt + … does not compute the noise ε of the loss
    eq = read_document(load_document(str(corpus_paper("SISS"))), ["2"]).equations[0]
    assert role(eq, "\\epsilon") != "computed"


# --- roles from what the rest of the paper does with a symbol (papermath.analysis.roles) ----------------------
@pytest.mark.parametrize("body, symbol, want", [
    # the noun right before the symbol in a sentence that does not define it
    ("Noting that the output projections $W_h$ already form a deep linear network.\n"
     "\\begin{equation} y = W_h x \\end{equation}", "W_{h}", "trained weight"),
    # a display that draws the symbol
    ("\\begin{equation} x_t = a x + b \\epsilon, \\quad \\epsilon \\sim \\mathcal{N}(0, I) \\end{equation}\n"
     "\\begin{equation} L = \\| \\epsilon - e(x_t) \\|^2 \\end{equation}", "\\epsilon", "random sample"),
    # an argument of the function the display defines is its input
    ("\\begin{equation} \\mathrm{FFN}(x) = \\max(0, x W_1) W_2 \\end{equation}", "x", "input data"),
    # two statistics of one thing
    ("\\begin{equation} y = (x - \\mu) / \\sigma \\end{equation}\n"
     "The terms $\\mu$ and $\\sigma$ denote the mean and variance of the input.", "\\sigma", "computed"),
    # … and the first of the coordinated subjects shares the predicate written after the last
    ("\\begin{equation} y = (x - \\mu) / \\sigma \\end{equation}\n"
     "The terms $\\mu$ and $\\sigma$ denote the mean and variance of the input.", "\\mu", "computed"),
    # a distribution's parameters are set, not trained
    ("The density of a Gumbel distribution with parameters $\\mu, \\sigma$ is\n"
     "\\begin{equation} p(x) = \\exp(-(x - \\mu) / \\sigma) / \\sigma \\end{equation}", "\\sigma", "fixed setting"),
    # a data set named by what it is for
    ("We remove the unlearning set $A$ from the model.\n\\begin{equation} L = \\sum_{a \\in A} f(a) \\end{equation}",
     "A", "input data"),
    # a model kept fixed, applied to arguments
    ("We sample from the old policy model $\\pi_{old}$.\n"
     "\\begin{equation} r = \\pi(o) / \\pi_{old}(o) \\end{equation}", "\\pi_{old}", "frozen model"),
    # "derived from" computes
    ("\\begin{equation} J = \\sum_i A_i \\end{equation}\nwhere $A_i$ is the advantage, derived from the rewards.",
     "A", "computed"),
    # a constant the statement holds for
    ("The average is equivalent for any real $r>-1$.\n\\begin{equation} c_{t} = \\frac{r+1}{t+r+1} \\end{equation}",
     "r", "fixed setting"),
    # an index the words call "the dimension" names which one: still an index
    ("\\begin{equation} P_{(p, 2i)} = \\sin(p / 10^{2i/d}) \\end{equation}\nwhere $p$ is the position and $i$ is the "
     "dimension.", "i", "index"),
    # a position or location the agent is at is the input of the representation
    ("Suppose the agent is at the self-position $x \\in \\mathbb{R}^2$.\n"
     "\\begin{equation} y = v(x) + u \\end{equation}", "x", "input data"),
])
def test_roles_from_use(body, symbol, want):
    assert role(reading_of(body), symbol) == want


@pytest.mark.parametrize("body, symbol", [
    # a statement about a function (an inequality, an identity using it on both sides) defines none of its inputs
    ("\\begin{equation} f(a) \\ge f(b) + g(b) (a - b) \\end{equation}", "a"),
    ("\\begin{equation} F(a) = F(b) + c (a - b) \\end{equation}", "a"),
    # a loss's argument is what training changes, not data
    ("\\begin{equation} L(w) = \\| w \\|^2 \\end{equation}", "w"),
    # a density's argument is the variable it is a density of
    ("\\begin{equation} q(z \\mid y) = \\mathcal{N}(z; y, 1) \\end{equation}", "z"),
])
def test_no_input_from_a_statement_that_defines_no_function(body, symbol):
    assert role(reading_of(body), symbol) != "input data"


def test_weighing_is_honest_when_the_evidence_splits():
    from papermath.analysis.roles import Evidence, weigh
    assert weigh([]) == ("unknown", None)
    assert weigh([Evidence("input data", "a", 1), Evidence("random sample", "b", 1)]) == ("unknown", None)
    assert weigh([Evidence("input data", "a", 1), Evidence("random sample", "b", 2)]) == ("random sample", "b")


@pytest.mark.parametrize("quote, math, phrase", [
    ("Noting that the output and value projections $W$ already form", "W", "output and value projections"),
    ("the inputs are projected into keys $K$ with", "K", "keys"),
    ("packed together into a matrix $Q$.", "Q", "matrix"),
    ("for the $k$-th column $x$ of", "x", None),           # another formula inside the phrase
    ("$x$ is given", "x", None),                             # nothing before it
])
def test_noun_before(quote, math, phrase):
    from papermath.analysis.roles import noun_before
    assert noun_before(quote, math) == phrase


# --- draws: which symbol a draw is of, and where it draws from -------------------------------------------------
@pytest.mark.parametrize("body, symbol, want", [
    # a draw from the data (a distribution labelled data, or a symbol the words call a dataset) is input data
    ("Let $x_0 \\sim q_{\\text{data}}(x_0)$ be an image.\n\\begin{equation} L = \\| x_0 - f(x_0) \\|^2 \\end{equation}",
     "x_{0}", "input data"),
    # the trajectory an expectation draws from the policy's distribution is a random sample
    ("Each trajectory $\\tau$ is collected by the agents.\n"
     "\\begin{equation} J = \\mathbb{E}_{\\tau \\sim \\mathrm{Pr}^{\\pi}} [ R(\\tau) ] \\end{equation}",
     "\\tau", "random sample"),
    # … and stays one where a later display averages over it without writing the draw again
    ("Each trajectory $\\tau$ is collected by the agents.\n"
     "\\begin{equation} J = \\mathbb{E}_{\\tau \\sim \\mathrm{Pr}^{\\pi}} [ R(\\tau) ] \\end{equation}\n"
     "\\begin{equation} G = \\mathbb{E}_{\\tau} [ R(\\tau)^2 ] \\end{equation}", "\\tau", "random sample"),
    # a value named as a case ("if $m_i = 1$") is no setting; "we set … to $\\lambda = 0.5$" is
    ("The token is masked if $m_i=1$.\n\\begin{equation} L = \\sum_i m_i y_i \\end{equation}", "m_{i}", "unknown"),
    ("We set the coefficient to $\\lambda=0.5$.\n\\begin{equation} L = A + \\lambda B \\end{equation}", "\\lambda",
     "fixed setting"),
    # "estimated using" computes
    ("The probabilities $p_t$ are estimated using known documents.\n\\begin{equation} L = \\sum_t p_t \\end{equation}",
     "p_{t}", "computed"),
    # a display that defines a sequence γ_t computes none of the bare constant γ
    ("We use the step size $\\gamma$.\n\\begin{equation} \\gamma_t = \\frac{D}{\\sqrt{t}} \\end{equation}\n"
     "\\begin{equation} z_{t+1} = z_t - \\gamma g_t \\end{equation}", "\\gamma", "fixed setting"),
])
def test_roles_from_draws_and_values(body, symbol, want):
    eq = read_document(document_from_string(DOC % body)).equations[-1]
    assert role(eq, symbol) == want


def test_a_draw_of_another_member_of_the_sequence_is_not_this_symbol():
    # x_T ~ N(0, I) draws the start of the chain, not the x_t the equation uses
    body = ("Start from $x_T \\sim \\mathcal{N}(0, I)$.\n\\begin{equation} x_{t-1} = x_t - h v(x_t) \\end{equation}")
    eq = read_document(document_from_string(DOC % body)).equations[-1]
    assert role(eq, "x_{t - 1}") != "random sample"


# --- session 5: mechanisms found on the blind set roles_blind/s5.jsonl, each on a self-written paper -----------------
@pytest.mark.parametrize("body, symbol, want", [
    # every member of a chain of equalities that ends in a number is set to it
    ("\\begin{equation} L = A + \\lambda B - \\gamma C \\end{equation}\nWe set $\\lambda = \\gamma = 10^{-4}$.",
     "\\gamma", "fixed setting"),
    ("\\begin{equation} L = A + \\lambda B - \\gamma C \\end{equation}\nWe set $\\lambda = \\gamma = 10^{-4}$.",
     "\\lambda", "fixed setting"),
    # the words "the logit function" outrank what the letter ℓ usually names (a loss)
    ("\\begin{equation} L = \\ell(b x) + \\lambda x^2 \\end{equation}\n"
     "where $\\ell$ is the logit function such that $\\ell(t) = \\log(1 + \\exp(-t))$.", "\\ell", "function"),
    # a setting noun on a symbol no index runs over: the equality says how the paper chose it
    ("\\begin{equation} f(x) = \\frac{\\rho}{6} x^3 + b x \\end{equation}\n"
     "We set the regularization coefficient $\\rho = 1/(20n)$.", "\\rho", "fixed setting"),
    # a display that sets the symbol to numbers only: a constant, not computed
    ("\\begin{equation} f(x) = y^\\top (A x - b) \\end{equation}\n"
     "\\begin{equation} A = \\begin{bmatrix} 1 & -1 \\\\ 0 & 1 \\end{bmatrix} \\end{equation}", "A", "fixed setting"),
    # a sentence that draws the symbol in the active voice
    ("\\begin{equation} f(x) = y^\\top (A x - b) \\end{equation}\n"
     "We generate each element in $b$ as independent Rademacher variables.", "b", "random sample"),
    # an equality whose left side is the symbol's square computes the symbol
    ("\\begin{equation} dx = g_t x \\, dt \\end{equation}\n"
     "where $g_t^2 = \\frac{d\\sigma_t^2}{dt}$.", "g_{t}", "computed"),
    # a symbol declared as a map is a function, whatever noun follows
    ("\\begin{equation} z_{t+1} = z_t - F(z_t) \\end{equation}\n"
     "where $F: \\mathbb{R}^d \\rightarrow \\mathbb{R}^d$ is the gradient field of a convex function.", "F",
     "function"),
    # the letter that ends a sum's range is a count even where it is also written as a subscript
    ("\\begin{equation} y_i = \\tanh(w_{i1} x_1 + \\cdots + w_{in} x_n) = \\sum_{j=1}^n w_{ij} x_j \\end{equation}",
     "n", "fixed setting"),
])
def test_role_mechanisms_s5(body, symbol, want):
    eq = read_document(document_from_string(DOC % body)).equations[0]
    assert role(eq, symbol) == want


def test_a_value_set_in_another_part_does_not_decide_a_reused_letter():
    # "Define λ = M‖z‖" in the method, "We set λ = γ = 10^{-4}" in the experiments: the method's λ is computed
    body = ("\\section{Method}\nDefine $\\lambda = M \\|z_t\\|$.\n"
            "\\begin{equation} h = (U + \\lambda I)^{-1} g \\end{equation}\n"
            "\\section{Experiments}\nWe set $\\lambda = \\gamma = 10^{-4}$.\n"
            "\\begin{equation} L = A + \\lambda B - \\gamma C \\end{equation}")
    doc = read_document(document_from_string(DOC % body))
    assert role(doc.equations[0], "\\lambda") == "computed"
    assert role(doc.equations[1], "\\lambda") == "fixed setting"


def test_a_chained_value_is_not_an_indexed_member():
    body = ("We set $\\lambda = \\gamma = 10^{-4}$.\n"
            "\\begin{equation} L = A + \\lambda B - \\gamma_t C \\end{equation}")
    assert role(read_document(document_from_string(DOC % body)).equations[0], "\\gamma_{t}") != "fixed setting"


@pytest.mark.parametrize("body, want", [
    # an optimum at the top of the left side: the problem to solve
    ("\\begin{equation} \\min_{x} \\max_{y} f(x, y) = \\frac{\\rho}{6}\\|x\\|^3 + y^\\top (A x - b) \\end{equation}",
     "objective"),
    # an ODE / SDE: how the state changes along t
    ("\\begin{equation} dx_t = [f_t x_t - \\frac{1}{2} g_t^2 s(x_t)] dt \\end{equation}", "update rule"),
    # one step from x to x'
    ("Take one step of gradient descent from $x$ with step size $t$:\n"
     "\\begin{equation} x' = x - t(\\nabla f(x) + v) \\end{equation}", "update rule"),
    # a part of the display is a set
    ("\\begin{equation} n = \\beta \\cdot s, \\quad S = \\{ i \\mid l_i \\geq n \\} \\end{equation}", "definition"),
    # a sequence given in closed form by its index
    ("\\begin{equation} t_i = \\frac{i}{N} \\end{equation}", "definition"),
    ("\\begin{equation} t_i = (t_1^{1/\\rho} + \\frac{i-1}{N-1}(t_N^{1/\\rho} - t_1^{1/\\rho}))^{\\rho}"
     " \\end{equation}", "definition"),
    # … but not one computed from data or a draw
    ("\\begin{equation} x_t = x_0 + \\sigma t \\epsilon, \\quad \\epsilon \\sim \\mathcal{N}(0, I) \\end{equation}",
     "computation"),
    ("\\begin{equation} y_i = \\tanh(a_i x_i) \\end{equation}", "computation"),
])
def test_kind_mechanisms_s5(body, want):
    assert reading_of(body).kind == want


def test_a_symbol_written_with_the_models_weights_is_the_model():
    # θ is named the model's parameters and written as a model's subscript: v_θ is that model (a function), even
    # where the sentences about v_θ give no noun with a role
    body = ("Here $\\theta$ denotes the parameters of the denoising model $\\epsilon_\\theta(x_t)$, and we use "
            "$v_\\theta$ to represent the direction strategy.\n"
            "\\begin{equation} x_t = x_s + v_\\theta (t - s) \\end{equation}")
    assert role(read_document(document_from_string(DOC % body)).equations[0], "v_\\theta ") == "function"


def test_an_unspoken_term_of_the_model_stays_unknown():
    body = ("Here $\\theta$ denotes the parameters of the model $\\epsilon_\\theta(x_t)$.\n"
            "\\begin{equation} L = E_\\theta^{(w)} - E_\\theta^{(l)} \\end{equation}")
    eq = read_document(document_from_string(DOC % body)).equations[0]
    assert {s.role for s in eq.symbols if s.latex.startswith("E_")} <= {"unknown"}


@pytest.mark.parametrize("description, want", [
    ("the fraction of T-shirts observed from sampling images", None),     # the images belong to another noun
    ("two patches from the images", "input data"),                         # a part: what it is a part of
    ("a pair of a partial point cloud and its ground-truth", "input data"),
    ("the number of tokens", "fixed setting"),                             # a count, whatever it counts
])
def test_a_complement_gives_a_role_only_to_a_container_or_a_count(description, want):
    from papermath.analysis.cues import role_from_description
    found = role_from_description(description)
    assert (found[0] if found else None) == want


def test_states_and_actions_of_a_policy_are_drawn():
    # in a paper about agents acting under a policy for rewards, a state or an action is drawn by the policy and
    # the dynamics (a random sample), not data the reader supplies
    rl = ("The agent follows a policy $\\pi$ in an environment and receives a reward. " * 5)
    body = (rl + "\nLet $s$ be the current state.\n"
            "\\begin{equation} Q(s, a) = r(s, a) + \\gamma V(s) \\end{equation}")
    eq = read_document(document_from_string(DOC % body)).equations[0]
    assert role(eq, "s") == "random sample"


def test_a_probability_named_on_the_left_is_defined():
    body = ("\\begin{equation} \\text{Pr}_{\\mu}(\\tau) = \\mu(s_0) \\pi(a_0 | s_0) P(s_1 | s_0, a_0) "
            "\\end{equation}")
    assert reading_of(body).kind == "definition"
