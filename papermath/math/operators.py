"""One spec per operator, shared by every stage (in the manner of LaTeXML's per-symbol roles and KaTeX's
`defineSymbol`): a frozen row per canonical operator the tree carries — `BinOp.op`, `UnaryOp.op`, `Relation.ops`,
`Reduction.op` — saying how each stage handles it, or that it refuses it and why.

Stages and the column each reads:
- parser (`math/tables.py`, which stays the authority on spellings and binding power): `spellings`, `precedence`
  are gathered from its tables, so a row lists every LaTeX token that becomes the operator;
- printer (`math/printer.py`): `latex`, what it writes back (the canonical token itself);
- read aloud (`math/english.py`): `words`;
- explain (`analysis/explain.py`): `symbol` (its plain-text form), `explain` (notation entry, meaning, code analog)
  and `python` (the operator in its inline code forms);
- shapes (`analysis/shapes.py`): `shape`, a rule name;
- numbers (`evaluate/lower.py`): `evaluate`, an operation name; codegen writes the code the evaluator emits, so its
  column is `numpy`/`torch`, the templates of that code (`{0}`, `{1}` the operands);
- HTML reader (`render/html.py`): `html`, the LaTeX head a reduction's panel shows;
- statement kinds (`analysis/read.py` via `analysis/cues.py`): `kind`, what a relation makes of the statement.

A column holding `Refused("why")` says the stage refuses the operator with that reason, in the stage's own words;
`None` in `words`/`symbol`/`explain` means the stage shows the operator as written and claims no meaning.
`tests/test_operators.py` checks, stage by stage, that what each stage does is what its column says and that no
stage handles an operator this table does not list. Where the stages disagreed, the meaning chosen follows guide
002's notation reference; each such decision is named in `DECISIONS`.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Optional, Union

from . import tables as T

BINOP, UNARY, RELATION, REDUCTION = "BinOp", "UnaryOp", "Relation", "Reduction"
NODE_FIELDS = {BINOP: "op", UNARY: "op", RELATION: "ops", REDUCTION: "op"}
"""Node type → the field the canonical operator appears in."""

STAGES = ("parser", "printer", "words", "explain", "shapes", "evaluate", "codegen", "html", "kinds")


@dataclass(frozen=True)
class Refused:
    """A stage refuses the operator: `reason` says why, in words a user reads."""

    reason: str
    """Why the stage does not handle it."""

    def __bool__(self) -> bool:  # `if spec.evaluate:` reads "if it is evaluated"
        return False


Column = Union[str, Refused, None]


@dataclass(frozen=True)
class Explained:
    """What `explain` says an operator means."""

    notation: Optional[str]
    """The notation dictionary entry it cites (`papermath/data/notation.json`), or None."""
    meaning: str
    """The reading, with the operands as `{left}`/`{right}` (`{lhs}`/`{rhs}` for a relation)."""
    code: str
    """The code analog, same placeholders."""


@dataclass(frozen=True)
class OperatorSpec:
    """How every stage handles one canonical operator."""

    op: str
    """The canonical token as the tree carries it (`\\circ`, `:=`, `sum`)."""
    node: str
    """The node type it appears in: BinOp, UnaryOp, Relation or Reduction (field `NODE_FIELDS[node]`)."""
    words: Optional[str]
    """Read aloud (`x composed with y`); None: read as written."""
    symbol: Optional[str] = None
    """Plain-text form in explain's steps (`∘`); None: the LaTeX as written."""
    explain: Optional[Explained] = None
    """explain's meaning and code analog; None: the generic `left op right` reading."""
    python: Optional[str] = None
    """The operator in explain's inline code forms (`*`, `|`); None: the LaTeX as written."""
    shape: Column = None
    """Shape rule (`elementwise`, `divide`, `product`, `dot`, `outer`, `operand`, `define`, `compare`) or Refused."""
    evaluate: Column = None
    """Evaluation (`add`, `sub`, `mul`, `div`, `dot`, `product` (as juxtaposition), `outer`, `neg`, `not`, `identity`,
    `define`, `update`, `approximate`, `equivalent`, `define-right`, `compare`, `proportional`, `reduce`,
    `expectation`, `softmax`) or Refused. The relations that define, approximate, restate or update compute their
    left side from the right."""
    numpy: Optional[str] = None
    """Template of the NumPy code the evaluator writes for it on two matrices (codegen's source)."""
    torch: Optional[str] = None
    """Template of the PyTorch code."""
    test: Optional[str] = None
    """Relations: the comparison, as a NumPy function name, used where the relation is a test (`less_equal`)."""
    html: Optional[str] = None
    """Reductions: the LaTeX head the HTML reader's panel shows (`\\sum`)."""
    kind: Optional[str] = None
    """Relations: the kind of statement the relation makes (`analysis/read.py`): definition, update rule, estimator,
    bound or constraint (an inequality), constraint (a membership), computation or definition (`=`: the text
    decides); None: the relation says nothing about the kind."""
    spellings: tuple[str, ...] = ()
    """LaTeX tokens the parser turns into this operator (from `tables.py`)."""
    precedence: Optional[int] = None
    """Binding power of an infix operator (`tables.ADDITIVE`/`MULTIPLICATIVE`), from `tables.py`."""
    latex: str = field(default="")
    """What the printer writes (the canonical token)."""

    def handles(self, stage: str) -> bool:
        """True when `stage` gives the operator a meaning of its own (not refused, not shown as written)."""
        return bool(self.column(stage))

    def column(self, stage: str) -> Column:
        """The entry for `stage` (one of `STAGES`)."""
        if stage == "parser":
            return self.op if self.spellings else None
        if stage == "printer":
            return self.latex or self.op
        if stage == "codegen":  # the code is written by the evaluator's pass: it handles what numbers handle
            if isinstance(self.evaluate, Refused) or self.evaluate is None:
                return self.evaluate
            return self.numpy or self.evaluate
        return getattr(self, {"shapes": "shape", "kinds": "kind"}.get(stage, stage))

    def refusal(self, stage: str) -> Optional[str]:
        """The reason `stage` refuses the operator, or None."""
        value = self.column(stage)
        return value.reason if isinstance(value, Refused) else None


