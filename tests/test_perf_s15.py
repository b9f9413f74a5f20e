"""Issue 18 (session 15): the prefilters that spare a one-equation command the displays that cannot answer
"yes", and the order of a message that depended on the hash seed.

A prefilter may only say "certainly not": for every corpus display and every key its paper writes, a "no" from
the textual test must be a "no" from the full parse. Speed itself is measured by benchmarks/scaling.py and
benchmarks/read_corpus.py, never here."""
from __future__ import annotations

import pytest

from papermath.analysis.equation_index import (FormulaText, base_letters, could_apply, could_define, could_write,
                                               key_atoms)

from conftest import CORPUS, corpus_paper

CORPUS_PAPERS = sorted(p.name for p in CORPUS.iterdir() if p.is_dir()) if CORPUS.is_dir() else []


@pytest.mark.parametrize("key, latex, applies", [
    # a letter that is a whole script: the bracket applies what the script is on
    ("a", "\\phi_a(x) := \\tanh(a x).", False),  # Tanh-Init eq:u1
    ("a", "\\phi_{a}(x)", False),
    ("a", "\\phi_{ a }(x)", False),
    ("a", "f = a(x)", True),
    ("b", "\\phi_{ab}(x)", True),  # not a whole script: not ruled out
    ("f", "\\_f(x)", True),  # an escaped underscore is no script
    # a Greek letter is applied as a plain letter is: a bracket after its scripts
    ("\\gamma_{t}", "z_{t+1} = z_{t}-\\gamma\\nabla f(y_{t}, \\zeta_t)", False),  # schedule_free eq:4
    ("\\gamma_{t}", "\\gamma_t(x)", True),
    ("\\epsilon", "\\varepsilon(x)", True),  # \varepsilon may print as \epsilon
    ("\\epsilon", "\\varepsilon x", False),
    ("\\mathbf\\mu", "\\boldsymbol{\\mu}_k(x)", True),
    ("\\mathbf\\mu", "\\boldsymbol{\\mu}_k x", False),
    ("\\theta", "\\phi_\\theta(x)", False),
    ("\\Pi", "\\Pi_{\\|z\\| \\le D} z", True),  # a projection takes no bracket: never ruled out
    # a bar or an angle bracket after a name makes a product, never a call (Parser._apply)
    ("g_{1}", "\\|g_t-g_{t-1}\\|^2", False),  # schedule_free eq:u37
    ("f", "f|x|", False),
    ("f", "f\\langle x, y\\rangle", False),
    # what the parser drops between a name and its bracket does not rule a call out
    ("f", "f\\quad(x)", True),
    ("f", "f~(x)", True),
    ("f", "f\\right(x", True),
    ("f", "f\\hspace{1em}(x)", True),
    ("f", "f \\cdot (x)", False),
    ("U", "t \\sim U {[0,1]}", True),  # a distribution over a braced interval (Parser._drawn_from)
    # a key with a subscript is applied only where the name carries one (or a bracket index gives it one)
    ("\\sigma_{t}", "\\log\\sigma \\left(-\\beta T \\omega(\\lambda_t)\\right)", False),  # DiffusionDPO eq:u6
    ("\\sigma_{t}", "\\sigma_t(x)", True),
    ("\\sigma_{t}", "{\\sigma}^{2}_{t}(x)", True),
    ("\\mathbf{x}_{k}", "\\bm{x}[k](t)", True),  # x[k] reads as x_{k}
    ("\\mathbf{x}_{k}", "\\bm{x}(t)", False),
    # an environment's name writes no letter
    ("d", "\\begin{aligned} \\lambda = \\exp(d) \\end{aligned}", False),
])
def test_could_apply_rules_out_only_what_the_parser_cannot_apply(key, latex, applies):
    assert could_apply(key, FormulaText(latex)) is applies


@pytest.mark.parametrize("latex, defines", [
    ("x = y", True),
    ("x := y", True),
    ("x \\coloneqq y", True),
    ("x \\gets x + 1", True),
    ("p(x) \\propto e^{-x}", True),
    ("x \\stackrel{\\text{def}}{=} y", True),
    ("y \\overset{!}{\\approx} z", True),
    ("\\max_{p_\\theta} \\mathbb{E}_{c \\sim p(c)}[r(c, x_0)]", False),  # an objective (DiffusionDPO eq:5)
    ("\\sum_{t=1}^T \\langle g_t, z_t - x \\rangle \\le D", False),  # a bound defines nothing
    ("x \\in \\mathbb{R}^d", False),
    ("x ≔ y", True),  # outside ASCII nothing is ruled out
])
def test_could_define_needs_a_defining_relation(latex, defines):
    assert could_define(FormulaText(latex)) is defines


