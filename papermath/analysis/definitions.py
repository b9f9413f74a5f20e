"""Find the sentences that define symbols: "where X is …", "Let X denote …", "X ∈ ℝ^{…} is …", "denoted as X",
"called X", an appositive ("the query matrix Q"), a parenthesis ("(X)"), "the $i$-th …".

The linker reads prose the way a careful reader does: each inline formula is parsed with the same parser
as the equations, so `\\mathbf{u}_t` in a sentence and in an equation get the same symbol key. Patterns are
data (regular expressions in tables), each with a strength; quotes are verbatim clauses of the paper text.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from ..errors import MathParseError
from ..latex.document import Document
from ..math import ast, parse, to_latex
from .symbols import collect, label_exponent, merge_words, notation_of, symbol_key

# Bounded: an unclosed `\\(` or `$$` in raw text must not make every later search scan to the end.
_MATH = re.compile(r"\$\$.{0,4000}?\$\$|\$((?:\\.|[^$\\])+)\$|\\\((.{0,4000}?)\\\)", re.S)
_VERB = (r"(?:(?:can\s+be|could\s+be|is|are|be)\s+(?:viewed|seen|regarded|interpreted)\s+as|"
         r"(?:is|are)\s+playing\s+the\s+role\s+of|plays?\s+the\s+role\s+of|is|are|was|were|being|denotes?|denoted|denoting|"
         r"represents?|representing|indicates?|indicating|stands?\s+for|refers?\s+to|referring\s+to|means|"
         r"corresponds?\s+to|describes?|signif(?:y|ies)|measures?|controls?|captures?|specif(?:y|ies)|"
         r"defines?|encodes?|gives?|holds?|contains?|tracks?|serves?\s+as|acts?\s+as|be)")
# (pattern name, strength, regex on the text before the formula, regex on the text after it).
PATTERNS: tuple[tuple[str, int, re.Pattern | None, re.Pattern | None], ...] = (
    ("let", 3, re.compile(r"(?:^|[\s(,;:])(?:let|Let)\s*(?:\$[^$]*+\$\s*+,?\s*+(?:and\s+)?)*+$"), None),
    ("where", 3, re.compile(r"(?:^|[\s,;:.)])(?:where|wherein|here|in which|with)\s*,?\s*"
                            r"(?:\$[^$]*+\$\s*+,?\s*+(?:and\s+)?)*+$", re.I),
     re.compile(r"^\s*(?:,\s*)?(?:\([^)]*\)\s*)?(?:\$[^$]*+\$\s*+,?\s*+)*+(?:and\s+\$[^$]*\$\s*)?" + _VERB + r"\b", re.I)),
    # "where $L_1$ ensures Assumption 1 …, while $L_2$ satisfies …": what the symbol does, said in a verb of its own
    # ("while" only goes on a where clause: the loop in `_classify` asks for "where" before it)
    ("where", 2, re.compile(r"(?:^|[\s,;:.)])(?:where|wherein|while)\s*,?\s*"
                            r"(?:\$[^$]*+\$\s*+,?\s*+(?:and\s+)?)*+$", re.I),
     re.compile(r"^\s*(?:,\s*)?(?!(?:has|was|does|thus|plus|minus|less|unless|versus|across|always|towards|its|this|"
                r"goes|becomes|remains|seems|lies|follows|holds|yields|gives)\b)[a-z]{3,}(?:es|s)\b(?!\s*\$|\s+(?:are|were|is|was|and|or)\b)")),
    ("denoted", 3, re.compile(r"(?:denoted|written|represented|abbreviated|parameterized|parametrized)\s+"
                              r"(?:as|by|with)\s*(?:\$[^$]*+\$\s*+,?\s*+(?:and\s+)?)*+$", re.I), None),
    ("called", 3, re.compile(r"(?:called|named|termed|referred\s+to\s+as|known\s+as|dubbed)\s*$", re.I), None),
    # The description follows the formula: "Denote by $\\theta$ the parameters", "we use $h$ to denote the …".
    ("denote-by", 3, re.compile(r"\b(?:(?:denote|write|represent)\s+by|,\s*(?:and\s+)?by)\s*$", re.I),
     re.compile(r"^\s*,?\s*(?:the|a|an)\s", re.I)),
    ("denote-by", 3, None, re.compile(r"^\s*(?:,?\s*+(?:and\s+)?\$[^$]*+\$\s*+)*+to\s+(?:denote|represent|indicate|"
                                      r"refer\s+to)\s+(?:the|a|an)\s", re.I)),
    # "define $R(c, x_{0:T})$ as the reward on the whole chain", "we refer to $A$ as the unlearning set", "we use
    # $m \in \{0,1\}^K$ as the one-hot vector for it".
    ("denote-by", 3, re.compile(r"(?:^|[\s(,;:])(?:[Dd]efine|[Rr]efer\s+to|[Tt]reat|[Rr]egard|[Vv]iew|[Ii]nterpret|"
                                r"[Uu]se)\s*$"),
     re.compile(r"^\s*as\s+(?:the|a|an|our)\s", re.I)),
    # "Denote $Y_{M}$ the result after applying mask M", "We denote $z$ as the aggregated variable".
    ("denote-by", 3, re.compile(r"(?:^|[\s(,;:])(?:[Dd]enote|[Ww]rite)\s*$"),
     re.compile(r"^\s*(?:as\s+)?(?:the|a|an)\s", re.I)),
    # "The $y$ sequence is the gradient location sequence": the symbol names a noun that the clause defines.
    ("is", 3, re.compile(r"(?:^|[\s(,;:])(?:[Tt]he|[Aa]n?|[Oo]ur|[Ee]ach)\s*$"),
     re.compile(r"^\s*[A-Za-z][\w\-]*\s+(?:is|are|denotes?|represents?|refers\s+to)\s+(?:the|a|an|our)\b", re.I)),
    # "such that each $\zeta_{ij}$ can be viewed as a standard Gaussian sample": a quantifier over the members, then a
    # copula and a noun phrase
    ("is", 3, re.compile(r"(?:^|[\s(,;:])(?:[Ee]ach|[Ee]very)\s*$"),
     re.compile(r"^\s*" + _VERB + r"\s+(?:the|a|an)\b", re.I)),
    # "Suppose $F$ is a convex function": a supposition opens the sentence as a "where" clause would
    ("is", 3, re.compile(r"(?:^\s*|^\s*(?:and|or|,)\s*|,\s*(?:and\s+)?|\band\s+|"
                         r"(?:^|[\s(,;:])(?:suppose|assume)(?:\s+that)?\s+)(?:\$[^$]*+\$\s*+,?\s*+(?:and\s+)?)*+$",
                         re.I),
     re.compile(r"^\s*(?:,\s*)?(?:\([^)]*\)\s*)?(?:,\s*)?(?:\$[^$]*+\$\s*+,?\s*+)*+(?:and\s+\$[^$]*\$\s*)?" + _VERB + r"\b",
                re.I)),
    # "a function $f$ that is $G$-Lipschitz in $x$", "$\\mu$-strongly convex": the constant of a named property
    ("property", 1, None, re.compile(r"^-\s*(?:Lipschitz|smooth|strongly|weakly|convex|concave|bounded|"
                                     r"H(?:ö|\\\"o|o)lder|sub-?Gaussian)\b")),
    ("parenthesis", 2, re.compile(r"[A-Za-z][\w\- ]*\(\s*$"), re.compile(r"^\s*[),]")),
    ("dimension", 2, re.compile(r"\b(?:dimension|dimensionality|size|width|length|rank)\s+(?:of\s+)?$", re.I), None),
    ("appositive", 2, re.compile(r"\b(?:the|a|an|each|our|its|their|this|these|those|all|every|some|any)\s+"
                                 r"(?:[A-Za-z][\w\-]*\s+){0,5}?[A-Za-z][\w\-]*\s*(?:\$[^$]*+\$\s*+,?\s*+(?:and\s+)?)*+$",
                                 re.I), re.compile(r"^\s*(?:$|[,.;:)]|and\b|for\b|of\b|to\b|in\b|as\b|from\b|with\b|"
                                                   r"that\b|which\b|at\b|is\b|are\b|via\b|by\b|on\b|can\b|could\b|"
                                                   r"will\b|would\b|should\b|must\b|may\b|might\b|such\b|over\b|"
                                                   r"into\b|between\b|using\b|given\b|if\b|was\b|were\b|has\b|have\b|"
                                                   r"or\b|within\b|after\b|than\b|satisf|correspond|denot|represent|"
                                                   r"takes?\b|belongs?\b|depends?\b|does\b|do\b|whose\b|where\b|"
                                                   r"per\b|across\b|under\b|along\b|[a-z]+ing\b|[a-z]+ed\b|\()",
                                                   re.I)),
    ("appositive", 2, re.compile(r"\b(?:matri(?:x|ces)|vectors?|scalars?|tensors?|sets?|functions?|parameters?|"
                                 r"weights?|distributions?|embeddings?|variables?|constants?|coefficients?|scores?|"
                                 r"hyper-?parameters?|indices|index|operators?|maps?|mappings?|networks?|models?)\s+"
                                 r"(?:\$[^$]*+\$\s*+,?\s*+(?:and\s+)?)*+$", re.I), None),
    # "condition signals $c$ (e.g., class label)": a parenthesis after the named formula is an aside, like a comma
    ("noun", 1, re.compile(r"[A-Za-z][\w\-]*\s+(?:\$[^$]*+\$\s*+,?\s*+(?:and\s+)?)*+$"),
     re.compile(r"^\s*(?:$|[,.;:)]|and\b|for\b|of\b|to\b|in\b|as\b|from\b|with\b|that\b|which\b|at\b|"
                r"is\b|are\b|via\b|by\b|on\b|correctly\b|has\b|have\b|\()", re.I)),
    ("ordinal", 1, None, re.compile(r"^\s*(?:-|\^\{?)th\b")),
)
_COPULA_WITHOUT_NOUN = re.compile(
    r"^\s*(?:,\s*)?(?:\$[^$]*+\$\s*+,?\s*+)*+(?:and\s+\$[^$]*\$\s*)?(?:is|are|was|were|be)\s+"
    r"(?:not|also|then|now|only|still|just|very|so|too|positive|negative|non-negative|nonnegative|zero|"
    r"large|larger|small|smaller|close|often|usually|always|typically|never|independent|"
    r"(?!(?:viewed|seen|regarded|interpreted)\s+as\b)\w+ed|\w+ly|(?!playing\s+the\s+role)\w+ing|"
    r"in|on|at|of|to|from|by|with|for|into|than|<|>|\$)\b", re.I)
SYMBOL_LIKE = (ast.Symbol, ast.Indexed, ast.Transpose, ast.Primed)


def _inner(m: re.Match) -> int:
    """Which group of a `_MATH` match holds the formula without its delimiters (`$…$` 1, `\\(…\\)` 2)."""
    return 1 if m.group(1) is not None else 2


def _names_left_side(latex: str) -> bool:
    """`X = …` or `X := …` with a symbol on the left."""
    tree = _parse(latex)
    node = tree.statements[0] if isinstance(tree, ast.Rows) and tree.statements else tree
    if _ranged(node):
        node = node.items[0]  # `X^{l} = \\operatorname{Decoder}(X^{l-1}), \\ l \\in [1, L]`: the range qualifies it
    # (`p(x) \\propto …` names a distribution by its unnormalised density: it defines the left side as well)
    if not (isinstance(node, ast.Relation) and node.ops[0] in ("=", ":=", "\\coloneqq", "\\triangleq", "\\propto")):
        return False
    lhs = node.operands[0]
    # `Q^2(s, b) := …`, `\\phi(x) = \\max(0, x)`: a function defined by its value
    return isinstance(lhs, SYMBOL_LIKE) or (isinstance(lhs, ast.Apply) and isinstance(lhs.func, SYMBOL_LIKE))


def _ranged(node) -> bool:
    """A formula, then the ranges of its indices after a comma (`X^{l} = …, \\ l \\in [1, L]`)."""
    return isinstance(node, ast.Sequence) and len(node.items) > 1 and isinstance(node.items[0], ast.Relation) and \
        all(_index_range(item) for item in node.items[1:])


def _ranged_equation(latex: str) -> bool:
    return _ranged(_parse(latex)) and _names_left_side(latex)


def _index_range(node) -> bool:
    """`l \\in [1, L]`, `i \\in \\{1, …, n\\}`: the range of a one-letter index, written after a formula."""
    return isinstance(node, ast.Relation) and len(node.ops) == 1 and node.ops[0] == "\\in" and \
        isinstance(node.operands[0], ast.Symbol) and len(node.operands[0].name.lstrip("\\")) <= 3 and \
        node.operands[0].sub_label is None and node.operands[0].sup_label is None


_NUMBER_VALUE = re.compile(r"(?:=|\\coloneqq|:=)\s*[-+]?\s*(?:\d[\d.,\s]*|\.\d+)(?:\s*\\times\s*10\^\{?-?\d+\}?|e-?\d+)?"
                           r"\s*(?:\\%|%)?\s*$")


def _sets_number(latex: str) -> bool:
    """`\\beta = 0.9`, `T = 1000`, `\\lambda = 10^{-3}`: the formula sets a value."""
    latex = re.sub(r"\\[,;:! ]|~", "", latex)
    return bool(_NUMBER_VALUE.search(latex)) or bool(re.search(r"=\s*10\^\{?-?\d+\}?\s*$", latex))


_BOUND_OPS = frozenset({">", "<", "\\geq", "\\leq", "\\ge", "\\le", "\\geqslant", "\\leqslant", "\\neq", "\\ne",
                        "\\gg", "\\ll"})


def _samples_left_side(latex: str) -> bool:
    """`t \\sim \\mathcal{U}(0, T)`, `\\epsilon^w, \\epsilon^l \\sim \\mathcal{N}(0, I)`: symbols drawn from a distribution."""
    tree = _parse(latex)
    node = tree.statements[0] if isinstance(tree, ast.Rows) and tree.statements else tree
    if isinstance(node, ast.Sequence):
        node = next((i for i in node.items if isinstance(i, ast.Relation)), node)
    if not isinstance(node, ast.Relation) or not node.ops or node.ops[0] != "\\sim":
        return False
    head = node.operands[0]
    items = head.items if isinstance(head, (ast.Sequence, ast.Tuple)) else (head,)
    return all(isinstance(i, SYMBOL_LIKE) for i in items)


def _bounds_left_side(latex: str) -> bool:
    """`\\gamma > 0`, `s>0`: a symbol with a bound ("step size $\\gamma > 0$" names γ)."""
    tree = _parse(latex)
    node = tree.statements[0] if isinstance(tree, ast.Rows) and tree.statements else tree
    return isinstance(node, ast.Relation) and node.ops[0] in _BOUND_OPS and isinstance(node.operands[0], SYMBOL_LIKE) \
        and all(isinstance(o, (ast.Number, ast.UnaryOp, ast.Symbol, ast.Indexed)) for o in node.operands[1:])


def _symbol_like(latex: str) -> bool:
    """True when a prose formula can name a symbol (`W`, `x_i`, `f(x)`, `A, B`, `X \\in …`, a paper macro),
    False for a number, a comparison or a claim (`\\alpha < 1`, `46\\%`, `0 \\leq 0`, `\\epsilon = 10^{-5}`)."""
    tree = _parse(latex)
    if tree is None:
        return False
    node = tree.statements[0] if isinstance(tree, ast.Rows) and tree.statements else tree
    if isinstance(node, ast.Relation):
        if node.ops[0] not in ("\\in", "\\sim", ":", "\\colon", "\\subset", "\\subseteq") or not node.operands:
            return False
        node = node.operands[0]
    if isinstance(node, ast.Sequence) and node.items and isinstance(node.items[-1], ast.Relation):
        return all(not isinstance(i, ast.Number) for i in node.items)
    while isinstance(node, ast.Group):
        node = node.body
    if isinstance(node, (ast.Number, ast.Text, ast.Empty)):
        return False
    if isinstance(node, (ast.BinOp, ast.UnaryOp)) and any(isinstance(c, ast.Number) for c in ast.children(node)):
        return False
    return not _dangling(node)


_DANGLING_OPERATORS = frozenset({"\\times", "\\cdot", "\\pm", "\\mp", "+", "-", "=", "\\sim", "\\approx"})


def _dangling(node: ast.Node) -> bool:
    """A piece of a formula rather than a name: a bare superscript (`^{-1}`, `{}^2`), a number raised to a
    power (`10^{-3}`), or a product that opens with an operator (`\\times 2`)."""
    base = node
    while isinstance(base, (ast.Power, ast.Labeled, ast.Inverse, ast.Indexed)):
        base = base.base
    if isinstance(base, ast.Empty) or (base is not node and isinstance(base, ast.Number)):
        return True
    return isinstance(node, ast.Product) and isinstance(node.factors[0], ast.Symbol) and \
        node.factors[0].name in _DANGLING_OPERATORS


_APPOSITIVE_STOP = re.compile(r"\b(?:is|are|was|were|be|been|compute|computed|use|used|using|apply|applies|add|"
                              r"adds|let|we|it|they|then|so|thus|which|that|to|and|or|of|with|in|on|for|by|as|"
                              r"over|from|into|when|while|where|if)\s*$", re.I)
_TRAILING_LIST = re.compile(r"(?:\$[^$]*+\$\s*+,?\s*+(?:and\s+)?)*+$")
# Split at "; ", before "where", and before ", $X$ denotes …" (a list of definitions) — but not before
# ", $X \\in …$" that closes an appositive ("a base threshold, $p \\in (0, 1]$").
# Each alternative starts at a fixed character or at the start of a run of spaces, so a long run of spaces in
# raw text is scanned once, not once per position.
# (" where " opens a clause of its own, except after a copula: "which is where the base optimizer's update is
# performed" goes on describing the sequence)
_CLAUSE_SPLIT = re.compile(r";\s+|(?<!\s)(?<!\bis)(?<!\bare)(?<!\bwas)\s++(?=where\s)|"
                           r",\s++(?=(?:and\s+)?\$x*\$\s*(?:,\s*\$x*\$\s*)*"
                           r"(?:and\s+\$x*\$\s*)?" + _VERB + r"\b)", re.I)


@dataclass(frozen=True)
class Mention:
    """A formula in the prose and how its sentence treats it."""

    keys: tuple[str, ...]
    """Symbol keys the formula is about."""
    bases: tuple[str, ...]
    """The same symbols with every subscript stripped (for matching an index written as a label)."""
    pattern: str | None
    """Definition pattern matched (None: a plain use)."""
    strength: int
    """3 explicit, 2 appositive/parenthesis, 1 ordinal, 0 a plain use."""
    quote: str
    """The clause holding the formula (verbatim, whitespace collapsed)."""
    math: str
    """The formula as written (a notation-table row adds its `\\in …` cell: `x, x_0 \\in \\mathbb{R}^D`)."""
    paragraph_index: int
    """Index of the paragraph in the document."""
    sentence_index: int
    """Index of the sentence in the paragraph."""
    inner: tuple[str, ...] = ()
    """Keys of the other symbols inside the formula (`\\mathcal{D} = \\{(c, x^w_0, x^l_0)\\}` → c, x^w, x^l):
    the sentence mentions them without being about them."""
    description: str | None = None
    """The words that describe the formula's subject (the definiens), when a pattern matched."""
    elements: tuple[str, ...] = ()
    """Keys of the members of a collection the formula names or defines (`X = \\{x_1, …, x_n\\}` → x): the
    sentence defines them with it."""


