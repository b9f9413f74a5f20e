"""Which sentence is quoted as a symbol's definition (issue 14, session 12): one table row per mechanism, with its
corpus example (skipped without ../shared) and a synthetic sentence or paper.

The expectations are ours, checked by hand against the papers; only short fragments of the sentences are named.
"""
from __future__ import annotations

import pytest

from papermath.analysis.definitions import classify_sentence
from papermath.analysis.read import read_document
from papermath.latex import document_from_string

from conftest import corpus_equation, symbol_row


def _read(body: str, key: str = "1"):
    doc = document_from_string("\\documentclass{article}\n\\begin{document}\n%s\n\\end{document}\n" % body)
    return read_document(doc, [key]).equations[0]


def _description(sentence: str, latex: str) -> str | None:
    found = next(f for f in classify_sentence(sentence) if f.latex == latex)
    return sentence[found.description[0]:found.description[1]] if found.description else None


# (cause, paper, equation, symbol, a fragment the quote must hold)
CORPUS = [
    # "We have $X \in …$ as the input, $Q \in …$": the shape declaration of an appendix lead-in does not say what
    # Q is; the main text's "we first project them to query, key, and value $Q_1, … \in …$" does
    ("a shape-only lead-in vs the sentence that names it", "Diff-Transformer", "eq:6", "Q_{1}",
     "we first project them to query, key, and value"),
    ("a shape-only lead-in vs the sentence that names it (V)", "Diff-Transformer", "eq:6", "V",
     "we first project them to query, key, and value"),
    # a left side that a "where" clause elsewhere names with a noun phrase: that clause, not the display's lead-in
    ("a left side named by a 'where … is a …' clause", "DiffusionDPO", "eq:34", r"x_{\text{obs}}",
     "is a noised version of"),
    # "can also be represented as $(\Delta r, \theta)$ in polar coordinates" says what the pair is, not θ
    # "Using the notation $a_t=\sqrt{\alpha_t}$ … as shorthand" introduces a_t (in the display's lead-in), not the
    # action a_t of the RL preliminaries
    ("'the notation $a_t = …$' introduces the symbol", "DiffusionDPO", "eq:34", "a_{t}", "Using the notation"),
    # "where $L_1$ ensures Assumption 1 on conformal isometry": the display's where clause says what the term does
    ("'where $X$ <verb>s …' after the display", "grid-cell-conformal-isometry", "3", "L_{1}",
     "ensures Assumption 1 on conformal isometry"),
    ("', while $X$ <verb>s …' going on a where clause", "grid-cell-conformal-isometry", "4", "L_{2}",
     "satisfies Assumption 2 on transformation"),
    ("a member of an unnamed, undescribed tuple", "grid-cell-conformal-isometry", "eq:27", r"\theta",
     "is the heading direction"),
]


@pytest.mark.corpus
@pytest.mark.parametrize("cause, paper, key, latex, fragment", CORPUS, ids=[c[0] for c in CORPUS])
def test_each_quote_mechanism_with_its_corpus_example(cause, paper, key, latex, fragment):
    row = symbol_row(corpus_equation(paper, key), latex)
    assert row.definition is not None, cause
    assert fragment.replace(" ", "") in row.definition.quote.replace(" ", ""), (cause, row.definition.quote)


@pytest.mark.parametrize("sentence, latex, description", [
    # the noun phrase after "$X$ as" is X's, not the next formula's
    (r"We have $X \in \mathbb{R}^{N}$ as the input, $Q \in \mathbb{R}^{N}$ and more.", r"Q \in \mathbb{R}^{N}", None),
    (r"given input $X \in \mathbb{R}^{N}$, we project it to the query $Q \in \mathbb{R}^{N}$.",
     r"Q \in \mathbb{R}^{N}", "the query"),
    (r"a base probability threshold $p \in \mathbb{R}$ is used.", r"p \in \mathbb{R}", "a base probability threshold"),
])
def test_a_noun_phrase_after_a_formula_and_as_is_that_formulas(sentence, latex, description):
    assert _description(sentence, latex) == description


