"""The notation index: every symbol of a paper, every place it is written, and what the paper says it is.

    from papermath.analysis.notation_index import build_index
    index = build_index(doc)                       # parses every formula of the paper once
    index.parse("eq:14")                           # the equation's tree, decided with the paper's evidence
    index.occurrences(r"\\pi_{\\theta}")           # every place the symbol is written (display, inline, …)
    index.entry(r"\\epsilon_{\\theta}").evidence   # what says it is a function (or not), with where

Formulas indexed: display equations, inline math of paragraphs, and `$…$` inside captions, table cells and
algorithm lines. Each is parsed once with `papermath.math.parse_raw`; the index collects from every tree
what formulas show about their symbols (`evidence.Notation.add_tree`: comma arguments, conditional bars,
definitions `f(x) = …`, `f: X \\to Y`, `\\sim`, shapes `\\in \\mathbb R^{…}`, sum limits, superscripts per base)
and from the sentence around each inline formula what the prose says ("$u_t^\\theta$ is a neural network",
"the policy $\\pi$", "the number of steps $T$", "for agent 1"), then `parse(formula_id)` resolves the
formula's open places with all of it (`papermath.math.resolve_result`).

Symbol identity: `evidence.identity` (the symbol as `to_latex` prints it, indices dropped, labels kept;
the paper's macros are already expanded by the document model) and `evidence.family` (labels dropped too).
Keys come from the parser's first reading, before labels are decided: `x_0^w` is indexed under the family
`x` with the superscript `w` counted (see `SymbolEntry.superscripts`).

API (stable; later versions only add): `build_index(doc)`, `NotationIndex.parse(formula_id)`,
`.parse_latex(latex)`, `.formulas` (id → `IndexedFormula`), `.occurrences(key)`, `.entry(key)`,
`.entries` (key → `SymbolEntry`), `.keys()`; `Occurrence` and `SymbolEntry` below.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Iterable, Iterator, Optional

from ..errors import MathParseError
from ..latex.document import Document
from ..math import ParseResult, ast, parse_raw, resolve_result
from ..math.evidence import (FUNCTION, LABEL, NOT_FUNCTION, Evidence, Notation, base_symbol, family, identity,
                             letter_run)
from ..spans import Position

INLINE = re.compile(r"(?<!\\)\$(?!\$)(.+?)(?<!\\)\$", re.S)

# Nouns that say a symbol is a function when the prose names it (`the policy $\pi$`, `$f$ is a network`).
FUNCTION_NOUNS = frozenset("""
network networks net model models function functions policy policies mapping map maps kernel kernels
operator operators encoder decoder encoders decoders distribution distributions density densities
estimator classifier critic discriminator generator predictor field transform transformation
projection projector layer head embedding router gate score likelihood posterior prior denoiser
approximator parameterization parametrization
""".split())
# Nouns that say it is a number, vector or matrix (`the number of steps $T$`, `a matrix $W$`).
QUANTITY_NOUNS = frozenset("""
number numbers steps step count size dimension dimensionality length width depth rate coefficient
coefficients scalar scalars constant constants temperature hyperparameter hyperparameters matrix matrices
vector vectors tensor tensors weight horizon budget batch
state states moment moments variance variances bias biases offset offsets threshold margin
logit logits activation activations
""".split())
# Words that say superscripts are names, not exponents (`agent 1`, `the $l$-th layer`, `winner`).
LABEL_WORDS = frozenset("""
agent agents player players layer layers head heads winner loser winning losing preferred dispreferred
rejected chosen patch patches block blocks modality iteration iterate round stage expert experts client
clients party teacher student view views level levels scale scales depth
""".split())
_ARRAY_NOUNS = frozenset("vector vectors tensor tensors".split())
SIZE_NOUNS = frozenset("dimension dimensions dimensionality size number count length width depth".split())
"""Nouns that say a symbol is a size (`keys of dimension $d_k$`): its subscript names what it measures."""
PARAMETER_NOUNS = frozenset("parameter parameters".split())
"""Nouns that say a symbol is a (learnable) parameter: as a subscript it names what it parameterises."""
_SCRIPT_WORDS = frozenset("superscript superscripts subscript subscripts".split())
_COPULA = frozenset("is are be denotes denote represents represent as being refers".split())
_ARTICLES = frozenset("a an the our this that some any each its their".split())


@dataclass(frozen=True)
class Occurrence:
    """One place a symbol is written."""

    key: str
    """The symbol's identity (indices dropped, labels kept), as the parser first read it."""
    family: str
    """The symbol without labels (`\\pi` for `\\pi_\\theta`)."""
    formula: str
    """Id of the formula it stands in (`eq:14`, `inline:37`, `caption:fig:2:0`, `alg:1:4:0`)."""
    context: str
    """display, inline, caption, table or algorithm."""
    span: ast.Span
    """Where in the formula's LaTeX."""
    position: Optional[Position]
    """Where the formula starts in the original source (file:line:column), when known."""
    sentence: Optional[str]
    """The sentence the formula stands in (for a display: the last sentence before it)."""
    applied: bool = False
    """True when written as a function applied to brackets here (`f(x)`)."""


