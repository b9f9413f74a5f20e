"""The document model: numbering as LaTeX prints it, sections, macros, context, and bad inputs."""
from __future__ import annotations

import pytest

from papermath.latex import document_from_string, load_document
from papermath.latex.macros import Expander
from papermath.latex.tokens import detokenize, tokenize

from conftest import EXAMPLE

DOC = r"""\documentclass{article}
\begin{document}
%s
\end{document}
"""


def numbers(body: str) -> list[tuple[str | None, str]]:
    doc = document_from_string(DOC % body)
    return [(e.number, e.latex) for e in doc.equations]


@pytest.mark.parametrize("body, expected", [
    (r"\begin{equation} a = b \end{equation}", [("1", "a = b")]),
    (r"\begin{equation*} a = b \end{equation*}", [(None, "a = b")]),
    (r"\[ a \] $$ b $$", [(None, "a"), (None, "b")]),
    (r"\begin{align} a &= 1 \\ b &= 2 \end{align}", [("1", "a &= 1"), ("2", "b &= 2")]),
    (r"\begin{align} a &= 1 \nonumber \\ b &= 2 \end{align}", [(None, "a &= 1"), ("1", "b &= 2")]),
    (r"\begin{align} a &= 1 \notag \\ &= 2 \end{align}", [("1", "a &= 1 &= 2")]),
    (r"\begin{align} a &= 1 \\ b &= 2 \tag{$\star$} \\ c &= 3 \end{align}",
     [("1", "a &= 1"), (r"\star", "b &= 2"), ("2", "c &= 3")]),
    (r"\begin{gather} a \\ b \end{gather}", [("1", "a"), ("2", "b")]),
    (r"\begin{multline} a + b \\ + c \end{multline}", [("1", r"a + b \\ + c")]),
    (r"\begin{equation}\begin{split} a &= b \\ &= c \end{split}\end{equation}",
     [("1", r"\begin{split} a &= b \\ &= c \end{split}")]),
    (r"\begin{eqnarray} a &=& b \\ c &=& d \nonumber \end{eqnarray}", [("1", "a &=& b"), (None, "c &=& d")]),
    (r"\begin{subequations}\begin{align} a \\ b \end{align}\end{subequations} \begin{equation} c \end{equation}",
     [("1a", "a"), ("1b", "b"), ("2", "c")]),
    (r"\begin{align} a &= [x; y] \\ [b] &= c \end{align}", [("1", "a &= [x; y]"), ("2", "[b] &= c")]),
    (r"\begin{align} a \\[2pt] b \end{align}", [("1", "a"), ("2", "b")]),
    (r"\begin{equation} a \nonumber \end{equation} \begin{equation} b \end{equation}", [(None, "a"), ("1", "b")]),
    (r"\begin{alignat}{2} a &= b & c &= d \end{alignat}", [("1", "a &= b & c &= d")]),
    (r"\begin{equation} x \label{eq:x} \end{equation}", [("1", "x")]),
])
def test_equation_numbers(body, expected):
    assert numbers(body) == expected


def test_numberwithin_and_appendix():
    doc = document_from_string(DOC % r"""\numberwithin{equation}{section}
\section{One} \begin{equation} a \end{equation} \begin{equation} b \end{equation}
\section{Two} \begin{equation} c \end{equation}
\appendix \section{Extra} \begin{equation} d \end{equation}""")
    assert [e.number for e in doc.equations] == ["1.1", "1.2", "2.1", "A.1"]
    assert [s.number for s in doc.sections] == ["1", "2", "A"]