def test_a_shape_only_declaration_near_the_display_does_not_outrank_a_sentence_that_names_the_symbol():
    eq = _read(r"""
\section{Method}
Given input $X \in \mathbb{R}^{N}$, we first project it to the query $Q \in \mathbb{R}^{N \times d}$.

\section{Details}
We have $X \in \mathbb{R}^{N}$ as the input, $Q \in \mathbb{R}^{N \times d}$, and $O \in \mathbb{R}^{N}$ as the output:
\begin{equation} O = Q X \end{equation}
""")
    assert "project it to the query" in symbol_row(eq, "Q").definition.quote


@pytest.mark.parametrize("defining, fragment", [
    # a noun phrase names the left side: it stands over the lead-in
    (r"where $y$ is a noised version of $x$.", "a noised version"),
    # "is the same …" says how it compares, not what it is: the lead-in stays
    (r"where $y$ is the same in expectation.", "We write the following"),
])
def test_a_left_side_named_elsewhere_by_a_noun_phrase_keeps_that_sentence(defining, fragment):
    eq = _read(r"""
\section{Method}
We train on $x$, %s

\section{Appendix}
We write the following:
\begin{equation} y = x + 1 \end{equation}
""" % defining)
    assert fragment in symbol_row(eq, "y").definition.quote


@pytest.mark.parametrize("collection, fragment", [
    # an unnamed pair with no words about it: the sentence about θ itself is quoted
    (r"The velocity $u$ can also be represented as $(r, \theta)$ in polar coordinates.", "heading direction"),
    # a pair the sentence describes in words stays a definition of its members, ranked as before
    (r"We write $(r, \theta)$ for the polar coordinates.", "heading direction"),
])
def test_a_member_of_an_unnamed_undescribed_tuple_is_not_defined_by_it(collection, fragment):
    eq = _read(r"""
\section{Method}
%s

\section{Details}
Here $\theta$ is the heading direction of the agent.

\section{Model}
The update is
\begin{equation} y = \cos \theta \end{equation}
""" % collection)
    assert fragment in symbol_row(eq, r"\theta").definition.quote


@pytest.mark.parametrize("sentence, latex, member_only", [
    (r"The velocity $u$ can also be represented as $(r, \theta)$ in polar coordinates.", r"(r, \theta)", True),
    (r"We are given a training dataset $X = \{x_1, x_2\}$ of points.", r"X = \{x_1, x_2\}", False),
    (r"Let $\{x_t : t \sim [0, 1]\}$ denote a sequence of data.", r"\{x_t : t \sim [0, 1]\}", False),
])
def test_which_collections_say_nothing_of_their_members(sentence, latex, member_only):
    from papermath.analysis.candidates import _member_only
    from papermath.analysis.definitions import sentence_mentions
    found = next(m for m in sentence_mentions(sentence, 0, 0, frozenset()) if m is not None and m.math == latex)
    assert found.elements and _member_only(found) is member_only


@pytest.mark.parametrize("sentence, latex, pattern", [
    (r"Using the notation $a_t=\sqrt{\alpha_t}$ and $b_t = \sqrt{1 - \alpha_t}$ as shorthand, we write",
     r"b_t = \sqrt{1 - \alpha_t}", "denoted"),
    (r"We use the shorthand $s = x + y$ below.", "s = x + y", "denoted"),
    # a noun that is not about notation keeps the appositive reading
    (r"we use a fixed dataset $D = \{x_1, x_2\}$.", r"D = \{x_1, x_2\}", "appositive"),
])
def test_the_notation_x_equals_introduces_x(sentence, latex, pattern):
    assert next(f for f in classify_sentence(sentence) if f.latex == latex).pattern == pattern


@pytest.mark.parametrize("sentence, latex, pattern, strength", [
    (r"where $L_1$ ensures the isometry of the map.", "L_1", "where", 2),
    (r"where $x$ is the input.", "x", "where", 3),
    # a plural noun after the formula is no verb: "with $n$ datapoints", "where $n$ datapoints are kept"
    (r"with $n$ datapoints.", "n", None, 0),
    (r"where $n$ datapoints are kept.", "n", None, 0),
    (r"where $x$ has two parts.", "x", None, 0),
    (r"where $A$ scales the input, while $B$ shifts it.", "B", "where", 2),
    (r"We train while $x$ changes.", "x", None, 0),
])
def test_where_a_symbol_does_something(sentence, latex, pattern, strength):
    found = next(f for f in classify_sentence(sentence) if f.latex == latex)
    assert (found.pattern, found.strength) == (pattern, strength)
