"""Every symbol a formula writes gets a row (issue 14, "symbol with no row"): the mechanisms by which a symbol a
careful reader lists used to get none, each on a formula of our own and on its corpus example.

- a free member of a family a reduction binds elsewhere (`b_t` beside `\\sum_b`),
- a distribution or operator named in words with scripts (`\\text{Pr}_{\\mu}^{\\pi^1, \\pi^2}`),
- the letter that ends an enumeration (`\\tilde{A}_1, …, \\tilde{A}_H`: the number of heads),
- an accent over an indexed symbol (`\\overline{\\mathrm{head}_i}`, another quantity than `head_i`),
- the left side of the row a `= …` row of an align continues,
- operator notations the paper defines in words (`$[\\cdot;\\cdot]$ denotes concatenation`, `\\mathds{1}`, `\\oplus`).
"""
from __future__ import annotations

import pytest

from papermath.analysis.symbols import CONCAT_KEY, INNER_PRODUCT_KEY, collect, written_form
from papermath.math import parse

from conftest import corpus_equation, symbol_row


def _uses(latex: str):
    return {u.key: u for u in collect(parse(latex).tree).uses}


def test_a_free_member_of_a_family_a_sum_binds_keeps_its_row():
    uses = _uses(r"\hat{\pi}(b_t|s_t) = \frac{\exp Q(s_t, b_t)}{\sum_{b}\exp Q(s_t, b)}")
    assert written_form(uses["b"]) == "b_{t}"
    assert "b_{t}" in uses["b"].written


@pytest.mark.parametrize("latex, gone", [
    (r"y = \sum_{i} x_i", "i"),                    # the sum's own index: no row
    (r"y = \sum_{x_t} f(x_t)", "x"),               # the variable as the sum writes it: bound
])
def test_what_a_reduction_binds_still_has_no_row(latex, gone):
    assert gone not in _uses(latex)


def test_an_operator_named_in_words_with_scripts_is_a_row():
    uses = _uses(r"\mathbb{E}_{\tau \sim \text{Pr}_{\mu}^{\pi^1, \pi^2}}[R(\tau)]")
    assert uses[r"\text{Pr}"].kind == "function"
    assert r"\mu" in uses and r"\pi^{1}" in uses


@pytest.mark.parametrize("latex, count", [
    (r"\mathcal{A} = \sigma([\tilde{A}_1 \; \tilde{A}_2 \; \ldots \; \tilde{A}_H])", "H"),
    (r"S = \{o_1, o_2, \cdots, o_G\}", "G"),
    (r"M = C(\overline{{\mathrm{head}_1}}, \cdots, \overline{{\mathrm{head}_h}})", "h"),
])
def test_the_letter_that_ends_an_enumeration_is_a_quantity(latex, count):
    use = _uses(latex)[count]
    assert use.kind == "symbol"


def test_an_enumeration_of_labels_names_no_count():
    assert "n" not in _uses(r"y = x_1 + x_n")  # no ellipsis: no enumeration


def test_an_accent_over_an_indexed_symbol_is_its_own_family():
    uses = _uses(r"\overline{{\mathrm{head}_i}} = (1 - \lambda) \cdot L(\mathrm{head}_i)")
    accented = [u for u in uses.values() if u.key.startswith(r"\bar")]
    assert len(accented) == 1 and accented[0].lhs
    assert any(u.key.startswith(r"\mathrm{head}") for u in uses.values())


@pytest.mark.parametrize("latex, key", [
    (r"k = [a; b]", CONCAT_KEY),
    (r"y = \log \langle u, v \rangle", INNER_PRODUCT_KEY),
    (r"f = \mathds{1}(s > 0)", r"\mathbb{1}"),
    (r"W = \bigoplus_{h=1}^H W_h", r"\oplus"),
])
def test_operator_notations_are_recorded_with_the_key_their_prose_carries(latex, key):
    assert key in [k for k, _ in collect(parse(latex).tree).notations]


# -- the corpus examples ---------------------------------------------------------------------------------------

def _row(paper: str, key: str, latex: str):
    return symbol_row(corpus_equation(paper, key), latex)


# (paper, equation, row, a fragment the quote holds (None: no quote claimed), the role)
CORPUS = [
    ("advantage-alignment", "4", "b_{t}", None, None),
    ("advantage-alignment", "3", r"\text{Pr}", "let $\\tau$ denote a trajectory", "function"),
    ("hyla", "1", "H", "number of heads", "fixed setting"),
    ("Diff-Transformer", "3", "h", "denote the number of attention heads", "fixed setting"),
    ("Diff-Transformer", "3", r"\bar{\mathrm{head}}_{i}", "normalized and projected", "defined here"),
    ("hyla", "4", r"\text{MHA}_{q}", None, "defined here"),
    ("hyla", "7", r"\text{HYLA}_{q}", "Hypernetwork Linear Attention", "defined here"),
    ("deepseek-v3-2412.19437", "2", CONCAT_KEY, "denotes concatenation", "function"),
    ("deepseek-v3-2412.19437", "18", r"\mathbb{1}", "denotes the indicator function", "function"),
    ("hyla", "2", r"\bigoplus", "denotes concatenation", "function"),
]


@pytest.mark.corpus
@pytest.mark.parametrize("paper, key, latex, fragment, role", CORPUS)
def test_the_corpus_symbol_has_its_row(paper, key, latex, fragment, role):
    row = _row(paper, key, latex)
    if fragment is not None:
        assert row.definition is not None and fragment in row.definition.quote
    if role is not None:
        assert row.role == role


@pytest.mark.corpus
def test_an_operator_the_paper_never_defines_keeps_its_conventional_meaning():
    row = _row("TabDiff", "9", INNER_PRODUCT_KEY)
    assert row.definition is None and "inner product" in row.conventional


def test_the_members_of_an_enumerated_set_are_one_family():
    from papermath.analysis.definitions import element_keys
    keys = element_keys(parse(r"X=\{x_1, x_2,\dots, x_n\}").tree, frozenset())
    assert "x" in keys          # the family, which a display's bare x or x_i is
    assert "x_{1}" in keys      # and each member as a formula writing it alone keys it


@pytest.mark.corpus
def test_a_sample_of_the_dataset_is_defined_by_the_dataset_not_by_a_lemma():
    # SISS (5) x ~ p_X: "a training dataset $X=\{x_1, …, x_n\}$", not an appendix lemma's "gradient descent from x"
    row = _row("SISS", "5", "x")
    assert "training dataset" in row.definition.quote


@pytest.mark.parametrize("latex, defined, others", [
    # the left side defines the member x_0; x_T and x_t, the sequence the right side runs over, are another row
    (r"x_0 = x_T + \int_T^0 f_t x_t dt", "x_{0}", "x"),
    (r"z_0 = z_T + \sum_{t=1}^T z_t", "z_{0}", "z"),
])
def test_a_numbered_member_the_left_side_defines_is_its_own_row(latex, defined, others):
    uses = _uses(latex)
    assert uses[defined].lhs and not uses[others].lhs
    assert {"x_{T}", "z_{T}"} & set(uses[others].written)


def test_a_recurrence_keeps_one_row_for_its_quantity():
    uses = _uses(r"x_{t+1} = x_t - \eta g_t")
    assert [k for k in uses if k.startswith("x")] == ["x"] and uses["x"].lhs
