"""The ranking of a symbol's candidate sentences (analysis/candidates.py): its named features, one at a time."""
from __future__ import annotations

import pytest

from papermath.analysis.candidates import _is_generic, _judged, _Static


@pytest.mark.parametrize("quote, math, generic", [
    # the quantifier governs the formula next to it, or the other members of its list
    (r"for any real $r>-1$ is equivalent to the weighted average", "r>-1", True),
    (r"Let $z_1,\dots,z_T$ be arbitrary vectors.", r"z_1,\dots,z_T", True),
    (r"for any vectors $a$, $b$ and $c$ we have", "c", True),
    # not the paper's own symbol that the same sentence defines past another formula
    (r"For any minimizer $x_\star$, define $D=\left\Vert x_{1}-x_\star\right\Vert$.",
     r"D=\left\Vert x_{1}-x_\star\right\Vert", False),
    (r"For any minimizer $x_\star$, define $D=1$.", r"x_\star", True),
    # far from the quantifier: more than a few words between
    (r"For all experiments reported in the appendix we set the momentum $\beta$ to 0.9.", r"\beta", False),
    # a formula not found in its quote: the whole sentence decides, as before
    (r"for any vectors $a, b$", "q", True),
])
def test_a_generic_quantifier_governs_only_the_formula_next_to_it(quote, math, generic):
    assert _is_generic(quote, math) is generic


def _static(slot: str, tier: int, penalty: int, env: int | None, paragraph: int) -> _Static:
    return _Static(mention=paragraph, slot=slot, exact=0, tier=tier, penalty=penalty, env=env, generic=False,
                   strength=3 if tier == 0 else 0, paragraph=paragraph, sentence=0, order=paragraph)


def test_a_symbol_inside_another_definition_ranks_below_its_own_definition_anywhere():
    """schedule_free (14) γ_t = D/(G√t): 'the optimal choice of γ … is γ = D/(G√T)' (next to the display) writes
    G inside γ's definition; 'define G = max_t ‖g_t‖' (a theorem) defines G. The theorem's sentence wins: a place
    penalty orders definitions of the same kind, it does not lift a mention inside another definition over one."""
    inside_near = _static("inside", 2, 0, None, paragraph=27)
    own_in_theorem = _static("subject", 0, 2, 7, paragraph=28)
    _, head_inside, _ = _judged(inside_near, 0, None)
    _, head_own, _ = _judged(own_in_theorem, 0, None)
    assert head_own < head_inside


def test_place_still_orders_two_definitions_of_the_same_kind():
    method = _static("subject", 0, 0, None, paragraph=40)
    appendix = _static("subject", 0, 2, None, paragraph=10)
    assert _judged(method, 0, None)[1] < _judged(appendix, 0, None)[1]
    inside_method = _static("inside", 2, 0, None, paragraph=40)
    inside_appendix = _static("inside", 2, 2, None, paragraph=10)
    assert _judged(inside_method, 0, None)[1] < _judged(inside_appendix, 0, None)[1]


def test_a_shape_declaration_ranks_by_place_with_the_symbols_own_definitions():
    """GMFlow D: 'Let x ∈ ℝ^D be a data point' (method) introduces D; 'where … D = C×H×W' is in appendix A.4.
    A shape declaration is not 'inside another definition': the place decides between it and an appendix
    definition; at the same place the symbol's own definition ranks first."""
    declaration = _static("inside", 2, 0, None, paragraph=12)
    declaration = _Static(**{**declaration.__dict__, "declares": True})
    appendix_own = _static("subject", 0, 2, None, paragraph=102)
    assert _judged(declaration, 0, None)[1] < _judged(appendix_own, 0, None)[1]
    method_own = _static("subject", 0, 0, None, paragraph=40)
    assert _judged(method_own, 0, None)[1] < _judged(declaration, 0, None)[1]


def test_a_condition_binds_its_variable_it_does_not_list_a_member():
    """grid-cell '$\\mathbb{M} = (v(x), \\forall x \\in \\mathbb{D})$ is a 2D manifold': x ranges over 𝔻 there; the
    sentence is about 𝕄, not a definition of x (it was x's quote on eq 2, 3, 4 over 'the self-position $x$')."""
    from papermath.analysis.definitions import element_keys
    from papermath.math import parse
    tree = parse(r"\mathbb{M} =({\bm{v}}({\bm{x}}), \forall {\bm{x}} \in \mathbb{D})").tree
    assert r"\mathbf{x}" not in element_keys(tree, frozenset())
    members = parse(r"X=\{x_1,\dots,x_n\}").tree
    assert element_keys(members, frozenset()) == ("x_{1}", "x", "x_{n}")  # each member, and their family x


def test_a_noun_then_an_aside_in_parentheses_names_the_formula():
    """GMFlow 'additional condition signals $c$ (e.g., class label or text prompt) can be fed to the network':
    the sentence names c (was a plain use, so 'the time $t$ and condition $c$ as inputs' in the experiments won)."""
    from papermath.analysis.definitions import classify_sentence
    found = classify_sentence(r"In practice, additional condition signals $c$ (e.g., class label or text prompt) "
                              r"can be fed to the network.")
    assert (found[0].latex, found[0].pattern) == ("c", "noun")


