"""The operator spec (`papermath.math.operators`) against every stage.

Each stage is observed from the outside — parse a spelling, print a tree, read it aloud, explain it, infer its
shapes, evaluate it, generate its code, show its reduction head — and what it does must be what the operator's
row says: handled the way the row says, or refused with the row's reason. The agreement tests then check, stage
by stage, that the set of operators a stage handles is exactly the spec's set for that stage, over every row and
over tokens the spec does not list (spellings the parser folds away, names nobody defined): no stage handles an
operator the spec does not list.
"""
from __future__ import annotations

import re
from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest

from papermath.analysis import explain as X
from papermath.analysis.read import _kind as read_kind
from papermath.analysis.reading import ReductionReading
from papermath.analysis.symbols import collect
from papermath.analysis.shapes import infer_shapes
from papermath.codegen import generate
from papermath.evaluate import evaluate
from papermath.evaluate.lower import EvaluationError
from papermath.math import ast as A
from papermath.math import operators as O
from papermath.math import parse, read_aloud, tables as T, to_latex
from papermath.render.html import reduction_head

X_, Y_, I_ = A.Symbol("x"), A.Symbol("y"), A.Symbol("i")

UNLISTED: dict[str, tuple[str, ...]] = {
    # spellings the parser folds into a canonical operator (a stage keyed on them handles what never occurs),
    # and names no table defines
    O.BINOP: ("\\ast", "\\cdotp", "\\land", "\\lor", "\\backslash", "\\frobnicate"),
    O.UNARY: ("\\lnot", "\\frobnicate"),
    O.RELATION: ("\\leq", "\\geq", "\\neq", "\\gets", "\\coloneqq", "\\eqqcolon", "\\leqslant", "\\frobnicate"),
    O.REDUCTION: ("frobnicate",),
}

SPECS = [s for s in O.SPECS if s.op != "stack"]  # the evaluator's own reduction: no tree carries it
SPEC_IDS = [f"{s.node}:{s.op}" for s in SPECS]


def tree(node: str, op: str) -> A.Node:
    """The smallest tree carrying `op`: `x op y`, `op x`, `x op y`, `op_i x_i` (`\\mathbb{E}[x]`)."""
    if node == O.BINOP:
        return A.BinOp(op, X_, Y_)
    if node == O.UNARY:
        return A.UnaryOp(op, X_)
    if node == O.RELATION:
        return A.Relation((X_, Y_), (op,))
    if op == "E":
        return A.Reduction(op, A.Symbol("E", font="bb"), None, None, X_, brackets="[]")
    return A.Reduction(op, A.Symbol("\\" + op), I_, None, A.Indexed(X_, (I_,)), variables=(I_,))


def cases(stage: str) -> list[tuple[str, str]]:
    return [(s.node, s.op) for s in SPECS] + [(n, op) for n, ops in UNLISTED.items()
                                                                       for op in ops]


def row(node: str, op: str) -> O.OperatorSpec | None:
    return O.spec(node, op)


# --- what each stage does, observed -------------------------------------------------------------------------------

def parser_makes(node: str) -> set[str]:
    """Every canonical operator the parser's tables can put into a `node`."""
    if node == O.BINOP:
        return {canon for key, (canon, _) in T.BINARY_OPS.items() if not key.endswith("_")}
    if node == O.UNARY:
        return {canon for key, canon in T.UNARY_OPS.items() if not key.endswith("_")}
    if node == O.RELATION:
        return {canon for key, canon in T.RELATIONS.items() if not key.endswith("_")} | {":", ":=", "=:", "\\mid",
                                                                                        "\\parallel"}
    return set(T.BIG_OPERATORS.values()) | set(T.PREFIX_BIG_BINARY.values()) | set(T.LIMIT_OPERATORS.values()) | {"E"}


def words_for(node: str, op: str) -> str | None:
    """What read-aloud says for the operator, or None when it reads the operator as written."""
    text = read_aloud(tree(node, op))
    if node == O.REDUCTION:
        return text.split(" over ")[0].split(" of ")[0]
    if node == O.UNARY:
        head = text[: -len(" x")]
        return None if head == op else head
    middle = text[len("x "): -len(" y")]
    return None if middle == op else middle


def explain_key(node: str, op: str) -> str | None:
    """The operator's own explain template key, or None when explain falls back to a generic reading."""
    t = tree(node, op)
    key = X._key(X._Reader(t), t)
    prefix = X._SPEC_KEYS[node] + ":" + op
    return key if key is not None and (key == prefix or key.startswith(prefix + ":")) else None


SHAPES = {"x": ("n",), "y": ("n",)}


