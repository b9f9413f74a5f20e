"""Flattening: main file, includes, comment stripping, opaque verbatim, diagnostics, and the source map."""
from __future__ import annotations

import importlib
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from papermath.analysis.read import read_document
from papermath.errors import SourceError
from papermath.latex import load_document
from papermath.source import SourceTree, find_main_file, flatten, open_source, strip_comments

# `papermath.source.flatten` is also the name of the function the package exports: fetch the module itself.
flatten_module = importlib.import_module("papermath.source.flatten")

DOC = "\\documentclass{article}\n\\begin{document}\n"
END = "\\end{document}\n"


def write(root, files: dict[str, str | bytes]):
    for name, content in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8")
    return root


def flat(tmp_path, files, main_hint=None):
    root = write(tmp_path / "paper", files)
    return flatten(SourceTree(root, str(root), None, None, main_hint))


def package_names(result) -> list[str]:
    """The files handed to the macro layer, in order (a package map holds exactly one file)."""
    return [next(iter(m.files)) for m in result.package_files]


def assert_map_is_faithful(source_map, samples: int = 300, seed: int = 0) -> None:
    """Each sampled flattened char equals the original char at the located place; line/col agree."""
    text = source_map.text
    rng = random.Random(seed)
    for i in sorted(rng.sample(range(len(text)), min(samples, len(text)))) + [0, len(text) - 1]:
        pos = source_map.locate(i)
        original = source_map.files[pos.file]
        assert original[pos.offset] == text[i], (i, pos)
        before = original[: pos.offset]
        assert pos.line == before.count("\n") + 1
        assert pos.column == pos.offset - (before.rfind("\n") + 1) + 1


# ----- main file -------------------------------------------------------------------------------------

MAIN_FILE_CASES = [
    ("single", {"paper.tex": DOC + END}, "paper.tex"),
    ("one-with-documentclass", {"a.tex": "Body.\n", "z.tex": DOC + "\\input{a}\n" + END}, "z.tex"),
    ("not-included-wins", {"a.tex": DOC + "\\input{b}\n" + END, "b.tex": DOC + END}, "a.tex"),
    ("includes-most", {"x.tex": DOC + "\\input{s1}\\input{s2}\n" + END, "y.tex": DOC + "\\input{s1}\n" + END,
                       "s1.tex": "", "s2.tex": ""}, "x.tex"),
    ("conventional-name", {"draft.tex": DOC + END, "ms.tex": DOC + END}, "ms.tex"),
    ("commented-documentclass", {"old.tex": "%\\documentclass{article}\n\\begin{document}x",
                                 "new.tex": DOC + END}, "new.tex"),
    ("subfile-is-not-main", {"main.tex": DOC + "\\subfile{sec/a}\n" + END,
                             "sec/a.tex": "\\documentclass[../main.tex]{subfiles}\n\\begin{document}A\n" + END},
     "main.tex"),
    ("markdown-only", {"paper.md": "# Title\n\n$x$\n"}, "paper.md"),
]


@pytest.mark.parametrize("name, files, main", MAIN_FILE_CASES, ids=[c[0] for c in MAIN_FILE_CASES])
def test_main_file(tmp_path, name, files, main):
    assert find_main_file(write(tmp_path, files))[0] == main


def test_no_documentclass_uses_the_file_with_begin_document(tmp_path):
    result = flat(tmp_path, {"paper.tex": "\\usepackage{x}\n\\begin{document}\nBody.\n" + END, "t.tex": "table"})
    assert result.main_file == "paper.tex"
    assert [d.severity for d in result.diagnostics] == ["warning"]
    assert "no file has both \\documentclass and \\begin{document}" in result.diagnostics[0].message


def test_empty_directory_is_an_error(tmp_path):
    with pytest.raises(SourceError, match="no LaTeX or Markdown file in"):
        flat(tmp_path, {"figure.png": b"\x89PNG"})


def test_markdown_is_an_identity_map(tmp_path):
    text = "# Paper\n\nThe loss is $L = -\\log p$ % not a comment in Markdown\n"
    result = flat(tmp_path, {"paper.md": text})
    assert (result.format, result.text, result.files) == ("markdown", text, ("paper.md",))
    assert str(result.source_map.locate(text.index("$L"))) == "paper.md:3:13"


