"""Display numbers as the PDF prints them, one small self-written document per construct.

Each case states the numbers pdflatex prints (checked by hand against the engine). papermath must print the
same; where TeX Live is installed the engine is run too (papermath/data/pmoracle.sty) and must agree with the
stated numbers, so the expectations cannot drift from what TeX does.
"""
from __future__ import annotations

import pytest

from papermath.latex import document_from_string
from papermath.latex.texoracle import compile_numbers, engine_available, normalise_number

PREAMBLE = "\\documentclass%s\n\\usepackage{amsmath}\n"


def _preamble(documentclass: str) -> str:
    """`revtex4-2[prl]` → \\documentclass[prl]{revtex4-2}."""
    name, _, options = documentclass.partition("[")
    return PREAMBLE % ((f"[{options}" if options else "") + "{" + name + "}")

CASES = {
    "theequation-renewed-with-chapter": ("book", r"""
\renewcommand{\theequation}{E.\thechapter.\arabic{equation}}
\begin{document}
\chapter{One}
\begin{equation} a \end{equation}
\begin{equation} b \end{equation}
\chapter{Two}
\begin{equation} c \end{equation}
\end{document}""", ["E.1.1", "E.1.2", "E.2.1"]),
    "hand-numbered-display-steps-the-counter": ("article", r"""
\begin{document}
\begin{equation} a \end{equation}
$$ q = 1 \refstepcounter{equation}~(\theequation)\label{eq:h} $$
\begin{equation} b \end{equation}
See \eqref{eq:h}.
\end{document}""", ["1", "2", "3"]),
    "tag-with-reference-inside": ("article", r"""
\begin{document}
\begin{equation} L = 0 \label{eq:population_loss} \end{equation}
\begin{equation} L' = 0 \tag{\ref{eq:population_loss} revisited} \end{equation}
\begin{equation} b \end{equation}
\end{document}""", ["1", "1 revisited", "2"]),
    "tag-referring-forward": ("article", r"""
\begin{document}
\begin{equation} x \tag{\ref{eq:later}$'$} \end{equation}
\begin{equation} y \label{eq:later} \end{equation}
\end{document}""", ["1'", "1"]),
    "tag-star-and-theequation": ("article", r"""
\begin{document}
\begin{equation} a \end{equation}
\begin{equation} b \tag*{star} \end{equation}
\addtocounter{equation}{-1}
\begin{equation} c \end{equation}
\setcounter{equation}{6}
\begin{equation} d \tag{\theequation$^*$} \end{equation}
\end{document}""", ["1", "star", "1", "6^*"]),
    "numberwithin-section-and-appendix": ("article", r"""
\numberwithin{equation}{section}
\begin{document}
\section{A}
\begin{align} a \\ b \nonumber \\ c \end{align}
\section{B}
\begin{equation} d \end{equation}
\appendix
\section{Proofs}
\begin{equation} e \end{equation}
\end{document}""", ["1.1", "1.2", "2.1", "A.1"]),
    "roman-and-alph-section-formats": ("article", r"""
\renewcommand{\thesection}{\Roman{section}}
\renewcommand{\theequation}{\thesection-\alph{equation}}
\counterwithin*{equation}{section}
\begin{document}
\section{A}
\begin{equation} a \end{equation}
\begin{equation} b \end{equation}
\section{B}
\begin{equation} c \end{equation}
\end{document}""", ["I-a", "I-b", "II-a"]),
    "subequations": ("article", r"""
\begin{document}
\begin{equation} a \end{equation}
\begin{subequations}
\begin{align} b \\ c \end{align}
\end{subequations}
\begin{equation} d \end{equation}
\end{document}""", ["1", "2a", "2b", "3"]),
    "restated-theorem-prints-its-numbers-again": ("article", r"""
\usepackage{amsthm}
\usepackage{thmtools,thm-restate}
\newtheorem{theorem}{Theorem}
\begin{document}
\begin{restatable}{theorem}{thmgen}\label{thm:gen}
For all $x$, \begin{equation} f(x) \le g(x) \label{eq:bound} \end{equation}
\end{restatable}
\begin{equation} h \end{equation}
\appendix
\section{Proof of Theorem~\ref{thm:gen}}
\thmgen*
\begin{equation} k \end{equation}
\end{document}""", ["1", "2", "1", "3"]),
    "restated-theorem-without-star-numbers-anew": ("article", r"""
\usepackage{amsthm}
\usepackage{thmtools,thm-restate}
\newtheorem{theorem}{Theorem}
\begin{document}
\begin{restatable}{theorem}{largess}\label{thm:large}
\begin{equation} f(x) \le g(x) \label{eq:cond} \end{equation}
\end{restatable}
\begin{equation} h \end{equation}
\section{Proof}
\largess
\begin{equation} k \end{equation}
\end{document}""", ["1", "2", "3", "4"]),
    "report-class-chapters": ("report", r"""
\begin{document}
\begin{equation} a \end{equation}
\chapter{One}
\begin{equation} b \end{equation}
\section{S}
\begin{equation} c \end{equation}
\end{document}""", ["1", "1.1", "1.2"]),
    "stepcounter-on-a-user-counter-in-the-format": ("article", r"""
\newcounter{stage}
\renewcommand{\theequation}{S\arabic{stage}.\arabic{equation}}
\begin{document}
\stepcounter{stage}
\begin{equation} a \end{equation}
\stepcounter{stage}
\begin{equation} b \end{equation}
\end{document}""", ["S1.1", "S2.2"]),
    "trailing-row-break-numbers-an-empty-row": ("article", r"""
\begin{document}
\begin{align} a &= b \\ c &= d \\ \end{align}
\begin{align} e \nonumber \\ f \\ \nonumber \end{align}
\begin{align*} g \\ \end{align*}
\end{document}""", ["1", "2", "3", "4"]),
    "appendices-environment-and-displays-in-floats": ("article", r"""
\usepackage{appendix}
\numberwithin{equation}{section}
\begin{document}
\section{A}
\begin{figure}\begin{equation} x \end{equation}\caption{F}\end{figure}
\begin{equation} y \end{equation}
\begin{appendices}
\section{Proofs}
\begin{equation} z \end{equation}
\end{appendices}
\end{document}""", ["1.1", "1.2", "A.1"]),
    "book-front-and-main-matter": ("book", r"""
\begin{document}
\frontmatter
\chapter{Preface}
\begin{equation} a \end{equation}
\mainmatter
\chapter{One}
\begin{equation} b \end{equation}
\end{document}""", ["1", "1.1"]),
    "eqnarray-and-gather": ("article", r"""
\begin{document}
\begin{eqnarray} a &=& b \\ c &=& d \nonumber \\ e &=& f \end{eqnarray}
\begin{gather} g \\ h \notag \end{gather}
\end{document}""", ["1", "2", "3"]),

    "elsarticle-appendix-numbers-within-sections": ("elsarticle", r"""
\begin{document}
\section{A}
\begin{equation} a \end{equation}
\appendix
\section{B}
\begin{equation} b \end{equation}
\begin{equation} c \end{equation}
\section{C}
\begin{equation} d \end{equation}
\end{document}""", ["1", "A.1", "A.2", "B.1"]),
    "revtex-appendix-letters-equations": ("revtex4-2", r"""
\begin{document}
\section{A}
\begin{equation} a \end{equation}
\appendix
\section{B}
\begin{equation} b \end{equation}
\begin{equation} c \end{equation}
\section{C}
\begin{equation} d \end{equation}
\end{document}""", ["1", "A1", "A2", "B1"]),
    "revtex-prl-unnumbered-headings": ("revtex4-2[prl]", r"""
\begin{document}
\section{A}
\begin{equation} a \end{equation}
\appendix
\section{B}
\begin{equation} b \end{equation}
\end{document}""", ["1", "2"]),
    "koma-unnumbered-headings-reset": ("scrartcl", r"""
\counterwithin{equation}{section}
\begin{document}
\addsec{Notation}
\begin{equation} n \end{equation}
\section{A}
\begin{equation} a \end{equation}
\begin{equation} b \end{equation}
\section*{Star}
\begin{equation} c \end{equation}
\addsec{Added}
\begin{equation} d \end{equation}
\begin{equation} e \end{equation}
\end{document}""", ["0.1", "1.1", "1.2", "1.1", "1.1", "1.2"]),
    "mathtools-showonlyrefs": ("article", r"""
\usepackage{mathtools}
\mathtoolsset{showonlyrefs}
\begin{document}
\begin{equation} a \label{eq:a} \end{equation}
\begin{equation} b \label{eq:b} \end{equation}
\begin{align} c &= d \label{eq:c} \\ e &= f \label{eq:e} \end{align}
\begin{equation} g \end{equation}
\begin{equation} h \tag{T} \end{equation}
\begin{equation} i \tag{I} \label{eq:i} \end{equation}
\begin{equation} k \label{eq:k} \end{equation}
Forward and back: \eqref{eq:e}, \eqref{eq:b}, \ref{eq:a}, \eqref{eq:k}, \eqref{eq:i}.
\end{document}""", ["1", "2", "I", "4"]),
}