def shape_of(node: str, op: str) -> tuple[bool, str]:
    """(handled, why not) for infer_shapes on the operator."""
    report = infer_shapes(tree(node, op), SHAPES)
    refusals = [u for u in report.unknown if "not handled" in u]
    return (not refusals, refusals[0] if refusals else "")


VALUES = {"x": np.array([1.0, 2.0]), "y": np.array([3.0, 5.0])}


def evaluation(node: str, op: str, matrices=None):
    """The evaluation, or the EvaluationError raised."""
    by_node: dict[str, dict[str, Any]] = {O.RELATION: {"x": 2.0, "y": 3.0}, O.UNARY: {"x": 2.0},
                                          O.REDUCTION: {"x": np.array([1.0, 2.0, 4.0])}}
    values = by_node.get(node, VALUES if matrices is None else matrices)
    try:
        return evaluate(tree(node, op), values)
    except EvaluationError as error:
        return error


def kind_of(node: str, op: str) -> tuple[str, str] | None:
    """(kind, cue) the statement-kind stage gives `x op y` alone, or None when the relation decides nothing."""
    if node != O.RELATION:
        return None
    t = tree(node, op)
    equation: Any = SimpleNamespace(latex=to_latex(t))  # _kind reads only the equation's LaTeX here
    kind, cue = read_kind(equation, collect(t), None, None, None)
    return None if cue == "no relation: an expression to compute" else (kind, cue)


KINDS = {"definition": {"definition"}, "update rule": {"update rule"}, "estimator": {"estimator", "empirical fit"},
         "bound or constraint": {"bound", "constraint"}, "constraint": {"constraint"},
         "computation or definition": {"computation", "definition"}}


def evaluates(node: str, op: str) -> bool:
    return not isinstance(evaluation(node, op), EvaluationError)


# --- one test per operator × stage --------------------------------------------------------------------------------



@pytest.mark.parametrize("spec", SPECS, ids=SPEC_IDS)
def test_parser_spells_it_as_the_row_says(spec):
    assert spec.spellings, f"no LaTeX spelling reaches {spec.op}"
    if spec.node == O.REDUCTION:
        return  # reductions are named by macro; their spellings are checked against the tables below
    for spelling in spec.spellings:
        latex = {O.UNARY: f"{spelling} y"}.get(spec.node, f"x {spelling} y")
        if spelling == "|":
            latex = "p_{x | y}"  # a bare bar is a condition only inside a script
        found = parse(latex).tree
        ops = {n.op for n in A.walk(found) if type(n).__name__ == spec.node and hasattr(n, "op")}
        ops |= {o for n in A.walk(found) if isinstance(n, A.Relation) for o in n.ops}
        assert spec.op in ops, (spelling, A.sexpr(found))
    if spec.node == O.BINOP:
        assert spec.precedence in (T.ADDITIVE, T.MULTIPLICATIVE)


@pytest.mark.parametrize("spec", [s for s in SPECS if s.node != O.REDUCTION],
                         ids=[i for s, i in zip(SPECS, SPEC_IDS) if s.node != O.REDUCTION])
def test_printer_writes_what_parses_back(spec):
    printed = to_latex(tree(spec.node, spec.op))
    assert spec.latex in printed
    again = parse(printed).tree
    ops = {getattr(n, "op", None) for n in A.walk(again)} | {o for n in A.walk(again) if isinstance(n, A.Relation)
                                                             for o in n.ops}
    assert spec.op in ops, (printed, A.sexpr(again))


@pytest.mark.parametrize("spec", SPECS, ids=SPEC_IDS)
def test_read_aloud_says_the_rows_words(spec):
    assert words_for(spec.node, spec.op) == spec.words


@pytest.mark.parametrize("spec", SPECS, ids=SPEC_IDS)
def test_explain_reads_the_rows_meaning(spec):
    key = explain_key(spec.node, spec.op)
    if spec.explain is None:
        assert key is None
        return
    assert key is not None
    t = tree(spec.node, spec.op)
    steps = X._Reader(t)
    steps.visit(t)
    step = steps.steps[-1]
    assert step.notation[:1] == ((spec.explain.notation,) if spec.explain.notation else ())
    literal = max(re.split(r"\{\w+\}", spec.explain.meaning), key=len)  # the meaning's own words
    assert literal in step.reading, (literal, step.reading)
    if spec.symbol and spec.node in (O.BINOP, O.RELATION):
        assert spec.symbol in step.text