def test_main_hint_wins(tmp_path):
    (tmp_path / "other.tex").write_text(DOC + "other\n" + END)
    (tmp_path / "chosen.tex").write_text(DOC + "chosen\n" + END)
    result = flatten(open_source(str(tmp_path / "chosen.tex")))
    assert result.main_file == "chosen.tex" and "chosen\n" in result.text


# ----- includes --------------------------------------------------------------------------------------

INCLUDE_CASES = [
    ("input-braces", {"m.tex": DOC + "A\\input{sec}B\n" + END, "sec.tex": "S"}, "ASB"),
    ("input-with-ext", {"m.tex": DOC + "A\\input{sec.tex}B\n" + END, "sec.tex": "S"}, "ASB"),
    ("input-bare", {"m.tex": DOC + "A\\input sec\nB\n" + END, "sec.tex": "S"}, "AS\nB"),
    ("input-no-tex-ext", {"m.tex": DOC + "A\\input{table.tikz}B\n" + END, "table.tikz": "T"}, "ATB"),
    ("include", {"m.tex": DOC + "A\\include{ch/one}B\n" + END, "ch/one.tex": "1"}, "A1B"),
    ("nested", {"m.tex": DOC + "<\\input{a}>\n" + END, "a.tex": "a(\\input{b})", "b.tex": "b"}, "<a(b)>"),
    ("import", {"m.tex": DOC + "<\\import{parts/}{p}>\n" + END,
                "parts/p.tex": "p[\\input{q}]", "parts/q.tex": "q"}, "<p[q]>"),
    ("subimport", {"m.tex": DOC + "<\\subimport{parts/}{p}>\n" + END,
                   "parts/p.tex": "p[\\subimport{deep/}{q}]", "parts/deep/q.tex": "q"}, "<p[q]>"),
    ("subfile-body-only", {"m.tex": DOC + "<\\subfile{s}>\n" + END,
                           "s.tex": "\\documentclass[m]{subfiles}\n\\begin{document}BODY\\end{document}\n"},
     "<BODY>"),
    ("include-twice", {"m.tex": DOC + "\\input{t}\\input{t}\n" + END, "t.tex": "t"}, "tt"),
    ("includegraphics-untouched", {"m.tex": DOC + "\\includegraphics{fig}\n" + END}, "\\includegraphics{fig}"),
    ("macro-parameter-untouched", {"m.tex": DOC + "\\newcommand{\\inc}[1]{\\input{#1}}\n" + END},
     "\\newcommand{\\inc}[1]{\\input{#1}}"),
]


@pytest.mark.parametrize("name, files, expected", INCLUDE_CASES, ids=[c[0] for c in INCLUDE_CASES])
def test_includes_are_inlined(tmp_path, name, files, expected):
    result = flat(tmp_path, files)
    body = result.text[len(DOC):-len(END) - 1]
    assert body == expected
    assert result.diagnostics == ()
    assert_map_is_faithful(result.source_map)


def test_files_are_listed_in_reading_order(tmp_path):
    result = flat(tmp_path, {"m.tex": DOC + "\\input{b}\\input{a}\\input{b}\n" + END, "a.tex": "a", "b.tex": "b"})
    assert result.files == ("m.tex", "b.tex", "a.tex")


BAD_INCLUDES = [
    ("missing", {"m.tex": DOC + "x \\input{nothere}\n" + END},
     "m.tex:3:3: error: \\input{nothere}: file not found in the source (nothere)"),
    ("cycle", {"m.tex": DOC + "\\input{a}\n" + END, "a.tex": "a\n\\input{b}", "b.tex": "b \\input{a}"},
     "b.tex:1:3: error: \\input{a} would read a.tex again: include cycle a.tex -> b.tex -> a.tex"),
    ("self-cycle", {"m.tex": DOC + "\\input{m}\n" + END},
     "m.tex:3:1: error: \\input{m} would read m.tex again: include cycle m.tex -> m.tex"),
    ("outside-root", {"m.tex": DOC + "\\input{../secret}\n" + END},
     "m.tex:3:1: error: \\input{../secret} points outside the source root; not read"),
    ("absolute", {"m.tex": DOC + "\\input{/etc/passwd}\n" + END},
     "m.tex:3:1: error: \\input{/etc/passwd} points outside the source root; not read"),
    ("import-outside", {"m.tex": DOC + "\\import{../}{x}\n" + END},
     "m.tex:3:1: error: \\import{../}{x} points outside the source root; not read"),
]


