"""Check ``corpus.jsonl`` (tree gold for corpus display formulas, issue 13) against the format (standard library only).

The corpus records carry no LaTeX: the formula is read at run time from ``../shared/corpus/papers/<paper>``
as ``papermath skim --json`` lists it (the document model, run as a separate process; papermath's formula
parser is never imported). For every record this checks:

- the line is a JSON object with the format's fields; ``set`` is ``corpus``; keys are unique; classes known;
- ``(paper, eq_id)`` is a display equation skim lists, its ``latex`` starts with ``latex_head`` (after the
  format's normalisation), and ``number``/``file``/``line`` agree with skim; no two records name one equation;
- ``(paper, eq_id)`` is not one of the formulas judged in ``../shared/gold/parser/verdicts.jsonl``
  (``eq_id`` and the ``eq_ids`` of its whole multi-line displays);
- every assertion is well formed and every fragment occurs in the formula after normalisation, with the
  occurrence conventions of ``validate.py`` (whose checker this reuses).

Run: ``python benchmarks/tree_gold/validate_corpus.py [corpus.jsonl]``; exit status 1 on any problem.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import validate

HERE = Path(__file__).resolve().parent
PAPERS = validate.SHARED / "corpus" / "papers"
CORPUS = HERE / "corpus.jsonl"
FIELDS = ("key", "set", "paper", "eq_id", "number", "file", "line", "multi_line", "latex_head", "classes",
          "expect", "note")


def papermath_command() -> list[str]:
    """The papermath CLI next to this interpreter (a venv), else on PATH, else ``python -m papermath`` (this checkout)."""
    local = Path(sys.executable).with_name("papermath")
    if local.exists():
        return [str(local)]
    found = shutil.which("papermath")
    return [found] if found else [sys.executable, "-m", "papermath"]


def skim_equations(paper: str, cache: dict[str, dict[str, dict]]) -> dict[str, dict]:
    if paper not in cache:
        repo = str(HERE.parents[1])
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [repo, os.environ.get("PYTHONPATH")]))}
        out = subprocess.run([*papermath_command(), "skim", "--json", str(PAPERS / paper)],
                             capture_output=True, text=True, check=True, env=env).stdout
        cache[paper] = {e["id"]: e for e in json.loads(out)["equations"]}
    return cache[paper]


def judged_pairs() -> set[tuple[str, str]]:
    pairs = set()
    for v in validate.load_verdicts().values():
        if v.get("set") == "B":
            continue
        for eq in [v.get("eq_id"), *v.get("eq_ids", [])]:
            if eq:
                pairs.add((v["paper"], eq))
    return pairs


def check(path: Path) -> tuple[list[str], list[dict]]:
    problems: list[str] = []
    records: list[dict] = []
    judged = judged_pairs()
    cache: dict[str, dict[str, dict]] = {}
    keys: set[str] = set()
    eqs: set[tuple[str, str]] = set()
    for lineno, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        where = f"{path.name}:{lineno}"
        try:
            rec = json.loads(line)
        except json.JSONDecodeError as exc:
            problems.append(f"{where}: not JSON: {exc}")
            continue
        if not isinstance(rec, dict):
            problems.append(f"{where}: not an object")
            continue
        where += f" {rec.get('key')}"
        missing = [k for k in FIELDS if k not in rec]
        if missing:
            problems.append(f"{where}: missing {missing}")
            continue
        if rec["set"] != "corpus":
            problems.append(f"{where}: set is {rec['set']!r}, not 'corpus'")
        if rec["key"] in keys:
            problems.append(f"{where}: duplicate key")
        keys.add(rec["key"])
        pair = (rec["paper"], rec["eq_id"])
        if pair in eqs:
            problems.append(f"{where}: {pair} has two records")
        eqs.add(pair)
        if pair in judged:
            problems.append(f"{where}: {pair} is already judged in verdicts.jsonl")
        bad = [c for c in rec["classes"] if c not in validate.CLASSES]
        if bad:
            problems.append(f"{where}: unknown classes {bad}")
        if rec["multi_line"] != ("MULTILINE" in rec["classes"]):
            problems.append(f"{where}: multi_line and the MULTILINE class disagree")
        if not rec["expect"]:
            problems.append(f"{where}: no assertions")
        try:
            eq = skim_equations(rec["paper"], cache).get(rec["eq_id"])
        except (subprocess.CalledProcessError, OSError, ValueError) as exc:
            problems.append(f"{where}: skim failed on {rec['paper']}: {exc}")
            continue
        if eq is None:
            problems.append(f"{where}: skim lists no {rec['eq_id']} in {rec['paper']}")
            continue
        for k in ("number", "file", "line"):
            if rec[k] != eq[k]:
                problems.append(f"{where}: {k} {rec[k]!r} != skim's {eq[k]!r}")
        if "".join(validate.tokens(eq["latex"])).find("".join(validate.tokens(rec["latex_head"]))) != 0:
            problems.append(f"{where}: latex_head is not the start of the equation's latex")
        formula = validate.Formula(eq["latex"])
        for a in rec["expect"]:
            problems += [f"{where}: {p}" for p in validate.check_assertion(a, formula)]
        records.append(rec)
    return problems, records


def main(argv: list[str]) -> int:
    if not PAPERS.exists() or not validate.VERDICTS.exists():
        print(f"skipped: {PAPERS} or {validate.VERDICTS} is absent (the LaTeX lives in ../shared)")
        return 0
    path = Path(argv[0]) if argv else CORPUS
    problems, records = check(path)
    for p in problems:
        print(p)
    counts = sorted(len(r["expect"]) for r in records)
    if counts:
        per_paper = Counter(r["paper"] for r in records)
        classes = Counter(c for r in records for c in r["classes"])
        print(f"{path.name}: {len(records)} records ({sum(r['multi_line'] for r in records)} multi-line) from "
              f"{len(per_paper)} papers, {sum(counts)} assertions (per record min {counts[0]}, median "
              f"{counts[len(counts) // 2]}, max {counts[-1]}), {len(problems)} problem(s)")
        print("per paper: " + ", ".join(f"{p} {n}" for p, n in sorted(per_paper.items())))
        print("per class: " + ", ".join(f"{c} {n}" for c, n in classes.most_common()))
    return int(bool(problems))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
