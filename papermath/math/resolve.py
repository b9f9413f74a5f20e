"""The resolution pass: decide, from evidence, what the parser left open, and record every decision.

The parser reads `name( … )` after a name it cannot classify as an `Apply` with certainty "ambiguous", and a
superscript that could name something (`x^w`, `Q^1`, `h^{k-1}`) as a `Power`. `resolve` walks the tree once,
bottom up, and at each such place weighs the evidence (`evidence.Notation`: what the paper or the formula
shows about the symbol, then conventions), keeps or rewrites the node, and records a `Decision` with all the
evidence that spoke. Weights: declared 4, place 4 (this occurrence, against the paper), paper 3, formula 2,
convention 1; the sign of the sum decides; a tie leaves the place ambiguous (the tree keeps the parser's reading
and the decision says "ambiguous").

Rewrites are local: an application read as a product becomes `Product(f, Group(args))` (scripts written after
the closing bracket move onto the group: `T(G+2\\mu D)^2` → T · (G+2μD)²); a power read as a label moves the
superscript onto the symbol (`Power(x_0, w)` → `Indexed(x{^w}, 0)`).
"""
from __future__ import annotations

import re
from typing import Optional

from . import ast as A
from . import tables as T
from .ast import replace  # dataclasses.replace, fast for nodes
from collections import Counter

from .evidence import (FUNCTION, INDEX, INTERVAL, LABEL, NOT_FUNCTION, POWER, WEIGHT, Decision, Evidence, Notation,
                       SymbolFacts,
                       base_symbol, family, identity, letter_words)

APPLICATION, PRODUCT = "application", "product"

# Letters papers routinely apply to a compound argument (`f(x+1)`, `\sigma(a-b)`, `L(\theta - \eta g)`);
# other letters before a compound argument in parentheses multiply it (`T(G + 2\mu D)`, `\mu(z - y)`).
_FUNCTION_LETTERS = frozenset("f g h p q r F G H L J O P Q R V \\pi \\sigma \\phi \\varphi \\psi \\Phi \\Psi \\ell "
                              "\\Gamma".split())
# Scalars that papers raise to powers (`\gamma^t`, `\beta^k`, `\sigma^2`).
_SCALAR_GREEK = frozenset("\\alpha \\beta \\gamma \\delta \\epsilon \\varepsilon \\eta \\kappa \\lambda \\mu \\nu "
                          "\\rho \\sigma \\tau \\omega \\zeta \\xi".split())
# Superscripts that name a policy or a parameter set (`V^\pi`, `Q^{\pi}`, `J^\theta`).
_NAMING_GREEK = frozenset("\\pi \\theta \\phi \\psi \\varphi \\mu_".split())


def resolve(tree: A.Node, source: str, notation: Optional[Notation] = None) -> tuple[A.Node, tuple[Decision, ...]]:
    """The tree with every open place decided (or marked ambiguous), and the decisions in source order."""
    resolver = _Resolver(source, notation or Notation())
    out = resolver.whole_formula(resolver.visit(tree, applied=False))
    decisions = tuple(sorted(resolver.decisions, key=lambda d: d.span))
    return out, decisions