@pytest.mark.parametrize("name, files, diagnostic", BAD_INCLUDES, ids=[c[0] for c in BAD_INCLUDES])
def test_bad_includes_are_diagnostics_and_the_run_continues(tmp_path, name, files, diagnostic):
    (tmp_path / "secret.tex").write_text("SECRET")
    (tmp_path / "x.tex").write_text("SECRET")
    result = flat(tmp_path, files)
    assert [str(d) for d in result.diagnostics] == [diagnostic]
    assert "SECRET" not in result.text
    assert result.text.endswith(END)


def test_latin1_file_is_read_with_a_warning(tmp_path):
    result = flat(tmp_path, {"m.tex": DOC + "\\input{names}\n" + END, "names.tex": "Caf\xe9 G\xf6del".encode("latin-1")})
    assert "Café Gödel" in result.text
    assert [str(d) for d in result.diagnostics] == [
        "names.tex:1:4: warning: names.tex is not valid UTF-8 (byte 0xe9); read as Latin-1"]


# ----- comments and opaque regions -------------------------------------------------------------------

STRIP_CASES = [
    ("trailing-comment", "a % note\nb", "a \nb"),
    ("escaped-percent", "50\\% of x % note\n", "50\\% of x \n"),
    ("linebreak-then-comment", "a\\\\% note\nb", "a\\\\\nb"),
    ("backslash-percent-after-linebreak", "a\\\\\\% kept\n", "a\\\\\\% kept\n"),
    ("full-line-comment-vanishes", "a\n  % whole line\nb\n", "a\nb\n"),
    ("paragraph-break-kept", "a\n% c\n\nb\n", "a\n\nb\n"),
    ("commented-align-row", "x \\\\\n% y = 2 \\\\\nz", "x \\\\\nz"),
    ("comment-env", "a\\begin{comment}\nhidden \\input{x}\n\\end{comment}b", "ab"),
    ("iffalse", "a\\iffalse hidden\\fi b", "a b"),
    ("iffalse-nested", "a\\iffalse h \\ifx\\a\\b h\\fi h\\fi b", "a b"),
    ("iffalse-else", "a\\iffalse no\\else yes\\fi b", "a yes b"),
    ("iffalse-comment-fi", "a\\iffalse x % \\fi\n y\\fi b", "a b"),
    ("iffalse-newif", "\\iffalse\\newif\\ifdraft x\\fi b", " b"),
    ("let-iffalse-is-a-definition", "\\let\\ifdraft\\iffalse\nkeep\\fi", "\\let\\ifdraft\\iffalse\nkeep\\fi"),
    ("verbatim-opaque", "\\begin{verbatim}50% \\input{x}\\end{verbatim}%c", "\\begin{verbatim}50% \\input{x}\\end{verbatim}"),
    ("lstlisting-opaque", "\\begin{lstlisting}\nx = 1 % mod\n\\end{lstlisting}", "\\begin{lstlisting}\nx = 1 % mod\n\\end{lstlisting}"),
    ("minted-opaque", "\\begin{minted}{python}\n# %s\n\\end{minted}", "\\begin{minted}{python}\n# %s\n\\end{minted}"),
    ("verb-opaque", "\\verb|a%b| c % d", "\\verb|a%b| c "),
    ("verb-star", "\\verb*+%+ x", "\\verb*+%+ x"),
    ("url-opaque", "\\url{http://x.org/a%20b} % c", "\\url{http://x.org/a%20b} "),
    ("unclosed-comment-env", "a\\begin{comment} rest", "a"),
]


@pytest.mark.parametrize("name, text, expected", STRIP_CASES, ids=[c[0] for c in STRIP_CASES])
def test_strip_comments(name, text, expected):
    source_map, _ = strip_comments(text, "t.tex")
    assert source_map.text == expected
    if expected:
        assert_map_is_faithful(source_map, samples=len(expected))


