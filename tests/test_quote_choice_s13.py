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
    ("a lead-in defining the display's network stays", "GMFlow", "eq:3", r"\mathcal{L}",
     "flow velocity neural network"),
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


_THEOREM_ABOUT_ANOTHER = r"""
\section{Method}
The loss weighs the alignment term by $\beta$:
\begin{equation} L = A + \beta B \end{equation}

\begin{theorem}
The other method's update is
\begin{equation} u = g + \beta h \end{equation}
where $\beta$ is the step size of the naive learner.
\end{theorem}

\appendix
\section{Derivation}
%s
"""


@pytest.mark.parametrize("appendix, fragment", [
    # the appendix's running text speaks of the paper's β; the theorem's where clause of its own β
    (r"Where $\beta$ is the weight put into the alignment loss.", "weight put into the alignment loss"),
    # with nothing else, the theorem's sentence is still the only definition
    ("Nothing more is said here.", "step size of the naive learner"),
])
def test_a_sentence_in_another_statement_ranks_after_the_running_text(appendix, fragment):
    quote = _quote(_read(_THEOREM_ABOUT_ANOTHER % appendix, "1"), r"\beta")
    assert quote is not None and fragment in quote, quote


def test_the_statement_of_the_equation_itself_still_defines_it():
    # the theorem's own display is read in the theorem's words, before the appendix's
    quote = _quote(_read(_THEOREM_ABOUT_ANOTHER % r"Where $\beta$ is the weight put into the alignment loss.", "2"),
                   r"\beta")
    assert quote is not None and "step size of the naive learner" in quote, quote


@pytest.mark.parametrize("description, role", [
    ("the weight put into the Advantage Alignment loss (the negative inverse of the Boltzmann constant)",
     "fixed setting"),
    ("the weights of the network", "trained weight"),
    ("model weights", "trained weight"),
])
def test_the_weight_put_into_a_loss_is_a_setting(description, role):
    from papermath.analysis.cues import role_from_description
    found = role_from_description(description)
    assert found is not None and found[0] == role, found


CORPUS_S13B = [
    # "$\beta$ is the step size of the naive learner" stands in a theorem about LOLA; the appendix's "Where $\beta$
    # is the weight put into the Advantage Alignment loss" is the paper's β of (8) and (10)
    ("another statement's where clause ranks after the appendix text", "advantage-alignment", "10", r"\beta",
     "the weight put into the Advantage Alignment loss"),
    ("another statement's where clause ranks after the appendix text (8)", "advantage-alignment", "8", r"\beta",
     "the weight put into the Advantage Alignment loss"),
]


@pytest.mark.corpus
@pytest.mark.parametrize("cause, paper, key, latex, fragment", CORPUS_S13B, ids=[c[0] for c in CORPUS_S13B])
def test_statement_local_sentences_with_the_corpus_example(cause, paper, key, latex, fragment):
    row = symbol_row(corpus_equation(paper, key), latex)
    assert row.definition is not None and fragment in row.definition.quote, (cause, row.definition)
    assert row.role == "fixed setting", row.role_cue


_FUNCTION_AND_SCALAR = r"""
\section{Method}
The guided prediction is $y = w a + (1 - w) b$, where $w \in [1, +\infty)$ is the guidance scale.

To reweight the density, we multiply it by a Gaussian mask $w(u)$:
\begin{equation} %s \end{equation}
"""


@pytest.mark.parametrize("display, fragment", [
    # the display applies w: the mask w(u), not the number w ∈ [1, ∞)
    ("p(u) = w(u) q(u)", "Gaussian mask"),
    # the display uses w as a number: the guidance scale stays
    ("y = w a + (1 - w) b", "is the guidance scale"),
])
def test_a_function_is_not_the_number_a_sentence_gives_the_same_letter(display, fragment):
    quote = _quote(_read(_FUNCTION_AND_SCALAR % display, "1"), "w")
    assert quote is not None and fragment in quote, quote


@pytest.mark.parametrize("math, scalar", [
    (r"w \in [1, +\infty)", True),
    (r"w\approx 1.4", True),
    ("w > 3.0", True),
    ("T=1000", True),
    ("f(x) = 0", False),  # applied: a function's value, not a number for the letter
    (r"\lambda_t = \alpha_t^2", False),  # an equality to another quantity
    ("w", False),
])
def test_a_scalar_value_declaration(math, scalar):
    from papermath.analysis.read import _scalar_value
    assert _scalar_value(math) is scalar


@pytest.mark.corpus
def test_a_function_mask_is_not_the_guidance_scale_with_the_corpus_example():
    # GMFlow (7) applies w(u), "a Gaussian mask $w(\vu)$"; "$w \in [1, +\infty)$ is the guidance scale" is CFG's w
    row = symbol_row(corpus_equation("GMFlow", "7"), "w")
    assert row.definition is not None and "Gaussian mask" in row.definition.quote, row.definition


