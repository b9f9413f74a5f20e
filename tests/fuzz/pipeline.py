"""Run one input through every stage and say what went wrong, if anything.

A formula goes parse → print (and the printer's output parsed and printed again: it must be a fixed point)
→ read aloud → to_dict/JSON → explain → shapes → evaluate → codegen, whose three files must compile
(`compile`: parsed, and a repeated parameter name is caught too; nothing is run). A paper goes the whole `read` path (`papermath read DIR --json`). papermath's own errors
(`PapermathError`) are the right answer to bad input; any other exception is a crash. A finding has a
signature — stage, exception type, and the innermost papermath frame — so a campaign counts distinct bugs.
"""
from __future__ import annotations

import contextlib
import io
import json
import traceback
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Finding:
    """Something that is not papermath's own answer to bad input."""

    kind: str
    """crash (an exception that is not a PapermathError), invalid-module (generated code that does not parse),
    not-idempotent (printing the printed formula changes it), hang (past the time limit)."""
    stage: str
    """parse, print, read_aloud, to_dict, explain, shapes, evaluate, codegen, read."""
    signature: str
    """Stage, exception type and innermost papermath frame (`print:RecursionError:printer.py:_p`)."""
    detail: str
    """The message, cut short."""


def _where(error: BaseException) -> str:
    frames = [f for f in traceback.extract_tb(error.__traceback__) if "/papermath/" in f.filename.replace("\\", "/")]
    if not frames:
        return "?"
    frame = frames[-1]
    return f"{Path(frame.filename).name}:{frame.name}"


def signature(stage: str, error: BaseException) -> str:
    return f"{stage}:{type(error).__name__}:{_where(error)}"


class Stages:
    """Runs the stages, recording the current one (the campaign reads it to name the stage of a hang)."""

    def __init__(self, on_stage=None) -> None:
        self.on_stage = on_stage or (lambda name: None)
        self.findings: list[Finding] = []

    def _crash(self, stage: str, error: BaseException) -> None:
        self.findings.append(Finding("crash", stage, signature(stage, error), f"{type(error).__name__}: "
                                     f"{str(error)[:200]}"))

    def stage(self, name: str, work):
        """`work()`, or None when it raised (papermath's own error: fine; anything else: a crash finding)."""
        from papermath.errors import PapermathError
        self.on_stage(name)
        try:
            return work()
        except PapermathError:
            return None
        except (KeyboardInterrupt, SystemExit):
            raise
        except BaseException as error:
            if type(error).__name__ in ("FuzzTimeout", "_OverLimit"):
                raise
            self._crash(name, error)
            return None


def check_modules(stages: Stages, code) -> None:
    for name, text in (("numpy", code.numpy), ("torch", code.torch), ("test", code.test)):
        try:
            compile(text.encode("utf-8"), f"<{name}>", "exec", dont_inherit=True)  # parses, and what ast.parse skips
        except (SyntaxError, ValueError, UnicodeEncodeError) as error:
            stages.findings.append(Finding("invalid-module", "codegen", f"codegen:invalid-module:{name}",
                                           f"{type(error).__name__}: {str(error)[:200]}"))


class _OverLimit(Exception):
    """The printed formula is past one of papermath's documented limits (the print adds braces and spaces):
    it is refused by design, not misprinted."""


def _reparse(printed: str):
    from papermath.errors import MathParseError
    from papermath.math import parse
    try:
        return parse(printed)
    except MathParseError as error:
        if "papermath's limit" in error.message:
            raise _OverLimit() from None
        raise


def _fixed_point(s: Stages, printed: str) -> None:
    """The printed formula parses, and prints the same again (unless the print is past a limit)."""
    from papermath.math import to_latex
    try:
        again = s.stage("print", lambda: _reparse(printed))
    except _OverLimit:
        return
    if again is None and not s.findings:
        s.findings.append(Finding("not-idempotent", "print", "print:printed-formula-does-not-parse", printed[:200]))
    elif again is not None:
        reprinted = s.stage("print", lambda: to_latex(again.tree))
        if reprinted is not None and reprinted != printed:
            s.findings.append(Finding("not-idempotent", "print", "print:not-a-fixed-point",
                                      f"{printed[:100]!r} -> {reprinted[:100]!r}"))


def run_formula(latex: str, on_stage=None) -> list[Finding]:
    """Every stage on one formula; the findings (empty when papermath handled it)."""
    from papermath.analysis.explain import explain
    from papermath.analysis.shapes import infer_shapes
    from papermath.codegen import generate
    from papermath.evaluate import evaluate
    from papermath.math import parse, read_aloud, to_dict, to_latex

    s = Stages(on_stage)
    result = s.stage("parse", lambda: parse(latex))
    if result is None:
        return s.findings
    tree = result.tree
    printed = s.stage("print", lambda: to_latex(tree))
    if printed is not None:
        _fixed_point(s, printed)
    s.stage("read_aloud", lambda: read_aloud(tree))
    s.stage("to_dict", lambda: json.dumps(to_dict(tree)))
    s.stage("explain", lambda: explain(latex))
    s.stage("shapes", lambda: infer_shapes(tree))
    ev = s.stage("evaluate", lambda: evaluate(tree, {}))
    if ev is not None:
        code = s.stage("codegen", lambda: generate(ev))
        if code is not None:
            check_modules(s, code)
    return s.findings


def run_paper(folder: str | Path, on_stage=None) -> list[Finding]:
    """The whole `read` path on a paper folder: `papermath read DIR --json`."""
    from papermath.cli import main

    s = Stages(on_stage)
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        s.stage("read", lambda: main(["read", str(folder), "--json"]))
    return s.findings