@lru_cache(maxsize=20000)
def _parse(latex: str):
    try:
        return merge_words(parse(latex).tree)
    except (MathParseError, RecursionError):
        return None


def is_component(node: ast.Node) -> bool:
    """`(\\mathbf{x})_i`: one entry of a bracketed quantity; what a membership says of it is the entry's shape
    (`(\\mathbf{x})_i \\in \\mathbb{R}`), not the quantity's."""
    return isinstance(node, ast.Indexed) and isinstance(node.base, ast.Group) and node.base.open in ("(", "[")


def membership_groups(tree: ast.Node) -> list[tuple[tuple[ast.Node, ...], str | None, ast.Node | None]]:
    """Subjects of a prose formula grouped with their relation and right side.

    `A, B \\in \\mathbb{R}^{n}, C \\in \\mathbb{R}^{m}` → [((A, B), \\in, R^n), ((C,), \\in, R^m)];
    a formula without a relation is one group of subjects with no right side.
    """
    node = tree
    if isinstance(node, ast.Rows) and node.statements:
        node = node.statements[0]
    items = node.items if isinstance(node, ast.Sequence) or (isinstance(node, ast.Tuple) and node.open == "") \
        else (node,)
    groups: list[tuple[tuple[ast.Node, ...], str | None, ast.Node | None]] = []
    pending: list[ast.Node] = []
    for item in items:
        if isinstance(item, ast.Relation) and item.operands:
            head = item.operands[0]
            subjects = head.items if isinstance(head, ast.Sequence) or \
                (isinstance(head, ast.Tuple) and head.open == "") else (head,)
            groups.append((tuple(pending) + tuple(subjects), item.ops[0], item.operands[1]))
            pending = []
        else:
            pending.append(item)
    if pending:
        groups.append((tuple(pending), None, None))
    return groups


