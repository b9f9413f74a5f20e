"""`explain`: read any formula in words, inside out, one line per operator, each with a code analog, and
warn where the notation has several meanings.

The reading is driven by two pieces of data, not by code that knows notations:
- the notation dictionary (`papermath/data/notation.json`): a sub-expression that *is* an entry's example
  form reads as that entry, verbatim; every entry a step or a symbol draws on contributes its warning;
- `TEMPLATES` below: for each kind of node (a key such as `reduce:E:dist` or `apply:cond:policy`), the
  dictionary entry it instantiates and a reading and code template with the node's parts filled in.

Steps are numbered inside out; a step's text refers to an earlier, long sub-expression as `[n]`.
"""
from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, TypeGuard

from ..errors import MathParseError
from ..math import ast as A
from ..math import operators as O
from ..math import parse, read_aloud, to_latex
from ..notation import NotationEntry, conventional_meaning, load_greek, load_notation, notation_entry


@dataclass(frozen=True)
class ExplainStep:
    """One operator or sub-expression, read in words, with a code analog."""

    id: str
    """`step:3`; shown as `[3]`, and later steps refer to its result by that mark."""
    latex: str
    """The sub-expression, normalized LaTeX."""
    text: str
    """The sub-expression in plain Unicode, earlier long steps abbreviated as `[n]`."""
    reading: str
    """What it says, in words."""
    code: str
    """A NumPy/PyTorch analog (an expression; `[n]` stands for step n's result)."""
    notation: tuple[str, ...]
    """Ids of the dictionary entries the reading comes from (empty for plain arithmetic)."""
    also: tuple[str, ...] = ()
    """Readings of further dictionary entries with exactly this example form."""


@dataclass(frozen=True)
class SymbolNote:
    """A symbol with a conventional meaning: what it usually means in ML papers (never a paper's definition)."""

    latex: str
    """The symbol, normalized LaTeX."""
    text: str
    """The symbol in plain Unicode."""
    meaning: str
    """Its conventional meaning(s)."""
    notation: tuple[str, ...]
    """Dictionary entries it draws on."""
    source: str
    """"notation dictionary" or "Greek-letter reference" (or both, joined by " + ")."""


@dataclass(frozen=True)
class NotationWarning:
    """Notation with several meanings or a common misreading, found in the formula."""

    notation: str
    """The dictionary entry that carries the warning."""
    where: str
    """The sub-expression or symbol it concerns, in plain Unicode."""
    message: str
    """The warning, from the dictionary."""


@dataclass(frozen=True)
class Explanation:
    """A formula read inside out."""

    latex: str
    """The formula as given."""
    summary: str
    """The whole formula in one line of English (`papermath.math.read_aloud`)."""
    steps: tuple[ExplainStep, ...]
    """Operators and sub-expressions, innermost first; the last is the whole formula."""
    symbols: tuple[SymbolNote, ...]
    """Symbols with a conventional meaning, in order of first appearance."""
    warnings: tuple[NotationWarning, ...]
    """One per dictionary entry with a warning that the formula uses, in order of first appearance."""
    parse_warnings: tuple[str, ...]
    """What the tolerant parser got past (unknown macros, …)."""

    @property
    def notation_ids(self) -> tuple[str, ...]:
        """Every dictionary entry the explanation draws on."""
        seen: dict[str, None] = {}
        for step in self.steps:
            seen.update(dict.fromkeys(step.notation))
        for note in self.symbols:
            seen.update(dict.fromkeys(note.notation))
        return tuple(seen)


# --- templates: node key -> (dictionary entry, reading, code) ------------------------------------------
# Placeholders name the node's parts (see `_parts`); in the reading they are filled with plain text, in
# the code with code. A key that is missing falls back to the next, less specific key.

Template = tuple["str | None", str, str]
_SPEC_KEYS = {O.BINOP: "binop", O.UNARY: "unary", O.RELATION: "rel", O.REDUCTION: "reduce"}

