"""Plug in small numbers: evaluate an equation step by step, inside out, and push it to the extremes.

    >>> from papermath.evaluate import evaluate
    >>> ev = evaluate(r"\\mathrm{softmax}(QK^\\top/\\sqrt{d_k})V",
    ...               {"Q": [[1, 0]], "K": [[1, 0], [0, 1], [1, 1]], "V": [[10, 0], [0, 10], [5, 5]]},
    ...               declared_shapes={"Q": ("n", "d_k")})
    >>> ev.value          # array([[6.017, 3.983]]) rounded

The tree is compiled to NumPy operations (`lower.Lowerer`); nothing is evaluated from strings. Values the
user does not set are chosen (small integers, dimensions 2–3) and shown; unset dimensions and range bounds
are inferred from the values that are set, and the evaluation says so.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, Mapping, Optional

import numpy as np

from ..errors import MathParseError, UsageError
from ..math import ast as A
from ..math import parse, to_latex
from .lower import EvaluationError, Input, Lowerer, NeedsSamples, Step, fmt, python_name, shape_text, symbol_key
from .lower import ENTRY
from .names import bound_variables, labels_as_indices, resolve
from .values import Assignment, literal, normalize_key, parse_assignment, parse_shape

__all__ = ["evaluate", "Evaluation", "Assignment", "Step", "Input", "EvaluationError", "extremes", "ExtremeRun", "fmt",
           "symbol_key", "python_name", "parse_assignment", "parse_shape", "literal", "normalize_key",
           "resolve_keys", "resolve_shapes", "resolve_functions", "Samples"]


@dataclass(frozen=True)
class Evaluation:
    """One equation evaluated on values."""

    latex: str
    """The formula evaluated."""
    inputs: tuple[Input, ...]
    """Values the equation took: set, chosen, or inferred dimensions."""
    steps: tuple[Step, ...]
    """Each operation, inside out."""
    value: Any
    """The result (the right-hand side of the last statement)."""
    result_latex: str
    """What the result is (`\\mathrm{Attention}(Q, K, V)`, or the expression)."""
    function_name: str
    """Python name for what the equation defines (`attention`, `loss_dpo`)."""
    params: tuple[str, ...]
    """Input keys in the generated function's parameter order."""
    notes: tuple[str, ...]
    """What was inferred, assumed or stood in for."""
    checks: tuple[str, ...]
    """Relations checked on these values (restatements agree, a bound holds, loss before/after a step)."""
    lines: tuple[tuple[str, str, str, str], ...] = field(repr=False, default=())
    """Code: (name, numpy code, torch code, shape comment) per line."""
    dim_lines: tuple[tuple[str, str, str], ...] = field(repr=False, default=())
    """Dimensions computed from the inputs: (name, numpy code, torch code)."""
    standins: tuple[tuple[str, str], ...] = ()
    """Unknown functions stood in by the identity: (LaTeX, parameter name)."""
    result_name: str = ""
    """Name of the code variable holding the result."""
    samples: Optional["Samples"] = None
    """When the values carry a leading sample axis: how the code loops over it (the lines are one sample's)."""
    abstract: tuple[tuple[str, str, tuple[tuple[tuple[Any, ...], Any], ...]], ...] = ()
    """Functions the paper leaves abstract: (LaTeX, callable parameter, the (arguments, output) of each distinct
    call the numbers made). The code takes each as a parameter; the generated test passes a double."""
    implementations: tuple[tuple[str, str], ...] = ()
    """Functions given a concrete meaning: (LaTeX, operation) from --fn or the paper's words."""
    restatements: tuple[tuple[str, str], ...] = ()
    """Other sides of `a = b = c`, which the paper states equal to the result: (LaTeX, NumPy code computing that
    side from the same inputs, inside the function's body)."""
    sides: tuple[tuple[Any, str], ...] = ()
    """For a comparison or bound (`a \\le b \\le c`, whose value is whether it holds): each side's value and the
    NumPy code computing it after the function's lines (the generated `…_sides` function returns them), so that a
    check can compare each side, not one bit."""
    target_shape: Optional[tuple[int, ...]] = None
    """The result's shape as declared for what the equation defines (text or --shape), in the sizes used here."""
    target_shape_source: str = ""
    """The declaration, in words (`\\mathbf{c}^{KV} [d_c]`)."""
    source_latex: str = ""
    """The formula's text as given (the paper's LaTeX), before papermath parsed it; `latex` is papermath's rendering
    of its own tree. A second reader that must not depend on papermath's reading reads this text
    (`papermath.codegen.second_reader`); empty when a tree was given."""
    members: tuple[tuple[str, str], ...] = ()
    """Subscripted symbols the numbers read as a whole input at indices nothing binds or gives a value: (the written
    form, the input's key), `(x_{t}, x)` where x is declared [d] and x_t is its member at a free step t. A second
    reader may share which input a written name refers to (not how it is computed)."""
    tables: tuple[tuple[str, tuple[str, ...]], ...] = ()
    """Inputs that are sub-expressions mentioning the variables of reductions they are inside, chosen as a table
    with one leading axis per variable: (the input's key, the variables, in its axes' order), `(A(a_{t} \\mid
    s_{t}), (t,))` in `\\sum_t \\gamma^t A(a_t \\mid s_t)`. Which axis runs over which variable, for a second reader."""

    def input(self, key: str) -> Input:
        for item in self.inputs:
            if item.key == key:
                return item
        raise KeyError(key)

    def step(self, latex: str) -> Step:
        """The last step whose sub-expression is `latex` (normalized)."""
        wanted = to_latex(parse(latex).tree)
        for step in reversed(self.steps):
            if step.latex == wanted:
                return step
        raise KeyError(latex)


