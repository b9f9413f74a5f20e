"""Candidate sentences for a symbol, from the whole paper, in one ranking.

Every inline formula of the prose that holds the symbol is a candidate, with the syntactic role the symbol
plays there: the *subject* of a definition pattern ("where $X$ is …", "the step size $\\gamma$", "$\\lambda_t
= …$ is the …", a notation-table row), or a symbol *inside* another formula (`\\mathcal{D} = \\{(c, x)\\}`
mentions c and x). One ranking orders them all:

1. how strongly the sentence defines the symbol (a definition pattern with the symbol as its subject first;
   a shape declaration that introduces it as a dimension next; a plain mention, or the symbol inside another
   formula, last — a sentence that defines `\\ell(\\theta)` says nothing of θ);
2. where the sentence stands: the method and notation text before related work, experiments and the
   introduction, and those before appendices, proofs, lemmas, figure captions — unless the equation itself
   stands there;
3. nearness to the equation (its lead-in paragraph and its "where" paragraph first), then the first
   definition before the equation, then later text;
4. identity of meaning: the symbol as written before the same letter with other indices, a statement about
   "any vectors a, b, c" never before one about the paper's own c.

The best candidate is quoted with its strength: "defines" when a pattern names the symbol, "mentions" when
the sentence only uses it. A symbol with no candidate at all is the only one the paper never writes in prose.
"""
from __future__ import annotations

import bisect
import heapq
import re
from collections.abc import Iterator
from dataclasses import dataclass
from functools import lru_cache

from ..latex.document import Document, Equation, Paragraph
from .definitions import Mention

DEFINES = "defines"
MENTIONS = "mentions"

_PENALISED_TITLES = re.compile(r"\b(?:related|prior work|previous work|experiment|result|evaluation|ablation|"
                               r"discussion|conclusion|limitation|future work|acknowledg|broader impact|"
                               r"analysis|benchmark|comparison)", re.I)
_NOTATION_TITLES = re.compile(r"\b(?:notation|preliminar|background|method|approach|model|formulation|setup|"
                              r"problem|definition|framework|architecture|algorithm)", re.I)
_STATEMENT_ENVS = re.compile(r"\\(begin|end)\s*\{(proof|lemma|theorem|proposition|corollary|claim|fact|"
                             r"observation|remark|restatable|thm|lem|prop|cor|conjecture)\*?\}")
_GENERIC = re.compile(r"\b(?:for\s+(?:any|all|every|some)|arbitrary|any\s+(?:vectors?|matri(?:x|ces)|numbers?|"
                      r"points?|functions?|scalars?)|for\s+a\s+fixed|without\s+loss\s+of\s+generality)\b", re.I)


@dataclass(frozen=True)
class Candidate:
    """One sentence that holds the symbol, and how it holds it."""

    mention: int
    """Index into the paper's mentions."""
    slot: str
    """"subject" (the formula is about the symbol) or "inside" (the symbol stands inside another formula)."""
    strength: str
    """DEFINES or MENTIONS."""
    exact: bool
    """The sentence writes the symbol as the equation does (not only the same letter with other indices)."""
    rank: tuple
    """The ranking key (smaller is better)."""


@dataclass(frozen=True)
class Places:
    """Where each paragraph and equation stands: a penalty by section kind and statement environment."""

    paragraph_penalty: tuple[int, ...]
    paragraph_env: tuple[int | None, ...]
    paragraph_section: tuple[str | None, ...]
    paragraph_aside: tuple[int, ...] = ()
    """The part of the penalty a caption (2) or a footnote (1) carries whatever the section: an appendix display
    reads the appendix as its own text, not the figure captions beside the main text."""


def places(doc: Document) -> Places:
    return _places(id(doc), doc)


_PLACES_CACHE: dict[int, tuple[Document, Places]] = {}


def _places(key: int, doc: Document) -> Places:
    cached = _PLACES_CACHE.get(key)
    if cached is not None and cached[0] is doc:
        return cached[1]
    envs = _environments_cached(doc)
    penalty, env_of, section_of, aside_of = [], [], [], []
    for para in doc.paragraphs:
        sec = doc.section_by_id(para.section)
        p = _section_penalty(doc, sec)
        aside = _ASIDE_PENALTY.get(para.kind, 0)
        p = max(p, aside)
        aside_of.append(aside)
        env = _env_at(envs, para.span.file, para.span.start)
        if env is not None:
            p = max(p, 2)
        penalty.append(p)
        env_of.append(env)
        section_of.append(para.section)
    result = Places(tuple(penalty), tuple(env_of), tuple(section_of), tuple(aside_of))
    if len(_PLACES_CACHE) > 32:
        _PLACES_CACHE.clear()
    _PLACES_CACHE[key] = (doc, result)
    return result


_ASIDE_PENALTY = {"caption": 2, "footnote": 1}


