"""The MCP server, driven by the official SDK's own stdio client (`python -m papermath mcp` as a subprocess).

Every tool is called with the CLI's own argument names; every structured result validates against the tool's
outputSchema (the same schema file as the CLI's --json) and equals what `papermath COMMAND --json` prints."""
from __future__ import annotations

import asyncio
import contextlib
import io
import json
import os
import subprocess
import sys

import pytest
from conftest import EXAMPLE, REPO

from papermath.cli import main

mcp = pytest.importorskip("mcp", reason="the 'mcp' extra is not installed (pip install 'papermath[mcp]')")
jsonschema = pytest.importorskip("jsonschema")

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

from papermath import mcp_server
from papermath.analysis.reading import KINDS
from papermath.cli import build_parser, command_parser

EXPECTED_TOOLS = {"skim", "read_equation", "check_reading", "explain", "parse", "shapes", "numbers", "code",
                  "prompt", "exercises"}
SRC = str(EXAMPLE)


def _server() -> StdioServerParameters:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(REPO) + os.pathsep + env.get("PYTHONPATH", "")
    return StdioServerParameters(command=sys.executable, args=["-m", "papermath", "mcp"], env=env, cwd=str(REPO))


async def _session_calls(calls, errlog):
    async with stdio_client(_server(), errlog=errlog) as (read, write), ClientSession(read, write) as session:
        init = await session.initialize()
        tools = await session.list_tools()
        results = [await session.call_tool(name, args) for name, args in calls]
        return init, tools, results


def _run(calls, tmp_path, timeout=180):
    log = tmp_path / "server-stderr.txt"
    with open(log, "w") as errlog:
        init, tools, results = asyncio.run(asyncio.wait_for(_session_calls(calls, errlog), timeout))
    return init, tools, results, log.read_text()


def _cli_json(argv) -> dict:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(argv) in (0, 1)
    return json.loads(out.getvalue())


# One call per tool, with the CLI's option names; and the command line each stands for.
CALLS = [
    ("skim", {"source": SRC}, ["skim", SRC]),
    ("read_equation", {"source": SRC, "eq": "1"}, ["read", SRC, "--eq", "1"]),
    ("read_equation", {"source": SRC, "eq": ["1", "2"], "symbol": "Q", "brief": True},
     ["read", SRC, "--eq", "1", "--eq", "2", "--symbol", "Q", "--brief"]),
    ("explain", {"latex": r"-\log \sigma(\beta x)"}, ["explain", r"-\log \sigma(\beta x)"]),
    ("explain", {"source": SRC, "eq": "1"}, ["explain", SRC, "--eq", "1"]),
    ("parse", {"latex": r"\sum_{i=1}^n x_i^2"}, ["parse", r"\sum_{i=1}^n x_i^2"]),
    ("shapes", {"source": SRC, "eq": "1"}, ["shapes", SRC, "--eq", "1"]),
    ("shapes", {"latex": "QK^\\top", "shape": {"Q": "n,d_k", "K": "m,d_k"}},
     ["shapes", "--latex", "QK^\\top", "--shape", "Q=n,d_k", "--shape", "K=m,d_k"]),
    ("numbers", {"source": SRC, "eq": "1", "set": ["Q=[[1,0]]", "K=[[1,0],[0,1],[1,1]]", "V=[[10,0],[0,10],[5,5]]"],
                 "extreme": True},
     ["numbers", SRC, "--eq", "1", "--set", "Q=[[1,0]]", "--set", "K=[[1,0],[0,1],[1,1]]",
      "--set", "V=[[10,0],[0,10],[5,5]]", "--extreme"]),
    ("numbers", {"latex": r"\log\sum_i e^{z_i}", "set": {"z": [1000, 1001]}},
     ["numbers", "--latex", r"\log\sum_i e^{z_i}", "--set", "z=[1000, 1001]"]),
    ("code", {"latex": r"\sigma(w^\top x + b)"}, ["code", "--latex", r"\sigma(w^\top x + b)"]),
    ("code", {"source": SRC, "eq": "1", "set": {"Q": [[1, 0]]}}, ["code", SRC, "--eq", "1", "--set", "Q=[[1, 0]]"]),
    ("prompt", {"source": SRC, "eq": "1"}, ["prompt", SRC, "--eq", "1"]),
    ("exercises", {"source": SRC, "eq": "1", "answers": True}, ["exercises", SRC, "--eq", "1", "--answers"]),
    # the remaining options, each once
    ("read_equation", {"source": SRC, "eq": "eq:attention"}, ["read", SRC, "--label", "eq:attention"]),
    ("explain", {"latex": "g(x) + y", "function": ["g"]}, ["explain", "g(x) + y", "--function", "g"]),
    ("parse", {"latex": "g(x) + y", "strict": True, "function": "g"},
     ["parse", "g(x) + y", "--strict", "--function", "g"]),
    ("shapes", {"source": SRC, "label": "eq:attention"}, ["shapes", SRC, "--label", "eq:attention"]),
    ("numbers", {"latex": r"\phi(W x)", "fn": {"phi": "relu"}, "dim": ["d=2"], "set": {"x": [1, -2]},
                 "extreme": True, "scale": "x"},
     ["numbers", "--latex", r"\phi(W x)", "--fn", "phi=relu", "--dim", "d=2", "--set", "x=[1, -2]", "--extreme",
      "--scale", "x"]),
    ("numbers", {"source": SRC, "label": "eq:affinity", "shape": {"u": "d"}, "dim": {"d": 2}},
     ["numbers", SRC, "--label", "eq:affinity", "--shape", "u=d", "--dim", "d=2"]),
    ("code", {"source": SRC, "label": "eq:affinity", "shape": {"u": "d"}, "fn": ["\\sigma=sigmoid"], "dim": {"d": 3}},
     ["code", SRC, "--label", "eq:affinity", "--shape", "u=d", "--fn", "\\sigma=sigmoid", "--dim", "d=3"]),
    ("prompt", {"source": SRC, "section": "2.1", "task": "derivations"},
     ["prompt", SRC, "--section", "2.1", "--task", "derivations"]),
    ("prompt", {"source": SRC, "eq": "1", "format": True}, ["prompt", SRC, "--eq", "1", "--format"]),
]


