"""`papermath exercises`: practice problems from an equation, answered by the evaluator and shape inference."""
from __future__ import annotations

import json
import re

import numpy as np
import pytest

from papermath.cli import main
from papermath.evaluate import evaluate
from papermath.exercises import build_exercises
from papermath.latex import load_document

from conftest import EXAMPLE, corpus_paper


@pytest.fixture(scope="module")
def note():
    return load_document(str(EXAMPLE))


def _values(question: str) -> dict:
    """The inputs a number problem states (`Q = [[2, 0], …]; d_{k} = 3`)."""
    body = question[len("With "):question.index(", compute")]
    out = {}
    for part in body.split("; "):
        key, value = part.split(" = ", 1)
        out[key.strip()] = json.loads(value)
    return out


def test_attention_exercises_of_every_kind(note):
    ex = build_exercises(note, "1")
    kinds = [e.kind for e in ex.exercises]
    assert kinds.count("numbers") == 1 and "step" in kinds and kinds.count("extreme") == 2
    assert "shape" in kinds
    numbers = ex.exercises[kinds.index("numbers")]
    # the answer is what the equation gives on the stated values, recomputed here by hand in NumPy
    values = _values(numbers.question)
    q, k, v = (np.array(values[s], float) for s in ("Q", "K", "V"))
    scores = q @ k.T / np.sqrt(values["d_{k}"])
    weights = np.exp(scores - scores.max(axis=1, keepdims=True))
    weights /= weights.sum(axis=1, keepdims=True)
    answer = np.array(json.loads(numbers.answer))
    np.testing.assert_allclose(answer, weights @ v, atol=5e-4)
    assert any("softmax" in line for line in numbers.work)
    shapes = {e.question: e.answer for e in ex.exercises if e.kind == "shape"}
    assert shapes["What is the shape of \\operatorname{softmax}(\\frac{Q K^{\\top}}{\\sqrt{d_{k}}})?"] == "[n, m]"
    assert "[n, d_v]" in shapes.values()


def test_extreme_question_reports_the_softmax(note):
    ex = build_exercises(note, "1")
    small = next(e for e in ex.exercises if e.kind == "extreme" and "by 0.1" in e.question)
    assert "softmax flattens toward uniform" in small.answer


def test_values_that_contradict_the_text_are_not_posed(note):
    """The note calls e_i "the centroid vector": a problem that sets it to a number would teach a misreading."""
    ex = build_exercises(note, "2")
    numbers = [e for e in ex.exercises if e.kind == "numbers"]
    if numbers:
        values = _values(numbers[0].question)
        assert all(np.ndim(v) == 1 for k, v in values.items() if k.startswith(("\\mathbf{u}", "\\mathbf{e}")))
    else:
        assert any("the text gives it 1" in n for n in ex.notes)


def test_answers_hidden_unless_asked(capsys):
    assert main(["exercises", str(EXAMPLE), "--eq", "1"]) == 0
    hidden = capsys.readouterr().out
    assert "answer:" not in hidden and "(answers: run again with --answers)" in hidden
    assert re.search(r"^1\. \[numbers\] With Q = ", hidden, re.M)
    assert main(["exercises", str(EXAMPLE), "--eq", "1", "--answers"]) == 0
    shown = capsys.readouterr().out
    assert shown.count("answer:") == len(re.findall(r"^\d+\. \[", hidden, re.M))
    assert "answer: [n, d_v]" in shown


def test_json(capsys):
    assert main(["exercises", str(EXAMPLE), "--eq", "1", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["schema"] == "papermath.exercises/1" and data["equation"].startswith("eq:1 (1)")
    assert all("answer" not in item for item in data["exercises"])
    assert main(["exercises", str(EXAMPLE), "--eq", "1", "--json", "--answers"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert all("answer" in item for item in data["exercises"])


def test_unknown_equation_is_an_error(capsys):
    assert main(["exercises", str(EXAMPLE), "--eq", "42"]) == 2
    assert "no equation '42'" in capsys.readouterr().err


@pytest.mark.corpus
def test_deepseek_mla_shape_question_and_honest_notes():
    doc = load_document(str(corpus_paper("deepseek-v3-2412.19437")))
    ex = build_exercises(doc, "1")
    assert any(e.kind == "shape" and e.answer == "[d_c]" for e in ex.exercises)
    numbers = [e for e in ex.exercises if e.kind == "numbers"]
    if numbers:  # posed only when the chosen values fit the text's shapes: then W h, recomputed here
        values = _values(numbers[0].question)
        w = np.array(values["W^{DKV}"], float)
        h = np.array(next(v for k, v in values.items() if k.startswith("\\mathbf{h}")), float)
        np.testing.assert_allclose(np.array(json.loads(numbers[0].answer)), w @ h)
    else:
        assert any("no number problems" in n for n in ex.notes)
    sigmoid = build_exercises(doc, "15")
    assert not any(e.kind == "numbers" for e in sigmoid.exercises)
    assert any("Sigmoid" in n for n in sigmoid.notes)


@pytest.mark.corpus
def test_dyt_numbers_match_a_direct_evaluation():
    doc = load_document(str(corpus_paper("DyT")))
    ex = build_exercises(doc, "2")
    numbers = [e for e in ex.exercises if e.kind == "numbers"]
    if not numbers:  # the chosen values contradicted the text's shapes, and the note says which
        assert any("the text gives it" in n for n in ex.notes)
        return
    values = _values(numbers[0].question)
    again = evaluate(doc.equation("2").latex, values, choose=False)
    np.testing.assert_allclose(np.array(json.loads(numbers[0].answer)), again.value, atol=5e-4)