class _Resolver:
    def __init__(self, source: str, notation: Notation) -> None:
        self.source = source
        self.notation = notation
        self.decisions: list[Decision] = []
        # products made from applications, by id (kept alive here so ids stay unique): spliced into parents
        self.spliced: dict[int, A.Product] = {}

    def text(self, node: Optional[A.Node]) -> str:
        if node is None:
            return ""
        s, e = node.span
        return " ".join(self.source[s:e].split())

    # --- the walk -------------------------------------------------------------------------------------
    def visit(self, node: A.Node, applied: bool) -> A.Node:
        if isinstance(node, A.Apply) and node.certainty == "ambiguous":
            return self.application(node)
        top = node
        func = node.func if isinstance(node, A.Apply) else None
        # the children first (bottom up): `rewrite` descends from `top` and hands each child to the walk; an
        # application's function is visited knowing it is applied
        node = A.rewrite(node, lambda n: None if n is top else self.visit(n, n is func))
        if isinstance(node, (A.Power, A.Indexed, A.Transpose, A.Inverse, A.Factorial, A.Primed, A.Labeled)) and \
                self._is_spliced(getattr(node, "base", None)):
            return self._move_postfix(node)
        if isinstance(node, A.Symbol) and node.name.startswith("\\Delta ") and self._delta_on_its_own():
            return self._step_times(node)
        if isinstance(node, A.Power):
            return self.power(node, applied)
        if isinstance(node, A.Indexed):
            return self.subscript(node)
        if isinstance(node, (A.Tuple, A.Sequence)) and any(isinstance(i, A.Ellipsis_) for i in node.items):
            node = self._growing_powers(node)
        if isinstance(node, A.Relation):
            node = self._parameter_of_definition(self._optimum_named(node))
            if isinstance(node, A.Relation):
                node = self._drawn_from_range(node)
                lhs = node.operands[0]
                node = replace(node, operands=tuple(self._projection(o, lhs if n else None)
                                                    for n, o in enumerate(node.operands)))
        if isinstance(node, A.Apply):
            node = self._uniform_range(node)
        if isinstance(node, A.Product) and any(self._is_spliced(f) for f in node.factors):
            factors: list[A.Node] = []
            for f in node.factors:
                factors.extend(f.factors if self._is_spliced(f) else (f,))  # type: ignore[union-attr]
            node = replace(node, factors=tuple(factors))
        if isinstance(node, A.Product) and self.notation.names:
            return self._names(node)
        if isinstance(node, A.Reduction) and node.op == "E" and node.distribution is None and node.variables:
            return self._sampled_from(node)
        if isinstance(node, A.Reduction) and node.op == "E" and len(node.variables) > 1:
            return self._listed_distributions(node)
        if isinstance(node, A.Reduction) and node.op in _INDEXING_REDUCTIONS and node.variables:
            return self._bound_indices(node)
        return node

    # --- interval or pair -----------------------------------------------------------------------------
    def whole_formula(self, node: A.Node) -> A.Node:
        return self._pair_or_interval(self._family_indices(node))

    def _family_indices(self, node: A.Node) -> A.Node:
        """`w^1_{i1} x_1 + \\cdots + w^1_{in} x_n`: a short word under a symbol (read as a label: `in` as in
        "input") is the symbol's indices when the same formula indexes that symbol with as many single indices,
        the first of them the word's first letter — a family is written one way within one formula."""
        from .printer import to_latex
        arities: dict[str, set[str]] = {}
        for n in A.walk(node):
            if isinstance(n, A.Indexed) and isinstance(n.base, A.Symbol) and n.base.sub_label is None and \
                    len(n.indices) >= 2 and all(_single_index(i) for i in n.indices):
                arities.setdefault(to_latex(n.base), set()).add(to_latex(n.indices[0]))

        def as_indices(n: A.Node) -> Optional[A.Node]:
            if not (isinstance(n, A.Symbol) and isinstance(n.sub_label, A.Symbol) and n.sub_label.font is None):
                return None
            word = n.sub_label.name
            firsts = arities.get(to_latex(replace(n, sub_label=None, span=(0, 0))))
            if not firsts or word[0] not in firsts or len(word) < 2 or \
                    not all(c in T.INDEX_LETTERS or c.isdigit() for c in word):
                return None
            start = n.sub_label.span[0]
            if self.source[start:start + len(word)] != word:
                return None
            letters = tuple(A.Number(c, span=(start + k, start + k + 1)) if c.isdigit() else
                            A.Symbol(c, span=(start + k, start + k + 1)) for k, c in enumerate(word))
            ev = Evidence(INDEX, "the formula indexes the same symbol with as many indices", self.text(n),
                          "this formula", "formula")
            self.decisions.append(Decision(n.span, "label or index", self.text(n), INDEX, "formula", (ev,)))
            underscore = self.source.rfind("_", n.span[0], start)
            base_end = underscore if underscore > n.span[0] else start
            return A.Indexed(replace(n, sub_label=None, span=(n.span[0], base_end)), letters, span=n.span)

        return A.rewrite(node, as_indices) if arities else node

    def _pair_or_interval(self, node: A.Node) -> A.Node:
        """`g'(x) > 0$ in $(-c, c)`, `the interval $(-x_i, x_i)$`: a formula that is a pair from minus a value to the
        value, which the paper's sentence puts after 'in' or calls an interval, a range, a domain or a support, is
        the open interval between them. Without a paper, or with a sentence that says neither, it stays a pair."""
        if not _symmetric_pair(node):
            return node
        for sentence in _sentences_of(self.notation, self.source):
            said = _prose_says_interval(sentence, self.source)
            if said is not None:
                ev = Evidence(INTERVAL, "the sentence puts it as a range of values", said,
                              getattr(self.notation, "where", "the paper"), "paper")
                return self._as_interval(node, ev)
        return node

    def _drawn_from_range(self, node: A.Relation) -> A.Relation:
        """`w \\sim (-a_k, a_k)`: what a sample is drawn from is a range of values, not a point."""
        operands, changed = list(node.operands), False
        for i, op in enumerate(node.ops):
            if op == "\\sim" and _symmetric_pair(operands[i + 1]):
                ev = Evidence(INTERVAL, "drawn from (after \\sim): a range of values", self.text(node), "this formula",
                              "formula")
                operands[i + 1] = self._as_interval(operands[i + 1], ev)
                changed = True
        return replace(node, operands=tuple(operands)) if changed else node

    def _uniform_range(self, node: A.Apply) -> A.Apply:
        """`\\mathcal{U}((-a, a))`: the one argument of a uniform distribution is the range it is uniform on."""
        if len(node.args) != 1 or node.given or node.params or not _symmetric_pair(node.args[0]) or \
                not _is_uniform(node.func):
            return node
        ev = Evidence(INTERVAL, "the range of a uniform distribution", self.text(node), "this formula", "formula")
        return replace(node, args=(self._as_interval(node.args[0], ev),))

    def _as_interval(self, pair: A.Node, ev: Evidence) -> A.Interval:
        assert isinstance(pair, A.Tuple)
        self.decisions.append(Decision(pair.span, "interval or pair", self.text(pair), INTERVAL, ev.strength, (ev,)))
        return A.Interval(pair.items[0], pair.items[1], False, False, span=pair.span)

    def _parameter_of_definition(self, node: A.Node) -> A.Node:
        """`L_2^\\tau(u) = |\\tau - \\mathbb{1}(u < 0)| u^2`: a map defined with a letter on its name that the
        definition uses as a value (not as an exponent) is a map of that parameter, as `p_\\theta` is; the letter
        names the map, it does not raise it to a power (`f^\\alpha(x) = f(x)^\\alpha` stays a power)."""
        if not isinstance(node, A.Relation) or len(node.ops) != 1 or node.ops[0] not in ("=", ":=", "\\coloneqq"):
            return node
        lhs, rhs = node.operands
        if not (isinstance(lhs, A.Apply) and isinstance(lhs.func, A.Power)):
            return node
        power = lhs.func
        exp = power.exponent.body if isinstance(power.exponent, A.Group) else power.exponent
        sym = power.base.base if isinstance(power.base, A.Indexed) else power.base
        if not (isinstance(exp, A.Symbol) and isinstance(sym, A.Symbol) and sym.sup_label is None):
            return node
        exponents = {id(n) for p in A.walk(rhs) if isinstance(p, A.Power) for n in A.walk(p.exponent)}
        as_value = [n for n in A.walk(rhs) if isinstance(n, A.Symbol) and n.name == exp.name and
                    n.font == exp.font and id(n) not in exponents]
        if not as_value or any(isinstance(n, A.Symbol) and n.name == exp.name for a in lhs.args for n in A.walk(a)):
            return node
        ev = Evidence(LABEL, "the map's definition uses its superscript as a value: a parameter of the map",
                      self.text(node), "this formula", "formula")
        self.decisions.append(Decision(power.span, "label or power", self.text(power), LABEL, "formula", (ev,)))
        if isinstance(power.base, A.Indexed):
            func: A.Node = replace(power.base, base=replace(sym, sup_label=power.exponent), span=power.span)
        else:
            func = replace(sym, sup_label=power.exponent, span=power.span)
        return replace(node, operands=(replace(lhs, func=func), rhs))

    def _growing_powers(self, node: A.Node) -> A.Node:
        """`(C\\bar{B}, C\\bar{A}\\bar{B}, \\dots, C\\bar{A}^k\\bar{B}, \\dots)`: a list written out with an ellipsis
        whose terms repeat a factor (A bare in one term, A^k in a later one) counts the repetitions: the letter on
        that factor is a power, whatever a matrix's superscript names elsewhere. The node unchanged otherwise."""
        items = list(node.items)  # type: ignore[attr-defined]
        from .printer import to_latex
        bare = {to_latex(f) for i in items if isinstance(i, A.Product) for f in i.factors
                if isinstance(f, A.Symbol) and f.sup_label is None}
        changed = False
        for n, item in enumerate(items):
            if not isinstance(item, A.Product):
                continue
            factors = list(item.factors)
            for m, f in enumerate(factors):
                exp = f.sup_label if isinstance(f, A.Symbol) else None
                if exp is None or not (isinstance(exp, A.Symbol) and len(exp.name) == 1 and exp.name.isalpha()):
                    continue
                plain = replace(f, sup_label=None)
                if to_latex(plain) not in bare:
                    continue
                caret = self.source.rfind("^", f.span[0], exp.span[0])
                base_span = (f.span[0], caret) if caret > f.span[0] else f.span
                factors[m] = A.Power(replace(plain, span=base_span), exp, span=f.span)
                ev = Evidence(POWER, "a factor repeated along a list written out with an ellipsis", self.text(node),
                              "this formula", "formula")
                self.decisions.append(Decision(f.span, "label or power", self.text(f), POWER, "formula", (ev,)))
                changed = True
            items[n] = replace(item, factors=tuple(factors))
        return replace(node, items=tuple(items)) if changed else node

    def _projection(self, side: A.Node, lhs: Optional[A.Node]) -> A.Node:
        """`\\Pi_{\\|z\\| \\le D} z' - \\eta g`, `\\Pi_{\\|z\\|\\le D}[z_t - \\eta g_t]`: \\Pi with a constraint under
        it is the projection onto that set. Written at the head of a relation's side, it takes the whole side when the
        constraint names the relation's left side (`z_{t+1} = \\Pi_{\\|z\\|\\le D} …`: the value must satisfy the
        constraint, which a step added after the projection would leave); otherwise (`x_{t+1} = \\Pi_C x_t +
        \\sqrt{2\\eta}\\xi_t`, nothing says the sum is constrained) it applies to the first factor only. Other sides
        unchanged."""
        path: list[A.BinOp] = []
        head = side
        while isinstance(head, A.BinOp) and head.op in ("+", "-"):
            path.append(head)
            head = head.left
        if not (isinstance(head, A.Product) and len(head.factors) >= 2 and _projector(head.factors[0])):
            return side
        proj = head.factors[0]
        assert isinstance(proj, A.Indexed)
        func = replace(proj.base, sub_label=proj.indices[0], span=proj.span)
        whole = _constrains(proj.indices[0], lhs)
        rest = head.factors[1:] if whole else head.factors[1:2]
        first: A.Node = rest[0] if len(rest) == 1 else A.Product(tuple(rest), span=(rest[0].span[0], head.span[1]))
        brackets = ""
        if (not path or not whole) and isinstance(first, A.Group) and first.open in ("[", "("):
            brackets = first.open + first.close
            first = first.body
        arg = first
        if whole:
            for op_node in reversed(path):
                arg = A.BinOp(op_node.op, arg, op_node.right, span=(first.span[0], op_node.span[1]))
            reason, span = "a projection onto a set that constrains the left side, at the head of the side", side.span
        else:
            reason, span = "a projection onto the set under it, applied to the factor after it", \
                (proj.span[0], rest[-1].span[1])
        ev = Evidence(FUNCTION, reason, self.text(side), "this formula", "formula")
        self.decisions.append(Decision(span, "application or product", self.text(proj), APPLICATION, "formula",
                                       (ev,)))
        applied = A.Apply(func, (arg,), (), (), "formula", brackets, span=span)
        if whole:
            return applied
        factors = (applied,) + head.factors[2:]
        new_head: A.Node = applied if len(factors) == 1 else replace(head, factors=factors)
        out = new_head
        for op_node in reversed(path):
            out = replace(op_node, left=out)
        return out

    def _optimum_named(self, node: A.Relation) -> A.Node:
        """`\\{s^M\\}^o = \\arg\\min_{\\{s^M\\} \\subset …} …`, `\\theta^{o} = \\arg\\max_\\theta J`: the left side is
        the optimum of what the arg min runs over, written with a mark; no quantity equals the optimum over itself
        raised to a power, so the superscript is a label."""
        if len(node.ops) != 1 or node.ops[0] != "=":
            return node
        lhs, rhs = node.operands
        if not (isinstance(lhs, A.Power) and isinstance(rhs, A.Reduction) and rhs.op in ("argmin", "argmax") and
                not isinstance(lhs.exponent, A.Number)):
            return node
        from .printer import to_latex

        def bare(n: A.Node) -> str:
            if isinstance(n, A.SetLiteral) and len(n.items) == 1:
                n = n.items[0]
            return to_latex(n)

        bound = {bare(v) for v in rhs.variables}
        if rhs.condition is not None and isinstance(rhs.condition, A.Relation):
            bound.add(bare(rhs.condition.operands[0]))
        if bare(lhs.base) not in bound:
            return node
        here = self.text(lhs)
        ev = Evidence(LABEL, "the optimum of what the arg min/max on the right runs over", self.text(node),
                      "this formula", "formula")
        self.decisions.append(Decision(lhs.span, "label or power", here, LABEL, "formula", (ev,)))
        sym = lhs.base
        if isinstance(sym, A.Indexed) and isinstance(sym.base, A.Symbol) and sym.base.sup_label is None:
            marked: A.Node = replace(sym, base=replace(sym.base, sup_label=lhs.exponent), span=lhs.span)
        elif isinstance(sym, A.Symbol) and sym.sup_label is None:
            marked = replace(sym, sup_label=lhs.exponent, span=lhs.span)
        else:
            marked = A.Labeled(sym, lhs.exponent, "sup", span=lhs.span)
        return replace(node, operands=(marked, rhs))

    def _delta_on_its_own(self) -> bool:
        """Does the paper write `\\Delta` as a quantity of its own, and its prose name it so (`the step size
        $\\Delta$`)? Then `\\Delta A` is that quantity times A, not an increment of A. (A paper that writes `\\Delta`
        alone only in formulas, an operator or a difference, keeps `\\Delta x` one name.)"""
        facts = self.notation.facts.get("\\Delta")
        return facts is not None and facts.uses > 0 and \
            any(e.reading == NOT_FUNCTION and e.kind.startswith("sentence:") for e in facts.evidence)

    def _step_times(self, node: A.Symbol) -> A.Node:
        """`\\Delta A` (one name, as the parser joins an increment) → `\\Delta · A`, recorded with its evidence."""
        s, e = node.span
        rest = s + len("\\Delta")
        while rest < e and self.source[rest].isspace():
            rest += 1
        if not self.source.startswith("\\Delta", s) or rest >= e:
            return node
        here = self.text(node)
        ev = Evidence(NOT_FUNCTION, "\\Delta is written as a quantity of its own", "\\Delta",
                      getattr(self.notation, "where", "this formula"), getattr(self.notation, "strength", "formula"))
        self.decisions.append(Decision(node.span, "one name or a product", here, "product", ev.strength, (ev,)))
        delta = A.Symbol("\\Delta", span=(s, s + len("\\Delta")))
        out = A.Product((delta, replace(node, name=node.name[len("\\Delta "):], span=(rest, e))), span=node.span)
        self.spliced[id(out)] = out
        return out

    def _bound_indices(self, node: A.Reduction) -> A.Node:
        """`\\sum_{\\alpha \\in A} \\sum_{\\beta \\in B} |R_{\\alpha, \\beta}|`: a subscript made only
        of the variables the sums or products around it run over selects elements (an index), whatever letters it
        uses. (Bottom up, each sum rewrites its body knowing its own variables and those of the sums inside it.)"""
        return self._index_bound(node, frozenset())

    def _index_bound(self, node: A.Reduction, outer: frozenset) -> A.Reduction:
        bound = outer | {v.name for v in node.variables if isinstance(v, A.Symbol)}

        def indexed(n: A.Node) -> Optional[A.Node]:
            if isinstance(n, A.Reduction) and n.op in _INDEXING_REDUCTIONS:
                return self._index_bound(n, bound)
            if not (isinstance(n, A.Symbol) and n.sub_label is not None):
                return None
            items = n.sub_label.items if isinstance(n.sub_label, A.Sequence) else (n.sub_label,)
            if not all(isinstance(i, A.Symbol) and i.name in bound and i.font is None and not i.accents and
                       i.sub_label is None and i.sup_label is None for i in items):
                return None
            here = self.text(n)
            ev = Evidence(INDEX, "the subscript is the variable a sum runs over", here, "this formula", "formula")
            self.decisions.append(Decision(n.span, "label or index", here, "index", "formula", (ev,)))
            return A.Indexed(replace(n, sub_label=None), tuple(items), span=n.span)

        if node.body is None or not bound:
            return node
        body = A.rewrite(node.body, indexed)
        return node if body is node.body else replace(node, body=body)

    def _sampled_from(self, node: A.Reduction) -> A.Node:
        """`\\mathbb{E}_q`, `\\mathbb{E}_{\\pi_\\theta}`: a subscript the paper applies as a function elsewhere
        (`q(x_t \\mid x_0)`, `\\pi_\\theta(a \\mid s)`) is the distribution averaged over, not a bound variable."""
        if len(node.variables) != 1 or not isinstance(node.variables[0], A.Symbol):
            return node
        var = node.variables[0]
        return replace(node, variables=(), distribution=var) if self._a_distribution(var) else node

    def _listed_distributions(self, node: A.Reduction) -> A.Node:
        """`\\mathbb{E}_{c \\sim \\mathcal{D}, p_\\theta}`: beside what is drawn (`c \\sim \\mathcal{D}`), a bare name
        in the list that the paper applies as a function (`p_\\theta(x_{t-1} \\mid x_t, c)`) is the distribution the
        rest is drawn from, not a variable the expectation binds."""
        drawn = {id(n) for rel in node.samples if isinstance(rel, A.Relation)
                 for n in A.walk(rel.operands[0])}
        unbound = [v for v in node.variables if isinstance(v, A.Symbol) and id(v) not in drawn]
        if not drawn or not unbound:
            return node
        dropped = {id(v) for v in unbound if self._a_distribution(v)}
        if not dropped:
            return node
        return replace(node, variables=tuple(v for v in node.variables if id(v) not in dropped))

    def _a_distribution(self, var: A.Symbol) -> bool:
        evidence = [e for e in self.notation.function_evidence(var) if e.strength in ("declared", "paper", "formula")]
        reading, strength = _weigh(evidence, FUNCTION, NOT_FUNCTION)
        if reading != FUNCTION:
            return False
        self.decisions.append(Decision(var.span, "variable or distribution", self.text(var), "distribution",
                                       strength, tuple(evidence)))
        return True

    def _names(self, node: A.Product) -> A.Node:
        """Letters written together that the paper uses as one name (`S E_\\theta^{(w)}` → `SE_\\theta^{(w)}`)."""
        longest = self.notation.longest_name()
        if longest < 2:
            return node
        factors = node.factors
        out: list[A.Node] = []
        i = 0
        while i < len(factors):
            merged = None
            for j, word in letter_words(factors, i, longest):
                evidence = self.notation.name_evidence(word)
                if evidence:
                    run = A.Product(factors[i:j], span=(factors[i].span[0], factors[j - 1].span[1]))
                    merged = (j, _one_name(run, word), evidence)
                    break
            if merged is None:
                out.append(factors[i])
                i += 1
                continue
            j, name, evidence = merged
            self.decisions.append(Decision(name.span, "one name or a product", self.text(name), "one name",
                                           evidence[0].strength, tuple(evidence)))
            out.append(name)
            i = j
        if len(out) == len(factors):
            return node
        return out[0] if len(out) == 1 else replace(node, factors=tuple(out))

    def _is_spliced(self, node: object) -> bool:
        return node is not None and self.spliced.get(id(node)) is node

    def _move_postfix(self, node: A.Node) -> A.Node:
        """`Power(Product(T, (G)), 2)` → `Product(T, Power((G), 2))`: the script belongs to the bracket."""
        product: A.Product = node.base  # type: ignore[attr-defined]
        last = product.factors[-1]
        moved = replace(node, base=last, span=(last.span[0], node.span[1]))
        out = A.Product(product.factors[:-1] + (moved,), span=node.span)
        self.spliced[id(out)] = out
        return out

    # --- application or product -------------------------------------------------------------------------
    def application(self, node: A.Apply) -> A.Node:
        """Decide `name( … )`: the arguments first, then the call (on the name as the parser read it: a
        superscript still open counts as a label unless it reads as a power on its own), then the name with
        what the call decided (`Q^1(s, a)`: applied, so the 1 names an agent)."""
        args = tuple(self.visit(a, False) for a in node.args)
        given = tuple(self.visit(a, False) for a in node.given)
        params = tuple(self.visit(a, False) for a in node.params)
        node = replace(node, args=args, given=given, params=params)
        evidence = list(self.notation.function_evidence(node.func))
        evidence.extend(self._call_conventions(node, evidence))
        reading, strength = _weigh(evidence, FUNCTION, NOT_FUNCTION)
        subject = self.text(node.func)
        if reading != FUNCTION and _after_sim(self.source, node.span[0]) and node.args:
            # `x_T \sim N(0,1)` although N counts steps elsewhere in the paper: what is drawn from is a distribution
            # at this place, whatever the letter is in general
            strength = "place" if getattr(self.notation, "strength", "formula") == "paper" else "formula"
            evidence.append(Evidence(FUNCTION, "drawn from here (after \\sim)", self.text(node), "this formula",
                                     strength))
            reading = FUNCTION
        # `\\sigma^2_\\phi(x)`: the number stays the power of the map's value, not a name of the map
        core = base_symbol(node.func)
        squared_map = isinstance(node.func, A.Power) and isinstance(node.func.exponent, A.Number) and \
            isinstance(core, A.Symbol) and _parametrised(core)
        func = self.visit(node.func, reading == FUNCTION and not squared_map)
        node = replace(node, func=func)
        if reading is None:
            self.decisions.append(Decision(node.span, "application or product", subject, "ambiguous", "ambiguous",
                                           tuple(evidence)))
            return node
        self.decisions.append(Decision(node.span, "application or product", subject,
                                       APPLICATION if reading == FUNCTION else PRODUCT, strength, tuple(evidence)))
        if reading == FUNCTION:
            return self._uniform_range(replace(node, certainty=strength))
        return self._as_product(node)

    def _call_conventions(self, node: A.Apply, known: list[Evidence]) -> list[Evidence]:
        out: list[Evidence] = []
        func = node.func
        # a superscript label on a name the parser could not fold in (`\\text{HYLA}^+_q`) names it still
        sym = base_symbol(func.base if isinstance(func, A.Labeled) and func.position == "sup" else func)
        here = self.text(node)
        arity = max((_arity(e) for e in known if e.kind.startswith("comma arguments")), default=0)
        compound = len(node.args) == 1 and _compound(node.args[0])
        plain = compound and _plain_arithmetic(node.args[0])
        if arity >= 2 and compound and not node.given:
            # `v_\theta(x_t, t)` elsewhere, `v_\theta (n - k)` here: the output times a step, not a call. This
            # speaks of this place, so it outweighs what speaks of the symbol in general
            strength = getattr(self.notation, "strength", "formula")
            out.append(Evidence(NOT_FUNCTION, "takes several arguments elsewhere, one expression here", here,
                                "this formula", "place" if strength == "paper" else "formula"))
        if compound and isinstance(sym, A.Symbol) and _mentions_itself(node):
            # `p(1 - p)`, `n(n + 1)`, `x(1 - x)`: the letter stands as a value inside the brackets, so it is one
            out.append(Evidence(NOT_FUNCTION, "its own letter as a value inside the brackets", here, "this formula",
                                "formula"))
        if isinstance(sym, A.Text) or (isinstance(sym, A.Symbol) and _is_word(sym)):
            out.append(Evidence(FUNCTION, "convention: a name written out, then brackets", here, "", "convention"))
            return out
        if isinstance(sym, A.Opaque):
            return out
        if not isinstance(sym, A.Symbol):
            return out
        if isinstance(func, A.Power) and _parametrised(sym):
            # `\sigma^2_\phi(x)` beside `\mu_\phi(x)`: a map named by its weights, squared, applied (as \sin^2 x)
            out.append(Evidence(FUNCTION, "convention: a map named by its parameters, raised to a power", here, "",
                                "convention"))
            return out
        if isinstance(func, A.Power) and self._power_on_its_own(func):
            # `x^2 (1-x)`, `\alpha^{2}(D-2)`: a power, then a factor
            out.append(Evidence(NOT_FUNCTION, "convention: a power, then brackets", here, "", "convention"))
            return out
        if not node.args:
            out.append(Evidence(FUNCTION, "convention: empty brackets", here, "", "convention"))
        elif compound:
            if sym.name in _FUNCTION_LETTERS and sym.font in (None, "cal", "bf", "it") or \
                    (sym.sub_label is not None and not plain):
                # `f(x+1)`; `\tau_\Delta(p + s(x))`: a named map applied to an expression (but `v_\theta (n - k)`:
                # the velocity times a step)
                out.append(Evidence(FUNCTION, "convention: a function letter before an expression", here, "",
                                    "convention"))
            else:
                out.append(Evidence(NOT_FUNCTION, "convention: an expression in brackets after a quantity multiplies it",
                                    here, "", "convention"))
        elif len(node.args) >= 2 and not node.given:
            if not any(e.kind == "comma arguments" and e.text == here for e in known):
                out.append(Evidence(FUNCTION, "comma arguments", here, "this formula", "formula"))
        else:
            out.append(Evidence(FUNCTION, "convention: a letter applied to a variable", here, "", "convention"))
        return out

    def _as_product(self, node: A.Apply) -> A.Node:
        group = self._group(node)
        out = A.Product((node.func, group), span=node.span)
        self.spliced[id(out)] = out
        return out

    def _group(self, node: A.Apply) -> A.Node:
        start = _open_bracket(self.source, node.func.span[1], node.span[1])
        span = (start, node.span[1])
        o, c = {"[]": ("[", "]"), "{}": ("{", "}")}.get(node.brackets, ("(", ")"))
        items = node.args + node.params
        if not items:
            return A.Group(A.Empty(span=span), o, c, span=span)
        if len(items) == 1:
            return A.Group(items[0], o, c, span=span)
        return A.Tuple(tuple(items), o, c, span=span)

    # --- label or index ------------------------------------------------------------------------------
    def subscript(self, node: A.Indexed) -> A.Node:
        """`y_w`, `\\pi_r`, `\\phi_a`: a letter that never runs over values, on a base that carries other names,
        names it; `x_t`, `w_i`: a letter that runs (bound, in arithmetic, ranged) indexes."""
        base = node.base
        sized = self._named_size(node) or self._two_letter_name(node)
        if sized is not None:
            return sized
        if isinstance(base, A.Symbol) and base.name == "d" and base.sub_label is None and len(node.indices) == 1:
            # a dimension: `d_x` beside the vector x names x's dimension; otherwise `d_c` is left as written
            return self._names_a_quantity(node, dimension=True) or self._dimension_of_matrix(node) or node
        if not (isinstance(base, A.Symbol) and base.sub_label is None and len(node.indices) == 1 and
                (len(base.name) == 1 or base.name.lstrip("\\") in T.GREEK)):
            return node
        idx = node.indices[0]
        strength = getattr(self.notation, "strength", "formula")
        if strength == "paper" and isinstance(idx, A.Number):
            return self._numbered_member(node, base, idx)
        if strength == "paper" and isinstance(idx, A.Symbol) and idx.name in ("T", "N", "K", "M", "L") and \
                idx.font is None and idx.name not in self.notation.running and \
                idx.name.lower() not in self.notation.sub_letters.get(_family_text(base), ()) and \
                not any(e.kind == "limit" for e in self.notation.facts.get(idx.name, _NO_FACTS).evidence):
            # `\delta_T`, `\hat{\mathcal P}_T`: a capital the paper never counts with names (x_T, where T ends a
            # sum somewhere, is the last position; so is `\hat{A}_T` where the paper also writes `\hat{A}_t`)
            ev = Evidence(LABEL, "a capital the paper never uses as a count", self.text(node), "the paper", "paper")
            self.decisions.append(Decision(node.span, "label or index", self.text(node), "label", "paper", (ev,)))
            return replace(base, sub_label=idx, span=node.span)
        said = getattr(self.notation, "parameters", {}).get(family(idx) or "") if \
            isinstance(base_symbol(idx), A.Symbol) else None
        if said is not None:
            # `\\sigma_{k_j}`, "with k_j being a learnable parameter": named by its parameter, as p_\\theta is
            self.decisions.append(Decision(node.span, "label or index", self.text(node), "label", said.strength,
                                           (said,)))
            return replace(base, sub_label=idx, span=node.span)
        if isinstance(idx, A.Indexed) and isinstance(idx.base, A.Symbol) and len(idx.base.name) == 1 and \
                idx.base.name.islower() and idx.base.name not in self.notation.running and \
                idx.base.name not in _RUNNING and strength == "paper":
            # `\lambda_{q_1}`, `\phi_{a_m}`: named by an indexed quantity the paper never runs over
            ev = Evidence(LABEL, "named by an indexed quantity that never runs over values", self.text(node),
                          "the paper", "paper")
            self.decisions.append(Decision(node.span, "label or index", self.text(node), "label", "paper", (ev,)))
            return replace(base, sub_label=idx, span=node.span)
        if strength == "paper" and isinstance(idx, A.Indexed) and isinstance(idx.base, A.Symbol) and \
                len(idx.indices) == 1 and isinstance(idx.indices[0], A.Number):
            # `\\lambda_{k_1}` beside `\\lambda_{q_1}`: vectors named in pairs numbered alike; where the other letter of
            # the pair names (it never runs), this one names too, though k runs elsewhere
            number = idx.indices[0].value
            pairs = sorted(v for v, n in getattr(self.notation, "sub_indexed", {}).get(family(base) or "", ())
                           if n == number and v != idx.base.name and len(v) == 1 and v.islower() and
                           v not in self.notation.running and v not in _RUNNING)
            if pairs:
                return self._as_label(node, base, "named in pairs numbered alike with a letter that never runs",
                                      ", ".join(f"{v}_{number}" for v in pairs))
        if not (isinstance(idx, A.Symbol) and len(idx.name) == 1 and idx.name.isalpha() and idx.name.islower() and
                idx.font is None and not idx.accents and idx.sub_label is None and idx.sup_label is None):
            return node
        letter = idx.name
        if letter in self.notation.running:
            return self._beside_names(node, base, letter)
        said = self.notation.named_scripts["sub"].get(letter)
        if said is not None:
            self.decisions.append(Decision(node.span, "label or index", self.text(node), "label", said.strength,
                                           (said,)))
            return replace(base, sub_label=idx, span=node.span)
        fam = _family_text(base)
        strength = getattr(self.notation, "strength", "formula")
        evidence: list[Evidence] = []
        others = {v for v in self.notation.sub_letters.get(fam, {}) if v != letter and
                  v not in self.notation.running}
        names = self.notation.sub_labels.get(fam, set())
        here = self.text(node)
        named = self._names_a_quantity(node)
        if named is not None:
            return named
        if letter not in T.INDEX_LETTERS and (others or names or strength == "paper"):
            evidence.append(Evidence(LABEL, "a letter that never runs over values, beside other names", here,
                                     getattr(self.notation, "where", "this formula"), strength))
        elif (names or any(v not in T.INDEX_LETTERS for v in others)) and letter not in _RUNNING:
            shown = ", ".join(sorted(names | others)[:5])
            evidence.append(Evidence(LABEL, "beside names on the same letter", f"{fam}: {shown}",
                                     getattr(self.notation, "where", "this formula"), strength))
        elif strength == "paper" and letter not in _RUNNING:
            evidence.append(Evidence(LABEL, "never runs over values anywhere in the paper", here, "the paper",
                                     "paper"))
        if not evidence:
            return node
        self.decisions.append(Decision(node.span, "label or index", here, "label", evidence[0].strength,
                                       tuple(evidence)))
        return replace(base, sub_label=idx, span=node.span)

    def _numbered_member(self, node: A.Indexed, base: A.Symbol, idx: A.Number) -> A.Node:
        """`L_2` where the paper defines `L_1 = \\mathbb{E}_x[…]` and `L_2 = \\mathbb{E}[…]` each by an equation of its
        own and `L = L_1 + \\lambda L_2` from them (and never writes L with a running subscript): the number says
        which named part of L, the first or the second loss, not a position in a sequence (`x_1` beside `x_t`;
        coefficients `c_1, c_2` defined one by one but never summed into a `c`). The node unchanged otherwise."""
        fam = family(base)
        members = getattr(self.notation, "numbered", {}).get(fam or "", {})
        composed = getattr(self.notation, "composed", {}).get(fam or "", set())
        if idx.value not in members or idx.value not in composed or len(members) < 2 or \
                self.notation.runs_on.get(fam or "", ()) or \
                any(v in self.notation.running or v in _RUNNING for v in self.notation.sub_letters.get(fam or "", {})):
            return node
        rights = {rhs for defs in members.values() for rhs in defs}
        if len(rights) < len(members):
            return node  # (`x_1 = x_2 = 0`: members set alike are positions given one value)
        shown = ", ".join(f"{self.text(base)}_{k}" for k in sorted(members)[:4])
        return self._as_label(node, base, "a named part of the bare symbol, each defined by an equation of its own",
                              shown)

    def _beside_names(self, node: A.Indexed, base: A.Symbol, letter: str) -> A.Node:
        """`F_s` beside `F_r` (the real and the synthetic CDF), where s also runs elsewhere (`q(x_t \\mid x_s)`): on a
        family whose other subscript letters name (they never run), a letter that never runs in this family's
        subscripts and is no loop letter names too. Otherwise the running letter indexes (the node unchanged)."""
        fam = _family_text(base)
        if letter in _RUNNING or letter in self.notation.runs_on.get(family(base) or "", ()):
            return node
        siblings = sorted(v for v in self.notation.sub_letters.get(fam, {}) if v != letter and v.islower() and
                          v not in self.notation.running and v not in _RUNNING)
        if not siblings:
            return node
        return self._as_label(node, base, "a letter beside names on the same symbol, never running on it",
                              ", ".join(f"{fam}_{v}" for v in siblings[:3]))

    def _two_letter_name(self, node: A.Indexed) -> Optional[A.Node]:
        """`\\epsilon_{ls}` (label smoothing), `\\lambda_{kl}`: two letters written together as a subscript, one of
        which indexes nothing anywhere in the paper (it never runs, and no other symbol carries it as a subscript),
        are one name; `\\delta_{ij}`, `w_{ij}` beside `v_j` or a sum over j stay two indices. Only with a paper."""
        base = node.base
        if getattr(self.notation, "strength", "formula") != "paper" or not isinstance(base, A.Symbol) or \
                base.sub_label is not None or len(node.indices) != 2:
            return None
        letters = [i for i in node.indices if isinstance(i, A.Symbol) and _is_letter(i)]
        if len(letters) != 2 or letters[0].span[1] != letters[1].span[0] or \
                letters[0].name == letters[1].name:
            return None  # (written apart, `x_{i,j}`, or a diagonal `w_{ii}`: indices)
        fam = _family_text(base)
        if not any(letter.name not in self.notation.running and
                   not any(letter.name in letters_on for other, letters_on in self.notation.sub_letters.items()
                           if other != fam) for letter in letters):
            return None
        name = A.Symbol(letters[0].name + letters[1].name, span=(letters[0].span[0], letters[1].span[1]))
        here = self.text(node)
        ev = Evidence(LABEL, "two letters written together, one of which indexes nothing in the paper", here,
                      "the paper", "paper")
        self.decisions.append(Decision(node.span, "label or index", here, "label", "paper", (ev,)))
        return replace(base, sub_label=name, span=node.span)

    def _named_size(self, node: A.Indexed) -> Optional[A.Node]:
        """`N_x` where the paper writes `\\bm{x}_i \\in \\mathbb{R}^{N_x}`, `d_k` where it says "keys of dimension
        $d_k$": a size its subscript names is labelled, even where the letter runs elsewhere (`PE_{pos+k}`) —
        unless it runs in this family's own subscripts (`N_{\\ell-1}`: N_\\ell is layer \\ell's width), or the
        letter runs elsewhere and is no quantity of its own. None otherwise."""
        base = node.base
        if not (isinstance(base, A.Symbol) and base.sub_label is None and len(node.indices) == 1):
            return None
        idx = node.indices[0]
        fam = family(base)
        if not (isinstance(idx, A.Symbol) and len(idx.name) == 1 and idx.name.isalpha() and idx.font is None and
                not idx.accents and fam is not None) or idx.name in self.notation.runs_on.get(fam, ()):
            return None
        if idx.name in self.notation.running and idx.name not in self.notation.quantities and \
                idx.name.upper() not in self.notation.capitals:
            return None  # (a size per document `n_i`: i runs, and is no quantity of its own to be measured)
        said = self.notation.dimensions.get((fam, idx.name))
        if said is None:
            return None
        self.decisions.append(Decision(node.span, "label or index", self.text(node), "label", said.strength, (said,)))
        return replace(base, sub_label=idx, span=node.span)

    def _names_a_quantity(self, node: A.Indexed, dimension: bool = False) -> Optional[A.Node]:
        """`W_f` beside `f_t`, `\\mathbf W_k` beside `\\mathbf k_j`, `d_x` beside `\\bm x`: a subscript letter the
        formulas write as a quantity of its own (never bare, never running) names that quantity's weights,
        dimension or statistic. A `dimension` (`d_x`) is named by a vector also written bare elsewhere
        (`f(x, y)`): a bare value of x is still x, while `W_t` beside a bare t is W at t. None when it does not."""
        base, idx = node.base, node.indices[0]
        if not (isinstance(base, A.Symbol) and isinstance(idx, A.Symbol) and _is_letter(idx)):
            return None
        letter = idx.name
        written = self.notation.quantities.get(letter)
        bare = letter in self.notation.plain and not (dimension and letter in self.notation.vectors)
        if written is None or bare or letter in self.notation.running or \
                letter == base.name or (letter in _RUNNING and letter not in self.notation.vectors):
            return None
        return self._as_label(node, base, "the subscript names a quantity written on its own", written)

    def _dimension_of_matrix(self, node: A.Indexed) -> Optional[A.Node]:
        """`\\sqrt{d_k}` beside the keys K, `d_v` beside V: a dimension whose subscript is the lower-case letter
        of a matrix written on its own names that matrix's dimension (a running letter still indexes: `d_i`).
        None when no such matrix is written."""
        idx = node.indices[0]
        if not (isinstance(idx, A.Symbol) and _is_letter(idx) and idx.name.islower()):
            return None
        letter, matrix = idx.name, idx.name.upper()
        if letter in self.notation.running or matrix not in getattr(self.notation, "capitals", ()):
            return None
        assert isinstance(node.base, A.Symbol)  # (the caller's check: a plain `d`)
        return self._as_label(node, node.base, "a dimension named by the matrix of its letter", matrix)

    def _as_label(self, node: A.Indexed, base: A.Symbol, reason: str, beside: str) -> A.Symbol:
        """`base` with the subscript as its label, the decision recorded with the notation's evidence."""
        here = self.text(node)
        strength = getattr(self.notation, "strength", "formula")
        ev = Evidence(LABEL, reason, f"{here} beside {beside}", getattr(self.notation, "where", "this formula"),
                      strength)
        self.decisions.append(Decision(node.span, "label or index", here, "label", strength, (ev,)))
        return replace(base, sub_label=node.indices[0], span=node.span)

    # --- label or power ------------------------------------------------------------------------------
    def _site(self, node: A.Power) -> Optional[A.Symbol]:
        """The symbol whose superscript is open here (None when the power is not in question)."""
        base = node.base
        sym = base_symbol(base)
        if not isinstance(sym, A.Symbol) or not _labelable(node.exponent) or sym.sup_label is not None or \
                sym.name.lstrip("\\") in T.FUNCTION_MACROS or \
                sym.optimum or sym.name in ("e", "\\exp") or sym.font == "bb" or isinstance(base, A.Primed) or \
                not isinstance(base, (A.Symbol, A.Indexed)):
            return None
        return sym

    def _power_on_its_own(self, node: A.Power) -> bool:
        """Would this superscript read as a power with nothing said about an application?"""
        sym = self._site(node)
        if sym is None:
            return True
        reading, _ = _weigh(self._sup_evidence(node, sym, False), LABEL, POWER)
        return reading == POWER

    def power(self, node: A.Power, applied: bool) -> A.Node:
        base = node.base
        sym = self._site(node)
        if sym is None:
            return node
        evidence = self._sup_evidence(node, sym, applied)
        reading, strength = _weigh(evidence, LABEL, POWER)
        subject = self.text(node)
        if reading is None:
            self.decisions.append(Decision(node.span, "label or power", subject, "ambiguous", "ambiguous",
                                           tuple(evidence)))
            return node
        self.decisions.append(Decision(node.span, "label or power", subject, reading, strength, tuple(evidence)))
        if reading == POWER:
            return node
        labelled = replace(sym, sup_label=node.exponent, span=node.span)
        if isinstance(base, A.Indexed):
            return replace(base, base=labelled, span=node.span)
        return labelled

    def _sup_evidence(self, node: A.Power, sym: A.Symbol, applied: bool) -> list[Evidence]:
        here = self.text(node)
        exp = node.exponent
        out = list(self.notation.label_evidence(node.base))
        # the values written on this base, each once however it is braced (`k_j`, `k_{j}`, `kj`); weights a quantity
        # is raised to (`\gamma_1`, `\gamma_2`) are no names
        values = {_script_key(v) for v in self.notation.superscripts(node.base)
                  if v and v not in _NOT_VALUES and not _EXPONENT_TEXT.match(v) and not _exponent_arithmetic(v)}
        named = {v for v in values if any(ch.isalpha() for ch in v)}
        strength = getattr(self.notation, "strength", "formula")
        scalar = sym.name in _SCALAR_GREEK and sym.font is None  # `\gamma^t`, `\gamma^{t+1}`: powers of a scalar
        numeric = isinstance(exp, A.Number) and exp.value != "1"
        if len(values) >= 2 and (named or "1" in values) and not scalar and (not numeric or "1" in values):
            shown = ", ".join(sorted(values)[:6])
            out.append(Evidence(LABEL, "several superscripts on one base", f"{_family_text(sym)}: {shown}",
                                getattr(self.notation, "where", "this formula"), strength))
        if isinstance(exp, A.Number) and exp.value in ("0", "1"):
            # (`\bm z_k^0`, the clean token beside `\bm z_k^t`; x^0 = 1 and x^1 = x are not written as powers)
            out.append(Evidence(LABEL, f"a {'zeroth' if exp.value == '0' else 'first'} power is never written", here,
                                "this formula", "formula"))
        if applied and not _exponent_parameter(exp):
            # (`p_1^{\gamma_1}(x)`: a density raised to a weight is still a power)
            out.append(Evidence(LABEL, "applied to arguments: a function's name, not a power", here, "this formula",
                                "formula"))
        core = exp.body if isinstance(exp, A.Group) else exp
        if isinstance(core, A.Symbol) and core.name in self.notation.named_scripts["sup"]:
            out.append(self.notation.named_scripts["sup"][core.name])
        out.extend(_sup_conventions(sym, exp, here))
        return out


