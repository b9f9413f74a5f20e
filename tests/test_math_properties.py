"""Property tests for the math parser: any string parses or raises MathParseError (never anything else),
in both modes, and printing a parsed tree then re-parsing it gives the same tree."""
from __future__ import annotations

import pytest

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from papermath.errors import MathParseError  # noqa: E402
from papermath.math import parse, to_latex  # noqa: E402

# Pieces of real notation, so that generated strings reach deep into the grammar.
PIECES = [
    "x", "y", "i", "j", "k", "d", "e", "f", "p", "q", "E", "T", "W", "K", "Q", "1", "2", "10", "0.5",
    " ", "+", "-", "=", "<", ">", "(", ")", "[", "]", "{", "}", "^", "_", "'", ",", ";", ":", "|", "!", "/", "*",
    ".", "&", "\\\\", "\\{", "\\}", "\\|", "\\,", "\\quad",
    "\\alpha", "\\theta", "\\sigma", "\\pi", "\\ell", "\\infty", "\\cdot", "\\times", "\\odot", "\\pm",
    "\\le", "\\ge", "\\in", "\\sim", "\\to", "\\leftarrow", "\\approx", "\\mid", "\\Vert", "\\vert",
    "\\frac", "\\sqrt", "\\sum", "\\prod", "\\int", "\\max", "\\min", "\\arg", "\\lim", "\\log", "\\exp",
    "\\nabla", "\\partial", "\\mathbb", "\\mathbf", "\\mathcal", "\\mathrm", "\\operatorname", "\\text",
    "\\hat", "\\bar", "\\tilde", "\\left", "\\right", "\\big", "\\top", "\\prime", "\\ldots", "\\cdots",
    "\\binom", "\\begin{pmatrix}", "\\end{pmatrix}", "\\begin{cases}", "\\end{cases}", "\\begin{aligned}",
    "\\end{aligned}", "\\mathbb{E}", "\\mathbb 1", "\\mathrm{softmax}", "\\operatorname*{arg\\,max}",
    "\\underbrace", "\\overset", "\\substack", "\\langle", "\\rangle", "\\lfloor", "\\rfloor", "\\not",
    "\\unknownmacro", "\\label{x}", "\\color{red}", "\\over", "\\choose", "\\left.", "\\right.", "%", "\n",
]

formulas = st.lists(st.sampled_from(PIECES), max_size=24).map("".join)
any_text = st.text(max_size=40)

SETTINGS = settings(max_examples=400, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow])


def _parse_or_none(latex: str, strict: bool):
    try:
        return parse(latex, strict=strict)
    except MathParseError:
        return None


@SETTINGS
@given(st.one_of(formulas, any_text), st.booleans())
def test_any_string_parses_or_raises_math_parse_error(latex: str, strict: bool) -> None:
    result = _parse_or_none(latex, strict)
    if result is not None:
        assert result.source == latex
        if strict:
            assert result.warnings == ()


@SETTINGS
@given(st.one_of(formulas, any_text))
def test_print_then_reparse_gives_the_same_tree(latex: str) -> None:
    result = _parse_or_none(latex, strict=False)
    if result is None:
        return
    printed = to_latex(result.tree)
    again = parse(printed)
    assert again.tree == result.tree, printed


@SETTINGS
@given(formulas)
def test_strict_success_implies_tolerant_success_with_the_same_tree(latex: str) -> None:
    strict = _parse_or_none(latex, strict=True)
    if strict is None:
        return
    assert parse(latex).tree == strict.tree


def test_deep_nesting_is_an_error_not_a_crash() -> None:
    with pytest.raises(MathParseError):
        parse("(" * 5000 + ")" * 5000)


@SETTINGS
@given(formulas)
def test_every_span_lies_inside_the_formula(latex: str) -> None:
    from papermath.math import walk
    result = _parse_or_none(latex, strict=False)
    if result is None:
        return
    for node in walk(result.tree):
        start, end = node.span
        assert 0 <= start <= end <= len(latex), (type(node).__name__, node.span)


letter_products = st.lists(st.sampled_from(["a", "b", "S", "E", "x", "x'", "y_t", "E_\\theta", "\\mathbf{k}",
                                            "\\hat{a}", " ", "^2", "(z)", "\\alpha"]), min_size=2,
                           max_size=14).map("".join)


@SETTINGS
@given(letter_products, st.integers(min_value=2, max_value=16))
def test_letter_words_are_the_letter_runs_of_every_slice(latex: str, longest: int) -> None:
    """`letter_words` (one pass) finds exactly the slices that `letter_run` reads as a word, longest first."""
    from papermath.math import ast as A
    from papermath.math import parse_raw, walk
    from papermath.math.evidence import letter_run, letter_words
    try:
        tree = parse_raw(latex).tree
    except MathParseError:
        return
    for node in walk(tree):
        if not isinstance(node, A.Product):
            continue
        factors = node.factors
        for start in range(len(factors)):
            expected = []
            for end in range(min(len(factors), start + longest), start + 1, -1):
                word = letter_run(A.Product(factors[start:end], span=(factors[start].span[0],
                                                                      factors[end - 1].span[1])))
                if word is not None:
                    expected.append((end, word))
            assert letter_words(factors, start, longest) == expected, (latex, start)

