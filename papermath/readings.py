"""The guides' worked readings: one data file per equation (`papermath/data/readings/NAME.json`), loaded into
frozen dataclasses, re-run, and rendered for the terminal, as Markdown laid out like the guides' symbol tables,
or as JSON.

A reading has the equation, its symbol table (shaped like `analysis.reading.SymbolReading`: symbol, shape,
meaning, role, with the guide's or the paper's sentence quoted and located), what every reduction runs over
(`analysis.reading.ReductionReading`), the kind of statement, the hand-worked numbers (inputs → expected outputs),
and the code: a function in `papermath.worked`, named by the data file, whose source is what the reader sees and
whose outputs are what the tests compare. Numbers marked "papermath" are ours where the guide gives code but no
numbers; "guide 000"/"guide 002" numbers are the guides' own.
"""
from __future__ import annotations

import inspect
import json
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from typing import Any

import numpy as np

from . import worked
from .analysis.reading import KINDS, ROLES, Definition, EquationReading, ReductionReading, SymbolReading
from .errors import PapermathError, UsageError


@dataclass(frozen=True)
class Quote:
    """A sentence that defines a symbol, quoted verbatim from a guide or the paper, with where it stands."""

    text: str
    """The words, verbatim."""
    file: str
    """"guide 000", "guide 002" or the paper's file (e.g. "DeepSeek-V3 main.tex")."""
    line: int
    """Line of that file the quote stands on."""
    section: str | None
    """The guide's section or the paper's section number."""


@dataclass(frozen=True)
class ReadingSource:
    """Where the worked reading comes from."""

    guide: str
    """"guide 000" or "guide 002"."""
    section: str
    """The guide's section."""
    also: tuple[str, ...]
    """Other places the guides work through the same equation."""
    paper: str | None
    """The paper the equation comes from, when the guide names one."""
    arxiv: str | None
    """Its arXiv id."""
    version: str | None
    """The arXiv version the guide names (None when the seed text does not give one)."""
    paper_section: str | None
    """The paper's section."""
    equation: str | None
    """The paper's equation number(s)."""
    note: str | None
    """What the guide does or does not give (e.g. code but no numbers)."""


@dataclass(frozen=True)
class WorkedSymbol:
    """One row of the symbol table (the fields of `SymbolReading` that a worked reading has, plus the meaning)."""

    latex: str
    """The symbol as written."""
    symbol: str
    """Without its indices."""
    indices: tuple[str, ...]
    """Indices it carries."""
    kind: str
    """symbol, function, operator or index."""
    shape: tuple[str, ...] | None
    """Dimensions (`()` a scalar), None for functions and indices."""
    shape_cue: str | None
    """Where the shape comes from."""
    meaning: str
    """What it is, in words."""
    role: str
    """One of `analysis.reading.ROLES`."""
    role_cue: str | None
    """The words that decide the role."""
    quote: Quote | None
    """The defining sentence, when the guide or paper has one."""


@dataclass(frozen=True)
class Example:
    """Hand-worked numbers: inputs → expected outputs of the reading's function."""

    name: str
    """What the example shows."""
    source: str
    """"guide 000", "guide 002" (the guide's own numbers) or "papermath" (ours, where the guide gives none)."""
    args: Mapping[str, Any]
    """Keyword arguments, as JSON values (lists become arrays)."""
    expected: Mapping[str, Any]
    """Expected outputs by name ("inf" is infinity)."""
    atol: float
    """Absolute tolerance of the comparison (the guide's rounding)."""
    note: str | None
    """What to notice."""


@dataclass(frozen=True)
class EvaluatorCheck:
    """The equation (or a piece of it) evaluated by `papermath.evaluate` on the same numbers."""

    latex: str
    """The formula."""
    values: Mapping[str, Any]
    """Values of its symbols."""
    expected: Any
    """Expected value."""
    atol: float
    """Absolute tolerance."""
    note: str | None
    """How the values map onto the reading's inputs."""


