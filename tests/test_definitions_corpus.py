"""Definitions you can trust (issue 14), on the corpus papers: one test per cause the careful readers found, each
with its corpus example, and papermath's own reading passing papermath's own check on every corpus paper.

The expectations are ours (checked by hand against the papers); only short fragments of the paper's sentences are
named, enough to tell the defining sentence from the others.
"""
from __future__ import annotations

import json

import pytest

from papermath.analysis.read import read_document
from papermath.check import check_reading, open_paper_text, parse_reading
from papermath.check.symbols import canonical
from papermath.latex import load_document
from papermath.render.reading import reading_json

from conftest import corpus_equation, symbol_row

pytestmark = pytest.mark.corpus

# (cause, paper, equation, symbol, a fragment the quote must hold, the role)
CAUSES = [
    # the defining sentence next to the display, or an inline equation-form definition, is found: not undefined
    ("equation-form definition after the display", "DiffusionDPO", "14", r"\lambda_{t}",
     "is the signal-to-noise ratio", "computed"),
    ("equation-form definition in the lead-in", "DiffusionDPO", "2", r"\lambda_{t}", "is a signal-to-noise ratio",
     "computed"),
    ("an appositive set definition", "DiffusionDPO", "14", r"\mathcal{D}", "fixed dataset", "input data"),
    ("a variable bound by E keeps a row, defined by its draw", "DiffusionDPO", "2", "t", r"\mathcal{U}(0,T)",
     "random sample"),
    # the role from the symbol's own noun phrase
    ("a step size is a fixed setting, quoted from the method, not a caption", "schedule_free", "1", r"\gamma",
     r"step size $\gamma > 0$", "fixed setting"),
    ("a momentum parameter is a fixed setting", "schedule_free", "3", r"\beta", r"momentum parameter $\beta$",
     "fixed setting"),
    ("set by the variance schedule: a fixed setting", "SISS", "1", r"\gamma_{t}", "set by the variance schedule",
     "fixed setting"),
    # the definition preferred over a passing mention in a proof
    ("the method's sentence over a proof's", "schedule_free", "3", "y_{t}", "sequence is the", "defined here"),
    ("an equation-form definition in a where clause, not a lemma's generic vectors", "schedule_free", "2",
     "c_{t + 1}", "c_{t+1}=1/(t+1)", "computed"),
    # a clause that continues the definition after ';'
    ("a function quoted through the clause that fixes it", "hyla", "6", r"\phi",
     r"here we set it to be a ReLU, $\phi(x) = \max(0, x)$", "function"),
    # the maths written inside words ("\text{if $c_i < …$}") are the formula's symbols
    ("a symbol inside a \\text{…} case", "maskgit-2202.04200", "eq:u1", "c_{i}", "confidence score", "computed"),
    # a function named in words and introduced by its short form
    ("an acronym introduced in prose", "eomt", "1", r"\text{MHSA}", r"multi-head self-attention (\texttt{MHSA})",
     "function"),
    ("an acronym on the left-hand side", "hyla", "2", r"\text{MHA}_{q}", "multi-head attention (MHA)", "defined here"),
]


@pytest.mark.parametrize("cause, paper, key, latex, fragment, role", CAUSES, ids=[c[0] for c in CAUSES])
def test_each_cause_with_its_corpus_example(cause, paper, key, latex, fragment, role):
    eq = corpus_equation(paper, key)
    row = symbol_row(eq, latex)
    assert row.definition is not None and row.definition.strength == "defines", (cause, row.definition)
    assert fragment.replace(" ", "") in row.definition.quote.replace(" ", ""), (cause, row.definition.quote)
    assert row.role == role, (cause, row.role, row.role_cue)
    assert canonical(latex) not in {canonical(u) for u in eq.undefined}, (cause, eq.undefined)


def test_a_passing_mention_of_another_meaning_is_not_the_definition():
    # DiffusionDPO (1): σ_{t-1} is the noise schedule, not "where σ is the sigmoid function"; σ_{t|t-1}, a
    # transition of the schedule the paper never defines (the readers' gold: defined false), is listed undefined
    # rather than quoted from either sentence
    eq = corpus_equation("DiffusionDPO", "1")
    schedule = symbol_row(eq, r"\sigma_{t - 1}")
    assert schedule.definition is not None and "sigmoid" not in schedule.definition.quote
    assert "noise scheduling" in schedule.definition.quote
    transition = symbol_row(eq, r"\sigma_{t \mid t - 1}")
    assert transition.definition is None and r"\sigma_{t \mid t - 1}" in eq.undefined


def test_a_set_builder_binds_only_its_element():
    # minp: S = {i | l'_i >= M - n_thresh}: i is bound by the set; l', M are the paper's quantities
    eq = corpus_equation("minp", "eq:u1")
    latex = {s.latex for s in eq.symbols}
    assert {"l'_{i}", "M"} <= latex, latex
    assert symbol_row(eq, "M").role == "computed"


def test_a_word_operator_binds_the_subscript_its_argument_carries():
    # maskgit: \text{sorted}_j(c_j) — j runs over the argument; "sorted" is the standard function
    eq = corpus_equation("maskgit-2202.04200", "eq:u1")
    assert not eq.undefined, eq.undefined
    assert "j" not in {s.latex for s in eq.symbols}