# Greek letters papers use as exponents (`N^\alpha`, `p^{\gamma_1}`, `t^{1/\rho}`); not the ones that also name a
# policy or a distribution (`\mu`, `\pi`, `\theta`, `\sigma`)
_EXPONENT_GREEK = frozenset("\\alpha \\beta \\gamma \\delta \\eta \\kappa \\lambda \\nu \\rho \\tau \\omega \\zeta \\xi".split())


_EXPONENT_TEXT = re.compile(r"(?:%s)(?![A-Za-z])\s*(?:_[\s{]*\\?\w+[\s}]*)?$" % "|".join(
    re.escape(g) for g in sorted(_EXPONENT_GREEK)))


_LETTERS = re.compile(r"\\[A-Za-z]+|[A-Za-z]")


def _single_index(node: A.Node) -> bool:
    return (isinstance(node, A.Symbol) and len(node.name) == 1 and node.name in T.INDEX_LETTERS and
            node.font is None) or (isinstance(node, A.Number) and len(node.value) == 1)


def _exponent_arithmetic(text: str) -> bool:
    """A superscript that computes an exponent: a fraction (`2/3`, `\\frac{2}{3}(\\omega+1)`) or arithmetic on an
    exponent parameter only (`\\omega-1`): such values on a base say it is raised to powers, not named."""
    if "/" in text or "\\frac" in text:
        return True
    letters = [t for t in _LETTERS.findall(text) if t not in ("\\left", "\\right")]
    return bool(letters) and all(t in _EXPONENT_GREEK for t in letters)


