"""papermath as a Model Context Protocol server (stdio), for coding agents.

Each tool runs the matching `papermath` command in-process with `--json` and returns what it printed, so an
agent gets exactly the schema of `papermath COMMAND --json` (docs/json-schema.md). A tool whose stage is not part
of this version of papermath returns an error result that says so. Nothing from a paper is ever executed.
"""
from __future__ import annotations

import contextlib
import io
import json
import tempfile
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from .cli import COMMANDS, main as cli_main

INSTRUCTIONS = """papermath reads the mathematics of an ML paper from its LaTeX source, deterministically.
SOURCE is a paper directory, a .tex/.md file, an arXiv e-print archive or an arXiv id (2412.19437v2).
EQUATION is the number the PDF prints (15, 3a) or a stable id (eq:15, eq:u2).
Workflow (guide 002): read_equation → shapes → numbers → code; check_reading checks a reading someone wrote.
Quote the paper's definitions as returned; a symbol listed as undefined is not defined in the paper: say so,
do not guess."""


class ToolFailure(Exception):
    """A tool could not produce its result; the message is what the agent sees."""


# tool name → (CLI command, how the tool's arguments become that command's arguments). The interface is data.
TOOL_COMMANDS: dict[str, tuple[str, Callable[..., list[str]]]] = {
    "read_equation": ("read", lambda source, equation: [source, "--eq", equation]),
    "explain": ("explain", lambda source, equation: [source, "--eq", equation]),
    "shapes": ("shapes", lambda source, equation: [source, "--eq", equation]),
    "numbers": ("numbers", lambda source, equation: [source, "--eq", equation]),
    "code": ("code", lambda source, equation: [source, "--eq", equation]),
    "check_reading": ("check", lambda source, reading, equation=None:
                      [reading, "--paper", source] + (["--eq", equation] if equation else [])),
}

_CLI_LOCK = threading.Lock()


def run_command(tool: str, *args: str) -> Any:
    """Run the command behind `tool` with `--json`; its parsed JSON output, or ToolFailure."""
    command, to_argv = TOOL_COMMANDS[tool]
    if command not in COMMANDS:
        available = sorted(t for t, (c, _) in TOOL_COMMANDS.items() if c in COMMANDS)
        raise ToolFailure(f"'{tool}' is not available in this version of papermath: the `papermath {command}` "
                          f"stage has not landed yet. Available tools: {', '.join(available) or 'none'}.")
    argv = [command, *to_argv(*args), "--json"]
    out, err = io.StringIO(), io.StringIO()
    # One command at a time: redirecting sys.stdout is process-wide (the MCP transport keeps its own handle).
    with _CLI_LOCK, contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = cli_main(argv)
        except SystemExit as exit_:  # argparse's usage errors
            code = exit_.code if isinstance(exit_.code, int) else 2
        except Exception as error:  # noqa: BLE001 - a stage's bug is an error result, never a dead server
            raise ToolFailure(f"papermath {command} failed with an internal error: "
                              f"{type(error).__name__}: {error}") from None
    text = out.getvalue()
    if code not in (0, 1):
        message = err.getvalue().strip() or text.strip() or f"exit status {code}"
        raise ToolFailure(f"papermath {command} failed: {message}")
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        raise ToolFailure(f"papermath {command} printed no JSON: {text[:200]!r}") from None


def build_server():
    """The FastMCP server with papermath's tools."""
    from mcp.server.fastmcp import FastMCP

    server = FastMCP("papermath", instructions=INSTRUCTIONS)

    @server.tool()
    def read_equation(source: str, equation: str) -> dict:
        """Read one display equation: every symbol with the sentence of the paper that defines it (quoted, with
        section, file and line), its role and shape, the reductions and what they run over, the kind of
        statement, and the symbols the paper never defines. Same JSON as `papermath read SOURCE --eq N --json`."""
        return run_command("read_equation", source, equation)

    @server.tool()
    def shapes(source: str, equation: str) -> dict:
        """The shape table of one equation: each symbol's shape propagated through the formula; a mismatch is a
        misreading. Same JSON as `papermath shapes SOURCE --eq N --json`."""
        return run_command("shapes", source, equation)

    @server.tool()
    def numbers(source: str, equation: str) -> dict:
        """Plug small numbers into one equation and evaluate it step by step, inside out. Same JSON as
        `papermath numbers SOURCE --eq N --json`."""
        return run_command("numbers", source, equation)

    @server.tool()
    def code(source: str, equation: str) -> dict:
        """NumPy (and PyTorch) code for one equation with shape comments, and a test with the hand-worked
        numbers. Same JSON as `papermath code SOURCE --eq N --json`."""
        return run_command("code", source, equation)

    @server.tool()
    def explain(source: str, equation: str) -> dict:
        """Read one equation in words, inside out: one line per operator with its code analog, and warnings
        where the notation is ambiguous. Same JSON as `papermath explain SOURCE --eq N --json`."""
        return run_command("explain", source, equation)

    @server.tool()
    def check_reading(source: str, reading: str, equation: str | None = None) -> dict:
        """Check a reading of the paper against the paper: every quote searched for, every number re-run, every
        'definition' of a symbol the paper never defines flagged as a guess, claims stronger or weaker than the
        paper's wording flagged. `reading` is the reading itself (Markdown, or the JSON of read_equation) or
        the path of a file holding it; `equation` limits the check to one equation. Same JSON as
        `papermath check READING --paper SOURCE --json`."""
        if len(reading) < 4096 and "\n" not in reading and Path(reading).is_file():
            return run_command("check_reading", source, reading, equation)
        suffix = ".json" if reading.lstrip().startswith("{") else ".md"
        with tempfile.TemporaryDirectory(prefix="papermath-mcp-") as tmp:
            file = Path(tmp) / ("reading" + suffix)
            file.write_text(reading, encoding="utf-8")
            return run_command("check_reading", source, str(file), equation)

    return server


def serve_stdio() -> None:
    """Run the server on stdin/stdout until the client closes it."""
    build_server().run(transport="stdio")