def test_comments_hide_includes(tmp_path):
    result = flat(tmp_path, {"m.tex": DOC + "% \\input{gone}\n\\iffalse\\input{gone}\\fi\n" + END})
    assert result.diagnostics == () and result.files == ("m.tex",)


def test_unclosed_iffalse_is_a_warning(tmp_path):
    _, diagnostics = strip_comments("ok\n\\iffalse never closed", "t.tex")
    assert [str(d) for d in diagnostics] == ["t.tex:2:1: warning: \\iffalse is never closed by \\fi; dropped to the end of the file"]


# ----- bibliography and packages ---------------------------------------------------------------------

def test_bbl_replaces_bibliography(tmp_path):
    result = flat(tmp_path, {"main.tex": DOC + "Text.\n\\bibliography{refs}\n" + END,
                             "main.bbl": "\\begin{thebibliography}{1}\n\\bibitem{a} A. % c\n\\end{thebibliography}\n"})
    assert result.bbl_included and result.files == ("main.tex", "main.bbl")
    assert result.text == DOC + "Text.\n\\begin{thebibliography}{1}\n\\bibitem{a} A. \n\\end{thebibliography}\n\n" + END
    assert str(result.source_map.locate(result.text.index("\\bibitem"))) == "main.bbl:2:1"


def test_bbl_without_bibliography_goes_before_end_document(tmp_path):
    result = flat(tmp_path, {"ms.tex": DOC + "Text.\n" + END, "ms.bbl": "BIB\n"})
    assert result.bbl_included and result.text == DOC + "Text.\nBIB\n" + END


def test_bbl_input_by_hand_is_not_added_twice(tmp_path):
    result = flat(tmp_path, {"ms.tex": DOC + "\\input{ms.bbl}\n" + END, "ms.bbl": "BIB\n"})
    assert result.bbl_included and result.text == DOC + "BIB\n\n" + END


def test_bibliography_kept_when_no_bbl(tmp_path):
    result = flat(tmp_path, {"ms.tex": DOC + "\\bibliography{refs}\n" + END})
    assert not result.bbl_included and "\\bibliography{refs}" in result.text


def test_local_packages_are_collected_not_inlined(tmp_path):
    result = flat(tmp_path, {
        "ms.tex": "\\documentclass{article}\n\\usepackage{amsmath,mymacros}\n\\usepackage[opt]{Other}\n"
                  "\\begin{document}\n$\\R$\n" + END,
        "mymacros.sty": "\\newcommand{\\R}{\\mathbb{R}} % reals\n\\RequirePackage{deps}\n\\input{defs.tex}\n",
        "deps.sty": "\\def\\E{\\mathbb{E}}\n",
        "defs.tex": "%only a comment\n\\newcommand{\\N}{\\mathbb{N}}\n",
        "other.sty": "\\newcommand{\\Z}{\\mathbb{Z}}\n",   # case differs from \usepackage{Other}
    })
    assert "\\newcommand{\\R}" not in result.text
    by_file = {m.segments[0].file: m.text for m in result.package_files}
    assert by_file == {
        "mymacros.sty": "\\newcommand{\\R}{\\mathbb{R}} \n\\RequirePackage{deps}\n\\input{defs.tex}\n",
        "other.sty": "\\newcommand{\\Z}{\\mathbb{Z}}\n",
        "deps.sty": "\\def\\E{\\mathbb{E}}\n",
        "defs.tex": "\\newcommand{\\N}{\\mathbb{N}}\n",
    }


# ----- local document classes ------------------------------------------------------------------------

def cls_paper(documentclass: str, preamble: str = "") -> str:
    return (f"\\documentclass[11pt]{{{documentclass}}}\n{preamble}\\begin{{document}}\n"
            "\\begin{equation} y = W \\vx \\end{equation}\nwhere $\\vx$ is the input.\n" + END)


VX = "\\newcommand{\\vx}{\\mathbf{x}}\n"

