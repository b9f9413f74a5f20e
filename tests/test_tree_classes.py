"""Issue 13's error classes, each with its minimal example and the structure a careful reader agrees with.

Bare formulas decide from their own evidence and conventions (recorded as such); where syntax and the formula
cannot decide, a small paper (`document_from_string`) supplies the sentence or the definition that does, and the
same formula is read through that paper's notation index.
"""
from __future__ import annotations

import pytest

from papermath.analysis.notation_index import build_index
from papermath.latex import document_from_string
from papermath.math import ast as A
from papermath.math import parse, row_is_open
from papermath.math.ast import sexpr

from conftest import corpus_paper


def tree(latex: str) -> str:
    return sexpr(parse(latex).tree)


def paper_tree(text: str, latex: str):
    """The tree of `latex` read with the notation of a paper whose body is `text`."""
    doc = document_from_string("\\documentclass{article}\\begin{document}\n" + text + "\n\\end{document}")
    return build_index(doc).parse_latex(latex)


# 1. Function application read as multiplication
@pytest.mark.parametrize("latex, expected", [
    (r"r_t(\theta) = \frac{a}{b}", "(Relation (Apply (Indexed r [t]) [\\theta] certainty=formula) = (Frac a b))"),
    (r"\epsilon_\theta(x_t, t)", "(Apply \\epsilon{_\\theta} [(Indexed x [t]) t] certainty=formula)"),
    (r"v_t(x)", "(Apply (Indexed v [t]) [x] certainty=convention)"),
    (r"V^\pi(s)", "(Apply V{^\\pi} [s] certainty=convention)"),
    (r"Q^1(s, a)", "(Apply Q{^1} [s a] certainty=formula)"),
    (r"p(x) / Z(c)", "(/ (Apply p [x] certainty=convention) (Apply Z [c] certainty=convention))"),
    # h'(t) = … defines h as a function of t (formula evidence); x(t) is read by convention
    (r"h'(t) = A h(t) + B x(t)", "(Relation (Apply h{'} [t] certainty=formula) = (+ (Product [A (Apply h [t] "
                                 "certainty=formula)]) (Product [B (Apply x [t] certainty=convention)])))"),
    (r"\text{KeepTopK}(v, k)", "(Apply 'KeepTopK' [v k] certainty=formula)"),
    (r"d(g, h)", "(Apply d [g h] certainty=formula)"),
    (r"u_t^\theta(x)", "(Apply (Indexed u{^\\theta} [t]) [x] certainty=convention)"),
])
def test_applications(latex, expected):
    assert tree(latex) == expected


def test_the_paper_decides_an_application_the_formula_cannot():
    # bare, Z(c) is decided only by convention; the paper's sentence makes it paper evidence
    result = paper_tree(r"where $Z(c) = \sum_x p(x)$ is the partition function.", r"p(x) / Z(c)")
    z = next(d for d in result.decisions if d.subject == "Z")
    assert z.reading == "application" and z.strength == "paper"
    assert any(e.kind == "defined as a function" for e in z.evidence)


def test_a_shape_in_the_paper_makes_a_product():
    result = paper_tree(r"Let $T \in \mathbb{R}^{d \times d}$ be a matrix.", r"T(a + b)")
    assert sexpr(result.tree) == "(Product [T (Group (+ a b))])"
    assert result.decisions[0].reading == "product"


# 2. A label read as a power
@pytest.mark.parametrize("latex, expected", [
    (r"X^{l+1} = f(Y^l) + Y^l", "(Relation X{^(+ l 1)} = (+ (Apply f [Y{^l}] certainty=convention) Y{^l}))"),
    (r"h_i^{k-1}", "(Indexed h{^(- k 1)} [i])"),
    (r"x_0^{pred}", "(Indexed x{^pred} [0])"),
    (r"W^{Q_1}", "W{^(Indexed Q [1])}"),
    (r"L_t^{CLIP+VF+S}(\theta)", "(Apply (Indexed L{^(+ (+ CLIP (Product [V F])) S)} [t]) [\\theta] "
                                 "certainty=convention)"),
    (r"A^{1}_t", "(Indexed A{^1} [t])"),
    (r"y^{[n]}", "y{^(Group n open=[ close=])}"),
    (r"x_i^{k+1}", "(Indexed x{^(+ k 1)} [i])"),
    (r"x^2 + \sigma^2", "(+ (Power x 2) (Power \\sigma 2))"),
    (r"\gamma^{t-k}", "(Power \\gamma (- t k))"),
    (r"\bm{z}_k^0 + X^0", "(+ (Indexed z{bf,^0} [k]) X{^0})"),  # x^0 = 1 is never written: the initial/clean one
])
def test_labels_and_powers(latex, expected):
    assert tree(latex) == expected


def test_winner_and_loser_labels_come_from_the_paper():
    bare = parse(r"x_0^w")
    assert sexpr(bare.tree) == "(Power (Indexed x [0]) w)"
    assert [d.status for d in bare.decisions] == ["ambiguous"]  # nothing in the formula decides
    result = paper_tree(r"Here $x_0^w$ is the preferred image and $x_0^l$ the dispreferred one.", r"x_0^w")
    assert sexpr(result.tree) == "(Indexed x{^w} [0])"
    assert result.decisions[0].strength == "paper"


# 3. Multi-line statements split at \\
@pytest.mark.parametrize("latex, expected", [
    (r"L = \mathbb{E}_{x} \\ \log\sigma\left(a \left(\right.\right. \\ b - c \\ \left.\left. - d \right)\right)",
     "(Relation L = (E (Apply \\log [(Apply \\sigma [(Product [a (Group (- (- b c) d))])] certainty=convention)] "
     "brackets=) variables=[x]))"),
    (r"y = \left( a + b \right. \\ \left. + c \right)", "(Relation y = (Group (+ (+ a b) c)))"),
    (r"\begin{aligned} y &= \Biggl( a \\ &+ b \Biggr) \\ z &= 2 \end{aligned}",
     "(Rows [(Relation y = (Group (+ a b))) (Relation z = 2)])"),
    (r"\sum_t \left\{ a \right. \\ \left. - b \right\}", "(sum (Group (- a b) open={ close=}) variables=[t])"),
    # a row that starts with a relation under a note goes on with the statement, as one starting with `=` does
    (r"\begin{aligned} & \kappa(X) \\ & \stackrel{\text{def}}{=} \sum_{k} a_k \end{aligned}",
     "(Relation (Apply \\kappa [X] certainty=formula) = (sum (Indexed a [k]) variables=[k]))"),
    (r"a \\ \overset{(a)}{\le} b", "(Relation a \\le b)"),
])
def test_multi_line_statements_are_joined(latex, expected):
    assert tree(latex) == expected


def test_a_bracket_left_open_ends_with_its_content_not_the_full_stop():
    latex = r"L = \log \sigma (a + b."
    rel = parse(latex).tree
    assert sexpr(rel) == "(Relation L = (Apply \\log [(Apply \\sigma [(+ a b)] certainty=convention)] brackets=))"
    assert latex[slice(*rel.operands[1].span)] == r"\log \sigma (a + b"
    assert latex[slice(*rel.operands[1].args[0].span)] == r"\sigma (a + b"


def test_a_trailing_backslash_is_a_space_not_part_of_the_statement():
    # `\biggr)\<newline>` in the source: a control space whose line end the document trimmed
    rel = parse("L = -\\log \\sigma\\biggl( a \\biggr)\\").tree
    assert sexpr(rel) == "(Relation L = (- (Apply \\log [(Apply \\sigma [a] certainty=convention)] brackets=)))"
    assert rel.operands[1].span[1] == len("L = -\\log \\sigma\\biggl( a \\biggr)")


def test_an_align_row_ending_in_an_operator_is_open():
    assert row_is_open(r"\ell_\lambda(\theta)&=\mathbb{E}_{p_X(x)} \mathbb{E}_{q_\lambda(m_t| x, a)}\label{x}")
    assert row_is_open(r"&\Bigg[\frac{n}{n-k} f \nonumber")
    assert not row_is_open(r"a &= b + c")


# 4. A sum/max scope ending at the first +/- although the next term uses the bound variable
@pytest.mark.parametrize("latex, expected", [
    (r"\sum_{t=1}^T a_t - b_t", "(sum (- (Indexed a [t]) (Indexed b [t])) variables=[t] lower=1 upper=T)"),
    (r"\max_{\pi} \mathbb{E}_{x}[r(x)] - \beta D_{KL}(\pi \| \pi_0)",
     "(max (- (E (Apply r [x] certainty=convention) variables=[x]) (Product [\\beta (Divergence D{_KL} \\pi "
     "(Indexed \\pi [0]))])) variables=[\\pi])"),
    (r"\sum_{i=1}^n x_i + \lambda R", "(+ (sum (Indexed x [i]) variables=[i] lower=1 upper=n) (Product [\\lambda R]))"),
])
def test_reduction_scope(latex, expected):
    assert tree(latex) == expected


