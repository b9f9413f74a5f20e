"""Read a reading file: the JSON of `papermath read` (schema `papermath.read/1`) or a Markdown reading.

The Markdown layout is the one `papermath read --format md` writes and docs/readings.md documents: per equation a
`## Equation N (eq:N)` heading, `Section:` and `Kind:` lines, a ```latex block, the symbol table
`| symbol | shape or type | meaning | role | quote |`, and the sections Undefined, Reductions, Small-number check
and Claims. Headings and column names are matched loosely (case, extra words) so a hand-edited file still reads;
anything that cannot be read is a `ReadingFormatError` naming the file, line and column.
"""
from __future__ import annotations

import json
import re
from pathlib import Path

from ..errors import PapermathError
from ..spans import Position
from .model import Claim, EquationEntry, NumberCheck, Reading, ReadingRow


class ReadingFormatError(PapermathError):
    """A reading file that is neither a `papermath read` JSON nor a Markdown reading laid out like the guides."""


_EQUATION_HEADING = re.compile(r"^##\s+Equation\s*(?P<number>[^\s(]*)\s*(?:\((?P<id>eq:[^)]+)\))?\s*$", re.I)
_SECTION_HEADING = re.compile(r"^###\s+(?P<name>.+?)\s*$")
_FIELD = re.compile(r"^(?P<key>Section|Kind|Source|Paper|Title)\s*:\s*(?P<value>.*?)\s*$", re.I)
_PLACEHOLDER = re.compile(r"^\(?\s*fill in", re.I)
_QUOTE_CHARS = "\"'“”‘’«»"
# Column name → field. The first pattern that matches a header cell names its column.
_COLUMNS: tuple[tuple[str, re.Pattern], ...] = (
    ("symbol", re.compile(r"^symbol", re.I)),
    ("shape", re.compile(r"shape|type", re.I)),
    ("meaning", re.compile(r"meaning|description", re.I)),
    ("role", re.compile(r"^role", re.I)),
    ("quote", re.compile(r"quote|defin", re.I)),
)
_SECTION_KINDS: tuple[tuple[str, re.Pattern], ...] = (
    ("undefined", re.compile(r"undefined|not defined", re.I)),
    ("reductions", re.compile(r"reduction", re.I)),
    ("numbers", re.compile(r"small[- ]number|numbers|plug", re.I)),
    ("claims", re.compile(r"claim", re.I)),
)


def load_reading(path: str | Path) -> Reading:
    """Read a reading file (`-`: standard input, so `papermath read P --json | papermath check - --paper P`);
    JSON when it parses as JSON, Markdown otherwise."""
    if str(path) == "-":
        import sys
        return parse_reading(sys.stdin.read(), "<stdin>")
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ReadingFormatError(f"reading not found: {p}") from None
    except (OSError, UnicodeDecodeError) as error:
        raise ReadingFormatError(f"cannot read {p}: {error}") from None
    return parse_reading(text, str(p))


def parse_reading(text: str, name: str = "<reading>") -> Reading:
    stripped = text.lstrip()
    if stripped.startswith("{"):
        return parse_json_reading(text, name)
    return parse_markdown_reading(text, name)


# --- JSON -----------------------------------------------------------------------------------------------------

