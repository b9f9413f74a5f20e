"""`papermath prompt SOURCE --eq N [--task derivations|problems|story]`: an LLM prompt filled in from the paper."""
from __future__ import annotations

import json

HELP = "the five-step LLM reading prompt (or a derivation, problem or story task) filled in for an equation"
DESCRIPTION = """Print the five-step reading prompt for one equation, filled in from the paper's clean LaTeX source (never PDF
text): the paper's title, arXiv id and version ("version: not recorded (local source)" for a directory
without one), the equation's LaTeX, and the paragraphs that define its symbols — the paragraph before, the
"where" clause after, every paragraph `papermath read` found a definition in, and their footnotes — followed by
the five steps (symbol table with quotes; undefined symbols, not guessed; what every reduction runs over; the
smallest numbers; the kind of statement).

--task gives a learning prompt instead: derivations (5–10 derivation exercises), problems (5–10
application problems) or story (characters for the concepts), for the equation (--eq), a section (--section)
or the whole paper.

--format adds the Markdown answer layout `papermath check` reads, so the answer can be checked."""


def add_arguments(parser) -> None:
    parser.add_argument("source", metavar="SOURCE", help="directory, .tex/.md file, .zip or arXiv archive, arXiv id or URL")
    parser.add_argument("--eq", metavar="N", help="equation number as printed (15) or id (eq:15)")
    parser.add_argument("--section", metavar="S", help="a section number (2.1.2), for --task")
    parser.add_argument("--task", choices=("read", "derivations", "problems", "story"), default="read",
                        help="read (the five-step reading, default), or derivations, problems or story (learning prompts)")
    parser.add_argument("--format", action="store_true", dest="answer_format",
                        help="ask for the Markdown reading layout `papermath check` verifies")
    parser.add_argument("--json", action="store_true", help="print the prompt and its sources as JSON")


def run(args) -> int:
    from ..errors import UsageError
    from ..paper import open as open_paper
    from ..prompt import equation_prompt, task_prompt

    if args.task == "read" and not args.eq:
        raise UsageError("give the equation: --eq N (or --task derivations|problems|story for a section)")
    doc = open_paper(args.source).doc
    if args.task == "read":
        prompt = equation_prompt(doc, args.eq, answer_format=args.answer_format)
    else:
        prompt = task_prompt(doc, args.task, eq=args.eq, section=args.section)
    if args.json:
        print(json.dumps({"schema": "papermath.prompt/1", "task": prompt.task, "paper": prompt.paper,
                          "equation": prompt.equation, "paragraphs": list(prompt.paragraphs),
                          "prompt": prompt.text}, ensure_ascii=False, indent=2))
    else:
        print(prompt.text, end="")
    return 0
