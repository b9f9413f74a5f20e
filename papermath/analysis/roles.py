"""Roles from how the paper uses a symbol, where the words of its defining sentences leave it open (issue 14).

The defining sentence decides a role first (`read._role`: "a momentum parameter", "is sampled from", "learnable").
When it says nothing that names one, the rest of the paper still gives evidence, each piece with a strength:

- a noun the prose puts right before the symbol in any sentence ("the output and value projections $W^{out}_h$",
  "keys $K$"), read with the same head-noun table as a definition (`cues.HEAD_ROLES`);
- a constant a statement is quantified over ("for any real $r > -1$"): a fixed setting;
- a display anywhere that draws it (`\\epsilon \\sim \\mathcal{N}(0, I)`): a random sample;
- a member of a chain of equalities that ends in a number ("We set $\\lambda = \\gamma = 10^{-4}$"): a fixed setting;
- a sentence that draws it in the active voice ("we generate each element in $b$ as independent Rademacher
  variables"): a random sample;
- being an argument of the function this display defines (`\\mathrm{FFN}(x) = …`): the function's input;
- scaling a named loss in a sum of losses (`\\mathcal{L} = \\mathcal{L}_{a} + \\eta \\mathcal{L}_{b}`): a fixed setting.

`weigh` adds the strengths per role; the role wins only when it leads the next one by at least `MARGIN`; otherwise
the reading stays "unknown" (an honest "I don't know" beats a guess). Each rule is a row of `USE_RULES`.
"""
from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from ..errors import MathParseError
from ..math import ast, parse, to_latex
from .cues import HEAD_ROLES, LOSS_NAME
from .candidates import key_family
from .symbols import braceless, collect, symbol_key, written_form

MARGIN = 1
"""How far the leading role's total strength must lead the next role's."""


@dataclass(frozen=True)
class Evidence:
    """One thing the paper says or does with a symbol that points to a role."""

    role: str
    """The role it points to."""
    cue: str
    """What was seen, as the reading shows it."""
    strength: int
    """2: the paper's words about this symbol; 1: how a formula uses it."""


# A noun phrase ends where a preposition, a verb or punctuation starts it: "we use keys $K$" → "keys";
# "projected into keys $K$" → "keys"; "the output and value projections $W$" → the whole phrase.
_PHRASE_START = re.compile(r"(?:[.,;:()\[\]]|\b(?:of|for|from|to|into|onto|by|with|within|in|on|at|over|under|is|are|"
                           r"was|were|be|been|denotes?|represents?|that|which|where|when|as|than|use|uses|using|via|"
                           r"let|then|if|each|every|all|any)\b)", re.I)
_DETERMINERS = re.compile(r"^\s*(?:the|a|an|our|its|their|these|those|this|some)\s+", re.I)


def noun_before(quote: str, math: str) -> str | None:
    """The words right before `$math$` in `quote` that can be its noun ("the output projections"), or None."""
    at = quote.find(f"${math}$")
    if at <= 0:
        return None
    before = quote[:at]
    if _LIST_FOLLOWS.match(quote[at + len(math) + 2:]) and before.rstrip().endswith(","):
        # "collections of known documents, $\\{X^P_j\\}$ and $\\{X^Q_j\\}$, respectively": the noun before the comma
        # is each listed symbol's
        before = before.rstrip()[:-1]
    starts = list(_PHRASE_START.finditer(before))
    phrase = before[starts[-1].end():] if starts else before
    phrase = _DETERMINERS.sub("", phrase).strip()
    words = phrase.split()
    if not words or len(words) > 5 or "$" in phrase or "\\" in phrase:
        return None
    return phrase


_LIST_FOLLOWS = re.compile(r"\s*,?\s*(?:and|or)\s+\$[^$]+\$\s*(?:,\s*)?(?:respectively|resp\.)")


def head_role(phrase: str) -> tuple[str, str] | None:
    """The role of the phrase's head noun: the row of `HEAD_ROLES` that matches at the phrase's end."""
    for role, pattern in HEAD_ROLES:
        for m in pattern.finditer(phrase):
            if m.end() == len(phrase):
                return role, m.group(0).strip()
    return None


def _own_spellings(use: Any) -> tuple[str, str]:
    """The use's key and its form as written, braces and spaces dropped: what a formula writing it prints as."""
    return braceless(use.key), braceless(written_form(use))