@pytest.mark.parametrize("latex, expected", [
    # b_t is another variable than the bound b: the next term does not join the sum
    (r"\sum_{b \neq b_t} e^{Q(b)} + e^{Q(b_t)}",
     "(+ (sum (Power e (Apply Q [b] certainty=convention)) variables=[b] condition=(Relation b \\ne (Indexed b [t]))) "
     "(Power e (Apply Q [(Indexed b [t])] certainty=convention)))"),
    # an integral still waiting for its differential takes every term up to the one that ends with it
    (r"x_0 = x_T + \int_T^0 f_t x_t - \frac{1}{2} g_t^2 s(x_t) dt",
     "(Relation (Indexed x [0]) = (+ (Indexed x [T]) (int (- (Product [(Indexed f [t]) (Indexed x [t])]) (Product "
     "[(Frac 1 2) (Power (Indexed g [t]) 2) (Apply s [(Indexed x [t])] certainty=convention)])) variables=[t] "
     "lower=T upper=0)))"),
    (r"y = a - b + \int f - g \,\mathrm{d}x + c",
     "(Relation y = (+ (+ (- a b) (int (- f g) variables=[x])) c))"),
    # a function written without brackets does not take the integral's differential into its argument
    (r"\int_0^1 \log \langle a, b \rangle dt",
     "(int (Apply \\log [(Delimited (Tuple [a b]) kind=angle)] brackets=) variables=[t] lower=0 upper=1)"),
    (r"a - b + c\, dt", "(+ (- a b) (Product [c d t]))"),
])
def test_the_scope_of_sums_and_integrals(latex, expected):
    assert tree(latex) == expected


# 5–10
@pytest.mark.parametrize("latex, expected", [
    (r"x[n] = x[k] + \mathbf{v}_\theta (n - k)",
     "(Relation (Indexed x [n]) = (+ (Indexed x [k]) (Product [v{bf,_\\theta} (Group (- n k))])))"),
    (r"z[i-1][r[j]]", "(Indexed z [(- i 1) (Indexed r [j])])"),
    (r"{z}[rj]", "(Indexed z [r j])"),  # one index per running letter, as in z_{rj} (the printer's fixed point)
    (r"\frac{T(G + 2\mu D)^2}{\mu}", "(Frac (Product [T (Power (Group (+ G (Product [2 \\mu D]))) 2)]) \\mu)"),
    (r"\begin{aligned} \relax [Q_1 ; Q_2] = X W^Q \end{aligned}",
     "(Relation (Concat [(Indexed Q [1]) (Indexed Q [2])]) = (Product [X W{^Q}]))"),
    (r"\min\left[a, b\right]", "(Apply \\min [a b] brackets=[])"),
    (r"\nabla F(z) (y - z)", "(Product [(Gradient (Apply F [z] certainty=convention)) (Group (- y z))])"),
    (r"\exp Q(b) \frac{c}{d}", "(Product [(Apply \\exp [(Apply Q [b] certainty=convention)] brackets=) (Frac c d)])"),
])
def test_indexing_products_dropped_content_intervals_and_scopes(latex, expected):
    assert tree(latex) == expected


# 11. Bound variables of an expectation
def test_every_distribution_under_an_expectation_binds_its_variable():
    red = parse(r"\mathbb{E}_{t, q(x_1), p_t(x|x_1)} f").tree
    assert isinstance(red, A.Reduction)
    assert [sexpr(v) for v in red.variables] == ["t", "(Indexed x [1])", "x"]
    assert sexpr(parse(r"\mathbb{E}_{p_A(a)} f(a)").tree.variables[0]) == "a"
    # every row of a \substack draws what it names
    red = parse(r"\mathbb{E}_{\substack{x^w \sim p(x^w|c), t \sim U \\ x^l \sim p(x^l|c)}} f").tree
    assert [sexpr(v) for v in red.variables] == ["x{^w}", "t", "x{^l}"] and red.condition is None
    # a row that is not a draw stays a condition
    red = parse(r"\sum_{\substack{i \in S \\ j \neq i}} a_{ij}").tree
    assert [sexpr(v) for v in red.variables] == ["i"] and sexpr(red.condition) == "(Relation j \\ne i)"


@pytest.mark.parametrize("latex, expected", [
    # a distribution's name right after \sim is applied to the interval or set written after it
    (r"t \sim U[0, 1]", "(Relation t \\sim (Apply U [(Interval 0 1 left_closed=True right_closed=True)] "
                        "certainty=formula brackets=))"),
    (r"t \sim \mathcal{U}\{0, T\}", "(Relation t \\sim (Apply U{cal} [(SetLiteral [0 T])] certainty=formula brackets=))"),
    (r"y \sim P[a]", "(Relation y \\sim (Indexed P [a]))"),
    # as the printer writes it back
    (r"t \sim U {[0, 1]}", "(Relation t \\sim (Apply U [(Interval 0 1 left_closed=True right_closed=True)] "
                           "certainty=formula brackets=))"),
    (r"x[0, 1]", "(Indexed x [0 1])"),
])
def test_a_distribution_over_an_interval(latex, expected):
    assert tree(latex) == expected


@pytest.mark.parametrize("latex, expected", [
    # a sign applies to the whole term, explicit products as juxtaposed ones (`-a b`)
    (r"& + 2*\langle a, b \rangle", "(+ (* 2 (Delimited (Tuple [a b]) kind=angle)))"),
    (r"-\frac{1}{2} \cdot x", "(- (\\cdot (Frac 1 2) x))"),
    (r"-a b", "(- (Product [a b]))"),
    (r"\neg a \cdot b", "(\\cdot (\\neg a) b)"),
    # arithmetic on an exponent parameter, or a fraction, is a power (`h^{k-1}` still names a layer)
    (r"m = d^{\omega-2}", "(Relation m = (Power d (- \\omega 2)))"),
    (r"h^{k-1}", "h{^(- k 1)}"),
])
def test_signs_and_exponents(latex, expected):
    assert tree(latex) == expected


def test_an_expectation_whose_bracket_the_paper_leaves_open_binds_every_draw():
    red = parse(r"\mathbb{E}_{(x^w, x^l \sim p(c), c \sim \mathcal{D}, t \sim U} f").tree
    assert [sexpr(v) for v in red.variables] == ["x{^w}", "x{^l}", "c", "t"]


def test_fractions_of_an_exponent_on_a_base_are_powers_not_names():
    # d^{2/3}, d^{\omega - 1} beside d^\omega: the paper raises d to powers; ω is an exponent, not d's label
    text = r"The cost is $d^{2/3}$, $d^{\omega - 1}$, $d^{1/3}$ and $d^2$, where $\omega \approx 2.37$."
    assert sexpr(paper_tree(text, r"N d + d^{\omega}").tree) == "(+ (Product [N d]) (Power d \\omega))"


def test_an_expectation_over_a_distribution_the_paper_applies():
    # `\mathbb{E}_q`: q is applied with a conditional bar elsewhere in the paper, so it is what is averaged over
    result = paper_tree(r"The forward process is $q(x_t | x_0)$.", r"\mathbb{E}_q \log p(x)")
    assert isinstance(result.tree, A.Reduction)
    assert result.tree.variables == () and sexpr(result.tree.distribution) == "q"
    assert any(d.question == "variable or distribution" and d.reading == "distribution" for d in result.decisions)
    # bare, nothing says q is a distribution: it stays the bound variable
    assert [sexpr(v) for v in parse(r"\mathbb{E}_q \log p(x)").tree.variables] == ["q"]


# 12–13. Prose and quantifiers
@pytest.mark.parametrize("latex, expected", [
    (r"y_i = a_i \quad \text{for } i = 1, \ldots, k",
     "(Sequence [(Relation (Indexed y [i]) = (Indexed a [i])) (Annotated (Relation i = (Sequence [1 (Ellipsis "
     "kind=...) k] separators=[, ,])) note='for' kind=condition)] separators=[,])"),
    (r"y = W x \quad \text{where } W = A B",
     "(Sequence [(Relation y = (Product [W x])) (Annotated (Relation W = (Product [A B])) note='where' "
     "kind=condition)] separators=[,])"),
    (r"a, \text{ s.t. } b = c", "(Sequence [a (Annotated (Relation b = c) note='s.t.' kind=condition)] "
                                 "separators=[,])"),
    (r"f(x) \ge 0, \forall x', x \in \mathbb{R}^d",
     "(Sequence [(Relation (Apply f [x] certainty=convention) \\ge 0) (Annotated (Relation (Tuple [x{'} x] open= "
     "close=) \\in (Power R{bb} d)) note=\\forall kind=condition)] separators=[,])"),
])
def test_prose_and_quantifiers_qualify(latex, expected):
    assert tree(latex) == expected