def _section_penalty(doc: Document, sec) -> int:
    if sec is None:
        return 0
    if sec.appendix:
        return 2
    titles = [sec.title]
    # The enclosing headings decide too: "Experiments > Setup" is experimental.
    seen = False
    for s in reversed(doc.sections):
        if s.id == sec.id:
            seen = True
            continue
        if seen and s.level < sec.level:
            titles.append(s.title)
            if s.level <= 1:
                break
    for title in titles:
        if _NOTATION_TITLES.search(title or ""):
            return 0
        if _PENALISED_TITLES.search(title or ""):
            return 1
    return 0


def _environments(doc: Document) -> dict[str, list[tuple[int, int, int]]]:
    """Per file: (start, end, id) of every proof/lemma/theorem-like environment."""
    out: dict[str, list[tuple[int, int, int]]] = {}
    counter = 0
    for file, text in doc.sources.items():
        stack: list[tuple[str, int]] = []
        spans = []
        for m in _STATEMENT_ENVS.finditer(text):
            if m.group(1) == "begin":
                stack.append((m.group(2), m.start()))
            else:
                for k in range(len(stack) - 1, -1, -1):
                    if stack[k][0] == m.group(2):
                        counter += 1
                        spans.append((stack[k][1], m.end(), counter))
                        del stack[k:]
                        break
        out[file] = sorted(spans)
    return out


def _env_at(envs, file: str, offset: int) -> int | None:
    best = None
    for start, end, ident in envs.get(file, ()):
        if start > offset:
            break
        if start <= offset < end:
            best = ident  # innermost (the last one that opens before the offset)
    return best


def equation_place(doc: Document, eq: Equation) -> tuple[int, int | None]:
    """The penalty of the equation's own place and its statement environment (a lemma's display is read in
    the lemma's terms); once per equation."""
    cached = _EQ_PLACE.get(id(doc))
    if cached is None or cached[0] is not doc:
        if len(_EQ_PLACE) > 32:
            _EQ_PLACE.clear()
        cached = _EQ_PLACE[id(doc)] = (doc, {})
    found = cached[1].get(eq.id)
    if found is None:
        found = cached[1][eq.id] = _equation_place(doc, eq)
    return found


_EQ_PLACE: dict[int, tuple[Document, dict]] = {}


def _equation_place(doc: Document, eq: Equation) -> tuple[int, int | None]:
    envs = _environments_cached(doc)
    env = _env_at(envs, eq.span.file, eq.span.start)
    sec = doc.section_by_id(eq.section_id)
    penalty = _section_penalty(doc, sec)
    if env is not None:
        penalty = max(penalty, 2)
    return penalty, env


_ENV_CACHE: dict[int, tuple[Document, dict]] = {}


def _environments_cached(doc: Document):
    cached = _ENV_CACHE.get(id(doc))
    if cached is not None and cached[0] is doc:
        return cached[1]
    envs = _environments(doc)
    if len(_ENV_CACHE) > 32:
        _ENV_CACHE.clear()
    _ENV_CACHE[id(doc)] = (doc, envs)
    return envs


@dataclass(frozen=True)
class _Static:
    """What ranks a candidate regardless of the equation it is read for."""

    mention: int
    slot: str
    exact: int
    tier: int
    """Definition tier before the equation's place is considered (0 strong subject … 3 a plain mention)."""
    penalty: int
    """The paragraph's place penalty (appendix, proof, caption, experiments)."""
    env: int | None
    """The statement environment (lemma, proof) the sentence stands in."""
    generic: bool
    strength: int
    """The mention's pattern strength."""
    paragraph: int
    sentence: int
    order: int
    """Position in the candidate list (ties keep it, as a stable sort does)."""
    aside: int = 0
    """The caption or footnote part of `penalty` (`Places.paragraph_aside`)."""
    declares: bool = False
    """Inside a shape declaration (`x \\in \\mathbb{R}^D` holds D): a dimension the declaration introduces."""
    member: bool = False
    """The symbol is a member of the collection the formula writes (`M = (v(x), \\forall x)`), not its subject."""


