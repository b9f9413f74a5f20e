"""The reading-accuracy scorer's symbol matching (benchmarks/reading_accuracy.py): one normal form for the
spellings of one symbol, so a gold key and papermath's row meet when they write the same symbol."""
from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _load():
    spec = importlib.util.spec_from_file_location("reading_accuracy", ROOT / "benchmarks" / "reading_accuracy.py")
    module = importlib.util.module_from_spec(spec)
    assert spec.loader is not None
    sys.modules["reading_accuracy"] = module
    spec.loader.exec_module(module)
    return module


ra = _load()


@pytest.mark.parametrize("gold, row", [
    (r"r[j]", r"r_{j}"),                                     # array indexing is a subscript
    (r"\bm{z}[i-1][r[j]]", r"\mathbf{z}_{i - 1,r_{j}}"),
    (r"\bm{z}[i][j]", r"\mathbf{z}_{i,j}"),
    (r"\mathbbm{1}", r"\mathbb{1}[\cdot]"),                  # an operator row's placeholder argument
    (r"\langle\cdot,\cdot\rangle", r"\langle\cdot,\cdot\rangle"),
    (r"\{t^N\}", r"t^{N}"),                                  # a set of members is its members' symbol
    (r"\log", r"\text{log}"),                                # operator names are roman
    (r"Y_{\overline{\mathbf{M}}}", r"Y_\bar{\mathbf{M}}"),   # one spelling per accent, its argument with it
    (r"\bm{x}_t^{\text{num}}", r"\mathbf{x}^{\text{num}}_{t}"),
    (r"\bm{x_0}", r"\mathbf{x}_{0}"),                        # a font around one scripted letter is the letter's
    (r"\bm{v_\theta}", r"\mathbf{v}_\theta"),
])
def test_spellings_of_one_symbol_meet(gold, row):
    assert ra.canon(gold) == ra.canon(row)


@pytest.mark.parametrize("a, b", [
    (r"x_{t,5}", r"x_{t,95}"),
    (r"\|\cdot\|", r"\cdot"),
    (r"\bar{x}", r"x"),
    (r"\{s^M\}^o", r"s^{M}"),      # a labelled set is not its members
])
def test_other_symbols_stay_apart(a, b):
    assert ra.canon(a) != ra.canon(b)


class _NoMacros:
    def math(self, latex: str) -> str:
        return latex


@pytest.mark.parametrize("gold_over, ours, right", [
    # a tuple drawn together binds each member
    (r"(\bm{x}^w_0,\bm{x}^l_0), t", [r"\mathbf{x}^{w}_{0}", r"\mathbf{x}^{l}_{0}", "t"], True),
    ("x", [r"\mathbf{x}"], True),                                   # the gold's plain x for the paper's bold x
    ("x", ["y"], False),
    (r"x, t", ["x"], False),                                         # a bound variable missing
])
def test_reduction_bound_variables(gold_over, ours, right):
    matched, ok = ra._reductions_right([{"op": "E", "over": gold_over}], [{"op": "E", "over": ours}], _NoMacros())
    assert ok is right and matched == int(right)


def test_a_number_printed_twice_is_the_display_closest_to_the_gold():
    # an appendix restates (8) (eq:8~24) and numbers another display (8) again (eq:8~71): the gold's LaTeX decides
    equations = [
        {"id": "eq:8", "number": "8", "latex": r"\beta \cdot \mathbb{E}_{\tau}[A^2(s_t)]"},
        {"id": "eq:8~71", "number": "8", "latex": r"\mathbb{E}_{\tau}[\gamma^{t+1} A^1(s_k)]"},
    ]
    gold = {"latex": r"\beta \cdot \mathbb{E}_{\tau} [A^2(s_t)]"}
    assert ra._find_equation("8", gold, equations)["id"] == "eq:8"
    assert ra._find_equation("8", {"latex": r"\mathbb{E}_{\tau}[\gamma^{t+1}A^1(s_k)]"}, equations)["id"] == "eq:8~71"


def test_blackboard_spellings_are_one_symbol():
    assert ra.canon(r"\mathds{1}") == ra.canon(r"\mathbb{1}") == ra.canon(r"\mathbbm{1}")


