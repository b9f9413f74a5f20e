"""Syntax tree → normalized LaTeX, such that `parse(to_latex(t)).tree == t` (spans aside).

Normalization: canonical macros (`\\le`, `\\to`, `\\mathbb{E}`), every script braced, `\\frac{…}{…}`,
derivatives as fractions. Braces (transparent to the parser) are added wherever the tree's grouping
would otherwise be read differently: a lower-precedence child, or an operator whose body would swallow
what follows (`{\\sum_i a_i} b`).
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any, Optional, TypeGuard

from . import ast as A
from . import tables as T
from .parser import CONNECTIVES, _extend_scope, call_certainty, classify_sub

_ADD = {op for op, (_, p) in T.BINARY_OPS.items() if p == T.ADDITIVE}
_CANON_ADD = {T.BINARY_OPS[op][0] for op in _ADD}

# Precedence levels of printed nodes.
SEQ, REL, ADD, MUL, UNARY, PROD, ATOM = 0, 1, 2, 3, 4, 5, 9

# What an open-ended node would swallow if more followed it.
JUXT, MULT, ALL = 1, 2, 3


_CLOSERS = {".": "\\right.", "floor": "\\rfloor ", "ceil": "\\rceil ", ">": "\\rangle ", "}": "\\}",
            "||": "\\rVert ", "|": "\\rvert ", "]]": "\\rrbracket "}


def to_latex(node: A.Node) -> str:
    """Normalized LaTeX for a tree (or any subtree)."""
    if isinstance(node, A.Rows):
        # one statement per row, braced so that no row reads as the continuation of another
        return " \\\\ ".join("{" + _p(s) + "}" for s in node.statements)
    return _p(node)


def _prec(node: A.Node) -> int:
    if isinstance(node, (A.Sequence, A.Rows)):
        return SEQ
    if isinstance(node, A.Relation):
        return REL
    if isinstance(node, A.BinOp):
        return ADD if node.op in _CANON_ADD else MUL
    if isinstance(node, A.UnaryOp):
        return UNARY
    if isinstance(node, A.Product):
        return PROD
    if isinstance(node, A.Reduction) and not node.brackets:
        return MUL
    if isinstance(node, A.Apply) and node.brackets == "":
        return PROD
    if isinstance(node, (A.Gradient,)):
        return PROD
    if isinstance(node, A.Derivative) and node.body is not None:
        return PROD
    return ATOM


def _absorbs(node: A.Node) -> int:
    """How much of what follows this node, printed, would the parser pull into it."""
    rule = _ABSORBS.get(type(node))
    return rule(node) if rule is not None else 0


def _reduction_absorbs(node: A.Reduction) -> int:
    if node.brackets:
        return 0
    if node.body is None:
        return ALL
    return max(MULT, _absorbs(node.body))


def _apply_absorbs(node: A.Apply) -> int:
    if node.brackets == "":
        return max(JUXT, _absorbs(node.args[-1]) if node.args else JUXT)
    return 0


def _operator_absorbs(node: A.Gradient | A.Derivative) -> int:
    """`\\nabla`, `\\frac{d}{dx}`: with no body, whatever follows is its body."""
    if node.body is None:
        return ALL
    return max(JUXT, _absorbs(node.body))


_SCRIPTED = (A.Indexed, A.Power, A.Labeled, A.Primed, A.Transpose, A.Inverse)


def _scripted_absorbs(node: A.Indexed | A.Power | A.Labeled | A.Primed | A.Transpose | A.Inverse) -> int:
    """A scripted operator name (`\\log_2`, `\\mathbb{E}_x`) still takes what follows as its argument."""
    base = node.base
    while isinstance(base, _SCRIPTED):
        base = base.base
    return ALL if isinstance(base, A.Symbol) and _prefix_capable(base) else 0


def _opaque_absorbs(node: A.Opaque) -> int:
    # `\begin {x}`: the tokenizer takes the group as the environment's name, space or not
    return ALL if not node.args and node.macro in _FOLDS_NEXT_GROUP else 0


def _takes_all(node: A.Node) -> int:
    return ALL


_ABSORBS: dict[type, Callable[[Any], int]] = {
    A.Reduction: _reduction_absorbs, A.Apply: _apply_absorbs, A.Gradient: _operator_absorbs,
    A.Derivative: _operator_absorbs, A.BinOp: lambda node: _absorbs(node.right),
    A.UnaryOp: lambda node: max(JUXT, _absorbs(node.operand)), A.Product: lambda node: _absorbs(node.factors[-1]),
    A.Relation: _takes_all, A.Sequence: _takes_all, A.Empty: _takes_all,
    A.Symbol: lambda node: ALL if _prefix_capable(node) else 0, A.Opaque: _opaque_absorbs,
    **dict.fromkeys(_SCRIPTED, _scripted_absorbs)}
"""Node type → how much of what follows it the parser would pull into it; any other type takes nothing (a
`Differential` neither)."""


_FOLDS_NEXT_GROUP = ("\\begin", "\\end")
"""Macros the parser's tokenizer folds with the brace group after them even across a space (an environment's
name); left bare (`\\begin]`), they are opaque symbols that must not meet a printed `{` next."""


def _prefix_capable(sym: A.Symbol) -> bool:
    """Would this symbol, followed by something, become an operator (`\\log x`, `\\mathbb{E}[x]`)?"""
    bare = sym.name.lstrip("\\")
    if sym.name == "E" or bare in T.EXPECTATION_NAMES:
        return True
    if sym.name == "1" and sym.font in ("bb", "bf"):
        return True
    if sym.name == "I" and sym.font == "bb":
        return True
    if sym.name in ("\\partial", "\\nabla") or sym.name in T.UNARY_OPS:
        return True
    if len(bare) > 1 and (bare in T.FUNCTION_MACROS or bare in T.LIMIT_OPERATORS or bare in T.BIG_OPERATORS
                          or bare in T.KNOWN_FUNCTIONS or bare == "arg" or bare.startswith("arg")):
        return True
    return False


def _closing_mark(node: A.Node) -> bool:
    """An index that is a closing delimiter (`m_]` in a mutated formula): it prints only as a script of its own."""
    return isinstance(node, A.Symbol) and node.name in T.CLOSE_DELIMS and node.name not in ("|", ".", ">")


def _split_at_marks(node: A.Indexed) -> A.Node:
    """The indices as nested scripts, each closing mark alone in its own (`m_{], k}` → `{m_]}_{k}`)."""
    base: A.Node = node.base
    group: list[A.Node] = []
    for index in node.indices:
        if _closing_mark(index):
            if group:
                base, group = A.Indexed(base, tuple(group)), []
            base = A.Indexed(base, (index,))
        else:
            group.append(index)
    return A.Indexed(base, tuple(group)) if group else base


def _leading_atom(node: A.Node) -> A.Node:
    """What a node's print starts with: `(a)^2` and `(a)_i` start with the bracket `(a)`."""
    while True:
        if isinstance(node, (A.Power, A.Indexed, A.Labeled, A.Primed, A.Transpose, A.Inverse)):
            node = node.base
        elif isinstance(node, A.Factorial):
            node = node.body
        elif isinstance(node, A.Product) and node.factors:
            node = node.factors[0]
        else:
            return node


