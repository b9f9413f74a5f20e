"""The long fuzzing campaign of issue 12: mutated formulas through every stage, mutated papers through `read`.

    .venv/bin/python benchmarks/fuzz_campaign.py --formulas 100000 --papers 2000 --workers 2 \
        --out run.txt --json run.json
        # a worker: about 0.02-0.05 s a formula and 1-1.4 s a paper on a quiet machine (≈ 1-2.5 h for this size,
        # divided by --workers up to the free cores)
    .venv/bin/python benchmarks/fuzz_campaign.py --formulas 2000 --papers 50 --seed 7  # a few minutes

Inputs are built from real formulas (tests/fuzz/seeds.py: the campaign's own, the example paper's and, when
../shared exists, every display equation of the corpus) and real papers (the corpus; else the example paper)
by the mutations of tests/fuzz/mutate.py, each from its own seed so any input can be replayed
(`--replay formula:SEED` or `--replay paper:SEED`). Each input runs in a worker process: past `--timeout`
seconds of CPU time (default 10) the worker raises where it is (the hang's signature names that frame); past
8 times that (at least 60 s) of wall-clock time it is killed and restarted. CPU time, because the machine
is shared: inputs over the limit in wall-clock time are counted and printed too. Prints inputs tried, crashes
(exceptions that are not papermath's own), hangs, invalid generated modules, printer fixed-point failures, and
every unique signature with a count and
the seed of its first input. `--save DIR` writes each signature's first input there. With `--out`/`--json`
the report is rewritten every `--checkpoint` seconds while the campaign runs, so a run stopped at any
moment (SIGTERM/SIGHUP: "INTERRUPTED"; killed outright: "STILL RUNNING") leaves the figures of every input
it finished.
"""
from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import random
import shutil
import signal
import sys
import tempfile
import threading
import time
import traceback
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests"))

from fuzz import mutate, seeds
from fuzz.pipeline import Finding, run_formula, run_paper

PAPER_FILES = (".tex", ".sty", ".bib", ".bbl", ".md", ".cls")


class FuzzTimeout(BaseException):
    """Raised in the worker at the soft time limit, so the traceback says where the time went."""


_ARMED = [False]


def _alarm(signum, frame):
    if _ARMED[0]:
        _ARMED[0] = False
        raise FuzzTimeout()


def _warm_up() -> None:
    """Import every stage before the first input, so a time-out never lands inside an import."""
    import papermath.analysis.explain
    import papermath.analysis.read
    import papermath.analysis.shapes
    import papermath.cli
    import papermath.codegen
    import papermath.evaluate
    import papermath.latex  # noqa: F401
    with tempfile.TemporaryDirectory() as folder:
        run_formula(r"\mathrm{softmax}(QK^\top/\sqrt{d_k})V")
        run_paper(paper_input(0, [seeds.EXAMPLE], [], Path(folder) / "p"))


def formula_input(seed: int, pool: list[str]) -> str:
    rng = random.Random(seed)
    return mutate.mutate_formula(rng.choice(pool), rng)


def paper_input(seed: int, papers: list[Path], pool: list[str], into: Path) -> Path:
    """A mutated copy of one paper in `into` (one of its .tex files mutated)."""
    rng = random.Random(seed)
    paper = rng.choice(papers)
    if into.exists():
        shutil.rmtree(into)
    into.mkdir(parents=True)
    files = [p for p in sorted(paper.rglob("*")) if p.is_file() and p.suffix in PAPER_FILES]
    for path in files:
        target = into / path.relative_to(paper)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(path.read_bytes())
    tex = [p for p in files if p.suffix == ".tex"] or [p for p in files if p.suffix == ".md"]
    if tex:
        chosen = rng.choice(tex)
        target = into / chosen.relative_to(paper)
        text = mutate.mutate_paper(target.read_text(encoding="utf-8", errors="replace"), rng, pool)
        target.write_bytes(text.encode("utf-8", "surrogatepass"))
    return into


