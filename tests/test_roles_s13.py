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


@pytest.mark.parametrize("case", ROLE_CASES, ids=lambda c: f"{c[1]}->{c[2]}")
def test_each_role_cause_and_its_negative(case):
    body, symbol, want, *number = case
    assert row(body, symbol, *number).role == want


@pytest.mark.corpus
@pytest.mark.parametrize("paper, number, symbol, want", [
    ("TabDiff", "9", "\\mathbf{x}_{t}", "random sample"),     # "a sequence of data in the diffusion process"
    ("TabDiff", "9", "\\mathbf{x}^\\mathrm{cat}_{0}", "input data"),   # a part of x_0 ~ p_0, "samples from real data"
    ("TabDiff", "8", "\\mathbf{x}^\\mathrm{cat}_{s}", "random sample"),
    ("TabDiff", "9", "q", "function"),                        # E_q over the forward process (1) defines
])
def test_causes_on_the_corpus(paper, number, symbol, want):
    eq = corpus_equation(paper, number)
    found = [s for s in eq.symbols if symbol in (s.latex, s.symbol)]
    assert found and found[0].role == want, [(s.latex, s.role) for s in eq.symbols]
