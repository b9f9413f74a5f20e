"""What formulas say about their symbols, and the decisions taken from it.

Syntax alone cannot tell `f(x)` (an application) from `f\\,(x)` (a product), nor a label `x^w` from a power
`x^2`. The parser leaves those places open (an `Apply` with certainty "ambiguous", a `Power` whose exponent
could name something); `resolve` decides each one from *evidence* and records a `Decision`.

Evidence comes from what formulas themselves show about a symbol, collected here by `Notation.add_tree`
(over the one formula of a bare `parse`, or over every formula of a paper by the notation index in
`papermath.analysis.notation_index`, which adds what the prose says):
- applied with comma-separated arguments (`B_F(x, y)`), with a conditional bar (`\\pi(a \\mid s)`), as the
  defined side of a definition (`\\phi_a(x) := …`), with a mapping (`f: \\mathcal X \\to \\mathcal Y`),
  sampled from (`x \\sim p` → p is a distribution) → a function;
- a shape (`W \\in \\mathbb R^{d\\times d}`), a limit of a sum (`\\sum_{t=1}^T`), an index range → not one;
- the superscripts a base carries: several names on one base (`x^w`, `x^l`; `Q^1`, `Q^2`) → labels.

Keys: a symbol's *identity* is the symbol without its indices, labels kept (`\\pi_{\\theta}`); its *family*
drops the labels too (`\\pi`), so what the paper says of `\\pi_\\theta` counts for `\\pi_{ref}` weakly.
"""
from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass, replace
from functools import lru_cache
from collections.abc import Sequence
from typing import Iterable, Optional

from . import ast as A
from . import tables as T

FUNCTION = "function"
NOT_FUNCTION = "not function"
LABEL = "label"
INDEX = "index"
POWER = "power"
INTERVAL = "interval"

STRENGTHS = ("declared", "place", "paper", "formula", "convention")
"""How strong evidence is, strongest first: declared (`\\DeclareMathOperator`, a known function), place (what
this very place in a formula shows, read against a paper: what follows `\\sim` is drawn from, `v_\\theta(n - k)`
with one expression where the paper calls it with several arguments; it speaks of this occurrence, so it
outweighs what the paper says of the symbol in general, and weighs as much as a declaration), paper (what the
paper says or writes elsewhere), formula (what this formula shows), convention (how such notation is usually
meant; never enough when the paper says otherwise)."""

WEIGHT = {"declared": 4, "place": 4, "paper": 3, "formula": 2, "convention": 1}

_DEFINES_BY_EQUATION = ("=", ":=", "\\triangleq", "\\coloneqq")
"""The relations with which an equation defines its left side from its right (`L_1 = …`, `L = L_1 + λ L_2`)."""


@dataclass(frozen=True)
class Evidence:
    """One thing that speaks for one reading of a symbol."""

    reading: str
    """What it supports: "function", "not function", "label", "power", "index" or "interval"."""
    kind: str
    """What kind of evidence: "comma arguments", "conditional bar", "defined as a function", "maps", "sampled
    from", "shape", "limit", "several labels", "sentence", "declared operator", "convention: …"."""
    text: str
    """What says so: the formula piece or the sentence, as written."""
    where: str = ""
    """Where it stands: a formula id (`eq:3`), `file:line:column`, or "this formula"."""
    strength: str = "formula"
    """declared, place, paper, formula or convention (see `STRENGTHS`)."""


@dataclass(frozen=True)
class Decision:
    """A place syntax could not decide, and what was decided there."""

    span: A.Span
    """The place in the formula (the application, or the scripted atom)."""
    question: str
    """"application or product", "label or power", "label or index", "one name or a product", "variable or
    distribution" or "interval or pair"."""
    subject: str
    """The symbol asked about, as LaTeX (`r_t`, `V^{\\pi}`)."""
    reading: str
    """What was decided: "application", "product", "label", "power", "index" — or "ambiguous"."""
    strength: str
    """The strength of the evidence that decided (see `STRENGTHS`), or "ambiguous"."""
    evidence: tuple[Evidence, ...] = ()
    """Everything that spoke, for and against."""

    @property
    def status(self) -> str:
        """"ambiguous" when nothing decided, else "decided"."""
        return "ambiguous" if self.reading == "ambiguous" else "decided"

    def to_dict(self) -> dict:
        return {"span": list(self.span), "question": self.question, "subject": self.subject,
                "reading": self.reading, "strength": self.strength,
                "evidence": [{"reading": e.reading, "kind": e.kind, "text": e.text, "where": e.where,
                              "strength": e.strength} for e in self.evidence]}