def _statics(doc: Document, mentions: tuple[Mention, ...], subject: dict[int, int],
             inside: dict[int, int], members: frozenset[int] = frozenset()) -> list[_Static]:
    where = places(doc)
    out = []
    for order, (i, exact) in enumerate(list(subject.items()) + [(i, e) for i, e in inside.items()
                                                                  if i not in subject]):
        m = mentions[i]
        slot = "subject" if i in subject else "inside"
        shape_only = slot == "subject" and (_shape_only(m) or (i in members and _member_only(m)))
        if shape_only:
            # "We have … $Q \in \mathbb{R}^{N \times d}$": the space it lives in, not what it is; a sentence
            # that names it ("we project them to query, key, and value $Q \in …$") ranks first in its place
            tier = 2
        elif slot == "subject" and i in members and _names_the_whole(m):
            # "$\mathbb{M} = (v(x), \forall x)$ is a 2D manifold": the sentence says what the collection is, which
            # tells of its members less than a sentence about the member itself ("a vector $v(x) = …$"); near the
            # display it is the text speaking of the member again (`_restates`)
            tier = 1 if m.strength >= 2 else 3
        elif slot == "subject":
            tier = 0 if m.strength >= 2 else (1 if m.strength == 1 else 3)
        else:
            # Inside another formula the symbol is only mentioned, however strongly the sentence defines that
            # formula ("the final loss ℓ(θ) can be written as" says nothing of θ; SISS (2) quoted it over
            # "moves θ towards a set of parameters"); a shape declaration introduces its dimensions.
            tier = 2 if m.strength >= 2 and _declares_shape(m.math) else 3
        known = m.paragraph_index < len(doc.paragraphs)
        penalty = where.paragraph_penalty[m.paragraph_index] if known else 0
        env = where.paragraph_env[m.paragraph_index] if known else None
        if known and env is None:
            # A lemma can open in the middle of a paragraph: the sentence's own place decides.
            para = doc.paragraphs[m.paragraph_index]
            if m.sentence_index < len(para.sentences):
                span = para.sentences[m.sentence_index].span
                env = _env_at(_environments_cached(doc), span.file, span.start)
                if env is not None:
                    penalty = max(penalty, 2)
        aside = where.paragraph_aside[m.paragraph_index] if known else 0
        out.append(_Static(i, slot, exact, tier, penalty, env, _is_generic(m.quote, m.math), m.strength,
                           m.paragraph_index, m.sentence_index, order, aside,
                           shape_only or (slot == "inside" and tier == 2 and _declares_shape(m.math)),
                           slot == "subject" and i in members and _names_the_whole(m)))
    return out


def _judged(c: _Static, eq_penalty: int, eq_env: int | None) -> tuple[str, tuple, tuple]:
    """(strength, head, tier key) of a candidate for an equation in place (eq_penalty, eq_env): its rank is
    head + (place,) + tier key + (paragraph, sentence)."""
    tier = c.tier
    strength = DEFINES if tier <= 2 else MENTIONS
    penalty, env = c.penalty, c.env
    if env is not None and env == eq_env:
        penalty = 0  # the lemma's own words define the lemma's display
    elif env is not None:
        # Another statement's words speak of that statement's quantities ("… and $\beta$ is the step size of the
        # naive learner" in a theorem about another method): after the running text, appendices included.
        penalty = max(penalty, 3)
    penalty = max(0, penalty - eq_penalty, c.aside) if eq_penalty and env == eq_env else penalty
    if eq_penalty >= 2 and penalty >= 2 and env is None:
        penalty = 1  # an appendix equation: the appendix is the equation's own text
    if c.generic and env != eq_env:
        tier = max(tier, 1) + 1
        strength = MENTIONS if tier >= 3 else strength
    # A definition (strong or weak) in the method text beats a stronger one in an appendix or a proof.
    if c.exact >= 2 and tier < 3:
        tier, strength = 3, MENTIONS  # the same letter with another label: evidence, not a definition
    # A symbol inside another symbol's definition (G in 'γ = D/(G√T)') is not defined there: every definition of
    # its own, wherever it stands, ranks first; the place orders definitions of one kind. A shape declaration
    # introduces its dimensions ('Let x ∈ ℝ^D'): it ranks by place with the symbol's own definitions.
    inside_other = tier >= 2 and not c.declares
    # How strongly a sentence defines another symbol says nothing of this one: two sentences that hold it inside
    # other formulas rank by place alone.
    return strength, (strength == MENTIONS, inside_other, penalty, max(0, tier - 1), c.exact), \
        (tier, -c.strength if c.slot == "subject" else 0)


def lead_paragraph(doc: Document, eq: Equation) -> Paragraph | None:
    """The running text that leads into a display: a footnote the text before it carries is not it (TabDiff's
    KST display follows a paragraph whose footnote is a URL; schedule_free's "… divergence\\footnote{…}. Set:")."""
    para = doc.paragraph(eq.paragraph_before)
    if para is None or para.kind != "footnote":
        return para
    at = next((i for i, p in enumerate(doc.paragraphs) if p.id == para.id), 0)
    return next((p for p in reversed(doc.paragraphs[:at]) if p.kind != "footnote"), None)


def display_context(doc: Document, eq: Equation) -> tuple[str, ...]:
    """The paragraphs around a display whose sentences may speak of its symbols without writing them: the one
    before (past a footnote it carries, see `lead_paragraph`) and the one after."""
    lead = lead_paragraph(doc, eq)
    ids = [eq.paragraph_before, lead.id if lead is not None else None, eq.paragraph_after]
    return tuple(dict.fromkeys(pid for pid in ids if pid))