@pytest.mark.parametrize("body, expected", [
    (r"\section{A}\subsection{B}\subsubsection{C}\paragraph{D}", [("1", "A"), ("1.1", "B"), ("1.1.1", "C"), (None, "D")]),
    (r"\section*{Intro}\section{A}\subsection*{S}\subsection{T}", [(None, "Intro"), ("1", "A"), (None, "S"), ("1.1", "T")]),
    (r"\section{A}\appendix\section{B}\subsection{C}", [("1", "A"), ("A", "B"), ("A.1", "C")]),
    (r"\setcounter{secnumdepth}{1}\section{A}\subsection{B}", [("1", "A"), (None, "B")]),
    (r"\section[short]{Long \emph{title}}", [("1", "Long title")]),
])
def test_section_numbers(body, expected):
    doc = document_from_string(DOC % body)
    assert [(s.number, s.title) for s in doc.sections] == expected


@pytest.mark.parametrize("source, expected", [
    (r"\newcommand{\R}{\mathbb{R}} $x \in \R^d$", r"$x \in \mathbb{R}^d$"),
    (r"\newcommand\vx{\mathbf{x}} \vx", r"\mathbf{x}"),
    (r"\newcommand{\norm}[1]{\left\|#1\right\|} \norm{x}", r"\left\|x\right\|"),
    (r"\newcommand{\opt}[2][d]{f(#1,#2)} \opt{a} \opt[b]{c}", "f(d,a) f(b,c)"),
    (r"\renewcommand*{\x}{y} \x", "y"),
    (r"\providecommand{\p}{1}\providecommand{\p}{2} \p", "1"),
    (r"\def\pair#1#2{(#1,#2)} \pair ab", "(a,b)"),
    (r"\def\br[#1]{<#1>} \br[z]", "<z>"),
    (r"\let\bx\mathbf \bx{v}", r"\mathbf{v}"),
    (r"\DeclareMathOperator*{\argmax}{arg\,max} \argmax_x", r"\operatorname*{arg\,max}_x"),
    (r"\newcommand{\dsviii}{DeepSeek-V3} \dsviii{} uses", "DeepSeek-V3{} uses"),
    (r"\let\oldleft\left \renewcommand{\left}{\mathopen{}\oldleft} \left(", r"\left("),
])
def test_macro_expansion(source, expected):
    expander = Expander()
    out = detokenize(expander.expand(tokenize(source)), source).strip()
    assert out == expected
    assert not expander.diagnostics


def test_declared_operators_are_recorded():
    doc = document_from_string(DOC % r"\DeclareMathOperator{\Topk}{Topk} $\Topk(x)$")
    assert doc.operators == {"Topk": "Topk"}
    assert doc.inline_math[0].latex == r"\operatorname{Topk}(x)"


def test_sentences_do_not_split_inside_math_or_after_abbreviations():
    doc = document_from_string(DOC % r"We use softmax, e.g. in Fig. 2 of Vaswani et al. 2017. Let $x = 1. y$ denote it. Done.")
    assert [s.text for s in doc.paragraphs[0].sentences] == [
        "We use softmax, e.g. in Fig. 2 of Vaswani et al. 2017.", "Let $x = 1. y$ denote it.", "Done."]


def test_a_formula_that_closes_with_a_full_stop_ends_its_sentence():
    doc = document_from_string(DOC % r"Set $T = \frac{a}{b}.$ Then $x$ converges, as $y = 1.5$ does. Done.")
    assert [s.text for s in doc.paragraphs[0].sentences] == [
        r"Set $T = \frac{a}{b}.$", "Then $x$ converges, as $y = 1.5$ does.", "Done."]


