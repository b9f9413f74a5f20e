"""Roles for the causes of role misses named in issue 14 (session 8): each mechanism on a self-written paragraph,
and its negative (what must keep its old role), then on the corpus example that showed it (skipped without
../shared)."""
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


@pytest.mark.parametrize("body, symbol, want", [
    # a quantity written with arguments that the sentence defines by an equality aggregating other quantities
    ("The opponent acts greedily,\n\\begin{equation} \\pi(b \\mid s) = \\exp Q(s, b) \\end{equation}\n"
     "where $Q(s, b) := \\mathbb{E}_{a \\sim \\mu}[R(s, a, b)]$.", "Q", "computed"),
    # a map written out pointwise stays a function
    ("\\begin{equation} y = \\phi(W x) \\end{equation}\nwhere $\\phi(x) = \\max(0, x)$.", "\\phi", "function"),
    ("\\begin{equation} y = x_{\\pi(t)} \\end{equation}\nwhere $\\pi(t) = t - (t \\bmod m)$.", "\\pi", "function"),
])
def test_function_or_computed(body, symbol, want):
    assert row(body, symbol).role == want


@pytest.mark.corpus
@pytest.mark.parametrize("paper, number, symbol, want", [
    ("advantage-alignment", "4", "Q^{2}", "computed"),   # where $Q^2(s_t, b_t) := \mathbb{E}_{a \sim \pi^1}[…]$
    ("LEN", "4", "\\pi", "function"),                     # $\pi(t) = t - t \bmod m$: a map, pointwise
])
def test_causes_on_the_corpus(paper, number, symbol, want):
    eq = corpus_equation(paper, number)
    found = [s for s in eq.symbols if symbol in (s.latex, s.symbol)]
    assert found and found[0].role == want, [(s.latex, s.role) for s in eq.symbols]
