"""Which sentence a symbol's quote comes from (issue 14, the quote): one test per cause of a wrong quote found on
the development gold, each with its corpus example (skipped without ../shared) and, where the mechanism fits in a
few lines, a synthetic paper.

The expectations are ours, checked by hand against the papers; only short fragments of the sentences are named.
"""
from __future__ import annotations

import pytest

from papermath.analysis.read import read_document
from papermath.latex import document_from_string

from conftest import corpus_equation, symbol_row

def _read(body: str, key: str = "1"):
    doc = document_from_string("\\documentclass{article}\n\\begin{document}\n%s\n\\end{document}\n" % body)
    return read_document(doc, [key]).equations[0]


# (cause, paper, equation, symbol, a fragment the quote must hold)
CAUSES = [
    # A symbol inside another symbol's definition is not defined there: the sentence about the symbol itself wins,
    # and two sentences that hold it inside other formulas rank by place.
    ("inside another's definition vs a sentence about the symbol", "SISS", "2", r"\theta",
     r"moves $\theta$ towards a set of parameters"),
    ("two sentences holding it inside other formulas: the earlier", "GMFlow", "8", r"\mathbf\mu _{\text{c}}",
     "isotropic Gaussian surrogates"),
    ("inside other formulas: the first that holds it", "llm-sci-use", "eq:u3", "N",
     r"based on observed documents $\{X_i\}_{i=1}^N"),
    # a vector defined by its entries' values defines the entries
    ("the entries of a vector defined as [f_i(t)]", "TabDiff", "10", r"\sigma^{\text{num}}_{\rho_{i}}",
     r"we define $\bm \sigma^{\text{num}}(t) = ["),
    # "we denote <a noun phrase> as $X$": the formula after "as" is named by the words between
    ("denote a noun phrase as X", "OptimalSteps", "11", r"\mathbf{z}_{i,j}", "we denote the optimal denoised result"),
    # … and that sentence introduces the left-hand side better than the display's lead-in
    ("a coordinated list after 'as'; an upright label in another spelling", "TabDiff", "3", r"M_{\text{num}}",
     "we denote the number of numerical features and categorical features as"),
    # a set-builder names its element: "Let $\{x_t : t \sim [0, 1]\}$ denote a sequence of data"
    ("the element of a set-builder", "TabDiff", "8", r"\mathbf{x}_{t}", "denote a sequence of data in the diffusion"),
    # a "where" clause that says what the formula's own parts are is quoted with it
    ("the where clause explaining the formula's members", "DiffusionDPO", "14", r"\mathcal{D}",
     "where each example contains a prompt"),
    # a recurrence writes its left side at the step before: the display's lead-in defines both (Tanh-Init (1)
    # x_i^{k} and (2), which uses (1)'s x^{k}; eq:u6 x^{\ell-1}), not a passing mention later in the section
    ("the step before of a recurrence's left side", "Tanh-Init", "1", "x^{k}_{i}", "For the ($k+1$)-th layer"),
    ("the step before, defined by an earlier display", "Tanh-Init", "2", "x^{k}_{j}", "For the ($k+1$)-th layer"),
    # a definition sign in the prose defines the symbol itself: it stands over the lead-in of the display that
    # computes the symbol's next iterate ("They applied the following lazy Hessian update …:")
    ("a definition sign over the computing display's lead-in", "LEN", "4", r"\mathbf{z}_{t}",
     "denote the aggregated variable"),
    # a draw said far from the display does not outrank what the symbol denotes (GMFlow (6) t, "where $t\sim U(0, 1)$"
    # of another display); a draw next to the display still defines its sample
    ("a draw elsewhere vs what the symbol denotes", "GMFlow", "6", "t", "denotes the diffusion time"),
    # a member of a collection: the sentence that names the collection right after is quoted with the one that lists it
    ("the next sentence names the collection", "SISS", "5", "a",
     r"\subset X$. We refer to $A$ as the \textit{unlearning set}"),
    ("the layer before of a recurrence", "Tanh-Init", "eq:u6", r"\mathbf{x}^{\ell - 1}",
     r"The iterative computation at each layer $\ell$ is defined as follows"),
]


@pytest.mark.corpus
@pytest.mark.parametrize("cause, paper, key, latex, fragment", CAUSES, ids=[c[0] for c in CAUSES])
def test_each_quote_cause_with_its_corpus_example(cause, paper, key, latex, fragment):
    eq = corpus_equation(paper, key)
    row = symbol_row(eq, latex)
    assert row.definition is not None, (cause, eq.undefined)
    assert fragment.replace(" ", "") in row.definition.quote.replace(" ", ""), (cause, row.definition.quote)


