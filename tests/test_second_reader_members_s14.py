"""Session 14, issue 15: a sequence member the paper declares as a vector (`x_t` with `x \\in \\mathbb{R}^d`), which
the numbers read as the whole input x at a step nothing gives, is read by the second reader as that input too —
on the evaluation's own record (`Evaluation.members`), never for an index a sum binds or an input gives a value,
and never for a record naming another input. Numbers worked by hand."""

import argparse
import dataclasses
from pathlib import Path

import numpy as np
import pytest

from papermath.codegen import second_reader as SR
from papermath.evaluate import evaluate

CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpus" / "papers"
needs_reader = pytest.mark.skipif(not SR.available(), reason="needs sympy and antlr4-python3-runtime 4.11 "
                                  "(the second reader)")

INTERPOLATION = r"y_t = \beta x_t + (1-\beta) z_t"
MEMBERS_XZ = {"\\beta": 0.25, "x": [4.0, 8.0], "z": [0.0, 4.0]}
VECTORS = {"x": ("d",), "z": ("d",)}


@pytest.mark.parametrize("latex, values, shapes, members, value", [
    # β = 1/4: 1/4·[4, 8] + 3/4·[0, 4] = [1, 2] + [0, 3] = [1, 5]; x_t and z_t are the members at a free step t
    (INTERPOLATION, MEMBERS_XZ, VECTORS, (("x_{t}", "x"), ("z_{t}", "z")), [1.0, 5.0]),
    # a = 3: 3·[1, −2] − [2, 1] = [1, −7]
    (r"g_t = a x_t - z_t", {"a": 3.0, "x": [1.0, -2.0], "z": [2.0, 1.0]}, VECTORS,
     (("x_{t}", "x"), ("z_{t}", "z")), [1.0, -7.0]),
])
@needs_reader
def test_a_member_at_a_free_step_is_the_input(latex, values, shapes, members, value):
    ev = evaluate(latex, values, declared_shapes=shapes)
    assert ev.members == members
    np.testing.assert_allclose(ev.value, value)
    reading = SR.read(ev)
    assert reading is not None and reading.agrees
    np.testing.assert_allclose(reading.value, value)


@pytest.mark.parametrize("latex, values, shapes, forged, expected", [
    # t = 2 given: x_t is element 2 of x (a valued index), no member record; a forged one changes nothing (the
    # element logic still wants a sum saying where x starts)
    (r"y = \beta x_t", {"\\beta": 2.0, "x": [1.0, 5.0], "t": 2}, {"x": ("n",)}, (("x_{t}", "x"),),
     "no opinion: an element picked by a free index, where no sum says where the array starts"),
    # t bound by the sum: each x_t an element, 1 + 5 = 6, no member record; a forged one changes nothing
    (r"y = \sum_{t=1}^{2} x_t", {"x": [1.0, 5.0]}, {"x": ("n",)}, (("x_{t}", "x"),), 6.0),
    # a record naming another input than the one x_t is an element of changes nothing (still no opinion)
    (INTERPOLATION, MEMBERS_XZ, VECTORS, (("x_{t}", "z"), ("z_{t}", "x")),
     "no opinion: an element picked by an index no sum binds"),
])
@needs_reader
def test_an_element_keeps_the_element_reading(latex, values, shapes, forged, expected):
    ev = evaluate(latex, values, declared_shapes=shapes)
    assert not ev.members or forged[0][1] != dict(ev.members).get(forged[0][0])
    plain = SR.reading_or_reason(dataclasses.replace(ev, members=()))
    assert SR.reading_or_reason(dataclasses.replace(ev, members=forged)) == plain
    if isinstance(expected, str):
        assert plain == expected
    else:
        assert plain.agrees and plain.value == pytest.approx(expected)


@needs_reader
def test_without_a_record_a_free_element_has_no_opinion():
    ev = evaluate(INTERPOLATION, MEMBERS_XZ, declared_shapes=VECTORS)
    assert SR.reading_or_reason(dataclasses.replace(ev, members=())) == \
        "no opinion: an element picked by an index no sum binds"


@pytest.mark.corpus
@pytest.mark.skipif(not CORPUS.is_dir(), reason="corpus ../shared/corpus/papers absent")
@needs_reader
def test_schedule_free_interpolation_members():
    # schedule_free (10) y_t = β_t x_t + (1 − β_t) z_t, x and z declared [d] ('\\min_{x \\in \\mathbb{R}^d}',
    # 'z_1 = x_1 is the initial point'): x_t, z_t are the members at a free step, β_t a quantity of its own
    from papermath.analysis.shapes import shapes_in_context
    from papermath.commands.numbers import evaluation_inputs
    from papermath.latex import load_document

    doc = load_document(CORPUS / "schedule_free")
    functions = frozenset(getattr(doc, "operators", {}))
    equation = next(e for e in doc.equations if e.id == "eq:10")
    declared, _, _ = shapes_in_context(doc, equation)
    target = argparse.Namespace(declared=declared, latex=equation.latex, functions=functions, label=equation.id)
    _, shapes = evaluation_inputs(argparse.Namespace(set=[]), target)
    ev = evaluate(equation.latex, {}, declared_shapes=shapes, functions=functions)
    assert ev.params == ("\\beta_{t}", "x", "z")
    assert ev.members == (("x_{t}", "x"), ("z_{t}", "z"))
    beta, x, z = (np.asarray(ev.input(k).value) for k in ev.params)
    reading = SR.read(ev)
    assert reading is not None and reading.agrees
    np.testing.assert_allclose(reading.value, beta * x + (1 - beta) * z)
