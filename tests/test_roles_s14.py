"""Roles, shapes and rows for the causes of non-quote spoilers (issue 14, session 14): each mechanism on a
self-written paragraph with its negative, then on the corpus example that showed it (skipped without ../shared)."""
from __future__ import annotations

import re

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


MASK = "\\begin{equation} m_i^{(t+1)} = \\begin{cases} 1, & \\text{if $c_i < \\text{sorted}_j(c_j)[n]$} \\\\ " \
       "0, & \\text{otherwise} \\end{cases} \\end{equation}"
TIMES = ("\\begin{equation} r_j = \\arg\\min_{k} f(k, j) \\end{equation}\n"
         "where the approximation at timestep $r_j$ is kept.\n\\begin{equation} z_j = g(r_j) \\end{equation}")
ROLE_CASES = [
    # --- a position its defining sentence computes by an equality is computed …
    ("We compute the number of tokens to mask by $n = \\lceil \\gamma(t) N \\rceil$.\n" + MASK, "n", "computed"),
    # … a position the sentence only names stays the index it is
    ("where $n$ is the position of the cut.\n" + MASK, "n", "index"),
    # --- a time the words name, which an earlier display computes, is computed …
    (TIMES, "r_{j}", "computed", "2"),
    # … with no display that computes it, the words' time step stays an index
    ("where the approximation at timestep $r_j$ is kept.\n\\begin{equation} z_j = g(r_j) \\end{equation}",
     "r_{j}", "index"),
    # --- an indexed symbol set to a constant, a dimension of a space, is a setting …
    ("\\begin{equation} x^\\ell = \\tanh(W^{\\ell} x^{\\ell-1} + b^{\\ell}) \\in \\mathbb{R}^{N_{\\ell}} \\quad "
     "\\text{for all } \\ell=1,\\ldots,L, \\end{equation}\n"
     "where $W^{\\ell} \\in \\mathbb{R}^{N_{\\ell}\\times N_{\\ell-1}}$ is the weight matrix, "
     "$b^{\\ell} \\in \\mathbb{R}^{N_{\\ell}}$ is the bias. For notational convenience, all layers have a "
     "dimension of $n$, i.e., $N_{\\ell}=n$ for all $\\ell$.", "N_{\\ell}", "fixed setting"),
    # … one set to a value that changes along its index is computed
    ("Using the notation $a_t = \\sqrt{\\alpha_t}$ as shorthand, we have\n"
     "\\begin{equation} y_t = a_t x \\end{equation}", "a_{t}", "computed"),
]

APPROXIMATED = ("Assuming the true noise $\\epsilon$ can be reconstructed, we have:\n"
                "\\begin{equation} %s \\approx f(x_t) + r \\end{equation}\n"
                "\\begin{equation} L = \\| %s - g(x_t) \\|^2 \\end{equation}")
ROLE_CASES += [
    # --- a display that approximates a quantity does not compute it: the words' role stands …
    (APPROXIMATED % ("\\epsilon", "\\epsilon"), "\\epsilon", "random sample", "2"),
    # … an estimate written with a hat is what the approximation computes
    (APPROXIMATED % ("\\hat{\\epsilon}", "\\hat{\\epsilon}"), "\\hat{\\epsilon}", "computed", "2"),
]

ENTRIES = ("The dataset is a collection of data entries $\\mathcal{T} = \\{x\\} = \\{[x^{\\rm num}, x^{\\rm cat}]\\}$, "
           "where each entry $x$ is a data point.\n")
SEQUENCE = "Let $\\{x_t : t \\in [0, 1]\\}$ denote a sequence of data in the diffusion process.\n"
ROLE_CASES += [
    # --- a part of the bare whole, written at the whole's indices, is a part of that member (a noised sample) …
    (ENTRIES + SEQUENCE + "\\begin{equation} y = W x^{\\rm num}_t \\end{equation}", "x^\\mathrm{num}_{t}",
     "random sample"),
    # … where no sentence writes that member, nothing says which member it is a part of: no sample
    (ENTRIES + "\\begin{equation} y = W x^{\\rm num}_t \\end{equation}", "x^\\mathrm{num}_{t}", "unknown"),
]