def _near_and_limit(doc: Document, eq: Equation, home: Equation | None) -> tuple[set[int], int]:
    """The paragraphs that are the equation's own context (and its defining display's), and the paragraph
    before which text counts as earlier."""
    near = set(display_context(doc, eq))
    if home is not None:  # the display that defines the symbol: its lead-in and its "where" are its definition
        near |= set(display_context(doc, home))
    eq_para = paragraph_index(eq.paragraph_after) if eq.paragraph_after else \
        paragraph_index(eq.paragraph_before) + 1 if eq.paragraph_before else len(doc.paragraphs)
    return {paragraph_index(pid) for pid in near}, eq_para


def rank_candidates(doc: Document, mentions: tuple[Mention, ...], eq: Equation, subject: dict[int, int],
                    inside: dict[int, int], applied: bool, home: Equation | None = None) -> list[Candidate]:
    """Rank the mentions that hold a symbol. `subject`/`inside` map a mention index to how exactly it writes
    the symbol: 0 as the equation does, 1 the same letter with other indices, 2 with another label.
    (`CandidateOrder` gives the same order lazily, without ranking every mention for every equation.)"""
    eq_penalty, eq_env = equation_place(doc, eq)
    near, eq_para = _near_and_limit(doc, eq, home)
    out: list[Candidate] = []
    for c in _statics(doc, mentions, subject, inside):
        strength, head, tier_key = _judged(c, eq_penalty, eq_env)
        rank = head + (_place(c, near, eq_para),) + tier_key + (c.paragraph, c.sentence)
        out.append(Candidate(c.mention, c.slot, strength, c.exact == 0, rank))
    out.sort(key=lambda cand: cand.rank)
    return out


_NO_ENV = -1  # an equation place that shares no mention's statement environment