@pytest.mark.parametrize("sentence, latex, strength", [
    # an article and a bare class word name the kind of thing, not what it stands for: a weak candidate
    (r"We factor the constant $T$ into $\beta$.", "T", 1),
    (r"Then a scalar $c$, and more.", "c", 1),
    # a class word with a modifier ("the temperature constant") or another noun ("the guidance scale") names it
    (r"We use the temperature constant $T$ here.", "T", 2),
    (r"We sweep the guidance scale $w$ for each model.", "w", 2),
])
def test_an_appositive_of_a_bare_class_word_is_weak(sentence, latex, strength):
    from papermath.analysis.definitions import classify_sentence
    found = next(f for f in classify_sentence(sentence) if f.latex == latex)
    assert (found.pattern, found.strength) == ("appositive", strength)


@pytest.mark.corpus
def test_the_constant_t_is_not_what_t_is_with_the_corpus_example():
    # DiffusionDPO (14): "We factor the constant $T$ into $\beta$" says T is a constant; "as $T$ is usually large
    # ($T = 1000$)" is where the text says what T counts
    row = symbol_row(corpus_equation("DiffusionDPO", "14"), "T")
    assert row.definition is not None and "is usually large" in row.definition.quote, row.definition


@pytest.mark.parametrize("use_key, other_key, wildcard", [
    (r"\mathbf\epsilon ^{w}", r"\mathbf\epsilon ^{*}", True),  # the star stands for w and l
    (r"\mathbf{x}^{l}", r"\mathbf{x}^{*}", True),
    ("x^{k}", "x^{*}", False),  # a starred step letter is the limit or the optimum
    ("x_{t}", "x_{*}", False),
    ("x", "x^{*}", False),  # a bare letter and its optimum
    ("x_{w}", "x^{*}", False),  # another position
    (r"\mathbf\epsilon ^{w}", r"\mathbf\epsilon ^{l}", False),  # two labels, not a wildcard
])
def test_a_star_label_stands_for_a_one_letter_label(use_key, other_key, wildcard):
    from papermath.analysis.read import _wildcard_label
    assert _wildcard_label(use_key, other_key) is wildcard


_STARRED_WHERE = r"""
\section{Method}
The loss is
\begin{equation} L = \| \epsilon^w - f(x^w) \|^2 - \| \epsilon^l - f(x^l) \|^2 \end{equation}
where $x^* = a x_0 + b \epsilon^*$, $\epsilon^* \sim \mathcal{N}(0, I)$ is a draw from the forward process.

\appendix
\section{Proof}
Here $\epsilon^w, \epsilon^l \sim \mathcal{N}(0, I)$ thus the result holds.
"""


@pytest.mark.parametrize("latex", ["\\epsilon^{l}", "x^{w}"])
def test_a_starred_where_clause_defines_each_label(latex):
    quote = _quote(_read(_STARRED_WHERE, "1"), latex)
    assert quote is not None and "is a draw from the forward process" in quote, quote


@pytest.mark.corpus
@pytest.mark.parametrize("latex", [r"\boldsymbol{\epsilon}^w", r"\boldsymbol{\epsilon}^l"])
def test_a_starred_where_clause_with_the_corpus_example(latex):
    # DiffusionDPO (14): "where $x^*_t = \alpha_t x^*_0 + \sigma_t \epsilon^*, \epsilon^* \sim \mathcal{N}(0,I)$ is a
    # draw from $q(x^*_t|x^*_0)$" after the display, not the appendix's restatement
    row = symbol_row(corpus_equation("DiffusionDPO", "14"), latex)
    assert row.definition is not None and "is a draw from" in row.definition.quote, row.definition


@pytest.mark.parametrize("sentence, latex, pattern", [
    # the range of the index after a comma qualifies the equation: it still defines its left side
    (r"The output $X^L$, i.e., $X^{l} = \operatorname{Dec}(X^{l-1}), \ l \in [1, L]$.",
     r"X^{l} = \operatorname{Dec}(X^{l-1}), \ l \in [1, L]", "equation"),
    (r"The output $X^L$, i.e., $X^{l} = \operatorname{Dec}(X^{l-1})$.", r"X^{l} = \operatorname{Dec}(X^{l-1})",
     "equation"),
    # a list of memberships is no equation
    (r"we have $a, b \in A$ here", r"a, b \in A", None),
])
def test_an_equation_with_the_range_of_its_index(sentence, latex, pattern):
    from papermath.analysis.definitions import classify_sentence
    found = next(f for f in classify_sentence(sentence) if f.latex == latex)
    assert found.pattern == pattern


