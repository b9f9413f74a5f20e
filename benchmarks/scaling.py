"""How papermath's commands grow with the paper's size, and what one equation costs against a whole paper.

    .venv/bin/python benchmarks/scaling.py                       # both parts
    .venv/bin/python benchmarks/scaling.py --part scaling --paper deepseek-v3-2412.19437 --sizes 1,2,4,8,16,32
    .venv/bin/python benchmarks/scaling.py --part ratios [--papers DyT,LEN] [--repeat 2]

Part 1 (issue 18, "linear in the paper's size"): a synthetic paper made of 1×, 2×, 4×, … copies of a corpus
paper's body (the paper flattened by papermath's own flattener; every `\\label` and reference renamed per copy, so
each copy's equations are new equations), and for each size the run of `skim`, `read`, `html` and `code --eq 1`.
Each run is a fresh process that imports papermath first and then times only the command (`cli.main`), so the
figures are the command's own: wall and CPU seconds, and peak memory above the process's footprint after
imports (MiB). The fitted exponent is the least-squares slope of log(CPU time) against log(size) over all sizes
and over 4× and up. CPU time is what the fit uses: the machine is shared, and wall time there measures the queue.

Part 2 ("one-equation commands cost one equation"): on every corpus paper with a numbered equation, the CPU time
of `read --eq N`, `shapes`, `numbers`, `code` and `html` as a ratio to a whole-paper `read` in the same process
(imports warm, every per-paper cache dropped before each command), for N = the first and the last numbered
equation (the worse ratio is printed). Two ratios per command: the whole command (document load included) and
the analysis alone (the command minus its document load, measured as `skim`'s load in the same process).
Every command runs once, untimed, on the first paper before the table (imports a command makes on first use,
such as SymPy's LaTeX reader for `code`, are paid once per process, not by the first paper's ratio).
Targets: one-equation commands ≤ 0.5× a `read`, `html` ≤ 1.5×. The `floor` column is what any one-equation
command pays before its own equation: the document load and the paper session's index as it starts (lazy: no
display parsed and no sentence classified yet; a reading parses and classifies those that can hold its symbols),
as a fraction of the read. `--repeat N` keeps the least
CPU time of N runs for every figure (the machine is shared). Timeouts (`--timeout`) are CPU seconds.
"""
from __future__ import annotations

import argparse
import contextlib
import functools
import io
import json
import math
import os
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
CORPUS = ROOT.parent / "shared" / "corpus" / "papers"
SCALING_COMMANDS = ("skim", "read", "html", "code")
ONE_EQUATION = ("read --eq", "shapes", "numbers", "code")

_LABEL_COMMANDS = r"(?:label|ref|eqref|autoref|cref|Cref|pageref|nameref|vref|subref|hyperref)"


def synthetic_paper(paper: Path, copies: int, out: Path) -> Path:
    """`copies` copies of the paper's body (preamble once), labels and references renamed per copy."""
    from papermath.source import flatten, open_source

    flat = flatten(open_source(str(paper)))
    text = flat.source_map.text
    begin = text.find("\\begin{document}")
    end = text.rfind("\\end{document}")
    if begin < 0 or end < 0:
        raise SystemExit(f"{paper}: no \\begin{{document}} … \\end{{document}} to copy")
    begin += len("\\begin{document}")
    preamble, body = text[:begin], text[begin:end]
    # \bibliography and \appendix once only (a second \appendix would renumber nothing, but keep it honest)
    body_once = re.sub(r"\\(?:bibliography|bibliographystyle|appendix)\b(?:\{[^}]*\})?", "", body)
    parts = [preamble, body]
    for k in range(2, copies + 1):
        renamed = re.sub(r"(\\" + _LABEL_COMMANDS + r"\*?\s*(?:\[[^\]]*\])?\s*\{)([^}]*)\}",
                         lambda m, k=k: m.group(1) + ",".join(f"{lab.strip()}-copy{k}"
                                                                  for lab in m.group(2).split(",")) + "}",
                         body_once)
        parts.append(renamed)
    parts.append(text[end:])
    out.mkdir(parents=True, exist_ok=True)
    main = out / "main.tex"
    main.write_text("\n".join(parts), encoding="utf-8")
    return out