class CandidateOrder:
    """The candidates of one symbol (as `rank_candidates` takes them), in `rank_candidates`' order for any
    equation, yielded lazily: the equation-independent part of every rank is sorted once per place class of
    equation, and each equation walks the buckets — its own paragraphs first, then earlier, then later text —
    so reading the first few candidates costs a few steps, not a sort of every mention of the symbol."""

    def __init__(self, doc: Document, mentions: tuple[Mention, ...], subject: dict[int, int],
                 inside: dict[int, int], members: frozenset[int] = frozenset()) -> None:
        self.doc = doc
        self.statics = _statics(doc, mentions, subject, inside, members)
        self.levels = {c.mention: c.exact for c in self.statics}
        """Mention → how exactly it writes the symbol (0 as written, 1 other indices, 2 another label)."""
        self._by_env: dict[int, list[_Static]] = {}
        for c in self.statics:
            if c.env is not None:
                self._by_env.setdefault(c.env, []).append(c)
        self._buckets: dict[tuple[int, bool], list] = {}

    def __len__(self) -> int:
        return len(self.statics)

    def _classes(self, eq_penalty: int, eq_env: int | None) -> list:
        """[(head, [(tier key, paragraphs, candidates)])], sorted, for equations of this place class."""
        key = (eq_penalty, eq_env is None)
        found = self._buckets.get(key)
        if found is None:
            judge_env = None if eq_env is None else _NO_ENV
            groups: dict[tuple, dict[tuple, list]] = {}
            for c in self.statics:
                strength, head, tier_key = _judged(c, eq_penalty, judge_env)
                groups.setdefault(head, {}).setdefault(tier_key, []).append((c.paragraph, c.sentence, c.order,
                                                                           strength, c))
            found = []
            for head in sorted(groups):
                tiers = []
                for tier_key in sorted(groups[head]):
                    items = sorted(groups[head][tier_key], key=lambda t: t[:3])
                    tiers.append((tier_key, [t[0] for t in items], items))
                found.append((head, tiers))
            self._buckets[key] = found
        return found

    def ranked(self, eq: Equation, home: Equation | None = None) -> Iterator[Candidate]:
        """The candidates for `eq`, best first, exactly as `rank_candidates` orders them."""
        for rank, item in self._ordered(eq, home, None, None):
            yield Candidate(item[4].mention, item[4].slot, item[3], item[4].exact == 0, rank)

    def first_per_quote(self, eq: Equation, home: Equation | None, quotes: tuple[str, ...],
                        max_mentions: int) -> Iterator[Candidate]:
        """`ranked`, keeping the first candidate of each quote (`quotes[i]` is mention i's), and stopping after
        `max_mentions` that only mention: every defining candidate ranks before every mention. A repeated quote
        is skipped where it is met, before its rank is built."""
        seen: set[str] = set()
        mentions = 0
        for rank, item in self._ordered(eq, home, quotes, seen):
            c = item[4]
            quote = quotes[c.mention]
            if quote in seen:
                continue
            seen.add(quote)
            if item[3] != DEFINES:
                mentions += 1
                if mentions > max_mentions:
                    return
            yield Candidate(c.mention, c.slot, item[3], c.exact == 0, rank)

    def _ordered(self, eq: Equation, home: Equation | None, quotes, seen):
        eq_penalty, eq_env = equation_place(self.doc, eq)
        near, eq_para = _near_and_limit(self.doc, eq, home)
        special = []  # the equation's own lemma: its sentences are judged with the lemma
        for c in self._by_env.get(eq_env, ()) if eq_env is not None else ():
            strength, head, tier_key = _judged(c, eq_penalty, eq_env)
            rank = head + (_place(c, near, eq_para),) + tier_key + (c.paragraph, c.sentence)
            special.append((rank, (c.paragraph, c.sentence, c.order, strength, c)))
        # The walk passes over quotes already taken: `seen` only grows, so what it skips the caller would skip.
        walk = self._walk(self._classes(eq_penalty, eq_env), sorted(near), eq_para, eq_env, quotes, seen)
        if not special:
            yield from walk
            return
        special.sort(key=lambda t: (t[0], t[1][2]))
        yield from heapq.merge(walk, special, key=lambda t: (t[0], t[1][2]))

    @staticmethod
    def _walk(classes, near: list[int], eq_para: int, eq_env: int | None, quotes, seen):
        """(rank, item) in rank order, the equation's own lemma left out (merged by the caller); with `quotes`,
        items whose quote is already in `seen` are passed over."""
        near_set = set(near)
        own = eq_env is not None
        for head, tiers in classes:
            for tier_key, paragraphs, items in tiers:  # the equation's own paragraphs: what defines outright
                for q in near:
                    for k in range(bisect.bisect_left(paragraphs, q), bisect.bisect_right(paragraphs, q)):
                        item = items[k]
                        if not _restates(item[4]) and not (own and item[4].env == eq_env):
                            yield head + (0,) + tier_key + (item[0], item[1]), item
            for place in (1, 2):
                for tier_key, paragraphs, items in tiers:  # earlier text (a restatement nearby with it), later
                    split = bisect.bisect_left(paragraphs, eq_para)
                    for k in (range(split) if place == 1 else range(split, len(items))):
                        item = items[k]
                        if quotes is not None and quotes[item[4].mention] in seen:
                            continue
                        if own and item[4].env == eq_env:
                            continue
                        if item[0] not in near_set or (place == 1 and _restates(item[4])):
                            yield head + (place,) + tier_key + (item[0], item[1]), item
                    if place == 1:  # a restatement in the paragraph after the display ranks with earlier text
                        for k in range(split, len(items)):
                            item = items[k]
                            if item[0] in near_set and _restates(item[4]) and \
                                    not (quotes is not None and quotes[item[4].mention] in seen) and \
                                    not (own and item[4].env == eq_env):
                                yield head + (1,) + tier_key + (item[0], item[1]), item


def _restates(c: _Static) -> bool:
    """A sentence that names the symbol without a defining verb ("apply it to the concept tokens $X = …$", "the
    bias $\\tilde{w} s_c$"), or that holds it inside another formula: near the display it is usually the text
    speaking of the symbol again, not introducing it, so it ranks with the earlier text, where the first such
    sentence is the introduction. A definition outright ("where $X$ is …", "let $X$ denote …") keeps the
    display's own paragraphs first."""
    return c.strength < 3 or c.slot == "inside" or c.member


def _place(c: _Static, near: set[int], eq_para: int) -> int:
    """0 the equation's own paragraphs (for a definition outright), 1 earlier text, 2 later text."""
    if c.paragraph in near and not _restates(c):
        return 0
    return 1 if c.paragraph < eq_para or c.paragraph in near else 2


_SHAPE_DECLARATION = re.compile(r"\\in(?![A-Za-z])\s*(?:\{\s*)?\\mathbb\s*\{?\s*[RCZN]\b")


@lru_cache(maxsize=65536)
def _declares_shape(math: str) -> bool:
    """The formula declares a space for its subject (`x \\in \\mathbb{R}^{D}`, `W \\in \\mathbb{R}^{m \\times n}`): the
    symbols inside it are that space's dimensions, introduced by the declaration."""
    return bool(_SHAPE_DECLARATION.search(math))


@lru_cache(maxsize=65536)
def _member_only(m: Mention) -> bool:
    """A sentence that writes an unnamed collection and no words about it ("the input velocity can also be
    represented as $(\\Delta r, \\theta)$"): it says what the collection stands for, not what each member is. (A
    named collection, "a training dataset $X = \\{x_1, …, x_n\\}$", and a described set-builder, "Let
    $\\{x_t : t\\}$ denote a sequence of data", say what their members are.)"""
    return not m.keys and not m.description


