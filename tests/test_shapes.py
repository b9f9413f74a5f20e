"""Shapes first: symbolic shape inference, stated broadcasting, mismatch messages; real papers' declarations."""
from pathlib import Path

import pytest

from papermath.analysis.shapes import declared_shapes_for, infer_shapes, shapes_in_context, show
from papermath.cli import main

CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpus" / "papers"
ATTENTION = r"\mathrm{Attention}(Q,K,V)=\mathrm{softmax}\left(\frac{QK^\top}{\sqrt{d_k}}\right)V"

CASES = [
    # (formula, declared shapes, expected result shape)
    (ATTENTION, {"Q": ("n", "d_k"), "K": ("m", "d_k"), "V": ("m", "d_v")}, ("n", "d_{v}")),
    (r"QK^\top", {"Q": ("n", "d_k"), "K": ("m", "d_k")}, ("n", "m")),
    (r"W h", {"W": ("d_c", "d"), "h": ("d",)}, ("d_{c}",)),
    (r"x^\top y", {"x": ("n",), "y": ("n",)}, ()),
    (r"x y^\top", {"x": ("n",), "y": ("m",)}, ("n", "m")),
    (r"y_i = \sum_{j=1}^{d} W_{ij} x_j", {"W": ("n", "d"), "x": ("d",)}, ("n",)),
    (r"\mathrm{DyT}(x) = \gamma * \tanh(\alpha x) + \beta",
     {"x": ("B", "T", "C"), "\\gamma": ("C",), "\\beta": ("C",), "\\alpha": ()}, ("B", "T", "C")),
    (r"\|x\|_2", {"x": ("n",)}, ()),
    (r"[a; b]", {"a": ("n",), "b": ("m",)}, ("n + m",)),
    (r"\sigma(W x + b)", {"W": ("m", "n"), "x": ("n",), "b": ("m",)}, ("m",)),
]


@pytest.mark.parametrize("formula, declared, expected", CASES)
def test_shapes_table(formula, declared, expected):
    report = infer_shapes(formula, declared)
    assert not report.mismatches
    assert report.result == expected


def test_attention_table_reads_like_guide_000():
    report = infer_shapes(ATTENTION, {"Q": ("n", "d_k"), "K": ("m", "d_k"), "V": ("m", "d_v")})
    rows = {s.latex: (show(s.shape), s.note) for s in report.steps}
    assert rows["Q K^{\\top}"] == ("[n, m]", "[n, d_k] @ [d_k, m] → [n, m]")
    assert "each row sums to 1" in rows["\\mathrm{softmax}(\\frac{Q K^{\\top}}{\\sqrt{d_{k}}})"][1]


def test_transposition_error_names_both_operands_and_hints():
    report = infer_shapes("QK", {"Q": ("n", "d_k"), "K": ("n", "d_k")})
    (mismatch,) = report.mismatches
    assert mismatch.left == "Q" and mismatch.right == "K"
    assert mismatch.left_shape == ("n", "d_{k}") and mismatch.right_shape == ("n", "d_{k}")
    assert mismatch.hint == "inner dimensions d_k ≠ n — did you mean K^T?"
    assert "Q [n, d_k] @ K [n, d_k]" in mismatch.message


def test_broadcast_is_stated():
    report = infer_shapes(r"\gamma * x", {"x": ("B", "T", "C"), "\\gamma": ("C",)})
    assert any("broadcast" in s.note and "B, T" in s.note for s in report.steps)


def test_unknown_function_is_said_never_guessed():
    report = infer_shapes(r"f(W x)", {"W": ("m", "n"), "x": ("n",)})
    assert report.result is None
    assert any("unknown function" in u for u in report.unknown)


def test_undeclared_symbol_is_unknown():
    report = infer_shapes(r"W x", {"W": ("m", "n")})
    assert report.result is None and any("x" in u for u in report.unknown)


def test_cli_mismatch_exit_code(capsys):
    assert main(["shapes", "--latex", "QK", "--shape", "Q=n,d_k", "--shape", "K=n,d_k"]) == 1
    out = capsys.readouterr().out
    assert "inner dimensions d_k ≠ n — did you mean K^T?" in out


