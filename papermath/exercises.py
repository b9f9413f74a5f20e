"""Practice problems from one equation, with no LLM: guide 004's "learning by solving", computed by papermath.

Three kinds, each answered by papermath's own stages, never by guessing:
- numbers: plug in small numbers and compute the result (and one intermediate step), answered by the evaluator;
- extremes: scale an input by 10 and by 0.1 and say what happens (guide 000: "push it to the extremes");
- shapes: the shape of a sub-expression and of the result, from the shapes the paper's text declares.

    doc = load_document(source)
    exercise_set = build_exercises(doc, "15")
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .errors import MathParseError, PapermathError
from .latex.document import Document


@dataclass(frozen=True)
class Exercise:
    """One practice problem and its worked answer."""

    kind: str
    """`numbers`, `step`, `extreme` or `shape`."""
    question: str
    """The problem as posed."""
    answer: str
    """The answer papermath computed."""
    work: tuple[str, ...] = ()
    """The worked steps, inside out."""


@dataclass(frozen=True)
class ExerciseSet:
    """Exercises for one equation."""

    paper: str
    """Title with arXiv id and version (or "version: not recorded (local source)")."""
    equation: str
    """`eq:15 (15)`."""
    latex: str
    """The formula."""
    exercises: tuple[Exercise, ...]
    """The problems."""
    notes: tuple[str, ...] = ()
    """What could not be asked, and why."""


def build_exercises(doc: Document, key: str, *, max_shape_questions: int = 3) -> ExerciseSet:
    from .analysis.shapes import declared_shapes_for, infer_shapes
    from .evaluate import EvaluationError, evaluate
    from .prompt import find_equation, paper_line

    eq = find_equation(doc, key)
    functions = frozenset(doc.operators.values()) | frozenset(doc.operators)
    declared, _, shape_notes = declared_shapes_for(doc, eq)
    exercises: list[Exercise] = []
    notes: list[str] = list(shape_notes)
    label = f"({eq.number})" if eq.number else eq.id

    try:
        report = infer_shapes(eq.latex, declared, functions=functions)
    except MathParseError as error:
        report = None
        notes.append(f"no shape problems: the formula does not parse: {error.message}")
    evaluation = None
    try:
        evaluation = evaluate(eq.latex, {}, declared_shapes=declared, choose=True, functions=functions)
    except (EvaluationError, PapermathError, MathParseError) as error:
        notes.append(f"no number problems: the evaluator cannot compute {label}: {error.message}")
    except (ValueError, TypeError, IndexError, ArithmeticError) as error:
        notes.append(f"no number problems: the evaluator cannot compute {label}: {type(error).__name__}: {error}")
    if evaluation is not None:
        reason = _why_no_numbers(doc, eq, evaluation, report)
        if reason:
            notes.append("no number problems: " + reason)
            evaluation = None
    if evaluation is not None:
        exercises += _number_exercises(evaluation, label, declared, functions, notes)
    if report is not None:
        exercises += _shape_exercises(report, label, max_shape_questions, notes)
    section = f" §{eq.section}" if eq.section else ""
    return ExerciseSet(paper_line(doc), f"{eq.id} {label}{section}", eq.latex, tuple(exercises), tuple(notes))


def _why_no_numbers(doc: Document, eq, evaluation, report) -> str | None:
    """Why the values papermath chose make no fair problem (stand-ins, a result of the wrong rank, a value whose
    rank the text contradicts, an entry chosen apart from its whole), or None."""
    from .analysis.shapes import show

    stand_ins = [n for n in evaluation.notes if "stood in" in n or "is not defined in the equation" in n]
    if stand_ins:
        return stand_ins[0]
    if report is not None and report.result is not None and np.ndim(evaluation.value) != len(report.result):
        return (f"the values papermath chose give a result of shape "
                f"{list(np.shape(evaluation.value))}, but the text's shapes give {show(report.result)}")
    misfit = _rank_misfit(doc, eq, evaluation)
    if misfit:
        return misfit
    keys = [i.key for i in evaluation.inputs if i.source in ("set", "chosen")]
    clash = next(((a, b) for a in keys for b in keys if a != b and b.startswith(a + "_")), None)
    if clash:
        return (f"papermath chose {clash[1]} apart from {clash[0]}, of which it is an "
                "entry; the values would not be consistent")
    return None


def _number_exercises(evaluation, label: str, declared, functions: frozenset[str],
                      notes: list[str]) -> list[Exercise]:
    """The numbers problem, one intermediate step, and the extremes (appends to `notes` what cannot be asked)."""
    from .evaluate import EvaluationError, extremes, fmt

    exercises: list[Exercise] = []
    given = [i for i in evaluation.inputs if i.source in ("set", "chosen", "dimension")]
    inputs = "; ".join(f"{i.key} = {fmt(i.value)}" for i in given)
    work = tuple(f"{s.latex} = {fmt(s.value)}" + (f"   ({s.note})" if s.note else "")
                 for s in evaluation.steps if s.op != "input")
    exercises.append(Exercise("numbers", f"With {inputs}, compute {evaluation.result_latex} in {label}. "
                              "Work inside out, one operation at a time.", fmt(evaluation.value), work))
    inner = [s for s in evaluation.steps if s.op not in ("input", "result") and s.latex != evaluation.result_latex]
    if len(inner) >= 2:
        middle = inner[len(inner) // 2 - 1] if len(inner) > 2 else inner[0]
        exercises.append(Exercise("step", f"With the same values, what is the intermediate value "
                                  f"{middle.latex}?", fmt(middle.value),
                                  tuple(f"{s.latex} = {fmt(s.value)}" for s in inner[:inner.index(middle) + 1])))
    try:
        runs = extremes(evaluation, declared_shapes=declared, functions=functions)
    except (EvaluationError, PapermathError) as error:
        runs = []
        notes.append(f"no extreme-case problems: {error.message}")
    for run in runs:
        if not run.scaled:
            continue
        scaled = ", ".join(run.scaled)
        changes = "; ".join(run.changes) if run.changes else "nothing saturates or overflows"
        value = fmt(run.evaluation.value) if run.evaluation is not evaluation else "—"
        exercises.append(Exercise(
            "extreme", f"Multiply {scaled} by {run.factor:g} and keep everything else. What happens to "
            f"{evaluation.result_latex}, and why?", f"{value}: {changes}",
            (f"before: {fmt(evaluation.value)}", f"after: {value}")))
    return exercises


def _shape_exercises(report, label: str, max_shape_questions: int, notes: list[str]) -> list[Exercise]:
    """Shape problems from the steps whose shape the text's declarations decide, and the result's shape unless one
    of the last questions already asks it (appends to `notes` the mismatches or why none can be asked)."""
    from .analysis.shapes import show

    exercises: list[Exercise] = []
    known = [s for s in report.steps if s.shape is not None and s.status == "ok" and s.shape != ()
             and not s.note.startswith(("declared", "from the text", "conventional"))]
    for step in known[-max_shape_questions:]:
        exercises.append(Exercise("shape", f"What is the shape of {step.latex}?", show(step.shape),
                                  (step.note,)))
    if report.result is not None and not any(e.kind == "shape" and e.answer == show(report.result)
                                             for e in exercises[-max_shape_questions:]):
        exercises.append(Exercise("shape", f"What is the shape of the result of {label}?", show(report.result)))
    if report.mismatches:
        notes.append("shapes do not line up: " + "; ".join(m.message for m in report.mismatches))
    if not known and report.result is None:
        notes.append("no shape problems: the text declares no shapes for this equation's symbols")
    return exercises


def _rank_misfit(doc: Document, eq, evaluation) -> str | None:
    """A chosen value whose rank contradicts the text ("the centroid vector" chosen as a scalar), or None."""
    from .analysis.read import index_paper, read_equation
    from .check.symbols import symbol_forms
    try:
        reading = read_equation(index_paper(doc), eq)
    except (PapermathError, MathParseError):
        return None
    ranks = {}
    for s in reading.symbols:
        if s.kind == "symbol" and s.shape is not None:
            ranks[symbol_forms(s.symbol)[1]] = (len(s.shape), s.shape_cue or "the text")
    for item in evaluation.inputs:
        if item.source != "chosen":
            continue
        known = ranks.get(symbol_forms(item.key)[1])
        if known is not None and np.ndim(item.value) != known[0]:
            return (f"papermath chose {item.key} with {np.ndim(item.value)} axes, but the text gives it {known[0]} "
                    f"({known[1]})")
    return None