ROLE_CASES += [
    # --- a factor of a factorization the prose writes is computed by it …
    ("We implement it by leveraging the Schur factorization $A = Q U Q^{-1}$, where $U$ is an upper-triangular "
     "matrix.\n\\begin{equation} h = (U + \\lambda I)^{-1} b \\end{equation}", "U", "computed"),
    # … the same product without the word is no factorization (nothing decides)
    ("We have $A = Q U Q^{-1}$, where $U$ is an upper-triangular matrix.\n"
     "\\begin{equation} h = (U + \\lambda I)^{-1} b \\end{equation}", "U", "unknown"),
]


@pytest.mark.parametrize("case", ROLE_CASES, ids=lambda c: f"{c[1]}->{c[2]}")
def test_each_role_cause_and_its_negative(case):
    body, symbol, want, *number = case
    assert row(body, symbol, *number).role == want


def _dims(shape):
    """Dimensions compared without spaces and braces (`N_\\ell` is `N_{\\ell}`)."""
    return None if shape is None else tuple(re.sub(r"[{}\s]", "", d) for d in shape)


LAYER = "\\begin{equation} x^{\\ell} = \\tanh(W^{\\ell} x^{\\ell-1} + b^{\\ell}) \\in \\mathbb{R}^{%s} \\end{equation}"
PROBLEM = ("We solve $\\min_{x \\in \\mathbb{R}^d} f(x)$ by the steps below, where $z_1 = x_1$ is the initial point.\n"
           "\\begin{equation} z_{t+1} = z_t - \\gamma g_t \\end{equation}")
SHAPE_CASES = [
    # --- a display's own chain ending in a membership declares its left side …
    (LAYER % "N_{\\ell}", "x^\\ell ", ("N_{\\ell}",)),
    # … and the same quantity one step away, with the dimensions that run with the step shifted
    (LAYER % "N_{\\ell}", "x^{\\ell - 1}", ("N_{\\ell-1}",)),
    # … a space that does not run with the step says nothing of the other member
    (LAYER % "d", "x^{\\ell - 1}", None),
    # --- a matrix's size written before the noun …
    ("where $B$ is a $d \\times d$ square matrix.\n\\begin{equation} y = B x \\end{equation}", "B", ("d", "d")),
    ("Let $S$ be a set of $D\\times D$ symmetric positive definite matrices.\n"
     "\\begin{equation} y = S x \\end{equation}", "S", ("D", "D")),
    # … and without a size only the coarse word
    ("where $B$ is a square matrix.\n\\begin{equation} y = B x \\end{equation}", "B", ("?", "?")),
    # --- the size of a set counts its members: no array shape …
    ("where the unlearning set $A$ of size $k$ is given.\n\\begin{equation} y = f(A) \\end{equation}", "A", None),
    # … the size of a vector is its length
    ("where $v$ is a vector of size $k$.\n\\begin{equation} y = W v \\end{equation}", "v", ("k",)),
    # --- the problem's variable runs over the space its min names; a sequence started at it lives there …
    (PROBLEM, "z_{t + 1}", ("d",)),
    (PROBLEM.replace("x_1", "m_1").replace("$\\min", "$m_1 = 0$ and $\\min"), "z_{t + 1}", None),
    # … a value it is set to without a shared index is no such start (`z = m`: "the state is the mask")
    (PROBLEM.replace("$z_1 = x_1$ is the initial point", "$z = x$ at the start"), "z_{t + 1}", None),
]


@pytest.mark.parametrize("case", SHAPE_CASES, ids=lambda c: f"{c[1]}->{c[2]}")
def test_each_shape_cause_and_its_negative(case):
    body, symbol, want = case
    assert _dims(row(body, symbol).shape) == _dims(want)


@pytest.mark.parametrize("display, letter, has_row", [
    # a step label in parentheses holds the running index, which gets a row …
    ("m_i^{(t+1)} = c_i", "t", True),
    ("h^{(k)} = W h^{(k-1)}", "k", True),
    # … a power or a named label does not
    ("y = x^{2} + c", "x", True),
    ("y = \\sigma^{(\\alpha)} + c", "\\alpha", False),
])
def test_a_step_label_holds_an_index(display, letter, has_row):
    eq = reading(f"\\begin{{equation}} {display} \\end{{equation}}")
    assert (letter in [s.latex for s in eq.symbols]) == has_row, [s.latex for s in eq.symbols]


