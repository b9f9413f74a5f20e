"""`papermath mcp`: the Model Context Protocol server (stdio) for coding agents."""
from __future__ import annotations

HELP = "run the Model Context Protocol server (stdio) for coding agents"
DESCRIPTION = """Run papermath as a Model Context Protocol server over stdin/stdout, for coding agents (Claude Code,
Codex, …). Tools: skim, read_equation, explain, parse, shapes, numbers, code, check_reading, prompt, exercises.
Each takes the matching command's options as arguments, named as on the command line (source, eq, latex, set,
shape, extreme, …), and returns the command's --json output as structured content, with the same JSON Schema
(docs/schemas/) as its outputSchema. read_equation takes symbol (one symbol's row) and brief (first definitions
only) to keep results short.

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
