"""The parser on real formulas from ../shared (skipped when it is absent): the acceptance targets on the
corpus display equations, and print→re-parse on every parsed formula of the corpus and of im2latex."""
from __future__ import annotations

from pathlib import Path

import pytest

from papermath.errors import MathParseError
from papermath.math import parse, to_latex

SHARED = Path(__file__).resolve().parents[1].parent / "shared"
PAPERS = SHARED / "corpus" / "papers"
IM2LATEX = SHARED / "benchmarks" / "formulas" / "im2latex_sample_harvardnlp" / "formulas.lst"

pytestmark = pytest.mark.corpus


@pytest.fixture(scope="module")
def corpus_equations() -> list[str]:
    if not PAPERS.is_dir():
        pytest.skip(f"{PAPERS} not found (../shared is only in CI and sessions)")
    try:
        from papermath.latex import load_document
    except ImportError as error:  # the document model is another stage
        pytest.skip(f"papermath.latex.load_document unavailable: {error}")
    formulas = []
    for paper in sorted(p for p in PAPERS.iterdir() if p.is_dir()):
        formulas.extend(eq.latex for eq in load_document(str(paper)).equations)
    return formulas


def _shares(formulas: list[str]) -> tuple[float, float]:
    ok = {False: 0, True: 0}
    for latex in formulas:
        for strict in (False, True):
            try:
                parse(latex, strict=strict)
                ok[strict] += 1
            except MathParseError:
                pass
    return 100.0 * ok[False] / len(formulas), 100.0 * ok[True] / len(formulas)


def _round_trip_failures(formulas: list[str]) -> list[str]:
    failures = []
    for latex in formulas:
        try:
            tree = parse(latex).tree
        except MathParseError:
            continue
        printed = to_latex(tree)
        if parse(printed).tree != tree:
            failures.append(latex)
    return failures


def test_corpus_display_equations_meet_the_targets(corpus_equations) -> None:
    assert len(corpus_equations) > 500
    tolerant, strict = _shares(corpus_equations)
    assert tolerant >= 99.5
    assert strict >= 97.0


def test_corpus_display_equations_round_trip(corpus_equations) -> None:
    assert _round_trip_failures(corpus_equations) == []


def test_im2latex_formulas_round_trip() -> None:
    if not IM2LATEX.is_file():
        pytest.skip(f"{IM2LATEX} not found (../shared is only in CI and sessions)")
    formulas = [line for line in IM2LATEX.read_text(encoding="utf-8", errors="replace").splitlines() if line.strip()]
    assert len(formulas) > 1000
    assert _round_trip_failures(formulas) == []