@pytest.mark.corpus
@pytest.mark.parametrize("paper, number, symbol, want", [
    ("maskgit-2202.04200", "u1", "n", "computed"),           # "… by $n = \lceil \gamma(\frac{t}{T}) N \rceil$"
    ("maskgit-2202.04200", "u1", "t", "index"),              # m_i^{(t+1)}: "For iteration $t$, …"
    ("OptimalSteps", "10", "r_{j}", "computed"),             # "at timestep $r[j]$", and (9) r[j] = argmin …
    ("Tanh-Init", "u6", "N_{\\ell}", "fixed setting"),       # "$N_{\ell}=n$ for all $\ell$"
    ("semanticist", "u8", "\\epsilon", "random sample"),     # "the true noise", which (u14) only approximates
    ("LEN", "8", "\\mathbf{U}", "computed"),                 # "the Schur factorization … = QUQ^{-1}"
    ("TabDiff", "1", "\\mathbf{x}^\\mathrm{num}_{t}", "random sample"),  # part of x_t, "data in the diffusion process"
])
def test_roles_on_the_corpus(paper, number, symbol, want):
    assert symbol_row(corpus_equation(paper, number), symbol).role == want


@pytest.mark.corpus
def test_the_step_label_row_quotes_its_sentence():
    eq = corpus_equation("maskgit-2202.04200", "u1")
    assert "For iteration $t$, our algorithm runs as follows" in symbol_row(eq, "t").definition.quote


@pytest.mark.corpus
@pytest.mark.parametrize("paper, number, symbol, want", [
    ("Tanh-Init", "u6", "\\mathbf{x}^\\ell", ("N_\\ell",)),             # x^ℓ = tanh(…) ∈ R^{N_ℓ}
    ("Tanh-Init", "u6", "\\mathbf{x}^{\\ell - 1}", ("N_{\\ell-1}",)),   # one layer before
    ("GMFlow", "4", "\\mathbf\\Sigma _{k}", ("D", "D")),                # "$D\times D$ symmetric positive definite"
    ("grid-cell-conformal-isometry", "32", "\\mathbf{B}", ("d", "d")),  # "a $d \times d$ square matrix"
    ("schedule_free", "4", "z_{t + 1}", ("d",)),                        # z_1 = x_1, \min_{x \in R^d} f(x)
    ("schedule_free", "3", "x_{t}", ("d",)),
])
def test_shapes_on_the_corpus(paper, number, symbol, want):
    got = symbol_row(corpus_equation(paper, number), symbol).shape
    assert got is not None and _dims(got) == _dims(want)


@pytest.mark.corpus
def test_a_set_of_size_k_has_no_shape():
    """SISS: "with dataset $X$ of size $n$ and unlearning set $A$ of size $k$": sizes of sets, not array lengths."""
    assert symbol_row(corpus_equation("SISS", "2"), "A").shape is None


@pytest.mark.parametrize("display, want", [
    # a softmax written without a subscript normalises over its argument's entries (no index named) …
    ("A = \\mathrm{softmax}(\\frac{Q K^{\\top}}{\\sqrt{d}}) V", [("softmax", ())]),
    # … one with a subscript over that index
    ("o = \\sum_{j=1}^{t} \\operatorname{Softmax}_j(s_j) v_j", [("sum", ("j",)), ("softmax", ("j",))]),
    # a top-k of a set written with its index runs over that index; of anything else, no reduction is claimed
    ("g = \\operatorname{Topk}(\\{ s_{j,t} | 1 \\leq j \\leq N \\}, K)", [("topk", ("j",))]),
    ("g = \\operatorname{Topk}(s, K)", []),
])
def test_an_unscripted_softmax_or_topk_is_a_reduction(display, want):
    eq = reading(f"\\begin{{equation}} {display} \\end{{equation}}")
    assert [(r.op, r.over) for r in eq.reductions] == want


@pytest.mark.corpus
@pytest.mark.parametrize("paper, number, want", [
    ("Diff-Transformer", "1", [("softmax", ()), ("softmax", ())]),
    ("deepseek-v3-2412.19437", "14", [("topk", ("j",))]),
])
def test_reductions_on_the_corpus(paper, number, want):
    assert [(r.op, r.over) for r in corpus_equation(paper, number).reductions] == want