def test_cli_dyt_with_overrides(capsys):
    assert main(["shapes", "--latex", r"\mathrm{DyT}(x) = \gamma * \tanh(\alpha x) + \beta", "--shape", "x=B,T,C",
                 "--shape", r"\gamma=C", "--shape", "beta=C", "--shape", "alpha=scalar"]) == 0
    assert "result: [B, T, C]" in capsys.readouterr().out


@pytest.mark.corpus
@pytest.mark.skipif(not CORPUS.is_dir(), reason="corpus ../shared/corpus/papers absent")
def test_deepseek_v3_mla_shapes_from_the_text():
    from papermath.latex import load_document

    doc = load_document(CORPUS / "deepseek-v3-2412.19437")
    results = {}
    for number in ("1", "2", "5"):
        eq = doc.equation(number)
        declared, sources, notes = declared_shapes_for(doc, eq)
        report = infer_shapes(eq.latex, declared, sources=sources, functions=frozenset(doc.operators))
        assert not report.mismatches
        results[number] = report
    assert results["1"].result == ("d_{c}",)
    assert results["1"].symbols["\\mathbf{c}^{KV}"] == ("d_{c}",)
    assert show(results["2"].result) == "[d_h n_h]"
    assert show(results["2"].symbols["\\mathbf{k}^{C}"]) == "[d_h n_h]"


@pytest.mark.corpus
@pytest.mark.skipif(not CORPUS.is_dir(), reason="corpus ../shared/corpus/papers absent")
def test_dyt_paper_equation(capsys):
    assert main(["shapes", str(CORPUS / "DyT"), "--eq", "2", "--shape", r"\mathbf{\beta}=C"]) == 0
    assert "result: [B, T, C]" in capsys.readouterr().out


def test_golden_shapes_table(capsys):
    assert main(["shapes", "--latex", r"\mathrm{softmax}(QK^\top/\sqrt{d_k})V", "--shape", "Q=n,d_k",
                 "--shape", "K=m,d_k", "--shape", "V=m,d_v", "--width", "100"]) == 0
    assert capsys.readouterr().out == """\
formula   \\mathrm{softmax}(Q K^{\\top} / \\sqrt{d_{k}}) V

#   sub-expression                                 shape      note
────────────────────────────────────────────────────────────────────────────────────────────────────
1   Q                                              [n, d_k]   --shape
2   K                                              [m, d_k]   --shape
3   V                                              [m, d_v]   --shape
4   K^{\\top}                                       [d_k, m]   transpose: [m, d_k] → [d_k, m]
5   Q K^{\\top}                                     [n, m]     [n, d_k] @ [d_k, m] → [n, m]
6   Q K^{\\top} / \\sqrt{d_{k}}                      [n, m]     a scalar divide, shape unchanged
7   \\mathrm{softmax}(Q K^{\\top} / \\sqrt{d_{k}})    [n, m]     each row sums to 1 (softmax over the
                                                              last axis)
8   \\mathrm{softmax}(Q K^{\\top} / \\sqrt{d_{k}})    [n, d_v]   [n, m] @ [m, d_v] → [n, d_v]
    V

result: [n, d_v]
"""


def test_json_output(capsys):
    import json

    assert main(["shapes", "--latex", "W h", "--shape", "W=d_c,d", "--shape", "h=d", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["result"] == ["d_{c}"] and data["complete"] and data["mismatches"] == []



@pytest.mark.corpus
@pytest.mark.skipif(not CORPUS.is_dir(), reason="corpus ../shared/corpus/papers absent")
def test_earlier_definitions_and_entry_declarations():
    from papermath.latex import load_document

    doc = load_document(CORPUS / "deepseek-v3-2412.19437")
    shapes, _, _ = shapes_in_context(doc, doc.equation("6"))
    assert shapes["\\mathbf{h}_{*}"] == ("d",)  # declared as h_t ∈ R^d: one entry per t
    _, later_sources, _ = shapes_in_context(doc, doc.equation("10"))
    assert later_sources["\\mathbf{c}^{Q}_{t}"] == "defined by equation (6)"
    diff = load_document(CORPUS / "Diff-Transformer")
    eq = diff.equation("1")
    declared, cues, _ = shapes_in_context(diff, eq)
    report = infer_shapes(eq.latex, declared, sources=cues, functions=frozenset(diff.operators))
    assert not report.mismatches  # [K_1; K_2] = X W^K joins along the last axis
