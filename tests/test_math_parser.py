"""The math notation parser, topic by topic: LaTeX → expected tree (as `sexpr`), normalized LaTeX, spans,
errors, align rows, and every formula written in guides 000 and 002.

`sexpr` shows symbols by name with decorations in braces (`W{^DKV}`, `x{bf,hat}`), reductions as
`(op body variables=… lower=…)`, relations as `(Relation a = b)`, other nodes as `(Type children… key=value)`.
"""
from __future__ import annotations

import pytest

from papermath.errors import MathParseError
from papermath.math import ast as A
from papermath.math import parse, parse_rows, read_aloud, to_latex, walk
from papermath.math.ast import sexpr


def tree(latex: str, **kw) -> str:
    return sexpr(parse(latex, strict=True, **kw).tree)

# Symbols: fonts, accents, and classified scripts (index, label, power, transpose, inverse, optimum, prime).
SYMBOLS = [
    ('x_i', '(Indexed x [i])'),
    ('W_{ij}', '(Indexed W [i j])'),
    ('W_{i,j}', '(Indexed W [i j])'),
    ('W^{DKV}', 'W{^DKV}'),
    ('h^{(\\ell)}_t', '(Indexed h{^(Group \\ell)} [t])'),
    ('\\operatorname{FFN}^{(s)}_i', '(Indexed FFN{op,^(Group s)} [i])'),
    ('p_{\\text{base}}', "p{_'base'}"),
    ('\\theta_{old}', '\\theta{_old}'),
    ('x^2', '(Power x 2)'),
    ('K^\\top', '(Transpose K)'),
    ('x^T', '(Transpose x)'),
    ('W^{\\mathsf T}', '(Transpose W)'),
    ('A^{-1}', '(Inverse A)'),
    ('\\theta^*', '\\theta{*}'),
    ("v'", "v{'}"),
    ('\\hat{y}_i', '(Indexed y{hat} [i])'),
    ('\\tilde{x}', 'x{tilde}'),
    ('\\bar x', 'x{bar}'),
    ('\\dot x', 'x{dot}'),
    ('\\vec v', 'v{vec}'),
    ('\\mathbf{W}', 'W{bf}'),
    ('\\mathcal{L}', 'L{cal}'),
    ('\\mathbb{R}^{n\\times d}', '(Power R{bb} (\\times n d))'),
    ('\\mathfrak{g}', 'g{frak}'),
    ('\\boldsymbol{\\mu}', '\\mu{bf}'),
    ('\\bm{x}_t', '(Indexed x{bf} [t])'),
    ('\\mathrm{Attention}', 'Attention{rm}'),
    ('k_t^C', '(Indexed k{^C} [t])'),
    ('x_{1:T}', '(Indexed x [(Slice 1 T)])'),
    ('x_{<t}', '(Indexed x [(Relation () < t)])'),
    ('X_{t,:}', '(Indexed X [t (Slice)])'),
    ('\\mathcal L_{\\text{CE}}', "L{cal,_'CE'}"),
    ('V_{AB}', 'V{_AB}'),
    ('e^{z_j}', '(Power e (Indexed z [j]))'),
    ('A^\\dagger', 'A{^\\dagger}'),
    ('\\mathbf{h}_{t}^{\\prime}', "(Indexed h{bf,'} [t])"),
    ('W_Q', 'W{_Q}'),  # the query projection: Q names it (it is not row Q of W)
    ('\\mathbf{x}^w_0', '(Indexed x{bf,^w} [0])'),
]


@pytest.mark.parametrize("latex, expected", SYMBOLS)
def test_symbols(latex: str, expected: str) -> None:
    assert tree(latex) == expected

# Application vs product; conditional probability.
APPLICATION = [
    ('\\mathrm{Attention}(Q,K,V)', '(Apply Attention{rm} [Q K V])'),
    ('\\log p(x)', '(Apply \\log [(Apply p [x] certainty=convention)] brackets=)'),
    ('QK^\\top', '(Product [Q (Transpose K)])'),
    ('f(x)', '(Apply f [x] certainty=convention)'),
    ('x(1-x)', '(Product [x (Group (- 1 x))])'),
    ('y_k(1-\\alpha)', '(Product [(Indexed y [k]) (Group (- 1 \\alpha))])'),
    ('\\eta\\left(a+b\\right)', '(Product [\\eta (Group (+ a b))])'),
    ('p(y\\mid x)', '(Apply p [y] given=[x] certainty=conditional)'),
    ('p_\\theta(\\cdot\\mid x)', '(Apply p{_\\theta} [\\cdot] given=[x] certainty=conditional)'),
    ('\\pi_\\theta(o\\mid q)', '(Apply \\pi{_\\theta} [o] given=[q] certainty=conditional)'),
    ('p_\\theta(y_t \\mid x, y_{<t})', '(Apply p{_\\theta} [(Indexed y [t])] given=[x (Indexed y [(Relation () < t)])] certainty=conditional)'),
    ('\\mathcal N(x \\mid \\mu, \\sigma^2)', '(Apply N{cal} [x] given=[\\mu (Power \\sigma 2)])'),
    ('p(y\\mid x;\\theta)', '(Apply p [y] given=[x] params=[\\theta] certainty=conditional)'),
    ('\\mathrm{sg}(x)', '(Apply sg{rm} [x])'),
    ('\\operatorname{Topk}(\\cdot, K)', '(Apply Topk{op} [\\cdot K])'),
    ('\\exp(a)', '(Apply \\exp [a])'),
    ('\\log x', '(Apply \\log [x] brackets=)'),
    ('\\log a\\log b', '(Product [(Apply \\log [a] brackets=) (Apply \\log [b] brackets=)])'),
    ('\\sigma(z)', '(Apply \\sigma [z] certainty=convention)'),
    ('ReLU(x)', '(Apply ReLU [x])'),
    ('\\mathrm{softmax}(QK^\\top/\\sqrt{d_k})V', '(Product [(Apply softmax{rm} [(/ (Product [Q (Transpose K)]) (Root d{_k}))]) V])'),
    ('\\mathcal{N}(0, I)', '(Apply N{cal} [0 I])'),
    ('g(x)', '(Apply g [x] certainty=convention)'),
    ('\\sin^2 x', '(Apply (Power \\sin 2) [x] brackets=)'),
    ('\\log_2 x', '(Apply \\log{_2} [x] brackets=)'),
    ('\\mathcal L(\\theta)', '(Apply L{cal} [\\theta] certainty=convention)'),
]


@pytest.mark.parametrize("latex, expected", APPLICATION)
def test_application(latex: str, expected: str) -> None:
    assert tree(latex) == expected