def _x(notation: Optional[str], meaning: str, code: str) -> Explained:
    return Explained(notation, meaning, code)


# Shared refusals: the reason is the stage's message.
_SETS = Refused("a set operation: papermath computes numbers, not sets")
_SET_SHAPE = Refused("a set operation: a set has no array shape")
_LOGIC = Refused("a logical connective between statements, not arithmetic on arrays")
_NOT_AN_ARRAY_OP = Refused("no arithmetic meaning papers agree on")
_TWO_VALUES = Refused("± names two values (or a value and its spread): there is no one number to compute")
_COMPOSITION = Refused("∘ composes functions (f ∘ g: apply g, then f) — papermath evaluates values, not functions "
                       "(if the paper means the elementwise product, it is \\odot)")
_CIRCLED_PLUS = Refused("⊕ is concatenation in most ML papers, a direct sum or XOR elsewhere — the paper says which")
_STATEMENT = Refused("a statement about the two sides, not a computation")
_ORDER_OF_MAGNITUDE = Refused("an order of magnitude, not a test papermath can check on numbers")
_CONDITION_BAR = Refused("a condition bar (given / such that), not a computation")

# --- infix operators (BinOp.op) ---------------------------------------------------------------------------------

_BINARY_ROWS: tuple[OperatorSpec, ...] = (
    OperatorSpec("+", BINOP, "plus", "+", _x(None, "{left} plus {right}", "{left} + {right}"), "+",
                 "elementwise", "add", "{0} + {1}", "{0} + {1}"),
    OperatorSpec("-", BINOP, "minus", "−", _x(None, "{left} minus {right}", "{left} - {right}"), "-",
                 "elementwise", "sub", "{0} - {1}", "{0} - {1}"),
    OperatorSpec("*", BINOP, "times", "*", None, "*", "elementwise", "mul", "{0} * {1}", "{0} * {1}"),
    OperatorSpec("/", BINOP, "divided by", "/", _x(None, "{left} divided by {right}", "{left} / {right}"), "/",
                 "divide", "div", "{0} / {1}", "{0} / {1}"),
    OperatorSpec("\\div", BINOP, "divided by", "÷", _x(None, "{left} divided by {right}", "{left} / {right}"), "/",
                 "divide", "div", "{0} / {1}", "{0} / {1}"),
    OperatorSpec("\\cdot", BINOP, "times", "·",
                 _x("dot-product", "{left} · {right}: a dot product of vectors (multiply entries, then add), or a "
                    "plain product of numbers", "{left} @ {right}  # or {left} * {right} for numbers"), "*",
                 "dot", "dot", "{0} @ {1}", "{0} @ {1}"),
    OperatorSpec("\\times", BINOP, "times", "×",
                 _x("shape-product", "{left} × {right}: sizes of a shape, or a product of numbers",
                    "({left}, {right})  # a shape; or {left} * {right}"), "*",
                 "product", "product", "{0} @ {1}", "{0} @ {1}"),
    OperatorSpec("\\bullet", BINOP, "times", "•", None, "*", "product", "product", "{0} @ {1}", "{0} @ {1}"),
    OperatorSpec("\\odot", BINOP, "elementwise times", "⊙",
                 _x("hadamard", "the elementwise (Hadamard) product of {left} and {right}", "{left} * {right}"), "*",
                 "elementwise", "mul", "{0} * {1}", "{0} * {1}"),
    OperatorSpec("\\oslash", BINOP, "elementwise divided by", "⊘",
                 _x(None, "{left} divided by {right}, entry by entry", "{left} / {right}"), "/",
                 "elementwise", "div", "{0} / {1}", "{0} / {1}"),
    OperatorSpec("\\otimes", BINOP, "tensor product with", "⊗",
                 _x("outer-product", "the tensor product of {left} and {right}: the outer product of two vectors "
                    "(a matrix with one entry per pair), the Kronecker product of two matrices",
                    "np.kron({left}, {right})  # np.outer for two vectors"), None,
                 "outer", "outer", "np.kron({0}, {1})", "torch.kron({0}, {1})"),
    OperatorSpec("\\circ", BINOP, "composed with", "∘",
                 _x(None, "{left} ∘ {right}: the composition — apply {right}, then {left} (a few papers write ∘ for "
                    "the elementwise product: the paper says which)", "lambda v: {left}({right}(v))"), None,
                 _COMPOSITION, _COMPOSITION),
    OperatorSpec("\\oplus", BINOP, "circled plus", "⊕",
                 _x(None, "{left} ⊕ {right}: concatenation in most ML papers (a direct sum or XOR elsewhere) — the "
                    "paper says which",
                    "np.concatenate([{left}, {right}], axis=-1)  # if the paper means concatenation"),
                 None, _CIRCLED_PLUS, _CIRCLED_PLUS),
    OperatorSpec("\\pm", BINOP, "plus or minus", "±",
                 _x("pm", "{left} ± {right}: a value with a measure of variation — a standard deviation, a standard "
                    "error or a confidence half-width; the caption says which",
                    "papermath compare '{left}±{right}' OTHER --runs N --spread sd|se"), None,
                 "elementwise", _TWO_VALUES),
    OperatorSpec("\\mp", BINOP, "minus or plus", "∓", None, None, "elementwise", _TWO_VALUES),
    OperatorSpec("\\cup", BINOP, "union", "∪",
                 _x("set-operations", "the members in either {left} or {right} (union)", "{left} | {right}"), "|",
                 _SET_SHAPE, _SETS),
    OperatorSpec("\\cap", BINOP, "intersect", "∩",
                 _x("set-operations", "the members in both {left} and {right} (intersection; for events: both happen)",
                    "{left} & {right}"), "&", _SET_SHAPE, _SETS),
    OperatorSpec("\\setminus", BINOP, "minus the set", "∖",
                 _x("set-operations", "the members of {left} not in {right}", "{left} - {right}"), "-",
                 _SET_SHAPE, _SETS),
    OperatorSpec("\\wedge", BINOP, "and", "∧", None, "and", _LOGIC, _LOGIC),
    OperatorSpec("\\vee", BINOP, "or", "∨", None, "or", _LOGIC, _LOGIC),
) + tuple(
    OperatorSpec(op, BINOP, None, None, None, None, _NOT_AN_ARRAY_OP, _NOT_AN_ARRAY_OP)
    for op in ("\\sqcup", "\\uplus", "\\ominus", "\\circledast", "\\sqcap", "\\star", "\\diamond", "\\boxtimes",
               "\\boxplus", "\\ltimes", "\\rtimes", "\\amalg", "\\wr", "\\bmod", "\\triangleleft", "\\triangleright")
)

