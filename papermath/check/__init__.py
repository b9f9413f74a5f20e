"""`check`: verify a reading of an equation — written by a person or drafted by an LLM — against the paper.

Guide 002's check-paper-math skill, made mechanical:

    reading = load_reading("eq15.md")                 # Markdown or `papermath read` JSON → Reading
    paper = open_paper_text(source)                   # LaTeX source (or .txt, .pdf) → passages
    report = check_reading(reading, paper)            # quotes, symbols, shapes, roles, numbers, claims

Every quote is searched (verbatim, then normalised; NOT FOUND reports the closest passage and its similarity);
every symbol of the equation must be in the table and every row must be a symbol of it; a meaning for a symbol
the paper never defines is a guess; shapes and roles are compared with the paper's words; the small-number check
is re-run with papermath's evaluator; claims are compared with the paper's hedges. `report.passed` is False when
any of that fails.
"""
from __future__ import annotations

import re

from .model import Claim, EquationEntry, NumberCheck, Reading, ReadingRow
from .parse import ReadingFormatError, load_reading, parse_reading
from .report import CheckReport, ClaimResult, EquationResult, Finding, NumbersResult, RowResult, report_json
from .text import PDF_WARNING, PaperText, QuoteMatch, compact, open_paper_text, paper_text_from_document
from ..render.check import report_text

__all__ = ["check_reading", "check_file", "load_reading", "parse_reading", "open_paper_text",
           "paper_text_from_document", "Reading", "EquationEntry", "ReadingRow", "NumberCheck", "Claim",
           "CheckReport", "EquationResult", "RowResult", "NumbersResult", "ClaimResult", "Finding", "QuoteMatch",
           "PaperText", "ReadingFormatError", "report_json", "report_text", "PDF_WARNING"]


def check_file(reading_path: str, paper_source: str, equations: list[str] | None = None) -> CheckReport:
    """Load a reading and a paper, and check one against the other."""
    reading = load_reading(reading_path)
    paper = open_paper_text(paper_source)
    return check_reading(reading, paper, equations)