@dataclass(frozen=True)
class WorkedReading:
    """One equation the guides work through."""

    name: str
    """Stable name (the data file's stem): `papermath reading NAME`."""
    title: str
    """Title."""
    source: ReadingSource
    """Guide section and paper."""
    latex: str
    """The equation."""
    kind: str
    """One of `analysis.reading.KINDS`."""
    kind_cue: str
    """What decides the kind."""
    symbols: tuple[WorkedSymbol, ...]
    """The symbol table."""
    reductions: tuple[ReductionReading, ...]
    """Every sum, mean, softmax, max or expectation, and what it runs over."""
    function: str
    """Name of the function in `papermath.worked` that computes it."""
    returns: tuple[str, ...]
    """Names of the function's outputs, in order."""
    examples: tuple[Example, ...]
    """Hand-worked numbers."""
    evaluator: tuple[EvaluatorCheck, ...]
    """The same numbers through `papermath.evaluate`."""
    notes: tuple[str, ...]
    """Remarks from the guide."""

    @property
    def code(self) -> str:
        """The function's source: the ten lines the reading shows."""
        return inspect.getsource(getattr(worked, self.function))

    def equation_reading(self) -> EquationReading:
        """The reading in `read`'s contract, so the `read` renderer and later stages (check, html) take it as is.
        A quoted symbol's definition is the guide's or paper's sentence; the meaning is its `conventional` text."""
        eq_id = f"reading:{self.name}"
        symbols = tuple(SymbolReading(
            id=f"{eq_id}/sym:{s.latex}", latex=s.latex, symbol=s.symbol, indices=s.indices, kind=s.kind, role=s.role,
            role_cue=s.role_cue, shape=s.shape, shape_cue=s.shape_cue, conventional=s.meaning,
            definition=(Definition(s.quote.text, s.quote.section, s.quote.file, s.quote.line, "quoted")
                        if s.quote else None))
            for s in self.symbols)
        return EquationReading(
            id=eq_id, number=self.source.equation, section=self.source.paper_section, latex=self.latex, kind=self.kind,
            kind_cue=self.kind_cue, symbols=symbols, reductions=self.reductions,
            undefined=tuple(s.latex for s in self.symbols if s.quote is None and s.kind == "symbol"), uses=(),
            defines=tuple(s.latex for s in self.symbols if s.role == "defined here"), context_before=None,
            context_after=None, file=self.source.guide, line=min((s.quote.line for s in self.symbols
                                                                   if s.quote and s.quote.file == self.source.guide),
                                                                  default=0))


@dataclass(frozen=True)
class OutputCheck:
    """One output of one example, re-run."""

    name: str
    """Output name."""
    expected: Any
    """As the data file gives it."""
    actual: Any
    """What the code computed now (JSON-ready)."""
    ok: bool
    """Within the example's tolerance."""


@dataclass(frozen=True)
class ExampleResult:
    """An example re-run."""

    example: str
    """Its name."""
    outputs: tuple[OutputCheck, ...]
    """One per expected output."""

    @property
    def ok(self) -> bool:
        return all(output.ok for output in self.outputs)


# --- loading ---------------------------------------------------------------------------------------------------

def _reading_files() -> list[tuple[str, str]]:
    folder = resources.files("papermath").joinpath("data", "readings")
    try:
        return sorted((entry.name, entry.read_text(encoding="utf-8")) for entry in folder.iterdir()
                      if entry.name.endswith(".json"))
    except OSError as error:
        raise PapermathError(f"papermath/data/readings: cannot read the bundled readings: {error}") from error