# Constructs pmoracle.sty cannot watch (plain TeX's \eqno prints its number as display text; empheq, cases and
# IEEEtrantools typeset numbers in measuring boxes and re-place them): the numbers stated are those the
# packages' manuals and the PDF show, checked by hand.
ORACLE_BLIND = {
    "plain-eqno": ("article", r"""
\begin{document}
\begin{equation} a \end{equation}
$$ b \eqno(5) $$
\begin{equation} c \end{equation}
\end{document}""", ["1", "5", "2"]),
    "empheq-numcases-ieeeeqnarray": ("article", r"""
\usepackage{empheq}
\usepackage{cases}
\usepackage{IEEEtrantools}
\begin{document}
\begin{empheq}[left=\empheqlbrace]{align} a &= b \\ c &= d \end{empheq}
\begin{numcases}{f(x)=} 1 & $x>0$ \\ 0 & otherwise \end{numcases}
\begin{IEEEeqnarray}{rCl} e &=& f \\ g &=& h \nonumber \end{IEEEeqnarray}
\end{document}""", ["1", "2", "3", "4", "5"]),
}


def _papermath_numbers(documentclass: str, body: str) -> list[str]:
    doc = document_from_string(_preamble(documentclass) + body)
    return [normalise_number(eq.number) for eq in doc.equations if eq.number]


