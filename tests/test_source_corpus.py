"""Every real paper in ../shared/corpus flattens, with the expected main file and a faithful source map."""
from __future__ import annotations

import random
from pathlib import Path

import pytest

from papermath.source import flatten, open_source

SHARED = Path(__file__).resolve().parents[2] / "shared"
PAPERS = SHARED / "corpus" / "papers"

pytestmark = pytest.mark.corpus

# Multi-file papers: (directory, main file, files that must be inlined, bbl included, local packages).
MULTI_FILE = [
    ("attention-1706.03762", "ms.tex", {"model_architecture.tex", "training.tex", "results.tex"}, False,
     {"nips_2017.sty"}),
    ("deepseek-v3-2412.19437", "main.tex", {"commands.tex", "content/fp8.tex", "tables/base_evaluation.tex",
                                            "main.bbl"}, True, {"deepseek.cls"}),
    ("gqa-2305.13245", "main.tex", {"custom_commands.tex", "tables/main_results.tex", "main.bbl"}, True,
     {"emnlp2023.sty"}),
    ("maskgit-2202.04200", "main.tex", {"3_method.tex", "figures/pipeline.tex", "appendix.tex", "main.bbl"}, True,
     {"cvpr.sty", "dbfloatfix.sty"}),
]


def paper_dirs() -> list[str]:
    if not PAPERS.is_dir():
        return []
    return sorted(p.name for p in PAPERS.iterdir() if p.is_dir())


@pytest.fixture(autouse=True)
def _need_shared():
    if not PAPERS.is_dir():
        pytest.skip(f"../shared is absent: no corpus at {PAPERS}")


@pytest.mark.parametrize("name", paper_dirs() or ["<no corpus>"])
def test_every_paper_flattens_with_a_faithful_map(name):
    result = flatten(open_source(str(PAPERS / name)))
    expected_format = "markdown" if name == "GPS" else "latex"
    assert result.format == expected_format
    assert result.main_file == ("paper2code_paper.md" if name == "GPS" else result.main_file)
    assert len(result.text) > 10_000
    assert not [d for d in result.diagnostics if d.severity == "error"]
    text, source_map = result.source_map.text, result.source_map
    rng = random.Random(name)
    for i in rng.sample(range(len(text)), 200):
        pos = source_map.locate(i)
        assert source_map.files[pos.file][pos.offset] == text[i]
    if expected_format == "latex":
        assert "\\begin{document}" in text


def test_corpus_has_the_papers_the_readme_lists():
    names = set(paper_dirs())
    assert {m[0] for m in MULTI_FILE} <= names and "GPS" in names and len(names) >= 23


@pytest.mark.parametrize("name, main, inlined, bbl, packages", MULTI_FILE, ids=[m[0] for m in MULTI_FILE])
def test_multi_file_papers(name, main, inlined, bbl, packages):
    result = flatten(open_source(str(PAPERS / name)))
    assert result.main_file == main
    assert result.files[0] == main and inlined <= set(result.files)
    assert result.bbl_included is bbl
    assert {m.segments[0].file for m in result.package_files} == packages


def test_attention_equation_1_maps_back_to_model_architecture():
    result = flatten(open_source(str(PAPERS / "attention-1706.03762")))
    at = result.text.index("\\mathrm{Attention}(Q, K, V)")
    pos = result.source_map.locate(at)
    assert pos.file == "model_architecture.tex"
    original = (PAPERS / "attention-1706.03762" / "model_architecture.tex").read_text()
    assert original.splitlines()[pos.line - 1][pos.column - 1:].startswith("\\mathrm{Attention}(Q, K, V)")


def test_deepseek_commented_out_row_is_gone():
    """Guide 002: in the align that gives (18), the commented-out f_i row is not an equation."""
    result = flatten(open_source(str(PAPERS / "deepseek-v3-2412.19437")))
    assert "\\text{Expert $i$ } & \\text{belongs to the Top-$K_r$ set" not in result.text
    at = result.text.index("f_i = \\frac{N_r}{K_r T} \\sum_{t=1}^{T} \\mathds{1} & \\left(")
    assert str(result.source_map.locate(at)) == "main.tex:381:5"
    # The line before the kept row is the previous row's end, not a blank line.
    assert result.text[:at].rstrip(" ").endswith("\n")
    assert not result.text[:at].rstrip(" ").endswith("\n\n")
