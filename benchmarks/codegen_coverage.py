"""Coverage of shapes → numbers → code over every display equation of the corpus.

For each equation of each paper in ../shared/corpus/papers: do its shapes infer fully (shapes from the
paper's text via `read`, and from what earlier equations define), does it evaluate on chosen values, does its
generated NumPy code run and agree with the evaluator (self-consistency: the check its own generated test
makes), and which checks of the generated test (`test_independent_*`, `papermath.codegen.checks`) it carries and
passes. A stand-in (an undefined function replaced by the identity) or a refusal never counts as ok; a function
the paper leaves abstract is a callable parameter of the code (counted in `abstract`), not a stand-in.

The checks fall in five categories, by what they are measured against (`CATEGORIES`):
- paper-stated: what the paper itself says about the result — the other sides of `a = b = c`, the shape the
  text declares for what the equation defines;
- second reader: the value SymPy's LaTeX parser gives the computed side at the test's inputs, reading the PAPER'S
  OWN LaTeX (`Evaluation.source_latex`, cleaned only lexically: fonts, sizes, script order, spacing), matched to
  the inputs by their names' spelling (`papermath.codegen.second_reader`; needs `pip install -e '.[bench]'`, else
  none); for a comparison or bound, the value of each side cut from the text, compared with the generated
  `…_sides` (whether the relation holds on the test's arbitrary inputs is not what counts);
- rendering re-read: the same reader on papermath's rendering of its own tree (`Evaluation.latex`), where it reads
  nothing of the paper's text. The rendering carries papermath's reading (`A2` rendered `A 2`, `K^{T}` as
  `K^{\\top}`), so this checks the code against the tree only (until session 12 it was the only second reader and
  was counted as independent: 245/620 then, an over-count);
- operator invariant: a property the guides state for the construct at the top of the tree (a softmax's rows sum
  to 1, a share lies in [0, 1], an argmax over [a, b] lies in it);
- tree-derived property: the range, scaling and translation symmetries derived by rules over papermath's tree.
Only the first two count as INDEPENDENT, and the 70% target is claimed on them: they can fail when papermath's
tree misreads the paper (another side read apart from this one — though papermath reads that side too —, a shape
from the text, another parser of the text). The last three hold for whatever the tree says — if the tree reads f(x) as f·x, code and check agree on the wrong reading —
so they catch tree→code errors, not a misread tree; they are reported, never counted as independent. An equation
is ok when the code is ok, its test carries at least one independent check, and every check it carries passes.
Target: ≥ 70% of equations. The test files of a sample are also run with pytest at the end.

    .venv/bin/python benchmarks/codegen_coverage.py [--pytest-sample 20]
"""
from __future__ import annotations

import argparse
import collections
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpus" / "papers"


def run_generated(code, ev) -> None:
    """Execute the generated NumPy module in a fresh namespace and compare with the evaluator."""
    from papermath.codegen import call_arguments

    namespace: dict = {"__name__": "generated"}
    exec(compile(code.numpy, f"{code.module}.py", "exec"), namespace)  # our own generated code, not the paper's
    with np.errstate(all="ignore"):
        result = namespace[code.function](*call_arguments(ev))
    if not np.all(np.isfinite(np.asarray(ev.value, dtype=float))):
        raise FloatingPointError("not finite on the chosen values (nan or inf): not counted as a pass")
    np.testing.assert_allclose(np.asarray(result, dtype=float), np.asarray(ev.value, dtype=float),
                               rtol=1e-6, atol=1e-9)


KINDS = (("paper", ("sides_the_paper_states_equal", "shape_the_paper_declares")),
         ("reader", ("second_reader_agrees",)),
         ("reread", ("rendering_reread_agrees",)),
         ("construct", ("softmax_rows_sum_to_one", "share_between_zero_and_one", "argmax_in_its_interval")),
         ("range", ("range_its_operators_allow",)),
         ("scaling", ("scaling_symmetry_of_its_operators",)),
         ("shift", ("translation_symmetry_of_its_operators",)))
"""Kinds of check by their test function's name, strongest first."""

CATEGORIES = (("paper-stated", ("paper",), True), ("second reader", ("reader",), True),
              ("rendering re-read", ("reread",), False), ("operator invariant", ("construct",), False),
              ("tree-derived property", ("range", "scaling", "shift"), False))