def _parse(file: str, text: str) -> WorkedReading:
    where = f"papermath/data/readings/{file}"
    try:
        raw = json.loads(text)
    except json.JSONDecodeError as error:
        raise PapermathError(f"{where}:{error.lineno}:{error.colno}: {error.msg}") from error
    try:
        reading = WorkedReading(
            name=raw["name"], title=raw["title"],
            source=ReadingSource(**{**raw["source"], "also": tuple(raw["source"]["also"])}),
            latex=raw["latex"], kind=raw["kind"], kind_cue=raw["kind_cue"],
            symbols=tuple(WorkedSymbol(
                latex=s["latex"], symbol=s["symbol"], indices=tuple(s["indices"]), kind=s["kind"],
                shape=tuple(s["shape"]) if s["shape"] is not None else None, shape_cue=s["shape_cue"],
                meaning=s["meaning"], role=s["role"], role_cue=s["role_cue"],
                quote=Quote(**s["quote"]) if s["quote"] else None) for s in raw["symbols"]),
            reductions=tuple(ReductionReading(op=r["op"], over=tuple(r["over"]), lower=r["lower"], upper=r["upper"],
                                              condition=r["condition"], distribution=r["distribution"],
                                              latex=r["latex"])
                             for r in raw["reductions"]),
            function=raw["code"]["function"], returns=tuple(raw["code"]["returns"]),
            examples=tuple(Example(e["name"], e["source"], e["args"], e["expected"], float(e["atol"]), e["note"])
                           for e in raw["examples"]),
            evaluator=tuple(EvaluatorCheck(c["latex"], c["values"], c["expected"], float(c["atol"]), c["note"])
                            for c in raw["evaluator"]),
            notes=tuple(raw["notes"]))
    except (KeyError, TypeError) as error:
        raise PapermathError(f"{where}: malformed reading: {error!r}") from error
    problems = []
    if reading.name + ".json" != file:
        problems.append(f"name {reading.name!r} does not match the file name")
    if reading.kind not in KINDS:
        problems.append(f"kind {reading.kind!r} is not one of {', '.join(KINDS)}")
    problems += [f"symbol {s.latex}: role {s.role!r} is not one of {', '.join(ROLES)}"
                 for s in reading.symbols if s.role not in ROLES]
    if not callable(getattr(worked, reading.function, None)):
        problems.append(f"papermath.worked has no function {reading.function!r}")
    for example in reading.examples:
        unknown = set(example.expected) - set(reading.returns)
        if unknown:
            problems.append(f"example {example.name!r}: outputs {sorted(unknown)} are not among "
                            f"{list(reading.returns)}")
    if problems:
        raise PapermathError(f"{where}: " + "; ".join(problems))
    return reading


@lru_cache(maxsize=1)
def load_readings() -> tuple[WorkedReading, ...]:
    """Every worked reading, in file-name order."""
    return tuple(_parse(file, text) for file, text in _reading_files())


def worked_reading(name: str) -> WorkedReading:
    """The reading called `name`; a `UsageError` lists the names there are."""
    for reading in load_readings():
        if reading.name == name:
            return reading
    names = [r.name for r in load_readings()]
    close = [n for n in names if name and (name in n or n in name)]
    hint = f" (did you mean {', '.join(close)}?)" if close else ""
    raise UsageError(f"no worked reading {name!r}{hint}; there are: {', '.join(names)}")


# --- re-running the numbers ----------------------------------------------------------------------------------------

def _to_argument(value: Any) -> Any:
    """JSON → what the code takes: a list of numbers/booleans/strings becomes an array; ragged lists a list of
    arrays."""
    if not isinstance(value, list):
        return value
    if value and all(isinstance(v, list) for v in value) and len({_depth_shape(v) for v in value}) > 1:
        return [_to_argument(v) for v in value]
    array = np.asarray(value)
    return array.astype(float) if array.dtype.kind in "iu" else array


def _depth_shape(value: Any) -> tuple[int, ...]:
    return np.shape(value)


def _expected(value: Any) -> Any:
    if isinstance(value, str) and value in ("inf", "-inf"):
        return float(value)
    if isinstance(value, list):
        return [_expected(v) for v in value]
    return value