def parse_json_reading(text: str, name: str) -> Reading:
    """The JSON of `papermath read --json` (or the same layout written by hand; `claims` and `numbers` optional)."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        raise ReadingFormatError(f"not valid JSON: {error.msg}",
                                 Position(name, error.pos, error.lineno, error.colno)) from None
    if not isinstance(data, dict) or not isinstance(data.get("equations"), list):
        raise ReadingFormatError("a JSON reading needs an \"equations\" list (schema papermath.read/1)",
                                 Position(name, 0, 1, 1))
    paper = data.get("paper") or {}
    source = paper.get("source")
    if paper.get("arxiv_id"):
        source = f"arXiv:{paper['arxiv_id']}{paper.get('version') or ''}"
    equations = []
    for i, e in enumerate(data["equations"]):
        if not isinstance(e, dict):
            raise ReadingFormatError(f"equations[{i}] is not an object", Position(name, 0, 1, 1))
        rows = []
        for s in e.get("symbols") or []:
            if s.get("kind") == "index":
                continue
            definition = s.get("definition") or {}
            shape = s.get("shape")
            if s.get("kind") in ("function", "operator"):
                shape_text = "function"
            elif shape is None:
                shape_text = "?"
            elif shape == []:
                shape_text = "scalar"
            else:
                shape_text = "[" + ", ".join(shape) + "]"
            meaning = s.get("meaning") or (s.get("conventional") if not definition else "") or ""
            rows.append(ReadingRow(s.get("latex") or s.get("symbol") or "", shape_text, meaning,
                                   s.get("role") or "", definition.get("quote") or "", 0))
        numbers = None
        n = e.get("numbers") or e.get("small_number_check")
        if isinstance(n, dict) and (n.get("inputs") or n.get("result")):
            numbers = NumberCheck(_as_text(n.get("inputs")), _as_text(n.get("result")), 0)
        claims = tuple(Claim(c.get("claim") or c.get("text") or "", c.get("quote") or "", 0)
                       for c in e.get("claims") or [] if isinstance(c, dict))
        reductions = tuple(r.get("latex", "") if isinstance(r, dict) else str(r) for r in e.get("reductions") or [])
        key = e.get("number") or e.get("id") or str(i + 1)
        equations.append(EquationEntry(str(key), e.get("id"), e.get("section"), e.get("kind"), e.get("latex"),
                                       tuple(rows), tuple(e.get("undefined") or ()), reductions, numbers, claims, 0))
    return Reading(name, "json", paper.get("title"), source, tuple(equations))


def _as_text(value) -> str:
    if value is None:
        return ""
    if isinstance(value, dict):
        return "; ".join(f"{k}={json.dumps(v)}" for k, v in value.items())
    return value if isinstance(value, str) else json.dumps(value)


# --- Markdown -------------------------------------------------------------------------------------------------

class _Builder:
    """Collects one equation's parts while the Markdown is walked."""

    def __init__(self, key: str, eq_id: str | None, line: int) -> None:
        self.key, self.id, self.line = key, eq_id, line
        self.section: str | None = None
        self.kind: str | None = None
        self.latex: str | None = None
        self.rows: list[ReadingRow] = []
        self.undefined: list[str] = []
        self.reductions: list[str] = []
        self.inputs: tuple[str, int] | None = None
        self.result: str | None = None
        self.claims: list[Claim] = []

    def build(self) -> EquationEntry:
        numbers = None
        if self.inputs is not None and self.result is not None:
            numbers = NumberCheck(self.inputs[0], self.result, self.inputs[1])
        return EquationEntry(self.key, self.id, self.section, self.kind, self.latex, tuple(self.rows),
                             tuple(self.undefined), tuple(self.reductions), numbers, tuple(self.claims), self.line)


def parse_markdown_reading(text: str, name: str) -> Reading:
    lines = text.splitlines()
    title: str | None = None
    source: str | None = None
    equations: list[EquationEntry] = []
    current: _Builder | None = None
    section = None           # which ### section we are in
    columns: list[str] | None = None
    i = 0
    while i < len(lines):
        line = lines[i].strip()
        lineno = i + 1
        i += 1
        if not line:
            continue
        if line.startswith("# ") and title is None:
            title = re.sub(r"^#\s+(?:Reading\s*:\s*)?", "", line).strip() or None
            continue
        m = _EQUATION_HEADING.match(line)
        if m:
            if current is not None:
                equations.append(current.build())
            current, section, columns = _Builder(_equation_key(m, name, lineno), m.group("id"), lineno), None, None
            continue
        if line.startswith("## "):
            section = "other"
            continue
        m = _SECTION_HEADING.match(line)
        if m:
            section = next((kind for kind, pattern in _SECTION_KINDS if pattern.search(m.group("name"))), "other")
            columns = None
            continue
        m = _FIELD.match(line.rstrip("\\").rstrip())
        if m and not line.startswith("|"):
            key, value = m.group("key").lower(), m.group("value").rstrip("\\").strip()
            if key == "source":
                source = value
            elif key in ("paper", "title") and title is None:
                title = value
            elif current is not None:
                _equation_field(current, key, value)
            continue
        if current is None:
            continue
        if line.startswith("```"):
            body, i = _fenced_block(lines, i, line, name, lineno)
            if current.latex is None and "latex" in line.lower() or current.latex is None and section is None:
                current.latex = " ".join(b.strip() for b in body).strip()
            continue
        if line.startswith("|"):
            columns = _table_line(current, columns, line, name, lineno)
            continue
        item = re.match(r"^[-*+]\s+(.*)$", line)
        if item and section in _ITEM_SECTIONS:
            _ITEM_SECTIONS[section](current, item.group(1).strip(), lineno)
    if current is not None:
        equations.append(current.build())
    if not equations:
        raise ReadingFormatError("no `## Equation N (eq:N)` heading: not a reading (see docs/readings.md)",
                                 Position(name, 0, 1, 1))
    return Reading(name, "markdown", title, source, tuple(equations))


