"""The short fuzzing profile that runs in `make test` (seconds); the long one is benchmarks/fuzz_campaign.py.

Mutated real formulas go through every stage (parse → print → read aloud → to_dict → explain → shapes →
evaluate → codegen, whose files must parse); mutated papers through the whole `read` path. Only papermath's
own errors may come out; every crash the campaigns found is a regression case below.
"""
from __future__ import annotations

import random
import shutil

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from .mutate import mutate_formula, mutate_paper
from .pipeline import run_formula, run_paper
from .regressions import FORMULAS, PAPERS, PRINTS
from .seeds import EXAMPLE, SEED_FORMULAS

SERIOUS = ("crash", "invalid-module", "hang")


def _serious(findings):
    return [f for f in findings if f.kind in SERIOUS]


@settings(max_examples=60, deadline=None, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(seed=st.sampled_from(SEED_FORMULAS), rng=st.randoms(use_true_random=False))
def test_mutated_formulas_only_raise_papermaths_own_errors(seed, rng):
    latex = mutate_formula(seed, rng)
    assert _serious(run_formula(latex)) == [], latex[:500]


@settings(max_examples=6, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow])
@given(rng=st.randoms(use_true_random=False))
def test_mutated_papers_are_read_to_the_end(tmp_path_factory, rng):
    folder = tmp_path_factory.mktemp("paper")
    shutil.copytree(EXAMPLE, folder, dirs_exist_ok=True)
    main = folder / "sections" / "attention.tex" if rng.random() < 0.5 else folder / "main.tex"
    text = mutate_paper(main.read_text(encoding="utf-8"), rng, list(SEED_FORMULAS))
    main.write_bytes(text.encode("utf-8", "surrogatepass"))
    assert _serious(run_paper(folder)) == []


@pytest.mark.parametrize("latex", FORMULAS, ids=[f"formula-{k}" for k in range(len(FORMULAS))])
def test_formula_regressions(latex):
    assert _serious(run_formula(latex)) == []


@pytest.mark.parametrize("text", PAPERS, ids=[f"paper-{k}" for k in range(len(PAPERS))])
def test_paper_regressions(tmp_path, text):
    (tmp_path / "main.tex").write_bytes(text.encode("utf-8", "surrogatepass"))
    assert _serious(run_paper(tmp_path)) == []


@pytest.mark.parametrize("latex", PRINTS, ids=[f"print-{k}" for k in range(len(PRINTS))])
def test_printer_regressions(latex):
    findings = run_formula(latex)
    assert [f for f in findings if f.kind == "not-idempotent"] == [] and _serious(findings) == []


def test_the_printer_is_a_fixed_point_on_real_formulas():
    """Printing a parsed formula and parsing the print gives the same print (on the campaign's own formulas
    and a mutated sample of them: the fuzzed ones whose printed form reparses must print the same)."""
    from papermath.errors import MathParseError
    from papermath.math import parse, to_latex
    rng = random.Random(12)
    checked = 0
    for latex in list(SEED_FORMULAS) + [mutate_formula(s, rng, steps=1) for s in SEED_FORMULAS]:
        try:
            printed = to_latex(parse(latex).tree)
        except MathParseError:
            continue  # a formula that does not parse has no print to check
        assert to_latex(parse(printed).tree) == printed, (latex, printed)
        checked += 1
    assert checked >= len(SEED_FORMULAS)


