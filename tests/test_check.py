"""`check` on the project's own material (runs offline): quote normalisation, the reading parser, bad readings,
shapes/roles/guesses/coverage/numbers/claims on the bundled example paper, plain-text and PDF papers, the CLI."""
from __future__ import annotations

import json
import zlib
from pathlib import Path

import pytest

from papermath.check import (ReadingFormatError, check_reading, load_reading, open_paper_text, parse_reading,
                             report_text)
from papermath.check.claims import check_claim
from papermath.check.model import Claim
from papermath.check.numbers import claimed_value, split_assignments
from papermath.check.symbols import parse_shape, symbol_forms
from papermath.check.text import Passage, PaperText, compact
from papermath.cli import main

from conftest import EXAMPLE

READINGS = Path(__file__).parent / "readings"
NOTE = READINGS / "example-note.md"


@pytest.fixture(scope="module")
def note_paper():
    return open_paper_text(str(EXAMPLE))


# --- normalisation: (quote, passage) pairs that must be found, and near misses that must not ---------------

FOUND = [
    ("where $s_{i,t}$ is the token-to-expert affinity", "where $s_{i,t}$ is the token-to-expert affinity;"),
    ("the  logistic\nfunction", "the logistic function"),                                   # whitespace, lines
    ("a pre-\ntrained model", "a pretrained model"),                                       # hyphenation
    ("the “affinity” score", 'the "affinity" score'),                                      # typographic quotes
    ("the ``affinity'' score", 'the "affinity" score'),                                    # LaTeX quotes
    ("log σ(β · margin)", r"$\log \sigma(\beta \cdot \mathrm{margin})$"),                  # σ ↔ \sigma
    ("W ∈ ℝ^{d_c × d}", r"$W \in \mathbb {R}^{d_c \times d}$"),                             # ∈, ℝ, ×
    (r"$\mathbf{h}_t \in \mathbb{R}^{d}$", r"$\mathbf {h}_{t} \in \mathbb{R}^d$"),          # braces, spacing
    ("as shown by Britz", r"as shown by~\citep{britz2017} Britz"),                         # citations dropped
    (r"$\left( x \right)$ ≤ 1", r"$(x) \le 1$"),                                             # \left/\right, ≤
    ("The Affinity", "the affinity"),                                                      # case
]
NOT_FOUND = [
    ("the token-to-expert affinity score", "the token-to-expert affinity"),                # a word added
    ("which will be assigned an extremely large value", "which will be assigned an extremely small value"),
    (r"$W \in \mathbb{R}^{d \times d_c}$", r"$W \in \mathbb{R}^{d_c \times d}$"),           # dims swapped
]


def _text(*passages: str) -> PaperText:
    return PaperText([Passage(p, "1", "paper.tex", k + 1) for k, p in enumerate(passages)], kind="text",
                     name="paper")


@pytest.mark.parametrize("quote, passage", FOUND)
def test_quote_found_after_normalisation(quote, passage):
    match = _text("Unrelated text about something else entirely.", passage).find(quote)
    assert match.found and match.line == 2 and match.similarity == 1.0


@pytest.mark.parametrize("quote, passage", NOT_FOUND)
def test_quote_not_found_reports_closest_passage(quote, passage):
    match = _text("Unrelated text about something else entirely.", passage).find(quote)
    assert not match.found and match.line == 2
    assert 0.75 < match.similarity < 1.0
    assert match.closest and compact(match.closest) in compact(passage)


def test_verbatim_versus_normalised():
    paper = _text("We compute the dot products of the query with all keys.")
    assert paper.find("the dot products of the query").how == "verbatim"
    assert paper.find("the dot  products\nof the query").how == "verbatim"  # whitespace is not a difference
    assert paper.find("the dot prod-\nucts of the query").how == "normalised"


# --- the reading parser ---------------------------------------------------------------------------------------

def test_markdown_reading_parsed():
    reading = load_reading(NOTE)
    assert reading.title == "A Small Note on Attention and Routing"
    first, second = reading.equations
    assert (first.key, first.id, first.section, first.kind) == ("1", "eq:1", "2.1", "computation")
    assert [r.symbol for r in first.rows][:3] == ["\\mathrm{Attention}", "Q", "K"]
    q = first.rows[1]
    assert (q.shape, q.role, q.line) == ("[n, d_k]", "input data", 17)
    assert q.quote.startswith("We pack the queries")
    assert first.numbers.result == "`[[6.017, 3.983]]`"
    assert first.claims[0].quote == "The scaling keeps the dot products from growing with $d_k$."
    assert second.latex.startswith("s_{i,t}")