def _worker(conn, stage, timeout: float, pool: list[str], papers: list[str]) -> None:
    # The limit is on the worker's CPU time (ITIMER_PROF → SIGPROF), not the wall clock: on a machine shared
    # with others the wall clock measures the load, not papermath. SIGALRM stays free for papermath's own
    # per-formula budget (papermath.budget), which a user's `read` has too.
    signal.signal(signal.SIGPROF, _alarm)
    _warm_up()
    conn.send("ready")  # the parent starts its clock only now: warming up is not part of any input's time
    scratch = Path(tempfile.mkdtemp(prefix="papermath-fuzz-"))
    paper_paths = [Path(p) for p in papers]

    def on_stage(name: str) -> None:
        stage.value = name.encode()[:30]

    try:
        while True:
            job = conn.recv()
            if job is None:
                break
            kind, seed = job
            stage.value = kind.encode()
            start = time.perf_counter()
            findings: list[Finding] = []
            timed_out = False
            _ARMED[0] = True
            signal.setitimer(signal.ITIMER_PROF, timeout)
            try:
                if kind == "formula":
                    findings = run_formula(formula_input(seed, pool), on_stage)
                else:
                    findings = run_paper(paper_input(seed, paper_paths, pool, scratch / "paper"), on_stage)
            except FuzzTimeout as error:
                frames = [f for f in traceback.extract_tb(error.__traceback__) if "/papermath/" in f.filename]
                where = f"{Path(frames[-1].filename).name}:{frames[-1].name}" if frames else "?"
                name = stage.value.decode()
                findings = [Finding("hang", name, f"{name}:hang:{where}", f"over {timeout:g} s")]
                timed_out = True
            finally:
                _ARMED[0] = False
                signal.setitimer(signal.ITIMER_PROF, 0)
            conn.send(([(f.kind, f.stage, f.signature, f.detail) for f in findings], time.perf_counter() - start))
            if timed_out:
                break  # the interrupted stage may have left a cache half-built: the parent starts a fresh worker
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


class Pool1:
    """One worker process, restarted after a hard timeout (and every `recycle` inputs, to bound memory)."""

    def __init__(self, timeout: float, pool: list[str], papers: list[Path], recycle: int = 3000) -> None:
        self.timeout, self.pool, self.papers, self.recycle = timeout, pool, [str(p) for p in papers], recycle
        self.ctx = mp.get_context("fork")
        self.process = None
        self.done = 0

    def _start(self) -> None:
        self.parent, child = self.ctx.Pipe()
        self.stage = self.ctx.Array("c", 32)
        self.process = self.ctx.Process(target=_worker, args=(child, self.stage, self.timeout, self.pool, self.papers),
                                        daemon=True)
        self.process.start()
        self.done = 0
        if not self.parent.poll(600) or self.parent.recv() != "ready":
            raise RuntimeError("the fuzzing worker did not start")

    def stop(self) -> None:
        if self.process is not None:
            try:
                self.parent.send(None)
            except (BrokenPipeError, OSError):
                pass
            self.process.join(5)
            if self.process.is_alive():
                self.process.kill()
                self.process.join()
            self.process = None

    def run(self, kind: str, seed: int) -> tuple[list[tuple[str, str, str, str]], float]:
        if self.process is None or self.done >= self.recycle:
            self.stop()
            self._start()
        self.done += 1
        start = time.perf_counter()
        self.parent.send((kind, seed))
        if self.parent.poll(max(60.0, 8 * self.timeout)):  # wall clock: a worker stuck outside Python
            try:
                findings, elapsed = self.parent.recv()
                if any(f[0] == "hang" for f in findings):
                    self.stop()
                return findings, elapsed
            except EOFError:
                pass
        # Killed by the hard limit, or the worker died (a segfault, the OOM killer): restart it.
        alive = self.process.is_alive()
        name = self.stage.value.decode() or kind
        self.process.kill()
        self.process.join()
        self.process = None
        elapsed = time.perf_counter() - start
        if alive:
            return [("hang", name, f"{name}:hang:killed", f"no answer in {elapsed:.0f} s")], elapsed
        return [("crash", name, f"{name}:worker-died", "the worker process died")], elapsed


class Tally:
    """What a campaign has seen so far; `result()` gives the figures at any moment (a stopped run reports too)."""

    def __init__(self, args, pool: list[str], papers: list[Path]) -> None:
        self.args, self.pool, self.papers = args, pool, papers
        self.counts: Counter = Counter()
        self.first: dict[str, tuple[str, int, str]] = {}
        self.kinds: Counter = Counter()
        self.slowest: list[tuple[float, str, int]] = []
        self.tried: Counter = Counter()
        self.busy: Counter = Counter()
        self.wall_over = 0
        self.started = time.perf_counter()
        self.state = "running"

    def add(self, kind: str, seed: int, findings, elapsed: float) -> None:
        self.tried[kind] += 1
        self.busy[kind] += elapsed
        self.wall_over += elapsed > self.args.timeout
        self.slowest = sorted([*self.slowest, (elapsed, kind, seed)], reverse=True)[:5]
        for f_kind, _stage, sig, detail in {f[2]: f for f in findings}.values():
            self.counts[sig] += 1
            self.kinds[(kind, f_kind)] += 1
            self.first.setdefault(sig, (kind, seed, detail))

    def result(self) -> dict:
        counts, first = self.counts, self.first
        return {"tried": dict(self.tried), "kinds": {f"{k}/{f}": v for (k, f), v in self.kinds.items()},
                "signatures": {sig: {"count": counts[sig], "first": {"input": first[sig][0], "seed": first[sig][1],
                                                                      "detail": first[sig][2]}}
                               for sig in sorted(counts, key=lambda s: -counts[s])},
                "seconds": round(time.perf_counter() - self.started, 1),
                "busy_seconds": {k: round(v, 1) for k, v in self.busy.items()},
                "timeout": self.args.timeout,
                "slowest": [{"seconds": round(t, 2), "input": k, "seed": s} for t, k, s in self.slowest],
                "formula_pool": len(self.pool), "papers": [p.name for p in self.papers],
                "interrupted": self.state == "interrupted", "state": self.state, "seed": self.args.seed,
                "workers": getattr(self.args, "workers", 1),
                "wall_over": self.wall_over, "planned": {"formula": self.args.formulas, "paper": self.args.papers}}