def _jsonable(value: Any) -> Any:
    if isinstance(value, np.ndarray):
        return [_jsonable(v) for v in value.tolist()] if value.ndim else _jsonable(value.item())
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    if isinstance(value, np.generic):
        return _jsonable(value.item())
    if isinstance(value, float) and np.isinf(value):
        return "inf" if value > 0 else "-inf"
    return value


def run_example(reading: WorkedReading, example: Example) -> ExampleResult:
    """Run the reading's code on the example's inputs and compare every expected output."""
    function = getattr(worked, reading.function)
    result = function(**{key: _to_argument(value) for key, value in example.args.items()})
    outputs = result if len(reading.returns) > 1 else (result,)
    computed = dict(zip(reading.returns, outputs))
    checks = []
    for name, expected in example.expected.items():
        actual = computed[name]
        want = np.asarray(_expected(expected), dtype=float)
        got = np.asarray(actual, dtype=float)
        ok = got.shape == want.shape and bool(np.allclose(got, want, rtol=0.0, atol=example.atol))
        checks.append(OutputCheck(name, expected, _jsonable(actual), ok))
    return ExampleResult(example.name, tuple(checks))


def verify(reading: WorkedReading) -> tuple[ExampleResult, ...]:
    """Every example of the reading, re-run."""
    return tuple(run_example(reading, example) for example in reading.examples)


def evaluate_check(check: EvaluatorCheck) -> tuple[Any, bool]:
    """The check's formula through `papermath.evaluate`: (value, within tolerance). Raises ImportError when the
    evaluator is not part of this version."""
    from .evaluate import evaluate  # the evaluator stage; optional here

    value = evaluate(check.latex, dict(check.values)).value
    ok = bool(np.allclose(np.asarray(value, dtype=float), np.asarray(_expected(check.expected), dtype=float),
                          rtol=0.0, atol=check.atol))
    return _jsonable(value), ok


# --- the test a reading prints (its terminal and Markdown views: papermath.render.worked) ---------------

def _call(reading: WorkedReading, example: Example) -> str:
    args = ", ".join(f"{key}={_literal(value)}" for key, value in example.args.items())
    targets = ", ".join(reading.returns)
    return f"{targets} = {reading.function}({args})"


def _literal(value: Any) -> str:
    if isinstance(value, list):
        ragged = value and all(isinstance(v, list) for v in value) and len({np.shape(v) for v in value}) > 1
        if ragged:
            return "[" + ", ".join(_literal(v) for v in value) + "]"
        return f"np.array({json.dumps(value)})".replace("true", "True").replace("false", "False")
    return repr(value)


def printed_test(reading: WorkedReading) -> str:
    """A pytest function with the hand-worked numbers: what `papermath reading NAME` prints as the test."""
    lines = ["import numpy as np", f"from papermath.worked import {reading.function}", "",
             f"def test_{reading.function}():"]
    for example in reading.examples:
        lines.append(f"    # {example.name} ({example.source})")
        lines.append(f"    {_call(reading, example)}")
        for name, expected in example.expected.items():
            want = _expected(expected)
            want_text = "np.inf" if want == float("inf") else json.dumps(want)
            lines.append(f"    np.testing.assert_allclose({name}, {want_text}, atol={example.atol:g})")
    return "\n".join(lines) + "\n"


def reading_json(reading: WorkedReading, results: tuple[ExampleResult, ...] | None = None) -> dict:
    """The reading as JSON data, with its code, its test and the numbers as re-run now."""
    from .render.jsonout import to_jsonable

    results = results if results is not None else verify(reading)
    data = to_jsonable(reading)
    data["code"] = {"function": f"papermath.worked.{reading.function}", "source": reading.code,
                    "test": printed_test(reading)}
    data["results"] = [{"example": r.example, "ok": r.ok, "outputs": to_jsonable(list(r.outputs))} for r in results]
    return data
