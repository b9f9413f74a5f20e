"""Issue 18 (session 14): what the speed work must not change, and the laziness and caches it relies on.

Speed itself is measured by benchmarks/scaling.py and benchmarks/read_corpus.py, never here."""
from __future__ import annotations

import pytest

from papermath.render import html as H

from conftest import CORPUS, corpus_paper

CORPUS_PAPERS = sorted(p.name for p in CORPUS.iterdir() if p.is_dir()) if CORPUS.is_dir() else []


def _every_key(key, default=None):
    """A lookup that knows every symbol (an entry per spelling), so every span the tree gives is tagged."""
    return sum(map(ord, key)) % 997


@pytest.mark.parametrize("latex, body, edits", [
    ("\\bm{x}_t = \\bm{W}h", "\\boldsymbol{x}_t = \\boldsymbol{W}h", ((0, 0), (3, 8), (14, 16))),
    ("  \\mathbbm{1}[a]", "\\mathbb{1}[a]", ((0, -2), (10, -3))),
    ("x = y", "x = y", None),  # nothing renamed: the body is the formula
    ("\\bm{x} \\label{eq:a}", "\\boldsymbol{x}", None),  # a command dropped: the body is parsed on its own
    ("\\mathscr{X}", "\\mathcal{X}", None),  # another font for the parser: the body's own tree
    ("\\bm{x} \\textsc{abc}", "\\boldsymbol{x} \\text{abc}", None),
])
def test_katex_body_records_the_renames_the_parser_reads_alike(latex, body, edits):
    assert H.katex_body(latex) == body
    assert H._katex_body_edits(latex) == (body, edits)


@pytest.mark.parametrize("latex", [
    "\\bm{x}_t = \\bm{W}_{q} \\bm{h}_t + b",
    "\\mathbbm{1}[y_i = k] \\, \\bm{\\mu}_k",
    " \\bm{\\theta}^{*} = \\arg\\min_{\\bm{\\theta}} \\mathcal{L}(\\bm{\\theta})",
    "\\bm{x} = \\begin{cases} \\bm{a} & t > 0 \\\\ \\bm{b} & t \\le 0 \\end{cases}",
])
def test_tags_from_the_formulas_tree_equal_the_rewritten_bodys(latex):
    """The page tags symbols from the formula's own tree moved by the renames: exactly the spans a parse of
    the rewritten body gives."""
    body = H.katex_body(latex)
    assert body != latex
    assert H.symbol_spans(body, _every_key, latex) == H.symbol_spans(body, _every_key)
    assert H.symbol_spans(body, _every_key, latex)  # something was tagged


@pytest.mark.corpus
def test_tags_from_the_formulas_tree_on_every_corpus_formula():
    """Every display and inline formula of the corpus: the tags from the formula's tree are the rewritten
    body's (issue 18: `html` parses each formula once)."""
    import papermath

    if not CORPUS_PAPERS:
        corpus_paper("DyT")  # skips with the reason
    moved = 0
    for name in CORPUS_PAPERS:
        paper = papermath.open(str(corpus_paper(name)))
        for formula in paper.formulas:
            body = H.katex_body(formula.latex)
            if body == formula.latex:
                continue
            mine = H.symbol_spans(body, _every_key, formula.latex)
            assert mine == H.symbol_spans(body, _every_key), (name, formula.id, formula.latex[:120])
            moved += H._katex_body_edits(formula.latex)[1] is not None
    assert moved > 100


@pytest.mark.parametrize("body, env", [
    ("a & = b \\\\ c & = d", "align"),
    ("a = b \\\\ c = d", "multline"),
    ("\\frac{a}{b}", "equation"),
    ("\\begin{matrix} a & b \\end{matrix} = M", "equation"),
])
def test_the_tagged_body_is_laid_out_as_the_plain_one(body, env):
    tagged, _ = H.wrap_symbols(body, _every_key)
    assert H._laid_out(tagged, env, *H._top_level_layout_of(body)) == H.katex_layout(tagged, env)