@pytest.mark.parametrize("name", sorted(CASES) + sorted(ORACLE_BLIND))
def test_papermath_prints_the_numbers_tex_prints(name):
    documentclass, body, expected = CASES.get(name) or ORACLE_BLIND[name]
    assert _papermath_numbers(documentclass, body) == expected


@pytest.mark.parametrize("name", sorted(CASES))
def test_the_engine_prints_the_stated_numbers(name, tmp_path):
    if not engine_available():
        pytest.skip("pdflatex is not installed (TeX Live from Debian: see .ci/run); the stated numbers stand alone")
    documentclass, body, expected = CASES[name]
    (tmp_path / "main.tex").write_text(_preamble(documentclass) + body, encoding="utf-8")
    result = compile_numbers(tmp_path, "main.tex", timeout=120)
    assert result.ok, result.message
    assert [n.text for n in result.numbers] == expected


def test_eq_lookup_accepts_the_printed_form():
    documentclass, body, _ = CASES["theequation-renewed-with-chapter"]
    doc = document_from_string(_preamble(documentclass) + body)
    assert doc.equation("E.2.1").latex == "c"
    assert doc.equation("(E.1.2)").latex == "b"
    documentclass, body, _ = CASES["tag-with-reference-inside"]
    doc = document_from_string(_preamble(documentclass) + body)
    assert doc.equation("1 revisited").latex == "L' = 0"
    assert doc.equation("eq:population_loss").number == "1"


def test_hand_number_is_not_part_of_the_formula():
    documentclass, body, _ = CASES["hand-numbered-display-steps-the-counter"]
    doc = document_from_string(_preamble(documentclass) + body)
    hand = doc.equation("2")
    assert hand.latex == "q = 1"
    assert hand.label == "eq:h"
    assert doc.labels["eq:h"] == hand.id


