"""Render readings: terminal text, Markdown laid out like the guides' symbol tables, and JSON."""
from __future__ import annotations

import shutil
import textwrap

from ..analysis.reading import EquationReading, PaperReading, SymbolReading
from ..safety import fence, one_line
from .jsonout import to_jsonable

SCHEMA_VERSION = 1


def reading_json(reading: PaperReading) -> dict:
    """The documented `read` schema (docs/json-schema.md)."""
    p = reading.paper
    return {
        "schema": f"papermath.read/{SCHEMA_VERSION}",
        "paper": {"title": p.title, "source": p.source, "arxiv_id": p.arxiv_id, "version": p.version,
                  "main_file": p.main_file},
        "equations": [_equation_json(e) for e in reading.equations],
        "diagnostics": to_jsonable(list(reading.diagnostics)),
    }


def _equation_json(e: EquationReading) -> dict:
    return {
        "id": e.id, "number": e.number, "section": e.section, "latex": e.latex, "kind": e.kind,
        "kind_cue": e.kind_cue, "file": e.file, "line": e.line,
        "symbols": [_symbol_json(s) for s in e.symbols],
        "reductions": [to_jsonable(r) for r in e.reductions],
        "undefined": list(e.undefined), "mentioned": list(e.mentioned), "uses": list(e.uses),
        "defines": list(e.defines),
        "context_before": e.context_before, "context_after": e.context_after, "warnings": list(e.warnings),
    }


def _symbol_json(s: SymbolReading) -> dict:
    out = {
        "id": s.id, "latex": s.latex, "symbol": s.symbol, "indices": list(s.indices), "kind": s.kind,
        "role": s.role, "role_cue": s.role_cue, "shape": list(s.shape) if s.shape is not None else None,
        "shape_cue": s.shape_cue, "conventional": s.conventional,
        "definition": None, "redefinitions": [to_jsonable(d) for d in s.redefinitions],
        "defined_by": s.defined_by, "also_written": list(s.also_written),
    }
    if s.definition is not None:
        d = s.definition
        out["definition"] = {"quote": d.quote, "section": d.section, "file": d.file, "line": d.line,
                             "pattern": d.pattern, "paragraph": d.paragraph, "strength": d.strength}
    return out


def _shape_text(s: SymbolReading) -> str:
    if s.shape is None:
        return "?" if s.kind == "symbol" else ""
    if s.shape == ():
        return "scalar"
    return "[" + ", ".join(s.shape) + "]"


def reading_text(reading: PaperReading, width: int | None = None) -> str:
    """Terminal view: one block per equation."""
    width = width or min(shutil.get_terminal_size((100, 24)).columns, 140)
    p = reading.paper
    where = f"arXiv:{p.arxiv_id}{p.version or ''}" if p.arxiv_id else p.source
    out = [f"{p.title or '(untitled)'} — {where}"]
    for e in reading.equations:
        out.append("")
        out.extend(equation_text(e, width))
    for d in reading.diagnostics:
        if d.severity == "error":
            out.append(f"  {d}")
    return "\n".join(out) + "\n"


