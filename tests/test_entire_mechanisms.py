"""Mechanisms behind 'equations entirely right' (issue 14), one table per mechanism."""
import pytest

from papermath.analysis.read import _OPTIMUM_AT_TOP

# An optimum written at the top of the right side makes the equation an objective, however the
# paper spells the operator: the \mathop{...} wrappers are as common as \operatorname.
OPTIMUM_SPELLINGS = [
    (r"\mathop{\arg\min}_{s} \|x - y\|", True),
    (r"\mathop{\text{argmin}}_{\theta} L(\theta)", True),
    (r"\mathop{\mathrm{argmax}}_{a} Q(s, a)", True),
    (r"\arg\min_{x} f(x)", True),
    (r"\operatorname*{arg\,min}_x f(x)", True),
    (r"\max_{i} v_i", True),
    (r"\mathop{\sum}_{i} v_i", False),
    (r"\maxout(x)", False),
    (r"a + \min_i v_i", False),
]


@pytest.mark.parametrize("rhs,is_optimum", OPTIMUM_SPELLINGS)
def test_optimum_at_top_of_right_side(rhs: str, is_optimum: bool) -> None:
    assert bool(_OPTIMUM_AT_TOP.match(rhs)) is is_optimum


# --- roles that spoiled otherwise right readings (dev gold, session 12) ------------------------------------------
from papermath.analysis.read import read_document  # noqa: E402
from papermath.latex import document_from_string  # noqa: E402

from conftest import corpus_equation, symbol_row  # noqa: E402

_DOC = "\\documentclass{article}\n\\begin{document}\n%s\n\\end{document}\n"


def _role(body: str, latex: str, number: str = "1") -> str:
    eq = read_document(document_from_string(_DOC % body), [number]).equations[0]
    return symbol_row(eq, latex).role


# (mechanism, body, equation, symbol, role); each mechanism with its negative
ROLE_MECHANISMS = [
    # the left side of a `with`/`where` clause of the display is defined by the display
    ("a with-clause defines its left side", "The scores are\n\\begin{equation} y = \\sigma(\\tilde{A}) \\text{ with } "
     "\\tilde{A} = Q K \\end{equation}", "1", "\\tilde{A}", "defined here"),
    ("a where-clause defines its left side", "\\begin{equation} x = \\tanh(a z), \\, \\text{where}\\quad a = w + b "
     "\\end{equation}", "1", "a", "defined here"),
    ("an if-clause tests a value, it defines nothing", "\\begin{equation} y = x \\text{ if } z = 0 \\end{equation}",
     "1", "z", "unknown"),
    # an earlier display's recurrence computes the step before of its left side, used by a later display
    ("the step before of an earlier recurrence", "\\begin{equation} x^{k+1} = \\tanh(w x^{k}) \\end{equation}\n"
     "Then\n\\begin{equation} a \\sim \\mathcal{N}(0, (x^{k})^2) \\end{equation}", "2", "x^{k}", "computed"),
    # "…, denoted as $p = <expression>$": the equality computes it, whatever noun precedes "denoted"
    ("denoted as an equality", "Identify the largest probability in the distribution, denoted as "
     "$p_{\\max} = \\max_v P(v)$.\n\\begin{equation} s = b p_{\\max} \\end{equation}", "1", "p_{\\max}", "computed"),
    ("parameterized by a bare symbol is no equality", "A mixture distribution parameterized by $\\lambda$ weighs "
     "the two.\n\\begin{equation} q = \\lambda a + (1 - \\lambda) b \\end{equation}", "1", "\\lambda",
     "fixed setting"),
]


@pytest.mark.parametrize("mechanism, body, number, symbol, want", ROLE_MECHANISMS,
                         ids=[m[0] for m in ROLE_MECHANISMS])
def test_role_mechanism(mechanism: str, body: str, number: str, symbol: str, want: str) -> None:
    assert _role(body, symbol, number) == want


# (paper, equation, symbol, role): the corpus examples the mechanisms above were found on
ROLE_CORPUS = [
    ("hyla", "1", r"\tilde{\mathrm{A}}_{h}", "defined here"),       # … \text{ with } \tilde{A}_h = Q_h^T K_h / …
    ("Tanh-Init", "1", "a^{k + 1}_{i}", "defined here"),            # …, \text{where} a_i^{k+1} = w_{ii} + …
    ("Tanh-Init", "2", "x^{k}_{j}", "computed"),                    # the layer before, which (1) computes
    ("minp", "1", r"p_\max", "computed"),                           # "denoted as $p_{\max} = \max_{v} P(v | …)$"
    ("SISS", "5", r"\lambda", "fixed setting"),                     # "a … distribution parameterized by $\lambda$"
]