# -- labels: every \label TeX resolves, with the number a \ref to it prints -----------------------------------
LABEL_CASES = {
    "theorem-likes-and-shared-counters": ("article", r"""
\usepackage{amsthm}
\newtheorem{theorem}{Theorem}[section]
\newtheorem{lemma}[theorem]{Lemma}
\begin{document}
\section{A}
\begin{theorem}\label{thm:a} x \end{theorem}
\begin{lemma}[Key] \label{lem:b} y \begin{equation} z \label{eq:in} \end{equation} \label{lem:after} \end{lemma}
\end{document}""", {"thm:a": "1.1", "lem:b": "1.2", "eq:in": "1", "lem:after": "1.2"}),
    "labels-in-headings-paragraphs-and-unnumbered-displays": ("article", r"""
\begin{document}
\section{Method \label{sec:m}}
\subsection{Part}
\paragraph{Detail.}\label{par:d}
\begin{equation*} a \label{eq:star} \end{equation*}
\section*{Unnumbered}\label{sec:star}
Text $x \label{eq:inline}$.
\end{document}""", {"sec:m": "1", "par:d": "1.1", "eq:star": "1.1", "sec:star": "1.1", "eq:inline": "1.1"}),
    "labels-built-by-a-user-macro": ("article", r"""
\newcommand{\mylabel}[1]{\label{eq:#1}}
\newcommand{\myenvargumentII}{eq:two}
\begin{document}
\begin{equation} a \mylabel{one} \end{equation}
\begin{equation} b \label{\myenvargumentII} \end{equation}
\end{document}""", {"eq:one": "1", "eq:two": "2"}),
    "floats-subfigures-and-captions-outside-floats": ("article", r"""
\usepackage{subcaption}
\usepackage{graphicx}
\begin{document}
\section{S}
\begin{center}\captionsetup{type=figure}\rule{1cm}{1cm}\caption{Teaser}\label{fig:teaser}\end{center}
\begin{figure}
\begin{subfigure}{0.4\linewidth}\rule{1cm}{1cm}\caption{left}\label{fig:left}\end{subfigure}
\begin{subfigure}{0.4\linewidth}\rule{1cm}{1cm}\caption{right}\label{fig:right}\end{subfigure}
\caption{Both}\label{fig:both}
\end{figure}
\begin{table}\caption{T}\label{tab:t}
\begin{minipage}{0.4\linewidth}\subcaption{first}\label{tab:first}\end{minipage}
\end{table}
\end{document}""", {"fig:teaser": "1", "fig:left": "2a", "fig:right": "2b", "fig:both": "2",
                    "tab:t": "1", "tab:first": "1a"}),
    "subfig-subfloats-and-continued-floats": ("article", r"""
\usepackage{graphicx}
\usepackage{subfig}
\begin{document}
\begin{figure}\subfloat[a]{\rule{1cm}{1cm}\label{fig:sa}}\subfloat[b]{\rule{1cm}{1cm}\label{fig:sb}}
\caption{Pair}\label{fig:pair}\end{figure}
\begin{figure}\subfloat[c]{\rule{1cm}{1cm}}\end{figure}
\begin{figure}\ContinuedFloat\subfloat[d]{\rule{1cm}{1cm}\label{fig:sd}}\caption{Continued}\label{fig:cont}
\end{figure}
\begin{figure}\rule{1cm}{1cm}\caption{Next}\label{fig:next}\end{figure}
\end{document}""", {"fig:sa": "1a", "fig:sb": "1b", "fig:pair": "1", "fig:sd": "1b", "fig:cont": "1",
                    "fig:next": "2"}),
    "class-theorems-acmart": ("acmart", r"""
\begin{document}
\section{A}
\subsection{B}
\begin{theorem}\label{thm:a} x \end{theorem}
\begin{lemma}\label{lem:b} y \end{lemma}
\section{C}
\begin{definition}\label{def:c} z \end{definition}
\end{document}""", {"thm:a": "1.1", "lem:b": "1.2", "def:c": "2.1"}),
    "class-theorems-jmlr": ("jmlr", r"""
\begin{document}
\section{A}
\begin{theorem}\label{thm:a} x \end{theorem}
\begin{lemma}\label{lem:b} y \end{lemma}
\section{C}
\begin{corollary}\label{cor:c} z \end{corollary}
\begin{example}\label{ex:d} w \end{example}
\end{document}""", {"thm:a": "1", "lem:b": "2", "cor:c": "3", "ex:d": "1"}),
    "class-theorems-llncs": ("llncs", r"""
\begin{document}
\section{A}
\subsection{B}
\begin{theorem}\label{thm:a} x \end{theorem}
\begin{lemma}\label{lem:b} y \end{lemma}
\begin{theorem}\label{thm:c} z \end{theorem}
\section{C}
\begin{lemma}\label{lem:d} w \end{lemma}
\end{document}""", {"thm:a": "1", "lem:b": "1", "thm:c": "2", "lem:d": "2"}),
    "ieeetran-sections-and-addtoreset": ("IEEEtran", r"""
\makeatletter\@addtoreset{equation}{section}\makeatother
\begin{document}
\section{Intro}\label{sec:i}
\subsection{Part}\label{sec:ia}
\begin{equation} a \label{eq:a} \end{equation}
\section{Two}
\begin{equation} b \label{eq:b} \end{equation}
\end{document}""", {"sec:i": "I", "sec:ia": "I-A", "eq:a": "1", "eq:b": "1"}),
    "declaretheorem": ("article", r"""
\usepackage{amsthm}
\usepackage{thmtools}
\declaretheorem[numberwithin=section]{theorem}
\declaretheorem[sibling=theorem]{lemma}
\declaretheorem[numbered=no]{remark}
\begin{document}
\section{S}
\begin{theorem}\label{thm:t} a \end{theorem}
\begin{lemma}\label{lem:l} b \end{lemma}
\end{document}""", {"thm:t": "1.1", "lem:l": "1.2"}),
    "algorithms-and-listings": ("article", r"""
\usepackage{algorithm}
\usepackage{algpseudocode}
\usepackage{listings}
\begin{document}
\begin{algorithm}\caption{\label{alg:in}First}\begin{algorithmic}[1]\State a \State b \label{line:b}\end{algorithmic}\end{algorithm}
\begin{algorithm}\begin{algorithmic}\State c\end{algorithmic}\caption{Second}\label{alg:after}\end{algorithm}
\begin{lstlisting}[caption={Code}, label=lst:code]
x = 1
\end{lstlisting}
\end{document}""", {"alg:in": "1", "line:b": "2", "alg:after": "2", "lst:code": "1"}),
}


