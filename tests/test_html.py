"""The HTML reader as a string: KaTeX preprocessing, symbol tagging, escaping, anchors, CSP, assets, commands."""
from __future__ import annotations

import contextlib
import html as htmllib
import io
import json
import re
import threading
import urllib.request
from pathlib import Path

import pytest

from conftest import EXAMPLE
from papermath.analysis.reading import (Definition, EquationReading, PaperReading, ReductionReading,
                                        SymbolReading)
from papermath.cli import main
from papermath.latex import document_from_string
from papermath.render.html import (CSP, Panel, katex_source, lookup_for, norm_symbol, reduction_head, render_page,
                                   wrap_symbols, write_site)

XSS = "<script>alert(1)</script>"

PAPER = r"""\documentclass{article}
\title{A <script>alert(1)</script> Note}
\begin{document}
\maketitle
\section{Method}
Let $x \in \mathbb{R}^{d}$ denote the input and $W$ the weight matrix. It costs \$5 or \$6.
\begin{equation}\label{eq:lin}
y_{i} = W x + b + \text{<script>alert(1)</script>}
\end{equation}
where $y_{i}$ is the output. See \eqref{eq:lin} \& <b>bold</b>.
\end{document}
"""


def _definition(quote: str, line: int, paragraph: str) -> Definition:
    return Definition(quote, "1", "main.tex", line, "where", paragraph)


def _symbol(latex, symbol, role, definition=None, shape=None, conventional=None, kind="symbol"):
    return SymbolReading(f"eq:1/sym:{latex}", latex, symbol, (), kind, role, None, shape, None, conventional,
                         definition)


@pytest.fixture(scope="module")
def doc():
    return document_from_string(PAPER, "main.tex")


@pytest.fixture(scope="module")
def reading(doc):
    """A hand-made reading (the contract), independent of how `read` decides things."""
    eq = doc.equation("1")
    symbols = (
        _symbol("y_{i}", "y", "defined here", _definition("where $y_{i}$ is the output.", 10, "p:2")),
        _symbol("W", "W", "trained weight", shape=("d", "d")),
        _symbol("x", "x", "input data",
                _definition("Let $x \\in \\mathbb{R}^{d}$ denote the input and $W$ the weight matrix.", 6, "p:1"),
                shape=("d",)),
        _symbol("b", "b", "unknown", conventional="a bias vector"),
    )
    equation = EquationReading("eq:1", "1", "1", eq.latex, "computation", "=", symbols,
                               (ReductionReading("sum", ("j",), "1", "n", None, None, "\\sum_{j=1}^{n}"),),
                               ("W",), (), ("y_{i}",), None, None, "main.tex", 8)
    return PaperReading(doc.paper, (equation,), ())


@pytest.fixture(scope="module")
def page(doc, reading):
    panels = {"eq:1": Panel({
        "code": {"code": {"NumPy": "y = W @ x  # <shape (d,)>"}},
        "shapes": {"tables": [{"columns": ["sub-expression", "shape", "note"], "math": [0],
                               "rows": [["W x", "[d]", "[d, d] @ [d] → [d]"]]}], "notes": ["result: [d]"]},
        "numbers": "not available in this version of papermath (evaluate)"})}
    return render_page(doc, reading, panels)


# ------------------------------------------------------------------------------------------------ KaTeX input

@pytest.mark.parametrize("latex, env, expected", [
    (r"a = b \label{eq:x}", "equation", "a = b"),
    (r"a = b \nonumber", "align", "a = b"),
    (r"a \tag{3a} = b", "equation", "a  = b"),
    (r"x \in \mathds{R}^{d}", "equation", r"x \in \mathbb{R}^{d}"),
    (r"\ensuremath{x}", "equation", "{x}"),
    (r"a \vspace{2mm} b", "equation", "a  b"),
    (r"\bm{x}", "equation", r"\boldsymbol{x}"),
    (r"s_{i,t} & = \sigma(u)", "align", r"\begin{aligned}s_{i,t} & = \sigma(u)\end{aligned}"),
    (r"a = b \\ c = d", "equation", r"\begin{aligned}a = b \\ c = d\end{aligned}"),
    (r"a + b \\ + c", "multline", r"\begin{gathered}a + b \\ + c\end{gathered}"),
    (r"a = b \addtocounter{equation}{1}", "align", "a = b"),
    (r"a = b \\", "equation", r"\begin{aligned}a = b \\\end{aligned}"),
    ("a = b \\", "multline", "a = b"),
    (r"A = \begin{pmatrix} 1 & 2 \\ 3 & 4 \end{pmatrix}", "equation",
     r"A = \begin{pmatrix} 1 & 2 \\ 3 & 4 \end{pmatrix}"),
    (r"f(x) = \begin{cases} 1 & x > 0 \\ 0 & \text{else} \end{cases}", "equation",
     r"f(x) = \begin{cases} 1 & x > 0 \\ 0 & \text{else} \end{cases}"),
])
def test_katex_source(latex, env, expected):
    assert katex_source(latex, env) == expected


