"""Code it: the ten lines of NumPy (and PyTorch) an equation stands for, with a test on the hand-worked numbers.

    >>> from papermath.evaluate import evaluate
    >>> from papermath.codegen import generate
    >>> code = generate(evaluate(latex, values, declared_shapes=shapes), source=Citation(...))
    >>> print(code.numpy)

The code is written by the same pass that evaluates the equation (`papermath.evaluate.lower`), one line per
step with the step's shape as a comment; the test's expected values are the evaluator's. A function is named
after what the equation defines (`attention(Q, K, V)`, `loss_dpo(…)`).
"""
from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ..evaluate import Evaluation
from . import safe
from .safe import UnsafeCodeError

_SCIPY = ("softmax", "log_softmax", "logsumexp", "expit", "log_expit", "rel_entr", "xlogy", "comb", "gamma", "erf")

_NUMERICAL_GRAD = '''

def numerical_grad(f, x, h=1e-6):
    """Derivative of f at x by central differences: the gradient of a scalar f, else the Jacobian."""
    x = np.asarray(x, dtype=float)
    columns = []
    for index in np.ndindex(x.shape):
        step = np.zeros_like(x)
        step[index] = h
        columns.append((np.asarray(f(x + step)) - np.asarray(f(x - step))) / (2 * h))
    return np.stack(columns, axis=-1).reshape(np.shape(columns[0]) + x.shape)
'''


@dataclass(frozen=True)
class Citation:
    """Where the equation comes from, for the docstring."""

    paper: str
    """Paper title (or "formula given on the command line")."""
    version: str | None = None
    """arXiv id and version, when known."""
    equation: str | None = None
    """The paper's equation number."""


@dataclass(frozen=True)
class GeneratedCode:
    """Generated source files for one equation."""

    module: str
    """Module name (`attention`): files are `<module>.py`, `<module>_torch.py`, `test_<module>.py`."""
    function: str
    """Function name."""
    numpy: str
    """NumPy module source."""
    torch: str
    """PyTorch module source."""
    test: str
    """pytest file source."""

    def write(self, directory: str | Path) -> list[Path]:
        """Write the three files into `directory`: a new or empty folder, or one papermath wrote before
        (`papermath.output`); refuses (`OutputFolderError`) a folder holding files papermath did not write."""
        from ..output import OutputFolder
        names = [f"{self.module}.py", f"{self.module}_torch.py", f"test_{self.module}.py"]
        for name, text in zip(names, (self.numpy, self.torch, self.test)):
            safe.check_module(text, name)
        with OutputFolder.claim(directory, "code") as out:
            for name in names:
                out.path(name)  # refuse before writing any, if one of them is not papermath's
            return [out.write_text(name, text) for name, text in zip(names, (self.numpy, self.torch, self.test))]


def _where(citation: Citation) -> str:
    where = citation.paper
    if citation.version:
        where += f", {citation.version}"
    elif citation.equation:
        where += ", version not recorded (local source)"
    if citation.equation:
        where += f", equation ({citation.equation})"
    return where


def _expression(code: str, what: str) -> str:
    """A line's code must be one Python expression (a `;` or a statement in it would be refused here)."""
    try:
        ast.parse(code, mode="eval")
    except (SyntaxError, ValueError):
        raise UnsafeCodeError(f"generated code refused: the {what} is not one Python expression: "
                              f"{safe.comment(code, 80)}") from None
    return code


def _params(ev: Evaluation) -> list[str]:
    return [safe.identifier(ev.input(key).name, "parameter name") for key in ev.params]