def test_footnotes_floats_algorithms_and_references():
    doc = document_from_string(DOC % r"""
\section{S}\label{sec:s}
Text.\footnote{First.} More.\footnote{Second with \url{https://github.com/a/b}.}
\begin{figure}\caption{A figure.}\label{fig:a}\end{figure}
\begin{table}\caption{A table.}\label{tab:a}\begin{tabular}{cc} x & y \\ 1 & 2 \end{tabular}\end{table}
\begin{algorithm}\caption{Train}\label{alg:t}\begin{algorithmic}[1]
\Require data \State $x \gets 0$ \For{$t=1..T$} \State step \EndFor \Return $x$
\end{algorithmic}\end{algorithm}
See \ref{sec:s}, \ref{fig:a}, \ref{tab:a}, \ref{alg:t} and \eqref{eq:missing}.""")
    assert [(f.number, f.text) for f in doc.footnotes] == [("1", "First."), ("2", "Second with \\url{https://github.com/a/b}.")]
    assert [(f.kind, f.number, f.caption, f.label) for f in doc.floats] == [
        ("figure", "1", "A figure.", "fig:a"), ("table", "1", "A table.", "tab:a")]
    assert doc.floats[1].cells == (("x", "y"), ("1", "2"))
    alg = doc.algorithms[0]
    assert (alg.number, alg.caption, alg.label) == ("1", "Train", "alg:t")
    assert [(ln.number, ln.keyword) for ln in alg.lines] == [
        (None, "Require"), (1, "State"), (2, "For"), (3, "State"), (4, "EndFor"), (5, "Return")]
    resolved = {r.label: r.number for r in doc.references}
    assert resolved == {"sec:s": "1", "fig:a": "1", "tab:a": "1", "alg:t": "1", "eq:missing": None}
    assert [r.label for r in doc.unresolved_references] == ["eq:missing"]
    assert doc.code_links == ("https://github.com/a/b",)


@pytest.mark.parametrize("body, message, line", [
    (r"\section{Intro", "unbalanced braces: '{' is never closed", 3),
    ("text }", "unbalanced braces: '}' closes nothing", 3),
    (r"\begin{align} a \\ b", r"\begin{align} has no matching \end{align}", 3),
    (r"\def\a{\a\a} \a", r"macro \a is defined in terms of itself", 3),
    ("$x + y", "$ without a closing $", 3),
])
def test_bad_inputs_become_diagnostics_with_positions(body, message, line):
    doc = document_from_string(DOC % body, "bad.tex")
    found = [d for d in doc.diagnostics if message in d.message]
    assert found, [str(d) for d in doc.diagnostics]
    assert found[0].position.file == "bad.tex" and found[0].position.line == line
    assert str(found[0]).startswith(f"bad.tex:{line}:")


def test_indirect_runaway_expansion_stops_with_a_diagnostic():
    doc = document_from_string(DOC % r"\def\a{\b x}\def\b{\a y} \a")
    assert any("expands without end" in d.message for d in doc.diagnostics)


def test_example_paper_model():
    doc = load_document(str(EXAMPLE))
    assert doc.paper.title == "A Small Note on Attention and Routing"
    assert doc.paper.main_file == "main.tex"
    assert [(s.number, s.title) for s in doc.sections] == [
        ("1", "Introduction"), ("2", "Attention"), ("2.1", "Scaled Dot-Product Attention"), ("3", "Routing"),
        ("A", "A Worked Number")]
    eqs = [(e.id, e.number, e.section) for e in doc.equations]
    assert eqs == [("eq:1", "1", "2.1"), ("eq:u1", None, "2.1"), ("eq:2", "2", "3"), ("eq:3", "3", "3"),
                   ("eq:4", "4", "3"), ("eq:u2", None, "A"), ("eq:5a", "5a", "A"), ("eq:5b", "5b", "A")]
    attention = doc.equation("1")
    # Macros expanded, including an optional argument's default; the row lives in the \input file.
    assert attention.latex == (r"\mathrm{Attention}(Q, K, V) = \operatorname{softmax}\left(\frac{Q K^{\top}}"
                               r"{\sqrt{d_k}}\right) V")
    assert (attention.span.file, attention.span.line) == ("sections/attention.tex", 9)
    assert doc.equation("eq:affinity").number == "2"
    balance = doc.equation("4")
    assert balance.latex.startswith(r"\mathcal{L}_{\mathrm{bal}} &= \alpha") and r"\lVert \mathbf{b} \rVert" in balance.latex
    assert "commented out" not in " ".join(e.latex for e in doc.equations)
    where = doc.paragraph(doc.equation("4").paragraph_after)
    assert where.text.startswith(r"where $s_{i,t}$ is the token-to-expert affinity")
    assert [f.number for f in doc.footnotes] == ["1", "2"]
    assert doc.contributions == ("a symbol-by-symbol statement of attention;",
                                 "a routing rule with a bias used only for selection.")
    assert doc.operators == {"Topk": "Topk"}
    assert doc.code_links == ("https://github.com/papermath/attention-note",)
    assert not doc.unresolved_references
    assert not [d for d in doc.diagnostics if d.severity == "error"]


