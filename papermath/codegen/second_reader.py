"""A second reader of an equation that does not use papermath's tree: SymPy's LaTeX parser.

papermath's code, its evaluator and its tree-derived checks all start from papermath's own parse of the formula:
if that parse misreads the paper (`f(x)` as a product, a subscript dropped), they agree with each other on the
wrong reading. SymPy's parser (`sympy.parsing.latex.parse_latex`) reads the same LaTeX with its own grammar. When
it can read the computed side, and each of its symbols is one of the inputs the generated function takes, its
value at the test's inputs is computed here, at generation time, and written into the generated test as a
literal: where the two readers disagree, that test fails.

What makes it independent, and where it stops:
- the computed side is cut from the LaTeX text (the part after the last top-level `=`, `:=`, `\\approx` …), not
  from papermath's tree; the LaTeX is cleaned only lexically (font macros, `\\left`/`\\right`, `\\text{…}` in
  subscripts, alignment marks), and each input's key is cleaned and parsed by SymPy the same way, so that the
  inputs are matched by SymPy's reading of their names;
- SymPy's algebra is scalar: with array inputs it computes elementwise (numpy broadcasting). Where that gives
  another shape than papermath's result (a matrix product, a dot product, a reduction over an axis) it has no
  opinion and no check is written; an unknown function (`f(x)`, a network) or a symbol no input matches (SymPy
  read `\\gamma^2_t` as `gamma**2`) means no check either;
- the functions the paper's text or `--fn` names concretely (σ = sigmoid) are given to SymPy by name.

Optional: needs `sympy` and its ANTLR runtime (`pip install 'papermath[second-reader]'`); without them no check.
"""
from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from typing import Any

import numpy as np

_RELATIONS = re.compile(r"(?<![<>!\\])=|\\coloneqq|\\eqqcolon|\\approx|\\triangleq|\\equiv|\\leftarrow|\\gets"
                        r"|\\defeq|\\doteq|\\simeq")
"""Relations after which the computed side starts (`:` of `:=` is dropped with the left side)."""

_ORDER = re.compile(r"\\(?:le|leq|ge|geq|leqslant|geqslant|ll|gg|in|notin|sim|propto|subset|subseteq|neq|ne|to)\b"
                    r"|[<>]")
"""Relations that make a statement a bound or a condition, not a value."""

_FONTS = ("mathbf", "bm", "boldsymbol", "mathbfit", "mathit", "mathsf", "mathcal", "mathbb", "mathscr", "mathfrak",
          "pmb", "bf", "rm", "ensuremath", "displaystyle", "textstyle", "mathnormal", "vec")
"""Macros that only change how a symbol looks: the argument stays (the same cleaning is applied to the keys)."""

_WORDS = re.compile(r"\\(?:text|mathrm|operatorname|textrm|textit|texttt|mathtt)\s*\{([^{}]*)\}")


@dataclass(frozen=True)
class SecondReading:
    """SymPy's reading of the computed side and its value at the test's inputs."""

    expression: str
    """SymPy's expression, as SymPy prints it."""
    value: Any
    """Its value at the inputs (a float or a nested list)."""
    agrees: bool
    """True when it equals papermath's result (rtol 1e-6)."""


def available() -> bool:
    """sympy and the ANTLR runtime its LaTeX parser needs are installed (and PAPERMATH_SECOND_READER is not 0)."""
    import importlib.util
    import os

    if os.environ.get("PAPERMATH_SECOND_READER", "1") == "0":
        return False
    if importlib.util.find_spec("antlr4") is None or importlib.util.find_spec("sympy") is None:
        return False  # checked before importing sympy (a second of CPU) for nothing
    try:
        from sympy.parsing.latex import parse_latex
        parse_latex("x")
        return True
    except Exception:  # ImportError, or the ANTLR runtime missing/of another version
        return False


def computed_side(latex: str) -> str:
    """The text after the last top-level relation of the last statement (braces and \\left…\\right counted)."""
    text = re.sub(r"\\label\{[^{}]*\}|\\nonumber|\\notag", "", latex)
    text = re.split(r"\\\\(?:\[[^\]]*\])?", text)
    statement = " ".join(text)
    depth, cut = 0, 0
    for match in re.finditer(r"\\left\b|\\right\b|[{}]|" + _RELATIONS.pattern, statement):
        token = match.group(0)
        if token in ("{", "\\left"):
            depth += 1
        elif token in ("}", "\\right"):
            depth -= 1
        elif depth == 0:
            cut = match.end()
    side = re.sub(r"\\(?:quad|qquad)\b.*$", "", statement[cut:], flags=re.S)  # `\quad \text{for } v ∈ V`
    if _ORDER.search(_outside_braces(side)) or re.search(r"\\[lcv]?dots\b", side):
        return ""  # a bound or a condition (`\\le`, `\\in`, `\\sim`), or a pattern (`…`): not one value
    return side.replace("&", " ").strip().rstrip(".,;").strip()