def _needs_brackets(node: A.Indexed) -> bool:
    """An index the subscript parser would not read back as that one index (a product of running letters,
    `z[rj]`: `z_{rj}` is two indices, `z_{ab}` a label), on a plain name that takes a position in brackets."""
    base = node.base
    if not (isinstance(base, A.Symbol) and len(base.name) == 1 and base.name.isalpha() and base.font is None
            and not base.accents and base.sub_label is None and base.sup_label is None and not base.primes
            and not base.optimum) or _prefix_capable(base):
        return False  # `E[…]` is an expectation, not a position
    if not any(isinstance(i, A.Product) for i in node.indices):
        return False
    indices = tuple(node.indices)
    written = indices[0] if len(indices) == 1 else A.Sequence(indices, (",",) * (len(indices) - 1))
    return classify_sub(written, base) != ("index", indices)


def _reads_as_expectation(node: A.Node) -> bool:
    """A symbol the parser reads as an expectation when a `\\sim` subscript follows it (E, \\mathbb{E}, …)."""
    return isinstance(node, A.Symbol) and (node.name == "E" or node.name.lstrip("\\") in T.EXPECTATION_NAMES) \
        and not node.accents and not node.primes


def _splits_statement(node: A.Node) -> bool:
    """A factor the parser, met bare after another, reads as the start of a condition or a second statement
    (a quantifier, `\\text{for}`, `\\text{and}`): braced, it stays a factor."""
    if isinstance(node, A.Annotated):
        return node.kind == "condition"  # `\text{for} i`, `\forall x`: printed, it starts with one
    if isinstance(node, A.Symbol):
        return node.name in ("\\forall", "\\exists", "\\nexists") and node.font is None
    if isinstance(node, A.Text):
        word = " ".join(node.text.replace(",", " ").split()).lower()
        return word in CONNECTIVES or word.rstrip(":") in CONNECTIVES or word in ("and", "or", "and thus")
    return False


def _wrap(text: str) -> str:
    return "{" + text + "}"


def _child(node: A.Node, min_prec: int, followed: int = 0) -> str:
    """Print `node` as a child that must bind at least `min_prec`, followed by material that an
    open-ended node would absorb at level `followed` (0: nothing follows)."""
    text = _p(node)
    if _prec(node) < min_prec or (followed and _absorbs(node) >= followed) or \
            (min_prec > REL and _mark_name(node)):
        return _wrap(text)
    return text


