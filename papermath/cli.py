"""The `papermath` command line: one sub-command per module in `papermath.commands`.

Each command module defines `HELP` (one line), `DESCRIPTION` (optional), `add_arguments(parser)` and
`run(args) -> int`. Modules are imported only when their command runs, so heavy optional
dependencies cost nothing for the others.
"""
from __future__ import annotations

import argparse
import difflib
import gc
import importlib
import json
import os
import re
import sys
from collections.abc import Sequence

from .errors import PapermathError, UsageError

# name -> (module, one-line help). The grammar of the CLI is data.
COMMANDS: dict[str, tuple[str, str]] = {
    "skim": ("papermath.commands.skim", "triage a paper: title, version, outline, equations, code links"),
    "read": ("papermath.commands.read", "read equations: quoted definitions, roles, shapes, undefined symbols, kind"),
    "parse": ("papermath.commands.parse", "parse one LaTeX formula into papermath's syntax tree"),
    "compare": ("papermath.commands.compare", "compare two 'mean ± spread' results: intervals and verdict"),
    "passk": ("papermath.commands.passk", "pass@k with the unbiased, numerically stable estimator"),
    "greek": ("papermath.commands.greek", "the Greek-letter reference: name, LaTeX, Unicode, ML meanings"),
    "explain": ("papermath.commands.explain", "read a formula in words, inside out, with code and notation warnings"),
    "readings": ("papermath.commands.readings", "list the bundled worked readings (attention, DPO, KL, pass@k, …)"),
    "reading": ("papermath.commands.readings", "show one worked reading: symbols, numbers re-run, code and its test"),
    "html": ("papermath.commands.html", "write the paper as an HTML reader with hover definitions (offline)"),
    "serve": ("papermath.commands.serve", "serve the HTML reader on 127.0.0.1 and print its URL"),
    "shapes": ("papermath.commands.shapes", "shapes first: symbolic shapes through an equation, mismatches reported"),
    "numbers": ("papermath.commands.numbers", "plug in small numbers: evaluate step by step, push to the extremes"),
    "code": ("papermath.commands.code", "code it: NumPy/PyTorch function with shape comments and its pytest file"),
    "check": ("papermath.commands.check",
              "check a reading against the paper: quotes, symbols, shapes, roles, numbers, claims"),
    "prompt": ("papermath.commands.prompt", "the five-step LLM prompt for an equation, filled in from the paper"),
    "draft": ("papermath.commands.draft",
              "send the prompt to an OpenAI-compatible LLM, then check its reading (optional)"),
    "exercises": ("papermath.commands.exercises",
                  "practice problems from an equation: plug-in numbers, extremes, shapes"),
    "mcp": ("papermath.commands.mcp", "run the Model Context Protocol server (stdio) for coding agents"),
    "cache": ("papermath.commands.cache", "list or clear the cache: arXiv downloads, unpacked archives, TeX runs"),
}

EXIT_OK, EXIT_FAILED, EXIT_ERROR = 0, 1, 2

SERVERS = frozenset({"mcp", "serve"})
"""Commands that keep running (and keep reading papers): the garbage collector stays on for them."""