# Operators that bind variables.
REDUCTIONS = [
    ('\\sum_{i=1}^N x_i', '(sum (Indexed x [i]) variables=[i] lower=1 upper=N)'),
    ("\\sum_{v'\\in\\mathcal V_{min}} e^{v'}", "(sum (Power e v{'}) variables=[v{'}] domain=V{cal,_min})"),
    ('\\sum_{i,j} W_{ij}', '(sum (Indexed W [i j]) variables=[i j])'),
    ('\\sum_{i: c_i > 0} c_i', '(sum (Indexed c [i]) variables=[i] condition=(Relation (Indexed c [i]) > 0))'),
    ('\\prod_{t=1}^T p_t', '(prod (Indexed p [t]) variables=[t] lower=1 upper=T)'),
    ('\\mathbb E_{x\\sim p}[f(x)]', '(E (Apply f [x] certainty=convention) variables=[x] distribution=p)'),
    ('\\mathbb E_{(x,y_w,y_l)\\sim\\mathcal D}[\\ell]', '(E \\ell variables=[x y{_w} y{_l}] distribution=D{cal})'),
    ('\\mathbb{E}[X]', '(E X)'),
    ('\\max_\\theta J(\\theta)', '(max (Apply J [\\theta] certainty=convention) variables=[\\theta])'),
    ('\\min_{x \\in S} f(x)', '(min (Apply f [x] certainty=convention) variables=[x] domain=S)'),
    ('\\arg\\max_x f(x)', '(argmax (Apply f [x] certainty=convention) variables=[x])'),
    ('\\operatorname*{arg\\,max}_\\theta f(\\theta)', '(argmax (Apply f [\\theta] certainty=convention) variables=[\\theta])'),
    ('\\int_0^1 f(x)\\,dx', '(int (Apply f [x] certainty=convention) variables=[x] lower=0 upper=1)'),
    ('\\int f(x)p(x)\\,dx', '(int (Product [(Apply f [x] certainty=convention) (Apply p [x] certainty=convention)]) variables=[x])'),
    ('\\lim_{n\\to\\infty} a_n', '(lim (Indexed a [n]) variables=[n] condition=(Relation n \\to \\infty))'),
    ('\\nabla_\\theta \\mathcal L', '(Gradient L{cal} wrt=\\theta)'),
    ('\\frac{d}{dx} f(x)', '(Derivative (Apply f [x] certainty=convention) kind=d wrt=[x])'),
    ('\\frac{\\partial \\mathcal L}{\\partial \\theta_i}', '(Derivative L{cal} kind=partial wrt=[(Indexed \\theta [i])])'),
    ('\\partial\\mathcal L/\\partial\\theta_i', '(Derivative L{cal} kind=partial wrt=[(Indexed \\theta [i])])'),
    ('\\operatorname{Softmax}_j(z)', '(softmax z variables=[j])'),
    ('\\mathop{\\mathbb E}\\limits_{x\\sim p} f(x)', '(E (Apply f [x] certainty=convention) variables=[x] distribution=p)'),
    ('\\hat{\\mathbb E}_t[r_t]', '(E (Indexed r [t]) variables=[t])'),
    ('\\sum_{\\substack{i\\in S\\\\ j\\ne i}} a_{ij}', '(sum (Indexed a [i j]) variables=[i] domain=S condition=(Relation j \\ne i))'),
    ('\\underset{\\theta}{\\arg\\min}\\, L(\\theta)', '(argmin (Apply L [\\theta] certainty=convention) variables=[\\theta])'),
    ('\\sum_i \\sum_j a_{ij} + b', '(+ (sum (sum (Indexed a [i j]) variables=[j]) variables=[i]) b)'),
    # the next term uses t: it joins the sum, unless braces close the sum first
    ('\\sum_t x_t - t', '(sum (- (Indexed x [t]) t) variables=[t])'),
    ('{\\sum_t x_t} - t', '(- (sum (Indexed x [t]) variables=[t]) t)'),
    ('a {\\sum_t x_t} - t', '(- (Product [a (sum (Indexed x [t]) variables=[t])]) t)'),
]


@pytest.mark.parametrize("latex, expected", REDUCTIONS)
def test_reductions(latex: str, expected: str) -> None:
    assert tree(latex) == expected

# Fractions, roots, norms, divergences, sets, intervals, concatenation, cases, matrices, indicators…
STRUCTURES = [
    ('\\frac{a}{b}', '(Frac a b)'),
    ('\\sqrt{d_k}', '(Root (Indexed d [k]))'),
    ('\\sqrt[3]{x}', '(Root x index=3)'),
    ('\\|x\\|_2', '(Norm x order=2)'),
    ('\\|x\\|_2^2', '(Power (Norm x order=2) 2)'),
    ('|x|', '(Abs x)'),
    ('D_{KL}(p\\,\\|\\,q)', '(Divergence D{_KL} p q)'),
    ('\\mathrm{KL}(p||q)', '(Divergence KL{rm} p q)'),
    ('\\{x \\in S \\mid x > 0\\}', '(SetBuilder (Relation x \\in S) (Relation x > 0))'),
    ('\\{x : x > 0\\}', '(SetBuilder x (Relation x > 0))'),
    ('\\{1, 2, 3\\}', '(SetLiteral [1 2 3])'),
    ('(0,1]', '(Interval 0 1 left_closed=False right_closed=True)'),
    ('[a, b]', '(Interval a b left_closed=True right_closed=True)'),
    ('(a, b)', '(Tuple [a b])'),
    ('[a; b]', '(Concat [a b])'),
    ('\\begin{cases} 1 & x > 0 \\\\ 0 & \\text{otherwise} \\end{cases}', "(Cases [[1 (Relation x > 0)] [0 'otherwise']])"),
    ('\\begin{pmatrix} 1 & 2 \\\\ 3 & 4 \\end{pmatrix}', '(Matrix [[1 2] [3 4]] env=pmatrix)'),
    ('\\begin{bmatrix} a \\\\ b \\end{bmatrix}', '(Matrix [[a] [b]] env=bmatrix)'),
    ('\\begin{array}{cc} a & b \\end{array}', '(Matrix [[a b]] env=array)'),
    ('\\mathbb 1[x > 0]', '(Indicator (Relation x > 0) symbol=1{bb})'),
    ('\\mathds 1(y = k)', '(Indicator (Relation y = k) symbol=1{bb} brackets=())'),
    ('\\mathbf 1[C]', '(Indicator C symbol=1{bf})'),
    ('\\mathbf{1}', '1{bf}'),
    ('\\binom{n}{k}', '(Binom n k)'),
    ('n!', '(Factorial n)'),
    ('\\text{if } x > 0', "(Annotated (Relation x > 0) note='if' kind=condition)"),
    ('x_1, \\ldots, x_n', '(Sequence [(Indexed x [1]) (Ellipsis kind=...) (Indexed x [n])] separators=[, ,])'),
    ('\\lfloor x \\rfloor', '(Delimited x kind=floor)'),
    ('\\langle a, b \\rangle', '(Delimited (Tuple [a b]) kind=angle)'),
    # a sized < or > is TeX's angle bracket; inside \\langle … \\rangle a written > is greater-than
    ('\\left< a, b \\right>', '(Delimited (Tuple [a b]) kind=angle)'),
    ('\\left\\langle a \\right>', '(Delimited a kind=angle)'),
    ('\\langle a > b \\rangle', '(Delimited (Relation a > b) kind=angle)'),
    ('{n \\choose k}', '(Binom n k)'),
    ('{a \\over b}', '(Frac a b)'),
]


@pytest.mark.parametrize("latex, expected", STRUCTURES)
def test_structures(latex: str, expected: str) -> None:
    assert tree(latex) == expected