def _script_key(text: str) -> str:
    """A script's text without the braces, underscores and spaces that only change how it is written."""
    return re.sub(r"[{}_\s]", "", text)


def _exponent_parameter(exp: A.Node) -> bool:
    """An exponent such as `\\gamma`, `\\gamma_1`, `1/\\rho`: a weight a quantity is raised to."""
    core = exp.body if isinstance(exp, A.Group) else exp
    if isinstance(core, A.Indexed):
        core = core.base
    return isinstance(core, A.Symbol) and core.name in _EXPONENT_GREEK and core.font is None


_RUNNING = frozenset("i j k n m t".split())
_INDEXING_REDUCTIONS = frozenset({"sum", "prod"})
_NO_FACTS = SymbolFacts([], Counter())
"""Letters that index even where nothing shows them running (`x_i`, `h_t`)."""

_NOT_VALUES = {"\\top", "T", "\\prime", "'", "*", "\\ast", "\\star", "-1", "\\dagger", "+"}


def _sup_conventions(sym: A.Symbol, exp: A.Node, here: str) -> list[Evidence]:
    core = exp.body if isinstance(exp, A.Group) else exp
    if isinstance(core, A.Number):
        return [Evidence(POWER, "convention: a number as a superscript is a power", here, "", "convention")]
    scalar = sym.name in _SCALAR_GREEK and sym.font is None
    if scalar:
        return [Evidence(POWER, "convention: a scalar raised to a power", here, "", "convention")]
    if isinstance(core, A.Symbol) and core.name in _SCALAR_GREEK:
        # `N^\alpha`, `D^\beta`: a fitted exponent
        return [Evidence(POWER, "convention: a scalar exponent such as \\alpha", here, "", "convention")]
    if isinstance(core, A.Symbol) and core.name in _NAMING_GREEK:
        return [Evidence(LABEL, "convention: a policy or parameter named in a superscript", here, "",
                         "convention")]
    if isinstance(core, A.Indexed):
        inner = core.base
        if isinstance(inner, A.Symbol) and not _big(sym) and inner.font is None and \
                (inner.name in _EXPONENT_GREEK or (len(inner.name) == 1 and inner.name.islower())):
            # `t^{k_j}`, `p_1^{\gamma_1}`: a scalar's indexed parameter as its exponent (`W^{Q_1}` names a head)
            return [Evidence(POWER, "convention: an indexed scalar as the exponent of a scalar", here, "",
                             "convention")]
        return [Evidence(LABEL, "convention: an indexed name as a superscript names", here, "", "convention")]
    if isinstance(core, (A.BinOp, A.UnaryOp)) and _computes_an_exponent(core):
        # `d^{\omega - 2}`, `\epsilon^{-2/3}`: arithmetic on an exponent parameter or a fraction is a power
        return [Evidence(POWER, "convention: arithmetic on an exponent", here, "", "convention")]
    if isinstance(core, (A.BinOp, A.UnaryOp)) or isinstance(core, A.Symbol):
        big = _big(sym)
        if isinstance(core, (A.BinOp, A.UnaryOp)):
            return [Evidence(LABEL, "convention: a step such as k-1 names a layer or iterate", here, "",
                             "convention")]
        if big:
            return [Evidence(LABEL, "convention: a letter on a matrix or function names it", here, "",
                             "convention")]
    return []