def split_membership(tree: ast.Node) -> tuple[tuple[ast.Node, ...], str | None, ast.Node | None]:
    """All subjects of a prose formula, with the first relation and right side (see `membership_groups`)."""
    groups = membership_groups(tree)
    subjects = tuple(s for g in groups for s in g[0])
    first = next((g for g in groups if g[1] is not None), None)
    return subjects, (first[1] if first else None), (first[2] if first else None)


def _collection_items(node: ast.Node) -> tuple[ast.Node, ...] | None:
    """The members a formula lists: `\\{x_1, …, x_n\\}`, `[y_i]_{i=1}^N`, `\\{(c, x^w, x^l)\\}`, `(z_1, …, z_K)`;
    None when the node is not a collection."""
    while isinstance(node, (ast.Power, ast.Indexed, ast.Labeled)):
        node = node.base
    if isinstance(node, ast.Group):
        node = node.body
        if isinstance(node, (ast.Indexed, ast.Symbol)) or \
                (isinstance(node, ast.Power) and label_exponent(node.exponent)) or \
                (isinstance(node, ast.Apply) and isinstance(node.func, ast.Indexed)):
            # `[y_i]_{i=1}^N`, `\\mathbf{W}^{\\ell} = [w_{ij}^{\\ell}]`, a vector of its entries' values
            # `\\bm\\sigma(t) = [\\sigma_{\\rho_i}(t)]`
            return (node,)
    if isinstance(node, ast.SetBuilder):
        # `\\{\\mathbf{x}_t : t \\sim [0, 1]\\}`, `\\{x \\in S \\mid …\\}`: the set of its element
        element = node.element
        if isinstance(element, ast.Relation) and element.operands:
            element = element.operands[0]
        return (element,) if isinstance(element, SYMBOL_LIKE) else None
    if isinstance(node, (ast.SetLiteral, ast.Tuple)):
        out: list[ast.Node] = []
        for item in node.items:
            inner = _collection_items(item) if isinstance(item, (ast.Tuple, ast.SetLiteral)) else None
            out.extend(inner if inner is not None else (item,))
        # a condition (`\\forall x \\in \\mathbb{D}` in `\\mathbb{M} = (v(x), \\forall x \\in \\mathbb{D})`) ranges
        # over its variable: that variable is bound there, not a member the formula defines
        return tuple(i for i in out if not isinstance(i, (ast.Ellipsis_, ast.Number, ast.Relation)) and
                     not (isinstance(i, ast.Annotated) and i.kind == "condition"))
    return None


def element_keys(tree: ast.Node, ordinals: frozenset[str]) -> tuple[str, ...]:
    """Members of a collection the formula names or defines: `\\{X_j^P\\}_{j=1}^{n_P}` → X^P;
    `X = \\{x_1, …, x_n\\}` → x; `\\mathcal{D} = \\{(c, x^w_0, x^l_0)\\}` → c, x^w, x^l."""
    node = tree.statements[0] if isinstance(tree, ast.Rows) and tree.statements else tree
    parts = [node]
    if isinstance(node, ast.Relation) and node.ops and node.ops[0] in ("=", ":=", "\\coloneqq", "\\triangleq",
                                                                        "\\sim", "\\in"):
        parts = [node.operands[0]] + ([node.operands[1]] if node.ops[0] in ("=", ":=", "\\coloneqq", "\\triangleq")
                                      else [])
    keys: list[str] = []
    for part in parts:
        items = _collection_items(part)
        if not items:
            continue
        targets = tuple(item.func if isinstance(item, ast.Apply) else item for item in items)
        # each member as a formula writing it alone would key it (z_1), and the members read together: x_1, x_2,
        # …, x_n are one family x
        together = {form: u.key for u in collect(part, ordinals).uses if u.kind != "index"
                    for form in u.written} if len(targets) > 1 else {}
        for target in targets:
            info = collect(target, ordinals)
            keys.extend(u.key for u in info.uses[:1] if u.kind != "index")
            if to_latex(target) in together:
                keys.append(together[to_latex(target)])
    return tuple(dict.fromkeys(keys))


