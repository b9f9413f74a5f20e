"""The command line as a user meets it: formulas that start with '-', arXiv URLs and ids, .zip archives, a
"fetching" line for downloads, PAPERMATH_OFFLINE, `papermath cache`, did-you-mean, help that stands on its own,
and no traceback when the reader of the output goes away."""
from __future__ import annotations

import contextlib
import io
import os
import subprocess
import sys
import zipfile

import pytest

from conftest import EXAMPLE, REPO
from papermath.cli import COMMANDS, main
from papermath.source.arxiv import ArxivId, parse_arxiv_id
from test_source_arxiv import EPRINT, arxiv  # noqa: F401 - the local arXiv mirror fixture


def run(argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(argv)
    return code, out.getvalue(), err.getvalue()


@pytest.mark.parametrize("argv, expect", [
    (["explain", r"-\log \sigma(\beta x)"], "minus"),
    (["explain", "-x^2", "--json"], '"latex": "-x^2"'),
    (["parse", "-a + b"], "UnaryOp"),
    (["numbers", "--latex", "-x^2", "--set", "x=3"], "= -9"),
    (["shapes", "--latex", "-QK^\\top", "--shape", "Q=n,d_k", "--shape", "K=m,d_k"], "result: [n, m]"),
    (["explain", "--", "-x"], "minus x"),
])
def test_formulas_may_start_with_a_minus(argv, expect):
    code, out, err = run(argv)
    assert code == 0, err
    assert expect in out


@pytest.mark.parametrize("argv, message", [
    (["rad", "paper/"], "invalid choice: 'rad'"),
    (["read", str(EXAMPLE), "--eqq", "1"], "did you mean --eq?"),
    (["numbers", "--lattex", "x"], "did you mean --latex"),
    (["shape", "--latex", "x"], "did you mean shapes"),
])
def test_did_you_mean_for_commands_and_options(argv, message):
    code, out, err = run(argv)
    assert code == 2 and message in err and "Traceback" not in err
    assert "usage: papermath" in err


def test_did_you_mean_for_an_equation_and_a_symbol():
    code, _, err = run(["read", str(EXAMPLE), "--eq", "5c"])
    assert code == 2 and "numbers run (1)" in err
    code, _, err = run(["read", str(EXAMPLE), "--eq", "1", "--symbol", "Qq"])
    assert code == 2 and "did you mean Q?" in err


@pytest.mark.parametrize("spec, expected", [
    ("https://arxiv.org/abs/2311.12908", ArxivId("2311.12908", None)),
    ("https://arxiv.org/abs/2311.12908v2", ArxivId("2311.12908", "v2")),
    ("http://arxiv.org/pdf/2311.12908v2", ArxivId("2311.12908", "v2")),
    ("https://arxiv.org/pdf/2311.12908v2.pdf", ArxivId("2311.12908", "v2")),
    ("arxiv.org/pdf/2311.12908", ArxivId("2311.12908", None)),
    ("https://arxiv.org/html/2311.12908v1", ArxivId("2311.12908", "v1")),
    ("https://www.arxiv.org/abs/2311.12908?context=cs", ArxivId("2311.12908", None)),
    ("https://arxiv.org/abs/hep-th/9901001v1", ArxivId("hep-th/9901001", "v1")),
    ("arXiv:2311.12908", ArxivId("2311.12908", None)),
    ("arXiv: 2311.12908v3", ArxivId("2311.12908", "v3")),
    ("https://example.org/abs/2311.12908", None),
    ("https://arxiv.org/list/cs.LG/recent", None),
])
def test_arxiv_urls_and_ids(spec, expected):
    assert parse_arxiv_id(spec) == expected


def test_an_arxiv_url_downloads_with_a_fetching_line_then_reads_offline(arxiv, monkeypatch):  # noqa: F811
    arxiv.routes["/e-print/1706.03762v7"] = [(200, EPRINT)]
    code, out, err = run(["skim", "https://arxiv.org/abs/1706.03762v7"])
    assert code == 0, err
    assert "fetching the source of arXiv:1706.03762v7" in err and err.count("\n") == 1
    assert arxiv.hits == ["/e-print/1706.03762v7"]
    # Offline: the cached version is read (a bare id takes the latest cached version), the network never.
    monkeypatch.setenv("PAPERMATH_OFFLINE", "1")
    from papermath.paper import clear_cache
    clear_cache()
    code, out, err = run(["skim", "arXiv:1706.03762"])
    assert code == 0, err
    assert err == "" and arxiv.hits == ["/e-print/1706.03762v7"]
    code, _, err = run(["skim", "2412.19437v1"])
    assert code == 2 and "PAPERMATH_OFFLINE is set" in err and "not in the cache" in err
    assert arxiv.hits == ["/e-print/1706.03762v7"]


def test_cache_ls_and_clear_touch_only_papermaths_folders(arxiv, tmp_path):  # noqa: F811
    arxiv.routes["/e-print/1706.03762v7"] = [(200, EPRINT)]
    assert run(["skim", "1706.03762v7"])[0] == 0
    foreign = tmp_path / "cache" / "not-papermaths.txt"
    foreign.write_text("keep me")
    code, out, _ = run(["cache", "ls"])
    assert code == 0 and "arXiv:1706.03762v7" in out and "arXiv e-prints (arxiv/): 1" in out
    code, out, _ = run(["cache", "clear"])
    assert code == 0 and out.startswith("removed ")
    assert foreign.read_text() == "keep me" and not (tmp_path / "cache" / "arxiv").exists()
    assert "nothing cached" in run(["cache", "ls"])[1]


def _zip(path, files: dict[str, str]) -> None:
    with zipfile.ZipFile(path, "w") as zf:
        for name, text in files.items():
            zf.writestr(name, text)


def test_a_zip_of_the_sources_is_read(tmp_path, monkeypatch):
    monkeypatch.setenv("PAPERMATH_CACHE", str(tmp_path / "cache"))
    files = {str(p.relative_to(EXAMPLE)): p.read_text() for p in EXAMPLE.rglob("*") if p.is_file()}
    _zip(tmp_path / "paper.zip", {f"paper/{k}": v for k, v in files.items()})
    code, out, err = run(["skim", str(tmp_path / "paper.zip")])
    assert code == 0, err
    assert "A Small Note on Attention and Routing" in out


@pytest.mark.parametrize("name", ["../evil.tex", "/abs/evil.tex", "a/../../evil.tex"])
def test_a_zip_that_leaves_its_folder_is_refused(tmp_path, monkeypatch, name):
    monkeypatch.setenv("PAPERMATH_CACHE", str(tmp_path / "cache"))
    _zip(tmp_path / "bad.zip", {"main.tex": "\\documentclass{article}", name: "x"})
    code, _, err = run(["skim", str(tmp_path / "bad.zip")])
    assert code == 2 and ("'..'" in err or "absolute path" in err)
    assert not (tmp_path / "evil.tex").exists()


def test_help_texts_stand_on_their_own():
    for command in COMMANDS:
        proc = subprocess.run([sys.executable, "-m", "papermath", command, "--help"], capture_output=True,
                              text=True, cwd=REPO, env={**os.environ, "PYTHONPATH": str(REPO)})
        assert proc.returncode == 0, command
        assert "guide 00" not in proc.stdout.lower() and "the guides" not in proc.stdout.lower(), command


def test_a_closed_pipe_is_no_traceback():
    """`papermath greek | head -1`: the reader goes away early; papermath stops quietly."""
    reader = subprocess.Popen(["head", "-c", "10"], stdin=subprocess.PIPE, stdout=subprocess.DEVNULL)
    proc = subprocess.run([sys.executable, "-m", "papermath", "greek"], stdout=reader.stdin, stderr=subprocess.PIPE,
                          text=True, cwd=REPO, env={**os.environ, "PYTHONPATH": str(REPO)})
    reader.stdin.close()
    reader.wait()
    assert "Traceback" not in proc.stderr and "BrokenPipe" not in proc.stderr, proc.stderr
    assert proc.returncode == 0