@pytest.mark.parametrize("spec", SPECS, ids=SPEC_IDS)
def test_shapes_follow_the_rows_rule(spec):
    handled, why = shape_of(spec.node, spec.op)
    assert handled == spec.handles("shapes"), why
    if isinstance(spec.shape, O.Refused):
        assert spec.shape.reason in why
    report = infer_shapes(tree(spec.node, spec.op), SHAPES)
    expected = {"elementwise": ("n",), "divide": ("n",), "dot": (), "outer": ("n", "n"), "operand": ("n",),
                "scalar": (), "reduce": ("n",) if spec.node == O.REDUCTION else None}.get(str(spec.shape))
    if expected is not None and spec.node != O.REDUCTION:
        assert report.result == expected


@pytest.mark.parametrize("spec", [s for s in SPECS if s.node == O.RELATION],
                         ids=[f"Relation:{s.op}" for s in SPECS if s.node == O.RELATION])
def test_statement_kind_is_the_rows_kind(spec):
    found = kind_of(spec.node, spec.op)
    if spec.kind is None:
        assert found is None
    else:
        assert found is not None and found[0] in KINDS[spec.kind], found


_ARITHMETIC = {"add": np.add, "sub": np.subtract, "mul": np.multiply, "div": np.divide}


@pytest.mark.parametrize("spec", SPECS, ids=SPEC_IDS)
def test_numbers_compute_what_the_row_says_or_refuse_with_its_reason(spec):
    result = evaluation(spec.node, spec.op)
    if isinstance(spec.evaluate, O.Refused):
        assert isinstance(result, EvaluationError)
        assert spec.evaluate.reason in str(result)
        return
    assert not isinstance(result, EvaluationError), str(result)
    value = np.asarray(result.value)
    x, y = VALUES["x"], VALUES["y"]
    if spec.evaluate in _ARITHMETIC:
        np.testing.assert_allclose(value, _ARITHMETIC[str(spec.evaluate)](x, y))
    elif spec.evaluate == "dot":
        np.testing.assert_allclose(value, x @ y)
    elif spec.evaluate == "product":  # two vectors side by side: entry by entry, as juxtaposition
        np.testing.assert_allclose(value, x * y)
    elif spec.evaluate == "outer":
        np.testing.assert_allclose(value, np.multiply.outer(x, y))
    elif spec.evaluate == "neg":
        assert float(value) == -2.0
    elif spec.evaluate == "identity":
        assert float(value) == 2.0
    elif spec.evaluate == "compare":
        assert float(value) == float(getattr(np, str(spec.test))(2.0, 3.0))
    elif spec.evaluate == "not":
        assert float(value) == -1.0
    elif spec.evaluate == "expectation":
        assert float(value) == pytest.approx(7 / 3)
    elif spec.evaluate == "reduce" and spec.op in ("sum", "prod", "max", "min", "sup", "inf"):
        combine = {"sum": np.sum, "prod": np.prod, "max": np.max, "min": np.min, "sup": np.max, "inf": np.min}
        assert float(value) == float(combine[spec.op](np.array([1.0, 2.0, 4.0])))


@pytest.mark.parametrize("spec", [s for s in SPECS if s.node == O.BINOP and s.handles("evaluate")],
                         ids=[f"BinOp:{s.op}" for s in SPECS if s.node == O.BINOP and s.handles("evaluate")])
def test_generated_code_uses_the_rows_template(spec):
    """On two matrices, the code the evaluator writes (codegen's source) is the row's template."""
    ev = evaluation(spec.node, spec.op,
                    {"x": np.array([[1.0, 2.0], [3.0, 4.0]]), "y": np.array([[5.0, 6.0], [7.0, 8.0]])})
    code = generate(ev)
    assert spec.numpy is not None and spec.torch is not None
    assert spec.numpy.format("x", "y") in code.numpy
    assert spec.torch.format("x", "y") in code.torch


@pytest.mark.parametrize("spec", [s for s in SPECS if s.node == O.REDUCTION],
                         ids=[f"Reduction:{s.op}" for s in SPECS if s.node == O.REDUCTION])
def test_html_panel_shows_the_rows_head(spec):
    head = reduction_head(ReductionReading(spec.op, ("i",), None, None, None, None, ""))
    assert head == (spec.html + "_{i}" if spec.html else "\\operatorname{%s}_{i}" % spec.op.replace("_", ""))


# --- agreement: the set of operators each stage handles is the spec's set -----------------------------------------

@pytest.mark.parametrize("node", [O.BINOP, O.UNARY, O.RELATION, O.REDUCTION])
def test_parser_makes_exactly_the_operators_the_spec_lists(node):
    assert parser_makes(node) == O.handled(node, "parser")


