"""Every stage is total and bounded (issue 12): one nesting limit, enforced once by the parser with the place it
is crossed; every later stage handles any tree at that limit, even from deep in a caller's stack; the parser's
work is linear in the formula (nested accents and `\\overset` were exponential)."""
from __future__ import annotations

import json

import pytest

from papermath.errors import MathParseError, PapermathError
from papermath.limits import MAX_DEPTH, MAX_TOKENS
from papermath.math import parse, read_aloud, to_dict, to_latex
from papermath.math.parser import Parser, room_for_nesting

NESTINGS = {
    "parentheses": ("(", "x", ")"),
    "square root": ("\\sqrt{", "x", "}"),
    "fraction": ("\\frac{1}{", "x", "}"),
    "superscript": ("x^{", "y", "}"),
    "subscript": ("x_{", "i", "}"),
    "sum": ("\\sum_{i=1}^{3} ", "x_i", ""),
    "exp": ("\\exp(", "x", ")"),
    "norm": ("\\|", "x", "\\|"),
    "absolute value": ("|", "x", "|"),
    "minus": ("-", "x", ""),
    "overset": ("\\overset{a}{", "x", "}"),
    "underbrace": ("\\underbrace{", "x", "}_{u}"),
    "mathbf group": ("\\mathbf{1+", "x", "}"),
    "brackets": ("[", "x", "]"),
    "cases": ("\\begin{cases}", "x", "\\end{cases}"),
    "left right": ("\\left(", "x", "\\right)"),
}


def nested(kind: str, n: int) -> str:
    open_, inner, close = NESTINGS[kind]
    return open_ * n + inner + close * n


def flat_sum(n: int) -> str:
    return " + ".join(f"x_{{{i}}}" for i in range(n))


def _from_deep_stack(frames: int, work):
    """Run `work` with `frames` extra frames below it, as a caller deep in its own stack would."""
    if frames:
        return _from_deep_stack(frames - 1, work)
    return work()


@pytest.mark.parametrize("kind", sorted(set(NESTINGS) - {"absolute value", "norm"}))  # bars read flat
def test_too_deep_is_a_parse_error_at_the_place_it_crosses_the_limit(kind):
    formula = nested(kind, 2 * MAX_DEPTH)
    with pytest.raises(MathParseError) as caught:
        parse(formula)
    error = caught.value
    assert f"more than {MAX_DEPTH} levels" in error.message
    assert 0 < error.offset < len(formula)


