"""Which sentence is quoted as a symbol's definition (issue 14, session 13): one table row per mechanism, with its
corpus example (skipped without ../shared) and synthetic papers with negative cases.

The expectations are ours, checked by hand against the papers; only short fragments of the sentences are named.
"""
from __future__ import annotations

import pytest

from papermath.analysis.read import read_document
from papermath.latex import document_from_string

from conftest import corpus_equation, symbol_row


def _read(body: str, key: str):
    doc = document_from_string("\\documentclass{article}\n\\begin{document}\n%s\n\\end{document}\n" % body)
    return read_document(doc, [key]).equations[0]


def _quote(eq, latex: str) -> str | None:
    row = next(s for s in eq.symbols if s.latex == latex)
    return row.definition.quote if row.definition is not None else None


# (cause, paper, equation, symbol, a fragment the quote must hold)
CORPUS = [
    # "where $r_n$ denotes the ratio …, and:" is the where clause of the display before; A^* is "a modified
    # advantage $A^*$" (the appendix), not r_n's sentence
    ("a lead-in about a symbol the display does not write", "advantage-alignment", "10", "A^{*}",
     "with a modified advantage"),
    # the lead paragraph names the network ("using a neural network $\epsilon_\theta(x_t, z, t)$ to approximate …")
    # before its last sentence introduces the decomposition
    ("a sentence of the lead paragraph that names the left side", "semanticist", "eq:u7",
     r"\bm{\epsilon}_{\theta}", "is using a neural network"),
    # negatives: a lead-in that defines the display's own argument ("for a clean datapoint $x_0$, the noisy sample
    # $x_t$ … is given by") or its network ("Let $\mu_\theta$ denote a flow velocity neural network with learnable
    # parameters $\theta$") still introduces the display's left side
    ("a lead-in defining the display's arguments stays", "SISS", "1", "q", "Consider the standard DDPM forward"),
    ("a lead-in defining the display's network stays", "GMFlow", "eq:3", r"\mathcal{L}", "flow velocity neural network"),
    # negative: after the display, "the scaled threshold $p_{scaled}$ is computed" restates the left side; the
    # lead-in that introduces it stands
    ("a restatement after the display does not replace the lead-in", "minp", "2", r"p_{\text{scaled}}",
     "to determine the actual truncation threshold"),
]


@pytest.mark.corpus
@pytest.mark.parametrize("cause, paper, key, latex, fragment", CORPUS, ids=[c[0] for c in CORPUS])
def test_each_quote_mechanism_with_its_corpus_example(cause, paper, key, latex, fragment):
    row = symbol_row(corpus_equation(paper, key), latex)
    assert row.definition is not None, cause
    assert fragment.replace(" ", "") in row.definition.quote.replace(" ", ""), (cause, row.definition.quote)


@pytest.mark.corpus
def test_an_equality_after_a_noun_phrase_is_not_named_by_it():
    # "with step size $\gamma > 0$, $z_{t+1} = z_t - \gamma g_t$": the noun phrase names γ, not z; z's role does
    # not become a step size
    row = symbol_row(corpus_equation("schedule_free", "eq:22"), "z_{t,k}")
    assert "step size" not in (row.role_cue or ""), row.role_cue


_LEAD_ABOUT_ANOTHER = r"""
\section{Method}
We train with a modified advantage $A$ in the update.

The objective is
\begin{equation} L = \min(r B, c) \end{equation}
where $%s$ denotes the ratio of the new and the old policies, and:
\begin{equation} A = Q - V \end{equation}
"""


@pytest.mark.parametrize("defined, fragment", [
    ("r", "a modified advantage"),  # r is not in `A = Q - V`: the lead-in is the display before's where clause
    ("Q", "denotes the ratio"),  # Q is in the display: the lead-in speaks of it, and stays
])
def test_a_lead_in_that_defines_a_symbol_the_display_does_not_write(defined, fragment):
    quote = _quote(_read(_LEAD_ABOUT_ANOTHER % defined, "2"), "A")
    assert quote is not None and fragment in quote, quote


_NAMED_IN_LEAD = r"""
\section{Method}
$f$ is the model trained to estimate the noise.

\section{Details}
The score is approximated by %s. For the conditional decoder, the score can be decomposed as:
\begin{equation} f(x) = g(x) + h(x) \end{equation}
"""


@pytest.mark.parametrize("phrase, fragment", [
    ("a neural network $f(x)$", "approximated by a neural network"),
    # an equality is not named by the noun phrase before it, and a bare formula names nothing: the lead-in stands
    ("the estimate $f(x) = g(x) + h(x)$", "can be decomposed as"),
    ("$f(x)$", "can be decomposed as"),
])
def test_a_sentence_of_the_lead_paragraph_that_names_the_left_side(phrase, fragment):
    quote = _quote(_read(_NAMED_IN_LEAD % phrase, "1"), "f")
    assert quote is not None and fragment in quote, quote