def _simple_token(node: A.Node) -> bool:
    """Can this node be printed as a one-token macro argument / script (`x^\\le`, `\\sqrt<`)?"""
    if isinstance(node, A.Symbol):
        if node.sub_label is not None or node.sup_label is not None or node.primes or node.optimum:
            return False
        return len(node.name) == 1 or node.name.startswith("\\") and node.font is None and not node.accents
    return isinstance(node, A.Number) and len(node.value) == 1


def _mark(node: Optional[A.Node]) -> TypeGuard[A.Symbol]:
    """A symbol that would read as an operator, relation or delimiter inside braces."""
    return isinstance(node, A.Symbol) and _simple_token(node) and not node.name.isalnum() and \
        node.name.lstrip("\\") not in T.GREEK and node.name.lstrip("\\") not in T.LETTER_LIKE


def _mark_name(node: A.Node) -> bool:
    """A symbol named by an operator, relation or punctuation character (with or without scripts)."""
    return isinstance(node, A.Symbol) and not node.name.isalnum() and len(node.name) >= 1 and \
        node.name.lstrip("\\") not in T.GREEK and node.name.lstrip("\\") not in T.LETTER_LIKE and \
        not (node.name.startswith("\\") and node.name[1:].isalpha() and node.name[1:] not in _OPERATOR_NAMES)


_OPERATOR_NAMES = {k.lstrip("\\") for k in list(T.BINARY_OPS) + list(T.RELATIONS) + list(T.UNARY_OPS)}


def _token_arg(text: str) -> str:
    return text + " " if text[-1:].isalpha() and text.startswith("\\") else text


def _one_token(node: A.Node) -> TypeGuard[A.Symbol]:
    """A symbol that prints as one macro argument without braces (`\\alpha`, `\\mathbb{E}`, `\\hat{x}`)."""
    if not isinstance(node, A.Symbol):
        return False
    if node.sub_label is not None or node.sup_label is not None or node.primes or node.optimum:
        return False
    return len(node.name) == 1 or node.name.startswith("\\") or node.font is not None


def _script(node: A.Node) -> str:
    if isinstance(node, A.Symbol) and node.name in ("\\partial", "\\nabla"):
        return "{" + _p(node) + "}"
    if _one_token(node) and (_mark(node) or node.name.startswith("\\") or node.font is not None or
                             node.accents):
        return _token_arg(_symbol_core(node))
    return "{" + _p(node) + "}"


def _arg(node: A.Node) -> str:
    """A macro argument."""
    if _one_token(node) and (_mark(node) or _prefix_capable(node)) and \
            node.name not in ("\\partial", "\\nabla"):
        text = _token_arg(_symbol_core(node))
        return " " + text if text[:1].isalnum() else text
    return "{" + _p(node) + "}"


def _has_sub(node: A.Node) -> bool:
    if isinstance(node, A.Symbol):
        return node.sub_label is not None
    if isinstance(node, A.Indexed):
        return True
    if isinstance(node, A.Labeled):
        return node.position == "sub"
    if isinstance(node, A.Norm):
        return node.order is not None
    if isinstance(node, A.Reduction):
        return node.under is not None
    return False


def _has_sup(node: A.Node) -> bool:
    if isinstance(node, A.Symbol):
        return node.sup_label is not None or node.optimum or node.primes > 0
    if isinstance(node, (A.Power, A.Transpose, A.Inverse, A.Primed)):
        return True
    if isinstance(node, A.Labeled):
        return node.position == "sup"
    if isinstance(node, A.Indexed):
        return _has_sup(node.base)
    return False