def test_theorem_environments_are_numbered_and_resolve_labels():
    doc = document_from_string(r"""\documentclass{article}
\newtheorem{theorem}{Theorem}[section]
\newtheorem{lemma}[theorem]{Lemma}
\newtheorem*{remark}{Remark}
\begin{document}
\section{A}
\begin{theorem}\label{thm:a} x \end{theorem}
\begin{lemma}\label{lem:b} y \end{lemma}
\begin{remark}\label{rem:c} z \end{remark}
\section{B}
\begin{lemma}\label{lem:d} w \end{lemma}
See \ref{thm:a}, \ref{lem:b}, \ref{lem:d}.
\end{document}""")
    assert {r.label: r.number for r in doc.references} == {"thm:a": "1.1", "lem:b": "1.2", "lem:d": "2.1"}
    assert doc.labels["lem:d"] == "lemma:2.1"


def test_numberthis_and_tag_ref():
    doc = document_from_string(DOC % r"""\newcommand\numberthis{\addtocounter{equation}{1}\tag{\theequation}}
\begin{equation} a \label{eq:a} \end{equation}
\begin{align*} b &= c \numberthis \label{eq:b} \\ d &= e \end{align*}
\begin{equation} f \end{equation}
\begin{equation} a' \tag{\ref{eq:a}} \end{equation}""")
    assert [(e.number, e.latex) for e in doc.equations] == [
        ("1", "a"), ("2", "b &= c"), (None, "d &= e"), ("3", "f"), ("1", "a'")]
    assert doc.labels["eq:b"] == "eq:2"


def test_footnote_paragraph_follows_the_paragraph_that_carries_its_mark():
    doc = document_from_string(DOC % r"""First text.\footnote{Where $q$ is a query.} More text.

Next paragraph.""")
    (fn,) = doc.footnotes
    carrier = doc.paragraph(fn.paragraph)
    assert carrier.text == r"First text. More text." and carrier.kind == "text"
    assert [(p.kind, p.text) for p in doc.paragraphs] == [
        ("text", "First text. More text."), ("footnote", "Where $q$ is a query."), ("text", "Next paragraph.")]


def test_references_in_headings_and_captions_resolve_after_the_whole_document():
    doc = document_from_string(DOC % r"""\newtheorem{theorem}{Theorem}
\section{Results} \begin{theorem}\label{thm:main} x \end{theorem}
\begin{figure}\caption{As in Section~\ref{sec:proof}.}\end{figure}
\appendix \section{Proof of Theorem~\ref{thm:main}} \label{sec:proof}
\section{Missing \ref{nowhere}}""")
    assert [s.title for s in doc.sections] == ["Results", "Proof of Theorem 1", "Missing ??"]
    assert doc.floats[0].caption == "As in Section A."