"""(category, kinds, counts as independent): see the module's docstring for why only the first two count."""
INDEPENDENT = tuple(kind for _, kinds, counts in CATEGORIES if counts for kind in kinds)


def kind_of(name: str) -> str:
    for kind, stems in KINDS:
        if any(stem in name for stem in stems):
            return kind
    return "other"


def run_independent(code, tmp: Path) -> dict[str, tuple[int, int]]:
    """Per kind of check (`KINDS`): (independent checks in the generated test, how many pass): the test module
    imported and its test_independent_* functions called (our own generated code)."""
    import importlib.util

    code.write(tmp)
    sys.path.insert(0, str(tmp))
    try:
        spec = importlib.util.spec_from_file_location(f"test_{code.module}", tmp / f"test_{code.module}.py")
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        names = [n for n in dir(module) if n.startswith("test_independent_")]
        out: dict[str, tuple[int, int]] = {}
        for name in names:
            total, passed = out.get(kind_of(name), (0, 0))
            try:
                with np.errstate(all="ignore"):
                    getattr(module, name)()
                passed += 1
            except Exception:  # a failing check is a count, not a crash
                if os.environ.get("CODEGEN_COVERAGE_SHOW_FAILURES"):
                    print(f"  FAILS {code.module}.{name}")
            out[kind_of(name)] = (total + 1, passed)
        return out
    finally:
        sys.path.remove(str(tmp))
        for name in (code.module, f"test_{code.module}"):
            sys.modules.pop(name, None)


def _words(message: str) -> str:
    """A message without its LaTeX, so that reasons group: 'no shape declared', 'Sequence not handled'."""
    if ": " in message and not message.split(": ", 1)[0].endswith("handled"):
        head, tail = message.split(": ", 1)
        if "\\" in head or "{" in head or len(head.split()) == 1:
            message = tail
    message = re.sub(r"\\[A-Za-z]+|[{}_^]|\S*\d\S*", "", message)
    return re.sub(r"\s+", " ", message).strip()[:60]