def equation_text(e: EquationReading, width: int = 100) -> list[str]:
    out = []
    number = f"({e.number})" if e.number else "(unnumbered)"
    section = f"§{e.section}" if e.section else "no numbered section"
    out.append(f"{e.id} {number}  {section}  {e.file}:{e.line}")
    out.append(f"  {e.latex}")
    out.append(f"  kind: {e.kind} — {e.kind_cue}")
    rows = [s for s in e.symbols if s.kind in ("symbol", "function")]
    if rows:
        out.append("  symbols:")
        name_w = min(max(len(s.latex) for s in rows), 30)
        for s in rows:
            shape = _shape_text(s) if s.kind == "symbol" else "function"
            role = s.role + (f' ("{s.role_cue}")' if s.role_cue and s.role not in ("function",) else "")
            out.append(f"    {s.latex:<{name_w}}  {shape:<14} {role}")
            if s.definition is not None:
                d = s.definition
                quote = f'"{d.quote}"'
                loc = f"  — §{d.section}, {d.file}:{d.line}" if d.section else f"  — {d.file}:{d.line}"
                out.extend(textwrap.wrap(quote + loc, width - 8, initial_indent="        ",
                                         subsequent_indent="         "))
            elif s.conventional:
                out.extend(textwrap.wrap(f"conventional (the paper does not define it): {s.conventional}",
                                         width - 8, initial_indent="        ", subsequent_indent="        "))
            if s.shape_cue and s.kind == "symbol":
                out.append(f"        shape from: {s.shape_cue}")
    indices = [s for s in e.symbols if s.kind == "index" and s.bound_by is None]
    if indices:
        out.append("  free indices: " + ", ".join(s.latex for s in indices))
    bound = [s for s in e.symbols if s.bound_by is not None]
    if bound:
        out.append("  bound indices:")
        for s in bound:
            said = f'"{s.definition.quote}"' if s.definition is not None else s.role_cue or ""
            out.extend(textwrap.wrap(f"{s.latex}: {said}", width - 6, initial_indent="    ",
                                     subsequent_indent="      "))
    operators = [s for s in e.symbols if s.kind == "operator"]
    if operators:
        out.append("  standard notation:")
        for s in operators:
            out.extend(textwrap.wrap(f"{s.latex}: {s.conventional}", width - 6, initial_indent="    ",
                                     subsequent_indent="      "))
    if e.reductions:
        out.append("  reductions:")
        for r in e.reductions:
            out.append("    " + reduction_words(r))
    out.append("  undefined — not defined in the paper; do not guess: " + (", ".join(e.undefined) or "none"))
    if e.uses:
        out.append("  used by: " + ", ".join(e.uses))
    for w in e.warnings:
        out.append(f"  warning: {w}")
    return out


def reduction_words(r) -> str:
    over = ", ".join(r.over) if r.over else "?"
    if r.distribution:
        return f"{r.op} over {over} ~ {r.distribution}"
    if r.lower is not None or r.upper is not None:
        return f"{r.op} over {over} = {r.lower or '?'} … {r.upper or '?'}"
    if r.condition:
        return f"{r.op} over {r.condition}"
    return f"{r.op} over {over}"


def reading_markdown(reading: PaperReading) -> str:
    """Markdown a person can edit and `papermath check` can verify (guide 002's table)."""
    p = reading.paper
    where = f"arXiv:{p.arxiv_id}{p.version or ''}" if p.arxiv_id else p.source
    # Text from the paper stays on its own line (one_line), so it cannot forge the headings `check` reads.
    out = [f"# Reading: {one_line(p.title or '(untitled)')}", "", f"Source: {one_line(where)}", ""]
    for e in reading.equations:
        out.append(f"## Equation {one_line(e.number or e.id)} ({e.id})")
        out.append("")
        out.append(f"Section: {one_line(e.section or '—')}  ")
        out.append(f"Kind: {e.kind} — {one_line(e.kind_cue)}")
        out.append("")
        out.extend(fence(one_line(e.latex), "latex"))
        out.append("")
        out.append("| symbol | shape or type | meaning | role | quote |")
        out.append("|---|---|---|---|---|")
        for s in e.symbols:
            if s.kind == "index":
                continue
            shape = "function" if s.kind in ("function", "operator") else _shape_text(s)
            meaning = s.conventional if s.definition is None and s.conventional else ""
            quote = s.definition.quote if s.definition else ""
            out.append(f"| ${_cell(s.latex)}$ | {_cell(shape)} | {_cell(meaning)} | {_cell(s.role)} | {_cell(quote)} |")
        out.append("")
        out.append("### Undefined — not defined in the paper; do not guess")
        out.append("")
        out.extend([f"- ${one_line(u)}$" for u in e.undefined] or ["- none"])
        out.append("")
        out.append("### Reductions")
        out.append("")
        out.extend([f"- {one_line(reduction_words(r))}" for r in e.reductions] or ["- none"])
        out.append("")
        out.append("### Small-number check")
        out.append("")
        out.append("- inputs: (fill in, e.g. `Q=[[1,0]]`)")
        out.append("- result: (fill in)")
        out.append("")
    return "\n".join(out)


def _cell(text: str) -> str:
    return one_line(text or "").replace("|", "\\|")
