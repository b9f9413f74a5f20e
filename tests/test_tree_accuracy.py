"""The tree-accuracy scorer (benchmarks/tree_accuracy.py): fragments located on tokens, each assertion kind
checked against spans, gold problems listed apart, ambiguity counted as wrong."""
from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
FIXTURE = ROOT / "tests" / "fixtures" / "tree_gold"


def _load():
    spec = importlib.util.spec_from_file_location("tree_accuracy", ROOT / "benchmarks" / "tree_accuracy.py")
    module = importlib.util.module_from_spec(spec)
    assert spec.loader is not None
    sys.modules["tree_accuracy"] = module
    spec.loader.exec_module(module)
    return module


ta = _load()


def score(latex: str, *expect: dict):
    rec = {"key": "T", "set": "fixture", "latex": latex, "classes": [], "expect": list(expect)}
    return ta.score_record(rec, {}, ta.Papers())


def test_fragments_ignore_spacing_sizing_and_outer_braces():
    f = ta.Formula(r"\left( a \, + {b} \right)")
    assert f.toks == ["(", "a", "+", "{", "b", "}", ")"]
    assert f.locate("a+ b") is None  # `{b}` is not `b` token-wise …
    iv = f.locate("{b}")
    assert iv == (3, 6) and f.strip(iv) == (4, 5)  # … but a node covering `b` matches `{b}`
    assert f.locate(r"\bigl( a") == (0, 2)


@pytest.mark.parametrize("latex, assertion", [
    ("x^2 + K^\\top y", {"power": "x^2"}),
    ("x^2 + K^\\top y", {"transpose": "K^\\top"}),
    ("x^2 + K^\\top y", {"product": ["K^\\top", "y"]}),
    ("x^2 + K^\\top y", {"node": "x^2 + K^\\top y", "is": "sum"}),
    ("\\sum_{i=1}^{N} x_i y_i + c", {"reduction": "\\sum_{i=1}^{N}", "over": ["i"], "body": "x_i y_i"}),
    ("\\mathbb{E}_{x}[f(x)]", {"reduction": "\\mathbb{E}_{x}", "over": ["x"], "body": "f(x)"}),
    ("\\mathbb{E}_{x}[f(x)]", {"reduction": "\\mathbb{E}_{x}", "body": "[f(x)]"}),
    ("\\pi_\\theta(a_t \\mid s_t)", {"apply": "\\pi_\\theta", "args": ["a_t"], "given": ["s_t"]}),
    ("\\pi_\\theta(a_t \\mid s_t)", {"sub_label": "\\pi_\\theta"}),
    ("a = b \\le c", {"chain": ["a", "=", "b", "\\le", "c"]}),
    ("a = b \\le c", {"relation": "\\le", "lhs": "b", "rhs": "c"}),
    ("\\frac{\\partial^2 u}{\\partial x^2}", {"node": "\\frac{\\partial^2 u}{\\partial x^2}", "is": "derivative"}),
    ("W_{ij} + x", {"index": "W_{ij}", "indices": ["i", "j"]}),
])
def test_assertions_that_hold(latex, assertion):
    out = score(latex, assertion)
    assert out.gold_problems == []
    assert out.right is True, out.failures


@pytest.mark.parametrize("latex, assertion, why", [
    ("x^2 + K^\\top y", {"power": "K^\\top"}, "not a power"),
    ("x^2 + K^\\top y", {"sup_label": "x^2"}, "read as a power"),
    ("x^2 + K^\\top y", {"product": ["x^2", "K^\\top"]}, "no product"),
    ("\\sum_{i=1}^{N} x_i y_i + c", {"reduction": "\\sum_{i=1}^{N}", "body": "x_i y_i + c"}, "body is"),
    ("\\sum_{i=1}^{N} x_i y_i + c", {"reduction": "\\sum_{i=1}^{N}", "over": ["j"]}, "binds"),
    ("a = b \\le c", {"relation": "=", "lhs": "a", "rhs": "b \\le c"}, "sides are"),
    ("W_{ij} + x", {"index": "W_{ij}", "indices": ["j"]}, "indices"),
])
def test_assertions_that_fail_say_why(latex, assertion, why):
    out = score(latex, assertion)
    assert out.right is False
    assert why in out.failures[0]


def test_an_application_left_ambiguous_counts_as_wrong():
    # a bare `f(x)`: nothing in the formula says whether f is a function
    out = score("y + f(x)", {"apply": "f", "args": ["x"]})
    if out.right is False:
        assert "ambiguous" in out.failures[0] or "no application" in out.failures[0]


def test_unlocatable_fragments_are_gold_problems_not_failures():
    out = score("x^2", {"power": "y^2"})
    assert out.right is None
    assert out.gold_problems and "not found" in out.gold_problems[0]


def test_nth_picks_a_later_occurrence_and_secondary_fragments_follow_the_anchor():
    latex = "f(a) + g(a)"
    out = score(latex, {"relation": "=", "lhs": "a", "rhs": "b"})
    assert out.gold_problems  # no `=` after the first a: a gold problem, not a tree failure
    f = ta.Formula(latex)
    assert f.locate("a", 2) == (7, 8)


def test_the_fixture_scores_and_lists_its_gold_problem(capsys):
    assert ta.main(["--gold", str(FIXTURE)]) == 0
    out = capsys.readouterr().out
    assert "fixture" in out and "per error class" in out
    assert "F20: node:" in out  # the fixture's deliberately unlocatable fragment


@pytest.mark.parametrize("latex, assertion, right", [
    # a conditional expectation: the gold writes the body through its condition, and asserts the condition apart
    (r"\mathbb{E}[g_t | z_t]", {"reduction": r"\mathbb{E}", "body": "g_t | z_t", "condition": "z_t"}, True),
    (r"\mathbb{E}[g_t \mid z_t]", {"reduction": r"\mathbb{E}", "body": r"g_t \mid z_t"}, True),
    (r"\mathbb{E}[g_t | z_t]", {"reduction": r"\mathbb{E}", "body": "g_t"}, True),
    (r"\mathbb{E}[g_t | z_t]", {"reduction": r"\mathbb{E}", "condition": "g_t"}, False),
])
def test_a_conditional_expectations_body_matches_through_its_condition(latex, assertion, right):
    out = score(latex, assertion)
    assert out.gold_problems == []
    assert out.right is right, out.failures


@pytest.mark.parametrize("op, right", [("E", True), ("sum", False), ("max", False), ("argmin", False)])
def test_only_an_expectation_matches_its_body_through_a_condition(op, right):
    # the same tree with another reduction's op: its body is the body alone, whatever follows a bar
    from dataclasses import replace

    from papermath.math import ast as A
    from papermath.math import parse
    latex = r"\mathbb{E}[g_t | z_t]"
    tree = parse(latex).tree
    assert isinstance(tree, A.Reduction) and tree.op == "E" and tree.condition is not None
    tree = replace(tree, op=op)
    formula = ta.Formula(latex)
    view = ta.TreeView(tree, formula)
    assert ta.check_reduction({"reduction": r"\mathbb{E}", "body": "g_t | z_t"}, formula, view).holds is right
    assert ta.check_reduction({"reduction": r"\mathbb{E}", "body": "g_t"}, formula, view).holds
