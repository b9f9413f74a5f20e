#!/usr/bin/env python3
"""Time `papermath skim` on the real-paper corpus and set it beside LaTeXML and pandoc.

1. Every paper directory in ../shared/corpus/papers: the wall time of
   `papermath.cli.main(["skim", DIR, "--json"])` (in process, output captured), its exit code and its
   equation count; then the corpus total (target: under 5 s on the 2-core reference machine).
2. Side by side on a few papers (default: attention, deepseek-v3, DyT, maskgit, gqa): the wall time of
   LaTeXML (`latexml --quiet --dest=OUT main.tex`, run in a temporary copy of the paper) and of pandoc
   (`pandoc -f latex -t json main.tex`, run in the paper directory), each as a ratio to papermath's time
   (target: LaTeXML/papermath >= 20). pandoc failures are recorded, not fatal.
3. Where LaTeXML produced a document: whether papermath's printed equation numbers match LaTeXML's
   (LaTeXML numbers equations as pdflatex does), by number, by label and by section, with mismatches listed.

    .venv/bin/python benchmarks/skim_corpus.py
    .venv/bin/python benchmarks/skim_corpus.py --papers attention-1706.03762,DyT --latexml-timeout 300
    .venv/bin/python benchmarks/skim_corpus.py --no-peers
    .venv/bin/python benchmarks/skim_corpus.py --oracle-dir /tmp/oracle   # reuse latexml_oracle.py output

LaTeXML 0.8.7 with TeX Live 2022 spends over ten minutes on papers that load expl3 (tcolorbox, siunitx):
such runs hit --latexml-timeout and are reported as "> N s". `--oracle-dir` takes LaTeXML's time and
numbers from JSON files written by `benchmarks/latexml_oracle.py --out DIR` instead of re-running it.
"""

from __future__ import annotations

import argparse
import contextlib
import difflib
import io
import json
import re
import shutil
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(1, str(Path(__file__).resolve().parents[1]))  # the checkout's papermath, when not installed
from latexml_oracle import (
    LatexmlMissing,
    find_main,
    latexml_available,
    latexml_version,
    parse_equations,
    run_latexml,
)

SHARED = Path(__file__).resolve().parents[2] / "shared"
CORPUS = SHARED / "corpus" / "papers"
DEFAULT_PEERS = ("attention-1706.03762", "deepseek-v3-2412.19437", "DyT", "maskgit-2202.04200",
                 "gqa-2305.13245")


def import_papermath():
    """(load_document, cli_main) or (None, None) with the reason printed."""
    try:
        from papermath.cli import main as cli_main
        from papermath.latex import load_document
    except Exception as exc:  # noqa: BLE001 — any import failure means "papermath not usable here"
        print(f"papermath could not be imported ({type(exc).__name__}: {exc}).")
        print("  Run this script with the project's environment: .venv/bin/python benchmarks/skim_corpus.py")
        print("  papermath timings and numbering comparisons are skipped; peer timings follow.\n")
        return None, None
    return load_document, cli_main


def time_skim(cli_main, paper_dir: Path) -> tuple[float, int, dict | None, str, float]:
    """Seconds, exit code, parsed JSON (or None), stderr and CPU seconds of one in-process
    `papermath skim DIR --json`. CPU time is printed beside wall time: on a shared machine wall time measures
    the load as much as papermath."""
    out, err = io.StringIO(), io.StringIO()
    try:  # the per-process paper cache would make every run after the first a cache hit: time a cold load
        from papermath.paper import clear_cache
        clear_cache()
    except ImportError:
        pass
    start, cpu_start = time.perf_counter(), time.process_time()
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = cli_main(["skim", str(paper_dir), "--json"])
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else 2
    except Exception as exc:  # noqa: BLE001 — a crash is a result to report, not a reason to stop
        code = -1
        err.write(f"{type(exc).__name__}: {exc}")
    seconds, cpu = time.perf_counter() - start, time.process_time() - cpu_start
    try:
        data = json.loads(out.getvalue())
    except ValueError:
        data = None
    return seconds, code if code is not None else 0, data, err.getvalue().strip(), cpu