@dataclass
class SymbolEntry:
    """Everything the index knows about one key."""

    key: str
    occurrences: list[Occurrence] = field(default_factory=list)
    evidence: list[Evidence] = field(default_factory=list)
    superscripts: dict[str, int] = field(default_factory=dict)
    """Superscripts written on this base (for a family key): value → count."""


@dataclass(frozen=True)
class IndexedFormula:
    """One formula of the paper, parsed once."""

    id: str
    latex: str
    context: str
    position: Optional[Position]
    sentence: Optional[str]
    raw: Optional[ParseResult]
    """The parser's reading before decisions (None when the formula does not parse)."""
    error: Optional[str] = None


class NotationIndex(Notation):
    """A paper's notation: formulas parsed once, symbols with occurrences and evidence, decisions on demand."""

    strength = "paper"
    where = "the paper"

    def __init__(self, doc: Document, functions: Iterable[str] = ()) -> None:
        super().__init__(functions)
        self.doc = doc
        self.formulas: dict[str, IndexedFormula] = {}
        self.entries: dict[str, SymbolEntry] = {}
        self._resolved: dict[str, ParseResult] = {}

    # --- reading ---------------------------------------------------------------------------------------
    def parse(self, formula_id: str) -> ParseResult:
        """The formula's tree with every open place decided from the paper's evidence (cached)."""
        if formula_id not in self._resolved:
            record = self.formulas[formula_id]
            if record.raw is None:
                raise MathParseError(record.error or "formula does not parse", record.latex, 0)
            self._resolved[formula_id] = resolve_result(record.raw, self)
        return self._resolved[formula_id]

    def parse_latex(self, latex: str) -> ParseResult:
        """A formula given as LaTeX (one of the paper's, or a reader's), decided with the paper's evidence."""
        for record in self.formulas.values():
            if record.latex == latex and record.raw is not None:
                return self.parse(record.id)
        return resolve_result(parse_raw(latex, functions=self.declared), self)

    def occurrences(self, key: str) -> list[Occurrence]:
        entry = self.entries.get(key)
        return list(entry.occurrences) if entry else []

    def entry(self, key: str) -> Optional[SymbolEntry]:
        return self.entries.get(key)

    def keys(self) -> Iterator[str]:
        return iter(self.entries)

    # --- building ----------------------------------------------------------------------------------------
    def _entry(self, key: str) -> SymbolEntry:
        if key not in self.entries:
            self.entries[key] = SymbolEntry(key)
        return self.entries[key]

    def add(self, key: Optional[str], evidence: Evidence) -> None:
        super().add(key, evidence)
        if key is not None:
            self._entry(key).evidence.append(evidence)

    def add_formula(self, formula_id: str, latex: str, context: str, position: Optional[Position],
                    sentence: Optional[str]) -> None:
        try:
            raw = parse_raw(latex, functions=self.declared)
        except MathParseError as error:
            self.formulas[formula_id] = IndexedFormula(formula_id, latex, context, position, sentence, None,
                                                       error.message)
            return
        record = IndexedFormula(formula_id, latex, context, position, sentence, raw)
        self.formulas[formula_id] = record
        where = str(position) if position is not None else formula_id
        self.add_tree(raw.tree, latex, where, "paper")
        self._occurrences(record)
        if sentence and context != "display":
            self._prose(record, sentence, where)
        word = letter_run(raw.tree)
        if word is not None and context != "display":
            # `where $pos$ is the position`: letters the prose writes alone are one name
            self.names[word].append(Evidence("name", "written alone in the prose", f"${latex}$", where, "paper"))

    def _occurrences(self, record: IndexedFormula) -> None:
        assert record.raw is not None
        applied: set[int] = set()
        for node in ast.walk(record.raw.tree):
            if isinstance(node, ast.Apply):
                applied.add(id(base_symbol(node.func)))
        for node in ast.walk(record.raw.tree):
            if not isinstance(node, (ast.Symbol, ast.Text)) or isinstance(node, ast.Text) and id(node) not in applied:
                continue
            key, fam = identity(node), family(node)
            if key is None or fam is None:
                continue
            occ = Occurrence(key, fam, record.id, record.context, node.span, record.position, record.sentence,
                             id(node) in applied)
            self._entry(key).occurrences.append(occ)
            if fam != key:
                self._entry(fam).occurrences.append(occ)

    def finish(self) -> None:
        """Copy what was counted per family into the entries (after the last formula is added)."""
        for fam_key, facts in self.facts.items():
            if facts.sups:
                self._entry(fam_key).superscripts = dict(facts.sups)

    def _parameters(self, subjects: list[ast.Node], evidence: Evidence) -> None:
        """`with $k_j$ being a learnable parameter`: the subjects are parameters (see Notation.parameters)."""
        for fam in _subject_families(subjects):
            self.parameters.setdefault(fam, evidence)

    def _size(self, tree: ast.Node, evidence: Evidence) -> None:
        """"queries and keys of dimension $d_k$", "$n_h$ denote the number of heads": the one subscripted size the
        formula writes (alone or defined) is named by its subscript (Notation.dimensions); a list the sentence
        measures (`length $(z_1, ..., z_n)$`) names no size."""
        node = tree.operands[0] if isinstance(tree, ast.Relation) else tree
        if isinstance(node, ast.Indexed) and len(node.indices) == 1 and isinstance(node.indices[0], ast.Symbol):
            fam = family(node.base)
            if fam is not None:
                self.dimensions.setdefault((fam, node.indices[0].name), evidence)

    def _prose(self, record: IndexedFormula, sentence: str, where: str) -> None:
        """What the sentence says of the symbols the inline formula is about."""
        assert record.raw is not None
        subjects = _subjects(record.raw.tree)
        if not subjects:
            return
        before, after = _words_around(sentence, record.latex)
        if before is None:
            return
        # the noun right before the formula names it (`the policy $\pi$`, `a rate $p$`; not `sample from $p$`)
        noun_before = before[-1] if before and before[-1] in FUNCTION_NOUNS | QUANTITY_NOUNS else None
        noun_after = None
        if after and after[0] in _COPULA:
            # the head of the noun phrase after "is": its last noun (`a one-step transformation` → transformation)
            for w in after[1:8]:
                if w in (",", ".", ";", "and", "which", "where", "with", "that", "of", "for", "in", "on", "from"):
                    break
                if w in FUNCTION_NOUNS or w in QUANTITY_NOUNS:
                    noun_after = w
                if w in PARAMETER_NOUNS:
                    self._parameters(subjects, Evidence(LABEL, f"sentence: {w}", " ".join(sentence.split())[:160],
                                                        where, "paper"))
                    break
        quote = " ".join(sentence.split())[:160]
        if _sizes(before, after):
            self._size(record.raw.tree, Evidence(LABEL, "sentence: a size", quote, where, "paper"))
        for noun in (noun_before, noun_after):
            if noun is None:
                continue
            reading = FUNCTION if noun in FUNCTION_NOUNS else NOT_FUNCTION
            for node in subjects:
                if reading == NOT_FUNCTION and isinstance(node, ast.Apply):
                    continue
                target = node.func if isinstance(node, ast.Apply) else node
                self.add(identity(target), Evidence(reading, f"sentence: {noun}", quote, where, "paper"))
        words = set(before[-3:]) | set(after[:3])
        atom = record.raw.tree
        if words & LABEL_WORDS and isinstance(atom, ast.Power) and not isinstance(atom.exponent, ast.Number):
            # `agent $i$`, `for layer $X^l$`: the superscript of the symbol the sentence names is a name
            word = sorted(words & LABEL_WORDS)[0]
            self.add(family(atom.base), Evidence(LABEL, f"sentence: {word}", quote, where, "paper"))
        if isinstance(atom, ast.Power) and not isinstance(atom.exponent, ast.Number):
            exp = record.latex[atom.exponent.span[0]:atom.exponent.span[1]].strip("{} ")
            if noun_after in _ARRAY_NOUNS:
                # `$z^j$ denotes the vector of …`: a vector the sentence defines is no power of one
                self.add(family(atom.base), Evidence(LABEL, f"sentence: {noun_after}", quote, where, "paper"))
            elif exp and re.search(r"\$\s*\{?%s\}?\s*\$-[A-Za-z]+\s*\$\s*%s\s*\$" % (
                    re.escape(exp), re.escape(record.latex.strip())), sentence):
                # `the $\lambda$-return $G_t^\lambda$`: the superscript is the name the prose gives the symbol
                self.add(family(atom.base), Evidence(LABEL, "sentence: named after its superscript", quote, where,
                                                     "paper"))
        if before and before[-1] in _SCRIPT_WORDS and isinstance(atom, ast.Symbol) and len(atom.name) == 1 and \
                atom.name.isalpha():
            # "the superscript $i$ names the trajectory": that letter names wherever it is a superscript; a
            # subscript only when a naming word follows ("the subscript $t$ stands for the teacher", not "the
            # subscript $t$ denotes the time step")
            position = "sup" if before[-1].startswith("super") else "sub"
            if position == "sup" or set(after[:8]) & LABEL_WORDS:
                self.named_scripts[position].setdefault(
                    atom.name, Evidence(LABEL, f"sentence: the {position}script names", quote, where, "paper"))


