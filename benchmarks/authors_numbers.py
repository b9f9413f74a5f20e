"""Does papermath compute what the authors' code computes? Run on ../shared/gold/numbers/authors_numbers.jsonl.

Each gold case gives an equation of a corpus paper, concrete inputs keyed by the paper's own LaTeX symbols, and
the output the authors' published implementation computes from them (with `rtol`/`atol`). For each case this
script runs, as a user would:

1. `papermath numbers PAPER --eq N --set 'KEY=VALUE' … --json` (the evaluator), and
2. `papermath code PAPER --eq N --set … --out DIR`, then calls the generated NumPy and PyTorch functions on the
   same inputs (the values of the generated test's `inputs()`, which are the `--set` values in parameter order),

and prints agree / differ / refused for each of the three, and per case (a case agrees when all three agree).
Where the paper's equation and the authors' code differ (`paper_vs_code`), a reader of the paper should expect
`output_paper`: a match with it counts as agreement and the table says which value was matched.

How each record is located in its paper — by its content, never by an id alone (unnumbered ids such as `u2`
move when statements are regrouped): the record's `latex` is compared with the paper's equations, layout
(white space, `&`, `\\\\`), braces, `\\ensuremath` and final punctuation aside:
1. the equation the record's `equation` names, when its LaTeX is the record's, or the record's is that row
   preceded by the statement's left side (`MHA_q(X) =& …` for the row `=& …`);
2. else the paper's equation whose LaTeX is the record's;
3. else the equation the record's LaTeX is a part of (some rows of a statement, a bracket): papermath evaluates
   that part with the equation's context (`--eq N --latex PART`);
4. else the most similar equation (difflib ratio ≥ 0.8), else the key as written ("not located" in the table).
The table's `where` column says which.

How the record's inputs reach papermath — general mechanisms, no per-case table:
- every input key is passed as written (`--set '\\mathbf{Q}=[[…]]'`); papermath's own name matching
  (`papermath.evaluate.resolve_keys`) maps it onto the equation's symbols (fonts, `\\bm`/`\\mathbf`, spacing);
- every `dims` entry is passed as `--dim 'N=3'` (`--set` on papermath versions without `--dim`);
- every `functions` entry, given in words, is passed as `--fn 'NAME=KIND'` where KIND is the first named
  function of papermath's `--fn` set whose words appear in the description (`NAMED_FUNCTION_WORDS` below:
  "logistic sigmoid" → sigmoid, "RMSNorm" → rmsnorm, …) or `eq:N` when the description says the function is
  "equation (N)" of the paper; when papermath has no `--fn` option (older versions) functions are not passed.
A stand-in (an undefined function replaced by the identity) never counts as agreement: such a case is
reported as `stand-in`. The set is also split into two halves by a hash of the case id (deterministic), to
see the variance; the issue's held-out set is separate.

    .venv/bin/python benchmarks/authors_numbers.py [--only ID] [--verbose]
"""
from __future__ import annotations

import argparse
import hashlib
import importlib.util
import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any, Optional

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"
GOLD = SHARED / "gold" / "numbers" / "authors_numbers.jsonl"
PAPERS = SHARED / "corpus" / "papers"
PAPERMATH = [sys.executable, "-m", "papermath"]

NAMED_FUNCTION_WORDS: list[tuple[str, tuple[str, ...]]] = [
    ("log_sigmoid", ("log-sigmoid", "log sigmoid", "logsigmoid")),
    ("sigmoid", ("sigmoid", "logistic")),
    ("rmsnorm", ("rmsnorm", "rms norm", "root mean square")),
    ("layer_norm", ("layernorm", "layer norm", "layer normalization")),
    ("cosine_similarity", ("cosine similarit",)),
    ("softmax", ("softmax",)),
    ("relu", ("relu", "max(0")),
    ("tanh", ("tanh", "hyperbolic tangent")),
    ("identity", ("identity",)),
]
"""Words in a gold `functions` description → the `--fn` kind they name (first match wins)."""


def named_function(description: str) -> Optional[str]:
    """The `--fn` kind a description in words names, or `eq:N` for 'equation (N) of the paper', or None."""
    match = re.search(r"equation \((\w+)\)", description)
    if match:
        return f"eq:{match.group(1)}"
    lowered = description.lower()
    for kind, words in NAMED_FUNCTION_WORDS:
        if any(word in lowered for word in words):
            return kind
    return None


def half_of(case_id: str) -> str:
    """'A' or 'B', from a hash of the id: a deterministic split independent of the file's order."""
    return "AB"[hashlib.sha256(case_id.encode()).digest()[0] % 2]


def literal(value: Any) -> str:
    return json.dumps(value)


def supports_fn() -> bool:
    out = subprocess.run(PAPERMATH + ["numbers", "--help"], capture_output=True, text=True, cwd=ROOT)
    return "--fn" in out.stdout and "--dim" in out.stdout