def _equation_key(heading: re.Match, name: str, lineno: int) -> str:
    """The key an `## Equation …` heading gives: its number, else its id."""
    number = heading.group("number") or ""
    eq_id = heading.group("id")
    if not number and not eq_id:
        raise ReadingFormatError("an equation heading needs a number or an id: `## Equation 15 (eq:15)`",
                                 Position(name, 0, lineno, 1))
    return number or eq_id


def _equation_field(current: _Builder, key: str, value: str) -> None:
    """A `key: value` line inside an equation: its section and its kind of statement."""
    if key == "section":
        current.section = None if value in ("", "—", "-") else value
    elif key == "kind":
        current.kind = re.split(r"\s+[—–-]{1,2}\s+", value, maxsplit=1)[0].strip().lower() or None


def _fenced_block(lines: list[str], i: int, line: str, name: str, lineno: int) -> tuple[list[str], int]:
    """The lines of the code fence opened by `line` (read from `lines[i]` on) and the index after its close."""
    body = []
    marks = re.match(r"`+", line).group(0)  # type: ignore[union-attr]  # CommonMark: a fence at least as long closes
    while i < len(lines) and not re.fullmatch(re.escape(marks) + r"`*\s*", lines[i].strip()):
        body.append(lines[i])
        i += 1
    if i >= len(lines):
        raise ReadingFormatError("unclosed ``` block", Position(name, 0, lineno, 1))
    return body, i + 1


def _table_line(current: _Builder, columns: list[str] | None, line: str, name: str, lineno: int) -> list[str]:
    """One `| … |` line: the header (the columns it names), the separator, or a symbol row added to `current`."""
    cells = _cells(line)
    if columns is None:
        return _header(cells, name, lineno)
    if all(re.fullmatch(r":?-{2,}:?", c.strip()) for c in cells if c.strip()):
        return columns
    if len(cells) != len(columns):
        raise ReadingFormatError(f"table row has {len(cells)} cells, the header has {len(columns)}",
                                 Position(name, 0, lineno, 1))
    row = dict(zip(columns, cells))
    symbol = _strip_math(row.get("symbol", ""))
    if not symbol:
        raise ReadingFormatError("table row without a symbol", Position(name, 0, lineno, 1))
    current.rows.append(ReadingRow(symbol, row.get("shape", "").strip(), row.get("meaning", "").strip(),
                                   row.get("role", "").strip(), _strip_quotes(row.get("quote", "")), lineno))
    return columns


def _none(content: str) -> bool:
    return content.lower().rstrip(".") in ("none", "(none)")


def _undefined_item(current: _Builder, content: str, lineno: int) -> None:
    if not _none(content):
        current.undefined.append(_strip_math(re.split(r"\s+[—–:]\s+", content, maxsplit=1)[0]))


def _reduction_item(current: _Builder, content: str, lineno: int) -> None:
    if not _none(content):
        current.reductions.append(content)