def test_escaped_pipes_and_placeholders():
    text = ("## Equation 3 (eq:3)\n\n| symbol | shape or type | meaning | role | quote |\n|---|---|---|---|---|\n"
            "| $\\|x\\|$ | scalar | the norm \\| of x | computed | |\n\n### Small-number check\n\n"
            "- inputs: (fill in, e.g. `Q=[[1,0]]`)\n- result: (fill in)\n")
    (eq,) = parse_reading(text).equations
    assert eq.rows[0].symbol == "\\|x\\|".replace("\\|", "|") and eq.rows[0].meaning == "the norm | of x"
    assert eq.numbers is None


def test_read_json_is_a_reading_and_passes_its_own_check(note_paper, capsys):
    assert main(["read", str(EXAMPLE), "--eq", "1", "--json"]) == 0
    reading = parse_reading(capsys.readouterr().out, "read.json")
    assert reading.format == "json" and reading.equations[0].id == "eq:1"
    report = check_reading(reading, note_paper)
    quotes = [r.quote for r in report.equations[0].rows if r.quote is not None]
    assert quotes and all(q.found for q in quotes)


BAD_READINGS = [
    ("{not json", "not valid JSON", 1),
    ('{"paper": {}}', "needs an \"equations\" list", 1),
    ("# Reading\n\nno equations here\n", "no `## Equation N (eq:N)` heading", 1),
    ("## Equation 1 (eq:1)\n\n| symbol | shape |\n|---|---|\n| $x$ | scalar | extra |\n", "3 cells, the header has 2", 5),
    ("## Equation 1 (eq:1)\n\n```latex\nx = 1\n", "unclosed ``` block", 3),
    ("## Equation 1 (eq:1)\n\n| meaning | role |\n|---|---|\n", "needs a `symbol` column", 3),
    ("## Equation 1 (eq:1)\n\n| symbol | role |\n|---|---|\n|  | input data |\n", "table row without a symbol", 5),
]


@pytest.mark.parametrize("text, message, line", BAD_READINGS)
def test_bad_readings_fail_cleanly(text, message, line):
    with pytest.raises(ReadingFormatError) as info:
        parse_reading(text, "bad.md")
    assert message in info.value.message
    assert info.value.position.file == "bad.md" and info.value.position.line == line