def check_reading(reading: Reading, paper: PaperText, equations: list[str] | None = None) -> CheckReport:
    """Check every equation of a reading (or those named in `equations`) against the paper."""
    from .claims import check_claim
    from .numbers import rerun
    from .symbols import check_rows, paper_symbols_from_formula, paper_symbols_from_reading

    entries = list(reading.equations)
    if equations:
        wanted = {_eq_key(k) for k in equations}
        entries = [e for e in entries if _eq_key(e.key) in wanted or (e.id and _eq_key(e.id) in wanted)]
        if not entries:
            from ..errors import UsageError
            raise UsageError(f"the reading {reading.path} has no equation {', '.join(equations)}")
    doc = paper.document
    index = None
    if doc is not None:
        from ..analysis.read import index_paper
        index = index_paper(doc)
    warnings = list(paper.warnings)
    findings = _source_findings(reading, doc)
    results = []
    for entry in entries:
        eq_findings: list[Finding] = []
        eq_reading = None
        eq = None
        if doc is not None:
            eq = doc.equation(entry.id or entry.key) or doc.equation(entry.key)
            if eq is None:
                eq_findings.append(Finding("equation", "fail", f"the paper has no equation ({entry.key})", None,
                                           entry.line or None))
                results.append(EquationResult(entry.key, None, None, None, (), tuple(eq_findings), None, ()))
                continue
            from ..analysis.read import read_equation
            eq_reading = read_equation(index, eq)
            symbols = paper_symbols_from_reading(eq_reading, doc)
            latex = eq.latex
            if entry.latex and _formula_key(entry.latex) != _formula_key(eq.latex):
                eq_findings.append(Finding("formula", "warn", f"the reading's formula differs from the paper's "
                                           f"({eq.number or eq.id}): {eq.latex}", None, entry.line or None))
            if entry.kind and eq_reading.kind and entry.kind != eq_reading.kind:
                eq_findings.append(Finding("kind", "info", f"the reading says {entry.kind}; papermath read says "
                                           f"{eq_reading.kind} ({eq_reading.kind_cue})", None, entry.line or None))
            number = eq.number
            eq_id, section, location = eq.id, eq.section, f"{eq.span.file}:{eq.span.line}"
        else:
            latex = entry.latex or ""
            eq_id = entry.id or f"eq:{entry.key}"
            symbols = paper_symbols_from_formula(latex, eq_id) if latex else []
            number, section, location = entry.key, entry.section, None
            if not latex:
                eq_findings.append(Finding("formula", "warn", "the reading gives no formula: symbols not checked "
                                           "against the equation", None, entry.line or None))
        context = frozenset()
        if eq is not None:
            from ..analysis.read import display_context
            context = frozenset(int(pid[2:]) for pid in display_context(doc, eq)
                                if pid.startswith("p:") and pid[2:].isdigit())
        rows, row_findings = check_rows(entry, symbols, paper, number, context)
        eq_findings.extend(row_findings)
        numbers = None
        if entry.numbers is not None:
            functions = frozenset(doc.operators.values()) if doc is not None else frozenset()
            numbers = rerun(entry.numbers, latex, entry.rows, functions)
            if numbers.ok is False:
                eq_findings.append(Finding("numbers", "fail", f"the reading claims {numbers.claimed}; re-running "
                                           f"the equation gives {numbers.computed} ({numbers.message})", None,
                                           entry.numbers.line or None))
            elif numbers.ok is None:
                eq_findings.append(Finding("numbers", "warn", numbers.message, None, entry.numbers.line or None))
        claims = tuple(check_claim(c, paper) for c in entry.claims)
        for c in claims:
            if c.verdict == "not found":
                eq_findings.append(Finding("claim", "fail", f'no passage of the paper says this: "{c.claim}"', None,
                                           c.line or None))
            elif c.verdict in ("stronger", "weaker"):
                detail = (f"hedge dropped ({', '.join(c.hedges_paper)})" if c.verdict == "stronger" and
                          not c.hedges_claim else
                          f"certainty added ({', '.join(c.certainty_claim)})" if c.verdict == "stronger" else
                          f"hedge added ({', '.join(c.hedges_claim)})")
                eq_findings.append(Finding("claim", "fail", f"{c.verdict} than the paper: {detail}; the paper: "
                                           f'"{_short(c.paper_wording)}"', None, c.line or None))
        results.append(EquationResult(entry.key, eq_id, section, location, tuple(rows), tuple(eq_findings),
                                      numbers, claims))
    return CheckReport(reading.path, paper.name, paper.kind, tuple(results), tuple(warnings), tuple(findings))


def _source_findings(reading: Reading, doc) -> list[Finding]:
    """The reading's `Source:` line against the paper's arXiv id and version."""
    if doc is None or not reading.source:
        return []
    m = re.search(r"(\d{4}\.\d{4,5})(v\d+)?", reading.source)
    if not m or not doc.paper.arxiv_id:
        return []
    out = []
    if m.group(1) != doc.paper.arxiv_id:
        out.append(Finding("source", "fail", f"the reading is of arXiv:{m.group(0)}, the paper is "
                           f"arXiv:{doc.paper.arxiv_id}{doc.paper.version or ''}"))
    elif m.group(2) and doc.paper.version and m.group(2) != doc.paper.version:
        out.append(Finding("source", "warn", f"the reading is of version {m.group(2)}, the paper checked is "
                           f"{doc.paper.version}: numbers and sections may have moved"))
    return out


def _eq_key(key: str) -> str:
    k = key.strip().strip("()")
    return k[3:] if k.startswith("eq:") else k


def _formula_key(latex: str) -> str:
    text = re.sub(r"\\(?:boxed|color\{[^{}]*\}|nonumber|notag|label\{[^{}]*\})", "", latex)
    return compact(text.replace("&", "")).rstrip(".,;").replace("^t", "^\\top")


def _short(text: str | None, n: int = 140) -> str:
    text = " ".join((text or "").split())
    return text if len(text) <= n else text[: n - 1] + "…"