OBSERVED = {
    "words": lambda n, op: words_for(n, op) is not None and (n != O.REDUCTION or O.spec(n, op) is not None),
    "explain": lambda n, op: explain_key(n, op) is not None,
    "shapes": lambda n, op: shape_of(n, op)[0] and n != O.REDUCTION,
    "evaluate": evaluates,
    "codegen": lambda n, op: evaluates(n, op) and bool(generate(evaluation(n, op)).numpy),
    "kinds": lambda n, op: kind_of(n, op) is not None,
}


@pytest.mark.parametrize("stage", sorted(OBSERVED))
@pytest.mark.parametrize("node", [O.BINOP, O.UNARY, O.RELATION, O.REDUCTION])
def test_no_stage_handles_an_operator_the_spec_does_not_list(stage, node):
    """What the stage handles, observed over every row and every unlisted token, is the spec's set for it."""
    if stage == "shapes" and node == O.REDUCTION:
        pytest.skip("every reduction has a shape rule (a declared operator keeps its body's shape): checked per row")
    observed = {op for n, op in cases(stage) if n == node and OBSERVED[stage](n, op)}
    spec_set = {op for op in O.handled(node, stage) if op != "stack"}
    assert observed == spec_set, (sorted(observed - spec_set), sorted(spec_set - observed))


def test_unlisted_tokens_are_not_rows():
    for node, ops in UNLISTED.items():
        for op in ops:
            assert O.spec(node, op) is None, (node, op)


def test_a_reduction_the_paper_declares_reads_as_its_name_everywhere():
    t = tree(O.REDUCTION, "Agg")
    assert read_aloud(t).startswith("the Agg over i")
    assert reduction_head(ReductionReading("Agg", ("i",), None, None, None, None, "")) == "\\operatorname{Agg}_{i}"
    error = evaluation(O.REDUCTION, "Agg")
    assert isinstance(error, EvaluationError) and "the Agg" in str(error)


def test_every_decision_names_a_row():
    for node, op in O.DECISIONS:
        assert O.spec(node, op) is not None, (node, op)


@pytest.mark.parametrize("latex, words, refusal", [
    (r"\phi_{a_m} \circ \phi_{a_1}", "composed with", "composes functions"),  # Tanh-Init: composition
    (r"a \div b", "divided by", None),
    (r"h \oplus h'", "circled plus", "concatenation"),
])
def test_the_disagreements_of_issue_13_are_decided(latex, words, refusal):
    assert words in read_aloud(parse(latex).tree)
    try:
        evaluate(latex, {})
        refused = None
    except EvaluationError as error:
        refused = str(error)
    if refusal is None:
        assert refused is None
    else:
        assert refused is not None and refusal in refused


def test_a_negated_relation_with_no_negated_form_is_shown_as_written_and_refused():
    found = parse(r"a \not\prec b").tree
    assert isinstance(found, A.Relation) and found.ops == ("\\not\\prec",)
    assert O.relation("\\not\\prec") is O.NEGATED
    error = evaluation(O.RELATION, "\\not\\prec")
    assert isinstance(error, EvaluationError) and O.NEGATED.refusal("evaluate") in str(error)
    assert "\\not\\prec" in read_aloud(found)


def test_the_agreement_test_catches_a_stage_that_handles_an_unlisted_operator(monkeypatch):
    from papermath.math import english
    monkeypatch.setitem(english.OP_WORDS, "\\frobnicate", "frobs")
    observed = {op for n, op in cases("words") if n == O.BINOP and OBSERVED["words"](n, op)}
    assert observed - O.handled(O.BINOP, "words") == {"\\frobnicate"}


# --- the one rewrite walk (math.ast.rewrite) the stages share -----------------------------------------------------

def test_rewrite_returns_the_same_tree_when_nothing_changes():
    t = parse(r"\begin{cases} a + b & x > 0 \\ c & \text{else} \end{cases}").tree
    assert A.rewrite(t, lambda n: None) is t


def test_rewrite_reaches_cells_as_children_does():
    t = parse(r"\begin{cases} a + b & x > 0 \\ c & \text{else} \end{cases}").tree
    out = A.rewrite(t, lambda n: A.Symbol("z") if n == A.Symbol("a") else None)
    assert A.Symbol("a") not in list(A.walk(out)) and A.Symbol("z") in list(A.walk(out))
    assert sum(1 for n in A.walk(t) if n == A.Symbol("a")) == sum(1 for n in A.walk(out) if n == A.Symbol("z"))


def test_explain_reads_length_bars_in_a_script_as_a_length():
    t = parse(r"\sum_{t=1}^{|o_i|} r_t").tree
    bars = [n for n in A.walk(X.normalize(t)) if isinstance(n, A.Abs)]
    assert bars and to_latex(bars[0].body) == "o_{i}"