def test_cli_reads_the_reading_from_standard_input(monkeypatch, capsys):
    """`papermath read P --json | papermath check - --paper P`: papermath's own reading of the example paper,
    piped, passes; a broken one piped names <stdin> with its position."""
    import io
    assert main(["read", str(EXAMPLE), "--json"]) == 0
    reading = capsys.readouterr().out
    monkeypatch.setattr("sys.stdin", io.StringIO(reading))
    assert main(["check", "-", "--paper", str(EXAMPLE), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["passed"] is True and report["reading"] == "<stdin>" and report["summary"]["failures"] == 0
    assert report["equations"] and report["summary"]["rows"]["verified"] > 0
    monkeypatch.setattr("sys.stdin", io.StringIO('{"equations": [1'))
    assert main(["check", "-", "--paper", str(EXAMPLE)]) == 2
    assert "<stdin>:1:" in capsys.readouterr().err


def test_cli_bad_reading_is_an_error_with_position(tmp_path, capsys):
    bad = tmp_path / "bad.md"
    bad.write_text(BAD_READINGS[3][0], encoding="utf-8")
    assert main(["check", str(bad), "--paper", str(EXAMPLE)]) == 2
    assert f"{bad}:5:1: table row has 3 cells" in capsys.readouterr().err
    assert main(["check", str(tmp_path / "missing.md"), "--paper", str(EXAMPLE)]) == 2
    assert "reading not found" in capsys.readouterr().err


# --- the example paper: a correct reading, and one planted error of each kind -----------------------------

def test_correct_reading_of_the_example_passes(note_paper):
    report = check_reading(load_reading(NOTE), note_paper)
    assert report.passed, [f.message for f in report.failures]
    assert report.status_counts() == {"verified": 8, "standard": 3, "by equation": 1}
    assert all(e.numbers.ok for e in report.equations)
    assert [c.verdict for e in report.equations for c in e.claims] == ["consistent", "consistent"]


PLANTED = [  # (old, new, check, symbol)
    ("| We pack the queries into a matrix $Q \\in \\mathbb{R}^{n \\times d_k}$ |",
     "| We stack the queries into a matrix $Q \\in \\mathbb{R}^{n \\times d_k}$ |", "quote", "Q"),
    ("| $\\mathbf{e}_i$ is the centroid vector of the $i$-th expert |",
     "| $\\mathbf{e}_i$ is a random projection drawn once per layer |", "quote", "\\mathbf{e}_i"),
    ("| $K$ | [m, d_k] |", "| $K$ | [d_k, m] |", "shape", "K"),
    ("| $\\mathbf{u}_t$ | [d] |", "| $\\mathbf{u}_t$ | [d, d] |", "shape", "\\mathbf{u}_t"),
    ("| $d_k$ | scalar | dimension of queries and keys | fixed setting |",
     "| $d_k$ | scalar | dimension of queries and keys | trained weight |", "role", "d_k"),
    ("| centroid vector of expert i | trained weight |", "| centroid vector of expert i | input data |", "role",
     "\\mathbf{e}_i"),
    ("| $s_{i,t}$ | scalar | affinity of token t for expert i | defined here |",
     "| $s_{i,t}$ | scalar | affinity of token t for expert i | input data |", "role", "s_{i,t}"),
    ("- result: `[[6.017, 3.983]]`", "- result: `[[5.856, 4.144]]`", "numbers", None),
    ("- result: `s_{i,t} = 0.8808`", "- result: `s_{i,t} = 2`", "numbers", None),
    ("- The scaling keeps the dot products from growing with d_k — ",
     "- The scaling may keep the dot products from growing with d_k — ", "claim", None),
    ("- beta is never tuned and stays at 10^-3 — \"We never tune $\\beta$; it stays at $10^{-3}$.\"",
     "- beta is tuned on a validation set — \"We tune $\\beta$ on a validation set.\"", "claim", None),
    ("| $d_k$ | scalar | dimension of queries and keys | fixed setting | The queries and keys have dimension $d_k$, "
     "and the values have dimension $d_v$. |\n", "", "coverage", "d_{k}"),
    ("| $^{\\top}$ | function | transpose: a dot product | function |  |\n",
     "| $^{\\top}$ | function | transpose: a dot product | function |  |\n| $b_i$ | scalar | bias of expert i | "
     "trained weight |  |\n", "coverage", "b_i"),
    ("| $\\mathbf{e}_i$ | [d] | centroid vector of expert i | trained weight | $\\mathbf{e}_i$ is the centroid vector "
     "of the $i$-th expert |", "| $\\mathbf{e}_i$ | [d] | centroid vector of expert i | trained weight |  |",
     "guess", "\\mathbf{e}_i"),
]


@pytest.mark.parametrize("old, new, check, symbol", PLANTED, ids=[f"{p[2]}-{k}" for k, p in enumerate(PLANTED)])
def test_planted_error_in_the_example_is_flagged(note_paper, old, new, check, symbol):
    text = NOTE.read_text(encoding="utf-8")
    assert text.count(old) == 1
    report = check_reading(parse_reading(text.replace(old, new), "planted.md"), note_paper)
    assert not report.passed
    hits = [f for f in report.failures if f.check == check and
            (symbol is None or symbol_forms(f.symbol or "")[0] == symbol_forms(symbol)[0])]
    assert hits, [(f.check, f.symbol, f.message) for f in report.failures]
    others = [f for f in report.failures if f not in hits and f.symbol != (hits[0].symbol)]
    assert not others, [(f.check, f.symbol, f.message) for f in others]


def test_guess_on_a_symbol_the_paper_never_defines():
    paper = open_paper_text(str(EXAMPLE))
    text = ("## Equation 2 (eq:2)\n\n| symbol | shape or type | meaning | role | quote |\n|---|---|---|---|---|\n"
            "| $\\mathcal{L}_{\\mathrm{bal}}$ | scalar | the balance loss | defined here | |\n"
            "| $\\alpha$ | scalar | balance factor | fixed setting | the balance factor $\\alpha$ is a hyper-parameter |\n"
            "| $N$ | scalar | number of experts | fixed setting | $N$ denotes the number of experts |\n"
            "| $f_i$ | scalar | fraction of tokens routed to expert i | computed | |\n")
    # Equation (4) of the example: f_i and P_i are never defined by the note.
    reading = parse_reading(text.replace("Equation 2 (eq:2)", "Equation 4 (eq:4)"), "guess.md")
    report = check_reading(reading, paper)
    rows = {r.symbol: r for r in report.equations[0].rows}
    assert rows["\\alpha"].status == "verified"
    assert rows["f_i"].status == "guess"
    assert any(f.message == "guess: the paper does not define it" for f in rows["f_i"].findings)


def test_text_report_golden_lines(note_paper):
    text = report_text(check_reading(load_reading(NOTE), note_paper), width=100)
    lines = text.splitlines()
    assert lines[0] == f"check {NOTE}"
    assert "  verified    $Q$                      \"We pack the queries into a matrix $Q \\in \\mathbb{R}^{n \\times " \
           "d_k}$\" — verbatim, §2.1, sections/attention.tex:6" in lines
    assert lines[-1] == "PASS — 12 rows (8 verified, 3 standard, 1 by equation); 0 failures, 0 warnings"


# --- shapes, numbers, claims as tables ------------------------------------------------------------------------

@pytest.mark.parametrize("cell, shape", [
    ("[d_c, d]", ("d_c", "d")), ("scalar", ()), ("[C]", ("c",)), ("(B, T, C)", ("b", "t", "c")),
    ("d_h n_h × d_c", ("d_hn_h", "d_c")), ("$\\mathbb{R}^{n \\times d_k}$", ("n", "d_k")), ("?", None),
    ("", None), ("vector of length d", ("d",)), ("vector", ("?",)), ("matrix", ("?", "?")), ("function", "function"),
])
def test_parse_shape(cell, shape):
    assert parse_shape(cell) == shape


@pytest.mark.parametrize("text, parts", [
    ("`Q=[[1,0]]`; `d_k=2`", ["Q=[[1,0]]", "d_k=2"]),
    ("Q=[[1,0]], K=[[1,0],[0,1]], d_k=2", ["Q=[[1,0]]", "K=[[1,0],[0,1]]", "d_k=2"]),
    ("z=[0, log(3)]", ["z=[0, log(3)]"]),
])
def test_split_assignments(text, parts):
    assert split_assignments(text) == parts


@pytest.mark.parametrize("text, value", [("`s_{i,t} = 0.8808`", 0.8808), ("[[0.5, 3.0]]", [[0.5, 3.0]]),
                                         ("H ≈ 0.693", 0.693), ("`[0.25, 0.75]` (weights)", [0.25, 0.75])])
def test_claimed_value(text, value):
    import numpy as np
    assert np.allclose(claimed_value(text)[0], value)


CLAIMS = [  # (claim, paper sentence, verdict)
    ("The dot products grow large and push the softmax into flat regions.",
     "We suspect that for large values of $d_k$, the dot products grow large in magnitude.", "stronger"),
    ("The authors suspect the dot products grow large.",
     "We suspect that for large values of $d_k$, the dot products grow large in magnitude.", "consistent"),
    ("The paper proves the scaling is the likely explanation.",
     "The paper offers this as the likely explanation of an earlier result.", "stronger"),
    ("Scaling may keep the variance at 1.", "Dividing by the square root keeps the variance at 1.", "weaker"),
    ("Dividing keeps the variance at 1.", "Dividing by the square root keeps the variance at 1.", "consistent"),
]


@pytest.mark.parametrize("claim, sentence, verdict", CLAIMS)
def test_claim_strength(claim, sentence, verdict):
    paper = _text("Some unrelated opening words of the paper.", sentence)
    result = check_claim(Claim(claim, sentence.rstrip("."), 1), paper)
    assert result.verdict == verdict


def test_claim_without_quote_is_matched_to_its_closest_sentence():
    paper = _text("We suspect that for large values of d_k, the dot products grow large in magnitude. Other text.")
    result = check_claim(Claim("For large values of d_k, the dot products grow large in magnitude.", "", 1), paper)
    assert result.verdict == "stronger" and result.hedges_paper == ("we suspect",)
    nothing = check_claim(Claim("Quantum gravity unifies all forces.", "", 1), paper)
    assert nothing.verdict == "not found"


# --- plain text and PDF papers ----------------------------------------------------------------------------------

def test_plain_text_paper(tmp_path, capsys):
    paper = tmp_path / "guide.txt"
    paper.write_text("Attention, read one symbol at a time\n\nLet $z=(z_1,\\ldots,z_m)$ be one row of the scaled "
                     "scores.\nThe weights are positive and each row sums to 1.\n", encoding="utf-8")
    reading = tmp_path / "r.md"
    reading.write_text("## Equation softmax (eq:softmax)\n\n```latex\n\\operatorname{softmax}(z)_j = e^{z_j} / "
                       "\\sum_{j'} e^{z_{j'}}\n```\n\n| symbol | shape or type | meaning | role | quote |\n"
                       "|---|---|---|---|---|\n| $z$ | [m] | one row of scores | input data | Let $z=(z_1,\\ldots,z_m)$ "
                       "be one row of the scaled scores. |\n| $\\operatorname{softmax}$ | function | weights | "
                       "defined here | |\n| $e$ | scalar | Euler's number | fixed setting | |\n\n"
                       "### Small-number check\n\n- inputs: `z=[0, log(3)]`\n- result: `[0.25, 0.75]`\n",
                       encoding="utf-8")
    assert main(["check", str(reading), "--paper", str(paper), "--json"]) == 1
    data = json.loads(capsys.readouterr().out)
    rows = {r["symbol"]: r for r in data["equations"][0]["rows"]}
    assert rows["z"]["status"] == "verified" and rows["z"]["quote"]["line"] == 3
    assert rows["e"]["status"] == "guess"  # a meaning without a quote
    assert data["equations"][0]["numbers"]["ok"] is True


def _minimal_pdf(lines: list[str]) -> bytes:
    """A one-page PDF whose content stream shows `lines` in Helvetica (hand-written, no PDF library)."""
    ops = ["BT", "/F1 11 Tf", "72 720 Td", "14 TL"]
    for line in lines:
        escaped = line.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")
        ops.append(f"({escaped}) Tj T*")
    ops.append("ET")
    stream = zlib.compress("\n".join(ops).encode("latin-1"))
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 5 0 R >> >> "
        b"/Contents 4 0 R >>",
        b"<< /Length %d /Filter /FlateDecode >>\nstream\n" % len(stream) + stream + b"\nendstream",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ]
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for k, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % k + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    for offset in offsets:
        out += b"%010d 00000 n \n" % offset
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, xref)
    return bytes(out)