def _papermath_labels(documentclass: str, body: str) -> dict[str, str]:
    doc = document_from_string(_preamble(documentclass) + body)
    return {label: normalise_number(doc.label_numbers.get(label) or "") for label in doc.labels}


@pytest.mark.parametrize("name", sorted(LABEL_CASES))
def test_papermath_resolves_every_label_as_tex_does(name):
    documentclass, body, expected = LABEL_CASES[name]
    ours = _papermath_labels(documentclass, body)
    assert {label: ours.get(label) for label in expected} == expected


@pytest.mark.parametrize("name", sorted(LABEL_CASES))
def test_the_engine_resolves_the_stated_labels(name, tmp_path):
    if not engine_available():
        pytest.skip("pdflatex is not installed (TeX Live from Debian: see .ci/run); the stated numbers stand alone")
    documentclass, body, expected = LABEL_CASES[name]
    (tmp_path / "main.tex").write_text(_preamble(documentclass) + body, encoding="utf-8")
    result = compile_numbers(tmp_path, "main.tex", timeout=120)
    assert result.ok, result.message
    assert {label: result.labels.get(label) for label in expected} == expected


# -- references as the PDF prints them ---------------------------------------------------------------------
REFERENCES_DOC = r"""\documentclass{article}
\usepackage{amsmath}
\usepackage{amsthm}
\usepackage{hyperref}
\usepackage%s{cleveref}
\newtheorem{lemma}{Lemma}
\crefname{lemma}{Lem.}{Lems.}
\begin{document}
\section{Intro}\label{sec:i}
\subsection{Part}\label{sec:p}
\begin{equation} a \label{eq:a} \end{equation}
\begin{equation} b \label{eq:b} \end{equation}
\begin{equation} c \label{eq:c} \end{equation}
\begin{figure}\caption{F}\label{fig:f}\end{figure}
\begin{lemma}\label{lem:x} y \end{lemma}
\appendix
\section{Proofs}\label{app:p}

R1 \cref{eq:a} R2 \Cref{eq:a,eq:b} R3 \cref{eq:a,eq:b,eq:c} R4 \eqref{eq:b} R5 \autoref{sec:i}
R6 \autoref{eq:c} R7 \cref{lem:x} R8 \cref{app:p} R9 \autoref{app:p} R10 \cref{fig:f} R11 \Cref{sec:p}
R12 \ref{sec:p} R13 \autoref{fig:f} R14 \cref{eq:a,fig:f} R15 \ref{eq:missing} R16 \nameref{sec:i} END
\end{document}
"""
REFERENCE_EXPECTED = {
    "": {"R1": "eq. (1)", "R2": "Equations (1) and (2)", "R3": "eqs. (1) to (3)", "R4": "(2)", "R5": "section 1",
         "R6": "Equation 3", "R7": "Lem. 1", "R8": "appendix A", "R9": "Appendix A", "R10": "fig. 1",
         "R11": "Section 1.1", "R12": "1.1", "R13": "Figure 1", "R14": "eq. (1) and fig. 1", "R15": "??",
         "R16": "Intro"},
    "[capitalise]": {"R1": "Eq. (1)", "R3": "Eqs. (1) to (3)", "R8": "Appendix A", "R10": "Fig. 1"},
}