# Norms and absolute values inside brackets and scripts: a bar pair after a factor is a norm or absolute value
# (the base of its scripts), not a divergence, condition or `\mid` bar followed by an empty power; a lone bar
# still separates.
NORMS = [
    ('\\mathbb{E}_{x,\\epsilon}\\left[ \\left\\| \\epsilon - \\epsilon_\\theta(x_t, t) \\right\\|^2 \\right]',
     '(E (Power (Norm (- \\epsilon (Apply \\epsilon{_\\theta} [(Indexed x [t]) t] certainty=formula))) 2) variables=[x \\epsilon])'),
    ('\\mathbb{E}\\left[ w \\left\\| x - y \\right\\|^2 \\right]', '(E (Product [w (Power (Norm (- x y)) 2)]))'),
    ('\\mathbb{E}[\\omega(\\lambda_t)\\|\\epsilon - \\epsilon_\\theta(x_t, t)\\|_2^2]',
     '(E (Product [(Apply \\omega [(Indexed \\lambda [t])] certainty=convention) (Power (Norm (- \\epsilon (Apply \\epsilon{_\\theta} [(Indexed x [t]) t] certainty=formula)) order=2) 2)]))'),
    ('[w \\|x\\|^2]', '(Group (Product [w (Power (Norm x) 2)]) open=[ close=])'),
    ('(w ||x||^2)', '(Group (Product [w (Power (Norm x) 2)]))'),
    ('(s |x|^2)', '(Group (Product [s (Power (Abs x) 2)]))'),
    ('\\left( s \\left| x \\right|^2 \\right)', '(Group (Product [s (Power (Abs x) 2)]))'),
    ('(\\|a\\| - s \\|b\\|)^2', '(Power (Group (- (Norm a) (Product [s (Norm b)]))) 2)'),
    ('\\left\\| a \\left| b \\right| \\right\\|^2', '(Power (Norm (Product [a (Abs b)])) 2)'),
    ('(\\sum_i |x_i|)', '(Group (sum (Abs (Indexed x [i])) variables=[i]))'),
    ('(\\log |x|)', '(Group (Apply \\log [(Abs x)] brackets=))'),
    # DiffusionDPO eq. 2 as the corpus stores it (macros expanded)
    ('L_{\\text{DM}} = \\ensuremath{\\mathbb{E}}_{\\ensuremath{\\boldsymbol{x}}_0, \\ensuremath{\\boldsymbol{\\epsilon}}, t,'
     '\\ensuremath{\\boldsymbol{x}}_t}\\left[\\omega(\\lambda_t)\\|\\ensuremath{\\boldsymbol{\\epsilon}}-'
     '\\ensuremath{\\boldsymbol{\\epsilon}}_\\theta(\\ensuremath{\\boldsymbol{x}}_t,t)\\|_2^2\\right],',
     "(Relation L{_'DM'} = (E (Product [(Apply \\omega [(Indexed \\lambda [t])] certainty=convention) "
     "(Power (Norm (- \\epsilon{bf} (Apply \\epsilon{bf,_\\theta} [(Indexed x{bf} [t]) t] certainty=formula)) "
     "order=2) 2)]) variables=[(Indexed x{bf} [0]) \\epsilon{bf} t (Indexed x{bf} [t])]))"),
    ('e^{-a|x|^2}', '(Power e (- (Product [a (Power (Abs x) 2)])))'),
    ('e^{-\\frac{b}{a} || x - y || _2^2}', '(Power e (- (Product [(Frac b a) (Power (Norm (- x y) order=2) 2)])))'),
    ('\\mathbb{R}^{|\\Omega|}', '(Power R{bb} (Abs \\Omega))'),
    ('e^{|x| + |y|}', '(Power e (+ (Abs x) (Abs y)))'),
    # a bar with no partner before the group ends, a comma or a relation still separates
    ('p(x | y)', '(Apply p [x] given=[y] certainty=conditional)'),
    ('p(x | y, |z|)', '(Apply p [x] given=[y (Abs z)] certainty=conditional)'),
    ('p(y | x = |s|)', '(Apply p [y] given=[(Relation x = (Abs s))] certainty=conditional)'),
    ('D(p \\| q)', '(Divergence D p q)'),
    ('D(p || q)', '(Divergence D p q)'),
    ('\\mathbb{E}[|X| | Y]', '(E (Abs X) condition=Y)'),
    ('\\{i | x_i > 0\\}', '(SetBuilder i (Relation (Indexed x [i]) > 0))'),
    ('\\langle n | O | p \\rangle', '(Apply () [n] given=[O p] certainty=conditional)'),
    ('p_{X|Y}', '(Indexed p [(Relation X \\mid Y)])'),
]


@pytest.mark.parametrize("latex, expected", NORMS)
def test_norms_and_bars(latex: str, expected: str) -> None:
    assert tree(latex) == expected

# Every way of writing a norm, with every script, inside every bracket, first or after a factor.
NORM_BARS = [('\\left\\|', '\\right\\|'), ('\\left\\Vert', '\\right\\Vert'), ('\\|', '\\|'), ('\\lVert', '\\rVert')]
NORM_SCRIPTS = [('^2', '(Power (Norm (- x y)) 2)'), ('_2^2', '(Power (Norm (- x y) order=2) 2)'),
                ('_F^{2}', '(Power (Norm (- x y) order=F) 2)')]
NORM_BRACKETS = [('\\mathbb{E}\\left[', '\\right]', '(E {})'), ('\\mathbb{E}[', ']', '(E {})'),
                 ('\\left(', '\\right)', '(Group {})')]
NORM_GRID = [(f'{open_} {factor}{left} x - y {right}{script} {close}',
              wrap.format(f'(Product [w {norm}])' if factor else norm))
             for left, right in NORM_BARS for script, norm in NORM_SCRIPTS
             for open_, close, wrap in NORM_BRACKETS for factor in ('', 'w ')]


@pytest.mark.parametrize("latex, expected", NORM_GRID)
def test_every_norm_form_is_the_base_of_its_power(latex: str, expected: str) -> None:
    assert tree(latex) == expected

# Relations and chains.
RELATIONS = [
    ('a = b = c', '(Relation a = b = c)'),
    ('x := 1', '(Relation x := 1)'),
    ('f \\triangleq g', '(Relation f \\triangleq g)'),
    ('a \\approx b', '(Relation a \\approx b)'),
    ('p \\propto q', '(Relation p \\propto q)'),
    ('a < b', '(Relation a < b)'),
    ('a \\le b', '(Relation a \\le b)'),
    ('a \\ge b', '(Relation a \\ge b)'),
    ('d_c \\ll d_h n_h', '(Relation (Indexed d [c]) \\ll (Product [(Indexed d [h]) (Indexed n [h])]))'),
    ('x \\in S', '(Relation x \\in S)'),
    ('x \\notin S', '(Relation x \\notin S)'),
    ('A \\subset B', '(Relation A \\subset B)'),
    ('x \\sim p', '(Relation x \\sim p)'),
    ('\\theta \\leftarrow \\theta - \\eta g', '(Relation \\theta \\leftarrow (- \\theta (Product [\\eta g])))'),
    ('x \\to 0', '(Relation x \\to 0)'),
    ('x \\mapsto x^2', '(Relation x \\mapsto (Power x 2))'),
    ('a \\equiv b', '(Relation a \\equiv b)'),
    ('a \\neq b', '(Relation a \\ne b)'),
    ('a \\coloneqq b', '(Relation a := b)'),
    ('x_i \\overset{\\text{iid}}{\\sim} p', '(Relation (Indexed x [i]) \\sim p)'),
    ('a \\not\\in B', '(Relation a \\notin B)'),
]


@pytest.mark.parametrize("latex, expected", RELATIONS)
def test_relations(latex: str, expected: str) -> None:
    assert tree(latex) == expected

# Layout is dropped from the meaning.
LAYOUT = [
    ('\\left( a + b \\right)', '(Group (+ a b))'),
    ('\\big( a \\big)', '(Group a)'),
    ('a \\, b \\quad c', '(Product [a b c])'),
    ('\\displaystyle \\sum_i x_i', '(sum (Indexed x [i]) variables=[i])'),
    ('\\sum\\limits_i x_i', '(sum (Indexed x [i]) variables=[i])'),
    ('\\boxed{x = 1}', '(Relation x = 1)'),
    ('\\color{red} x', 'x'),
    ('\\textcolor{red}{x}', 'x'),
    ('x \\label{eq:1}', 'x'),
    ('x = 1 \\nonumber', '(Relation x = 1)'),
    ('a &= b', '(Relation a = b)'),
    ('x = 1,', '(Relation x = 1)'),
    ('x = 1.', '(Relation x = 1)'),
]