_LAYOUT = re.compile(r"\\\\(\[[^\]]*\])?|&|\s+|\\ensuremath|[{}]")


def content(latex: str) -> str:
    """A formula's content for locating it: layout, braces, \\ensuremath and final punctuation aside."""
    return _LAYOUT.sub("", latex).rstrip(".,;")


def locate(case: dict) -> tuple[str, Optional[str], str]:
    """(equation key, part LaTeX or None, how it was found) of a gold record in its paper (see the docstring)."""
    import difflib

    import papermath

    paper = papermath.open(str(PAPERS / case["paper"]))
    want = content(case["latex"])
    equations = list(paper.doc.equations)
    named = paper.find_equation(case["equation"])
    if named is not None:
        have = content(named.latex)
        if have == want or (have.startswith("=") and want.endswith(have)):
            return named.id, None, f"{named.id}: the key's"
    for eq in equations:
        if content(eq.latex) == want:
            return eq.id, None, f"{eq.id}: same LaTeX"
    containing = [eq for eq in equations if want in content(eq.latex)]
    if named is not None and named in containing:
        containing.insert(0, named)
    if containing:
        eq = containing[0]
        return eq.id, case["latex"], f"{eq.id}: a part of ({eq.number or eq.id})"
    scored = sorted(((difflib.SequenceMatcher(None, want, content(eq.latex)).ratio(), i)
                     for i, eq in enumerate(equations)), reverse=True)
    if scored and scored[0][0] >= 0.8:
        eq = equations[scored[0][1]]
        return eq.id, None, f"{eq.id}: most similar ({scored[0][0]:.2f})"
    return case["equation"], None, f"{case['equation']}: not located"


def arguments(case: dict, with_fn: bool) -> list[str]:
    key, part, _ = case["_where"]
    args = [str(PAPERS / case["paper"]), "--eq", key] + (["--latex", part] if part is not None else [])
    for key, value in case["inputs"].items():
        args += ["--set", f"{key}={literal(value)}"]
    for key, value in case["dims"].items():
        args += ["--dim" if with_fn else "--set", f"{key}={literal(value)}"]
    if with_fn:
        for key, description in case["functions"].items():
            kind = named_function(description)
            if kind is not None:
                args += ["--fn", f"{key}={kind}"]
    return args


def compare(value: Any, case: dict) -> Optional[str]:
    """'code' or 'paper' when `value` matches the authors' output or the paper's, else None."""
    if value is None:
        return None
    got = np.asarray(value, dtype=float)
    targets = [("paper", case.get("output_paper")), ("code", case["output"])] if case.get("paper_vs_code") \
        else [("code", case["output"])]
    for which, target in targets:
        if target is None:
            continue
        want = np.asarray(target, dtype=float)
        if got.shape != want.shape:
            continue
        if np.allclose(got, want, rtol=case["rtol"], atol=case["atol"], equal_nan=False):
            return which
    return None


def short(value: Any) -> str:
    array = np.asarray(value, dtype=float) if value is not None else None
    if array is None:
        return "none"
    text = np.array2string(array, precision=4, separator=",", threshold=8, max_line_width=60)
    return re.sub(r"\s+", " ", text)


def run_numbers(case: dict, with_fn: bool) -> tuple[str, Any, str, dict]:
    """(verdict, value, detail, json) of `papermath numbers`."""
    out = subprocess.run(PAPERMATH + ["numbers", *arguments(case, with_fn), "--json"], capture_output=True,
                         text=True, cwd=ROOT, timeout=300)
    if out.returncode != 0:
        message = (out.stderr.strip().splitlines() or ["(no message)"])[-1]
        return "refused", None, message, {}
    data = json.loads(out.stdout)
    value = data.get("value")
    notes = data.get("notes", [])
    standin = [n for n in notes if "stood in" in n]
    if standin:
        return "stand-in", value, standin[0], data
    match = compare(value, case)
    if match:
        return "agree", value, match, data
    return "differ", value, f"got {short(value)}", data


def _load(path: Path, name: str) -> Any:
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    assert spec.loader is not None
    spec.loader.exec_module(module)  # papermath's own generated code (paper text in it only as repr data)
    return module


