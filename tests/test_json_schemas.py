"""Every `--json` output has a JSON Schema file (docs/schemas/NAME.json) and validates against it: on the example
paper and formulas here, on every corpus paper in the corpus test. Failures with --json print an error object
(docs/schemas/error.json) on stdout, with the exit code they have without --json."""
from __future__ import annotations

import contextlib
import io
import json

import pytest
from conftest import CORPUS, EXAMPLE

from papermath import schemas
from papermath.cli import COMMANDS, build_parser, command_parser, main

jsonschema = pytest.importorskip("jsonschema", reason="jsonschema is part of the 'test' extra")


def run_json(argv: list[str]) -> tuple[int, object, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(argv)
    text = out.getvalue()
    if "--lines" in argv:
        return code, [json.loads(line) for line in text.splitlines()], err.getvalue()
    return code, json.loads(text), err.getvalue()


def schema_for(argv: list[str], code: int) -> str:
    return "error" if code == 2 else argv[0]


def assert_valid(argv: list[str], code: int, data: object) -> None:
    name = schema_for(argv, code)
    for item in (data if "--lines" in argv else [data]):
        problems = schemas.errors(name, item)
        assert not problems, f"papermath {' '.join(argv)} does not match docs/schemas/{name}.json:\n" + \
            "\n".join(problems[:10])


def test_every_command_with_json_has_a_schema_file():
    with_json = []
    for name in COMMANDS:
        sub = command_parser(build_parser(only=name), name)
        if "--json" in sub._option_string_actions:
            with_json.append(name)
    assert len(with_json) >= 15
    missing = sorted(set(with_json) - set(schemas.names()))
    assert not missing, f"--json outputs without a schema file in docs/schemas/: {missing}"
    assert "error" in schemas.names()


def test_schema_files_are_valid_draft_2020_12_with_ids_named_after_the_file():
    for name in schemas.names():
        schema = schemas.schema(name)
        jsonschema.Draft202012Validator.check_schema(schema)
        assert schema["$id"] == f"urn:papermath:schema:{name}"
        assert schema.get("description"), f"{name}.json says what it describes"


EXAMPLE_RUNS = [
    ["skim", str(EXAMPLE), "--json"],
    ["read", str(EXAMPLE), "--json"],
    ["read", str(EXAMPLE), "--eq", "1", "--json"],
    ["shapes", str(EXAMPLE), "--eq", "1", "--json"],
    ["numbers", str(EXAMPLE), "--eq", "1", "--set", "Q=[[1,0]]", "--extreme", "--json"],
    ["code", str(EXAMPLE), "--eq", "1", "--json"],
    ["explain", str(EXAMPLE), "--eq", "1", "--json"],
    ["exercises", str(EXAMPLE), "--eq", "1", "--answers", "--json"],
    ["prompt", str(EXAMPLE), "--eq", "1", "--json"],
    ["prompt", str(EXAMPLE), "--eq", "1", "--format", "--json"],
    ["parse", r"\sum_{i=1}^n x_i^2", "--json"],
    ["explain", r"\mathrm{softmax}(QK^\top/\sqrt{d_k})V", "--json"],
    ["explain", r"-\log \sigma(\beta x)", "--json"],
    ["shapes", "--latex", "QK^\\top", "--shape", "Q=n,d_k", "--shape", "K=m,d_k", "--json"],
    ["shapes", "--latex", "QK", "--shape", "Q=n,d_k", "--shape", "K=n,d_k", "--json"],
    ["numbers", "--latex", r"\log\sum_i e^{z_i}", "--set", "z=[1000,1001]", "--json"],
    ["code", "--latex", r"\sigma(w^\top x + b)", "--json"],
    ["compare", "82.3±0.4", "81.5±0.4", "--runs", "5", "--spread", "sd", "--json"],
    ["compare", "82.3±0.4", "81.5±0.4", "--runs", "5,3", "--spread", "se", "--welch", "--json"],
    ["passk", "--n", "200", "--c", "30", "--k", "1,10,100", "--json"],
    ["greek", "--json"],
    ["greek", "epsilon", "--json"],
    ["readings", "--json"],
    ["reading", "dpo", "--json"],
    ["reading", "attention", "--json"],
    # failures print the error object
    ["read", str(EXAMPLE), "--eq", "99", "--json"],
    ["numbers", "--latex", r"\frac{a}{", "--json"],
    ["shapes", str(EXAMPLE), "--json"],
    ["read", str(EXAMPLE), "--eqq", "1", "--json"],
]


@pytest.mark.parametrize("argv", EXAMPLE_RUNS, ids=lambda argv: " ".join(argv[:1] + argv[2:4]))
def test_json_output_validates_against_its_schema(argv):
    code, data, _ = run_json(argv)
    assert code in (0, 1, 2)
    assert_valid(argv, code, data)
    if isinstance(data, dict) and argv[0] != "greek":   # objects name their format (greek LETTER: a list item)
        assert data["schema"] == f"papermath.{schema_for(argv, code)}/1"


def test_parse_lines_validate_line_by_line(monkeypatch):
    monkeypatch.setattr("sys.stdin", io.StringIO("x^2\n\\frac{a}\n"))
    code, lines, _ = run_json(["parse", "--lines"])
    assert [line["ok"] for line in lines] == [True, False]
    assert_valid(["parse", "--lines"], code, lines)


def test_code_out_json_lists_the_files_written(tmp_path):
    argv = ["code", "--latex", "a + b", "--out", str(tmp_path / "gen"), "--json"]
    code, data, _ = run_json(argv)
    assert code == 0 and len(data["files"]) >= 2
    assert_valid(argv, code, data)


def test_check_json_validates(tmp_path):
    code, reading, _ = run_json(["read", str(EXAMPLE), "--eq", "1", "--json"])
    file = tmp_path / "reading.json"
    file.write_text(json.dumps(reading))
    argv = ["check", str(file), "--paper", str(EXAMPLE), "--json"]
    code, data, _ = run_json(argv)
    assert code in (0, 1)
    assert_valid(argv, code, data)


@pytest.mark.parametrize("argv, kind, suggestion", [
    (["read", str(EXAMPLE), "--eq", "99", "--json"], "usage", None),
    (["read", str(EXAMPLE), "--eqq", "1", "--json"], "usage", "--eq"),
    (["numbers", "--latex", "x", "--set", "y=1", "--json"], "usage", None),
    (["skim", str(EXAMPLE / "no-such-file.tex"), "--json"], "error", None),
])
def test_errors_with_json_are_json_on_stdout_with_the_same_exit_code(argv, kind, suggestion):
    plain_out, plain_err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(plain_out), contextlib.redirect_stderr(plain_err):
        plain_code = main([a for a in argv if a != "--json"])
    code, data, _ = run_json(argv)
    assert code == plain_code == 2
    assert data["schema"] == "papermath.error/1" and data["command"] == argv[0]
    assert data["error"]["exit_code"] == 2 and data["error"]["kind"] == kind
    assert data["error"]["message"] and data["error"]["message"] in plain_err.getvalue()
    if suggestion:
        assert suggestion in data["error"]["suggestions"]
    assert_valid(argv, code, data)


# -- the corpus: every paper, every --json output -------------------------------------------------------------

def _corpus_papers():
    return sorted(p for p in CORPUS.iterdir() if p.is_dir()) if CORPUS.is_dir() else []


@pytest.mark.corpus
@pytest.mark.slow
@pytest.mark.parametrize("paper", _corpus_papers(), ids=lambda p: p.name)
def test_every_json_output_on_every_corpus_paper_validates(paper, tmp_path):
    checked = 0
    for argv in (["skim", str(paper), "--json"], ["read", str(paper), "--json"]):
        code, data, _ = run_json(argv)
        assert code == 0, data
        assert_valid(argv, code, data)
        checked += 1
    reading_file = tmp_path / "reading.json"
    reading_file.write_text(json.dumps(data))
    numbered = [eq["number"] for eq in data["equations"] if eq["number"]]
    unnumbered = [eq["id"] for eq in data["equations"] if not eq["number"]][:1]
    for k, key in enumerate(numbered + unnumbered):
        runs = [[command, str(paper), "--eq", key, "--json"] for command in ("shapes", "numbers", "code", "explain")]
        if k < 2:
            runs += [["exercises", str(paper), "--eq", key, "--json"], ["prompt", str(paper), "--eq", key, "--json"],
                     ["check", str(reading_file), "--paper", str(paper), "--eq", key, "--json"]]
        for argv in runs:
            code, data, _ = run_json(argv)
            assert_valid(argv, code, data)
            checked += 1
    assert checked >= 2


def test_draft_json_validates(monkeypatch):
    """`papermath draft --json` against a local OpenAI-compatible stand-in (tests/test_draft.py's server)."""
    import threading
    from http.server import ThreadingHTTPServer

    import test_draft

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), test_draft._Handler)
    httpd.requests, httpd.mode, httpd.daemon_threads = [], "reading", True
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    try:
        test_draft._env(monkeypatch, httpd)
        argv = ["draft", str(EXAMPLE), "--eq", "1", "--json"]
        code, data, _ = run_json(argv)
        assert code == 1 and data["draft"]["model"] == "tiny-test-model"
        assert_valid(argv, code, data)
        httpd.mode = "garbage"
        code, data, _ = run_json(argv)
        assert code == 2 and data["schema"] == "papermath.error/1"
        assert_valid(argv, code, data)
    finally:
        httpd.shutdown()
        httpd.server_close()