TEMPLATES: dict[str, Template] = {  # operator-level entries (binop:, unary:, rel:) come from the operator spec
    # expectations, sums, products, extrema, integrals
    "reduce:E:dist": ("expectation", "the average of {body} when {sampling} — a mean over samples",
                      "{body}.mean()  # over a batch of {sampling}"),
    "reduce:E:sub": ("expectation", "the average of {body} over {vars} — a mean over samples",
                     "{body}.mean()  # over {vars}"),
    "reduce:sum:indicator": ("count-indicators", "count the {vars} for which {cond} holds — summing indicators counts",
                             "({cond}).sum()"),
    "reduce:sum:limits": ("sum-limits", "add {body} for {vars} from {lower} through {upper} (both limits included)",
                          "sum({body} for {vars} in range({lower}, {upper} + 1))"),
    "reduce:sum:domain": ("sum", "add up {body} for every {vars} in {domain} — a loop, or an axis argument",
                          "sum({body} for {vars} in {domain})"),
    "reduce:prod:limits": ("prod-limits", "multiply {body} for {vars} from {lower} through {upper}",
                           "np.prod([{body} for {vars} in range({lower}, {upper} + 1)])"),
    "reduce:int:limits": ("integral-interval", "the area under {body} for {vars} from {lower} to {upper}",
                          "scipy.integrate.quad(lambda {vars}: {body}, {lower}, {upper})[0]"),
    "reduce": (None, "{op} of {body} over {vars}", "{op}({body})  # over {vars}"),
    # applications
    "apply:cond:dot": ("whole-distribution",
                       "the whole distribution over outputs of {func} given {given}, not one number",
                       "{func}({given}).softmax(-1)  # a vector over all outputs"),
    "apply:cond:params": ("semicolon-parameters", "the probability of {args} given {given}, under parameters {params} "
                          "(the semicolon marks parameters, not a condition)", "{func}_{params}({given})[{args}]"),
    "apply:cond:event": ("conditional-probability", "the probability of {args} among the cases where {given} holds",
                         "({args} & {given}).sum() / {given}.sum()"),
    "apply:cond:policy": ("policy", "the probability that the model (the policy) {func} writes {args} given {given}",
                          "{func}({given}).softmax(-1)[{args}]  # for a sequence: the product over its tokens"),
    "apply:cond": ("conditional-model",
                   "the probability that the model {func} assigns to output {args} given input {given}",
                   "{func}({given}).softmax(-1)[{args}]  # for a sequence: the product over its tokens"),
    "apply:log:ratio": ("natural-log",
                        "the log of the ratio {num} / {den}: log {num} − log {den}, a difference of logs",
                        "np.log({num}) - np.log({den})"),
    "apply:log:sigmoid": ("sigmoid-or-sd", "the log of the sigmoid of {inner}",
                          "F.logsigmoid({inner})  # stable; not torch.log(torch.sigmoid(...))"),
    "apply:log:sumexp": ("logsumexp", "log-sum-exp of {inner} over {vars}: exponentiate, add, take the log — "
                         "computed stably by subtracting the largest score first",
                         "scipy.special.logsumexp({inner})"),
    "apply:log:prob": ("log-probability", "the (natural) log of the probability {arg} — a log-probability",
                       "np.log({arg})  # torch: log_softmax(logits)[...]"),
    "apply:log": ("natural-log", "the natural log of {arg}", "np.log({arg})"),
    "apply:exp": ("exp", "the exponential of {arg}, e^{arg}; always positive", "np.exp({arg})"),
    "apply:sigma": ("sigmoid-or-sd", "the sigmoid 1/(1 + e^(−z)) of z = {arg}: it squashes z into (0, 1)",
                    "torch.sigmoid({arg})"),
    "apply:softmax": ("softmax", "the softmax of {arg}: exponentiate each score and divide by the sum over the row — "
                      "positive weights that sum to 1", "scipy.special.softmax({arg}, axis=-1)  # say which axis"),
    "apply:max": ("max", "the largest of {args}", "max({args})"),
    "apply:min": ("max", "the smallest of {args}", "min({args})"),
    "apply:sg": ("stop-gradient", "stop-gradient of {arg}: {arg} forward, no gradient through it", "{arg}.detach()"),
    "apply:var": ("variance", "the variance of {arg}: the average squared difference from its mean", "{arg}.var()"),
    "apply:std": ("variance", "the standard deviation of {arg}: the square root of its variance",
                  "{arg}.std()  # np.std divides by n; torch.std by n − 1"),
    "apply:mean": (None, "the mean of {arg}", "{arg}.mean()"),
    "apply:clip": ("clip", "{a} limited to the range [{b}, {c}]: below it becomes {b}, above it {c}",
                   "np.clip({a}, {b}, {c})"),
    "apply:topk": ("topk", "the set of the {b} highest scores among {a}",
                   "np.argsort(-np.array({a}))[:{b}]  # which ones"),
    "apply:gauss:cov": ("gaussian-covariance", "a multivariate Gaussian with mean {a} and covariance matrix {b}",
                        "rng.multivariate_normal({a}, {b})"),
    "apply:gauss:std": ("standard-normal", "a vector of independent standard normal numbers (mean 0, variance 1)",
                        "rng.standard_normal(d)"),
    "apply:gauss": ("gaussian", "the Gaussian with mean {a} and variance {b} (the second argument is a variance)",
                    "rng.normal({a}, np.sqrt({b}))  # numpy takes the standard deviation"),
    "apply:entropy:2": ("cross-entropy", "the cross-entropy of {b} against the target {a}: −log {b} averaged over "
                        "outcomes drawn from {a}", "-({a} * np.log({b})).sum()"),
    "apply:entropy:1": ("entropy", "the entropy of {a}: the smallest cross-entropy any model can reach against {a}",
                        "-({a} * np.log({a})).sum()"),
    "apply:prob:and": ("intersection", "the probability that both {inner_left} and {inner_right} happen",
                       "({inner_left} & {inner_right}).mean()"),
    "apply:prob": ("probability-or-density", "the probability (or, for a continuous variable, the density) of {args} "
                   "under {func}", "{func}[{args}]  # discrete; {func}.pdf({args}) for a density"),
    "apply:named": (None, "{func} applied to {args}", "{func}({args})"),
    "apply": (None, "{func} applied to {args} (or {func} times {args}: the paper says which)", "{func}({args})"),
    # divergences, norms, bars
    "divergence": ("kl-divergence", "the KL divergence {func}({left} ‖ {right}): how different {right} is from {left}, "
                   "averaged over outcomes drawn from {left} — not symmetric",
                   "({left} * (np.log({left}) - np.log({right}))).sum()"),
    "norm": ("norm", "the length (Euclidean norm) of {body}", "np.linalg.norm({body})"),
    "norm:order": ("norm", "the {order}-norm of {body}", "np.linalg.norm({body}, ord={order})"),
    "abs": ("length-bars", "|{body}|: the number of items in {body} (or, for a number, its absolute value)",
            "len({body})  # abs({body}) for a number"),
    "indicator": ("indicator", "1 if {cond} holds, else 0 — a boolean used as a number", "({cond}).astype(float)"),
    "binom": ("binomial", "{n} choose {k}: the number of ways to choose {k} distinct items from {n}",
              "math.comb({n}, {k})"),
    "factorial": ("factorial", "{body} factorial: 1 × 2 × ⋯ × {body}", "math.factorial({body})"),
    # fractions, arithmetic, products
    "product:mean": (None, "the mean of {body} over {vars} from 1 to {den}: the sum divided by its number of terms",
                     "{sum} / {den}  # a mean over {vars}"),
    "product:normalized": (None, "the sum {sum} divided by {den}", "{sum} / {den}"),
    "frac:one": (None, "one over {den}", "1 / {den}"),
    "frac": (None, "{num} divided by {den}", "{num} / {den}"),
    "binop": (None, "{left} {op} {right}", "{left} {op} {right}"),
    "unary": (None, "{op} {operand}", "{op}{operand}"),
    "product:dot": ("dot-product-columns", "the dot product of {a} and {b}: multiply corresponding entries, then add — "
                    "one number", "{a} @ {b}"),
    "product:outer": ("outer-product", "the outer product of {a} and {b}: a matrix with one entry per pair",
                      "np.outer({a}, {b})"),
    "product:scalar": (None, "{a} times {b}", "{a} * {b}"),
    "product:matrix": ("matrix-product", "the matrix product {all}: can be regrouped, not reordered", "{code_matmul}"),
    "product": (None, "{all} side by side: a product — scalar or matrix, decided by the shapes",
                "{code_mul}  # @ for matrices, * for numbers"),
    # powers, transposes, roots
    "power:e": ("exp", "e to the power {exp}: the exponential of {exp}, always positive", "np.exp({exp})"),
    "power:reals": ("vector-space", "the real arrays of shape [{exp}]", "np.zeros(({exp},))  # the shape"),
    "power:2": ("power", "{base} squared: {base} times {base}", "{base} ** 2"),
    "power": ("power", "{base} to the power {exp}", "{base} ** {exp}"),
    "transpose": ("transpose", "{base} transposed: rows and columns exchanged", "{base}.T"),
    "inverse": (None, "the inverse of {base}", "np.linalg.inv({base})"),
    "root": (None, "the square root of {body}", "np.sqrt({body})"),
    "root:index": (None, "the {index}-th root of {body}", "{body} ** (1 / {index})"),
    # subscripts
    "indexed:range": ("range-subscript", "{base} at positions {start} through {stop}, including {stop}",
                      "{base}[{start_minus_one}:{stop}]  # Python stops before the end; papers include {stop}"),
    "indexed:prefix": ("prefix-subscript", "every position of {base} before {stop}", "{base}[:{stop}]"),
    "indexed:row": ("row-slice", "row {row} of {base}: all columns, as in NumPy slicing", "{base}[{row}, :]"),
    "indexed:row-prefix": ("prefix-subscript", "every position of {base}_{row} before {stop}",
                           "{base}[{row}, :{stop}]"),
    "indexed:entry": ("subscript-index", "entry {idx} of {base}", "{base}[{idx}]"),
    # derivatives
    "gradient:score": ("score", "the gradient of {body} with respect to the input {wrt}, not the parameters — "
                       "what diffusion papers call the score", "torch.autograd.grad({body}.sum(), {wrt})"),
    "gradient": ("gradient", "the gradient of {body} with respect to {wrt}: one partial derivative per entry of {wrt} "
                 "— what loss.backward() computes", "{body}.backward(); {wrt}.grad"),
    "derivative:partial": ("partial-derivative", "the partial derivative of {body} with respect to {wrt}: its rate of "
                           "change when only {wrt} changes", "torch.autograd.grad({body}, {wrt})"),
    "derivative": (None, "the derivative of {body} with respect to {wrt}", "torch.autograd.grad({body}, {wrt})"),
    # relations
    "rel:=:free-index": ("index-scope", "{lhs} equals {rhs}, one equation per {free}: the reduction's index is bound "
                         "to it, {free} names an output entry", "{lhs} = {rhs}  # for every {free}"),
    "rel:\\leftarrow:descent": ("gradient-descent", "a gradient-descent step: {lhs} is replaced by {rhs}",
                                "{lhs} = {rhs}"),
    "rel:\\sim:iid": ("iid", "each {lhs} is drawn independently from the same distribution {rhs}",
                      "rng.choice(outcomes, size=N, p={rhs})"),
    "rel:\\sim:data": ("sample-from-data", "{lhs} is a saved example drawn from the dataset {rhs}",
                       "for {lhs_items} in {rhs}: ..."),
    "rel:\\in:shape": ("vector-space", "{lhs} is a real array of shape [{dims}] (a shape statement)",
                       "{lhs}.shape == ({dims},)"),
    "rel:\\in:interval": ("open-interval-or-pair", "{lhs} lies in the interval {rhs}",
                          "{low} {lop} {lhs} {hop} {high}"),
    "rel": (None, "{chain}", "{code_chain}"),
    # brackets and sets
    "interval:closed": ("closed-interval", "the interval from {a} to {b}, including both ends", "{a} <= x <= {b}"),
    "interval:open": ("open-interval-or-pair", "the open interval strictly between {a} and {b}", "{a} < x < {b}"),
    "interval": ("closed-interval", "the interval from {a} to {b} ({ends})", "{a} {lop} x {hop} {b}"),
    "tuple:2": ("open-interval-or-pair", "the pair ({a}, {b}) — or, if something is said to belong to it, the open "
                "interval between {a} and {b}", "({a}, {b})  # or: {a} < x < {b}"),
    "tuple": ("tuple", "the ordered list ({items})", "np.array([{items}])"),
    "set": ("set-braces", "the set {{{items}}}: order and repetition do not matter", "{{{items}}}"),
    "setbuilder": ("set-builder", "the members {element} that satisfy {cond}", "{{x for x in S if {cond}}}"),
}
TEMPLATES.update({f"{_SPEC_KEYS[spec.node]}:{spec.op}": (spec.explain.notation, spec.explain.meaning, spec.explain.code)
                  for spec in O.SPECS if spec.explain is not None})


