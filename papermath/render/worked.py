"""The guides' worked readings (`papermath reading NAME`) as terminal text and as Markdown laid out like the
guides' symbol tables."""
from __future__ import annotations

import textwrap
from typing import Any

from ..analysis.reading import ReductionReading
from ..readings import ExampleResult, ReadingSource, WorkedReading, WorkedSymbol, printed_test, verify


def _shape(symbol: WorkedSymbol) -> str:
    if symbol.kind in ("function", "operator"):
        return symbol.kind
    if symbol.kind == "index" or symbol.shape is None:
        return "index" if symbol.kind == "index" else "?"
    return "scalar" if symbol.shape == () else "[" + ", ".join(symbol.shape) + "]"


def _reduction(r: ReductionReading) -> str:
    try:  # the `read` renderer's wording, when that stage is present
        from .reading import reduction_words
        words = reduction_words(r)
    except ImportError:  # pragma: no cover - the read renderer ships with papermath
        words = f"{r.op} over {', '.join(r.over)}"
    if r.condition and r.condition not in words:
        words += f" — {r.condition}"
    return words


def _where(source: ReadingSource) -> list[str]:
    lines = [f'{source.guide}, "{source.section}"' + "".join(f"; also {a}" for a in source.also)]
    if source.paper:
        paper = source.paper
        if source.arxiv:
            paper += f", arXiv:{source.arxiv}{source.version or ''}"
            paper += "" if source.version else " (version not named in the guide's text)"
        if source.paper_section:
            paper += f", §{source.paper_section}"
        if source.equation:
            paper += f", eq. {source.equation}"
        lines.append(paper)
    if source.note:
        lines.append(f"note: {source.note}")
    return lines


def _value(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:.6g}"
    if isinstance(value, list):
        return "[" + ", ".join(_value(v) for v in value) + "]"
    return str(value)


def render_text(reading: WorkedReading, results: tuple[ExampleResult, ...] | None = None, width: int = 100) -> str:
    """The terminal view: source, equation, kind, symbol table, reductions, numbers re-run, code, test."""
    results = results if results is not None else verify(reading)
    wrap = lambda text, indent, rest=None: textwrap.wrap(  # noqa: E731
        text, width, initial_indent=indent, subsequent_indent=rest or indent, break_long_words=False,
        break_on_hyphens=False) or [indent]
    out = [f"{reading.name} — {reading.title}"]
    for i, line in enumerate(_where(reading.source)):
        out += wrap(line, "  source: " if i == 0 else "          ", " " * 10)
    out.append(f"  {reading.latex}")
    out.append(f"  kind: {reading.kind} — {reading.kind_cue}")
    out.append("  symbols:")
    name_w = min(max(len(s.latex) for s in reading.symbols), 22)
    shape_w = max(len(_shape(s)) for s in reading.symbols)
    role_w = max(len(s.role) for s in reading.symbols)
    indent = " " * (4 + name_w + 2 + shape_w + 2 + role_w + 2)
    for s in reading.symbols:
        head = f"    {s.latex:<{name_w}}  {_shape(s):<{shape_w}}  {s.role:<{role_w}}  "
        out += wrap(s.meaning, head, indent)
        if s.quote is not None:
            section = s.quote.section or ""
            section = (f"§{section}, " if section[:1].isdigit() else f"{section}, ") if section else ""
            out += wrap(f'"{s.quote.text}" — {section}{s.quote.file}:{s.quote.line}', " " * 8, " " * 9)
    if reading.reductions:
        out.append("  reductions:")
        out += [f"    {_reduction(r)}" for r in reading.reductions]
    out.append("  numbers (re-run now):")
    for example, result in zip(reading.examples, results):
        out.append(f"    {'✓' if result.ok else '✗'} {example.name} [{example.source}]")
        out += wrap(", ".join(f"{k} = {_value(v)}" for k, v in example.args.items()), "        in:  ", " " * 13)
        for check in result.outputs:
            mark = "" if check.ok else "   ✗ MISMATCH"
            line = f"{check.name} = {_value(check.actual)} (expected {_value(check.expected)} ± {example.atol:g}){mark}"
            out += wrap(line, "        out: ", " " * 13)
        if example.note:
            out += wrap(example.note, "        ", " " * 8)
    out.append(f"  code (papermath.worked.{reading.function}):")
    out += ["    " + line if line else "" for line in reading.code.rstrip().splitlines()]
    out.append("  test:")
    out += ["    " + line if line else "" for line in printed_test(reading).rstrip().splitlines()]
    for note in reading.notes:
        out += wrap(note, "  note: ", "        ")
    return "\n".join(out) + "\n"


def _cell(text: str | None) -> str:
    return (text or "").replace("|", "\\|").replace("\n", " ")


def render_markdown(reading: WorkedReading, results: tuple[ExampleResult, ...] | None = None) -> str:
    """Markdown laid out like the guides' symbol tables (symbol | shape | meaning | role), then the numbers."""
    results = results if results is not None else verify(reading)
    out = [f"# {reading.title}", ""]
    for i, line in enumerate(_where(reading.source)):
        out.append(f"Source: {line}  " if i == 0 else f"{line}  ")
    out += ["", f"Kind: {reading.kind} — {reading.kind_cue}", "", "$$", reading.latex, "$$", "",
            "| symbol | shape | meaning | role | quote |", "|---|---|---|---|---|"]
    for s in reading.symbols:
        quote = f'"{s.quote.text}" ({s.quote.file}:{s.quote.line})' if s.quote else ""
        out.append(f"| ${_cell(s.latex)}$ | {_cell(_shape(s))} | {_cell(s.meaning)} | {_cell(s.role)} "
                   f"| {_cell(quote)} |")
    out += ["", "## Reductions", ""]
    out += [f"- {_cell(_reduction(r))}" for r in reading.reductions] or ["- none"]
    out += ["", "## Small numbers", "", "| example | inputs | output | expected | computed | |",
            "|---|---|---|---|---|---|"]
    for example, result in zip(reading.examples, results):
        inputs = ", ".join(f"{k} = {_value(v)}" for k, v in example.args.items())
        for i, check in enumerate(result.outputs):
            label = f"{example.name} ({example.source})" if i == 0 else ""
            out.append(f"| {_cell(label)} | {_cell(inputs if i == 0 else '')} | {check.name} "
                       f"| {_cell(_value(check.expected))} | {_cell(_value(check.actual))} "
                       f"| {'✓' if check.ok else '✗'} |")
    out += ["", f"## Code (`papermath.worked.{reading.function}`)", "", "```python", reading.code.rstrip(), "```",
            "", "## Test", "", "```python", printed_test(reading).rstrip(), "```", ""]
    if reading.notes:
        out += ["## Notes", ""] + [f"- {note}" for note in reading.notes] + [""]
    return "\n".join(out)