def _sizes(before: list[str], after: list[str]) -> bool:
    """Does the sentence call the formula a size? `of dimension $d_k$`, `the number of heads $n_h$`,
    `$d_h$ denote the dimension per head`."""
    return bool(before) and (before[-1] in SIZE_NOUNS or (len(before) >= 3 and before[-3] in SIZE_NOUNS and
                                                        before[-2] == "of")) or \
        bool(after) and after[0] in _COPULA and bool(set(after[1:4]) & SIZE_NOUNS)


def _subject_families(subjects: list[ast.Node]) -> list[str]:
    return [fam for fam in (family(node.func if isinstance(node, ast.Apply) else node) for node in subjects)
            if fam is not None]


def _subjects(tree: ast.Node) -> list[ast.Node]:
    """What an inline formula names: `$f_\\theta$`, `$u_t^\\theta(x)$`, `$T$`, `$f: X \\to Y$` → f."""
    node = tree
    if isinstance(node, ast.Relation):
        node = node.operands[0]
    items = node.items if isinstance(node, (ast.Sequence, ast.Tuple)) else (node,)
    out = []
    for item in items:
        if isinstance(item, ast.Apply) or isinstance(base_symbol(item), ast.Symbol) or isinstance(item, ast.Power):
            out.append(item)
    return out