@pytest.mark.parametrize("left, letters", [
    ("{\\mathbf{x}}_t^{\\text{num}} =", {"x", "n", "u", "m"}),  # TabDiff eq:3: t is a script's, not a base
    ("x_{t} + y^T =", {"x", "y"}),
    ("x_{tb} =", {"x", "t", "b"}),  # a script of two letters: not ruled out
    ("x_tb =", {"x", "b"}),  # TeX's `_t` takes t alone
    ("\\_t =", {"t"}),  # an escaped underscore is no script
])
def test_base_letters_leave_out_one_letter_scripts(left, letters):
    assert {c for c in base_letters(left) if c.isalnum()} == letters


def test_an_environment_name_is_no_letter_of_the_formula():
    text = FormulaText("\\begin{aligned} \\lambda &= 1 \\end{aligned}")
    assert not could_write(key_atoms("d"), text)
    assert not could_write(key_atoms("g"), text)
    assert could_write(key_atoms("\\lambda"), text)
    assert text.math.startswith(" " * len("\\begin{aligned}"))
    assert len(text.math) == len(text.latex)  # offsets kept


def test_an_unknown_name_lists_what_the_equation_has_in_the_order_it_writes_it():
    """`numbers --set`/`--fn` naming nothing lists the equation's names, shortest first and, among names of
    one length, in the order the equation writes them (a set's order changed with PYTHONHASHSEED: eomt)."""
    from papermath.evaluate.names import _unknown
    from papermath.math import parse

    for order in (["\\mathbf{Z}^{i}", "\\mathbf{X}^{i}", "i"], ["\\mathbf{X}^{i}", "\\mathbf{Z}^{i}", "i"]):
        candidates = {latex: parse(latex).tree for latex in order}
        message = _unknown("q", "--set", candidates, {}, "q")
        assert message.endswith(f"(it has: i, {order[0]}, {order[1]})")


@pytest.mark.corpus
def test_a_prefilter_no_is_a_parse_no_on_every_corpus_display():
    """For every display of every corpus paper and every key the paper's displays write: when the index's
    definer test (`could_define`, the left side's `could_write` and `base_letters`) rules the display out for the
    key, its parse does not define the key (`lhs_keys`, with or without the subscript); when `could_apply` rules
    it out, its parse applies the key nowhere (no `function` use)."""
    import papermath
    from papermath.analysis.definitions import ordinal_indices
    from papermath.analysis.equation_index import _SUBSCRIPT, EquationIndex
    from papermath.analysis.symbols import collect

    if not CORPUS_PAPERS:
        corpus_paper("DyT")  # skips with the reason
    ruled_out = 0
    for name in CORPUS_PAPERS:
        paper = papermath.open(str(corpus_paper(name)))
        ordinals = ordinal_indices(paper.doc)
        index = EquationIndex(list(paper.doc.equations), lambda eq: (None, (), None))  # its tests, not its parses
        read = {}
        for eq in paper.doc.equations:
            parsed = paper.parse(eq.latex)
            if parsed is not None:
                read[eq.id] = (eq, collect(parsed.tree, ordinals))
        keys = sorted({u.key for _, s in read.values() for u in s.uses} |
                      {k for _, s in read.values() for k in s.lhs_keys})
        for key in keys:
            admitted = {eq.id for eq in index._definers_for(key)}
            for eq, symbols in read.values():
                if eq.id not in admitted:
                    assert key not in set(symbols.lhs_keys) | {_SUBSCRIPT.sub("", k) for k in symbols.lhs_keys}, \
                        (name, eq.id, key, eq.latex[:200])
                    ruled_out += 1
                if not could_apply(key, FormulaText(eq.latex)):
                    assert key not in {u.key for u in symbols.uses if u.kind == "function"}, \
                        (name, eq.id, key, eq.latex[:200])
                    ruled_out += 1
    assert ruled_out > 10000


@pytest.mark.corpus
def test_a_sentences_formula_keys_are_its_mentions_keys_on_every_corpus_sentence():
    """A one-equation lookup matches a sentence's patterns only when the keys of its formulas can answer it
    (`ProseMentions._may_hold`, from `definitions.sentence_formula_keys`): on every corpus sentence the keys
    come formula for formula as `sentence_mentions` gives them, and every entry a mention makes in any relation
    is one `_may_hold` admits."""
    import papermath
    from papermath.analysis.definitions import sentence_formula_keys, sentence_mentions
    from papermath.analysis.prose_index import _RELATIONS, _entries

    if not CORPUS_PAPERS:
        corpus_paper("DyT")  # skips with the reason
    entries = 0
    for name in CORPUS_PAPERS:
        mentions = papermath.open(str(corpus_paper(name))).index.mentions
        for j, (p_index, s_index, text) in enumerate(mentions._sentences):
            found = sentence_mentions(text, p_index, s_index, mentions._ordinals)
            parts = sentence_formula_keys(text, mentions._ordinals)
            assert [None if m is None else (m.keys, m.bases, m.elements, m.inner) for m in found] == parts, text
            for k, m in enumerate(found):
                if m is None:
                    continue
                for relation in _RELATIONS:
                    for key, _ in _entries(relation, mentions._bases[j] + k, m):
                        assert mentions._may_hold(j, relation, key), (name, relation, key, text)
                        entries += 1
    assert entries > 5000