def test_a_symbol_inside_another_definition_does_not_outrank_a_sentence_about_it():
    eq = _read(r"""
\section{Method}
Fine-tuning moves $\theta$ towards a set of parameters that forget the unlearning set.

The final weighted loss $\ell(\theta)$ can be written as
\begin{equation} \ell(\theta) = \mathbb{E}_{x} \| \epsilon_\theta(x) - x \|^2 \end{equation}
""")
    row = symbol_row(eq, r"\theta")
    assert "moves $\\theta$ towards" in row.definition.quote, row.definition


def test_a_definition_sign_stands_over_the_lead_in_of_the_display_that_computes_the_symbol():
    body = r"""
\section{Method}
We denote the aggregated variable $z := (x, y)$ of the two players.

\section{Algorithm}
We take the following extragradient step:
\begin{equation} z_{t+1} = z_t - \eta F(z_t) \end{equation}
The step size is small.
\begin{equation} \label{eq:gap} G = \| z_t - z_{t+1} \| \end{equation}
"""
    eq = _read(body, "2")
    row = symbol_row(eq, "z_{t}")
    assert "aggregated variable" in row.definition.quote, row.definition


@pytest.mark.parametrize("after, fragment", [
    ("The loss is minimised by gradient descent.", "denotes the diffusion time"),
    (r"where $t \sim \mathcal{U}(0, 1)$ is drawn for each example.", r"$t \sim \mathcal{U}(0, 1)$ is drawn"),
])
def test_a_draw_defines_a_sample_next_to_its_display_only(after, fragment):
    eq = _read(r"""
\section{Background}
The forward process runs over time, where $t \in [0, T]$ denotes the diffusion time.

\section{Training}
In training, $t \sim \mathcal{U}(0, 1)$ is drawn.

\section{Method}
The loss of the denoiser is
\begin{equation} L = \mathbb{E}_{t} \| f(t) \|^2 \end{equation}
%s
""" % after)
    row = symbol_row(eq, "t")
    assert fragment.replace(" ", "") in row.definition.quote.replace(" ", ""), row.definition


@pytest.mark.parametrize("after, named", [
    (r"We refer to $B$ as the \emph{forget set}.", True),
    (r"The set $B$ is small.", False),  # a property of the collection, not its name
])
def test_a_members_quote_reads_on_into_the_sentence_that_names_its_collection(after, named):
    eq = _read(r"""
\section{Method}
Our goal is to forget a subset $B = \{b_1, \dots, b_k\}$ of the data. %s

\begin{equation} L = \sum_i \ell(b_i) \end{equation}
""" % after)
    quote = symbol_row(eq, "b_{i}").definition.quote
    assert quote.startswith("Our goal is to forget a subset"), quote
    assert ("forget set" in quote) is named, quote


@pytest.mark.parametrize("later, earlier", [
    ("h^{t+1}", "h^{t}"),
    ("h^{(t+1)}", "h^{(t)}"),  # the iteration in parentheses
    ("h^{(t)}", "h^{(t-1)}"),
    (r"h^{\ell}", r"h^{\ell-1}"),
])
def test_a_recurrence_defines_its_left_side_at_the_step_before(later, earlier):
    # the display is read the whole way through the parser, so the keys next_step_keys spells are the printer's
    eq = _read(r"""
\section{Method}
Later we note that $%s$ grows when the weights are large.

The hidden state of the next step is computed as
\begin{equation} %s = \tanh(W %s) \end{equation}
""" % (earlier, later, earlier))
    row = next(r for r in eq.symbols if r.latex.replace(" ", "") == earlier)
    assert row.definition is not None and "hidden state of the next step" in row.definition.quote, row.definition


@pytest.mark.parametrize("earlier, later, expected", [
    ("x^{k}", "x^{k + 1}", True),
    (r"\mathbf{x}^{\ell - 1}", r"\mathbf{x}^\ell ", True),
    ("x^{k + 1}", "x^{k}", False),  # the step after is not the step before
    ("W_{1}", "W_{2}", False),  # two numbered weights are two symbols
    ("x_{k}", "x^{k + 1}", False),  # a subscript and a superscript
    ("x^{k}", "y^{k + 1}", False),
    ("x^{(k)}", "x^{(k + 1)}", True),
    ("x^{k}", "x^{(k + 1)}", False),  # one written in parentheses, the other not
])
def test_previous_step(earlier, later, expected):
    from papermath.analysis.candidates import previous_step
    assert previous_step(earlier, later) is expected