@pytest.mark.parametrize("latex, expected", LAYOUT)
def test_layout(latex: str, expected: str) -> None:
    assert tree(latex) == expected

# Every $…$ formula written in guide 002 (in order of appearance).
GUIDE_002 = [
    'Q',
    'K',
    'V',
    'd_k',
    'd_v',
    '\\sqrt{d_k}',
    'n',
    'm',
    'Q\\in\\mathbb R^{n\\times d_k}',
    'QK^\\top',
    'n\\times d_k',
    'd_k\\times m',
    'n\\times m',
    '(i,j)',
    'i',
    'j',
    '\\begin{aligned} \\text{one product }q_ik_i:&\\quad\\text{variance }1\\\\ q^\\top k=\\textstyle\\sum_{i=1}^{d_k}q_ik_i:&\\quad\\text{variance }d_k,\\ \\text{standard deviation }\\sqrt{d_k}\\\\ q^\\top k/\\sqrt{d_k}:&\\quad\\text{standard deviation }1 \\end{aligned}',
    'q_i',
    'q_i^2',
    'a',
    'b',
    'a=1',
    '3=1\\times3',
    'a=3',
    '9=3\\times3',
    'a\\times3',
    '(3+9)/2=6',
    '2\\times3',
    'q_ik_i',
    '0\\times0=0',
    '(q_ik_i)^2=q_i^2k_i^2',
    'k_i',
    '1\\times1=1',
    'x_i=q_ik_i',
    'x_1+\\cdots+x_{d_k}',
    'x_ix_j',
    'd_k\\times d_k',
    'x_i^2',
    'd_k=64',
    '\\pm8',
    '\\pm1',
    'z=(z_1,\\ldots,z_m)',
    'e^a',
    '\\exp(a)',
    'e\\approx2.718',
    "\\operatorname{softmax}(z)_j=e^{z_j}/\\sum_{j'}e^{z_{j'}}",
    "j'",
    'm\\times d_v',
    'n\\times d_v',
    '(0,\\log3)',
    'v_1=(2,0)',
    'v_2=(0,4)',
    '-\\infty',
    '0/0',
    'd_k=d_v=64',
    'W^O',
    '=',
    ':=',
    'k',
    '\\mathcal M:=\\{\\ldots\\}',
    'B_l\\in\\mathcal M',
    'B_l',
    '\\in',
    'b_i',
    'n-1',
    '\\sigma',
    'x_i',
    'h_t',
    't',
    'h_t^{(\\ell)}',
    '\\operatorname{FFN}^{(s)}_i',
    '\\operatorname{FFN}^{(r)}_i',
    'W^{DKV}',
    'k_t^C',
    'W^\\top',
    'x^2',
    'x_{1:T}',
    'T',
    'x_{<t}',
    'X_{t,:}',
    '\\triangleq',
    '\\approx',
    '\\propto',
    'p_i\\propto e^{z_i}',
    '\\sum_j e^{z_j}',
    '\\ll',
    'd_c\\ll d_hn_h',
    '\\leftarrow',
    '\\sum',
    '\\prod',
    'N',
    'y_i=\\sum_{j=1}^{d}W_{ij}x_j',
    'Wx',
    '\\ell_{it}',
    '\\ell',
    '\\tfrac12',
    '1/10',
    'G',
    'o_1,\\ldots,o_G',
    '\\vert o_i\\vert',
    'G=2',
    'L_{\\text{answers}}',
    'L_{\\text{tokens}}',
    '\\mathbf 1[C]',
    'C',
    '\\hat y_i',
    'y_i',
    '\\sum_i\\mathbf 1[\\hat y_i=y_i]',
    'K_r',
    '\\binom nk',
    '0\\leq k\\leq n',
    'n!/(k!\\,(n-k)!)',
    'n!=1\\times2\\times\\cdots\\times n',
    '0!=1',
    '\\binom52=5!/(2!\\,3!)=10',
    '[a,b]',
    '(a,b)',
    '\\alpha_t\\in(0,1)',
    '\\log(e^a)=a',
    '\\log(ab)=\\log a+\\log b',
    '\\log(a/b)=\\log a-\\log b',
    '\\log(a+b)',
    'p\\leq1',
    '-\\log p\\geq0',
    'p',
    'z_i',
    '\\log\\sum_i e^{z_i}',
    'm=\\max_i z_i',
    'z=(1000,1001)',
    'm=1001',
    '(-1,0)',
    '1001+\\log(e^{-1}+1)\\approx1001.313',
    'p_\\theta(y\\mid x)',
    '\\theta',
    'y',
    'x',
    'p(y\\mid x;\\theta)',
    'p_\\theta(\\cdot\\mid x)',
    '\\pi_\\theta(o\\mid q)',
    'o',
    'q',
    'A',
    'B',
    'P(A\\mid B)=P(A\\cap B)/P(B)',
    'P(B)>0',
    '\\cap',
    '0.4/0.5=0.8',
    'P(A\\cap B)=P(A)P(B)',
    'P(\\text{both})=0.4',
    'P(\\text{correct})P(\\text{valid JSON})=0.6\\times0.5=0.3',
    'P(A\\mid B)=P(B\\mid A)P(A)/P(B)',
    'y_{<t}',
    '\\mathbb E_{x\\sim p}[f(x)]',
    'f(x)',
    '\\sum_x',
    '\\mathbb E[X]',
    'X',
    '\\mathbb E[X]=1\\times0.75+3\\times0.25=1.5',
    'p(x)',
    '\\int f(x)p(x)\\,dx',
    'dx',
    '\\mathbb E_{x\\sim p}[f(x)]\\approx\\frac1N\\sum_{i=1}^{N}f(x_i)',
    'x_i\\overset{\\text{iid}}{\\sim}p',
    '\\mathbb E',
    '(x,y_w,y_l)\\sim\\mathcal D',
    'q\\sim P(Q)',
    '\\{o_i\\}\\sim\\pi_{\\theta_{old}}(O\\mid q)',
    'o_i',
    '\\pi_{\\theta_{old}}',
    'y\\sim q_\\theta',
    'q_\\theta',
    '\\pi_\\theta',
    '\\mathbb E[\\log X]\\leq\\log\\mathbb E[X]',
    'p(x)=2',
    '0\\leq x\\leq0.5',
    '[0,0.5]',
    '2\\times0.01=0.02',
    '\\log2\\approx0.69',
    'z',
    'P',
    '\\operatorname{Var}(X)=\\mathbb E[(X-\\mu)^2]',
    '\\mu=\\mathbb E[X]',
    '\\mathcal N(\\mu,\\sigma^2)',
    '\\mu',
    '\\sigma^2',
    '\\mathcal N(\\mu,\\Sigma)',
    '\\Sigma',
    '\\mathcal N(0,I)',
    'I',
    '\\sigma/\\sqrt N',
    '82.3\\pm0.4',
    '81.5\\pm0.4',
    '-1.96',
    '1.96',
    '4+4-2=6',
    '\\sqrt4',
    '-\\log q_i',
    'q_i=1',
    'q_i=0.5',
    'q_i=0.1',
    'q_i=0',
    'H(p,q)=-\\log q_y',
    'p=(0.9,0.1)',
    'H(p,q)',
    'H(p)=-\\sum_ip_i\\log p_i',
    '\\Vert',
    '\\mid',
    '\\Vert x\\Vert',
    '0.693-0.325\\approx0.37',
    'p_i>0',
    'D_{\\mathrm{KL}}(p\\Vert q)',
    'p_i=0',
    '0\\log0=0',
    'q_i>0',
    'D_{\\mathrm{KL}}(q\\Vert p)',
    'p=(0.5,0.5)',
    'q=(1,0)',
    '1\\times\\log(1/0.5)+0=\\log2',
    'q=(0.5,0.5)',
    'H(p,q)=H(p)+D_{\\mathrm{KL}}(p\\Vert q)',
    'H(p)',
    'D_{\\mathrm{KL}}(q\\Vert p)=H(q,p)-H(q)',
    'H(q)',
    'd',
    'B\\times T\\times d',
    'a\\in\\mathbb R^d',
    'A\\in\\mathbb R^{m\\times n}',
    '\\top',
    'a^\\top',
    'a=\\begin{pmatrix}1\\\\2\\end{pmatrix}',
    'b=\\begin{pmatrix}3\\\\4\\end{pmatrix}',
    '(AB)C=A(BC)',
    'Wh',
    '\\mathcal L',
    '\\theta_i',
    '\\partial\\mathcal L/\\partial\\theta_i',
    '\\nabla_\\theta\\mathcal L',
    '\\nabla',
    '\\mathcal L(\\theta_1,\\theta_2)=\\theta_1^2+3\\theta_2^2',
    '\\theta_1=2',
    '\\theta_2=1',
    '\\theta_1',
    '\\theta_2',
    '\\eta',
    '\\eta=0.1',
    '(2,1)',
    '(1.6,0.4)',
    '\\nabla_\\theta\\log p_\\theta(x)',
    '\\nabla_x\\log p_\\theta(x)',
    'y=f(x)',
    'm\\times n',
    'J_{ij}=\\partial y_i/\\partial x_j',
    'y_1=x_1+2x_2',
    'y_2=3x_1-x_2',
    'x_2',
    'x_1',
    'y_1',
    'y_2',
    '\\min_\\theta f(\\theta)',
    'f',
    '\\operatorname*{arg\\,min}_\\theta f(\\theta)',
    'f(\\theta)=(\\theta-3)^2',
    '\\theta=\\operatorname*{arg\\,min}_\\theta D_{\\mathrm{KL}}(q_\\theta\\Vert p)',
    '\\operatorname{sg}(x)',
    '\\{1,2,3\\}',
    '\\{3,1,2\\}',
    '(1,2,3)',
    '(3,1,2)',
    'A=\\{1,2,3\\}',
    'B=\\{3,4\\}',
    '\\mathbb R^d',
    '\\mathbb R^{n\\times d}',
    '\\{x\\in S\\mid\\text{condition}\\}',
    'S',
]