# -- the lazy equation index ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("key, latex, applies", [
    ("\\mathbf{x}", "\\mathbf{x} + \\exp(y)", False),  # the x of \exp spells no bold x
    ("\\mathbf{x}_{t}", "\\max_i a_i(b) + \\mathbf{x}_t", False),
    ("\\mathbf{x}", "\\mathbf{x}(t)", True),
    ("\\mathbb{R}", "\\R(x)", True),  # a one-letter command may spell the letter under a font
    ("\\mathcal{F}", "\\mathcal{F}\\left(x\\right)", True),
    ("f", "\\exp(f)", False),
    ("f", "f_\\theta(x)", True),
])
def test_could_apply_counts_a_letter_inside_a_longer_command_name_as_no_spelling(key, latex, applies):
    from papermath.analysis.equation_index import FormulaText, could_apply
    assert could_apply(key, FormulaText(latex)) is applies


class _Display:
    def __init__(self, k: int, latex: str) -> None:
        self.id, self.latex = f"eq:{k}", latex


def _index(latexes: list[str]):
    """An equation index over displays `a = …` whose left side is the letter written first, counting parses."""
    from papermath.analysis.equation_index import EquationIndex

    parsed: list[str] = []

    def parse(eq):
        parsed.append(eq.id)

        class Symbols:
            lhs_keys = (eq.latex.split("=")[0].strip(),)
            uses = ()
        return Symbols, (), None
    displays = [_Display(k, latex) for k, latex in enumerate(latexes, start=1)]
    return EquationIndex(displays, parse), displays, parsed


def test_defined_by_parses_only_the_displays_before_a_known_definer():
    """The first display defining a key, in document order, as a scan from the start finds it, but a display
    parsed already that defines it spares parsing those after it (issue 18: a one-equation command parses what
    its answer needs)."""
    index, displays, parsed = _index(["b = 1", "a = 2", "c = a", "a = 3", "a = 4"])
    index.info(displays[3])  # eq:4 was parsed for another question
    parsed.clear()
    assert index.lookup("defined_by", "a") == "eq:2"
    assert parsed == ["eq:2"]  # eq:3 holds a, but only on its right side: its left side cannot write it
    index2, displays2, parsed2 = _index(["a = 1", "b = a"])
    assert index2.lookup("defined_by", "a") == "eq:1" and parsed2 == ["eq:1"]
    index3, _, parsed3 = _index(["b = a", "c = a"])
    assert index3.lookup("defined_by", "a") is None and parsed3 == []


def test_any_asks_the_parsed_displays_first():
    index, displays, parsed = _index(["a = 1", "b = 2", "a = 3"])
    index.info(displays[2])
    parsed.clear()
    assert index._any(displays, lambda eq: index.info(eq)[0].lhs_keys == ("a",)) is True
    assert parsed == []  # eq:3, parsed already, answers
    assert index._first(displays, lambda eq: index.info(eq)[0].lhs_keys == ("a",)) is displays[0]
    assert parsed == ["eq:1"]


# -- the garbage collector around a paper -----------------------------------------------------------------------

def test_what_a_paused_build_made_is_frozen_until_a_session_is_dropped():
    """`gc_paused`: objects built while the collector was paused are frozen when the outermost pause ends (the
    first collection after it would scan them all); dropping the sessions gives them back to the collector."""
    import gc

    from papermath import paper as paper_module
    from papermath.latex import document_from_string

    paper_module.clear_cache()
    assert gc.get_freeze_count() == 0
    assert gc.isenabled()
    with paper_module.gc_paused():
        with paper_module.gc_paused():  # nested: only the outermost pause freezes
            assert not gc.isenabled()
        assert not gc.isenabled() and gc.get_freeze_count() == 0
        paper = paper_module.paper_of(document_from_string(
            "\\begin{document}\nLet $x$ be the input.\n\\begin{equation}y = 2x\\end{equation}\n\\end{document}\n"))
    assert gc.isenabled()
    assert gc.get_freeze_count() > 0
    assert paper.read().equations[0].symbols
    paper_module.clear_cache()
    assert gc.get_freeze_count() == 0


def test_a_collector_disabled_by_the_caller_stays_disabled_and_nothing_is_frozen():
    import gc

    from papermath import paper as paper_module

    paper_module.clear_cache()
    gc.disable()
    try:
        with paper_module.gc_paused():
            pass
        assert not gc.isenabled() and gc.get_freeze_count() == 0
    finally:
        gc.enable()
