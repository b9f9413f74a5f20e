"""Roles, shapes and kinds for the causes of non-quote spoilers (issue 14, session 13): each mechanism on a
self-written paragraph with its negatives, then on the corpus example that showed it (skipped without ../shared)."""
from __future__ import annotations

import pytest

from papermath.analysis.read import read_document
from papermath.latex import document_from_string

from conftest import corpus_equation

DOC = "\\documentclass{article}\n\\begin{document}\n%s\n\\end{document}\n"


def row(body: str, latex: str, number: str = "1"):
    eq = read_document(document_from_string(DOC % body), [number]).equations[0]
    found = [s for s in eq.symbols if latex in (s.latex, s.symbol)]
    assert found, f"{latex} not among {[s.latex for s in eq.symbols]}"
    return found[0]


DIFFUSION = ("Let $\\{x_t : t \\in [0, 1]\\}$ denote a sequence of data in the diffusion process indexed by a "
             "continuous time variable $t$, where $x_0 \\sim p_0$ are i.i.d. samples from real data distribution "
             "and $x_1 \\sim p_1$ are pure noise from prior distribution.\n")

ROLE_CASES = [
    # --- the states a diffusion process runs through are its (noised) samples …
    (DIFFUSION + "\\begin{equation} y = W x_t \\end{equation}", "x_{t}", "random sample"),
    # … while a sequence of data that no process noises stays data
    ("Let $\\{x_t\\}$ denote a sequence of data indexed by a continuous time variable $t$.\n"
     "\\begin{equation} y = W x_t \\end{equation}", "x_{t}", "input data"),
    ("Let $\\{x_t\\}$ denote the data of the training set.\n"
     "\\begin{equation} y = W x_t \\end{equation}", "x_{t}", "input data"),
    # --- a draw the sentence says is of the data is input data …
    (DIFFUSION + "\\begin{equation} y = W x_0 \\end{equation}", "x_{0}", "input data"),
    # … a draw of noise a sample
    ("where $z \\sim p_1$ is pure noise from the prior distribution.\n"
     "\\begin{equation} y = W z \\end{equation}", "z", "random sample"),
    ("where $z \\sim p_1$ are samples from the model.\n"
     "\\begin{equation} y = W z \\end{equation}", "z", "random sample"),
    # --- a part named by a word label (`x^{\\text{cat}}_t`) has the role of the whole with its indices …
    (DIFFUSION + "\\begin{equation} y = W x^{\\text{cat}}_0 \\end{equation}", "x^{\\text{cat}}_{0}", "input data"),
    (DIFFUSION + "\\begin{equation} p(x^{\\text{cat}}_s \\mid x^{\\text{cat}}_t) = f(x_t) \\end{equation}",
     "x^{\\text{cat}}_{t}", "random sample"),
    # … but a whole only the bare letter is said of decides nothing about which member
    ("Each entry $x$ is a data point.\n\\begin{equation} y = W x^{\\text{cat}}_s \\end{equation}",
     "x^{\\text{cat}}_{s}", "unknown"),
    # … and a letter label is another quantity (a winning sample), never a part
    (DIFFUSION + "\\begin{equation} y = W x^{\\mathrm{w}}_0 \\end{equation}", "x^\\mathrm{w}_{0}", "unknown"),
    # --- the density another display defines, used bare (`E_q`), is a function, not a value
    ("The forward process is\n\\begin{equation} q(x_t \\mid x_0) = \\mathcal{N}(x_t; x_0, t I) \\end{equation}\n"
     "and we train with\n\\begin{equation} L = \\mathbb{E}_q \\| f(x_t) - x_0 \\|^2 \\end{equation}", "q", "function",
     "2"),
    # … a quantity another display computes stays computed
    ("\\begin{equation} r = \\| x - y \\| \\end{equation}\n"
     "\\begin{equation} L = \\mathbb{E}_x r \\end{equation}", "r", "computed", "2"),
]


SLICES = ("the output projections $W_h$ are defined as the slices of $W$ such that "
          "$W = \\bigoplus_{h=1}^H W_h$, where $\\oplus$ denotes concatenation.\n"
          "\\begin{equation} y = W x \\end{equation}")
REWRITTEN = ("\\begin{align} f(x) &= \\sum_{k} (\\sum_{h} a_{h,k} U_h) x_k \\label{a} \\\\ "
             "&= \\sum_{k} V_{k} x_k \\label{b} \\end{align}\n")