_RECURRENCE_IN_PROSE = r"""
\section{Method}
The input is contextualized to obtain the output $X^L$, i.e., $%s$.

\section{Layer}
We describe the layer as:
\begin{equation} X^{l+1} = F(X^{l}) + X^{l} \end{equation}
"""


@pytest.mark.parametrize("prose, fragment", [
    # the prose states the recurrence one step before: it says what each step is
    (r"X^{l} = \operatorname{Dec}(X^{l-1}), \ l \in [1, L]", "contextualized to obtain the output"),
    # an equation of another quantity says nothing of the left side: the display's lead-in stays
    (r"Y = \operatorname{Dec}(X^{0})", "We describe the layer as"),
])
def test_a_recurrence_in_the_prose_defines_the_left_side(prose, fragment):
    quote = _quote(_read(_RECURRENCE_IN_PROSE % prose, "1"), "X^{l + 1}")
    assert quote is not None and fragment in quote, quote


@pytest.mark.corpus
def test_a_recurrence_in_the_prose_with_the_corpus_example():
    # Diff-Transformer (5): "the output $X^L$, i.e., $X^{l} = \operatorname{Decoder}(X^{l-1}), \ l \in [1, L]$"
    # over the lead-in "We describe the Differential Transformer layer as:"
    row = symbol_row(corpus_equation("Diff-Transformer", "5"), "X^{l+1}")
    assert row.definition is not None and "further contextualized" in row.definition.quote, row.definition


@pytest.mark.parametrize("sentence, latex, pattern", [
    # "size" as a word names a dimension; the end of a compound ("stepsize") does not
    (r"with hidden size $d$ and more", "d", "dimension"),
    (r"the batch size $B$ is 32", "B", "dimension"),
    (r"However, few works have discussed the selection of stepsize $t_i$.", "t_i", "appositive"),
])
def test_the_dimension_pattern_needs_the_word(sentence, latex, pattern):
    from papermath.analysis.definitions import classify_sentence
    found = next(f for f in classify_sentence(sentence) if f.latex == latex)
    assert found.pattern == pattern


@pytest.mark.parametrize("sentence, name, description", [
    (r"where \texttt{Norm} is Layer Normalization~\cite{ba2016layernorm}.", r"\text{Norm}", "Layer Normalization"),
    (r"where \text{clip} denotes the clipping operation, and more.", r"\text{clip}", "the clipping operation"),
    # a name used in a sentence, not the subject of a where clause, is defined nowhere here
    (r"and final \texttt{Norm}, until the required scales are reached.", None, None),
])
def test_a_name_in_words_defined_by_a_where_clause(sentence, name, description):
    from papermath.analysis.definitions import _named_in_words
    found = _named_in_words(sentence, 0, 0)
    assert [(m.keys[0], m.description) for m in found] == ([(name, description)] if name else [])


@pytest.mark.corpus
def test_a_name_in_words_with_the_corpus_example():
    # eomt (1) writes \texttt{Norm}(…); "where \texttt{Norm} is Layer Normalization" after the display defines it
    row = symbol_row(corpus_equation("eomt", "1"), r"\text{Norm}")
    assert row.definition is not None and "Layer Normalization" in row.definition.quote, row.definition


_NAMED_LEFT_SIDE = r"""
\section{Method}
The diffusion model adds Gaussian noise to a data point $%s$ in the forward process.

In practical applications, we discretize the process into a finite number of $N$ steps:
\begin{equation} %s = y + \sum_{i=1}^{N} v_i \end{equation}
"""


@pytest.mark.parametrize("prose, lhs, latex, fragment", [
    # an appositive with a noun phrase elsewhere says what the left side is; the lead-in speaks of N
    ("x_0", "x_0", "x_{0}", "to a data point"),
    # a function's lead-in introduces the function: it stays
    ("f(u)", "f(u)", "f", "we discretize the process"),
])
def test_an_appositive_elsewhere_names_the_left_side(prose, lhs, latex, fragment):
    quote = _quote(_read(_NAMED_LEFT_SIDE % (prose, lhs), "1"), latex)
    assert quote is not None and fragment in quote, quote


@pytest.mark.corpus
def test_an_appositive_elsewhere_names_the_left_side_with_the_corpus_example():
    # OptimalSteps (4): "adds Gaussian noise to a data point $\bm{x_0}$ in the forward process" for the left side
    # x_0, not "we usually discretize it into a finite number of $N$ steps …:"
    row = symbol_row(corpus_equation("OptimalSteps", "4"), r"\bm{x_{0}}")
    assert row.definition is not None and "to a data point" in row.definition.quote, row.definition