def _computes_an_exponent(node: A.Node) -> bool:
    """Arithmetic whose letters are all exponent parameters (`\\omega - 2`), or a division (`2/3`, `1/\\rho`)."""
    parts = list(A.walk(node))
    if any(isinstance(n, A.BinOp) and n.op == "/" for n in parts):
        return True
    letters = [n for n in parts if isinstance(n, A.Symbol)]
    return bool(letters) and all(n.name in _EXPONENT_GREEK and n.font is None and n.sub_label is None
                                 for n in letters)


def _big(sym: A.Symbol) -> bool:
    """A capital, bold, calligraphic or sans-serif letter: a matrix, a set or a function, not a scalar."""
    return sym.name[:1].isupper() or sym.font in ("bf", "cal", "frak", "sf") or \
        (sym.name.startswith("\\") and sym.name[1:2].isupper())


def _one_name(run: A.Product, word: str) -> A.Node:
    """The letters of `run` as one symbol, the last letter's scripts kept on it."""
    last = run.factors[-1]
    first = run.factors[0]
    if isinstance(last, (A.Indexed, A.Power, A.Primed)):
        inner = _one_name(A.Product(run.factors[:-1] + (last.base,), span=(first.span[0], last.base.span[1])), word)
        return replace(last, base=inner, span=run.span)
    assert isinstance(last, A.Symbol)
    # set in italic, as TeX shows the letters (and as the printer writes a name it can read back: \mathit{SE})
    return replace(last, name=word, font=last.font or "it", span=run.span)


