"""The formulas of the paper's prose, classified sentence by sentence as a reading asks about them.

A symbol's candidates are the mentions that hold it (`mention_index`: as their subject, inside another formula,
by base, by family) and the mentions that define it (`by_key`, `by_base`). Classifying a sentence parses each of
its inline formulas; a whole-paper read classifies every sentence once (`ProseMentions.complete`), but a
one-equation reading needs the sentences that can write its symbols only. A sentence is classified for a key
when a cheap lexical test over its formulas (`equation_index.could_write`) says it can hold the key, and a
sentence's mentions depend on that sentence alone (`definitions.sentence_mentions`), so the candidates are the
same either way (tests/test_paper.py checks both on the corpus).

Mention ids are stable without classifying anything: each sentence with a formula owns a block of ids (one per
`$` or `\\(` it holds, an upper bound on its formulas), in document order; the rows of notation tables and the
acronyms the prose expands (both found without classifying sentences) come after every sentence.
"""
from __future__ import annotations

import bisect
from collections.abc import Mapping
from typing import Any, Iterator

from .candidates import key_family
from .definitions import (_MATH, Mention, _acronym_mentions, _inner, _table_mentions, sentence_formula_keys,
                          sentence_mentions)
from .equation_index import FormulaText, could_write, key_atoms

_RELATIONS = ("by_key", "by_base", "subject", "subject_base", "inside", "family")