# 14–17
@pytest.mark.parametrize("latex, expected", [
    (r"\mathrm{d} x_t = \mu\,\mathrm{d}t",
     "(Relation (Differential (Indexed x [t]) kind=d) = (Product [\\mu (Differential t kind=d)]))"),
    (r"\frac{\partial^2 u}{\partial x^2}", "(Derivative u kind=partial wrt=[x] order=2)"),
    # an equation of differentials (an SDE): its left side and the right side's terms ending in d t, d w
    (r"d\bm{x}_t = f(x_t) dt + g_t dw", "(Relation (Differential (Indexed x{bf} [t]) kind=d) = (+ (Product [(Apply f "
                                       "[(Indexed x [t])] certainty=convention) (Differential t kind=d)]) (Product "
                                       "[(Indexed g [t]) (Differential w kind=d)])))"),
    (r"d x = a", "(Relation (Product [d x]) = a)"),
    (r"\partial^2 u/\partial x^2", "(Derivative u kind=partial wrt=[x] order=2)"),
    (r"\sum_t \left\{ a - b \right\}", "(sum (Group (- a b) open={ close=}) variables=[t])"),
    (r"\{o_i\}", "(SetLiteral [(Indexed o [i])])"),
    (r"x_{0, ij}", "(Indexed x [0 i j])"),
    (r"O(\Delta t) + \Delta\theta_2", "(+ (Apply O [\\Delta t] certainty=convention) (Indexed \\Delta \\theta [2]))"),
    (r"Tr(\pi)", "(Apply Tr [\\pi])"),
    (r"\text{pass@}k", "'pass@k'"),
    (r"\bm{z}_{\emptyset}", "z{bf,_\\emptyset}"),
])
def test_differentials_derivatives_groups_indices_and_names(latex, expected):
    assert tree(latex) == expected


def test_a_name_the_paper_defines_is_one_symbol():
    assert "SE{" not in tree(r"a\, SE_\theta")  # bare: S times E_theta (nothing says otherwise)
    result = paper_tree(r"We write \[ SE = \|\epsilon - \epsilon_\theta\|_2^2 \] for the squared error.",
                        r"a\, SE_\theta")
    assert sexpr(result.tree) == "(Product [a SE{it,_\\theta}])"
    assert [d.question for d in result.decisions] == ["one name or a product"]


# Mechanisms found by formulas written fresh (not from the gold): the formula's own notation decides
@pytest.mark.parametrize("latex, expected", [
    # the subscript names a quantity the formula writes on its own (f_t; the bold k_j), never bare, never running
    (r"f_t = \sigma(W_f h_{t-1} + b_f)",
     "(Relation (Indexed f [t]) = (Apply \\sigma [(+ (Product [W{_f} (Indexed h [(- t 1)])]) b{_f})] "
     "certainty=convention))"),
    (r"\mathbf{k}_j = \mathbf{W}_k \mathbf{x}_j", "(Relation (Indexed k{bf} [j]) = (Product [W{bf,_k} (Indexed x{bf} [j])]))"),
    # t is written bare (v(x_t, t)): a value, so W_t is W at t
    (r"v(x_t, t) + W_t", "(+ (Apply v [(Indexed x [t]) t] certainty=formula) (Indexed W [t]))"),
    # a bracket no divergence names joins its parts (GAT's [W h_i || W h_j])
    (r"[\mathbf{W} h_i \,\|\, \mathbf{W} h_j]", "(Concat [(Product [W{bf} (Indexed h [i])]) (Product [W{bf} (Indexed h [j])])])"),
    # the same letters written together twice are one name
    (r"PE_{(pos, 2i)} = \sin(pos)", "(Relation (Indexed PE{it} [pos{it} (Product [2 i])]) = (Apply \\sin [pos{it}]))"),
    # a vector the formula minimises over is no running index: W_x names the weights of x
    (r"\min_{\bm{x}} f(W_x \bm{x})",
     "(min (Apply f [(Product [W{_x} x{bf}])] certainty=convention) variables=[x{bf}])"),
    # an indexed scalar as a scalar's exponent is a power (t^{k_j}); an indexed name on a matrix labels (W^{Q_1})
    (r"t^{k_j} + W^{Q_1} x", "(+ (Power t (Indexed k [j])) (Product [W{^(Indexed Q [1])} x]))"),
    # an escaped underscore is part of a written-out name
    (r"\mathrm{Top\_k}(\bm{W}\bm{x})", "(Apply Top\\_k{rm} [(Product [W{bf} x{bf}])] certainty=convention)"),
    # letters run together up to the brackets name the function (capitals, or three letters or more)
    (r"o = LN(h) + CE(y, z)", "(Relation o = (+ (Apply LN [h]) (Apply CE [y z])))"),
    (r"a\,BN(x) + xy(z)", "(+ (Product [a (Apply BN [x])]) (Product [x (Apply y [z] certainty=convention)]))"),
    # the letter itself as a value inside its brackets multiplies
    (r"p(1 - p) + n(n+1)", "(+ (Product [p (Group (- 1 p))]) (Product [n (Group (+ n 1))]))"),
    # a connective written in plain letters is prose, as \text{where} is (but `2if` multiplies)
    (r"t_i = \frac{i}{N} where\ i = 0 \ldots N",
     "(Sequence [(Relation (Indexed t [i]) = (Frac i N)) (Annotated (Relation i = (Product [0 (Ellipsis kind=...) N])) "
     "note='where' kind=condition)] separators=[,])"),
    (r"x_i = 2 \quad if \quad i > 0 + 2if",
     "(Sequence [(Relation (Indexed x [i]) = 2) (Annotated (Relation i > (+ 0 (Product [2 i f]))) note='if' "
     "kind=condition)] separators=[,])"),
    # a function then a minus: the function of the negated product
    (r"1 + \exp -\beta E(x)",
     "(+ 1 (Apply \\exp [(- (Product [\\beta (Apply E [x] certainty=convention)]))] brackets=))"),
    # an increment applied keeps its postfix scripts
    (r"\Delta\epsilon_\theta(x, z)^\top", "(Transpose (Apply \\Delta \\epsilon{_\\theta} [x z] certainty=formula))"),
    (r"\epsilon = \frac{1}{2}Ltp + Ltp", "(Relation \\epsilon = (+ (Product [(Frac 1 2) L t p]) (Product [L t p])))"),
])
def test_the_formulas_own_notation_decides(latex, expected):
    assert tree(latex) == expected


def test_every_decision_carries_its_evidence_and_strength():
    result = parse(r"r_t(\theta)\hat{A}_t + x_0^w")
    readings = [(d.question, d.reading, d.strength) for d in result.decisions]
    assert readings == [("application or product", "application", "convention"),
                        ("label or power", "ambiguous", "ambiguous")]
    assert result.ambiguous and result.ambiguous[0].subject == "x_0^w"
    assert result.decisions[0].to_dict()["evidence"][0]["kind"].startswith("convention")


# The statements the issue names, read through their papers (skipped without ../shared)
@pytest.mark.corpus
def test_diffusion_dpo_14_is_one_statement():
    import papermath
    paper = papermath.open(str(corpus_paper("DiffusionDPO")))
    result = paper.notation.parse_latex(paper.equation("14").latex)
    assert isinstance(result.tree, A.Relation) and result.tree.ops == ("=",)
    expectation = result.tree.operands[1].operand  # L(θ) = −E_{…}[…]
    assert isinstance(expectation, A.Reduction) and expectation.op == "E"
    assert "\\log" in sexpr(expectation.body) and "\\epsilon{bf,_'ref'}" in sexpr(expectation.body)


@pytest.mark.corpus
def test_siss_5_is_one_statement_with_its_body():
    source = (corpus_paper("SISS") / "paper2code_paper.tex").read_text(encoding="utf-8")
    start = source.index("\\ell_\\lambda(\\theta)&=\\mathbb{E}_{p_X(x)}")
    block = source[start:source.index("\\end{align}", start)]
    result = parse(block)
    assert isinstance(result.tree, A.Relation), sexpr(result.tree)[:200]
    outer = result.tree.operands[1]
    assert isinstance(outer, A.Reduction) and outer.op == "E"
    inner = outer.body.body
    assert isinstance(inner, A.Reduction) and inner.body is not None
    assert "\\frac{k}{n-k}" in block and "(Frac k (- n k))" in sexpr(inner)


@pytest.mark.corpus
def test_diff_transformer_1_keeps_its_concatenation():
    import papermath
    paper = papermath.open(str(corpus_paper("Diff-Transformer")))
    result = paper.notation.parse_latex(paper.equation("1").latex)
    first = result.tree.statements[0].items[0]
    assert sexpr(first) == "(Relation (Concat [(Indexed Q [1]) (Indexed Q [2])]) = (Product [X W{^Q}]))"