def test_a_vector_written_as_its_entries_defines_the_entries():
    from papermath.analysis.definitions import _parse, element_keys
    tree = _parse(r"\bm \sigma^{\text{num}}(t) = [\sigma_{\rho_i}^{\text{num}}(t)]")
    assert element_keys(tree, frozenset()) == (r"\sigma^{\text{num}}_{\rho_{i}}",)


@pytest.mark.parametrize("sentence, latex, pattern, description", [
    (r"For the student model, we denote the optimal result using $i$ steps as $z_{i,j}$.", "z_{i,j}", "denote-as",
     "the optimal result using $i$ steps"),
    (r"We abbreviate the result generated from $x_T$ according to Equation \ref{eq:a} as $F(x_T)$.", "F(x_T)",
     "denote-as", r"the result generated from $x_T$ according to Equation \ref{eq:a}"),
    (r"we denote the number of features as $M$ and $N$, respectively.", "N", "denote-as", "the number of features"),
    # a formula alone before "as" renames, it is not described; "denoted as" is its own pattern
    (r"We write $x_t$ as $x$ for brevity.", "x", None, None),
    (r"the result is denoted as $F$.", "F", "denoted", "the result"),
])
def test_denote_a_noun_phrase_as_a_formula(sentence, latex, pattern, description):
    from papermath.analysis.definitions import classify_sentence
    found = next(f for f in classify_sentence(sentence) if f.latex == latex)
    described = sentence[found.description[0]:found.description[1]] if found.description else None
    assert (found.pattern, described) == (pattern, description)


# The patterns read formulas delimited `\(…\)` as they read `$…$`: a list after a noun, a "where" list.
@pytest.mark.parametrize("sentence, latex, pattern", [
    (r"defined over the spatial domain \(x \in [0, 1]\) and \(y \in [0, 1]\).", r"y \in [0, 1]", "appositive"),
    (r"defined over the spatial domain $x \in [0, 1]$ and $y \in [0, 1]$.", r"y \in [0, 1]", "appositive"),
    (r"where \( M = \max(l') \) and \( \sigma \) is the standard deviation.", r"\sigma", "where"),
])
def test_formulas_in_parentheses_read_as_in_dollars(sentence, latex, pattern):
    from papermath.analysis.definitions import classify_sentence
    assert next(f for f in classify_sentence(sentence) if f.latex == latex).pattern == pattern


@pytest.mark.corpus
def test_an_exact_spelling_in_the_displays_lead_in_over_a_bold_variant_elsewhere():
    r"""Tanh-Init's Poisson equation: y is "the spatial domain \(x \in [0, 1]\) and \(y \in [0, 1]\)", not the
    training targets `\bm{y}_i \in \mathbb{R}^{N_y}` of the method section."""
    row = symbol_row(corpus_equation("Tanh-Init", "eq:u13"), "y")
    assert "spatial domain" in row.definition.quote, row.definition


@pytest.mark.parametrize("one, other", [
    (r"M_{\text{num}}", r"M_\mathrm{num}"),  # `\text{num}` and `\rm num` in the source
    (r"\mathbf{x}^{\text{num}}", r"\mathbf{x}^\mathrm{num}"),
    (r"\mathbf\mu _\theta ^\mathrm{cat}", r"\mu_\theta^{\text{cat}}"),  # and another weight
])
def test_an_upright_label_is_one_label_however_the_source_sets_it(one, other):
    from papermath.analysis.read import _spelling
    assert _spelling(one) == _spelling(other)
    assert _spelling("M_{n}") != _spelling(one)


def test_a_set_builder_names_its_element():
    from papermath.analysis.definitions import _parse, element_keys
    assert element_keys(_parse(r"\{\mathbf{x}_t:t\sim [0,1]\}"), frozenset()) == (r"\mathbf{x}_{t}",)
    assert element_keys(_parse(r"\{x \in S \mid x > 0\}"), frozenset()) == ("x",)


def test_a_where_clause_about_the_formulas_parts_is_quoted_with_it():
    from papermath.analysis.definitions import sentence_mentions
    text = (r"$\mathcal{R} = \{r^1, \dots, r^n\}$ is the set of reward functions where each $r^i$ maps a state "
            r"to a return.")
    first = sentence_mentions(text, 0, 0, frozenset())[0]
    assert first.quote.endswith("maps a state to a return."), first.quote
    # a where clause about something else stays its own clause
    other = sentence_mentions(r"$A$ is the matrix, where $b$ is the bias.", 0, 0, frozenset())[0]
    assert "bias" not in other.quote, other.quote
