"""The paper session: one load, each formula parsed once, one way to find an equation, positions in the source."""
from __future__ import annotations

import collections
import io
import json
import contextlib

import pytest

import papermath
from papermath import paper as paper_module
from papermath.cli import main
from papermath.errors import UsageError
from papermath.latex import document_from_string

from conftest import EXAMPLE, corpus_paper

PAPER = r"""\documentclass{article}
\newcommand{\vx}{\mathbf{x}}
\begin{document}
\section{Method}
Let $\vx_t$ be the input and $W \in \mathbb{R}^{d \times d}$ the weights.
\begin{equation}
  h_t = W \vx_t \label{eq:hidden}
\end{equation}
The output is computed as \begin{equation} y_t = \softplus(h_t) + \unknownthing_t \label{eq:out} \end{equation}
\begin{figure}\caption{The map $f_\theta$.}\end{figure}
\begin{table}\caption{Notation.}\begin{tabular}{ll} $\vx_t$ & the input \\ $d$ & width \end{tabular}\end{table}
\begin{equation*} z = y_t \end{equation*}
\end{document}
"""


@pytest.fixture()
def tiny(tmp_path):
    (tmp_path / "main.tex").write_text(PAPER, encoding="utf-8")
    return tmp_path


def test_open_reads_once_and_keeps_a_few_sessions(tiny, tmp_path_factory):
    paper_module.clear_cache()
    first = papermath.open(tiny)
    assert papermath.open(str(tiny)) is first
    assert paper_module.paper_of(first.doc) is first
    for k in range(6):
        other = tmp_path_factory.mktemp(f"p{k}")
        (other / "main.tex").write_text(PAPER, encoding="utf-8")
        papermath.open(other)
    assert len(paper_module._PAPERS) <= paper_module._MAX_PAPERS
    assert papermath.open(tiny) is not first  # evicted: opened afresh, not grown without bound
    (tiny / "main.tex").write_text(PAPER.replace("h_t = W", "h_t = 2 W"), encoding="utf-8")
    assert "2 W" in papermath.open(tiny).equation("1").latex  # a changed file is read again


@pytest.mark.parametrize("key", ["1", "(1)", "eq:1", "eq:hidden", "label:eq:hidden", " 1 "])
def test_one_lookup_for_every_way_of_naming_an_equation(tiny, key):
    assert papermath.open(tiny).equation(key).id == "eq:1"


def test_unnumbered_and_missing_equations(tiny):
    paper = papermath.open(tiny)
    assert paper.equation("eq:u1").latex == "z = y_t"
    with pytest.raises(UsageError) as error:
        paper.equation("eq:hiden")
    message = str(error.value)
    assert "numbers run (1)–(2)" in message and "eq:u1" in message and "did you mean eq:hidden" in message
    assert paper.find_equation("7") is None


def test_every_formula_is_a_formula_with_its_place(tiny):
    paper = papermath.open(tiny)
    by_id = {f.id: f for f in paper.formulas}
    assert [f.id for f in paper.formulas if f.display] == ["eq:1", "eq:2", "eq:u1"]
    inline = [f for f in paper.formulas if not f.display]
    assert {f.place.kind for f in inline} == {"text", "caption", "table"}
    first = by_id["m:p:0:0"]
    assert (first.latex, first.place.container, first.place.sentence) == (r"\mathbf{x}_t", "p:0", 0)
    assert first.tree is not None and first.error is None
    assert by_id["m:tab:1:0"].latex == r"\mathbf{x}_t" and by_id["m:tab:1:1"].latex == "d"
    caption = next(f for f in inline if f.place.kind == "caption")
    assert caption.latex == r"f_\theta"
    assert paper.formula("eq:hidden") is by_id["eq:1"]
    assert paper.formula("m:p:0:1").latex.startswith("W \\in")


def test_a_parser_warning_names_file_line_and_column(tiny):
    paper = papermath.open(tiny)
    (warning,) = [w for w in paper.formula("2").warnings if "unknownthing" in w.message]
    lines = PAPER.splitlines()
    assert (warning.position.file, warning.position.line) == ("main.tex", 9)
    assert lines[8][warning.position.column - 1:].startswith(r"\unknownthing")
    assert str(warning.position) == f"main.tex:9:{lines[8].index(chr(92) + 'unknownthing') + 1}"
    # Characters a macro produced map to the macro call: `\mathbf{x}` came from `\vx` on line 7.
    formula = paper.formula("1")
    at = formula.latex.index("\\mathbf")
    position = formula.position(at)
    assert position.line == 7 and lines[6][position.column - 1:].startswith("\\vx")


