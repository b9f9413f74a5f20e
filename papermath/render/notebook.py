"""HTML for notebooks (`_repr_html_` of the Python API's results): self-contained fragments, maths as `$…$` for
the notebook's own typesetter, every piece of paper text escaped. Class names are the reader's (`pm-…`)."""
from __future__ import annotations

import html
import json
from typing import Any

STYLE = ("<style>.pm-nb table{border-collapse:collapse;margin:.3em 0}.pm-nb th,.pm-nb td{border:1px solid #ccc;"
         "padding:2px 6px;text-align:left;vertical-align:top}.pm-nb .pm-where{color:#666;font-size:90%}"
         ".pm-nb .pm-undef{color:#a40000}</style>")


def esc(text: Any) -> str:
    return html.escape("" if text is None else str(text), quote=True)


def math(latex: str | None, display: bool = False) -> str:
    """LaTeX for the notebook's typesetter, escaped (a `<` in a formula stays text)."""
    if not latex:
        return ""
    return f"$${esc(latex)}$$" if display else f"${esc(latex)}$"


def _table(header: list[str], rows: list[list[str]], numbered: bool = False) -> str:
    head = "".join(f"<th>{esc(h)}</th>" for h in (["#"] if numbered else []) + header)
    body = "".join("<tr>" + (f"<td>{n}</td>" if numbered else "") + "".join(f"<td>{c}</td>" for c in row) + "</tr>"
                   for n, row in enumerate(rows, 1))
    return f'<table class="pm-table"><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>'


def _shape(shape: list[str] | None) -> str:
    if shape is None:
        return "?"
    return "scalar" if not shape else math("[" + ", ".join(shape) + "]")


def _where(definition: dict) -> str:
    place = f"§{definition['section']}, " if definition.get("section") else ""
    return f'<span class="pm-where">— {esc(place)}{esc(definition.get("file"))}:{esc(definition.get("line"))}</span>'


def reading_html(data: dict) -> str:
    """The reading of equations (the JSON of `papermath read`), as the reader's symbol panel."""
    parts = [STYLE, '<div class="pm-nb pm-reading">']
    for eq in data["equations"]:
        number = f"({esc(eq['number'])})" if eq.get("number") else ""
        section = f" §{esc(eq['section'])}" if eq.get("section") else ""
        parts.append(f"<p><strong>{esc(eq['id'])} {number}</strong>{section} "
                     f'<span class="pm-where">{esc(eq.get("file"))}:{esc(eq.get("line"))}</span></p>')
        parts.append(f"<div>{math(eq['latex'], display=True)}</div>")
        parts.append(f"<p>Kind: <strong>{esc(eq['kind'])}</strong> ({esc(eq.get('kind_cue'))})</p>")
        rows = []
        for s in eq["symbols"]:
            if s["kind"] == "index":
                continue
            d = s.get("definition")
            if d:
                meaning = f"“{esc(d['quote'])}” {_where(d)}"
            elif s.get("conventional"):
                meaning = f"conventional (the paper does not define it): {esc(s['conventional'])}"
            else:
                meaning = '<span class="pm-undef">not defined in the paper</span>'
            rows.append([math(s["latex"]), esc(s["role"]), _shape(s.get("shape")), meaning])
        parts.append(_table(["symbol", "role", "shape", "meaning (quoted from the paper)"], rows))
        if eq.get("reductions"):
            parts.append(_table(["reduction", "runs over"], [[esc(r.get("op")), esc(", ".join(r.get("over") or []))]
                                                            for r in eq["reductions"]]))
        undefined = ", ".join(math(u) for u in eq.get("undefined", [])) or "none"
        parts.append(f'<p class="pm-undef-list">Not defined in the paper (do not guess): {undefined}</p>')
    parts.append("</div>")
    return "".join(parts)


def shapes_html(data: dict) -> str:
    rows = [[math(s["latex"]), esc(s["shown"]), esc(s["note"])] for s in data["steps"]]
    out = [STYLE, '<div class="pm-nb pm-shapes">', f"<p>{esc(data['equation'])}</p>",
           _table(["sub-expression", "shape", "note"], rows, numbered=True),
           f"<p>result: {_shape(data['result'])}</p>"]
    out += [f'<p class="pm-undef">mismatch: {esc(m["message"])}</p>' for m in data.get("mismatches", [])]
    return "".join(out + ["</div>"])


def _value(value: Any) -> str:
    return esc(json.dumps(value))


def evaluation_html(data: dict) -> str:
    values = [[math(i["name"] or i["key"]), _value(i["value"]), esc(i["note"] or i["source"])] for i in data["inputs"]]
    steps = [[math(s["latex"]), _value(s["value"]), esc(s["note"])] for s in data["steps"]]
    out = [STYLE, '<div class="pm-nb pm-numbers">', f"<p>{esc(data['equation'])}</p>",
           _table(["symbol", "value", "how"], values),
           _table(["sub-expression", "value", "note"], steps, numbered=True),
           f"<p>result: {math(data['result_latex'])} = {_value(data['value'])}</p>"]
    for run in data.get("extremes", []):
        changes = "".join(f"<li>{esc(c)}</li>" for c in run["changes"])
        out.append(f"<p>extreme: {esc(', '.join(run['scaled']))} × {esc(run['factor'])}</p><ul>{changes}</ul>")
    return "".join(out + ["</div>"])


def code_html(data: dict, torch: bool) -> str:
    source = data["torch"] if torch else data["numpy"]
    return (f'{STYLE}<div class="pm-nb pm-code"><p><code>{esc(data["function"])}</code></p>'
            f"<pre><code>{esc(source)}</code></pre><details><summary>test_{esc(data['module'])}.py</summary>"
            f"<pre><code>{esc(data['test'])}</code></pre></details></div>")


def check_html(data: dict) -> str:
    verdict = "passed" if data["passed"] else "failed"
    rows = []
    for eq in data.get("equations", []):
        for row in eq.get("rows", []):
            rows.append([esc(eq.get("key")), esc(row.get("symbol")), esc(row.get("status"))])
    summary = data.get("summary", {})
    return (f'{STYLE}<div class="pm-nb pm-check"><p>check <strong>{verdict}</strong>: '
            f"{esc(summary.get('failures', 0))} failures, {esc(summary.get('warnings', 0))} warnings</p>"
            + _table(["equation", "symbol", "status"], rows) + "</div>")
