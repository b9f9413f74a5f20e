"""`papermath skim`: the CLI on the example paper (golden at width 100) and on every corpus paper."""
from __future__ import annotations

import json

import pytest
from conftest import EXAMPLE, corpus_paper

from papermath.cli import main
from papermath.latex import load_document


def run_cli(capsys, *argv) -> tuple[int, str, str]:
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_skim_example_text(capsys):
    code, out, _ = run_cli(capsys, "skim", str(EXAMPLE), "--width", "100")
    assert code == 0
    lines = out.splitlines()
    assert lines[0] == "A Small Note on Attention and Routing"
    assert "  2.1 Scaled Dot-Product Attention" in lines
    assert any(line.strip().startswith("(1) \\mathrm{Attention}(Q, K, V)") for line in lines)
    assert any(line.strip().startswith("(5b) b &= 2.") for line in lines)
    assert "  - a symbol-by-symbol statement of attention;" in lines
    assert "  https://github.com/papermath/attention-note" in lines
    assert lines[-1] == ("5 headings, 8 display equations (6 numbered), 2 footnotes, 0 captions, 0 algorithms; "
                         "2 references, 0 unresolved")


def test_skim_example_json_schema(capsys):
    code, out, _ = run_cli(capsys, "skim", str(EXAMPLE), "--json")
    assert code == 0
    data = json.loads(out)
    assert data["schema"] == "papermath.skim/1"
    assert set(data["paper"]) >= {"title", "source", "version"}
    assert data["sections"][0] == {"id": "sec:1", "number": "1", "title": "Introduction", "level": 1,
                                   "file": "main.tex", "line": 25, "label": None, "appendix": False}
    eq = data["equations"][0]
    assert {k: eq[k] for k in ("id", "number", "section", "file", "line", "label")} == {
        "id": "eq:1", "number": "1", "section": "2.1", "file": "sections/attention.tex", "line": 9,
        "label": "eq:attention"}
    assert data["method_sections"][0] == {"section": "3", "title": "Routing", "equations": 3,
                                          "why": ["3 display equations", "heading names the paper's method (Routing)"]}


METHOD_PAPER = r"""\documentclass{article}
\title{SQUIRREL: Sparse Queries for Retrieval}
\begin{document}
\begin{abstract} We propose Sparse Queries (SQ). \end{abstract}
\section{Introduction} Our contributions are: \begin{itemize}\item a sparse query encoder\item a bound\end{itemize}
\section{Background} \begin{equation} a \end{equation} \begin{equation} b \end{equation} \begin{equation} c \end{equation}
\section{The Sparse Query Encoder}
\begin{equation} q = W x \end{equation}
\begin{algorithm}\caption{Encode}\begin{algorithmic}\State x\end{algorithmic}\end{algorithm}
\section{Experiments} Results.
\appendix
\section{Proof of Theorem 1}
PROOF_EQUATIONS
\end{document}
""".replace(
    "PROOF_EQUATIONS", "\n".join(f"\\begin{{equation}} p_{k} \\end{{equation}}" for k in range(12)))


def test_the_method_is_a_body_section_never_an_appendix_proof():
    from papermath.latex import document_from_string
    from papermath.latex.method import find_method
    found = find_method(document_from_string(METHOD_PAPER))
    assert found[0].section.title == "The Sparse Query Encoder"
    assert "1 algorithm box" in found[0].why
    assert all(not m.section.appendix for m in found)
    assert all(m.section.title not in ("Background", "Experiments") for m in found)


def test_skim_missing_source_is_a_clean_error(capsys, tmp_path):
    code, out, err = run_cli(capsys, "skim", str(tmp_path / "nope.tex"))
    assert code == 2
    assert out == "" and "papermath skim: error:" in err and "nope.tex" in err


@pytest.mark.corpus
def test_skim_json_on_every_corpus_paper(corpus, capsys):
    papers = sorted(p for p in corpus.iterdir() if p.is_dir())
    assert len(papers) >= 20
    for paper in papers:
        code, out, err = run_cli(capsys, "skim", str(paper), "--json")
        assert code == 0, (paper.name, err)
        data = json.loads(out)
        assert data["paper"]["title"], paper.name
        assert data["sections"], paper.name


@pytest.mark.corpus
def test_attention_equation_1_in_section_3_2_1():
    doc = load_document(str(corpus_paper("attention-1706.03762")))
    eq = doc.equation("1")
    assert eq.latex == r"\mathrm{Attention}(Q, K, V) = \mathrm{softmax}(\frac{QK^T}{\sqrt{d_k}})V"
    section = doc.section_by_id(eq.section_id)
    assert (section.number, section.title) == ("3.2.1", "Scaled Dot-Product Attention")
    assert eq.span.file == "model_architecture.tex"
    assert [e.number for e in doc.equations if e.number] == ["1", "2", "3"]
    # Three \thanks marks in the author block come first: the body's footnotes print as 4 and 5.
    assert [f.number for f in doc.footnotes] == ["4", "5"]
    assert doc.footnotes[0].text.startswith("To illustrate why the dot products get large")


@pytest.mark.corpus
def test_deepseek_v3_numbers_match_the_printed_paper():
    doc = load_document(str(corpus_paper("deepseek-v3-2412.19437")))
    first = [doc.equation(str(n)).latex for n in range(1, 6)]
    assert first[0].endswith(r"&= W^{DKV} \mathbf{h}_{t},")
    assert first[1].startswith(r"[\mathbf{k}_{t, 1}^{C};") and r"&= W^{UK} \mathbf{c}_{t}^{KV}" in first[1]
    assert r"\operatorname{RoPE}({W^{KR}} \mathbf{h}_{t})" in first[2]
    assert first[3].startswith(r"\mathbf{k}_{t, i} &=")
    assert r"&= W^{UV} \mathbf{c}_{t}^{KV}" in first[4]
    assert doc.equation("15").latex == r"s_{i,t} & = \operatorname{Sigmoid} \left( {\mathbf{u}_{t}}^{T} \mathbf{e}_{i} \right),"
    sixteen = doc.equation("16").latex
    assert sixteen.startswith(r"g^{\prime}_{i,t} & = \begin{cases}") and "s_{i,t} + b_i" in sixteen
    eighteen = doc.equation("18")
    assert eighteen.latex.startswith(r"f_i = \frac{N_r}{K_r T} \sum_{t=1}^{T} \mathds{1}")
    assert "Expert $i$" not in eighteen.latex  # the commented-out row is not an equation
    assert (eighteen.span.file, eighteen.span.line) == ("main.tex", 381)
    assert doc.equation("15").section == "2.1.2"
    where = doc.paragraph(doc.equation("15").paragraph_after)
    assert r"$s_{i,t}$ is the token-to-expert affinity" in where.text
    assert [e.number for e in doc.equations if e.number][:20] == [str(n) for n in range(1, 21)]
