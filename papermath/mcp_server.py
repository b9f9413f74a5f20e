"""papermath as a Model Context Protocol server (stdio), for coding agents.

Each tool is one `papermath` command. Its arguments are that command's own options, read from the CLI's argument
parser (so `numbers` takes `eq`, `latex`, `set`, `shape`, `extreme`, … exactly as `papermath numbers --help` lists
them, and a new CLI option is a new tool argument), and its result is the command's `--json` output, returned as
`structuredContent` under an `outputSchema` read from the same schema file as the CLI's (`docs/schemas/`). Nothing
from a paper is ever executed.
"""
from __future__ import annotations

import argparse
import contextlib
import difflib
import io
import json
import logging
import tempfile
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from . import __version__
from .cli import COMMANDS, build_parser, command_parser
from .cli import main as cli_main

INSTRUCTIONS = """papermath reads the mathematics of an ML paper from its LaTeX source, deterministically.
source: a paper directory, a .tex/.md file, a .zip or arXiv e-print archive, an arXiv id (2412.19437v2) or an
arXiv abs/pdf URL. eq: the number the PDF prints (15, 3a), a stable id (eq:15, eq:u2) or a \\label.
Workflow: skim (find the equation) → read_equation → shapes → numbers → code; check_reading checks a reading
someone wrote; explain and parse also take a bare formula (latex). read_equation with symbol gives one
symbol's row, with brief the first definitions only.
Quote the paper's definitions as returned; a symbol listed as undefined is not defined in the paper: say so,
do not guess."""

# CLI options a tool never takes: output format and files are the server's business.
_NEVER = {"help", "json", "width", "out", "lines"}


class ToolFailure(Exception):
    """A tool could not produce its result; the message is what the agent sees."""


@dataclass(frozen=True)
class Argument:
    """One tool argument: a CLI option or positional, by the name the CLI gives it."""

    name: str
    """The tool argument's name: the option without its dashes (`eq`, `set`, `pair_sd`) or the positional's."""
    option: str | None
    """The CLI option string (`--eq`), None for a positional."""
    kind: str
    """`flag` (true/false), `value` (one), `values` (repeatable)."""
    schema: dict
    """Its JSON Schema."""
    required: bool = False


@dataclass(frozen=True)
class ToolSpec:
    """A tool: which command it runs and how."""

    name: str
    command: str
    description: str
    output: str
    """The schema file of its result (`docs/schemas/<output>.json`)."""
    required: tuple[str, ...] = ()
    """Arguments the tool requires beyond what the CLI requires (read_equation wants an `eq`)."""
    skip: tuple[str, ...] = ()
    """CLI arguments the tool leaves out."""
    aliases: dict[str, str] = field(default_factory=dict)
    """Other names accepted for an argument (explain's positional `latex` is a paper `source` with `eq`)."""


