"""Check ``corpus.jsonl`` (tree gold for corpus display formulas, issue 13) against the format (standard library only).

The corpus records carry no LaTeX: the formula is read at run time from ``../shared/corpus/papers/<paper>``
as ``papermath skim --json`` lists it (the document model, run as a separate process; papermath's formula
parser is never imported). For every record this checks:

- the line is a JSON object with the format's fields; ``set`` is ``corpus``; keys are unique; classes known;
- the record's equation is one skim lists (by id, file and line, or ``latex_head``), its ``latex`` starts with
  ``latex_head`` (after the format's normalisation), and ``eq_id``/``number``/``line`` agree with skim's today;
  no two records name one equation;
- ``(paper, eq_id)`` is not one of the formulas judged in ``../shared/gold/parser/verdicts.jsonl``
  (``eq_id`` and the ``eq_ids`` of its whole multi-line displays);
- every assertion is well formed and every fragment occurs in the formula after normalisation, with the
  occurrence conventions of ``validate.py`` (whose checker this reuses).

Equation ids follow the document model's numbering, which may change as it learns TeX's counters: a record is found
by id, else by file and line, else by ``latex_head``; ``--fix-ids`` rewrites the ids, numbers and lines that drifted
(the expectations are untouched). The no-overlap check also compares the formulas themselves with the verdicts'.

Run: ``python benchmarks/tree_gold/validate_corpus.py [--fix-ids] [corpus.jsonl]``; exit status 1 on any problem.
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


def judged_pairs() -> dict[tuple[str, str], str | None]:
    """(paper, eq_id) judged in verdicts.jsonl -> the verdict's normalised formula (None if it has none).

    A verdict's id names the equation as skim listed it then; once ids shift (rows joined into one statement),
    the same id can name another formula, so a pair counts as judged only when the formula is the same too."""
    pairs: dict[tuple[str, str], str | None] = {}
    for v in validate.load_verdicts().values():
        if v.get("set") == "B":
            continue
        for eq in [v.get("eq_id"), *v.get("eq_ids", [])]:
            if eq:
                pairs[(v["paper"], eq)] = canon(v["latex"]) if v.get("latex") else None
    return pairs


def canon(latex: str) -> str:
    return "".join(validate.tokens(latex))


def judged_formulas() -> dict[str, set[str]]:
    """The verdicts' formulas per paper, compared by their normalised LaTeX (ids may have shifted since)."""
    out: dict[str, set[str]] = {}
    for v in validate.load_verdicts().values():
        if v.get("set") != "B" and v.get("latex"):
            out.setdefault(v["paper"], set()).add(canon(v["latex"]))
    return out


def resolve(rec: dict, equations: dict[str, dict]) -> tuple[dict | None, bool]:
    """The record's equation and whether skim's id/number/line for it drifted from the record's.

    By id when file, line and latex_head still agree; else by file and line with the same head; else by the head
    in the same file (nearest line). Equation ids follow the document model's numbering, which may change."""
    head = canon(rec["latex_head"])
    starts = [e for e in equations.values() if canon(e["latex"]).startswith(head)]
    by_id = equations.get(rec["eq_id"])
    if by_id in starts and by_id["file"] == rec["file"] and by_id["line"] == rec["line"]:
        return by_id, by_id["number"] != rec["number"]
    same_place = [e for e in starts if e["file"] == rec["file"] and e["line"] == rec["line"]]
    if same_place:
        return same_place[0], True
    same_file = sorted((e for e in starts if e["file"] == rec["file"]), key=lambda e: abs(e["line"] - rec["line"]))
    if same_file:
        return same_file[0], True
    return None, True


def check(path: Path, fix_ids: bool = False) -> tuple[list[str], list[dict]]:
    problems: list[str] = []
    records: list[dict] = []
    fixed: list[str] = []
    judged = judged_pairs()
    judged_latex = judged_formulas()
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
        bad = [c for c in rec["classes"] if c not in validate.CLASSES]
        if bad:
            problems.append(f"{where}: unknown classes {bad}")
        if rec["multi_line"] != ("MULTILINE" in rec["classes"]):
            problems.append(f"{where}: multi_line and the MULTILINE class disagree")
        if not rec["expect"]:
            problems.append(f"{where}: no assertions")
        try:
            eq, drift = resolve(rec, skim_equations(rec["paper"], cache))
        except (subprocess.CalledProcessError, OSError, ValueError) as exc:
            problems.append(f"{where}: skim failed on {rec['paper']}: {exc}")
            continue
        if eq is None:
            problems.append(f"{where}: skim lists no equation {rec['eq_id']} / {rec['file']}:{rec['line']} "
                            f"starting {rec['latex_head']!r} in {rec['paper']}")
            continue
        if drift:
            if fix_ids:
                rec.update(eq_id=eq["id"], number=eq["number"], line=eq["line"])
                fixed.append(rec["key"])
            else:
                problems.append(f"{where}: skim now lists this equation as {eq['id']} (number {eq['number']!r}, "
                                f"line {eq['line']}); run with --fix-ids")
        if pair in judged and judged[pair] in (None, canon(eq["latex"])):
            problems.append(f"{where}: {pair} is already judged in verdicts.jsonl (by id)")
        if canon(eq["latex"]) in judged_latex.get(rec["paper"], set()):
            problems.append(f"{where}: this formula is already judged in verdicts.jsonl")
        formula = validate.Formula(eq["latex"])
        for a in rec["expect"]:
            problems += [f"{where}: {p}" for p in validate.check_assertion(a, formula)]
        records.append(rec)
    if fix_ids and fixed:
        path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), encoding="utf-8")
        print(f"rewrote eq_id/number/line of {len(fixed)} record(s): {', '.join(fixed)}")
    return problems, records


def main(argv: list[str]) -> int:
    if not PAPERS.exists() or not validate.VERDICTS.exists():
        print(f"skipped: {PAPERS} or {validate.VERDICTS} is absent (the LaTeX lives in ../shared)")
        return 0
    fix_ids = "--fix-ids" in argv
    args = [a for a in argv if a != "--fix-ids"]
    path = Path(args[0]) if args else CORPUS
    problems, records = check(path, fix_ids)
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