def time_pandoc(paper_dir: Path, main: str, timeout: float) -> dict:
    """Wall time and outcome of `pandoc -f latex -t json MAIN` run in the paper directory."""
    if shutil.which("pandoc") is None:
        return {"ok": False, "seconds": None, "error": "pandoc not installed"}
    start = time.perf_counter()
    try:
        proc = subprocess.run(["pandoc", "-f", "latex", "-t", "json", main], cwd=paper_dir,
                              capture_output=True, timeout=timeout, check=False)
    except subprocess.TimeoutExpired:
        return {"ok": False, "seconds": time.perf_counter() - start, "error": f"timed out after {timeout:.0f} s"}
    seconds = time.perf_counter() - start
    if proc.returncode != 0:
        message = proc.stderr.decode("utf-8", "replace").strip().splitlines()
        return {"ok": False, "seconds": seconds,
                "error": f"exit {proc.returncode}: " + (" ".join(message)[:110] if message else "")}
    return {"ok": True, "seconds": seconds, "error": None}


def latexml_result(paper_dir: Path, main: str, timeout: float, oracle_dir: Path | None) -> dict:
    """LaTeXML time, status and numbered equations: from --oracle-dir's JSON if there, else a live run."""
    if oracle_dir is not None:
        cached = oracle_dir / f"{paper_dir.name}.json"
        if cached.exists():
            record = json.loads(cached.read_text(encoding="utf-8"))
            note = "cached"
            if record.get("dropped_packages"):
                note += ", with " + ", ".join(record["dropped_packages"]) + " commented out"
            return {"ok": record["ok"], "timed_out": record["returncode"] is None, "seconds": record["seconds"],
                    "equations": record["equations"], "note": note, "messages": record.get("messages", "")}
    if not latexml_available():
        return {"ok": False, "timed_out": False, "seconds": None, "equations": [], "note": "latexml not installed",
                "messages": ""}
    try:
        run = run_latexml(paper_dir, main, timeout=timeout)
    except LatexmlMissing as exc:
        return {"ok": False, "timed_out": False, "seconds": None, "equations": [], "note": str(exc), "messages": ""}
    return {"ok": run.ok, "timed_out": run.returncode is None, "seconds": run.seconds,
            "equations": parse_equations(run.xml) if run.ok else [], "note": "",
            "messages": run.messages}


def _signature(tex: str) -> str:
    """A rough, notation-insensitive fingerprint of a formula for 'same equation?' checks."""
    tex = re.sub(r"\\(displaystyle|textstyle|left|right|big|Big|bigg|Bigg|[,;:!]|quad|qquad|nonumber|notag)"
                 r"(?![a-zA-Z])", "", tex)
    tex = re.sub(r"\\(mathrm|mathbf|mathit|boldsymbol|bm|text|textrm|operatorname|mathcal|mathbb)(?![a-zA-Z])",
                 "", tex)
    return re.sub(r"[\s{}&]", "", tex)


def compare_numbering(ours: list, oracle: list[dict]) -> dict:
    """papermath's numbered equations against LaTeXML's: by number, by label, by section, by content."""
    mine = [eq for eq in ours if eq.number]
    our_numbers = Counter(eq.number for eq in mine)
    their_numbers = Counter(eq["number"] for eq in oracle)
    matched = sum((our_numbers & their_numbers).values())
    missing = sorted((their_numbers - our_numbers).elements(), key=_number_key)
    extra = sorted((our_numbers - their_numbers).elements(), key=_number_key)

    by_number = {}
    for eq in mine:
        by_number.setdefault(eq.number, eq)
    section_diffs, content_diffs = [], []
    for theirs in oracle:
        eq = by_number.get(theirs["number"])
        if eq is None:
            continue
        if (eq.section or None) != (theirs["section"] or None):
            section_diffs.append(f"({theirs['number']}) section {eq.section} vs LaTeXML {theirs['section']}")
        ratio = difflib.SequenceMatcher(None, _signature(eq.latex), _signature(theirs["tex"])).ratio()
        if ratio < 0.5:
            content_diffs.append(f"({theirs['number']}) {ratio:.2f}: ours {eq.latex[:50]!r} / "
                                 f"LaTeXML {theirs['tex'][:50]!r}")

    our_labels = {eq.label: eq.number for eq in ours if eq.label}
    labelled = [eq for eq in oracle if eq["labels"]]
    label_ok, label_diffs = 0, []
    for theirs in labelled:
        hits = [our_labels[label] for label in theirs["labels"] if label in our_labels]
        if theirs["number"] in hits:
            label_ok += 1
        else:
            label_diffs.append(f"\\label{{{theirs['labels'][0]}}}: ours {hits[0] if hits else 'absent'}"
                               f" vs LaTeXML {theirs['number']}")
    return {"total": sum(their_numbers.values()), "ours": sum(our_numbers.values()), "matched": matched,
            "missing": missing, "extra": extra, "sections_ok": matched - len(section_diffs),
            "section_diffs": section_diffs, "content_diffs": content_diffs,
            "labels_total": len(labelled), "labels_ok": label_ok, "label_diffs": label_diffs}