ROLE_CASES += [
    # --- a whole written as the concatenation of its own slices is what the slices are, not computed …
    (SLICES, "W", "trained weight"),
    # … an equality that computes it from other things stays computed
    ("the output projections $W_h$ are learned, and $W = \\sum_{h=1}^H a_h W_h$.\n"
     "\\begin{equation} y = W x \\end{equation}", "W", "computed"),
    # --- a symbol new in a row that rewrites the row before, which nothing mentions, names a part of it …
    (REWRITTEN, "V_{k}", "computed", "2"),
    # … a symbol the row before writes too is not new
    (REWRITTEN.replace("U_h", "V_h"), "V_{k}", "unknown", "2"),
]

ROLE_CASES += [
    # --- a noun before a comma that lists symbols "respectively" is each listed symbol's
    ("The rates are estimated using collections of known documents, $\\{X_j^P\\}_{j=1}^{n}$ and "
     "$\\{X_j^Q\\}_{j=1}^{n}$, respectively.\n\\begin{equation} p = \\sum_{j=1}^{n} f(X_j^P) \\end{equation}",
     "X^{P}_{j}", "input data"),
    # … without "respectively" the comma ends the noun phrase: nothing decides
    ("We use known documents, $\\{X_j^P\\}_{j=1}^{n}$ and $\\{X_j^Q\\}_{j=1}^{n}$ are kept.\n"
     "\\begin{equation} p = \\sum_{j=1}^{n} f(X_j^P) \\end{equation}", "X^{P}_{j}", "unknown"),
    # --- a parameter of a distribution the sentence fits to something is computed by the fit …
    ("We approximate the prediction $q(u)$ as an isotropic Gaussian surrogate $\\mathcal{N}(u; \\mu_c, s_c^2 I)$ "
     "by matching the mean and variance.\n\\begin{equation} w(u) = \\mathcal{N}(u; \\mu_c, s_c^2 I) "
     "\\end{equation}", "\\mu_{c}", "computed"),
    ("We approximate the prediction $q(u)$ as an isotropic Gaussian surrogate $\\mathcal{N}(u; \\mu_c, s_c^2 I)$ "
     "by matching the mean and variance.\n\\begin{equation} w(u) = \\mathcal{N}(u; \\mu_c, s_c^2 I) "
     "\\end{equation}", "s_{c}", "computed"),
    # … of a distribution a sentence only writes, nothing
    ("The prior is $\\mathcal{N}(u; \\mu_c, s_c^2 I)$.\n\\begin{equation} w(u) = \\mathcal{N}(u; \\mu_c, "
     "s_c^2 I) \\end{equation}", "s_{c}", "unknown"),
]

SCHEDULE = ("Given a noise scheduling function $\\sigma_t$, the reverse step is\n"
            "\\begin{equation} p(x_{t-1} | x_t) = \\mathcal{N}(x_{t-1}; \\mu(x_t), "
            "\\sigma_{t|t-1}^2 \\frac{\\sigma_{t-1}^2}{\\sigma_t^2} I) \\end{equation}")
ROLE_CASES += [
    # --- a step of a schedule (`\\sigma_{t|t-1}`) is the schedule's kind of quantity …
    (SCHEDULE, "\\sigma_{t \\mid t - 1}", "fixed setting"),
    # … and nothing when nothing says what the schedule is
    (SCHEDULE.replace("Given a noise scheduling function $\\sigma_t$, the", "The"), "\\sigma_{t \\mid t - 1}",
     "unknown"),
]


@pytest.mark.parametrize("latex, keys", [
    # a subscript with a conditional bar names a transition, a quantity of its own, not a member at a position
    ("\\sigma_{t|t-1}^2 \\sigma_t^2", ["\\sigma_{t \\mid t - 1}", "\\sigma"]),
    ("\\alpha_{t \\mid s} = \\alpha_t / \\alpha_s", ["\\alpha_{t \\mid s}", "\\alpha"]),
    # an index with no bar stays an index of the one symbol
    ("\\sigma_{t-1}^2 / \\sigma_t^2", ["\\sigma"]),
])
def test_a_transition_subscript_is_a_quantity_of_its_own(latex, keys):
    from papermath.analysis.symbols import collect
    from papermath.math import parse
    assert [u.key for u in collect(parse(latex).tree).uses if u.kind != "index"] == keys