# Guide 002 formulas whose reading matters most, with the tree we expect.
GUIDE_002_TREES = [
    ("\\operatorname{softmax}(z)_j=e^{z_j}/\\sum_{j'}e^{z_{j'}}",
     "(Relation (Indexed (Apply softmax{op} [z]) [j]) = (/ (Power e (Indexed z [j])) (sum (Power e (Indexed z [j{'}])) variables=[j{'}])))"),
    ('y_i=\\sum_{j=1}^{d}W_{ij}x_j',
     '(Relation (Indexed y [i]) = (sum (Product [(Indexed W [i j]) (Indexed x [j])]) variables=[j] lower=1 upper=d))'),
    ('\\{o_i\\}\\sim\\pi_{\\theta_{old}}(O\\mid q)',
     '(Relation (SetLiteral [(Indexed o [i])]) \\sim (Apply \\pi{_\\theta{_old}} [O] given=[q] certainty=conditional))'),
    ('H(p)=-\\sum_ip_i\\log p_i',
     '(Relation (Apply H [p] certainty=formula) = (- (sum (Product [(Indexed p [i]) (Apply \\log [(Indexed p [i])] brackets=)]) variables=[i])))'),
    ('\\binom52=5!/(2!\\,3!)=10',
     '(Relation (Binom 5 2) = (/ (Factorial 5) (Group (Product [(Factorial 2) (Factorial 3)]))) = 10)'),
    ('\\theta=\\operatorname*{arg\\,min}_\\theta D_{\\mathrm{KL}}(q_\\theta\\Vert p)',
     '(Relation \\theta = (argmin (Divergence D{_KL{rm}} q{_\\theta} p) variables=[\\theta]))'),
    ('\\operatorname{Var}(X)=\\mathbb E[(X-\\mu)^2]',
     '(Relation (Apply Var{op} [X]) = (E (Power (Group (- X \\mu)) 2)))'),
    ('P(A\\mid B)=P(B\\mid A)P(A)/P(B)',
     '(Relation (Apply P [A] given=[B] certainty=conditional) = (/ (Product [(Apply P [B] given=[A] certainty=conditional) (Apply P [A] certainty=formula)]) (Apply P [B] certainty=formula)))'),
    ('J_{ij}=\\partial y_i/\\partial x_j',
     '(Relation (Indexed J [i j]) = (Derivative (Indexed y [i]) kind=partial wrt=[(Indexed x [j])]))'),
    ('\\nabla_\\theta\\log p_\\theta(x)',
     '(Gradient (Apply \\log [(Apply p{_\\theta} [x] certainty=convention)] brackets=) wrt=\\theta)'),
    ('\\log(ab)=\\log a+\\log b',
     '(Relation (Apply \\log [(Product [a b])]) = (+ (Apply \\log [a] brackets=) (Apply \\log [b] brackets=)))'),
    ('q^\\top k/\\sqrt{d_k}',
     '(/ (Product [(Transpose q) k]) (Root (Indexed d [k])))'),
    ('\\mathbb E[\\log X]\\leq\\log\\mathbb E[X]',
     '(Relation (E (Apply \\log [X] brackets=)) \\le (Apply \\log [(E X)] brackets=))'),
    ('1001+\\log(e^{-1}+1)\\approx1001.313',
     '(Relation (+ 1001 (Apply \\log [(+ (Power e (- 1)) 1)])) \\approx 1001.313)'),
    ('\\vert o_i\\vert',
     '(Abs (Indexed o [i]))'),
    ('(AB)C=A(BC)',
     '(Relation (Product [(Group (Product [A B])) C]) = (Product [A (Group (Product [B C]))]))'),
    ('n!=1\\times2\\times\\cdots\\times n',
     '(Relation (Factorial n) = (\\times (\\times (\\times 1 2) (Ellipsis kind=\\cdots)) n))'),
    ('\\sum_i\\mathbf 1[\\hat y_i=y_i]',
     '(sum (Indicator (Relation (Indexed y{hat} [i]) = (Indexed y [i])) symbol=1{bf}) variables=[i])'),
    ('x_i\\overset{\\text{iid}}{\\sim}p',
     '(Relation (Indexed x [i]) \\sim p)'),
    ('\\mathbb E_{x\\sim p}[f(x)]\\approx\\frac1N\\sum_{i=1}^{N}f(x_i)',
     '(Relation (E (Apply f [x] certainty=convention) variables=[x] distribution=p) \\approx (Product [(Frac 1 N) (sum (Apply f [(Indexed x [i])] certainty=convention) variables=[i] lower=1 upper=N)]))'),
    ('\\alpha_t\\in(0,1)',
     '(Relation (Indexed \\alpha [t]) \\in (Interval 0 1 left_closed=False right_closed=False))'),
    ('\\mathcal M:=\\{\\ldots\\}',
     '(Relation M{cal} := (SetLiteral [(Ellipsis kind=...)]))'),
]