def _rss_kib() -> int:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * (os.sysconf("SC_PAGE_SIZE") // 1024)


def run_one(argv: list[str]) -> dict:
    """In this process: import the command's module, then time `cli.main(argv)` with its output discarded."""
    import importlib

    from papermath import cli

    command = argv[0]
    importlib.import_module(cli.COMMANDS[command][0])
    if command in ("code", "numbers", "shapes", "html"):
        for module in ("papermath.analysis.read", "papermath.analysis.shapes", "papermath.evaluate",
                       "papermath.codegen", "papermath.render.html"):
            with contextlib.suppress(ImportError):
                importlib.import_module(module)
    base = _rss_kib()
    w0, c0 = time.perf_counter(), time.process_time()
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        code = cli.main(argv)
    w1, c1 = time.perf_counter(), time.process_time()
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return {"wall": w1 - w0, "cpu": c1 - c0, "peak_mib": max(peak - base, 0) / 1024, "exit": code}


def _measure(argv: list[str], timeout: float) -> dict | None:
    """One run in a fresh process; `timeout` is CPU seconds (on a shared machine wall time measures the queue),
    with a wall-clock backstop ten times longer."""
    def limit_cpu() -> None:
        resource.setrlimit(resource.RLIMIT_CPU, (int(timeout) + 1, int(timeout) + 2))
    try:
        done = subprocess.run([sys.executable, __file__, "--_run", json.dumps(argv)], capture_output=True, text=True,
                              timeout=10 * timeout, cwd=ROOT, preexec_fn=limit_cpu)
    except subprocess.TimeoutExpired:
        return None
    if done.returncode < 0:  # SIGXCPU / SIGKILL: over the CPU limit
        return None
    lines = [line for line in done.stdout.splitlines() if line.startswith("{")]
    if done.returncode != 0 or not lines:
        print(f"  failed: {' '.join(argv)}: {done.stderr.strip()[-300:]}", file=sys.stderr)
        return None
    return json.loads(lines[-1])


def _argv(command: str, paper: str, out_dir: str) -> list[str]:
    if command == "html":
        return ["html", paper, "-o", out_dir]
    if command == "code":
        return ["code", paper, "--eq", "1", "--json"]
    return [command, paper, "--json"] if command == "read" else [command, paper]


def fit(sizes: list[int], times: list[float | None]) -> float | None:
    points = [(math.log(s), math.log(t)) for s, t in zip(sizes, times) if t is not None and t > 0]
    if len(points) < 2:
        return None
    mx = sum(x for x, _ in points) / len(points)
    my = sum(y for _, y in points) / len(points)
    den = sum((x - mx) ** 2 for x, _ in points)
    return sum((x - mx) * (y - my) for x, y in points) / den if den else None


def scaling(paper: str, sizes: list[int], commands: list[str], timeout: float) -> None:
    source = CORPUS / paper
    print(f"scaling: {paper} body × size; each run a fresh process, command timed after imports")
    print(f"{'command':8} {'size':>4} {'chars':>9} {'eqs':>5} {'wall s':>8} {'cpu s':>8} {'peak MiB':>9}")
    with tempfile.TemporaryDirectory(prefix="papermath-scaling-") as tmp:
        papers = {}
        for size in sizes:
            path = synthetic_paper(source, size, Path(tmp) / f"x{size}")
            text = (path / "main.tex").read_text(encoding="utf-8")
            papers[size] = (path, len(text), len(re.findall(r"\\begin\{(?:equation|align|gather|multline)", text)))
        for command in commands:
            cpu: list[float | None] = []
            peaks: list[float | None] = []
            for size in sizes:
                path, chars, eqs = papers[size]
                result = _measure(_argv(command, str(path), str(Path(tmp) / f"html{size}")), timeout)
                if result is None:
                    print(f"{command:8} {size:4d} {chars:9d} {eqs:5d} {'timeout':>8} {'':>8} {'':>9}")
                    cpu.append(None)
                    peaks.append(None)
                    continue
                cpu.append(result["cpu"])
                peaks.append(result["peak_mib"])
                print(f"{command:8} {size:4d} {chars:9d} {eqs:5d} {result['wall']:8.3f} {result['cpu']:8.3f} "
                      f"{result['peak_mib']:9.1f}", flush=True)
            all_fit = fit(sizes, cpu)
            big = [(s, t) for s, t in zip(sizes, cpu) if s >= 4]
            big_fit = fit([s for s, _ in big], [t for _, t in big])
            mem_fit = fit([s for s, p in zip(sizes, peaks) if p and p > 1], [p for p in peaks if p and p > 1])

            def show(x: float | None) -> str:
                return f"{x:.2f}" if x is not None else "n/a"
            print(f"{command:8} exponent (cpu): {show(all_fit)} over {sizes[0]}–{sizes[-1]}×, {show(big_fit)} "
                  f"over 4× and up; memory exponent {show(mem_fit)}", flush=True)


def _numbered(doc) -> list[str]:
    return [e.number for e in doc.equations if e.number]


def _drop_caches() -> None:
    """Every per-paper cache papermath keeps, so each command below starts from the source."""
    import gc

    with contextlib.suppress(ImportError, AttributeError):
        from papermath import paper as paper_module
        paper_module.clear_cache()
    with contextlib.suppress(ImportError, AttributeError):
        from papermath.math import clear_parse_cache
        clear_parse_cache()
    with contextlib.suppress(ImportError, AttributeError):
        from papermath.math import printer
        printer._PRINTED.clear()
    for module in list(sys.modules.values()):  # every functools cache of papermath's (parses, keys, quotes)
        if getattr(module, "__name__", "").startswith("papermath"):
            for value in list(vars(module).values()):
                if isinstance(value, functools._lru_cache_wrapper) and value.__module__ == module.__name__:
                    value.cache_clear()
    gc.collect()


def _shared(source: str) -> float:
    """CPU of the document load and the start of the paper's lazy index (`papermath.open(source).index`)."""
    import papermath

    best = math.inf
    for _ in range(REPEAT):
        _drop_caches()
        c0 = time.process_time()
        _ = papermath.open(source).index
        best = min(best, time.process_time() - c0)
    return best


REPEAT = 1
"""Runs per timing; the least CPU time is kept (--repeat)."""


def _timed(argv: list[str]) -> float:
    from papermath import cli

    best = math.inf
    for _ in range(REPEAT):
        _drop_caches()
        c0 = time.process_time()
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            cli.main(argv)
        best = min(best, time.process_time() - c0)
    return best


def ratios(names: list[str]) -> None:
    from papermath.latex import load_document

    for module in ("papermath.commands.read", "papermath.commands.shapes", "papermath.commands.numbers",
                   "papermath.commands.code", "papermath.commands.html", "papermath.commands.skim",
                   "papermath.analysis.read", "papermath.analysis.shapes", "papermath.evaluate", "papermath.codegen",
                   "papermath.render.html"):
        __import__(module)
    print(f"one-equation commands against a whole-paper `read` (CPU time, best of {REPEAT}, same process, caches "
          "dropped each time;")
    print("whole = command incl. document load; analysis = command minus the document load; worse of first/last eq)")
    print("floor = the document load and the paper session's index as it starts (lazy: nothing parsed or classified")
    print("yet), what every command pays before its own equation, as a fraction of the read")
    header = f"{'paper':30} {'eqs':>4} {'load s':>7} {'read s':>7} {'floor':>6}"
    for command in ONE_EQUATION + ("html",):
        header += f" {command:>10}"
    print(header + "   (whole/analysis)")
    worst: dict[str, list[float]] = {c: [] for c in ONE_EQUATION + ("html",)}
    reads: list[float] = []
    floors: list[float] = []
    with tempfile.TemporaryDirectory(prefix="papermath-ratios-") as tmp:
        warm = True
        for name in names:
            source = str(CORPUS / name)
            doc = load_document(source)
            numbers = _numbered(doc)
            if not numbers:
                continue
            if warm:  # what a command imports on first use (SymPy's LaTeX reader for `code`) is paid once, here
                for argv in (["read", source, "--json"], ["read", source, "--eq", numbers[0], "--json"],
                             ["shapes", source, "--eq", numbers[0], "--json"],
                             ["numbers", source, "--eq", numbers[0], "--json"],
                             ["code", source, "--eq", numbers[0], "--json"], ["html", source, "-o", tmp + "/warm"]):
                    _timed(argv)
                warm = False
            load = math.inf
            for _ in range(REPEAT):
                _drop_caches()
                c0 = time.process_time()
                load_document(source)
                load = min(load, time.process_time() - c0)
            read = _timed(["read", source, "--json"])
            reads.append(read)
            shared = _shared(source)
            floors.append(shared / read)
            line = f"{name:30} {len(doc.equations):4d} {load:7.3f} {read:7.3f} {shared / read:6.2f}"
            for command in ONE_EQUATION + ("html",):
                if command == "html":
                    costs = [_timed(["html", source, "-o", str(Path(tmp) / name)])]
                else:
                    verb = command.split()[0]
                    costs = [_timed([verb, source, "--eq", n, "--json"]) for n in dict.fromkeys((numbers[0],
                                                                                                  numbers[-1]))]
                cost = max(costs)
                whole = cost / read
                analysis = max(cost - load, 0.0) / max(read - load, 1e-9)
                worst[command].append(whole)
                line += f" {whole:5.2f}/{analysis:4.2f}"
            print(line, flush=True)
    print(f"{'median read s':30} {'':4} {'':7} {statistics.median(reads):7.3f}")
    summary = "max whole ratio:"
    for command, values in worst.items():
        summary += f" {command} {max(values):.2f};"
    print(summary)
    summary = "median whole ratio:"
    for command, values in worst.items():
        target = 1.5 if command == "html" else 0.5
        met = sum(v <= target for v in values)
        summary += f" {command} {statistics.median(values):.2f} ({met}/{len(values)} ≤ {target});"
    print(summary)
    print(f"floor: median {statistics.median(floors):.2f}, min {min(floors):.2f}, max {max(floors):.2f} "
          f"({sum(f <= 0.5 for f in floors)}/{len(floors)} papers where a one-equation command could be ≤ 0.5)")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--part", choices=("scaling", "ratios", "both"), default="both")
    parser.add_argument("--paper", default="deepseek-v3-2412.19437", help="corpus paper whose body is copied")
    parser.add_argument("--sizes", default="1,2,4,8,16,32", help="copies of the body, comma-separated")
    parser.add_argument("--commands", default=",".join(SCALING_COMMANDS), help="of skim,read,html,code")
    parser.add_argument("--timeout", type=float, default=600.0, help="CPU seconds per run before a timeout")
    parser.add_argument("--papers", default="", help="papers for the ratios (default: all corpus papers)")
    parser.add_argument("--repeat", type=int, default=1, help="ratios: runs per timing, the least CPU time kept")
    parser.add_argument("--_run", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args._run:
        print(json.dumps(run_one(json.loads(args._run))))
        return 0
    if not CORPUS.is_dir():
        print(f"{CORPUS} not found: the corpus lives in ../shared (CI and developer sessions only)")
        return 0
    if args.part in ("scaling", "both"):
        scaling(args.paper, [int(s) for s in args.sizes.split(",")], args.commands.split(","), args.timeout)
    global REPEAT
    REPEAT = max(1, args.repeat)
    if args.part in ("ratios", "both"):
        names = [n for n in args.papers.split(",") if n] or sorted(p.name for p in CORPUS.iterdir() if p.is_dir())
        ratios(names)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