def test_subfigure_labels_resolve_to_parent_number_and_letter():
    doc = document_from_string(DOC % r"""\begin{figure}\caption{First.}\end{figure}
\begin{figure}
\begin{subfigure}{0.5\linewidth}\caption{Left.}\label{fig:left}\end{subfigure}
\begin{subfigure}{0.5\linewidth}\caption{Right.}\label{fig:right}\end{subfigure}
\caption{Both.}\label{fig:both}
\end{figure}
See \ref{fig:left}, \ref{fig:right} and \ref{fig:both}.""")
    assert [(r.label, r.target, r.number) for r in doc.references] == [
        ("fig:left", "fig:2", "2a"), ("fig:right", "fig:2", "2b"), ("fig:both", "fig:2", "2")]
    assert [(f.number, f.caption) for f in doc.floats] == [("1", "First."), ("2", "Both.")]


OPEN_ROWS = r"""\documentclass{article}
\usepackage{amsmath}
\begin{document}
\begin{align}
\ell(\theta) &= \mathbb{E}_{p(x)} \mathbb{E}_{q(m \mid x)} \label{eq:open} \\
&\Bigg[ \frac{n}{n-k} \| \epsilon - \epsilon_\theta(m) \|^2 \nonumber \\
& - \frac{k}{n-k} \| \epsilon - \epsilon_\theta(m) \|^2 \Bigg] \nonumber \\
a &= \sum_{i=1}^n \\
b_i &= 1
\end{align}
\end{document}"""


def test_a_row_that_leaves_its_statement_open_continues_it_and_numbering_is_tex_s():
    """A row ending in an operator without its operand (E_{…}) or an open bracket (\\Bigg[) is continued by the
    rows below it (SISS (5)); two rows that each print a number stay two equations, as TeX numbers them."""
    from papermath.latex.texoracle import compile_numbers, engine_available
    doc = document_from_string(OPEN_ROWS)
    assert [e.number for e in doc.equations] == ["1", "2", "3"]
    first = doc.equation("eq:open")
    assert first.number == "1" and "\\Bigg[" in first.latex and "\\Bigg]" in first.latex
    assert first.latex.index("\\mathbb{E}_{q(m \\mid x)}") < first.latex.index("- \\frac{k}{n-k}")
    assert doc.equation("3").latex.startswith("b_i")
    if engine_available():
        import tempfile
        from pathlib import Path
        with tempfile.TemporaryDirectory() as tmp:
            (Path(tmp) / "main.tex").write_text(OPEN_ROWS, encoding="utf-8")
            result = compile_numbers(Path(tmp), "main.tex", timeout=120, use_cache=False)
        assert [n.text for n in result.numbers] == ["1", "2", "3"] and result.labels["eq:open"] == "1"


@pytest.mark.corpus
def test_siss_5_is_one_equation_with_its_bracketed_body():
    from conftest import corpus_paper
    doc = load_document(str(corpus_paper("SISS")))
    eq = doc.equation("5")
    assert eq.label == "eq:siss_def" and eq.id == "eq:5"
    assert eq.latex.count("\\Bigg[") == 1 and eq.latex.count("\\Bigg]") == 1 and "\\frac{k}{n-k}" in eq.latex


@pytest.mark.parametrize("latex, is_open", [
    (r"\ell_\lambda(\theta) &= \mathbb{E}_{p_X(x)} \mathbb{E}_{q(m_t \mid x)} \label{eq:x}", True),
    (r"a &= \sum_{i=1}^n", True), (r"a = \max_\theta", True), (r"L = \operatorname*{arg\,max}_{\theta}", True),
    (r"f(x) = \mathbb{E}", True), (r"a = b +", True), (r"a = \Bigg[ b", True), (r"a = \left( b \right.", True),
    (r"g_{i,t} &= \frac{s_{i,t}}{\sum_{j=1}^{N} s_{j,t}},", False), (r"x_{t}", False), (r"y = x^{2}", False),
    (r"\left. a \right|_{x=0}", False), (r"a = b, \quad", False), (r"x_{\max}", False),
    (r"\mathbb{E}_{x}[f(x)]", False),
])
def test_which_statements_leave_their_row_open(latex, is_open):
    from papermath.latex.build import _Statement
    statement = _Statement()
    statement.add({"latex": latex, "numbered": False})
    assert statement.is_open() is is_open