def write_out(args, tally: Tally) -> None:
    """The report (and its JSON) as it stands, replacing the last one whole: a run killed at any moment
    leaves the figures of every input it finished."""
    result = tally.result()
    for path, text in ((args.out, report(result) if args.out else None),
                       (args.json, json.dumps(result, indent=1) if args.json else None)):
        if path:
            temporary = Path(f"{path}.tmp")
            temporary.write_text(text + "\n", encoding="utf-8")
            temporary.replace(path)


def campaign(args) -> dict:
    pool = seeds.all_formulas()
    papers = seeds.corpus_papers() or [seeds.EXAMPLE]
    runners = [Pool1(args.timeout, pool, papers) for _ in range(max(1, args.workers))]
    tally = Tally(args, pool, papers)
    jobs = [("formula", args.seed * 1_000_003 + k) for k in range(args.formulas)]
    jobs += [("paper", args.seed * 1_000_003 + k) for k in range(args.papers)]
    random.Random(args.seed).shuffle(jobs)
    # Each runner thread drives its own worker process; the threads only wait on pipes, so the inputs, their
    # seeds and the figures are the same for any number of workers (only the order they finish in changes).
    queue = iter(enumerate(jobs, 1))
    lock = threading.Lock()
    stopping = threading.Event()

    def _drive(runner: Pool1) -> None:
        nonlocal last_write
        while not stopping.is_set():
            with lock:
                item = next(queue, None)
            if item is None:
                return
            n, (kind, seed) = item
            findings, elapsed = runner.run(kind, seed)
            with lock:
                tally.add(kind, seed, findings, elapsed)
                if args.progress and sum(tally.tried.values()) % args.progress == 0:
                    print(f"  … {sum(tally.tried.values())}/{len(jobs)} inputs, {sum(tally.counts.values())} "
                          f"findings, {len(tally.counts)} signatures, {time.perf_counter() - tally.started:.0f} s",
                          flush=True)
                if time.perf_counter() - last_write > args.checkpoint:
                    write_out(args, tally)
                    last_write = time.perf_counter()

    def _stop(signum, frame):
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, _stop)
    signal.signal(signal.SIGHUP, _stop)
    last_write = time.perf_counter()
    threads = [threading.Thread(target=_drive, args=(runner,), daemon=True) for runner in runners]
    try:
        for thread in threads:
            thread.start()
        while any(thread.is_alive() for thread in threads):
            for thread in threads:
                thread.join(0.5)
        tally.state = "finished"
    except KeyboardInterrupt:
        tally.state = "interrupted"  # report what was tried so far, saying so
        stopping.set()
    finally:
        for thread in threads:
            thread.join(max(60.0, 8 * args.timeout) + 10)
        for runner in runners:
            runner.stop()
    with lock:
        write_out(args, tally)
    return tally.result()