def test_a_parse_error_is_a_diagnostic_at_its_source_position(tmp_path):
    (tmp_path / "main.tex").write_text("\\begin{document}\nText.\n\\begin{equation}\n  a = \\frac{b}\n"
                                       "\\end{equation}\n\\end{document}\n", encoding="utf-8")
    paper = papermath.open(tmp_path)
    formula = paper.formula("1")
    assert formula.result is None and formula.error is not None
    assert formula.error.position.file == "main.tex" and formula.error.position.line == 4
    assert formula.error in paper.diagnostics


def test_a_warning_on_a_real_paper_names_the_original_line():
    source = corpus_paper("GMFlow")
    paper = papermath.open(source)
    warnings = [w for f in paper.formulas for w in f.warnings if "\\colonapprox" in w.message]
    assert warnings
    position = warnings[0].position
    text = (source / position.file).read_text(encoding="utf-8").splitlines()
    assert text[position.line - 1][position.column - 1:].startswith("\\colonapprox")


def test_used_by_comes_from_the_inverted_index_and_matches_all_pairs():
    paper = papermath.open(EXAMPLE)
    index = paper.index
    for eq in paper.doc.equations:
        info = index.formulas[eq.id][0]
        if info is None:
            continue
        expected = tuple(other for other, (oinfo, _, _) in index.formulas.items()
                         if other != eq.id and oinfo is not None and info.lhs_keys
                         and any(u.key in info.lhs_keys for u in oinfo.uses if not u.lhs))
        assert paper.reading(eq).uses == expected


@pytest.fixture()
def parser_runs(monkeypatch):
    """Every run of the formula parser (what `math.parse_raw` and so `math.parse` do), counted by formula."""
    from papermath.math import clear_parse_cache
    from papermath.math.parser import Parser

    counts: collections.Counter = collections.Counter()
    original_init = Parser.__init__
    original = Parser.parse_formula

    def init(self, latex, *args, **kwargs):
        original_init(self, latex, *args, **kwargs)
        self._counted_latex = latex

    def counting(self):
        counts[self._counted_latex] += 1
        return original(self)
    monkeypatch.setattr(Parser, "__init__", init)
    monkeypatch.setattr(Parser, "parse_formula", counting)
    clear_parse_cache()
    paper_module.clear_cache()
    return counts


def _parsed_at_most_once(counts, source, argv) -> dict:
    with contextlib.redirect_stdout(io.StringIO()) as out:
        code = main(argv)
    shown = json.loads(out.getvalue())
    # 2 with an error JSON: the equation's code could not be written (a derivative…), after the paper was read
    assert code in (0, 1) or "no equation" not in shown["error"]["message"], shown
    during = dict(counts)
    paper = papermath.open(source)  # the same session: formulas parsed during the command are not parsed again
    formulas = {f.latex for f in paper.formulas}
    parsed = {latex: n for latex, n in during.items() if latex in formulas}
    assert parsed, "the command parsed none of the paper's formulas"
    assert max(parsed.values()) == 1, {k[:80]: v for k, v in parsed.items() if v > 1}
    assert max(counts[latex] for latex in formulas) <= 1  # nor after it, through the session
    return parsed


@pytest.mark.parametrize("command", ["code", "shapes", "numbers", "read"])
def test_a_one_equation_command_parses_each_formula_at_most_once(parser_runs, command):
    _parsed_at_most_once(parser_runs, EXAMPLE, [command, str(EXAMPLE), "--eq", "2", "--json"])


@pytest.mark.corpus
@pytest.mark.parametrize("name", ["Diff-Transformer", "schedule_free"])
def test_code_on_a_corpus_paper_parses_each_formula_at_most_once(parser_runs, name):
    """Issue 13: `papermath code DIR --eq N` parses each formula of the paper at most once (display, inline,
    caption, table and algorithm formulas), for the first and the last numbered equation, in one process."""
    source = corpus_paper(name)
    numbers = [eq.number for eq in papermath.open(source).doc.equations if eq.number]
    paper_module.clear_cache()
    parser_runs.clear()
    from papermath.math import clear_parse_cache
    clear_parse_cache()
    for number in (numbers[0], numbers[-1]):
        parsed = _parsed_at_most_once(parser_runs, source, ["code", str(source), "--eq", number, "--json"])
    assert len(parsed) > 20