def reason(error: BaseException) -> str:
    text = getattr(error, "message", None) or str(error).split("\n")[0]
    text = re.sub(r"\\[A-Za-z]+|[{}_^]|\S*\d\S*", "", text)
    text = re.sub(r"\s+", " ", text).strip()
    return f"{type(error).__name__}: {text[:70]}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--pytest-sample", type=int, default=20, help="run this many generated test files with pytest")
    parser.add_argument("--reasons", action="store_true",
                        help="list every equation that is not code ok (no numbers, code that fails, a stand-in), "
                             "grouped by papermath's reason, with its full message")
    parser.add_argument("--papers", nargs="*", default=(),
                        help="only the corpus papers whose directory name contains one of these words (the "
                             "figures are then over those papers only)")
    args = parser.parse_args()
    if not CORPUS.is_dir():
        print(f"corpus not found at {CORPUS}: skipped (it exists in CI and sessions only)")
        return 0
    from papermath.analysis.shapes import infer_shapes, shapes_in_context
    from papermath.codegen import Citation, generate
    from papermath.commands.numbers import evaluation_inputs
    from papermath.evaluate import evaluate
    from papermath.latex import load_document

    rows = []
    reasons: dict[str, collections.Counter] = {"shapes": collections.Counter(), "numbers": collections.Counter(),
                                               "code": collections.Counter(), "no independent check":
                                               collections.Counter(), "second reader (code ok)": collections.Counter()}
    kinds: dict[str, collections.Counter] = collections.defaultdict(collections.Counter)
    scratch = Path(tempfile.mkdtemp(prefix="codegen_coverage_"))
    generated = []
    started = time.perf_counter()
    failures: list[tuple[str, str, str, str, str]] = []
    """(stage, reason group, equation, full message, its LaTeX) of each equation that is not code ok, for --reasons."""
    for paper_dir in sorted(p for p in CORPUS.iterdir() if p.is_dir()
                            and (not args.papers or any(w in p.name for w in args.papers))):
        try:
            doc = load_document(paper_dir)
        except Exception as error:  # a paper that does not load is one row, not a crash
            print(f"{paper_dir.name}: cannot load: {error}")
            continue
        functions = frozenset(getattr(doc, "operators", {}))
        counts = collections.Counter()
        for equation in doc.equations:
            counts["total"] += 1
            declared, sources, _ = shapes_in_context(doc, equation)
            try:
                report = infer_shapes(equation.latex, declared, sources=sources, functions=functions)
                counts["result"] += report.result is not None and not report.mismatches
                if report.complete:
                    counts["shapes"] += 1
                else:
                    reasons["shapes"]["mismatch" if report.mismatches else
                                      _words(report.unknown[0]) if report.unknown else "no result"] += 1
            except Exception as error:
                reasons["shapes"][reason(error)] += 1
            try:
                ns = argparse.Namespace(set=[])
                target = argparse.Namespace(declared=declared, latex=equation.latex, functions=functions,
                                            label=equation.id)
                _, shapes = evaluation_inputs(ns, target)
                ev = evaluate(equation.latex, {}, declared_shapes=shapes, functions=functions)
                counts["numbers"] += 1
            except Exception as error:
                reasons["numbers"][reason(error)] += 1
                failures.append(("numbers", reason(error), f"{paper_dir.name} {equation.id}", _full(error),
                                 equation.latex))
                continue
            try:
                module = f"eq_{re.sub(r'[^A-Za-z0-9]', '_', paper_dir.name)}_{re.sub(r'[^A-Za-z0-9]', '_', equation.id)}"
                code = generate(ev, Citation(doc.paper.title or paper_dir.name, None, equation.number), module=module)
                run_generated(code, ev)
                standin = bool(ev.standins) or any("stood in" in n for n in ev.notes)
                counts["standins"] += standin
                counts["abstract"] += bool(ev.abstract)
                if standin:
                    reasons["code"]["a stand-in (never ok)"] += 1
                    failures.append(("code", "a stand-in (never ok)", f"{paper_dir.name} {equation.id}",
                                     "; ".join(n for n in ev.notes if "stood in" in n) or str(ev.standins),
                                     equation.latex))
                    continue
                counts["code"] += 1
                generated.append(code)
            except Exception as error:
                reasons["code"][reason(error)] += 1
                failures.append(("code", reason(error), f"{paper_dir.name} {equation.id}", _full(error),
                                 equation.latex))
                continue
            reasons["second reader (code ok)"][_reader_class(ev)] += 1
            by_kind = run_independent(code, scratch / module)
            for kind, (t, p) in by_kind.items():
                kinds[kind]["with"] += t > 0
                kinds[kind]["pass"] += t > 0 and p == t
            if not _count_checks(by_kind, counts, reasons["no independent check"]):
                reasons["no independent check"][_top(equation.latex, functions)] += 1
                if os.environ.get("CODEGEN_COVERAGE_SHOW_UNCHECKED"):
                    print(f"  UNCHECKED {module}: {ev.latex[:140]}")
        rows.append((paper_dir.name, counts))
    total = collections.Counter()
    columns = ("total", "shapes", "result", "numbers", "code", "standins", "abstract", "with_check", "ok")
    heads = ("equations", "shapes", "result", "numbers", "code ok", "stand-in", "abstract", "indep.", "ok")
    print(f"{'paper':<30} " + " ".join(f"{h:>9}" for h in heads))
    for name, counts in rows:
        total.update(counts)
        print(f"{name:<30} " + " ".join(f"{counts[c]:>9}" for c in columns))
    n = max(total["total"], 1)
    print(f"{'all':<30} " + " ".join(f"{total[c]:>9}" for c in columns))
    print(f"{'share':<30} {'':>9} " + " ".join(f"{total[c] / n:>9.1%}" for c in columns[1:]))
    print("shapes: every shape known and nothing mismatched; result: the result's shape known, nothing mismatched")
    print("code ok: the generated code runs and equals the evaluator (self-consistency), with no stand-in")
    print("stand-in: an undefined function replaced by the identity (never ok); abstract: code ok with a function the "
          "paper leaves abstract taken as a callable parameter")
    print("indep.: the generated test carries an INDEPENDENT check (paper-stated or second reader); ok: code ok, an "
          "independent check carried, and every check of the test passes")
    from papermath.codegen.second_reader import available
    print(f"second reader (SymPy's LaTeX parser, on the paper's own LaTeX): "
          f"{'available' if available() else 'NOT installed: no such checks'}")
    print("checks by category (equations carrying one / where every one of the category passes):")
    for name, _, counts_ in CATEGORIES:
        print(f"  {name:<22} {'independent' if counts_ else 'NOT independent':<16} {total[f'cat carry {name}']:>4} "
              f"carry, {total[f'cat pass {name}']:>4} pass ({total[f'cat pass {name}'] / n:.1%} of equations)")
    print("  by kind: " + ", ".join(f"{kind} {kinds[kind]['pass']}/{kinds[kind]['with']}" for kind, _ in KINDS))
    print(f"  not counted, for comparison: every check passes, any kind carried (tree-derived included) "
          f"{total['any_check_ok']}/{total['total']} = {total['any_check_ok'] / n:.1%}; with operator invariants "
          f"counted too {total['ok_with_invariants']}/{total['total']} = {total['ok_with_invariants'] / n:.1%}")
    print(f"target: ≥ 70% of equations ok on INDEPENDENT checks — {'met' if total['ok'] / n >= 0.7 else 'NOT met'} "
          f"({total['ok']}/{total['total']} = {total['ok'] / n:.1%})  ({time.perf_counter() - started:.1f} s)")
    for stage, counter in reasons.items():
        print(f"\nmain reasons, {stage}:")
        for text, count in counter.most_common(14 if stage.startswith("second") else 8):
            print(f"  {count:>4}  {text}")
    _print_failures(failures if args.reasons else [])
    if args.pytest_sample and generated:
        with tempfile.TemporaryDirectory() as tmp:
            step = max(1, len(generated) // args.pytest_sample)
            sample = generated[::step][:args.pytest_sample]
            for code in sample:
                code.write(tmp)
            result = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", tmp],
                                    capture_output=True, text=True, cwd=tmp)
            last = result.stdout.strip().splitlines()[-1] if result.stdout.strip() else result.stderr[-200:]
            print(f"\ngenerated test files run with pytest ({len(sample)} sampled): {last}")
            for line in result.stdout.splitlines():
                if line.startswith("FAILED"):
                    print(f"  {line[:160]}")
    return 0