# --- symbol keys -----------------------------------------------------------------------------------

def base_symbol(node: A.Node) -> Optional[A.Node]:
    """The named thing under indices, primes and sub-labels (`x_i` → x, `\\text{KeepTopK}` → the text)."""
    while isinstance(node, (A.Indexed, A.Primed, A.Power)) or (isinstance(node, A.Labeled) and node.position == "sub"):
        node = node.base  # `V^1` (an open superscript) names V as much as `V_t` does
    if isinstance(node, A.Group) and isinstance(node.body, (A.Symbol, A.Indexed)):
        return base_symbol(node.body)
    if isinstance(node, (A.Symbol, A.Text, A.Opaque)):
        return node
    return None


@lru_cache(maxsize=8192)
def _printed(sym: A.Symbol) -> str:
    from .printer import to_latex
    return to_latex(sym)


def identity(node: A.Node) -> Optional[str]:
    """The symbol without its indices, labels kept: `\\pi_{\\theta}` (None for what is not a symbol)."""
    sym = base_symbol(node)
    if isinstance(sym, A.Symbol):
        return _printed(replace(sym, primes=0) if sym.primes else sym)
    if isinstance(sym, A.Text):
        return "\\text{" + sym.text.strip() + "}"
    if isinstance(sym, A.Opaque):
        return sym.macro
    return None


def family(node: A.Node) -> Optional[str]:
    """The symbol without indices or labels: `\\pi` for `\\pi_\\theta` and `\\pi_{ref}`."""
    sym = base_symbol(node)
    if isinstance(sym, A.Symbol):
        if sym.sub_label is None and sym.sup_label is None and not sym.primes and not sym.optimum:
            return _printed(sym)
        return _printed(replace(sym, sub_label=None, sup_label=None, primes=0, optimum=False))
    return identity(node)


def _text(source: str, node: Optional[A.Node]) -> str:
    if node is None or not source:
        return ""
    s, e = node.span
    return " ".join(source[s:e].split())


# --- what formulas show --------------------------------------------------------------------------------

@dataclass
class SymbolFacts:
    """Everything collected about one key (mutable while collecting)."""

    evidence: list[Evidence]
    sups: Counter
    """Superscripts written on this base and their counts (`{"w": 3, "l": 3}`)."""
    applied: int = 0
    """Applications written with brackets."""
    uses: int = 0
    """Occurrences."""


