"""The MCP server, driven by the official SDK's own stdio client (`python -m papermath mcp` as a subprocess)."""
from __future__ import annotations

import asyncio
import json
import os
import sys

import pytest

from conftest import EXAMPLE, REPO

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
    from papermath.cli import main
    import contextlib
    import io
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


def test_tools_whose_stage_is_missing_say_so():
    from papermath.cli import COMMANDS
    from papermath.mcp_server import TOOL_COMMANDS
    missing = [tool for tool, (command, _) in TOOL_COMMANDS.items() if command not in COMMANDS]
    if not missing:
        pytest.skip("every tool's stage is present in this version")
    args = {"source": str(EXAMPLE), "equation": "1"} if missing[0] != "check_reading" else \
        {"source": str(EXAMPLE), "reading": "x"}
    _, (result,) = _run([(missing[0], args)])
    assert result.isError
    assert "not available in this version of papermath" in result.content[0].text
