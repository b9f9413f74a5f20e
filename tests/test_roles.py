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
    ("SISS", "2", "\\epsilon", "unknown"),                          # an appendix lemma's ε = ½Lt + … computes
                                                                    # nothing here
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