@dataclass(frozen=True)
class Samples:
    """A batched evaluation: the equation computed once per sample along the leading axis of some inputs."""

    size: int
    """Number of samples B."""
    params: tuple[str, ...]
    """Parameter names whose leading axis is the sample axis."""
    reduce: str
    """"mean" (an expectation over the samples) or "stack" (one result per sample)."""


@dataclass(frozen=True)
class _Batch:
    value: Any
    steps: tuple[Step, ...]
    inputs: tuple[Input, ...]
    note: str
    samples: Samples


def resolve_functions(implementations: Mapping[str, str], tree: A.Node) -> dict[str, str]:
    """`--fn` names matched to the functions the equation applies; kinds checked against `NAMED_FUNCTIONS`."""
    from .ops import NAMED_FUNCTIONS, EquationFunction

    out: dict[str, Any] = {}
    for name, kind in implementations.items():
        if isinstance(kind, EquationFunction):
            matched, _ = resolve({normalize_key(name): kind}, [tree], option="--fn", shown={normalize_key(name): name})
            out[next(iter(matched))] = kind
            continue
        op = NAMED_FUNCTIONS.get(kind.strip().lower().replace("-", "_").replace(" ", "_"), kind if kind in
                                 NAMED_FUNCTIONS.values() else None)
        if op is None:
            raise UsageError(f"--fn {name}={kind}: unknown function {kind!r} (one of: "
                             f"{', '.join(sorted(set(NAMED_FUNCTIONS)))})")
        key = normalize_key(name)
        matched, _ = resolve({key: op}, [tree], option="--fn", shown={key: name})
        target = next(iter(matched))
        out[target] = op
    return out


