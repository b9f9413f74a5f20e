"""`papermath skim --json` on every corpus paper, checked as a reader checks it (benchmarks/skim_quality.py):
a title, authors that are people (no markup, no affiliations), no reference left unresolved that pdflatex
resolves (the .aux, when TeX Live is installed), no presentation markup (\\ensuremath, sizes, colour, spacing,
annotation) in any field, and "Where the method is" naming a body section, never an appendix or a proof."""
from __future__ import annotations

import contextlib
import importlib.util
import io
import json
from pathlib import Path

import pytest
from conftest import CORPUS

from papermath.cli import main as cli_main

pytestmark = pytest.mark.corpus

ROOT = Path(__file__).resolve().parents[1]
_spec = importlib.util.spec_from_file_location("skim_quality", ROOT / "benchmarks" / "skim_quality.py")
skim_quality = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(skim_quality)

PAPERS = sorted(p.name for p in CORPUS.iterdir() if p.is_dir()) if CORPUS.is_dir() else []


@pytest.mark.parametrize("name", PAPERS or ["(no corpus)"])
def test_skim_reads_the_paper_as_a_reader_would(name):
    if not CORPUS.is_dir():
        pytest.skip(f"../shared is absent ({CORPUS} not found): the corpus exists in CI and dev sessions only")
    paper = CORPUS / name
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert cli_main(["skim", str(paper), "--json"]) == 0
    data = json.loads(out.getvalue())
    found = skim_quality.check_paper(data, skim_quality.resolved_by_tex(paper))
    assert found["title"], "title is null"
    assert data["authors"] and found["debris"] == [], found["debris"]
    assert found["unresolved"] == [], f"TeX resolves these, papermath does not: {found['unresolved']}"
    assert found["markup"] == [], found["markup"][:10]
    assert found["body_method"], f"the method named first is not a body section: {found['method']}"