def _mention_keys(tree: ast.Node, ordinals: frozenset[str]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    items, _, _ = split_membership(tree)
    keys: list[str] = []
    bases: list[str] = []
    for item in items:
        target = item.func if isinstance(item, ast.Apply) else item
        if isinstance(target, ast.Power) and isinstance(target.base, (ast.Symbol, ast.Indexed)) and \
                isinstance(target.exponent, ast.Number):
            target = target.base  # "$\\sigma^2$ denotes the variance" is about sigma
        if isinstance(target, ast.Indexed):
            info = collect(target, ordinals)
            if info.uses and info.uses[0].kind != "index":
                keys.append(info.uses[0].key)
                bases.append(symbol_key(target) or info.uses[0].key)
                continue
        key = symbol_key(target)
        if key is None and _placeholder_notation(target):
            key = notation_of(target)[0]  # "$[\\cdot;\\cdot]$ denotes concatenation"
        if key is not None:
            keys.append(key)
            bases.append(key)
    return tuple(keys), tuple(bases)


def _placeholder_notation(node: ast.Node) -> bool:
    """`[\\cdot;\\cdot]`, `\\langle\\cdot,\\cdot\\rangle`, `\\mathds{1}(\\cdot)`: an operator written with placeholders, the way
    a sentence names the operator itself."""
    if notation_of(node) is None:
        return False
    if isinstance(node, ast.Indicator):
        return True
    return all(isinstance(n, ast.Symbol) and n.name in ("\\cdot", "\\bullet", "\\cdots")
               for n in ast.walk(node) if isinstance(n, (ast.Symbol, ast.Number)) and n is not node)


_ONLY_FORMULAS = re.compile(r"\s*(?:(?:where|with|and|let|here)\s+)?(?:\$x*\$\s*,?\s*(?:and\s+)?)+", re.I)


def _clauses(sentence: str) -> list[tuple[int, int]]:
    """Clause ranges of a sentence: split at top-level `;`, before ", $X$" and before "where" (never in math)."""
    masked = _MATH.sub(lambda m: "$" + "x" * (len(m.group()) - 2) + "$", sentence)
    cuts = [0]
    for m in _CLAUSE_SPLIT.finditer(masked):
        cuts.append(m.end() if masked[m.start()] == ";" else m.start() + (1 if masked[m.start()] == "," else 0))
    cuts.append(len(sentence))
    # "where $\\lambda_{bce}$, $\\lambda_{dice}$, and $\\lambda_{ce}$ are set to …": a clause that is only a list of
    # formulas is the coordinated subject of the next one, not a clause of its own.
    k = 1
    while k < len(cuts) - 1:
        if _ONLY_FORMULAS.fullmatch(masked[cuts[k - 1]:cuts[k]]):
            del cuts[k]
        else:
            k += 1
    spans = []
    for a, b in zip(cuts, cuts[1:]):
        if sentence[a:b].strip():
            spans.append((a, b))
    return spans


def ordinal_indices(doc: Document) -> frozenset[str]:
    """Letters the paper uses as positions: "the $t$-th token", "$i$-th expert"."""
    found = set()
    for m in re.finditer(r"\$([A-Za-z]|\\[a-z]+)\$\s*(?:-|\^\{?)th\b", "\n".join(p.text for p in doc.paragraphs)):
        found.add(m.group(1))
    return frozenset(found)


@dataclass(frozen=True)
class FormulaInProse:
    """One inline formula of a sentence, classified. Offsets are into the sentence string."""

    latex: str
    """The formula without its delimiters."""
    start: int
    """Offset of the formula's first character (after `$`)."""
    end: int
    """Offset one past its last character (before `$`)."""
    pattern: str | None
    """Definition pattern matched, or None."""
    strength: int
    """3 explicit, 2 appositive/parenthesis/dimension, 1 ordinal, 0 none."""
    clause: tuple[int, int]
    """The clause holding it."""
    description: tuple[int, int] | None
    """The words that describe the symbol (the definiens), when a pattern matched."""


def classify_sentence(text: str) -> list[FormulaInProse]:
    """Every inline formula in one sentence, with the definition pattern its clause matches."""
    found: list[FormulaInProse] = []
    where_state = False
    for a, b in _clauses(text):
        clause = text[a:b]
        if re.match(r"\s*(?:where|wherein|here)\b", clause, re.I):
            where_state = True
        for m in _MATH.finditer(clause):
            inner = _inner(m)
            latex = (m.group(inner) or "").strip()
            if not latex:
                continue
            before, after = _dollars(clause[:m.start()]), _dollars(clause[m.end():])
            pattern, strength = _classify(before, after, latex, where_state)
            description = _description(clause, m.start(), m.end(), pattern) if pattern else None
            if pattern in ("is", "where", "let") and description is not None and \
                    _is_predicate_adjective(clause[description[0]:description[1]]):
                # "$S$ is universal" describes, not defines; "the functions $F$ and $S$" may still name it.
                pattern, strength = _classify(before, after, latex, where_state, skip=("is", "where", "let"))
                description = _description(clause, m.start(), m.end(), pattern) if pattern else None
            if description is not None and not _is_clean_description(clause[description[0]:description[1]]):
                description = None
            if description is not None:
                description = (a + description[0], a + description[1])
            found.append(FormulaInProse(latex, a + m.start(inner), a + m.end(inner), pattern, strength, (a, b),
                                        description))
    return found


_PAREN_MATH = re.compile(r"\\\((.{0,4000}?)\\\)", re.S)


def _dollars(text: str) -> str:
    """The text with `\\(…\\)` formulas written `$…$`: the patterns read the formulas around a symbol ("the spatial
    domain \\(x \\in [0, 1]\\) and \\(y \\in [0, 1]\\)") however the paper delimits them."""
    return _PAREN_MATH.sub(lambda m: "$" + m.group(1).replace("$", " ") + "$", text) if "\\(" in text else text


# Where a description stops. Possessive `\s*+` and a bounded window keep the search linear on long runs of
# spaces in raw text.
_END_ALTERNATIVES = (r",\s*+(?:(?:which|that|where|while|so|as)\b|and\s+(?=\$)|i\.e\.)|;|\.\s*+$|:|"
                     r"\((?:see|cf|e\.g)|$")
_DESCRIPTION_END = re.compile(r"\s*+(?:" + _END_ALTERNATIVES + ")")
# "We denote by $N$ the number of tokens, and by $d$ the width": the next "by $X$" starts the next definition.
_DENOTE_BY_END = re.compile(r"\s*+(?:" + _END_ALTERNATIVES + r"|,\s*+(?:and\s+)?by\s+\$|,\s*+then\b)", re.I)
_DESCRIPTION_WINDOW = 400
_LEAD_VERB = re.compile(r"^\s*(?:,\s*)?(?:\([^)]*\)\s*)?(?:,\s*)?(?:\$[^$]*+\$\s*+,?\s*+)*+(?:and\s+\$[^$]*\$\s*)?" + _VERB +
                        r"\b\s*(?:to\s+be\s+|as\s+|by\s+)?", re.I)


def _words_until(clause: str, start: int, end_re: re.Pattern) -> tuple[int, int] | None:
    """The description that starts at `start` and runs to `end_re` (trailing punctuation dropped)."""
    end_m = end_re.search(clause, start, start + _DESCRIPTION_WINDOW)
    end = end_m.start() if end_m else len(clause)
    while end > start and clause[end - 1] in " ,;.":
        end -= 1
    return (start, end) if end > start else None


def _description(clause: str, math_start: int, math_end: int, pattern: str) -> tuple[int, int] | None:
    """The words that describe the symbol: after the verb ("is the …"), or the noun before it ("the matrix Q")."""
    if pattern in ("where", "is", "let", "in-set", "equation"):
        after = clause[math_end:]
        m = _LEAD_VERB.match(after)
        if m is None:
            m = re.match(r"^\s*(?:denote|be|represent)s?\b\s*", after, re.I)
        if m is None:
            if pattern == "in-set":  # "a threshold, $p \\in (0, 1]$": the noun before the formula
                return _noun_phrase_before(re.sub(r",\s*$", " ", clause[:math_start]))
            return None
        return _words_until(clause, math_end + m.end(), _DESCRIPTION_END)
    if pattern == "denote-as":
        return _named_as(clause[:math_start])
    if pattern == "denote-by":
        m = re.match(r"\s*(?:,?\s*+(?:and\s+)?\$[^$]*+\$\s*+)*+,?\s*(?:to\s+(?:denote|represent|indicate|refer\s+to)\s+|as\s+)?",
                     clause[math_end:], re.I)
        return _words_until(clause, math_end + m.end(), _DENOTE_BY_END)
    if pattern in ("appositive", "noun", "parenthesis", "dimension", "denoted", "called"):
        cut = max(0, math_start - _PHRASE_WINDOW)
        before = clause[cut:math_start]
        if pattern in ("denoted", "called"):
            before = re.sub(r"(?:,\s*)?(?:is\s+|are\s+)?(?:denoted|written|represented|abbreviated|parameterized|"
                            r"parametrized|called|named|termed|referred\s+to|known|dubbed)\s*(?:as|by|with)?\s*"
                            r"(?:\$[^$]*+\$\s*+,?\s*+(?:and\s+)?)*+$", "", before, flags=re.I)
        found = _noun_phrase_before(before)
        return None if found is None else (cut + found[0], cut + found[1])
    return None


_DETERMINERS = frozenset("the a an each our its their this these those all every some any".split())
_SUBJECT_PRONOUNS = frozenset("we they it he she i you one".split())
# Words that end a noun phrase when walking back from a formula: function words and the verbs that take a
# formula as their object ("we write $H_n$", "the agent observes $x$", "since $B$ is").
_PHRASE_STOP = frozenset("""is are was were be been we they it he she introduce introduces add adds use uses into
    onto to of in on for by with from as at over under via than then and or but also which that where when while
    if so thus hence let denote denotes define defines call called named given
    between about around along above below across among through within without after before beyond near per
    towards toward upon versus vs wrt since because whenever although though unless until whereas both either
    neither nor therefore only even just there such say write writes exists exist exceeds exceed satisfies
    satisfy satisfying contains contain choose chooses chose pick picks take takes took get gets reach reaches
    remove removes observe observes play plays earn earns equals equal consider considers suppose
    obtain obtains compute computes replace replaces have has had can may must will would should
    could do does did not no here using moreover furthermore however finally additionally similarly likewise conversely
    otherwise instead indeed namely know knows need needs""".split())
# Words that are verbs after a subject and nouns after a determiner: "we estimate $x$" / "our estimate $\\hat x$".
_NOUN_AFTER_DETERMINER = frozenset("""return returns estimate estimates item items form forms case cases play stop
    reach sum sums""".split())
# A formula named by an adjective or a quantifier is described, not defined: "large $\\alpha$", "many $H$".
_NOT_A_HEAD = frozenset("""large small larger smaller positive negative optimal good bad arbitrary different same
    many few several various other another new old possible fixed given finite infinite non-empty nonempty
    distinct certain particular generic general specific cm mm nm ms ns hz ghz mhz khz mt""".split())
# Words ending in -ing that are nouns, not participles ("the detuning $\\delta$", "an embedding $e$").
_ING_NOUNS = frozenset("""detuning spacing clustering embedding embeddings padding encoding encodings setting
    settings mapping mappings string strings ring rings learning training coupling couplings binding ranking
    rankings pairing pairings matching matchings labeling labelling ordering orderings rating ratings
    thing things weighting smoothing scaling pooling gating routing rescaling rounding conditioning""".split())


def _is_noun_head(word: str) -> bool:
    """Whether the last word before a formula can head the noun phrase that names it."""
    word = word.lower()
    if word in _NOT_A_HEAD:  # (a _PHRASE_STOP word never gets here: the walk back stops before it)
        return False
    if word.endswith("ing") and word not in _ING_NOUNS:
        return False
    return not any(ch.isdigit() for ch in word)


# Prose markup a description may carry ("the \\emph{query} vector", "the learning rate~\\citep{adam}").
_PROSE_COMMANDS = ("emph", "textit", "textbf", "textsc", "textrm", "text", "underline", "cite", "citep", "citet",
                   "citealp", "ref", "eqref", "cref", "Cref", "autoref")
_LATEX_COMMAND = re.compile(r"\\(?!(?:" + "|".join(_PROSE_COMMANDS) + r")\b)[A-Za-z]")


def _is_clean_description(text: str) -> bool:
    """A description quotes prose: it never cuts a formula in half, carries no bare LaTeX command outside
    math."""
    if text.count("$") % 2:
        return False
    return _LATEX_COMMAND.search(_MATH.sub("", text)) is None


_ADJECTIVE_ENDINGS = ("ic", "al", "able", "ible", "ive", "ous", "ent", "ant", "ary", "less", "ful", "ed", "ing")
_ADJECTIVES = frozenset("""finite infinite constant positive negative zero nonzero non-zero small large same similar
    different equal fixed known unknown convex concave smooth bounded unbounded continuous independent dependent
    uniform unique empty nonempty non-empty even odd real complex symmetric orthogonal invertible sparse dense
    isomorphic universal given""".split())


def _is_predicate_adjective(description: str) -> bool:
    """A one-word adjective predicate ("finite", "isomorphic", "universal") is a property, not a definition;
    a one-word noun ("hyper-parameters", "noise", "ReLU") still defines."""
    words = re.findall(r"[A-Za-z][\w\-]*", description)
    if len(words) != 1 or "$" in description:
        return False
    word = words[0]
    if not word.islower() or (word.endswith("s") and not word.endswith(("ous", "less"))):
        return False
    return word in _ADJECTIVES or word.endswith(_ADJECTIVE_ENDINGS)


def _noun_phrase_before(before: str) -> tuple[int, int] | None:
    """The noun phrase that ends right before a formula (a list of formulas and an opening parenthesis skipped)."""
    cut = max(0, len(before) - _PHRASE_WINDOW)  # a bounded look back keeps long sentences linear
    found = _noun_phrase_in(before[cut:])
    return None if found is None else (cut + found[0], cut + found[1])


_PHRASE_WINDOW = 600


def _noun_phrase_in(before: str) -> tuple[int, int] | None:
    head = _TRAILING_LIST.sub("", before)
    head = re.sub(r"\(\s*$", "", head).rstrip()
    # A noun phrase does not reach back across a formula ("… $\\bm{X}$ using head-specific projection matrices
    # $W$": the phrase is "head-specific projection matrices", not the letters inside `\\bm{X}`).
    # A formula glued to a word by a hyphen ("a $d$-dimensional vector") belongs to the phrase.
    last_math = max((m.end() for m in re.finditer(r"\$[^$]*\$", head) if not head.startswith("-", m.end())),
                    default=-1)
    words = [w for w in re.finditer(r"[A-Za-z][\w\-]*", head) if w.start() >= last_math]
    if not words or words[-1].end() < len(head.rstrip(" ,")):
        return None
    if len(words) > 1 and words[-1].group().lower() == "being":  # "the current state being $s$"
        words = words[:-1]
    last = words[-1].group().lower()
    if last in _NOUN_AFTER_DETERMINER:  # "our estimate $\\hat x$" names; "we estimate $x$" does not
        if len(words) < 2 or words[-2].group().lower() not in _DETERMINERS:
            return None
        return words[-2].start(), words[-1].end()
    chosen = []
    stopped_by = None
    for w in reversed(words[-6:]):
        word = w.group().lower()
        if word in _DETERMINERS:
            chosen.append(w)
            break
        if word in _PHRASE_STOP or (len(word) > 4 and word.endswith(("ed", "ly")) and word not in ("embed", "speed")):
            stopped_by = word
            break
        chosen.append(w)
    if stopped_by in _SUBJECT_PRONOUNS and len(chosen) == 1:
        return None  # "we set $\\alpha$ to 0.0001": a verb after its subject, not a noun naming the formula
    if not chosen or (len(chosen) == 1 and chosen[0].group().lower() in _DETERMINERS):
        return None
    if not _is_noun_head(chosen[0].group()):
        return None
    if _COMPLEMENT_OF_FORMULA.search(head[:chosen[-1].start()]):
        return None  # "we have $X \\in …$ as the input, $Q \\in …$": "the input" is X's complement, not Q's name
    return chosen[-1].start(), chosen[0].end()


# A formula, then "as": the noun phrase after it says what that formula serves as.
_COMPLEMENT_OF_FORMULA = re.compile(r"\$[^$]*\$\s*as\s+$")


_SYMBOL_CELL = re.compile(r"\s*\$[^$]+\$(?:\s*(?:,|and)\s*\$[^$]+\$)*\s*")
_PROSE_WORD = re.compile(r"[A-Za-z]{2,}")
_CELL_BREAK = re.compile(r"(?<!\\)&")  # an unescaped `&` separates table cells


def notation_row(cells: tuple[str, ...]) -> tuple[int, int] | None:
    """A row of a notation table ("$\\alpha_t$ & & Noise schedule coefficient."): the symbols stand alone in
    the first cell and a later cell describes them in words. Returns (symbol cell, description cell)."""
    if len(cells) < 2 or not _SYMBOL_CELL.fullmatch(cells[0]):
        return None
    if not all(_symbol_like(m.group(_inner(m)) or "") for m in _MATH.finditer(cells[0])):
        return None  # "$0 < \\lambda < 1$ & Minimum" is a condition, not a symbol
    for k in range(len(cells) - 1, 0, -1):
        cell = cells[k].strip()
        prose = re.sub(r"\\[A-Za-z@]+\*?", " ", _MATH.sub("", cell))
        if cell and not cell.startswith("$") and _PROSE_WORD.search(prose) and _is_clean_description(cell):
            return 0, k
    return None


def row_quote(cells: tuple[str, ...]) -> str:
    """A table row as one quote: its cells joined by " & ", whitespace collapsed."""
    return re.sub(r"\s+", " ", " & ".join(_CELL_BREAK.sub(r"\\&", c.strip()) for c in cells)).strip()


def row_cells(quote: str) -> tuple[str, ...]:
    """The cells of a notation-table quote (the inverse of how the quote was joined)."""
    return tuple(c.strip() for c in _CELL_BREAK.split(quote))


def row_description(quote: str) -> str | None:
    """The cell of a notation-table quote that describes its symbols ("Data dimension.")."""
    cells = row_cells(quote)
    row = notation_row(cells)
    return cells[row[1]] if row else None


def _table_mentions(doc: Document, ordinals: frozenset[str]) -> list[Mention]:
    """Definitions in notation tables, anchored to the caption paragraph of their table."""
    captions = {(p.span.file, p.span.line): i for i, p in enumerate(doc.paragraphs) if p.kind == "caption"}
    mentions: list[Mention] = []
    for table in doc.floats:
        anchor = captions.get((table.span.file, table.span.line))
        if table.kind != "table" or anchor is None:
            continue
        for cells in table.cells:
            row = notation_row(cells)
            if row is None:
                continue
            # A middle cell "$\\in \\mathbb{R}^D$" states the symbols' space: keep it with each symbol.
            space = next((m.group(1).strip() for c in cells[row[0] + 1:row[1]]
                          for m in [re.fullmatch(r"\s*\$\s*(\\in\b[^$]*)\$\s*\.?\s*", c)] if m), "")
            for m in _MATH.finditer(cells[row[0]]):
                symbols = (m.group(_inner(m)) or "").strip()
                tree = _parse(symbols) if symbols else None
                if tree is None:
                    continue
                keys, bases = _mention_keys(tree, ordinals)
                if keys:
                    latex = f"{symbols} {space}" if space and _parse(f"{symbols} {space}") is not None else symbols
                    mentions.append(Mention(keys, bases, "table", 3, row_quote(cells), latex, anchor, 0))
    return mentions


def find_mentions(doc: Document, ordinals: frozenset[str]) -> list[Mention]:
    """Every inline formula in the paper's prose, with the definition pattern its clause matches (if any),
    then the rows of notation tables."""
    mentions: list[Mention] = []
    for p_index, para in enumerate(doc.paragraphs):
        for s_index, sentence in enumerate(para.sentences):
            mentions.extend(m for m in sentence_mentions(sentence.text, p_index, s_index, ordinals) if m is not None)
    return mentions + _table_mentions(doc, ordinals) + _acronym_mentions(doc)


def sentence_mentions(text: str, p_index: int, s_index: int, ordinals: frozenset[str]) -> list[Mention | None]:
    """The mentions of one sentence: one entry per inline formula, in order (None for a formula that does not
    parse or names no symbol). A sentence's mentions depend on that sentence alone (`analysis.prose_index`
    classifies only the sentences a reading asks about)."""
    if "$" not in text and "\\(" not in text:
        return []
    found = classify_sentence(text)
    parts = [None if _part_of_a_word(text, f.end) else _formula_keys(f.latex, ordinals) for f in found]
    out: list[Mention | None] = []
    for k, (f, part) in enumerate(zip(found, parts)):
        if part is None or not any(part[i] for i in (0, 2, 3)):
            out.append(None)
            continue
        keys, bases, elements, inner = part
        end = _explained_until(text, found, parts, k)
        quote = _quote_for(text[f.clause[0]:end], text, f.pattern, (f.clause[0], end))
        described = text[f.description[0]:f.description[1]] if f.description else None
        out.append(Mention(keys, bases, f.pattern, f.strength, quote, f.latex, p_index, s_index, inner, described,
                           elements))
    return out


def sentence_formula_keys(text: str, ordinals: frozenset[str]) -> list[tuple[tuple[str, ...], ...] | None]:
    """Per inline formula of one sentence, in the order of `sentence_mentions`, the keys its mention would hold
    ((subject keys, bases, element keys, inner keys), None for a formula that gives no mention), without
    classifying the sentence: what a lookup of one key asks before the sentence's patterns are matched."""
    if "$" not in text and "\\(" not in text:
        return []
    out = []
    for a, b in _clauses(text):
        for m in _MATH.finditer(text[a:b]):
            inner = _inner(m)
            latex = (m.group(inner) or "").strip()
            if latex:
                parts = None if _part_of_a_word(text, a + m.end(inner)) else _formula_keys(latex, ordinals)
                out.append(parts if parts is not None and any(parts[i] for i in (0, 2, 3)) else None)
    return out


@lru_cache(maxsize=20000)
def _formula_keys(latex: str, ordinals: frozenset[str]) -> tuple[tuple[str, ...], ...] | None:
    """(subject keys, their bases, element keys, inner keys) of one prose formula, None when it does not parse:
    they depend on the formula alone, and a paper writes the same `$x_t$` in many sentences."""
    tree = _parse(latex)
    if tree is None:
        return None
    keys, bases = _mention_keys(tree, ordinals)
    elements = element_keys(tree, ordinals)
    return keys, bases, elements, _inner_keys(tree, keys + elements, ordinals)


_WHERE_CLAUSE = re.compile(r"\s*,?\s*(?:where|wherein)\b", re.I)


def _explained_until(text: str, found: list[FormulaInProse], parts: list, k: int) -> int:
    """Where the quote of formula `k` ends: its clause, and the "where" clause right after it when that clause
    says what the formula's own parts are ("a fixed dataset $\\mathcal{D} = \\{(c, x^w, x^l)\\}$, where each
    example contains a prompt $c$ …", "$\\mathcal{R} = \\{r^1, …, r^n\\}$ is the set of reward functions where
    each $r^i$ maps …"): a reader quotes the two together."""
    from .candidates import key_family
    end = found[k].clause[1]
    own = parts[k]
    if own is None or not _WHERE_CLAUSE.match(text, end):
        return end
    families = {key_family(key) for key in own[2] + own[3]}
    for f, part in zip(found[k + 1:], parts[k + 1:]):
        if f.clause[0] != end:
            break
        if part is not None and any(key_family(key) in families for key in part[0] + part[2] + part[3]):
            return f.clause[1]
    return end


_GLUED_WORD = re.compile(r"(?:\$|\\\))(?!(?:th|st|nd|rd)\b)[A-Za-z]{2}")


def _part_of_a_word(text: str, end: int) -> bool:
    """The formula is glued to the word after it (`$\\epsilon$LlamaGen`, `$\\sigma$Reparam`): a letter in the name
    of a model or method, not a mention of the symbol (an ordinal `$r$th` stays a mention)."""
    return bool(_GLUED_WORD.match(text, end))


# "multi-head self-attention (\\texttt{MHSA})", "Kolmogorov-Smirnov Test (KST)": a name in words and its short form.
_ACRONYM = re.compile(r"\(\s*(?:\\(?:text|texttt|textrm|textsf|textbf|textsc|mathrm|operatorname)\s*\{\s*)?"
                      r"([A-Za-z][A-Za-z0-9\-]{1,11})\s*\}?\s*\)")


def acronym_expansion(before: str, short: str) -> str | None:
    """The words before "(SHORT)" that SHORT abbreviates, or None (Schwartz & Hearst 2003: SHORT's letters are
    found right to left in the words, its first letter starting a word, within min(|SHORT| + 5, 2|SHORT|)
    words)."""
    letters = [c.lower() for c in short if c.isalnum()]
    if len(letters) < 2 or not any(c.isupper() for c in short[1:] + short[:1]) or not letters[0].isalpha():
        return None
    words = re.findall(r"[^\s]+", before)
    window = words[-min(len(letters) + 5, 2 * len(letters)):]
    text = " ".join(window)
    i, j = len(letters) - 1, len(text) - 1
    while i >= 0:
        c = letters[i]
        while j >= 0 and (text[j].lower() != c or (i == 0 and j > 0 and text[j - 1].isalnum())):
            j -= 1
        if j < 0:
            return None
        i -= 1
        j -= 1
    start = j + 1
    expansion = text[start:].strip()
    words_used = expansion.split()
    if not words_used or len(words_used) > len(letters) + 1 or "$" in expansion:
        return None
    return expansion


def _acronym_mentions(doc: Document) -> list[Mention]:
    """Names the prose gives a short form (`(\\texttt{MHSA})`): the short form, as the formulas write it in
    words (`\\text{MHSA}`, `\\mathrm{MHSA}`), is defined by the words it abbreviates."""
    mentions: list[Mention] = []
    for p_index, para in enumerate(doc.paragraphs):
        for s_index, sentence in enumerate(para.sentences):
            text = sentence.text
            mentions += _named_in_words(text, p_index, s_index)
            if "(" not in text:
                continue
            for m in _ACRONYM.finditer(text):
                short = m.group(1)
                before = _MATH.sub(" $ ", text[max(0, m.start() - 200):m.start()])
                expansion = acronym_expansion(before, short)
                if expansion is None:
                    continue
                keys = (f"\\text{{{short}}}", f"\\mathrm{{{short}}}", f"\\operatorname{{{short}}}")
                mentions.append(Mention(keys, keys, "acronym", 3, text.strip(), f"\\text{{{short}}}", p_index,
                                        s_index, description=expansion))
    return mentions


# "where \\texttt{Norm} is Layer Normalization": a name the formulas write in words, set in the prose's text
# mode (no `$`), as the subject of a where clause.
_WORDED_NAME_WHERE = re.compile(r"\b(?:where|here)\s+\\(?:texttt|textsf|textrm|textsc|text)\s*\{\s*"
                                r"([A-Za-z][A-Za-z0-9\-]{1,15})\s*\}\s+(?:is|denotes|represents|refers\s+to)\s+"
                                r"((?:an?\s+|the\s+)?[A-Za-z][\w\- ]{2,60}?)(?=\s*(?:[,.;:(~]|\\cite|$))", re.I)


def _named_in_words(text: str, p_index: int, s_index: int) -> list[Mention]:
    """The names a sentence defines in text mode ("where \\texttt{Norm} is Layer Normalization"): the name, as the
    formulas write it in words (`\\texttt{Norm}(x)` is `\\text{Norm}`), is defined by its where clause."""
    out = []
    if "where" not in text and "here" not in text:
        return out
    for m in _WORDED_NAME_WHERE.finditer(text):
        name = m.group(1)
        keys = (f"\\text{{{name}}}", f"\\mathrm{{{name}}}", f"\\operatorname{{{name}}}")
        out.append(Mention(keys, keys, "where", 3, text.strip(), f"\\text{{{name}}}", p_index, s_index,
                           description=m.group(2).strip()))
    return out


# "we denote the number of numerical features as $M$", "We abbreviate the result generated from … as $F(…)$": a verb
# of naming, its object (the description), then "as" and the formula (a list of formulas: "as $M$ and $N$").
_NAMING_VERB = re.compile(r"\b(?:denote|write|abbreviate|refer\s+to|represent)\s+(?!(?:by|as|with)\b)", re.I)
_AS_FORMULAS = re.compile(r"\s+as\s*+(?:\$x*\$\s*+,?\s*+(?:and\s+)?)*+$")
_NAMING_WINDOW = 300


def _named_as(before: str) -> tuple[int, int] | None:
    """The object of "denote <object> as" when `before` (the clause up to a formula) ends so: its offsets in
    `before`, or None. The object is words (a formula alone is a renaming: "write $x_t$ as $x$"), and the verb
    is the last one before the formula, within a bounded window."""
    cut = max(0, len(before) - _NAMING_WINDOW)
    masked = _MATH.sub(lambda m: "$" + "x" * (len(m.group()) - 2) + "$", before[cut:])
    tail = _AS_FORMULAS.search(masked)
    verb = None
    for verb in _NAMING_VERB.finditer(masked, 0, tail.start() if tail else 0):
        pass
    if tail is None or verb is None:
        return None
    obj = masked[verb.end():tail.start()]
    words = re.sub(r"\$x*\$|\\[A-Za-z]+\*?(?:\{[^{}]*\})?", " ", obj)  # formulas, `\\ref{eq:x}`
    # the object is one noun phrase: no clause break and no other "as" in it
    if not re.search(r"[A-Za-z]{2}", words) or re.search(r"[;:.]|\bas\b", words):
        return None
    return cut + verb.end(), cut + tail.start()


# "$m_t$ is sampled from the mixture distribution", "$t$ is drawn uniformly from": a draw, said in words.
_SAMPLED_AFTER = re.compile(r"\s*(?:,\s*)?(?:is|are|was|were)\s+(?:\w+ly\s+)?(?:sampled|drawn|resampled)\b", re.I)


def _classify(before: str, after: str, latex: str, where_state: bool,
              skip: tuple[str, ...] = ()) -> tuple[str | None, int]:
    if "denote-as" not in skip and _symbol_like(latex) and _named_as(before) is not None:
        return "denote-as", 3
    # Patterns look at most a few words each way; bounding the text keeps every regex linear.
    if len(before) > 160:
        before = "\u2026" + before[-160:]
    after = after[:160]
    in_set = re.search(r"\\in\s*\\mathbb\s*\{?R\}?|\\in\s*\\R\b|\\in\s*\\mathbb\{[RN]\}", latex)
    member = re.search(r"\\in\b", latex)
    if re.match(r"^\s*(?:-|\^\{?)th\b", after):
        return "ordinal", 1
    if _samples_left_side(latex) or (_symbol_like(latex) and _SAMPLED_AFTER.match(after)):
        return "sampled", 2  # "with $t \\sim \\mathcal{U}(0, T)$": t is a draw from the uniform distribution
    if (not _symbol_like(latex) or _ranged_equation(latex)) and not _bounds_left_side(latex):
        if _names_left_side(latex):
            return _equation_form(before, after, where_state, latex)
        return (None, 0)
    for name, strength, before_re, after_re in PATTERNS:
        if name == "ordinal" or name in skip:
            continue
        if before_re is not None and not before_re.search(before):
            continue
        if after_re is not None and not after_re.search(after):
            continue
        if name == "where" and not re.search(r"(?:where|wherein|here|in which|with)", before, re.I):
            continue
        if name == "is" and where_state:
            name = "where"
        if name in ("appositive", "noun") and (_APPOSITIVE_STOP.search(_TRAILING_LIST.sub("", before)) or
                                               _noun_phrase_before(before) is None):
            continue
        if name in ("is", "where") and _COPULA_WITHOUT_NOUN.match(after) and not in_set:
            continue
        if name == "appositive" and _BARE_CLASS_NOUN.search(_TRAILING_LIST.sub("", before)):
            return name, 1  # "We factor the constant $T$ into $\beta$": a class word says nothing of what T is
        if name in ("is", "where") and in_set:
            name = "in-set"
        if name == "noun" and in_set:
            return "in-set", 3  # "given input $X \\in \\mathbb{R}^{N \\times d}$": a named, typed declaration
        return name, strength
    if in_set:
        return "in-set", 3
    if member and _noun_phrase_before(re.sub(r",\s*$", " ", before)) is not None and \
            not _APPOSITIVE_STOP.search(_TRAILING_LIST.sub("", re.sub(r",\s*$", " ", before))):
        return "in-set", 3  # "a base probability threshold, $p_{base} \\in (0, 1]$"
    return None, 0


# An appositive whose noun phrase is an article and a bare class word ("the constant $T$", "the term $x$"): it
# names the kind of thing the formula is, not what it stands for.
_BARE_CLASS_NOUN = re.compile(r"(?:^|[\s(,;:])(?:the|a|an|this|that)\s+(?:constant|term|quantity|value|variable|"
                              r"expression|number|scalar)\s*(?:\$[^$]*+\$\s*+,?\s*+(?:and\s+)?)*+$", re.I)


_EQUATION_LEAD = re.compile(r"(?:^|[\s(,;:])(?:where|wherein|with|here|define|defining|defines|set|setting|denote|"
                            r"denoting|let|Let|i\.e\.,?|namely|and|or)\s*(?:\$[^$]*+\$\s*+,?\s*+(?:and\s+)?)*+$", re.I)


# Verbs that state a consequence of what came before: the formula after them is derived, not defined.
_CONSEQUENCE = re.compile(r"\b(?:results?\s+in|yields?|gives?|implies|leads?\s+to|reduces?\s+to|recovers?|becomes?|"
                          r"(?:we|one)\s+(?:get|gets|obtain|obtains|have|has|find|arrive\s+at|recover)|thus|hence|"
                          r"therefore|so\s+that|which\s+means|it\s+follows\s+that|show\s+that|shows\s+that)\s*$",
                          re.I)


# "the notation", "the shorthand", "the abbreviation" right before a formula (a list of formulas kept with it).
_NOTATION_NOUN = re.compile(r"\b(?:the\s+)?(?:notations?|shorthands?|abbreviations?)\s*"
                            r"(?:\$[^$]*+\$\s*+,?\s*+(?:and\s+)?)*+$", re.I)


_ASYMPTOTIC_ORDER = re.compile(r"^[^=]*=\s*(?:\\mathcal\s*\{?O\}?|O|\\Omega|\\Theta|\\tilde\s*\{?O\}?|"
                               r"\\widetilde\s*\{?O\}?)"
                               r"\s*(?:\\left|\\big|\\Big)?\s*\(")
"""An equality with an order of growth on its right (`\\beta = \\Omega(…)`, `m = \\Theta(\\sqrt{d})`)."""


_NAMED_BY_COPULA = re.compile(r"(?:^|[.;:]\s+|,\s+(?:and\s+)?)(?:the|our)\s+(?:[A-Za-z][\w\-]*\s+){0,6}?"
                              r"(?:is|are|was|were)\s*$", re.I)
"""A sentence (or clause) that opens with a noun phrase and a copula right before the formula ("The dimensionality
of input and output is", ", and the inner-layer has …" does not)."""


def _equation_form(before: str, after: str, where_state: bool, latex: str = "") -> tuple[str | None, int]:
    """An inline equation whose left side is a symbol (`$\\lambda_t = \\alpha_t^2/\\sigma_t^2$ is the …`,
    "where $c_{t+1} = 1/(t+1)$", "Define $\\lambda = M \\Vert … \\Vert$"): it defines the left side.
    A number on the right (`$\\beta = 0.9$ gives …`) only sets a value: a weak candidate."""
    if _sets_number(latex) and not re.search(r"(?:denoted|defined|called|named)\s+(?:as|by)?\s*$", before):
        # "The dimensionality of input and output is $d_{model} = 512$": the noun phrase the copula gives the value
        # to names the symbol (a value said of it, and what it is); "we set $\beta = 0.9$" only sets it
        return "value", 2 if _NAMED_BY_COPULA.search(before) else 1
    if _ASYMPTOTIC_ORDER.search(latex):
        return "order", 1  # "$\\beta = \\Omega(\\max\\{…\\})$": how large it grows, not what it is
    if re.search(r"(?:(?:denoted|written|defined|called|named)\s+(?:as|by)?|given\s+(?:as|by))\s*$|(?:^|\b)[Ll]et\s*$",
                 before):
        return ("denoted" if not re.search(r"[Ll]et\s*$", before) else "let"), 3  # "denoted as $p_{max} = …$"
    if _NOTATION_NOUN.search(before):
        return "denoted", 3  # "Using the notation $a_t = \\sqrt{\\alpha_t}$ and $b_t = …$ as shorthand": introduced
    if _CONSEQUENCE.search(before) and not _LEAD_VERB.match(after):
        return None, 0  # "using $c_{t+1} = 1/(t+1)$ results in $x_t = …$": a result derived, not a definition
    if _LEAD_VERB.match(after) and not _COPULA_WITHOUT_NOUN.match(after):
        return "equation", 3
    if _EQUATION_LEAD.search(before) or (where_state and re.search(r"(?:^|[,;])\s*(?:and\s+)?$", before)):
        return "equation", 3
    # A definition sign (`:=`, `\\coloneqq`, `\\triangleq`) defines its left side outright, whatever words lead to it
    # ("denote the aggregated variable $z := (x, y)$"); `=` after a noun may only restate it.
    strength = 3 if defined_by_sign(latex) else 2
    if _noun_phrase_before(before) is not None and not _APPOSITIVE_STOP.search(_TRAILING_LIST.sub("", before)):
        return "appositive", strength  # "a fixed dataset $\\mathcal{D} = \\{…\\}$"
    return "equation", strength


_DEFINITION_SIGNS = frozenset({":=", "\\triangleq"})
"""Relations that define their left side, as the parser writes them (`\\coloneqq`, `\\defeq` are `:=`; `=:`, which
`\\eqqcolon` is, defines its right side)."""


def defined_by_sign(latex: str) -> bool:
    """The formula's first relation is a definition sign (`z := (x, y)`), not `=`."""
    tree = _parse(latex)
    node = tree.statements[0] if isinstance(tree, ast.Rows) and tree.statements else tree
    return isinstance(node, ast.Relation) and node.ops[0] in _DEFINITION_SIGNS


def _inner_keys(tree: ast.Node, keys: tuple[str, ...], ordinals: frozenset[str]) -> tuple[str, ...]:
    """Every other symbol of the formula, the dimensions of a space it names included (`x \\in \\mathbb{R}^D`
    mentions D)."""
    info = collect(tree, ordinals)
    found = [u.key for u in info.uses if u.kind != "index" and u.key not in keys]
    for node in ast.walk(tree):
        label = node.sup_label if isinstance(node, ast.Symbol) and node.font == "bb" else None
        exponent = node.exponent if isinstance(node, ast.Power) and isinstance(node.base, ast.Symbol) and \
            node.base.font == "bb" else None
        for part in (label, exponent):
            if part is not None:
                found.extend(u.key for u in collect(part, ordinals).uses if u.kind != "index" and u.key not in keys)
    return tuple(dict.fromkeys(found))


# A clause after ";" that goes on about the same subject: "…; here we set it to be a ReLU, $\\phi(x) = …$".
_CONTINUES = re.compile(r"^\s*(?:here\s+|i\.e\.,?\s+|that\s+is,?\s+|in\s+practice,?\s+)?"
                        r"(?:we\s+(?:set|choose|take|use|fix|instantiate)\s+(?:it|this|them)\b|(?:it|this)\s+is\b)", re.I)


def _quote_for(clause: str, sentence: str, pattern: str | None, span: tuple[int, int] | None = None) -> str:
    if span is not None and pattern is not None:
        # Keep the clause that continues the definition with it ("…; here we set it to be a ReLU").
        rest = sentence[span[1]:]
        if sentence[:span[1]].rstrip().endswith(";") and _CONTINUES.match(rest):
            nxt = _CLAUSE_SPLIT.search(_MATH.sub(lambda m: "$" + "x" * (len(m.group()) - 2) + "$", rest), 1)
            clause = clause + (rest[:nxt.start()] if nxt else rest)
    quote = clause.strip()
    quote = re.sub(r"^(?:;|,)\s*", "", quote)
    quote = quote.rstrip(" ;,")
    if pattern in ("appositive", "noun", "parenthesis", "dimension", "ordinal", "called", "denoted") and len(quote) < 40:
        return sentence.strip()
    return quote


def link_spans(text: str, min_strength: int = 1) -> list[tuple[tuple[int, int], tuple[int, int], str]]:
    """Symbol → description links in raw paragraph text: [((symbol start, end), (description start, end), pattern)].

    Offsets index `text` itself (no normalisation), which is what span-level benchmarks need. A formula
    that names several symbols (`$W^Q, W^K \\in \\mathbb{R}^{d}$`) gives one link per symbol. A symbol is
    linked once per paragraph, where the paragraph first describes it: a later "the functions $F$" repeats,
    it does not define.
    `min_strength` trades recall for precision: 2 leaves out bare nouns ("time $t$"), 3 keeps only the
    explicit forms ("where", "let", "is", "denoted").
    """
    from ..latex.sentences import split_sentences
    candidates = [(span, description, "table") for span, description in _table_row_links(text)]
    for a, b in split_sentences(text):
        sentence = text[a:b]
        for f in classify_sentence(sentence):
            if f.pattern in (None, "ordinal") or f.description is None or f.strength < min_strength:
                continue
            raw = sentence[f.start:f.end]
            base = a + f.start + (len(raw) - len(raw.lstrip()))
            description = (a + f.description[0], a + f.description[1])
            spans = [(base, base + len(f.latex))]
            tree = _parse(f.latex)
            if tree is not None and f.pattern in ("where", "is", "let", "in-set", "denote-by"):
                subjects = [node for group in membership_groups(tree) for node in group[0]]
                if len(subjects) > 1:
                    spans = [(base + n.span[0], base + n.span[1]) for n in subjects if n.span[1] > n.span[0]]
            candidates.extend((span, description, f.pattern) for span in spans)
    first: dict[str, tuple] = {}
    for candidate in sorted(candidates):
        written = re.sub(r"\s+|[{}]", "", text[candidate[0][0]:candidate[0][1]])
        if written not in first:  # the first description wins: on Symlink train, preferring the strongest
            first[written] = candidate  # one instead loses precision (0.580 → 0.577)
    return sorted(first.values())


_ROW_BREAK = re.compile(r"\\\\\*?(?:\[[^\]]*\])?|\\tabularnewline\b|\\end\{(?:tabular|tabularx|tabular\*|longtable|"
                        r"longtabu|tabu|array)\}")
# What may open a row: rules, and the \begin{tabular}{…} of the first row (column spec with one level of braces).
_RULE_PREFIX = re.compile(r"^\s*(?:(?:\\(?:hline|toprule|midrule|bottomrule)|\\cline\{[^}]*\}|\\cmidrule(?:\([^)]*\))?"
                          r"\{[^}]*\}|\\begin\{[A-Za-z*]+\}(?:\s*\[[^\]]*\])?(?:\s*\{(?:[^{}]|\{[^{}]*\})*\})*)\s*)*")


def _table_row_links(text: str):
    """(symbol span, description span) of notation-table rows in raw LaTeX ("$\\rho$ & electron density \\\\")."""
    start = 0
    for brk in list(_ROW_BREAK.finditer(text)) + [None]:
        end = brk.start() if brk else len(text)
        row, row_start = text[start:end], start
        start = brk.end() if brk else len(text)
        if "&" not in row:
            continue
        bounds, at = [], _RULE_PREFIX.match(row).end()
        for amp in _CELL_BREAK.finditer(row, at):
            bounds.append((at, amp.start()))
            at = amp.end()
        bounds.append((at, len(row)))
        cells = tuple(row[c0:c1] for c0, c1 in bounds)
        found = notation_row(cells)
        if found is None:
            continue
        d0, d1 = bounds[found[1]]
        cell = text[row_start + d0:row_start + d1]
        lead, trail = len(cell) - len(cell.lstrip()), len(cell.rstrip())
        description = (row_start + d0 + lead, row_start + d0 + trail)
        s0 = row_start + bounds[found[0]][0]
        for m in _MATH.finditer(cells[found[0]]):
            yield (s0 + m.start(_inner(m)), s0 + m.end(_inner(m))), description


def link_definitions(text: str) -> list[tuple[str, str, str]]:
    """Link symbols to their defining clauses in a bare paragraph: [(symbol key, pattern, quote)].

    This is how the linker is benchmarked (SemEval-2022 Task 12): one paragraph of arXiv LaTeX in, links out.
    """
    from ..latex import document_from_string
    doc = document_from_string(text)
    ordinals = ordinal_indices(doc)
    out = []
    for mention in find_mentions(doc, ordinals):
        if mention.pattern is not None and mention.pattern != "ordinal":
            for key in mention.keys:
                out.append((key, mention.pattern, mention.quote))
    return out
