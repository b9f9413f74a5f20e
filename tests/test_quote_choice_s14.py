"""Which sentence is quoted as a symbol's definition (issue 14, session 14): one table row per mechanism, with its
corpus example (skipped without ../shared), and the pattern-level cases on sentences of our own.

The expectations are ours, checked by hand against the papers; only short fragments of the sentences are named.
"""
from __future__ import annotations

import pytest

from papermath.analysis.candidates import same_family_meaning
from papermath.analysis.definitions import sentence_mentions

from conftest import corpus_equation, symbol_row

# (mechanism, paper, equation, symbol row, a fragment the quote must hold)
CORPUS = [
    # a caption keeps its penalty for an appendix display: "(a) The self-position x … is represented by" (a figure
    # caption) no longer ties with the running text "Suppose the agent is at the self-position"
    ("a caption ranks below the text for an appendix display", "grid-cell-conformal-isometry", "eq:31",
     r"\mathbf{x}", "Suppose the agent is at the self-position"),
    # "$\mathbb{M} = (v(x), \forall x)$ is a 2D manifold" names the collection, not its member v
    ("a collection named in the singular defines its members weakly", "grid-cell-conformal-isometry", "eq:2",
     r"\mathbf{v}", "grid cells form a $d$-dimensional vector"),
    # negative: "Let $Y = [y_i]_{i=1}^N$ denote the latent tokens" (plural) says what each y_i is
    ("a collection named in the plural still defines its members", "maskgit-2202.04200", "eq:1", "y_{i}",
     "denote the latent tokens"),
    # "Suppose $F$ is a convex function" (a theorem's own words) opens with a supposition
    ("a supposition reads as a copula", "schedule_free", "eq:8", "F", "Suppose $F$ is a convex function"),
    # "we use $m \in \{0,1\}^K$ as the one-hot vector for it"
    ("use X as the …", "TabDiff", "eq:7", r"\mathbf{m}", "as the one-hot vector for it"),
    # "The guided conditional sample distribution is given by $\tilde{p}_\theta(x_t|y) \propto …$"
    ("a formula after 'is given by' defines its left side", "TabDiff", "eq:16", r"\tilde{p}_\theta",
     "The guided conditional sample distribution is given by"),
    # the row `k^R_t = RoPE(W^{KR} h_t)` is explained through its factor: "$W^{KR}$ … is the matrix used to produce
    # the decoupled key that carries RoPE" (dev (3), held-out eq:4 and eq:9)
    ("the factor that produces the left side", "deepseek-v3-2412.19437", "eq:3", r"\mathbf{k}^{R}_{t}",
     "the matrix used to produce the decoupled key"),
    ("the factor that produces a quantity used here", "deepseek-v3-2412.19437", "eq:9", r"\mathbf{q}^{R}_{t,i}",
     "the matrix to produce the decoupled queries"),
    # an index: the display's own lead-in ("indexed by a continuous time variable $t \in [0,1]$") before another
    # display's stronger "where $s$ and $t$ are two arbitrary timesteps"
    ("an index ranks by nearness before strength", "TabDiff", "eq:1", "t", "indexed by a continuous time variable"),
    ("an index ranks by nearness before strength (a step)", "GMFlow", "eq:1", r"\Delta t",
     "With infinitesimal step size"),
    # one row of a display of several: "the attention queries ($q_{t,i}$), keys ($k_{j,i}$)" names k, the lead-in
    # "The core of MLA is the low-rank joint compression …:" speaks of every row
    ("a sentence naming one row's left side over the whole display's lead-in", "deepseek-v3-2412.19437", "eq:4",
     r"\mathbf{k}_{t,i}", "keys ($\\mathbf{k}_{j, i}$)"),
    # a norm the paper defines in words is quoted, not glossed conventionally
    ("a norm defined in words", "LEN", "eq:4", r"\|\cdot\|", "to denote the spectral norm"),
    ("a norm defined in words (a where clause)", "grid-cell-conformal-isometry", "eq:31", r"\|\cdot\|",
     "norm"),
    # x_0, which the paper defines alone, gets its own row beside x_t
    ("a fixed member defined alone has its own row", "TabDiff", "eq:1", r"\mathbf{x}_{0}",
     "samples from real data distribution"),
    # d_{γ,k-t}: "and $d_{\gamma,k}$ is the occupancy measure of the tuple" (a label of two parts, one shifted)
    ("a label whose index part is shifted", "advantage-alignment", "eq:11", r"d_{\gamma, k - t}",
     "is the occupancy measure of the tuple"),
    # "the binary-cross entropy (BCE) and the Dice loss" names L_dice by its label in words
    ("a loss named by its label in words", "eomt", "eq:2", r"\mathcal{L}_{\text{dice}}", "the Dice loss"),
    # "The $z$ sequence is the base sequence, which is where the base optimizer's update is performed": names every
    # z_t, and the clause goes on past "which is where"
    ("a letter named as a sequence", "schedule_free", "eq:3", "z_{t}",
     "which is where the base optimizer's update is performed"),
    # ε used in (12) but drawn in (3): "\bm \epsilon \sim \mathcal{N}(\bm 0, \bm I_{M_num})"
    ("a symbol drawn in another display", "TabDiff", "eq:12", r"\mathbf\epsilon ", "\\sim \\mathcal{N}"),
    # the Lipschitz constant of the theorem's own "for some function $f$ that is $G$-Lipschitz in $x$"
    ("the constant of a named property", "schedule_free", "eq:8", "G", "-Lipschitz in"),
    # LEN: "we let $\beta$ sufficiently large such that it holds", not "… and $\beta = \Omega(\max\{…\})$"
    ("an order of growth does not define", "LEN", "eq:u7", r"\beta", "sufficiently large"),
]