# --- plain text and code forms of nodes ----------------------------------------------------------------

_BINOP_TEXT = O.strings(O.BINOP, "symbol")
_BINOP_CODE = O.strings(O.BINOP, "python")
_UNARY_TEXT = O.strings(O.UNARY, "symbol")
_UNARY_CODE = O.strings(O.UNARY, "python")
_REL_TEXT = O.strings(O.RELATION, "symbol")
_REL_CODE = O.strings(O.RELATION, "python")
_REDUCTION_TEXT = O.strings(O.REDUCTION, "symbol")
_SPECIAL_SYMBOLS = {"\\ell": "ℓ", "\\infty": "∞", "\\cdot": "·", "\\emptyset": "∅", "\\varnothing": "∅",
                    "\\nabla": "∇", "\\partial": "∂", "\\top": "⊤", "\\dagger": "†", "\\ast": "∗", "\\star": "⋆"}
_SPECIAL_CODE = {"\\infty": "np.inf", "\\cdot": "_", "\\ell": "ell", "\\emptyset": "set()"}
_BB_TEXT = {"R": "ℝ", "N": "ℕ", "Z": "ℤ", "E": "E", "1": "𝟙", "P": "P", "Q": "ℚ", "I": "𝕀"}
_ACCENT_MARK = {"hat": "\u0302", "tilde": "\u0303", "bar": "\u0304", "dot": "\u0307", "ddot": "\u0308",
                "vec": "\u20d7", "check": "\u030c"}
_ACCENT_ENTRY = {"hat": "\\hat", "tilde": "\\tilde", "bar": "\\bar"}
_PROBABILITY_NAMES = frozenset({"p", "P", "q", "\\Pr", "Pr"})
_EVENT_PROBABILITY = frozenset({"P", "\\Pr", "Pr"})
_LONG = 30  # a step's result longer than this is referred to as [n] inside later steps
_LONG_CODE = 24


@lru_cache(maxsize=1)
def _greek_unicode() -> dict[str, str]:
    return {letter.latex: letter.unicode for letter in load_greek()}


@lru_cache(maxsize=1)
def _greek_by_latex():
    return {letter.latex: letter for letter in load_greek()}


@lru_cache(maxsize=1)
def _patterns() -> dict[A.Node, tuple[NotationEntry, ...]]:
    """Every dictionary entry's example form, parsed: a sub-expression equal to it reads as the entry."""
    index: dict[A.Node, list[NotationEntry]] = {}
    for entry in load_notation():
        try:
            tree = normalize(parse(entry.pattern).tree)
        except MathParseError:  # an example form the parser cannot read is matched by templates only
            continue
        index.setdefault(tree, []).append(entry)
    return {tree: tuple(entries) for tree, entries in index.items()}


def _symbol_key(sym: A.Symbol) -> str:
    """The name a function symbol is looked up under: `\\log`, `softmax`, `\\mathcal{N}`, `p`."""
    if sym.font in ("op", "rm", "sf", "it", "tt"):
        return sym.name.lstrip("\\") if sym.name.startswith("\\") else sym.name
    if sym.font in ("cal", "bb", "bf", "scr", "frak"):
        macro = {"cal": "mathcal", "bb": "mathbb", "bf": "mathbf", "scr": "mathscr", "frak": "mathfrak"}[sym.font]
        return f"\\{macro}{{{sym.name}}}"
    return sym.name


# Function names → the template family they use (data: add a name here to teach `explain` a function).
FUNCTION_FAMILIES: dict[str, str] = {
    "\\log": "log", "log": "log", "\\ln": "log", "ln": "log", "\\exp": "exp", "exp": "exp", "\\sigma": "sigma",
    "sigmoid": "sigma", "softmax": "softmax", "Softmax": "softmax", "\\max": "max", "max": "max", "\\min": "min",
    "min": "min", "sg": "sg", "stopgrad": "sg", "Var": "var", "\\mathbb{V}": "var", "\\mathcal{N}": "gauss",
    "H": "entropy", "\\mathrm{H}": "entropy", "std": "std", "\\operatorname{std}": "std", "mean": "mean",
    "\\operatorname{mean}": "mean", "clip": "clip", "Topk": "topk", "TopK": "topk", "topk": "topk",
}


def _is(node: A.Node | None, cls: type) -> bool:
    return isinstance(node, cls)


def _symbol_named(node: A.Node | None, *names: str) -> bool:
    return isinstance(node, A.Symbol) and node.name in names


class _Reader:
    """Walks one tree inside out and builds the steps; holds the [n] references of earlier steps."""

    def __init__(self, tree: A.Node) -> None:
        self.tree = tree
        self.steps: list[ExplainStep] = []
        self.ref: dict[int, int] = {}          # id(node) -> step number
        self.step_code: dict[int, str] = {}    # id(node) -> code expression of its step
        self.shallow = False
        self.by_value: dict[A.Node, int] = {}
        self.step_code_by_number: dict[int, str] = {}
        self.bound: set[str] = set()
        # text and code of a node are asked for again and again (a root checks its body's text, then shows
        # it): memoised per state, so a deep tree costs linear work, not 2^depth
        self._texts: dict[tuple, str] = {}
        self._codes: dict[tuple, str] = {}
        self.bound = {self.code(v) for node in A.walk(tree) if isinstance(node, A.Reduction)
                      for v in node.variables}
        self.patterns = _patterns()

    # ---- plain text ----
    def text(self, node: A.Node | None, top: bool = False) -> str:
        """`node` in plain Unicode; an earlier step's long result becomes `σ([13])` or `[14]`."""
        if node is None:
            return ""
        key = (id(node), top, self.shallow, len(self.ref))
        found = self._texts.get(key)
        if found is None:
            found = self._texts[key] = self._text(node, top)
        return found

    def _text(self, node: A.Node, top: bool) -> str:
        number = self.ref.get(id(node))
        if number is not None and not top:
            if self.shallow:
                return f"[{number}]"
            full = self.text(node, top=True)
            if len(full) <= _LONG:
                return full
            if not isinstance(node, A.Apply):
                return f"[{number}]"
            self.shallow = True
            try:
                short = self.text(node, top=True)
            finally:
                self.shallow = False
            # `σ([13])` says more than `[14]`; `[3] [5]` does not
            informative = re.search(r"[^\W\d_]", re.sub(r"\[\d+\]", "", short))
            return short if len(short) <= _LONG and informative else f"[{number}]"
        return _TEXT.get(type(node), _text_fallback)(self, node)

    # ---- code ----
    def code(self, node: A.Node | None) -> str:
        if node is None:
            return ""
        key = (id(node), len(self.step_code), len(self.bound))
        found = self._codes.get(key)
        if found is None:
            found = self._codes[key] = self._code(node)
        return found

    def _code(self, node: A.Node) -> str:
        if id(node) in self.step_code:
            full = self.step_code[id(node)]
            return full if len(full) <= _LONG_CODE else f"[{self.ref[id(node)]}]"
        return _CODE.get(type(node), _code_fallback)(self, node)

    # ---- steps ----
    def visit(self, node: A.Node) -> None:
        earlier = self.by_value.get(node)
        if earlier is not None:  # the same sub-expression again (|o_i| in a limit and a factor): one step
            self.ref[id(node)] = earlier
            self.step_code[id(node)] = self.step_code_by_number[earlier]
            return
        for child in _visited_children(node):
            self.visit(child)
        if isinstance(node, (A.Group,)):
            return
        exact = self.patterns.get(node, ())
        atom = _is_atom(node)
        if atom and not (exact and node is self.tree):
            return
        key = None if exact else _key(self, node)
        if not exact and key is None:
            return
        text = self.text(node, top=True)
        if exact:
            reading, code = exact[0].reading, exact[0].code
            notation = tuple(entry.id for entry in exact)
            also = tuple(entry.reading for entry in exact[1:])
        else:
            entry_id, reading_t, code_t = TEMPLATES[key]
            texts, codes = self.parts(node)
            reading = _fill(reading_t, texts)
            code = _fill(_code_template(code_t), {k: _Code(v) for k, v in codes.items()})
            notation = (entry_id,) if entry_id else ()
            notation += _extra_notation(self, node)
            also = ()
        number = len(self.steps) + 1
        self.steps.append(ExplainStep(f"step:{number}", to_latex(node), text, reading, code, notation, also))
        self.ref[id(node)] = number
        # inside a later step, a step's code is its value: no comment, and the last of `a; b` statements
        self.step_code[id(node)] = self.step_code_by_number[number] = code.split("  #")[0].split("; ")[-1].strip()
        self.by_value[node] = number

    def parts(self, node: A.Node) -> tuple[dict[str, str], dict[str, str]]:
        named = _PARTS.get(type(node), lambda r, n: {})(self, node)
        texts, codes = {}, {}
        for name, value in named.items():
            if isinstance(value, tuple):  # (text, code) given directly
                texts[name], codes[name] = value
            elif isinstance(value, list):
                texts[name] = ", ".join(self.text(v) for v in value)
                codes[name] = ", ".join(self.code(v) for v in value)
            else:
                texts[name], codes[name] = self.text(value), self.code(value)
        return texts, codes