def _outside_braces(text: str) -> str:
    out, depth = [], 0
    for char in text:
        depth += char == "{"
        if depth == 0:
            out.append(char)
        depth -= char == "}"
    return "".join(out)


def clean(latex: str) -> str:
    """Lexical cleaning for SymPy's grammar (the same for the formula and for each input's key)."""
    text = _WORDS.sub(lambda m: re.sub(r"\W", "", m.group(1)), latex)
    for _ in range(3):
        text = re.sub(r"\\(?:%s)\s*\{([^{}]*)\}" % "|".join(_FONTS), _argument, text)
        text = re.sub(r"\\(?:%s)\b\s*" % "|".join(_FONTS), "", text)
    text = re.sub(r"\\[,;:!> ]|~", " ", text)
    text = re.sub(r"\\(?:big|Big|bigg|Bigg)[lr]?\b", "", text)
    return text.strip()


def _argument(match: re.Match) -> str:
    """A font macro's argument: bare when it is one letter or one command (`\\mathbf{x}_t` → `x_t`), else braced."""
    inner = match.group(1).strip()
    if re.fullmatch(r"[A-Za-z]", inner):
        return f" {inner}"
    return f" {inner} " if re.fullmatch(r"\\[A-Za-z]+", inner) else f"{{{inner}}}"


_DIGIT_LETTERS = str.maketrans("0123456789.", "abcdefghijp")
_NUMBER_MARK, _INPUT_MARK = "\\mathit{Numeral", "\\mathit{Input"
"""Placeholders are words in letters (`\\mathit{…}` is one symbol to SymPy's grammar, kept as written): SymPy
turns a number it parses into a value by `sympify` of its text, which `eval`s it; with every numeral a
placeholder symbol, nothing from the paper reaches an `eval`."""


def _numerals_as_symbols(text: str) -> str:
    """Each numeral → a braced placeholder symbol naming it in letters (`12` → `{\\mathit{Numeralbc}}`); directly
    after a command or a script mark only the first digit is the argument, as in TeX (`x^12` = x^1 2, `\\frac12`)."""
    text = re.sub(r"(\\[A-Za-z]+|[_^])(\s*)(\d)", lambda m: f"{m.group(1)}{m.group(2)}#{m.group(3)}#", text)
    text = re.sub(r"#(\d)#|(\d+(?:\.\d+)?)",
                  lambda m: "{%s%s}}" % (_NUMBER_MARK, (m.group(1) or m.group(2)).translate(_DIGIT_LETTERS)), text)
    return text


def _number_values(sympy: Any, expression: Any) -> Any:
    """The placeholders of `_numerals_as_symbols` replaced by their exact values (int/Fraction, no `eval`)."""
    from fractions import Fraction

    letters = {v: k for k, v in zip("0123456789.", "abcdefghijp")}
    values = {}
    for symbol in expression.free_symbols:
        match = re.fullmatch(r"Numeral([a-jp]+)", str(symbol))
        if match:
            numeral = "".join(letters[c] for c in match.group(1))
            values[symbol] = sympy.Integer(int(numeral)) if "." not in numeral else sympy.Rational(Fraction(numeral))
    return expression.xreplace(values) if values else expression


def _parse(latex: str) -> Any:
    import sympy
    from sympy.parsing.latex import parse_latex

    text = clean(latex)
    if _NUMBER_MARK in text or "#" in text:
        raise ValueError("the formula already writes a placeholder's spelling")
    text = re.sub(r"@(Input[a-j]+)@", lambda m: "{%s}" % m.group(1).replace("Input", _INPUT_MARK, 1) + "}", text)
    # strict: a formula read only in part is not read
    return _number_values(sympy, parse_latex(_numerals_as_symbols(text), strict=True))


_NAMED = {"sigmoid": lambda x: 1 / (1 + np.exp(-x)), "relu": lambda x: np.maximum(x, 0), "tanh": np.tanh,
          "exp": np.exp, "log": np.log, "identity": lambda x: x, "softplus": lambda x: np.logaddexp(0, x)}
"""Elementwise functions by the name papermath's `--fn` gives them."""