def test_a_stopped_campaign_still_reports_its_figures(tmp_path):
    """benchmarks/fuzz_campaign.py rewrites its report while it runs: killed at any moment, the file holds the
    figures of every input finished so far, and says the run did not finish."""
    import argparse
    import importlib.util
    import json
    from pathlib import Path

    path = Path(__file__).resolve().parents[2] / "benchmarks" / "fuzz_campaign.py"
    spec = importlib.util.spec_from_file_location("fuzz_campaign", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    args = argparse.Namespace(formulas=10, papers=2, seed=3, timeout=10.0, out=str(tmp_path / "r.txt"),
                              json=str(tmp_path / "r.json"))
    tally = module.Tally(args, ["x"], [tmp_path])
    tally.add("formula", 1, [], 0.1)
    tally.add("formula", 2, [("crash", "print", "print:RecursionError:printer.py:_p", "deep")], 0.2)
    tally.add("paper", 3, [("hang", "read", "read:hang:parser.py:peek", "over 10 s")], 11.0)
    module.write_out(args, tally)
    text = (tmp_path / "r.txt").read_text(encoding="utf-8")
    assert "2 mutated formulas" in text and "1 mutated papers" in text and "STILL RUNNING" in text
    assert "formulas: crashes 1, hangs 0" in text and "papers: crashes 0, hangs 1" in text
    assert "read:hang:parser.py:peek" in text and "1 inputs took over 10 s of wall-clock" in text
    assert json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))["tried"] == {"formula": 2, "paper": 1}
    tally.state = "interrupted"
    module.write_out(args, tally)
    assert "INTERRUPTED" in (tmp_path / "r.txt").read_text(encoding="utf-8")


def test_the_campaign_tries_the_same_inputs_with_any_number_of_workers(tmp_path):
    """--workers N runs N worker processes side by side: every planned input is tried exactly once and the
    figures do not depend on N (each input is built from its own seed)."""
    import argparse
    import importlib.util
    import json
    from pathlib import Path

    path = Path(__file__).resolve().parents[2] / "benchmarks" / "fuzz_campaign.py"
    spec = importlib.util.spec_from_file_location("fuzz_campaign", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    results = {}
    for workers in (1, 2):
        args = argparse.Namespace(formulas=12, papers=0, seed=11, timeout=10.0, workers=workers, progress=0,
                                  checkpoint=60.0, out=str(tmp_path / f"r{workers}.txt"),
                                  json=str(tmp_path / f"r{workers}.json"))
        results[workers] = module.campaign(args)
        assert json.loads((tmp_path / f"r{workers}.json").read_text(encoding="utf-8"))["workers"] == workers
    assert results[1]["tried"] == results[2]["tried"] == {"formula": 12}
    assert results[1]["signatures"] == results[2]["signatures"]
    assert results[2]["state"] == "finished"
    assert "2 workers" in (tmp_path / "r2.txt").read_text(encoding="utf-8")


def test_a_long_formula_whose_macros_expand_is_aligned_in_linear_time():
    """A long display whose macros expand differs from its source almost everywhere: difflib's matching blocks
    took 4.4 s of CPU on 1,529 characters (mutated paper seed 101001513). Past a work bound it is aligned piece
    by piece: each piece found verbatim maps to its place, a macro's expansion to just after the piece before."""
    import time

    from papermath.paper import align
    rows = [f"\\Ls_{{{k}}} &= \\E_{{t, \\vx_{k}}} [ - \\log \\sum_{{j=1}}^{{K}} \\exp(\\vz_{{{k}, j}}) ] \\\\" for k in range(40)]
    source = "\\begin{align}\n" + "\n".join(rows) + "\n\\end{align}"
    latex = " ".join(r.replace("\\Ls", "\\mathcal{L}_{s}").replace("\\E", "\\mathbb{E}").replace("\\vx", "\\mathbf{x}")
                     .replace("\\vz", "\\mathbf{z}") for r in rows)
    start = source.index("\\Ls")
    began = time.process_time()
    mapping = align(latex, source, start, "main.tex")
    assert time.process_time() - began < 0.5
    at = latex.index("\\log", latex.index("\\log") + 1)  # row 1's \log
    assert source[mapping.offset(at):].startswith("\\log \\sum_{j=1}^{K} \\exp(\\vz_{1, j})")
    assert mapping.offset(latex.index("\\mathcal{L}_{s}_{1}")) <= source.index("\\Ls_{1}")