def _labelable(exp: A.Node) -> bool:
    """Could this superscript name something (`w`, `1`, `\\pi`, `k-1`, `-i`)? (`2x`, `\\frac12` cannot.)"""
    core = exp.body if isinstance(exp, A.Group) else exp
    if isinstance(core, A.Symbol):
        # `V^{\\pi_\\theta}`: a policy with its own label names too (`N^{\\alpha_N}` is then weighed a power)
        return core.sup_label is None and not core.accents and \
            (core.sub_label is None or core.name in _NAMING_GREEK or core.name in _SCALAR_GREEK)
    if isinstance(core, A.Indexed):
        # `W^{Q_1}`, `A^{\\pi_k}`: a name with its own index
        return isinstance(core.base, A.Symbol) and all(isinstance(i, (A.Symbol, A.Number)) for i in core.indices)
    if isinstance(core, A.Number):
        return core.value.isdigit() and len(core.value) <= 2
    if isinstance(core, A.UnaryOp) and core.op == "-":
        return isinstance(core.operand, A.Symbol)
    if isinstance(core, A.BinOp) and core.op in ("+", "-"):
        parts = (core.left, core.right)
        return all(isinstance(p, (A.Symbol, A.Number)) for p in parts) and any(isinstance(p, A.Symbol) for p in parts)
    return False