# Names written with escaped underscores, and subscripts a sum runs over (corpus_s4: attention (3), TabDiff (22))
@pytest.mark.parametrize("latex, expected", [
    (r"{step\_num} \cdot {warmup\_steps}^{-1.5}", "(\\cdot step\\_num (Power warmup\\_steps (- 1.5)))"),
    (r"\operatorname{FlashDiffAttn\_1(\cdot)}", "(Apply FlashDiffAttn\\_1 [\\cdot] certainty=convention)"),
    (r"\sum_{\alpha \in A} \sum_{\beta \in B} |R_{\alpha, \beta}|",
     "(sum (sum (Abs (Indexed R [\\alpha \\beta])) variables=[\\beta] domain=B) variables=[\\alpha] domain=A)"),
    (r"\max_\theta p_\theta(x)", "(max (Apply p{_\\theta} [x] certainty=convention) variables=[\\theta])"),
    (r"\sum_{i} x_\alpha", "(sum x{_\\alpha} variables=[i])"),
])
def test_code_style_names_and_subscripts_bound_by_a_sum(latex, expected):
    assert tree(latex) == expected


# Session 5 (tree_fresh/own_s5): a script after a reduction's own bracket, prose phrases set as text, a policy
# with its own label or index in a superscript
@pytest.mark.parametrize("latex, expected", [
    # IPO: the expectation of the square; `\mathbb{E}[X]^2` squares the expectation (no empty base either way)
    (r"\mathbb{E}_{x}\left(h(x) - c\right)^2",
     "(E (Power (Group (- (Apply h [x] certainty=convention) c)) 2) variables=[x])"),
    (r"\mathbb{E}[X^2] - \mathbb{E}[X]^2", "(- (E (Power X 2)) (Power (E X) 2))"),
    (r"\max_i (a_i)^2", "(max (Power (Group (Indexed a [i])) 2) variables=[i])"),
    # a phrase that opens with a preposition or a copula comments on the formula; it is no factor
    (r"x \leftarrow y \quad \text{after every step}",
     "(Sequence [(Relation x \\leftarrow y) 'after every step'] separators=[,])"),
    (r"L = \sum_i a_i \quad \text{where } M \text{ is the set of masked positions}",
     "(Sequence [(Relation L = (sum (Indexed a [i]) variables=[i])) (Annotated (Sequence [M 'is the set of "
     "masked positions'] separators=[,]) note='where' kind=condition)] separators=[,])"),
    (r"lr \times \text{batch size}", "(\\times (Product [l r]) 'batch size')"),
    # TRPO's A^{\pi_k}(s, \pi(s)), V^{\pi_\theta}(s): the policy names the function; a fitted exponent stays one
    (r"A^{\pi_k}(s, \pi(s))",
     "(Apply A{^(Indexed \\pi [k])} [s (Apply \\pi [s] certainty=convention)] certainty=formula)"),
    (r"V^{\pi_\theta}(s)", "(Apply V{^\\pi{_\\theta}} [s] certainty=convention)"),
    (r"(N_c/N)^{\alpha_N}", "(Power (Group (/ (Indexed N [c]) N)) (Indexed \\alpha [N]))"),
    # a remark in parentheses is prose; a metric's name runs on into its parameter
    (r"L = \|x\|^2 \quad \text{(masked patches only)}",
     "(Sequence [(Relation L = (Power (Norm x) 2)) '(masked patches only)'] separators=[,])"),
    (r"\mathrm{acc@}k + \mathrm{Recall@}10", "(+ acc@k{rm} Recall@10{rm})"),
    # the SVM dual: the entries α_i of the vector maximised over keep the second sum inside the max
    (r"\max_{\alpha} \sum_{i} \alpha_i - \frac{1}{2}\sum_{i,j} \alpha_i \alpha_j K_{ij}",
     "(max (- (sum (Indexed \\alpha [i]) variables=[i]) (Product [(Frac 1 2) (sum (Product [(Indexed \\alpha [i]) "
     "(Indexed \\alpha [j]) (Indexed K [i j])]) variables=[i j])])) variables=[\\alpha])"),
    (r"\sum_{b \neq b_t} e^{b} + e^{b_t}",
     "(+ (sum (Power e b) variables=[b] condition=(Relation b \\ne (Indexed b [t]))) (Power e (Indexed b [t])))"),
])
def test_scripts_after_brackets_prose_phrases_and_labelled_policies(latex, expected):
    assert tree(latex) == expected


# Session 5: what the paper's sentences say decides a script or a Δ (each with the sentence a paper would have)
@pytest.mark.parametrize("text, latex, expected", [
    (r"The $\lambda$-return $G_t^\lambda$ averages the $n$-step returns.", r"G_t^\lambda = (1 - \lambda) R",
     "(Relation (Indexed G{^\\lambda} [t]) = (Product [(Group (- 1 \\lambda)) R]))"),
    (r"Here $z^j$ denotes the vector of values of dimension $j$.", r"v = \mathrm{Var}(z^j)",
     "(Relation v = (Apply Var{rm} [z{^j}]))"),
    (r"The superscript $i$ names the trajectory.", r"g = a_t^i + s_t^i",
     "(Relation g = (+ (Indexed a{^i} [t]) (Indexed s{^i} [t])))"),
    (r"The subscript $t$ stands for the teacher.", r"p = \exp(z / \tau_t)",
     "(Relation p = (Apply \\exp [(/ z \\tau{_t})]))"),
    (r"The subscript $t$ denotes the time step.", r"p = \exp(z / \tau_t)",
     "(Relation p = (Apply \\exp [(/ z (Indexed \\tau [t]))]))"),
    (r"where the step size $\Delta$ is learned.", r"\bar{A} = \exp(\Delta A)",
     "(Relation A{bar} = (Apply \\exp [(Product [\\Delta A])]))"),
    (r"The time step is $\Delta t$.", r"x' = x + \Delta t \, v", "(Relation x{'} = (+ x (Product [\\Delta t v])))"),
    (r"Let $h$ be the hidden state.", r"o = h(W + U)", "(Relation o = (Product [h (Group (+ W U))]))"),
])
def test_the_papers_sentences_decide_scripts_increments_and_states(text, latex, expected):
    assert sexpr(paper_tree(text, latex).tree) == expected


# Session 5: a formula inside \text{…} is read as math; a short position after an application indexes its value
@pytest.mark.parametrize("latex, expected", [
    (r"R = \begin{cases} r & \text{if $t=0$}\\ 0 & \text{otherwise} \end{cases}",
     "(Relation R = (Cases [[r (Annotated (Relation t = 0) note='if' kind=condition)] [0 'otherwise']]))"),
    (r"c_i < {\text{sorted}}_j(c_j)[n]",
     "(Relation (Indexed c [i]) < (Indexed (Apply (Indexed 'sorted' [j]) [(Indexed c [j])] certainty=convention) [n]))"),
    (r"p(x)[1 - p(x)]", "(Product [(Apply p [x] certainty=convention) (Group (- 1 (Apply p [x] certainty=convention)) "
                        "open=[ close=])])"),
    (r"y = \text{plain text}", "(Relation y = 'plain text')"),
    # inside what a text connective qualifies, further words set as text go on with the sentence
    (r"v_i \text{ if } v_i \text{ is in the top } k \text{ elements of } v",
     "(Sequence [(Indexed v [i]) (Annotated (Sequence [(Indexed v [i]) (Annotated (Sequence [k (Annotated v "
     "note='elements of' kind=condition)] separators=[,]) note='is in the top' kind=condition)] separators=[,]) "
     "note='if' kind=condition)] separators=[,])"),
    (r"y = 1 \text{ if } x = \text{softmax}(z)",
     "(Sequence [(Relation y = 1) (Annotated (Relation x = (Apply 'softmax' [z])) note='if' kind=condition)] "
     "separators=[,])"),
])
def test_math_inside_text_and_positions_after_an_application(latex, expected):
    assert tree(latex) == expected