@pytest.mark.corpus
@pytest.mark.parametrize("paper, number, symbol, want", ROLE_CORPUS)
def test_role_mechanism_on_the_corpus(paper: str, number: str, symbol: str, want: str) -> None:
    assert symbol_row(corpus_equation(paper, number), symbol).role == want


# --- shapes: an appendix lemma's generic variable declares nothing about the method's letters ----------------------
_METHOD = "\\section{Method}\nThe model maps a data point $x$ to\n\\begin{equation} y = 2 x \\end{equation}\n"
_LEMMA = "Then one step of gradient descent from $x \\in \\mathbb{R}^n$ with step size $t$ converges.\n"
SHAPE_MECHANISMS = [
    ("a lemma in the appendix", _METHOD + "\\appendix\n\\section{Proofs}\n" + _LEMMA, None),
    ("the same sentence in the main text", _METHOD + "\\section{Analysis}\n" + _LEMMA, ("n",)),
]


@pytest.mark.parametrize("mechanism, body, want", SHAPE_MECHANISMS, ids=[m[0] for m in SHAPE_MECHANISMS])
def test_shape_mechanism(mechanism: str, body: str, want) -> None:
    eq = read_document(document_from_string(_DOC % body), ["1"]).equations[0]
    assert symbol_row(eq, "x").shape == want


@pytest.mark.corpus
def test_an_appendix_lemma_gives_no_shape_on_the_corpus() -> None:
    # SISS (1) x_t: "one step of gradient descent from $x\in\mathbb{R}^n$ with step size $t$" (App. A.3) is no shape
    assert symbol_row(corpus_equation("SISS", "1"), "x_{t}").shape is None


# --- free indices: the display's own running index is a row, never "undefined" --------------------------------------
# (body, index, listed undefined): the step of a recurrence (what the display defines or draws, written at t+1 or
# from t-1), or an index whose range the display gives, holds for each value; a position nothing introduces stays
# undefined
FREE_INDICES = [
    ("We run gradient descent with step size $\\eta$.\n\\begin{equation} x_{t+1} = x_t - \\eta g_t \\end{equation}",
     "t", False),
    ("\\begin{equation} a_{t+1} \\sim \\mathcal{N}(a_t, \\sigma^2) \\end{equation}", "t", False),
    ("\\begin{equation} x_t = x_{t-1} + \\alpha z_t \\end{equation}", "t", False),
    ("\\begin{equation} v = u_i + w_i \\quad \\text{for } i = 1, \\ldots, n \\end{equation}", "i", False),
    ("\\begin{equation} v = u_i + w_i \\end{equation}", "i", True),
    ("\\begin{equation} y_i = \\sum_{j=1}^{d} W_{ij} x_j \\end{equation}", "i", True),  # a position, not a step
]


@pytest.mark.parametrize("body, index, undefined", FREE_INDICES)
def test_free_index_of_the_statement(body: str, index: str, undefined: bool) -> None:
    eq = read_document(document_from_string(_DOC % body), ["1"]).equations[0]
    assert symbol_row(eq, index).role == "index"
    assert (index in eq.undefined) is undefined


@pytest.mark.corpus
@pytest.mark.parametrize("paper, number, index", [
    ("Tanh-Init", "1", "i"),   # … \quad \text{for } i = 1, \ldots, n.
])
def test_free_index_of_the_statement_on_the_corpus(paper: str, number: str, index: str) -> None:
    eq = corpus_equation(paper, number)
    assert symbol_row(eq, index).role == "index" and index not in eq.undefined


# --- rows: a gradient the display defines as its own quantity -------------------------------------------------------
# (body, row wanted, role or None for no row): `\nabla F(z) := …` defines the Jacobian, a row of its own; a gradient
# only applied (`\nabla f(y)`) stays the standard operator
GRADIENT_ROWS = [
    ("\\begin{equation} F(z) := A z, \\quad \\nabla F(z) := A \\end{equation}", "\\nabla F", "defined here"),
    ("\\begin{equation} z = y - \\gamma \\nabla f(y) \\end{equation}", "\\nabla f", None),
]


@pytest.mark.parametrize("body, latex, role", GRADIENT_ROWS)
def test_a_defined_gradient_is_a_row(body: str, latex: str, role) -> None:
    eq = read_document(document_from_string(_DOC % body), ["1"]).equations[0]
    rows = [s for s in eq.symbols if s.latex.replace(" ", "") == latex.replace(" ", "")]
    assert [s.role for s in rows] == ([role] if role else [])


@pytest.mark.corpus
def test_a_defined_gradient_is_a_row_on_the_corpus() -> None:
    # LEN (3): "We also denote the GDA field of $f$ and its Jacobian as" F(z) := […], \nabla F(z) := […]
    row = symbol_row(corpus_equation("LEN", "3"), "\\nabla \\mathbf{F}")
    assert row.role == "defined here" and "its Jacobian" in row.definition.quote
