"""`papermath readings` (the list) and `papermath reading NAME` (one): the guides' worked readings."""
from __future__ import annotations

import argparse
import json

HELP = "worked readings of well-known equations: symbol tables, hand-worked numbers (re-run), code and tests"
DESCRIPTION = """\
The bundled worked equations — scaled dot-product attention, softmax and log-sum-exp, the
language-model chain rule and NLL, cross-entropy and KL, DPO, GRPO/PPO advantages, GRPO vs DAPO averaging,
pass@k, log of the mean vs mean of the log, a gradient-descent step, conditional probability, accuracy,
the binomial coefficient, a uniform density and DeepSeek-V3's balance loss — each with its symbol table
(meaning quoted from the guide or the paper, with file and line), what its reductions run over, the kind
of statement, the hand-worked numbers re-run now, the NumPy code and its test.

`papermath readings` lists them (and re-runs every number); `papermath reading NAME` shows one.
Exit status 1 if a number no longer comes out.

examples:
  papermath readings
  papermath reading attention
  papermath reading kl-divergence --format md
  papermath reading dpo --json
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("name", nargs="?", metavar="NAME", help="a reading's name (see `papermath readings`)")
    fmt = parser.add_mutually_exclusive_group()
    fmt.add_argument("--json", action="store_true", help="print JSON")
    fmt.add_argument("--format", choices=("text", "md", "json", "read"), default="text",
                     help="text (default), md (Markdown symbol tables), json, or read (the "
                          "equation block exactly as `papermath read` prints a paper's equation)")
    parser.add_argument("--width", type=int, default=100, help="wrap the text view at this width (default 100)")


def _list(as_json: bool) -> int:
    from ..readings import load_readings, verify  # NumPy: when the command runs, not when it is listed

    readings = load_readings()
    results = {r.name: verify(r) for r in readings}
    failed = [name for name, rs in results.items() if not all(r.ok for r in rs)]
    if as_json:
        print(json.dumps([{"name": r.name, "title": r.title, "kind": r.kind, "guide": r.source.guide,
                           "section": r.source.section, "paper": r.source.paper, "arxiv": r.source.arxiv,
                           "examples": len(r.examples),
                           "verified": all(x.ok for x in results[r.name])} for r in readings],
                         ensure_ascii=False, indent=2))
        return 1 if failed else 0
    name_w = max(len(r.name) for r in readings)
    for r in readings:
        mark = "✓" if r.name not in failed else "✗"
        where = r.source.guide + (f" · {r.source.paper.split(':')[0]}" if r.source.paper else "")
        print(f"{r.name:<{name_w}}  {mark} {len(r.examples)} example{'s' if len(r.examples) != 1 else ' '}  "
              f"{r.title}  ({where})")
    print(f"\n{len(readings)} readings; numbers re-run: {len(readings) - len(failed)} ok"
          + (f", {len(failed)} failed: {', '.join(failed)}" if failed else "")
          + "\n`papermath reading NAME` shows one (--format md for Markdown).")
    return 1 if failed else 0


def run(args: argparse.Namespace) -> int:
    from ..readings import load_readings, reading_json, verify, worked_reading
    from ..render.worked import render_markdown, render_text

    fmt = "json" if args.json else args.format
    if not args.name:
        if args.command == "reading":
            names = ", ".join(r.name for r in load_readings())
            print(f"papermath reading: which one? {names}")
            return 2
        return _list(fmt == "json")
    reading = worked_reading(args.name)
    results = verify(reading)
    if fmt == "json":
        print(json.dumps({"schema": "papermath.reading/1", **reading_json(reading, results)}, ensure_ascii=False,
                         indent=2))
    elif fmt == "md":
        print(render_markdown(reading, results), end="")
    elif fmt == "read":
        from ..render.reading import equation_text
        print("\n".join(equation_text(reading.equation_reading(), args.width)))
    else:
        print(render_text(reading, results, width=args.width), end="")
    return 0 if all(r.ok for r in results) else 1