def names_use(use: Any, keys: Iterable[str]) -> bool:
    """One of a mention's keys is this use: its key, or its key with the indices it is written with here (the prose
    writes `W^{out}_h`, the display `W^{out}_h` too, whose key is `W^{out}` with the index h)."""
    if use.key in keys:
        return True
    if not use.indices:
        return False
    indexed = braceless(use.key) + "_" + braceless(",".join(use.indices))
    return any(braceless(k) == indexed for k in keys)


def _tree_or_none(math: str) -> ast.Node | None:
    """The tree of a formula the prose writes, or None where it does not parse (`parse` caches it per process)."""
    try:
        return parse(math).tree
    except MathParseError:
        return None


def members_of(math: str) -> str | None:
    """The key of the members of a collection written out (`\\{X^P_j\\}_{j=1}^{n_P}`: `X^{P}`), or None."""
    tree = _tree_or_none(math)
    while isinstance(tree, (ast.Power, ast.Indexed)):
        tree = tree.base
    if not isinstance(tree, ast.SetLiteral) or len(tree.items) != 1:
        return None
    uses = collect(tree, frozenset()).uses
    return uses[0].key if uses else None


def _nouns_before(ctx: UseContext) -> Iterable[Evidence]:
    for m, d in ctx.found:
        if m is None or d.pattern in ("inside", "same letter"):
            continue
        mine = _own_spellings(ctx.use)
        if not names_use(ctx.use, m.keys) and (m.keys or braceless(members_of(m.math) or "") not in mine):
            continue
        phrase = noun_before(m.quote, m.math)
        found = head_role(phrase) if phrase else None
        if found is not None and found[0] not in ("computed",):
            yield Evidence(found[0], f"\"{phrase} ${m.math}$\" (a mention)", 2)


def _declared_in_an_algorithm(ctx: UseContext) -> Iterable[Evidence]:
    """"Initialize: discount factor $\\gamma$, actor parameters $\\theta^1$", "Input: dataset $\\mathcal{D}$": an
    algorithm box declares what it starts from with a noun before each symbol, read with the head-noun table."""
    mine = _own_spellings(ctx.use)
    for math, line in ctx.algorithm_lines:
        if braceless(math) not in mine:
            continue
        phrase = noun_before(line, math)
        found = head_role(phrase) if phrase else None
        if found is not None and found[0] != "computed":
            yield Evidence(found[0], f"\"{phrase} ${math}$\" (an algorithm line)", 2)
            return


_ANY_CONSTANT = re.compile(r"\b(?:for|with)\s+(?:any|all|every|some)\s+(?:real|positive|fixed|constant|integer|"
                           r"scalar)\b[\w\s-]{0,15}$", re.I)


def _quantified_constant(ctx: UseContext) -> Iterable[Evidence]:
    """"for any real $r > -1$", "for any fixed offset $k$": a constant the statement holds for, chosen once."""
    for m, d in ctx.found:
        if m is None or d.pattern in ("inside", "same letter") or ctx.use.key not in m.keys:
            continue
        at = m.quote.find(f"${m.math}$")
        hit = _ANY_CONSTANT.search(m.quote[:at]) if at > 0 else None
        if hit:
            yield Evidence("fixed setting", f"\"{hit.group(0).strip()} ${m.math}$\"", 2)


_CHAIN_END = re.compile(r"=\s*[-+]?\s*(?:\d[\d.,]*(?:\s*\\times\s*10\^\{?-?\d+\}?|e-?\d+)?|10\^\{?-?\d+\}?)"
                        r"\s*\\?%?\s*$")


def _set_in_a_chain(ctx: UseContext) -> Iterable[Evidence]:
    """"We set $\\lambda = \\gamma = 10^{-4}$": every member of a chain of equalities that ends in a number is set to
    it, not only the first (the sentence is about the first, so the others get no defining sentence)."""
    if ctx.use.indices or ctx.use.all_indices:
        return  # γ_t is not the γ of "λ = γ = 10^{-4}"
    for m, d in ctx.found:
        if m is None or d.pattern == "same letter" or "=" not in m.math or not _CHAIN_END.search(m.math) or \
                _top(d.section) != _top(ctx.section):
            continue  # a value set in another part of the paper (the experiments) is about another use of the letter
        members = [part.strip() for part in re.split(r"(?<![<>!\\])=", m.math)[:-1]]
        if len(members) >= 2 and any(braceless(x) == braceless(ctx.use.key)
                                     for x in members):
            yield Evidence("fixed setting", f"${m.math}$ (a value the paper sets)", 2)
            return