def _fill(template: str, values: dict[str, str]) -> str:
    return template.format_map(_Default(values))


@lru_cache(maxsize=None)
def _code_template(template: str) -> str:
    """Mark the operands that Python's precedence needs parenthesized when they are compound: the object of
    `.method()` and `**` (`{x:p}`: any operator), the operands of `* / @` and the right of `-` (`{x:s}`: + or -)."""
    template = re.sub(r"\{(\w+)\}(?=\.\w|\s\*\*)", r"{\1:p}", template)
    template = re.sub(r"\{(\w+)\}(?=\s[*/@]\s)", r"{\1:s}", template)
    template = re.sub(r"(?<=\s[*/@-]\s)\{(\w+)\}", r"{\1:s}", template)
    template = re.sub(r"(?<=\s/\s)\{(\w+):s\}", r"{\1:p}", template)  # a / (b * c)
    return re.sub(r"(?<=[(\s]-)\{(\w+)\}|^-\{(\w+)\}", lambda m: "-{" + (m.group(1) or m.group(2)) + ":s}", template)


class _Code(str):
    """A code operand that parenthesizes itself on request (see `_code_template`)."""

    def __format__(self, spec: str) -> str:
        text = str(self)
        if spec == "p" and _top_level(text, (" ",)):
            return f"({text})"
        if spec == "s" and _top_level(text, (" + ", " - ", " if ", " and ", " or ")):
            return f"({text})"
        return text


def _top_level(text: str, needles: tuple[str, ...]) -> bool:
    """True when one of `needles` occurs outside brackets in `text`."""
    depth = 0
    for i, char in enumerate(text):
        depth += (char in "([{") - (char in ")]}")
        if depth == 0 and any(text.startswith(n, i) for n in needles):
            return True
    return False


class _Default(dict):
    """A missing operand reads as "…"; as a `_Code` it also takes the code templates' `:p`/`:s` marks."""

    def __missing__(self, key: str) -> str:
        return _Code("…")


def _visited_children(node: A.Node) -> list[A.Node]:
    """Children that get steps of their own: a reduction's scripts are read with the reduction, except its
    limits, set, distribution and condition (which may be expressions: |o_i|, P(Q))."""
    if isinstance(node, A.Reduction):
        # the body first, then how the samples are drawn (`q ∼ P(Q)`, `{o_i} ∼ π_old(O|q)`: dictionary notations),
        # then the limits; the variables themselves are read with the reduction
        # (`x ∼ p` between two names says nothing the expectation's own line does not)
        return [c for c in (node.lower, node.upper, node.domain, node.condition, node.body) if c is not None] + \
            [rel for rel in _sampling_relations(node) if not all(_is_atom(o) for o in rel.operands)]
    if isinstance(node, A.Relation) and node.ops == ("\\sim",):  # what is sampled is read with the relation
        return [node.operands[1]]
    if isinstance(node, A.Indexed):  # `<t` in x_{<t} is read with the subscript
        return [node.base] + [i for i in node.indices if not _is_prefix(i)]
    if isinstance(node, (A.Indicator, A.SetBuilder)):  # a condition is a test, read with its indicator or set
        condition = node.condition
        inside = list(A.children(condition)) if isinstance(condition, A.Relation) else [condition]
        if isinstance(node, A.SetBuilder):
            element = node.element
            inside = (list(A.children(element)) if isinstance(element, A.Relation) else [element]) + inside
        return inside
    return list(A.children(node))


def _sampling_relations(node: A.Reduction) -> list[A.Relation]:
    """The `x ∼ p` relations in an expectation's under-script."""
    if node.op != "E" or node.under is None:
        return []
    items = node.under.items if isinstance(node.under, A.Sequence) else (node.under,)
    return [i for i in items if isinstance(i, A.Relation) and i.ops == ("\\sim",)]


def _is_prefix(node: A.Node) -> TypeGuard[A.Relation]:
    return isinstance(node, A.Relation) and isinstance(node.operands[0], A.Empty)


def _is_atom(node: A.Node) -> bool:
    """Symbols, numbers and plainly indexed symbols need no step of their own."""
    if isinstance(node, (A.Symbol, A.Number, A.Text, A.Ellipsis_, A.Empty, A.Opaque, A.Sequence, A.Rows,
                         A.Annotated, A.Labeled, A.Primed)):
        return True
    if isinstance(node, A.Indexed):
        return isinstance(node.base, A.Symbol) and all(isinstance(i, (A.Symbol, A.Number)) for i in node.indices)
    return False


# ---- keys: which template a node uses (most specific first, falling back along the key's prefix) ----

def _key(reader: _Reader, node: A.Node) -> str | None:
    finder = _KEYS.get(type(node))
    if finder is None:
        return None
    key: str | None = finder(reader, node)
    while key is not None and key not in TEMPLATES:
        key = key.rsplit(":", 1)[0] if ":" in key else None
    return key


def _key_reduction(reader: _Reader, node: A.Reduction) -> str:
    if node.op == "E":
        if node.distribution is not None:
            return "reduce:E:dist"
        return "reduce:E:sub" if node.variables else "reduce:E"
    if node.op == "sum" and isinstance(node.body, A.Indicator):
        return "reduce:sum:indicator"
    if node.op in ("sum", "prod", "int") and node.lower is not None and node.upper is not None:
        return f"reduce:{node.op}:limits"
    if node.op == "sum" and node.domain is not None:
        return "reduce:sum:domain"
    return f"reduce:{node.op}"


def _function_family(func: A.Node) -> str | None:
    if not isinstance(func, A.Symbol):
        return None
    return FUNCTION_FAMILIES.get(_symbol_key(func))


def _key_apply(reader: _Reader, node: A.Apply) -> str:
    func = node.func
    name = _symbol_key(func) if isinstance(func, A.Symbol) else ""
    if node.given:
        if node.args and _symbol_named(node.args[0], "\\cdot"):
            return "apply:cond:dot"
        if node.params:
            return "apply:cond:params"
        if name in _EVENT_PROBABILITY:
            return "apply:cond:event"
        if _symbol_named(func, "\\pi"):
            return "apply:cond:policy"
        return "apply:cond"
    family = _function_family(func)
    arg = node.args[0] if len(node.args) == 1 else None
    if family == "log":
        if isinstance(arg, A.Frac):
            return "apply:log:ratio"
        if isinstance(arg, A.Apply) and _function_family(arg.func) == "sigma":
            return "apply:log:sigmoid"
        if isinstance(arg, A.Reduction) and arg.op == "sum" and isinstance(arg.body, A.Power) \
                and _symbol_named(arg.body.base, "e"):
            return "apply:log:sumexp"
        if isinstance(arg, A.Apply) and isinstance(arg.func, A.Symbol) and \
                (_symbol_key(arg.func) in _PROBABILITY_NAMES or _symbol_named(arg.func, "\\pi") or arg.given):
            return "apply:log:prob"
        return "apply:log"
    if family == "gauss":
        if len(node.args) == 2 and _symbol_named(node.args[1], "\\Sigma"):
            return "apply:gauss:cov"
        if len(node.args) == 2 and isinstance(node.args[0], A.Number) and _symbol_named(node.args[1], "I"):
            return "apply:gauss:std"
        return "apply:gauss"
    if family == "entropy":
        return f"apply:entropy:{len(node.args)}"
    if family is not None:
        return f"apply:{family}"
    if name in _PROBABILITY_NAMES:
        if arg is not None and isinstance(arg, A.BinOp) and arg.op == "\\cap":
            return "apply:prob:and"
        return "apply:prob"
    return "apply:named" if node.certainty in ("known", "declared", "place") else "apply"


