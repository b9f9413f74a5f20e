"""`papermath read`: symbols, quoted definitions, roles, shapes, undefined symbols, reductions, kinds."""
from __future__ import annotations

import json

import pytest

from papermath.analysis.definitions import link_definitions, link_spans
from papermath.analysis.read import read_document
from papermath.cli import main
from papermath.latex import document_from_string, load_document

from conftest import EXAMPLE, corpus_paper

DOC = "\\documentclass{article}\n\\begin{document}\n%s\n\\end{document}\n"


def reading_of(body: str, number: str = "1"):
    doc = document_from_string(DOC % body)
    return read_document(doc, [number]).equations[0]


def canonical(latex: str) -> str:
    """The printer's spelling without spaces, so tests don't depend on how it spaces or braces a symbol."""
    from papermath.math import parse, to_latex
    return "".join(to_latex(parse(latex).tree).split())


def sym(eq, latex):
    want = canonical(latex)
    found = [s for s in eq.symbols if want in (canonical(s.latex), canonical(s.symbol))]
    assert found, f"{latex} not among {[s.latex for s in eq.symbols]}"
    return found[0]


@pytest.mark.parametrize("body, latex, pattern, quote", [
    (r"We compute \begin{equation} y = W x \end{equation} where $W$ is the weight matrix and $x$ is the input.",
     "W", "where", r"where $W$ is the weight matrix and $x$ is the input."),
    (r"Let $h$ denote the hidden state. \begin{equation} y = f(h) \end{equation}", "h", "let",
     r"Let $h$ denote the hidden state."),
    (r"Here $A \in \mathbb{R}^{n \times d}$ is the data. \begin{equation} y = A v \end{equation}", "A", "in-set",
     r"Here $A \in \mathbb{R}^{n \times d}$ is the data."),
    (r"The output is denoted as $z$. \begin{equation} z = a + b \end{equation}", "z", "denoted",
     r"The output is denoted as $z$."),
    (r"We add a bias term $b$ to the score. \begin{equation} s = q + b \end{equation}", "b", "appositive",
     r"We add a bias term $b$ to the score."),
    (r"The attention queries ($q$) are compared. \begin{equation} s = q k \end{equation}", "q", "parenthesis",
     r"The attention queries ($q$) are compared."),
    (r"\begin{equation} s = \alpha u \end{equation} where the balance factor $\alpha$ is a hyper-parameter.",
     r"\alpha", "appositive", r"where the balance factor $\alpha$ is a hyper-parameter."),
])
def test_definition_patterns(body, latex, pattern, quote):
    s = sym(reading_of(body), latex)
    assert s.definition is not None
    assert (s.definition.pattern, s.definition.quote) == (pattern, quote)


@pytest.mark.parametrize("body, latex, role, cue", [
    (r"\begin{equation} y = \beta x \end{equation} where $\beta$ is a hyper-parameter.", r"\beta", "fixed setting", "hyper-parameter"),
    (r"\begin{equation} y = W x \end{equation} where $W$ is a learnable matrix.", "W", "trained weight", "learnable"),
    (r"\begin{equation} y = \pi_{\mathrm{ref}} x \end{equation} where $\pi_{\mathrm{ref}}$ is the frozen reference model.",
     r"\pi_{\mathrm{ref}}", "frozen model", "frozen"),
    (r"\begin{equation} y = x + \epsilon \end{equation} where $\epsilon$ is Gaussian noise.", r"\epsilon", "random sample", "Gaussian noise"),
    (r"\begin{equation} y = 2 x \end{equation} where $x$ is the input image.", "x", "input data", "image"),  # the head noun
    (r"\begin{equation} y = 2 x \end{equation}", "y", "defined here", "left-hand side of (1)"),
])
def test_roles_come_with_the_words_that_decided_them(body, latex, role, cue):
    s = sym(reading_of(body), latex)
    assert (s.role, s.role_cue) == (role, cue)