_WORD = re.compile(r"\\[A-Za-z]+|[A-Za-z]+|[,.;]")
"""Words and stops; a control word (`\\State{…}` of an algorithm line) is matched whole so that it is no word."""


def _words_around(sentence: str, latex: str) -> tuple[Optional[list[str]], list[str]]:
    """The lower-cased words before and after `$latex$` in the sentence."""
    for m in INLINE.finditer(sentence):
        if " ".join(m.group(1).split()) == " ".join(latex.split()):
            before = [w.lower() for w in _WORD.findall(INLINE.sub(" ", sentence[:m.start()])) if w[0] != "\\"]
            after = [w.lower() for w in _WORD.findall(INLINE.sub(" ", sentence[m.end():])) if w[0] != "\\"]
            return before, after
    return None, []


def _sentence_at(doc: Document, paragraph_id: Optional[str], offset: int) -> Optional[str]:
    para = doc.paragraph(paragraph_id)
    if para is None:
        return None
    best = None
    for sentence in para.sentences:
        if sentence.span.start <= offset:
            best = sentence.text
    return best or (para.sentences[0].text if para.sentences else para.text)


def build_index(doc: Document) -> NotationIndex:
    """Parse every formula of the paper once and index its notation."""
    functions = frozenset(doc.operators.values()) | frozenset(doc.operators)
    index = NotationIndex(doc, functions)
    for name in sorted(functions):
        index.add(name.lstrip("\\"), Evidence(FUNCTION, "declared operator", f"\\DeclareMathOperator{{{name}}}",
                                              "the preamble", "declared"))
    for i, inline in enumerate(doc.inline_math):
        sentence = _sentence_at(doc, inline.paragraph, inline.span.start)
        index.add_formula(f"inline:{i}", inline.latex, "inline", inline.span.position, sentence)
    for eq in doc.equations:
        before = doc.paragraph(eq.paragraph_before)
        sentence = before.sentences[-1].text if before is not None and before.sentences else None
        index.add_formula(eq.id, eq.latex, "display", eq.span.position, sentence)
    for fl in doc.floats:
        for j, m in enumerate(INLINE.finditer(fl.caption or "")):
            index.add_formula(f"caption:{fl.id}:{j}", m.group(1), "caption", fl.span.position, fl.caption)
        k = 0
        for row in fl.cells:
            for cell in row:
                for m in INLINE.finditer(cell):
                    index.add_formula(f"table:{fl.id}:{k}", m.group(1), "table", fl.span.position, None)
                    k += 1
    for alg in doc.algorithms:
        for line_no, line in enumerate(alg.lines):
            for j, m in enumerate(INLINE.finditer(line.text)):
                index.add_formula(f"alg:{alg.id[4:]}:{line_no}:{j}", m.group(1), "algorithm", line.span.position,
                                  line.text)
    from .definitions import ordinal_indices
    index.running |= {name.lstrip("\\") if len(name) == 2 else name for name in ordinal_indices(doc)}
    index.finish()
    return index