@pytest.mark.parametrize("a, b", [("s_{i,t}", "s_{i, t}"), ("x_{i}", "x_i"), ("W^{O}", "W^O"),
                                  ("{\\mathbf{u}}", "\\mathbf{u}")])
def test_norm_symbol_equates_spellings(a, b):
    assert norm_symbol(a) == norm_symbol(b)


@pytest.mark.parametrize("reduction, head", [
    (ReductionReading("sum", ("j",), "1", "N_r", None, None, "\\sum_{j=1}^{N_r} x_j"), "\\sum_{j = 1}^{N_r}"),
    (ReductionReading("E", ("x",), None, None, None, "\\mathcal{D}", "\\mathbb{E}_{x \\sim D} f"),
     "\\mathbb{E}_{x \\sim \\mathcal{D}}"),
    (ReductionReading("max", ("v",), None, None, "v \\in V", None, "\\max_{v \\in V} f"), "\\max_{v \\in V}"),
    (ReductionReading("softmax", (), None, None, None, None, "\\mathrm{softmax}(z)"), "\\operatorname{softmax}"),
    (ReductionReading("sum", ("i",), "{1", "n", None, None, "\\sum"), "\\sum"),  # unbalanced: the operator alone
])
def test_reduction_head(reduction, head):
    assert reduction_head(reduction) == head


def test_wrap_symbols_tags_each_symbol_with_its_reading_index():
    syms = [SymbolReading("eq:15/sym:s_{i,t}", "s_{i,t}", "s", ("i", "t"), "symbol", "defined here", None, None,
                          None, None, None),
            SymbolReading("eq:15/sym:\\mathbf{u}_{t}", "\\mathbf{u}_{t}", "\\mathbf{u}", ("t",), "symbol",
                          "input data", None, None, None, None, None),
            SymbolReading("eq:15/sym:\\mathbf{e}_{i}", "\\mathbf{e}_{i}", "\\mathbf{e}", ("i",), "symbol",
                          "trained weight", None, None, None, None, None)]
    lookup = lookup_for(zip(syms, (7, 8, 9)))
    latex = r"s_{i,t} = \operatorname{Sigmoid} \left( {\mathbf{u}_{t}}^{T} \mathbf{e}_{i} \right),"
    wrapped, used = wrap_symbols(latex, lookup)
    assert wrapped == (r"\htmlData{pm=7}{s_{i,t}} = \operatorname{Sigmoid} \left( "
                       r"{\htmlData{pm=8}{\mathbf{u}_{t}}}^{T} \htmlData{pm=9}{\mathbf{e}_{i}} \right),")
    assert used == [7, 8, 9]
    # x_j is the same x as x_i: matched by the symbol without its indices.
    wrapped, used = wrap_symbols(r"s_{j,t} + 1", lookup)
    assert wrapped == r"\htmlData{pm=7}{s_{j,t}} + 1" and used == [7]


def test_wrap_symbols_braces_bare_scripts_and_skips_large_operators():
    syms = [SymbolReading(f"eq:1/sym:{x}", x, x, (), "symbol", "index", None, None, None, None, None)
            for x in ("t", "T", "\\alpha", "\\sum")]
    lookup = lookup_for(zip(syms, range(4)))
    wrapped, used = wrap_symbols(r"\alpha_t = \sum_{t=1}^T y_t", lookup)
    assert wrapped == (r"\htmlData{pm=2}{\alpha_t} = \sum_{\htmlData{pm=0}{t}=1}^{\htmlData{pm=1}{T}} "
                       r"y_{\htmlData{pm=0}{t}}")
    assert used == [2, 0, 1, 0]