def _key_product(reader: _Reader, node: A.Product) -> str:
    factors = node.factors
    if len(factors) == 2:
        first, second = factors
        if isinstance(first, A.Frac) and isinstance(second, A.Reduction) and second.op == "sum":
            counts_terms = second.upper == first.den and isinstance(second.lower, A.Number) and \
                second.lower.value == "1"
            return "product:mean" if counts_terms else "product:normalized"
        if isinstance(first, A.Transpose) or isinstance(second, A.Transpose):
            if any(_matrix_like(f) for f in factors):
                return "product:matrix"
            return "product:dot" if isinstance(first, A.Transpose) else "product:outer"
    if isinstance(factors[0], A.Number) or (isinstance(factors[0], A.Symbol) and factors[0].name.startswith("\\")
                                            and factors[0].name[1:2].islower()):
        return "product:scalar" if len(factors) == 2 else "product"
    if all(isinstance(f, A.Symbol) and len(f.name) == 1 and f.name.isupper() for f in factors):
        return "product:matrix"
    return "product"


def _key_relation(reader: _Reader, node: A.Relation) -> str:
    if len(node.ops) != 1:
        return "rel"
    op = node.ops[0]
    lhs, rhs = node.operands
    if op == "\\sim":
        note = node.notes[0] if node.notes else None
        if isinstance(note, A.Text) and "iid" in note.text.replace(".", "").lower():
            return "rel:\\sim:iid"
        if isinstance(lhs, A.Tuple) and isinstance(rhs, A.Symbol) and rhs.font == "cal":
            return "rel:\\sim:data"
    if op == "\\in":
        if isinstance(rhs, A.Power) and isinstance(rhs.base, A.Symbol) and rhs.base.font == "bb" and \
                rhs.base.name == "R":
            return "rel:\\in:shape"
        if isinstance(rhs, (A.Interval, A.Tuple)):
            return "rel:\\in:interval"
    if op == "\\leftarrow" and isinstance(rhs, A.BinOp) and rhs.op == "-" and any(
            isinstance(n, A.Gradient) for n in A.walk(rhs.right)):
        return "rel:\\leftarrow:descent"
    if op == "=" and _free_indices(node):
        return "rel:=:free-index"
    return f"rel:{op}"


def _free_indices(node: A.Relation) -> tuple[str, ...]:
    """Indices on the left-hand side when the right-hand side reduces over other indices (y_i = Σ_j W_ij x_j)."""
    lhs, rhs = node.operands[0], node.operands[-1]
    if not isinstance(lhs, A.Indexed):
        return ()
    reductions = [n for n in A.walk(rhs) if isinstance(n, A.Reduction)]
    if not reductions:
        return ()
    bound = {to_latex(v) for r in reductions for v in r.variables}
    free = tuple(to_latex(i) for i in lhs.indices if isinstance(i, A.Symbol) and to_latex(i) not in bound)
    return free


def _key_power(reader: _Reader, node: A.Power) -> str:
    if _symbol_named(node.base, "e"):
        return "power:e"
    if isinstance(node.base, A.Symbol) and node.base.font == "bb" and node.base.name == "R":
        return "power:reals"
    if isinstance(node.exponent, A.Number) and node.exponent.value == "2":
        return "power:2"
    return "power"


def _key_indexed(reader: _Reader, node: A.Indexed) -> str:
    indices = node.indices
    if len(indices) == 1 and isinstance(indices[0], A.Slice) and indices[0].start is not None:
        return "indexed:range"
    if len(indices) == 1 and isinstance(indices[0], A.Relation) and indices[0].ops == ("<",):
        return "indexed:prefix"
    if len(indices) == 2 and isinstance(indices[1], A.Slice) and indices[1].start is None and indices[1].stop is None:
        return "indexed:row"
    if len(indices) == 2 and _is_prefix(indices[1]):
        return "indexed:row-prefix"
    return "indexed:entry"


def _key_interval(reader: _Reader, node: A.Interval) -> str:
    if node.left_closed and node.right_closed:
        return "interval:closed"
    if not node.left_closed and not node.right_closed:
        return "interval:open"
    return "interval"


_KEYS: dict[type, Callable[[_Reader, Any], str]] = {
    A.Reduction: _key_reduction,
    A.Apply: _key_apply,
    A.Divergence: lambda r, n: "divergence",
    A.Norm: lambda r, n: "norm:order" if n.order is not None else "norm",
    A.Abs: lambda r, n: "abs",
    A.Indicator: lambda r, n: "indicator",
    A.Binom: lambda r, n: "binom",
    A.Factorial: lambda r, n: "factorial",
    A.Frac: lambda r, n: "frac:one" if _is(n.num, A.Number) and n.num.value == "1" else "frac",
    A.BinOp: lambda r, n: f"binop:{n.op}",
    A.UnaryOp: lambda r, n: f"unary:{n.op}",
    A.Product: _key_product,
    A.Power: _key_power,
    A.Transpose: lambda r, n: "transpose",
    A.Inverse: lambda r, n: "inverse",
    A.Root: lambda r, n: "root:index" if n.index is not None else "root",
    A.Indexed: _key_indexed,
    A.Gradient: lambda r, n: "gradient:score" if _symbol_named(n.wrt, "x") else "gradient",
    A.Derivative: lambda r, n: "derivative:partial" if n.kind == "partial" else "derivative",
    A.Relation: _key_relation,
    A.Interval: _key_interval,
    A.Tuple: lambda r, n: "tuple:2" if len(n.items) == 2 else "tuple",
    A.SetLiteral: lambda r, n: "set",
    A.SetBuilder: lambda r, n: "setbuilder",
}


def _extra_notation(reader: _Reader, node: A.Node) -> tuple[str, ...]:
    """Entries a step draws on beyond its template's: the sum's index scope, DPO-style data sampling."""
    extra: list[str] = []
    if isinstance(node, A.Reduction) and node.op == "sum":
        extra.append("sum") if TEMPLATES[_key(reader, node)][0] != "sum" else None
    if isinstance(node, A.Reduction) and node.op == "E" and isinstance(node.distribution, A.Symbol) \
            and node.distribution.font == "cal":
        extra.append("sample-from-data")
    if isinstance(node, A.Apply) and node.given:
        extra.append("conditional-model") if _key(reader, node) != "apply:cond" else None
    if isinstance(node, A.Divergence):
        extra.append("kl-dkl")
    if isinstance(node, A.Relation) and "\\sim" in node.ops and _key(reader, node) != "rel:\\sim":
        extra.append("sample")
    return tuple(e for e in extra if e)


# ---- the parts each kind of node fills its templates with ----

def _parts_reduction(r: _Reader, n: A.Reduction) -> dict:
    variables = list(n.variables)
    vars_text = ", ".join(r.text(v) for v in variables)
    vars_code = ", ".join(r.code(v) for v in variables)
    if len(variables) > 1:
        vars_text, vars_code = f"({vars_text})", f"({vars_code})"
    out = {"body": n.body if n.body is not None else A.Empty(), "vars": (vars_text or "its index", vars_code or "_"),
           "dist": n.distribution, "lower": n.lower, "upper": n.upper, "domain": n.domain,
           "op": (n.op, n.op)}
    relations = _sampling_relations(n)
    if relations:
        said = [f"{r.text(rel.operands[0])} is drawn from {r.text(rel.operands[1])}" if i == 0 else
                f"{r.text(rel.operands[0])} from {r.text(rel.operands[1])}" for i, rel in enumerate(relations)]
        # the code comment is prose: it names the samples as the formula writes them
        told = [f"{r.text(rel.operands[0])} drawn from {r.text(rel.operands[1])}" for rel in relations]
        out["sampling"] = (" and ".join(said), ", ".join(told))
    elif n.distribution is not None:
        out["sampling"] = (f"{vars_text} is drawn from {r.text(n.distribution)}",
                           f"{vars_text} drawn from {r.text(n.distribution)}")
    if isinstance(n.body, A.Indicator):
        out["cond"] = n.body.condition
    elif n.condition is not None:
        out["cond"] = n.condition
    return out


def _parts_apply(r: _Reader, n: A.Apply) -> dict:
    out: dict = {"func": n.func, "args": list(n.args), "given": list(n.given), "params": list(n.params)}
    if n.args:
        out["arg"] = n.args[0]
        out["a"] = n.args[0]
    if len(n.args) > 1:
        out["b"] = n.args[1]
    if len(n.args) > 2:
        out["c"] = n.args[2]
    arg = n.args[0] if n.args else None
    if isinstance(arg, A.Frac):
        out.update(num=arg.num, den=arg.den)
    if isinstance(arg, A.Apply) and arg.args:
        out["inner"] = arg.args[0]
    if isinstance(arg, A.Reduction):
        out["vars"] = list(arg.variables)
        if isinstance(arg.body, A.Power):
            inner = arg.body.exponent
            out["inner"] = inner
            if isinstance(inner, A.Indexed) and tuple(inner.indices) == tuple(arg.variables):
                out["inner"] = (r.text(inner), r.code(inner.base))  # Σ_j e^{s_j}: the vector s
    if isinstance(arg, A.BinOp):
        out.update(inner_left=arg.left, inner_right=arg.right)
    return out


