"""`papermath exercises SOURCE --eq N [--answers]`: practice problems from one equation, answered by papermath."""
from __future__ import annotations

import json

HELP = "practice problems from an equation: plug-in numbers, extremes, shapes (no LLM)"
DESCRIPTION = """Learning by solving, without an LLM: problems made from the equation itself, each
answered by papermath's own stages.

  numbers   small values for every input (chosen to fit the shapes the text declares); compute the result
            and one intermediate step — answered by the evaluator, with the steps inside out
  extreme   scale an input by 10 and by 0.1: what happens (a softmax saturating, an overflow)?
  shape     the shape of sub-expressions and of the result, from the shapes the paper's text declares

Answers are hidden unless --answers is given."""


def add_arguments(parser) -> None:
    parser.add_argument("source", metavar="SOURCE",
                        help="directory, .tex/.md file, .zip or arXiv archive, arXiv id or URL")
    parser.add_argument("--eq", required=True, metavar="N", help="equation number as printed (15) or id (eq:15)")
    parser.add_argument("--answers", action="store_true", help="print the worked answers")
    parser.add_argument("--json", action="store_true", help="print JSON (answers included only with --answers)")


def run(args) -> int:
    from ..exercises import build_exercises
    from ..paper import open as open_paper
    from ..render.exercises import exercises_text

    exercise_set = build_exercises(open_paper(args.source).doc, args.eq)
    if args.json:
        items = []
        for ex in exercise_set.exercises:
            item: dict[str, object] = {"kind": ex.kind, "question": ex.question}
            if args.answers:
                item.update(answer=ex.answer, work=list(ex.work))
            items.append(item)
        print(json.dumps({"schema": "papermath.exercises/1", "paper": exercise_set.paper,
                          "equation": exercise_set.equation, "latex": exercise_set.latex, "exercises": items,
                          "notes": list(exercise_set.notes)}, ensure_ascii=False, indent=2))
    else:
        print(exercises_text(exercise_set, args.answers), end="")
    return 0 if exercise_set.exercises else 1