def _body(ev: Evaluation, column: int, torch: bool) -> list[str]:
    lines = []
    names = _params(ev)
    if torch and names:
        if len(names) == 1:
            lines.append((f"{names[0]} = torch.as_tensor({names[0]}, dtype=torch.float64)", "inputs as float64 tensors"))
        else:
            joined = ", ".join(names)
            lines.append((f"{joined} = (torch.as_tensor(t, dtype=torch.float64) for t in ({joined},))",
                          "inputs as float64 tensors"))
    inner = []
    for name, np_code, torch_code in ev.dim_lines:
        code = _expression(torch_code if torch else np_code, "dimension line")
        inner.append((f"{safe.identifier(name, 'dimension name')} = {code}", "dimension, read from the input's shape"))
    for name, np_code, torch_code, note in ev.lines:
        code = _expression(torch_code if torch else np_code, "code line")
        inner.append((f"{safe.identifier(name, 'variable name')} = {code}", note))
    out = [_commented(code, note, column, "    ") for code, note in lines]
    result = safe.identifier(ev.result_name, "result name")
    if ev.samples is None:
        out += [_commented(code, note, column, "    ") for code, note in inner]
        out.append(f"    return {result}")
        return out
    # One sample at a time along the leading axis of the batched inputs (the lines are one sample's).
    batched = [n for n in names if n in ev.samples.params]
    out.append(f"    def one_sample({', '.join(batched)}):")
    out += [_commented(code, note, column, "        ") for code, note in inner]
    out.append(f"        return {result}")
    call = ", ".join(f"{n}[b]" for n in batched)
    one = (f"torch.as_tensor(one_sample({call}), dtype=torch.float64)" if torch else
           f"np.asarray(one_sample({call}), dtype=float)")
    out.append(_commented(f"per_sample = {'torch' if torch else 'np'}.stack([{one} for b in range({batched[0]}.shape[0])])",
                          f"[{ev.samples.size}, …]  one row per sample", column, "    "))
    if ev.samples.reduce == "mean":
        out.append(_commented("return per_sample.mean(0)" if torch else "return per_sample.mean(axis=0)",
                              "the expectation: the mean over the samples", column, "    "))
    else:
        out.append("    return per_sample")
    return out


def _commented(code: str, note: str, column: int, indent: str) -> str:
    note = safe.comment(note)
    pad = max(column - len(code) - len(indent), 2)
    return f"{indent}{code}{' ' * pad}# {note}" if note else f"{indent}{code}"


def _restated_functions(ev: Evaluation, column: int, function: str) -> str:
    """For `a = b = c`: one more function per other side, the same lines returning that side (for the check
    that the sides the paper states equal agree)."""
    out = ""
    for k, (latex, code) in enumerate(ev.restatements, start=1):
        lines = _body(ev, column, False)[:-1]
        params = ", ".join(_params(ev) + _callables(ev))
        out += (f"\n\ndef {function}_restated_{k}({params}):\n"
                f"    {safe.literal(f'The other side the paper states equal: {latex}')}\n"
                + "\n".join(lines) + f"\n    return {_expression(code, 'restated side')}\n")
    return out


def _sides_function(ev: Evaluation, column: int, function: str) -> str:
    """For a comparison or bound (`a \\le b`): one more function, the same lines returning each side's value (for
    the check that compares each side with another reader's; the function itself returns whether it holds)."""
    if not ev.sides or ev.samples is not None:
        return ""
    lines = _body(ev, column, False)[:-1]
    params = ", ".join(_params(ev) + _callables(ev))
    returned = ", ".join(_expression(code, "side") for _, code in ev.sides)
    return (f"\n\ndef {function}_sides({params}):\n"
            f"    {safe.literal('Each side of the comparison, left to right (the function returns if it holds)')}\n"
            + "\n".join(lines) + f"\n    return ({returned},)\n")


def _callables(ev: Evaluation) -> list[str]:
    """Parameters for the functions the paper leaves abstract (ε_θ, f): required callables, never stood in."""
    return [safe.identifier(param, "callable name") for _, param, _ in ev.abstract]


