"""The Python API: the README's example (a doctest on a corpus paper), the docstring's example (the bundled
paper), results that convert to the documented JSON and display in a notebook as well-formed HTML."""
from __future__ import annotations

import doctest
import html.parser
import os
import re
from typing import ClassVar

import pytest
from conftest import CORPUS, EXAMPLE, REPO

import papermath
from papermath import schemas


def test_the_readme_example_runs_on_a_corpus_paper(monkeypatch):
    if not (CORPUS / "attention-1706.03762").is_dir():
        pytest.skip(f"../shared is absent ({CORPUS} not found): the README example opens a corpus paper")
    text = (REPO / "README.md").read_text()
    blocks = re.findall(r"```pycon\n(.*?)```", text, re.DOTALL)
    assert blocks, "the README has a Python example"
    monkeypatch.chdir(REPO)
    parser = doctest.DocTestParser()
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    for k, block in enumerate(blocks):
        test = parser.get_doctest(block, {}, f"README.md[{k}]", "README.md", 0)
        runner.run(test)
    result = runner.summarize(verbose=False)
    assert result.failed == 0 and result.attempted >= 8


def test_the_api_docstring_example_runs():
    import papermath.api
    finder = doctest.DocTestFinder()
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    cwd = os.getcwd()
    os.chdir(REPO)
    try:
        for test in finder.find(papermath.api):
            runner.run(test)
    finally:
        os.chdir(cwd)
    assert runner.summarize(verbose=False).failed == 0


class _WellFormed(html.parser.HTMLParser):
    """Valid HTML for a fragment: known elements only, every element closed, in order, no stray end tags (void
    elements excepted), table rows and cells, list items and summaries where the content model puts them, no block
    inside a paragraph or inline element."""

    VOID: ClassVar[set[str]] = {"br", "hr", "img", "input", "meta", "link", "wbr", "col", "source"}

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.stack: list[str] = []
        self.problems: list[str] = []
        self.tags: list[str] = []

    # HTML elements a notebook fragment may use, and the parents the content model allows for the picky ones
    ELEMENTS: ClassVar[set[str]] = set(
        "a abbr b br caption code col colgroup dd details div dl dt em figure h1 h2 h3 h4 h5 h6 hr i img kbd li ol p "
        "pre samp small span strong style sub summary sup table tbody td tfoot th thead tr ul var wbr".split())
    PARENTS: ClassVar[dict[str, set[str]]] = {
        "td": {"tr"}, "th": {"tr"}, "tr": {"thead", "tbody", "tfoot", "table"}, "thead": {"table"},
        "tbody": {"table"}, "tfoot": {"table"}, "li": {"ul", "ol"}, "summary": {"details"}, "dt": {"dl"},
        "dd": {"dl"}}
    PHRASING: ClassVar[set[str]] = set("span code strong em b i sub sup small kbd samp var abbr a".split())
    BLOCKS: ClassVar[set[str]] = set("div p table ul ol pre details dl figure h1 h2 h3 h4 h5 h6".split())

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        if tag not in self.ELEMENTS:
            self.problems.append(f"<{tag}> is no HTML element a fragment uses")
        parent = self.stack[-1] if self.stack else None
        if tag in self.PARENTS and parent not in self.PARENTS[tag]:
            self.problems.append(f"<{tag}> inside <{parent}>")
        if tag in self.BLOCKS and (parent == "p" or parent in self.PHRASING):
            self.problems.append(f"block <{tag}> inside <{parent}>")
        for name, _ in attrs:
            if not re.fullmatch(r"[a-z][a-z0-9-]*", name):
                self.problems.append(f"attribute {name!r} on <{tag}>")
        if tag not in self.VOID:
            self.stack.append(tag)

    def handle_endtag(self, tag):
        if not self.stack or self.stack[-1] != tag:
            self.problems.append(f"</{tag}> closes {self.stack[-1:] or 'nothing'}")
        else:
            self.stack.pop()


def test_the_html_check_catches_invalid_fragments():
    for bad in ("<p><div>x</div></p>", "<table><td>x</td></table>", "<li>x</li>", "<blink>x</blink>",
                "<span>x", "<b>x</i>"):
        with pytest.raises(AssertionError):
            well_formed(bad)
    well_formed("<table><thead><tr><th>a</th></tr></thead><tbody><tr><td><code>x</code></td></tr></tbody></table>")


def well_formed(fragment: str) -> _WellFormed:
    checker = _WellFormed()
    checker.feed(fragment)
    checker.close()
    assert not checker.problems, checker.problems[:5]
    assert not checker.stack, f"unclosed: {checker.stack}"
    return checker


@pytest.fixture(scope="module")
def eq():
    return papermath.open(EXAMPLE).equation("1")


