"""`papermath numbers`: plug in small numbers and compute inside out, then push to the extremes (guide 000)."""
from __future__ import annotations

import argparse
import json
from typing import Any

from ..errors import UsageError
from .shapes import add_source_arguments, load_target

HELP = "plug in small numbers: evaluate an equation step by step, inside out, with --extreme scaling"
DESCRIPTION = """\
Evaluate one equation on small numbers, one operation per line, inside out.
--set names a symbol as the paper writes it (W^{UK}=…, \\hat{y}=[1,2], epsilon=0 or \\epsilon=0, n=3 for a
dimension); values are numbers or nested lists (inf and log(3) allowed), never code. Symbols you do not set
get small structured values that fit their shapes (dimensions 2–3), shown first. A dimension or range bound
you do not set is inferred from the values that are, and the output says so.
--set also takes any sub-expression as the paper writes it (`'\\nabla f(y_t)=[…]'`, `'A^1(s_t, a_t, b_t)=[…]'`,
`'\\epsilon_\\theta(x_t, t)=[…]'`): its value is used wherever it occurs, and an entry of a sequence names the
whole sequence (`'\\gamma_i=[…]'` where the equation sums over i). Names match as a person types them (`A` for
`\\mathbf{A}`, `gamma`, `x_t`); a name that matches nothing is an error that says what the equation has.
--fn gives a function the equation applies a concrete meaning from a small named set (identity, relu, sigmoid,
tanh, softmax, log_softmax, cosine_similarity, layer_norm, rmsnorm, l2_normalize, softplus, gelu, silu, exp,
log): `--fn 'phi=relu'`. A function neither the equation nor --fn defines is never stood in: its output is a
value (give it with --set, or papermath chooses one and says so) and the code takes it as a callable.
--dim sets a dimension's size (`--dim d=64`), whether the equation writes it or only the shapes use it.
Values whose leading axis is a batch of samples (a norm of a [B, D] value, the samples of an expectation) are
computed once per sample; an expectation is the mean over the samples.
--extreme re-runs with an input scaled by 10 and by 0.1 (the first input, or --scale SYMBOL) and says what
changed: a softmax saturating to a hard selection, a sigmoid saturating, an overflow.

examples:
  papermath numbers --latex '\\mathrm{softmax}(QK^\\top/\\sqrt{d_k})V' --set 'Q=[[1,0]]' \\
      --set 'K=[[1,0],[0,1],[1,1]]' --set 'V=[[10,0],[0,10],[5,5]]' --extreme
  papermath numbers --latex '\\log\\sum_i e^{z_i}' --set 'z=[1000,1001]'
  papermath numbers paper/ --eq 1
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_source_arguments(parser)
    parser.add_argument("--set", action="append", default=[], metavar="SYMBOL=VALUE",
                        help="a value, e.g. 'Q=[[1,0]]', 'epsilon=0', 'n=3' (repeatable)")
    add_function_arguments(parser)
    parser.add_argument("--extreme", action="store_true", help="re-run with an input scaled by 10 and by 0.1")
    parser.add_argument("--scale", action="append", default=[], metavar="SYMBOL",
                        help="the input(s) --extreme scales (default: the first input)")


def add_function_arguments(parser: argparse.ArgumentParser) -> None:
    """--fn and --dim, shared by `numbers` and `code`."""
    parser.add_argument("--fn", action="append", default=[], metavar="NAME=KIND",
                        help="a function's meaning, e.g. 'phi=relu', 'sim=cosine_similarity', '\\sigma=sigmoid' "
                             "(repeatable)")
    parser.add_argument("--dim", action="append", default=[], metavar="NAME=SIZE",
                        help="a dimension's size, e.g. 'd=64' (repeatable)")


def function_options(args: argparse.Namespace, target: Any) -> tuple[dict[str, str], dict[str, int]]:
    """(--fn name → kind, over the paper's own words; --dim name → size)."""
    from ..evaluate import normalize_key

    functions = dict(getattr(target, "implementations", {}) or {})
    for text in getattr(args, "fn", []) or []:
        if "=" not in text:
            raise UsageError(f"--fn {text!r}: write NAME=KIND, e.g. --fn 'phi=relu'")
        name, kind = text.split("=", 1)
        functions[name.strip()] = _equation_function(args, kind.strip())
    dims: dict[str, int] = {}
    for text in getattr(args, "dim", []) or []:
        name, _, size = text.partition("=")
        try:
            value = int(size)
        except ValueError:
            raise UsageError(f"--dim {text!r}: write NAME=SIZE with a whole number, e.g. --dim d=64") from None
        if value < 1:
            raise UsageError(f"--dim {text!r}: a size is at least 1")
        dims[normalize_key(name)] = value
    return functions, dims


def _equation_function(args: argparse.Namespace, kind: str) -> Any:
    """`eq:N` (or `eq:u2`): the function that equation of the paper defines; any other kind as given."""
    if not kind.startswith("eq:"):
        return kind
    if getattr(args, "source", None) is None:
        raise UsageError(f"--fn …={kind}: a function defined by an equation needs the paper (SOURCE --eq N)")
    from ..evaluate.ops import EquationFunction
    from ..paper import open as open_paper

    paper = open_paper(args.source)
    equation = paper.equation(kind[3:])
    return EquationFunction(f"({equation.number})" if equation.number else equation.id, equation.latex,
                            frozenset(paper.functions))


def evaluation_inputs(args: argparse.Namespace, target: Any) -> tuple[dict[str, Any], dict[str, tuple[str, ...]]]:
    """Values from --set and shapes (text, --shape, and guide 000's conventional attention shapes)."""
    from ..analysis.shapes import CONVENTIONAL_SHAPES
    from ..evaluate import parse_assignment, symbol_key
    from ..math import ast as A
    from ..math import parse

    values = {}
    for text in args.set:
        assignment = parse_assignment(text)
        values[assignment.key] = assignment.value
    declared = dict(target.declared)
    from ..errors import MathParseError

    try:
        tree = parse(target.latex, functions=target.functions).tree
    except MathParseError:
        return values, declared  # the evaluator reports the parse error with its position
    keys = {symbol_key(n) for n in A.walk(tree) if isinstance(n, A.Symbol)}
    bare = getattr(target, "label", "formula") == "formula"  # a paper's equation gets the paper's shapes only
    if bare and {"Q", "K", "V"} <= keys and not any(k in declared for k in ("Q", "K", "V")):
        declared.update(CONVENTIONAL_SHAPES)
    return values, declared


def conventional_used(target: Any, declared: dict) -> bool:
    """True when guide 000's attention shapes filled in for an undeclared Q, K, V."""
    from ..analysis.shapes import CONVENTIONAL_SHAPES

    return all(declared.get(k) == v and k not in target.declared for k, v in CONVENTIONAL_SHAPES.items())


def evaluation_json(ev: Any) -> dict:
    import numpy as np

    def value(v: Any) -> Any:
        array = np.asarray(v, dtype=float)
        return [value(x) for x in array] if array.ndim else (None if not np.isfinite(array) else float(array))

    return {
        "latex": ev.latex,
        "result_latex": ev.result_latex,
        "value": value(ev.value),
        "inputs": [{"key": i.key, "name": i.name, "value": value(i.value), "source": i.source, "note": i.note}
                   for i in ev.inputs],
        "steps": [{"latex": s.latex, "value": value(s.value), "note": s.note, "op": s.op} for s in ev.steps],
        "notes": list(ev.notes),
        "checks": list(ev.checks),
    }


def print_evaluation(ev: Any, width: int | None = None) -> None:
    from ..render.steps import print_evaluation as show

    show(ev, width)


def evaluate_target(args: argparse.Namespace) -> tuple[Any, dict[str, tuple[str, ...]], Any]:
    """(target, declared shapes, Evaluation) of the equation `args` names, as `numbers` and `code` compute it:
    --set, --shape, --fn, --dim and the functions the text names."""
    from ..evaluate import EvaluationError, evaluate

    target = load_target(args)
    values, declared = evaluation_inputs(args, target)
    implementations, dims = function_options(args, target)
    try:
        ev = evaluate(target.latex, values, declared_shapes=declared, functions=target.functions,
                      implementations=implementations, dim_sizes=dims)
    except EvaluationError as error:
        raise UsageError(f"{target.label}: {error.message}") from None
    return target, declared, ev


def run(args: argparse.Namespace) -> int:
    from ..evaluate import extremes

    target, declared, ev = evaluate_target(args)
    runs = extremes(ev, scale=tuple(args.scale), declared_shapes=declared, functions=target.functions) \
        if args.extreme else []
    if args.json:
        out = {"schema": "papermath.numbers/1", "equation": target.label, **evaluation_json(ev)}
        if conventional_used(target, declared):
            out["notes"].append("Q, K and V have the conventional attention shapes ([n, d_k], [m, d_k], [m, d_v])")
        if args.extreme:
            out["extremes"] = [{"factor": r.factor, "scaled": list(r.scaled), "changes": list(r.changes),
                                **evaluation_json(r.evaluation)} for r in runs]
        print(json.dumps(out, ensure_ascii=False, indent=2))
        return 0
    print(f"{target.label}   {ev.latex}")
    print()
    print_evaluation(ev, getattr(args, "width", None))
    if conventional_used(target, declared):
        print("note: Q, K and V have the conventional attention shapes ([n, d_k], [m, d_k], [m, d_v]); "
              "the formula declares none (override with --shape)")
    from ..render.steps import print_extreme

    for run_ in runs:
        print()
        print_extreme(run_, getattr(args, "width", None))
    return 0