def _top(section: str | None) -> str:
    return (section or "").split(".")[0]


_GENERATED = re.compile(r"\b(?:generate[sd]?|draw[sn]?|drew|sample[sd]?|initiali[sz]e[sd]?)\s+"
                        r"(?:each\s+|every\s+|all\s+)?"
                        r"(?:(?:element|entry|entries|component|coordinate|coefficient)s?\s+(?:in|of)\s+)?(?:the\s+)?"
                        r"\$(?P<math>[^$]+)\$\s+(?:as|from|i\.\s?i\.\s?d\.?|independently|uniformly|randomly|at\s+random)\b",
                        re.I)


def _generated_at_random(ctx: UseContext) -> Iterable[Evidence]:
    """"we generate each element in $b$ as independent Rademacher variables", "we sample $z$ from …": the prose
    draws the symbol itself (a sentence in the active voice, which no "is sampled from" pattern reads)."""
    for m, d in ctx.found:
        if m is None or d.pattern == "same letter":
            continue
        for hit in _GENERATED.finditer(m.quote):
            if hit.group("math") == m.math and ctx.use.key in m.keys:
                yield Evidence("random sample", f"\"{' '.join(hit.group(0).split())}\"", 2)
                return


def _drawn_somewhere(ctx: UseContext) -> Iterable[Evidence]:
    drawn = ctx.drawn(ctx.use.key)
    if drawn is not None:
        yield Evidence("random sample", f"${drawn.quote}$ (drawn in a display)", 2)


# A sentence that fits a distribution to something ("we approximate the predictions as isotropic Gaussian surrogates
# … by matching the mean and total variance", "we fit a Gaussian"): the fitted distribution's parameters are
# computed from what it approximates.
_FITTING = re.compile(r"\bapproximat\w*\b[^.;]*?\bas\b|\bfit(?:s|ted|ting)?\b|\bby\s+matching\b|"
                      r"\bmoment[- ]matching\b", re.I)


# Distribution families written with their parameters as arguments (`\\mathcal{N}(\\mu, \\sigma^2 I)`); any other
# function's arguments are the variable it is a density of (`q(u)`), not parameters.
_PARAMETRIC_FAMILIES = frozenset({"\\mathcal{N}", "\\mathcal{U}", "\\mathrm{Cat}", "\\mathrm{Beta}",
                                  "\\mathrm{Dir}", "\\mathrm{Bern}", "\\mathrm{Gamma}"})


def _parameter_of_a_fitted_distribution(ctx: UseContext) -> Iterable[Evidence]:
    """`\\mathcal{N}(u; \\mu_c, s_c^2 I)` in "we approximate q as isotropic Gaussian surrogates $…$ by matching
    the mean and total variance of the GM": a parameter (after the `;`, or an argument of a parameterless
    distribution `\\mathcal{N}(\\mu', s'^2 I)`) of the distribution the sentence fits is computed by the fit."""
    for m, d in ctx.found:
        if m is None or d.pattern == "same letter" or not _FITTING.search(m.quote):
            continue
        tree = _tree_or_none(m.math)
        if tree is None:
            continue
        for node in ast.walk(tree):
            if not isinstance(node, ast.Apply) or symbol_key(node.func) == ctx.use.key:
                continue
            parameters = node.params or (node.args if symbol_key(node.func) in _PARAMETRIC_FAMILIES else ())
            mine = _own_spellings(ctx.use)
            if any(braceless(u.key) in mine or braceless(written_form(u)) in mine
                   for p in parameters for u in collect(p, frozenset()).uses):
                verb = _FITTING.search(m.quote).group(0).split()  # type: ignore[union-attr]
                said = verb[0] if len(verb) <= 2 else f"{verb[0]} … {verb[-1]}"
                yield Evidence("computed", f"a parameter of ${to_latex(node.func)}$, a distribution the sentence "
                                           f"fits (\"{said}\")", 2)
                return


DEFINING_OPS = frozenset({"=", ":=", "=:", "\\coloneqq", "\\triangleq", "\\doteq", "\\equiv"})


