"""Terminal tables: golden output at a fixed width, cells that wrap instead of being cut, step numbers, --width
and COLUMNS honoured, colour on a terminal only and never with NO_COLOR."""
from __future__ import annotations

import contextlib
import io
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import EXAMPLE, REPO
from papermath.cli import main

GOLDEN = Path(__file__).parent / "golden"
ATTENTION_VALUES = ["--set", "Q=[[1,0]]", "--set", "K=[[1,0],[0,1],[1,1]]", "--set", "V=[[10,0],[0,10],[5,5]]"]
LONG = r"\log\sum_i e^{z_i} - \frac{1}{n}\sum_{j=1}^{n} \mathrm{softplus}(w_j^\top x_j + b_j)"
ANSI = re.compile(r"\x1b\[[0-9;]*m")


def run(argv: list[str]) -> str:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(argv) in (0, 1)
    return out.getvalue()


@pytest.mark.parametrize("name, argv", [
    ("numbers-attention-eq1-w100.txt",
     ["numbers", str(EXAMPLE), "--eq", "1", *ATTENTION_VALUES, "--extreme", "--width", "100"]),
    ("shapes-attention-eq1-w80.txt", ["shapes", str(EXAMPLE), "--eq", "1", "--width", "80"]),
])
def test_golden_tables_at_a_fixed_width(name, argv):
    text = run(argv)
    assert text == (GOLDEN / name).read_text(), f"update tests/golden/{name} if the change is intended"


def _cells(text: str, column: int = 1) -> list[str]:
    """The numbered rows of a steps table, each row's cells joined across its wrapped lines."""
    rows: list[list[str]] = []
    header = next(line for line in text.splitlines() if line.lstrip().startswith("#   sub-expression"))
    starts = [m.start() for m in re.finditer(r"(?<=\s{2})\S", header)] + [len(header) + 999]
    starts = [0] + starts
    for line in text.splitlines()[text.splitlines().index(header) + 2:]:
        if not line.strip() or line.startswith(("result", "note", "check", "extreme", "  changed")):
            break
        fields = [line[starts[k]:starts[k + 1]].strip() for k in range(len(starts) - 1)]
        if fields[0]:
            rows.append(fields)
        else:
            rows[-1] = [a + (" " if a and b else "") + b for a, b in zip(rows[-1], fields)]
    return [r[column] for r in rows]


@pytest.mark.parametrize("width", [60, 80, 120])
def test_long_sub_expressions_wrap_whole_and_steps_are_numbered(width):
    text = run(["numbers", "--latex", LONG, "--set", "z=[1,2,3]", "--set", "w=[1,0,1]", "--set", "x=[2,1,0]",
                "--set", "b=[0,0,1]", "--width", str(width)])
    table = text[text.index("steps, inside out"):]
    assert max(len(line) for line in table.splitlines() if not line.startswith("result")) <= width
    numbers = [int(n) for n in _cells(table, 0)]
    assert numbers == list(range(1, len(numbers) + 1)) and len(numbers) == 4
    latex = [re.sub(r"\s+", "", cell) for cell in _cells(table, 1)]
    # Each step's whole sub-expression is there, none cut with an ellipsis: four different labels.
    assert "…" not in table and len(set(latex)) == 4
    assert latex[-1] == re.sub(r"\s+", "", r"\log {\sum_{i} e^{z_{i}}} - \frac{1}{n} \sum_{j = 1}^{n} "
                                              r"\mathrm{softplus}(w_{j}^{\top} x_{j} + b_{j})")


def _pty_run(argv: list[str], env: dict[str, str]) -> str:
    import pty
    master, slave = pty.openpty()
    full = {**os.environ, "PYTHONPATH": str(REPO), **env}
    full.pop("NO_COLOR", None) if "NO_COLOR" not in env else None
    process = subprocess.Popen([sys.executable, "-m", "papermath", *argv], stdout=slave, stderr=slave,
                               stdin=subprocess.DEVNULL, env=full, cwd=REPO)
    os.close(slave)
    chunks = []
    while True:
        try:
            data = os.read(master, 65536)
        except OSError:
            break
        if not data:
            break
        chunks.append(data)
    process.wait(timeout=120)
    os.close(master)
    return b"".join(chunks).decode("utf-8", "replace")


def test_colour_on_a_terminal_and_none_with_no_color_or_in_a_pipe():
    argv = ["shapes", "--latex", "QK^\\top", "--shape", "Q=n,d_k", "--shape", "K=m,d_k"]
    on_tty = _pty_run(argv, {"TERM": "xterm-256color", "COLUMNS": "90"})
    assert ANSI.search(on_tty), on_tty[:300]
    no_color = _pty_run(argv, {"TERM": "xterm-256color", "COLUMNS": "90", "NO_COLOR": "1"})
    assert not ANSI.search(no_color) and "[n, m]" in no_color
    piped = subprocess.run([sys.executable, "-m", "papermath", *argv], capture_output=True, text=True, cwd=REPO,
                           env={**os.environ, "PYTHONPATH": str(REPO)})
    assert not ANSI.search(piped.stdout) and "[n, m]" in piped.stdout
    assert ANSI.sub("", on_tty).replace("\r\n", "\n").strip().splitlines()[-1] == piped.stdout.strip().splitlines()[-1]


def test_columns_sets_the_width_when_no_width_is_given(monkeypatch):
    monkeypatch.setenv("COLUMNS", "64")
    narrow = run(["shapes", str(EXAMPLE), "--eq", "1"])
    monkeypatch.setenv("COLUMNS", "150")
    wide = run(["shapes", str(EXAMPLE), "--eq", "1"])
    table = lambda text: [line for line in text.splitlines()[2:] if not line.startswith("result")]  # noqa: E731
    assert max(map(len, table(narrow))) <= 64 < max(map(len, table(wide))) <= 150
    assert len(table(narrow)) > len(table(wide))