_PLURAL_WORD = re.compile(r"\b[a-z]{2,}(?<!ss)(?<!us)(?<!is)s\b")
_DESCRIPTION_HEAD_WORDS = 6


def _names_the_whole(m: Mention) -> bool:
    """A collection described in the singular ("$\\mathbb{M} = (v(x), \\forall x)$ is a 2D manifold") is named as a
    whole; one described in the plural ("Let $Y = [y_i]$ denote the latent tokens", "dynamic GM parameters $\\{A_k,
    \\mu_k\\}$") names what its members are."""
    words = re.sub(r"\$[^$]*\$", " ", m.description or "").split()[:_DESCRIPTION_HEAD_WORDS]
    return bool(words) and not _PLURAL_WORD.search(" ".join(words))


def _shape_only(m: Mention) -> bool:
    """A declaration of the space a symbol lives in with no words that name it (`in-set` with no description)."""
    return m.pattern == "in-set" and not m.description and _declares_shape(m.math)


def _is_generic(quote: str, math: str = "") -> bool:
    """The quantifier of the sentence governs this formula: "for any vectors $a, b$", "$z_1, …$ be arbitrary
    vectors" — the generic phrase stands next to the formula, with no other formula and at most a few words
    between them. "For any minimizer $x_\\star$, define $D = …$" speaks of any x_⋆, but of the paper's own D
    (schedule_free's D and G). A formula not found in its quote is judged by the whole sentence."""
    at = quote.find(math) if math else -1
    if at < 0:
        return bool(_GENERIC.search(quote))
    end = at + len(math)
    for m in _GENERIC.finditer(quote):
        gap = quote[m.end():at] if m.end() <= at else quote[end:m.start()] if m.start() >= end else ""
        if _quantified_across(gap.strip("$ ")):
            return True
    return False


_FORMULA = re.compile(r"\$[^$]*\$|\\\(.*?\\\)")
_LIST_GLUE = re.compile(r"^[\s,;]*(?:(?:and|or)\b[\s,;]*)?$")


def _quantified_across(gap: str) -> bool:
    """A few words, then possibly other members of the same list ("any vectors $a$, $b$ and $c$"): another
    formula in the gap with words of its own between ("minimizer $x_\\star$, define") ends the quantifier."""
    pieces = _FORMULA.split(gap)
    if len(pieces[0].split()) > _GENERIC_GAP_WORDS:
        return False
    return all(_LIST_GLUE.match(piece) for piece in pieces[1:])


_GENERIC_GAP_WORDS = 4
"""Words between a generic phrase and the formula it quantifies ("for any real $r$", "be arbitrary vectors")."""


def paragraph_index(pid: str | None) -> int:
    """The position of a paragraph in the document from its id (`p:12` → 12; 0 for none)."""
    try:
        return int(pid[2:]) if pid else 0
    except ValueError:
        return 0


@dataclass(frozen=True)
class MentionIndex:
    """Symbol key → mentions that hold it: as their subject, or inside another formula; by key and by base."""

    subject: dict
    subject_base: dict
    inside: dict
    family: dict
    """Labels dropped too (`\\epsilon_{orig}`, `A^{1}` → `\\epsilon`, `A`): the same letter with another label."""


_MI_CACHE: dict[int, tuple[tuple, MentionIndex]] = {}


def mention_index(mentions) -> MentionIndex:
    """Symbol key → the mentions that hold it (`mentions`: a tuple, or the paper's `ProseMentions`, whose index
    is looked up per key)."""
    index = getattr(mentions, "index", None)
    if isinstance(index, MentionIndex):
        return index
    cached = _MI_CACHE.get(id(mentions))
    if cached is not None and cached[0] is mentions:
        return cached[1]
    subject: dict[str, list[int]] = {}
    subject_base: dict[str, list[int]] = {}
    inside: dict[str, list[int]] = {}
    families: dict[str, list[tuple[int, str, str]]] = {}
    for i, m in enumerate(mentions):
        if m.pattern == "ordinal":
            continue
        for key in m.keys + m.elements:
            subject.setdefault(key, []).append(i)
            families.setdefault(key_family(key), []).append((i, "subject", key))
        for base in m.bases:
            subject_base.setdefault(base, []).append(i)
        for key in m.inner:
            inside.setdefault(key, []).append(i)
            families.setdefault(key_family(key), []).append((i, "inside", key))
    result = MentionIndex(subject, subject_base, inside, families)
    if len(_MI_CACHE) > 32:
        _MI_CACHE.clear()
    _MI_CACHE[id(mentions)] = (mentions, result)
    return result


_SCRIPT_AT_END = re.compile(r"(?:_|\^)(?:\{(?:[^{}]|\{(?:[^{}]|\{[^{}]*\})*\})*\}|\\[A-Za-z]+|[^{}\\])$")