def report(result: dict) -> str:
    tried = result["tried"]
    kinds = result["kinds"]

    def count(kind: str, finding: str) -> int:
        return kinds.get(f"{kind}/{finding}", 0)

    workers = result.get("workers", 1)
    lines = [f"fuzz campaign: {tried.get('formula', 0)} mutated formulas (from {result['formula_pool']} real ones), "
             f"{tried.get('paper', 0)} mutated papers (from {len(result['papers'])}), {result['seconds']:.0f} s, "
             f"{workers} worker{'s' if workers > 1 else ''}, hang = more than {result['timeout']:g} s of CPU time "
             "on one input "
             f"({result.get('wall_over', 0)} inputs took over {result['timeout']:g} s of wall-clock time on this "
             "shared machine)"
             + {"finished": "", "running": " — STILL RUNNING (figures so far", "interrupted": " — INTERRUPTED (figures so far"}
             [result.get("state", "interrupted" if result.get("interrupted") else "finished")]
             + (f"; planned {result['planned']['formula']} formulas, {result['planned']['paper']} papers, seed "
                f"{result.get('seed', '?')})" if result.get("state", "finished") != "finished" else "")]
    busy = result.get("busy_seconds", {})
    if busy:
        lines.append("  time per input: " + ", ".join(
            f"{kind}s {busy[kind] / tried[kind]:.3f} s" for kind in ("formula", "paper") if tried.get(kind)))
    for kind in ("formula", "paper"):
        lines.append(f"  {kind}s: crashes {count(kind, 'crash')}, hangs {count(kind, 'hang')}, invalid modules "
                     f"{count(kind, 'invalid-module')}, printer not a fixed point {count(kind, 'not-idempotent')}")
    lines.append(f"  unique signatures: {len(result['signatures'])}")
    for sig, info in result["signatures"].items():
        first = info["first"]
        lines.append(f"    {info['count']:6d}  {sig}   (first: --replay {first['input']}:{first['seed']}; "
                     f"{first['detail'][:90]!r})")
    lines.append("  slowest inputs: " + ", ".join(f"{s['input']}:{s['seed']} {s['seconds']} s"
                                                 for s in result["slowest"]))
    return "\n".join(lines)


def replay(spec: str, save: Path | None) -> None:
    kind, seed_text = spec.split(":", 1)
    seed = int(seed_text)
    pool = seeds.all_formulas()
    papers = seeds.corpus_papers() or [seeds.EXAMPLE]
    if kind == "formula":
        latex = formula_input(seed, pool)
        print(repr(latex[:2000]))
        start = time.perf_counter()
        print(run_formula(latex), f"{time.perf_counter() - start:.2f} s")
    else:
        folder = paper_input(seed, papers, pool, (save or Path(tempfile.mkdtemp())) / f"paper-{seed}")
        print(folder)
        start = time.perf_counter()
        print(run_paper(folder), f"{time.perf_counter() - start:.2f} s")


def shrink(latex: str, signature: str, budget: int = 400) -> str:
    """The smallest formula (by whole tokens, ddmin) whose run still has `signature`: a regression case."""
    def keeps(candidate: str) -> bool:
        return any(f.signature == signature for f in run_formula(candidate))

    toks = mutate.tokens(latex)
    chunks = 2
    tries = 0
    while len(toks) > 1 and tries < budget:
        size = max(1, len(toks) // chunks)
        for i in range(0, len(toks), size):
            tries += 1
            candidate = toks[:i] + toks[i + size:]
            if keeps("".join(candidate)):
                toks, chunks = candidate, max(chunks - 1, 2)
                break
        else:
            if size == 1:
                break
            chunks = min(len(toks), chunks * 2)
    return "".join(toks)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--formulas", type=int, default=2000)
    parser.add_argument("--papers", type=int, default=50)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--workers", type=int, default=1, help="worker processes run side by side (the same inputs "
                        "and figures for any number; use the machine's free cores)")
    parser.add_argument("--timeout", type=float, default=10.0, help="seconds per input before it counts as a hang")
    parser.add_argument("--progress", type=int, default=0, help="print a progress line every N inputs")
    parser.add_argument("--json", metavar="FILE", help="also write the figures as JSON")
    parser.add_argument("--out", metavar="FILE", help="write the report to FILE too, rewritten every --checkpoint "
                        "seconds while the campaign runs (a run stopped at any moment leaves its figures)")
    parser.add_argument("--checkpoint", type=float, default=60.0, help="seconds between rewrites of --out/--json")
    parser.add_argument("--replay", metavar="KIND:SEED", help="run one input again (formula:SEED or paper:SEED)")
    parser.add_argument("--save", metavar="DIR", type=Path, help="where --replay writes a mutated paper")
    parser.add_argument("--shrink", metavar="SEED", type=int, help="shrink the formula of SEED to the smallest one "
                        "with the same finding (needs --signature)")
    parser.add_argument("--signature", help="the finding to keep while shrinking")
    args = parser.parse_args(argv)
    if args.replay:
        replay(args.replay, args.save)
        return 0
    if args.shrink is not None:
        latex = formula_input(args.shrink, seeds.all_formulas())
        signature = args.signature or next((f.signature for f in run_formula(latex)), None)
        if signature is None:
            print("no finding to shrink")
            return 1
        print(signature)
        print(repr(shrink(latex, signature)))
        return 0
    print(report(campaign(args)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