def test_an_equation_is_the_documents_equation_with_methods(eq):
    paper = papermath.open(EXAMPLE)
    plain = paper.doc.equation("1")
    assert eq == plain and plain == eq and hash(eq) == hash(plain) and eq in paper.doc.equations
    assert eq.paper is paper and eq.id == "eq:1" and eq.number == "1"
    assert repr(papermath.open(EXAMPLE)) == "Paper('A Small Note on Attention and Routing', 7 equations)" or \
        repr(paper).startswith("Paper('A Small Note on Attention and Routing'")


def test_every_result_converts_to_its_documented_json_and_displays_as_html(eq):
    values = {"Q": [[1, 0]], "K": [[1, 0], [0, 1], [1, 1]], "V": [[10, 0], [0, 10], [5, 5]]}
    results = {
        "read": eq.reading,
        "shapes": eq.shapes(),
        "numbers": eq.numbers(set=values, extreme=True),
        "code": eq.code(set=values),
        "check": papermath.open(EXAMPLE).check(eq.reading),
    }
    for name, result in results.items():
        assert not schemas.errors(name, result.json()), name
        page = result._repr_html_()
        checker = well_formed(page)
        assert "table" in checker.tags or "pre" in checker.tags, name
        assert result._repr_markdown_().strip()
    reading_html = results["read"]._repr_html_()
    assert "We pack the queries into a matrix $Q \\in \\mathbb{R}^{n \\times d_k}$" in \
        html.unescape(reading_html).replace("&#x27;", "'")
    assert "sections/attention.tex:6" in reading_html
    assert results["numbers"].json()["extremes"] and results["numbers"].extremes
    assert results["numbers"].value.round(3).tolist() == [[6.017, 3.983]]
    assert results["check"].passed is True
    assert "def attention" in str(results["code"]) and "import torch" in str(eq.code(torch=True))


def test_paper_text_in_notebook_html_is_escaped():
    from papermath.render.notebook import reading_html
    data = {"equations": [{"id": "eq:1", "number": "1", "section": None, "file": "a.tex", "line": 1,
                           "latex": "a < b", "kind": "computation", "kind_cue": "<script>alert(1)</script>",
                           "symbols": [{"kind": "symbol", "latex": "x", "role": "unknown", "shape": None,
                                        "definition": {"quote": "<img src=x onerror=alert(1)>", "file": "a.tex",
                                                       "line": 2, "section": None}}],
                           "reductions": [], "undefined": ["<b>"]}]}
    page = reading_html(data)
    well_formed(page)
    assert "<script>" not in page and "<img" not in page and "<b>" not in page


def test_options_take_the_cli_names_and_bad_ones_say_so(eq):
    from papermath.errors import UsageError
    with pytest.raises(UsageError, match="unknown option 'sett'; did you mean 'set'"):
        eq.numbers(sett={"Q": [[1, 0]]})
    with pytest.raises(UsageError, match="no symbol|unknown|not"):
        eq.numbers(set={"nosuchsymbol": 1})
    assert eq.shapes(shape=["Q=n,d_k"]).result == eq.shapes(shape={"Q": "n,d_k"}).result


@pytest.mark.parametrize("method, options, argv", [
    ("shapes", {"shape": {"Q": "n,d_k"}}, ["--shape", "Q=n,d_k"]),
    ("numbers", {"set": {"Q": [[1, 0]]}, "extreme": True, "scale": ["Q"]},
     ["--set", "Q=[[1, 0]]", "--extreme", "--scale", "Q"]),
    ("numbers", {}, []),
    ("code", {"set": ["Q=[[1,0]]"]}, ["--set", "Q=[[1,0]]"]),
])
def test_the_api_computes_what_the_command_prints(method, options, argv):
    """Same options, same JSON: the API goes through the command's own steps (values, shapes, --fn, --dim)."""
    _the_same(EXAMPLE, "1", method, options, argv)


def test_fn_and_dim_reach_the_evaluation():
    _the_same(EXAMPLE, "2", "numbers", {"fn": {"\\sigma": "sigmoid"}, "shape": {"u": "d"}, "dim": {"d": 2}},
              ["--fn", "\\sigma=sigmoid", "--shape", "u=d", "--dim", "d=2"])
    _the_same(EXAMPLE, "2", "code", {"fn": ["\\sigma=tanh"], "dim": {"d": 3}},
              ["--fn", "\\sigma=tanh", "--dim", "d=3"])


def _the_same(source, key, method, options, argv):
    import contextlib
    import io
    import json

    from papermath.cli import main

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main([method, str(source), "--eq", key, *argv, "--json"]) in (0, 1)
    result = getattr(papermath.open(source).equation(key), method)(**options)
    assert result.json() == json.loads(out.getvalue())