class ProseMentions(Mapping):
    """Mention id → `Mention`, for every formula of the prose (then table rows and acronyms), computed per
    sentence on first use. `by_key`, `by_base` and `index` (a `MentionIndex`) are looked up per key."""

    def __init__(self, doc: Any, ordinals: frozenset[str]) -> None:
        self._ordinals = ordinals
        self._bases: list[int] = []
        self._sentences: list[tuple[int, int, str]] = []
        self._texts: list[FormulaText] = []
        base = 0
        for p_index, para in enumerate(doc.paragraphs):
            for s_index, sentence in enumerate(para.sentences):
                text = sentence.text
                if "$" not in text and "\\(" not in text:
                    continue
                self._bases.append(base)
                self._sentences.append((p_index, s_index, text))
                self._texts.append(FormulaText(" ".join(m.group(_inner(m)) or "" for m in _MATH.finditer(text))))
                base += text.count("$") + text.count("\\(") + 1
        self._end = base
        extra = _table_mentions(doc, ordinals) + _acronym_mentions(doc)
        self._extra = {base + k: m for k, m in enumerate(extra)}
        self._found: dict[int, Mention] = dict(self._extra)
        self._classified: set[int] = set()
        self._keys: dict[int, list] = {}
        self._candidates: dict[Any, list[int]] = {}
        self._memo: dict[tuple[str, str], list] = {}
        self._spellings: dict[tuple[str, Any], tuple[str, ...]] = {}
        self._by_spelling: dict[object, tuple[dict[str, list[str]], dict[str, list[str]]]] = {}
        self._full: dict[str, dict[str, list]] | None = None
        self.by_key = _View(self, "by_key")
        self.by_base = _View(self, "by_base")
        from .candidates import MentionIndex
        self.index = MentionIndex(_View(self, "subject"), _View(self, "subject_base"), _View(self, "inside"),
                                  _View(self, "family"))
        self.quotes = _Quotes(self)
        self.quotes.update((i, m.quote) for i, m in self._extra.items())

    # -- sentences --------------------------------------------------------------------------------------------
    def _classify(self, j: int) -> None:
        if j in self._classified:
            return
        from ..budget import outside_budget
        p_index, s_index, text = self._sentences[j]
        base = self._bases[j]
        with outside_budget():  # the paper's prose is not the reading's time
            found = sentence_mentions(text, p_index, s_index, self._ordinals)
        for k, mention in enumerate(found):
            if mention is not None:
                self._found[base + k] = mention
                self.quotes[base + k] = mention.quote
        self._classified.add(j)

    def _ids(self, j: int) -> Iterator[int]:
        self._classify(j)
        stop = self._bases[j + 1] if j + 1 < len(self._bases) else self._end
        return (i for i in range(self._bases[j], stop) if i in self._found)

    def complete(self) -> None:
        """Every sentence classified and every relation as a dictionary (what a whole-paper read uses)."""
        if self._full is not None:
            return
        full: dict[str, dict[str, list]] = {r: {} for r in _RELATIONS}
        for j in range(len(self._sentences)):
            for i in self._ids(j):
                _add(full, i, self._found[i])
        for i, mention in self._extra.items():
            _add(full, i, mention)
        self._full = full

    def _candidates_for(self, key: str) -> list[int]:
        atoms = key_atoms(key)
        found = self._candidates.get(atoms)
        if found is None:
            found = self._candidates[atoms] = [j for j, text in enumerate(self._texts) if could_write(atoms, text)]
        return found

    def lookup(self, relation: str, key: str) -> list:
        if self._full is not None:
            return self._full[relation].get(key, [])
        found = self._memo.get((relation, key))
        if found is None:
            found = []
            for j in self._candidates_for(key):
                if j not in self._classified and not self._may_hold(j, relation, key):
                    continue  # the sentence's formulas do not hold the key: it is classified when asked for
                for i in self._ids(j):
                    found += [value for k, value in _entries(relation, i, self._found[i]) if k == key]
            for i, mention in self._extra.items():
                found += [value for k, value in _entries(relation, i, mention) if k == key]
            self._memo[(relation, key)] = found
        return found

    def _may_hold(self, j: int, relation: str, key: str) -> bool:
        """Whether a mention of sentence `j` can have `key` in `relation` (`_entries`), from the keys of its
        formulas alone (`sentence_formula_keys`): a sentence none of whose formulas holds the key adds nothing
        to its lookup, and its patterns need not be matched for it."""
        fields = _HOLDING[relation]
        for part in self._formula_keys(j):
            if part is None:
                continue
            keys = [k for i in fields for k in part[i]]
            if key in (keys if relation != "family" else [key_family(k) for k in keys]):
                return True
        return False

    def _may_spell(self, j: int, spelling, key: str) -> bool:
        """Whether a formula of sentence `j` holds a key that `spelling` maps to `key` (what `spellings` keeps)."""
        parts = self._formula_keys(j)
        return any(spelling(k) == key for part in parts if part is not None for i in (0, 2, 3) for k in part[i])

    def _formula_keys(self, j: int) -> list:
        parts = self._keys.get(j)
        if parts is None:
            parts = self._keys[j] = sentence_formula_keys(self._sentences[j][2], self._ordinals)
        return parts

    def spellings(self, written: str, spelling) -> tuple[str, ...]:
        """The keys the prose holds (as a subject or inside a formula) that `spelling` maps to what it maps
        `written` to (`spelling`: a key without its weight), subject keys first, each in order of first mention
        — when there are two or more of them, else (). Only the sentences that can write `written` are
        classified (another weight of it writes the same command names and letters)."""
        key = spelling(written)
        found = self._spellings.get((written, spelling))
        if found is not None:
            return found
        if self._full is not None:
            # every key's spelling once per spelling function (a scan per call is keys × symbols on a big paper)
            by_spelling = self._by_spelling.get(spelling)
            if by_spelling is None:
                by_spelling = self._by_spelling[spelling] = ({}, {})
                for relation, into in zip(("subject", "inside"), by_spelling):
                    for k in self._full[relation]:
                        into.setdefault(spelling(k), []).append(k)
            keys = list(by_spelling[0].get(key, ()))
            keys += [k for k in by_spelling[1].get(key, ()) if k not in keys]
        else:
            subject: dict[str, None] = {}
            inside: dict[str, None] = {}
            held = [j for j in self._candidates_for(written)
                    if j in self._classified or self._may_spell(j, spelling, key)]
            for i in [i for j in held for i in self._ids(j)] + list(self._extra):
                m = self._found[i]
                if m.pattern != "ordinal":
                    subject.update((k, None) for k in m.keys + m.elements if spelling(k) == key)
                    inside.update((k, None) for k in m.inner if spelling(k) == key)
            keys = list(subject) + [k for k in inside if k not in subject]
        found = self._spellings[(written, spelling)] = tuple(keys) if len(keys) > 1 else ()
        return found

    # -- the mapping ------------------------------------------------------------------------------------------
    def __getitem__(self, i: int) -> Mention:
        found = self._found.get(i)
        if found is None and 0 <= i < self._end:
            self._classify(bisect.bisect_right(self._bases, i) - 1)
            found = self._found.get(i)
        if found is None:
            raise KeyError(i)
        return found

    def __iter__(self) -> Iterator[int]:
        self.complete()
        return iter(sorted(self._found))

    def __len__(self) -> int:
        self.complete()
        return len(self._found)