def _parts_product(r: _Reader, n: A.Product) -> dict:
    factors = n.factors
    out: dict = {"all": (" ".join(r.text(f) for f in factors), " * ".join(r.code(f) for f in factors)),
                 "code_mul": ("", _product_code(r, factors)),
                 "code_matmul": ("", " @ ".join(r.code(f) for f in factors)),
                 "a": factors[0], "b": factors[1] if len(factors) == 2 else A.Product(factors[1:])}
    if isinstance(factors[0], A.Transpose):
        out["a"] = factors[0].base
    if len(factors) == 2 and isinstance(factors[1], A.Transpose):
        out["b"] = factors[1].base
    if len(factors) == 2 and isinstance(factors[0], A.Frac) and isinstance(factors[1], A.Reduction):
        total = factors[1]
        out.update(sum=total, den=factors[0].den, body=total.body,
                   vars=(", ".join(r.text(v) for v in total.variables), ", ".join(r.code(v) for v in total.variables)))
    return out


def _product_code(r: _Reader, factors: tuple[A.Node, ...]) -> str:
    """Juxtaposed factors as code: `@` between two matrix-like names (W x, B A), `*` next to a scalar (α/r B)."""
    codes = [format(_Code(r.code(f)), "s") for f in factors]
    out = codes[0]
    for left, right, code in zip(factors, factors[1:], codes[1:]):
        matrix = _matrix_like(right) and (_matrix_like(left) or isinstance(left, A.Product)) or \
            (_matrix_like(left) and not _scalar_like(right))
        out += (" @ " if matrix else " * ") + code
    return out


def _scalar_like(node: A.Node) -> bool:
    """A number, a fraction or a lower-case Greek letter: papers' usual scalars."""
    if isinstance(node, (A.Number, A.Frac)):
        return True
    base = node.base if isinstance(node, A.Indexed) else node
    return isinstance(base, A.Symbol) and base.name.startswith("\\") and base.name[1:2].islower()


def _matrix_like(node: A.Node) -> bool:
    """An upper-case Latin letter (W, Q, K): papers' usual name for a matrix."""
    base = node.base if isinstance(node, (A.Indexed, A.Transpose)) else node
    return isinstance(base, A.Symbol) and len(base.name) == 1 and base.name.isupper()


def _parts_relation(r: _Reader, n: A.Relation) -> dict:
    lhs, rhs = n.operands[0], n.operands[-1]
    chain_text = r.text(n.operands[0])
    chain_code = r.code(n.operands[0])
    for op, operand in zip(n.ops, n.operands[1:]):
        chain_text += f" {_REL_TEXT.get(op, op)} {r.text(operand)}"
        chain_code += f" {_REL_CODE.get(op, op)} {r.code(operand)}"
    out: dict = {"lhs": lhs, "rhs": rhs, "chain": (chain_text, ""), "code_chain": ("", chain_code)}
    free = _free_indices(n) if len(n.ops) == 1 else ()
    if free:
        out["free"] = (", ".join(free), ", ".join(free))
    if isinstance(lhs, A.Tuple):
        out["lhs_items"] = list(lhs.items)
    if isinstance(rhs, A.Power):
        dims = [rhs.exponent]
        if isinstance(rhs.exponent, A.BinOp) and rhs.exponent.op == "\\times":
            dims = _flatten_times(rhs.exponent)
        out["dims"] = (", ".join(r.text(d) for d in dims), ", ".join(r.code(d) for d in dims))
    if isinstance(rhs, A.Interval):
        out.update(low=rhs.lower, high=rhs.upper, lop=("<=" if rhs.left_closed else "<",) * 2,
                   hop=("<=" if rhs.right_closed else "<",) * 2)
    elif isinstance(rhs, A.Tuple) and len(rhs.items) == 2:
        out.update(low=rhs.items[0], high=rhs.items[1], lop=("<", "<"), hop=("<", "<"))
    return out


def _flatten_times(node: A.Node) -> list[A.Node]:
    if isinstance(node, A.BinOp) and node.op == "\\times":
        return _flatten_times(node.left) + _flatten_times(node.right)
    return [node]


def _parts_indexed(r: _Reader, n: A.Indexed) -> dict:
    out: dict = {"base": n.base, "idx": list(n.indices)}
    first = n.indices[0]
    if isinstance(first, A.Slice):
        out.update(start=first.start, stop=first.stop)
        start_code = r.code(first.start)
        minus_one = str(int(start_code) - 1) if start_code.isdigit() else f"{start_code} - 1"
        out["start_minus_one"] = ("", minus_one)
    if isinstance(first, A.Relation):
        out["stop"] = first.operands[-1]
    if len(n.indices) == 2:
        out["row"] = first
        if _is_prefix(n.indices[1]):
            out["stop"] = n.indices[1].operands[-1]
    return out


def _parts_interval(r: _Reader, n: A.Interval) -> dict:
    ends = f"{'including' if n.left_closed else 'excluding'} {r.text(n.lower)}, " \
           f"{'including' if n.right_closed else 'excluding'} {r.text(n.upper)}"
    return {"a": n.lower, "b": n.upper, "ends": (ends, ""), "lop": ("<=" if n.left_closed else "<",) * 2,
            "hop": ("<=" if n.right_closed else "<",) * 2}


_PARTS: dict[type, Callable[[_Reader, Any], dict]] = {
    A.Reduction: _parts_reduction,
    A.Apply: _parts_apply,
    A.Product: _parts_product,
    A.Relation: _parts_relation,
    A.Indexed: _parts_indexed,
    A.Interval: _parts_interval,
    A.Divergence: lambda r, n: {"func": n.func, "left": n.left, "right": n.right},
    A.Norm: lambda r, n: {"body": n.body, "order": n.order},
    A.Abs: lambda r, n: {"body": n.body},
    A.Indicator: lambda r, n: {"cond": n.condition},
    A.Binom: lambda r, n: {"n": n.n, "k": n.k},
    A.Factorial: lambda r, n: {"body": n.body},
    A.Frac: lambda r, n: {"num": n.num, "den": n.den},
    A.BinOp: lambda r, n: {"left": n.left, "right": n.right,
                           "op": (_BINOP_TEXT.get(n.op, n.op), _BINOP_CODE.get(n.op, n.op))},
    A.UnaryOp: lambda r, n: {"operand": n.operand, "op": (_UNARY_TEXT.get(n.op, n.op), _UNARY_CODE.get(n.op, n.op))},
    A.Power: lambda r, n: {"base": n.base, "exp": n.exponent},
    A.Transpose: lambda r, n: {"base": n.base},
    A.Inverse: lambda r, n: {"base": n.base},
    A.Root: lambda r, n: {"body": n.body, "index": n.index},
    A.Gradient: lambda r, n: {"body": n.body, "wrt": n.wrt if n.wrt is not None else ("its variables", "x")},
    A.Derivative: lambda r, n: {"body": n.body if n.body is not None else ("the function", "f"), "wrt": list(n.wrt)},
    A.Tuple: lambda r, n: {"a": n.items[0], "b": n.items[1], "items": list(n.items)},
    A.SetLiteral: lambda r, n: {"items": list(n.items)},
    A.SetBuilder: lambda r, n: {"element": n.element, "cond": n.condition},
}


# ---- plain text per node type ----

def _wrap_script(text: str) -> str:
    return "{" + text + "}" if re.search(r"[\s:,<>=+\-−∼∈|]", text) else text


def _symbol_text(r: _Reader, s: A.Symbol) -> str:
    name = s.name
    if s.font == "bb":
        base = _BB_TEXT.get(name, name)
    elif name.startswith("\\"):
        base = _greek_unicode().get(name) or _SPECIAL_SYMBOLS.get(name) or name[1:]
    else:
        base = name
    for accent in reversed(s.accents):
        base += _ACCENT_MARK.get(accent, "")
    if s.sub_label is not None:
        base += "_" + _wrap_script(r.text(s.sub_label))
    if s.sup_label is not None:
        base += "^" + _wrap_script(r.text(s.sup_label))
    return base + "'" * s.primes + ("*" if s.optimum else "")


