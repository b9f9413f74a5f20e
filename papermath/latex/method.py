"""Where the method is: the body sections that present the paper's method, with the evidence for each.

Evidence, each from the paper itself: a heading that names a method ("Method", "Proposed approach", "Model
architecture") or names the paper's own method (the title's name before its colon, an acronym the abstract
introduces, the title's distinctive words); the algorithm boxes a section holds; the words it shares with the
introduction's contributions list; and its numbered displays. Headings whose kind is known not to be the method
(introduction, related work, background, experiments, conclusion, …) and proofs or derivations are never chosen
while a body section has evidence; the appendix is searched only when the body has none.
"""
from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass

from .document import Document, Section

NOT_METHOD = re.compile(
    r"\b(?:introduction|related\s+works?|prior\s+work|previous\s+work|literature|background|preliminar\w*|"
    r"notations?|conclusions?|discussions?|limitations?|acknowledge?ments?|experiments?|experimental|evaluations?|"
    r"results?|ablations?|setups?|datasets?|benchmarks?|future\s+work|broader\s+impacts?|contributions|"
    r"references|case\s+stud\w*|human\s+evaluation|hyperparameters?|implementation\s+details|appendix|"
    r"additional|supplementary|qualitative|examples?)\b", re.IGNORECASE)
PROOF = re.compile(r"\b(?:proofs?|derivations?|lemmas?|theorems?|corollar\w*|propositions?)\b", re.IGNORECASE)
METHOD_WORDS = re.compile(
    r"\b(?:method\w*|approach\w*|model(?:ing|s)?|framework|algorithms?|architectures?|formulations?|proposed|"
    r"our|design|objective|training\s+(?:scheme|procedure|objective)|mechanism)\b", re.IGNORECASE)
_ACRONYM = re.compile(r"\(([A-Z][A-Za-z0-9\-]*[A-Z0-9][A-Za-z0-9\-]*)\)")
_WORD = re.compile(r"[A-Za-z][A-Za-z0-9\-]+")
STOPWORDS = frozenset(["a", "an", "the", "of", "for", "and", "or", "in", "on", "with", "without", "to", "by", "from", "via", "is", "are", "as", "at", "be", "we", "our", "your", "its", "is", "using", "toward", "towards", "into", "over", "under", "new", "large", "small", "deep", "learning", "model", "models", "neural", "network", "networks", "data", "via", "than", "all", "can", "via", "based"])


@dataclass(frozen=True)
class MethodSection:
    """A section that presents the method, and why."""

    section: Section
    equations: int
    """Display equations in it, numbered or not (its subsections included)."""
    score: float
    why: tuple[str, ...]
    """The evidence, in words ("heading names the method", "2 algorithm boxes", …)."""


def find_method(doc: Document, top: int = 3) -> list[MethodSection]:
    """The sections holding the method, best first: body sections with evidence; else, appendix ones."""
    units = _units(doc)
    names = _method_names(doc)
    contribution_words = _distinctive(" ".join(doc.contributions))
    scored = []
    for section, members in units:
        scored.append(_score(doc, section, members, names, contribution_words))
    body = [m for m in scored if m.score > 0 and not m.section.appendix and not _excluded(m.section)]
    if not body:
        body = [m for m in scored if m.score > 0 and not _excluded(m.section)]
    if not body:  # nothing but excluded kinds: the section with the most displays, whatever its heading
        body = [m for m in scored if m.equations > 0]
    body.sort(key=lambda m: (-m.score, _order(doc, m.section)))
    return body[:top]


def _excluded(section: Section) -> bool:
    return bool(NOT_METHOD.search(section.title) or PROOF.search(section.title))


def _units(doc: Document) -> list[tuple[Section, set[str]]]:
    """Top-level numbered sections (chapters in books), each with the ids of the headings under it."""
    levels = [s.level for s in doc.sections if s.number and s.level >= 0]
    if not levels:
        return []
    top = min(levels)
    units: list[tuple[Section, set[str]]] = []
    for section in doc.sections:
        if section.level == top and section.number:
            units.append((section, {section.id}))
        elif units and section.level > top:
            units[-1][1].add(section.id)
    return units


def _score(doc: Document, section: Section, members: set[str], names: set[str],
           contribution_words: set[str]) -> MethodSection:
    why: list[str] = []
    score = 0.0
    displays = [eq for eq in doc.equations if eq.section_id in members]
    numbered = sum(1 for eq in displays if eq.number)
    equations = len(displays)
    if equations:
        score += min(numbered + 0.5 * (equations - numbered), 10)
        why.append(f"{equations} display equation{'s' if equations != 1 else ''}"
                   + (f" ({numbered} numbered)" if numbered != equations else ""))
    boxes = sum(1 for alg in doc.algorithms if alg.section_id in members)
    if boxes:
        score += 4 * boxes
        why.append(f"{boxes} algorithm box{'es' if boxes != 1 else ''}")
    headings = [s.title for s in doc.sections if s.id in members]
    if METHOD_WORDS.search(section.title):
        score += 6
        why.append("heading names a method")
    title_words = {w.lower() for w in _WORD.findall(" ".join(headings))}
    named = sorted(n for n in names if n.lower() in title_words or n.lower() in section.title.lower())
    if named:
        score += 8
        why.append(f"heading names the paper's method ({named[0]})")
    shared = contribution_words & title_words
    if len(shared) >= 2:
        score += 3
        why.append("heading matches the contributions list")
    return MethodSection(section, equations, score, tuple(why))


def _method_names(doc: Document) -> set[str]:
    """What the paper calls its method: the title's name before a colon, acronyms the abstract or title
    introduces in parentheses, and the title's distinctive words (when the title has no colon)."""
    names: set[str] = set()
    title = doc.paper.title or ""
    head, colon, _ = title.partition(":")
    if colon and len(head.split()) <= 3:
        names.add(head.strip())
        names.update(w for w in _WORD.findall(head) if w.lower() not in STOPWORDS)
    for text in (title, doc.abstract or ""):
        names.update(m.group(1) for m in _ACRONYM.finditer(text))
    if not colon:
        names.update(w for w in _WORD.findall(title) if w.lower() not in STOPWORDS and len(w) > 3
                     and w[:1].isupper())
    return {n for n in names if n}


def _distinctive(text: str) -> set[str]:
    words = Counter(w.lower() for w in _WORD.findall(text))
    return {w for w in words if w not in STOPWORDS and len(w) > 3}


def _order(doc: Document, section: Section) -> int:
    return next(k for k, s in enumerate(doc.sections) if s.id == section.id)