def _script_base(node: A.Node, adding: str) -> str:
    """The base of a script, braced when it cannot take the script directly."""
    text = _p(node)
    if adding != "call" and _mark_name(node):
        return _wrap(text)
    if adding == "call" and isinstance(node, (A.Symbol, A.Indexed, A.Power, A.Labeled, A.Primed, A.Text,
                                              A.Opaque, A.Inverse, A.Transpose)):
        return text
    if adding in ("sub", "sup") and isinstance(node, A.Symbol):
        if _letters_read_apart(node):
            return _wrap(text)
        if (adding == "sub" and node.sub_label is not None) or (adding == "sup" and _has_sup(node)):
            return _wrap(text)
        if node.name in ("\\partial", "\\nabla") or node.name in T.UNARY_OPS:
            return _wrap(text)
        return text
    if adding == "sup" and isinstance(node, A.Indexed) and isinstance(node.base, A.Symbol) and \
            node.base.name.lstrip("\\") in T.FUNCTION_MACROS and not _has_sup(node.base):
        return text  # `\log_{b}^{2} x`: a function's scripts; braced, it would no longer apply to x
    if adding == "sub" and isinstance(node, (A.Power, A.Transpose, A.Inverse, A.Primed)) or \
            (adding == "sub" and isinstance(node, A.Labeled) and node.position == "sup"):
        return _wrap(text)
    if _prec(node) < ATOM or _absorbs(node) or isinstance(node, (A.Empty, A.Number, A.Frac, A.Binom,
                                                                   A.Factorial, A.Annotated, A.Differential)):
        if isinstance(node, A.Number) and adding == "sup" and len(node.value) == 1:
            return text
        return _wrap(text)
    if isinstance(node, (A.Reduction, A.Apply)) and not node.brackets:
        return _wrap(text)
    if adding == "sub" and _has_sub(node):
        return _wrap(text)
    if adding == "sup" and _has_sup(node):
        return _wrap(text)
    if isinstance(node, A.Indexed) and adding == "sub":
        return _wrap(text)
    if isinstance(node, A.Symbol) and node.name in ("\\partial", "\\nabla"):
        return _wrap(text)
    if isinstance(node, A.Symbol) and len(node.name) > 1 and not node.name.startswith("\\") and node.font is None:
        return _wrap(text)
    if isinstance(node, A.Text) and node.text.strip() not in T.FUNCTION_MACROS:
        return _wrap(text)  # a function's name set as text (`\\text{Pr}_i x`) stays bare: braced, it no longer applies
    if isinstance(node, A.Ellipsis_):
        return _wrap(text)
    return text


def _symbol_core(node: A.Symbol) -> str:
    name = node.name
    if node.font is not None:
        macro = T.FONT_LATEX.get(node.font, "mathrm")
        if node.font == "text":
            core = "\\text{" + name + "}"
        elif name.startswith("\\") and " " not in name:
            core = "\\" + macro + _token_arg(name)
        elif name.startswith("\\Delta ") and name[len("\\Delta "):].isalpha() and len(name) > len("\\Delta x"):
            # `\Delta \mathbf{xx}`: the increment of a styled name of several letters (inside the font
            # command the letters would read as separate symbols)
            core = "\\Delta \\" + macro + "{" + name[len("\\Delta "):] + "}"
        elif not name.isalnum() and len(name) == 1:
            core = "\\" + macro + " " + name
        else:
            core = "\\" + macro + "{" + name + "}"
    else:
        core = name
        if name in ("'", "\\prime"):
            core = "\\prime"
    for i, accent in enumerate(reversed(node.accents)):
        macro = "\\" + T.ACCENT_LATEX.get(accent, accent)
        if i == 0 and node.font is None and not name.isalnum() and name.lstrip("\\") not in T.GREEK and " " not in name:
            core = macro + _token_arg(core) if core.startswith("\\") else macro + core
        else:
            core = macro + "{" + core + "}"
    return core


def _letters_read_apart(node: A.Symbol) -> bool:
    """A name of several plain letters that the parser, met bare before a script, reads as a product (`ab_0`);
    a function's name it reads whole (`sgn_0 x`, `softmax_i x`: braced, it would no longer apply)."""
    return len(node.name) > 1 and not node.name.startswith("\\") and node.font is None and \
        not (node.name in T.KNOWN_FUNCTIONS and not node.accents)


def _symbol(node: A.Symbol) -> str:
    core = _symbol_core(node)
    if _letters_read_apart(node) and \
            (node.sub_label is not None or node.sup_label is not None or node.primes or node.optimum):
        core = _wrap(core)  # `{ab}_0` is one name
    elif node.name in ("\\partial", "\\nabla") and (node.sub_label is not None or node.sup_label is not None):
        core = _wrap(core)
    elif node.name in T.UNARY_OPS and (node.sub_label is not None or node.sup_label is not None or node.primes
                                       or node.optimum):
        core = _wrap(core)
    elif node.name.startswith("\\") and (node.name[1:] in T.BIG_OPERATORS or (node.name[1:] in T.LIMIT_OPERATORS
                                                                              and not node.accents)):
        # `{\max}_i` is a symbol with a label, `\max_i` a reduction; spelled in letters (`sgn_0`) it is one name
        if node.sub_label is not None or node.sup_label is not None or node.primes or node.optimum:
            core = _wrap(core)
    if node.primes:
        core += "'" * node.primes
    if node.sub_label is not None:
        core += "_" + _script(node.sub_label)
    if node.sup_label is not None:
        core += "^" + _script(node.sup_label)
        if node.optimum:
            core = _wrap(core) + "^{*}"
    elif node.optimum:
        core += "^{*}"
    return core


def _items(items, sep: str = ", ") -> str:
    return sep.join(_child(i, REL) if not isinstance(i, A.Sequence) else _wrap(_p(i)) for i in items)


def _bracket_pair(brackets: str) -> tuple[str, str]:
    if brackets == "[]":
        return "[", "]"
    if brackets == "{}":
        return "\\{", "\\}"
    return "(", ")"


_PRINTED: dict[int, tuple[A.Node, str]] = {}
_PRINTED_MAX = 200_000