# (case, files, package files in the order the macro layer reads them)
CLASS_CASES = [
    ("local-class", {"main.tex": cls_paper("neurips_2024"), "neurips_2024.cls": VX}, ["neurips_2024.cls"]),
    ("class-name-case-insensitive", {"main.tex": cls_paper("NeurIPS_2024"), "neurips_2024.cls": VX},
     ["neurips_2024.cls"]),
    ("class-beside-main-file", {"paper/main.tex": cls_paper("mine"), "paper/mine.cls": VX}, ["paper/mine.cls"]),
    ("loadclass", {"main.tex": cls_paper("mine"), "mine.cls": "\\LoadClass[10pt]{base}\n", "base.cls": VX},
     ["mine.cls", "base.cls"]),
    ("loadclass-with-options", {"main.tex": cls_paper("mine"), "mine.cls": "\\LoadClassWithOptions{base}\n",
                                "base.cls": VX}, ["mine.cls", "base.cls"]),
    ("class-requires-package", {"main.tex": cls_paper("mine"),
                                "mine.cls": "\\LoadClass{article}\n\\RequirePackage{amsmath, mymacros}\n",
                                "mymacros.sty": VX}, ["mine.cls", "mymacros.sty"]),
    ("class-inputs-tex", {"main.tex": cls_paper("mine"), "mine.cls": "\\input{defs}\n", "defs.tex": VX},
     ["mine.cls", "defs.tex"]),
    ("class-before-paper-packages", {"main.tex": cls_paper("mine", "\\usepackage{late}\n"),
                                     "mine.cls": "\\RequirePackage{early}\n", "early.sty": VX,
                                     "late.sty": "\\providecommand{\\vx}{\\vec{x}}\n"},
     ["mine.cls", "early.sty", "late.sty"]),
    ("class-loop", {"main.tex": cls_paper("a"), "a.cls": "\\LoadClass{b}\n", "b.cls": "\\LoadClass{a}\n" + VX},
     ["a.cls", "b.cls"]),
    ("commented-loadclass", {"main.tex": cls_paper("mine"), "mine.cls": "% \\LoadClass{base}\n", "base.cls": VX},
     ["mine.cls"]),
    ("standard-class", {"main.tex": cls_paper("article")}, []),
    ("missing-loaded-class", {"main.tex": cls_paper("mine"), "mine.cls": "\\LoadClass{report}\n"}, ["mine.cls"]),
    ("class-outside-root", {"main.tex": cls_paper("../evil")}, []),
]


@pytest.mark.parametrize("name, files, package_files", CLASS_CASES, ids=[c[0] for c in CLASS_CASES])
def test_local_classes_are_collected_in_loading_order(tmp_path, name, files, package_files):
    (tmp_path / "evil.cls").write_text(VX)
    result = flat(tmp_path, files)
    assert package_names(result) == package_files
    assert result.diagnostics == ()
    assert "\\newcommand" not in result.text and "\\LoadClass" not in result.text


# (case, files, the equation's formula once macros are expanded)
CLASS_MACRO_CASES = [
    ("class-defines", {"main.tex": cls_paper("neurips_2024"), "neurips_2024.cls": VX}, "y = W \\mathbf{x}"),
    ("loaded-base-class-defines", {"main.tex": cls_paper("mine"), "mine.cls": "\\LoadClass{base}\n",
                                   "base.cls": VX}, "y = W \\mathbf{x}"),
    ("package-required-by-class-defines", {"main.tex": cls_paper("mine"), "mine.cls": "\\RequirePackage{mymacros}\n",
                                           "mymacros.sty": VX}, "y = W \\mathbf{x}"),
    ("class-loop-defines", {"main.tex": cls_paper("a"), "a.cls": "\\LoadClass{b}\n",
                            "b.cls": "\\LoadClass{a}\n" + VX}, "y = W \\mathbf{x}"),
    # TeX's order: the class and the packages it requires come before the paper's own packages, so the
    # first \providecommand is the one in the package the class requires.
    ("class-packages-before-paper-packages", {"main.tex": cls_paper("mine", "\\usepackage{late}\n"),
                                              "mine.cls": "\\RequirePackage{early}\n",
                                              "early.sty": "\\providecommand{\\vx}{\\mathbf{x}}\n",
                                              "late.sty": "\\providecommand{\\vx}{\\vec{x}}\n"},
     "y = W \\mathbf{x}"),
    # Package mode: a class's \renewcommand or internal (@) macro does not change the paper's math.
    ("class-renewcommand-ignored", {"main.tex": cls_paper("mine"),
                                    "mine.cls": "\\renewcommand{\\vx}{\\vec{x}}\n\\def\\p@x{z}\n"}, "y = W \\vx"),
    ("missing-class", {"main.tex": cls_paper("neurips_2024")}, "y = W \\vx"),
]