TOOLS: tuple[ToolSpec, ...] = (
    ToolSpec("skim", "skim", "Triage a paper: title, version, outline, every display equation with the number the "
             "PDF prints, captions, algorithms, code links and where the method is. Use it to find an equation.",
             "skim"),
    ToolSpec("read_equation", "read", "Read display equations: every symbol with the sentence of the paper that "
             "defines it (quoted, with section, file and line), its role and shape, the reductions and what they run "
             "over, the kind of statement, and the symbols the paper never defines. `symbol` narrows the result to "
             "those symbols; `brief` leaves out redefinitions and context paragraphs. `eq` also takes a \\label "
             "(the CLI's --label).", "read", required=("eq",), skip=("label",)),
    ToolSpec("explain", "explain", "Read a formula in words, inside out: one line per operator with its code analog, "
             "and warnings where the notation is ambiguous. Give `latex` (a bare formula), or `source` and `eq` "
             "(equations of a paper).", "explain", aliases={"source": "latex"}),
    ToolSpec("parse", "parse", "Parse one LaTeX formula into papermath's syntax tree, with each decision "
             "(application or product, label or power) and its evidence.", "parse"),
    ToolSpec("shapes", "shapes", "The shape of every sub-expression of an equation (`source` + `eq`) or a formula "
             "(`latex`), inside out; a mismatch names both operands. `shape` gives shapes: ['Q=n,d_k'] or "
             "{'Q': 'n,d_k'}.", "shapes"),
    ToolSpec("numbers", "numbers", "Evaluate an equation (`source` + `eq`) or a formula (`latex`) on small numbers, "
             "one operation per step, inside out; `set` gives values (['Q=[[1,0]]'] or {'Q': [[1, 0]]}), `extreme` "
             "re-runs with an input scaled by 10 and 0.1.", "numbers"),
    ToolSpec("code", "code", "NumPy and PyTorch code for an equation (`source` + `eq`) or a formula (`latex`), one "
             "line per operation with shape comments, and a pytest test on the worked numbers (`set` gives them).",
             "code", skip=("torch",)),
    ToolSpec("check_reading", "check", "Check a reading against the paper: every quote searched for, every number "
             "re-run, every 'definition' of a symbol the paper never defines flagged as a guess, claims stronger or "
             "weaker than the paper's wording flagged. `reading` is the reading itself (Markdown, or the JSON of "
             "read_equation) or the path of a file holding it; `eq` limits the check to those equations.", "check"),
    ToolSpec("prompt", "prompt", "The five-step LLM prompt for one equation (or a section's task), filled in with the "
             "paper's own paragraphs.", "prompt"),
    ToolSpec("exercises", "exercises", "Practice problems from an equation: plug-in numbers, extremes, shapes "
             "(worked answers with `answers`).", "exercises"),
)


def _dest_name(action: argparse.Action) -> str:
    if not action.option_strings:
        return action.dest
    longest = max(action.option_strings, key=len)
    return longest.lstrip("-").replace("-", "_")


def _value_schema(action: argparse.Action) -> dict:
    if action.choices:
        return {"type": "string", "enum": list(action.choices)}
    if action.type is int:
        return {"type": "integer"}
    if action.type is float:
        return {"type": "number"}
    return {"type": "string"}


def arguments_of(parser: argparse.ArgumentParser, skip: tuple[str, ...] = ()) -> list[Argument]:
    """The tool arguments of a command: its options and positionals as the CLI defines them."""
    out = []
    for action in parser._actions:
        name = _dest_name(action)
        if name in _NEVER or action.dest in _NEVER or name in skip:
            continue
        if name == "format" and action.choices:  # read's text/md/json: a tool always answers JSON
            continue
        if isinstance(action, (argparse._HelpAction, argparse._VersionAction)):
            continue
        help_text = (action.help or "").replace("%(default)s", str(action.default))
        option = max(action.option_strings, key=len) if action.option_strings else None
        if isinstance(action, (argparse._StoreTrueAction, argparse._StoreFalseAction)):
            out.append(Argument(name, option, "flag", {"type": "boolean", "description": help_text}))
            continue
        item = _value_schema(action)
        if isinstance(action, argparse._AppendAction):
            described = {"description": help_text}
            options = [{"type": "array", "items": item}, item]
            if action.metavar and "=" in str(action.metavar):
                # SYMBOL=VALUE options also take an object: {"Q": [[1, 0]]} or {"Q": "n,d_k"}
                options.append({"type": "object"})
            out.append(Argument(name, option, "values", {"anyOf": options, **described}))
            continue
        schema = dict(item, description=help_text)
        required = bool(action.required) or (not action.option_strings and action.nargs is None)
        out.append(Argument(name, option, "value", schema, required))
    return out