def _signature(ev: Evaluation) -> str:
    names = _params(ev) + _callables(ev) + [safe.identifier(name, "stand-in name") for _, name in ev.standins]
    repeated = sorted({name for name in names if names.count(name) > 1})
    if repeated:
        raise UnsafeCodeError(f"generated code refused: two parameters would both be named {repeated[0]} "
                              "(two inputs with one name)")
    params = _params(ev) + _callables(ev)
    params += [f"{name}=lambda *args: args[0]" for _, name in ev.standins]
    return f"def {safe.identifier(ev.function_name, 'function name')}({', '.join(params)}):"


def _imports(source: str, torch: bool) -> str:
    lines = ["import math", "", "import numpy as np"] if re.search(r"\bmath\.", source) else ["import numpy as np"]
    used = [name for name in _SCIPY if re.search(rf"(?<![.\w]){name}\(", source)]
    if used:
        lines.append(f"from scipy.special import {', '.join(used)}")
    if "minimize_scalar(" in source:
        lines.append("from scipy.optimize import minimize_scalar")
    if torch:
        lines.append("import torch")
        if "F." in source:
            lines.append("import torch.nn.functional as F")
    return "\n".join(lines)


def generate(ev: Evaluation, citation: Citation | None = None, module: str | None = None, *,
             second_reader: bool = True) -> GeneratedCode:
    """NumPy and PyTorch functions for an evaluated equation, and a pytest file with its hand-worked numbers.
    `second_reader=False` leaves out the check against SymPy's reading (`checks.second_reader_check`: SymPy's
    LaTeX parser costs about a second to import and a tenth of a second or more per equation).

    Text from the paper (title, version, equation number, LaTeX) reaches the code only through `safe`: as
    sanitised comments and `repr()` literals; names are checked identifiers; each file is parsed before it is
    returned (`UnsafeCodeError` otherwise)."""
    citation = citation or Citation("formula given on the command line")
    module = safe.identifier(module or ev.function_name, "module name")
    function = safe.identifier(ev.function_name, "function name")
    width = max([len(f"{n} = {c}") for n, c, _, _ in ev.lines] + [len(f"{n} = {c}") for n, c, _ in ev.dim_lines] + [0])
    column = min(max(width + 8, 40), 100)
    where = _where(citation)
    parts = {}
    for torch in (False, True):
        body = "\n".join(_body(ev, column, torch))
        helper = _NUMERICAL_GRAD if "numerical_grad(" in body and not torch else ""
        kind = "PyTorch" if torch else "NumPy"
        header = (f'"""{kind} code for one equation of a paper, generated by papermath (source in the comments)."""\n'
                  f"# {kind} code for: {safe.comment(ev.result_latex)}\n"
                  f"# Source: {safe.comment(where)}.\n"
                  "# Shapes in the comments are those of the values the code was checked on.\n")
        summary = safe.literal(f"{ev.result_latex} — {where}.")
        documented = "".join(
            f"    # {name}: a callable for {safe.comment(latex)}, which the equation does not define (pass the paper's "
            "function or network; nothing stands in for it)\n" for (latex, _, _), name in zip(ev.abstract, _callables(ev)))
        documented += "".join(f"    # {safe.comment(latex)} = {safe.comment(op)} (given, or named in the paper's text)\n"
                              for latex, op in ev.implementations)
        text = (f"{header}{_imports(body, torch)}\n{helper}\n\n{_signature(ev)}\n    {summary}\n"
                f"    # {safe.comment(ev.latex, 2000)}\n{documented}{body}\n")
        if not torch:
            text += _restated_functions(ev, column, function) + _sides_function(ev, column, function)
        parts[torch] = safe.check_module(text, f"{module}_torch.py" if torch else f"{module}.py")
    test = safe.check_module(_test(ev, module, function, second_reader), f"test_{module}.py")
    return GeneratedCode(module, function, parts[False], parts[True], test)


def abstract_double(*calls: Any) -> Any:
    """A function the paper leaves abstract, for checks only: `calls` are (arguments, output) pairs; called with
    arguments equal to one pair's, it returns that output (the generated test defines the same)."""
    def double(*args: Any) -> Any:
        for known, output in calls:
            if len(known) == len(args) and all(np.shape(np.asarray(a, dtype=float)) == np.shape(k) and np.allclose(
                    np.asarray(a, dtype=float), k, rtol=1e-9, atol=1e-12) for a, k in zip(args, known)):
                return np.asarray(output, dtype=float)
        raise LookupError("called with arguments the numbers did not use")
    return double


