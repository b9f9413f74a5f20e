"""Math notation parser: one formula's LaTeX → papermath's syntax tree (see `ast`), and back.

    >>> from papermath.math import parse, to_latex, read_aloud
    >>> result = parse(r"\\mathrm{softmax}(QK^\\top/\\sqrt{d_k})V")
    >>> read_aloud(result.tree)

`parse` is tolerant by default: an unknown macro becomes an `Opaque` node and a warning. With
`strict=True` it raises `MathParseError` instead. Syntax errors raise in both modes.

The tree (`ast`, frozen dataclasses, every node with `span = (start, end)` into the formula):
- names: `Symbol` (name, font, accents, sub/sup *labels*, primes, optimum `^*`), `Number`, `Text`, `Opaque`;
- classified scripts: `Indexed` (indices, `Slice` for `1:T`), `Power`, `Transpose`, `Inverse`, `Labeled`, `Primed`;
- arithmetic: `BinOp` (explicit `+ - \\cdot \\times / \\odot`…), `UnaryOp`, `Product` (juxtaposition: matrix or
  scalar product, decided from shapes), `Frac`, `Root`, `Factorial`, `Binom`;
- application: `Apply` (func, args, given, params, certainty known/declared/conditional/ambiguous),
  `Divergence` (`D_{KL}(p\\|q)`);
- binding: `Reduction` (sum, prod, int, max/min/argmax, sup/inf, lim, E, softmax, topk… with variables,
  lower, upper, domain, distribution, condition), `Derivative`, `Differential`, `Gradient`;
- statements: `Relation` (chains `a = b \\le c`, with notes such as `\\overset{\\text{iid}}{\\sim}`), `Sequence`,
  `Rows` (align rows);
- structures: `Group`, `Tuple`, `Interval`, `Concat` (`[a; b]`), `SetLiteral`, `SetBuilder`, `Abs`, `Norm`,
  `Delimited` (floor, ceil, angle), `Indicator`, `Cases`, `Matrix`, `Annotated` (underbrace, overset, accents
  on expressions), `Ellipsis_`, `Empty`.
`walk`/`children` traverse it, `to_dict` gives the JSON form (`{"type": …, "span": [s, e], <fields>}`),
`ast.sexpr` a one-line view for tests and debugging.
"""
from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass

from ..errors import MathParseError
from . import ast
from .ast import Node, children, to_dict, walk
from .english import read_aloud
from .evidence import Decision, Evidence, Notation
from .parser import Parser, room_for_nesting
from .printer import to_latex
from .resolve import resolve

__all__ = ["parse", "parse_raw", "resolve_result", "row_is_open", "parse_rows", "ParseResult", "Decision", "Evidence", "Notation", "to_latex", "read_aloud", "walk", "children", "to_dict",
           "ast", "Node", "MathParseError"]


@dataclass(frozen=True)
class ParseResult:
    """The outcome of parsing one formula."""

    tree: Node
    """Root node of the syntax tree (an `ast.Rows` when the formula has several align rows)."""
    warnings: tuple[str, ...]
    """What tolerant mode got past: unknown macros, unbalanced delimiters (empty in strict mode)."""
    source: str
    """The formula as given; every span in the tree indexes into it."""
    decisions: tuple[Decision, ...] = ()
    """Every place syntax could not decide (application or product, label or power), what was decided there
    and the evidence; `reading == "ambiguous"` where nothing decided."""

    @property
    def ambiguous(self) -> tuple[Decision, ...]:
        """The decisions nothing could take: every stage that reads the tree says so."""
        return tuple(d for d in self.decisions if d.status == "ambiguous")


def parse_raw(latex: str, *, strict: bool = False, functions: frozenset[str] = frozenset()) -> ParseResult:
    """Parse one formula without deciding what syntax cannot: `Apply` nodes with certainty "ambiguous" and
    `Power` nodes whose exponent may be a label stay as the parser read them. A paper session parses every
    formula this way once, builds its notation index from all of them, then calls `resolve_result`."""
    if not isinstance(latex, str):
        raise MathParseError("formula must be a string", "", 0)
    try:
        with room_for_nesting():
            parser = Parser(latex, strict=strict, functions=functions)
            tree = parser.parse_formula()
    except RecursionError:
        raise MathParseError("formula nested too deeply", latex, 0) from None
    return ParseResult(tree, tuple(parser.warnings), latex)


def resolve_result(raw: ParseResult, notation: Notation) -> ParseResult:
    """Decide the open places of a raw parse from `notation` (a paper's index, or one formula's own)."""
    try:
        tree, decisions = resolve(raw.tree, raw.source, notation)
    except RecursionError:
        raise MathParseError("formula nested too deeply", raw.source, 0) from None
    return ParseResult(tree, raw.warnings, raw.source, decisions)