def _p(node: A.Node) -> str:
    """`_print(node)`, once per node: trees are immutable, and the evaluator, the renderers and the readers print
    the same sub-trees over and over (a parent's text holds its children's). Keyed by identity; the entry keeps
    the node alive, so an id is never reused while it is cached; the cache is emptied when full."""
    found = _PRINTED.get(id(node))
    if found is not None and found[0] is node:
        return found[1]
    text = _print(node)
    if len(_PRINTED) >= _PRINTED_MAX:
        _PRINTED.clear()
    _PRINTED[id(node)] = (node, text)
    return text


def _print(node: A.Node) -> str:  # noqa: C901 - one branch per node type
    t = type(node)
    if t is A.Symbol:
        return _symbol(node)  # type: ignore[arg-type]
    if t is A.Number:
        return node.value  # type: ignore[attr-defined]
    if t is A.Empty:
        return "{}"
    if t is A.Text:
        return "\\text{" + node.text + "}"  # type: ignore[attr-defined]
    if t is A.Ellipsis_:
        kind = node.kind  # type: ignore[attr-defined]
        return "\\ldots" if kind == "..." else kind
    if t is A.Opaque:
        return node.macro + "".join("{" + a + "}" for a in node.args)  # type: ignore[attr-defined]
    if t is A.Indexed:
        n: A.Indexed = node  # type: ignore[assignment]
        if len(n.indices) > 1 and any(_closing_mark(i) for i in n.indices):
            return _p(_split_at_marks(n))  # `{m_]}_{k}`: a closing delimiter cannot stand in a list `m_{], k}`
        if _needs_brackets(n):
            # `z[r j]`: one index that is a product of running letters; as a subscript it would read as two
            return _p(n.base) + "".join("[" + _p(i) + "]" for i in n.indices)
        base = _script_base(n.base, "sub")
        if len(n.indices) == 1 and _one_token(n.indices[0]):
            script = "_" + _script(n.indices[0])
        else:
            script = "_{" + ", ".join(_index(i) for i in n.indices) + "}"
        if _reads_as_expectation(n.base) and ("\\sim" in script or "\\thicksim" in script):
            base = _wrap(base)  # a symbol E indexed by `\sim` ({E}_{\sim}): bare, `E_{x \sim p}` is an expectation
        return base + script
    if t is A.Labeled:
        n2: A.Labeled = node  # type: ignore[assignment]
        mark = "_" if n2.position == "sub" else "^"
        base = _script_base(n2.base, n2.position)
        if n2.position == "sup" and isinstance(n2.base, A.Indexed):
            base = _wrap(base)  # `x_i^{(k)}` would give the label to x, not to x_i
        return base + mark + _script(n2.label)
    if t is A.Primed:
        base = _script_base(node.base, "sup")  # type: ignore[attr-defined]
        if isinstance(node.base, A.Indexed):  # type: ignore[attr-defined]
            base = _wrap(base)  # primes read before the subscript: `x'_i` is (x')_i
        return base + "'" * node.count  # type: ignore[attr-defined]
    if t is A.Power:
        return _script_base(node.base, "sup") + "^" + _script(node.exponent)  # type: ignore[attr-defined]
    if t is A.Transpose:
        return _script_base(node.base, "sup") + "^{\\top}"  # type: ignore[attr-defined]
    if t is A.Inverse:
        return _script_base(node.base, "sup") + "^{-1}"  # type: ignore[attr-defined]
    if t is A.Slice:
        s = "" if node.start is None else _child(node.start, ADD)  # type: ignore[attr-defined]
        e = "" if node.stop is None else _child(node.stop, ADD)  # type: ignore[attr-defined]
        return f"{s}:{e}"
    if t is A.BinOp:
        b: A.BinOp = node  # type: ignore[assignment]
        prec = _prec(b)
        level = MULT if prec == MUL else ALL
        if prec == ADD and _extend_scope(b.left, b.op, b.right) is not None:
            left = _wrap(_p(b.left))  # `{\sum_t x_t} - t`: bare, the term that uses t would join the sum's body
        else:
            left = _child(b.left, prec, followed=level)
        right = _child(b.right, prec + 1) if prec == ADD else _child(b.right, UNARY)
        if prec == ADD and isinstance(b.right, A.UnaryOp):
            right = _wrap(_p(b.right))
        return f"{left} {b.op} {right}"
    if t is A.UnaryOp:
        u: A.UnaryOp = node  # type: ignore[assignment]
        return f"{u.op} {_child(u.operand, UNARY)}"
    if t is A.Product:
        factors = node.factors  # type: ignore[attr-defined]
        parts = []
        for i, f in enumerate(factors):
            last = i == len(factors) - 1
            if i and isinstance(f, A.Reduction) and isinstance(f.operator, A.Symbol) and \
                    f.operator.name.lstrip("\\") in T.PREFIX_BIG_BINARY:
                parts.append(_wrap(_p(f)))  # `\\cup_k M_k` after a factor would read as a binary \\cup
                continue
            if i and isinstance(_leading_atom(f), (A.Group, A.Tuple, A.Interval, A.Concat)) and \
                    call_certainty(_trailing_atom(factors[i - 1])) in ("known", "declared", "ambiguous"):
                # `{f}(x)`-like juxtaposition that is not a call: keep the parentheses apart
                parts.append(_wrap(_p(f)))
                continue
            if (i or not last) and _splits_statement(f):
                # `\\theta \\forall` reads as `\\theta, \\forall …`, and a leading `\\text{s.t.} x` as a note on x
                parts.append(_wrap(_p(f)))
                continue
            if not last and isinstance(f, A.Annotated) and f.kind == "evaluated":
                parts.append(_wrap(_p(f)))  # `{F(a) \big|_{a=0}} c`: bare, the bar's script ends the product
                continue
            if last and _absorbs(f) and not isinstance(f, (A.Relation, A.Sequence, A.Empty, A.Symbol,
                                                             A.BinOp, A.UnaryOp, A.Product)):
                parts.append(_p(f))
            else:
                parts.append(_child(f, ATOM, followed=0 if last else JUXT))
        return " ".join(parts)
    if t is A.Apply:
        return _apply(node)  # type: ignore[arg-type]
    if t is A.Divergence:
        d: A.Divergence = node  # type: ignore[assignment]
        if isinstance(d.func, A.Empty):
            return f"\\{{{_child(d.left, REL, followed=ALL)} \\| {_child(d.right, REL)}\\}}"
        func = _script_base(d.func, "call")
        return f"{func}({_child(d.left, REL, followed=ALL)} \\| {_child(d.right, REL)})"
    if t is A.Reduction:
        return _reduction(node)  # type: ignore[arg-type]
    if t is A.Derivative:
        return _derivative(node)  # type: ignore[arg-type]
    if t is A.Differential:
        mark = "\\partial" if node.kind == "partial" else "\\mathrm{d}"  # type: ignore[attr-defined]
        return mark + " " + _child(node.body, ATOM, followed=JUXT)  # type: ignore[attr-defined]
    if t is A.Gradient:
        g: A.Gradient = node  # type: ignore[assignment]
        out = "\\nabla"
        if g.wrt is not None:
            out += "_" + _script(g.wrt)
        if g.order is not None:
            out += "^" + _script(g.order)
        if g.body is not None:
            out += " " + _child(g.body, PROD)
        return out
    if t is A.Relation:
        r: A.Relation = node  # type: ignore[assignment]
        parts = []
        for i, operand in enumerate(r.operands):
            if i:
                op = r.ops[i - 1]
                note = r.notes[i - 1] if r.notes else None
                plain_mark = _mark(note) and note.font is None  # type: ignore[union-attr]
                parts.append("\\overset" + (_arg(note) if plain_mark else "{" + _p(note) + "}") + "{" + op + "}"
                             if note is not None else op)
            if not isinstance(operand, A.Empty):
                parts.append(_child(operand, ADD))
        return " ".join(parts)
    if t is A.Frac:
        return "\\frac" + _arg(node.num) + _arg(node.den)  # type: ignore[attr-defined]
    if t is A.Root:
        idx = "" if node.index is None else "[" + _p(node.index) + "]"  # type: ignore[attr-defined]
        return "\\sqrt" + idx + _arg(node.body)  # type: ignore[attr-defined]
    if t is A.Group:
        g2: A.Group = node  # type: ignore[assignment]
        o = "\\left." if g2.open == "." else "\\{" if g2.open == "{" else g2.open
        c = _CLOSERS.get(g2.close, g2.close)
        body = "" if isinstance(g2.body, A.Empty) else _p(g2.body)
        if isinstance(g2.body, A.Sequence):
            body = _wrap(body)  # `({a, b})` is one grouped item, not a pair
        return o + body + c
    if t is A.Tuple:
        tp: A.Tuple = node  # type: ignore[assignment]
        o = "\\left." if tp.open == "." else tp.open
        c = _CLOSERS.get(tp.close, tp.close)
        return o + _items(tp.items) + c
    if t is A.Interval:
        iv: A.Interval = node  # type: ignore[assignment]
        return ("[" if iv.left_closed else "(") + _items((iv.lower, iv.upper)) + ("]" if iv.right_closed else ")")
    if t is A.Concat:
        items = node.items  # type: ignore[attr-defined]
        return "[" + _items(items, "; ") + (";" if len(items) == 1 else "") + "]"
    if t is A.SetLiteral:
        return "\\{" + _items(node.items) + "\\}"  # type: ignore[attr-defined]
    if t is A.SetBuilder:
        sb: A.SetBuilder = node  # type: ignore[assignment]
        return "\\{" + _seq_items(sb.element) + " \\mid " + _seq_items(sb.condition) + "\\}"
    if t is A.Abs:
        return "\\lvert " + _inner(node.body) + "\\rvert "  # type: ignore[attr-defined]
    if t is A.Norm:
        nm: A.Norm = node  # type: ignore[assignment]
        out = "\\lVert " + _inner(nm.body) + "\\rVert "
        if nm.order is not None:
            out += "_" + _script(nm.order)
        return out
    if t is A.Delimited:
        dl: A.Delimited = node  # type: ignore[assignment]
        pairs = {"floor": ("\\lfloor ", "\\rfloor"), "ceil": ("\\lceil ", "\\rceil"),
                 "angle": ("\\langle ", "\\rangle"), "[[": ("\\llbracket ", "\\rrbracket")}
        o, c = pairs[dl.kind]
        body = _seq_items(dl.body)
        return o + body + c
    if t is A.Indicator:
        ind: A.Indicator = node  # type: ignore[assignment]
        sym = _p(ind.symbol)
        if ind.brackets == "_":
            return sym + "_" + _script(ind.condition)
        o, c = {"[]": ("[", "]"), "()": ("(", ")"), "{}": ("\\{", "\\}")}[ind.brackets]
        return sym + o + _seq_items(ind.condition) + c
    if t is A.Cases:
        rows = []
        for value, cond in node.rows:  # type: ignore[attr-defined]
            cell = _cell(value)
            if cond is not None:
                cell += " & " + _cell(cond)
            rows.append(cell)
        return "\\begin{cases}" + " \\\\ ".join(rows) + "\\end{cases}"
    if t is A.Matrix:
        mx: A.Matrix = node  # type: ignore[assignment]
        env = mx.env
        spec = ""
        if env in T.ENV_ARGS:
            width = max((len(r) for r in mx.rows), default=1)
            spec = "{" + "c" * max(width, 1) + "}" * T.ENV_ARGS[env] if T.ENV_ARGS[env] else ""
        body = " \\\\ ".join(" & ".join(_cell(c) for c in row) for row in mx.rows)
        return "\\begin{" + env + "}" + spec + body + "\\end{" + env + "}"
    if t is A.Binom:
        return "\\binom" + _arg(node.n) + _arg(node.k)  # type: ignore[attr-defined]
    if t is A.Factorial:
        return _script_base(node.body, "fact") + "!"  # type: ignore[attr-defined]
    if t is A.Annotated:
        an: A.Annotated = node  # type: ignore[assignment]
        if an.kind == "accent":
            accent = an.note.text if isinstance(an.note, A.Text) else "bar"
            return "\\" + T.ACCENT_LATEX.get(accent, accent) + "{" + _p(an.body) + "}"
        if an.kind == "underbrace":
            return "\\underbrace" + _arg(an.body) + ("" if isinstance(an.note, A.Empty) else
                                                          "_" + _script(an.note))
        if an.kind == "overbrace":
            return "\\overbrace" + _arg(an.body) + ("" if isinstance(an.note, A.Empty) else
                                                         "^" + _script(an.note))
        if an.kind == "evaluated":
            return _child(an.body, MUL) + " \\big|_" + _script(an.note)
        if an.kind == "condition":
            # `\\text{ for } i = 1, \\ldots, k`, `\\forall x \\in S`, or a bare range `n = 0, 1, \\ldots`
            lead = "" if isinstance(an.note, A.Empty) else _p(an.note) + " "
            return lead + _inner(an.body)
        return "\\" + an.kind + _arg(an.note) + _arg(an.body)
    if t is A.Sequence:
        sq: A.Sequence = node  # type: ignore[assignment]
        if sq.separators and all(s == "\\\\" for s in sq.separators):
            return "\\substack{" + " \\\\ ".join(_child(i, REL) for i in sq.items) + "}"
        out = _child(sq.items[0], REL)
        for sep, item in zip(sq.separators, sq.items[1:]):
            if sep == "\\\\":
                out = "\\substack{" + out + " \\\\ " + _child(item, REL) + "}"
            else:
                out += sep + " " + _child(item, REL)
        return out
    if t is A.Rows:
        aligned = " \\\\ ".join("{" + _p(s) + "}" for s in node.statements)  # type: ignore[attr-defined]
        return "\\begin{aligned}" + aligned + "\\end{aligned}"
    raise TypeError(f"no printer for {t.__name__}")