def _run(tree: A.Node, given: dict[str, Any], declared: dict[str, tuple[str, ...]], choose: bool,
         dim_sizes: dict[str, int], implementations: dict[str, str] | None = None
         ) -> tuple[Lowerer, Any, Optional[_Batch]]:
    """Lower the equation; when it turns out to carry a sample axis (`NeedsSamples`), once per sample."""
    lowerer = Lowerer([tree], given, declared_shapes=declared, choose=choose, dim_sizes=dim_sizes,
                      implementations=implementations)
    try:
        return lowerer, lowerer.run(), None
    except NeedsSamples as signal:
        size, why = signal.size, signal.message
    batched = [k for k, v in given.items() if np.ndim(v) >= 1 and np.shape(v)[0] == size
               and len(declared.get(k, ())) != np.ndim(v)]
    reduce = _sample_reduction(tree)
    runs = []
    for sample in range(size):
        one = {k: (np.asarray(v)[sample] if k in batched else v) for k, v in given.items()}
        run = Lowerer([tree], one, declared_shapes=declared, choose=choose, dim_sizes=dim_sizes, per_sample=True,
                      implementations=implementations)
        runs.append((run, run.run()))
    first, result = runs[0]
    per = np.stack([np.asarray(r.value, float) for _, r in runs])
    value = per.mean(axis=0) if reduce == "mean" else per
    steps = []
    if all(len(run.steps) == len(first.steps) for run, _ in runs):
        for k, step in enumerate(first.steps):
            values = [np.asarray(run.steps[k].value, float) for run, _ in runs]
            stacked = np.stack(values) if all(v.shape == values[0].shape for v in values) else values[0]
            steps.append(replace(step, value=stacked, note=f"{step.note} (per sample: one row per sample)".strip()))
    else:
        steps = list(first.steps)
    what = "mean over the samples (the expectation)" if reduce == "mean" else "one result per sample, stacked"
    steps.append(Step(_result_latex(first.target_node, tree), value, f"{size} samples: {what}", "E" if reduce == "mean"
                      else "stack"))
    inputs = tuple(replace(item, value=np.asarray(given[item.key])) if item.key in batched and item.source == "set"
                   else item for item in first.inputs.values())
    names = tuple(first.inputs[k].name for k in batched if k in first.inputs)
    note = (f"{why}; the equation is computed once per sample for {', '.join(batched)} (their first axis), "
            f"then {what}")
    return first, result, _Batch(value, tuple(steps), inputs, note, Samples(size, names, reduce))


def _declared_result_shape(lowerer: Lowerer, batch: Optional[_Batch], value: Any = None) -> dict[str, Any]:
    """The shape the declarations give what the equation defines, in this evaluation's sizes (or nothing)."""
    target = lowerer.target_node
    if target is None:
        return {}
    key = lowerer.target_key(target)
    shape = lowerer.declared.get(key, lowerer.declared.get(key + ENTRY))
    member = shape is None or key + ENTRY in lowerer.declared and key not in lowerer.declared
    if shape is None and isinstance(target, A.Indexed):
        shape = lowerer.declared.get(to_latex(target))
    if shape is None:
        return {}
    sizes = []
    for dim in shape:
        if dim.isdigit():
            sizes.append(int(dim))
        elif dim in lowerer.dims:
            sizes.append(int(lowerer.dims[dim]))
        else:
            return {}
    if batch is not None and batch.samples.reduce == "stack":
        sizes.insert(0, batch.samples.size)
    steps = _member_axes(lowerer, target, value, len(sizes)) if member and isinstance(target, A.Indexed) else ()
    source = f"{key} [{', '.join(shape)}]" + (" for each value of its free index" if steps else "")
    return {"target_shape": steps + tuple(sizes), "target_shape_source": source}


def _member_axes(lowerer: Lowerer, target: A.Indexed, value: Any, rank: int) -> tuple[int, ...]:
    """The leading axes of a result computed at every value of its free indices at once: the paper declares one
    member (`g'_{i,t}` a number), and the numbers read the members the right side uses as whole inputs at those
    indices (`Evaluation.members`: s_{i,t} → all of s), so the result holds one member per position. Each extra
    leading axis must be as long as a member input's leading axis, and there are no more of them than the target
    has free indices; otherwise none (the declared shape is checked as it stands)."""
    shape = np.shape(value) if value is not None else ()
    extra = len(shape) - rank
    free = sum(lowerer._free(i) for i in target.indices)
    lengths = {np.shape(lowerer.inputs[k].value)[0] for k in lowerer.members.values()
               if k in lowerer.inputs and np.ndim(lowerer.inputs[k].value)}
    if not lowerer.members or not 0 < extra <= free or any(n not in lengths for n in shape[:extra]):
        return ()
    return tuple(int(n) for n in shape[:extra])


def _sample_reduction(tree: A.Node) -> str:
    """"mean" when the computation is an expectation (`L = \\mathbb{E}[…]`, `-\\mathbb{E}[…]`), else "stack". An
    expectation deeper inside (`\\log \\mathbb{E}[…]`) cannot be taken per sample: refused."""
    node = tree
    while isinstance(node, (A.Rows, A.Sequence)):
        items = [i for i in (node.statements if isinstance(node, A.Rows) else node.items) if not isinstance(i, A.Empty)]
        if not items:
            break
        node = items[-1]
    if isinstance(node, A.Relation):
        node = node.operands[-1]
    top = node
    while isinstance(top, (A.Group, A.UnaryOp)):
        top = top.body if isinstance(top, A.Group) else top.operand
    if isinstance(top, A.Reduction) and top.op == "E":
        return "mean"  # a sign outside is linear: the mean of -x_b is -mean(x)
    if any(isinstance(n, A.Reduction) and n.op == "E" for n in A.walk(tree)):
        raise EvaluationError("the values carry a sample axis, but the expectation is inside another operation: "
                              "give one sample at a time")
    return "stack"


