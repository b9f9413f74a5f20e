"""Values for the symbols of an equation: `--set` assignments as the paper writes them, and chosen values.

A `--set` names a symbol as the paper writes it (`\\hat{y}=[1,2]`, `W^{UK}=…`, `epsilon=0`). Values are read
with a small literal reader over Python's `ast` (numbers, nested lists, `inf`, `log(3)`, `sqrt(2)`,
arithmetic): nothing is ever evaluated as code.
"""
from __future__ import annotations

import ast as pyast
import json
import math
import re
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from typing import Any

import numpy as np

from ..errors import UsageError
from ..math import parse, to_latex
from ..errors import MathParseError

_FUNCTIONS = {"log": math.log, "ln": math.log, "exp": math.exp, "sqrt": math.sqrt, "sin": math.sin,
              "cos": math.cos, "tanh": math.tanh, "abs": abs}
_CONSTANTS = {"inf": math.inf, "infinity": math.inf, "Infinity": math.inf, "nan": math.nan, "e": math.e,
              "pi": math.pi, "true": 1.0, "false": 0.0, "True": 1.0, "False": 0.0}
_BINARY = {pyast.Add: lambda a, b: a + b, pyast.Sub: lambda a, b: a - b, pyast.Mult: lambda a, b: a * b,
           pyast.Div: lambda a, b: a / b, pyast.Pow: lambda a, b: a ** b}


@dataclass(frozen=True)
class Assignment:
    """One `--set KEY=VALUE` as given."""

    key: str
    """The symbol as the user wrote it, normalized to LaTeX (`\\hat{y}`, `W^{UK}`, `\\epsilon`)."""
    value: Any
    """A float or a NumPy array."""
    text: str
    """The assignment as written on the command line."""


def literal(text: str) -> Any:
    """Read a value: a number, nested lists, `inf`, `log(3)`… Raises UsageError on anything else."""
    text = text.strip().replace("\\infty", "inf").replace("−", "-")
    try:
        data = json.loads(text)
    except (ValueError, RecursionError):
        try:
            tree = pyast.parse(text, mode="eval")
        except SyntaxError as error:
            raise UsageError(f"cannot read the value {text!r}: {error.msg}") from None
        data = _literal(tree.body, text)
    try:
        array = np.asarray(data, dtype=float)
    except (ValueError, TypeError):
        raise UsageError(f"the value {text!r} is not a number or a rectangular list of numbers") from None
    return float(array) if array.ndim == 0 else array


def _literal(node: pyast.AST, text: str) -> Any:
    if isinstance(node, pyast.Constant) and isinstance(node.value, (int, float)) and not isinstance(node.value, bool):
        return float(node.value)
    if isinstance(node, (pyast.List, pyast.Tuple)):
        return [_literal(item, text) for item in node.elts]
    if isinstance(node, pyast.UnaryOp) and isinstance(node.op, (pyast.USub, pyast.UAdd)):
        value = _literal(node.operand, text)
        return -value if isinstance(node.op, pyast.USub) else value
    if isinstance(node, pyast.BinOp) and type(node.op) in _BINARY:
        return _BINARY[type(node.op)](_literal(node.left, text), _literal(node.right, text))
    if isinstance(node, pyast.Name) and node.id in _CONSTANTS:
        return _CONSTANTS[node.id]
    if (isinstance(node, pyast.Call) and isinstance(node.func, pyast.Name) and node.func.id in _FUNCTIONS
            and len(node.args) == 1 and not node.keywords):
        return _FUNCTIONS[node.func.id](_literal(node.args[0], text))
    raise UsageError(f"cannot read the value {text!r}: only numbers, lists, inf, and log/exp/sqrt of numbers")


@lru_cache(maxsize=1)
def greek_names() -> dict[str, str]:
    """Greek letter name → LaTeX command (`epsilon` → `\\epsilon`)."""
    data = json.loads(resources.files("papermath.data").joinpath("greek.json").read_text(encoding="utf-8"))
    out = {}
    for letter in data["letters"]:
        out[letter["name"]] = letter["latex"]
        out[letter["latex"].lstrip("\\")] = letter["latex"]
    return out


def normalize_key(key: str) -> str:
    """A `--set` key as LaTeX: `epsilon` → `\\epsilon`, `W^{UK}` → `W^{UK}`, `hat{y}` left to the parser."""
    key = key.strip()
    if re.fullmatch(r"[A-Za-z]+", key) and key in greek_names() and len(key) > 1:
        return greek_names()[key]
    # A Greek name followed by scripts: `theta_old`, `epsilon^2`.
    match = re.match(r"([A-Za-z]{2,})(?=[_^])", key)
    if match and match.group(1) in greek_names():
        key = greek_names()[match.group(1)] + " " + key[match.end():]
    try:
        return to_latex(parse(key).tree)
    except MathParseError as error:
        raise UsageError(f"cannot read the symbol {key!r}: {error.message}") from None


def parse_assignment(text: str) -> Assignment:
    """`KEY=VALUE` → Assignment. The key is the text before the first `=` outside braces and brackets."""
    depth = 0
    for position, char in enumerate(text):
        if char in "{([":
            depth += 1
        elif char in "})]":
            depth -= 1
        elif char == "=" and depth == 0:
            key, value = text[:position], text[position + 1:]
            if not key.strip():
                break
            return Assignment(normalize_key(key), literal(value), text)
    raise UsageError(f"--set {text!r}: write SYMBOL=VALUE, e.g. --set 'Q=[[1,0]]' or --set epsilon=0")


def parse_shape(text: str) -> tuple[str, tuple[str, ...]]:
    """`--shape 'Q=n,d_k'` → (`Q`, ("n", "d_k")); `x=` or `x=scalar` is a scalar."""
    if "=" not in text:
        raise UsageError(f"--shape {text!r}: write SYMBOL=DIM,DIM…, e.g. --shape 'Q=n,d_k'")
    key, dims = text.split("=", 1)
    dims = dims.strip().strip("[]()")
    if dims in ("", "scalar"):
        shape: tuple[str, ...] = ()
    else:
        shape = tuple(d.strip() for d in re.split(r"[,×]|\\times", dims) if d.strip())
    return normalize_key(key), shape
