"""Coverage of shapes → numbers → code over every display equation of the corpus.

For each equation of each paper in ../shared/corpus/papers: do its shapes infer fully (shapes from the
paper's text via `read`, and from what earlier equations define), does it evaluate on chosen values, and does its generated NumPy code run and agree
with the evaluator (the check its own generated test makes; the test files of a sample are also run with
pytest at the end). Prints the table and the main reasons for the rest. Target: ≥ 70% pass.

    .venv/bin/python benchmarks/codegen_coverage.py [--pytest-sample 20]
"""
from __future__ import annotations

import argparse
import collections
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
    namespace: dict = {"__name__": "generated"}
    exec(compile(code.numpy, f"{code.module}.py", "exec"), namespace)  # our own generated code, not the paper's
    args = [np.asarray(ev.input(k).value, dtype=float) for k in ev.params]
    with np.errstate(all="ignore"):
        result = namespace[code.function](*args)
    if not np.all(np.isfinite(np.asarray(ev.value, dtype=float))):
        raise FloatingPointError("not finite on the chosen values (nan or inf): not counted as a pass")
    np.testing.assert_allclose(np.asarray(result, dtype=float), np.asarray(ev.value, dtype=float),
                               rtol=1e-6, atol=1e-9)


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
                                               "code": collections.Counter()}
    generated = []
    started = time.perf_counter()
    for paper_dir in sorted(p for p in CORPUS.iterdir() if p.is_dir()):
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
                continue
            try:
                module = f"eq_{re.sub(r'[^A-Za-z0-9]', '_', paper_dir.name)}_{re.sub(r'[^A-Za-z0-9]', '_', equation.id)}"
                code = generate(ev, Citation(doc.paper.title or paper_dir.name, None, equation.number), module=module)
                run_generated(code, ev)
                counts["code"] += 1
                counts["standins"] += bool(ev.standins)
                generated.append(code)
            except Exception as error:
                reasons["code"][reason(error)] += 1
        rows.append((paper_dir.name, counts))
    total = collections.Counter()
    print(f"{'paper':<30} {'equations':>9} {'shapes':>8} {'result':>8} {'numbers':>8} {'code ok':>8} {'stand-in':>8}")
    for name, counts in rows:
        total.update(counts)
        print(f"{name:<30} {counts['total']:>9} {counts['shapes']:>8} {counts['result']:>8} {counts['numbers']:>8} {counts['code']:>8} "
              f"{counts['standins']:>8}")
    n = max(total["total"], 1)
    print(f"{'all':<30} {total['total']:>9} {total['shapes']:>8} {total['result']:>8} {total['numbers']:>8} {total['code']:>8} "
          f"{total['standins']:>8}")
    print(f"{'share':<30} {'':>9} {total['shapes'] / n:>8.1%} {total['result'] / n:>8.1%} {total['numbers'] / n:>8.1%} {total['code'] / n:>8.1%} "
          f"{total['standins'] / n:>8.1%}")
    print("shapes: every shape known and nothing mismatched; result: the result's shape known, nothing mismatched")
    print("stand-in: code ok, but an undefined function (RoPE, F, r, …) was stood in by the identity / first argument")
    print(f"target: ≥ 70% code ok — {'met' if total['code'] / n >= 0.7 else 'NOT met'}"
          f"  ({time.perf_counter() - started:.1f} s)")
    for stage, counter in reasons.items():
        print(f"\nmain reasons, {stage}:")
        for text, count in counter.most_common(8):
            print(f"  {count:>4}  {text}")
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
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