def _number_key(number: str):
    return [int(part) if part.isdigit() else part for part in re.split(r"(\d+)", number)]


def _ratio(peer: float | None, ours: float | None, lower_bound: bool = False) -> str:
    if peer is None or not ours:
        return "-"
    return (">" if lower_bound else "") + f"{peer / ours:,.0f}×"


def _equation_counts(data: dict | None) -> str:
    """'28 (23)': equations, of which numbered."""
    if not data or not isinstance(data.get("equations"), list):
        return "no JSON"
    eqs = data["equations"]
    return f"{len(eqs)} ({sum(1 for e in eqs if e.get('number'))})"


def _load() -> str:
    try:
        import os
        return f"{os.getloadavg()[0]:.1f}"
    except (OSError, AttributeError):
        return "unknown"


def _paper_dirs(corpus: Path) -> list[Path]:
    return [d for d in sorted(corpus.iterdir(), key=lambda p: p.name.lower()) if d.is_dir()]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Time papermath skim on the corpus; compare with LaTeXML and pandoc.")
    parser.add_argument("--corpus", type=Path, default=CORPUS, help=f"paper directories (default: {CORPUS})")
    parser.add_argument("--papers", help="comma-separated papers for the side-by-side comparison "
                                         f"(default: {','.join(DEFAULT_PEERS)})")
    parser.add_argument("--no-peers", action="store_true", help="time papermath only; skip LaTeXML and pandoc")
    parser.add_argument("--repeat", type=int, default=3, help="papermath runs per paper; the best is kept (default 3)")
    parser.add_argument("--latexml-timeout", type=float, default=600.0, help="seconds per LaTeXML run (default 600)")
    parser.add_argument("--pandoc-timeout", type=float, default=300.0, help="seconds per pandoc run (default 300)")
    parser.add_argument("--oracle-dir", type=Path,
                        help="reuse LaTeXML times and numbers from latexml_oracle.py --out DIR (<paper>.json)")
    parser.add_argument("--verbose", action="store_true", help="list every numbering mismatch (default: first 10)")
    args = parser.parse_args(argv)

    corpus = args.corpus
    if not corpus.is_dir():
        print(f"skim_corpus: the corpus directory {corpus} does not exist (../shared is only present in CI "
              "and development sessions); nothing to measure.")
        return 0
    papers = _paper_dirs(corpus)
    load_document, cli_main = import_papermath()

    skim_times: dict[str, float] = {}
    if cli_main is not None:
        print(f"papermath skim DIR --json, in process, best of {args.repeat} (first run in brackets)")
        print(f"{'paper':32} {'time':>9} {'(first)':>9} {'CPU':>7}  exit  equations (numbered)")
        first_total = best_total = cpu_total = 0.0
        failures = 0
        for paper in papers:
            runs = [time_skim(cli_main, paper) for _ in range(max(1, args.repeat))]
            first, best = runs[0][0], min(r[0] for r in runs)
            cpu = min(r[4] for r in runs)
            cpu_total += cpu
            code, data, err = runs[0][1], runs[0][2], runs[0][3]
            first_total += first
            best_total += best
            skim_times[paper.name] = best
            failures += code != 0
            counts = _equation_counts(data)
            first_s = "(" + format(first, ".3f") + ")"
            print(f"{paper.name:32} {best:8.3f}s {first_s:>9} {cpu:6.3f}s  {code:>4}  {counts}")
            if code != 0 and err:
                print("    " + err.splitlines()[-1][:150])
        print(f"{'corpus total (' + str(len(papers)) + ' papers)':32} {best_total:8.3f}s "
              f"{'(' + format(first_total, '.3f') + ')':>9} {cpu_total:6.3f}s  {failures} non-zero exits   "
              f"target < 5 s (load average {_load()})\n")

    if args.no_peers:
        return 0
    wanted = args.papers.split(",") if args.papers else list(DEFAULT_PEERS)
    by_name = {p.name: p for p in papers}
    unknown = [name for name in wanted if name not in by_name]
    if unknown:
        print(f"skim_corpus: not in {corpus}: {', '.join(unknown)}")
        return 2
    print(f"peers: LaTeXML {latexml_version() or 'not installed'}, "
          f"pandoc {_pandoc_version() or 'not installed'} (wall time per paper, one run each)")
    print(f"{'paper':32} {'papermath':>10} {'LaTeXML':>10} {'ratio':>7} {'pandoc':>9} {'ratio':>7}  notes")
    comparisons = []
    for name in wanted:
        paper = by_name[name]
        main_file = find_main(paper)
        if main_file is None:
            print(f"{name:32} no LaTeX main file (\\documentclass + \\begin{{document}}); skipped")
            continue
        ours = skim_times.get(name)
        lx = latexml_result(paper, main_file, args.latexml_timeout, args.oracle_dir)
        pd = time_pandoc(paper, main_file, args.pandoc_timeout)
        notes = []
        if lx["timed_out"]:
            notes.append(f"LaTeXML timed out after {lx['seconds']:.0f} s")
        elif not lx["ok"] and lx["note"] != "latexml not installed":
            notes.append("LaTeXML failed: " + (lx["messages"].splitlines()[-1][:80] if lx["messages"] else "?"))
        if lx["note"]:
            notes.append("LaTeXML " + lx["note"])
        if not pd["ok"]:
            notes.append("pandoc " + pd["error"])
        lx_s = ("-" if lx["seconds"] is None else (">" if lx["timed_out"] else "") + f"{lx['seconds']:.1f}s")
        pd_s = "-" if pd["seconds"] is None else f"{pd['seconds']:.2f}s" + ("" if pd["ok"] else "!")
        ours_s = "-" if ours is None else f"{ours:.3f}s"
        print(f"{name:32} {ours_s:>10} {lx_s:>10} {_ratio(lx['seconds'], ours, lx['timed_out']):>7} "
              f"{pd_s:>9} {_ratio(pd['seconds'] if pd['ok'] else None, ours):>7}  {'; '.join(notes)}")
        if lx["ok"] and load_document is not None:
            comparisons.append((name, lx["equations"]))
    if not comparisons:
        return 0

    print("\nequation numbers, papermath vs LaTeXML (= pdflatex)")
    limit = None if args.verbose else 10
    for name, oracle in comparisons:
        try:
            doc = load_document(str(by_name[name]))
        except Exception as exc:  # noqa: BLE001
            print(f"{name}: papermath failed to load it ({type(exc).__name__}: {exc})")
            continue
        result = compare_numbering(list(doc.equations), oracle)
        print(f"{name}: numbers {result['matched']}/{result['total']} match (papermath numbers "
              f"{result['ours']}); labels {result['labels_ok']}/{result['labels_total']}; "
              f"sections {result['sections_ok']}/{result['matched']}; "
              f"content check {result['matched'] - len(result['content_diffs'])}/{result['matched']}")
        if result["missing"]:
            print("    missing in papermath: " + ", ".join(result["missing"][:limit]))
        if result["extra"]:
            print("    not printed by LaTeX: " + ", ".join(result["extra"][:limit]))
        for line in (result["label_diffs"] + result["section_diffs"] + result["content_diffs"])[:limit]:
            print("    " + line)
    return 0


def _pandoc_version() -> str | None:
    if shutil.which("pandoc") is None:
        return None
    out = subprocess.run(["pandoc", "--version"], capture_output=True, text=True, check=False)
    return out.stdout.split("\n", 1)[0].removeprefix("pandoc ").strip() or None


if __name__ == "__main__":
    sys.exit(main())