# Session 6 blind corpus batch (fresh-corpus-s6): the mechanisms its misses revealed
@pytest.mark.parametrize("latex, expected", [
    # two condition bars side by side are the divergence's double bar, not an empty condition
    (r"D_{KL}[p \mid \mid q]", "(Divergence D{_KL} p q)"),
    # operators written one after the other optimise one objective: the x term and the y term are both inside
    (r"\min_x \max_y f(x, y) + \lambda \|x\|^2 - \gamma y^2",
     "(min (max (- (+ (Apply f [x y] certainty=formula) (Product [\\lambda (Power (Norm x) 2)])) "
     "(Product [\\gamma (Power y 2)])) variables=[y]) variables=[x])"),
    # sums are not merged that way: the inner sum's scope is its own
    (r"\sum_i \sum_j a_{ij} + b_i", "(sum (+ (sum (Indexed a [i j]) variables=[j]) (Indexed b [i])) variables=[i])"),
    # a text that ends in a bracket is a token of its own; the scripted symbol after it keeps its label
    (r"\texttt{<|fim\_hole|>}f_{\text{suf}}", "(Product ['<|fim\\\\_hole|>' f{_'suf'}])"),
    (r"\text{pass@}k", "'pass@k'"),
    # a conjunction in a list or between statements is prose, also set upright ({\rm and})
    (r"(2, 8, \text{and}\,128)", "(Tuple [2 8 128])"),
    (r"a \le b, \quad {\rm and} \quad c \le d", "(Sequence [(Relation a \\le b) (Relation c \\le d)] separators=[,])"),
    (r"\mathrm{or}(a)", "(Apply or{rm} [a] certainty=convention)"),
    # each run of names listed before a relation shares its left side
    (r"Q_1, Q_2 \in \mathbb{R}^{N}, \ V \in \mathbb{R}^{M}",
     "(Sequence [(Relation (Tuple [(Indexed Q [1]) (Indexed Q [2])] open= close=) \\in (Power R{bb} N)) "
     "(Relation V \\in (Power R{bb} M))] separators=[,])"),
    # a bracket position may itself be indexed by any letter (t_N, t_{N-1}); W[A] stays a functional's product
    (r"\bm{x}[t_N], \bm{x}[t_{N-1}]",
     "(Sequence [(Indexed x{bf} [(Indexed t [N])]) (Indexed x{bf} [(Indexed t [(- N 1)])])] separators=[,])"),
    (r"W[A]", "(Product [W (Group A open=[ close=])])"),
    # indexed quantities of different names listed in brackets after a matrix are stacked (LSTM/GRU gates),
    # not positions of W nor an interval; two values of one quantity still bound an interval
    (r"W_s [h_{t-1}, x_t]", "(Product [(Indexed W [s]) (Concat [(Indexed h [(- t 1)]) (Indexed x [t])])])"),
    (r"W [h_t, x_t, c_t]", "(Product [W (Concat [(Indexed h [t]) (Indexed x [t]) (Indexed c [t])])])"),
    (r"t \in [t_0, t_1]",
     "(Relation t \\in (Interval (Indexed t [0]) (Indexed t [1]) left_closed=True right_closed=True))"),
    (r"A[i, j]", "(Indexed A [i j])"),
    # a map named by its weights, squared, is applied (as \sin^2 x); a plain or indexed letter squared is a factor
    (r"\sigma^2_\phi(x)", "(Apply (Power \\sigma{_\\phi} 2) [x] certainty=convention)"),
    (r"f^2(x)", "(Product [(Power f 2) (Group x)])"),
    (r"\sigma_t^2(x)", "(Product [(Power (Indexed \\sigma [t]) 2) (Group x)])"),
])
def test_blind_batch_s6_mechanisms(latex, expected):
    assert tree(latex) == expected


@pytest.mark.parametrize("text, latex, expected", [
    # "with k_i being a learnable parameter": a subscript that is one names its symbol (as p_\theta is named)
    (r"We define $\sigma_{k_j}(t)$, with $k_i$ being a learnable parameter for each feature.",
     r"\sigma_{k_j}(t)", "(Apply \\sigma{_(Indexed k [j])} [t] certainty=convention)"),
    # without the sentence, k_j stays an index of sigma
    (r"Let $k$ be a step and $\sum_k a_k$ a sum.", r"\sigma_{k_j}(t)",
     "(Apply (Indexed \\sigma [(Indexed k [j])]) [t] certainty=convention)"),
])
def test_a_parameter_the_paper_names_labels_the_subscript(text, latex, expected):
    result = paper_tree(text, latex)
    assert sexpr(result.tree) == expected
    labels = [d for d in result.decisions if d.question == "label or index"]
    assert [e.kind for d in labels for e in d.evidence] == (["sentence: parameter"] if "parameter" in text else [])


@pytest.mark.parametrize("text, latex, expected", [
    # a dimension named by a vector of the paper, even where the paper also writes x bare (f(x, y))
    (r"Let $\bm{x} \in \mathbb{R}^{d_x}$ and $f(x, y)$ a function of $x$.",
     r"\min_{\bm{x} \in \mathbb{R}^{d_x}} f(\bm{x})",
     "(min (Apply f [x{bf}] certainty=paper) variables=[x{bf}] domain=(Power R{bb} d{_x}))"),
    # a running letter still indexes the dimensions (d_i), a time written bare too (d_t)
    (r"Let $\bm{x}_i$ for $i = 1, \ldots, n$ and $\sum_i d_i$.", r"d_i + d_x", "(+ (Indexed d [i]) d{_x})"),
    (r"Let $t$ be the time and $v(x_t, t)$.", r"d_t", "(Indexed d [t])"),
])
def test_a_dimension_named_by_a_vector(text, latex, expected):
    assert sexpr(paper_tree(text, latex).tree) == expected


@pytest.mark.parametrize("latex, expected", [
    # the keys K are written: d_k is their dimension (guide 002: "queries and keys have dimension d_k")
    (r"\mathrm{softmax}(QK^\top/\sqrt{d_k})V",
     "(Product [(Apply softmax{rm} [(/ (Product [Q (Transpose K)]) (Root d{_k}))]) V])"),
    (r"V \in \mathbb{R}^{n \times d_v}", "(Relation V \\in (Power R{bb} (\\times n d{_v})))"),
    # no matrix of that letter, or the letter runs: an index
    (r"\sqrt{d_k}", "(Root (Indexed d [k]))"),
    (r"\sum_k d_k K_k", "(sum (Product [(Indexed d [k]) (Indexed K [k])]) variables=[k])"),
])
def test_a_dimension_named_by_the_matrix_of_its_letter(latex, expected):
    assert tree(latex) == expected


def test_a_labelled_dimension_prints_as_the_paper_writes_it():
    from papermath.math.printer import to_latex
    assert to_latex(A.Symbol("d", sub_label=A.Symbol("x"))) == "d_{x}"
    assert to_latex(A.Symbol("\\partial", sub_label=A.Symbol("x"))) == "{\\partial}_{x}"


@pytest.mark.parametrize("text, latex, expected", [
    # the regression: a capital the paper never counts with stays the last position where the paper also indexes
    # the same symbol by the lower-case letter (\hat{A}_t beside \hat{A}_T)
    (r"The policy is run for $T$ timesteps, with advantage estimates $\hat{A}_t$.", r"\hat{A}_T",
     "(Indexed A{hat} [T])"),
    # without a lower-case sibling, a capital the paper never counts with names (the Dirac delta at T)
    (r"Let $\delta_y$ be the Dirac delta at $y$.", r"\rho = \delta_T", "(Relation \\rho = \\delta{_T})"),
])
def test_a_capital_subscript_beside_its_lower_case_index(text, latex, expected):
    assert sexpr(paper_tree(text, latex).tree) == expected


VECTOR, SENTENCE = "the dimension of the vector its subscript writes", "sentence: a size"


@pytest.mark.parametrize("text, latex, expected, evidence", [
    # the vector a space measures names its dimension, even where its letter runs elsewhere (lim_{x -> inf})
    (r"Pairs $\{(\bm{x}_i, \bm{y}_i)\}$, where $\bm{x}_i\in\mathbb{R}^{N_x}$, and $\lim_{x \to \infty} g(x) = 0$.",
     r"\bm{x}_i\in\mathbb{R}^{N_x}", "(Relation (Indexed x{bf} [i]) \\in (Power R{bb} N{_x}))", [VECTOR]),
    # the prose calls it a size: "keys of dimension $d_k$", although k runs in another symbol's index
    (r"Keys of dimension $d_k$ and the offset $k$ in $PE_{pos+k}$; the matrix $K$.", r"\sqrt{d_k}",
     "(Root d{_k})", [SENTENCE]),
    (r"Let $n_h$ denote the number of heads, $d_h$ denote the dimension per head, and $\mathbf{h}_t$ the input.",
     r"\mathbb{R}^{d_h n_h}", "(Power R{bb} (Product [d{_h} n{_h}]))", [SENTENCE, SENTENCE]),
    # a width indexed by the layer that runs in its own subscripts stays an index (N_{\ell-1})
    (r"Layer $\ell$ has width $N_\ell$ and $\bm{x}^\ell \in \mathbb{R}^{N_\ell}$.",
     r"\mathbf{W}^{\ell} \in \mathbb{R}^{N_{\ell}\times N_{\ell-1}}",
     "(Relation W{bf,^\\ell} \\in (Power R{bb} (\\times (Indexed N [\\ell]) (Indexed N [(- \\ell 1)]))))", []),
    # a size summed over its letter is indexed by it, whatever the prose calls it
    (r"Let $n_i$ be the number of tokens, with $\bm{i}$ a vector and $\sum_i n_i = n$.", r"n_i",
     "(Indexed n [i])", []),
    # a list written out to x_N counts to N: x_N is the N-th, not x named by N
    (r"The input $X^0 = [\bm{x}_1, \cdots, \bm{x}_{N}]$ has $N$ tokens.", r"\bm{x}_{N}", "(Indexed x{bf} [N])", []),
    # "$d_h$ is the head dimension": h a head, written bare, never running
    (r"Query head $h$ attends with head $g(h)$; $d_h$ is the head dimension.", r"\sqrt{d_h}", "(Root d{_h})",
     [SENTENCE]),
])
def test_sizes_named_by_their_subscript(text, latex, expected, evidence):
    result = paper_tree(text, latex)
    assert sexpr(result.tree) == expected
    labels = [e.kind for d in result.decisions if d.question == "label or index" and d.reading == "label"
              for e in d.evidence]
    assert labels == evidence


