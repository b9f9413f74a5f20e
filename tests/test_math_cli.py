"""`papermath parse` through `papermath.cli.main`: the indented tree, --json, --strict, --lines."""
from __future__ import annotations

import io
import json

import pytest

from papermath.cli import main


def run(capsys, argv, stdin: str | None = None, monkeypatch=None) -> tuple[int, str, str]:
    if stdin is not None:
        monkeypatch.setattr("sys.stdin", io.StringIO(stdin))
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def test_parse_prints_tree_normalized_form_and_reading(capsys) -> None:
    code, out, _ = run(capsys, ["parse", r"\mathbb E_{x\sim p}[f(x)]"])
    assert code == 0
    lines = out.splitlines()
    assert lines[0] == "Reduction op='E' brackets='[]'  [0:25]"
    assert "  operator:" in lines
    assert "    Symbol name='E' font='bb'  [0:9]" in lines
    assert "  distribution:" in lines
    assert r"normalized: \mathbb{E}_{x \sim p}[f(x)]" in lines
    assert "reads:      the expectation over x drawn from p of f of x" in lines


def test_parse_json_has_types_and_spans(capsys) -> None:
    code, out, _ = run(capsys, ["parse", "--json", r"QK^\top"])
    assert code == 0
    data = json.loads(out)
    assert data["source"] == r"QK^\top"
    tree = data["tree"]
    assert tree["type"] == "Product" and tree["span"] == [0, 7]
    q, kt = tree["factors"]
    assert q == {"type": "Symbol", "span": [0, 1], "name": "Q", "font": None, "accents": [], "sub_label": None,
                 "sup_label": None, "primes": 0, "optimum": False}
    assert kt["type"] == "Transpose" and kt["base"]["name"] == "K"


def test_parse_strict_unknown_macro_is_an_error(capsys) -> None:
    code, out, err = run(capsys, ["parse", "--strict", r"\foo + 1"])
    assert code == 2
    assert out == ""
    assert "unknown macro \\foo (at offset 0)" in err
    assert err.rstrip().endswith("^")


def test_parse_tolerant_unknown_macro_warns(capsys) -> None:
    code, out, _ = run(capsys, ["parse", r"\foo + 1"])
    assert code == 0
    assert "warning: unknown macro \\foo kept as an opaque symbol (at offset 0)" in out


def test_parse_lines_prints_one_json_object_per_line(capsys, monkeypatch) -> None:
    code, out, _ = run(capsys, ["parse", "--lines"], stdin="x^2\n\\frac{a}\n\\foo{x}\n", monkeypatch=monkeypatch)
    assert code == 0
    rows = [json.loads(line) for line in out.splitlines()]
    assert len(rows) == 3
    assert rows[0]["ok"] is True and rows[0]["tree"]["type"] == "Power" and rows[0]["warnings"] == []
    assert rows[1] == {"ok": False, "error": "missing argument", "offset": 8, "warnings": [], "tree": None}
    assert rows[2]["ok"] is True and rows[2]["tree"]["type"] == "Opaque"
    assert rows[2]["warnings"] == ["unknown macro \\foo kept as an opaque symbol (at offset 0)"]


def test_parse_lines_strict(capsys, monkeypatch) -> None:
    code, out, _ = run(capsys, ["parse", "--lines", "--strict"], stdin="\\foo{x}\n", monkeypatch=monkeypatch)
    assert code == 0
    assert json.loads(out)["ok"] is False


def test_parse_declared_function(capsys) -> None:
    code, out, _ = run(capsys, ["parse", "--json", "--function", "g", "g(x)"])
    assert code == 0
    assert json.loads(out)["tree"]["certainty"] == "declared"


def test_parse_without_formula_is_a_usage_error(capsys) -> None:
    code, _, err = run(capsys, ["parse"])
    assert code == 2
    assert "give a formula" in err


@pytest.mark.parametrize("flag", ["--help"])
def test_parse_help_explains_lines(capsys, flag) -> None:
    with pytest.raises(SystemExit):
        main(["parse", flag])
    out = capsys.readouterr().out
    assert "--lines" in out and "one JSON object per line" in out
