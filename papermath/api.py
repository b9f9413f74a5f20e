"""The Python API: a paper's equations with their reading, shapes, small numbers and code, each result showing
itself in a notebook and converting to the documented JSON.

    >>> import papermath
    >>> paper = papermath.open("examples/attention-note")
    >>> eq = paper.equation("1")
    >>> eq.reading.kind
    'computation'
    >>> [s.latex for s in eq.reading.symbols if s.kind == "symbol"]
    ['Q', 'K', 'V', 'd_{k}']
    >>> eq.shapes().result
    ('n', 'd_{v}')
    >>> values = {"Q": [[1, 0]], "K": [[1, 0], [0, 1], [1, 1]], "V": [[10, 0], [0, 10], [5, 5]]}
    >>> eq.numbers(set=values).value.round(3).tolist()
    [[6.017, 3.983]]

Every method takes the options of the matching command, by the command line's names (`set`, `shape`, `fn`,
`extreme`, `scale`, …), as Python values: `set={"Q": [[1, 0]]}` is `--set 'Q=[[1, 0]]'`. A result wraps the
stage's own object (its attributes are the result's: `eq.reading.symbols`, `eq.numbers().steps`; `.unwrap()`
gives the object itself) and adds
`.json()` (the `--json` output, `docs/schemas/`), `_repr_html_` and `_repr_markdown_` for Jupyter.
"""
from __future__ import annotations

import argparse
import dataclasses
import json
from typing import TYPE_CHECKING, Any

from .latex.document import Equation
from .render.notebook import (
    check_html,
    code_html,
    evaluation_html,
    reading_html,
    shapes_html,
)

if TYPE_CHECKING:
    from .paper import Paper

__all__ = ["Check", "Code", "Numbers", "PaperEquation", "Reading", "Result", "Shapes", "bind", "check"]


class Result:
    """A stage's result: its object's attributes, `.json()` (the command's `--json` output) and notebook display."""

    def __init__(self, value: Any, data: dict, title: str) -> None:
        self._value = value
        self._data = data
        self._title = title

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__") or "_value" not in self.__dict__:
            raise AttributeError(name)
        return getattr(self.__dict__["_value"], name)

    def unwrap(self) -> Any:
        """The stage's own object (`EquationReading`, `ShapeReport`, `Evaluation`, `GeneratedCode`, `CheckReport`)."""
        return self._value

    def json(self) -> dict:
        """The documented JSON (a fresh copy): what `papermath COMMAND --json` prints."""
        return json.loads(json.dumps(self._data))

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self._title}>"

    def _repr_markdown_(self) -> str:
        return f"**{self._title}**\n\n```json\n{json.dumps(self._data, ensure_ascii=False, indent=2)}\n```\n"

    def _repr_html_(self) -> str:
        return f"<pre>{json.dumps(self._data, ensure_ascii=False, indent=2)}</pre>"


class Reading(Result):
    """The reading of one equation (`EquationReading`): symbols quoted from the paper, roles, shapes, kind."""

    _paper_reading: Any = None

    def _repr_html_(self) -> str:
        return reading_html(self._data)

    def _repr_markdown_(self) -> str:
        from .render.reading import reading_markdown
        return reading_markdown(self._paper_reading)


class Shapes(Result):
    """The shape report of an equation (`ShapeReport`): each sub-expression's shape, the mismatches."""

    def _repr_html_(self) -> str:
        return shapes_html(self._data)

    def _repr_markdown_(self) -> str:
        rows = [f"| {n} | `{s['latex']}` | {s['shown']} | {s['note']} |" for n, s in enumerate(self._data["steps"], 1)]
        return "\n".join([f"**{self._title}**", "", "| # | sub-expression | shape | note |", "|---|---|---|---|",
                          *rows, "", f"result: {self._data['result']}"]) + "\n"