def _argument_of_defined_function(ctx: UseContext) -> Iterable[Evidence]:
    tree = ctx.tree
    if isinstance(tree, ast.Sequence) and tree.items:
        tree = tree.items[0]
    if not isinstance(tree, ast.Relation) or not tree.ops or tree.ops[0] not in DEFINING_OPS or \
            not isinstance(tree.operands[0], ast.Apply):
        return  # `f(x', y) \\ge f(x, y) + …`: a statement about f, not its definition
    lhs = tree.operands[0]
    name = symbol_key(lhs.func)
    if name is None or LOSS_NAME.match(name) or lhs.given or lhs.params or \
            any(u.key == name for u in collect(tree.operands[1], frozenset()).uses):
        # `L(\\theta) = …`: a loss's argument is what training changes, not its input; `p_\\theta(x_s | x_t)`: a
        # density's argument is the variable it is a density of; `F(a) = F(b) + …`: an identity, no definition
        return
    key = ctx.use.key.strip()
    label = re.sub(r"^.*?_\{?|\}$", "", key).strip() if "_" in key else ""
    if any(ctx.weights(k) for k in (key, key_family(key), label) if k):
        return  # `V(\\theta)`, `\\mathcal{F}(x, v_\\theta)`: the weights or a model with weights, not data
    for arg in lhs.args:
        if symbol_key(arg) == ctx.use.key:
            yield Evidence("input data", f"an argument of ${name}$, which this display defines", 1)
            return


def _defined_function(tree: ast.Node | None) -> tuple[ast.Apply, ast.Node] | None:
    """(the left side, the right side) of a display that defines a function of its arguments (`\\mathrm{FFN}(x) =
    …`), not a loss (whose argument is what training changes) nor a density (`p(x | y)`); else None."""
    if isinstance(tree, ast.Sequence) and tree.items:
        tree = tree.items[0]
    if not isinstance(tree, ast.Relation) or len(tree.operands) != 2 or not tree.ops or \
            tree.ops[0] not in DEFINING_OPS or not isinstance(tree.operands[0], ast.Apply):
        return None
    lhs = tree.operands[0]
    name = symbol_key(lhs.func)
    if name is None or LOSS_NAME.match(name) or lhs.given or lhs.params or not lhs.args:
        return None
    return lhs, tree.operands[1]


def _is_use(node: ast.Node, ctx: UseContext) -> bool:
    """The node writes the context's symbol (`W_1` for the use `W_{1}`, `\\mathbf{W}^{up}_i` for its family)."""
    if not isinstance(node, (ast.Symbol, ast.Indexed)):
        return False
    mine = _own_spellings(ctx.use)
    return symbol_key(node) == ctx.use.key or braceless(to_latex(node)) in mine


def _holds_argument(node: ast.Node, arguments: set[str]) -> bool:
    return any(u.key in arguments for u in collect(node, frozenset()).uses)


def _weights_the_argument(product: ast.Product, weight: Callable[[ast.Node], bool], arguments: set[str]) -> bool:
    """A product of a factor `weight` accepts with another factor that holds an argument of the defined function
    (`x W_1`, `\\max(0, …) W_2`, `\\bm{W}^{gate} \\bm{x}`)."""
    return any(weight(f) and any(g is not f and _holds_argument(g, arguments) for g in product.factors)
               for f in product.factors)


def _weight_of_an_affine_map(ctx: UseContext) -> Iterable[Evidence]:
    """`\\mathrm{FFN}(x) = \\max(0, xW_1 + b_1) W_2 + b_2`: in the display that defines a function of an input, a
    symbol that multiplies the input (or what the function computed from it) is the weight of a linear map, and
    one added to such a product its bias: the layer's trained weights, where the paper names them no otherwise
    (the words of a sentence decide first; this is how the formula uses it)."""
    defined = _defined_function(ctx.tree)
    if defined is None:
        return
    lhs, rhs = defined
    arguments = {u.key for a in lhs.args for u in collect(a, frozenset()).uses}
    if ctx.use.key in arguments or symbol_key(lhs.func) == ctx.use.key:
        return

    def mine(node: ast.Node) -> bool:
        return _is_use(node, ctx)

    def a_weight(node: ast.Node) -> bool:
        return isinstance(node, (ast.Symbol, ast.Indexed)) and not _holds_argument(node, arguments)

    for node in ast.walk(rhs):
        if isinstance(node, ast.Product) and _weights_the_argument(node, mine, arguments):
            yield Evidence("trained weight", f"multiplies the input of ${to_latex(lhs.func)}$ (a linear map's "
                                             "weight)", 1)
            return
        if isinstance(node, ast.BinOp) and node.op in ("+", "-") and any(
                mine(one) and isinstance(other, ast.Product) and _weights_the_argument(other, a_weight, arguments)
                for one, other in ((node.right, node.left), (node.left, node.right))):
            yield Evidence("trained weight", f"added to a weighted input of ${to_latex(lhs.func)}$ (a bias)", 1)
            return