@pytest.mark.parametrize("body, kind", [
    (r"\begin{equation} y = W x \end{equation}", "computation"),
    (r"\begin{equation} f(x) := x^2 \end{equation}", "definition"),
    (r"\begin{equation} \theta \leftarrow \theta - \eta g \end{equation}", "update rule"),
    (r"The loss is \begin{equation} \mathcal{L} = -\log p \end{equation}", "objective"),
    (r"\begin{equation} \|x\| \le 1 \end{equation}", "constraint"),
    (r"This gives the upper bound \begin{equation} R \le C / \sqrt{n} \end{equation}", "bound"),
    (r"\begin{equation} L \approx A N^{-\alpha} \end{equation} is an empirical fit.", "empirical fit"),
    (r"\begin{equation} \mu \approx \frac{1}{N}\sum_{i=1}^{N} x_i \end{equation}", "estimator"),
])
def test_kinds(body, kind):
    assert reading_of(body).kind == kind


def test_undefined_symbols_are_listed_not_guessed():
    eq = reading_of(r"\begin{equation} y = \sigma(W x + b) \end{equation} where $W$ is a weight matrix.")
    assert set(eq.undefined) == {"x", "b"}
    assert sym(eq, "W").definition is not None
    # sigma applied to an argument is standard notation: conventional, never "defined".
    sigma = sym(eq, r"\sigma")
    assert sigma.definition is None and "sigmoid" in sigma.conventional


def test_bound_indices_are_not_undefined_and_reductions_say_what_they_run_over():
    eq = reading_of(r"\begin{equation} y_i = \sum_{j=1}^{d} W_{ij} x_j \end{equation} where $W$ is a matrix, "
                    r"$x$ is a vector and $d$ is the width.")
    assert eq.undefined == ("i",)  # a free index the text never introduces; the bound j is never undefined
    assert [(r.op, r.over, r.lower, r.upper) for r in eq.reductions] == [("sum", ("j",), "1", "d")]
    assert sym(eq, "x").shape == ("?",)
    expectation = reading_of(r"\begin{equation} L = -\mathbb{E}_{(x, y_w, y_l) \sim \mathcal{D}}[\log p] \end{equation}")
    (red,) = expectation.reductions
    assert (red.op, red.over, red.distribution) == ("E", ("x", "y_{w}", "y_{l}"), r"\mathcal{D}")


def test_link_definitions_on_a_bare_paragraph():
    links = link_definitions(r"where $s_{i,t}$ is the token-to-expert affinity; $\mathbf{e}_i$ is the centroid "
                             r"vector of the $i$-th routed expert; and $K_r$ denotes the number of activated experts.")
    assert [(k, p) for k, p, _ in links] == [("s", "where"), (r"\mathbf{e}", "where"), ("K_{r}", "where")]