def _mentions_itself(node: A.Apply) -> bool:
    """Does the function's own symbol stand, not applied, inside its brackets (`p(1 - p)`; not `f(f(x))`)?"""
    key = identity(node.func)
    if key is None:
        return False
    applied = {id(n.func) for arg in node.args for n in A.walk(arg) if isinstance(n, A.Apply)}
    return any(isinstance(n, A.Symbol) and id(n) not in applied and identity(n) == key
               for arg in node.args for n in A.walk(arg))


def _parametrised(sym: A.Symbol) -> bool:
    """Is `sym` named by a model's weights (`\\sigma_\\phi`, `\\epsilon_{\\theta}`)?"""
    label = sym.sub_label
    return isinstance(label, A.Symbol) and label.name in T.PARAMETER_LETTERS and label.sub_label is None


def _is_letter(sym: A.Symbol) -> bool:
    """A plain lower-case letter (`f`, `k`), as an index or a label is written."""
    return len(sym.name) == 1 and sym.name.isalpha() and sym.name.islower() and sym.font is None and \
        not sym.accents and sym.sub_label is None and sym.sup_label is None


def _plain_arithmetic(node: A.Node) -> bool:
    """Arithmetic on plain letters and numbers only (`n - k`, `1 - x`, `G + 2\\mu D`): what a step or a factor is."""
    for n in A.walk(node):
        if isinstance(n, (A.Apply, A.Frac, A.Text, A.Reduction, A.Norm, A.Abs, A.Gradient)):
            return False
    return True