@pytest.fixture(scope="module")
def session_run(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("mcp")
    return _run([(name, args) for name, args, _ in CALLS], tmp)


def test_every_tool_takes_the_cli_options_as_arguments(session_run):
    _, tools, _, _ = session_run
    by_name = {t.name: t for t in tools.tools}
    assert EXPECTED_TOOLS <= set(by_name)
    for spec in mcp_server.TOOLS:
        sub = command_parser(build_parser(only=spec.command), spec.command)
        options = {max(a.option_strings, key=len).lstrip("-").replace("-", "_") if a.option_strings else a.dest
                   for a in sub._actions}
        options -= {"help", "json", "width", "out", "lines", *spec.skip}
        if spec.command == "read":
            options.discard("format")  # text/md/json: a tool answers JSON
        properties = set(by_name[spec.name].inputSchema["properties"])
        assert properties - set(spec.aliases) == options, spec.name
        assert by_name[spec.name].inputSchema["additionalProperties"] is False
    assert set(by_name["read_equation"].inputSchema["required"]) == {"source", "eq"}
    assert set(by_name["check_reading"].inputSchema["required"]) == {"reading", "paper"}
    assert {"eq", "latex", "set", "shape", "extreme", "scale"} <= set(by_name["numbers"].inputSchema["properties"])
    called: dict[str, set[str]] = {}
    for name, args, _ in CALLS:
        called.setdefault(name, set()).update(args)
    for name, tool in by_name.items():  # every argument of every tool is called at least once (check_reading below)
        if name != "check_reading":
            assert set(tool.inputSchema["properties"]) <= called.get(name, set()), name


def test_server_version_is_papermaths_and_stderr_stays_quiet(session_run):
    init, _, results, stderr = session_run
    printed = subprocess.run([sys.executable, "-m", "papermath", "--version"], capture_output=True, text=True,
                             cwd=REPO, check=True).stdout.strip()
    assert printed == f"papermath {init.serverInfo.version}"
    assert init.serverInfo.name == "papermath"
    assert all(not r.isError for r in results)
    assert "Processing request" not in stderr and stderr.strip() == "", stderr[:500]


@pytest.mark.parametrize("k", range(len(CALLS)), ids=[f"{c[0]}-{i}" for i, c in enumerate(CALLS)])
def test_structured_content_validates_against_output_schema_and_equals_the_cli(session_run, k):
    _, tools, results, _ = session_run
    name, _, argv = CALLS[k]
    result = results[k]
    assert not result.isError, result.content[0].text
    tool = next(t for t in tools.tools if t.name == name)
    assert tool.outputSchema is not None and tool.outputSchema["type"] == "object"
    jsonschema.validate(result.structuredContent, tool.outputSchema)
    assert json.loads(result.content[0].text) == result.structuredContent
    expected = _cli_json(argv + ["--json"])
    if name == "code":
        expected.pop("test", None), result.structuredContent.pop("test", None)  # names a temporary path
    assert result.structuredContent == expected


def test_reading_one_symbol_or_brief_is_short(session_run):
    _, _, results, _ = session_run
    full, narrowed = results[1], results[2]
    data = full.structuredContent
    (equation,) = data["equations"]
    assert equation["id"] == "eq:1" and equation["kind"] in KINDS
    query = {s["latex"]: s for s in equation["symbols"]}["Q"]
    assert "the queries into a matrix $Q" in query["definition"]["quote"]
    assert (query["definition"]["file"], query["definition"]["line"]) == ("sections/attention.tex", 6)
    small = narrowed.structuredContent
    assert [s["latex"] for e in small["equations"] for s in e["symbols"]] == ["Q", "Q"] or \
        all(s["latex"] == "Q" for e in small["equations"] for s in e["symbols"])
    assert len(narrowed.content[0].text) < len(full.content[0].text) / 2


def test_bad_arguments_get_a_clear_text_not_a_validation_dump(tmp_path):
    calls = [
        ("numbers", {"source": SRC, "equation": "1"}),
        ("numbers", {"latex": "x", "extreme": "yes"}),
        ("read_equation", {"source": SRC}),
        ("read_equation", {"source": SRC, "eq": "999"}),
        ("read_equation", {"source": str(REPO / "no-such-paper"), "eq": "1"}),
        ("read_equation", {"source": SRC, "eq": "1", "symbol": "Qx"}),
        ("prompt", {"source": SRC, "eq": "1", "task": "poem"}),
        ("nmbers", {}),
    ]
    _, _, results, stderr = _run(calls, tmp_path)
    texts = [r.content[0].text for r in results]
    assert all(r.isError for r in results), texts
    assert "unknown argument 'equation'; did you mean 'eq'?" in texts[0]
    assert "'extreme' is true or false" in texts[1]
    assert "missing argument 'eq'" in texts[2]
    assert "no equation '999'" in texts[3] and "numbers run (1)" in texts[3]
    assert "no-such-paper" in texts[4]
    assert "did you mean Q?" in texts[5]
    assert "one of read, derivations, problems, story" in texts[6]
    assert "did you mean 'numbers'?" in texts[7]
    assert not any("pydantic" in t or "validation error" in t.lower() for t in texts)
    assert "Traceback" not in stderr


def test_check_reading_through_the_server(tmp_path):
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["read", SRC, "--eq", "1", "--format", "md"]) == 0
    reading = out.getvalue()
    # A made-up quote is a guess the check must catch.
    forged = reading.replace("We pack the queries into a matrix", "We stack the queries in a tensor", 1)
    assert forged != reading
    _, tools, (good, bad), _ = _run([
        ("check_reading", {"paper": SRC, "reading": reading}),
        ("check_reading", {"paper": SRC, "reading": forged, "eq": "1"}),
    ], tmp_path)
    schema = next(t for t in tools.tools if t.name == "check_reading").outputSchema
    assert not good.isError, good.content[0].text
    for result in (good, bad):
        jsonschema.validate(result.structuredContent, schema)
    good = good.structuredContent
    assert good["schema"] == "papermath.check/1" and good["passed"] is True
    assert good["summary"]["failures"] == 0
    bad = bad.structuredContent
    assert bad["passed"] is False and bad["summary"]["failures"] >= 1
    rows = [row for eq in bad["equations"] for row in eq["rows"] if row["quote"]]
    assert any(row["quote"]["found"] is False for row in rows)


