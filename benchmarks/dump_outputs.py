"""Dump what the commands print on every corpus paper, to check that a speed change changed no output.

    PYTHONHASHSEED=0 .venv/bin/python benchmarks/dump_outputs.py OUT_DIR [--papers DyT,LEN]
    diff -r BEFORE_DIR AFTER_DIR

For each paper: `read --json`; for its first and last numbered equation `read --eq N --json` and `shapes`,
`numbers`, `code --eq N`, each as text and with `--json`; and `html` (its index.html, the output directory's
name replaced by TMP). Each file holds the exit code, standard output and standard error. Run it before and
after a change with the same PYTHONHASHSEED and compare the two directories (a difference under two hash seeds
is a nondeterminism to fix: sort by a stable key)."""
from __future__ import annotations

import argparse
import contextlib
import io
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
CORPUS = ROOT.parent / "shared" / "corpus" / "papers"


def _run(argv: list[str]) -> str:
    from papermath import cli

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code: object = cli.main(argv)
        except SystemExit as stop:
            code = stop.code
    return f"exit {code}\n--stdout--\n{out.getvalue()}\n--stderr--\n{err.getvalue()}"


def dump(name: str, out: Path) -> int:
    """Every output of one paper into out/<name>/; the number of numbered equations."""
    from papermath.latex import load_document

    source = str(CORPUS / name)
    folder = out / name
    folder.mkdir(parents=True, exist_ok=True)
    numbers = [e.number for e in load_document(source).equations if e.number]
    (folder / "read.txt").write_text(_run(["read", source, "--json"]))
    for tag, number in (("first", numbers[:1]), ("last", numbers[-1:])):
        for n in number:
            (folder / f"read_eq_{tag}.txt").write_text(_run(["read", source, "--eq", n, "--json"]))
            for command in ("shapes", "numbers", "code"):
                (folder / f"{command}_{tag}.txt").write_text(_run([command, source, "--eq", n]))
                (folder / f"{command}_{tag}_json.txt").write_text(_run([command, source, "--eq", n, "--json"]))
    with tempfile.TemporaryDirectory() as tmp:
        shown = _run(["html", source, "-o", tmp]).replace(tmp, "TMP")
        page = Path(tmp) / "index.html"
        html = page.read_text(encoding="utf-8") if page.exists() else "no index.html"
    (folder / "html.txt").write_text(shown + "\n--index--\n" + html)
    return len(numbers)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("out", help="directory to write the outputs into")
    parser.add_argument("--papers", default="", help="comma-separated paper directories (default: all)")
    args = parser.parse_args(argv)
    if not CORPUS.is_dir():
        print(f"{CORPUS} not found: the corpus lives in ../shared (CI and developer sessions only)")
        return 0
    names = [n for n in args.papers.split(",") if n] or sorted(p.name for p in CORPUS.iterdir() if p.is_dir())
    for name in names:
        print(name, dump(name, Path(args.out)), "numbered equations", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