def test_pdf_paper_quotes_searched_with_the_flattening_warning(tmp_path, capsys):
    pytest.importorskip("pypdf", reason="the pdf extra (pypdf) is not installed")
    pdf = tmp_path / "paper.pdf"
    pdf.write_bytes(_minimal_pdf(["We pack the queries into a matrix Q, one query per row.",
                                  "The queries and keys have dimension dk, and the values dv."]))
    reading = tmp_path / "r.md"
    reading.write_text("## Equation 1 (eq:1)\n\n| symbol | shape or type | meaning | role | quote |\n"
                       "|---|---|---|---|---|\n| $Q$ | [n, d_k] | queries | input data | We pack the queries into a "
                       "matrix Q, one query per row. |\n| $V$ | [m, d_v] | values | input data | The values are "
                       "learned from the keys. |\n", encoding="utf-8")
    assert main(["check", str(reading), "--paper", str(pdf)]) == 1
    out = capsys.readouterr().out
    assert "PDF text flattens subscripts, superscripts and fractions" in out
    assert "(pdf)" in out.splitlines()[1]
    assert "verified    $Q$" in out and "paper.pdf, page 1:1" in out
    assert "guess       $V$" in out and "quote NOT FOUND" in out


def test_pdf_without_the_extra_says_how_to_install(tmp_path, monkeypatch, capsys):
    import builtins
    real_import = builtins.__import__

    def no_pypdf(name, *args, **kwargs):
        if name == "pypdf":
            raise ImportError("No module named 'pypdf'")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_pypdf)
    pdf = tmp_path / "paper.pdf"
    pdf.write_bytes(b"%PDF-1.4\n")
    assert main(["check", str(NOTE), "--paper", str(pdf)]) == 2
    assert "pip install 'papermath[pdf]'" in capsys.readouterr().err


def test_cli_eq_filter_and_unknown_equation(capsys):
    assert main(["check", str(NOTE), "--paper", str(EXAMPLE), "--eq", "2", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert [e["key"] for e in data["equations"]] == ["2"]
    assert main(["check", str(NOTE), "--paper", str(EXAMPLE), "--eq", "9"]) == 2
    assert "has no equation 9" in capsys.readouterr().err