# Guide 000's dictionary and worked examples, written in LaTeX as papers write them.
GUIDE_000 = [
    (r"\mathbb E_{x \sim p}[f(x)]", '(E (Apply f [x] certainty=convention) variables=[x] distribution=p)'),
    (r"\arg\max_x f(x)", '(argmax (Apply f [x] certainty=convention) variables=[x])'),
    (r"\nabla_\theta L", "(Gradient L wrt=\\theta)"),
    (r"\mathrm{KL}(p \| q)", "(Divergence KL{rm} p q)"),
    (r"\sum_i x_i", "(sum (Indexed x [i]) variables=[i])"),
    (r"\prod_i x_i", "(prod (Indexed x [i]) variables=[i])"),
    (r"x \sim p", "(Relation x \\sim p)"),
    (r"\| x \|", "(Norm x)"),
    (r"x \cdot y", "(\\cdot x y)"),
    (r"x^T y", "(Product [(Transpose x) y])"),
    (r"\mathbf 1[\text{condition}]", "(Indicator 'condition' symbol=1{bf})"),
    (r"\theta", "\\theta"),
    (r"\phi", "\\phi"),
    (r"\hat{y}", "y{hat}"),
    (r"\log p(x)", '(Apply \\log [(Apply p [x] certainty=convention)] brackets=)'),
    (r"\mathrm{softmax}(QK^T/\sqrt{d_k})V",
     "(Product [(Apply softmax{rm} [(/ (Product [Q (Transpose K)]) (Root d{_k}))]) V])"),
    (r"Q \in \mathbb R^{n_q \times d}", "(Relation Q \\in (Power R{bb} (\\times (Indexed n [q]) d)))"),
    (r"K \in \mathbb R^{n_k \times d}", "(Relation K \\in (Power R{bb} (\\times (Indexed n [k]) d)))"),
    (r"V \in \mathbb R^{n_k \times d_v}", "(Relation V \\in (Power R{bb} (\\times (Indexed n [k]) d{_v})))"),
    (r"QK^T", "(Product [Q (Transpose K)])"),
    (r"Q = \begin{bmatrix} 1 & 0 \end{bmatrix}", "(Relation Q = (Matrix [[1 0]] env=bmatrix))"),
    (r"K = \begin{bmatrix} 1 & 0 \\ 0 & 1 \\ 1 & 1 \end{bmatrix}",
     "(Relation K = (Matrix [[1 0] [0 1] [1 1]] env=bmatrix))"),
    (r"V = \begin{bmatrix} 10 & 0 \\ 0 & 10 \\ 5 & 5 \end{bmatrix}",
     "(Relation V = (Matrix [[10 0] [0 10] [5 5]] env=bmatrix))"),
    (r"QK^T = \begin{bmatrix} 1 & 0 & 1 \end{bmatrix}",
     "(Relation (Product [Q (Transpose K)]) = (Matrix [[1 0 1]] env=bmatrix))"),
    (r"\mathrm{softmax}(QK^T/\sqrt{2}) = \begin{bmatrix} 0.401 & 0.198 & 0.401 \end{bmatrix}",
     "(Relation (Apply softmax{rm} [(/ (Product [Q (Transpose K)]) (Root 2))]) = "
     "(Matrix [[0.401 0.198 0.401]] env=bmatrix))"),
    (r"\mathcal L_{\mathrm{DPO}} = -\mathbb E\left[\log\sigma\left(\beta\left(\left(\log\pi(y_w\mid x)"
     r" - \log\mathrm{ref}(y_w\mid x)\right) - \left(\log\pi(y_l\mid x) - \log\mathrm{ref}(y_l\mid x)\right)"
     r"\right)\right)\right]",
     "(Relation L{cal,_DPO{rm}} = (- (E (Apply \\log [(Apply \\sigma [(Product [\\beta (Group (- (Group (- "
     "(Apply \\log [(Apply \\pi [y{_w}] given=[x] certainty=conditional)] brackets=) "
     "(Apply \\log [(Apply ref{rm} [y{_w}] given=[x] certainty=conditional)] brackets=))) "
     "(Group (- (Apply \\log [(Apply \\pi [y{_l}] given=[x] certainty=conditional)] brackets=) "
     "(Apply \\log [(Apply ref{rm} [y{_l}] given=[x] certainty=conditional)] brackets=)))))])] "
     "certainty=convention)] brackets=))))"),
]


@pytest.mark.parametrize("latex", GUIDE_002)
def test_guide_002_formula_parses_strictly_and_round_trips(latex: str) -> None:
    result = parse(latex, strict=True)
    assert result.warnings == ()
    printed = to_latex(result.tree)
    assert parse(printed, strict=True).tree == result.tree, printed


@pytest.mark.parametrize("latex, expected", GUIDE_002_TREES)
def test_guide_002_trees(latex: str, expected: str) -> None:
    assert any(latex in formula for formula in GUIDE_002)
    assert tree(latex) == expected


@pytest.mark.parametrize("latex, expected", GUIDE_000)
def test_guide_000_dictionary(latex: str, expected: str) -> None:
    assert tree(latex) == expected
    printed = to_latex(parse(latex).tree)
    assert parse(printed).tree == parse(latex).tree


# --- normalized LaTeX ---------------------------------------------------------------------------------

PRINTED = [
    (r"QK^\top", r"Q K^{\top}"),
    (r"\left( a+b \right)^2", r"(a + b)^{2}"),
    (r"\frac12", r"\frac{1}{2}"),
    (r"a \leq b", r"a \le b"),
    (r"x \coloneqq 1", r"x := 1"),
    (r"\operatorname*{arg\,max}_\theta f(\theta)", r"\operatorname*{argmax}_\theta  f(\theta)"),
    (r"\mathbb E_{x\sim p}\left[ f(x) \right]", r"\mathbb{E}_{x \sim p}[f(x)]"),
    (r"W_{ij}", r"W_{i, j}"),
    (r"h_t^{(\ell)}", r"h^{(\ell)}_{t}"),
    (r"\int_0^1 f(x)\,\mathrm{d}x", r"\int_{0}^{1} f(x) d x"),
    (r"\{x \in S : x > 0\}", r"\{x \in S \mid x > 0\}"),
    (r"\sum_i a_i \cdot b", r"\sum_{i} a_{i} \cdot b"),
    (r"{\sum_i a_i} \cdot b", r"{\sum_{i} a_{i}} \cdot b"),
    (r"\mathbb{E}\left[ w \left\| x - y \right\|_2^2 \right]", r"\mathbb{E}[w \lVert x - y\rVert _{2}^{2}]"),
    (r"(s |x|^2)", r"(s \lvert x\rvert ^{2})"),
]


@pytest.mark.parametrize("latex, expected", PRINTED)
def test_to_latex_normalizes(latex: str, expected: str) -> None:
    result = parse(latex, strict=True)
    assert to_latex(result.tree) == expected
    assert parse(expected, strict=True).tree == result.tree


# --- read aloud ---------------------------------------------------------------------------------------

READ_ALOUD = [
    (r"\mathbb E_{x\sim p}[f(x)]", "the expectation over x drawn from p of f of x"),
    (r"\sum_{i=1}^N x_i", "the sum over i from 1 to N of x at i"),
    (r"QK^\top", "Q times K transposed"),
    (r"p_\theta(y\mid x)", "p sub theta of y given x"),
    (r"D_{\mathrm{KL}}(p\Vert q)", "the divergence D sub KL of p from q"),
    (r"\theta \leftarrow \theta - \eta \nabla_\theta \mathcal L",
     "theta is updated to theta minus eta times the gradient of calligraphic L with respect to theta"),
    (r"\|x\|_2^2", "the 2-norm of x squared"),
    (r"\mathbf 1[\hat y_i = y_i]", "1 if y-hat at i equals y at i else 0"),
]


@pytest.mark.parametrize("latex, expected", READ_ALOUD)
def test_read_aloud(latex: str, expected: str) -> None:
    assert read_aloud(parse(latex).tree) == expected


# --- spans ----------------------------------------------------------------------------------------------