_BUILTIN = {"max": lambda *a: functools.reduce(np.maximum, a), "min": lambda *a: functools.reduce(np.minimum, a)}
"""Functions SymPy's parser leaves undefined that mean one thing (`\\max(a, b)`, `\\min(a, b)`)."""


def read(ev: Any) -> SecondReading | None:
    """SymPy's value of `ev`'s computed side at `ev`'s inputs, or None where it cannot say (see the module).
    Bounded by the per-formula time budget (`papermath.budget`)."""
    if ev.standins or not ev.params or not available():
        return None
    from ..budget import BudgetExceeded, formula_budget
    try:
        with formula_budget("second reader"):
            return _read(ev)
    except (BudgetExceeded, RecursionError):
        return None


def _read(ev: Any) -> SecondReading | None:
    import sympy

    scalars = all(np.ndim(ev.input(key).value) == 0 for key in ev.params)
    if _INPUT_MARK in ev.latex or _NUMBER_MARK in ev.latex or "@" in ev.latex:
        return None  # the paper writes a placeholder's spelling: SymPy's reading could not be told from ours
    side, placeholders = _opaque_inputs(computed_side(ev.latex), ev.params)
    try:
        expression = _parse(_scalar_forms(side) if scalars else side)
    except Exception:  # SymPy cannot read it: no second opinion
        return None
    if not isinstance(expression, sympy.Expr) or expression.has(sympy.Integral, sympy.Derivative, sympy.Limit):
        return None
    named = {latex: op for latex, op in ev.implementations}
    replacements, values = {}, {}
    for k, key in enumerate(ev.params):
        dummy = sympy.Symbol(f"_input{k}")
        values[dummy] = np.asarray(ev.input(key).value, dtype=float)
        if key in placeholders:
            replacements[sympy.Symbol(placeholders[key])] = dummy
            continue
        try:
            key_expression = _parse(key)
        except Exception:
            return None
        if key_expression in replacements or not isinstance(key_expression, sympy.Expr):
            return None  # two inputs SymPy reads as one symbol (`\\mathcal{L}_{\\text{bce}}`, `…_{\\text{dice}}`)
        replacements[key_expression] = dummy
    functions: dict[str, Any] = dict(_BUILTIN)
    for latex, op in named.items():
        try:
            head = _parse(latex)
        except Exception:
            continue
        if isinstance(head, sympy.Symbol) and op in _NAMED and re.fullmatch(r"[A-Za-z]\w*", str(head)):
            functions[str(head)] = _NAMED[op]
    if not expression.free_symbols:
        return None  # a constant: nothing of the inputs to check
    larger_first = sorted(replacements.items(), key=lambda kv: -sympy.count_ops(kv[0]) - len(kv[0].free_symbols))
    substituted = expression.subs(larger_first, simultaneous=True)  # `\\nabla f(y_t)` inside `\\gamma \\nabla f(y_t)`
    euler = sympy.Symbol("e")
    if euler in substituted.free_symbols:
        substituted = substituted.xreplace({euler: sympy.E})  # e^{x} with no input named e: Euler's number
    if substituted.free_symbols - set(values):
        return None  # a symbol no input matches: SymPy read something else
    doubles = _doubles(sympy, ev.abstract)
    unknown = {f.func.__name__ for f in substituted.atoms(sympy.core.function.AppliedUndef)}
    if unknown - set(functions) - set(doubles):
        return None  # an unknown function: SymPy's algebra has no value for it
    order = sorted(values, key=str)
    try:
        with np.errstate(all="ignore"):
            if all(values[s].ndim == 0 for s in order):
                value = _scalar_value(sympy, substituted, values, {**functions, **doubles})
            elif unknown & set(doubles) or substituted.has(sympy.Sum, sympy.Product, sympy.Piecewise):
                return None  # a sum over an index of an array: SymPy's scalar algebra has no axis
            else:
                value = _elementwise_value(sympy, substituted, values, functions)
    except Exception:  # a value SymPy cannot compute numerically
        return None
    value = np.asarray(value, dtype=float)
    want = np.asarray(ev.value, dtype=float)
    if value.shape != want.shape or not np.all(np.isfinite(value)):
        return None  # elementwise algebra gives another shape: no opinion on a matrix or reduction
    agrees = bool(np.allclose(value, want, rtol=1e-6, atol=1e-9))
    return SecondReading(str(expression), value.tolist(), agrees)


def _placeholder(k: int) -> str:
    """The k-th sub-expression input's symbol, in letters (see `_numerals_as_symbols`)."""
    return "Input%s" % str(k).translate(_DIGIT_LETTERS)