class Numbers(Result):
    """An evaluation on small numbers (`Evaluation`): values, steps inside out, the result; `.extremes`."""

    extremes: Any = ()
    """The runs with an input scaled by 10 and by 0.1 (with `extreme=True`)."""

    def _repr_html_(self) -> str:
        return evaluation_html(self._data)

    def _repr_markdown_(self) -> str:
        rows = [f"| {n} | `{s['latex']}` | {s['value']} | {s['note']} |" for n, s in enumerate(self._data["steps"], 1)]
        return "\n".join([f"**{self._title}**", "", "| # | sub-expression | value | note |", "|---|---|---|---|",
                          *rows, "", f"result: {self._data['value']}"]) + "\n"


class Code(Result):
    """Generated code (`GeneratedCode`): `.numpy`, `.torch`, `.test`; `str(code)` is the variant asked for."""

    def __init__(self, value: Any, data: dict, title: str, torch: bool) -> None:
        super().__init__(value, data, title)
        self._torch = torch

    def __str__(self) -> str:
        return self._value.torch if self._torch else self._value.numpy

    def _repr_html_(self) -> str:
        return code_html(self._data, self._torch)

    def _repr_markdown_(self) -> str:
        return f"```python\n{self}\n```\n\n```python\n{self._value.test}\n```\n"


class Check(Result):
    """A check report (`CheckReport`): `.passed`, every row and finding."""

    def _repr_html_(self) -> str:
        return check_html(self._data)

    def _repr_markdown_(self) -> str:
        from .check import report_text
        return f"```\n{report_text(self._value)}```\n"


# -- the options of a command, as keyword arguments ---------------------------------------------------------------

def _namespace(command: str, source: str | None, key: str | None, options: dict[str, Any]) -> argparse.Namespace:
    """The command's own argument namespace for Python keyword options (named as the CLI's), parsed by the CLI's
    own parser so that every option has its default and is checked the same way."""
    from .cli import build_parser, command_parser
    from .errors import UsageError
    from .mcp_server import Tool, ToolFailure, ToolSpec, arguments_of

    parser = command_parser(build_parser(only=command), command)
    assert parser is not None, command
    tool = Tool(ToolSpec(command, command, "", command), arguments_of(parser))
    given = {k: v for k, v in options.items() if v is not None and v is not False}
    if source is not None:
        given["source"] = source
    if key is not None:
        given["eq"] = key
    try:
        argv = tool.argv(given)
    except ToolFailure as failure:
        raise UsageError(str(failure).replace("unknown argument", "unknown option")) from None
    from .cli import CommandLineError
    try:
        return parser.parse_args(argv[1:])
    except CommandLineError as error:
        raise UsageError(f"{command}: {error.message}") from None


def _target_title(kind: str, eq: Equation) -> str:
    return f"{kind} of {eq.id}" + (f" ({eq.number})" if eq.number else "")