def test_spans_point_into_the_formula() -> None:
    latex = r"\mathrm{softmax}\left(\frac{QK^\top}{\sqrt{d_k}}\right)V"
    result = parse(latex)
    assert result.source == latex
    root = result.tree
    assert isinstance(root, A.Product) and root.span == (0, len(latex))
    apply_, v = root.factors
    assert latex[slice(*v.span)] == "V"
    assert latex[slice(*apply_.func.span)] == r"\mathrm{softmax}"
    frac = apply_.args[0]
    assert latex[slice(*frac.span)] == r"\frac{QK^\top}{\sqrt{d_k}}"
    for node in walk(root):
        start, end = node.span
        assert 0 <= start <= end <= len(latex), node


def test_layout_stays_inside_spans() -> None:
    latex = r"a \quad = \; \left( b \right)"
    rel = parse(latex).tree
    assert isinstance(rel, A.Relation)
    assert latex[slice(*rel.operands[1].span)] == r"\left( b \right)"


# --- errors ---------------------------------------------------------------------------------------------

BAD = [
    (r"\frac{a}", "missing argument"),
    (r"\left( x", "missing closing delimiter"),
    (r"x^", "missing superscript"),
    (r"\sum_{", "unexpected end of formula"),
    (r"a}", "unbalanced }"),
    (r"{a", "missing }"),
    (r"\begin{pmatrix} a", "missing \\end{pmatrix}"),
    (r"\begin{pmatrix} a \end{bmatrix}", "closes \\begin{pmatrix}"),
    (r"\foo{x}", "unknown macro \\foo"),
    (r"a + ", "missing operand after +"),
    (r"x_", "missing subscript"),
    (r"\sqrt[3", "missing ] after \\sqrt["),
    (r"(a", "missing closing delimiter"),
    ("\\", "lone backslash"),
]


@pytest.mark.parametrize("latex, message", BAD)
def test_bad_inputs_raise_in_strict_mode(latex: str, message: str) -> None:
    with pytest.raises(MathParseError) as info:
        parse(latex, strict=True)
    assert message in info.value.message
    assert 0 <= info.value.offset <= len(latex)
    assert info.value.snippet.splitlines()[0] == latex.replace("\n", " ")


def test_error_names_the_offset_with_a_caret() -> None:
    with pytest.raises(MathParseError) as info:
        parse(r"a + \frac{b}", strict=True)
    assert info.value.offset == len(r"a + \frac{b}")
    assert str(info.value).endswith("a + \\frac{b}\n" + " " * len(r"a + \frac{b}") + "^")


TOLERATED = [
    (r"\foo{x} + 1", "(+ (Opaque macro=\\foo args=[x]) 1)", "unknown macro \\foo"),
    (r"a}", "a", "unbalanced }"),
    (r"\left( x", "(Group x)", "missing closing delimiter"),
    (r"a + ", "(+ a ())", "missing operand after +"),
]


@pytest.mark.parametrize("latex, expected, warning", TOLERATED)
def test_tolerant_mode_warns_and_goes_on(latex: str, expected: str, warning: str) -> None:
    result = parse(latex)
    assert sexpr(result.tree) == expected
    assert any(warning in w for w in result.warnings)


@pytest.mark.parametrize("latex", [r"x^", r"\frac{a}", r"\sum_{", r"{a"])
def test_syntax_errors_raise_in_tolerant_mode_too(latex: str) -> None:
    with pytest.raises(MathParseError):
        parse(latex)


# --- declared functions, align rows -----------------------------------------------------------------

def test_declared_functions_apply() -> None:
    assert tree("f(x)") == "(Apply f [x] certainty=convention)"
    assert tree("f(x)", functions=frozenset({"f"})) == "(Apply f [x] certainty=declared)"
    assert tree(r"\mathrm{Enc}_\phi(x)", functions=frozenset({"Enc"})) == \
        "(Apply Enc{rm,_\\phi} [x] certainty=declared)"
    assert tree("x(1-x)") == "(Product [x (Group (- 1 x))])"


def test_align_rows_join_continuations() -> None:
    latex = r"\mathcal L &= a + b \\ &= c \\ &\quad + d \\ y &= 2"
    rows = parse_rows(latex)
    assert [sexpr(r.tree) for r in rows] == ["(Relation L{cal} = (+ a b) = (+ c d))", "(Relation y = 2)"]
    assert all(r.source == latex for r in rows)
    assert latex[slice(*rows[1].tree.span)] == "y &= 2"


@pytest.mark.parametrize("latex, expected", [
    # schedule_free's derivation: the authors forgot a `)`; the group ends before the chain's next `=`
    (r"a = w (F(x) - F(y) + w(G(x) - G(y)) = b",
     "(Relation a = (Product [w (Group (+ (- (Apply F [x] certainty=convention) (Apply F [y] certainty=convention)) "
     "(Product [w (Group (- (Apply G [x] certainty=convention) (Apply G [y] certainty=convention)))])))]) = b)"),
    (r"(a = b", "(Relation (Group a) = b)"),
    (r"a = (b + c", "(Relation a = (Group (+ b c)))"),
    # a relation straight after the `(` has no left side to end before: the group holds it, as `(\le)` does
    (r"(\le", "(Group (Relation () \\le ()))"),
    # in a script the relations are the bindings the group lists: the group still runs to the end
    (r"\mathbb{E}_{(x \sim p, y \sim q} f(x)", "(E (Apply f [x] certainty=convention) variables=[x y] distribution=p)"),
])
def test_a_paren_nothing_closes_ends_before_the_statements_relation(latex: str, expected: str) -> None:
    result = parse(latex)
    assert sexpr(result.tree) == expected
    assert any("missing closing delimiter for (" in w for w in result.warnings)
    with pytest.raises(MathParseError, match="missing closing delimiter"):
        parse(latex, strict=True)


def test_single_row_with_ampersand() -> None:
    assert tree(r"\mathbf{k}_{t}^{C} &= W^{UK} \mathbf{c}_{t}^{KV},") == \
        "(Relation (Indexed k{bf,^C} [t]) = (Product [W{^UK} (Indexed c{bf,^KV} [t])]))"


def test_aligned_environment_inside_a_formula() -> None:
    result = parse(r"\begin{aligned} a &= b \\ &= c \end{aligned}", strict=True)
    assert sexpr(result.tree) == "(Relation a = b = c)"


def test_concatenation_of_heads() -> None:
    assert tree(r"\mathbf{u}_{t} = W^{O} [\mathbf{o}_{t, 1};\mathbf{o}_{t, 2};...;\mathbf{o}_{t, n_{h}}]") == (
        "(Relation (Indexed u{bf} [t]) = (Product [W{^O} (Concat [(Indexed o{bf} [t 1]) (Indexed o{bf} [t 2]) "
        "(Ellipsis kind=...) (Indexed o{bf} [t (Indexed n [h])])])]))")


# --- traversal and JSON ----------------------------------------------------------------------------

def test_walk_and_children_reach_every_node() -> None:
    root = parse(r"\sum_{i=1}^N \mathbf 1[\hat y_i = y_i]").tree
    assert isinstance(root, A.Reduction)
    kinds = [type(n).__name__ for n in walk(root)]
    assert kinds[0] == "Reduction"
    assert kinds.count("Indicator") == 1
    names = sorted({n.name for n in walk(root) if isinstance(n, A.Symbol)})
    assert names == ["1", "N", "\\sum", "i", "y"]
    assert list(A.children(A.Number("2"))) == []
    matrix = parse(r"\begin{pmatrix} a & b \\ c & d \end{pmatrix}").tree
    assert [n.name for n in A.children(matrix)] == ["a", "b", "c", "d"]