def _compound(node: A.Node) -> bool:
    """An expression rather than a variable or a value: `G + 2\\mu D`, `n - k`, `1 - x`, `2x`, a sum, a fraction
    (a function's value, `v_t(\\phi_t(x))`, is a value)."""
    return isinstance(node, (A.BinOp, A.UnaryOp, A.Product, A.Reduction, A.Frac))


def _is_word(sym: A.Symbol) -> bool:
    bare = sym.name.lstrip("\\")
    return len(bare) > 1 and not sym.name.startswith("\\") and \
        bare.replace("\\_", "").replace("_", "").replace("-", "").isalnum()


def _arity(ev: Evidence) -> int:
    depth = 0
    commas = 0
    for ch in ev.text:
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif ch == "," and depth == 1:
            commas += 1
    return commas + 1


def _family_text(sym: A.Symbol) -> str:
    from .printer import to_latex
    return to_latex(replace(sym, sub_label=None, sup_label=None, primes=0, optimum=False))


def _weigh(evidence: list[Evidence], yes: str, no: str) -> tuple[Optional[str], str]:
    score = 0
    best = {yes: "", no: ""}
    for ev in evidence:
        w = WEIGHT.get(ev.strength, 1)
        if ev.reading == yes:
            score += w
        elif ev.reading == no:
            score -= w
        else:
            continue
        if not best[ev.reading] or WEIGHT.get(ev.strength, 1) > WEIGHT.get(best[ev.reading], 1):
            best[ev.reading] = ev.strength
    if score == 0:
        return None, "ambiguous"
    side = yes if score > 0 else no
    return side, best[side] or "convention"


def _projector(node: A.Node) -> bool:
    """`\\Pi_{\\|z\\|\\le D}`: \\Pi with a constraint (an inequality or a membership) under it."""
    if not (isinstance(node, A.Indexed) and isinstance(node.base, A.Symbol) and node.base.name == "\\Pi" and
            node.base.sub_label is None and node.base.sup_label is None and len(node.indices) == 1):
        return False
    idx = node.indices[0]
    return isinstance(idx, A.Relation) and all(op in ("\\le", "<", "\\ge", ">", "\\in", "\\subset", "\\subseteq")
                                               for op in idx.ops)


def _constrains(constraint: A.Node, lhs: Optional[A.Node]) -> bool:
    """Does the constraint under a projection name the relation's left side (`\\|z\\| \\le D`, `z \\in C` for
    `z_{t+1}`: its symbol or one of its family)?"""
    fam = family(lhs) if lhs is not None else None
    return fam is not None and any(family(n) == fam for n in A.walk(constraint)
                                   if isinstance(n, (A.Symbol, A.Indexed, A.Primed)))


def _symmetric_pair(node: A.Node) -> bool:
    """`(-c, c)`: a pair in parentheses from minus a value to the value (whatever it is: `x`, `x_i`, `\\frac1a c`)."""
    if not (isinstance(node, A.Tuple) and len(node.items) == 2 and (node.open, node.close) == ("(", ")")):
        return False
    low, high = node.items
    if not (isinstance(low, A.UnaryOp) and low.op == "-"):
        return False
    from .printer import to_latex
    return to_latex(low.operand) == to_latex(high)


_UNIFORM_NAMES = frozenset({"U", "Unif", "Uniform", "\\mathcal{U}"})


def _is_uniform(func: A.Node) -> bool:
    """`U`, `\\mathcal{U}`, `\\text{Unif}`, `\\mathrm{Uniform}`: the uniform distribution's name, unscripted."""
    if isinstance(func, A.Text):
        return func.text.strip() in _UNIFORM_NAMES
    return isinstance(func, A.Symbol) and func.name in _UNIFORM_NAMES and func.sub_label is None and \
        func.sup_label is None


def _sentences_of(notation: Notation, latex: str) -> list[str]:
    """The sentences of the paper a formula written `latex` stands in (a paper's notation index keeps each formula
    with its sentence; a bare formula has none)."""
    formulas = getattr(notation, "formulas", None) or {}
    return [f.sentence for f in formulas.values()
            if getattr(f, "latex", None) == latex and getattr(f, "sentence", None)]


_INTERVAL_NOUNS = frozenset("interval intervals range ranges domain domains support".split())
"""Words that call the formula beside them a range of values ("on the interval $(-a, a)$")."""
_INTERVAL_PREPOSITIONS = frozenset("in within inside".split())
"""Words that put the formula right after them as a range of values ("$g'(x) > 0$ in $(-c, c)$")."""
_WORD_OR_MATH = re.compile(r"\$[^$]*\$|\\\(.*?\\\)|[A-Za-z]+")


def _prose_says_interval(sentence: str, latex: str) -> Optional[str]:
    """The words of `sentence` beside the formula `latex` that make it a range of values: 'in' or 'within' right
    before it, or interval/range/domain/support among the four words before or after it (another formula between
    them stops the look). None when they say neither."""
    at = sentence.find(latex)
    if at < 0:
        return None
    before = sentence[:at].rstrip("$ ").removesuffix("\\(").rstrip()
    after = sentence[at + len(latex):].lstrip("$ ").removeprefix("\\)")
    words_before = _words_until_math(reversed(_WORD_OR_MATH.findall(before)), 4)
    words_after = _words_until_math(_WORD_OR_MATH.findall(after), 4)
    near = [w.lower() for w in words_before + words_after]
    if (words_before and words_before[0].lower() in _INTERVAL_PREPOSITIONS) or _INTERVAL_NOUNS.intersection(near):
        shown = " ".join(reversed(words_before))
        return f"{shown} ${latex}$ {' '.join(words_after)}".strip()
    return None


def _words_until_math(tokens, limit: int) -> list[str]:
    """The first `limit` words of `tokens`, stopping at a formula."""
    out: list[str] = []
    for token in tokens:
        if token.startswith(("$", "\\(")) or len(out) >= limit:
            break
        out.append(token)
    return out


_SIM_WINDOW = 48
"""How far back `_after_sim` looks: `\\sim` and the spacing a paper writes after it fit in this many characters."""
_TRAILING_SPACE = re.compile(r"(?:\\[,;:!]|\\q?quad|\s)+$")


def _after_sim(source: str, start: int) -> bool:
    """Does the node starting at `start` follow `\\sim` (spacing aside): the distribution a sample is drawn from?
    (Only the few characters before `start` are read, so a call costs the same wherever the node stands.)"""
    before = _TRAILING_SPACE.sub("", source[max(0, start - _SIM_WINDOW):start])
    return before.endswith("\\sim")


def _open_bracket(source: str, after: int, end: int) -> int:
    """Where the bracket group of an application starts (its sizing macro included): after the function."""
    i = after
    while i < end:
        ch = source[i]
        if ch in "([":
            return i
        if ch == "\\" and source.startswith("\\{", i):
            return i
        if ch == "\\":
            j = i + 1
            while j < end and source[j].isalpha():
                j += 1
            if source[i + 1:j] in T.SIZED_OPEN or source[i + 1:j] in T.SIZED_ANY:
                return i
            i = j
            continue
        i += 1
    return after


def resolved_identity(node: A.Node) -> Optional[str]:
    """The identity of a resolved node's symbol (re-exported for stages that key decisions by symbol)."""
    return identity(node)