# --- prefix operators (UnaryOp.op) ------------------------------------------------------------------------------

_UNARY_ROWS: tuple[OperatorSpec, ...] = (
    OperatorSpec("-", UNARY, "minus", "−", _x(None, "the negative of {operand}", "-{operand}"), "-",
                 "operand", "neg", "-{0}", "-{0}"),
    OperatorSpec("+", UNARY, "plus", "+", None, "+", "operand", "identity", "{0}", "{0}"),
    OperatorSpec("\\neg", UNARY, "not", "¬", None, "not ", "operand", "not", "1.0 - {0}", "1.0 - {0}"),
    OperatorSpec("\\pm", UNARY, "plus or minus", "±", None, None, "operand", _TWO_VALUES),
    OperatorSpec("\\mp", UNARY, "minus or plus", "∓", None, None, "operand", _TWO_VALUES),
)

# --- relations (Relation.ops) -------------------------------------------------------------------------------------


def _rel(op: str, words: Optional[str], symbol: Optional[str] = None, explain: Optional[Explained] = None,
         python: Optional[str] = None, shape: Column = "compare", evaluate: Column = _STATEMENT,
         test: Optional[str] = None, numpy: Optional[str] = None, kind: Optional[str] = None) -> OperatorSpec:
    return OperatorSpec(op, RELATION, words, symbol, explain, python, shape, evaluate, numpy, numpy, test, kind=kind)