def _opaque_inputs(side: str, keys: tuple[str, ...]) -> tuple[str, dict[str, str]]:
    """Inputs that are sub-expressions given one value (`V^{*}(x_{t - 1}, c)`, `p_\\theta(x \\mid c)`: papermath's
    inputs name them in the formula's own spelling) replaced in the text by a placeholder SymPy reads as one
    symbol; SymPy still reads every operation around them. (key → placeholder symbol name)."""
    out: dict[str, str] = {}
    for key in sorted((k for k in keys if "(" in k or "\\mid" in k), key=len, reverse=True):
        pattern = r"(?<![A-Za-z\\])" + re.escape(key) + r"(?![A-Za-z_^])"
        if re.search(pattern, side):
            name = _placeholder(len(out))
            side = re.sub(pattern, lambda _m, n=name: f" @{n}@ ", side)  # `\\mathit{…}` after `clean`
            out[key] = name
    return side, out


def _scalar_forms(side: str) -> str:
    """With scalar inputs only: a norm is an absolute value and ⟨a, b⟩ a product (SymPy's grammar has neither)."""
    side = re.sub(r"\\left\s*\\\||\\right\s*\\\||\\[lr]Vert|\\\|", "|", side)
    side = re.sub(r"\|\s*_\s*\{?\s*2\s*\}?", "|", side)  # |x|_2
    while True:
        match = re.search(r"\\langle", side)
        if match is None:
            return side
        depth, comma, end = 0, None, None
        for i in range(match.end(), len(side)):
            if side.startswith("\\rangle", i) and depth == 0:
                end = i
                break
            char = side[i]
            depth += char in "({["
            depth -= char in ")}]"
            if char == "," and depth == 0 and comma is None:
                comma = i
        if end is None or comma is None:
            return side
        side = f"{side[:match.start()]}(({side[match.end():comma]})({side[comma + 1:end]})){side[end + 7:]}"


def _doubles(sympy: Any, abstract: tuple) -> dict[str, Any]:
    """SymPy's name of each function the paper leaves abstract → a function returning the output papermath's
    numbers gave it for the same arguments (the generated test's double): the second reader computes the
    arithmetic around the function; where it calls the function on other arguments, it has no value."""
    out = {}
    for latex, _, calls in abstract:
        try:
            head = _parse(latex)
        except Exception:
            continue
        if isinstance(head, sympy.Symbol):
            out[str(head)] = _double(calls)
    return out


def _double(calls: tuple) -> Any:
    def double(*args: Any) -> Any:
        for known, output in calls:
            if len(known) == len(args) and all(np.shape(k) == () and np.isclose(float(a), float(k), rtol=1e-9,
                                                                                  atol=1e-12)
                                               for a, k in zip(args, known)):
                return float(np.asarray(output, dtype=float))
        raise LookupError("called on arguments papermath's numbers did not use")
    return double


_MOST_ELEMENTS = 4096
"""Past this many elements the elementwise value is not computed (the test's inputs are a few elements)."""


def _elementwise_value(sympy: Any, expression: Any, values: dict, functions: dict) -> Any:
    """The value with array inputs, element by element: SymPy's algebra is scalar, so each element is the scalar
    value at the broadcast inputs' elements. Nothing is compiled or executed (no `lambdify`: it builds Python
    source from the expression, which here comes from the paper, and runs it)."""
    order = sorted(values, key=str)
    arrays = np.broadcast_arrays(*(values[s] for s in order))
    shape = arrays[0].shape
    if int(np.prod(shape)) > _MOST_ELEMENTS:
        raise ValueError("too many elements for an elementwise second reading")
    out = np.empty(shape, dtype=float)
    for index in np.ndindex(shape):
        point = {s: array[index] for s, array in zip(order, arrays)}
        out[index] = _scalar_value(sympy, expression, point, functions)
    return out


def _scalar_value(sympy: Any, expression: Any, values: dict, functions: dict) -> Any:
    """The value with scalar inputs: substituted, sums done, then each function applied inside out."""
    done = expression.xreplace({s: sympy.Float(float(v)) for s, v in values.items()}).doit()

    def apply(call: Any) -> Any:
        args = [float(sympy.N(a, 17)) for a in call.args]
        return sympy.Float(float(np.asarray(functions[call.func.__name__](*args), dtype=float)))

    done = done.replace(lambda e: isinstance(e, sympy.core.function.AppliedUndef), apply)
    return float(sympy.N(done.doit(), 17))
