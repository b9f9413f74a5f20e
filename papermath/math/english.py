"""Syntax tree → plain English, read as the guides teach: name every operator and what it runs over.

`read_aloud(parse(r"\\mathbb E_{x\\sim p}[f(x)]").tree)` → "the expectation over x drawn from p of f of x".
"""
from __future__ import annotations

from . import ast as A
from . import operators as O

GREEK_NAMES = {"varepsilon": "epsilon", "vartheta": "theta", "varphi": "phi", "varrho": "rho",
               "varsigma": "sigma", "varpi": "pi", "ell": "ell", "infty": "infinity", "hbar": "h-bar"}

RELATION_WORDS = O.strings(O.RELATION, "words")
"""Relation → words, from the operator spec (`papermath.math.operators`)."""

PARTIAL_RELATIONS = {"<": "before", "\\le": "up to", ">": "after", "\\ge": "from"}
"""A relation with nothing on its left, as in an index (`y_{<t}`), read as a position."""

OP_WORDS = O.strings(O.BINOP, "words")
UNARY_WORDS = O.strings(O.UNARY, "words")
REDUCTION_WORDS = O.strings(O.REDUCTION, "words")
"""Infix, prefix and reduction operators → words, from the operator spec."""

FONT_WORDS = {"bf": "bold ", "cal": "calligraphic ", "bb": "blackboard ", "frak": "fraktur ", "scr": "script "}


def read_aloud(node: A.Node) -> str:
    """One line of English for the tree, read from the inside out."""
    return " ".join(_r(node).split())


def _name(sym: A.Symbol) -> str:
    bare = sym.name.lstrip("\\")
    word = GREEK_NAMES.get(bare, bare)
    font = FONT_WORDS.get(sym.font or "", "")
    out = font + word
    for accent in sym.accents:
        out = f"{out}-{accent}"
    if sym.primes:
        out += " prime" * sym.primes
    if sym.sub_label is not None:
        out += f" sub {_r(sym.sub_label)}"
    if sym.sup_label is not None:
        out += f" sup {_r(sym.sup_label)}"
    if sym.optimum:
        out += " star"
    return out


def _list(items) -> str:
    words = [_r(i) for i in items]
    if len(words) <= 1:
        return "".join(words)
    return ", ".join(words[:-1]) + " and " + words[-1]