def statements_of(latex: str, functions: frozenset[str] = frozenset()) -> list[A.Node]:
    result = parse(latex, functions=functions)
    return [result.tree]


def resolve_keys(values: Mapping[str, Any], tree_nodes: list[A.Node], *, option: str = "--set",
                 extra: tuple[str, ...] = ()) -> dict[str, Any]:
    """Match `--set` keys to the equation's symbols (`papermath.evaluate.names`): exact, up to fonts and spacing,
    a whole sequence through one entry (`\\gamma_i` with i bound), or a bare letter. A name that matches
    nothing is a UsageError with the closest names."""
    out, _ = resolve(values, tree_nodes, option=option, extra=extra)
    return out


def resolve_shapes(shapes: Mapping[str, tuple[str, ...]], tree: A.Node, *, strict: bool) -> dict[str, tuple[str, ...]]:
    """`--shape` keys matched like `--set` keys (`A` → `\\mathbf{A}`). With `strict`, a key that matches nothing is
    an error; otherwise (shapes from the text, which may name symbols of other equations) it is kept as is."""
    out: dict[str, tuple[str, ...]] = {}
    for key, shape in shapes.items():
        entry = key.endswith(ENTRY)
        bare = key[:-len(ENTRY)] if entry else key
        try:
            matched, bindings = resolve({bare: shape}, [tree], option="--shape")
        except UsageError:
            if strict:
                raise
            out[key] = tuple(shape)
            continue
        target = next(iter(matched))
        if bindings and bindings[0].how == "sequence":
            target += ENTRY  # `--shape 'x_k=D'`: each entry's shape
        out[target + (ENTRY if entry else "")] = tuple(shape)
    return out


