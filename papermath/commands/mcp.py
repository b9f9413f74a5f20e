"""`papermath mcp`: the Model Context Protocol server (stdio) for coding agents."""
from __future__ import annotations

HELP = "run the Model Context Protocol server (stdio) for coding agents"
DESCRIPTION = """Run papermath as a Model Context Protocol server over stdin/stdout, for coding agents (Claude Code,
Codex, …). Tools: read_equation, shapes, numbers, code, explain, check_reading; each returns the JSON of the
matching `papermath COMMAND --json`. A tool whose stage is not in this version returns an error result saying so.

Needs the `mcp` extra: pip install 'papermath[mcp]'. Register it with an agent as the command
`papermath mcp` (or `python -m papermath mcp`)."""


def add_arguments(parser) -> None:
    pass


def run(args) -> int:
    from ..errors import UsageError
    try:
        import mcp  # noqa: F401
    except ImportError:
        raise UsageError("the MCP server needs the 'mcp' package: pip install 'papermath[mcp]'") from None
    from ..mcp_server import serve_stdio
    serve_stdio()
    return 0
