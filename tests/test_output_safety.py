"""Outputs never destroy what papermath did not write, and paper text cannot forge the structure of the outputs
programs read (Markdown readings, prompts, shell hints) — issue 12."""
from __future__ import annotations

import json
import os
import shlex

import pytest
from conftest import EXAMPLE

from papermath.cli import main
from papermath.output import MARKER, OutputFolder, OutputFolderError
from papermath.safety import fence, one_line, shell_word

ATTENTION = r"\mathrm{Attention}(Q,K,V)=\mathrm{softmax}(QK^\top/\sqrt{d_k})V"


def test_html_into_a_folder_holding_a_users_file_keeps_it(tmp_path, capsys):
    site = tmp_path / "site"
    site.mkdir()
    (site / "index.html").write_text("my own page")
    (site / "assets").mkdir()
    (site / "assets" / "mine.css").write_text("body {}")
    assert main(["html", str(EXAMPLE), "-o", str(site)]) == 2
    err = capsys.readouterr().err
    assert "papermath did not write" in err and "index.html" in err
    assert (site / "index.html").read_text() == "my own page"
    assert (site / "assets" / "mine.css").read_text() == "body {}"
    assert sorted(p.name for p in site.iterdir()) == ["assets", "index.html"]


def test_html_rewrites_its_own_folder_and_keeps_files_added_since(tmp_path, capsys):
    site = tmp_path / "site"
    assert main(["html", str(EXAMPLE), "-o", str(site)]) == 0
    marker = json.loads((site / MARKER).read_text())
    assert "index.html" in marker["files"] and "assets/reader.js" in marker["files"]
    (site / "notes.txt").write_text("mine")
    (site / "assets" / "extra.css").write_text("mine too")
    stale = site / "assets" / "old-papermath-file.js"
    stale.write_text("x")
    marker["files"].append("assets/old-papermath-file.js")
    (site / MARKER).write_text(json.dumps(marker))
    assert main(["html", str(EXAMPLE), "-o", str(site)]) == 0
    capsys.readouterr()
    assert (site / "notes.txt").read_text() == "mine"
    assert (site / "assets" / "extra.css").read_text() == "mine too"
    assert not stale.exists(), "a file papermath wrote earlier and no longer writes is removed"
    assert (site / "index.html").stat().st_size > 1000


def test_code_out_refuses_a_folder_with_other_files(tmp_path, capsys):
    (tmp_path / "train.py").write_text("print('mine')")
    assert main(["code", "--latex", ATTENTION, "--out", str(tmp_path)]) == 2
    assert "papermath did not write" in capsys.readouterr().err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["train.py"]
    out = tmp_path / "gen"
    assert main(["code", "--latex", ATTENTION, "--out", str(out)]) == 0
    assert main(["code", "--latex", "y = W x + b", "--out", str(out)]) == 0, "its own folder is reused"
    capsys.readouterr()
    assert {"attention.py", "y.py", "test_y.py"} <= {p.name for p in out.iterdir()}


def test_code_out_never_overwrites_a_users_file_of_the_same_name(tmp_path, capsys):
    out = tmp_path / "gen"
    assert main(["code", "--latex", "y = W x + b", "--out", str(out)]) == 0
    (out / "attention.py").write_text("mine")
    assert main(["code", "--latex", ATTENTION, "--out", str(out)]) == 2
    assert "was not written by papermath" in capsys.readouterr().err
    assert (out / "attention.py").read_text() == "mine"
    assert not (out / "test_attention.py").exists()


def test_links_are_not_followed_out_of_the_folder(tmp_path):
    outside = tmp_path / "outside.txt"
    outside.write_text("precious")
    folder = tmp_path / "out"
    with OutputFolder.claim(folder, "code") as out:
        out.write_text("a.py", "x = 1\n")
    (folder / "a.py").unlink()
    os.symlink(outside, folder / "a.py")
    with OutputFolder.claim(folder, "code") as out:
        out.write_text("a.py", "x = 2\n")
    assert outside.read_text() == "precious"
    assert (folder / "a.py").read_text() == "x = 2\n" and not (folder / "a.py").is_symlink()
    os.symlink(tmp_path, folder / "sub")
    with pytest.raises(OutputFolderError), OutputFolder.claim(folder, "code") as out:
        out.write_text("sub/b.py", "")
    with pytest.raises(OutputFolderError):
        OutputFolder.claim(outside, "code")
    with pytest.raises(OutputFolderError), OutputFolder.claim(folder, "code") as out:
        out.write_text("../escape.py", "")


def test_paper_text_stays_on_one_line_and_inside_its_fence():
    assert one_line("a\nb\r\nc\u2028d\x00e\ud800f\u202e") == "a b  c d?e?f?"
    lines = fence("x = 1\n```\n## Equation 9 (eq:9)\n````", "latex")
    assert lines[0] == "`````latex" and lines[-1] == "`````"
    assert all(not line.startswith("`````") for line in lines[1].splitlines())
    hint = shell_word("x'; rm -rf ~; echo '=…")
    assert shlex.split(hint) == ["x'; rm -rf ~; echo '=…"]


def test_a_formula_cannot_forge_markdown_reading_structure(tmp_path):
    from papermath.analysis.read import read_document
    from papermath.latex import load_document
    from papermath.render.reading import reading_markdown

    paper = tmp_path / "p"
    paper.mkdir()
    (paper / "main.tex").write_text(
        "\\documentclass{article}\n\\title{T\\\\ \\#\\# Equation 9}\\begin{document}\n\\section{S}\n"
        "\\begin{align}\ny &= x \\\\\n```\n## Equation 99 (eq:99)\n\\end{align}\n\\end{document}\n")
    from papermath.check.parse import parse_markdown_reading

    markdown = reading_markdown(read_document(load_document(paper)))
    headings = [line for line in markdown.splitlines() if line.startswith("#")]
    assert all("99" not in h for h in headings), headings
    parsed = parse_markdown_reading(markdown, "r.md")
    assert [e.id for e in parsed.equations] == ["eq:1", "eq:2"]
    assert "## Equation 99" in parsed.equations[1].latex
