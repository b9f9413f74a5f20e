"""How much real notation the math parser reads, and how fast, side by side with SymPy's `parse_latex`.

    .venv/bin/python benchmarks/parse_coverage.py [--sympy-sample N] [--no-sympy]

Formula sets (from ../shared, skipped with a message when absent):
  corpus    display equations of ../shared/corpus/papers/ through `papermath.latex.load_document`
            (macro-expanded, one per numbered row)
  im2latex  benchmarks/formulas/im2latex_sample_harvardnlp/formulas.lst
  symlink   benchmarks/formulas/symlink_inline_math_derived.txt (inline math, macros NOT expanded)
  cases     benchmarks/parser-tests/cases.jsonl (other parsers' test suites)

Per set: the share parsed in tolerant and in strict mode, formulas per second (tolerant), and SymPy's
`parse_latex(…, backend="lark")` on the same formulas — timed on an evenly spaced sample because it is
~1000× slower. The speed ratio compares both parsers on that same sample. Then SymPy's `must_fail` strings
from cases.jsonl: how many we reject in strict mode, with the ones we accept listed.
Needs `pip install sympy lark` for the SymPy columns (a `bench` extra); without it they are skipped.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from papermath.errors import MathParseError  # noqa: E402
from papermath.math import parse  # noqa: E402

SHARED = ROOT.parent / "shared"
TARGETS = {"corpus": (99.5, 97.0)}
SPEED_TARGET = 10.0


def corpus_equations() -> list[str] | str:
    papers = SHARED / "corpus" / "papers"
    if not papers.is_dir():
        return f"skipped: {papers} not found"
    try:
        from papermath.latex import load_document
    except ImportError as error:
        return f"skipped: papermath.latex.load_document unavailable ({error})"
    formulas: list[str] = []
    for paper in sorted(papers.iterdir()):
        if not paper.is_dir():
            continue
        try:
            doc = load_document(str(paper))
        except Exception as error:  # a broken paper is reported, not fatal
            print(f"  note: {paper.name}: document model failed: {error}", file=sys.stderr)
            continue
        formulas.extend(eq.latex for eq in doc.equations)
    return formulas


def lines(path: Path, strip_dollars: bool = False) -> list[str] | str:
    if not path.is_file():
        return f"skipped: {path} not found"
    out = []
    for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
        line = line.strip()
        if strip_dollars:
            line = line.strip("$").strip()
        if line:
            out.append(line)
    return out


def cases() -> list[dict] | str:
    path = SHARED / "benchmarks" / "parser-tests" / "cases.jsonl"
    if not path.is_file():
        return f"skipped: {path} not found"
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def ours(formulas: list[str], strict: bool) -> tuple[int, float, list[str]]:
    ok = 0
    failed: list[str] = []
    start = time.perf_counter()
    for latex in formulas:
        try:
            parse(latex, strict=strict)
            ok += 1
        except MathParseError as error:
            failed.append(f"{error.message}: {latex[:100]}")
    return ok, time.perf_counter() - start, failed


def load_sympy():
    try:
        from sympy.parsing.latex import parse_latex
        parse_latex("x", backend="lark")  # builds the grammar once, outside the timings
        return parse_latex
    except Exception as error:  # ImportError, or lark missing
        print(f"SymPy columns skipped: {error} (pip install sympy lark)")
        return None


def sympy_run(parse_latex, formulas: list[str]) -> tuple[int, float]:
    ok = 0
    start = time.perf_counter()
    for latex in formulas:
        try:
            parse_latex(latex, backend="lark")
            ok += 1
        except Exception:  # noqa: BLE001 - any failure counts as not parsed
            pass
    return ok, time.perf_counter() - start


def sample(formulas: list[str], size: int) -> list[str]:
    if len(formulas) <= size:
        return list(formulas)
    step = len(formulas) / size
    return [formulas[int(i * step)] for i in range(size)]


def pct(a: int, b: int) -> str:
    return f"{100.0 * a / b:6.2f}%" if b else "   n/a"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sympy-sample", type=int, default=200, help="formulas per set timed with SymPy")
    ap.add_argument("--no-sympy", action="store_true", help="skip the SymPy comparison")
    ap.add_argument("--failures", type=int, default=15, help="strict failures to list per set")
    args = ap.parse_args(argv)

    parse_latex = None if args.no_sympy else load_sympy()
    all_cases = cases()
    sets: dict[str, list[str] | str] = {
        "corpus": corpus_equations(),
        "im2latex": lines(SHARED / "benchmarks/formulas/im2latex_sample_harvardnlp/formulas.lst"),
        "symlink": lines(SHARED / "benchmarks/formulas/symlink_inline_math_derived.txt", strip_dollars=True),
        "cases": [c["latex"] for c in all_cases] if isinstance(all_cases, list) else all_cases,
    }

    header = (f"{'set':<10}{'n':>7}{'tolerant':>10}{'strict':>9}{'ours f/s':>11}"
              f"{'sympy n':>9}{'sympy ok':>10}{'sympy f/s':>11}{'ours f/s*':>11}{'speed×':>8}")
    print(header)
    print("-" * len(header))
    notes: list[str] = []
    strict_failures: dict[str, list[str]] = {}
    for name, formulas in sets.items():
        if isinstance(formulas, str):
            print(f"{name:<10}{formulas}")
            continue
        n = len(formulas)
        tol_ok, tol_time, _ = ours(formulas, strict=False)
        strict_ok, _, failed = ours(formulas, strict=True)
        strict_failures[name] = failed
        row = f"{name:<10}{n:>7}{pct(tol_ok, n):>10}{pct(strict_ok, n):>9}{n / tol_time:>11.0f}"
        if parse_latex is not None:
            picked = sample(formulas, args.sympy_sample)
            sym_ok, sym_time = sympy_run(parse_latex, picked)
            _, our_time, _ = ours(picked, strict=False)
            sym_rate = len(picked) / sym_time
            our_rate = len(picked) / our_time
            row += (f"{len(picked):>9}{pct(sym_ok, len(picked)):>10}{sym_rate:>11.1f}{our_rate:>11.0f}"
                    f"{our_rate / sym_rate:>8.0f}")
        print(row)
        if name in TARGETS:
            want_tol, want_strict = TARGETS[name]
            tol_share, strict_share = 100.0 * tol_ok / n, 100.0 * strict_ok / n
            notes.append(f"target {name}: tolerant {tol_share:.2f}% (≥{want_tol}%: "
                         f"{'met' if tol_share >= want_tol else 'NOT met'}), strict {strict_share:.2f}% "
                         f"(≥{want_strict}%: {'met' if strict_share >= want_strict else 'NOT met'})")
    if parse_latex is not None:
        notes.append(f"speed: 'speed×' = our formulas/s ÷ SymPy's on the same sample (target ≥{SPEED_TARGET:.0f}×); "
                     f"SymPy timed on ≤{args.sympy_sample} evenly spaced formulas per set")
    print()
    for note in notes:
        print(note)

    if isinstance(all_cases, list):
        must_fail = [c["latex"] for c in all_cases if c.get("must_fail")]
        accepted = []
        for latex in must_fail:
            try:
                parse(latex, strict=True)
                accepted.append(latex)
            except MathParseError:
                pass
        print(f"\nSymPy must_fail strings rejected in strict mode: {len(must_fail) - len(accepted)}/{len(must_fail)}")
        for latex in accepted:
            print(f"  accepted: {latex!r}")
        by_suite: dict[str, list[int]] = {}
        for case in all_cases:
            if case.get("must_fail"):
                continue
            tally = by_suite.setdefault(case["suite"], [0, 0])
            tally[1] += 1
            try:
                parse(case["latex"])
                tally[0] += 1
            except MathParseError:
                pass
        print("cases.jsonl parsed (tolerant), by suite: " +
              ", ".join(f"{suite} {ok}/{total}" for suite, (ok, total) in sorted(by_suite.items())))

    for name, failed in strict_failures.items():
        if failed and args.failures:
            print(f"\n{name}: {len(failed)} strict failures, first {min(len(failed), args.failures)}:")
            for line in failed[:args.failures]:
                print(f"  {line}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