_DEFINITION = _x("definition", "{lhs} is defined as {rhs}: a new name for an expression",
                 "{lhs} = {rhs}  # a new name, not a test of equality")

_RELATION_ROWS: tuple[OperatorSpec, ...] = (
    _rel("=", "equals", "=", _x(None, "{lhs} equals {rhs}", "{lhs} = {rhs}"), "==", "define", "define",
         "equal", "{0} == {1}", kind="computation or definition"),
    _rel(":=", "is defined as", ":=", _DEFINITION, "=", "define", "define", kind="definition"),
    _rel("\\triangleq", "is defined as", "≜", _DEFINITION, "=", "define", "define", kind="definition"),
    _rel("\\doteq", "is defined as", "≐", _DEFINITION, "=", "define", "define", kind="definition"),
    _rel("=:", "defines", "=:", None, "=", "compare", "define-right", kind="definition"),
    _rel("\\equiv", "is equivalent to", "≡", None, None, "define", "equivalent", kind="definition"),
    _rel("\\approx", "is approximately", "≈",
         _x("approx", "{lhs} is approximately {rhs}: the right side estimates or approximates the left",
            "{lhs} = {rhs}  # an approximation of {lhs}"), "≈", "define", "approximate", "isclose",
         "np.isclose({0}, {1}, rtol=1e-2)", kind="estimator"),
    _rel("\\leftarrow", "is updated to", "←",
         _x("assignment", "assignment, as in an update rule: {lhs} gets the new value {rhs}", "{lhs} = {rhs}"), "=",
         "define", "update", kind="update rule"),
    _rel("\\propto", "is proportional to", "∝",
         _x("proportional", "{lhs} is proportional to {rhs}: equal up to a normalizing constant that is left out",
            "{lhs} = {rhs}; {lhs} = {lhs} / {lhs}.sum()  # normalize"), None, "compare", "proportional"),
    _rel("<", "is less than", "<", _x(None, "{lhs} is less than {rhs}", "{lhs} < {rhs}"), "<", evaluate="compare",
         test="less", numpy="{0} < {1}", kind="bound or constraint"),
    _rel(">", "is greater than", ">", _x(None, "{lhs} is greater than {rhs}", "{lhs} > {rhs}"), ">",
         evaluate="compare", test="greater", numpy="{0} > {1}", kind="bound or constraint"),
    _rel("\\le", "is at most", "≤", _x(None, "{lhs} is at most {rhs}", "{lhs} <= {rhs}"), "<=", evaluate="compare",
         test="less_equal", numpy="{0} <= {1}", kind="bound or constraint"),
    _rel("\\ge", "is at least", "≥", _x(None, "{lhs} is at least {rhs}", "{lhs} >= {rhs}"), ">=",
         evaluate="compare", test="greater_equal", numpy="{0} >= {1}", kind="bound or constraint"),
    _rel("\\ne", "is not equal to", "≠", None, "!=", evaluate="compare", test="not_equal", numpy="{0} != {1}",
         kind="bound or constraint"),
    _rel("\\ll", "is much less than", "≪",
         _x("much-less", "{lhs} is much smaller than {rhs}", "{lhs} < {rhs}  # by a large factor"),
         evaluate=_ORDER_OF_MAGNITUDE, kind="bound or constraint"),
    _rel("\\gg", "is much greater than", "≫",
         _x("much-less", "{lhs} is much larger than {rhs}", "{lhs} > {rhs}  # by a large factor"),
         evaluate=_ORDER_OF_MAGNITUDE, kind="bound or constraint"),
    _rel("\\sim", "is drawn from", "∼",
         _x("sample", "{lhs} is drawn from the distribution {rhs} — a sample", "{lhs} = {rhs}.sample()"),
         evaluate=Refused("a sampling statement: the expectation that draws it is what is computed")),
    _rel("\\in", "is in", "∈", _x("membership", "{lhs} belongs to {rhs}", "{lhs} in {rhs}"), "in", "declare",
         Refused("a membership statement (a declaration); inside a condition it is a test"), "isin",
         kind="constraint"),
    _rel("\\notin", "is not in", "∉", None, "not in", "compare",
         Refused("a membership statement (a declaration); inside a condition it is a test"), "isin_not",
         kind="constraint"),
    _rel("\\subset", "is a subset of", "⊂", evaluate=_SETS, kind="constraint"),
    _rel("\\subseteq", "is a subset of", "⊆", evaluate=_SETS, kind="constraint"),
    _rel("\\to", "goes to", "→", ),
    _rel("\\mapsto", "maps to", "↦", ),
    _rel("\\Rightarrow", "implies", "⇒", evaluate=_LOGIC),
    _rel("\\iff", "if and only if", None, evaluate=_LOGIC),
    _rel(":", "such that", ":", evaluate=_CONDITION_BAR),
    _rel("\\mid", "given", "|",
         _x(None, "{lhs} | {rhs}: a condition bar — {lhs} given {rhs} (in a set: such that)", "{lhs}  # given {rhs}"),
         evaluate=_CONDITION_BAR),
    _rel("\\parallel", "versus", "‖",
         _x(None, "{lhs} ‖ {rhs}: the double bar only separates two arguments whose order matters, as in a "
            "divergence D(p ‖ q)", "({lhs}, {rhs})  # in this order"),
         evaluate=Refused("‖ separates the two arguments of a divergence; alone it computes nothing")),
    _rel("\\simeq", "is similar to", ),
    _rel("\\cong", "is congruent to", ),
    _rel("\\perp", "is orthogonal to", ),
)
_RELATION_WORDLESS = Refused("a relation papermath does not interpret")