def run_code(case: dict, with_fn: bool) -> dict[str, tuple[str, Any, str]]:
    """Verdicts of the generated NumPy and torch functions, called on the --set inputs."""
    with tempfile.TemporaryDirectory() as tmp:
        out = subprocess.run(PAPERMATH + ["code", *arguments(case, with_fn), "--out", tmp, "--json"],
                             capture_output=True, text=True, cwd=ROOT, timeout=300)
        if out.returncode != 0:
            message = (out.stderr.strip().splitlines() or ["(no message)"])[-1]
            return {"numpy": ("refused", None, message), "torch": ("refused", None, message)}
        info = json.loads(out.stdout)
        files = [Path(p) for p in info["files"]]
        numpy_path, torch_path, test_path = files[0], files[1], files[2]
        sys.path.insert(0, tmp)
        results = {}
        try:
            test = _load(test_path, f"test_{numpy_path.stem}")
            for variant, path in (("numpy", numpy_path), ("torch", torch_path)):
                try:
                    module = _load(path, path.stem)
                    function = getattr(module, info["function"])
                    with np.errstate(all="ignore"):
                        value = function(*test.inputs())
                    if hasattr(value, "detach"):
                        value = value.detach().numpy()
                    value = np.asarray(value, dtype=float).tolist()
                except Exception as error:  # the generated code failing is a verdict, not a crash
                    results[variant] = ("error", None, f"{type(error).__name__}: {str(error)[:80]}")
                    continue
                standin = "stood in" in path.read_text(encoding="utf-8") or "args[0]" in path.read_text(
                    encoding="utf-8")
                match = compare(value, case)
                if standin:
                    results[variant] = ("stand-in", value, "an identity stand-in in the code")
                elif match:
                    results[variant] = ("agree", value, match)
                else:
                    results[variant] = ("differ", value, f"got {short(value)}")
        finally:
            sys.path.remove(tmp)
            for name in list(sys.modules):
                if name.startswith(("test_", numpy_path.stem)):
                    sys.modules.pop(name, None)
        return results


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--only", action="append", default=[], help="run only this case id (repeatable)")
    parser.add_argument("--verbose", action="store_true", help="print each variant's value and message")
    parser.add_argument("--gold", default=str(GOLD), help="the gold file (default: ../shared/gold/numbers/…)")
    args = parser.parse_args()
    gold = Path(args.gold)
    if not gold.is_file() or not PAPERS.is_dir():
        print(f"gold or corpus not found ({gold}): skipped (they exist in CI and sessions only)")
        return 0
    cases = [json.loads(line) for line in gold.read_text(encoding="utf-8").splitlines() if line.strip()]
    if args.only:
        cases = [c for c in cases if c["id"] in args.only]
    with_fn = supports_fn()
    os.environ.setdefault("PYTHONHASHSEED", "0")
    rows = []
    print(f"{'case':<28} {'half':<4} {'where':<26} {'numbers':<9} {'numpy':<9} {'torch':<9} {'case':<9} "
          f"matched / why")
    for case in cases:
        case["_where"] = locate(case)
        verdict, value, detail, _ = run_numbers(case, with_fn)
        code = run_code(case, with_fn)
        verdicts = [verdict, code["numpy"][0], code["torch"][0]]
        overall = "agree" if all(v == "agree" for v in verdicts) else \
            "refused" if verdict == "refused" else \
            "stand-in" if "stand-in" in verdicts else "differ"
        matched = {detail} if verdict == "agree" else set()
        why = detail if verdict != "agree" else (
            next((c[2] for c in code.values() if c[0] != "agree"), "") or "")
        if overall == "agree":
            why = "matched " + ("the paper (output_paper)" if "paper" in matched else "the authors' code")
        rows.append((case, half_of(case["id"]), verdicts, overall))
        print(f"{case['id']:<28} {half_of(case['id']):<4} {case['_where'][2][:26]:<26} {verdicts[0]:<9} "
              f"{verdicts[1]:<9} {verdicts[2]:<9} {overall:<9} {why[:100]}")
        if args.verbose:
            print(f"    numbers: {short(value)}   want {short(case['output'])}"
                  + (f" (paper {short(case.get('output_paper'))})" if case.get("output_paper") is not None else ""))
            for variant, (v, val, message) in code.items():
                print(f"    {variant}: {v} {short(val)} {message[:100]}")
    print()
    for label, subset in (("all", rows), ("half A", [r for r in rows if r[1] == "A"]),
                          ("half B", [r for r in rows if r[1] == "B"])):
        n = len(subset)
        counts = {k: sum(1 for r in subset if r[3] == k) for k in ("agree", "differ", "stand-in", "refused")}
        per = {name: sum(1 for r in subset if r[2][i] == "agree") for i, name in enumerate(("numbers", "numpy",
                                                                                             "torch"))}
        share = counts["agree"] / n if n else 0.0
        print(f"{label:<7} {n:>3} cases: agree {counts['agree']} ({share:.0%}), differ {counts['differ']}, "
              f"stand-in {counts['stand-in']}, refused {counts['refused']}   "
              f"[agree by variant: numbers {per['numbers']}, numpy {per['numpy']}, torch {per['torch']}]")
    n = len(rows)
    share = sum(1 for r in rows if r[3] == "agree") / n if n else 0.0
    print(f"target: ≥ 90% of cases agree (numbers, NumPy and torch all equal to the authors' output, or to the "
          f"paper's where they differ) — {'met' if share >= 0.9 else 'NOT met'}")
    print(f"--fn passed: {'yes' if with_fn else 'no (this papermath has no --fn)'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