def _indexed_text(r: _Reader, n: A.Indexed) -> str:
    parts = [r.text(i) for i in n.indices]
    joined = "".join(parts) if all(len(p) == 1 for p in parts) else ",".join(parts)
    return r.text(n.base) + "_" + _wrap_script(joined)


def _apply_text(r: _Reader, n: A.Apply) -> str:
    func = r.text(n.func) if not isinstance(n.func, A.Empty) else "P"
    inside = ", ".join(r.text(a) for a in n.args)
    if n.given:
        inside += " | " + ", ".join(r.text(g) for g in n.given)
    if n.params:
        inside += "; " + ", ".join(r.text(p) for p in n.params)
    if n.brackets == "" and len(n.args) == 1 and not n.given:
        return f"{func} {inside}" if " " not in inside or _single_call(inside) else f"{func}({inside})"
    open_, close = (n.brackets or "()")[0], (n.brackets or "()")[-1]
    return f"{func}{open_}{inside}{close}"


def _reduction_text(r: _Reader, n: A.Reduction) -> str:
    op = _REDUCTION_TEXT.get(n.op) or r.text(n.operator) or n.op
    if n.under is not None:
        under = r.text(n.under)
        for sign in ("=", "∼", "∈"):
            under = under.replace(f" {sign} ", sign)
        op += "_" + _wrap_script(under)
    if n.over is not None:
        op += "^" + _wrap_script(r.text(n.over))
    body = r.text(n.body) if n.body is not None else ""
    if n.brackets:
        return f"{op}{n.brackets[0]}{body}{n.brackets[-1]}"
    return f"{op} {body}".rstrip()


def _frac_text(r: _Reader, n: A.Frac) -> str:
    num, den = r.text(n.num), r.text(n.den)
    num = f"({num})" if _top_level_sum(num) else num
    den = f"({den})" if _top_level_sum(den) or " " in den and not _bracketed(den) else den
    return f"{num}/{den}" if " " not in num + den else f"{num} / {den}"


def _single_call(text: str) -> bool:
    """`f(a, b | c)`: one application, its parenthesis closing at the end."""
    start = text.find("(")
    if start <= 0 or " " in text[:start]:
        return False
    depth = 0
    for i, char in enumerate(text[start:], start):
        depth += (char == "(") - (char == ")")
        if depth == 0:
            return i == len(text) - 1
    return False


def _top_level_sum(text: str) -> bool:
    """True when `text` has a + or − outside brackets (it needs parentheses as a factor)."""
    depth = 0
    for i, char in enumerate(text):
        depth += char in "([{"
        depth -= char in ")]}"
        if depth == 0 and char in "+−±" and i > 0:
            return True
    return False


def _bracketed(text: str) -> bool:
    return bool(re.fullmatch(r"[^\s(]*\(.*\)", text))


def _simple(text: str) -> bool:
    """No spaces outside its own brackets: `x_0`, `f(a, b)`, `‖x − y‖`, `|o_i|`."""
    for open_, close in (("‖", "‖"), ("|", "|"), ("(", ")"), ("[", "]"), ("{", "}")):
        if len(text) > 1 and text.startswith(open_) and text.endswith(close) and text.count(open_) <= 2:
            return True
    return (" " not in text or _single_call(text)) and not _top_level_sum(text)


def _relation_text(r: _Reader, n: A.Relation) -> str:
    if _is_prefix(n):
        return "".join(f"{_REL_TEXT.get(op, op)}{r.text(o)}" for op, o in zip(n.ops, n.operands[1:]))
    out = r.text(n.operands[0])
    for op, operand in zip(n.ops, n.operands[1:]):
        piece = f"{_REL_TEXT.get(op, op)} {r.text(operand)}"
        out += f" {piece}".rstrip() if out else piece
    return out.strip()


def _power_text(r: _Reader, n: A.Power) -> str:
    base = r.text(n.base)
    base = base if _simple(base) else f"({base})"
    return f"{base}^{_wrap_script(r.text(n.exponent))}"


_TEXT: dict[type, Callable[[_Reader, Any], str]] = {
    A.Symbol: _symbol_text,
    A.Number: lambda r, n: n.value,
    A.Text: lambda r, n: n.text,
    A.Ellipsis_: lambda r, n: "…",
    A.Empty: lambda r, n: "",
    A.Opaque: lambda r, n: n.macro,
    A.Indexed: _indexed_text,
    A.Labeled: lambda r, n: f"{r.text(n.base)}{'_' if n.position == 'sub' else '^'}{_wrap_script(r.text(n.label))}",
    A.Primed: lambda r, n: r.text(n.base) + "'" * n.count,
    A.Power: _power_text,
    A.Transpose: lambda r, n: f"{r.text(n.base)}ᵀ",
    A.Inverse: lambda r, n: f"{r.text(n.base)}⁻¹",
    A.Slice: lambda r, n: f"{r.text(n.start)}:{r.text(n.stop)}",
    A.BinOp: lambda r, n: f"{r.text(n.left)} {_BINOP_TEXT.get(n.op, n.op)} {r.text(n.right)}",
    A.UnaryOp: lambda r, n: f"{_UNARY_TEXT.get(n.op, n.op)}{r.text(n.operand)}",
    A.Product: lambda r, n: " ".join(r.text(f) for f in n.factors),
    A.Apply: _apply_text,
    A.Divergence: lambda r, n: f"{r.text(n.func)}({r.text(n.left)} ‖ {r.text(n.right)})",
    A.Reduction: _reduction_text,
    A.Derivative: lambda r, n: f"∂{r.text(n.body) if n.body is not None else ''}/" + "".join(
        f"∂{r.text(w)}" for w in n.wrt) if n.kind == "partial" else
        f"d{r.text(n.body) if n.body is not None else ''}/" + "".join(f"d{r.text(w)}" for w in n.wrt),
    A.Differential: lambda r, n: f"{'∂' if n.kind == 'partial' else 'd'}{r.text(n.body)}",
    A.Gradient: lambda r, n: f"∇{'_' + _wrap_script(r.text(n.wrt)) if n.wrt is not None else ''} {r.text(n.body)}",
    A.Relation: _relation_text,
    A.Frac: _frac_text,
    A.Root: lambda r, n: ("√" if n.index is None else f"{r.text(n.index)}√") + (
        r.text(n.body) if _simple(r.text(n.body)) else f"({r.text(n.body)})"),
    A.Group: lambda r, n: f"{n.open}{r.text(n.body)}{n.close}",
    A.Tuple: lambda r, n: f"{n.open}{', '.join(r.text(i) for i in n.items)}{n.close}",
    A.Interval: lambda r, n: f"{'[' if n.left_closed else '('}{r.text(n.lower)}, {r.text(n.upper)}"
                             f"{']' if n.right_closed else ')'}",
    A.Concat: lambda r, n: f"[{'; '.join(r.text(i) for i in n.items)}]",
    A.SetLiteral: lambda r, n: "{" + ", ".join(r.text(i) for i in n.items) + "}",
    A.SetBuilder: lambda r, n: "{" + f"{r.text(n.element)} | {r.text(n.condition)}" + "}",
    A.Abs: lambda r, n: f"|{r.text(n.body)}|",
    A.Norm: lambda r, n: f"‖{r.text(n.body)}‖" + (f"_{r.text(n.order)}" if n.order is not None else ""),
    A.Indicator: lambda r, n: f"𝟙[{r.text(n.condition)}]",
    A.Binom: lambda r, n: f"C({r.text(n.n)}, {r.text(n.k)})",
    A.Factorial: lambda r, n: f"{r.text(n.body)}!",
    A.Annotated: lambda r, n: r.text(n.body),
    A.Sequence: lambda r, n: ", ".join(r.text(i) for i in n.items),
    A.Rows: lambda r, n: "; ".join(r.text(i) for i in n.statements),
}


def _text_fallback(r: _Reader, n: A.Node) -> str:
    return to_latex(n)


# ---- code per node type ----

def _identifier(text: str) -> str:
    return re.sub(r"\W+", "_", text).strip("_") or "x"