@lru_cache(maxsize=65536)
def key_family(key: str) -> str:
    """A key without its labels: `\\epsilon_{orig}` → `\\epsilon`, `\\mathbf{x}^{w}` → `\\mathbf{x}`."""
    out = key.strip()
    for _ in range(4):
        m = _SCRIPT_AT_END.search(out)
        if m is None or m.start() == 0:
            break
        out = out[:m.start()].rstrip()
    return out


_INDEX_LIKE = re.compile(r"^(?:\\[A-Za-z]+|[A-Za-z]|\d+|[A-Za-z]\s*[-+]\s*\d|\[[A-Za-z]\]|\\ell\s*[-+]\s*\d|\(\w\)|"
                         r"[A-Za-z]\s*[-+]\s*[A-Za-z])$")


@lru_cache(maxsize=65536)
def _labels(key: str) -> tuple[str, str]:
    """(position, label) of what a key adds to its family: `X^{i}` → ("^", "i"); a bare key → ("", "")."""
    rest = key[len(key_family(key)):].strip()
    if not rest:
        return "", ""
    label = rest[1:].strip()
    if label.startswith("{") and label.endswith("}"):
        label = label[1:-1].strip()
    return rest[0], label


@lru_cache(maxsize=65536)
def same_family_meaning(use_key: str, other_key: str) -> bool:
    """Whether a labelled spelling may be the same symbol: a bare letter in one place and a labelled one in the
    other (ε and ε_{orig}); or labels in the same position that vary like indices (X^{i} and X^{0},
    p_{A} and p_{S}) — but not two numbered labels (W_1 and W_2 are two weights), nor a sub- and a superscript
    (W_1 and W^Q)."""
    (pos_a, a), (pos_b, b) = _labels(use_key), _labels(other_key)
    if not pos_a or not pos_b:
        return True
    if pos_a != pos_b:
        return False
    if a.isdigit() and b.isdigit():
        return False
    if "," in a or "," in b:
        return _parts_vary_like_indices(a, b)
    return bool(_INDEX_LIKE.match(a)) and bool(_INDEX_LIKE.match(b))


def _parts_vary_like_indices(a: str, b: str) -> bool:
    """Two labels of several parts (`\\gamma, k - t` and `\\gamma,k`): the same family when they have as many parts,
    one of them shared, and every other pair of parts varies like indices (`d_{\\gamma,k}` defines
    `d_{\\gamma,k-t}`)."""
    pa, pb = [p.strip() for p in a.split(",")], [p.strip() for p in b.split(",")]
    if len(pa) != len(pb) or not any(x == y for x, y in zip(pa, pb)):
        return False
    return all(x == y or (_RUNNING_PART.match(x) and _RUNNING_PART.match(y) and not (x.isdigit() and y.isdigit()))
               for x, y in zip(pa, pb))


_RUNNING_PART = re.compile(r"^(?:[A-Za-z]|\d+|[A-Za-z]\s*[-+]\s*(?:[A-Za-z]|\d+))$")
"""A part of a label that runs like an index (`k`, `k-t`, `t+1`); a named part (`\\gamma`) is the label itself."""


_STEP_LABEL = re.compile(r"^(\()?(\\[A-Za-z]+|[A-Za-z])(?:([-+])1)?(?(1)\))$")


def _step(label: str) -> tuple[str, int, bool] | None:
    """A label that counts steps: `k` → (k, 0, False), `k+1` → (k, 1, False), `\\ell-1` → (\\ell, -1, False),
    `(k)` → (k, 0, True) (the iteration written in parentheses); None otherwise."""
    m = _STEP_LABEL.match(re.sub(r"\s+|[{}]", "", label))
    if m is None:
        return None
    return m.group(2), {"+": 1, "-": -1, None: 0}[m.group(3)], m.group(1) is not None


@lru_cache(maxsize=65536)
def previous_step(use_key: str, other_key: str) -> bool:
    """`use_key` is `other_key` one step earlier: the same letter with the step label one less (`x^{k}` and
    `x^{k+1}`, `\\mathbf{x}^{\\ell-1}` and `\\mathbf{x}^{\\ell}`). A recurrence writes the quantity it defines at the
    step before on its right side: what defines the left side defines it."""
    if key_family(use_key) != key_family(other_key) or use_key == other_key:
        return False
    (pos_a, a), (pos_b, b) = _labels(use_key), _labels(other_key)
    if not pos_a or pos_a != pos_b:
        return False
    sa, sb = _step(a), _step(b)
    return sa is not None and sb is not None and sa[0] == sb[0] and sa[2] == sb[2] and sb[1] - sa[1] == 1