@pytest.mark.parametrize("slot, strength, paragraph, place", [
    # a definition outright in the display's own paragraphs ("where $X$ is …") stays first
    ("subject", 3, 20, 0),
    # a restatement there (an appositive, a symbol inside another formula) ranks with the earlier text
    ("subject", 2, 20, 1),
    ("inside", 3, 20, 1),
    ("subject", 2, 21, 1),  # the paragraph after the display, too
    # away from the display, place is earlier or later text whatever the pattern
    ("subject", 3, 5, 1),
    ("subject", 2, 5, 1),
    ("subject", 3, 40, 2),
    ("subject", 2, 40, 2),
])
def test_near_the_display_only_a_definition_outright_ranks_first(slot, strength, paragraph, place):
    from papermath.analysis.candidates import _place
    c = _Static(mention=0, slot=slot, exact=0, tier=0 if slot == "subject" else 2, penalty=0, env=None,
                generic=False, strength=strength, paragraph=paragraph, sentence=0, order=0)
    assert _place(c, near={20, 21}, eq_para=21) == place


def test_the_first_introduction_beats_a_restatement_next_to_the_display():
    """A noun phrase that names the symbol again next to its display ("apply the mask to the tokens $Z$") is the
    text speaking of it again; the earlier sentence that first named it ("a set of latent tokens $Z$ …") is the
    one a reader quotes. A "where" clause next to the display still wins over both."""
    from papermath.analysis.read import read_document
    from papermath.latex import document_from_string
    body = r"""
\section{Method}
The encoder produces a set of latent tokens $Z = \{z_1, \dots, z_K\}$ that summarise the image.

A decoder is trained on them with a reconstruction loss.

At inference we keep only the first tokens of the sequence $Z$ as follows:
\begin{equation} \tilde{Z} = M \odot Z \end{equation}
where $M$ is a binary mask.
"""
    doc = document_from_string("\\documentclass{article}\n\\begin{document}\n%s\n\\end{document}\n" % body)
    eq = read_document(doc, ["1"]).equations[0]
    rows = {s.latex: s for s in eq.symbols}
    assert "latent tokens" in rows["Z"].definition.quote
    assert rows["M"].definition.quote.startswith("where $M$ is a binary mask")


@pytest.mark.parametrize("sentence, latex, pattern, strength", [
    # a definition sign defines its left side outright, after a noun as well
    (r"We denote the aggregated variable $z := (x, y)$.", "z := (x, y)", "appositive", 3),
    (r"the pooled feature $h \coloneqq \frac{1}{n}\sum_i h_i$ is fed to the head", r"h \coloneqq \frac{1}{n}\sum_i h_i",
     "appositive", 3),
    # `=` after a noun: named, not defined outright
    (r"a fixed dataset $D = \{(c, x)\}$ of pairs", r"D = \{(c, x)\}", "appositive", 2),
])
def test_a_definition_sign_defines_its_left_side_outright(sentence, latex, pattern, strength):
    from papermath.analysis.definitions import classify_sentence
    found = next(f for f in classify_sentence(sentence) if f.latex == latex)
    assert (found.pattern, found.strength) == (pattern, strength)


def test_two_sentences_that_hold_the_symbol_inside_other_formulas_rank_by_place_alone():
    """T inside '$X \\in \\mathbb{R}^{D \\times T}$' (appositive, strength 2, first) and inside 'where $A = (…) \\in
    \\mathbb{R}^{H \\times T \\times T}$' (a "where" clause, strength 3, later): the strength is the other formula's;
    for T the earlier one is as good, so the place decides."""
    first = _Static(mention=1, slot="inside", exact=0, tier=2, penalty=0, env=None, generic=False, strength=2,
                    paragraph=16, sentence=0, order=0, declares=True)
    later = _Static(mention=2, slot="inside", exact=0, tier=2, penalty=0, env=None, generic=False, strength=3,
                    paragraph=18, sentence=0, order=1, declares=True)
    assert _judged(first, 0, None)[1:] == _judged(later, 0, None)[1:]
    own_strong = _static("subject", 0, 0, None, paragraph=18)
    own_weak = _Static(**{**own_strong.__dict__, "strength": 2, "paragraph": 16})
    assert _judged(own_strong, 0, None)[2] < _judged(own_weak, 0, None)[2]  # its own definitions: strength still counts


@pytest.mark.parametrize("sentence, keys", [
    (r"the auto-regressive model $\epsilon$LlamaGen trained on our tokens", [None]),  # a letter in a name
    (r"we compare against \(\sigma\)Reparam here", [None]),
    (r"the noise $\epsilon$ is drawn from a Gaussian", [(r"\epsilon",)]),
    (r"an $\epsilon$-greedy policy", [(r"\epsilon",)]),
    (r"the $r$th layer", [("r",)]),  # an ordinal stays a mention
])
def test_a_formula_glued_to_a_word_is_part_of_a_name(sentence, keys):
    from papermath.analysis.definitions import sentence_mentions
    assert [m.keys if m is not None else None for m in sentence_mentions(sentence, 0, 0, frozenset())] == keys
