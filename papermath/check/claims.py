"""Claim strength: a reading's claim compared with the paper's own wording.

Guide 002's check-paper-math skill "flags claims stronger or weaker than the paper's": the Transformer paper
offers the √d_k scaling "as the likely explanation" ("We suspect that …") and does not measure the gradients
itself, so a reading that says the paper *shows* it has dropped a hedge. The words are tables (data).
"""
from __future__ import annotations

import re

from .model import Claim
from .report import ClaimResult
from .text import PaperText, QuoteMatch, compact

# Hedges: the paper (or the claim) offers the statement as uncertain.
HEDGES: tuple[tuple[str, re.Pattern], ...] = tuple((name, re.compile(pattern, re.I)) for name, pattern in (
    ("likely", r"\b(?:likely|unlikely)\b"),
    ("we suspect", r"\b(?:we\s+)?suspect(?:s|ed)?\b"),
    ("may", r"\bmay\b"),
    ("might", r"\bmight\b"),
    ("could", r"\bcould\b"),
    ("suggests", r"\bsuggest(?:s|ed|ing)?\b"),
    ("appears", r"\b(?:appears?|seems?)\b"),
    ("possibly", r"\b(?:possibl[ey]|perhaps|probably|presumably|plausibl[ey])\b"),
    ("we believe", r"\b(?:we\s+)?(?:believe|hypothesi[sz]e|conjecture|speculate)\b"),
    ("rough", r"\b(?:rough(?:ly)?|informal(?:ly)?|intuition|heuristic(?:ally)?)\b"),
))
# Words of certainty: a claim that uses them where the paper hedges is stronger than the paper.
CERTAINTY: tuple[tuple[str, re.Pattern], ...] = tuple((name, re.compile(pattern, re.I)) for name, pattern in (
    ("because", r"\bbecause\b"),
    ("proves", r"\b(?:prove[sdn]?|proof)\b"),
    ("always", r"\b(?:always|never|invariably)\b"),
    ("shows", r"\b(?:show[sn]?|showed)\b"),
    ("demonstrates", r"\bdemonstrat(?:es|ed|e)\b"),
    ("guarantees", r"\b(?:guarantee[sd]?|ensures?|certainly|must)\b"),
    ("establishes", r"\b(?:establish(?:es|ed)?|confirm(?:s|ed)?|measure[sd]?)\b"),
))
MIN_SIMILARITY = 0.5
"""Below this, no sentence of the paper is taken to say what the claim says."""


def _words(table, text: str) -> tuple[str, ...]:
    plain = re.sub(r"\$[^$]*\$", " ", text)
    return tuple(name for name, pattern in table if pattern.search(plain))


def check_claim(claim: Claim, paper: PaperText) -> ClaimResult:
    """Locate the paper's sentence for a claim (its quote, else the closest sentence) and compare hedges."""
    match: QuoteMatch | None = None
    wording: str | None = None
    if claim.quote:
        match = paper.find(claim.quote)
        if match.found and match.passage is not None:
            wording = paper.sentence_around(match.passage, claim.quote)
        elif match.closest and match.similarity >= MIN_SIMILARITY:
            wording = None  # the quote itself is not in the paper: reported as not found
    else:
        match, wording = _closest_sentence(claim.text, paper)
    if wording is None:
        return ClaimResult(claim.text, match, match.closest if match else None, "not found", (), (),
                           (), claim.line)
    hedges_paper = _words(HEDGES, wording)
    hedges_claim = _words(HEDGES, claim.text)
    certainty_paper = set(_words(CERTAINTY, wording))
    certainty_claim = tuple(w for w in _words(CERTAINTY, claim.text) if w not in certainty_paper)
    if hedges_paper and not hedges_claim:
        verdict = "stronger"
    elif hedges_paper and certainty_claim:
        verdict = "stronger"
    elif hedges_claim and not hedges_paper:
        verdict = "weaker"
    else:
        verdict = "consistent"
    return ClaimResult(claim.text, match, wording, verdict, hedges_paper, hedges_claim, certainty_claim,
                       claim.line)


def _closest_sentence(text: str, paper: PaperText) -> tuple[QuoteMatch | None, str | None]:
    """Without a quote: the sentence of the paper that shares most with the claim (word overlap, then difflib)."""
    import difflib
    words = set(re.findall(r"[a-z]{3,}", compact_words(text)))
    if not words:
        return None, None
    scored = []
    for k, sentence in paper.sentences():
        other = set(re.findall(r"[a-z]{3,}", compact_words(sentence)))
        if other:
            scored.append((len(words & other) / len(words | other), k, sentence))
    scored.sort(key=lambda t: t[0], reverse=True)
    best = (0.0, None, None)
    target = compact(text)
    for _, k, sentence in scored[:12]:
        ratio = difflib.SequenceMatcher(None, target, compact(sentence), autojunk=False).ratio()
        if ratio > best[0]:
            best = (ratio, k, sentence)
    ratio, k, sentence = best
    if k is None:
        return None, None
    p = paper.passages[k]
    match = QuoteMatch(text, False, None, p.section, p.file, p.line, round(ratio, 3), sentence, k)
    return (match, sentence) if ratio >= MIN_SIMILARITY else (match, None)


def compact_words(text: str) -> str:
    return " ".join(re.sub(r"\$[^$]*\$", " ", text).lower().split())
