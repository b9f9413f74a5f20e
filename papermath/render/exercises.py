"""Practice problems (`papermath exercises`) as terminal text."""
from __future__ import annotations

from ..exercises import ExerciseSet


def exercises_text(exercise_set: ExerciseSet, answers: bool) -> str:
    """The problems numbered, each with its worked answer when `answers`, then the notes on what was not asked."""
    out = [f"Exercises for {exercise_set.equation} of {exercise_set.paper}", f"  {exercise_set.latex}", ""]
    for k, ex in enumerate(exercise_set.exercises, 1):
        out.append(f"{k}. [{ex.kind}] {ex.question}")
        if answers:
            out.append(f"   answer: {ex.answer}")
            for line in ex.work:
                out.append(f"     {line}")
        out.append("")
    if not answers and exercise_set.exercises:
        out.append("(answers: run again with --answers)")
    for note in exercise_set.notes:
        out.append(f"note: {note}")
    return "\n".join(out).rstrip() + "\n"