def evaluate(formula: str | A.Node, values: Mapping[str, Any] | None = None, *,
             declared_shapes: Mapping[str, tuple[str, ...]] | None = None, choose: bool = True,
             functions: frozenset[str] = frozenset(), dim_sizes: Mapping[str, int] | None = None,
             implementations: Mapping[str, str] | None = None) -> Evaluation:
    """Evaluate a formula (LaTeX or a parsed tree) on `values` ({symbol LaTeX → number or nested list}).

    `declared_shapes` maps symbol keys to symbolic shapes (from `read` or `--shape`); they bind dimensions and
    shape the values chosen for unset symbols. `implementations` maps a function the equation applies to one of
    `ops.NAMED_FUNCTIONS` (`{"phi": "relu"}`; names matched like `--set` keys). Raises EvaluationError when the
    equation cannot be computed.
    """
    if isinstance(formula, str):
        try:
            tree = parse(formula, functions=functions).tree
        except MathParseError as error:
            raise EvaluationError(f"the formula does not parse: {error.message}") from None
    else:
        tree = formula
    tree = labels_as_indices(tree, bound_variables(tree))
    raw = {normalize_key(k) if not k.startswith("\\") or " " in k else k: v for k, v in (values or {}).items()}
    declared = resolve_shapes({k: tuple(v) for k, v in (declared_shapes or {}).items()}, tree, strict=False)
    dimension_names = tuple({d for shape in declared.values() for d in shape} | set(dim_sizes or {}))
    given = resolve_keys({k: np.asarray(v, float) if not np.isscalar(v) else float(v) for k, v in raw.items()}, [tree],
                         extra=dimension_names)
    implemented = resolve_functions(implementations or {}, tree)
    try:
        lowerer, result, batch = _run(tree, given, declared, choose, dict(dim_sizes or {}), implemented)
    except (ValueError, TypeError, IndexError, KeyError, ZeroDivisionError, OverflowError, RecursionError) as error:
        # A library error on values this equation cannot take: reported, never a traceback.
        raise EvaluationError(f"cannot evaluate {to_latex(tree)[:60]}: {type(error).__name__}: {error}") from None
    dims = {d for shape in lowerer.declared.values() for d in shape}
    unused = [k for k in given if k not in lowerer.inputs and k not in dims]
    notes = list(lowerer.notes)
    scalars = [k for k in lowerer.assumed_scalars if k in lowerer.inputs and lowerer.inputs[k].source == "chosen"]
    if scalars:
        notes.append(f"no shape in the text or --shape for {', '.join(scalars)}: chosen as scalars "
                     "(give --shape 'SYMBOL=DIMS' for vectors and matrices)")
    if unused:
        notes.append("not used by this equation: " + ", ".join(unused))
    # Name the result line.
    lines = [(line.name, line.np, line.torch, line.comment) for line in lowerer.lines]
    result_name = lines[-1][0] if lines else ""
    if lines and result.np != result_name:
        lines.append(("result", result.np, result.torch, shape_text(result.value)))
        result_name = "result"
    target = lowerer.target_node
    function_name, params = _signature(target, lowerer)
    for key, item in list(lowerer.inputs.items()):
        if item.source == "dimension" and item.name not in lowerer.dim_lines and key not in given:
            pass
    value = np.asarray(result.value)
    steps = tuple(lowerer.steps)
    if batch is not None:
        value, steps = batch.value, batch.steps
        notes.insert(0, batch.note)
    return Evaluation(
        latex=to_latex(tree), inputs=tuple(batch.inputs if batch else lowerer.inputs.values()), steps=steps,
        value=value, result_latex=_result_latex(target, tree),
        function_name=function_name, params=params, notes=tuple(dict.fromkeys(notes)), checks=tuple(lowerer.checks),
        lines=tuple(lines), dim_lines=tuple((name, code[0], code[1]) for name, code in lowerer.dim_lines.items()),
        standins=tuple(lowerer.standins.items()), result_name=result_name,
        samples=batch.samples if batch else None,
        abstract=tuple((key, param, tuple(lowerer.abstract_outputs.get(param, ())))
                       for key, param in lowerer.abstract.items()),
        implementations=tuple((k, v if isinstance(v, str) else f"equation {v.label}") for k, v in implemented.items()),
        restatements=tuple(lowerer.restatements) if batch is None else (),
        sides=lowerer.compared[1] if batch is None and lowerer.compared and lowerer.compared[0] == result_name else (),
        source_latex=formula if isinstance(formula, str) else "",
        members=tuple((written, key) for written, key in lowerer.members.items() if key in params),
        tables=tuple((key, variables) for key, variables in lowerer.tables.items() if key in params),
        **_declared_result_shape(lowerer, batch, value))


def _result_latex(target: Optional[A.Node], tree: A.Node) -> str:
    if target is not None:
        return to_latex(target)
    last = tree
    while isinstance(last, (A.Rows, A.Sequence)):
        items = [i for i in (last.statements if isinstance(last, A.Rows) else last.items) if not isinstance(i, A.Empty)]
        last = items[-1] if items else last
        if not items:
            break
    if isinstance(last, A.Relation) and isinstance(last.operands[0], A.Empty):
        return to_latex(last.operands[-1])
    return to_latex(last)


def _signature(target: Optional[A.Node], lowerer: Lowerer) -> tuple[str, tuple[str, ...]]:
    keys = [k for k, item in lowerer.inputs.items() if item.source in ("set", "chosen")]
    keys += [k for k, item in lowerer.inputs.items()
             if item.source == "dimension" and item.name not in lowerer.dim_lines]
    if target is None:
        return "expression", tuple(keys)
    if isinstance(target, A.Apply):
        name = python_name(symbol_key(target.func)).lower()
        order = [symbol_key(a) if isinstance(a, (A.Symbol, A.Indexed)) else to_latex(a) for a in target.args]
        first = list(dict.fromkeys(k for k in order if k in keys))
        return name, tuple(first + [k for k in keys if k not in first])
    key = symbol_key(target)
    if key.startswith("\\mathcal{L}") or key in ("L", "\\ell", "\\mathcal{J}", "J"):
        label = key.split("_", 1)[1] if "_" in key else ""
        name = "loss" + ("_" + python_name(label).lower() if label else "")
        if key.startswith("\\mathcal{J}") or key == "J":
            name = "objective" + name[4:]
    else:
        name = python_name(key)
    if name in keys or name in {lowerer.inputs[k].name for k in keys}:
        name = "compute_" + name
    return name, tuple(keys)