def _inner(node: A.Node) -> str:
    """The content of a delimiter pair: a comma/semicolon sequence is braced so it stays one item."""
    return _wrap(_p(node)) if isinstance(node, A.Sequence) else _p(node)


def _seq_items(node: A.Node) -> str:
    if isinstance(node, A.Tuple) and node.open == "(":
        return _items(node.items)
    return _p(node) if not isinstance(node, A.Sequence) else _wrap(_p(node))


def _cell(node: A.Node) -> str:
    if isinstance(node, A.Empty):
        return "{}"
    if isinstance(node, A.Sequence) and node.separators and all(s == "&" for s in node.separators):
        return " & ".join(_cell(i) for i in node.items)
    return _p(node)


def _index(node: A.Node) -> str:
    if isinstance(node, A.Slice):
        return _p(node)
    if isinstance(node, A.Sequence):
        return _wrap(_p(node))
    return _child(node, REL)


def _apply(node: A.Apply) -> str:
    if isinstance(node.func, A.Empty):
        return "{" + _apply_parts(node, "") + "}"
    return _apply_parts(node, _script_base(node.func, "call"))


def _apply_parts(node: A.Apply, func: str) -> str:
    if node.brackets == "":
        arg = node.args[0]
        text = _child(arg, PROD)
        if isinstance(arg, A.Product) and any(_operator_like(f) for f in arg.factors[1:]) or \
                text.startswith(("(", "[")):
            text = _wrap(text)  # the operand read back must not stop at an inner operator
        return func + " " + text
    o, c = _bracket_pair(node.brackets)
    inner = _items(node.args)
    if node.given:
        inner += " \\mid " + _items(node.given)
    if node.params:
        inner += "; " + _items(node.params)
    return func + o + inner + c