def _papermath_references(options: str) -> dict[str, str]:
    doc = document_from_string(REFERENCES_DOC % options)
    text = next(p.display for p in doc.paragraphs if "R1 " in p.display)
    return _split_marked(text)


def _split_marked(text: str) -> dict[str, str]:
    import re
    parts = re.split(r"\b(R\d+|END)\b", " ".join(text.split()))
    return {parts[k]: parts[k + 1].strip() for k in range(1, len(parts) - 1, 2)}


@pytest.mark.parametrize("options", sorted(REFERENCE_EXPECTED))
def test_references_print_as_in_the_pdf(options):
    ours = _papermath_references(options)
    expected = REFERENCE_EXPECTED[options]
    assert {key: ours.get(key) for key in expected} == expected


@pytest.mark.parametrize("options", sorted(REFERENCE_EXPECTED))
def test_the_engine_prints_the_stated_references(options, tmp_path):
    import shutil
    import subprocess
    if shutil.which("pdflatex") is None:
        pytest.skip("pdflatex is not installed (TeX Live from Debian: see .ci/run); the stated text stands alone")
    pypdf = pytest.importorskip("pypdf")
    (tmp_path / "refs.tex").write_text(REFERENCES_DOC % options, encoding="utf-8")
    for _ in range(2):
        subprocess.run(["pdflatex", "-interaction=nonstopmode", "refs.tex"], cwd=tmp_path, capture_output=True,
                       stdin=subprocess.DEVNULL, timeout=120, check=False)
    pages = pypdf.PdfReader(str(tmp_path / "refs.pdf")).pages
    text = " ".join(page.extract_text() for page in pages).replace("\u00a0", " ")
    printed = _split_marked(text[text.index("R1 "):])
    expected = REFERENCE_EXPECTED[options]
    assert {key: printed.get(key) for key in expected} == expected


USER_ENVIRONMENT_CASES = {
    "newenvironment-around-theorems-and-displays": ("article", r"""
\usepackage{amsthm}
\newtheorem{theorem}{Theorem}
\newenvironment{thm}[1]{\begin{theorem}\label{#1}}{\end{theorem}}
\newenvironment{myalign}{\begin{align}}{\end{align}}
\NewDocumentCommand{\vect}{O{b} m}{\mathbf{#2}_{#1}}
\NewDocumentEnvironment{keyeq}{m}{\begin{equation}\label{#1}}{\end{equation}}
\begin{document}
\begin{thm}{thm:a} x \end{thm}
\begin{myalign} a = \vect{x} \label{eq:a} \\ b = \vect[c]{y} \end{myalign}
\begin{keyeq}{eq:key} k \end{keyeq}
\end{document}""", ["1", "2", "3"], {"thm:a": "1", "eq:a": "1", "eq:key": "3"}),
}