def _numbers_item(current: _Builder, content: str, lineno: int) -> None:
    m = re.match(r"^(inputs?|result)\s*:\s*(.*)$", content, re.I)
    if m and not _PLACEHOLDER.match(m.group(2)):
        if m.group(1).lower().startswith("input"):
            current.inputs = (m.group(2).strip(), lineno)
        else:
            current.result = m.group(2).strip()


def _claims_item(current: _Builder, content: str, lineno: int) -> None:
    if content.lower().startswith("quote:") and current.claims:
        last = current.claims[-1]
        current.claims[-1] = Claim(last.text, _strip_quotes(content[6:]), last.line)
    elif not _none(content):
        current.claims.append(_claim(content, lineno))


_ITEM_SECTIONS = {"undefined": _undefined_item, "reductions": _reduction_item, "numbers": _numbers_item,
                  "claims": _claims_item}
"""A list item (`- …`) in a `###` section: what the section makes of it."""


def _cells(line: str) -> list[str]:
    body = line.strip()
    if body.startswith("|"):
        body = body[1:]
    if body.endswith("|") and not body.endswith("\\|"):
        body = body[:-1]
    cells, cell, k = [], [], 0
    while k < len(body):
        ch = body[k]
        if ch == "\\" and k + 1 < len(body) and body[k + 1] == "|":
            cell.append("|")
            k += 2
            continue
        if ch == "|":
            cells.append("".join(cell).strip())
            cell = []
        else:
            cell.append(ch)
        k += 1
    cells.append("".join(cell).strip())
    return cells


def _header(cells: list[str], name: str, lineno: int) -> list[str]:
    columns = []
    for cell in cells:
        field = next((f for f, pattern in _COLUMNS if pattern.search(cell)), None)
        columns.append(field or f"extra:{cell}")
    if "symbol" not in columns:
        raise ReadingFormatError("a symbol table needs a `symbol` column: "
                                 "| symbol | shape or type | meaning | role | quote |", Position(name, 0, lineno, 1))
    return columns


def _strip_math(text: str) -> str:
    t = text.strip()
    for left, right in (("$$", "$$"), ("$", "$"), ("\\(", "\\)"), ("`", "`")):
        if t.startswith(left) and t.endswith(right) and len(t) >= len(left) + len(right):
            return t[len(left):len(t) - len(right)].strip()
    return t


def _strip_quotes(text: str) -> str:
    t = text.strip()
    if len(t) >= 2 and t[0] in _QUOTE_CHARS and t[-1] in _QUOTE_CHARS:
        t = t[1:-1].strip()
    return t


_CLAIM_QUOTE = re.compile(r"^(?P<claim>.*?)\s*(?:[—–]|--|\(quote:)\s*(?P<quote>[\"“].*[\"”])\s*\)?\s*$")


def _claim(content: str, lineno: int) -> Claim:
    """`- claim text — "the paper's words"` (the quote is optional)."""
    m = _CLAIM_QUOTE.match(content)
    if m:
        return Claim(m.group("claim").strip(), _strip_quotes(m.group("quote")), lineno)
    return Claim(content, "", lineno)


def reading_from_answer(text: str, number: str, eq_id: str, name: str = "<LLM answer>") -> Reading:
    """A chat model's answer as a reading: code fences around the whole answer removed; a table without an
    `## Equation` heading gets one for the equation asked about. Raises ReadingFormatError when there is no
    symbol table at all."""
    body = text.strip()
    fence = re.match(r"^```(?:markdown|md)?\s*\n(.*)\n```\s*$", body, re.S)
    if fence:
        body = fence.group(1)
    if not re.search(r"^\|\s*symbol", body, re.M | re.I):
        raise ReadingFormatError("the answer has no symbol table (| symbol | shape or type | meaning | role | "
                                 f"quote |): first words {body[:120]!r}", Position(name, 0, 1, 1))
    if not _EQUATION_HEADING.search("\n".join(line.strip() for line in body.splitlines())) and \
            not re.search(r"^##\s+Equation", body, re.M | re.I):
        body = f"## Equation {number} ({eq_id})\n\n" + body
    return parse_markdown_reading(body, name)