@pytest.mark.parametrize("latex, expected", [
    # thousands separated by a braced comma are one number
    (r"(64 \times 64) \times (4 \times 4)^2 = 1{,}048{,}576",
     "(Relation (\\times (Group (\\times 64 64)) (Power (Group (\\times 4 4)) 2)) = 1048576)"),
    (r"12{,}5", "(Product [12 , 5])"),  # (a decimal comma is no thousands group: left as written)
    # a sign over a number set restricts it; a dimension raises it
    (r"\sigma(t):[0,1] \to \mathbb{R}^+",
     "(Relation (Apply \\sigma [t] certainty=convention) : (Relation (Interval 0 1 left_closed=True right_closed=True) "
     "\\to R{bb,^+}))"),
    (r"\mathbb{R}^n", "(Power R{bb} n)"),
    # an optimiser set as text is the operator; a minimum's name in a subscript stays a word
    (r"x_\star=\text{argmin } F", "(Relation x{_\\star} = (argmin F))"),
    (r"\sigma_{\text{min}}", "\\sigma{_'min'}"),
    # an optimisation over a constraint alone binds the constraint's letters: the next term on z is its body
    (r"\mathop{\text{argmin}}_{\|z\|\le D} \langle g, z\rangle + \frac{1}{2\eta} \|z - y\|^2",
     "(argmin (+ (Delimited (Tuple [g z]) kind=angle) (Product [(Frac 1 (Product [2 \\eta])) (Power (Norm (- z y)) "
     "2)])) condition=(Relation (Norm z) \\le D))"),
    (r"\min_{\|x\| \le 1} f(x) + c",
     "(+ (min (Apply f [x] certainty=convention) condition=(Relation (Norm x) \\le 1)) c)"),
])
def test_blind_batch_s7_mechanisms(latex, expected):
    assert tree(latex) == expected


@pytest.mark.parametrize("text, latex, expected", [
    # s runs elsewhere (x_s a time), but on F it stands beside r, which names: the real and the synthetic CDF
    (r"Let $q(x_t \mid x_{s+1})$ for $s < t$, and $F_r(x)$, $F_s(x)$ the CDFs of $p_r(x)$ and $p_s(x)$.",
     r"\sup_x |F_r(x) - F_s(x)|",
     "(sup (Abs (- (Apply F{_r} [x] certainty=paper) (Apply F{_s} [x] certainty=paper))) variables=[x])"),
    # a loop letter, or one that runs in the family's own subscripts, still indexes beside a name
    (r"Let $x_r$ be a reference and $\sum_t x_t$ a sum.", r"x_t", "(Indexed x [t])"),
    (r"Let $F_r$ be a reference, $F_{s+1}$ the next and $\sum_s a_s$.", r"F_s", "(Indexed F [s])"),
])
def test_a_running_letter_beside_names_on_its_symbol(text, latex, expected):
    assert sexpr(paper_tree(text, latex).tree) == expected


@pytest.mark.parametrize("text, latex, expected", [
    # l indexes nothing in the paper: `ls` is one name (label smoothing), s running elsewhere notwithstanding
    (r"We use label smoothing of value $\epsilon_{ls}=0.1$, and $x_s$ for $\sum_s a_s$.", r"\epsilon_{ls}",
     "\\epsilon{_ls}"),
    # both letters index elsewhere (v_j, a sum over i): the Kronecker delta's two indices
    (r"Let $\delta_{ij}$ with $v_j$ and $\sum_i x_i$.", r"\delta_{ij}", "(Indexed \\delta [i j])"),
    # written apart, or a diagonal entry: indices
    (r"Let $w_{k,l}$ and $w_{kk}$ be weights.", r"w_{k,l} + w_{kk}", "(+ (Indexed w [k l]) (Indexed w [k k]))"),
])
def test_two_letters_written_together_as_a_name(text, latex, expected):
    assert sexpr(paper_tree(text, latex).tree) == expected


def test_two_letters_bare_stay_indices():
    assert tree(r"\lambda_{kl} \mathcal{L}_{kl}") == "(Product [(Indexed \\lambda [k l]) (Indexed L{cal} [k l])])"


def test_an_algorithm_lines_command_is_no_word_of_its_sentence():
    # `\State{$v$ = $D_\theta$$(x, i)$}`: "state" is the algorithm's command, not a noun saying D is a state
    text = (r"\begin{algorithm}\begin{algorithmic}\State{$v$ = $D_\theta$$(x, i)$}\State{$u$ = $D_\theta$$(y, j)$}"
            r"\end{algorithmic}\end{algorithm}")
    result = paper_tree(text, r"D_\theta(x, i)")
    assert sexpr(result.tree) == "(Apply D{_\\theta} [x i] certainty=formula)"
    assert not any(e.kind == "sentence: state" for d in result.decisions for e in d.evidence)


def test_a_labelled_name_written_out_is_applied():
    # `\text{HYLA}^+_q(X)`: the superscript label leaves the written-out name a name
    assert tree(r"\text{HYLA}^+_{q}(X)") == \
        "(Apply (Labeled (Indexed 'HYLA' [q]) + position=sup) [X] certainty=convention)"


@pytest.mark.parametrize("text, latex, expected", [
    # the paper writes B only before its arguments: B(\theta) a map, before an expression too
    (r"We write $B(\theta)$ and $B(\phi)$.", r"B(\theta + \phi)",
     "(Apply B [(+ \\theta \\phi)] certainty=paper)"),
    # B written as a value of its own too (`3B`): an expression in brackets after it multiplies it
    (r"We write $B(\theta)$ and $B(\phi)$, and $3B/16$.", r"B(\theta + \phi)",
     "(Product [B (Group (+ \\theta \\phi))])"),
])
def test_a_symbol_the_paper_writes_only_before_arguments_is_a_function(text, latex, expected):
    assert sexpr(paper_tree(text, latex).tree) == expected


@pytest.mark.parametrize("latex, expected", [
    # `\triangledown` written for ∇ is the gradient: the score of the forward process
    (r"\triangledown_{\bm{x}_t} \ln{q(\bm{x}_t | \bm{x}_0)}",
     "(Gradient (Apply \\ln [(Apply q [(Indexed x{bf} [t])] given=[(Indexed x{bf} [0])] certainty=conditional)] "
     "brackets=) wrt=(Indexed x{bf} [t]))"),
    # a pair from minus a value to the value, with nothing around it to say it is a range, stays a pair, whatever
    # the value (the context decides: see test_a_symmetric_pair_is_an_interval_where_its_context_says_so)
    (r"\left(-\frac{1}{a}\sec^{-1}(b), \frac{1}{a}\sec^{-1}(b)\right)",
     "(Tuple [(- (Product [(Frac 1 a) (Apply (Inverse \\sec) [b])])) (Product [(Frac 1 a) (Apply (Inverse \\sec) "
     "[b])])])"),
    (r"(-1, 1)", "(Tuple [(- 1) 1])"),
    (r"(-x, x)", "(Tuple [(- x) x])"),
    (r"(-x_i, x_i)", "(Tuple [(- (Indexed x [i])) (Indexed x [i])])"),
    (r"(-a, b)", "(Tuple [(- a) b])"),
])
def test_blind_batch_s8_mechanisms(latex, expected):
    assert tree(latex) == expected


@pytest.mark.parametrize("text, latex, expected", [
    # N counts steps in the paper, but what a sample is drawn from is a distribution at that place
    (r"We take $N$ steps, $\sum_{i=N}^{1} v_i$, over the schedule $t_N$.", r"\bm{x} \sim N(0,1)",
     "(Relation x{bf} \\sim (Apply N [0 1] certainty=place))"),
    # elsewhere the count times a bracket stays a product
    (r"We take $N$ steps, $\sum_{i=N}^{1} v_i$, over the schedule $t_N$.", r"y = N(a + b)",
     "(Relation y = (Product [N (Group (+ a b))]))"),
])
def test_a_distribution_drawn_from_is_applied_whatever_its_letter_counts(text, latex, expected):
    assert sexpr(paper_tree(text, latex).tree) == expected