def _r(node: A.Node) -> str:  # noqa: C901
    if isinstance(node, A.Symbol):
        return _name(node)
    if isinstance(node, A.Number):
        return node.value
    if isinstance(node, A.Empty):
        return ""
    if isinstance(node, A.Text):
        return f'"{node.text.strip()}"'
    if isinstance(node, A.Ellipsis_):
        return "and so on"
    if isinstance(node, A.Opaque):
        return f"{node.macro} (unknown)"
    if isinstance(node, A.Indexed):
        if len(node.indices) == 1 and isinstance(node.indices[0], A.Relation) and \
                isinstance(node.indices[0].operands[0], A.Empty):
            return f"{_r(node.base)} {_r(node.indices[0])}"  # `y_{<t}`: y before t
        return f"{_r(node.base)} at {_list(node.indices)}"
    if isinstance(node, A.Labeled):
        return f"{_r(node.base)} labelled {_r(node.label)}"
    if isinstance(node, A.Primed):
        return f"{_r(node.base)}" + " prime" * node.count
    if isinstance(node, A.Power):
        if isinstance(node.exponent, A.Number) and node.exponent.value == "2":
            return f"{_r(node.base)} squared"
        return f"{_r(node.base)} to the power {_r(node.exponent)}"
    if isinstance(node, A.Transpose):
        return f"{_r(node.base)} transposed"
    if isinstance(node, A.Inverse):
        return f"the inverse of {_r(node.base)}"
    if isinstance(node, A.Slice):
        return f"{_r(node.start) if node.start else 'the start'} through {_r(node.stop) if node.stop else 'the end'}"
    if isinstance(node, A.BinOp):
        return f"{_r(node.left)} {OP_WORDS.get(node.op, node.op)} {_r(node.right)}"
    if isinstance(node, A.UnaryOp):
        word = UNARY_WORDS.get(node.op, node.op)
        return f"{word} {_r(node.operand)}"
    if isinstance(node, A.Product):
        return " times ".join(_r(f) for f in node.factors)
    if isinstance(node, A.Apply):
        func = "the probability" if isinstance(node.func, A.Empty) else _r(node.func)
        out = f"{func} of {_list(node.args)}"
        if node.given:
            out += f" given {_list(node.given)}"
        if node.params:
            out += f" with parameters {_list(node.params)}"
        if node.certainty == "ambiguous":
            out += " (or a product)"
        return out
    if isinstance(node, A.Divergence):
        return f"the divergence {_r(node.func)} of {_r(node.left)} from {_r(node.right)}"
    if isinstance(node, A.Reduction):
        word = REDUCTION_WORDS.get(node.op) or O.DECLARED_REDUCTION.words.format(op=node.op)
        parts = [word]
        if node.variables:
            parts.append(f"over {_list(node.variables)}")
        if node.distribution is not None:
            parts.append(f"drawn from {_r(node.distribution)}")
        if node.domain is not None:
            parts.append(f"in {_r(node.domain)}")
        if node.lower is not None:
            parts.append(f"from {_r(node.lower)}")
        if node.upper is not None:
            parts.append(f"to {_r(node.upper)}")
        if node.condition is not None:
            parts.append(f"where {_r(node.condition)}")
        if node.body is not None and not isinstance(node.body, A.Empty):
            parts.append(f"of {_r(node.body)}")
        return " ".join(parts)
    if isinstance(node, A.Derivative):
        kind = "partial derivative" if node.kind == "partial" else "derivative"
        body = f" of {_r(node.body)}" if node.body is not None else ""
        return f"the {kind}{body} with respect to {_list(node.wrt)}"
    if isinstance(node, A.Differential):
        return f"{'partial ' if node.kind == 'partial' else ''}d {_r(node.body)}"
    if isinstance(node, A.Gradient):
        wrt = f" with respect to {_r(node.wrt)}" if node.wrt is not None else ""
        body = f" of {_r(node.body)}" if node.body is not None else ""
        return f"the gradient{body}{wrt}"
    if isinstance(node, A.Relation):
        if isinstance(node.operands[0], A.Empty) and len(node.ops) == 1 and node.ops[0] in PARTIAL_RELATIONS:
            return f"{PARTIAL_RELATIONS[node.ops[0]]} {_r(node.operands[1])}"  # `y_{<t}`: y before t
        out = _r(node.operands[0])
        for op, operand in zip(node.ops, node.operands[1:]):
            out += f" {RELATION_WORDS.get(op, op)} {_r(operand)}"
        return out
    if isinstance(node, A.Frac):
        return f"{_r(node.num)} over {_r(node.den)}"
    if isinstance(node, A.Root):
        if node.index is not None:
            return f"the {_r(node.index)}-th root of {_r(node.body)}"
        return f"the square root of {_r(node.body)}"
    if isinstance(node, A.Group):
        return f"({_r(node.body)})"
    if isinstance(node, A.Tuple):
        return f"the tuple {_list(node.items)}"
    if isinstance(node, A.Interval):
        left = "closed" if node.left_closed else "open"
        right = "closed" if node.right_closed else "open"
        return f"the interval from {_r(node.lower)} ({left}) to {_r(node.upper)} ({right})"
    if isinstance(node, A.Concat):
        return f"the concatenation of {_list(node.items)}"
    if isinstance(node, A.SetLiteral):
        return f"the set of {_list(node.items)}"
    if isinstance(node, A.SetBuilder):
        return f"the set of {_r(node.element)} such that {_r(node.condition)}"
    if isinstance(node, A.Abs):
        return f"the absolute value of {_r(node.body)}"
    if isinstance(node, A.Norm):
        order = f" {_r(node.order)}-" if node.order is not None else " "
        return f"the{order}norm of {_r(node.body)}"
    if isinstance(node, A.Delimited):
        return f"the {node.kind} of {_r(node.body)}"
    if isinstance(node, A.Indicator):
        return f"1 if {_r(node.condition)} else 0"
    if isinstance(node, A.Cases):
        return "; ".join(f"{_r(v)} if {_r(c)}" if c is not None else _r(v) for v, c in node.rows)
    if isinstance(node, A.Matrix):
        return f"a {len(node.rows)}-row matrix [" + "; ".join(", ".join(_r(c) for c in row) for row in node.rows) + "]"
    if isinstance(node, A.Binom):
        return f"{_r(node.n)} choose {_r(node.k)}"
    if isinstance(node, A.Factorial):
        return f"{_r(node.body)} factorial"
    if isinstance(node, A.Annotated):
        if node.kind == "evaluated":
            return f"{_r(node.body)} evaluated at {_r(node.note)}"
        if node.kind == "condition":  # `\text{for } i = 1, …, k`, `\forall x \in S`: read as written
            lead = "" if isinstance(node.note, A.Empty) else _r(node.note) + " "
            return f"{lead}{_r(node.body)}"
        return f"{_r(node.body)} ({_r(node.note)})"
    if isinstance(node, A.Sequence):
        return "; ".join(_r(i) for i in node.items)
    if isinstance(node, A.Rows):
        return ". ".join(_r(s) for s in node.statements)
    return type(node).__name__