def test_legacy_entry_points_share_the_session():
    from papermath.analysis.read import index_paper, read_document

    doc = document_from_string(PAPER)
    paper = paper_module.paper_of(doc)
    assert index_paper(doc).paper is paper
    assert read_document(doc, ["1"]).equations[0].id == "eq:1"
    assert read_document(paper).equations[1].id == "eq:2"


@pytest.mark.parametrize("source", [EXAMPLE, "schedule_free", "LEN"])
def test_the_lazy_candidate_order_is_rank_candidates_order(source):
    """read walks CandidateOrder instead of ranking every mention for every equation: the order must be the
    reference ranking's, candidate for candidate, for every equation and symbol (and with a defining display)."""
    from papermath.analysis.candidates import CandidateOrder, rank_candidates
    from papermath.analysis.read import _candidate_slots, written_form

    paper = papermath.open(source if source == EXAMPLE else corpus_paper(source))
    index = paper.index
    compared = 0
    for eq in paper.doc.equations:
        info = index.formulas[eq.id][0]
        for use in (info.uses if info is not None else ()):
            if use.kind == "index":
                continue
            subject, inside = _candidate_slots(index, use, written_form(use))
            order = CandidateOrder(paper.doc, index.mentions, subject, inside)
            for home in (None, eq):
                expected = [(c.mention, c.slot, c.strength, c.rank) for c in
                            rank_candidates(paper.doc, index.mentions, eq, subject, inside, False, home)]
                assert [(c.mention, c.slot, c.strength, c.rank) for c in order.ranked(eq, home)] == expected
                compared += 1
    assert compared > 10


def test_the_mcp_server_and_commands_reuse_one_session(monkeypatch):
    """Tool calls on one paper load it once: the session is kept between calls (and bounded)."""
    from papermath import latex, mcp_server

    loads = []
    original = latex.load_document

    def counting(source, **kwargs):
        loads.append(source)
        return original(source, **kwargs)
    monkeypatch.setattr(latex, "load_document", counting)
    paper_module.clear_cache()
    tools = mcp_server.build_tools()
    first = mcp_server.call_tool(tools, "read_equation", {"source": str(EXAMPLE), "eq": "1"})
    shapes = mcp_server.call_tool(tools, "shapes", {"source": str(EXAMPLE), "eq": "2"})
    again = mcp_server.call_tool(tools, "read_equation", {"source": str(EXAMPLE), "eq": "1"})
    assert first == again and shapes["equation"].startswith("eq:2")
    assert loads == [str(EXAMPLE)]


def test_html_reads_the_paper_once(monkeypatch, tmp_path):
    from papermath.analysis import read as read_module
    from papermath.commands.html import build_site

    built = []
    original = read_module.build_paper_index

    def counting(paper):
        built.append(paper)
        return original(paper)
    monkeypatch.setattr(read_module, "build_paper_index", counting)
    paper_module.clear_cache()
    page, _ = build_site(str(EXAMPLE), tmp_path / "site")
    assert page.is_file() and len(built) == 1


def test_one_equation_stages_from_the_session_match_the_commands():
    paper_module.clear_cache()
    paper = papermath.open(EXAMPLE)
    with contextlib.redirect_stdout(io.StringIO()) as out:
        main(["shapes", str(EXAMPLE), "--eq", "1", "--json"])
    shown = json.loads(out.getvalue())
    assert list(paper.shapes("1").result) == shown["result"]
    with contextlib.redirect_stdout(io.StringIO()) as out:
        main(["code", str(EXAMPLE), "--eq", "1", "--json"])
    assert paper.code("eq:attention").numpy == json.loads(out.getvalue())["numpy"]
    assert paper.shapes("1") is paper.shapes("eq:1")  # computed once per paper


CORPUS_PAPERS = ["Diff-Transformer", "DiffusionDPO", "DyT", "GMFlow", "GPS", "LEN", "OptimalSteps", "REPA-E", "SISS",
                 "TabDiff", "Tanh-Init", "advantage-alignment", "attention-1706.03762", "deepseek-v3-2412.19437",
                 "eomt", "grid-cell-conformal-isometry", "hyla", "llm-sci-use", "maskgit-2202.04200", "minp",
                 "schedule_free", "semanticist"]