def call_arguments(ev: Evaluation, values: dict[str, Any] | None = None) -> list[Any]:
    """The arguments the generated function takes, in order: the inputs (`values` overrides them by key), then a
    double for each function the paper leaves abstract."""
    args = [values[k] if values is not None and k in values else ev.input(k).value for k in ev.params]
    return args + [abstract_double(*calls) for _, _, calls in ev.abstract]


def literal_code(value: Any) -> str:
    """A NumPy literal for a value, exact to the last digit (`np.array([[1.0, 0.0]])`)."""
    array = np.asarray(value, dtype=float)

    def one(x: float) -> str:
        if np.isnan(x):
            return "np.nan"
        if np.isinf(x):
            return "np.inf" if x > 0 else "-np.inf"
        return repr(float(x))

    def nested(a: np.ndarray) -> str:
        if a.ndim == 0:
            return one(float(a))
        return "[" + ", ".join(nested(item) for item in a) + "]"

    if array.ndim == 0:
        return f"np.float64({one(float(array))})"
    return f"np.array({nested(array)})"


def _test(ev: Evaluation, module: str, function: str, second_reader: bool = True) -> str:
    names = _params(ev)
    setup = [f"    {name} = {literal_code(ev.input(key).value)}" for name, key in zip(names, ev.params)]
    for (_, param, calls), name in zip(ev.abstract, _callables(ev)):
        # The paper leaves this function abstract: a double that returns the outputs the numbers used.
        pairs = ", ".join(f"(({', '.join(literal_code(a) for a in args)}{',' if len(args) == 1 else ''}), "
                          f"{literal_code(out)})" for args, out in calls)
        setup.append(f"    {name} = abstract_double({pairs})")
        names.append(name)
    args = ", ".join(names)
    expected = literal_code(ev.value)
    shown = ", ".join(f"{ev.input(k).key} = {_short(ev.input(k).value)}" for k in ev.params)
    lines = [
        f'"""Checks {module}.{function}. test_*_hand_worked_numbers and test_*_torch_agrees_with_numpy are',
        "self-consistency only: their expected values come from papermath's evaluator, which reads the equation the",
        "same way the code does. Each test_independent_* says in its comment what it is measured against: the",
        "paper's text (a declared shape, another side it states equal) or another reader of the paper's own LaTeX",
        "can fail on a misreading of the paper; a re-read of papermath's rendering of its tree, a property derived",
        "from that tree (a range, a symmetry) or of the construct at its top (rows summing to 1) checks the code",
        'against that tree only."""',
        f"# Equation: {safe.comment(ev.latex, 2000)}",
        f"# with {safe.comment(shown, 2000)}" if shown else None,
        "import numpy as np",
        "import pytest",
        "",
        f"from {module} import {function}",
        "",
        "",
        *(_DOUBLE if ev.abstract else []),
        "def inputs():",
        *(setup or ["    pass"]),
        f"    return ({args}{',' if len(names) == 1 else ''})" if names else "    return ()",
        "",
        "",
        f"def test_{function}_hand_worked_numbers():",
        f"    result = {function}(*inputs())",
        f"    expected = {expected}",
        "    np.testing.assert_allclose(np.asarray(result, dtype=float), expected, rtol=1e-6, atol=1e-9)",
        "",
        "",
        *_independent(ev, function, module, second_reader),
        f"def test_{function}_torch_agrees_with_numpy():",
        '    pytest.importorskip("torch")',
        f"    from {module}_torch import {function} as torch_version",
        "    result = torch_version(*inputs())",
        f"    np.testing.assert_allclose(np.asarray(result, dtype=float), {function}(*inputs()), rtol=1e-6, atol=1e-9)",
        "",
    ]
    return "\n".join(line for line in lines if line is not None)


