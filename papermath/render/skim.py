"""The skim view: the triage guides 002 and 004 describe, as terminal text and as JSON."""
from __future__ import annotations

import shutil
import textwrap

from ..latex.document import Document
from ..latex.method import find_method
from .jsonout import to_jsonable

SCHEMA_VERSION = 1


def method_sections(doc: Document, top: int = 3) -> list[tuple[str, str, int]]:
    """The sections holding the method, best first: (number or id, title, display equations)."""
    return [(m.section.number or m.section.id, m.section.title, m.equations) for m in find_method(doc, top)]


def _clip(s: str, room: int) -> str:
    return s if len(s) <= room else s[:room - 2].rstrip() + " …"


def skim_json(doc: Document) -> dict:
    """The documented skim schema (see docs/json-schema.md)."""
    p = doc.paper
    return {
        "schema": f"papermath.skim/{SCHEMA_VERSION}",
        "paper": {"title": p.title, "source": p.source, "arxiv_id": p.arxiv_id, "version": p.version,
                  "main_file": p.main_file, "format": p.format},
        "authors": list(doc.authors),
        "abstract": doc.abstract,
        "contributions": list(doc.contributions),
        "sections": [{"id": s.id, "number": s.number, "title": s.title, "level": s.level,
                      "file": s.span.file, "line": s.span.line, "label": s.label, "appendix": s.appendix}
                     for s in doc.sections],
        "equations": [{"id": e.id, "number": e.number, "section": e.section, "section_id": e.section_id,
                       "latex": e.latex, "env": e.env, "file": e.span.file, "line": e.span.line,
                       "column": e.span.column, "label": e.label} for e in doc.equations],
        "captions": [{"id": f.id, "kind": f.kind, "number": f.number, "caption": f.caption, "label": f.label,
                      "file": f.span.file, "line": f.span.line, "cells": [list(r) for r in f.cells]}
                     for f in doc.floats],
        "algorithms": [{"id": a.id, "number": a.number, "caption": a.caption, "label": a.label,
                        "file": a.span.file, "line": a.span.line,
                        "lines": [{"number": ln.number, "keyword": ln.keyword, "text": ln.text} for ln in a.lines]}
                       for a in doc.algorithms],
        "footnotes": [{"id": f.id, "number": f.number, "text": f.text, "file": f.span.file, "line": f.span.line}
                      for f in doc.footnotes],
        "code_links": list(doc.code_links),
        "method_sections": [{"section": m.section.number or m.section.id, "title": m.section.title,
                             "equations": m.equations, "why": list(m.why)} for m in find_method(doc)],
        "references": {"total": len(doc.references),
                       "unresolved": sorted({r.label for r in doc.unresolved_references})},
        "diagnostics": to_jsonable(list(doc.diagnostics)),
    }


def skim_text(doc: Document, width: int | None = None, max_latex: int | None = None) -> str:
    """Terminal view of the skim. `width` defaults to the terminal's."""
    width = width or min(shutil.get_terminal_size((100, 24)).columns, 120)
    out: list[str] = []
    for part in (_front_lines, _outline_lines, _method_lines, _caption_lines, _algorithm_lines, _code_lines,
                 _count_lines):
        out.extend(part(doc, width, max_latex))
    return "\n".join(out) + "\n"


def _front_lines(doc: Document, width: int, max_latex: int | None) -> list[str]:
    """Title, source, authors, abstract and the contributions the introduction lists."""
    p = doc.paper
    out = [p.title or "(untitled)"]
    where = p.source
    if p.arxiv_id:
        where = f"arXiv:{p.arxiv_id}{p.version or ''}"
    out.append(f"source: {where}   main file: {p.main_file}   format: {p.format}")
    if doc.authors:
        out.append(textwrap.shorten("authors: " + "; ".join(doc.authors), width))
    if doc.abstract:
        out += ["", "Abstract"]
        out.extend(textwrap.wrap(doc.abstract, width, initial_indent="  ", subsequent_indent="  "))
    if doc.contributions:
        out += ["", "Contributions (from the introduction)"]
        for item in doc.contributions:
            out.extend(textwrap.wrap(item, width, initial_indent="  - ", subsequent_indent="    "))
    return out


def _outline_lines(doc: Document, width: int, max_latex: int | None) -> list[str]:
    """Every heading with its display equations, then the equations outside any heading."""
    eqs_by_section: dict[str | None, list] = {}
    for eq in doc.equations:
        eqs_by_section.setdefault(eq.section_id, []).append(eq)
    out = ["", "Outline (display equations under each heading)"]
    latex_room = max_latex or max(width - 22, 30)
    for sec in doc.sections:
        indent = "  " * max(sec.level - 1, 0)
        number = f"{sec.number} " if sec.number else ""
        out.append(f"{indent}{number}{sec.title}")
        for eq in eqs_by_section.get(sec.id, []):
            tag = f"({eq.number})" if eq.number else "(—)"
            out.append(f"{indent}    {tag:>7} {_clip(eq.latex, latex_room)}")
    for eq in eqs_by_section.get(None, []):
        tag = f"({eq.number})" if eq.number else "(—)"
        out.append(f"    {tag:>7} {_clip(eq.latex, latex_room)}")
    return out


def _method_lines(doc: Document, width: int, max_latex: int | None) -> list[str]:
    found = find_method(doc)
    if not found:
        return []
    out = ["", "Where the method is"]
    for m in found:
        number = m.section.number or m.section.id
        out.append("  " + textwrap.shorten(f"{number} {m.section.title}: {'; '.join(m.why)}", width - 2,
                                           placeholder=" …"))
    return out


def _caption_lines(doc: Document, width: int, max_latex: int | None) -> list[str]:
    if not doc.floats:
        return []
    out = ["", "Captions"]
    for f in doc.floats:
        label = "Figure" if f.kind == "figure" else "Table"
        out.append("  " + textwrap.shorten(f"{label} {f.number}: {f.caption}", width - 2, placeholder=" …"))
    return out


def _algorithm_lines(doc: Document, width: int, max_latex: int | None) -> list[str]:
    if not doc.algorithms:
        return []
    out = ["", "Algorithm boxes"]
    for a in doc.algorithms:
        out.append(f"  Algorithm {a.number or ''}: {a.caption} ({len(a.lines)} lines)")
        for ln in a.lines:
            num = f"{ln.number:>3}" if ln.number is not None else "   "
            out.append(f"    {num} " + textwrap.shorten(ln.text, max(width - 8, 20), placeholder=" …"))
    return out


def _code_lines(doc: Document, width: int, max_latex: int | None) -> list[str]:
    if not doc.code_links:
        return ["", "Code: the paper gives no link to a code repository"]
    return ["", "Code (check the official repository first)"] + [f"  {link}" for link in doc.code_links]


def _count_lines(doc: Document, width: int, max_latex: int | None) -> list[str]:
    """What the document holds, the references that resolve nowhere, and the diagnostics."""
    n_eq = sum(1 for e in doc.equations if e.number)
    unresolved = sorted({r.label for r in doc.unresolved_references})
    out = ["", f"{len(doc.sections)} headings, {len(doc.equations)} display equations ({n_eq} numbered), "
               f"{len(doc.footnotes)} footnotes, {len(doc.floats)} captions, {len(doc.algorithms)} algorithms; "
               f"{len(doc.references)} references, {len(unresolved)} unresolved"]
    if unresolved:
        out.append("  " + textwrap.shorten("unresolved: " + ", ".join(unresolved), width - 2, placeholder=" …"))
    out.extend(f"  {d}" for d in doc.diagnostics)
    return out