def test_a_formula_past_the_length_limit_is_refused_where_it_crosses_it():
    formula = " ".join(["x"] * (MAX_TOKENS + 10))
    with pytest.raises(MathParseError, match=f"limit is {MAX_TOKENS}") as caught:
        parse(formula)
    assert caught.value.offset == 2 * MAX_TOKENS  # "x x x …": token k starts at 2k
    assert parse(" ".join(["x"] * (MAX_TOKENS // 2))).tree is not None


def test_a_long_flat_chain_counts_one_level_per_operator():
    assert parse(flat_sum(MAX_DEPTH // 2)).tree is not None
    with pytest.raises(MathParseError, match="levels deep"):
        parse(flat_sum(400))


def _stages(formula: str):
    from papermath.analysis.explain import explain
    from papermath.analysis.shapes import infer_shapes
    from papermath.codegen import generate
    from papermath.evaluate import evaluate

    tree = parse(formula).tree
    yield "print", lambda: parse(to_latex(tree))
    yield "read aloud", lambda: read_aloud(tree)
    yield "to_dict", lambda: json.dumps(to_dict(tree))
    yield "explain", lambda: explain(formula)
    yield "shapes", lambda: infer_shapes(tree)
    yield "evaluate+codegen", lambda: generate(evaluate(tree, {}))


def _deepest_accepted(make) -> str:
    """The deepest formula of this family the parser accepts."""
    n = MAX_DEPTH
    while n > 0:
        try:
            parse(make(n))
            return make(n)
        except MathParseError:
            n -= 1
    raise AssertionError("nothing parses")


@pytest.mark.parametrize("kind", sorted(NESTINGS) + ["flat sum"])
def test_every_stage_is_total_on_a_tree_at_the_limit(kind):
    make = flat_sum if kind == "flat sum" else (lambda n: nested(kind, n))
    formula = _deepest_accepted(make)
    for stage, work in _stages(formula):
        try:
            _from_deep_stack(250, work)
        except PapermathError:
            pass  # papermath's own refusal (an evaluation it cannot do) is a right answer
        except RecursionError:  # pragma: no cover - the failure this test exists for
            pytest.fail(f"{stage} recursed past Python's limit on {kind} nested {MAX_DEPTH} deep")


def _atom_parses(formula: str) -> int:
    parser = Parser(formula)
    calls = [0]
    inner = parser._parse_atom

    def counting():
        calls[0] += 1
        return inner()

    parser._parse_atom = counting
    try:
        with room_for_nesting():  # as papermath.math.parse does: the nesting limit is the parser's, not Python's
            parser.parse_formula()
    except MathParseError:
        pass
    return calls[0]


@pytest.mark.parametrize("make", [
    lambda n: "\\hat{" * n + "x" + "}" * n,
    lambda n: "\\overset{a}{" * n + "x" + "}" * n,
    lambda n: "{\\hat{" * n + "x" + "}}" * n,
    lambda n: "\\begin{" * (20 * n),
    lambda n: "\\mathbf{\\tilde{" * n + "x" + "}}" * n,
], ids=["hat", "overset", "braced hat", "unclosed begin", "font and accent"])
def test_the_parser_does_linear_work(make):
    """Each atom is parsed a bounded number of times whatever the nesting (was 2^depth)."""
    small, large = _atom_parses(make(10)), _atom_parses(make(40))
    assert large <= 4 * small + 40, (small, large)


def _rule_ops():
    from papermath.codegen import properties as P
    return sorted(set(P.RANGE) | set(P.DEGREE) | set(P.SHIFT))


@pytest.mark.parametrize("op", _rule_ops())
def test_every_property_rule_takes_any_number_of_operands(op):
    """codegen.properties' rules index their operands; an application with another count (`\\exp()` in a mutated
    formula, campaign seed 301051797: IndexError in a range rule) has no property, it does not crash."""
    from papermath.codegen import properties as P
    from papermath.math import ast as A

    names = ["x", "y", "z"]
    for n in range(4):
        node = A.Apply(func=A.Symbol("f"), args=tuple(A.Symbol(v) for v in names[:n]))
        derived = P.derive(node, [], variables=names, implementations={"f": op})
        assert derived is None or isinstance(derived, P.Derived)
        if n == 0:
            assert derived is None or derived.range == P.UNKNOWN


def _product(n: int) -> str:
    return "y = " + "a b " * n


def _scanned_chars(latex: str, monkeypatch) -> int:
    """Characters the evaluator's precedence scan reads while lowering `latex` (cached codes cost nothing)."""
    from papermath.evaluate import evaluate
    from papermath.evaluate import lower
    scanned = [0]
    inner = lower._top_level

    def counting(code: str):
        if code not in lower._TOP_LEVEL:
            scanned[0] += len(code)
        return inner(code)

    monkeypatch.setattr(lower, "_top_level", counting)
    lower._TOP_LEVEL.clear()
    evaluate(parse(latex).tree, {})
    return scanned[0]


def test_the_evaluator_writes_a_long_product_in_linear_work(monkeypatch):
    """Each step's code is `left op right`: its precedence comes from its sides', not from scanning the whole
    longer prefix again (quadratic: a 300-factor product inside a reduction took 4 s, campaign 1 formula:301067763)."""
    small, large = _scanned_chars(_product(200), monkeypatch), _scanned_chars(_product(800), monkeypatch)
    assert large <= 5 * small + 1000, (small, large)


def test_numbering_a_name_many_times_is_not_quadratic():
    """The n-th `m` of an evaluation is named after O(log n) lookups, not n (`m2`, `m3`, … counted from 2)."""
    from papermath.evaluate.lower import python_name

    class Counting(set):
        lookups = 0

        def __contains__(self, item):
            Counting.lookups += 1
            return super().__contains__(item)

    def lookups(n: int) -> int:
        Counting.lookups = 0
        taken = Counting()
        names = [python_name("m", taken) for _ in range(n)]
        assert len(set(names)) == n and names[:3] == ["m", "m2", "m3"]
        return Counting.lookups

    assert lookups(4000) <= 6 * lookups(1000), (lookups(1000), lookups(4000))


def test_the_symmetry_search_is_bounded_in_inputs_and_sides():
    """Past 64 scalable inputs or 16 sides stated equal, codegen.properties claims no symmetry instead of
    running its cubic search (a 157-side chain took 95 s); the range is still derived."""
    from papermath.codegen import properties as P
    from papermath.math import ast as A

    names = [f"x_{k}" for k in range(P._MOST_INPUTS + 1)]
    total = A.Product(tuple(A.Symbol(n) for n in names))
    wide = P.derive(total, [], variables=names)
    assert wide is not None and wide.scaling is None
    few = P.derive(A.Product(tuple(A.Symbol(n) for n in names[:3])), [], variables=names[:3])
    assert few is not None and few.scaling is not None
    sides = [A.Symbol(n) for n in names[1:P._MOST_SIDES + 2]]
    chain = P.derive(A.Symbol(names[0]), [], sides=sides, variables=names[:P._MOST_SIDES + 2])
    assert chain is not None and chain.scaling is None


def test_a_node_held_in_several_fields_is_one_child_walked_and_rewritten_once() -> None:
    """`\\mathbb{E}_{\\tau \\sim \\pi}` keeps its subscript as `under` and as its draw: walkers take it once, and a
    rewrite keeps it shared, so nesting such reductions costs linear, not 2^depth, work (campaign 4, seed
    304085967)."""
    from papermath.math import ast as A
    from papermath.math import parse_raw, walk
    nested = "\\mathbb{E}_{\\tau " * 12 + "\\sim \\pi} x" + "}2" * 11
    tree = parse_raw(nested).tree
    nodes = list(walk(tree))
    assert len(nodes) < 2 * len({id(n) for n in nodes}) < 200  # was 102,437 walked for 134 nodes
    shared = [n for n in nodes if isinstance(n, A.Reduction) and n.samples and n.under is n.samples[0]]
    assert shared, "the draw is the subscript itself"
    renamed = A.rewrite(tree, lambda n: A.Symbol("\\sigma") if isinstance(n, A.Symbol) and n.name == "\\pi" else None)
    again = [n for n in walk(renamed) if isinstance(n, A.Reduction) and n.samples]
    assert any(n.under is n.samples[0] for n in again)
    assert all(not (isinstance(n, A.Symbol) and n.name == "\\pi") for n in walk(renamed))


def test_floats_nested_past_the_depth_limit_are_a_diagnostic(tmp_path) -> None:
    """Campaign 4 (fe8df58, seed 304002373): 220 figures nested in one another ended in a RecursionError."""
    from papermath.latex import load_document
    from papermath.limits import MAX_DEPTH
    (tmp_path / "main.tex").write_text(
        "\\documentclass{article}\\begin{document}" + "\\begin{figure}" * 220 + "\\caption{c}" +
        "\\end{figure}" * 220 + "\\begin{equation}x=1\\end{equation}\\end{document}\n", encoding="utf-8")
    doc = load_document(str(tmp_path))
    assert any(f"nested more than {MAX_DEPTH} levels deep" in d.message for d in doc.diagnostics)
    assert [e.number for e in doc.equations] == ["1"]


def test_a_paper_has_one_budget_of_macro_expansions(tmp_path) -> None:
    """Campaign 5 (a6ea569, seed 305001153): a bomb redefined at every use stays inside each use's budget; used 200
    times it made 2.4 million expansions (44 s). The paper's budget stops it with one diagnostic."""
    from papermath.latex import load_document
    from papermath.latex.macros import MAX_EXPANSIONS_PER_DOCUMENT
    bomb = "".join(f"\\def\\b{chr(98 + k)}{{\\b{chr(97 + k)}\\b{chr(97 + k)}}}" for k in range(12))
    (tmp_path / "main.tex").write_text(
        "\\documentclass{article}\\newcommand{\\x}{\\def\\ba{xx}" + bomb + "\\bm}\\begin{document}" + "$\\x$ " * 200
        + "\\begin{equation}y = 1\\end{equation}\\end{document}\n", encoding="utf-8")
    doc = load_document(str(tmp_path))
    said = [d for d in doc.diagnostics if f"expand more than {MAX_EXPANSIONS_PER_DOCUMENT} times" in d.message]
    assert len(said) == 1 and said[0].position is not None
    assert [e.number for e in doc.equations] == ["1"]


def test_a_run_of_letters_is_scanned_for_a_code_style_name_once(monkeypatch) -> None:
    """Campaign 5 (a6ea569, seed 305001153): every letter of `xxxx…` rescanned the rest of the run for an escaped
    underscore (`step\\_num`): 4,000 letters took 2.9 s. One scan now covers the run."""
    from papermath.math import parser as P
    scanned = []
    real = P._identifier_end

    def counting(toks, i):
        end, stop = real(toks, i)
        scanned.append(stop - i)
        return end, stop

    monkeypatch.setattr(P, "_identifier_end", counting)
    tree = parse("x" * 3000 + " + step\\_num").tree
    assert len(tree.left.factors) == 3000 and tree.right.name == "step\\_num"
    assert sum(scanned) <= 2 * 3000 + 10, sum(scanned)


def test_a_sentence_of_many_formulas_is_classified_in_linear_work() -> None:
    """Campaign 5: `$\\x$ $\\x$ …` let the run-of-formulas patterns read `$ $` between two formulas as a formula,
    so they tried 2^n ways to split a run. Possessive runs try one; the classification is unchanged."""
    from papermath.analysis.definitions import classify_sentence
    found = classify_sentence("$a$ " * 300 + "and $b$ is the learning rate.")
    assert len(found) == 301 and found[-1].pattern == "is"
    assert [f.pattern for f in classify_sentence("where $\\alpha$, $\\beta$ and $\\gamma$ are weights.")] == \
        ["where"] * 3


@pytest.mark.parametrize("open_, close", [
    ("\\begin{lemma}", "\\end{lemma}"),
    ("\\begin{itemize}\\item ", "\\end{itemize}"),
    ("\\begin{figure}\\caption{", "}\\end{figure}"),
    ("\\footnote{", "}"),
], ids=["theorems", "lists", "captions", "footnotes"])
def test_text_nested_past_the_depth_limit_is_a_diagnostic(tmp_path, open_, close) -> None:
    """Campaign 6 (33ca29e, seed 306002592): 300 nested theorem environments exhausted the stack (RecursionError);
    floats had their own bound, other nestings none. One bound on the builder's walk covers every kind."""
    from papermath.latex import load_document
    (tmp_path / "main.tex").write_text(
        "\\documentclass{article}\\newtheorem{lemma}{Lemma}\\begin{document}" + open_ * 300 + "deep" + close * 300
        + "\\begin{equation}y = 1\\end{equation}\\end{document}\n", encoding="utf-8")
    doc = load_document(str(tmp_path))
    said = [d for d in doc.diagnostics if f"nested more than {MAX_DEPTH} levels deep" in d.message]
    assert len(said) >= 1 and said[0].position is not None
    assert [e.number for e in doc.equations] == ["1"]


@pytest.mark.parametrize("latex, says", [
    ("y = \\bm I_{323323} x", "more than"),  # campaign 7 (9672274, seed 307031470): a 779 GiB identity
    ("y = I_{10^{6}} x", "more than"),
    ("y = I_{-3} x", "not a count"),
    ("y = I_{2.5} x", "not a count"),
])
def test_an_identity_past_the_entry_limit_is_refused(latex, says) -> None:
    from papermath.evaluate import EvaluationError, evaluate
    with pytest.raises(EvaluationError, match=says):
        evaluate(latex, {"x": 1.0})


def test_a_small_identity_is_still_the_identity() -> None:
    import numpy as np
    from papermath.evaluate import evaluate
    result = evaluate("y = I_3 x", {"x": [1.0, 2.0, 3.0]})
    assert np.allclose(np.asarray(result.value), [1.0, 2.0, 3.0])


def test_each_row_of_a_display_is_asked_once_whether_it_is_a_recurrence(tmp_path, monkeypatch) -> None:
    """Campaign 6 (33ca29e, seed 306002294): every row of a display asked every other row (rows² checks, each
    over the row's uses²): 10,058 rows hung read. Each row is now checked once per paper."""
    from papermath.analysis import read as R
    from papermath.latex import load_document
    calls = []
    real = R._recurrence
    monkeypatch.setattr(R, "_recurrence", lambda info: calls.append(1) or real(info))
    rows = " \\\\ ".join(f"y_{{{k}}} &= a x_{{{k}}}" for k in range(60))
    (tmp_path / "main.tex").write_text("\\documentclass{article}\\begin{document}\\begin{align}" + rows
                                       + "\\end{align}\\end{document}\n", encoding="utf-8")
    reading = R.read_document(load_document(str(tmp_path)))
    assert len(reading.equations) == 60
    assert len(calls) <= 3 * 60, len(calls)


# -- the per-formula time budget is level-triggered: a stage that catches its expiry cannot outlive it ----------

def _busy_until(deadline: float) -> None:
    import time
    while time.monotonic() < deadline:
        pass


def test_a_stage_that_catches_the_expiry_does_not_free_the_rest_of_the_formula() -> None:
    """Session 5: the second reader's `except Exception` around SymPy answered "sympy cannot parse" to the
    formula's BudgetExceeded, and the rest of the formula ran with no budget at all."""
    import time
    from papermath.budget import BudgetExceeded, formula_budget

    def careless_stage() -> str:
        try:
            _busy_until(time.monotonic() + 1)
            return "value"
        except Exception:  # noqa: BLE001 - the stage this test stands for
            return "no opinion"

    answers = []
    start = time.monotonic()
    with pytest.raises(BudgetExceeded, match="eq:7: not read"):
        with formula_budget("eq:7", seconds=0.05):
            answers.append(careless_stage())
            _busy_until(time.monotonic() + 5)  # the rest of the formula's work
    assert answers == ["no opinion"]
    assert time.monotonic() - start < 2


@pytest.mark.parametrize("after_the_catch", ["returns", "raises TypeError"])
def test_a_block_whose_budget_ran_out_never_ends_with_a_result(after_the_catch: str) -> None:
    import time
    from papermath.budget import BudgetExceeded, formula_budget
    with pytest.raises(BudgetExceeded) as raised:
        with formula_budget("eq:3", seconds=0.02):
            try:
                _busy_until(time.monotonic() + 1)
            except Exception:  # noqa: BLE001
                pass
            if after_the_catch == "raises TypeError":
                raise TypeError("a half-built value used")
    if after_the_catch == "raises TypeError":
        assert isinstance(raised.value.__cause__, TypeError)


def test_a_block_inside_its_budget_keeps_its_result_and_its_own_errors() -> None:
    from papermath.budget import budget_active, formula_budget
    with formula_budget("eq:1", seconds=5):
        assert budget_active()
        value = 2 + 2
    assert value == 4 and not budget_active()
    with pytest.raises(KeyError):
        with formula_budget("eq:1", seconds=5):
            raise KeyError("the block's own error, not the budget's")


def test_an_inner_budget_that_answers_over_budget_does_not_end_the_outer_one() -> None:
    """The second reader's own budget converts its expiry into a reason; inside a formula's budget that has run
    out, the formula still stops."""
    import time
    from papermath.budget import BudgetExceeded, formula_budget

    def second_opinion() -> str:
        try:
            with formula_budget("second reader", seconds=10):
                _busy_until(time.monotonic() + 1)
                return "value"
        except BudgetExceeded:
            return "over the time budget"

    answers = []
    with pytest.raises(BudgetExceeded, match="formula"):
        with formula_budget("formula", seconds=0.02):
            answers.append(second_opinion())
            _busy_until(time.monotonic() + 1)
    assert answers in ([], ["over the time budget"])