def _relation_rows() -> tuple[OperatorSpec, ...]:
    """Every canonical relation the parser emits: the rows above, and the rest shown as written."""
    named = {row.op for row in _RELATION_ROWS}
    rest = sorted({canon for key, canon in T.RELATIONS.items() if not key.endswith("_")} - named)
    return _RELATION_ROWS + tuple(_rel(op, None, evaluate=_RELATION_WORDLESS) for op in rest)


# --- reductions (Reduction.op) ------------------------------------------------------------------------------------

_NOT_NUMERIC = Refused("is not evaluated numerically")


def _red(op: str, words: str, symbol: Optional[str], html: Optional[str], evaluate: Column = _NOT_NUMERIC,
         shape: str = "body", explain: Optional[Explained] = None) -> OperatorSpec:
    return OperatorSpec(op, REDUCTION, words, symbol, explain, None, shape, evaluate, html=html)


_REDUCTION_ROWS: tuple[OperatorSpec, ...] = (
    _red("sum", "the sum", "Σ", "\\sum", "reduce", "reduce",
         explain=_x("sum", "add up {body} over the index {vars} — a loop, or an axis argument",
                    "{body}.sum()  # over {vars}")),
    _red("prod", "the product", "∏", "\\prod", "reduce", "reduce",
         explain=_x("product", "multiply {body} together over {vars} — a loop, or an axis argument",
                    "{body}.prod()  # over {vars}; in log space: np.log({body}).sum()")),
    _red("int", "the integral", "∫", "\\int",
         explain=_x("expectation-integral", "the integral of {body} over the whole range of {vars}",
                    "scipy.integrate.quad(lambda {vars}: {body}, -np.inf, np.inf)[0]")),
    _red("max", "the maximum", None, "\\max", "reduce", "reduce",
         explain=_x("max", "the largest value of {body} over {vars}", "{body}.max()  # over {vars}")),
    _red("min", "the minimum", None, "\\min", "reduce", "reduce",
         explain=_x("max", "the smallest value of {body} over {vars}", "{body}.min()  # over {vars}")),
    _red("argmax", "the argmax", None, "\\arg\\max", "reduce", "scalar",
         explain=_x("argmax", "the {vars} that makes {body} largest — the best choice, not the largest value",
                    "{vars}[np.argmax({body})]  # vs {body}.max() for the value")),
    _red("argmin", "the argmin", None, "\\arg\\min", "reduce", "scalar",
         explain=_x("min-vs-argmin", "the {vars} that makes {body} smallest — the minimizer, not the minimum",
                    "{vars}[np.argmin({body})]  # vs {body}.min() for the value")),
    _red("sup", "the supremum", None, "\\sup", "reduce"),
    _red("inf", "the infimum", None, "\\inf", "reduce"),
    _red("lim", "the limit", None, "\\lim"),
    _red("E", "the expectation", "E", "\\mathbb{E}", "expectation", "expectation",
         explain=_x("expectation-plain", "the average of {body} over its own distribution",
                    "{body}.mean()  # over samples of it")),
    _red("softmax", "the softmax", None, "\\operatorname{softmax}", "softmax", "softmax",
         explain=_x("softmax", "the softmax of {body} over {vars}: positive weights that sum to 1",
                    "scipy.special.softmax({body}, axis=...)  # the axis of {vars}")),
    _red("union", "the union", "⋃", "\\bigcup"),
    _red("intersection", "the intersection", "⋂", "\\bigcap"),
    _red("topk", "the top-k", None, "\\operatorname{topk}"),
    _red("mean", "the mean", None, "\\operatorname{mean}"),
    _red("median", "the median", None, "\\operatorname{median}"),
    _red("coprod", "the coproduct", "∐", "\\coprod"),
    _red("direct_sum", "the direct sum", "⨁", "\\bigoplus"),
    _red("tensor_product", "the tensor product", "⨂", "\\bigotimes"),
    _red("or", "the disjunction", "⋁", "\\bigvee"),
    _red("and", "the conjunction", "⋀", "\\bigwedge"),
    _red("disjoint_union", "the disjoint union", "⨆", "\\bigsqcup"),
    _red("multiset_union", "the multiset union", "⨄", "\\biguplus"),
    _red("hadamard_product", "the elementwise product", "⨀", "\\bigodot"),
    _red("limsup", "the limit superior", None, "\\limsup"),
    _red("liminf", "the limit inferior", None, "\\liminf"),
    _red("argsup", "the argsup", None, "\\operatorname{argsup}"),
    _red("arginf", "the arginf", None, "\\operatorname{arginf}"),
    _red("argtopk", "the top-k indices", None, "\\operatorname{argtopk}"),
    _red("Pr", "the probability", None, "\\Pr"),
    _red("logsumexp", "the log-sum-exp", None, "\\operatorname{logsumexp}"),
    _red("det", "the determinant", None, "\\det"),
    _red("gcd", "the greatest common divisor", None, "\\gcd"),
    _red("lcm", "the least common multiple", None, "\\operatorname{lcm}"),
    _red("sgn", "the sign", None, "\\operatorname{sgn}"),
)
STACK = _red("stack", "the stack", None, None, "reduce")
"""The evaluator's own reduction: one result per position of a free index (`y_i = …` for every i); no LaTeX
spelling, never in a parsed tree."""
DECLARED_REDUCTION = _red("", "the {op}", None, "\\operatorname{{{op}}}")
"""A reduction the paper declares (`\\DeclareMathOperator*{\\Agg}` used with limits): read as its name."""


