"""The `papermath` command line: one sub-command per module in `papermath.commands`.

Each command module defines `HELP` (one line), `DESCRIPTION` (optional), `add_arguments(parser)` and
`run(args) -> int`. Modules are imported only when their command runs, so heavy optional
dependencies cost nothing for the others.
"""
from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

from .errors import PapermathError

# name -> (module, one-line help). The grammar of the CLI is data.
COMMANDS: dict[str, tuple[str, str]] = {
    "skim": ("papermath.commands.skim", "triage a paper: title, version, outline, equations, code links"),
    "read": ("papermath.commands.read", "read equations: quoted definitions, roles, shapes, undefined symbols, kind"),
    "parse": ("papermath.commands.parse", "parse one LaTeX formula into papermath's syntax tree"),
    "compare": ("papermath.commands.compare", "compare two 'mean ± spread' results: intervals and verdict"),
    "passk": ("papermath.commands.passk", "pass@k with the unbiased, numerically stable estimator"),
    "greek": ("papermath.commands.greek", "the Greek-letter reference: name, LaTeX, Unicode, ML meanings"),
    "explain": ("papermath.commands.explain", "read a formula in words, inside out, with code and notation warnings"),
    "readings": ("papermath.commands.readings", "list the guides' worked readings (attention, DPO, KL, pass@k, …)"),
    "reading": ("papermath.commands.readings", "show one worked reading: symbols, numbers re-run, code and its test"),
    "html": ("papermath.commands.html", "write the paper as an HTML reader with hover definitions (offline)"),
    "serve": ("papermath.commands.serve", "serve the HTML reader on 127.0.0.1 and print its URL"),
    "shapes": ("papermath.commands.shapes", "shapes first: symbolic shapes through an equation, mismatches reported"),
    "numbers": ("papermath.commands.numbers", "plug in small numbers: evaluate step by step, push to the extremes"),
    "code": ("papermath.commands.code", "code it: NumPy/PyTorch function with shape comments and its pytest file"),
    "check": ("papermath.commands.check", "check a reading against the paper: quotes, symbols, shapes, roles, numbers, claims"),
    "prompt": ("papermath.commands.prompt", "guide 002's five-step LLM prompt (or guide 004's tasks) filled in for an equation"),
    "draft": ("papermath.commands.draft", "send the prompt to an OpenAI-compatible LLM, then check its reading (optional)"),
    "exercises": ("papermath.commands.exercises", "practice problems from an equation: plug-in numbers, extremes, shapes"),
    "mcp": ("papermath.commands.mcp", "run the Model Context Protocol server (stdio) for coding agents"),
}

EXIT_OK, EXIT_FAILED, EXIT_ERROR = 0, 1, 2


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The argument parser. Only the command being run (`only`) has its module imported."""
    parser = argparse.ArgumentParser(
        prog="papermath",
        description="Read the mathematics in an ML paper from its LaTeX source: find each equation and "
                    "its context, decode its symbols, check shapes, plug in small numbers, write code.",
    )
    from . import __version__
    parser.add_argument("--version", action="version", version=f"papermath {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, (module_name, help_text) in COMMANDS.items():
        if only is not None and name != only:
            sub.add_parser(name, help=help_text)
            continue
        module = importlib.import_module(module_name)
        p = sub.add_parser(name, help=help_text,
                           description=getattr(module, "DESCRIPTION", help_text),
                           formatter_class=argparse.RawDescriptionHelpFormatter)
        module.add_arguments(p)
        p.set_defaults(_module=module)
    return parser


def _command_in(argv: list[str]) -> str | None:
    for arg in argv:
        if not arg.startswith("-"):
            return arg if arg in COMMANDS else None
    return None


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(argv) if argv is not None else sys.argv[1:]
    command = _command_in(argv)
    parser = build_parser(only=command or "")
    args = parser.parse_args(argv)
    if not getattr(args, "command", None) or not hasattr(args, "_module"):
        parser.print_help()
        return EXIT_ERROR
    try:
        return int(args._module.run(args) or 0)
    except PapermathError as error:
        print(f"papermath {args.command}: error: {error}", file=sys.stderr)
        return EXIT_ERROR
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return EXIT_OK


if __name__ == "__main__":
    raise SystemExit(main())