@dataclass
class Tool:
    """A tool ready to serve: its spec, its arguments, its schemas."""

    spec: ToolSpec
    arguments: list[Argument]

    @property
    def input_schema(self) -> dict:
        properties = {a.name: a.schema for a in self.arguments}
        for alias, target in self.spec.aliases.items():
            properties[alias] = {"type": "string", "description": f"the paper (instead of `{target}`), with `eq`"}
        required = [a.name for a in self.arguments if a.required and a.name not in self.spec.aliases.values()]
        required += [r for r in self.spec.required if r not in required]
        schema: dict = {"type": "object", "properties": properties, "additionalProperties": False}
        if required:
            schema["required"] = required
        return schema

    @property
    def output_schema(self) -> dict:
        from .schemas import schema
        out = dict(schema(self.spec.output))
        out["type"] = "object"  # MCP: a structured result is an object (explain's and code's forms are objects)
        return out

    def argv(self, given: dict[str, Any]) -> list[str]:
        """The command line for `given` arguments, or ToolFailure with a clear text naming what is wrong."""
        by_name = {a.name: a for a in self.arguments}
        given = dict(given)
        for alias, target in self.spec.aliases.items():
            if alias in given:
                if target in given:
                    raise ToolFailure(f"{self.spec.name}: give `{alias}` or `{target}`, not both")
                given[target] = given.pop(alias)
        unknown = [k for k in given if k not in by_name]
        if unknown:
            names = sorted(by_name) + sorted(self.spec.aliases)
            close = difflib.get_close_matches(unknown[0], names, n=1, cutoff=0.5) or \
                [n for n in names if unknown[0].startswith(n) or n.startswith(unknown[0])][:1]
            hint = f"; did you mean '{close[0]}'?" if close else ""
            raise ToolFailure(f"{self.spec.name}: unknown argument '{unknown[0]}'{hint} "
                              f"Its arguments: {', '.join(names)}.")
        missing = [r for r in self.input_schema.get("required", []) if given.get(r) in (None, "", [])]
        if missing:
            raise ToolFailure(f"{self.spec.name}: missing argument '{missing[0]}' "
                              f"({by_name[missing[0]].schema.get('description', '')})")
        options: list[str] = []
        positionals: list[str] = []
        for name, value in given.items():
            arg = by_name[name]
            if value is None:
                continue
            if arg.kind == "flag":
                if not isinstance(value, bool):
                    raise ToolFailure(f"{self.spec.name}: '{name}' is true or false, not {value!r}")
                if value and arg.option:
                    options.append(arg.option)
                continue
            values = self._values(name, arg, value)
            if arg.option is None:
                positionals += values
            else:
                options += [f"{arg.option}={v}" for v in values]
        return [self.spec.command, *options, "--json", "--", *positionals]

    def _values(self, name: str, arg: Argument, value: Any) -> list[str]:
        if arg.kind == "values" and isinstance(value, dict):
            return [f"{k}={v if isinstance(v, str) else json.dumps(v)}" for k, v in value.items()]
        items = value if arg.kind == "values" and isinstance(value, list) else [value]
        out = []
        for item in items:
            if isinstance(item, bool) or not isinstance(item, (str, int, float)):
                raise ToolFailure(f"{self.spec.name}: '{name}' takes text"
                                  + (" (or a list of texts)" if arg.kind == "values" else "") + f", not {item!r}")
            allowed = arg.schema.get("enum") or (arg.schema.get("anyOf", [{}])[-1].get("enum"))
            if allowed and str(item) not in allowed:
                raise ToolFailure(f"{self.spec.name}: '{name}' is one of {', '.join(allowed)}, not {item!r}")
            out.append(str(item))
        return out


def build_tools() -> dict[str, Tool]:
    """Every tool whose command is in this version of papermath, its arguments read from the CLI's parser."""
    tools = {}
    for spec in TOOLS:
        if spec.command not in COMMANDS:
            continue
        parser = command_parser(build_parser(only=spec.command), spec.command)
        assert parser is not None, spec.command
        tools[spec.name] = Tool(spec, arguments_of(parser, spec.skip))
    return tools


_CLI_LOCK = threading.Lock()