_ONE_STEP = re.compile(r"[a-z]")


def _stepped_subject(tree: ast.Node, step: str, own: str) -> str | None:
    """The quantity at the step `step` that the display defines or gives the distribution of (`x_t` of
    `x_t = \\alpha_t x_0 + …` or of `q(x_t | x_0) = \\mathcal{N}(…)`, `x_{t+1}` of `x_{t+1} = x_t - \\eta_t g_t`),
    written as the left side; None when the left side holds none."""
    if not isinstance(tree, ast.Relation) or len(tree.operands) < 2 or not tree.ops or tree.ops[0] not in DEFINING_OPS:
        return None
    for node in ast.walk(tree.operands[0]):
        if isinstance(node, ast.Indexed) and symbol_key(node.base) != own and any(
                re.search(rf"(?<![A-Za-z\\]){re.escape(step)}(?![A-Za-z])", to_latex(i)) for i in node.indices):
            return to_latex(node)
    return None


def _schedule_coefficient(ctx: UseContext) -> Iterable[Evidence]:
    """`x_t = \\alpha_t x_0 + \\beta_t \\epsilon`, `q(x_t | x_0) = \\mathcal{N}(x_t | \\alpha_t x_0, \\sigma_t^2 I)`,
    `x_{t+1} = x_t - \\eta_t g_t`: a coefficient written with the step alone, that scales a term of the display
    defining the quantity at that step, is a schedule the method follows (a fixed setting per step), where nothing
    the paper says decides (a quantity computed by a display of its own is read before this)."""
    if len(ctx.use.indices) != 1 or not _ONE_STEP.fullmatch(ctx.use.indices[0].strip()):
        return
    tree = ctx.tree.items[0] if isinstance(ctx.tree, ast.Sequence) and ctx.tree.items else ctx.tree
    subject = _stepped_subject(tree, ctx.use.indices[0].strip(), ctx.use.key) if tree is not None else None
    if subject is None:
        return
    for node in ast.walk(tree.operands[-1]):  # type: ignore[union-attr]
        if not isinstance(node, ast.Product) or len(node.factors) < 2:
            continue
        for factor in node.factors:
            base = factor.base if isinstance(factor, ast.Power) else factor
            if _is_use(base, ctx) and any(f is not factor and not isinstance(f, ast.Number) for f in node.factors):
                yield Evidence("fixed setting", f"a coefficient at the step of ${subject}$, which this display "
                                                "defines (a schedule)", 1)
                return


def _loss_term(node: ast.Node) -> bool:
    """A named loss as a term (`\\mathcal{L}_{REG}(\\phi)`, `\\mathcal{L}_{dice}`)."""
    name = symbol_key(node.func) if isinstance(node, ast.Apply) else symbol_key(node)
    return name is not None and bool(LOSS_NAME.match(name))


def _weight_of_a_loss_term(ctx: UseContext) -> Iterable[Evidence]:
    """`\\mathcal{L} = \\mathcal{L}_{DIFF} + \\lambda \\mathcal{L}_{REPA} + \\eta \\mathcal{L}_{REG}`: a symbol that
    only scales a named loss in a sum of losses weighs that term: a setting chosen before training (a weight the
    run learns would be called learnable, which the defining sentence reads first)."""
    tree = ctx.tree
    if isinstance(tree, ast.Sequence) and tree.items:
        tree = tree.items[0]
    if not isinstance(tree, ast.Relation) or len(tree.operands) < 2 or not _loss_term(tree.operands[0]):
        return
    for side in tree.operands[1:]:
        if not any(isinstance(n, ast.BinOp) and n.op in ("+", "-") for n in ast.walk(side)):
            continue
        for node in ast.walk(side):
            if isinstance(node, ast.Product) and len(node.factors) == 2 and _loss_term(node.factors[1]) and \
                    isinstance(node.factors[0], (ast.Symbol, ast.Indexed)) and \
                    symbol_key(node.factors[0]) == ctx.use.key:
                yield Evidence("fixed setting", f"the weight of ${to_latex(node.factors[1])}$ in a sum of losses", 1)
                return