def test_a_transition_never_defined_is_listed_undefined():
    eq = read_document(document_from_string(DOC % SCHEDULE), ["1"]).equations[0]
    assert "\\sigma_{t \\mid t - 1}" in eq.undefined

ROLE_CASES += [
    # --- a condition the words say is a time step is the index it is …
    ("where $t$ is the condition for the forward process timestep.\n"
     "\\begin{equation} y = f(x, z, t) \\end{equation}", "t", "index"),
    # … any other condition stays the input it is
    ("where $z$ is the condition for generating an image.\n"
     "\\begin{equation} y = f(x, z, t) \\end{equation}", "z", "input data"),
]

LAYERS = ("where $W^{\\ell}$ is the weight matrix. Denote $W^{\\ell} = [w_{ij}^{\\ell}]$.\n"
          "\\begin{equation} a_i^{k+1} = w^{k+1}_{ii} + \\sum_{j \\neq i} w^{k+1}_{ij} x_j^{k} \\end{equation}")
ROLE_CASES += [
    # --- the entries of a matrix at another layer (`w^{k+1}_{ij}` after `W^\\ell = [w^\\ell_{ij}]`) are its entries
    (LAYERS, "w^{k + 1}_{i,i}", "trained weight"),
    # … a letter with another kind of label is another quantity
    (LAYERS.replace("w^{k+1}_{ii}", "w^{\\text{b}}_{ii}").replace("w^{k+1}_{ij}", "w^{\\text{b}}_{ij}"),
     "w^{\\text{b}}_{i,i}", "unknown"),
]

TOKENS = ("Let $Y = [y_i]_{i=1}^N$ denote the latent tokens obtained by inputting the image to the VQ-encoder. "
          "Denote $Y_{M}$ the result after applying mask $M$ to $Y$.\n"
          "\\begin{equation} L = -\\sum_{i} \\log p(y_i | Y_{M}) \\end{equation}")
ROLE_CASES += [
    # --- the data a preprocessing step encodes is still the data …
    (TOKENS, "y_{i}", "input data"),
    # … what a network outputs from it is computed
    ("Let $Y$ denote the latent tokens predicted by the network from the image.\n"
     "\\begin{equation} L = f(Y) \\end{equation}", "Y", "computed"),
    # --- "the result after applying" an operation is computed
    (TOKENS, "Y_{M}", "computed"),
]


@pytest.mark.parametrize("case", ROLE_CASES, ids=lambda c: f"{c[1]}->{c[2]}")
def test_each_role_cause_and_its_negative(case):
    body, symbol, want, *number = case
    assert row(body, symbol, *number).role == want


def test_a_name_new_in_a_rewriting_is_listed_undefined():
    """It is computed (a part of the row before), but no sentence says what it is: the honest claim is undefined."""
    eq = read_document(document_from_string(DOC % REWRITTEN), ["2"]).equations[0]
    assert "V_{k}" in eq.undefined


@pytest.mark.parametrize("where, want", [
    ("where $\\oplus$ denotes concatenation.", "concatenation"),   # the paper's own name for the operation
    ("where $\\oplus$ is the direct sum.", "direct_sum"),
    ("", "direct_sum"),                                               # no definition: the operator's own name
])
def test_a_big_operator_is_named_as_the_paper_defines_it(where, want):
    body = f"\\begin{{equation}} W = \\bigoplus_{{h=1}}^H W_h \\end{{equation}}\n{where}"
    eq = read_document(document_from_string(DOC % body), ["1"]).equations[0]
    assert [r.op for r in eq.reductions] == [want]


@pytest.mark.parametrize("lead, display, want", [
    # a step of a procedure under a bold heading computes, whatever its left side is written as …
    ("\\textbf{Sample from the Pool:} Sample the next token according to their normalized probabilities:",
     "P'(v) = \\frac{P(v)}{\\sum_{u \\in V} P(u)}", "computation"),
    # … unless the step says it defines, or builds a set
    ("\\textbf{Define the Score:} Set the score of each token:", "s(v) = \\log P(v)", "definition"),
    ("\\textbf{Build the Pool:} Keep the likely tokens:", "V' = \\{v \\in V : P(v) > c\\}", "definition"),
    # without a heading a function of its arguments is defined
    ("Sample the next token according to their normalized probabilities:",
     "P'(v) = \\frac{P(v)}{\\sum_{u \\in V} P(u)}", "definition"),
])
def test_a_step_of_a_procedure_is_a_computation(lead, display, want):
    body = f"{lead}\n\\begin{{equation}} {display} \\end{{equation}}"
    assert read_document(document_from_string(DOC % body), ["1"]).equations[0].kind == want


