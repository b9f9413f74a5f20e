"""The MCP server, driven by the official SDK's own stdio client (`python -m papermath mcp` as a subprocess)."""
from __future__ import annotations

import asyncio
import contextlib
import io
import json
import os
import sys

import pytest

from conftest import EXAMPLE, REPO
from papermath.cli import main

mcp = pytest.importorskip("mcp", reason="the 'mcp' extra is not installed (pip install 'papermath[mcp]')")

from mcp import ClientSession, StdioServerParameters  # noqa: E402
from mcp.client.stdio import stdio_client  # noqa: E402

from papermath.analysis.reading import KINDS  # noqa: E402

EXPECTED_TOOLS = {"read_equation", "check_reading", "explain", "shapes", "numbers", "code"}


def _server() -> StdioServerParameters:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(REPO) + os.pathsep + env.get("PYTHONPATH", "")
    return StdioServerParameters(command=sys.executable, args=["-m", "papermath", "mcp"], env=env, cwd=str(REPO))


async def _session_calls(calls):
    async with stdio_client(_server()) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            tools = await session.list_tools()
            results = [await session.call_tool(name, args) for name, args in calls]
            return tools, results


def _run(calls, timeout=120):
    return asyncio.run(asyncio.wait_for(_session_calls(calls), timeout))


def _payload(result) -> dict:
    assert result.content, "tool returned no content"
    return json.loads(result.content[0].text)


def test_lists_tools_and_reads_equation_1_of_the_example_paper():
    tools, (result,) = _run([("read_equation", {"source": str(EXAMPLE), "equation": "1"})])
    names = {t.name for t in tools.tools}
    assert EXPECTED_TOOLS <= names
    by_name = {t.name: t for t in tools.tools}
    assert set(by_name["read_equation"].inputSchema["required"]) == {"source", "equation"}
    assert set(by_name["check_reading"].inputSchema["required"]) == {"source", "reading"}

    assert not result.isError, result.content[0].text
    data = _payload(result)
    # The same JSON as `papermath read SOURCE --eq 1 --json`.
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["read", str(EXAMPLE), "--eq", "1", "--json"]) == 0
    assert data == json.loads(out.getvalue())
    (equation,) = data["equations"]
    assert equation["id"] == "eq:1" and equation["number"] == "1"
    assert equation["kind"] in KINDS
    assert "\\mathrm{Attention}" in equation["latex"]
    symbols = {s["latex"]: s for s in equation["symbols"]}
    assert {"Q", "K", "V"} <= set(symbols)
    query = symbols["Q"]
    assert "the queries into a matrix $Q" in query["definition"]["quote"]
    assert (query["definition"]["file"], query["definition"]["line"]) == ("sections/attention.tex", 6)
    assert query["shape"][0] == "n" and len(query["shape"]) == 2

def test_errors_are_error_results_not_crashes():
    calls = [
        ("read_equation", {"source": str(EXAMPLE), "equation": "999"}),
        ("read_equation", {"source": str(REPO / "no-such-paper"), "equation": "1"}),
    ]
    _, (missing_eq, missing_paper) = _run(calls)
    assert missing_paper.isError
    assert "no-such-paper" in missing_paper.content[0].text
    # An equation the paper does not have: an error result or an empty reading with a diagnostic, never a crash.
    if missing_eq.isError:
        assert "999" in missing_eq.content[0].text
    else:
        assert _payload(missing_eq)["equations"] == []


def test_shapes_and_check_reading_through_the_server():
    from papermath.cli import COMMANDS
    if not {"shapes", "check", "read"} <= set(COMMANDS):
        pytest.skip("the shapes, check or read stage is not in this version")
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["read", str(EXAMPLE), "--eq", "1", "--format", "md"]) == 0
    reading = out.getvalue()
    # A made-up quote is a guess the check must catch.
    forged = reading.replace("We pack the queries into a matrix", "We stack the queries in a tensor", 1)
    assert forged != reading
    _, (shapes, good, bad) = _run([
        ("shapes", {"source": str(EXAMPLE), "equation": "1"}),
        ("check_reading", {"source": str(EXAMPLE), "reading": reading}),
        ("check_reading", {"source": str(EXAMPLE), "reading": forged, "equation": "1"}),
    ])
    assert not shapes.isError, shapes.content[0].text
    assert [d.replace("{", "").replace("}", "") for d in _payload(shapes)["result"]] == ["n", "d_v"]
    assert not good.isError, good.content[0].text
    good = _payload(good)
    assert good["schema"] == "papermath.check/1" and good["passed"] is True
    assert good["summary"]["failures"] == 0
    bad = _payload(bad)
    assert bad["passed"] is False and bad["summary"]["failures"] >= 1
    rows = [row for eq in bad["equations"] for row in eq["rows"] if row["quote"]]
    assert any(row["quote"]["found"] is False for row in rows)


def test_tools_whose_stage_is_missing_say_so(monkeypatch):
    from papermath import mcp_server
    commands = {k: v for k, v in mcp_server.COMMANDS.items() if k != "code"}
    monkeypatch.setattr(mcp_server, "COMMANDS", commands)
    with pytest.raises(mcp_server.ToolFailure) as failure:
        mcp_server.run_command("code", str(EXAMPLE), "1")
    message = str(failure.value)
    assert message.startswith("'code' is not available in this version of papermath: the `papermath code` stage")
    assert "read_equation" in message and "code," not in message


def test_a_stage_crash_is_an_error_result(monkeypatch):
    from papermath import mcp_server

    def broken(argv):
        raise NameError("name '_X' is not defined")
    monkeypatch.setattr(mcp_server, "cli_main", broken)
    with pytest.raises(mcp_server.ToolFailure, match=r"papermath read failed with an internal error: NameError"):
        mcp_server.run_command("read_equation", str(EXAMPLE), "1")


# ------------------------------------------------------------------------------------------------ skills

SKILLS = sorted((REPO / "skills").glob("*/SKILL.md"))


def test_skills_are_the_two_guide_002_describes():
    assert [p.parent.name for p in SKILLS] == ["check-paper-math", "read-paper-math"]


@pytest.mark.parametrize("path", SKILLS, ids=lambda p: p.parent.name)
def test_skill_frontmatter_and_commands_are_real(path):
    import re
    from papermath.cli import COMMANDS, build_parser
    text = path.read_text()
    front = re.match(r"---\n(.*?)\n---\n", text, re.S)
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