class Notation:
    """Evidence about symbols, collected from formulas (and, in a paper's index, from its prose).

    `Notation()` knows nothing; `Notation.of_formula(tree, source)` knows what one formula shows. The
    resolution pass asks `function_evidence` and `superscripts`; the paper-wide index subclasses this."""

    def __init__(self, functions: Iterable[str] = ()) -> None:
        self.facts: dict[str, SymbolFacts] = defaultdict(lambda: SymbolFacts([], Counter()))
        self.declared = frozenset(f.lstrip("\\") for f in functions)
        self.running: set[str] = set()
        """Letters that run over values somewhere: bound by a sum or an expectation, in index arithmetic
        (`x_{t-1}`), given a range (`i = 1, …, N`, `i \\in [N]`), or called "the i-th" in the prose."""
        self.sub_letters: dict[str, Counter] = defaultdict(Counter)
        """Single-letter subscripts written on each family (`y` → w, l)."""
        self.sub_labels: dict[str, set[str]] = defaultdict(set)
        """Subscripts that already name something on each family (`\\pi` → \\theta, ref)."""
        self.quantities: dict[str, str] = {}
        """Single letters written as quantities of their own (the base of an index, `f_t`; a vector,
        `\\mathbf k_j`), with how one is written (for `W_f`, `\\mathbf W_k`: the subscript names that quantity)."""
        self.vectors: set[str] = set()
        """Of those, the letters written in a vector or matrix font (`\\mathbf k`, `\\bm q`)."""
        self.capitals: set[str] = set()
        """Capital letters written as symbols (`K`, `\\mathbf{K}`, `K_1`): matrices a dimension may be named by."""
        self.plain: set[str] = set()
        """Single letters written bare somewhere outside any script (`t` in `v(x_t, t)`): values, not names."""
        self.named_scripts: dict[str, dict[str, Evidence]] = {"sub": {}, "sup": {}}
        """Script letters the prose says name something ("the superscript $i$ names the trajectory", "the
        subscript $t$ stands for the teacher"), per position, with the sentence that says so."""
        self.parameters: dict[str, Evidence] = {}
        """Families the prose calls a parameter ("with $k_j$ being a learnable parameter"), with the sentence: a
        subscript that is one names its symbol (`\\sigma_{k_j}`), as `p_\\theta` is named by its weights."""
        self.names: dict[str, list[Evidence]] = defaultdict(list)
        """Runs of letters the formulas use as one name (`SE` defined by `SE = \\|…\\|^2`), with the evidence."""
        self.dimensions: dict[tuple[str, str], Evidence] = {}
        """Sizes named by their subscript letter, keyed (family, letter), with what says so: the dimension of
        the vector the letter writes (`\\bm{x}_i \\in \\mathbb{R}^{N_x}`), or a size the prose names ("keys of
        dimension $d_k$", "$d_h$ denotes the dimension per head")."""
        self.runs_on: dict[str, set[str]] = defaultdict(set)
        """Letters that run in a family's own subscripts (`N_{\\ell-1}`, `x_{t+1}`): indices of that family."""
        self.numbered: dict[str, dict[str, set[str]]] = defaultdict(lambda: defaultdict(set))
        """Members of a family defined each by an equation of its own, numbered (`L_1 = \\mathbb{E}[…]`, `L_2 = …`):
        family → number → the right sides that define it."""
        self.sub_indexed: dict[str, set[tuple[str, str]]] = defaultdict(set)
        """Subscripts that are a numbered letter, per family (`\\lambda_{q_1}`, `\\lambda_{k_1}` → (q, 1), (k, 1))."""
        self.composed: dict[str, set[str]] = defaultdict(set)
        """Numbered members a family's bare symbol is defined from (`L = L_1 + \\lambda L_2` → L: 1, 2)."""

    @classmethod
    def of_formula(cls, tree: A.Node, source: str, functions: Iterable[str] = ()) -> "Notation":
        notation = cls(functions)
        notation.add_tree(tree, source, "this formula", "formula")
        return notation

    # --- questions the resolution pass asks ------------------------------------------------------------
    def function_evidence(self, func: A.Node) -> list[Evidence]:
        """What speaks for or against `func` being a function: its identity's evidence, then its family's
        (weakened to convention when only the family says so)."""
        out: list[Evidence] = []
        key, fam = identity(func), family(func)
        if key is not None:
            out.extend(self.facts[key].evidence) if key in self.facts else None
            out.extend(self._always_applied(key))
        if fam is not None and fam != key and fam in self.facts:
            # what the paper says of \pi_\theta counts (weaker) for \pi_{ref}: a function of the same letter is
            # another function of it; a number of the same letter (`a rate $p = 0.7$`) says nothing about p_A
            for ev in self.facts[fam].evidence:
                if ev.reading == FUNCTION:
                    weaker = "formula" if ev.strength in ("declared", "paper") else "convention"
                    out.append(replace(ev, strength=weaker, kind=ev.kind + " (same letter)"))
        return [e for e in out if e.reading in (FUNCTION, NOT_FUNCTION)]

    def _always_applied(self, key: str) -> list[Evidence]:
        """`\\Theta(d)`, `\\Theta(\\frac{…}{…})`: a symbol the paper writes only before its arguments, twice or more
        and never as a value of its own (bare, scripted alone, multiplied), is a function wherever it stands."""
        facts = self.facts.get(key)
        if getattr(self, "strength", "formula") != "paper" or facts is None or facts.applied < 2 or \
                facts.applied < facts.uses:
            return []
        return [Evidence(FUNCTION, "always written before its arguments", f"{key}: {facts.applied} times",
                         getattr(self, "where", "the paper"), "paper")]

    def superscripts(self, base: A.Node) -> Counter:
        """The superscripts written on this base anywhere (`x_0^w`, `x_t^l` → w, l)."""
        fam = family(base)
        if fam is None or fam not in self.facts:
            return Counter()
        return self.facts[fam].sups

    def label_evidence(self, base: A.Node) -> list[Evidence]:
        fam = family(base)
        if fam is None or fam not in self.facts:
            return []
        return [e for e in self.facts[fam].evidence if e.reading in (LABEL, POWER)]

    # --- collecting ----------------------------------------------------------------------------------
    def add(self, key: Optional[str], evidence: Evidence) -> None:
        if key is not None:
            self.facts[key].evidence.append(evidence)

    def add_tree(self, tree: A.Node, source: str, where: str, strength: str = "paper") -> None:
        """Collect what one formula's tree shows about its symbols."""
        self._letters(tree, source)
        runs: dict[str, set] = defaultdict(set)  # word → where it is written (a node may be reached twice)
        for node in A.walk(tree):
            if isinstance(node, A.Product):
                word = letter_run(node)
                if word is not None and len(word) >= 3 and (word.islower() or word.isupper()):
                    # (one case throughout: `pos`, `MLP`; not the constants of `L t p`)
                    runs[word].add(node.span)
            if isinstance(node, A.Apply):
                self._application(node, source, where, strength)
            elif isinstance(node, A.Power):
                base = base_symbol(node.base)
                fam = family(node.base) if base is not None else None
                if fam is not None:
                    self.facts[fam].sups[_text(source, node.exponent).strip("{} ")] += 1
            elif isinstance(node, A.Symbol) and node.sup_label is not None:
                fam = family(node)
                if fam is not None:
                    self.facts[fam].sups[_text(source, node.sup_label).strip("{} ")] += 1
            elif isinstance(node, A.Indexed):
                self._indices(node)
            if isinstance(node, A.Symbol) and node.sub_label is not None:
                fam = family(node)
                if fam is not None:
                    self.sub_labels[fam].add(_text(source, node.sub_label))
            if isinstance(node, (A.Tuple, A.SetLiteral, A.Concat, A.Sequence)):
                self._enumeration(node.items, source, where, strength)
            if isinstance(node, A.Reduction):
                self._reduction(node, source, where, strength)
            elif isinstance(node, A.Relation):
                self._relation(node, source, where, strength)
            if isinstance(node, (A.Symbol, A.Text)):
                key = identity(node)
                if key is not None:
                    self.facts[key].uses += 1
        self._repeated_runs(runs, source, where, strength)

    def _reduction(self, node: A.Reduction, source: str, where: str, strength: str) -> None:
        """What a reduction shows: the letters it binds run (over the families they subscript in its body); its
        limits are counts."""
        for v in node.variables:
            # `\\sum_i`, `\\sum_{t=1}^T`: the bound letter runs (`\\mathbb E_{y_w}` binds y_w, not w)
            if isinstance(v, A.Symbol) and v.sub_label is None and v.sup_label is None and \
                    v.font not in _VECTOR_FONTS:  # (`\min_{\bm x}` binds a vector, no index runs)
                self.running.add(v.name)
                self._bound_on(node.body, v.name)
        for limit in (node.upper, node.lower):
            key = identity(limit) if limit is not None else None
            if key is not None and isinstance(base_symbol(limit), A.Symbol):
                self.add(key, Evidence(NOT_FUNCTION, "limit", _text(source, node.operator) + " … " +
                                       _text(source, limit), where, strength))

    def _repeated_runs(self, runs: dict[str, set], source: str, where: str, strength: str) -> None:
        for word, places in runs.items():
            if len(places) >= 2:
                # `PE_{(pos, 2i)} = \sin(pos / …)`: the same letters written together twice are one name
                self.names[word].append(Evidence("name", "the same letters written together twice", word, where,
                                                 strength))

    def _letters(self, tree: A.Node, source: str) -> None:
        """Which single letters the formula writes as quantities (`f_t`, `\\mathbf k_j`) and which bare."""
        scripted: set[int] = set()  # ids of symbols written as an index, a script or a scripted base
        for node in A.walk(tree):
            if isinstance(node, A.Indexed):
                base = node.base
                scripted.update(id(i) for i in node.indices + (base,))
                if isinstance(base, A.Symbol) and _single_letter(base.name) and not base.accents:
                    self.quantities.setdefault(base.name, _text(source, node))
                    if base.font in _VECTOR_FONTS:
                        self.vectors.add(base.name)
            elif isinstance(node, A.Symbol):
                if len(node.name) == 1 and node.name.isalpha() and node.name.isupper():
                    self.capitals.add(node.name)
                for label in (node.sub_label, node.sup_label):
                    if label is not None:
                        scripted.update(id(n) for n in A.walk(label))
                if _single_letter(node.name) and id(node) not in scripted and not node.accents:
                    if node.font in _VECTOR_FONTS:
                        self.quantities.setdefault(node.name, _text(source, node))
                        self.vectors.add(node.name)
                    elif node.font is None and node.sub_label is None and node.sup_label is None:
                        self.plain.add(node.name)
            elif isinstance(node, (A.Power, A.Reduction)):
                for part in ((node.exponent, node.base) if isinstance(node, A.Power) else node.variables):
                    scripted.update(id(n) for n in A.walk(part))

    def _indices(self, node: A.Indexed) -> None:
        fam = family(node.base)
        for idx in node.indices:
            if isinstance(idx, A.Symbol) and len(idx.name) == 1 and idx.name.isalpha() and idx.font is None:
                if fam is not None:
                    self.sub_letters[fam][idx.name] += 1
            elif isinstance(idx, A.Indexed) and isinstance(idx.base, A.Symbol) and len(idx.indices) == 1 and \
                    isinstance(idx.indices[0], A.Number) and fam is not None:
                self.sub_indexed[fam].add((idx.base.name, idx.indices[0].value))
            elif isinstance(idx, (A.BinOp, A.UnaryOp, A.Slice, A.Relation)):
                for n in A.walk(idx):  # `x_{t-1}`, `x_{1:T}`, `x_{<t}`: these letters run
                    if isinstance(n, A.Symbol) and len(n.name) == 1:
                        self.running.add(n.name)
                        if fam is not None:
                            self.runs_on[fam].add(n.name)

    def _application(self, node: A.Apply, source: str, where: str, strength: str) -> None:
        key = identity(node.func)
        if key is None:
            return
        facts = self.facts[key]
        facts.applied += 1
        if node.brackets == "":
            return
        text = _text(source, node)
        if len(node.args) >= 2 and node.certainty != "known":
            self.add(key, Evidence(FUNCTION, "comma arguments", text, where, strength))
        if node.given and node.certainty in ("conditional", "ambiguous"):
            self.add(key, Evidence(FUNCTION, "conditional bar", text, where, strength))

    def longest_name(self) -> int:
        """How many letters the longest run the formulas use as one name has (0: none)."""
        return max((len(word) for word, evidence in self.names.items() if evidence), default=0)

    def name_evidence(self, word: str) -> list[Evidence]:
        """What says this run of letters is one name (`SE`, `pos`)."""
        return list(self.names.get(word, ()))

    def _relation(self, node: A.Relation, source: str, where: str, strength: str) -> None:
        ops = node.ops
        first = node.operands[0]
        word = letter_run(first)
        if word is not None and ops and ops[0] in ("=", ":=", "\\triangleq", "\\equiv"):
            # `SE = \\|\\epsilon - \\epsilon_\\theta\\|^2`: the letters defined together are one name
            self.names[word].append(Evidence("name", "defined as one name", _text(source, node)[:80], where, strength))
        if ops and ops[0] in ("=", ":=", "\\triangleq", "\\equiv", "\\doteq") and isinstance(first, A.Apply) and \
                first.brackets and len(node.operands) == 2:
            # `\phi_a(x) := \tanh(ax)`: the defined side is a function of its arguments
            if all(isinstance(base_symbol(a) or a, (A.Symbol, A.Indexed)) or isinstance(a, A.Symbol)
                   for a in first.args):
                self.add(identity(first.func), Evidence(FUNCTION, "defined as a function", _text(source, node)[:80],
                                                        where, strength))
        defines = bool(ops) and ops[0] in _DEFINES_BY_EQUATION and len(node.operands) == 2
        if defines and isinstance(first, A.Indexed) and len(first.indices) == 1 and \
                isinstance(first.indices[0], A.Number) and isinstance(first.base, A.Symbol) and \
                family(first.base) is not None:
            # `L_1 = \\mathbb{E}_x[…]`: the first loss, defined by an equation of its own
            rhs = " ".join(_text(source, node.operands[1]).split())
            self.numbered[family(first.base)][first.indices[0].value].add(rhs)
        if defines and isinstance(first, A.Symbol) and first.sub_label is None and family(first) is not None:
            # `L = L_1 + \\lambda L_2`: the bare symbol made of its numbered members
            for n in A.walk(node.operands[1]):
                if isinstance(n, A.Indexed) and len(n.indices) == 1 and isinstance(n.indices[0], A.Number) and \
                        isinstance(n.base, A.Symbol) and family(n.base) == family(first):
                    self.composed[family(first)].add(n.indices[0].value)
        if isinstance(first, A.Symbol) and ops and ops[0] in ("=", "\\in") and isinstance(node.operands[1], (
                A.Sequence, A.Interval, A.SetLiteral)) or (isinstance(first, A.Symbol) and ops and ops[0] == "\\in" and
                                                         isinstance(node.operands[1], A.Concat)):
            self.running.add(first.name)  # `i = 1, \ldots, N`, `i \in [1, N]`
        for i, op in enumerate(ops):
            left, right = node.operands[i], node.operands[i + 1]
            if op == ":" and i + 1 < len(ops) and ops[i + 1] in ("\\to", "\\mapsto"):
                self.add(identity(left), Evidence(FUNCTION, "maps", _text(source, node)[:80], where, strength))
            elif op == "\\sim":
                dist = right.func if isinstance(right, A.Apply) else right
                self.add(identity(dist), Evidence(FUNCTION, "sampled from", _text(source, node)[:80], where,
                                                  strength))
            elif op == "\\in" and _is_shape(right):
                items = left.items if isinstance(left, (A.Tuple, A.Sequence)) else (left,)
                for item in items:
                    if isinstance(base_symbol(item), A.Symbol) and not isinstance(item, A.Apply):
                        self.add(identity(item), Evidence(NOT_FUNCTION, "shape", _text(source, node)[:80], where,
                                                          strength))
                self._measured(items, right, _text(source, node)[:80], where, strength)

    def _enumeration(self, items: Sequence[A.Node], source: str, where: str, strength: str) -> None:
        """`x_1, \\cdots, x_N`, `\\{t_N, …, t_0\\}`: a list written out with an ellipsis counts to the letter its
        last (or first) member is indexed by, as a sum's limit does: that letter is a count (x_N the N-th)."""
        if len(items) < 3 or not any(isinstance(i, A.Ellipsis_) for i in items):
            return
        ends = [i for i in (items[0], items[-1]) if isinstance(i, A.Indexed) and len(i.indices) == 1]
        families = {family(i.base) for i in items if isinstance(i, A.Indexed)}
        if len(families) != 1:
            return
        for end in ends:
            idx = end.indices[0]
            if isinstance(idx, A.Symbol) and len(idx.name) == 1 and idx.name.isalpha():
                self.add(identity(idx), Evidence(NOT_FUNCTION, "limit", _text(source, end), where, strength))

    def _bound_on(self, body: Optional[A.Node], letter: str) -> None:
        """`\\sum_i n_i`: the families the bound letter subscripts in the body run over it."""
        for n in A.walk(body) if body is not None else ():
            if isinstance(n, A.Indexed) and any(isinstance(i, A.Symbol) and i.name == letter for i in n.indices):
                fam = family(n.base)
                if fam is not None:
                    self.runs_on[fam].add(letter)

    def _measured(self, members: Sequence[A.Node], space: A.Node, text: str, where: str, strength: str) -> None:
        """`\\bm{x}_i \\in \\mathbb{R}^{N_x}`, `y \\in \\mathbb{R}^{d_y}`: a size in the space's exponent whose
        subscript is the letter of the member measures that member: the subscript names it (x's dimension), it
        indexes nothing."""
        if not isinstance(space, A.Power):
            return
        letters = set()
        for item in members:
            sym = base_symbol(item)
            if isinstance(sym, A.Symbol) and len(sym.name) == 1 and sym.name.isalpha():
                letters.add(sym.name)
        for n in A.walk(space.exponent):
            if isinstance(n, A.Indexed) and len(n.indices) == 1 and isinstance(n.indices[0], A.Symbol) and \
                    n.indices[0].name in letters and n.indices[0].font is None:
                fam = family(n.base)
                if fam is not None:
                    self.dimensions.setdefault((fam, n.indices[0].name), Evidence(
                        LABEL, "the dimension of the vector its subscript writes", text, where, strength))


