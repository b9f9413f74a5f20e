"""Front matter without markup debris, formulas without presentation markup, packages read without noise."""
from __future__ import annotations

import pytest

from papermath.latex import document_from_string, document_from_tree
from papermath.source import open_source

AUTHOR_CASES = {
    "neurips-And-blocks": (r"""\author{Simon Schug \\ ETH Z\"{u}rich \\ \texttt{s@ethz.ch} \And Seijin Kobayashi \\
ETH Z\"{u}rich \AND Razvan Pascanu \\ Google DeepMind}""", ["Simon Schug", "Seijin Kobayashi", "Razvan Pascanu"]),
    "thanks-marks-and-affiliation-lines": (r"""\author{Tianzhu Ye\thanks{Equal contribution.}$~~^{\dag\ddag}$~~~~~Li Dong\footnotemark[1]$~~^{\dag}$ \\
~\bf Yi Zhu$^{\dag}$~~~~~Furu Wei$^{\dag}$ \\
~$^\dag$ Microsoft Research ~~~~~ ~$^\ddag$ Tsinghua University}""", ["Tianzhu Ye", "Li Dong", "Yi Zhu", "Furu Wei"]),
    "tabular-built-by-a-macro": (r"""\newcommand{\auth}[2]{\begin{tabular}{@{}l@{}}#1\\#2\end{tabular}}
\author{\auth{Jeremy Bernstein}{MIT} \and \auth{Laker Newhouse}{MIT CSAIL}}""", ["Jeremy Bernstein", "Laker Newhouse"]),
    "one-tabular-many-columns": (r"""\author{\begin{tabular}{cc} Alice Smith & Bob Jones \\ Oxford & MIT \end{tabular}}""",
                                 ["Alice Smith", "Bob Jones"]),
    "superscript-affiliations": (r"""\author{Tommie Kerssies\textsuperscript{1} \qquad Niccol\`o Cavagnero\textsuperscript{2,*} \\
\textsuperscript{1}Eindhoven University of Technology \quad \textsuperscript{2}Politecnico di Torino}""",
                                 ["Tommie Kerssies", "Niccolò Cavagnero"]),
    "author-per-person-with-affil": (r"""\author[1,2]{Jiachen Zhu}\author[1]{Xinlei Chen}\affil[1]{FAIR, Meta}""",
                                     ["Jiachen Zhu", "Xinlei Chen"]),
    "icml": (r"""\begin{icmlauthorlist}\icmlauthor{Hansheng Chen}{su}\icmlauthor{Kai Zhang}{ad}\end{icmlauthorlist}
\icmlaffiliation{su}{Stanford University}""", ["Hansheng Chen", "Kai Zhang"]),
    "comma-list-with-and": (r"""\author{Ann Lee, Bo Li, and Cy Wu \\ University of Toronto}""", ["Ann Lee", "Bo Li", "Cy Wu"]),
}


@pytest.mark.parametrize("name", sorted(AUTHOR_CASES))
def test_authors_are_people_without_markup(name):
    block, expected = AUTHOR_CASES[name]
    doc = document_from_string("\\documentclass{article}\n" + block + "\n\\begin{document}\n\\maketitle\nText.\n"
                               "\\end{document}")
    assert list(doc.authors) == expected


TITLE_CASES = {
    "title-command": (r"\title{\textbf{Attention} Is All You Need\thanks{x}}", "Attention Is All You Need"),
    "icml-in-twocolumn": (r"\twocolumn[\icmltitle{Gaussian Mixture Flow Matching Models}]", "Gaussian Mixture Flow Matching Models"),
    "center-block": (r"\begin{center}{\LARGE\bf Modular Duality}\\[1em]{\large Jeremy Bernstein}\end{center}", "Modular Duality"),
    "title-page": (r"\begin{titlepage}{\Large Report}\\ {\huge The Real Title}\\ Alice\end{titlepage}", "The Real Title"),
    "pdf-string": (r"\title{Min-\texorpdfstring{$p$}{p} Sampling}", "Min-$p$ Sampling"),
}


@pytest.mark.parametrize("name", sorted(TITLE_CASES))
def test_title_as_printed(name):
    front, expected = TITLE_CASES[name]
    in_body = name in ("center-block", "title-page", "icml-in-twocolumn")
    source = ("\\documentclass{article}\n" + ("" if in_body else front) + "\\begin{document}\n"
              + (front if in_body else "\\maketitle") + "\n\\section{Intro} Text.\n\\end{document}")
    assert document_from_string(source).paper.title == expected