def test_wrap_symbols_leaves_text_and_unknown_symbols_alone():
    lookup = lookup_for([(SymbolReading("eq:1/sym:x", "x", "x", (), "symbol", "input data", None, None, None,
                                        None, None), 0)])
    assert wrap_symbols(r"z + \text{x is here}", lookup) == (r"z + \text{x is here}", [])


# ------------------------------------------------------------------------------------------------ the page

def test_page_has_strict_csp_and_only_bundled_scripts(page):
    meta = re.search(r'<meta http-equiv="Content-Security-Policy" content="([^"]*)">', page)
    assert meta is not None
    policy = htmllib.unescape(meta.group(1))
    assert policy == CSP
    directives = dict(d.strip().split(" ", 1) for d in policy.split(";"))
    assert directives["default-src"] == "'none'"
    assert directives["script-src"] == "'self'"
    assert directives["connect-src"] == "'none'"
    assert "unsafe-inline" not in policy and "unsafe-eval" not in policy
    scripts = re.findall(r"<script\b([^>]*)>", page)
    assert scripts == [' type="application/json" id="pm-data"', ' src="assets/katex/katex.min.js"',
                       ' src="assets/reader.js"']
    # Nothing is loaded from the network: every src/href is a fragment or a bundled file.
    refs = re.findall(r'\b(?:src|href)="([^"]*)"', page)
    assert refs and all(r.startswith(("#", "assets/")) or r == "data:," for r in refs), refs
    assert "http://" not in page and "https://" not in page


def test_paper_content_is_escaped(page):
    assert XSS not in page
    assert "<b>bold</b>" not in page
    # The title, as text.
    assert "<title>A &lt;script&gt;alert(1)&lt;/script&gt; Note — papermath reader</title>" in page
    assert '<h1 class="pm-title">A &lt;script&gt;alert(1)&lt;/script&gt; Note</h1>' in page
    # The equation's \text{}, as escaped source in the element and in its KaTeX input attribute.
    assert r"\text{&lt;script&gt;alert(1)&lt;/script&gt;}" in page
    assert "&amp; &lt;b&gt;bold&lt;/b&gt;" in page
    # The JSON block cannot close its <script> element.
    block = re.search(r'<script type="application/json" id="pm-data">(.*?)</script>', page, re.S).group(1)
    assert "<" not in block and ">" not in block
    data = json.loads(block)
    assert any("$" in s["definition"]["quote"] for s in data["symbols"] if s["definition"])


def test_anchors_use_stable_ids(page):
    assert '<div class="pm-equation" id="eq:1"' in page
    assert 'href="#eq:1"' in page
    assert '<h2 class="pm-section" id="sec:1"><span class="pm-secnum">1</span> Method' in page
    assert '<p class="pm-p pm-text" id="p:1"' in page
    assert '<span class="pm-eqnum">(1)</span>' in page
    # \eqref is a link to the equation's anchor, with the printed number.
    assert '<a class="pm-ref" href="#eq:1" data-ref="eq:1">(1)</a>' in page
    # The symbol table row carries the symbol's stable id.
    assert 'id="eq:1/sym:y_{i}"' in page


def test_symbols_are_tagged_in_display_and_prose(page):
    data = json.loads(re.search(r'id="pm-data">(.*?)</script>', page, re.S).group(1))
    index = {s["id"]: i for i, s in enumerate(data["symbols"])}
    display = re.search(r'<div class="pm-equation" id="eq:1".*?data-tex="([^"]*)"', page, re.S).group(1)
    tex = htmllib.unescape(display)
    assert "\\htmlData{pm=%d}{y_{i}}" % index["eq:1/sym:y_{i}"] in tex
    assert "\\htmlData{pm=%d}{W}" % index["eq:1/sym:W"] in tex
    assert "\\htmlData{pm=%d}{x}" % index["eq:1/sym:x"] in tex
    # Prose: `$W$` in paragraph p:1 points at the same reading.
    p1 = re.search(r'<p class="pm-p pm-text" id="p:1".*?</p>', page, re.S).group(0)
    assert 'data-tex="\\htmlData{pm=%d}{W}"' % index["eq:1/sym:W"] in p1
    # Escaped dollars are money, not math.
    assert "It costs $5 or $6." in p1
    entry = data["symbols"][index["eq:1/sym:x"]]
    assert entry["definition"]["paragraph"] == "p:1" and entry["equation_number"] == "1"
    assert entry["quote_parts"][0] == ["text", "Let "]
    assert entry["quote_parts"][1] == ["math", "x \\in \\mathbb{R}^{d}"]