_VECTOR_FONTS = frozenset(("bf", "bm", "bfit", "boldsymbol"))


def _single_letter(name: str) -> bool:
    return len(name) == 1 and name.isalpha() and name.islower()


def _run_letter(node: A.Node, last: bool) -> Optional[A.Symbol]:
    """The letter one factor of a run of letters writes, or None: only the last may carry scripts or a prime."""
    core = node
    if last:
        while isinstance(core, (A.Indexed, A.Power, A.Primed)):
            core = core.base
    if not isinstance(core, A.Symbol) or len(core.name) != 1 or not core.name.isalpha() or core.accents or \
            (not last and (core.sub_label is not None or core.sup_label is not None)):
        return None
    return core


def _joins(factors: Sequence[A.Node], i: int, letter: A.Symbol, font: Optional[str]) -> bool:
    """Does factor `i` (writing `letter`) touch the one before it, in the same font? (`a b` and `d\\bm{x}` do not.)"""
    return factors[i - 1].span[1] == factors[i].span[0] and letter.font == font


def letter_run(node: A.Node) -> Optional[str]:
    """The word a product of letters written together spells (`S E_\\theta^{(w)}` → "SE"), or None."""
    if not isinstance(node, A.Product) or len(node.factors) < 2:
        return None
    factors = node.factors
    letters: list[str] = []
    font: Optional[str] = None
    for i, f in enumerate(factors):
        letter = _run_letter(f, i == len(factors) - 1)
        if letter is None or (i and not _joins(factors, i, letter, font)):
            return None
        letters.append(letter.name)
        font = letter.font
    return "".join(letters)