@dataclass(frozen=True)
class ExtremeRun:
    """The equation re-run with some inputs scaled."""

    factor: float
    """10 or 0.1."""
    scaled: tuple[str, ...]
    """Keys of the scaled inputs."""
    evaluation: Evaluation
    """The re-run."""
    changes: tuple[str, ...]
    """What changed, in words."""


def extremes(base: Evaluation, *, scale: tuple[str, ...] = (), factors: tuple[float, ...] = (10.0, 0.1),
             declared_shapes: Mapping[str, tuple[str, ...]] | None = None,
             functions: frozenset[str] = frozenset()) -> list[ExtremeRun]:
    """Re-run with inputs scaled by 10 and by 0.1 (guide 000: 'push it to the extremes') and say what changed.

    `scale` names the inputs to scale; by default the first input that is not a dimension or a probability.
    """
    candidates = [i for i in base.inputs if i.source in ("set", "chosen") and np.asarray(i.value).size]
    if scale:
        keys = tuple(resolve_keys({normalize_key(s): 0 for s in scale}, [parse(base.latex).tree]))
    else:
        pick = [i for i in candidates if "\\mid" not in i.key and not i.key.startswith(("p", "q"))]
        keys = (pick[0].key,) if pick else ()
    runs = []
    values = {i.key: i.value for i in base.inputs if i.source in ("set", "chosen")}
    dims = {i.key: int(i.value) for i in base.inputs if i.source == "dimension"}
    for factor in factors:
        scaled = dict(values)
        for key in keys:
            scaled[key] = np.asarray(values[key], float) * factor
        try:
            run = evaluate(base.latex, scaled, declared_shapes=declared_shapes, functions=functions, dim_sizes=dims,
                           implementations={k: v for k, v in base.implementations if not v.startswith("equation")})
        except EvaluationError as error:
            runs.append(ExtremeRun(factor, keys, base, (f"fails: {error.message}",)))
            continue
        runs.append(ExtremeRun(factor, keys, run, tuple(_changes(base, run, factor))))
    return runs


def _changes(base: Evaluation, run: Evaluation, factor: float) -> list[str]:
    out = []
    by_latex = {s.latex: s for s in base.steps}
    for step in run.steps:
        before = by_latex.get(step.latex)
        if before is None:
            continue
        old, new = np.asarray(before.value, float), np.asarray(step.value, float)
        if old.shape != new.shape:
            continue
        if not np.all(np.isfinite(new)) and np.all(np.isfinite(old)):
            out.append(f"{step.latex}: overflows to inf/nan")
            continue
        if step.op == "softmax" and new.size > 1:
            peak_old, peak_new = float(old.max()), float(new.max())
            low_new = float(new.min())
            if low_new < 0.01 and peak_new - peak_old > 0.05:
                out.append(f"{step.latex}: softmax saturates toward a hard selection "
                           f"(weights {fmt(new, 4)}, smallest {fmt(low_new, 4)})")
            elif new.std() < old.std() * 0.5:
                out.append(f"{step.latex}: softmax flattens toward uniform (weights {fmt(new, 4)})")
            continue
        if step.op in ("sigmoid", "logsigmoid"):
            if np.all((new > 0.99) | (new < 0.01)) and step.op == "sigmoid":
                out.append(f"{step.latex}: sigmoid saturates (values {fmt(new, 4)}), gradients vanish")
            continue
        with np.errstate(all="ignore"):
            if np.allclose(new, old):
                continue
            if np.allclose(new, old * factor, rtol=1e-6):
                continue
            if np.allclose(new, old * factor ** 2, rtol=1e-6):
                out.append(f"{step.latex}: scales by {factor ** 2:g} (quadratic)")
                continue
    if not out:
        same = np.allclose(np.asarray(run.value, float), np.asarray(base.value, float))
        linear = np.allclose(np.asarray(run.value, float), np.asarray(base.value, float) * factor)
        out.append("the result is unchanged" if same else
                   f"the result scales by {factor:g} (linear in the scaled input)" if linear else
                   f"the result moves from {fmt(base.value)} to {fmt(run.value)}")
    else:
        out.append(f"result: {fmt(base.value)} → {fmt(run.value)}")
    return out