def test_a_statement_is_read_one_row_at_a_time():
    """Campaign 9 (seed 309002082): a mutated paper's align of thousands of rows hung the loader, each row
    re-reading the statement above it. Rows join by what the rows so far leave open."""
    from papermath.latex.build import _Statement
    statement = _Statement()
    for k in range(20000):
        statement.add({"latex": f"a_{{{k}}} + \\left(", "numbered": k == 3})
    assert statement.is_open() and statement.depth == 20000 and statement.numbered
    closing = _Statement()
    for row in ("a = \\sum_{i}", "\\Bigg[ x_i", "\\Bigg] ,"):
        closing.add({"latex": row, "numbered": False})
    assert not closing.is_open() and len(closing.rows) == 3


def test_a_long_display_of_rows_loads_in_linear_time(tmp_path):
    rows = " \\\\\n".join(f"& + x_{{{k}}}" for k in range(6000))
    (tmp_path / "main.tex").write_text("\\documentclass{article}\\begin{document}\\begin{align*}y "
                                       + rows + "\\end{align*}\\end{document}\n")
    import time
    start = time.process_time()
    doc = load_document(str(tmp_path))
    assert len(doc.equations) == 1 and doc.equations[0].latex.count("x_{") == 6000
    assert time.process_time() - start < 10


def test_a_restatable_that_restates_itself_is_printed_once(tmp_path):
    """Campaign 11 (seed 311002670): a restatable whose \\end{restatable} was lost held the rest of the paper and
    its own \\largess*, and every restatement restated itself again: 4,033 displays and 18 s from 107."""
    (tmp_path / "main.tex").write_text(
        "\\documentclass{article}\\usepackage{thmtools,thm-restate}\\newtheorem{theorem}{Theorem}"
        "\\begin{document}\\begin{restatable}{theorem}{largess}Big steps:\\begin{equation}a = b\\end{equation}"
        "\n\nLater, again: \\largess*\n\\begin{equation}c = d\\end{equation}\\end{document}\n", encoding="utf-8")
    doc = load_document(str(tmp_path))
    assert [eq.latex for eq in doc.equations] == ["a = b", "c = d"]
    warning, = [d for d in doc.diagnostics if "restates the theorem it stands in" in d.message]
    assert warning.position.line == 3 and warning.position.column == 15


SIGNED_ROWS = r"""\documentclass{article}
\usepackage{amsmath}
\begin{document}
\begin{align*}
-a B(y, x) - c B(x, y) &\le -d \|u\|^2 \\
- e B(x', x) - f B(z, y) &\le -g \|v\|^2 \\
&\qquad - h B(x, y)
\end{align*}
After.
\begin{align*}
p &= q
\end{align*}
\end{document}"""


def test_a_signed_row_with_its_own_relation_is_its_own_statement_in_the_same_equation():
    """`- e B(…) &\\le …` opens with a sign but sets a relation of its own at its alignment point: a second
    statement (schedule_free's corollary), kept in the display's unit so that the unnumbered ids after it do not
    move; `&\\qquad - h B(x, y)` starts at the alignment point and continues the statement above it."""
    from papermath.math import parse
    from papermath.math import ast
    doc = document_from_string(SIGNED_ROWS)
    assert [e.id for e in doc.equations] == ["eq:u1", "eq:u2"]
    first = doc.equations[0]
    assert first.latex.count("\\\\") == 1 and first.latex.index("\\\\") < first.latex.index("- e B(x', x)")
    tree = parse(first.latex).tree
    assert isinstance(tree, ast.Rows) and len(tree.statements) == 2
    assert [s.ops for s in tree.statements] == [("\\le",), ("\\le",)]
    assert "B [x y]" in ast.sexpr(tree.statements[1].operands[1]).replace("(Apply ", "")