def parse(latex: str, *, strict: bool = False, functions: frozenset[str] = frozenset(),
          notation: Notation | None = None) -> ParseResult:
    """Parse one formula. `functions` names the paper declares or uses as functions (`\\DeclareMathOperator`).
    Without `notation` (a paper's notation index), what syntax cannot decide is decided from the formula's
    own evidence and conventions, recorded in `decisions` with that (weak) strength, or left ambiguous.

    Raises `MathParseError` (with offset and caret snippet) on malformed input, and in strict mode also on
    unknown macros and anything tolerant mode would only warn about.

    Without `notation`, the same formula with the same options is parsed once per process while it is among the
    last `PARSE_CACHE_SIZE` distinct ones (the result is immutable, so every stage may share it); declared
    operators the formula does not write are not part of "the same options".
    """
    if notation is not None:
        return resolve_result(parse_raw(latex, strict=strict, functions=functions), notation)
    if not isinstance(latex, str):
        raise MathParseError("formula must be a string", "", 0)
    # A declared operator the formula never writes cannot change its parse: leave it out, so that one formula
    # read with the paper's operators and without them is one parse (checked on every corpus formula).
    functions = frozenset(f for f in functions if f.lstrip("\\") in latex) if functions else frozenset()
    key = (latex, strict, functions)
    with _CACHE_LOCK:
        found = _CACHE.get(key)
        if found is not None:
            _CACHE.move_to_end(key)
    if found is None:
        found = _parse_alone(latex, strict, functions)
        with _CACHE_LOCK:
            _CACHE[key] = found
            while len(_CACHE) > PARSE_CACHE_SIZE:
                _CACHE.popitem(last=False)
    if isinstance(found, MathParseError):
        raise MathParseError(found.message, found.formula, found.offset, found.position)
    return found


PARSE_CACHE_SIZE = 8192
_CACHE: OrderedDict[tuple, ParseResult | MathParseError] = OrderedDict()
_CACHE_LOCK = threading.Lock()


def clear_parse_cache() -> None:
    """Forget every cached parse (benchmarks that time parsing, tests that count it)."""
    with _CACHE_LOCK:
        _CACHE.clear()
    ast._WALKED.clear()  # the walk orders of trees (held with them)


def _parse_alone(latex: str, strict: bool, functions: frozenset[str]) -> ParseResult | MathParseError:
    """A formula parsed and resolved on its own evidence, or the error."""
    try:
        raw = parse_raw(latex, strict=strict, functions=functions)
        return resolve_result(raw, Notation.of_formula(raw.tree, latex, functions))
    except MathParseError as error:
        return error


def parse_rows(latex: str, *, strict: bool = False, functions: frozenset[str] = frozenset()) -> tuple[ParseResult, ...]:
    """Parse an align body into one statement per row: `&` is layout, `\\\\` separates rows, and a row that
    starts with a relation or operator continues the previous statement. Spans index into `latex`."""
    result = parse(latex, strict=strict, functions=functions)
    tree = result.tree
    if isinstance(tree, ast.Rows):
        return tuple(ParseResult(s, result.warnings, latex) for s in tree.statements)
    return (result,)


def row_is_open(latex: str) -> bool:
    """Does this align row leave its statement open, so that the next row continues it even without a leading
    operator? It does when it ends in an operator that has not got its operand yet (`\\mathbb{E}_{p(x)}`,
    `\\sum_{t=1}^T`, a trailing `+` or `=`), or when a bracket it opens is still open (`\\Bigg[ …`,
    `\\left( … \\right.`: a null `\\right.` closes nothing for the reader). For the document builder: SISS (5)
    `\\ell_\\lambda(\\theta) = \\mathbb{E}_{…} \\mathbb{E}_{…} \\\\ \\Bigg[ … \\Bigg]` is one statement."""
    from .tokens import CMD, LBRACE, PUNCT, RBRACE, tokenize
    from .tables import BINARY_OPS, RELATIONS
    tokens = [t for t in tokenize(latex) if t.kind != "eof" and t.text not in ("&",)]
    depth = 0
    i = 0
    meaningful = None
    while i < len(tokens):
        t = tokens[i]
        nxt = tokens[i + 1] if i + 1 < len(tokens) else None
        if t.kind == CMD and t.text in ("\\left", "\\bigl", "\\Bigl", "\\biggl", "\\Biggl", "\\big", "\\Big",
                                         "\\bigg", "\\Bigg", "\\right", "\\bigr", "\\Bigr", "\\biggr", "\\Biggr"):
            if nxt is not None and nxt.text == ".":
                i += 2  # a null delimiter opens or closes nothing a reader sees
                continue
            i += 1
            continue
        if t.kind == CMD and t.text in ("\\label", "\\tag", "\\nonumber", "\\notag"):
            i += 1
            continue
        if (t.kind == PUNCT and t.text in "([") or (t.kind == CMD and t.text in ("\\{", "\\langle", "\\lbrace")):
            depth += 1
        elif (t.kind == PUNCT and t.text in ")]") or (t.kind == CMD and t.text in ("\\}", "\\rangle", "\\rbrace")):
            depth -= 1
        if t.kind not in (LBRACE, RBRACE):
            meaningful = t
        i += 1
    if depth > 0:
        return True
    if meaningful is not None and (meaningful.text in BINARY_OPS or meaningful.text in RELATIONS or
                                   meaningful.text in ("=", "<", ">")):
        return True
    try:
        tree = parse_raw(latex).tree
    except MathParseError:
        return False
    node = tree
    while True:
        if isinstance(node, ast.Rows) and node.statements:
            node = node.statements[-1]
        elif isinstance(node, ast.Relation):
            node = node.operands[-1]
        elif isinstance(node, (ast.BinOp,)):
            node = node.right
        elif isinstance(node, ast.UnaryOp):
            node = node.operand
        elif isinstance(node, ast.Product) and node.factors:
            node = node.factors[-1]
        elif isinstance(node, ast.Reduction):
            if node.body is None or isinstance(node.body, ast.Empty):
                return True  # `\mathbb{E}_{q(m_t \mid x, a)}` at the end of the row: its body is below
            node = node.body
        else:
            return False