def _trailing_atom(node: A.Node) -> A.Node:
    """The atom a following `(` would attach to as a call."""
    while isinstance(node, A.Differential):
        node = node.body
    return node


def _operator_like(node: A.Node) -> bool:
    return isinstance(node, (A.Reduction, A.Gradient)) or (isinstance(node, A.Apply) and node.brackets == "") \
        or (isinstance(node, A.Symbol) and _prefix_capable(node))


def _reduction(node: A.Reduction) -> str:
    op = _p(node.operator)
    operator = node.operator
    if isinstance(operator, A.Symbol) and operator.font == "op" and node.op not in ("E",) and \
            not operator.accents:
        name = operator.name
        op = "\\operatorname*" + (_token_arg(name) if name.startswith("\\") else "{" + name + "}")
        if operator.sub_label is not None or operator.sup_label is not None:
            op = _p(operator)
    if _has_sub(node.operator) or _has_sup(node.operator):
        op = "\\mathop{" + op + "}"  # `\mathop{\prod'}_{k}`: the decorated operator still takes limits
    if node.under is not None:
        op += "_" + _script(node.under)
    if node.over is not None:
        op += "^" + _script(node.over)
    body = node.body
    if node.op == "int" and node.variables:
        parts = [op]
        if body is not None and not isinstance(body, A.Empty):
            parts.append(_child(body, MUL, followed=JUXT))
        parts.extend("d " + _child(v, ATOM) for v in node.variables)
        return " ".join(parts)
    if body is None:
        return op
    if node.brackets:
        o, c = _bracket_pair(node.brackets)
        given = _given_condition(node)
        inner = "" if isinstance(body, A.Empty) else _inner(body)
        if given is not None:
            inner += " \\mid " + (_items(given.items) if isinstance(given, A.Tuple) else _inner(given))
        return op + o + inner + c
    if node.op == "E" and isinstance(body, (A.Group, A.Tuple, A.Interval, A.Concat, A.SetLiteral, A.SetBuilder)):
        return op + " {" + _p(body) + "}"
    if isinstance(body, A.Apply) and isinstance(body.func, A.Empty) and node.op == "E":
        return op + " {" + _p(body) + "}"
    if node.op in ("softmax",) and T.LIMIT_OPERATORS.get(node.op):
        text = _child(body, PROD)
        if isinstance(body, A.Product) and any(_operator_like(f) for f in body.factors[1:]):
            text = _wrap(text)
        return op + " " + text
    text = _child(body, MUL)
    if text.startswith(("(", "[", "\\{", "\\left")):
        text = _wrap(text)
    return op + " " + text


def _given_condition(node: A.Reduction) -> A.Node | None:
    """The condition written inside the brackets after a bar (`\\mathbb E[V(s') \\mid s, a]`), if any."""
    cond = node.condition
    if cond is None:
        return None
    limit = node.under.span[1] if node.under is not None else -1
    if node.under is not None and isinstance(cond, A.Sequence) and cond.span[0] < limit:
        cond = cond.items[-1]
    return cond if cond.span[0] >= limit else None


def _derivative(node: A.Derivative) -> str:
    mark = "\\partial" if node.kind == "partial" else "d"
    top = mark
    if node.order is not None:
        top += "^" + _script(node.order)
    wrt = " ".join(mark + " " + _child(v, ATOM) for v in node.wrt)
    frac = "\\frac{" + top + "}{" + wrt + "}"
    if node.body is None:
        return frac
    return frac + " " + _child(node.body, PROD)