@pytest.mark.parametrize("gold, rows, want", [
    # no row spelled x_j: the one row whose equation also writes x_j is its row
    (r"x_j^{k}", [{"latex": "x^{k}_{i}", "symbol": "x^{k}", "also_written": ["x^{k}_{j}"]},
                  {"latex": "x^{k + 1}_{i}", "symbol": "x^{k + 1}", "also_written": []}], "x^{k}_{i}"),
    # a row spelled as the gold key wins over one that also writes it
    (r"x_0", [{"latex": "x_{t}", "symbol": "x", "also_written": ["x_{0}"]},
              {"latex": "x_{0}", "symbol": "x_{0}", "also_written": []}], "x_{0}"),
    # two rows that both also write it: no guess
    (r"z_2", [{"latex": "u_{1}", "symbol": "u", "also_written": ["z_{2}"]},
              {"latex": "y_{1}", "symbol": "y", "also_written": ["z_{2}"]}], None),
])
def test_a_row_reads_the_other_forms_its_equation_writes(gold, rows, want):
    class NoMacros:
        def math(self, latex):
            return latex
    found = ra._rows_for(gold, {}, rows, NoMacros())
    assert (found[0]["latex"] if found else None) == want


class _NoMacros:
    def math(self, latex):
        return latex


@pytest.mark.parametrize("gold, ours", [
    (["N", "d_model"], ["N", r"d_{\text{model}}"]),   # the gold's shorthand for a label in words
    (["D^head", "D"], [r"D^{\text{head}}", "D"]),
    (["M_num"], [r"M_{{\rm num}}"]),
    (["d_h n_h"], ["d_h n_h"]),
])
def test_a_dimension_labelled_in_words_meets_in_any_font(gold, ours):
    assert ra._dims(gold, _NoMacros()) == ra._dims(ours, _NoMacros())


@pytest.mark.parametrize("a, b", [(["d_model"], ["d"]), (["D^head"], ["D_head"]), (["d_c"], ["d_h"])])
def test_other_dimensions_stay_apart(a, b):
    assert ra._dims(a, _NoMacros()) != ra._dims(b, _NoMacros())


@pytest.mark.parametrize("ours, gold", [
    # the paragraph text keeps text-style commands that the gold's expansion prints as their words
    (r"the training process of \textsc{Semanticist}\xspace is to minimize this loss",
     "the training process of Semanticist is to minimize this loss"),
    (r"where $x_0 \sim p_0$ are \textit{i.i.d.} samples from real data", "are i.i.d. samples from real data"),
    (r"we introduce a \textbf{nested guidance} function", "a nested guidance function"),
])
def test_a_quote_meets_the_gold_whatever_its_text_style(ours, gold):
    class Plain:
        def text(self, latex):
            return latex
    assert ra._quote_contains(ours, [gold], Plain())
    assert not ra._quote_contains(ours, ["a different sentence"], Plain())


# A symbol the gold marks never defined: (papermath's row definition, listed undefined, listed mentioned, right).
# "Mentioned, not defined" with its mention claims no definition (issue 14); a quote holding one of the gold's
# alternates is what the gold accepts; a defining quote of another sentence, or silence, is wrong.
class _PlainText(_NoMacros):
    def text(self, latex: str) -> str:
        return latex


_NEVER_DEFINED = {"defined": False, "quote": None, "alt_quotes": ["This loss encourages $x$ to improve"],
                  "role": "function"}


@pytest.mark.parametrize("definition, undefined, mentioned, right", [
    (None, True, False, True),
    ({"quote": "$r$ is only a weighting in $\\nabla_x \\log p_x$.", "strength": "mentions"}, False, True, True),
    ({"quote": "This loss encourages $x$ to improve more.", "strength": "defines"}, False, False, True),
    ({"quote": "where $x$ is the sigmoid function.", "strength": "defines"}, False, False, False),
    ({"quote": "where $x$ is the sigmoid function.", "strength": "defines"}, False, True, False),
    (None, False, False, False),
])
def test_a_symbol_the_paper_never_defines(definition, undefined, mentioned, right):
    ours = {"symbols": [{"latex": "x", "symbol": "x", "role": "function", "definition": definition}],
            "undefined": ["x"] if undefined else [], "mentioned": ["x"] if mentioned else [],
            "kind": "computation", "reductions": []}
    gold = {"kind": "computation", "symbols": {"x": _NEVER_DEFINED}, "reductions": []}
    misses: list = []
    tally = ra.score_equation("P", "1", gold, ours, _PlainText(), misses)
    assert tally.entirely_right == int(right), misses