# --- the table --------------------------------------------------------------------------------------------------

def _spelled(tokens) -> tuple[str, ...]:
    """Table keys that are tokens (`tables.py` parks disabled entries under names ending in `_`)."""
    return tuple(k for k in tokens if not k.endswith("_"))


def _with_parser(row: OperatorSpec) -> OperatorSpec:
    if row.node == BINOP:
        spellings = _spelled(k for k, (canon, _) in T.BINARY_OPS.items() if canon == row.op)
        levels = {level for k, (canon, level) in T.BINARY_OPS.items() if canon == row.op and k in spellings}
        precedence = levels.pop() if len(levels) == 1 else None
        return replace(row, spellings=spellings, precedence=precedence, latex=row.op)
    if row.node == UNARY:
        return replace(row, spellings=_spelled(k for k, canon in T.UNARY_OPS.items() if canon == row.op), latex=row.op)
    if row.node == RELATION:
        spellings = _spelled(k for k, canon in T.RELATIONS.items() if canon == row.op)
        spellings += tuple(s for s in _PARSER_RELATION_TOKENS.get(row.op, ()) if s not in spellings)
        return replace(row, spellings=spellings, latex=row.op)
    bigops = _spelled(k for k, canon in {**T.BIG_OPERATORS, **T.PREFIX_BIG_BINARY}.items() if canon == row.op)
    limops = _spelled(k for k, canon in T.LIMIT_OPERATORS.items() if canon == row.op)
    spellings = tuple("\\" + k for k in bigops + limops) + (("\\mathbb{E}",) if row.op == "E" else ())
    return replace(row, spellings=spellings, latex=row.html or row.op)