TRAVERSED = [r"\sum_{i=1}^N \mathbf 1[\hat y_i = y_i]", r"\begin{pmatrix} a & b \\ c & d \end{pmatrix}",
             r"p_\theta(y \mid x) = \begin{cases} 1 & x > 0 \\ 0 & \text{else} \end{cases}",
             r"\mathbb{E}_{\tau \sim \pi_\theta}[R(\tau)] \le \|W^\top x\|_2^2 + \frac{\partial f}{\partial x}"]


@pytest.mark.parametrize("latex", TRAVERSED)
def test_the_fast_traversal_reads_every_field_that_holds_a_node(latex) -> None:
    """`children` and `rewrite` skip the fields annotated to hold no node (names, spellings, counts) and copy a
    node without `dataclasses.replace`: both rest on every node class's fields being what they say (no node in
    a `str`/`int`/`bool` field, no `__post_init__`). Checked against the plain loop over every field."""
    from dataclasses import fields, replace

    def every_child(node):
        found = []
        for f in fields(node):
            value = getattr(node, f.name)
            items = value if isinstance(value, tuple) else (value,)
            for item in items:
                found += [sub for sub in (item if isinstance(item, tuple) else (item,)) if isinstance(sub, A.Node)]
        return list({id(n): n for n in found}.values())

    assert not [cls for cls in A.NODE_TYPES if hasattr(cls, "__post_init__")]
    root = parse(latex).tree
    for node in walk(root):
        assert [id(n) for n in A.children(node)] == [id(n) for n in every_child(node)]
    def plain_rewrite(node, fn, done=None):  # the rebuild by dataclasses.replace over every field, shared once
        done = {} if done is None else done
        if id(node) in done:
            return done[id(node)]
        found = fn(node)
        if found is not None:
            done[id(node)] = found
            return found
        changes = {}
        for f in fields(node):
            value = getattr(node, f.name)
            if isinstance(value, A.Node):
                changes[f.name] = plain_rewrite(value, fn, done)
            elif isinstance(value, tuple):
                changes[f.name] = tuple(plain_rewrite(v, fn, done) if isinstance(v, A.Node) else
                                        tuple(plain_rewrite(w, fn, done) if isinstance(w, A.Node) else w for w in v)
                                        if isinstance(v, tuple) else v for v in value)
        done[id(node)] = replace(node, **changes)
        return done[id(node)]

    def rename(n):
        return A.Symbol(n.name + "'", span=n.span) if isinstance(n, A.Symbol) and n.name != "y" else None

    renamed = A.rewrite(root, rename)
    assert renamed == plain_rewrite(root, rename)
    assert [n.span for n in walk(renamed)] == [n.span for n in walk(plain_rewrite(root, rename))]
    assert renamed != root
    assert A.rewrite(root, lambda n: None) is root


def test_to_dict_is_json_ready() -> None:
    import json
    data = A.to_dict(parse(r"p_\theta(y \mid x)").tree)
    assert json.loads(json.dumps(data)) == data
    assert data["type"] == "Apply" and data["certainty"] == "conditional"
    assert data["func"]["sub_label"] == {"type": "Symbol", "span": [2, 8], "name": "\\theta", "font": None,
                                         "accents": [], "sub_label": None, "sup_label": None, "primes": 0,
                                         "optimum": False}
    assert [g["name"] for g in data["given"]] == ["x"]
    ellipsis = A.to_dict(parse(r"\ldots").tree)
    assert ellipsis["type"] == "Ellipsis"


def test_every_node_type_has_a_span_and_prints() -> None:
    samples = [r"x_i^2", r"\frac{a}{b}", r"\sqrt[3]{x}", r"|x|", r"\|x\|_2", r"\lfloor x\rfloor", r"(0,1]",
               r"[a;b]", r"\{1,2\}", r"\{x \mid x>0\}", r"\binom nk", r"n!", r"\underbrace{x}_{n}",
               r"\mathbb 1[x]", r"\begin{cases}1 & x\end{cases}", r"\begin{bmatrix}1\end{bmatrix}", r"a, b",
               r"a \\ b", r"x_{1:T}", r"\foo", r"\text{if}", r"\ldots", r"A^{-1}", r"x^\top", r"(x)^{(k)}",
               r"(fg)'", r"D(p\|q)", r"\frac{d}{dx}f", r"\partial x", r"\nabla_\theta L", r"\mathbb E[x]",
               r"(a, b)", r"-x", r"a + b", r"f(x)", r"{}", r"\langle a \rangle", r"a = b", r"a b"]
    seen = set()
    for latex in samples:
        tree_ = parse(latex).tree
        for node in walk(tree_):
            seen.add(type(node))
        assert parse(to_latex(tree_)).tree == tree_, latex
    missing = {cls.__name__ for cls in A.NODE_TYPES} - {cls.__name__ for cls in seen}
    assert missing == set()


def test_expectation_keeps_every_sampled_pair() -> None:
    result = parse(r"\mathbb E_{q\sim P(Q),\, \{o_i\}\sim\pi_{\theta_{old}}(O\mid q)}[r]", strict=True).tree
    assert isinstance(result, A.Reduction) and result.op == "E"
    assert [sexpr(s) for s in result.samples] == [
        "(Relation q \\sim (Apply P [Q] certainty=formula))",
        "(Relation (SetLiteral [(Indexed o [i])]) \\sim (Apply \\pi{_\\theta{_old}} [O] given=[q] "
        "certainty=conditional))"]
    assert sexpr(result.distribution) == "(Apply P [Q] certainty=formula)"
    assert [sexpr(v) for v in result.variables] == ["q", "(Indexed o [i])"]


def test_read_aloud_positions_before_t() -> None:
    assert read_aloud(parse(r"p_\theta(y_t \mid x, y_{<t})").tree) == \
        "p sub theta of y at t given x and y before t"


@pytest.mark.parametrize("latex, expected", [
    # the same formula indexes w^1 with two single indices, the first i: `in` is the pair (i, n), not "input"
    (r"x^1_i = \tanh(w^1_{i1} x_1 + \cdots + w^1_{in} x_n)",
     "(Relation (Indexed x{^1} [i]) = (Apply \\tanh [(+ (+ (Product [(Indexed w{^1} [i 1]) (Indexed x [1])]) "
     "(Ellipsis kind=\\cdots)) (Product [(Indexed w{^1} [i n]) (Indexed x [n])]))]))"),
    # nothing indexes W twice: `in` and `out` name the input and output maps
    (r"h = W_{in} x + W_{out} y", "(Relation h = (+ (Product [W{_in} x]) (Product [W{_out} y])))"),
    # W is indexed twice, but from another letter: the word is not one of that family's index pairs
    (r"h = W_{in} x + W_{jk}", "(Relation h = (+ (Product [W{_in} x]) (Indexed W [j k])))"),
])
def test_a_word_under_a_symbol_the_formula_indexes_in_pairs_is_its_indices(latex: str, expected: str) -> None:
    assert sexpr(parse(latex).tree) == expected


@pytest.mark.parametrize("latex, variables", [
    # p_θ is applied in the body: beside the draw c ~ D it is the distribution the rest comes from, not bound
    (r"\mathbb{E}_{c\sim\mathcal{D}, p_{\theta}}[\sum_{t=1}^T r(c, x_t) - \beta \log p_{\theta}(x_t \mid c)]", ["c"]),
    # z is never applied: both are bound
    (r"\mathbb{E}_{c\sim\mathcal{D}, z}[f(c, z)]", ["c", "z"]),
])
def test_a_name_listed_beside_a_draw_that_the_formula_applies_is_a_distribution(latex: str,
                                                                                 variables: list[str]) -> None:
    tree = parse(latex).tree
    assert isinstance(tree, A.Reduction) and tree.op == "E"
    assert [to_latex(v) for v in tree.variables] == variables