def test_panel_lists_kind_symbols_reductions_and_parts(page):
    panel = re.search(r'<details class="pm-panel" data-eq="eq:1">.*?</details>', page, re.S).group(0)
    assert '<span class="pm-kind">computation</span> · 4 symbols · <span class="pm-undef-count">1 undefined' \
           in panel
    assert '<td>trained weight</td><td><span class="pm-math" data-plain="d \\times d">d \\times d</span></td>' in panel
    assert "not defined in the paper — do not guess" in panel          # W
    assert "conventional meaning (not a definition): a bias vector" in panel  # b
    # the reduction's variable and limits are maths (rendered), not raw LaTeX
    assert ('<td>sum</td><td><span class="pm-math" data-plain="j">j</span></td>'
            '<td><span class="pm-math" data-plain="1 \\ldots n">1 \\ldots n</span></td>') in panel
    assert '<button type="button" class="pm-copy">Copy</button>' in panel
    assert "y = W @ x  # &lt;shape (d,)&gt;" in panel
    assert "<th>sub-expression</th><th>shape</th><th>note</th>" in panel
    assert 'data-plain="W x">W x</span></td><td>[d]</td><td>[d, d] @ [d] → [d]</td>' in panel
    assert "<li>result: [d]</li>" in panel
    assert "not available in this version of papermath (evaluate)" in panel


def test_glossary_lists_every_symbol_once(page):
    glossary = re.search(r'<section id="glossary".*?</section>', page, re.S).group(0)
    assert glossary.count("<tr") == 1 + 4
    assert 'data-search="x Let $x \\in \\mathbb{R}^{d}$ denote the input' in glossary


ALGORITHM_PAPER = r"""\documentclass{article}
\begin{document}
\section{Method}
We train with the following loop.
\begin{algorithm}
\caption{Training <loop>}
\begin{algorithmic}[1]
\Require data $x$
\For{$t=1$ to $T$}
\State $y \gets f(x)$ \Comment{forward}
\EndFor
\end{algorithmic}
\end{algorithm}
Then we stop.
\end{document}
"""


def test_algorithm_boxes_stand_after_their_paragraph():
    doc = document_from_string(ALGORITHM_PAPER, "main.tex")
    page = render_page(doc, None)
    box = re.search(r'<figure class="pm-algorithm" id="alg:1">.*?</figure>', page, re.S).group(0)
    assert "<figcaption>Algorithm 1: Training &lt;loop&gt;</figcaption>" in box
    assert '<strong class="pm-algkw">Require:</strong>' in box
    assert '<span class="pm-algno">1:</span> <strong class="pm-algkw">for</strong>' in box
    assert "▷ forward" in box
    assert page.index("We train with the following loop.") < page.index('id="alg:1"') < page.index("Then we stop.")


def test_diagnostics_are_listed():
    doc = document_from_string("\\documentclass{article}\n\\begin{document}\n\\section{A}\nSee \\ref{nowhere}.\n"
                               "\\begin{equation}x = \\frac{1}{\n\\end{equation}\n\\end{document}\n", "main.tex")
    page = render_page(doc, None)
    assert doc.diagnostics, "the unclosed brace should be a diagnostic"
    assert f"{len(doc.diagnostics)} diagnostics" in page
    assert "main.tex:5:29: error: unbalanced braces: &#x27;{&#x27; is never closed" in page


def test_page_without_reading_still_shows_text_and_math(doc):
    page = render_page(doc, None)
    assert '<div class="pm-equation" id="eq:1"' in page
    assert "reading not available" in page
    assert "data-tex=" not in page and "data-plain=" in page


def test_write_site_bundles_katex_and_fonts(tmp_path, doc, reading):
    index = write_site(doc, tmp_path / "out", reading)
    assets = tmp_path / "out" / "assets"
    assert index == tmp_path / "out" / "index.html"
    for name in ("katex/katex.min.js", "katex/katex.min.css", "katex/LICENSE", "reader.js", "reader.css"):
        assert (assets / name).is_file(), name
    fonts = sorted(p.name for p in (assets / "katex" / "fonts").iterdir())
    assert "KaTeX_Main-Regular.woff2" in fonts and all(f.endswith(".woff2") for f in fonts)
    css = (assets / "katex" / "katex.min.css").read_text()
    for url in re.findall(r"url\(([^)]*)\)", css):
        assert (assets / "katex" / url).is_file(), url
    assert "MIT" in (assets / "katex" / "LICENSE").read_text()
    for ref in re.findall(r'(?:src|href)="(assets/[^"]*)"', index.read_text()):
        assert (tmp_path / "out" / ref).is_file(), ref