def test_a_component_gives_no_shape_to_the_vector():
    # TabDiff: "x^num ∈ ℝ^{M_num} … (x^num)_i ∈ ℝ": the entry is a scalar, the vector is not
    row = symbol_row(corpus_equation("TabDiff", "1"), r"\mathbf{x}^\mathrm{num}_{t}")
    assert row.shape != (), (row.shape, row.shape_cue)


def test_a_footnote_is_not_the_lead_in_of_a_display():
    # TabDiff (17): KST's display follows a paragraph whose footnote is a URL; the lead-in is the text before it
    row = symbol_row(corpus_equation("TabDiff", "17"), r"\mathrm{KST}")
    assert row.definition is not None and "url" not in row.definition.quote
    assert "KST" in row.definition.quote


def test_read_json_passes_check_on_every_corpus_paper(corpus):
    failures: list[str] = []
    papers = sorted(p for p in corpus.iterdir() if p.is_dir())
    for paper in papers:
        data = reading_json(read_document(load_document(str(paper))))
        report = check_reading(parse_reading(json.dumps(data), paper.name), open_paper_text(str(paper)))
        failures += [f"{paper.name}: {f.check} ${f.symbol}$: {f.message[:160]}" for f in report.failures]
    assert len(papers) >= 20
    assert not failures, "\n".join(failures)


def test_the_quantities_a_label_writes_are_defined_rows():
    # SISS (2): L_{X \setminus A} — X is the training set, A the unlearning set; t is the time of x_t, quoted
    # from the method ("at time $t$"), not from the appendix lemma's "step size $t$"
    eq = corpus_equation("SISS", "2")
    assert "training dataset" in symbol_row(eq, "X").definition.quote
    assert "unlearning set" in symbol_row(eq, "A").definition.quote
    t = symbol_row(eq, "t")
    assert "at time $t$" in t.definition.quote and "step size" not in t.definition.quote
    assert not {"X", "A", "t"} & set(eq.undefined)


def test_a_lead_in_that_says_nothing_is_not_the_quote():
    # schedule_free (12): g_t is computed by (11), whose lead-in is "Set:"; the paper's "where $g_t$ is the
    # stochastic (sub-)gradient" says what it is. LEN (u14): "Let" alone is no definition of \bar{x}_t.
    row = symbol_row(corpus_equation("schedule_free", "12"), "g_{t}")
    assert "stochastic (sub-)gradient" in row.definition.quote, row.definition
    for s in corpus_equation("LEN", "eq:u14").symbols:
        assert s.definition is None or s.definition.quote.strip() not in ("Let", "Set:"), s


def test_the_prose_may_write_the_symbol_in_another_weight():
    # TabDiff (8): the displays write \bm{\mu}_\theta^{cat}, the sentence that introduces the network writes
    # \mu^{cat}_\theta (no display writes that plain spelling as a symbol of its own)
    row = symbol_row(corpus_equation("TabDiff", "8"), r"\mathbf\mu _\theta ^\mathrm{cat}")
    assert "We introduce the denoising network" in row.definition.quote, row.definition


def test_a_sample_drawn_in_a_display_is_defined_by_that_draw():
    # TabDiff (3) "… \bm\sigma^{num}(t) \bm \epsilon, \quad \bm \epsilon \sim \mathcal{N}(\bm 0, \bm I)": the display
    # says what ε is; (5), which draws it again under its expectation, quotes the first display's draw
    for key in ("3", "5"):
        eq = corpus_equation("TabDiff", key)
        row = symbol_row(eq, r"\mathbf\epsilon ")
        assert row.definition is not None and r"\sim \mathcal{N}(\bm 0" in row.definition.quote, row.definition
        assert r"\mathbf\epsilon " not in eq.undefined


def test_a_matrix_of_entries_defines_its_entries():
    # Tanh-Init (1): "Denote $\mathbf{W}^{\ell}=[w_{ij}^{\ell}]$" defines the entries w^{k+1}_{ij} (a layer label
    # written ℓ there and k+1 in the display varies like an index)
    eq = corpus_equation("Tanh-Init", "1")
    row = symbol_row(eq, "w^{k + 1}_{i,i}")
    assert row.definition is not None and "[w_{ij}^{\\ell}]" in row.definition.quote, row.definition
    assert "w^{k + 1}_{i,i}" not in eq.undefined


@pytest.mark.parametrize("paper, key, latex, fragment", [
    # the symbol's own definition over its place inside γ's definition next to the display: "This is the rate used
    # in our bounds for Theorem 1", whose G is the Lipschitz constant ("some function $f$ that is $G$-Lipschitz",
    # quoted since session 14; the later theorem's "define $G=\max_t \Vert g_t\Vert$" is its bound's G)
    ("schedule_free", "14", "G", "$G$-Lipschitz"),
    # m's own definition ("we use $m \in \{0,1\}^K$ as the one-hot vector for it", the [MASK] state, read since
    # session 14; before, the appendix's "the mask token $m$"), not m inside 'the target distribution cat(·; m)'
    ("TabDiff", "9", r"\mathbf{m}", "as the one-hot vector for it"),
])
def test_a_symbol_inside_another_definition_is_not_its_definition(paper, key, latex, fragment):
    quote = symbol_row(corpus_equation(paper, key), latex).definition.quote
    assert fragment in quote, quote