_PARSER_RELATION_TOKENS: dict[str, tuple[str, ...]] = {
    "=": ("=",), "<": ("<",), ">": (">",), ":": (":",), ":=": (":=",), "=:": ("=:",), "\\le": ("<=",),
    "\\ge": (">=",), "\\mid": ("\\mid", "\\divides", "|"), "\\parallel": ("\\parallel",),
}
"""Relations the parser recognises in code rather than from `tables.RELATIONS` (two-token `:=`, bars)."""

SPECS: tuple[OperatorSpec, ...] = tuple(_with_parser(row) for row in
                                        _BINARY_ROWS + _UNARY_ROWS + _relation_rows() + _REDUCTION_ROWS + (STACK,))
"""Every operator, one row each."""

_BY_KEY: dict[tuple[str, str], OperatorSpec] = {(s.node, s.op): s for s in SPECS}
_NEGATABLE_BASES = frozenset(T.RELATIONS.values()) | {"=", "<", ">", "\\mid"}


def spec(node: str, op: str) -> Optional[OperatorSpec]:
    """The row for `op` in a node of type `node` (BinOp, UnaryOp, Relation, Reduction), or None."""
    return relation(op) if node == RELATION else _BY_KEY.get((node, op))


def binary(op: str) -> Optional[OperatorSpec]:
    """The row of an infix operator (`BinOp.op`)."""
    return _BY_KEY.get((BINOP, op))


def unary(op: str) -> Optional[OperatorSpec]:
    """The row of a prefix operator (`UnaryOp.op`)."""
    return _BY_KEY.get((UNARY, op))


NEGATED = replace(_rel("\\not", None, evaluate=Refused("a negated relation papermath does not interpret")),
                  spellings=("\\not",), latex="\\not")
"""`\\not` before a relation `tables.NEGATABLE` has no negation for (`\\not\\prec`): the parser writes `\\not\\prec`."""