# (paragraph, [(symbol, description, pattern)]): what the span linker quotes for each symbol, and what it refuses.
SPAN_LINKS = [
    (r"We use the query matrix $Q$ and a bias term $b_i$.", [("Q", "the query matrix", "appositive"),
                                                              ("b_i", "a bias term", "appositive")]),
    (r"Let $f$ be an increasing function.", [("f", "an increasing function", "let")]),
    # A repeated mention is not a second definition: the first one is linked, once.
    (r"The functions $F$ and $S$ are universal. Every problem is solvable with the same functions $F$.",
     [("F", "The functions", "appositive"), ("S", "The functions", "appositive")]),
    # The word before the formula must be able to head a noun phrase.
    (r"The agent observes $x$ and moves.", []),
    (r"It holds for the interval between $a$ and $b$.", []),
    (r"One may use large $\alpha$ here.", []),
    (r"Since $B$ is positive definite, the claim follows.", []),
    (r"We then pick the unit vector joining $y$ to $z$.", []),
    (r"Fit the detuning $\delta$ to the data.", [(r"\delta", "the detuning", "appositive")]),
    (r"Denote by $\theta$ the parameters of the policy.", [(r"\theta", "the parameters of the policy", "denote-by")]),
    (r"We use $h$ to denote the hidden state.", [("h", "the hidden state", "denote-by")]),
    # One-word predicates: a noun defines, an adjective describes.
    (r"where $\varepsilon$ and $\beta$ are hyper-parameters.",
     [(r"\varepsilon", "hyper-parameters", "where"), (r"\beta", "hyper-parameters", "where")]),
    # Nouns that are also verbs name a symbol only after a determiner.
    (r"Then the return $G_t$ is summed.", [("G_t", "the return", "appositive")]),
    (r"We estimate $x$ twice.", []),
    (r"Note that the algorithm does not need to know $L$ or $\sigma$.", []),
    (r"It uses the next state $s$ and the pooling $P$.", [("s", "the next state", "appositive"),
                                                          ("P", "the pooling", "appositive")]),
    (r"Here $u_t$ is playing the role of the update vector, as the points $y_t$ are where we evaluate.",
     [("u_t", "the update vector", "where"), ("y_t", "the points", "appositive")]),
    (r"The policy is conditioned on the current state being $s$.", [("s", "the current state", "appositive")]),
    # Prose markup and citations may sit inside a description.
    (r"where $x$ is the \emph{query} vector.", [("x", r"the \emph{query} vector", "where")]),
    (r"Let $\eta$ be the learning rate~\citep{adam}.", [(r"\eta", r"the learning rate~\citep{adam}", "let")]),
    (r"We denote by $N$ the number of tokens, and by $d$ the width.",
     [("N", "the number of tokens", "denote-by"), ("d", "the width", "denote-by")]),
    (r"We use $W_q$ and $W_k$ to denote the projections.",
     [("W_q", "the projections", "denote-by"), ("W_k", "the projections", "denote-by")]),
    (r"Denote by $\theta$ a vector, then $f$ is smooth.", [(r"\theta", "a vector", "denote-by")]),
    # A piece of a formula or a citation is not a symbol to define.
    (r"The lens gives a magnification $\times 2$ in the data of Chaudry $(2017)$.", []),
    (r"The rate falls as 1 ~ cm $^{-1}$ here.", []),
    # A notation table: the symbols alone in the first cell, their meaning in words in a later one.
    (r"\midrule $\rho$ & electron density \\ $\Phi_I$ , $\Phi_K$ & & electronic states \\ Name & $x$ \\",
     [(r"\rho", "electron density", "table"), (r"\Phi_I", "electronic states", "table"),
      (r"\Phi_K", "electronic states", "table")]),
    (r"\begin{tabular}{ll} $x$ & input features \\ $y$ & output \tabularnewline $0 < \lambda < 1$ & Minimum \\ "
     r"$n$ & samples \& batches \\ $z$ & \multicolumn{2}{c}{ } \\ $w$ & weights \end{tabular} \caption{Notation.}",
     [("x", "input features", "table"), ("y", "output", "table"), ("n", r"samples \& batches", "table"),
      ("w", "weights", "table")]),
    # A description never cuts a formula in half or quotes bare LaTeX.
    (r"Note that \ldchi(\LL)=4 since $K_{4,4}$ is not linkless.", []),
]


@pytest.mark.parametrize("text, expected", SPAN_LINKS)
def test_link_spans_table(text, expected):
    found = [(text[s[0]:s[1]], text[d[0]:d[1]], pattern) for s, d, pattern in link_spans(text)]
    assert found == expected