CAUSES = (
    ("a stand-in", r"stand-in"),
    ("big-O: an order of growth, no value (a right refusal)", r"order of growth"),
    ("code ≠ evaluator (a codegen bug)", r"^AssertionError|^LookupError"),
    ("not finite on the chosen values", r"not finite"),
    ("an integral or a differential (dx, dt, dw)", r"integral"),
    ("a derivative ∂/∂x or ∇²", r"derivative|higher derivatives"),
    ("a limit", r"the limit"),
    ("an index: out of range, fractional, or one per sample", r"index out of range|the index .* not a whole number|"
                                                              r"the index .* takes"),
    ("shapes do not line up (chosen sizes, matmul, broadcasting)", r"do not line up|inner dimensions|and .* differ|"
                                                                   r"more indices than|could not be broadcast|"
                                                                   r"same shape|a variance ≤"),
    ("'…' with no pattern to read", r"'…'|concatenation with"),
    ("prose in the formula", r"prose"),
    ("a set, a space or an interval, not numbers", r"set of vectors|set operation|an interval is not|"
                                                   r"not a finite set|only \{x|direct sum"),
    ("a relation or connective with no value (∼, ↦, ≲, ±, ∘, ∨, :=)", r"relation|connective|composes|names two values|"
                                                                      r"condition .* not evaluated"),
    ("several bound variables at once (min over θ, ω; argmin over a set)", r"reductions( over|$)"),
    ("a library error on the chosen values (TypeError, ValueError)", r"TypeError|ValueError"),
    ("no formula, or an empty part", r"empty|holds no formula"),
)
"""(cause, pattern of papermath's message) for the --reasons summary: the first pattern that matches names the cause
of an equation that is not code ok; what no pattern matches is 'other'."""


def _cause(message: str) -> str:
    for cause, pattern in CAUSES:
        if re.search(pattern, message):
            return cause
    return "other"