@pytest.mark.parametrize("name", sorted(USER_ENVIRONMENT_CASES))
def test_user_environments_number_and_label_as_tex(name, tmp_path):
    documentclass, body, numbers, labels = USER_ENVIRONMENT_CASES[name]
    assert _papermath_numbers(documentclass, body) == numbers
    ours = _papermath_labels(documentclass, body)
    assert {label: ours.get(label) for label in labels} == labels
    if engine_available():
        (tmp_path / "main.tex").write_text(_preamble(documentclass) + body, encoding="utf-8")
        result = compile_numbers(tmp_path, "main.tex", timeout=120)
        assert [n.text for n in result.numbers] == numbers
        assert {label: result.labels.get(label) for label in labels} == labels


def test_a_shipped_package_numbers_the_document(tmp_path):
    """\\numberwithin, \\newtheorem and \\the<counter> definitions in a .sty shipped with the paper apply."""
    from papermath.latex import load_document
    (tmp_path / "mystyle.sty").write_text(
        "\\ProvidesPackage{mystyle}\n\\RequirePackage{amsmath,amsthm}\n\\numberwithin{equation}{section}\n"
        "\\newtheorem{theorem}{Theorem}[section]\n\\newtheorem{lemma}[theorem]{Lemma}\n"
        "\\renewcommand{\\thefigure}{F\\arabic{figure}}\n", encoding="utf-8")
    (tmp_path / "main.tex").write_text(
        "\\documentclass{article}\n\\usepackage{mystyle}\n\\begin{document}\n\\section{A}\n"
        "\\begin{lemma}\\label{lem:a} x \\end{lemma}\n\\begin{equation} a \\label{eq:a}\\end{equation}\n"
        "\\begin{figure}\\caption{c}\\label{fig:c}\\end{figure}\n\\end{document}\n", encoding="utf-8")
    expected = {"lem:a": "1.1", "eq:a": "1.1", "fig:c": "F1"}
    doc = load_document(str(tmp_path))
    assert [eq.number for eq in doc.equations] == ["1.1"]
    assert {k: doc.label_numbers[k] for k in expected} == expected
    if engine_available():
        result = compile_numbers(tmp_path, "main.tex", timeout=120)
        assert [n.text for n in result.numbers] == ["1.1"]
        assert {k: result.labels.get(k) for k in expected} == expected


def test_a_cached_run_that_stubbed_a_class_now_installed_is_compiled_again(tmp_path):
    """Session 6: runs cached on a machine without texlive-publishers kept elsarticle's stub (an article) after
    the class was installed, and the engine 'printed' 1, 2, 3 where elsarticle prints A.1."""
    if not engine_available():
        pytest.skip("pdflatex is not installed (TeX Live from Debian: see .ci/run)")
    import json
    from papermath.latex.texoracle import source_hash
    paper, cache = tmp_path / "paper", tmp_path / "cache"
    paper.mkdir()
    (paper / "main.tex").write_text("\\documentclass{article}\\begin{document}\\begin{equation}x\\end{equation}"
                                    "\\begin{equation}y\\end{equation}\\end{document}\n", encoding="utf-8")
    first = compile_numbers(paper, "main.tex", cache_dir=cache, timeout=120)
    assert first.ok and [n.text for n in first.numbers] == ["1", "2"] and not first.cached
    record_path = cache / f"{source_hash(paper)}-main.tex.json"
    record = json.loads(record_path.read_text(encoding="utf-8"))
    assert compile_numbers(paper, "main.tex", cache_dir=cache).cached
    record["stubs"], record["numbers"] = ["article.cls"], record["numbers"][:1]  # as if article had been stubbed
    record_path.write_text(json.dumps(record), encoding="utf-8")
    again = compile_numbers(paper, "main.tex", cache_dir=cache, timeout=120)
    assert not again.cached and [n.text for n in again.numbers] == ["1", "2"]