def run_argv(argv: list[str]) -> tuple[int, Any]:
    """Run one papermath command line with `--json`: (exit code, parsed output), or ToolFailure."""
    out, err = io.StringIO(), io.StringIO()
    # One command at a time: redirecting sys.stdout is process-wide (the MCP transport keeps its own handle).
    with _CLI_LOCK, contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = cli_main(argv)
        except SystemExit as exit_:  # --help, --version
            code = exit_.code if isinstance(exit_.code, int) else 2
        except Exception as error:  # noqa: BLE001 - a stage's bug is an error result, never a dead server
            raise ToolFailure(f"papermath {argv[0]} failed with an internal error: "
                              f"{type(error).__name__}: {error}") from None
    text = out.getvalue()
    try:
        data = json.loads(text)
    except json.JSONDecodeError:
        message = err.getvalue().strip() or text.strip()[:300] or f"exit status {code}"
        raise ToolFailure(f"papermath {argv[0]} failed: {message}") from None
    if code not in (0, 1):
        if isinstance(data, dict) and data.get("schema") == "papermath.error/1":
            raise ToolFailure(f"papermath {argv[0]}: {data['error']['message']}")
        raise ToolFailure(f"papermath {argv[0]} failed: exit status {code}")
    return code, data


def call_tool(tools: dict[str, Tool], name: str, arguments: dict[str, Any]) -> dict:
    """One tool call: the command's JSON result, or ToolFailure."""
    tool = tools.get(name)
    if tool is None:
        known = sorted(tools)
        missing = [s.name for s in TOOLS if s.name == name]
        if missing:
            raise ToolFailure(f"'{name}' is not available in this version of papermath: the `papermath "
                              f"{next(s.command for s in TOOLS if s.name == name)}` stage has not landed yet. "
                              f"Available tools: {', '.join(known)}.")
        close = difflib.get_close_matches(name, known, n=1)
        raise ToolFailure(f"no tool '{name}'" + (f"; did you mean '{close[0]}'?" if close else "")
                          + f" Tools: {', '.join(known)}.")
    if name == "check_reading":
        return _check_reading(tool, arguments)
    _, data = run_argv(tool.argv(arguments))
    return data


def _check_reading(tool: Tool, arguments: dict[str, Any]) -> dict:
    reading = arguments.get("reading")
    if not isinstance(reading, str) or not reading.strip():
        raise ToolFailure("check_reading: missing argument 'reading' (the reading, or the path of a file holding it)")
    if len(reading) < 4096 and "\n" not in reading and Path(reading).is_file():
        return run_argv(tool.argv(arguments))[1]
    suffix = ".json" if reading.lstrip().startswith("{") else ".md"
    with tempfile.TemporaryDirectory(prefix="papermath-mcp-") as tmp:
        file = Path(tmp) / ("reading" + suffix)
        file.write_text(reading, encoding="utf-8")
        return run_argv(tool.argv({**arguments, "reading": str(file)}))[1]


def build_server():
    """The MCP server (the SDK's low-level server: tool schemas are papermath's own, not inferred)."""
    from mcp import types
    from mcp.server.lowlevel import Server

    logging.getLogger("mcp").setLevel(logging.WARNING)
    tools = build_tools()
    server = Server("papermath", version=__version__, instructions=INSTRUCTIONS)

    @server.list_tools()
    async def list_tools() -> list[types.Tool]:
        return [types.Tool(name=name, description=tool.spec.description, inputSchema=tool.input_schema,
                           outputSchema=tool.output_schema) for name, tool in tools.items()]

    @server.call_tool(validate_input=False)
    async def handle(name: str, arguments: dict[str, Any]):
        try:
            data = call_tool(tools, name, arguments or {})
        except ToolFailure as failure:
            return types.CallToolResult(content=[types.TextContent(type="text", text=str(failure))], isError=True)
        text = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
        return [types.TextContent(type="text", text=text)], data

    return server


def serve_stdio() -> None:
    """Run the server on stdin/stdout until the client closes it."""
    import anyio
    from mcp.server.stdio import stdio_server

    server = build_server()

    async def main() -> None:
        async with stdio_server() as (read, write):
            await server.run(read, write, server.create_initialization_options())

    anyio.run(main)