def _full(error: BaseException) -> str:
    """An error's whole first line, LaTeX kept (the grouped reasons drop it)."""
    text = getattr(error, "message", None) or str(error).split("\n")[0]
    return f"{type(error).__name__}: {text[:200]}"


def _print_failures(failures: list[tuple[str, str, str, str, str]]) -> None:
    """Every equation that is not code ok, grouped by stage and reason, largest group first (nothing when empty)."""
    if not failures:
        return
    groups: dict[tuple[str, str], list[tuple[str, str, str]]] = collections.defaultdict(list)
    for stage, group, where, message, latex in failures:
        groups[(stage, group)].append((where, message, latex))
    causes = collections.Counter(_cause(message) for _, _, _, message, _ in failures)
    print(f"\nnot code ok, by cause ({len(failures)} equations):")
    for cause, count in causes.most_common():
        print(f"  {count:>4}  {cause}")
    print(f"\nnot code ok, by reason ({len(failures)} equations):")
    for (stage, group), members in sorted(groups.items(), key=lambda item: (-len(item[1]), item[0])):
        print(f"  {len(members):>4}  [{stage}] {group}")
        for where, message, latex in members:
            print(f"          {where}: {message}")
            print(f"              {' '.join(latex.split())[:160]}")


def _count_checks(by_kind: dict[str, tuple[int, int]], counts: collections.Counter,
                  reasons: collections.Counter) -> bool:
    """Count one code-ok equation's checks by category (`CATEGORIES`) into `counts`; False when its test carries
    no check at all (the caller gives the reason)."""
    total_checks = sum(t for t, _ in by_kind.values())
    passed = sum(p for _, p in by_kind.values())
    every_passes = total_checks > 0 and passed == total_checks
    for name, kinds_of, _ in CATEGORIES:
        carried = [by_kind[k] for k in kinds_of if k in by_kind]
        counts[f"cat carry {name}"] += bool(carried)
        counts[f"cat pass {name}"] += bool(carried) and all(p == t for t, p in carried)
    independent = [by_kind[k] for k in INDEPENDENT if k in by_kind]
    counts["with_check"] += bool(independent)
    counts["any_check_ok"] += every_passes
    counts["ok_with_invariants"] += every_passes and any(k in by_kind for k in INDEPENDENT + ("construct",))
    if independent and every_passes:
        counts["ok"] += 1
    elif total_checks and not every_passes:
        reasons["a check FAILS" + (" (an independent one)" if not all(p == t for t, p in independent) else "")] += 1
    elif total_checks:
        reasons["only tree-derived checks or operator invariants"] += 1
    return total_checks > 0


def _reader_class(ev) -> str:
    """Why the second reader has an opinion or not on a code-ok equation (`second_reader.reading_or_reason`):
    'agrees', 'DISAGREES', or its reason without the detail after a colon ('a side: …' keeps one level)."""
    from papermath.codegen.second_reader import SecondReading, reading_or_reason

    reading = reading_or_reason(ev)
    if isinstance(reading, SecondReading):
        kind = "a comparison, each side: " if reading.sides else ""
        return kind + ("agrees" if reading.agrees else "DISAGREES")
    head, _, rest = reading.partition(": ")
    return f"{head}: {rest.split(': ')[0]}" if head in ("a side", "not rewritten", "no opinion") and rest else head


def _top(latex: str, functions: frozenset) -> str:
    """What the computed side of an equation is, for the reasons table (`Product`, `BinOp +`, …)."""
    from papermath.math import ast as A
    from papermath.math import parse

    try:
        node = parse(latex, functions=functions).tree
    except Exception:  # a reason, not a crash
        return "does not parse"
    while isinstance(node, (A.Rows, A.Sequence)):
        items = [i for i in (node.statements if isinstance(node, A.Rows) else node.items) if not isinstance(i, A.Empty)]
        node = items[-1] if items else node
        if not items:
            break
    if isinstance(node, A.Relation):
        node = node.operands[-1]
    while isinstance(node, A.Group):
        node = node.body
    op = getattr(node, "op", "") if isinstance(node, (A.BinOp, A.Reduction, A.UnaryOp)) else ""
    return f"no check for a {type(node).__name__} {op}".strip()


if __name__ == "__main__":
    raise SystemExit(main())