def letter_words(factors: Sequence[A.Node], start: int, longest: int) -> list[tuple[int, str]]:
    """Every run of letters written together from `factors[start]`, at most `longest` letters, longest first:
    (end, word) with `letter_run(Product(factors[start:end])) == word`. One pass over the run, so trying every
    start of a product of n letters costs n·longest, not n³."""
    words: list[tuple[int, str]] = []
    letters: list[str] = []
    font: Optional[str] = None
    for i in range(start, min(len(factors), start + longest)):
        last = _run_letter(factors[i], True)
        if last is None or (i > start and not _joins(factors, i, last, font)):
            break
        if i > start:
            words.append((i + 1, "".join(letters) + last.name))
        inner = _run_letter(factors[i], False)
        if inner is None:
            break  # a scripted or primed letter ends every run it is in
        letters.append(inner.name)
        font = inner.font
    words.reverse()
    return words


def _is_shape(node: A.Node) -> bool:
    """`\\mathbb R^{d\\times d}`, `\\mathbb{R}^d`, `\\mathbb R`: a space of numbers, not a set of functions."""
    core = node.base if isinstance(node, (A.Power, A.Indexed)) else node
    return isinstance(core, A.Symbol) and core.font == "bb" and core.name in ("R", "N", "Z", "C", "Q")


def function_letter(sym: A.Node) -> Optional[str]:
    """Conventions about a single letter followed by brackets: "function", "not function" or None."""
    base = base_symbol(sym)
    if not isinstance(base, A.Symbol):
        return None
    if base.name in T.LIKELY_FUNCTION_LETTERS and base.font in (None, "cal", "bf", "rm", "it"):
        return FUNCTION
    if base.name in T.SCALAR_LETTERS:
        return NOT_FUNCTION
    return None