@pytest.mark.parametrize("latex, expected", [
    # the optimum of what the arg min runs over, written with a mark: no quantity equals its own optimum to a power
    (r"\{s^M\}^o = \mathop{\arg\min}_{\{s^M\} \subset \{t^N\}} \|F(\{s^M\})\|^2",
     "(Relation (Labeled (SetLiteral [s{^M}]) o position=sup) = (argmin (Power (Norm (Apply F [(SetLiteral [s{^M}])] "
     "certainty=convention)) 2) variables=[s{^M}] domain=(SetLiteral [t{^N}])))"),
    (r"\theta^o = \arg\max_\theta J(\theta)",
     "(Relation \\theta{^o} = (argmax (Apply J [\\theta] certainty=convention) variables=[\\theta]))"),
    (r"x^2 = \arg\min_y f(y)",
     "(Relation (Power x 2) = (argmin (Apply f [y] certainty=convention) variables=[y]))"),
    # a map defined with a letter on its name that its definition uses as a value: the map's parameter
    (r"L_2^\tau(u) = |\tau - \mathbb{1}(u < 0)| u^2",
     "(Relation (Apply (Indexed L{^\\tau} [2]) [u] certainty=formula) = (Product [(Abs (- \\tau (Indicator "
     "(Relation u < 0) symbol=1{bb} brackets=()))) (Power u 2)]))"),
    # ... but a definition that raises to it is a power
    (r"f^\alpha(x) = f(x)^\alpha",
     "(Relation (Apply (Power f \\alpha) [x] certainty=formula) = (Power (Apply f [x] certainty=formula) \\alpha))"),
])
def test_a_superscript_the_definition_explains(latex, expected):
    assert tree(latex) == expected


@pytest.mark.parametrize("text, latex, expected", [
    # two losses, each defined by an equation of its own, summed into L: the number names the part of L
    (r"Let $L_1 = \mathbb{E}_x[f(x)^2]$ and $L_2 = \mathbb{E}_x[g(x)]$. We minimize $L = L_1 + \lambda L_2$.",
     r"L_2", "L{_2}"),
    # coefficients defined one by one but never summed into a bare c: positions
    (r"Let $c_1 = \alpha_t$ and $c_2 = \sigma_t$ in $y = c_1 x + c_2 z$.", r"c_2", "(Indexed c [2])"),
    # a family that also runs (x_t) is indexed by its numbers, whatever is defined
    (r"Let $x_1 = a$, $x_2 = b$, $x = x_1 + x_2$ and $x_{t+1} = x_t$.", r"x_2", "(Indexed x [2])"),
])
def test_numbered_parts_of_a_symbol_defined_one_by_one(text, latex, expected):
    assert sexpr(paper_tree(text, latex).tree) == expected


@pytest.mark.parametrize("latex, expected", [
    # \Pi with a constraint under it projects onto that set: at the head of a side, the whole side
    (r"z_{t+1} = \Pi_{\|z_{t+1}\|\le D} z'_{t+1} -\eta_t g_t",
     "(Relation (Indexed z [(+ t 1)]) = (Apply \\Pi{_(Relation (Norm (Indexed z [(+ t 1)])) \\le D)} "
     "[(- (Indexed z{'} [(+ t 1)]) (Product [(Indexed \\eta [t]) (Indexed g [t])]))] certainty=formula brackets=))"),
    (r"z_{t+1} = \Pi_{\|z\|\le D}[z_t - \frac{a}{b}]",
     "(Relation (Indexed z [(+ t 1)]) = (Apply \\Pi{_(Relation (Norm z) \\le D)} [(- (Indexed z [t]) (Frac a b))] "
     "certainty=formula brackets=[]))"),
    # \Pi over a range is a product; a projection inside a term keeps its place
    (r"y = \Pi_{i=1}^n x_i", "(Relation y = (Product [(Indexed \\Pi{^n} [(Relation i = 1)]) (Indexed x [i])]))"),
    # a membership that names the left side's family constrains the whole side too
    (r"x_{t+1} = \Pi_{x \in \mathcal{K}} x_t - \eta g_t",
     "(Relation (Indexed x [(+ t 1)]) = (Apply \\Pi{_(Relation x \\in K{cal})} [(- (Indexed x [t]) (Product [\\eta "
     "(Indexed g [t])]))] certainty=formula brackets=))"),
])
def test_a_projection_onto_a_constraint_takes_the_side(latex, expected):
    assert tree(latex) == expected


@pytest.mark.parametrize("latex, expected", [
    # the constraint does not name the left side: the noise is added after the projection, not projected
    (r"x_{t+1} = \Pi_{\|y\| \le D} x_t + \sqrt{2\eta}\xi_t",
     "(Relation (Indexed x [(+ t 1)]) = (+ (Apply \\Pi{_(Relation (Norm y) \\le D)} [(Indexed x [t])] "
     "certainty=formula brackets=) (Product [(Root (Product [2 \\eta])) (Indexed \\xi [t])])))"),
    (r"y_{t+1} = \Pi_{\|z\|\le D} z_t - \eta g_t",
     "(Relation (Indexed y [(+ t 1)]) = (- (Apply \\Pi{_(Relation (Norm z) \\le D)} [(Indexed z [t])] "
     "certainty=formula brackets=) (Product [\\eta (Indexed g [t])])))"),
    # a bracket after it is its argument, and what follows the bracket stays outside
    (r"x_{t+1} = \Pi_{\|y\|\le D}[x_t - \eta g_t] + \xi_t",
     "(Relation (Indexed x [(+ t 1)]) = (+ (Apply \\Pi{_(Relation (Norm y) \\le D)} [(- (Indexed x [t]) "
     "(Product [\\eta (Indexed g [t])]))] certainty=formula brackets=[]) (Indexed \\xi [t])))"),
    # the first factor only: later factors multiply the projection
    (r"x_{t+1} = \Pi_{\|y\|\le D} x_t y_t",
     "(Relation (Indexed x [(+ t 1)]) = (Product [(Apply \\Pi{_(Relation (Norm y) \\le D)} [(Indexed x [t])] "
     "certainty=formula brackets=) (Indexed y [t])]))"),
])
def test_a_projection_whose_constraint_names_another_quantity_takes_its_first_factor(latex, expected):
    assert tree(latex) == expected


@pytest.mark.parametrize("latex, span_text, kind", [
    (r"z_{t+1} = \Pi_{\|z\|\le D} z'_{t+1} - \eta_t g_t", r"\Pi_{\|z\|\le D} z'_{t+1} - \eta_t g_t",
     "a projection onto a set that constrains the left side, at the head of the side"),
    (r"x_{t+1} = \Pi_{\|y\| \le D} x_t + \xi_t", r"\Pi_{\|y\| \le D} x_t",
     "a projection onto the set under it, applied to the factor after it"),
])
def test_a_projection_records_what_it_takes(latex, span_text, kind):
    decision = next(d for d in parse(latex).decisions if d.subject.startswith("\\Pi"))
    assert decision.reading == "application"
    assert latex[decision.span[0]:decision.span[1]] == span_text
    assert [e.kind for e in decision.evidence] == [kind]


@pytest.mark.parametrize("text, latex, expected", [
    # q_1, k_1, q_2, k_2 name four vectors in pairs; k runs elsewhere (the keys K_i, a sum over k) but names here
    (r"Let $\lambda_{q_1}, \lambda_{k_1}, \lambda_{q_2}, \lambda_{k_2}$ be vectors; $\sum_k K_k$ sums the keys.",
     r"\lambda_{q_2} \cdot \lambda_{k_2}", "(\\cdot \\lambda{_(Indexed q [2])} \\lambda{_(Indexed k [2])})"),
    # without a pair that names, a numbered running letter still indexes
    (r"Let $w_{k_1}$ and $w_{k_2}$ be weights; $\sum_k a_k$.", r"w_{k_2}", "(Indexed w [(Indexed k [2])])"),
    # an index family: both letters of the pair run (i and k are loop letters), so neither names the other
    (r"Let $x_{i_1}, x_{k_1}, x_{i_2}, x_{k_2}$ be the sampled points; $\sum_k a_k$.", r"x_{k_2} - x_{i_2}",
     "(- (Indexed x [(Indexed k [2])]) (Indexed x [(Indexed i [2])]))"),
    (r"Let $x_{i_1}$ and $x_{k_1}$ be points; $\sum_k a_k$.", r"x_{k_1}", "(Indexed x [(Indexed k [1])])"),
    # letters that are no loop letters but run in this paper (sums over r and s) index too
    (r"Let $x_{r_1}$ and $x_{s_1}$ be points; $\sum_r \sum_s a_{r,s}$.", r"x_{s_1}",
     "(Indexed x [(Indexed s [1])])"),
])
def test_subscripts_named_in_pairs_numbered_alike(text, latex, expected):
    assert sexpr(paper_tree(text, latex).tree) == expected


