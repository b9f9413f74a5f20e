"""The check report: what `papermath check` found for each row, number and claim of a reading.

Frozen dataclasses; `report_json` gives the documented JSON (`"schema": "papermath.check/1"`, docs/readings.md);
the terminal view is `papermath.render.check.report_text`. A report fails when any finding has severity `fail`.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from ..render.jsonout import to_jsonable
from .text import QuoteMatch

SCHEMA_VERSION = 1
STATUSES = ("verified", "guess", "mismatch", "standard", "by equation", "unquoted", "absent")
"""Row statuses: `verified` (quote found, shape and role agree), `guess` (quote not found, or a meaning for a
symbol the paper never defines), `mismatch` (quote found but shape, role or the symbol disagree with the paper),
`standard` (standard notation with its conventional meaning), `by equation` (defined by this or another
equation, nothing quoted), `unquoted` (no meaning and no quote), `absent` (not a symbol of the equation)."""


@dataclass(frozen=True)
class Finding:
    """One thing the check found: a failure, a warning or a note."""

    check: str
    """Which check: quote, guess, coverage, shape, role, numbers, claim, undefined, formula, equation."""
    severity: str
    """`fail` (the reading is wrong or unverifiable), `warn` (worth a look), `info`."""
    message: str
    """Short and specific: what the reading says and what the paper says."""
    symbol: str | None = None
    """The symbol concerned, as the reading writes it."""
    line: int | None = None
    """Line of the reading file (None for JSON readings)."""


@dataclass(frozen=True)
class RowResult:
    """One row of the reading's symbol table, checked."""

    symbol: str
    """The symbol as the reading writes it."""
    status: str
    """One of STATUSES."""
    quote: QuoteMatch | None
    """Where the row's quote was found (or the closest passage); None when the row has no quote."""
    findings: tuple[Finding, ...]
    """What is wrong or worth a look in this row."""
    line: int
    """Line of the reading file."""
    paper_symbol: str | None = None
    """The paper's symbol id the row was matched to (`eq:15/sym:s_{i,t}`)."""


@dataclass(frozen=True)
class NumbersResult:
    """The small-number check, re-run."""

    inputs: str
    """The inputs as the reading writes them."""
    claimed: str
    """The result the reading claims."""
    computed: str | None
    """What re-running the equation gives (None when it could not be re-run)."""
    ok: bool | None
    """True when they agree, False when not, None when not re-run (then `message` says why)."""
    message: str
    """How it was re-run, or why not."""
    steps: tuple[str, ...] = ()
    """The evaluation steps, inside out, when the evaluator gives them."""


@dataclass(frozen=True)
class ClaimResult:
    """A claim compared with the paper's own wording."""

    claim: str
    """The claim as the reading writes it."""
    quote: QuoteMatch | None
    """Where its quote (or, without a quote, its closest sentence) stands in the paper."""
    paper_wording: str | None
    """The paper's sentence it was compared with."""
    verdict: str
    """`consistent`, `stronger` (hedge dropped or certainty added), `weaker` (hedge added), `not found`."""
    hedges_paper: tuple[str, ...]
    """Hedges in the paper's sentence (likely, we suspect, may, …)."""
    hedges_claim: tuple[str, ...]
    """Hedges in the claim."""
    certainty_claim: tuple[str, ...]
    """Words of certainty in the claim the paper's sentence lacks (proves, shows, always, because, …)."""
    line: int
    """Line of the reading file."""


@dataclass(frozen=True)
class EquationResult:
    """Everything checked for one equation of the reading."""

    key: str
    """How the reading names the equation (`15`)."""
    id: str | None
    """The paper's id for it (`eq:15`), None when the paper has no such equation."""
    section: str | None
    """Section of the equation in the paper."""
    location: str | None
    """`file:line` of the equation in the paper."""
    rows: tuple[RowResult, ...]
    """The symbol table, row by row."""
    findings: tuple[Finding, ...]
    """Equation-level findings: coverage, undefined list, formula, kind."""
    numbers: NumbersResult | None
    """The small-number check, re-run (None when the reading has none)."""
    claims: tuple[ClaimResult, ...]
    """The claims, compared with the paper's wording."""

    def all_findings(self) -> list[Finding]:
        out = list(self.findings)
        for r in self.rows:
            out.extend(r.findings)
        return out


@dataclass(frozen=True)
class CheckReport:
    """The check of one reading against one paper."""

    reading: str
    """The reading file."""
    paper: str
    """The paper checked against (what the user gave)."""
    paper_kind: str
    """`latex`, `markdown`, `text` or `pdf`."""
    equations: tuple[EquationResult, ...]
    """One result per equation of the reading."""
    warnings: tuple[str, ...] = ()
    """Warnings about the check itself (PDF text, an evaluator that is not available)."""
    findings: tuple[Finding, ...] = field(default=())
    """Reading-level findings (e.g. the Source line names another paper version)."""

    def all_findings(self) -> list[Finding]:
        out = list(self.findings)
        for e in self.equations:
            out.extend(e.all_findings())
        return out

    @property
    def failures(self) -> list[Finding]:
        return [f for f in self.all_findings() if f.severity == "fail"]

    @property
    def passed(self) -> bool:
        return not self.failures

    def status_counts(self) -> dict[str, int]:
        counts: dict[str, int] = {}
        for e in self.equations:
            for r in e.rows:
                counts[r.status] = counts.get(r.status, 0) + 1
        return counts


def report_json(report: CheckReport) -> dict:
    return {
        "schema": f"papermath.check/{SCHEMA_VERSION}",
        "reading": report.reading,
        "paper": {"source": report.paper, "kind": report.paper_kind},
        "passed": report.passed,
        "summary": {"rows": report.status_counts(),
                    "failures": len(report.failures),
                    "warnings": sum(1 for f in report.all_findings() if f.severity == "warn")},
        "warnings": list(report.warnings),
        "findings": to_jsonable(list(report.findings)),
        "equations": [to_jsonable(e) for e in report.equations],
    }