@pytest.mark.corpus
@pytest.mark.parametrize("paper, number, symbol, want", [
    ("TabDiff", "9", "\\mathbf{x}_{t}", "random sample"),     # "a sequence of data in the diffusion process"
    ("TabDiff", "9", "\\mathbf{x}^\\mathrm{cat}_{0}", "input data"),   # a part of x_0 ~ p_0, "samples from real data"
    ("TabDiff", "8", "\\mathbf{x}^\\mathrm{cat}_{s}", "random sample"),
    ("TabDiff", "9", "q", "function"),                        # E_q over the forward process (1) defines
    ("hyla", "2", "\\mathbf{W}^{\\text{out}}", "trained weight"),  # W^out = ⊕_h W^out_h, its slices
    ("hyla", "7", "\\mathrm{W}'_{q,k}", "computed"),        # new in the rewriting of (6)
    ("llm-sci-use", "u2", "X^{P}_{j}", "input data"),       # "documents, $\\{X_j^P\\}$ and $\\{X_j^Q\\}$, respectively"
    ("DiffusionDPO", "1", "\\sigma_{t \\mid t - 1}", "fixed setting"),   # a step of the schedule σ_t
    ("GMFlow", "8", "s_{\\text{c}}", "computed"),            # "approximate … as isotropic Gaussian surrogates $…$"
    ("Tanh-Init", "1", "w^{k + 1}_{i,i}", "trained weight"),  # an entry of W^ℓ = [w^ℓ_ij], at layer k+1
    ("maskgit-2202.04200", "1", "y_{i}", "input data"),       # "obtained by inputting the image to the VQ-encoder"
    ("semanticist", "u6", "t", "index"),                      # "the condition for the forward process timestep"
])
def test_causes_on_the_corpus(paper, number, symbol, want):
    eq = corpus_equation(paper, number)
    found = [s for s in eq.symbols if symbol in (s.latex, s.symbol)]
    assert found and found[0].role == want, [(s.latex, s.role) for s in eq.symbols]


@pytest.mark.corpus
@pytest.mark.parametrize("paper, number, want", [
    ("minp", "3", "computation"),    # "\textbf{Sample from the Pool:} Sample the next token …"
    ("minp", "2", "definition"),     # "\textbf{Define the Sampling Pool:}", a set
])
def test_kinds_on_the_corpus(paper, number, want):
    assert corpus_equation(paper, number).kind == want


@pytest.mark.parametrize("display, want", [
    # a min or max of terms written out reduces over the listed terms (no bound variable) …
    ("L = \\min \\left\\{ r A, \\mathrm{clip}(r; 1-\\epsilon, 1+\\epsilon) A \\right\\}", [("min", ())]),
    ("y = \\max(0, x)", [("max", ())]),
    # … a min over a variable stays the one reduction over it, and a max of one argument is no reduction
    ("v = \\min_{x} f(x)", [("min", ("x",))]),
    ("v = \\max(s)", []),
])
def test_an_extremum_of_listed_terms_is_a_reduction(display, want):
    body = f"\\begin{{equation}} {display} \\end{{equation}}"
    eq = read_document(document_from_string(DOC % body), ["1"]).equations[0]
    assert [(r.op, r.over) for r in eq.reductions] == want


@pytest.mark.parametrize("display, want", [
    # an operation named in words that runs over its subscript's index, also inside a condition's words
    ("m_i = \\begin{cases} 1, & \\text{if $c_i < \\text{sorted}_j(c_j)[n]$} \\\\ 0, & \\text{otherwise} \\end{cases}",
     [("sort", ("j",))]),
    # a subscript its argument does not carry is a label: no reduction
    ("y = \\text{sorted}_k(c_j)", []),
])
def test_a_worded_sort_is_a_reduction(display, want):
    body = f"\\begin{{equation}} {display} \\end{{equation}}"
    eq = read_document(document_from_string(DOC % body), ["1"]).equations[0]
    assert [(r.op, r.over) for r in eq.reductions] == want