def _quote(paper: str, key: str, latex: str) -> str:
    row = symbol_row(corpus_equation(paper, key), latex)
    return row.definition.quote.replace(" ", "") if row.definition is not None else ""


@pytest.mark.corpus
@pytest.mark.parametrize("cause, paper, key, latex, fragment", CORPUS, ids=[c[0] for c in CORPUS])
def test_quote_holds(cause, paper, key, latex, fragment):
    assert fragment.replace(" ", "") in _quote(paper, key, latex), cause


@pytest.mark.corpus
def test_the_family_row_keeps_its_own_quote_beside_the_member():
    eq = corpus_equation("TabDiff", "eq:1")
    family = symbol_row(eq, r"\mathbf{x}_{t}")
    assert "\\mathbf{x}_0" not in family.also_written and "{\\mathbf{x}}_0" not in family.also_written
    assert "denote a sequence of data" in family.definition.quote


@pytest.mark.corpus
def test_another_label_drawn_elsewhere_is_not_quoted():
    # SISS draws ε_f in a display; ε, which the paper never defines, is not quoted from it
    row = symbol_row(corpus_equation("SISS", "2"), r"\epsilon")
    assert row.definition is None or "\\epsilon_f" not in row.definition.quote


# (sentence, the formula's key, the pattern expected or None, whether it defines: strength 2 or more)
PATTERNS = [
    (r"Suppose $F$ is a convex function.", "F", "is", True),
    (r"Assume that $G$ is the gradient bound.", "G", "is", True),
    (r"We assume $f$ is smooth.", "f", None, False),  # an adjective, no noun: not a definition
    (r"We use $m$ as the mask token.", "m", "denote-by", True),
    (r"The target density is given by $p(x) \propto \exp(-E(x))$.", "p", "denoted", True),
    (r"where the weight is given by $w = 3$.", "w", "value", False),  # a number only sets a value
    # the constant of a named property is a weak definition (its role is left to the other sentences)
    (r"for some function $f$ that is $G$-Lipschitz in $x$.", "G", "property", False),
    (r"Suppose $f$ is $\mu$-strongly convex.", r"\mu", "property", False),
    (r"a $d$-dimensional vector", "d", None, False),  # a dimension word is not one of the properties
    # an order of growth bounds its left side, it does not define it
    (r"We call it a saddle point if $\beta = \Omega( \max \{ 1, 2 \})$.", r"\beta", "order", False),
    (r"we take $m=\Theta(\sqrt{d})$.", "m", "order", False),
    (r"where $c = a+b$ is the sum.", "c", "equation", True),
]


@pytest.mark.parametrize("sentence, key, pattern, defines", PATTERNS, ids=[p[0] for p in PATTERNS])
def test_defining_patterns(sentence, key, pattern, defines):
    found = [m for m in sentence_mentions(sentence, 0, 0, frozenset()) if m is not None and key in m.keys]
    assert found, sentence
    assert (found[0].pattern, found[0].strength >= 2) == (pattern, defines), found[0]


# (display key, prose key, same family?)
FAMILIES = [
    ("d_{\\gamma, k - t}", "d_{\\gamma, k}", True),
    ("d_{\\gamma, k}", "d_{\\gamma, j}", True),
    ("d_{\\gamma, k}", "d_{\\beta, k}", False),  # no shared part: another quantity
    ("W_{1, k}", "W_{2, k}", False),  # two numbered members
    ("x_{k - t}", "x_{k}", True),
]


@pytest.mark.parametrize("use_key, other_key, same", FAMILIES, ids=[f"{a}~{b}" for a, b, _ in FAMILIES])
def test_labels_of_several_parts(use_key, other_key, same):
    assert same_family_meaning(use_key, other_key) is same


@pytest.mark.corpus
def test_a_weight_is_not_the_loss_its_label_names():
    # λ_dice is the weight of the Dice loss: "the Dice loss" does not define it
    row = symbol_row(corpus_equation("eomt", "eq:2"), r"\lambda_{\text{dice}}")
    assert row.definition is None or "the Dice loss" not in row.definition.quote or \
        row.definition.pattern != "named-in-words"