@pytest.mark.parametrize("latex, expected", [
    # a row with its own relation at the alignment point is its own statement, although it starts with a sign
    (r"\begin{aligned} a - b &\le c \\ - d - e &\le f \end{aligned}",
     "(Rows [(Relation (- a b) \\le c) (Relation (- (- d) e) \\le f)])"),
    # a row that starts at the alignment point with a sign goes on with the statement above
    (r"\begin{aligned} a - b &\le c \\ & - d - e \end{aligned}", "(Relation (- a b) \\le (- (- c d) e))"),
])
def test_a_signed_row_with_its_own_relation_is_its_own_statement(latex, expected):
    assert tree(latex) == expected


@pytest.mark.parametrize("latex, expected", [
    # a list written out with an ellipsis repeats A: bare in one term, A^k in a later one — powers of A
    (r"\overline{\mathbf{K}} = (\mathbf{C}\overline{\mathbf{B}}, \mathbf{C}\overline{\mathbf{A}}\overline{\mathbf{B}}, "
     r"\dots, \mathbf{C}\overline{\mathbf{A}}^k\overline{\mathbf{B}}, \dots)",
     "(Relation K{bf,bar} = (Tuple [(Product [C{bf} B{bf,bar}]) (Product [C{bf} A{bf,bar} B{bf,bar}]) "
     "(Ellipsis kind=...) (Product [C{bf} (Power A{bf,bar} k) B{bf,bar}]) (Ellipsis kind=...)]))"),
    # labels on a matrix written only with its labels stay labels
    (r"(W^Q x, W^K x, \dots)", "(Tuple [(Product [W{^Q} x]) (Product [W{^K} x]) (Ellipsis kind=...)])"),
])
def test_a_factor_repeated_along_a_list_is_raised_to_powers(latex, expected):
    assert tree(latex) == expected


@pytest.mark.parametrize("before, expected", [
    (r"x \sim ", True),
    (r"x \sim\, \quad ", True),
    (r"x \sim", True),
    (r"x = ", False),
    (r"x \simeq ", False),
    # only the characters just before the node are read: a long formula before them changes nothing
    ("a + " * 5000 + r"x \sim ", True),
    (r"x \sim " + "a + " * 5000, False),
    ("", False),
])
def test_what_follows_sim_is_read_from_a_bounded_window(before, expected):
    from papermath.math.resolve import _after_sim
    source = before + "N(0, 1)"
    assert _after_sim(source, len(before)) is expected


@pytest.mark.parametrize("spelling", [r"\triangledown", r"\bigtriangledown"])
@pytest.mark.parametrize("latex", [r"{nabla}_{x} f(x)", r"{nabla} f(x)^\top (y - x)",
                                   r"{nabla}_\theta \log p_\theta(x)"])
def test_every_triangle_written_for_nabla_reads_as_nabla(spelling, latex):
    assert tree(latex.replace("{nabla}", spelling)) == tree(latex.replace("{nabla}", r"\nabla"))


def test_a_nabla_spelling_is_no_letter():
    from papermath.math import tables as T
    assert T.NABLA_SPELLINGS <= T.NABLA and not (T.NABLA & T.LETTER_LIKE)


@pytest.mark.parametrize("text, latex, subject, reading, kind", [
    # what follows \sim is drawn from: evidence about this place, although the paper counts steps with N
    (r"We take $N$ steps, $\sum_{i=N}^{1} v_i$, over the schedule $t_N$.", r"\bm{x} \sim N(0,1)", "N",
     "application", "drawn from here (after \\sim)"),
    # called with several arguments in the paper, one expression here: the output times a step, at this place
    (r"The velocity $v_\theta(x_t, t)$.", r"y = v_\theta (n - k)", "v_\\theta",
     "product", "takes several arguments elsewhere, one expression here"),
])
def test_evidence_about_this_place_has_its_own_strength(text, latex, subject, reading, kind):
    from papermath.math.evidence import STRENGTHS, WEIGHT
    decision = next(d for d in paper_tree(text, latex).decisions if d.subject == subject)
    assert (decision.reading, decision.strength) == (reading, "place")
    assert any(e.kind == kind and e.strength == "place" for e in decision.evidence)
    # it outweighs what the paper says of the symbol in general, and is no declaration
    assert STRENGTHS.index("place") < STRENGTHS.index("paper") and WEIGHT["place"] > WEIGHT["paper"]
    assert "declared" not in {e.strength for e in decision.evidence}


@pytest.mark.parametrize("latex, expected, kind", [
    # what a sample is drawn from is a range of values
    (r"w \sim (-a_k, a_k)", "(Relation w \\sim (Interval (- (Indexed a [k])) (Indexed a [k]) left_closed=False "
     "right_closed=False))", "drawn from (after \\sim): a range of values"),
    (r"w \sim (-x, x)", "(Relation w \\sim (Interval (- x) x left_closed=False right_closed=False))",
     "drawn from (after \\sim): a range of values"),
    # the one argument of a uniform distribution is the range it is uniform on
    (r"\mathcal{U}\left(\left(-\mu_k, \mu_k\right)\right)", "(Apply U{cal} [(Interval (- (Indexed \\mu [k])) "
     "(Indexed \\mu [k]) left_closed=False right_closed=False)])", "the range of a uniform distribution"),
    # after a membership sign the parser reads any pair in parentheses as an interval (syntax, no decision)
    (r"x \in (-x_i, x_i)", "(Relation x \\in (Interval (- (Indexed x [i])) (Indexed x [i]) left_closed=False "
     "right_closed=False))", None),
])
def test_a_symmetric_pair_is_an_interval_where_the_formula_says_so(latex, expected, kind):
    result = parse(latex)
    assert sexpr(result.tree) == expected
    decided = [d for d in result.decisions if d.question == "interval or pair"]
    assert [e.kind for d in decided for e in d.evidence] == ([kind] if kind else [])
    assert all(d.reading == "interval" and d.strength == "formula" for d in decided)


@pytest.mark.parametrize("latex, expected", [
    # a pair that is not drawn from, not a uniform's range and not after a membership stays a pair
    (r"f(x) = g(-x_i, x_i)", "(Relation (Apply f [x] certainty=formula) = (Apply g [(- (Indexed x [i])) "
     "(Indexed x [i])] certainty=formula))"),
    (r"y = (-\mu_k, \mu_k)", "(Relation y = (Tuple [(- (Indexed \\mu [k])) (Indexed \\mu [k])]))"),
    (r"w \sim (-a, b)", "(Relation w \\sim (Tuple [(- a) b]))"),
    (r"\mathcal{U}((-a, b))", "(Apply U{cal} [(Tuple [(- a) b])])"),
])
def test_a_symmetric_pair_without_such_context_stays_a_pair(latex, expected):
    result = parse(latex)
    assert sexpr(result.tree) == expected
    assert not [d for d in result.decisions if d.question == "interval or pair"]


_PAIR = r"\left(-\frac{1}{a}c_i, \frac{1}{a}c_i\right)"
_INTERVAL = ("(Interval (- (Product [(Frac 1 a) (Indexed c [i])])) (Product [(Frac 1 a) (Indexed c [i])]) "
             "left_closed=False right_closed=False)")
_TUPLE = "(Tuple [(- (Product [(Frac 1 a) (Indexed c [i])])) (Product [(Frac 1 a) (Indexed c [i])])])"


@pytest.mark.parametrize("text, expected", [
    # the sentence puts the formula after 'in', or calls it an interval, a range, a domain
    (rf"It is easy to see that $g'(x) > 0$ in ${_PAIR}$ and $g'(x) < 0$ elsewhere.", _INTERVAL),
    (rf"The function is odd on the interval ${_PAIR}$.", _INTERVAL),
    (rf"The weights stay within ${_PAIR}$ during training.", _INTERVAL),
    (rf"Then ${_PAIR}$ is the range of the activation.", _INTERVAL),
    (rf"We restrict the domain to ${_PAIR}$.", _INTERVAL),
    # a sentence that says neither keeps the pair
    (rf"The two critical points are ${_PAIR}$.", _TUPLE),
    (rf"The interval $[0, 1]$ holds $x$, and the points ${_PAIR}$ are critical.", _TUPLE),
])
def test_a_symmetric_pair_is_an_interval_where_its_sentence_says_so(text, expected):
    result = paper_tree(text, _PAIR)
    assert sexpr(result.tree) == expected
    decided = [d for d in result.decisions if d.question == "interval or pair"]
    if expected == _INTERVAL:
        assert [(d.reading, d.strength) for d in decided] == [("interval", "paper")]
        assert _PAIR in decided[0].evidence[0].text  # the words that said so, around the formula
    else:
        assert decided == []