@pytest.mark.parametrize("name, files, formula", CLASS_MACRO_CASES, ids=[c[0] for c in CLASS_MACRO_CASES])
def test_class_macros_expand_in_the_document(tmp_path, name, files, formula):
    doc = load_document(str(write(tmp_path / "paper", files)))
    [equation] = doc.equations
    assert (equation.number, " ".join(equation.latex.split())) == ("1", formula)
    assert not [d for d in doc.diagnostics if d.severity == "error"]


def test_class_macro_reaches_the_equation_reading(tmp_path):
    doc = load_document(str(write(tmp_path / "paper", {"main.tex": cls_paper("mine"),
                                                       "mine.cls": "\\LoadClass{base}\n", "base.cls": VX})))
    reading = read_document(doc, ["1"]).equations[0]
    symbols = {s.latex for s in reading.symbols}
    assert "\\mathbf{x}" in symbols and not any("vx" in s for s in symbols)


def test_local_package_text_is_bounded(tmp_path, monkeypatch):
    cls = "\\RequirePackage{big}\n" + VX
    monkeypatch.setattr(flatten_module, "MAX_PACKAGE_CHARS", len(cls) + 10)
    result = flat(tmp_path, {"main.tex": cls_paper("mine"), "mine.cls": cls,
                             "big.sty": "\\newcommand{\\longmacro}{" + "x" * 40 + "}\n"})
    assert package_names(result) == ["mine.cls"]
    assert [str(d) for d in result.diagnostics] == [
        f"big.sty:1:1: warning: local classes and packages exceed {len(cls) + 10} characters; "
        "big.sty and the rest are not read for definitions"]


# ----- the source map --------------------------------------------------------------------------------

def test_source_map_points_every_character_home(tmp_path):
    files = {
        "main.tex": DOC + "% preamble note\nIntro 50\\% done.\n\\input{sec/method}\n"
                    "\\begin{comment}\nx\n\\end{comment}\nAfter.\n\\bibliography{b}\n" + END,
        "sec/method.tex": "\\section{Method}\n% hidden\n\\begin{equation}\n  y = W x % linear\n\\end{equation}\n"
                          "\\input{sec/tab}\n",
        "sec/tab.tex": "\\begin{tabular}{c}\n1 \\\\ % row\n\\end{tabular}\n",
        "main.bbl": "\\bibitem{x} X.\n",
    }
    result = flat(tmp_path, files)
    assert result.files == ("main.tex", "sec/method.tex", "sec/tab.tex", "main.bbl")
    assert_map_is_faithful(result.source_map, samples=len(result.text))
    assert str(result.source_map.locate(result.text.index("y = W x"))) == "sec/method.tex:4:3"
    assert str(result.source_map.locate(result.text.index("1 \\\\"))) == "sec/tab.tex:2:1"
    assert str(result.source_map.locate(result.text.index("After."))) == "main.tex:9:1"
    assert "%" not in result.text.replace("\\%", "")


TRICKY_PIECES = ["a", " ", "\n", "%", "\\", "\\%", "{", "}", "\\iffalse", "\\fi", "\\else", "\\ifx",
                 "\\verb|", "|", "\\begin{comment}", "\\end{comment}", "\\begin{verbatim}", "\\end{verbatim}",
                 "\\input{x}", "\\url{", "\\newif", "\\let\\ifa"]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(TRICKY_PIECES), max_size=40))
def test_strip_comments_never_fails_and_maps_faithfully(pieces):
    text = "".join(pieces)
    source_map, _ = strip_comments(text, "t.tex")
    if source_map.text:
        assert_map_is_faithful(source_map, samples=len(source_map.text))
    # Segments are ordered, non-overlapping, and cover exactly the flattened text.
    assert sum(s.flat_end - s.flat_start for s in source_map.segments) == len(source_map.text)
    assert all(a.flat_end == b.flat_start for a, b in zip(source_map.segments, source_map.segments[1:]))
    assert all(a.file_start + (a.flat_end - a.flat_start) <= b.file_start
               for a, b in zip(source_map.segments, source_map.segments[1:]))