CLEAN_CASES = {
    "ensuremath-theme-macro": (r"\newcommand{\vx}{\ensuremath{\mathbf{x}}}", r"f(\vx) = \vx", r"f(\mathbf{x}) = \mathbf{x}"),
    "size-command-inside": ("", r"\footnotesize L = - \log \sigma(z)", r"L = - \log \sigma(z)"),
    "colour-kept-content": ("", r"\textcolor{red}{a} + \colorbox{yellow}{b} + {\color{blue} c}", "a + b + { c}"),
    "annotate-equations": ("", r"\eqnmarkbox[blue]{n1}{x} = \eqnmark[red]{n2}{\frac{a}{b}} \annotate[yshift=1em]{above}{n1}{input}",
                           r"x = \frac{a}{b}"),
    "tikzmarknode": ("", r"\tikzmarknode{q}{Q} K^\top", r"Q K^\top"),
    "theme-colour-macro": (r"\definecolor{alphaColor}{HTML}{FF9100}\newcommand{\instalpha}{{\color{alphaColor}{\alpha}}}",
                           r"\instalpha x", r"{{\alpha}} x"),
    "spacing-commands": ("", r"a \vspace{-2mm} = b \hspace*{1em} + c", r"a = b + c"),
}


@pytest.mark.parametrize("name", sorted(CLEAN_CASES))
def test_formulas_keep_their_mathematics_and_drop_markup(name):
    preamble, formula, expected = CLEAN_CASES[name]
    doc = document_from_string("\\documentclass{article}\n" + preamble + "\n\\begin{document}\n"
                               "\\begin{equation}\n" + formula + "\n\\end{equation}\nInline $" + formula + "$.\n"
                               "\\end{document}")
    assert " ".join(doc.equations[0].latex.split()) == expected
    assert " ".join(doc.inline_math[0].latex.split()) == expected


def test_a_formula_still_points_at_its_source_characters():
    text = ("\\documentclass{article}\n\\begin{document}\n\\begin{equation}\n\\textcolor{red}{a} + b\n"
            "\\end{equation}\n\\end{document}")
    doc = document_from_string(text)
    eq = doc.equations[0]
    assert eq.latex == "a + b"
    assert eq.span.line == 4 and text[eq.span.start:].startswith("\\textcolor{red}{a}")


ANNOTATE_STY = r"""\NeedsTeXFormat{LaTeX2e}
\ProvidesPackage{annotate-equations}
\newcommand*{\eqnhighlight}[2]{\begingroup\colorlet{currentcolor}{.}\colorbox{#1}{#2}\endgroup}
\newcommand*{\eqnmarkbox}[3][currentcolor]{\addvalue{#2}{#1}\tikzmarknode{#2}{\eqnhighlight{#1}{#3}}}
\def\addvalue#1#2{\expandafter\gdef\csname eqnannotate@data@#1\endcsname{#2}}
\def\usevalue#1{\ifcsname eqnannotate@data@#1\endcsname\csname eqnannotate@data@#1\expandafter\endcsname\fi}
\newcommand{\annotate}[4][]{\usevalue{#3}}
"""


def test_a_shipped_package_with_computed_names_is_read_without_warnings(tmp_path):
    (tmp_path / "annotate-equations.sty").write_text(ANNOTATE_STY, encoding="utf-8")
    (tmp_path / "main.tex").write_text(
        "\\documentclass{article}\n\\usepackage{annotate-equations}\n\\begin{document}\n\\begin{equation}\n"
        "\\eqnmarkbox[blue]{n1}{x} = y\n\\end{equation}\n\\annotate{above}{n1}{the input}\n"
        "\\begin{equation} \\eqnmarkbox{n2}{z} \\end{equation}\n\\end{document}\n", encoding="utf-8")
    doc = document_from_tree(open_source(str(tmp_path)))
    assert [eq.latex for eq in doc.equations] == ["x = y", "z"]
    assert not [d for d in doc.diagnostics if "csname" in d.message], doc.diagnostics


def test_a_markdown_byline_gives_the_authors(tmp_path):
    (tmp_path / "paper.md").write_text(
        "# A Title\n\nAnn Lee ${ }^{1}$, Bo Li ${ }^{2}$<br> ${ }^{1}$ Some University<br>ann@uni.edu\n\n"
        "#### Abstract\n\nWe do things.\n\n## 1 INTRODUCTION\n\nText.\n", encoding="utf-8")
    doc = document_from_tree(open_source(str(tmp_path / "paper.md")))
    assert doc.paper.title == "A Title"
    assert doc.authors == ("Ann Lee", "Bo Li")


def test_formulas_in_running_text_are_cleaned_and_words_kept():
    doc = document_from_string("\\documentclass{article}\n\\begin{document}\nWe set $\\textcolor{red}{x} = "
                               "\\ensuremath{y}$ and \\textcolor{blue}{these words} stay.\n\\end{document}")
    assert doc.paragraphs[0].text == "We set $x = y$ and \\textcolor{blue}{these words} stay."
    assert doc.paragraphs[0].sentences[0].span.line == 3