# ------------------------------------------------------------------------------------------------ commands

def test_html_command_on_the_example_paper(tmp_path):
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["html", str(EXAMPLE), "-o", str(tmp_path / "site")]) == 0
    text = out.getvalue()
    assert f"wrote {tmp_path / 'site' / 'index.html'}" in text
    page = (tmp_path / "site" / "index.html").read_text()
    assert "<h1 class=\"pm-title\">A Small Note on Attention and Routing</h1>" in page
    assert '<div class="pm-equation" id="eq:1"' in page
    data = json.loads(re.search(r'id="pm-data">(.*?)</script>', page, re.S).group(1))
    ids = {s["id"] for s in data["symbols"]}
    assert "eq:1/sym:Q" in ids


def test_html_command_reports_a_missing_source(tmp_path, capsys):
    assert main(["html", str(tmp_path / "nope"), "-o", str(tmp_path / "site")]) == 2
    assert "nope" in capsys.readouterr().err


def test_serve_binds_loopback_only_and_sends_csp(tmp_path, doc, reading):
    from papermath.commands.serve import make_server
    write_site(doc, tmp_path, reading)
    server = make_server(str(tmp_path), 0)
    host, port = server.server_address[:2]
    assert host == "127.0.0.1"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/index.html", timeout=10) as response:
            body = response.read().decode()
            assert response.headers["Content-Security-Policy"] == CSP
            assert response.headers["X-Content-Type-Options"] == "nosniff"
        assert '<div class="pm-equation" id="eq:1"' in body
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/assets/katex/katex.min.js", timeout=10) as response:
            assert response.read(20).startswith(b"!function")
    finally:
        server.shutdown()
        server.server_close()


def test_serve_reports_a_port_in_use(tmp_path):
    from papermath.commands.serve import make_server
    from papermath.errors import UsageError
    first = make_server(str(tmp_path), 0)
    try:
        with pytest.raises(UsageError, match=r"cannot listen on 127\.0\.0\.1:\d+"):
            make_server(str(tmp_path), first.server_address[1])
    finally:
        first.server_close()


def test_assets_are_package_data():
    from papermath.render.html import ASSET_FILES, asset_dir
    for name in ASSET_FILES:
        assert (asset_dir() / name).is_file(), name
    assert Path(asset_dir(), "katex", "fonts").is_dir()


def test_serve_command_prints_the_url_serves_and_stops_cleanly(tmp_path):
    import os
    import signal
    import subprocess
    import sys
    from conftest import REPO
    env = dict(os.environ, TMPDIR=str(tmp_path), PYTHONPATH=str(REPO))
    process = subprocess.Popen([sys.executable, "-m", "papermath", "serve", str(EXAMPLE), "--port", "0"],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, cwd=REPO)
    try:
        line = process.stdout.readline()
        match = re.fullmatch(r"serving .* at (http://127\.0\.0\.1:\d+/)  \(Ctrl-C stops\)\n", line)
        assert match, line + process.stderr.read() if process.poll() is not None else line
        with urllib.request.urlopen(match.group(1), timeout=10) as response:
            assert b'<div class="pm-equation" id="eq:1"' in response.read()
        assert len(list(tmp_path.glob("papermath-serve-*"))) == 1
    finally:
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=20) == 0
    assert "stopped" in process.stderr.read()
    assert list(tmp_path.glob("papermath-serve-*")) == []