def next_step_keys(key: str) -> tuple[str, ...]:
    """The spellings the parser gives the key one step later (`x^{k}` → `x^{k + 1}`, `x^{(k)}` → `x^{(k + 1)}`;
    `\\mathbf{x}^{\\ell - 1}` → `\\mathbf{x}^\\ell `, `\\mathbf{x}^{\\ell}`), to look that key up among the displays'
    left sides. tests/test_definitions_quote_causes.py reads each form through the parser, so a change in how keys
    are printed shows there."""
    pos, label = _labels(key)
    step = _step(label) if pos else None
    if step is None:
        return ()
    family, (letter, shift, wrapped) = key_family(key), step
    if shift == 0:
        later = (f"{letter} + 1", f"{letter}+1")
        return tuple(f"{family}{pos}{{({s})}}" if wrapped else f"{family}{pos}{{{s}}}" for s in later)
    if shift == -1:
        if wrapped:
            return (f"{family}{pos}{{({letter})}}",)
        return (f"{family}{pos}{letter} ", f"{family}{pos}{{{letter}}}", f"{family}{pos}{letter}")
    return ()


@dataclass(frozen=True)
class Application:
    """How a formula applies a function symbol: to what, and given what (`p(x_t | x_{t-1})` → ({x}, {x}),
    `q(x_0)` → ({x}, ())). The arguments are kept by family (`x_t`, `x^w_0` → x): a density is one function whether
    it is written at step t or at step 0, and another function once it is conditioned or marginal."""

    args: frozenset[str]
    given: frozenset[str]
    conditional: bool
    written: tuple[str, ...] = ()
    """The arguments as printed, then what it is given (`p(x_t | x_{t-1})` → (x_t, |, x_{t - 1}))."""

    def agrees(self, other: Application) -> bool:
        """The same function as applied here: both conditional or both marginal, with shared argument families
        where both write some (`q_θ(x_0 | x_t)` agrees with `q_θ(x_0 | x_s)`, not with `q_θ(u | x_t)`)."""
        if self.conditional != other.conditional:
            return False
        return all(not a or not b or bool(a & b) for a, b in ((self.args, other.args), (self.given, other.given)))

    def written_as(self, other: Application) -> bool:
        r"""The very application written again: every argument the same, or a placeholder in its place
        (`F(\cdot, \Delta x)` writes the map `F(v(x), \Delta x)` takes for each Δx)."""
        return len(self.written) == len(other.written) and \
            all(a == b or _PLACEHOLDER.match(a) or _PLACEHOLDER.match(b) for a, b in zip(self.written, other.written))


_PLACEHOLDER = re.compile(r"^\s*(?:\\cdot|\\bullet|\\cdots|\\ast|\*|·)\s*$")


def application_of(tree, key: str) -> Application | None:
    """The one way a formula applies the function `key`: None when it never applies it, or applies it both
    conditioned and marginal (`p(x_t) = ∫ p(x_t | x_0) p(x_0)` holds two functions of one letter)."""
    if tree is None:
        return None
    found = list(_applications(tree, key))
    if not found or any(a.conditional != found[0].conditional for a in found):
        return None
    return found[0]


def mention_application(m: Mention, key: str) -> Application | None:
    """How the sentence's formula applies `key` first (its subject, when it is an application)."""
    from .definitions import _parse
    tree = _parse(m.math)
    return None if tree is None else next(_applications(tree, key), None)


def _applications(tree, key: str) -> Iterator[Application]:
    """Each application of the function `key` in the tree, in walking order."""
    from ..math import ast
    from .symbols import symbol_key
    for node in ast.walk(tree):
        if isinstance(node, ast.Apply) and symbol_key(node.func) == key:
            yield _application(node)


def spelled_out_application(m: Mention, key: str) -> Application | None:
    r"""The application of `key` that the sentence's formula writes out by an equality (`x_t \sim q(x_t | x_0) =
    \mathcal{N}(…)`: the draw names the distribution, the equality says what it is), wherever it stands in the
    chain."""
    from ..math import ast
    from .definitions import _parse
    from .symbols import symbol_key
    tree = _parse(m.math)
    if not isinstance(tree, ast.Relation):
        return None
    for left, op in zip(tree.operands, tree.ops):
        if op in ("=", ":=") and isinstance(left, ast.Apply) and symbol_key(left.func) == key:
            return _application(left)
    return None


def _application(node) -> Application:
    from ..math import to_latex
    written = tuple(to_latex(a) for a in node.args) + (("|",) + tuple(to_latex(g) for g in node.given)
                                                       if node.given else ())
    return Application(_families(node.args), _families(node.given), bool(node.given), written)


def _families(nodes) -> frozenset[str]:
    from .symbols import symbol_key
    keys = (symbol_key(n) for n in nodes)
    return frozenset(key_family(k) for k in keys if k and not _PLACEHOLDER.match(k))  # `\\cdot` is no argument