def _symbol_code(r: _Reader, s: A.Symbol) -> str:
    name = s.name
    if name in _SPECIAL_CODE:
        base = _SPECIAL_CODE[name]
    else:
        base = name.lstrip("\\")
    for accent in s.accents:
        base += f"_{accent}"
    if s.sub_label is not None:
        base += "_" + _identifier(r.code(s.sub_label))
    if s.sup_label is not None:
        label = s.sup_label.body if isinstance(s.sup_label, A.Group) else s.sup_label
        if isinstance(s.sup_label, A.Group):
            base += f"[{r.code(label)}]"
        else:
            base += "_" + _identifier(r.code(label)).lower()
    if s.primes:
        base += "_prime" * s.primes
    if s.optimum:
        base += "_star"
    return base


def _indexed_code(r: _Reader, n: A.Indexed) -> str:
    indices = [r.code(i) for i in n.indices]
    base = r.code(n.base)
    if any(_is_prefix(i) for i in n.indices):  # o_{i,<t}: o[i, :t]
        indices = [f":{r.code(i.operands[-1])}" if _is_prefix(i) else r.code(i) for i in n.indices]
        return f"{base}[{', '.join(indices)}]"
    if any(isinstance(i, A.Number) or r.code(i) in r.bound for i in n.indices) or not isinstance(n.base, A.Symbol) \
            or not base.isidentifier():
        return f"{base}[{', '.join(indices)}]"
    return base + "_" + "".join(_identifier(i) for i in indices)


def _apply_code(r: _Reader, n: A.Apply) -> str:
    return f"{r.code(n.func)}({', '.join(r.code(a) for a in n.args)})"


def _reduction_code(r: _Reader, n: A.Reduction) -> str:
    return f"{n.op}({r.code(n.body)})"


_CODE: dict[type, Callable[[_Reader, Any], str]] = {
    A.Symbol: _symbol_code,
    A.Number: lambda r, n: n.value,
    A.Text: lambda r, n: repr(n.text),
    A.Ellipsis_: lambda r, n: "...",
    A.Empty: lambda r, n: "",
    A.Opaque: lambda r, n: n.macro.lstrip("\\"),
    A.Indexed: _indexed_code,
    A.Group: lambda r, n: f"({r.code(n.body)})",
    A.Apply: _apply_code,
    A.Reduction: _reduction_code,
    A.BinOp: lambda r, n: f"{r.code(n.left)} {_BINOP_CODE.get(n.op, n.op)} {r.code(n.right)}",
    A.UnaryOp: lambda r, n: f"{_UNARY_CODE.get(n.op, n.op)}{r.code(n.operand)}",
    A.Product: lambda r, n: " * ".join(r.code(f) for f in n.factors),
    A.Power: lambda r, n: f"{r.code(n.base)} ** {r.code(n.exponent)}",
    A.Transpose: lambda r, n: f"{r.code(n.base)}.T",
    A.Frac: lambda r, n: f"{r.code(n.num)} / {r.code(n.den)}",
    A.Tuple: lambda r, n: f"({', '.join(r.code(i) for i in n.items)})",
    A.Sequence: lambda r, n: ", ".join(r.code(i) for i in n.items),
    A.SetBuilder: lambda r, n: f"[{r.code(n.element)} for {r.code(n.condition)}]",
    A.Labeled: lambda r, n: r.code(n.base),
    A.Primed: lambda r, n: r.code(n.base) + "_prime" * n.count,
    A.Annotated: lambda r, n: r.code(n.body),
    A.Relation: lambda r, n: " ".join([r.code(n.operands[0])] + [f"{_REL_CODE.get(op, op)} {r.code(o)}"
                                                                 for op, o in zip(n.ops, n.operands[1:])]),
}


def _code_fallback(r: _Reader, n: A.Node) -> str:
    return _identifier(r.text(n))


# --- symbols --------------------------------------------------------------------------------------------

def _symbol_lookups(sym: A.Symbol) -> list[str]:
    """Dictionary lookups for a symbol: its macro or font form, its marks and its labels."""
    keys: list[str] = []
    if sym.name.startswith("\\") or sym.font in ("cal", "bb"):
        keys.append(_symbol_key(A.Symbol(sym.name, sym.font)))
    if sym.font == "bf":
        keys.append("\\mathbf")
    keys += [_ACCENT_ENTRY[a] for a in sym.accents if a in _ACCENT_ENTRY]
    if sym.optimum:
        keys.append("^*")
    if sym.primes:
        keys.append("'")
    if sym.sup_label is not None:
        keys.append("^{(" if isinstance(sym.sup_label, A.Group) else "^{")
    return keys


def _symbol_notes(reader: _Reader, tree: A.Node) -> list[SymbolNote]:
    operators = {id(n.func) for n in A.walk(tree) if isinstance(n, (A.Apply, A.Divergence))}
    operators |= {id(n.operator) for n in A.walk(tree) if isinstance(n, A.Reduction)}
    operators |= {id(n.symbol) for n in A.walk(tree) if isinstance(n, A.Indicator)}
    notes: dict[str, SymbolNote] = {}
    seen: set[tuple[str, tuple[str, ...]]] = set()
    for node in A.walk(tree):
        if not isinstance(node, A.Symbol) or id(node) in operators or node.name == "\\cdot":
            continue  # a `·` in an argument slot is a placeholder: the whole-distribution step says so
        text = reader.text(node)
        if text in notes or (node.name, tuple(_symbol_lookups(node))) in seen:
            continue
        seen.add((node.name, tuple(_symbol_lookups(node))))
        meanings, ids, sources = [], [], []
        exact = reader.patterns.get(node, ())
        entries = list(exact) or [e for e in (conventional_meaning(k) for k in _symbol_lookups(node)) if e]
        for entry in entries:
            if entry.id not in ids:
                ids.append(entry.id)
                meanings.append(entry.reading)
        sources += ["notation dictionary"] if ids else []
        letter = _greek_by_latex().get(node.name) if node.font is None and node.name.startswith("\\") else None
        if letter is not None and node.accents == () and node.sup_label is None and not node.optimum:
            meanings = ["; or ".join(letter.meanings[:2])]  # the Greek reference is the richer of the two
            sources.append("Greek-letter reference")
        if meanings:
            notes[text] = SymbolNote(to_latex(node), text, " — ".join(meanings), tuple(ids), " + ".join(sources))
    return list(notes.values())


def _symbol_warnings(notes: Iterable[SymbolNote]) -> list[NotationWarning]:
    out = []
    for note in notes:
        for entry_id in note.notation:
            warning = notation_entry(entry_id).warning
            if warning:
                out.append(NotationWarning(entry_id, note.text, warning))
    for note in notes:
        letter = _greek_by_latex().get(note.latex)
        if letter is not None and letter.warning and not note.notation:
            out.append(NotationWarning(f"greek:{letter.name}", note.text, letter.warning))
    return out


# --- entry point ----------------------------------------------------------------------------------------

def normalize(node: A.Node) -> A.Node:
    """Undo a parser reading that `explain` should not show: bars in a script, `\\sum_{t=1}^{|o_i|}`, can come
    back as the relation `() | o_i | ()`; it is the length |o_i|."""
    return A.rewrite(node, _length_bars)


def _length_bars(node: A.Node) -> A.Node | None:
    if isinstance(node, A.Relation) and node.ops == ("\\mid", "\\mid") and isinstance(node.operands[0], A.Empty) \
            and isinstance(node.operands[2], A.Empty):
        return A.Abs(normalize(node.operands[1]), span=node.span)
    return None


def explain(latex: str, *, functions: frozenset[str] = frozenset()) -> Explanation:
    """Read `latex` inside out. Raises `MathParseError` when the formula cannot be parsed."""
    result = parse(latex, functions=functions)
    tree = normalize(result.tree)
    if isinstance(tree, A.Empty):
        raise MathParseError("nothing to explain: the formula is empty"
                             + "".join(f"; {w}" for w in result.warnings if "empty formula" not in w), latex, 0)
    reader = _Reader(tree)
    reader.visit(tree)
    if not reader.steps:  # a lone symbol or number: say what it is
        reader.steps.append(ExplainStep("step:1", to_latex(tree), reader.text(tree, top=True),
                                        read_aloud(tree), _CODE.get(type(tree), _code_fallback)(reader, tree), ()))
    symbols = _symbol_notes(reader, tree)
    warnings: dict[str, NotationWarning] = {}
    for step in reader.steps:
        for entry_id in step.notation:
            caution = notation_entry(entry_id).warning
            if caution and entry_id not in warnings:
                warnings[entry_id] = NotationWarning(entry_id, step.text, caution)
    for warning in _symbol_warnings(symbols):
        warnings.setdefault(warning.notation, warning)
    return Explanation(latex, read_aloud(tree), tuple(reader.steps), tuple(symbols), tuple(warnings.values()),
                       result.warnings)