@dataclasses.dataclass(frozen=True, eq=False)
class PaperEquation(Equation):
    """A display equation of an open paper (a `papermath.latex.Equation`, equal to it), with its reading, shapes,
    small numbers and code a method call away."""

    _paper: Any = dataclasses.field(default=None, compare=False, repr=False)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Equation):
            return NotImplemented
        return all(getattr(self, f.name) == getattr(other, f.name) for f in dataclasses.fields(Equation))

    __hash__ = Equation.__hash__

    @property
    def paper(self) -> Paper:
        """The paper session this equation belongs to."""
        return self._paper

    @property
    def reading(self) -> Reading:
        """What each symbol means, quoted from the paper, with its role and shape; the kind of statement."""
        from .render.reading import reading_json

        whole = self._paper.read([self.id])
        result = Reading(whole.equations[0], reading_json(whole), _target_title("reading", self))
        result._paper_reading = whole
        return result

    def shapes(self, shape: dict[str, Any] | list[str] | None = None, **options: Any) -> Shapes:
        """Shapes through the equation (`papermath shapes --eq`); `shape={"Q": "n,d_k"}` overrides the text's."""
        from .analysis.shapes import infer_shapes
        from .commands.shapes import load_target, report_json
        from .errors import MathParseError, UsageError

        args = self._args("shapes", {"shape": shape, **options})
        target = load_target(args)
        try:
            report = infer_shapes(target.latex, target.declared, sources=target.sources, functions=target.functions,
                                  conventional=False)
        except MathParseError as error:
            raise UsageError(f"{target.label}: the formula does not parse: {error.message}") from None
        data = {"schema": "papermath.shapes/1", "equation": target.label, "notes": list(target.notes),
                **report_json(report)}
        return Shapes(report, data, _target_title("shapes", self))

    def numbers(self, set: dict[str, Any] | list[str] | None = None, **options: Any) -> Numbers:
        """Small numbers through the equation, inside out (`papermath numbers --eq`): `set={"Q": [[1, 0]]}`,
        `shape=…`, `extreme=True`, and any other option of the command."""
        from .commands.numbers import conventional_used, evaluation_json
        from .evaluate import extremes

        args = self._args("numbers", {"set": set, **options})
        target, declared, ev = _evaluation(args)
        data = {"schema": "papermath.numbers/1", "equation": target.label, **evaluation_json(ev)}
        if conventional_used(target, declared):
            data["notes"].append("Q, K and V have the conventional attention shapes ([n, d_k], [m, d_k], [m, d_v])")
        result = Numbers(ev, data, _target_title("numbers", self))
        if getattr(args, "extreme", False):
            runs = extremes(ev, scale=tuple(args.scale), declared_shapes=declared, functions=target.functions)
            data["extremes"] = [{"factor": r.factor, "scaled": list(r.scaled), "changes": list(r.changes),
                                 **evaluation_json(r.evaluation)} for r in runs]
            result.extremes = runs
        return result

    def code(self, torch: bool = False, set: dict[str, Any] | list[str] | None = None,
             **options: Any) -> Code:
        """The NumPy (or, with `torch=True`, PyTorch) function for the equation and its test (`papermath code`)."""
        from .codegen import Citation, generate

        args = self._args("code", {"set": set, **options})
        target, _, ev = _evaluation(args)
        code = generate(ev, Citation(target.paper, target.version, target.number))
        data = {"schema": "papermath.code/1", "function": code.function, "module": code.module, "numpy": code.numpy,
                "torch": code.torch,
                "test": code.test}
        return Code(code, data, _target_title("code", self), torch)

    def _args(self, command: str, options: dict[str, Any]) -> argparse.Namespace:
        return _namespace(command, self._paper.doc.paper.source, self.id, options)


def _evaluation(args: argparse.Namespace) -> tuple[Any, dict, Any]:
    """(target, declared shapes, Evaluation) as `papermath numbers`/`code` compute them."""
    from .commands.numbers import evaluate_target

    return evaluate_target(args)


def bind(paper: Paper, eq: Equation) -> PaperEquation:
    """`eq` as an equation of `paper` (the same equation: equal, same hash, every field the same)."""
    if isinstance(eq, PaperEquation) and eq._paper is paper:
        return eq
    fields = {f.name: getattr(eq, f.name) for f in dataclasses.fields(Equation)}
    return PaperEquation(**fields, _paper=paper)


def check(paper: Paper, reading: Any, eq: str | list[str] | None = None) -> Check:
    """Check a reading against the paper (`papermath check`): a `Reading` from `eq.reading`, the JSON of
    `papermath read --json` (a dict), a Markdown reading (text), or the path of a file holding one."""
    from pathlib import Path

    from .check import (
        check_reading,
        load_reading,
        open_paper_text,
        parse_reading,
        report_json,
    )
    from .check.parse import parse_json_reading

    if isinstance(reading, Result):
        reading = reading.json()
    if isinstance(reading, dict):
        parsed = parse_json_reading(json.dumps(reading), "<reading>")
    elif isinstance(reading, Path) or (isinstance(reading, str) and "\n" not in reading and len(reading) < 4096
                                       and Path(reading).is_file()):
        parsed = load_reading(reading)
    else:
        parsed = parse_reading(str(reading))
    keys = [eq] if isinstance(eq, str) else list(eq) if eq else None
    report = check_reading(parsed, open_paper_text(paper.doc.paper.source), keys)
    return Check(report, report_json(report), "check" + (f" of {', '.join(keys)}" if keys else ""))
