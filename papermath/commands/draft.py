"""`papermath draft SOURCE --eq N`: ask an LLM for a reading, then check every row of it against the paper."""
from __future__ import annotations

import json
import sys

HELP = "send the prompt to an OpenAI-compatible LLM, then check its reading (optional)"
DESCRIPTION = """Send the five-step reading prompt for one equation (`papermath prompt SOURCE --eq N --format`) to an
OpenAI-compatible chat endpoint, parse the answer into a reading, run `papermath check` on it, and print every
row marked verified or guess. An LLM is optional help, never a dependency: nothing it says is trusted until the
check passes.

The endpoint is set by PAPERMATH_LLM_URL (e.g. http://127.0.0.1:8080/v1 for llama.cpp or vLLM,
http://127.0.0.1:11434/v1 for Ollama, or a hosted API), PAPERMATH_LLM_MODEL and PAPERMATH_LLM_API_KEY;
--url, --model override them. Standard library only (urllib): no extra package is needed.

Exit status: 0 when the drafted reading passes the check, 1 when any row or number fails, 2 when the endpoint
is not set, unreachable, too slow (--timeout) or answers something that is not a reading."""


def add_arguments(parser) -> None:
    parser.add_argument("source", metavar="SOURCE", help="directory, .tex/.md file, .zip or arXiv archive, arXiv id or URL")
    parser.add_argument("--eq", required=True, metavar="N", help="equation number as printed (15) or id (eq:15)")
    parser.add_argument("--url", help="endpoint (default: $PAPERMATH_LLM_URL)")
    parser.add_argument("--model", help="model name (default: $PAPERMATH_LLM_MODEL)")
    parser.add_argument("--timeout", type=float, default=None, help="seconds to wait for the answer (default 120)")
    parser.add_argument("--save", metavar="FILE", help="write the drafted reading (Markdown) to FILE")
    parser.add_argument("--json", action="store_true", help="print the check report as JSON, with the answer")
    parser.add_argument("--width", type=int, default=100, help="terminal width of the report")


def run(args) -> int:
    from ..check import check_reading, open_paper_text, report_json, report_text
    from ..check.parse import ReadingFormatError, reading_from_answer
    from ..llm import LLMError, chat, config_from_env
    from ..prompt import equation_prompt, find_equation

    config = config_from_env(args.url, args.model, timeout=args.timeout)
    paper = open_paper_text(args.source)
    if paper.document is None:
        from ..errors import UsageError
        raise UsageError("draft needs the paper's LaTeX source (the prompt is never built from PDF or plain text)")
    doc = paper.document
    prompt = equation_prompt(doc, args.eq, answer_format=True)
    eq = find_equation(doc, args.eq)
    print(f"asking {config.model} at {config.url} about {eq.id} …", file=sys.stderr)
    messages = [{"role": "system", "content": "You read the mathematics of ML papers carefully. Quote the paper "
                 "word for word; never guess a symbol the text does not define."},
                {"role": "user", "content": prompt.text}]
    answer = chat(config, messages)
    try:
        reading = reading_from_answer(answer, eq.number or eq.id, eq.id)
    except ReadingFormatError as error:
        raise LLMError(f"the model's answer is not a reading: {error.message}") from None
    if args.save:
        with open(args.save, "w", encoding="utf-8") as handle:
            handle.write(answer.rstrip() + "\n")
    report = check_reading(reading, paper, [eq.number or eq.id])
    if args.json:
        data = report_json(report)
        data["draft"] = {"model": config.model, "url": config.url, "prompt": prompt.text, "answer": answer}
        print(json.dumps(data, ensure_ascii=False, indent=2))
    else:
        print(report_text(report, width=args.width), end="")
    return 0 if report.passed else 1