def test_a_failing_reader_still_gives_the_text(tmp_path, monkeypatch, capsys):
    import papermath.analysis.read as read_module

    def broken(doc, keys=None):
        raise RuntimeError("boom")
    monkeypatch.setattr(read_module, "read_document", broken)
    assert main(["html", str(EXAMPLE), "-o", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "note: the symbols could not be read (RuntimeError: boom); showing the text and formulas only" in out
    page = (tmp_path / "index.html").read_text()
    assert '<div class="pm-equation" id="eq:1"' in page and "reading not available" in page
    assert "the symbols could not be read (RuntimeError: boom)" in page


def test_bound_variables_get_a_hover_of_their_own():
    doc = document_from_string("\\documentclass{article}\n\\begin{document}\n\\section{A}\nLet $x$ be the input.\n"
                               "\\begin{equation}\ny = \\sum_{j=1}^{n} x_{j}\n\\end{equation}\n\\end{document}\n",
                               "main.tex")
    symbols = (_symbol("y", "y", "defined here"),
               _symbol("x_{j}", "x", "input data", _definition("Let $x$ be the input.", 4, "p:0")))
    reading = PaperReading(doc.paper, (EquationReading(
        "eq:1", "1", "1", doc.equations[0].latex, "computation", "=", symbols,
        (ReductionReading("sum", ("j",), "1", "n", None, None, "\\sum_{j=1}^{n} x_{j}"),), (), (), ("y",),
        None, None, "main.tex", 5),), ())
    page = render_page(doc, reading)
    data = json.loads(re.search(r'id="pm-data">(.*?)</script>', page, re.S).group(1))
    ids = [s["id"] for s in data["symbols"]]
    bound = ids.index("eq:1/bound:j")
    assert data["symbols"][bound]["bound"] == "\\sum_{j = 1}^{n}"
    assert data["symbols"][bound]["definition"] is None
    tex = htmllib.unescape(re.search(r'<div class="pm-equation" id="eq:1".*?data-tex="([^"]*)"', page, re.S).group(1))
    assert tex == ("\\htmlData{pm=%d}{y} = \\sum_{\\htmlData{pm=%d}{j}=1}^{n} \\htmlData{pm=%d}{x_{j}}"
                   % (ids.index("eq:1/sym:y"), bound, ids.index("eq:1/sym:x_{j}")))
    # Not a symbol of the paper: not in the glossary.
    glossary = re.search(r'<section id="glossary".*?</section>', page, re.S).group(0)
    assert glossary.count("<tr") == 1 + 2


@pytest.mark.parametrize("entry, status", [
    ({"definition": {"quote": "q"}, "undefined": False}, "defined"),
    ({"definition": None, "undefined": True, "conventional": "x"}, "undefined"),
    ({"definition": None, "undefined": False, "conventional": "the sigmoid"}, "conventional"),
    ({"definition": None, "defined_by": "eq:1"}, "equation"),
    ({"definition": None, "role": "defined here"}, "here"),
    ({"definition": None, "role": "computed"}, "unquoted"),
    ({"definition": None, "bound": "\\sum_{j}"}, "bound"),
])
def test_symbol_status(entry, status):
    from papermath.render.html import symbol_status
    assert symbol_status(entry) == status


def test_a_symbol_computed_by_another_equation_links_to_it():
    doc = document_from_string("\\documentclass{article}\n\\begin{document}\n\\section{A}\nWe set\n"
                               "\\begin{equation}\na = b + 1\n\\end{equation}\nand then\n"
                               "\\begin{equation}\nc = 2 a\n\\end{equation}\n\\end{document}\n", "main.tex")
    first = EquationReading("eq:1", "1", "1", "a = b + 1", "computation", "=",
                            (_symbol("a", "a", "defined here"), _symbol("b", "b", "unknown")), (), ("b",), ("eq:2",),
                            ("a",), None, None, "main.tex", 5)
    second = EquationReading("eq:2", "2", "1", "c = 2 a", "computation", "=",
                             (SymbolReading("eq:2/sym:c", "c", "c", (), "symbol", "defined here", None, None, None,
                                            None, None),
                              SymbolReading("eq:2/sym:a", "a", "a", (), "symbol", "computed", None, None, None,
                                            None, None)), (), (), (), ("c",), None, None, "main.tex", 9)
    page = render_page(doc, PaperReading(doc.paper, (first, second), ()))
    data = json.loads(re.search(r'id="pm-data">(.*?)</script>', page, re.S).group(1))
    by_id = {s["id"]: s for s in data["symbols"]}
    assert by_id["eq:2/sym:a"]["status"] == "equation" and by_id["eq:2/sym:a"]["defined_by"] == "eq:1"
    assert by_id["eq:1/sym:b"]["status"] == "undefined"
    assert by_id["eq:1/sym:a"]["status"] == "here" and by_id["eq:2/sym:c"]["status"] == "here"
    row = re.search(r'<tr id="eq:2/sym:a">.*?</tr>', page, re.S).group(0)
    assert '<span class="pm-equation-note">defined by equation <a href="#eq:1">(1)</a></span>' in row