@pytest.mark.corpus
def test_the_lexical_prefilter_admits_every_formula_for_the_keys_its_tree_gives():
    """Issue 18: a one-equation command parses only the displays and classifies only the sentences that
    `could_write` admits for a key; it must admit every display whose own tree gives the key (what it defines,
    uses, applies) and every sentence whose mentions hold it, on every corpus formula."""
    from papermath.analysis.candidates import key_family
    from papermath.analysis.equation_index import (_SUBSCRIPT, FormulaText, could_apply, could_write, key_atoms,
                                                   left_side)
    from papermath.analysis.definitions import ordinal_indices
    from papermath.analysis.symbols import collect

    checked = 0
    for name in CORPUS_PAPERS:
        paper = papermath.open(corpus_paper(name))
        ordinals = ordinal_indices(paper.doc)
        for eq in paper.doc.equations:
            parsed = paper.parse(eq.latex)
            if parsed is None:
                continue
            symbols = collect(parsed.tree, ordinals)
            keys = {u.key for u in symbols.uses} | set(symbols.lhs_keys) | \
                {_SUBSCRIPT.sub("", k) for k in symbols.lhs_keys}
            text = FormulaText(eq.latex)
            missed = [k for k in keys if not could_write(key_atoms(k), text)]
            missed += [u.key for u in symbols.uses if u.kind == "function" and not could_apply(u.key, text)]
            # what the display defines, from its left side alone (`defined_by` and `definers` test only that)
            left = FormulaText(left_side(eq.latex))
            missed += [k for k in set(symbols.lhs_keys) | {_SUBSCRIPT.sub("", k) for k in symbols.lhs_keys}
                       if not could_write(key_atoms(k), left)]
            assert not missed, (name, eq.id, missed, eq.latex[:200])
            checked += len(keys)
        # and every sentence of the prose for every key its mentions give (prose_index classifies only those)
        mentions = paper.index.mentions
        for j, text in enumerate(mentions._texts):
            for i in mentions._ids(j):
                m = mentions[i]
                keys = set(m.keys + m.bases + m.elements + m.inner)
                keys |= {key_family(k) for k in m.keys + m.elements + m.inner}
                missed = [k for k in keys if not could_write(key_atoms(k), text)]
                assert not missed, (name, m.quote, missed)
                checked += len(keys)
    assert checked > 8000


def _json_of(argv) -> dict:
    with contextlib.redirect_stdout(io.StringIO()) as out:
        main(argv)
    return json.loads(out.getvalue())