def relation(op: str) -> Optional[OperatorSpec]:
    """The row of a relation (one of `Relation.ops`); `NEGATED` for `\\not` + a relation with no negated form."""
    found = _BY_KEY.get((RELATION, op))
    if found is None and op.startswith("\\not") and op[4:] in _NEGATABLE_BASES:
        return NEGATED
    return found


def reduction(op: str) -> Optional[OperatorSpec]:
    """The row of a reduction (`Reduction.op`)."""
    return _BY_KEY.get((REDUCTION, op))


def rows(node: str) -> tuple[OperatorSpec, ...]:
    """Every row of one node type."""
    return tuple(s for s in SPECS if s.node == node)


def column(node: str, stage: str) -> dict[str, Column]:
    """`{op: entry}` for one node type and stage, leaving out operators the stage shows as written."""
    return {s.op: s.column(stage) for s in rows(node) if s.column(stage) is not None}


def strings(node: str, stage: str) -> dict[str, str]:
    """`{op: text}` for a column of plain strings (words, symbol, python, html, numpy), leaving out the rest."""
    return {s.op: value for s in rows(node) if isinstance(value := s.column(stage), str)}


def handled(node: str, stage: str) -> frozenset[str]:
    """The operators of `node` that `stage` handles, according to the spec."""
    return frozenset(s.op for s in rows(node) if s.handles(stage))


def evaluated(node: str, how: str) -> frozenset[str]:
    """The operators of `node` the evaluator handles as `how` (`define`, `compare`, `mul`…)."""
    return frozenset(s.op for s in rows(node) if s.evaluate == how)


def kinded(node: str, kind: str) -> frozenset[str]:
    """The operators of `node` that make a statement of `kind` (`definition`, `update rule`, `constraint`…)."""
    return frozenset(s.op for s in rows(node) if s.kind == kind)


def shaped(node: str, rule: str) -> frozenset[str]:
    """The operators of `node` whose shape rule is `rule`."""
    return frozenset(s.op for s in rows(node) if s.shape == rule)


DECISIONS: dict[tuple[str, str], str] = {
    (BINOP, "\\circ"): "composition everywhere (words, explain); numbers, shapes and code refuse it with the reason "
                       "(it was 'composed with' in words and an elementwise product in numbers and shapes)",
    (BINOP, "\\div"): "division everywhere (it was read aloud and explained as division but refused by numbers and "
                      "shapes)",
    (BINOP, "\\otimes"): "tensor product: outer for vectors, Kronecker for matrices, in words, explain and numbers "
                         "(explain had no meaning and wrote '\\otimes' into code)",
    (BINOP, "\\oplus"): "not guessed: read as 'circled plus', explained as concatenation-or-direct-sum, refused by "
                        "numbers (it was read aloud as 'direct sum'; ML papers mostly mean concatenation)",
    (BINOP, "\\bullet"): "a product, as numbers and shapes computed it (read aloud as '\\bullet' before)",
    (BINOP, "\\oslash"): "elementwise division, as numbers computed it (read aloud as '\\oslash' before)",
    (UNARY, "\\pm"): "'plus or minus', as for the infix ± (read aloud as '\\pm' before)",
    (UNARY, "\\mp"): "'minus or plus', as for the infix ∓",
    (RELATION, "\\triangleq"): "a definition everywhere (explain read it as a generic relation and wrote "
                               "'\\triangleq' into code)",
    (RELATION, "=:"): "a definition of the right side: numbers evaluate it as rhs := lhs, its statement kind is a "
                      "definition (numbers refused it, kinds called it a computation)",
    (RELATION, "\\doteq"): "a definition (Sutton & Barto's ≐) everywhere, as the statement kinds already read it "
                            "(numbers refused it, read aloud and explain showed it as written)",
    (RELATION, "\\approx"): "the right side approximates the left: numbers compute it as a definition, explain's "
                            "code analog says the same (it was np.isclose there); in a condition it is a test",
    (RELATION, "\\mid"): "a condition bar, read 'given' (it was read aloud as 'divides', number theory)",
    (RELATION, "\\parallel"): "the divergence's argument separator, read 'versus' (guide 002)",
}
"""Where the stages disagreed before this table, and the one meaning chosen (guide 002 is the authority)."""