_TREE_DERIVED = ("Not independent of papermath's tree (a property derived from it: it checks the code against the "
                 "tree, not the tree against the paper)")
_AGAINST = {
    "shape_the_paper_declares": "Independent of papermath's tree: the paper's text",
    "second_reader_agrees": "Independent of papermath's tree: another reader of the paper's own LaTeX",
    "rendering_reread_agrees": "NOT independent of papermath's tree: SymPy re-reads papermath's rendering of its own "
                               "tree (it checks the code against the tree, not the tree against the paper)",
    "softmax_rows_sum_to_one": "A property the guides state for the construct papermath's tree has at the top (it "
                               "holds whatever the tree reads inside)",
    "share_between_zero_and_one": "A property of the construct papermath's tree has at the top (it holds whatever "
                                  "the tree reads inside)",
    "argmax_in_its_interval": "A property of the construct papermath's tree has at the top (it holds whatever the "
                              "tree reads inside)",
}
"""What each check of a generated test is measured against (a comment in the test; the categories of
benchmarks/codegen_coverage.py)."""


def _independent(ev: Evaluation, function: str, module: str, second_reader: bool = True) -> list[str]:
    """Test functions that check the result against what the paper's text or the notation states, not against
    the evaluator (`papermath.codegen.checks`)."""
    from .checks import Parameter, independent_checks, second_reader_check

    out: list[str] = []
    for k, (latex, _) in enumerate(ev.restatements, start=1):
        out += [f"def test_independent_sides_the_paper_states_equal_{k}():",
                f"    # Independent of this side's tree: the paper states the result equals {safe.comment(latex, 300)}",
                f"    from {safe.identifier(module, 'module name')} import {function}_restated_{k}",
                f"    np.testing.assert_allclose(np.asarray({function}(*inputs()), dtype=float),",
                f"                               np.asarray({function}_restated_{k}(*inputs()), dtype=float), rtol=1e-6, atol=1e-9)",
                "", ""]
    parameters = tuple(Parameter(ev.input(k).key, ev.input(k).source) for k in ev.params) + tuple(
        Parameter(latex, "callable") for latex, _, _ in ev.abstract)
    checks = independent_checks(ev.latex, target_shape=ev.target_shape, shape_source=ev.target_shape_source,
                                implementations=ev.implementations, parameters=parameters,
                                abstract=tuple(latex for latex, _, _ in ev.abstract), function=function)
    reader = None
    if second_reader:  # the paper's text; where it reads nothing, papermath's rendering (not independent)
        reader = second_reader_check(ev, module, function) or second_reader_check(ev, module, function, rendering=True)
    for check in checks + ([reader] if reader is not None else []):
        against = next((text for stem, text in _AGAINST.items() if check.name.startswith(stem)), _TREE_DERIVED)
        out += [f"def test_independent_{safe.identifier(check.name, 'check name')}():",
                f"    # {against}: {safe.comment(check.why)}",
                f"    result = {function}(*inputs())",
                *(f"    {line}" for line in check.body), "", ""]
    return out


_DOUBLE = [
    "def abstract_double(*calls):",
    '    """A function the paper leaves abstract, for this test only: called with the arguments of one of the',
    "    (arguments, output) pairs the numbers used, it returns that output. It checks the arithmetic around the",
    '    function, not the function."""',
    "    def double(*args):",
    "        for known, output in calls:",
    "            if len(known) == len(args) and all(np.shape(np.asarray(a, dtype=float)) == np.shape(k) and np.allclose(",
    "                    np.asarray(a, dtype=float), k, rtol=1e-9, atol=1e-12) for a, k in zip(args, known)):",
    "                return output",
    '        raise LookupError("called with arguments the numbers did not use")',
    "    return double",
    "",
    "",
]


def _short(value: Any) -> str:
    from ..evaluate import fmt
    return fmt(value)