_HOLDING = {"by_key": (0,), "by_base": (1,), "subject": (0, 2), "subject_base": (1,), "inside": (3,),
            "family": (0, 2, 3)}
"""Per relation, which of a mention's keys (subject keys, bases, element keys, inner keys) its entries are of
(`_entries`: `by_key` holds `m.keys`, `family` the families of `m.keys + m.elements + m.inner`, …)."""


def _add(out: dict[str, dict[str, list]], i: int, m: Mention, only: str | None = None, key: str | None = None) -> None:
    """Index mention `i` as the whole-paper build did (`mention_index`, `by_key`/`by_base`); with `only`, just
    that relation's entries for `key`."""
    def put(relation: str, k: str, value: Any) -> None:
        if (only is None or relation == only) and (key is None or k == key):
            out[relation].setdefault(k, []).append(value)
    if m.strength > 0:
        for k in m.keys:
            put("by_key", k, i)
        for b in m.bases:
            put("by_base", b, i)
    if m.pattern == "ordinal":
        return
    for k in m.keys + m.elements:
        put("subject", k, i)
        put("family", key_family(k), (i, "subject", k))
    for b in m.bases:
        put("subject_base", b, i)
    for k in m.inner:
        put("inside", k, i)
        put("family", key_family(k), (i, "inside", k))


def _entries(relation: str, i: int, m: Mention) -> list[tuple[str, Any]]:
    """(key, value) of mention `i` in one relation, in the order `_add` puts them (a lookup of one key walks the
    candidate sentences' mentions for that relation alone)."""
    if relation == "by_key":
        return [(k, i) for k in m.keys] if m.strength > 0 else []
    if relation == "by_base":
        return [(b, i) for b in m.bases] if m.strength > 0 else []
    if m.pattern == "ordinal":
        return []
    if relation == "subject":
        return [(k, i) for k in m.keys + m.elements]
    if relation == "subject_base":
        return [(b, i) for b in m.bases]
    if relation == "inside":
        return [(k, i) for k in m.inner]
    return [(key_family(k), (i, "subject", k)) for k in m.keys + m.elements] + \
        [(key_family(k), (i, "inside", k)) for k in m.inner]


class _View(Mapping):
    """One relation, looked up per key (iterating it classifies every sentence)."""

    def __init__(self, mentions: ProseMentions, relation: str) -> None:
        self._mentions = mentions
        self._relation = relation

    def get(self, key: Any, default: Any = None) -> Any:
        found = self._mentions.lookup(self._relation, key)
        return found if found else default

    def __getitem__(self, key: str) -> list:
        found = self._mentions.lookup(self._relation, key)
        if not found:
            raise KeyError(key)
        return found

    def __contains__(self, key: object) -> bool:
        return bool(self._mentions.lookup(self._relation, key))  # type: ignore[arg-type]

    def __iter__(self) -> Iterator[str]:
        self._mentions.complete()
        assert self._mentions._full is not None
        return iter(self._mentions._full[self._relation])

    def __len__(self) -> int:
        self._mentions.complete()
        assert self._mentions._full is not None
        return len(self._mentions._full[self._relation])


class _Quotes(dict):
    """Mention id → its quote (what `CandidateOrder.first_per_quote` compares once per walked candidate: a plain
    dictionary, filled as sentences are classified; an id not classified yet classifies its sentence)."""

    def __init__(self, mentions: ProseMentions) -> None:
        super().__init__()
        self._mentions = mentions

    def __missing__(self, i: int) -> str:
        return self._mentions[i].quote