@pytest.mark.corpus
@pytest.mark.parametrize("name", CORPUS_PAPERS)
def test_a_one_equation_command_answers_as_the_whole_paper_read(name):
    """Issue 18: `read --eq N` reads N alone (the displays its symbols can be in, not the paper), and answers as
    the whole-paper read does, entry for entry; `shapes`, `numbers` and `code` give the same JSON whether the
    paper was read whole first or not. First, middle and last equation of every corpus paper."""
    from papermath.math import clear_parse_cache

    source = str(corpus_paper(name))
    paper_module.clear_cache()
    clear_parse_cache()
    paper = papermath.open(source)
    whole = {e["id"]: e for e in _json_of(["read", source, "--json"])["equations"]}
    ids = [eq.id for eq in paper.doc.equations]
    picked = list(dict.fromkeys([ids[0], ids[len(ids) // 2], ids[-1]]))
    numbered = [eq.number for eq in paper.doc.equations if eq.number]
    stages = {n: {verb: _json_of([verb, source, "--eq", n, "--json"]) for verb in ("shapes", "numbers", "code")}
              for n in dict.fromkeys([numbered[0], numbered[-1]])} if numbered else {}
    paper_module.clear_cache()
    clear_parse_cache()
    lazy = papermath.open(source)
    for eq_id in picked:
        assert _json_of(["read", source, "--eq", eq_id, "--json"])["equations"] == [whole[eq_id]], eq_id
    for n, outputs in stages.items():
        for verb, expected in outputs.items():
            assert _json_of([verb, source, "--eq", n, "--json"]) == expected, (verb, n)
    assert lazy.index.equations._full is None  # nothing asked for the whole paper's index


@pytest.mark.corpus
def test_a_one_equation_reading_parses_the_displays_it_needs():
    paper_module.clear_cache()
    paper = papermath.open(corpus_paper("schedule_free"))
    middle = paper.doc.equations[len(paper.doc.equations) // 2]
    paper.read([middle.id])
    assert len(paper.index.equations._info) < len(paper.doc.equations) // 2
    mentions = paper.index.mentions  # and the sentences that can hold its symbols, not the prose
    assert len(mentions._classified) < len(mentions._sentences) // 2


@pytest.mark.corpus
def test_the_spellings_of_a_symbol_are_found_without_reading_the_whole_prose():
    """Issue 18: the other weights a symbol is written in (`\\bm{\\epsilon}` for `\\epsilon`), looked up
    sentence by sentence, are the ones the whole prose gives, for every key the prose holds, on every paper."""
    from papermath.analysis.prose_index import ProseMentions
    from papermath.analysis.read import _unbold

    checked = 0
    for name in CORPUS_PAPERS:
        paper = papermath.open(corpus_paper(name))
        whole = paper.index.mentions
        whole.complete()
        keys = list(dict.fromkeys(list(whole._full["subject"]) + list(whole._full["inside"])))
        found = {k: whole.spellings(k, _unbold) for k in keys}
        lazy = ProseMentions(paper.doc, paper.index.ordinals)
        for key in keys:
            assert lazy.spellings(key, _unbold) == found[key], (name, key)
            checked += bool(found[key])
        assert lazy._full is None
    assert checked > 20


@pytest.mark.parametrize("source, words, start, end, expected", [
    ("we define  the\n loss as", ["the", "loss"], 0, None, 11),     # any white space between the words
    ("the lossy the loss", ["the", "loss"], 0, None, 0),             # a word is a prefix of the text's word
    ("theloss the loss", ["the", "loss"], 0, None, 8),               # but the words are apart
    ("a the loss b the loss", ["the", "loss"], 3, None, 13),         # from `start`
    ("a the loss", ["the", "loss"], 0, 8, -1),                      # the match must end inside the window
    ("x\u00a0y", ["x", "y"], 0, None, 0),                            # non-breaking space is white space
    ("no match here", ["absent"], 0, None, -1),
])
def test_quotes_are_found_as_the_whitespace_pattern_finds_them(source, words, start, end, expected):
    """Issue 18: `Paper.locate_text` finds a quote's words without compiling a pattern per quote, where the
    pattern `w1\\s+w2…` would."""
    import re

    from papermath.paper import _find_words

    end = len(source) if end is None else end
    found = _find_words(source, words, start, end)
    m = re.compile(r"\s+".join(map(re.escape, words))).search(source, start, end)
    assert found == expected == (m.start() if m else -1)


@pytest.mark.parametrize("latex, defines, not_defines", [
    (r"a = b = c", ["a"], ["b", "c"]),                                    # the middle of a chain defines nothing
    (r"a = b, \quad c = d", ["a", "c"], ["b", "d"]),                      # each statement's first operand
    (r"y &= f(x) \\ z &= g(y) + w", ["y", "z"], ["w"]),                  # align rows
    (r"x = y \text{ and } u = v", ["x", "u"], ["y", "v"]),
    (r"[k_1; k_2] = k = W c", ["k"], ["W", "c"]),                        # the term a bracket's parts are named
    (r"p(y = 1 \mid x) = q", ["p"], ["q"]),                               # a sign inside brackets cuts nothing
    (r"\left\{ a = b \right. = c", ["a", "b"], ["c"]),                    # unbalanced: up to the last sign
    (r"f(x) + g", ["f", "g"], []),                                        # no sign: the whole text
])
def test_the_left_side_text_holds_every_first_operand_and_no_chain_middle(latex, defines, not_defines):
    """Issue 18: `defined_by` and `definers` parse a display for a key only when its left sides can write the
    key; the text kept is every statement's first operand, not the right sides of a chain or an align row."""
    from papermath.analysis.equation_index import FormulaText, could_write, key_atoms, left_side

    left = FormulaText(left_side(latex))
    assert [k for k in defines if not could_write(key_atoms(k), left)] == []
    assert [k for k in not_defines if could_write(key_atoms(k), left)] == []


@pytest.mark.corpus
@pytest.mark.parametrize("name", ["schedule_free", "GMFlow", "advantage-alignment"])
def test_the_shapes_of_an_equation_read_its_symbols_not_its_used_by(name):
    """Issue 18: `shapes` (and `numbers`, `code`) read the rows of an equation's reading (`Paper.symbols`), not
    the equations that use it: fewer displays parsed than `read --eq` of the same equation (counted), and the
    same rows as the full reading."""
    from papermath.math import clear_parse_cache

    source = corpus_paper(name)
    counts = {}
    for stage in ("read", "shapes"):
        paper_module.clear_cache()
        clear_parse_cache()
        paper = papermath.open(source)
        first = paper.doc.equations[0]
        if stage == "read":
            rows = paper.reading(first).symbols
        else:
            paper.shapes(first)
            assert paper.symbols(first) == rows
            assert first.id not in paper._readings  # no reading was asked for
        counts[stage] = len(paper.index.equations._info)
    assert counts["shapes"] < counts["read"], counts
