"""The TeX engine as the oracle: every display number each corpus paper's PDF prints equals papermath's.

Each LaTeX paper of ../shared/corpus/papers is compiled twice with pdflatex (papermath/latex/texoracle.py;
`pmoracle.sty` records every number typeset). Compiling the whole corpus costs about 80 s of CPU (two papers
at a time); results are cached by source hash under the user cache directory, so later runs cost nothing.
"""
from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import pytest
from conftest import CORPUS

from papermath.latex import load_document
from papermath.latex.texoracle import compare_numbers, compile_numbers, engine_available
from papermath.source.flatten import find_main_file

pytestmark = pytest.mark.corpus


def _latex_papers():
    if not CORPUS.is_dir():
        return []
    papers = []
    for paper in sorted(CORPUS.iterdir()):
        if paper.is_dir():
            main_file, fmt = find_main_file(paper)
            if fmt == "latex":
                papers.append((paper, main_file))
    return papers


PAPERS = _latex_papers()


@pytest.fixture(scope="session")
def tex_results():
    if not CORPUS.is_dir():
        pytest.skip(f"../shared is absent ({CORPUS} not found): the corpus exists in CI and dev sessions only")
    if not engine_available():
        pytest.skip("pdflatex is not installed (TeX Live from Debian; .ci/run installs it)")
    with ThreadPoolExecutor(2) as pool:
        results = pool.map(lambda item: compile_numbers(item[0], item[1], timeout=300), PAPERS)
        return {paper.name: result for (paper, _), result in zip(PAPERS, results)}


@pytest.mark.parametrize("name", [paper.name for paper, _ in PAPERS] or ["(no corpus)"])
def test_every_printed_display_number_equals_papermath(name, tex_results):
    tex = tex_results[name]
    assert tex.ok, f"pdflatex did not finish {name}: {tex.message}"
    doc = load_document(str(CORPUS / name))
    comparison = compare_numbers(doc, tex)
    print(f"{name}: {comparison.matched}/{comparison.total} printed numbers matched")
    assert comparison.equal, "\n".join(comparison.mismatches)