# A sentence that factorises a quantity ("leveraging the Schur factorization … $\\nabla F(z) = Q U Q^{-1}$",
# "Compute the eigendecomposition $A = V \\Lambda V^\\top$"): the factors are computed from the quantity.
_FACTORIZATION = re.compile(r"\b(?:\w+[- ])?(?:factori[sz]ations?|decompositions?|factori[sz]e[sd]?|decompose[sd]?)\b",
                            re.I)


def _factor_of_a_factorization(ctx: UseContext) -> Iterable[Evidence]:
    """`\\nabla F(z) = Q U Q^{-1}` in a sentence that calls it a factorization: a factor of the right side (not the
    factorised left side) is computed by the factorization."""
    for m, d in ctx.found:
        if m is None or d.pattern == "same letter" or "=" not in m.math:
            continue
        said = _FACTORIZATION.search(m.quote)
        tree = _tree_or_none(m.math) if said else None
        if isinstance(tree, ast.Sequence) and tree.items:
            tree = tree.items[0]
        if not isinstance(tree, ast.Relation) or tree.ops != ("=",) or len(tree.operands) != 2:
            continue
        left = {u.key for u in collect(tree.operands[0], frozenset()).uses}
        right = tree.operands[1]
        factors = right.factors if isinstance(right, ast.Product) else ()
        keys = {u.key for f in factors for u in collect(f, frozenset()).uses}
        if ctx.use.key in keys and ctx.use.key not in left:
            named = said.group(0) if said is not None else "a factorization"
            yield Evidence("computed", f"a factor of ${m.math}$ (\"{named}\")", 2)
            return


@dataclass(frozen=True)
class UseContext:
    """What the rules look at: the symbol's use, the candidate sentences that mention it, this display's tree, a
    lookup of the display that draws a key (None when none does), and whether a key names a model's weights."""

    use: Any
    found: tuple
    tree: ast.Node | None
    drawn: Callable[[str], Any]
    weights: Callable[[str], bool]
    """Whether the paper writes the key as a model's subscript (the θ of p_θ)."""
    section: str | None = None
    """The printed number of the equation's section (`4.3`, `B.1`)."""
    algorithm_lines: tuple[tuple[str, str], ...] = ()
    """(formula, line) for each inline formula of the paper's algorithm boxes (`\\theta^1`, "Initialize: … actor
    parameters $\\theta^1$, …"): lines the prose index does not hold."""


USE_RULES: tuple[tuple[str, Callable[[UseContext], Iterable[Evidence]]], ...] = (
    ("noun before the symbol", _nouns_before),
    ("a noun before the symbol in an algorithm line", _declared_in_an_algorithm),
    ("a constant the statement holds for", _quantified_constant),
    ("drawn in a display", _drawn_somewhere),
    ("a member of a chain of equalities ending in a number", _set_in_a_chain),
    ("generated at random in the prose", _generated_at_random),
    ("argument of the defined function", _argument_of_defined_function),
    ("the weight of a loss term", _weight_of_a_loss_term),
    ("the weight or bias of a linear map of the input", _weight_of_an_affine_map),
    ("a coefficient at the step the display defines", _schedule_coefficient),
    ("a parameter of a fitted distribution", _parameter_of_a_fitted_distribution),
    ("a factor of a factorization", _factor_of_a_factorization),
)


def evidence(ctx: UseContext) -> list[Evidence]:
    return [e for _, rule in USE_RULES for e in rule(ctx)]


def weigh(found: Iterable[Evidence]) -> tuple[str, str | None]:
    """The role the evidence supports (its strongest cue), or ("unknown", None) when it is weak or split."""
    totals: dict[str, int] = {}
    best: dict[str, Evidence] = {}
    for e in found:
        totals[e.role] = totals.get(e.role, 0) + e.strength
        if e.role not in best or e.strength > best[e.role].strength:
            best[e.role] = e
    if not totals:
        return "unknown", None
    ranked = sorted(totals.items(), key=lambda kv: -kv[1])
    if len(ranked) > 1 and ranked[0][1] - ranked[1][1] < MARGIN:
        return "unknown", None
    return ranked[0][0], best[ranked[0][0]].cue