class CommandLineError(Exception):
    """A usage error argparse found (unknown option, missing argument), raised instead of exiting."""

    def __init__(self, message: str, parser: argparse.ArgumentParser, suggestions: list[str] | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.parser = parser
        self.suggestions = suggestions or []


class _Parser(argparse.ArgumentParser):
    """argparse, but a usage error is raised (so `--json` can print it as JSON) and names the nearest choice."""

    def error(self, message: str):  # type: ignore[override]
        suggestions: list[str] = []
        m = re.search(r"invalid choice: '([^']*)' \(choose from (.*)\)", message)
        if m:
            choices = re.findall(r"'([^']*)'", m.group(2)) or [c.strip() for c in m.group(2).split(",")]
            suggestions = difflib.get_close_matches(m.group(1), choices, n=3, cutoff=0.5)
            if suggestions:
                message += f"; did you mean {' or '.join(suggestions)}?"
        raise CommandLineError(message, self, suggestions)


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The argument parser. Only the command being run (`only`) has its module imported; when it names a command,
    the others get no sub-parser at all (nothing but its own is consulted: its name is already a valid choice,
    and the top-level help is not printed), which saves building twenty parsers on every run."""
    parser = _Parser(
        prog="papermath",
        description="Read the mathematics in an ML paper from its LaTeX source: find each equation and "
                    "its context, decode its symbols, check shapes, plug in small numbers, write code.",
    )
    from . import __version__
    parser.add_argument("--version", action="version", version=f"papermath {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    for name, (module_name, help_text) in COMMANDS.items():
        if only is not None and name != only:
            if only not in COMMANDS:
                sub.add_parser(name, help=help_text)
            continue
        module = importlib.import_module(module_name)
        p = sub.add_parser(name, help=help_text,
                           description=getattr(module, "DESCRIPTION", help_text),
                           formatter_class=argparse.RawDescriptionHelpFormatter)
        module.add_arguments(p)
        p.set_defaults(_module=module)
    return parser


def command_parser(parser: argparse.ArgumentParser, command: str) -> argparse.ArgumentParser | None:
    """The sub-parser of `command` inside the top-level parser."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return action.choices.get(command)
    return None


def _command_in(argv: list[str]) -> str | None:
    for arg in argv:
        if not arg.startswith("-"):
            return arg if arg in COMMANDS else None
    return None


_OPTION = re.compile(r"^--?[A-Za-z][A-Za-z0-9_-]*(=.*)?$")


def _option_action(parser: argparse.ArgumentParser, text: str) -> argparse.Action | None:
    """The option `text` names (exactly, or as argparse's unique abbreviation), or None."""
    exact = parser._option_string_actions.get(text)
    if exact is not None:
        return exact
    if text.startswith("--"):
        found = {a for s, a in parser._option_string_actions.items() if s.startswith(text)}
        if len(found) == 1:
            return found.pop()
    return None


def normalise_formulas(parser: argparse.ArgumentParser, args: list[str]) -> list[str]:
    """Let a formula start with `-` (`papermath explain '-\\log p'`, `--latex '-x^2'`): an option's value that
    starts with `-` is joined to it (`--latex=-x^2`); a positional one is moved after `--`. Anything that looks
    like an option is left for argparse (and its did-you-mean)."""
    options: list[str] = []
    positionals: list[str] = []
    dashed = changed = False
    i = 0
    while i < len(args):
        arg = args[i]
        if arg == "--":
            positionals += args[i + 1:]
            dashed = True
            break
        if arg.startswith("-") and len(arg) > 1:
            action = _option_action(parser, arg.split("=", 1)[0])
            if action is not None:
                takes_value = action.nargs is None or action.nargs in ("?", 1) and action.const is None
                takes_value = takes_value and not isinstance(action, (argparse._StoreTrueAction,
                                                                      argparse._StoreFalseAction,
                                                                      argparse._CountAction,
                                                                      argparse._HelpAction,
                                                                      argparse._VersionAction,
                                                                      argparse._StoreConstAction,
                                                                      argparse._AppendConstAction))
                if takes_value and "=" not in arg and i + 1 < len(args) and args[i + 1].startswith("-") \
                        and _option_action(parser, args[i + 1].split("=", 1)[0]) is None \
                        and not _OPTION.match(args[i + 1]):
                    options.append(f"{arg}={args[i + 1]}")
                    changed = True
                    i += 2
                    continue
                options.append(arg)
                if takes_value and "=" not in arg and i + 1 < len(args):
                    options.append(args[i + 1])
                    i += 2
                    continue
                i += 1
                continue
            if not arg.startswith("--") and not parser._negative_number_matcher.match(arg):
                positionals.append(arg)   # a formula, not an option
                dashed = True
                i += 1
                continue
            options.append(arg)
            i += 1
            continue
        positionals.append(arg)
        i += 1
    if not dashed:
        return options + positionals if changed else args
    return options + ["--"] + positionals


def _unknown_options(message: str, parser: argparse.ArgumentParser | None) -> tuple[str, list[str]]:
    """'unrecognized arguments: --eqq' with the command's nearest options."""
    m = re.match(r"unrecognized arguments: (.*)", message)
    if not m or parser is None:
        return message, []
    known = [s for s in parser._option_string_actions if s.startswith("--")]
    suggestions = []
    for word in m.group(1).split():
        if word.startswith("-"):
            suggestions += difflib.get_close_matches(word.split("=", 1)[0], known, n=2, cutoff=0.6)
    if suggestions:
        message += f"; did you mean {' or '.join(dict.fromkeys(suggestions))}?"
    return message, list(dict.fromkeys(suggestions))


def error_json(command: str | None, message: str, exit_code: int, kind: str,
               suggestions: list[str] | None = None) -> str:
    """What `--json` prints on stdout when a command fails (schema docs/schemas/error.json)."""
    error: dict = {"message": message, "kind": kind, "exit_code": exit_code}
    if suggestions:
        error["suggestions"] = suggestions
    return json.dumps({"schema": "papermath.error/1", "command": command, "error": error}, ensure_ascii=False,
                      indent=2)


def main(argv: Sequence[str] | None = None) -> int:
    args = list(argv) if argv is not None else sys.argv[1:]
    if argv is None and _command_in(args) not in SERVERS:
        # The process is one command: the cyclic collector would only scan, again and again, the paper being
        # built and read (alive until the process ends), then the whole of it once more at exit. Reference
        # counting still frees what the command drops; what it built is frozen at the end, so the exit does not
        # scan it either. `read --json` on schedule_free: ~20% less CPU for the whole process.
        gc.disable()
        try:
            return _run(args)
        finally:
            gc.freeze()
    return _run(args)


def _run(args: list[str]) -> int:
    try:
        return _main(args)
    except BrokenPipeError:
        _quiet_broken_pipe()
        return EXIT_OK


def _main(argv: list[str]) -> int:
    command = _command_in(argv)
    parser = build_parser(only=command or "")
    want_json = "--json" in argv[:argv.index("--")] if "--" in argv else "--json" in argv
    sub = command_parser(parser, command) if command else None
    if sub is not None and command is not None:
        at = argv.index(command)
        argv = argv[:at + 1] + normalise_formulas(sub, argv[at + 1:])
    try:
        args = parser.parse_args(argv)
    except CommandLineError as error:
        message, suggestions = _unknown_options(error.message, sub)
        suggestions = error.suggestions + suggestions
        if want_json:
            print(error_json(command, message, EXIT_ERROR, "usage", suggestions))
        else:
            shown = sub if sub is not None and message.startswith("unrecognized arguments") else error.parser
            shown.print_usage(sys.stderr)
            print(f"{shown.prog}: error: {message}", file=sys.stderr)
        return EXIT_ERROR
    if not getattr(args, "command", None) or not hasattr(args, "_module"):
        parser.print_help()
        return EXIT_ERROR
    try:
        return int(args._module.run(args) or 0)
    except PapermathError as error:
        if want_json:
            kind = "usage" if isinstance(error, UsageError) else "error"
            print(error_json(args.command, str(error), EXIT_ERROR, kind, _did_you_mean(str(error))))
        else:
            print(f"papermath {args.command}: error: {error}", file=sys.stderr)
        return EXIT_ERROR
    except KeyboardInterrupt:
        return 130


def _did_you_mean(message: str) -> list[str]:
    m = re.search(r"did you mean ([^?]*)\?", message)
    return [w.strip() for w in re.split(r",| or ", m.group(1)) if w.strip()] if m else []


def _quiet_broken_pipe() -> None:
    """The reader of our output went away (`papermath … | head`): point stdout at /dev/null so the interpreter's
    final flush raises nothing."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass


if __name__ == "__main__":
    raise SystemExit(main())
