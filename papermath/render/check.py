"""A check report (`papermath check`) as terminal text."""
from __future__ import annotations

import textwrap
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # papermath.check exports report_text: importing it here at run time would be a cycle
    from ..check.report import CheckReport, EquationResult, Finding
    from ..check.text import QuoteMatch


def _where(q: QuoteMatch | None) -> str:
    if q is None or q.file is None:
        return ""
    sec = f"§{q.section}, " if q.section else ""
    return f"{sec}{q.file}:{q.line}"


def report_text(report: CheckReport, width: int = 100) -> str:
    """The report as terminal text: warnings, each equation's rows, numbers and claims, then PASS or FAIL."""
    from ..check.report import STATUSES

    out = [f"check {report.reading}", f"  against {report.paper} ({report.paper_kind})"]
    for w in report.warnings:
        out.extend(textwrap.wrap("warning: " + w, width, initial_indent="  ", subsequent_indent="    "))
    for f in report.findings:
        out.append(f"  {_mark(f)} {f.check}: {f.message}")
    for e in report.equations:
        out.extend(_equation_lines(e, width))
    counts = report.status_counts()
    rows = sum(counts.values())
    summary = ", ".join(f"{v} {k}" for k, v in sorted(counts.items(), key=lambda kv: STATUSES.index(kv[0])))
    warns = sum(1 for f in report.all_findings() if f.severity == "warn")
    out.append("")
    out.append(f"{'PASS' if report.passed else 'FAIL'} — {rows} rows ({summary or 'none'}); "
               f"{len(report.failures)} failures, {warns} warnings")
    return "\n".join(out) + "\n"


def _equation_lines(e: EquationResult, width: int) -> list[str]:
    """One equation's block: its head, a line per row (with the closest passage for a quote not found), its
    findings, the numbers re-run and the claims."""
    out: list[str] = []
    out.append("")
    head = f"{e.id or 'eq ' + e.key} ({e.key})"
    if e.section:
        head += f"  §{e.section}"
    if e.location:
        head += f"  {e.location}"
    out.append(head)
    sym_w = min(max((len(r.symbol) for r in e.rows), default=8) + 2, 28)
    for r in e.rows:
        sym = f"${r.symbol}$"
        line = f"  {r.status:<11} {sym:<{sym_w}}"
        if r.quote is not None:
            q = r.quote
            if q.found:
                detail = f'"{_short(q.quote, 70)}" — {q.how}, {_where(q)}'
            else:
                detail = f'quote NOT FOUND: "{_short(q.quote, 60)}"'
            line += " " + detail
        out.append(line)
        if r.quote is not None and not r.quote.found and r.quote.closest:
            out.extend(textwrap.wrap(f'closest ({r.quote.similarity:.0%}, {_where(r.quote)}): '
                                     f'"{_short(r.quote.closest, 160)}"', width - 6,
                                     initial_indent="      ", subsequent_indent="        "))
        for f in r.findings:
            if f.check == "quote" and f.severity == "fail" and r.quote is not None and not r.quote.found:
                continue  # shown by the NOT FOUND line
            out.extend(textwrap.wrap(f"{_mark(f)} {f.check}: {f.message}", width - 6,
                                     initial_indent="      ", subsequent_indent="        "))
    for f in e.findings:
        if f.check in ("numbers", "claim"):
            continue  # shown by the numbers and claim lines below
        out.extend(textwrap.wrap(f"{_mark(f)} {f.check}: {f.message}", width - 2,
                                 initial_indent="  ", subsequent_indent="    "))
    if e.numbers is not None:
        n = e.numbers
        mark = {True: "ok  ", False: "FAIL", None: "skip"}[n.ok]
        out.extend(textwrap.wrap(f"{mark} numbers: inputs {n.inputs}; claimed {n.claimed}; "
                                 f"re-run {n.computed if n.computed is not None else '—'} — {n.message}",
                                 width - 2, initial_indent="  ", subsequent_indent="    "))
    for c in e.claims:
        mark = "ok  " if c.verdict == "consistent" else "FAIL"
        text = f'{mark} claim ({c.verdict}): "{_short(c.claim, 90)}"'
        if c.paper_wording:
            text += f' — the paper: "{_short(c.paper_wording, 140)}"'
            if c.quote is not None and c.quote.file:
                text += f" ({_where(c.quote)})"
        if c.verdict == "stronger":
            dropped = ", ".join(c.hedges_paper) or "—"
            added = ", ".join(c.certainty_claim)
            text += f"; hedge dropped: {dropped}" + (f"; certainty added: {added}" if added else "")
        elif c.verdict == "weaker":
            text += f"; hedge added: {', '.join(c.hedges_claim)}"
        out.extend(textwrap.wrap(text, width - 2, initial_indent="  ", subsequent_indent="    "))
    return out


def _mark(f: Finding) -> str:
    return {"fail": "FAIL", "warn": "warn", "info": "note"}.get(f.severity, f.severity)


def _short(text: str, n: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= n else text[: n - 1] + "…"