def test_tools_whose_stage_is_missing_say_so(monkeypatch):
    commands = {k: v for k, v in mcp_server.COMMANDS.items() if k != "code"}
    monkeypatch.setattr(mcp_server, "COMMANDS", commands)
    tools = mcp_server.build_tools()
    assert "code" not in tools and "read_equation" in tools
    with pytest.raises(mcp_server.ToolFailure) as failure:
        mcp_server.call_tool(tools, "code", {"source": SRC, "eq": "1"})
    message = str(failure.value)
    assert message.startswith("'code' is not available in this version of papermath: the `papermath code` stage")
    assert "read_equation" in message and "code," not in message


def test_a_stage_crash_is_an_error_result(monkeypatch):
    def broken(argv):
        raise NameError("name '_X' is not defined")
    monkeypatch.setattr(mcp_server, "cli_main", broken)
    tools = mcp_server.build_tools()
    with pytest.raises(mcp_server.ToolFailure, match=r"papermath read failed with an internal error: NameError"):
        mcp_server.call_tool(tools, "read_equation", {"source": SRC, "eq": "1"})


# ------------------------------------------------------------------------------------------------ skills

SKILLS = sorted((REPO / "skills").glob("*/SKILL.md"))


def test_skills_are_the_two_guide_002_describes():
    assert [p.parent.name for p in SKILLS] == ["check-paper-math", "read-paper-math"]


@pytest.mark.parametrize("path", SKILLS, ids=lambda p: p.parent.name)
def test_skill_frontmatter_and_commands_are_real(path):
    import re

    from papermath.cli import COMMANDS, build_parser
    text = path.read_text()
    front = re.match(r"---\n(.*?)\n---\n", text, re.DOTALL)
    assert front, "SKILL.md must start with YAML frontmatter"
    fields = dict(line.split(": ", 1) for line in front.group(1).splitlines())
    assert fields["name"] == path.parent.name
    assert 80 < len(fields["description"]) < 1024
    # Every `papermath COMMAND --flag …` the skill tells an agent to run exists, flags included.
    invocations = re.findall(r"`papermath ([a-z]+)([^`]*)`", text)
    commands = {command for command, _ in invocations}
    assert commands >= ({"skim", "read", "shapes", "numbers", "code"} if path.parent.name == "read-paper-math"
                        else {"check", "read", "shapes", "numbers"})
    for command, rest in invocations:
        assert command in COMMANDS, command
        sub = build_parser(only=command)._subparsers._group_actions[0].choices[command]
        known = {opt for action in sub._actions for opt in action.option_strings}
        for flag in re.findall(r"(?<!\S)(--?[a-z][a-z-]*)", rest):
            assert flag in known, f"papermath {command} has no {flag}"