def test_read_example_paper_cli(capsys):
    assert main(["read", str(EXAMPLE), "--eq", "2", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["schema"] == "papermath.read/1"
    (eq,) = data["equations"]
    assert (eq["id"], eq["number"], eq["section"], eq["kind"]) == ("eq:2", "2", "3", "computation")
    symbols = {s["latex"]: s for s in eq["symbols"]}
    assert symbols["s_{i,t}"]["definition"]["quote"] == "where $s_{i,t}$ is the token-to-expert affinity"
    assert symbols[r"\mathbf{e}_{i}"]["definition"]["quote"] == r"$\mathbf{e}_i$ is the centroid vector of the $i$-th expert"
    assert symbols[r"\mathbf{u}_{t}"]["shape"] == ["d"]
    assert symbols[r"\mathbf{u}_{t}"]["definition"]["line"] == 36
    assert eq["undefined"] == []


def test_read_unknown_equation_is_a_clean_error(capsys):
    assert main(["read", str(EXAMPLE), "--eq", "99"]) == 2
    assert "no equation '99'" in capsys.readouterr().err


def test_read_markdown_layout(capsys):
    assert main(["read", str(EXAMPLE), "--eq", "1", "--format", "md"]) == 0
    out = capsys.readouterr().out
    assert "| symbol | shape or type | meaning | role | quote |" in out
    assert "### Undefined — not defined in the paper; do not guess" in out


# --- real papers -------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def deepseek():
    doc = load_document(str(corpus_paper("deepseek-v3-2412.19437")))
    reading = read_document(doc)
    return {e.number: e for e in reading.equations if e.number}


def test_deepseek_15(deepseek):
    eq = deepseek["15"]
    assert sym(eq, "s_{i,t}").definition.quote == "$s_{i,t}$ is the token-to-expert affinity"
    e = sym(eq, r"\mathbf{e}_{i}")
    assert e.definition.quote == r"$\mathbf{e}_{i}$ is the centroid vector of the $i$-th routed expert"
    assert (e.definition.section, e.definition.file, e.definition.line) == ("2.1.2", "main.tex", 354)
    u = sym(eq, r"\mathbf{u}_{t}")
    assert u.definition.quote.startswith(r"Let $\mathbf{u}_{t}$ denote the FFN input of the $t$-th token")
    assert u.role == "input data"
    assert eq.kind == "computation"
    assert eq.undefined == ()


def test_deepseek_16_17_1_13(deepseek):
    b = sym(deepseek["16"], "b_{i}")
    assert "we introduce a bias term $b_i$ for each expert" in b.definition.quote
    alpha = sym(deepseek["17"], r"\alpha")
    assert alpha.role == "fixed setting" and alpha.role_cue in ("balance factor", "hyper-parameter")
    assert "the balance factor $\\alpha$ is a hyper-parameter" in alpha.definition.quote
    assert deepseek["17"].kind == "objective"
    w = sym(deepseek["1"], "W^{DKV}")
    assert w.shape == ("d_{c}", "d") and w.role == "trained weight"
    assert sym(deepseek["1"], r"\mathbf{c}^{KV}_{t}").shape == ("d_{c}",)
    (red,) = deepseek["13"].reductions
    assert (red.op, red.over, red.lower, red.upper) == ("sum", ("j",), "1", "N_{r}")


def test_attention_equation_1():
    doc = load_document(str(corpus_paper("attention-1706.03762")))
    eq = read_document(doc, ["1"]).equations[0]
    assert eq.kind == "computation"
    for latex in ("Q", "K", "V", "d_{k}"):
        s = sym(eq, latex)
        assert s.definition is not None and s.definition.section == "3.2.1", latex
    assert sym(eq, "Q").definition.quote.endswith("packed together into a matrix $Q$.")
    assert sym(eq, "d_{k}").shape == ()


@pytest.mark.parametrize("paper, number, expect", [
    # (paper, equation, {symbol: (role, shape) or "undefined"}) — checked by hand against the papers.
    ("DyT", "2", {r"\alpha": ("trained weight", ()), r"\mathbf{\gamma}": ("trained weight", ("C",)),
                  r"\mathbf{x}": ("input data", ("B", "T", "C"))}),
    ("DyT", "1", {r"\epsilon": ("fixed setting", None), r"\mathbf{\sigma}": ("computed", None)}),  # a statistic
    ("Diff-Transformer", "2", {r"\lambda_{\text{init}}": ("fixed setting", ()),
                               r"\mathbf{\lambda}_{q_{1}}": ("trained weight", ("d",))}),
    ("Diff-Transformer", "1", {"X": ("input data", ("N", r"d_{\text{model}}")),
                               "W^{Q}": ("trained weight", (r"d_{\text{model}}", "2 d"))}),
    ("minp", "2", {r"\mathcal{V}": ("fixed setting", None)}),  # "let $\mathcal{V}$ denote the vocabulary"
    ("minp", "eq:u1", {r"\beta": "undefined", r"\sigma": ("computed", None), "S": ("defined here", None)}),
    ("attention-1706.03762", "2", {"W_{1}": "undefined", "b_{1}": "undefined"}),
])
def test_more_corpus_papers(paper, number, expect):
    doc = load_document(str(corpus_paper(paper)))
    eq = read_document(doc, [number]).equations[0]
    for latex, want in expect.items():
        if want == "undefined":
            assert canonical(latex) in {canonical(u) for u in eq.undefined}, (latex, eq.undefined)
        else:
            s = sym(eq, latex)
            assert (s.role, s.shape) == want, (latex, s.role, s.shape, s.definition)


def test_read_every_corpus_paper(corpus):
    # Every display equation of every paper gets a reading (a formula that does not parse is a diagnostic).
    total = 0
    for paper in sorted(p for p in corpus.iterdir() if p.is_dir()):
        reading = read_document(load_document(str(paper)))
        total += len(reading.equations)
        for eq in reading.equations:
            assert eq.kind in ("computation", "definition", "objective", "update rule", "constraint", "bound",
                               "estimator", "empirical fit"), (paper.name, eq.id)
    assert total >= 600


def test_link_spans_min_strength_trades_bare_nouns_for_precision():
    text = r"We sample with probability $p$ and use the query matrix $Q$."
    every = [(text[s[0]:s[1]], pattern) for s, _, pattern in link_spans(text)]
    assert every == [("p", "noun"), ("Q", "appositive")]
    assert [(text[s[0]:s[1]], pattern) for s, _, pattern in link_spans(text, min_strength=2)] == [("Q", "appositive")]
    assert link_spans(text, min_strength=3) == []


NOTATION_PAPER = r"""
\section{Method}
We map the input to the output.
\begin{equation} y = W x + b \end{equation}
\appendix
\section{Notation}
\begin{table}[h]
\caption{Notation used in the paper.}
\begin{tabular}{lll}
\toprule
Symbol & & Meaning \\
\midrule
$x$ & $\in \mathbb{R}^{n}$ & Input features. \\
$W$ & & Learnable weight matrix. \\
$n$ & & Number of input features. \\
\bottomrule
\end{tabular}
\end{table}
"""


def test_notation_table_rows_define_symbols():
    doc = document_from_string(DOC % NOTATION_PAPER)
    eq = read_document(doc, ["1"]).equations[0]
    x, w = sym(eq, "x"), sym(eq, "W")
    assert (x.definition.quote, x.definition.section, x.definition.line) == \
        (r"$x$ & $\in \mathbb{R}^{n}$ & Input features.", "A", 15)
    assert x.shape == ("n",)
    assert (w.definition.quote, w.role, w.definition.line) == ("$W$ & & Learnable weight matrix.", "trained weight", 16)
    assert eq.undefined == ("b",)  # the table says nothing of b, so b stays undefined
    n_eq = read_document(document_from_string(DOC % NOTATION_PAPER.replace("y = W x + b", "m = n + 1")),
                         ["1"]).equations[0]
    assert sym(n_eq, "n").shape == ()  # "Number of input features." is a number


def test_a_notation_table_quote_is_found_by_check():
    from papermath.check.text import paper_text_from_document
    text = paper_text_from_document(document_from_string(DOC % NOTATION_PAPER))
    match = text.find("$W$ & & Learnable weight matrix.")
    assert (match.found, match.section) == (True, "A")


def test_notation_table_of_a_real_paper():
    doc = load_document(str(corpus_paper("GMFlow")))
    reading = read_document(doc)
    found = {s.latex: s for eq in reading.equations for s in eq.symbols
             if s.definition is not None and " & " in s.definition.quote}
    d = next(s for eq in reading.equations for s in eq.symbols if s.latex == "D")
    # The notation table (appendix E) is a candidate; the method text's "Let x ∈ ℝ^D" comes first.
    assert "$D$ & & Data dimension." in [r.quote for r in d.redefinitions]
    assert d.definition.quote.startswith(r"\textbf{Forward diffusion process.} Let ${\bm{x}} \in \mathbb{R}^D$")
    assert (d.role, d.shape) == ("fixed setting", ())
    x0 = next(s for eq in reading.equations for s in eq.symbols if s.latex == r"\mathbf{x}_{0}")
    assert x0.shape == ("D",)  # from the row's "$\in \mathbb{R}^D$" cell
    assert found["k"].role == "index"


def test_an_index_takes_its_most_explicit_definition():
    eq = reading_of(r"""We add positional encodings, where $pos$ is the position and $i$ is the dimension.
\begin{equation} PE_{pos, i} = \sin(pos / 10000^{i / d}) \end{equation}
Later, the predictions for position $i$ can depend only on the known outputs.""")
    assert sym(eq, "i").definition.quote == "where $pos$ is the position and $i$ is the dimension."


def test_a_notation_row_with_an_ampersand_and_a_matrix_cell():
    doc = document_from_string(DOC % r"""
\begin{equation} y = M n \end{equation}
\begin{table}[h]\caption{Notation.}
\begin{tabular}{lll}
$n$ & & Number of samples \& batches. \\
$M$ & $\begin{smallmatrix} a & b \end{smallmatrix}$ & A mask matrix. \\
\end{tabular}
\end{table}""")
    eq = read_document(doc, ["1"]).equations[0]
    assert sym(eq, "n").definition.quote == r"$n$ & & Number of samples \& batches."
    assert sym(eq, "n").shape == ()
    assert sym(eq, "M").definition.quote.endswith("& A mask matrix.")
    assert sym(eq, "M").definition.quote.count(" & ") == 2  # the matrix's own & stays inside its cell


@pytest.mark.parametrize("latex, present, absent", [
    # an expectation over x_t binds the sample, not its time: ε_θ(x_t, t) still uses t
    (r"L = \mathbb{E}_{q(x_t|x)}\|\epsilon - \epsilon_\theta(x_t, t)\|^2", {"t", "x"}, set()),
    (r"\sum_{i} w_i x_i", {"w", "x"}, {"i"}),                # a sum's index is bound
    # a label that writes other quantities: they are symbols of the formula too
    (r"L_{X \setminus A}(\theta) = \mathbb{E}_{p_{X \setminus A}(x)} f(x)", {"X", "A", r"\theta"}, set()),
    (r"\mathcal{N}(0, \mathbf{I}_{M_{\text{num}}})", {r"M_{\text{num}}"}, set()),
    (r"y = W_{QK} x + \mathcal{L}_{\text{simple}}", {"W_{QK}", "x"}, {"QK", "simple"}),  # names of their own
])
def test_symbols_a_formula_writes(latex, present, absent):
    from papermath.analysis.symbols import collect
    from papermath.math import parse
    keys = {u.key for u in collect(parse(latex).tree).uses}
    assert present <= keys, keys
    assert not (absent & keys), keys


@pytest.mark.parametrize("display, row, also", [
    (r"y = \sum_j w_{ij} x_j + x_i", "x_{j}", ("x_{i}",)),
    # the step before of what a recurrence defines is a row of its own (tests/test_roles_s15.py), not a form of it
    (r"x_{t+1} = x_t - \eta g_t", "x_{t + 1}", ()),
    (r"y = W x", "W", ()),
])
def test_a_row_lists_the_other_forms_its_equation_writes(display, row, also):
    """One row per symbol: the other indices the equation writes it with are listed on the row, so a reader (and
    the scorer) finds x_i in the row of x_j."""
    eq = reading_of(r"We compute \begin{equation} %s \end{equation} where $x$ is the input." % display)
    found = sym(eq, row)
    assert tuple(canonical(f) for f in found.also_written) == tuple(canonical(f) for f in also)


@pytest.mark.parametrize("body, index, cue, quote", [
    # the sum's index is a row: an index, with the range the sum writes; never undefined
    (r"\begin{equation} y = \sum_{h=1}^{H} W_h x_h \end{equation}", "h",
     "the index the sum runs over: h = 1 … H", None),
    (r"\begin{equation} y = \prod_{k \in S} a_k \end{equation}", "k", "the index the product runs over: k \\in S",
     None),
    # the paper's own sentence about it, next to the display, is quoted
    (r"Here $k$ is the $k$-th column of the input. \begin{equation} y = \sum_{k=1}^{n} x_k \end{equation}", "k",
     "the index the sum runs over: k = 1 … n", "-th column of the input"),
    # a sentence far from the display about another t (`stepsize $t_i$`) is not its quote
    (r"\section{A} Few works discussed the stepsize $t_i$. \section{B} Text. \section{C} More text."
     r"\begin{equation} x_0 = x_T + \int_T^0 f(x_t) dt \end{equation}", "t",
     "the index the integral runs over: t = T … 0", None),
])
def test_an_index_a_reduction_binds_is_a_row(body, index, cue, quote):
    eq = reading_of(body)
    row = next(s for s in eq.symbols if s.latex == index)
    assert (row.kind, row.role, row.role_cue) == ("index", "index", cue)
    assert row.bound_by == {"sum": "sum", "product": "prod", "integral": "int"}[cue.split()[3]]
    assert (row.definition.quote if row.definition else None) is None or quote in row.definition.quote
    assert (row.definition is not None) == (quote is not None)
    assert index not in eq.undefined
