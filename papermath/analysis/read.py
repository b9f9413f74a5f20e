"""`read`: the reading of each display equation — guide 002's read-paper-math procedure, deterministically.

    doc = load_document(source)              # source → latex
    reading = read_document(doc)             # analysis: symbols, quoted definitions, roles, shapes, kinds

Within `read_document`, one stage per line: index the prose once (every inline formula parsed and its
definition pattern classified), then read each equation against that index.
"""
from __future__ import annotations

import re
from functools import lru_cache
from dataclasses import dataclass, field, replace
from typing import Any

from ..errors import Diagnostic, MathParseError
from ..latex.document import Document, Equation
from ..latex.groups import split_top_level
from ..math import ast, parse, to_latex
from ..notation import conventional_meaning
from .cues import (BOUND_WORDS, CONSTRAINT_OPS, D_DIMENSIONAL, ESTIMATE_OPS, FIT_WORDS, LOSS_NAME, MATRIX_SIZE,
                   MEMBERSHIP_OPS, OBJECTIVE_WORDS, OF_DIMENSION, RELATION_KINDS, SHAPE_TUPLE, SHAPE_WORDS,
                   role_from_description)
from .candidates import (DEFINES, MENTIONS, Application, CandidateOrder, application_of,  # noqa: F401
                         display_context, equation_place, key_family, next_step_keys, paragraph_index, previous_step,
                         lead_paragraph, mention_application, mention_index, places, rank_candidates,
                         same_family_meaning, spelled_out_application)
from . import roles
from .definitions import (Mention, defined_by_sign, is_component, membership_groups, ordinal_indices,
                          row_description, sentence_mentions)
from .members import about_another_member, split_defined_members, split_other_members
from .notation_index import INLINE
from .producers import loss_named_in_words, produced_by_clause
from .reading import Definition, EquationReading, PaperReading, ReductionReading, SymbolReading
from .symbols import (CONCAT_KEY, INNER_PRODUCT_KEY, NORM_KEY, FormulaSymbols, SymbolUse, braceless, collect,
                      formulas_in_words, principal_keys, symbol_key, written_form)

OPERATOR_MEANINGS = {
    "transpose": "\\top", "norm": "\\|", "indicator": "indicator", "gradient": "\\nabla", "divergence": "KL",
    "\\odot": "\\odot", "\\otimes": "\\otimes", "\\circ": "\\circ", "\\oplus": "\\oplus",
}


@dataclass(frozen=True)
class PaperIndex:
    """What the prose says, indexed once per paper."""

    doc: Document
    """The document model."""
    ordinals: frozenset[str]
    """Letters the paper uses as positions ("the $t$-th token")."""
    mentions: Any
    """Every inline formula of the prose with its definition pattern: mention id → `Mention`
    (`analysis.prose_index.ProseMentions`, each sentence classified on first use)."""
    by_key: dict
    """Symbol key → indices into `mentions` that define it (strength > 0)."""
    by_base: dict
    """Subscript-stripped key → the same."""
    formulas: dict
    """Equation id → (FormulaSymbols or None, parse warnings, error message or None)."""
    functions: frozenset[str]
    """Operator names the paper declares (\\DeclareMathOperator)."""
    paper: Any = None
    """The paper session (`papermath.paper.Paper`) the index was built from."""
    defined_by: dict = field(default_factory=dict)
    """Symbol key → the first equation whose left-hand side defines it."""
    used_in: dict = field(default_factory=dict)
    """Symbol key → ids of the equations that use it outside their left-hand side, in document order."""
    order: dict = field(default_factory=dict)
    """Equation id → its position in the document."""
    definers: dict = field(default_factory=dict)
    """Symbol key → ids of every equation whose left-hand side defines it, in document order; a left side written
    with a subscript (`z_1 = 0`, key `z_{1}`) is also listed under its base (`z`)."""
    equations: Any = None
    """The lazy index behind `formulas`, `defined_by`, `used_in`, `definers` (`analysis.equation_index`):
    `.function_keys` (keys some display applies as a function), `.complete()` (every display parsed)."""


def index_paper(source: Any) -> PaperIndex:
    """The paper's index (built once per paper session): `source` is a `Paper` session or a `Document`."""
    from ..paper import paper_of
    return (source if not isinstance(source, Document) else paper_of(source)).index


def build_paper_index(paper: Any) -> PaperIndex:
    """Classify the prose around each inline formula once; index which equation defines, uses and applies each
    symbol (`Paper.index` calls this once). The display equations are parsed as a reading asks about them
    (`analysis.equation_index`): a one-equation command parses the displays that can write its symbols, a
    whole-paper read all of them once (`read_document` completes the index first)."""
    from .equation_index import EquationIndex
    from .prose_index import ProseMentions

    doc = paper.doc
    ordinals = ordinal_indices(doc)
    mentions = ProseMentions(doc, ordinals)
    equations = EquationIndex(list(doc.equations), lambda eq: _parse_equation(paper, eq, ordinals))
    return PaperIndex(doc, ordinals, mentions, mentions.by_key, mentions.by_base, equations.formulas,
                      paper.functions, paper, equations.defined_by, equations.used_in, equations.order,
                      equations.definers, equations)




def _parse_equation(paper, eq: Equation, ordinals):
    found = paper.parse_result(eq.latex)
    if isinstance(found, MathParseError):
        return None, (), f"formula does not parse: {found.message} (at offset {found.offset})"
    return collect(found.tree, ordinals), found.warnings, None


def read_document(source: Any, keys: list[str] | None = None) -> PaperReading:
    """Readings of all display equations, or of the ones named by number, id or label. `source` is a `Paper`
    session or a `Document`."""
    from ..paper import paper_of
    paper = source if not isinstance(source, Document) else paper_of(source)
    doc = paper.doc
    equations = [paper.equation(key) for key in keys] if keys else list(doc.equations)
    if not keys:  # every display is read: parse every formula once, and look keys up in dictionaries
        paper.index.equations.complete()
        paper.index.mentions.complete()
    readings = tuple(paper.reading(eq) for eq in equations)
    diagnostics = list(doc.diagnostics)
    for eq in equations:
        error = paper.index.formulas[eq.id][2]
        if error:
            diagnostics.append(Diagnostic("error", f"{eq.id}: {error}", paper.formula(eq.id).error.position))
    diagnostics.extend(paper.skipped)  # equations that ran out of their time budget
    return PaperReading(doc.paper, readings, tuple(diagnostics))


@dataclass(frozen=True)
class EquationSymbols:
    """The part of an equation's reading about its symbols (what `shapes`, `numbers` and `code` read from it): the
    rows, the reductions, the symbols nothing defines and those only mentioned. The rest of a reading (its kind,
    the equations that use it) asks about other displays and is computed only when the reading is."""

    symbols: tuple[SymbolReading, ...]
    reductions: tuple[ReductionReading, ...]
    undefined: tuple[str, ...]
    mentioned: tuple[str, ...]


def read_equation(index: PaperIndex, eq: Equation, part: EquationSymbols | None = None) -> EquationReading:
    """The reading of one equation: its symbols with quoted definitions, roles, shapes; reductions; kind; the
    equations that use what it defines. `part`: its symbols, when `read_symbols` gave them already."""
    doc = index.doc
    info, warnings, error = index.formulas[eq.id]
    before = lead_paragraph(doc, eq)
    after = doc.paragraph(eq.paragraph_after)
    if info is None:
        return unread_equation(doc, eq, "formula did not parse", error)
    if part is None:
        part = read_symbols(index, eq)
    assert part is not None
    kind, cue = _kind(eq, info, before, after, index)
    uses = _used_by(index, eq.id, info.lhs_keys)
    return EquationReading(eq.id, eq.number, eq.section, eq.latex, kind, cue, part.symbols, part.reductions,
                           part.undefined, uses, tuple(info.lhs_keys),
                           before.text if before else None, after.text if after else None,
                           eq.span.file, eq.span.line, tuple(warnings), part.mentioned)


def read_symbols(index: PaperIndex, eq: Equation) -> EquationSymbols | None:
    """The symbols of one equation's reading (`EquationSymbols`), None when its formula does not parse."""
    doc = index.doc
    info = index.formulas[eq.id][0]
    if info is None:
        return None
    defined_elsewhere = index.defined_by
    symbols: list[SymbolReading] = []
    undefined: list[str] = []
    mentioned: list[str] = []
    for head, head_info, use in _continued_left_sides(index, eq, info):
        # `= \\sum_k …` continuing (2)'s `MHA_q(X) := …`: the row still computes (2)'s left side
        symbols.append(replace(_read_symbol(index, head, use, head_info, defined_elsewhere),
                               id=f"{eq.id}/sym:{written_form(use)}"))
    members = split_other_members(split_defined_members(index, info.uses),  # x_0, which the paper defines alone
                                  _left_side_forms(_display_tree(index, eq)))  # x_t beside the x_{t+1} it gives
    for use, member_of in members:
        reading = _read_symbol(index, eq, use, info, defined_elsewhere)
        if member_of is not None:
            reading = _other_member(reading, use, symbols[-1])  # the member follows its left side's row
        symbols.append(reading)
        if reading.definition is None and reading.conventional is None and reading.kind != "index" and \
                reading.role != "defined here" and (reading.role != "computed" or _computed_unsaid(reading)):
            # Undefined only when no sentence of the paper writes the letter at all; a sentence that writes it
            # with another label makes it "mentioned, not defined" (the candidates show where).
            (mentioned if reading.redefinitions else undefined).append(reading.latex)
        elif reading.definition is None and reading.kind == "index" and use.key not in index.ordinals and \
                _free_index_cue(index, eq, info, use) is None:
            undefined.append(reading.latex)
        elif ((reading.definition is not None and reading.definition.strength != DEFINES) or
              (reading.definition is None and reading.redefinitions)) and \
                reading.conventional is None and reading.role not in ("defined here", "computed"):
            mentioned.append(reading.latex)
    symbols += _weights_of_subscripted_models(index, eq, info, symbols, defined_elsewhere)
    own_context = set(display_context(doc, eq))
    for use, cue in _bound_indices(info, symbols):
        # `\sum_{h=1}^{H}`: the index a sum runs over is a row (a reader asks what h counts); the sum defines it,
        # so it is never "undefined" and it is an index whatever else the letter is; the paper's sentence, where
        # one says more ("the h-th head"), is quoted
        reading = _read_symbol(index, eq, use, info, defined_elsewhere)
        if reading.definition is not None and reading.definition.paragraph not in own_context:
            # a sentence elsewhere about the letter (`stepsize $t_i$`) is about another t than the one bound here
            reading = replace(reading, definition=None, redefinitions=(reading.definition,) + reading.redefinitions)
        symbols.append(replace(reading, role="index", role_cue=cue, bound_by=use.bound_by))
    defined_notations = set()
    for key, shown in info.notations:
        # an operator notation the paper defines in words ("$[\\cdot;\\cdot]$ denotes concatenation") is quoted like
        # a symbol; one it never defines keeps its conventional meaning below, or no row
        if any(s.latex == shown for s in symbols):
            continue
        notation = _read_symbol(index, eq, SymbolUse(key, ast.Symbol(key), "function", first_written=shown,
                                                     known_function=True), info, defined_elsewhere)
        if notation.definition is not None and notation.definition.strength == DEFINES:
            symbols.append(replace(notation, id=f"{eq.id}/sym:{shown}", latex=shown, kind="operator",
                                   role="function", role_cue="an operator the paper defines", conventional=None))
            defined_notations.add(key)
        elif key in _NOTATION_MEANINGS:
            symbols.append(SymbolReading(f"{eq.id}/sym:{shown}", shown, shown, (), "operator", "function",
                                         "standard notation", None, None, _NOTATION_MEANINGS[key], None))
    for op in info.operators:
        if OPERATOR_MEANINGS.get(op, op) in defined_notations or _OPERATOR_NOTATION.get(op) in defined_notations or \
                op == "indicator" and \
                any(k.endswith("{1}") for k in defined_notations):
            continue
        meaning = _conventional(OPERATOR_MEANINGS.get(op, op))
        if meaning is not None:
            latex = {"transpose": "^{\\top}", "norm": "\\|\\cdot\\|", "indicator": "\\mathbb{1}[\\cdot]",
                     "gradient": "\\nabla", "divergence": "D_{\\mathrm{KL}}"}.get(op, op)
            symbols.append(SymbolReading(f"{eq.id}/sym:{latex}", latex, latex, (), "operator", "function",
                                         "standard notation", None, None, meaning, None))
    reductions = _as_the_paper_names_them(tuple(_read_reduction(r) for r in info.reductions) +
                                          _extrema_of_terms(_display_tree(index, eq)), symbols)
    for red in info.reductions:
        meaning = _conventional(to_latex(red.operator)) or _conventional(red.op)
        if meaning and red.variables:
            # The dictionary speaks of "the index i"; say which index this reduction runs over.
            over = "the index " + ", ".join(to_latex(v) for v in red.variables)
            meaning = re.sub(r"\bthe index i\b", lambda _: over, meaning)
        latex = to_latex(red.operator)
        if meaning and not any(s.latex == latex for s in symbols):
            symbols.append(SymbolReading(f"{eq.id}/sym:{latex}", latex, latex, (), "operator", "function",
                                         "standard notation", None, None, meaning, None))
    return EquationSymbols(tuple(symbols), reductions, tuple(dict.fromkeys(undefined)),
                           tuple(dict.fromkeys(mentioned)))


def _weights_of_subscripted_models(index: PaperIndex, eq: Equation, info: FormulaSymbols,
                                   shown: list[SymbolReading], defined_elsewhere: dict[str, str]) -> list[SymbolReading]:
    """`\\bm{\\mu}_{\\bm{\\theta}}(\\bm{x}_t)`, `q_\\phi(z | x)`: a model applied to its input with a Greek letter as
    its subscript is written with its weights; the letter is a symbol of the display (a reader asks what θ is), a
    row of its own where the display writes it nowhere else: what its sentences say it is, else the model's
    trained weights."""
    have = {s.symbol for s in shown} | {s.latex for s in shown}
    found: list[SymbolReading] = []
    for use in info.uses:
        node = use.node.func if isinstance(use.node, ast.Apply) else use.node
        label = node.sub_label if isinstance(node, ast.Symbol) and use.kind == "function" else None
        if not isinstance(label, ast.Symbol) or label.sub_label is not None or label.sup_label is not None or \
                not label.name.startswith("\\") or label.name[1:] not in _GREEK_LETTERS:
            continue
        key = to_latex(label)
        if key in have:
            continue
        have.add(key)
        reading = _read_symbol(index, eq, SymbolUse(key, label, "symbol", first_written=key), info, defined_elsewhere)
        if reading.role == "unknown":
            reading = replace(reading, role="trained weight",
                              role_cue=f"the subscript of a model (${to_latex(node)}$): its weights")
        found.append(reading)
    return found


_GREEK_LETTERS = frozenset(("theta", "vartheta", "phi", "varphi", "psi", "omega", "eta", "xi", "zeta"))
"""The letters papers write a model's weights with, as its subscript (`p_\\theta`, `q_\\phi`, `f_\\psi`)."""


def _left_side_forms(tree: ast.Node | None) -> frozenset[str]:
    """The forms the left side of a defining relation writes (`x_{t + 1}` of `x_{t+1} = … x_t …`); empty for any
    other statement (an inequality relates members, it defines none)."""
    if isinstance(tree, ast.Sequence) and tree.items:
        tree = tree.items[0]
    if not isinstance(tree, ast.Relation) or not tree.ops or tree.ops[0] not in roles.DEFINING_OPS:
        return frozenset()
    return frozenset(form for u in collect(tree.operands[0], frozenset()).uses for form in u.written)


def _other_member(reading: SymbolReading, use: SymbolUse, left: SymbolReading) -> SymbolReading:
    """The row of another member of the sequence the display's left side (`left`, read already) belongs to: what
    a sentence that writes this very member says it is (`x_0` "the data" is split off before, by
    `split_defined_members`), or for a member at a fixed position (an end the sequence runs from) whatever decides
    its role; else computed, by the same rule at another step (`x_t` in `x_{t+1} = …`), and defined by the sentence
    that defines the sequence (the left side's)."""
    said = reading.definition is not None and reading.definition.strength == DEFINES and \
        _writes_indexed(reading.definition.quote, use.key, tuple(use.indices))
    at_a_fixed_position = all(i.strip().isdigit() for i in use.indices)
    if (said or at_a_fixed_position) and reading.role not in ("unknown", "defined here"):
        return reading  # `t_1` of `t_i = (t_1^{1/ρ} + …)^ρ`, an end the schedule starts from: what the paper says
    step = _step_free(use.first_written) == _step_free(left.latex)
    cue = f"the previous step of ${left.latex}$ (this recurrence computes it)" if step else \
        f"another member of the sequence ${left.latex}$ this display defines"
    definition = reading.definition if said or left.definition is None else left.definition
    return replace(reading, role="computed", role_cue=cue, definition=definition)


def _computed_unsaid(reading: SymbolReading) -> bool:
    """A computed quantity that no sentence and no display defines (a name a rewriting of the row before gives a
    part of it): what it is computed from is the reader's inference; the paper never says what it is."""
    return reading.defined_by is None and not reading.redefinitions and bool(reading.role_cue) and \
        reading.role_cue.startswith(_REWRITING_CUE)


_INDEXING_OPS = {"sum": "sum", "prod": "product", "int": "integral"}
_GREEK_INDEX = frozenset(("ell", "tau", "nu", "mu", "kappa"))


def _bound_indices(info: FormulaSymbols, shown: list[SymbolReading]) -> list[tuple[SymbolUse, str]]:
    """The one-letter indices the formula's sums, products and integrals run over that have no row yet, each with
    the range the reduction writes (`the index the sum runs over: h = 1 … H`)."""
    have = {s.symbol for s in shown} | {s.latex for s in shown}
    found: list[tuple[SymbolUse, str]] = []
    for red in info.reductions:
        if red.op not in _INDEXING_OPS:
            continue
        for var in red.variables:
            if not (isinstance(var, ast.Symbol) and var.font is None and var.sub_label is None and
                    var.sup_label is None and (len(var.name) == 1 or var.name.lstrip("\\") in _GREEK_INDEX)):
                continue
            key = to_latex(var)
            if key in have:
                continue
            have.add(key)
            span = ""
            if red.lower is not None and red.upper is not None:
                span = f": {key} = {to_latex(red.lower)} … {to_latex(red.upper)}"
            elif red.domain is not None:
                span = f": {key} \\in {to_latex(red.domain)}"
            found.append((SymbolUse(key, var, "index", first_written=key, bound_by=red.op),
                          f"the index the {_INDEXING_OPS[red.op]} runs over{span}"))
    return found


# Bracket notations the notation dictionary has no entry for (it is keyed by command names).
_NOTATION_MEANINGS = {
    CONCAT_KEY: "concatenation of the parts, in order (the standard bracket notation)",
    INNER_PRODUCT_KEY: "the inner product of its two arguments",
}

_OPERATOR_NOTATION = {"norm": NORM_KEY}
"""An operator and the notation row that quotes the paper's own definition of it (no conventional row beside it)."""

_CONTINUATION = re.compile(r"\s*&?\s*(?:=|:=|\\approx|\\leq?|\\geq?|<|>|\\propto|\\equiv)(?![A-Za-z])")


def _continued_left_sides(index: PaperIndex, eq: Equation, info: FormulaSymbols):
    """For a row of an align that starts with its relation (`=& …`), the left side of the row it continues: the
    nearest earlier row of the same display that has one, with that row's formula (empty for any other row)."""
    if eq.row == 0 or not _CONTINUATION.match(eq.latex):
        return []
    equations = index.doc.equations
    position = _display_order(index.doc).get(eq.id, 0)
    for earlier in reversed(equations[:position]):
        if earlier.group != eq.group:
            return []
        head_info = index.formulas[earlier.id][0]
        if head_info is None:
            return []
        if head_info.lhs_keys:
            own = {u.key for u in info.uses}
            return [(earlier, head_info, u) for u in head_info.uses if u.lhs and u.key not in own]
    return []


def unread_equation(doc: Document, eq: Equation, cue: str, message: str) -> EquationReading:
    """The reading of an equation that could not be read (it does not parse, or it ran out of its time
    budget): its text and place, no symbols, and why."""
    before = doc.paragraph(eq.paragraph_before)
    after = doc.paragraph(eq.paragraph_after)
    return EquationReading(eq.id, eq.number, eq.section, eq.latex, "computation", cue, (), (), (), (), (),
                           before.text if before else None, after.text if after else None,
                           eq.span.file, eq.span.line, (message,))


def _used_by(index: PaperIndex, eq_id: str, lhs_keys) -> tuple[str, ...]:
    """The equations that use what `eq_id` defines (outside their own left-hand side), in document order: from
    the inverted index of used symbols, never by comparing every pair of equations."""
    if not lhs_keys:
        return ()
    found = {other for key in lhs_keys for other in index.used_in.get(key, ()) if other != eq_id}
    if not found:
        return ()
    return tuple(sorted(found, key=index.order.__getitem__))


def _conventional(name: str) -> str | None:
    candidates = [name]
    m = re.match(r"\\(?:operatorname\*?|mathrm|text|mathop)\{(.+)\}$", name)
    if m:
        candidates.append(m.group(1))
    candidates += [c.lower() for c in candidates]
    for candidate in candidates:
        entry = conventional_meaning(candidate)
        if entry is not None:
            return entry.reading
    return None


def _read_symbol(index: PaperIndex, eq: Equation, use: SymbolUse, info: FormulaSymbols,
                 defined_elsewhere: dict[str, str]) -> SymbolReading:
    latex = written_form(use)
    sid = f"{eq.id}/sym:{latex}"
    # The display that defines the symbol (this one for its left side, another for a computed quantity): its
    # lead-in and its "where" paragraph define the symbol, wherever the symbol is used. (Only a quantity used,
    # not defined here, is looked up: an index or a left side never asks which display defines it.)
    other_id = None if use.lhs or use.kind == "index" else \
        defined_elsewhere.get(use.key) or defined_elsewhere.get(latex)
    home = eq if use.lhs or _declares_the_map(index, eq, use) else \
        (index.doc.equation(other_id) if other_id and other_id != eq.id and use.kind != "index" and
         _conventional(use.key) is None else None)
    if home is not None and home is not eq and _display_order(index.doc).get(home.id, 0) > \
            _display_order(index.doc).get(eq.id, 0):
        home = None  # a later display that sets the symbol (γ = D/(G√T) in a theorem) does not define it here
    found = _find_definitions(index, eq, use, home)
    # "a data point $x_0$" speaks of x_0, a row of its own where the paper defines it alone, not of x_t: kept as a
    # sentence about the same letter (a candidate, never this symbol's definition)
    shown = frozenset(braceless(form) for u in info.uses for form in u.written)
    found = [(m, replace(d, pattern="same letter", strength=MENTIONS))
             if m is not None and about_another_member(index, use, tuple(m.keys), shown) else (m, d)
             for m, d in found]
    defining = [(m, d) for m, d in found if d.strength == DEFINES]
    if use.sampled or use.bound_by == "E":
        # A sample is defined by the sentence that says what it is drawn from ("with $t \\sim \\mathcal{U}(0, T)$").
        own_context = set(display_context(index.doc, eq))
        drawn = [(m, d) for m, d in defining if m is not None and m.pattern == "sampled" and
                 d.paragraph in own_context]
        defining = drawn + [c for c in defining if c not in drawn]
    best = defining[0] if defining else None
    if home is not None:
        best = _home_definition(index, eq, use, home, best, defining)
    best, home = _recurrence_lead(index, eq, use, info, best, home)
    drawn_here = use.sampled or use.bound_by == "E"
    if best is None and (drawn_here or (not use.lhs and use.kind == "symbol")):
        # "\\epsilon \\sim \\mathcal{N}(0, I)" written in a display: the first display that draws the symbol
        # says what it is (TabDiff (3), and (5) which draws it again under its expectation; (12), which uses the
        # noise without drawing it, as well).
        drawn = _drawn_in_display(index, use.key)
        if drawn is not None and (drawn_here or _draws_the_symbol(drawn.quote, use.key)):
            best = (None, drawn)
    if best is None and not use.lhs:
        worded = loss_named_in_words(index, eq, use)  # "the Dice loss" for L_dice, in the display's lead-in
        if worded is not None:
            best = (None, worded)
    if best is None and found:
        # mentioned, not defined: the mention is the evidence (a sentence that writes another label of the letter
        # is kept among the candidates, not quoted as this symbol's)
        best = next(((m, d) for m, d in found if d.pattern != "same letter"), None)
    mention, definition = best if best else (None, None)
    # The next candidates: other defining sentences first, then mentions.
    redefinitions = tuple([d for _, d in defining if d is not definition] +
                          [d for _, d in found if d.strength != DEFINES and d is not definition])[:4]
    # Only what is shown is placed on its source line: the definition and the redefinitions listed with it.
    mention_of = {id(d): m for m, d in found}
    definition = _placed(index, mention_of.get(id(definition)), definition)
    redefinitions = tuple(_placed(index, mention_of.get(id(d)), d) for d in redefinitions)
    conventional = None
    if (definition is None or definition.strength != DEFINES) and not use.lhs:
        if use.kind == "function":
            conventional = _conventional(use.key)
            if conventional is None and use.known_function:
                conventional = f"the standard function {use.key} (the paper uses it without defining it)"
        else:
            conventional = _conventional_symbol(use.key)
    if use.kind == "index":
        role, role_cue = _index_role(index, eq, use, info, mention, definition)
    elif use.lhs or use.clause_lhs:
        role, role_cue = "defined here", _left_side_cue(eq, use)
    elif use.kind == "function" and other_id and other_id != eq.id and LOSS_NAME.match(use.key) and \
            _conventional(use.key) is None:
        other = index.doc.equation(other_id)
        role, role_cue = "computed", f"computed by ({other.number})" if other.number else f"computed by {other_id}"
    elif use.kind == "function" and _named_loss(use.key) and not _worded_function(mention, definition):
        role, role_cue = "computed", f"{use.key} names a loss (computed from the model's outputs)"
    elif use.kind == "function":
        role, role_cue = _function_role(index, use, mention, definition)
    else:
        role, role_cue = _quantity_role(index, eq, use, info, defining, mention, definition, defined_elsewhere, found)
    shape, shape_cue = _shape_from_text(index, use, defining, info, eq) if use.kind != "index" else (None, None)
    also = tuple(form for form in dict.fromkeys(use.written) if form != latex and _spaceless(form) != _spaceless(latex))
    return SymbolReading(sid, latex, use.key, tuple(use.indices), use.kind, role, role_cue, shape, shape_cue,
                         conventional, definition, redefinitions, home.id if home is not None else None, also)


def _index_role(index: PaperIndex, eq: Equation, use: SymbolUse, info: FormulaSymbols, mention: Mention | None,
                definition: Definition | None) -> tuple[str, str | None]:
    """The role of a free index: a position, unless the range it ends makes it a count, the words of its defining
    sentence name data, a setting or weights."""
    role, role_cue = "index", (definition.quote if definition else
                               _free_index_cue(index, eq, info, use) or "a subscript position")
    count = _count_or_dimension(info, use, ()) if not _indexes_left_side(info, use.key) else None
    if count is not None:
        # `x_n` and `\sum_{j=1}^n`: the letter that ends the range is the count (how many), not a position
        role, role_cue = "fixed setting", count
    if definition is not None and mention is not None and mention.pattern != "ordinal" and len(mention.keys) == 1:
        # "the unlearning set $A$" is no position; the noun of a list that carries the index
        # ("projection matrices $W_i^Q, W_i^K, i \\in [1, h]$") is the list's, not the index's
        worded = _role_from_words(mention, definition)
        if worded is not None and worded[0] in ("input data", "fixed setting", "trained weight") and \
                not _POSITION_NOUN.fullmatch(worded[1]):
            role, role_cue = worded[0], worded[1]
    computed = _index_computed_by_equality(index, use, mention, definition)
    if computed is not None and role == "index":
        role, role_cue = "computed", computed
    return role, role_cue


def _index_computed_by_equality(index: PaperIndex, use: SymbolUse, mention: Mention | None,
                                definition: Definition | None) -> str | None:
    """"We compute the number of tokens to mask … by $n = \\lceil \\gamma(t/T) N \\rceil$", then `sorted(c)[n]`: a
    position the defining sentence computes by an equality is a computed value used as a position, not a running
    index (a range `i = 1, \\ldots, n` or a value `t = 0` is no such equality)."""
    if mention is None or definition is None or definition.strength != DEFINES or mention.pattern != "equation" or \
            use.key not in mention.keys:
        return None
    equality = _defining_equality(index, use, mention)
    if equality is None or "\\ldots" in equality or "\\dots" in equality or "..." in equality:
        return None
    return f"${equality}$"


def _quantity_role(index: PaperIndex, eq: Equation, use: SymbolUse, info: FormulaSymbols,
                   defining: list[tuple[Mention, Definition]], mention: Mention | None, definition: Definition | None,
                   defined_elsewhere: dict[str, str], found) -> tuple[str, str | None]:
    """The role of a symbol that is neither an index, a left side nor a function: `_role`, then what only a value
    or an episode says, then (still unknown) the whole it is a labelled part of. A whole the defining sentence
    assembles from its slices is what they are, before anything else."""
    assembled = _assembled_from_slices(index, eq, use, info, mention, defined_elsewhere)
    if assembled is not None:
        return assembled
    role, role_cue = _valued_setting(index, use, found, *_role(index, eq, use, info, defining, mention, definition,
                                                                 defined_elsewhere, found))
    role, role_cue = _episode_variable(index, role, role_cue)
    if role == "unknown":
        role, role_cue = _role_of_the_whole(index, eq, use, info, defined_elsewhere) or (role, role_cue)
    return role, role_cue


# A label that names a part of a quantity in words (`x^{\text{cat}}_t`, `x^{{\rm num}}_0`), not another quantity of
# the same letter (`W^{Q}`, `x^{w}`: a winning sample, a query projection).
_PART_LABEL = re.compile(r"\s*[\^_]\s*(?:\{\s*)?\\(?:mathrm|text|textrm|rm|operatorname|textsf|mathsf)\s*"
                         r"(?:\{\s*[A-Za-z]{2,}\s*\}|\s[A-Za-z]{2,})\s*(?:\}\s*)?$")


def _role_of_the_whole(index: PaperIndex, eq: Equation, use: SymbolUse, info: FormulaSymbols,
                       defined_elsewhere: dict[str, str]) -> tuple[str, str] | None:
    """`x^{\\text{cat}}_t`, the categorical features of `x_t`, written with the same indices as the whole: where
    nothing the paper says about the part decides its role, it is the whole's (the categorical part of a noised
    sample is a noised sample; of the data, data). The whole counts only where a sentence speaks of it with the
    index (`x_0 \\sim p_0`, `\\{x_t : t \\in [0, 1]\\}`), not of the bare letter ("each entry $x$"), which
    says nothing of which member; the part's other indices in the display are tried in turn (`x^{cat}_s`,
    `x^{cat}_t`: one symbol at two times)."""
    key, indices = use.key, tuple(use.indices)
    transition = _TRANSITION.search(key) if not indices else None
    if transition is not None:
        # `\\sigma_{t|t-1}`, the schedule's step from t-1 to t: a quantity of the schedule σ_t is a member of
        return _role_of_the_family(index, eq, key[:transition.start()].strip(), info, defined_elsewhere,
                                   [(transition.group(1).strip(),), (transition.group(2).strip(),)],
                                   "a step between members of")
    trailing = _TRAILING_INDEX.search(key) if not indices else None
    if trailing is not None:  # `x^{\\text{cat}}_{0}` kept whole where the paper writes no bare `x_0`
        key, indices = key[:trailing.start()], (trailing.group(1) or trailing.group(2),)
    label = _PART_LABEL.search(key)
    family = key[:label.start()].strip() if label is not None else ""
    if not indices or not family:
        return None
    tried = [indices] + [tuple(i.strip() for i in m.group(1).split(","))
                                    for form in use.written for m in [_INDEX_SUFFIX.search(form)] if m is not None]
    return _role_of_the_family(index, eq, family, info, defined_elsewhere, tried)


def _role_of_the_family(index: PaperIndex, eq: Equation, family: str, info: FormulaSymbols,
                        defined_elsewhere: dict[str, str], tried: list[tuple[str, ...]],
                        relation: str = "a part of") -> tuple[str, str] | None:
    """The role of the first member `family_{indices}` (of `tried`, in order) that a defining sentence writes with
    its index, or None."""
    for indices in dict.fromkeys(tried):
        whole = SymbolUse(family, ast.Symbol(family), "symbol", indices=list(indices), all_indices=set(indices),
                          first_written=family)
        reading = _read_symbol(index, eq, whole, info, defined_elsewhere)
        if reading.role in ("unknown", "defined here") or reading.definition is None or \
                reading.definition.strength != DEFINES or \
                not _writes_indexed(reading.definition.quote, family, indices):
            continue
        return reading.role, f"{relation} ${written_form(whole)}$ ({reading.role_cue})"
    return None


_TRANSITION = re.compile(r"_\{\s*([^{}|]+?)\s*(?:\\mid|\|)\s*([^{}|]+?)\s*\}$")
_TRAILING_INDEX = re.compile(r"_(?:\{\s*([A-Za-z0-9])\s*\}|([A-Za-z0-9]))$")
_INDEX_SUFFIX = re.compile(r"_\{([^{}]+)\}$")


def _writes_indexed(quote: str, family: str, indices: tuple[str, ...]) -> bool:
    """The sentence writes `family` with these indices (`{\\mathbf{x}}_0`, `x_{t}`), braces aside."""
    plain = braceless(quote)
    written = braceless(family) + "_" + braceless(",".join(indices))
    return re.search(re.escape(written) + r"(?![A-Za-z0-9])", plain) is not None


def _declares_the_map(index: PaperIndex, eq: Equation, use: SymbolUse) -> bool:
    """A display that opens with the symbol and a colon (`T_{ij}: x_{0,ij} \\mapsto \\zeta_{ij}`, `f: \\mathbb{R}^d \\to
    \\mathbb{R}`) declares that map: the display defines it, and its lead-in ("KR transport defines an invertible
    mapping for each pixel:") says what it is, as for a left side."""
    return use.kind != "index" and _declared_map(_display_tree(index, eq)) == use.key


def _declared_map(tree: ast.Node | None) -> str | None:
    """The key of the map a formula declares by a colon after it (`T_{ij}: a \\mapsto b` → T), None otherwise."""
    if isinstance(tree, ast.Rows) and len(tree.statements) == 1:
        tree = tree.statements[0]
    if not isinstance(tree, ast.Relation) or tree.ops[:1] != (":",):
        return None
    return symbol_key(tree.operands[0])


def _home_definition(index: PaperIndex, eq: Equation, use: SymbolUse, home: Equation, best, defining):
    """The definition of a symbol that a display defines (`home`): the best sentence when it stands in the two
    displays' own paragraphs or defines the symbol outright elsewhere; else a sentence of the home's lead paragraph
    that names it (`_named_in_context`); else the home's lead-in, unless that is about another symbol."""
    near = set(display_context(index.doc, eq)) | set(display_context(index.doc, home))
    if best is not None and (best[1].paragraph in near or _keeps_own_definition(use, *best)) and \
            not (use.lhs and _defined_otherwise_before(index, home, use, best[0])):
        return best
    lead_para = lead_paragraph(index.doc, home)
    named = _named_in_context(use, defining, {lead_para.id} if lead_para is not None else set())
    if named is not None:
        return named
    produced = produced_by_clause(index, home, use)
    if produced is not None:  # "$W$ is the matrix used to produce the decoupled key": what the row's left side is
        return None, produced
    if best is not None and _names_the_symbol(use, *best) and _one_row_of_many(index, home):
        # The lead-in of a display of several rows speaks of them all ("The core of MLA is the low-rank joint
        # compression …:"); a sentence that names this row's left side ("the attention queries ($q_{t,i}$), keys
        # ($k_{j,i}$)") says what it is.
        return best
    lead = _introducing_sentence(index, home)
    if lead is not None and not (best is not None and _defines_another_symbol(index, home, use)):
        return None, lead
    return best


def _defined_otherwise_before(index: PaperIndex, home: Equation, use: SymbolUse, mention: Mention | None) -> bool:
    """The sentence defines the display's left side by an equality with another right side (semanticist's "the
    training objective of DDPM … $\\mathcal{L} = \\mathbb{E}\\|\\epsilon - \\epsilon_\\theta(x_t, t)\\|^2$",
    then "Conditional diffusion models … directly inject the condition $z$ into the training objective:" before
    `\\mathcal{L} = … \\epsilon_\\theta(x_t, z, t) …`): the display defines the symbol anew, and its own lead-in
    says what the new one is. Another right side is one made of other quantities (the condition z): the same
    definition restated in other notation (`\\|·\\|_2^2` for `\\|·\\|^2`, brackets under 𝔼) is no new one."""
    if mention is None or mention.pattern != "equation":
        return False
    prose, display = _parse_cached(mention.math), _display_tree(index, home)
    sides = [_defining_quantities(tree, use.key) for tree in (prose, display)]
    return None not in sides and sides[0] != sides[1]


def _defining_quantities(tree: ast.Node | None, key: str) -> frozenset[str] | None:
    """The keys of the symbols the right side of `key = …` is made of, when the formula is that equality."""
    if isinstance(tree, ast.Rows) and len(tree.statements) == 1:
        tree = tree.statements[0]
    if not isinstance(tree, ast.Relation) or tree.ops[:1] != ("=",) or to_latex(tree.operands[0]) != key:
        return None
    return frozenset(k for node in ast.walk(tree.operands[1]) if isinstance(node, (ast.Symbol, ast.Indexed))
                     for k in (symbol_key(node),) if k)


_NAMING_PATTERNS_OF_A_ROW = frozenset({"parenthesis", "appositive", "where", "is", "let", "in-set", "denoted", "called",
                                       "denote-by", "denote-as"})


def _names_the_symbol(use: SymbolUse, mention: Mention | None, definition: Definition) -> bool:
    """A defining sentence that names the symbol itself with words (a noun in apposition, a parenthesis, a copula)."""
    return mention is not None and definition.strength == DEFINES and definition.pattern in _NAMING_PATTERNS_OF_A_ROW \
        and use.key in mention.keys


def _one_row_of_many(index: PaperIndex, eq: Equation) -> bool:
    """The equation is one numbered row of a display of several."""
    return sum(1 for other in _display_groups(index).get(eq.group, ()) if other.span.file == eq.span.file) > 1


def _recurrence_lead(index: PaperIndex, eq: Equation, use: SymbolUse, info: FormulaSymbols, best, home):
    """(best, home) once more for a symbol nothing defines yet: the quantity a recurrence defines, written at the
    step before (`x_i^{k+1} = \\tanh(… x_i^{k})`), is introduced by the lead-in of the display that defines the
    left side (this one or an earlier one), which is then its home."""
    if best is not None or home is not None or use.lhs or use.kind == "index":
        return best, home
    step = _recurrence_home(index, eq, use, info)
    lead = _introducing_sentence(index, step) if step is not None else None
    return ((None, lead), step) if lead is not None else (best, home)


def _recurrence_home(index: PaperIndex, eq: Equation, use: SymbolUse, info: FormulaSymbols) -> Equation | None:
    """The display whose left side is `use` one step later (`previous_step`): this one, or an earlier one."""
    if any(u.lhs and previous_step(use.key, u.key) for u in info.uses):
        return eq
    order = _display_order(index.doc)
    for key in next_step_keys(use.key):
        other = index.defined_by.get(key)
        found = index.doc.equation(other) if other else None
        if found is not None and order.get(found.id, 0) <= order.get(eq.id, 0):
            return found
    return None


def _spaceless(latex: str) -> str:
    return re.sub(r"\s+", "", latex)


# A name set upright of two letters or more (`\\mathrm{SwiGLU}`, `\\operatorname{sim}`): a named operation, not a quantity.
_NAMED_OPERATION = re.compile(r"\\(?:operatorname\*?|mathrm|text|textrm|mathsf|texttt)\{[A-Za-z]{2,}")


def _function_role(index: PaperIndex, use: SymbolUse, mention: Mention | None,
                   definition: Definition | None) -> tuple[str, str]:
    """A symbol applied to arguments is a function unless the words say it is computed or a frozen model, or an
    equality in the prose computes a quantity the paper names by a noun."""
    equality = _defining_equality(index, use, mention) if definition is not None else None
    worded = _role_from_words(mention, definition) if mention is not None else None
    phrase = roles.noun_before(mention.quote, mention.math) if mention is not None else None
    named = roles.head_role(phrase) if phrase else None
    if mention is not None and _MAP_DECLARATION.match(mention.math) and use.key in mention.keys:
        # "where $F: \mathbb{R}^d \rightarrow \mathbb{R}^d$ is the gradient field of …": declared as a map, a function
        # whatever the noun computes it from
        return "function", f"${mention.math}$ (a map)"
    if worded is not None and worded[0] == "computed":
        return "computed", worded[1]  # "where $r_n$ denotes the ratio of the policy …"
    if named is not None and named[0] == "frozen model" and mention is not None:
        # "the old policy model $\\pi_{\\theta_{old}}$": a model kept fixed is applied to arguments too
        return "frozen model", f"\"{phrase} ${mention.math}$\""
    if equality is not None and mention is not None and \
            (worded[0] != "function" if worded is not None else bool(mention.description)) and \
            not _NAMED_OPERATION.match(use.key):
        # "Here $A^1(s, a, b) := Q^1(s, a, b) - V^1(s)$ denotes the advantage …": a quantity the paper computes
        # by the equality and names by a noun; a named operation (SwiGLU(X) = …) or a bare `\\pi(t) = …` stays
        # a function
        return "computed", f"${equality}$"
    if equality is not None and mention is not None and worded is None and _quantity_of_others(index, mention.math) \
            and not _NAMED_OPERATION.match(use.key):
        # "where $Q^2(s_t, b_t) := \mathbb{E}_{a \sim \pi^1}[Q^2(s_t, a, b_t)]$": the sentence is the equality, and its
        # right side aggregates other quantities (an expectation over the agent's action): a quantity computed from
        # them, though written with arguments
        return "computed", f"${equality}$"
    return "function", "applied to arguments"


def _quantity_of_others(index: PaperIndex, math: str) -> bool:
    """The formula `f(a, b) := rhs` marginalises: its right side applies the same name to more arguments, and a
    reduction over a bound variable runs over the added ones (`Q^2(s, b) := \\mathbb{E}_{a \\sim \\pi}[Q^2(s, a, b)]`):
    a quantity aggregated from another, though written with arguments. A map written out with a reduction of
    other things (`f(x) := \\sum_i w_i \\phi_i(x)`, a mixture density, a kernel
    `k(x, z) := \\sum_j \\phi_j(x)\\phi_j(z)`) or pointwise (`\\phi(x) = \\max(0, x)`) stays a function, and so does
    a density (`q(x | y)`)."""
    tree = _parse_cached(math)
    if isinstance(tree, ast.Sequence) and tree.items:
        tree = tree.items[0]
    if not isinstance(tree, ast.Relation) or not tree.ops or tree.ops[0] not in roles.DEFINING_OPS or \
            not isinstance(tree.operands[0], ast.Apply) or tree.operands[0].given:
        return False
    left = tree.operands[0]
    name = symbol_key(left.func)
    if name is None:
        return False
    wider = [n for n in ast.walk(tree.operands[1]) if isinstance(n, ast.Apply) and symbol_key(n.func) == name
             and len(n.args) > len(left.args)]
    if not wider:
        return False
    added = {k for n in wider for a in n.args for k in [symbol_key(a)] if k is not None} - \
        {k for a in left.args for k in [symbol_key(a)] if k is not None}
    bound = {symbol_key(v) for r in collect(tree.operands[1], index.ordinals).reductions for v in r.variables}
    return bool(added & bound)


_MAP_DECLARATION = re.compile(r"^\s*[^:=]{1,40}?\s*(?::|\\colon)\s*[^=:]{1,80}?"
                              r"\\(?:to|rightarrow|longrightarrow)(?![A-Za-z])")

# An index the words call "the dimension" or "the position" names which one, not a size: it stays an index.
_POSITION_NOUN = re.compile(r"(?:dimension|position|coordinate|channel)s?", re.I)

_CONVENTIONAL_SYMBOLS = {
    "I": ("the identity matrix", "fixed setting"), "\\mathbf{I}": ("the identity matrix", "fixed setting"),
    "\\mathrm{I}": ("the identity matrix", "fixed setting"), "\\mathbb{I}": ("the identity matrix", "fixed setting"),
    "\\mathbb{R}": ("the real numbers", "fixed setting"), "\\infty": ("infinity", "fixed setting"),
    "\\emptyset": ("the empty set", "fixed setting"), "\\varnothing": ("the empty set", "fixed setting"),
    "\\mathbb{N}": ("the natural numbers", "fixed setting"), "\\pi_{0}": None,
}


_ORDER_CACHE: dict[int, tuple[Document, dict[str, int]]] = {}


def _display_order(doc: Document) -> dict[str, int]:
    cached = _ORDER_CACHE.get(id(doc))
    if cached is None or cached[0] is not doc:
        cached = (doc, {e.id: k for k, e in enumerate(doc.equations)})
        if len(_ORDER_CACHE) > 16:
            _ORDER_CACHE.clear()
        _ORDER_CACHE[id(doc)] = cached
    return cached[1]


def _conventional_symbol(key: str) -> str | None:
    """Standard notation that is not a function: the identity matrix, ℝ, ∞, ∅ (never "undefined")."""
    bare = re.sub(r"_\{.*\}$|_.$", "", key)  # \\mathbf{I}_{d}: the d×d identity
    entry = _CONVENTIONAL_SYMBOLS.get(key) or _CONVENTIONAL_SYMBOLS.get(bare)
    return entry[0] if entry else None


# Besides `$\lambda_t = \alpha_t^2/\sigma_t^2$ is the …` (the "equation" pattern), the naming patterns whose formula
# can be the symbol's own equality: "…, denoted as $p_{\max} = \max_v P(v \mid x)$" (the noun before "denoted" may
# be another's: "the token in the distribution"; the equality says how the symbol is computed).
_EQUALITY_PATTERNS = frozenset({"denoted"})


def _computed_by_equality(index: PaperIndex, use: SymbolUse, mention: Mention | None, definition: Definition | None,
                          best) -> tuple[str | None, str | None]:
    """(cue, None) when the defining sentence computes the symbol by an equality
    (`$\\lambda_t = \\alpha_t^2/\\sigma_t^2$ is the signal-to-noise ratio`, "keys $K_h = W^{key}_h X$"); (None, cue)
    when the equality writes a constant from constants (`D^{head} = D/H`: the other rules decide first); (None, None)
    otherwise."""
    deferred: str | None = None
    if best is not None and best[0] == "fixed setting" and best[2] != "predicate" and not use.indices and \
            not use.all_indices and mention is not None and _unindexed_right_side(index, mention.math):
        # "set the regularization coefficient $\\rho = 1/(20n)$": the noun names a setting chosen once (no step
        # or index runs over it); the equality says how it was chosen, not a quantity the run computes
        return None, f"${mention.math}$" if mention is not None else None
    if mention is not None and definition is not None and definition.strength == DEFINES and \
            (mention.pattern == "equation" or mention.pattern in _EQUALITY_PATTERNS and "=" in mention.math) and \
            use.key in mention.keys + tuple(key_family(k) for k in mention.keys) \
            and not _numeric_value(mention.math) and not (best is not None and best[2] == "predicate"):
        if not _setting_from_settings(index, use, mention):
            return f"${mention.math}$", None
        deferred = f"${mention.math}$"  # a constant from constants: decided by the other rules first
    if mention is not None and definition is not None and definition.strength == DEFINES and \
            not (best is not None and (best[2] == "predicate" or best[0] in ("function", "random sample",
                                                                             "input data"))):
        equality = _defining_equality(index, use, mention)
        if equality is not None and not _setting_from_settings(index, use, mention):
            return f"${equality}$", None  # "the inputs are projected into keys $K_h = W^{key}_h X$"
        if equality is not None:
            deferred = deferred or f"${equality}$"
    return None, deferred


def _role(index: PaperIndex, eq: Equation, use: SymbolUse, info: FormulaSymbols,
          defining: list[tuple[Mention, Definition]], mention: Mention | None, definition: Definition | None,
          defined_elsewhere: dict[str, str], found: list | tuple = ()) -> tuple[str, str | None]:
    """A quantity's role, one rule after the other (the first that holds decides):

    what the sentences that define it say it undergoes ("are set by the schedule", "is sampled", "learnable");
    the words of the defining sentence next to the equation; being a sample of an expectation; naming a model's
    weights (the θ of p_θ); a fixed-setting noun ("momentum parameter", "step size"); being defined by an
    equation (inline `λ_t = α_t²/σ_t²` or another display); being a count or a dimension (an upper limit of a
    sum, a dimension of ℝ^{…}); the other nouns of its definition; a value the paper sets; `~`; standard
    notation. Otherwise unknown."""
    top = [(m, d) for m, d in defining[:4] if m is not None]
    # The words of the quoted sentence decide first (a reader checks the role against them); structure decides
    # only what they leave open, and the other defining sentences last.
    best = _role_from_words(mention, definition) if mention is not None else None
    computed, deferred = _computed_by_equality(index, use, mention, definition, best)
    coordinate = _coordinate_of_a_representation(use, found, best)
    if coordinate is not None or computed is not None:
        return coordinate or ("computed", computed)
    if _named_loss(use.key) and not (best is not None and best[2] == "predicate") and \
            not _worded_function(mention, definition):
        return "computed", f"{use.key} names a loss (computed from the model's outputs)"
    near = definition is not None and definition.paragraph in display_context(index.doc, eq)
    sample = (_sample_of_a_draw(index, eq, use, best) or _time_another_display_computes(index, eq, use, best,
                                                                                          defined_elsewhere)) \
        if best is not None else None
    if sample is not None:
        return sample
    if best is not None and (best[2] == "predicate" or best[0] in ("fixed setting", "frozen model") or near):
        return best[0], best[1]  # ("Let $u_t$ denote the FFN input" next to the equation: input data here)
    drawn = _drawn_by_sentence(index, eq, use, mention, definition) if best is None else None
    if drawn is not None:
        return drawn
    by_display = _written_by_another_display(index, eq, use, defined_elsewhere)
    if by_display is not None:
        return by_display
    if best is not None:
        return best[0], best[1]
    if use.bound_by == "E" or use.sampled:
        return "random sample", ("a sample of the expectation" if use.bound_by == "E" else
                                 "\\sim (drawn from a distribution)")
    worded = [w for m, d in top for w in [_role_from_words(m, d)] if w is not None]
    if use.bound_by in ("argmin", "argmax", "min", "max"):
        return _optimised_variable(index, info, use, top, found, worded)
    for w in worded:
        if w[2] == "predicate" or w[0] in ("fixed setting", "frozen model", "trained weight"):
            return w[0], w[1]
    if _model_subscript(index, eq, use.key) and not (worded and worded[0][0] in ("input data", "random sample")):
        return "trained weight", f"the subscript of a model (…_{{{use.key}}}): its weights"
    count = _count_or_dimension(info, use, top) or _count_in_prose(index, use, found)
    if count:
        return "fixed setting", count
    if worded:
        return worded[0][0], worded[0][1]
    for m, d in top:
        if m.pattern in ("equation", "value") and _sets_value(m) and not _value_of_another_part(index, eq, use, d, top):
            return "fixed setting", f"${m.math}$ (a value the paper sets)"
    conventional = _conventional_symbol(use.key)
    if conventional is not None:
        return _CONVENTIONAL_ROLES.get(conventional, "fixed setting"), "standard notation"
    step = _step_of_a_recurrence(index, eq, info, use)
    if step is not None:
        return "computed", step
    if deferred is not None:
        return "computed", deferred
    return _role_from_other_sentences(index, eq, use, found)


# "The input velocity $\Delta x$ can also be represented as $(\Delta r, \theta)$ in polar coordinates": the
# quantity, the verb that writes it in other coordinates, the tuple of its coordinates.
_REPRESENTED_AS = re.compile(r"\$(?P<whole>[^$]+)\$\s*,?\s*(?:can\s+(?:also\s+)?be\s+|is\s+(?:also\s+)?|are\s+)?"
                             r"(?:represented|written|expressed|re-?parameteri[sz]ed|decomposed)\s+(?:as|by|in)\s+"
                             r"\$\s*\\?\(?(?P<parts>[^$]+?)\\?\)?\s*\$", re.I)


def _coordinate_of_a_representation(use: SymbolUse, found, worded: tuple | None) -> tuple[str, str] | None:
    """"The input velocity $\\Delta x$ can also be represented as $(\\Delta r, \\theta)$ in polar coordinates": the
    coordinates a sentence rewrites a quantity in are that quantity, written otherwise, and have the role its noun
    gives it (the input's coordinates are input data), though an equality computes one from it (`\\Delta r =
    \\|\\Delta x\\|`: the same input measured, not a quantity the method computes). None when no sentence does, or
    when the words of the defining sentence (`worded`) gave a role already."""
    if worded is not None:
        return None
    mine = {_spaceless(use.key), _spaceless(written_form(use))}
    for m, d in found:
        if m is None or d.pattern == "same letter":
            continue
        for hit in _REPRESENTED_AS.finditer(m.quote):
            parts = {_spaceless(p) for p in split_top_level(hit.group("parts")) if p}
            if len(parts) < 2 or not mine & parts:
                continue
            phrase = roles.noun_before(m.quote, hit.group("whole"))
            worded = role_from_description(phrase) if phrase else None
            if worded is not None and worded[0] in ("input data", "random sample", "trained weight", "fixed setting"):
                return worded[0], f"a coordinate of ${hit.group('whole')}$ (\"{phrase}\"), written as " \
                                  f"$({hit.group('parts')})$"
    return None



_ASSEMBLING_OPS = frozenset({"direct_sum", "concatenation"})


def _assembled_from_slices(index: PaperIndex, eq: Equation, use: SymbolUse, info: FormulaSymbols,
                           mention: Mention | None, defined_elsewhere: dict[str, str]) -> tuple[str, str] | None:
    """"the $W^{out}_h$ are defined as the slices of $W^{out}$ such that $W^{out} = \\bigoplus_h W^{out}_h$": an
    equality that writes the whole as the concatenation of its own slices computes nothing; the whole is what its
    slices are (trained weights, where the paper calls them projections). None for any other equality."""
    if mention is None or use.indices or "\\" not in mention.math:
        return None
    tree = _parse_cached(mention.math)
    if isinstance(tree, ast.Sequence) and tree.items:
        tree = tree.items[0]
    if not isinstance(tree, ast.Relation) or len(tree.operands) != 2 or tree.ops[0] not in roles.DEFINING_OPS or \
            symbol_key(tree.operands[0]) != use.key:
        return None
    whole = tree.operands[1]
    if not isinstance(whole, ast.Reduction) or whole.op not in _ASSEMBLING_OPS or len(whole.variables) != 1 or \
            not isinstance(whole.body, ast.Indexed) or symbol_key(whole.body.base) != use.key:
        return None
    variable = to_latex(whole.variables[0])
    if [to_latex(i) for i in whole.body.indices] != [variable]:
        return None
    part = SymbolUse(use.key, whole.body, "symbol", indices=[variable], all_indices={variable},
                     first_written=use.key)
    reading = _read_symbol(index, eq, part, info, defined_elsewhere)
    if reading.role in ("unknown", "defined here", "index"):
        return None
    return reading.role, f"assembled from its slices ${written_form(part)}$ ({reading.role_cue})"


def _sample_of_a_draw(index: PaperIndex, eq: Equation, use: SymbolUse, best: tuple) -> tuple[str, str] | None:
    """What the words call data or a time, drawn: "the trajectory τ" drawn by this expectation from the policy's
    distribution (E_{τ ~ Pr}) is its samples (a prompt the expectation runs over, E_{c, x}, E_{c ~ \\mathcal{D}},
    stays the input data it is); "two arbitrary timesteps" … `\\mathbb{E}_{t \\sim U[0, 1]}`: the time this display
    draws is a sample of it."""
    drawn_here = use.bound_by == "E" or use.sampled
    if best[0] == "input data" and _drawn_from(index, eq, use) == "distribution":
        return "random sample", f"{best[1]}, drawn by the expectation" if drawn_here else \
            f"{best[1]}, drawn from a distribution in another display"
    if best[0] == "index" and best[2] != "predicate" and drawn_here:
        return "random sample", f"{best[1]}, drawn by this display"
    return None


def _time_another_display_computes(index: PaperIndex, eq: Equation, use: SymbolUse, best: tuple,
                                   defined_elsewhere: dict[str, str]) -> tuple[str, str] | None:
    """"the approximation at timestep $r[j]$", and (9) writes `r[j] = \\arg\\min …`: a time the words name, which an
    earlier display computes, is that display's value, not a running index."""
    if best[0] != "index" or best[2] != "head":
        return None
    by_display = _written_by_another_display(index, eq, use, defined_elsewhere)
    return by_display if by_display is not None and by_display[0] == "computed" else None


def _optimised_variable(index: PaperIndex, info: FormulaSymbols, use: SymbolUse, top, found,
                        worded: list) -> tuple[str, str]:
    """The variable an argmin (argmax, min, max) runs over: the thing optimised, unless the paper names it a setting
    or a count ("where the number of steps $N$ is large enough": the argmin searches over settings, which no
    training changes)."""
    setting = next((w for w in worded if w[0] == "fixed setting"), None)
    count = _count_or_dimension(info, use, top) or _count_in_prose(index, use, found)
    if setting is not None or count:
        return "fixed setting", setting[1] if setting is not None else count
    return "trained weight", f"the variable the {use.bound_by} is taken over"


def _drawn_by_sentence(index: PaperIndex, eq: Equation, use: SymbolUse, mention: Mention | None,
                       definition: Definition | None) -> tuple[str, str] | None:
    """The defining sentence draws the symbol (`$t \\sim \\mathcal{U}(0, T)$`): a random sample, or input data when
    the draw takes it from the data (`$x_0 \\sim q_{\\text{data}}$`)."""
    if mention is None or mention.pattern != "sampled" or definition is None or definition.strength != DEFINES or \
            definition.pattern == "inside" or not _draws_this(index, use, mention.math):
        return None
    if _draw_source(index, eq, use, [mention.math]) == "data":
        return "input data", f"${mention.math}$ (drawn from the data)"
    said = _DATA_PREDICATE.match(_sentence_after(mention))
    if said is not None:
        # "where $x_0 \sim p_0$ are i.i.d. samples from real data distribution": the sentence says the source is
        # the data, though the source's letter is never called so
        return "input data", f"${mention.math}$ {' '.join(said.group(0).split())}"
    return "random sample", f"${mention.math}$ (drawn from a distribution)"


# What a sentence says a draw's samples are, right after the draw: the data ("are i.i.d. samples from the real data
# distribution", "are training examples"); not noise ("are pure noise from the prior distribution").
_DATA_PREDICATE = re.compile(r"\s*,?\s*(?:is|are)\s+(?:(?:the|an?|our|i\.\s?i\.\s?d\.|\\textit\{i\.i\.d\.\}|"
                             r"independent|real|clean|observed|\w+ing)\s+){0,3}(?:samples?|draws?|examples?|points?)"
                             r"\s+(?:from|of)\s+(?:the\s+)?(?:real|true|clean|training|observed|empirical)?\s*data\b",
                             re.I)


def _sentence_after(mention: Mention) -> str:
    at = mention.quote.find(f"${mention.math}$")
    return mention.quote[at + len(mention.math) + 2:] if at >= 0 else ""


def _written_by_another_display(index: PaperIndex, eq: Equation, use: SymbolUse,
                                defined_elsewhere: dict[str, str]) -> tuple[str, str] | None:
    """Another (earlier, or same-part) display writes the symbol on its left: computed by it, or a constant it
    sets to numbers."""
    other_id = defined_elsewhere.get(use.key) or defined_elsewhere.get(written_form(use))
    if not other_id or other_id == eq.id or _conventional(use.key) is not None or \
            _elsewhere_later(index, eq, index.doc.equation(other_id)) or _sequence_of(index, other_id, use):
        return None
    other = index.doc.equation(other_id)
    name = f"({other.number})" if other.number else other_id
    if _approximates(index, other) and not _ACCENTED_ESTIMATE.search(use.key):
        # "Assuming the true noise $\\epsilon$ can be reconstructed …, we have: ε ≈ ε_θ(x_t, ∅) + …": a display that
        # approximates a quantity does not compute it (what it estimates stays what the words call it); a hatted
        # left side (`\\hat{q} \\approx …`) is the estimate it computes
        return None
    if _constant_display(index, other_id):
        return "fixed setting", f"set to constants by {name}"
    if _defines_a_density(index, other, use.key):
        # `q(x_t | x_0) = …` defines a conditional density; `\mathbb{E}_q` here runs over that distribution: the
        # function itself, not a value computed from it
        return "function", f"the distribution {name} defines"
    return "computed", f"computed by {name}"


_ACCENTED_ESTIMATE = re.compile(r"\\(?:hat|widehat|tilde|widetilde|bar|overline)(?![A-Za-z])")


def _approximates(index: PaperIndex, other: Equation) -> bool:
    """The display's first relation is an approximation (`≈`): it estimates its left side."""
    tree = _display_tree(index, other)
    if isinstance(tree, ast.Rows) and tree.statements:
        tree = tree.statements[0]
    if isinstance(tree, ast.Sequence) and tree.items:
        tree = tree.items[0]
    return isinstance(tree, ast.Relation) and bool(tree.ops) and tree.ops[0] in ESTIMATE_OPS


def _defines_a_density(index: PaperIndex, other: Equation | None, key: str) -> bool:
    """The display's first relation defines `key` as a conditional density (`q(x_t | x_0) = …`)."""
    tree = _display_tree(index, other) if other is not None else None
    if isinstance(tree, ast.Rows) and tree.statements:
        tree = tree.statements[0]
    if isinstance(tree, ast.Sequence) and tree.items:
        tree = tree.items[0]
    if not isinstance(tree, ast.Relation) or not tree.ops or tree.ops[0] not in roles.DEFINING_OPS:
        return False
    left = tree.operands[0]
    return isinstance(left, ast.Apply) and bool(left.given) and symbol_key(left.func) == key


def _value_of_another_part(index: PaperIndex, eq: Equation, use: SymbolUse, value: Definition, top) -> bool:
    """"We set $\\lambda = \\gamma = 10^{-4}$" in the experiments, while the method's section says "Define
    $\\lambda = M\\|z_{t+1/2} - z_t\\|$": a letter the paper reuses; a value set in another part of the paper
    does not decide the symbol of this equation when another defining sentence computes it."""
    if value.section is None or _top_section(value.section) == _top_section(eq.section):
        return False
    return any(d is not value and d.pattern == "equation" and _defining_equality(index, use, m) is not None
               for m, d in top)


def _free_index_cue(index: PaperIndex, eq: Equation, info: FormulaSymbols, use: SymbolUse) -> str | None:
    """What makes a free index of the display known without a sentence: the display gives its range
    (`\\text{for } i = 1, \\ldots, n`), or it is the step of what the display defines or draws, a recurrence
    (`x_{t+1} = x_t - \\eta g_t` holds for each step t). Such an index is a row of its own, never "undefined"; None
    when neither holds (`y_i = \\sum_j W_{ij} x_j`: a position the text never introduces)."""
    tree = _display_tree(index, eq)
    stated = _range_in_display(tree, use.key)
    if stated is not None:
        return f"the range the display gives it: ${stated}$"
    subject = _indexed_subject(tree, use.key)
    if subject is not None and _written_as_a_step(tree, use.key):
        return f"the step ${subject}$ is written at (the recurrence holds for each ${use.key}$)"
    return None


def _scripts(node: ast.Node) -> tuple[ast.Node, ...]:
    if isinstance(node, ast.Indexed):
        return node.indices
    if isinstance(node, ast.Symbol):
        return tuple(label for label in (node.sub_label, node.sup_label) if label is not None)
    return ()


def _written_as_a_step(tree: ast.Node | None, key: str) -> bool:
    """The display writes an index or label one step from `key` (`x_{t+1}`, `x^{k-1}`): `key` counts steps (a time,
    an iteration, a layer), not a position among entries (`y_i = \\sum_j W_{ij} x_j`)."""
    for node in ast.walk(tree) if tree is not None else ():
        for script in _scripts(node):
            for part in ast.walk(script):
                if isinstance(part, ast.BinOp) and part.op in ("+", "-") and isinstance(part.right, ast.Number) and \
                        isinstance(part.left, ast.Symbol) and to_latex(part.left) == key:
                    return True
    return False


def _indexed_subject(tree: ast.Node | None, key: str) -> str | None:
    """The left side of the display's first relation (`x_{t+1}` of `x_{t+1} = …`, `a_i^{k+1}` of
    `a_i^{k+1} \\sim \\mathcal{N}(…)`), as LaTeX, when `key` is among its indices; else None."""
    if isinstance(tree, ast.Rows) and tree.statements:
        tree = tree.statements[0]
    if isinstance(tree, ast.Sequence) and tree.items:
        tree = tree.items[0]
    if not isinstance(tree, ast.Relation) or not tree.operands:
        return None
    subject = tree.operands[0].func if isinstance(tree.operands[0], ast.Apply) else tree.operands[0]
    for node in ast.walk(subject):
        if any(isinstance(n, ast.Symbol) and to_latex(n) == key for i in _scripts(node) for n in ast.walk(i)):
            return to_latex(subject)
    return None


def _range_in_display(tree: ast.Node | None, key: str) -> str | None:
    """The relation of a condition clause of the display that ranges over `key` (`i = 1, \\ldots, n`,
    `t \\in [T]`, `1 \\le i \\le n`), as LaTeX, or None."""
    if tree is None:
        return None
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Annotated) and node.kind == "condition"):
            continue
        body = node.body.items if isinstance(node.body, ast.Sequence) else (node.body,)
        for item in body:
            if isinstance(item, ast.Relation) and any(isinstance(o, ast.Symbol) and to_latex(o) == key
                                                      for o in item.operands):
                return to_latex(item)
    return None


def _indexes_left_side(info: FormulaSymbols, letter: str) -> bool:
    """`x_t = \\frac{\\sum_{i=1}^t w_i z_i}{…}`, `c_{t+1} = …`: the letter indexes what the display defines — the
    current step, which a sum may run up to — not a count."""
    for u in info.uses:
        if u.lhs and any(re.search(rf"(?<![A-Za-z\\]){re.escape(letter)}(?![A-Za-z])", i)
                         for i in (*u.indices, *u.all_indices)):
            return True
    return False


def _constant_display(index: PaperIndex, other_id: str) -> bool:
    """The display that writes the symbol sets it to numbers (`A = \\begin{bmatrix} 1 & -1 \\\\ … \\end{bmatrix}`, `B = 2`):
    nothing on its right side is a symbol, so nothing is computed — a constant the paper fixes."""
    other = index.doc.equation(other_id)
    tree = _display_tree(index, other) if other is not None else None
    if isinstance(tree, ast.Sequence) and len(tree.items) == 1:
        tree = tree.items[0]
    if not isinstance(tree, ast.Relation) or not tree.ops or \
            any(op not in ("=", ":=", "\\coloneqq") for op in tree.ops):
        return False
    return all(not collect(side, index.ordinals).uses for side in tree.operands[1:])


def _sequence_of(index: PaperIndex, other_id: str, use: SymbolUse) -> bool:
    """The other display defines a sequence of the letter (`\\gamma_t = D/(G\\sqrt{t})`) and this use is the bare
    letter (the constant step size γ): another quantity, which that display does not compute."""
    if use.indices or use.all_indices:
        return False
    found = index.formulas.get(other_id)
    info = found[0] if found else None
    lhs = [u for u in (info.uses if info is not None else ()) if u.lhs and u.key == use.key]
    return bool(lhs) and all(u.indices for u in lhs)


def _role_from_other_sentences(index: PaperIndex, eq: Equation, use: SymbolUse, found) -> tuple[str, str | None]:
    """When neither the defining sentence nor the structure decides: a whole the symbol is part of, an equality
    in any sentence that computes it, a noun a non-defining sentence attaches to it; otherwise unknown."""
    part = _part_of(index, eq, use, found)
    if part is not None:
        return part
    regrouped = _named_by_a_rewriting(index, eq, use, found)
    if regrouped is not None:
        return regrouped
    for m, _ in found:
        equality = _defining_equality(index, use, m) if m is not None else None
        if equality is not None:
            # "i.e., $X^{l} = \\operatorname{Decoder}(X^{l-1})$": a sentence computes it, though none names it
            return "computed", f"${equality}$"
    for m, d in found:
        # a noun the prose attaches to the symbol where it does not define it ("observed documents $\\{X_i\\}$")
        if m is not None and m.description and d.pattern not in ("inside", "same letter") and \
                m.pattern in ("noun", "appositive", "in-set", "where", "is"):
            worded = role_from_description(m.description)
            if worded is not None and worded[0] != "computed":
                return worded[0], f"{worded[1]} (a mention: \"{m.description[:60]}\")"
    model = _model_with_weights(index, eq, use, found)
    if model is not None:
        return model
    # what the rest of the paper does with it, weighed (roles.USE_RULES); unknown when weak or split
    context = roles.UseContext(use, tuple(found), _display_tree(index, eq), lambda key: _drawn_in_display(index, key),
                               lambda key: _model_subscript(index, eq, key), eq.section, _algorithm_lines(index.doc))
    return roles.weigh(roles.evidence(context))


def _algorithm_lines(doc: Document) -> tuple[tuple[str, str], ...]:
    """(formula, line) for every inline formula of the paper's algorithm boxes, in order."""
    return tuple((m.group(1), line.text) for alg in doc.algorithms for line in alg.lines
                 for m in INLINE.finditer(line.text))


def _named_by_a_rewriting(index: PaperIndex, eq: Equation, use: SymbolUse, found) -> tuple[str, str] | None:
    """A row that continues an equality (`= \\sum_k W'_{q,k} \\phi(W_{q,k} x_k)` after
    `HYLA_q(X) = \\sum_k (\\sum_h a_{h,q,k} W_h) \\phi(…)`) and writes a symbol that no sentence of the paper
    mentions and no earlier row of the display writes: the rewriting names a part of the row before (here
    `\\sum_h a_{h,q,k} W_h`), a quantity computed from the others."""
    if eq.row == 0 or not _CONTINUATION.match(eq.latex) or \
            any(m is not None and d.pattern != "same letter" for m, d in found):
        return None
    equations = index.doc.equations
    position = _display_order(index.doc).get(eq.id, 0)
    earlier = [e for e in equations[:position] if e.group == eq.group]
    if not earlier:
        return None
    for row in earlier:
        info = index.formulas[row.id][0]
        if info is None or any(u.key == use.key for u in info.uses):
            return None
    before = f"({earlier[-1].number})" if earlier[-1].number else earlier[-1].id
    return "computed", f"{_REWRITING_CUE} {before}: a name for a part of it"


_REWRITING_CUE = "new in the rewriting of"


_WEIGHTS_LABEL = re.compile(r"_\{?\s*(\\[A-Za-z]+)(?![A-Za-z])")


def _model_with_weights(index: PaperIndex, eq: Equation, use: SymbolUse, found) -> tuple[str, str] | None:
    """`\\bm{v_\\theta}`, `\\bm{v_{\\theta,i}}` where the paper writes θ as a model's subscript (`p_\\theta(…)`): the
    symbol is the model that θ parameterizes (a function with trained weights θ), even where no sentence names it."""
    hit = _WEIGHTS_LABEL.search(written_form(use)) or _WEIGHTS_LABEL.search(use.key)
    if hit is None or hit.group(1) in _NOT_WEIGHTS or not _model_subscript(index, eq, hit.group(1)) or \
            not _named_weights(index, hit.group(1)) or \
            not any(m is not None and d.pattern not in ("inside", "same letter") for m, d in found):
        # `SE_\\theta^{(w)}` (no sentence speaks of it: an error term of the model, not the model),
        # `d_\\gamma(s)` (γ is a discount factor, not weights)
        return None
    return "function", f"a model with weights ${hit.group(1)}$ (written as its subscript)"


_WEIGHT_WORDS = re.compile(r"\b(?:parameters?|weights?|learnable|trainable|parameteri[sz]ed|parametri[sz]ed)\b", re.I)


def _named_weights(index: PaperIndex, key: str) -> bool:
    """Some sentence of the paper calls `key` parameters or weights ("$\\theta$ denotes the parameter of denoising
    model", "a network parameterized by $\\theta$")."""
    cache = index.paper.cache.setdefault("named-weights", {}) if index.paper is not None else {}
    found = cache.get(key)
    if found is None:
        found = False
        # θ written \\bm{\\theta} in the prose (the key a bold Greek letter gets: `\\mathbf\\theta `)
        keys = dict.fromkeys((key, f"\\mathbf{key} ", f"\\mathbf{{{key}}}"))
        for i in dict.fromkeys(i for k in keys for i in (*index.by_key.get(k, ()), *index.by_base.get(k, ()))):
            m = index.mentions[i]
            at = m.quote.find(f"${m.math}$")
            near = m.quote[max(0, at - 60):at + len(m.math) + 62] if at >= 0 else m.quote[:160]
            if _WEIGHT_WORDS.search(re.sub(r"\$[^$]*\$", " ", near)):
                found = True
                break
        cache[key] = found
    return found


_NOT_WEIGHTS = frozenset({"\\text", "\\mathrm", "\\textrm", "\\rm", "\\mathbf", "\\bm", "\\max", "\\min", "\\infty",
                          "\\star", "\\ast", "\\top", "\\operatorname", "\\mathcal", "\\boldsymbol"})


def _display_tree(index: PaperIndex, eq: Equation) -> ast.Node | None:
    if index.paper is None:
        return _parse_cached(eq.latex)
    found = index.paper.parse_result(eq.latex)
    return None if isinstance(found, MathParseError) else found.tree


_EPISODE_NOUN = re.compile(r"^(?:\w+\s+){0,2}(?:states?|actions?|trajector(?:y|ies)|observations?|rewards?|"
                           r"episodes?|rollouts?)\b", re.I)
_RL_WORDS = (re.compile(r"\bpolic(?:y|ies)\b", re.I), re.compile(r"\brewards?\b", re.I),
             re.compile(r"\b(?:agents?|markov|mdp|environments?)\b", re.I))


def _episode_variable(index: PaperIndex, role: str, cue: str | None) -> tuple[str, str | None]:
    """In a paper about agents acting under a policy for rewards (a Markov decision process), a state, an action
    or a trajectory is drawn by the policy and the dynamics: a random sample, not data the reader supplies
    ("the current state $s$", "agent taking action $a$", "a trajectory $\\tau$")."""
    if role != "input data" or not cue or not _EPISODE_NOUN.match(cue) or not _acting_under_a_policy(index):
        return role, cue
    return "random sample", f"{cue} (drawn by the policy and the dynamics)"


def _acting_under_a_policy(index: PaperIndex) -> bool:
    cache = index.paper.cache if index.paper is not None else {}
    found = cache.get("acting-under-a-policy")
    if found is None:
        text = " ".join(p.text for p in index.doc.paragraphs)
        found = cache["acting-under-a-policy"] = all(len(w.findall(text)) >= 5 for w in _RL_WORDS)
    return found


def _valued_setting(index: PaperIndex, use: SymbolUse, found, role: str, cue: str | None) -> tuple[str, str | None]:
    """"a parameter $\\lambda$" … "$\\lambda=0$ and $\\lambda=1$ behave like …": a value the paper sets is a setting; a
    bare "parameter" (or a model's subscript) names no trained weight when the paper gives the symbol a number."""
    if role != "trained weight" or not ((cue or "").lower() in ("parameter", "parameters", "parameterized by") or
                                        (cue or "").startswith("the subscript of a model")):
        return role, cue
    valued = next((m for m, _ in found if m is not None and m.pattern in ("value", "equation") and
                   _sets_value(m) and _same_subject(index, use, m.math)), None)
    if valued is None:
        return role, cue
    return "fixed setting", f"${valued.math}$ (a value the paper sets)"


def _same_subject(index: PaperIndex, use: SymbolUse, math: str) -> bool:
    """The formula's left side is the symbol itself (`\\lambda = 0` for λ)."""
    tree = _parse_cached(math)
    if isinstance(tree, ast.Sequence) and tree.items:
        tree = tree.items[0]
    return isinstance(tree, ast.Relation) and symbol_key(tree.operands[0]) is not None and \
        _same_symbol(tree.operands[0], use, index.ordinals)


_CONSTANT_INDEX = re.compile(r"\d+|[A-Z]")


def _draws_this(index: PaperIndex, use: SymbolUse, clause: str) -> bool:
    """The draw's left side is this symbol as written (`x_T \\sim \\mathcal{N}(0, I)` draws x_T, not the x_t of the
    equation; `x_0 \\sim p_0` not x_t); a draw of several symbols (`(c, x) \\sim \\mathcal{D}`) draws each."""
    if "\\sim" not in clause:
        return True  # not written as a draw (the sentence says "sampled"): the sentence decides
    left = re.sub(r"\\[,;:! ]|~", " ", clause.partition("\\sim")[0]).strip().strip("()")
    for piece in left.split(","):
        item = _parse_cached(piece.strip())
        if item is None or symbol_key(item) is None or not _same_symbol(item, use, index.ordinals):
            continue
        if braceless(to_latex(item)) == braceless(written_form(use)):
            return True  # drawn as written (`x_0 \sim q_{data}` for x_0)
        theirs = [braceless(to_latex(i)) for i in item.indices] if isinstance(item, ast.Indexed) else []
        mine = [braceless(i) for i in use.indices]
        if len(theirs) == 1 and len(mine) <= 1 and theirs != mine and \
                (_CONSTANT_INDEX.fullmatch(theirs[0]) or (mine and _CONSTANT_INDEX.fullmatch(mine[0]))):
            continue  # x_T or x_0 drawn, x_t or x used: another member (x_t drawn, x_{t-1} used: the same)
        return True
    return False


def _drawn_from(index: PaperIndex, eq: Equation, use: SymbolUse) -> str | None:
    """Where this display draws the symbol from, or else the first display that draws it (one role per symbol
    across the paper: E_τ[…] after E_{τ ∼ Pr^π}[…] averages over the same samples)."""
    source = _draw_source(index, eq, use, _draw_clauses(eq.latex))
    if source is None:
        drawn = _drawn_in_display(index, use.key)
        source = _draw_source(index, eq, use, [drawn.quote]) if drawn is not None else None
    return source


def _draw_source(index: PaperIndex, eq: Equation, use: SymbolUse, clauses) -> str | None:
    """Where a draw of this symbol takes it from: "data" (a distribution labelled data, `q_{\\text{data}}`, or a
    symbol the paper's words call data, `(c, x_0) \\sim \\mathcal{D}` with "a fixed dataset $\\mathcal{D}$"),
    "distribution" (any other), None when no clause draws it."""
    for clause in clauses:
        if "\\sim" not in clause or not _draws_this(index, use, clause):
            continue
        right = (_top_pieces(clause.partition("\\sim")[2]) or [""])[0]  # `c \\sim \\mathcal{D}, p_\\theta`: the first
        if re.search(r"data", right, re.I):
            return "data"
        source = _parse_cached(right)
        if isinstance(source, ast.Apply):
            source = source.func
        key = symbol_key(source) if source is not None else None
        # the source's own words, or its family's (`\\mathcal{D}_c`, the prompts of "a fixed dataset $\\mathcal{D}$")
        for name in dict.fromkeys((key, key_family(key)) if key is not None else ()):
            worded = _words_of(index, eq, name, use)
            if worded is not None:
                return "data" if worded[0] == "input data" else "distribution"
        return "distribution"
    return None


def _top_section(section: str | None) -> str:
    return (section or "").split(".")[0]


def _elsewhere_later(index: PaperIndex, eq: Equation, other: Equation | None) -> bool:
    """A display in a later part of the paper (an appendix lemma's `\\epsilon = \\frac{1}{2}Lt + …`) that sets the
    same letter does not compute the quantity of this equation; a later display of the same section may
    (the advantage defined right after the objective that uses it)."""
    if other is None:
        return True
    order = _display_order(index.doc)
    return order.get(other.id, 0) > order.get(eq.id, 0) and _top_section(other.section) != _top_section(eq.section)


def _step_free(latex: str) -> str:
    """`x^{k + 1}_{i}` → `x^k_i`: a written form without its step (`+ 1`, `- 1`), braces and spaces."""
    return braceless(re.sub(r"\s*[-+]\s*\d+", "", latex))


def _left_side_cue(eq: Equation, use: SymbolUse) -> str:
    where = f" of ({eq.number})" if eq.number else ""
    if use.lhs:
        return f"left-hand side{where}"
    return f"the left side of a where/with clause{where or ' of this display'}"


def _step_of_a_recurrence(index: PaperIndex, eq: Equation, info: FormulaSymbols, use: SymbolUse) -> str | None:
    """The cue when the symbol is the step before of what a recurrence computes: this display's (`X^{l}` in
    `X^{l+1} = …`), or an earlier display's (`a_i^{k+1} \\sim \\mathcal{N}(1, … x_j^{k} …)` after (1)
    `x_i^{k+1} = \\tanh(…)`: the layer before is what (1) computes, not an input of this display)."""
    step = _earlier_step(info, use)
    if step is not None:
        return f"the previous step of ${step}$ (this recurrence computes it)"
    recurrence = _recurrence_home(index, eq, use, info)
    if recurrence is None or recurrence is eq:
        return None
    name = f"({recurrence.number})" if recurrence.number else recurrence.id
    return f"an earlier step of what the recurrence {name} computes"


def _earlier_step(info: FormulaSymbols, use: SymbolUse) -> str | None:
    """The left side this symbol is an earlier step of (`X^{l}` in `X^{l+1} = …`, `\\bm{x}^{\\ell-1}` in
    `\\bm{x}^{\\ell} = …`): the same symbol one step back, which the same rule computed."""
    mine = written_form(use)
    for other in info.uses:
        if other is use or not other.lhs or other.kind == "index":
            continue
        theirs = written_form(other)
        if theirs != mine and _step_free(theirs) == _step_free(mine) and key_family(other.key) == key_family(use.key):
            return theirs
    return None


def _count_or_dimension(info: FormulaSymbols, use: SymbolUse, top) -> str | None:
    """N in `\\sum_{i=1}^{N}`, D in `x \\in \\mathbb{R}^{D}`: a count or a dimension is a fixed setting."""
    for red in info.reductions:
        if red.upper is not None and to_latex(red.upper) in (use.key, written_form(use)):
            return f"the upper limit of a {red.op}: a count"
    for m, d in top:
        if _is_dimension_of(m.math, use.key) or use.indices and _is_dimension_of(m.math, written_form(use)):
            return f"a dimension of a space (${m.math}$)"
    return None


_CONVENTIONAL_ROLES = {v[0]: v[1] for v in _CONVENTIONAL_SYMBOLS.values() if v}

_EQUALITY_OPS = frozenset({"="}) | frozenset({":=", "\\triangleq", "=:", "\\doteq"})


def _defining_equality(index: PaperIndex, use: SymbolUse, mention: Mention | None) -> str | None:
    """The right side when the sentence's formula is an equality whose left side is this symbol and whose right
    side computes it (`K_h = W^{key}_h X`, `A^1(s, a, b) := Q^1(s, a, b) - V^1(s)`); None for a value (`T = 1000`),
    a set or a tuple it collects (`\\mathcal{D} = \\{…\\}`, `z := (x, y)`), or another name
    (`\\sigma = \\mathrm{RMSHead}`)."""
    if mention is None or "=" not in mention.math or _numeric_value(mention.math):
        return None
    tree = _parse_cached(mention.math)
    if isinstance(tree, ast.Sequence) and tree.items:
        tree = tree.items[0]
    if not isinstance(tree, ast.Relation) or not tree.ops or tree.ops[0] not in _EQUALITY_OPS:
        return None
    lhs, rhs = tree.operands[0], tree.operands[1]
    if isinstance(lhs, ast.Apply):
        lhs = lhs.func
    if isinstance(lhs, ast.Power) and isinstance(lhs.exponent, ast.Number):
        lhs = lhs.base  # `g_t^2 = \frac{d\sigma_t^2}{dt} - …`, `\sigma^2 = …`: the square written out computes g_t, σ
    if symbol_key(lhs) is None or not _same_symbol(lhs, use, index.ordinals):  # the left side is the symbol itself
        return None
    if braceless(to_latex(lhs)) != braceless(written_form(use)) and \
            (use.indices or symbol_key(lhs) != to_latex(lhs)):
        return None  # `d := d_x + d_y` computes d, not d_x
    if not collect(rhs, index.ordinals).uses:
        return None  # `a = -\\frac{1}{2}`: a value
    if isinstance(rhs, (ast.SetLiteral, ast.Tuple, ast.Symbol, ast.Number)) or \
            (isinstance(rhs, ast.Apply) and "\\cdot" in to_latex(rhs)) or isinstance(rhs, ast.Indexed):
        return None
    return to_latex(tree)[:160]


def _unindexed_right_side(index: PaperIndex, math: str) -> bool:
    """The right side of the sentence's equality writes no indexed symbol (`\\rho = 1/(20n)`; not
    `c_1 = σ_{t-Δt}²/σ_t²`, which changes along the steps)."""
    if "=" not in math:
        return False
    tree = _parse_cached(math)
    if isinstance(tree, ast.Sequence) and tree.items:
        tree = tree.items[0]
    if not isinstance(tree, ast.Relation) or len(tree.operands) < 2:
        return False
    return all(not u.indices and not u.all_indices and u.kind == "symbol"
               for u in collect(tree.operands[-1], index.ordinals).uses)


def _setting_from_settings(index: PaperIndex, use: SymbolUse, mention: Mention) -> bool:
    """`D^{head} = D/H`, `\\rho = 1/(20 n)`, `d := d_x + d_y`: a constant written with other constants (nothing on
    either side runs over a step or an index) is set once, like them — the other rules decide it;
    `c_1 = σ_{t-Δt}²/σ_t²` or `γ_t = γ √(1-β_2^t)` change along the run: computed. An indexed symbol set to such
    a constant (`N_\\ell = n` "for all $\\ell$") does not change along its index either."""
    tree = _parse_cached(mention.math)
    if isinstance(tree, ast.Sequence) and tree.items:
        tree = tree.items[0]
    if not isinstance(tree, ast.Relation) or len(tree.operands) < 2:
        return False
    uses = collect(tree.operands[-1], index.ordinals).uses
    if use.indices:
        # `a_t = \\sqrt{\\alpha_t}` changes with t, though a lone formula does not read its t as an index
        return bool(uses) and not any(_writes_letter_in(u.key, letter) for u in uses for letter in use.indices) and \
            _constants_only(index, uses, set(use.indices) | set(use.all_indices))
    return _constants_only(index, uses, {"t", "k", "i", "j", "n", "s", "\\ell"})


def _constants_only(index: PaperIndex, uses, running: set[str]) -> bool:
    return bool(uses) and all(u.kind == "symbol" and not u.indices and not u.all_indices and
                              u.key not in index.ordinals and u.key not in running for u in uses)


def _writes_letter_in(key: str, letter: str) -> bool:
    return re.search(rf"(?<![A-Za-z\\]){re.escape(letter)}(?![A-Za-z])", key) is not None


_PART_WORDS = (r"(?:columns?|rows?|entr(?:y|ies)|elements?|slices?|blocks?|components?|coordinates?|"
               r"sub-?matri(?:x|ces)|members?)")
_PART_OF = re.compile(r"^\s*,?\s*(?:(?:is|are|denotes?|be)\s+(?:defined\s+as\s+)?)?(?:the|an?|each|its)?\s*"
                      r"(?:\$[^$]*\$-th\s+|[\w-]+\s+)?" + _PART_WORDS + r"\s+of\s+\$([^$]+)\$", re.I)


def _part_of(index: PaperIndex, eq: Equation, use: SymbolUse, found) -> tuple[str, str] | None:
    """A column, row, entry or slice of another symbol has that symbol's role: "$\\mathbf{x}_k \\in \\mathbb{R}^D$ the
    $k$-th column of $\\mathbf{X}$" (input data, as X), "$W^{out}_h$ … are defined as the slices of $W^{out}$",
    "$W^\\ell = [w_{ij}^\\ell]$" (the entries of a weight matrix)."""
    for m, d in found:
        if m is None or d.pattern in ("inside", "same letter"):
            continue
        owner = None
        at = m.quote.find(f"${m.math}$")
        if at >= 0:
            hit = _PART_OF.match(m.quote[at + len(m.math) + 2:])
            if hit:
                owner = hit.group(1)
        if owner is None and m.keys and m.keys[0] != use.key and \
                (use.key in m.elements or any(_same_layered_family(use.key, e) for e in m.elements)):
            # `W^\\ell = [w_{ij}^\\ell]`: an element of the matrix the formula names (`w^{k+1}_{ij}` too: the
            # entries of the same family at another layer)
            owner = m.keys[0]
        if owner is None:
            owner = _member_of(index, use, m.math)  # `A \\subset X`, `x \\in \\mathcal{D}`: a member of a named set
        if owner is None:
            continue
        tree = _parse_cached(m.math)
        built = isinstance(tree, ast.Relation) and any(isinstance(o, ast.Tuple) for o in tree.operands)
        owner_key = symbol_key(_parse_cached(owner) or ast.Symbol("?"))
        # a whole built from its parts (`z := (x, y)`) computes nothing of them
        computed_by = None if built else index.defined_by.get(owner) or index.defined_by.get(owner_key or "")
        if computed_by and computed_by != eq.id:
            other = index.doc.equation(computed_by)
            return "computed", f"a part of ${owner}$, computed by ({other.number or computed_by})"
        member = _member_at_the_parts_indices(index, eq, owner, use)
        if member is not None:
            return member
        found_role = _words_of(index, eq, owner, use)
        if found_role is not None:
            return found_role[0], f"a part of ${owner}$ ({found_role[1]})"
    return None


def _member_at_the_parts_indices(index: PaperIndex, eq: Equation, owner: str,
                                 part: SymbolUse) -> tuple[str, str] | None:
    """"each entry $x$ is a concatenation of $[x^{num}, x^{cat}]$", and `x^{num}_t` in a display: the part of the
    whole at the part's own indices (`x_t`), where a defining sentence writes that member ("Let $\\{x_t\\}$ denote a
    sequence of data in the diffusion process"): its role, before the bare whole's (the numerical part of a noised
    sample is a noised sample)."""
    if not part.indices or _parse_cached(owner) is None or not isinstance(_parse_cached(owner), ast.Symbol):
        return None
    member = f"{owner}_{{{','.join(part.indices)}}}"
    owners = [u for u in collect(_parse_cached(member), index.ordinals).uses if u.kind != "index"]
    if not owners or owners[0].key == part.key:
        return None
    for m, d in _find_definitions(index, eq, owners[0])[:6]:
        if m is None or d.strength != DEFINES or not _writes_indexed(d.quote, owner, tuple(part.indices)):
            continue
        worded = _role_from_words(m, d)
        if worded is not None and worded[0] not in ("computed", "function"):
            return worded[0], f"a part of ${member}$ ({worded[1]})"
    return None


_LAYER_LABEL = re.compile(r"^\^\{?\s*(?:\\ell|[klmnLK])\s*(?:[-+]\s*\d+)?\s*\}?$")


def _same_layered_family(key: str, other: str) -> bool:
    """`w^{k + 1}` and `w^{\\ell}`: one letter with a layer label each (a depth letter, maybe one step off)."""
    family = key_family(key)
    if family == key or key_family(other) != family:
        return False
    return bool(_LAYER_LABEL.match(key[len(family):].strip())) and bool(_LAYER_LABEL.match(other[len(family):].strip()))


def _member_of(index: PaperIndex, use: SymbolUse, math: str) -> str | None:
    """The named set a formula puts the symbol in (`A \\subset X`, `x \\in \\mathcal{D}`); None for a space
    (`\\mathbb{R}^d`), an interval or a set written out."""
    tree = _parse_cached(math)
    if isinstance(tree, ast.Sequence) and tree.items:
        tree = tree.items[0]
    if not isinstance(tree, ast.Relation) or not tree.ops:
        return None
    for k, op in enumerate(tree.ops):
        if op in ("\\in", "\\subset", "\\subseteq") and symbol_key(tree.operands[k]) is not None and \
                _same_symbol(tree.operands[k], use, index.ordinals):
            whole = tree.operands[k + 1]
            key = symbol_key(whole)
            if key is None or not isinstance(whole, (ast.Symbol, ast.Indexed)) or _conventional_symbol(key) or \
                    (isinstance(whole, ast.Symbol) and whole.font == "bb"):
                return None
            return to_latex(whole)
    return None


def _words_of(index: PaperIndex, eq: Equation, latex: str, part: SymbolUse) -> tuple[str, str] | None:
    """The role the defining sentences' words give another symbol (the whole a part belongs to)."""
    tree = _parse_cached(latex)
    if tree is None:
        return None
    if isinstance(tree, ast.Relation):
        tree = tree.operands[0]
    owners = [u for u in collect(tree, index.ordinals).uses if u.kind != "index"]
    if not owners or owners[0].key == part.key:
        return None
    for m, d in _find_definitions(index, eq, owners[0])[:6]:
        if m is None or d.strength != DEFINES:
            continue
        worded = _role_from_words(m, d)
        if worded is not None and worded[0] not in ("computed", "function"):
            return worded[0], worded[1]
    return None


def _worded_function(mention: Mention | None, definition: Definition | None) -> bool:
    """The defining sentence names the symbol a function ("where $\\ell$ is the logit function such that …"): its
    words outrank what the letter usually names (ℓ, L for a loss)."""
    worded = _role_from_words(mention, definition) if mention is not None else None
    return worded is not None and worded[0] == "function" and re.fullmatch(r"functions?", worded[1], re.I) is not None


def _named_loss(key: str) -> bool:
    """`\\mathcal{L}_{\\mathrm{DIFF}}`, `\\ell_{ce}`, `L_{\\text{DPO}}`: a named loss on the right side is computed from
    the model's outputs (a bare `L` or `J` may be a count: "a network with $L$ layers")."""
    return bool(LOSS_NAME.match(key)) and key not in ("L", "J") and _conventional(key) is None


_COUNT_BEFORE = re.compile(r"(?:\b(?:of|with)\s+(?:size|length|dimension(?:ality)?|width|depth|rank|order)|"
                           r"\bnumbers?\s+of|\bsize|\blength|\bdimension(?:ality)?)\s*(?:~|\\,)?\s*$", re.I)
_COUNT_AFTER = re.compile(r"^(?:\s*[-‐]\s*|\s+(?:(?!and\b|or\b|at\b|in\b|of\b|to\b|the\b|is\b|are\b)[a-z]+\s+)?)"
                          r"(?:layers?|steps?|heads?|samples?|tokens?|iterations?|epochs?|experts?|classes|categories|"
                          r"blocks?|rounds?|agents?|episodes?|channels?|particles?|time\s*steps?|timesteps?|stages?)\b",
                          re.I)


def _count_in_prose(index: PaperIndex, use: SymbolUse, found) -> str | None:
    """A count or a size the prose gives the symbol: "unlearning set $A$ of size $k$", "a network with $L$ layers",
    "a finite number of $N$ steps", a dimension of `\\mathbb{R}^{d_x} \\times \\mathbb{R}^{d_y}` in any sentence."""
    if use.kind != "symbol":
        return None
    written = written_form(use)
    for m, _ in found:
        if m is None:
            continue
        if _is_dimension_of(m.math, written if use.indices else use.key):
            # `\mathbf{W}^{\ell} \in \mathbb{R}^{N_{\ell} \times N_{\ell-1}}`: the width of each layer
            return f"a dimension of a space (${m.math}$)"
        if use.indices:
            continue  # the words around a count name the letter, not one of its indexed members
        if braceless(m.math) not in (braceless(use.key), braceless(written)):
            continue
        at = m.quote.find(f"${m.math}$")
        if at < 0:
            continue
        before, after = m.quote[:at], m.quote[at + len(m.math) + 2:]
        if _COUNT_BEFORE.search(before):
            return f"\"{before[-30:].strip()} ${m.math}$\": a count or a size"
        hit = _COUNT_AFTER.match(after)
        if hit:
            return f"\"${m.math}${hit.group(0)}\": a count"
    return None


def _role_from_words(mention: Mention | None, definition: Definition | None) -> tuple[str, str, str] | None:
    if mention is None or definition is None or definition.strength != DEFINES or definition.pattern == "inside":
        return None
    description = mention.description
    if mention.pattern == "table":
        description = row_description(mention.quote)
    at = mention.quote.find(f"${mention.math}$")
    after = mention.quote[at + len(mention.math) + 2:] if at >= 0 else ""
    if at >= 0 and _PARAMETERIZED_BY.search(mention.quote[:at]):
        # "a network parameterized by $\\theta$": the symbol is the network's parameters, not the network ("a mixture
        # distribution parameterized by $\\lambda$", "a Gumbel distribution with parameters $\\mu, \\sigma$" are
        # set, not trained: a distribution's parameter is no weight)
        distribution = _NOT_A_MODEL.search(_MARKUP.sub(" ", mention.quote[:at]))
        if distribution is None:
            return "trained weight", _PARAMETERIZED_BY.search(mention.quote[:at]).group(0).strip(), "predicate"
        return "fixed setting", f"{' '.join(distribution.group(0).split())} (a distribution's parameter)", "head"
    produced = _PRODUCED_BEFORE.search(_MARKUP.sub(" ", mention.quote[:at])) if at > 0 else None
    if produced is not None:
        # "a hypernetwork … that takes as input a latent code $z$ and outputs parameters $W$": what a network
        # outputs is computed by it, whatever noun names it
        return "computed", " ".join(produced.group(0).split()), "predicate"
    predicate = after[:90] if _PREDICATE_START.match(after) else ""
    found = role_from_description(description, predicate)
    if found is None:
        role_as = _AS_ROLE.match(after)  # "We have $X \\in …$ as the input"
        if role_as:
            found = role_from_description(role_as.group(1))
    if found is None:
        # "The terms $\\mu$ and $\\sigma^2$ denote the mean and variance of the input": coordinated subjects share
        # the predicate's noun phrase (the definiens was written after the last of them)
        shared = _SHARED_PREDICATE.match(after)
        if shared:
            found = role_from_description(shared.group(1))
    return found


_SHARED_PREDICATE = re.compile(r"\s*(?:,\s*)?(?:\$[^$]*+\$\s*+,?\s*+)*+(?:and\s+\$[^$]*\$\s*)(?:denote|represent|are)\s+"
                               r"([^$;]{3,90})", re.I)


# "a network parameterized by $\theta$", "with learnable parameters $\theta$", "$r$ can be parameterized by a neural
# network $\phi$" (the network named by its weights: what parameterizes r is the weights φ)
_PARAMETERIZED_BY = re.compile(r"\b(?:parameteri[sz]ed|parametri[sz]ed)\s+(?:by|with)\s*$|\bwith\s+(?:learnable\s+|trainable\s+)?"
                               r"parameters\s*$|\b(?:parameteri[sz]ed|parametri[sz]ed)\s+(?:by|with)\s+(?:an?\s+|the\s+)?"
                               r"(?:(?:deep|neural|learnable|trainable)\s+)*(?:networks?|models?|MLPs?)\s*$", re.I)
_MARKUP = re.compile(r"\\cite\w*\{[^{}]*\}|\$[^$]*\$|\\[A-Za-z]+\{|[{}]")
_NOT_A_MODEL = re.compile(r"\b(?:distributions?|mixtures?|schedules?|famil(?:y|ies)|kernels?|priors?)\s*"
                         r"(?:\([^()]*\)\s*)?,?\s*(?:which\s+is\s+|that\s+is\s+)?"
                         r"(?:(?:parameteri[sz]ed|parametri[sz]ed)\s+(?:by|with)|with\s+parameters)\s*$", re.I)
_AS_ROLE = re.compile(r"\s*as\s+((?:the|an?|our)\s+[\w\- ]{2,40})", re.I)


_PRODUCED_BEFORE = re.compile(r"\b(?:outputs|produces|returns|predicts|emits)\s+(?:the\s+|a\s+|an\s+)?"
                              r"(?:[A-Za-z-]+\s+){0,2}$", re.I)
_PREDICATE_START = re.compile(r"\s*(?:,\s*)?(?:\$[^$]*+\$\s*+,?\s*+)*+(?:and\s+\$[^$]*\$\s*)?(?:,\s*)?"
                              r"(?:is|are|was|were|be|being|has\s+been|have\s+been|can\s+be|(?:does|do)\s+not|remains?)\b",
                              re.I)


def _is_dimension_of(math: str, key: str) -> bool:
    """`x \\in \\mathbb{R}^{D \\times T}` has D and T as dimensions."""
    tree = _parse_cached(math)
    if tree is None:
        return False
    for _, op, rhs in membership_groups(tree):
        dims = _real_space_dims(rhs) if op == "\\in" and rhs is not None else None
        if dims and any(braceless(d) == braceless(key) for d in dims):
            return True
    return False


def _numeric_value(math: str) -> bool:
    """`T = 1000`, `\\lambda = 0.5`, `\\lambda = \\gamma = 10^{-4}`: an inline equation that sets a value (every
    member of a chain of equalities that ends in a number is set to it)."""
    math = re.sub(r"\\[,;:! ]|~", "", math)
    parts = re.split(r"=|\\coloneqq|:=", math)
    if len(parts) < 2 or not _NUMBER.fullmatch(parts[-1]):
        return False
    return all(_CHAIN_MEMBER.fullmatch(part) for part in parts[1:-1])


_NUMBER = re.compile(r"\s*[-+]?\s*(?:[\d.,\s]+(?:\\times\s*10\^\{?-?\d+\}?|e-?\d+)?|10\^\{?-?\d+\}?)\s*\\?%?\s*")
_CHAIN_MEMBER = re.compile(r"\s*\\?[A-Za-z]+(?:_\{?[\w\\{} ]+\}?)?\s*")


_CONDITION_BEFORE = re.compile(r"\b(?:if|when|whenever|at|until|till|once|unless|from|to)\s*$", re.I)


def _sets_value(m: Mention) -> bool:
    """`$\\lambda = 0.5$` sets a value; "if $m_i = 1$", "at $t = 1$", "from $t=0$" name a case or a point, not a
    value the paper chooses."""
    if not _numeric_value(m.math):
        return False
    at = m.quote.find(f"${m.math}$")
    if at < 0:
        return True
    before = m.quote[:at]
    hit = _CONDITION_BEFORE.search(before)
    # "we set the coefficient to $\\lambda = 0.5$" sets it
    return hit is None or (hit.group(0).lower().startswith("to") and re.search(r"\bset\b[^.;]*$", before) is not None)


def _model_subscript(index: PaperIndex, eq: Equation, key: str) -> bool:
    """θ written as the subscript of a model (`p_\\theta`, `\\epsilon_\\theta(x_t)`): the model's weights."""
    if not key.startswith("\\") or len(key) < 3:
        return False
    cache = index.paper.cache.setdefault("model-subscript", {}) if index.paper is not None else {}
    found = cache.get(key)
    if found is None:
        pattern = re.compile(r"[A-Za-z}]_\{?\s*" + re.escape(key) + r"\s*\}?\s*(?:\^\{[^{}]*\}|\^\\?\w+)?\s*"
                             r"(?:\\left)?\(")
        found = cache[key] = any(pattern.search(e.latex) for e in index.doc.equations)
    return found


_INTRODUCES = re.compile(r"(?::\s*$|\bas\s*,?\s*$|\bas follows\b|\b(?:defined|given|computed|written|formulated|expressed)\s+"
                         r"(?:as|by)\s*:?\s*$|\bemploy\b.*:\s*$)", re.I)


def _draws_the_symbol(piece: str, key: str) -> bool:
    """The draw's left side is the symbol as written, in any weight (`\\bm \\epsilon \\sim …` for ε), not another
    label of its letter (`\\epsilon_f \\sim …`): a symbol the display does not draw is matched on its spelling."""
    return _unbold(_spaceless(piece.split("\\sim", 1)[0])) == _unbold(_spaceless(key))


def _drawn_in_display(index: PaperIndex, key: str) -> Definition | None:
    """The clause of the first display that draws `key` (`\\bm \\epsilon \\sim \\mathcal{N}(\\bm 0, \\bm I)`), as
    written there: a top-level piece of the display or an expectation's subscript (once per paper)."""
    cache = index.paper.cache.setdefault("drawn-in-display", None) if index.paper is not None else None
    if cache is None:
        cache = {}
        for eq in index.doc.equations:
            for piece in _draw_clauses(eq.latex):
                if piece == eq.latex.strip().rstrip(".,").strip():
                    continue  # the display is the draw itself (a_i^{k+1} \\sim \\mathcal{N}(…)): its subject, no quote
                left = piece.split("\\sim", 1)[0]
                tree = _parse_cached(left.strip())
                for k in (principal_keys(tree) if tree is not None else ()):
                    cache.setdefault(k, (eq, piece))
        if index.paper is not None:
            index.paper.cache["drawn-in-display"] = cache
    found = cache.get(key)
    if found is None:
        return None
    eq, piece = found
    return Definition(piece, _section_label(index.doc, eq.section_id), eq.span.file, eq.span.line, "sampled",
                      eq.paragraph_before, DEFINES)


_SEPARATOR = re.compile(r"\\q?quad(?![A-Za-z])|\\text\s*\{[^{}]*\}|&|\\\\|[,;]")


def _top_pieces(latex: str) -> list[str]:
    """A display split at its top-level separators (commas and `\\quad` outside brackets, `&`, `\\\\`, words)."""
    pieces, start, depth, k = [], 0, 0, 0
    while k < len(latex):
        ch = latex[k]
        if ch == "\\" and latex[k + 1:k + 2] in "{}()[]":
            k += 2
            continue
        if ch in "{([":
            depth += 1
        elif ch in "})]":
            depth = max(0, depth - 1)
        elif depth == 0:
            m = _SEPARATOR.match(latex, k)
            if m:
                pieces.append(latex[start:k])
                start = k = m.end()
                continue
        k += 1
    pieces.append(latex[start:])
    return [p.strip().rstrip(".").strip() for p in pieces]


def _draw_clauses(latex: str) -> list[str]:
    """The pieces of a display that draw something (`… , \\quad \\epsilon \\sim \\mathcal{N}(0, I)`) and the
    subscripts of its expectations (`\\mathbb{E}_{\\epsilon \\sim \\mathcal{N}(0, I)}`)."""
    if "\\sim" not in latex:
        return []
    pieces = _top_pieces(latex)
    for m in re.finditer(r"\\mathbb\s*\{?E\}?\s*_\s*\{", latex):
        depth, j = 1, m.end()
        while j < len(latex) and depth:
            depth += {"{": 1, "}": -1}.get(latex[j], 0)
            j += 1
        pieces.append(latex[m.end():j - 1].strip())
    return [p for p in pieces if "\\sim" in p and p.count("\\sim") == 1 and len(p) < 200]


_NAMING_PATTERNS = frozenset({"let", "denoted", "called", "denote-by", "denote-as"})
"""The definition patterns that introduce notation ("let $X$ …", "denote by $X$ …", "… called $X$"), not only
describe a symbol the text already has."""


def _defines_outright(mention: Mention | None, definition: Definition) -> bool:
    """A sentence that defines the symbol outright ("we denote … as $z_{i,j}$", "denote the aggregated variable
    $z := (x, y)$"), as written or with other indices: it says what the symbol is better than the lead-in of a
    display that computes it (OptimalSteps (11) "By combining Equation … the recursion relation can be written
    as:")."""
    return mention is not None and mention.strength >= 3 and definition.strength == DEFINES and \
        definition.pattern in _NAMING_PATTERNS


_NOUN_PHRASE_START = re.compile(r"\s*(?:the|a|an)\s+(?!same\b|only\b)[A-Za-z]", re.I)


def _names_what_it_is(mention: Mention, definition: Definition) -> bool:
    """A copula or declaration that names the symbol with a noun phrase ("where $x_{obs}$ is a noised version of
    $x_0$", "we project them to query, key, and value $Q \\in …$"): it says what the symbol is, which a display's
    lead-in ("We have … as the output:") may not."""
    description = mention.description or ""
    if definition.pattern == "in-set":
        return bool(description)
    return definition.pattern in ("where", "is") and bool(_NOUN_PHRASE_START.match(description))


def _keeps_own_definition(use: SymbolUse, mention: Mention | None, definition: Definition) -> bool:
    """Whether the symbol's defining sentence stands, away from the display that defines it, over that display's
    lead-in: for the left side, one that defines it outright (`_defines_outright`); for any symbol, one that
    defines it by a definition sign (LEN's "denote the aggregated variable $z := (x, y)$" says what the iterates
    z_t of "the following lazy Hessian update:" are)."""
    if use.lhs and _defines_outright(mention, definition):
        return True
    if use.lhs and use.kind != "function" and mention is not None and mention.strength >= 3 and \
            definition.strength == DEFINES and _names_what_it_is(mention, definition):
        return True  # (a function's lead-in introduces the function: "we define the Gaussian mask as:")
    if use.lhs and use.kind != "function" and mention is not None and definition.pattern == "appositive" and \
            definition.strength == DEFINES and {use.key, written_form(use)} & set(mention.keys) and \
            _NOUN_PHRASE_START.match(mention.description or ""):
        return True  # "adds Gaussian noise to a data point $x_0$" says what the left side x_0 of "…, we discretize:" is
    if use.lhs and mention is not None and mention.strength >= 3 and definition.pattern == "equation" and \
            any(previous_step(key, use.key) for key in mention.keys):
        # "the output $X^L$, i.e., $X^{l} = \\operatorname{Decoder}(X^{l-1})$": the prose's recurrence says what
        # each step is, which "We describe the layer as:" before `X^{l+1} = …` does not
        return True
    return mention is not None and mention.strength >= 3 and definition.strength == DEFINES and \
        definition.pattern not in ("inside", "same letter") and defined_by_sign(mention.math)


def _named_in_context(use: SymbolUse, defining, near: set[str]):
    """A sentence of the defining display's lead-in paragraph (`near`) that names the symbol as written ("The
    conditional denoising diffusion model is using a neural network $\\epsilon_\\theta(x_t, z, t)$ to …" before the
    display that decomposes it): it says what the symbol is better than the lead-in's last words about the display.
    (After the display, a sentence that names the left side again, "the scaled threshold $p$ is computed", restates
    it: the lead-in stands. A formula that is an equality or a membership, "with step size $\\gamma > 0$,
    $z_{t+1} = z_t - \\gamma g_t$", is not named by the noun phrase before it: that names its neighbour.)"""
    keys = {use.key, written_form(use)}
    for m, d in defining:
        if m is not None and d.paragraph in near and d.pattern not in ("inside", "same letter", "use") and \
                keys & set(m.keys) and _NOUN_PHRASE_START.match(m.description or "") and \
                not _RELATION.search(m.math):
            return m, d
    return None


_RELATION = re.compile(r"(?<![<>])=|\\(?:in|sim|leq?|geq?|approx|coloneqq|triangleq)(?![A-Za-z])|[<>]")


def _defines_another_symbol(index: PaperIndex, eq: Equation, use: SymbolUse) -> bool:
    """Whether the display's lead-in is a sentence about symbols the display does not write ("where $r_n$ denotes
    the ratio …, and:" before `A^* = …`, the where clause of the display before): its words define that symbol, not
    the display's left side, whose own definition elsewhere stands. (A lead-in that defines the display's argument,
    "for a clean datapoint $x_0$, the noisy sample $x_t$ … is given by" before `q(x_t | x_0) = …`, is about the
    display, and so is "let $\\mu_\\theta$ denote a network with parameters $\\theta$ … trained with:".)"""
    para = lead_paragraph(index.doc, eq)
    if para is None or not para.sentences:
        return False
    sentence = para.sentences[-1]
    keys = {use.key, written_form(use)}
    found = [m for m in sentence_mentions(sentence.text, paragraph_index(para.id), len(para.sentences) - 1,
                                          index.ordinals) if m is not None]
    info = index.formulas[eq.id][0]
    written = {u.key for u in info.uses} | {written_form(u) for u in info.uses} if info is not None else set()
    defined = [m for m in found if m.strength >= 2 and m.keys]
    return bool(defined) and not any(written & set(m.keys + m.bases) for m in defined) and \
        not any(keys & set(m.keys + m.inner + m.elements) for m in found)


def _introducing_sentence(index: PaperIndex, eq: Equation) -> Definition | None:
    """For what an equation defines: the sentence that introduces the display ("we also employ a … loss:")."""
    para = lead_paragraph(index.doc, eq)
    if para is None or not para.sentences:
        return None
    sentence = para.sentences[-1]
    if len(re.findall(r"[A-Za-z]{2,}", re.sub(r"\$[^$]*\$", " ", sentence.text))) < 3:
        return None  # "Set:" leads into the display but says nothing of what it defines
    # The sentence runs into the display (it ends with ":", "," or no stop at all: "… using the following loss,")
    # or says it introduces one ("defined as", "as follows").
    if not (_INTRODUCES.search(sentence.text) or not re.search(r"[.!?]\s*(?:\$|\)|''|”)?\s*$", sentence.text)):
        return None

    return Definition(sentence.text, _section_label(index.doc, para.section), sentence.span.file,
                      sentence.span.line, "introduces", para.id)


def _find_definitions(index: PaperIndex, eq: Equation, use: SymbolUse,
                      home: Equation | None = None) -> list[tuple[Mention, Definition]]:
    """Every sentence of the paper that holds the symbol, best first (analysis/candidates.py ranks them)."""
    if use.kind == "index":
        return _find_index_definitions(index, eq, use)
    written = written_form(use)
    applied = application_of(_display_tree(index, eq), use.key) if use.kind == "function" else None
    signature = (use.key, written, bool(use.indices), use.kind == "function", applied)
    orders = index.paper.cache.setdefault("candidate-orders", {}) if index.paper is not None else {}
    order = orders.get(signature)
    if order is None:
        subject, inside = _candidate_slots(index, use, written)
        _as_the_prose_writes_it(index, use, written, subject, inside)
        if applied is not None:  # how the equation applies a function decides which of its meanings it is
            _apart_where_applied_otherwise(index, use, applied, subject, inside)
        order = orders[signature] = CandidateOrder(index.doc, index.mentions, subject, inside,
                                                   _collection_members(index, use, written, subject))
    doc = index.doc
    quotes = index.mentions.quotes  # mention id → its quote
    out = []
    # Of the mentions (every defining sentence ranks before them) only the first few are ever shown: the best
    # when nothing defines, and the redefinitions listed with it.
    levels = order.levels
    for cand in order.first_per_quote(eq, home, quotes, _SHOWN_MENTIONS):
        m = index.mentions[cand.mention]
        para = doc.paragraphs[m.paragraph_index]
        sentence = para.sentences[m.sentence_index]
        section = _section_label(doc, para.section)
        pattern = (m.pattern or "use") if cand.slot == "subject" else "inside"
        if levels.get(cand.mention, 0) >= 2 and not _writes_letter(m.quote, written):
            pattern = "same letter"  # another label a reader would not take for this symbol: evidence, no quote
        quote = _with_collection_name(index, m, para, use) if cand.slot == "subject" else m.quote
        out.append((m, Definition(quote, section, sentence.span.file, sentence.span.line, pattern, para.id,
                                  cand.strength)))
    return out


_SHOWN_MENTIONS = 5

_NAMING_ONLY = frozenset({"denote-by", "called", "denoted", "let", "is"})


def _with_collection_name(index: PaperIndex, m: Mention, para, use: SymbolUse) -> str:
    """The quote of a sentence that defines the symbol as a member of a collection (`A=\\{a_1, …, a_k\\}`), with
    the next sentence when that one names the collection ("We refer to $A$ as the \\textit{unlearning set}."):
    what the member is, is an element of what the collection is called."""
    if use.key in m.keys or use.key not in m.elements or not m.keys or m.sentence_index + 1 >= len(para.sentences):
        return m.quote
    text = para.sentences[m.sentence_index + 1].text
    names = [n for n in sentence_mentions(text, m.paragraph_index, m.sentence_index + 1, index.ordinals)
             if n is not None and n.pattern in _NAMING_ONLY and n.strength >= 3 and set(n.keys) & set(m.keys)]
    own = re.sub(r"\s+", " ", para.sentences[m.sentence_index].text).strip().rstrip(".")
    if not names or not own.endswith(re.sub(r"\s+", " ", m.quote).strip().rstrip(".")):
        return m.quote  # the quote ends where its sentence does: the two read on
    return f"{m.quote} {text.strip()}"


def _collection_members(index: PaperIndex, use: SymbolUse, written: str, subject: dict[int, int]) -> frozenset[int]:
    """The subject mentions that hold the symbol only as a member of a collection they name or write
    ("represented as $(\\Delta r, \\theta)$", a training dataset `X = \\{x_1, …\\}`), not as the formula's own
    subject."""
    keys = {written, use.key}
    return frozenset(i for i in subject if keys & set(index.mentions[i].elements) and
                     not keys & set(index.mentions[i].keys))


def _writes_letter(quote: str, written: str) -> bool:
    """Whether a sentence that writes the letter with another label still names this symbol for a reader
    (`\\epsilon_{orig}` for ε, `X^{0}` for `X^{i}`): the same test `check` applies to a quote."""
    from ..check.symbols import _mentions
    return _mentions(quote, written)


def _candidate_slots(index: PaperIndex, use: SymbolUse, written: str) -> tuple[dict[int, int], dict[int, int]]:
    """The mentions that hold a symbol: as their subject or inside another formula, each with how exactly it
    writes the symbol (0 as the equation does, 1 the same letter with other indices, 2 another label)."""
    mi = mention_index(index.mentions)
    subject: dict[int, int] = {}
    inside: dict[int, int] = {}
    for key in dict.fromkeys((written, use.key)):
        level = 0 if key == written or not use.indices else 1
        for i in mi.subject.get(key, ()):
            subject[i] = min(subject.get(i, 9), level)
        for i in mi.inside.get(key, ()):
            inside[i] = min(inside.get(i, 9), level)
    for i in mi.subject_base.get(use.key, ()):  # the same letter with other indices (ρ_i for ρ, x_t for x)
        subject.setdefault(i, 1)
    if use.indices:
        _as_written_where_the_sequence_is_named(index, use, subject)
    if use.kind == "function":
        # A function (`w(u)` in the display) is not the number of a sentence that gives the same letter a value
        # or a range ("where $w \in [1, +\infty)$ is the guidance scale"): the same letter, another meaning.
        for i in subject:
            if _scalar_value(index.mentions[i].math):
                subject[i] = 2
    # A label in words that the prose introduces as a short form ("the cross-entropy (CE) loss" for
    # \mathcal{L}_{\textrm{ce}}): that sentence says what the labelled symbol is.
    for label in _WORD_LABEL.findall(use.key):
        for form in dict.fromkeys((label, label.upper())):
            for i in mi.subject.get(f"\\text{{{form}}}", ()):
                if index.mentions[i].pattern == "acronym":
                    subject.setdefault(i, 1)
    # The same letter in another weight (the prose's `\\bm{\\epsilon}` for the display's `\\epsilon`): the same
    # symbol, when the paper's displays never write the other spelling as a symbol of its own.
    variants = [k for k in _font_variants(index.mentions, mi, use.key) if k != use.key]
    for other in variants:
        if not index.equations.writes(other):
            for i in mi.subject.get(other, ()):
                subject.setdefault(i, 1)
            for i in mi.inside.get(other, ()):
                inside.setdefault(i, 1)
    # The same letter with another label (`\\epsilon_{orig}` for ε, `A^{1}_{t}` for A): a weak candidate, unless
    # the paper uses that labelled symbol as a function and this one is not (ε_θ is a network, ε is noise).
    functions = _function_keys(index)
    for i, slot, key in mi.family.get(key_family(use.key), ()):
        if slot == "subject" and _wildcard_label(use.key, key):
            subject.setdefault(i, 1)
            continue
        if slot != "subject" or key in (use.key, written) or not same_family_meaning(use.key, key) or \
                (use.kind != "function" and key in functions):  # (the displays are looked at last: they cost)
            continue  # (a labelled letter inside another formula says nothing about this symbol)
        target = subject if slot == "subject" else inside
        # labels in one position that vary like indices (w^{k+1} and w^{\\ell}, p_{A} and p_{S}) write the same
        # family as another index would; another kind of label (ε and ε_{orig}) is only the same letter
        target.setdefault(i, 1 if _varies_like_index(use.key, key) else 2)
    return subject, inside


def _as_the_prose_writes_it(index: PaperIndex, use: SymbolUse, written: str, subject: dict[int, int],
                            inside: dict[int, int]) -> None:
    """The levels of `_candidate_slots` by how each formula writes the symbol. A letter the equation writes bare (the
    number of heads h) is not the same quantity as the letter with indices in a sentence that only writes those
    (the hidden states h_t, h_{t-1}): when some sentence writes the letter bare, such a sentence is the same letter
    with other indices (level 1). A labelled symbol written as the equation does inside another formula whose
    subject is its label (`c \\sim \\mathcal{D}_c`: the key drops the label c, read as that formula's variable) holds
    it as written."""
    if not use.indices and use.kind == "symbol":
        # (a collection or a run of members, `X = \{x_1, …, x_n\}`, says what each member is: it keeps its level)
        indexed_only = [i for i, level in subject.items() if level == 0 and
                        written not in index.mentions[i].elements and not _ELLIPSIS.search(index.mentions[i].math)
                        and _writes_as(index.mentions[i].math, written) is False]
        if indexed_only and len(indexed_only) < sum(1 for level in subject.values() if level == 0):
            for i in indexed_only:
                subject[i] = 1
    if use.indices and any(not _RUNNING_INDEX.match(i) and not i.isdigit() for i in use.indices):
        # an index the keys do not keep (a slice `x_{0:T}`, a step `x_{t-1}`): a formula whose subject is the symbol
        # with that very index ("defined on path $x_{0:T}$") writes it as the equation does
        for i, level in list(subject.items()):
            if level == 1 and _writes_as(index.mentions[i].math, written, subject_only=True):
                subject[i] = 0
    family = key_family(use.key)
    label = _label_of(use.key)
    if family != use.key and label:
        mi = mention_index(index.mentions)
        for i in mi.inside.get(family, ()):
            m = index.mentions[i]
            if i not in inside and i not in subject and label in m.keys and _writes_as(m.math, written):
                inside[i] = 0


def _label_of(key: str) -> str:
    from .candidates import _labels
    return _labels(key)[1]


def _writes_as(math: str, written: str, subject_only: bool = False) -> bool | None:
    """Whether some node of the formula prints as `written` and is not only the base of an indexed form (`h_t` writes
    h indexed, not as the bare h; `c \\sim \\mathcal{D}_c` writes \\mathcal{D}_c). None when it does not parse."""
    tree = _parse_cached(math)
    if tree is None:
        return None
    if subject_only and isinstance(tree, ast.Relation):
        tree = tree.operands[0]  # (with `subject_only`: the left of its first relation, `x_t \\sim q(…)` → x_t)
    nodes = list(ast.walk(tree))
    bases = {id(node.base) for node in nodes if isinstance(node, ast.Indexed)}
    return any(id(node) not in bases and to_latex(node) == written for node in nodes)


def _apart_where_applied_otherwise(index: PaperIndex, use: SymbolUse, applied: Application,
                                   subject: dict[int, int], inside: dict[int, int]) -> None:
    r"""A letter applied as a density or a map names one function per way it is applied: the data PDF $p(x)$ and
    the transition kernel $p(x_t | x_{t-\Delta t})$ are two functions of one letter, and the forward process
    $q(x_{1:T} | x_0)$ is not the data distribution $q(x_0)$. When some sentence applies the symbol as the equation
    does (`Application.agrees`), a sentence that applies it otherwise is about the same letter with another
    meaning (level 1); a sentence that writes the bare letter keeps its level. A sentence that writes the very
    application of the equation ("a transition Gaussian kernel $p(x_t | x_{t-\Delta t})$" for the display of that
    kernel) goes before the others that only agree ("a Gaussian kernel $p(x_t | x_0)$"). A formula that draws from
    the function's application and spells it out by an equality (`x_t \sim q(x_t | x_0) = \mathcal{N}(…)`) is
    about it, as its subject would be."""
    for i, level in inside.items():
        if level == 0 and i not in subject:
            way = spelled_out_application(index.mentions[i], use.key)
            if way is not None and applied.agrees(way):
                subject[i] = 0
    ways = {i: mention_application(index.mentions[i], use.key) for i, level in subject.items() if level == 0}
    same = [i for i, way in ways.items() if way is not None and applied.written_as(way)]
    agreeing = [i for i, way in ways.items() if way is not None and applied.agrees(way)]
    kept = same or agreeing
    if not kept:
        return
    for i, way in ways.items():
        if way is not None and i not in kept:
            subject[i] = 1


def _as_written_where_the_sequence_is_named(index: PaperIndex, use: SymbolUse, subject: dict[int, int]) -> None:
    """A sentence about the same letter with other indices (level 1 in `subject`) that names the bare letter as a
    sequence ("The $z$ sequence is the base sequence") speaks of every z_t, as written: level 0."""
    running = all(_RUNNING_INDEX.match(i) for i in use.indices)
    for i, level in list(subject.items()):
        if level == 1 and (_names_the_sequence(index.mentions[i], use.key) or
                           (running and _enumerates(index.mentions[i], use.key, tuple(use.indices)))):
            subject[i] = 0


_RUNNING_INDEX = re.compile(r"^(?:[A-Za-z]|\\ell)$")
"""An index that runs over the members (`z_t`, `x_i`), not one member (`z_1`) or a label (`W_{\\text{out}}`)."""
_ELLIPSIS = re.compile(r"\\(?:[lcv]?dots|dotsc|dotsb)(?![A-Za-z])|\.\.\.|…")


_STEP_BOUND = re.compile(r"_\{\s*[A-Za-z]\s*[-+]\s*\d+\s*\}")
"""A member written a step from a running index (`z_{i-1}`): a run that ends there lists the members before z_i."""


def _enumerates(m: Mention, key: str, running: tuple[str, ...] = ()) -> bool:
    """The formula lists the members of one sequence, first to last ("Let $z_1, \\dots, z_T$ be arbitrary vectors",
    "$\\beta_1, \\ldots, \\beta_T$"): it writes every member, so it speaks of z_t at any running index t as written.
    A run that ends at a running index or a step from one ("concept tokens $z_1, \\dots, z_{i-1}$" for z_i or z_j)
    lists the members before one of them, not the sequence."""
    if len(m.keys) < 2 or set(m.bases) != {key} or not _ELLIPSIS.search(m.math) or _STEP_BOUND.search(m.math):
        return False
    return not any(re.search(r"(?<![A-Za-z\\])" + re.escape(letter) + r"(?![A-Za-z])", m.math) for letter in running)


def _names_the_sequence(m: Mention, key: str) -> bool:
    """The sentence names the bare letter as a sequence ("The $z$ sequence is …", "the $x_t$ iterates"): it speaks of
    each indexed member."""
    return key in m.keys and re.search(re.escape(f"${m.math}$") + r"\s+(?:sequences?|iterates?)\b", m.quote) is not None


_SCALAR_VALUE = re.compile(r"^([^()]*?)(?:\\in\s*(?:\\left\s*)?[\[(]\s*[-+]?\d|(?<![<>])=\s*[-+]?\d|\\approx\s*[-+]?\d|"
                           r"[<>]=?\s*[-+]?\d|\\[lg]eq?\s*[-+]?\d)")


def _scalar_value(math: str) -> bool:
    """A formula that gives its subject, written without an argument, a number or a numeric range (`w \\in [1,
    +\\infty)`, `w \\approx 1.4`, `w > 3.0`), not `f(x) = 0`, nor the range of an index inside a script
    (`\\{\\Phi_m\\}_{m=1}^\\infty` is a sequence of functions: the relation stands inside the braces)."""
    found = _SCALAR_VALUE.match(math.strip())
    if found is None or not found.group(1).strip():
        return False
    before = re.sub(r"\\[{}]", "", found.group(1))
    return before.count("{") == before.count("}")


_BOLD_WRAP = re.compile(r"\\(?:mathbf|boldsymbol|bm)\s*(?:\{((?:[^{}]|\{[^{}]*\})*)\}|(\\[A-Za-z]+|[A-Za-z]))")


def _unbold(key: str) -> str:
    """A key with its bold weight dropped and spaces gone (`\\mathbf\\mu _\\theta` → `\\mu_\\theta`)."""
    return re.sub(r"\s+", "", _BOLD_WRAP.sub(lambda m: m.group(1) or m.group(2), key))


_ROMAN_LABEL = re.compile(r"\\(?:mathrm|text|textrm|textup|mathup|rm|operatorname|textnormal)(?![A-Za-z])\s*"
                          r"(?:\{([^{}]*)\}|([A-Za-z]+))")
_BRACED_LABEL = re.compile(r"([_^])\{(\\text\{[^{}]*\})\}")


def _spelling(key: str) -> str:
    """A key in one weight and one roman spelling: `M_{\\text{num}}`, `M_\\mathrm{num}` (`M_{\\rm num}`) and
    `\\mathbf{M}_\\mathrm{num}` are one spelling; an upright label is one label however the source sets it."""
    return _BRACED_LABEL.sub(r"\1\2", _unbold(_roman_as_text(key)))


def _roman_as_text(key: str) -> str:
    """Every upright label of a key written `\\text{…}` (`\\mathrm{num}`, `\\rm num`, `\\operatorname{num}`)."""
    return _ROMAN_LABEL.sub(lambda m: "\\text{%s}" % (m.group(1) if m.group(1) is not None else m.group(2)), key)


_VARIANTS: dict[int, tuple[object, dict[str, tuple[str, ...]]]] = {}


def _font_variants(mentions, mi, key: str) -> tuple[str, ...]:
    """The mention keys that spell `key` in some weight or roman spelling (`_spelling`), when there are two or more (`ProseMentions` looks at
    the sentences that can hold them; mentions in a tuple are indexed once per paper)."""
    spellings = getattr(mentions, "spellings", None)
    if spellings is not None:
        return spellings(key, _spelling)
    cached = _VARIANTS.get(id(mi))
    if cached is None or cached[0] is not mi:
        found: dict[str, list[str]] = {}
        for k in list(mi.subject) + list(mi.inside):
            same = found.setdefault(_spelling(k), [])
            if k not in same:
                same.append(k)
        if len(_VARIANTS) > 16:
            _VARIANTS.clear()
        cached = _VARIANTS[id(mi)] = (mi, {k: tuple(v) for k, v in found.items() if len(v) > 1})
    return cached[1].get(_spelling(key), ())


def _wildcard_label(use_key: str, other_key: str) -> bool:
    """`\\epsilon^{*}` for `\\epsilon^{w}`: a star in the place of a one-letter label stands for any of them ("where
    $x^*_t = \\alpha_t x^*_0 + \\sigma_t \\epsilon^*$, $\\epsilon^* \\sim \\mathcal{N}(0, I)$" speaks of x^w and x^l at
    once). Against a bare letter or an index-like step (`x^{k}`, `x^{(t)}`) a star is the optimum, another symbol."""
    from .candidates import _labels
    (pos_a, a), (pos_b, b) = _labels(use_key), _labels(other_key)
    return bool(pos_a) and pos_a == pos_b and b in ("*", "\\ast") and a.isalpha() and len(a) == 1 and \
        a not in _STEP_LETTERS


_STEP_LETTERS = frozenset("ijkmnst")
"""Letters that count steps or positions (`x^{k}`, `x_t`): a starred one is the limit or the optimum."""


def _varies_like_index(use_key: str, other_key: str) -> bool:
    from .candidates import _labels
    (pos_a, a), (pos_b, b) = _labels(use_key), _labels(other_key)
    # a number is one member (μ_1, s_0), not the running index of the family
    numbered = any(re.fullmatch(r"\(?\d+\)?", label.strip()) for label in (a, b))
    return bool(pos_a) and pos_a == pos_b and not numbered and same_family_meaning(use_key, other_key)


_WORD_LABEL = re.compile(r"[_^]\{?\s*\\(?:text|textrm|mathrm|rm|operatorname|textsc)\s*\{([A-Za-z]{2,12})\}")

def _function_keys(index: PaperIndex):
    """Keys the paper's display equations apply as functions (a container: `key in _function_keys(index)`, looked
    up per key over the displays that can write it)."""
    return index.equations.function_keys


def _find_index_definitions(index: PaperIndex, eq: Equation, use: SymbolUse) -> list[tuple[Mention, Definition]]:
    """An index: "the $i$-th expert" first, then its other defining sentences."""
    # In document order, so that two equal ranks (two clauses of one sentence) keep the order they are written
    # in (a set's order decided them before: an accident of the mention ids).
    candidates = dict.fromkeys(index.by_key.get(use.key, ()))
    if not candidates:
        return []
    doc = index.doc
    near = {pid for pid in (eq.paragraph_before, eq.paragraph_after) if pid}
    eq_para = paragraph_index(eq.paragraph_after) if eq.paragraph_after else len(doc.paragraphs)
    where = places(doc)
    eq_penalty, eq_env = equation_place(doc, eq)

    def rank(i: int):
        m = index.mentions[i]
        pid = f"p:{m.paragraph_index}"
        place = 0 if pid in near else (1 if m.paragraph_index < eq_para else 2)
        known = m.paragraph_index < len(where.paragraph_penalty)
        penalty = where.paragraph_penalty[m.paragraph_index] if known else 0
        if known and where.paragraph_env[m.paragraph_index] is not None and \
                where.paragraph_env[m.paragraph_index] == eq_env:
            penalty = 0  # the lemma's own words define the lemma's display
        # As for any symbol: a position named in the method text before one in an appendix lemma or a proof
        # ("with step size $t$" in SISS's appendix is another t).
        # Every sentence that defines it (strength 2 or more) ranks by nearness first, as for any symbol: the
        # display's own lead-in ("indexed by a continuous time variable $t \\in [0,1]$") before a stronger pattern
        # about the letter in another display's "where" ("where $s$ and $t$ are two arbitrary timesteps").
        return (0 if m.pattern == "ordinal" else 1, max(0, penalty - eq_penalty), m.strength < 2, place, -m.strength,
                m.paragraph_index, m.sentence_index)

    out = []
    seen = set()
    for i in sorted(candidates, key=rank):
        m = index.mentions[i]
        if m.quote in seen:
            continue
        seen.add(m.quote)
        para = doc.paragraphs[m.paragraph_index]
        sentence = para.sentences[m.sentence_index]
        out.append((m, Definition(m.quote, _section_label(doc, para.section), sentence.span.file,
                                  sentence.span.line, m.pattern or "use", para.id)))
    return out


def _placed(index: PaperIndex, m: Mention | None, definition: Definition | None) -> Definition | None:
    """The definition with the line its quote starts on (candidates carry their sentence's line until shown)."""
    if m is None or definition is None:
        return definition
    para = index.doc.paragraphs[m.paragraph_index]
    line = _locate(index, m, para.sentences[m.sentence_index])
    return definition if line == definition.line else replace(definition, line=line)


def _locate(index: PaperIndex, m: Mention, sentence) -> int:
    """The line a quote starts on; a notation-table row is found by its description cell, which may stand
    before or after the caption that anchors it."""
    locate = index.paper.locate_text if index.paper is not None else index.doc.locate_text
    if m.pattern != "table":
        return locate(m.quote, sentence.span.file, sentence.span.start) or sentence.span.line
    words = row_description(m.quote) or m.quote
    # The longest stretch of prose between formulas: the source may spell a formula with the paper's macros.
    words = max(re.split(r"\$[^$]*\$", words), key=lambda piece: len(piece.strip())).strip() or words
    return (locate(words, sentence.span.file, sentence.span.start) or
            locate(words, sentence.span.file, 0) or sentence.span.line)


def _section_label(doc: Document, section_id: str | None) -> str | None:
    """The printed number of a section (or of the numbered section an unnumbered heading sits in), once per
    section per paper."""
    cached = _SECTION_LABELS.get(id(doc))
    if cached is None or cached[0] is not doc:
        if len(_SECTION_LABELS) > 16:
            _SECTION_LABELS.clear()
        cached = _SECTION_LABELS[id(doc)] = (doc, {})
    labels = cached[1]
    if section_id not in labels:
        labels[section_id] = _section_label_uncached(doc, section_id)
    return labels[section_id]


_SECTION_LABELS: dict[int, tuple[Document, dict]] = {}


def _section_label_uncached(doc: Document, section_id: str | None) -> str | None:
    sec = doc.section_by_id(section_id)
    if sec is None:
        return None
    if sec.number:
        return sec.number
    # An unnumbered \paragraph heading: report the numbered section it sits in.
    numbered = None
    for s in doc.sections:
        if s.id == section_id:
            break
        if s.number:
            numbered = s.number
    return numbered or sec.title


def _shape_from_text(index: PaperIndex, use: SymbolUse, found, info: FormulaSymbols | None = None,
                     eq: Equation | None = None) -> tuple[tuple[str, ...] | None, str | None]:
    """Dimensions the text states (`\\in \\mathbb{R}^{…}`, "shape (B, T, C)", "of dimension d") from any of the
    symbol's defining sentences; only if none does, the coarse words "scalar", "vector", "matrix"."""
    coarse: tuple[tuple[str, ...] | None, str | None] = (None, None)
    if found and found[0][0].pattern in ("is", "where", "let"):
        # "$n_h$ denote the number of attention heads": a count or a dimension is a number. Only the words
        # right after this symbol count, not another symbol's description in the same clause.
        mention, definition = found[0]
        at = definition.quote.find(f"${mention.math}$")
        if at >= 0:
            m = _COUNT_OR_DIMENSION.match(definition.quote, at + len(mention.math) + 2)
            if m:
                return (), f'"{m.group(0).strip()}" (a number)'
    if found and found[0][1].pattern == "inside" and _is_dimension_of(found[0][0].math, use.key):
        return (), f"a dimension of ${found[0][0].math}$ (a number)"
    if found and found[0][0].pattern == "table":
        # "$K$ & & Number of Gaussian components." — the description cell alone says it is a number.
        description = row_description(found[0][1].quote)
        m = _TABLE_COUNT.match(description) if description else None
        if m:
            return (), f'"{m.group(0).strip()}" (a number)'
    # A membership states dimensions outright, wherever among the defining sentences it is; the words come next,
    # then what the paper declares for the symbol elsewhere (the same quantity at another step or layer).
    for rank, (mention, definition) in enumerate(found):
        dims = _declared_dims(index, use, mention.math) if _same_part(index, eq, mention) else None
        if dims is not None:
            return dims, f"${mention.math}$"
        if rank == 0 and _quote_spaces_another_spelling(use, definition.quote):
            # The quote gives the letter a space in another spelling (`\bm{y}_i \in \mathbb{R}^{N_y}` quoted for
            # y): another sentence's space would contradict the sentence shown as the definition.
            return None, None
    bound = _bound_in_space(use, info) or _declared_in_display(index, use, eq) or \
        _written_out_entries(index, use, found)
    if bound is not None:
        return bound
    for mention, definition in found:
        if definition.pattern in ("inside", "same letter"):
            continue  # a sentence about another symbol: its words describe that one
        worded = _shape_in_words(mention, definition)
        if worded is not None:
            if worded[0] is not None and len(worded[0]) and worded[0][0] == "?":
                coarse = coarse if coarse[0] is not None else worded
                continue
            return worded
    drawn = _drawn_with_identity_covariance(index, use, found, eq)
    if drawn is not None:
        return drawn
    declared = _declared_elsewhere(index, use, eq) or _set_equal_to_declared(index, use, found, eq)
    if declared is not None:
        return declared
    return coarse


def _set_equal_to_declared(index: PaperIndex, use: SymbolUse, found,
                           eq: Equation | None) -> tuple[tuple[str, ...], str] | None:
    """"$z_1=x_1$ is the initial point", and `\\min_{x \\in \\mathbb{R}^d}`: a sequence started at a member of another
    (set equal to it at the same index) lives in that quantity's space."""
    family = key_family(use.key)
    for mention, definition in found:
        if definition.pattern in ("inside", "same letter") or "=" not in mention.math:
            continue
        tree = _parse_cached(mention.math)
        for node in ast.walk(tree) if tree is not None else ():
            if not isinstance(node, ast.Relation) or node.ops != ("=",) or len(node.operands) != 2:
                continue
            sides = [n if isinstance(n, ast.Indexed) else None for n in node.operands]
            keys = [symbol_key(n) if n is not None else None for n in sides]
            if None in keys or key_family(keys[0]) != family or key_family(keys[1]) == family or \
                    [to_latex(i) for i in sides[0].indices] != [to_latex(i) for i in sides[1].indices]:
                continue  # `x = m`, "the state is the mask": a value of it, not where it lives
            other = SymbolUse(keys[1], sides[1], "symbol", first_written=to_latex(sides[1]))
            declared = _declared_elsewhere(index, other, eq)
            if declared is not None and declared[0]:
                return declared[0], f"${mention.math}$, and {declared[1]}"
    return None


def _in_appendix(doc: Document, section_id: str | None) -> bool:
    section = doc.section_by_id(section_id) if section_id else None
    return section is not None and section.appendix


def _same_part(index: PaperIndex, eq: Equation | None, mention: Mention) -> bool:
    """Whether a sentence can declare the space of a symbol of `eq`: an appendix's lemma declares its own generic
    variables ("one step of gradient descent from $x \\in \\mathbb{R}^n$ with step size $t$"), not the letters of
    the method's equations; a sentence of the main text, a notation table, or the appendix `eq` itself sits in can."""
    if eq is None or mention.pattern == "table" or _in_appendix(index.doc, eq.section_id):
        return True  # a notation table declares the paper's symbols wherever it stands
    paragraphs = index.doc.paragraphs
    para = paragraphs[mention.paragraph_index] if 0 <= mention.paragraph_index < len(paragraphs) else None
    return para is None or not _in_appendix(index.doc, para.section)


def _bound_in_space(use: SymbolUse, info: FormulaSymbols | None) -> tuple[tuple[str, ...], str] | None:
    """`\\min_{\\mathbf{x} \\in \\mathbb{R}^{d_x}}`: the display's own reduction declares the space its variable
    runs over."""
    for red in info.reductions if info is not None else ():
        if red.domain is None or len(red.variables) != 1 or symbol_key(red.variables[0]) != use.key:
            continue
        dims = _real_space_dims(red.domain)
        if dims is not None and dims != ():
            return dims, f"${to_latex(red.variables[0])} \\in {to_latex(red.domain)}$"
    return None


def _declared_in_display(index: PaperIndex, use: SymbolUse,
                         eq: Equation | None) -> tuple[tuple[str, ...], str] | None:
    """`\\bm{x}^\\ell = \\tanh(\\mathbf{W}^{\\ell}\\bm{x}^{\\ell-1} + \\mathbf{b}^{\\ell})
    \\in \\mathbb{R}^{N_{\\ell}}`: the display's own chain ending in a membership declares its left side's space,
    and that of the same quantity one step away, which the display writes too
    (`\\bm{x}^{\\ell-1} \\in \\mathbb{R}^{N_{\\ell-1}}`: the step shifts the dimensions that run with it)."""
    tree = _display_tree(index, eq) if eq is not None and use.kind == "symbol" else None
    if tree is None:
        return None
    written = braceless(written_form(use))
    for statement in (tree.statements if isinstance(tree, ast.Rows) else (tree,)):
        for subjects, rhs in _memberships(statement):
            dims = _real_space_dims(rhs)
            if not dims:
                continue
            for subject in subjects:
                if is_component(subject) or symbol_key(subject) is None:
                    continue
                declared = braceless(to_latex(subject))
                shifted = dims if declared == written else _shifted_dims(declared, written, dims)
                if shifted is not None:
                    return shifted, f"${to_latex(subject)} \\in {to_latex(rhs)}$ (this display)"
    return None


_STEP_AWAY = re.compile(r"(\\ell|[a-zA-Z])([-+]\d+)")


def _shifted_dims(declared: str, written: str, dims: tuple[str, ...]) -> tuple[str, ...] | None:
    """The dimensions of `written`, the quantity `declared` one step away (`x^{\\ell-1}` of `x^{\\ell}`), or None when
    `written` is no such step of it."""
    for hit in _STEP_AWAY.finditer(written):
        letter, step = hit.group(1), hit.group(2)
        if written[:hit.start()] + letter + written[hit.end():] != declared:
            continue
        pattern = re.compile(rf"(?<![A-Za-z\\]){re.escape(letter)}(?![A-Za-z])")
        if not any(pattern.search(d) for d in dims):
            return None  # nothing runs with the step: the declaration says nothing of the other member
        braced = (re.sub(r"([_^])\s*(\\[A-Za-z]+|[A-Za-z0-9])", r"\1{\2}", d.strip()) for d in dims)
        moved = f"{letter}{step}"
        return tuple(pattern.sub(lambda _, moved=moved: moved, d) for d in braced)
    return None


def _written_out_entries(index: PaperIndex, use: SymbolUse, found) -> tuple[tuple[str, ...], str] | None:
    """`\\Delta x = (\\Delta x_1, \\Delta x_2)`, `Y = [y_i]_{i=1}^N`, `x = (x_1, \\dots, x_n)`: a vector written as its
    entries has that many (2, N, n). Entries the paper sets in bold are vectors themselves (their own length
    unknown here), and a set `\\{…\\}` has members, not entries: no shape from them."""
    for mention, definition in found:
        if definition.pattern in ("inside", "same letter"):
            continue
        tree = _parse_cached(mention.math)
        if isinstance(tree, ast.Sequence) and tree.items:
            tree = tree.items[0]
        if not isinstance(tree, ast.Relation) or tree.ops[0] not in ("=", ":=", "\\coloneqq") or \
                isinstance(tree.operands[0], ast.Tuple) or not _same_symbol(tree.operands[0], use, index.ordinals):
            continue
        count = _entry_count(tree.operands[1])
        if count is not None:
            return (count,), f"${mention.math}$"
    return None


def _entry_count(node: ast.Node) -> str | None:
    """How many entries a written-out vector has: `(a_1, a_2)` → "2", `(a_1, \\dots, a_n)` → "n",
    `[y_i]_{i=1}^N` → "N"; None for anything else."""
    def scalar_entry(item: ast.Node) -> bool:
        return isinstance(item, ast.Indexed) and isinstance(item.base, ast.Symbol) and \
            item.base.font not in ("bf", "bb") and len(item.indices) == 1
    if isinstance(node, ast.Labeled) and node.position == "sup" and isinstance(node.base, ast.Indexed) and \
            isinstance(node.base.base, ast.Group) and node.base.base.open == "[" and scalar_entry(node.base.base.body):
        return to_latex(node.label)  # `[y_i]_{i=1}^N`
    if not isinstance(node, ast.Tuple) or node.open not in ("(", "["):
        return None
    items = [i for i in node.items if not isinstance(i, ast.Ellipsis_)]
    if len(items) < 2 or not all(scalar_entry(i) for i in items):
        return None
    if len(items) == len(node.items):
        return str(len(items))  # every entry written out
    final = node.items[-1]
    if not isinstance(final, ast.Indexed) or isinstance(final.indices[0], ast.Number):
        return None
    return to_latex(final.indices[0])


# "the unlearning set $A$ of size $k$": the size of a set counts its members; a set is no array of that length.
_SIZE_WORD = re.compile(r"\bsize\b", re.I)
_COLLECTION_NOUN = re.compile(r"\b(?:sets?|subsets?|datasets?|collections?|corpus|corpora)\b", re.I)


def _shape_in_words(mention: Mention, definition: Definition) -> tuple[tuple[str, ...], str] | None:
    """The shape the words about the symbol state: "shape (B, T, C)" after it, "of dimension $d$", "a
    $d$-dimensional vector"; ("?", …) for the coarse "vector"/"matrix" of its own description (a scalar is ())."""
    # Only the words about this symbol count, not another symbol's description in the same sentence:
    # its description, and what follows the formula ("an input $x$ with shape $(B, T, C)$").
    text = mention.description if mention.description is not None else (
        row_description(definition.quote) or definition.quote if mention.pattern == "table" else "")
    at = definition.quote.find(f"${mention.math}$")
    if at >= 0:
        follow = _ATTACHED_SHAPE.match(definition.quote, at + len(mention.math) + 2)
        if follow:
            text = f"{text} {follow.group(0)}"
        text = f"{_own_noun_phrase(definition.quote[:at])} {text}"
    m = SHAPE_TUPLE.search(text)
    if m:
        return tuple(d.strip() for d in m.group(1).split(",") if d.strip()), m.group(0)
    if mention.pattern == "dimension":
        return (), "a dimension (a number)"
    m = OF_DIMENSION.search(text) or D_DIMENSIONAL.search(text)
    if m and mention.pattern in ("appositive", "is", "where", "let") and m.group(1).strip() != mention.math and \
            not (_SIZE_WORD.search(m.group(0)) and _COLLECTION_NOUN.search(text)):
        return (m.group(1).strip(),), m.group(0)
    m = MATRIX_SIZE.search(text)
    if m:
        return (m.group(1).strip(), m.group(2).strip()), m.group(0)
    plain = re.sub(r"\$[^$]*\$", " ", text)
    for pattern, shape in SHAPE_WORDS:
        m = pattern.search(plain)
        if m:
            return shape, m.group(0)
    return None


# The noun phrase written right before a formula ("a $d$-dimensional vector $v$", "the matrix $W$"): the words
# of the last clause, up to the formula, when nothing but modifiers and their own formulas lie between.
# Possessive (`*+`, `++`): a word is never split into several of the five, which was exponential backtracking
# on a long quote (3.5 s of one paper's read); the matches are the same.
_OWN_NOUN_PHRASE = re.compile(r"(?:\b(?:an?|the|each|every|our|its|some|any)\s+)?(?:(?:\$[^$]*+\$-?|[\w\-]++)\s*+)"
                              r"{1,5}$", re.I)
_CLAUSE_WORDS = re.compile(r"\b(?:is|are|be|was|were|of|with|from|to|by|for|where|and|or|in|on|at|that|which|as)\b"
                           r"(?![\w-])", re.I)


@lru_cache(maxsize=8192)  # pure, and asked of one sentence once per symbol it quotes for
def _own_noun_phrase(before: str) -> str:
    """The noun phrase right before a formula, or "" (a verb or a preposition between them ends it: "the gradient
    of $f$ at $x$" describes neither f nor x by its noun)."""
    m = _OWN_NOUN_PHRASE.search(before.rstrip())
    if m is None:
        return ""
    phrase = m.group(0)
    words = list(_CLAUSE_WORDS.finditer(phrase))
    return phrase[words[-1].end():] if words else phrase


_IDENTITY = re.compile(r"(?:\\(?:mathbf|bm|boldsymbol|mathrm|mathbb)\s*)?\{?\s*I\s*\}?\s*_\s*")


def _identity_size(latex: str) -> str | None:
    """The size `d` of an identity matrix written `\\mathbf{I}_d` / `\\bm I_{M_{\\text{num}}}` in `latex`, or None."""
    m = _IDENTITY.search(latex)
    if m is None:
        return None
    rest = latex[m.end():]
    if not rest.startswith("{"):
        word = re.match(r"\\?[A-Za-z]+|\d+", rest)
        return word.group(0) if word else None
    depth = 0
    for k, ch in enumerate(rest):
        depth += {"{": 1, "}": -1}.get(ch, 0)
        if depth == 0:
            return rest[1:k].strip() or None
    return None


def _drawn_with_identity_covariance(index: PaperIndex, use: SymbolUse, found,
                                    eq: Equation | None) -> tuple[tuple[str, ...], str] | None:
    """`\\epsilon \\sim \\mathcal{N}(\\bm 0, \\bm I_{M})`: a draw whose covariance is the M×M identity has M entries
    (the draw of a defining sentence, or the display's own draw)."""
    draws = [m.math for m, d in found if m.pattern == "sampled" and d.pattern not in ("inside", "same letter")]
    in_display = _drawn_in_display(index, use.key) if use.sampled and eq is not None else None
    if in_display is not None and eq is not None and (in_display.file, in_display.line) != (eq.span.file,
                                                                                             eq.span.line):
        in_display = None  # another display's draw: what it draws there is said of that display
    for math in draws + ([in_display.quote] if in_display is not None else []):
        left, _, right = math.partition("\\sim")
        tree = _parse_cached(left.strip()) if right else None
        if tree is None or not _same_symbol(tree, use, index.ordinals):
            continue
        size = _identity_size(right)
        if size is not None:
            return (size,), f"${math}$"
    return None


def _quote_spaces_another_spelling(use: SymbolUse, quote: str) -> bool:
    """Whether a formula of the quote puts the symbol's letter, spelled otherwise (another weight, other
    scripts), in a space (`\\bm{y}_i \\in \\mathbb{R}^{N_y}` for y)."""
    letter = _bare_letter(use.key)
    for math in re.findall(r"\$([^$]+)\$", quote):
        tree = _parse_cached(math)
        for subjects, rhs in _memberships(tree) if tree is not None else ():
            keys = {key for key in map(symbol_key, subjects) if key is not None and key != use.key}
            if any(_bare_letter(key) == letter for key in keys) and _real_space_dims(rhs) is not None:
                return True
    return False


def _bare_letter(key: str) -> str:
    """A key without weight and scripts (`\\bm{y}_i` → `y`)."""
    return re.split(r"[_^]", _unbold(key), maxsplit=1)[0]


def _declared_dims(index: PaperIndex, use: SymbolUse, math: str, key: str | None = None) -> tuple[str, ...] | None:
    """The dimensions a formula declares for the symbol (`W \\in \\mathbb{R}^{d \\times k}`; every member of a
    chain of equalities ending in a membership: `\\mathcal{A} = (a_{h,q,k}) \\in \\mathbb{R}^{H \\times T \\times T}`),
    or None. With `key`, the symbol declared is that key (another form of the same quantity)."""
    tree = _parse_cached(math)
    if tree is None:
        return None
    for subjects, rhs in _memberships(tree):
        if any(not is_component(subject) and (symbol_key(subject) == key if key is not None else
                                              _same_symbol(subject, use, index.ordinals)) for subject in subjects):
            dims = _real_space_dims(rhs)
            if dims is not None:
                return dims
    return None


def _memberships(tree: ast.Node) -> list[tuple[tuple[ast.Node, ...], ast.Node]]:
    """(subjects, space) of each `\\in` of a prose formula: the grouped subjects (`A, B \\in …`) and, in a chain,
    every operand the equalities before it join (`A = (a_{ij}) \\in …`)."""
    out = [(subjects, rhs) for subjects, op, rhs in membership_groups(tree) if op == "\\in" and rhs is not None]
    node = tree.items[0] if isinstance(tree, ast.Sequence) and tree.items else tree
    if isinstance(node, ast.Relation) and len(node.ops) > 1:
        for k, op in enumerate(node.ops):
            if op != "\\in":
                continue
            first = k
            while first > 0 and node.ops[first - 1] in ("=", ":=", "\\coloneqq"):
                first -= 1
            # the members of a tuple the chain builds (`z := (x, y) \\in \\mathbb{R}^d`) are not the space's points
            out.append((tuple(o for o in node.operands[first:k + 1] if not isinstance(o, ast.Tuple)),
                        node.operands[k + 1]))
    # `\\min_{x \\in \\mathbb{R}^d} f(x)`: the problem's variable runs over the space its reduction names
    out.extend(((red.variables[0],), red.domain) for red in ast.walk(tree)
               if isinstance(red, ast.Reduction) and red.domain is not None and len(red.variables) == 1 and
               red.op in ("min", "max", "argmin", "argmax", "inf", "sup"))
    return out


def _declared_elsewhere(index: PaperIndex, use: SymbolUse,
                        eq: Equation | None = None) -> tuple[tuple[str, ...], str] | None:
    """A membership anywhere in the prose that declares the symbol itself, or the same quantity at another value of
    its running index (`$\\bm{X}^0 \\in \\mathbb{R}^{D \\times N}$` for `\\bm{X}^i`; `\\mathbf{x}^{num} \\in
    \\mathbb{R}^{M}` for `\\mathbf{x}^{num}_t`): the shape does not change along the index."""
    if use.kind != "symbol":
        return None
    own = _label_spelling(use.key)
    # (a formula the symbol is only inside declares it too when its reduction runs over it: `\\min_{x \\in
    # \\mathbb{R}^d} f(x)`; `_declared_dims` keeps only the memberships whose subject is the symbol)
    family = [(i, key) for i, relation, key in index.mentions.index.family.get(key_family(use.key), ())
              if relation in ("subject", "inside") and (_label_spelling(key) == own or _same_quantity(use.key, key))]
    # the prose's other spellings of the key (`^\\mathrm{num}` for `^{\\text{num}}`), which its family misses
    spelled = [(i, key) for key in index.mentions.spellings(use.key, _label_spelling) if key != use.key
               for i in index.mentions.index.subject.get(key, ())]
    for i, key in sorted(set(family + spelled)):
        mention = index.mentions[i]
        if not _same_part(index, eq, mention):
            continue
        dims = _declared_dims(index, use, mention.math, key)
        if dims is not None:
            return dims, f"${mention.math}$"
    return None


def _label_spelling(key: str) -> str:
    """A key with its word labels in one spelling (`^\\mathrm{num}`, `^{\\text{num}}`, `^{{\\rm num}}` are one label)."""
    return braceless(_roman_as_text(key))


def _same_quantity(use_key: str, other_key: str) -> bool:
    """`\\bm{X}^{i}` and `\\bm{X}^{0}`: one quantity at two values of its running index (a step, a layer), the
    labels in the same place and the rest of the key equal."""
    from .candidates import _labels
    (pos_a, a), (pos_b, b) = _labels(use_key), _labels(other_key)
    if not pos_a or pos_a != pos_b or key_family(use_key) != key_family(other_key):
        return False
    return all(_RUNNING_LABEL.fullmatch(label) for label in (a, b))


_RUNNING_LABEL = re.compile(r"\s*(?:\d+|[a-z]|\\ell|(?:[a-z]|\\ell)\s*[-+]\s*\d+)\s*")


def _same_symbol(node: ast.Node, use: SymbolUse, ordinals: frozenset[str]) -> bool:
    target = node.base if isinstance(node, ast.Power) else node
    keys = _subject_keys(target, ordinals)
    return use.key in keys or symbol_key(target) == use.key


_SUBJECT_KEYS: dict[int, tuple[ast.Node, frozenset[str], frozenset[str]]] = {}


def _subject_keys(target: ast.Node, ordinals: frozenset[str]) -> frozenset[str]:
    """The symbol keys a membership subject names (once per node: trees are immutable; bounded)."""
    found = _SUBJECT_KEYS.get(id(target))
    if found is not None and found[0] is target and found[1] is ordinals:
        return found[2]
    keys = frozenset(u.key for u in collect(target, ordinals).uses if u.kind != "index")
    if len(_SUBJECT_KEYS) > 50_000:
        _SUBJECT_KEYS.clear()
    _SUBJECT_KEYS[id(target)] = (target, ordinals, keys)
    return keys


_ATTACHED_SHAPE = re.compile(r"\s*,?\s*(?:with|of|having)\s+(?:the\s+)?(?:shape|size|dimensions?)\b(?:\$[^$]*\$|[^;,.$])*",
                             re.I)
_COUNT_OR_DIMENSION = re.compile(r"\s*(?:denotes?|is|are|be|represents?)\s+the\s+(?:total\s+)?"
                                 r"(?:numbers?\s+of|(?:[\w\-]+\s+)?(?:dimension|dimensionality|size|width|length|"
                                 r"rank)\b)", re.I)


_TABLE_COUNT = re.compile(r"\s*(?:the\s+)?(?:total\s+)?(?:numbers?\s+of\b|(?:[\w\-]+\s+)?(?:dimension|dimensionality|"
                          r"size|width|length|rank)\b\s*(?:\.|$|of\b))", re.I)


def _real_space_dims(node: ast.Node) -> tuple[str, ...] | None:
    """The dimensions a membership's right side states: `\\mathbb{R}^{d_c \\times d}` → ("d_c", "d"), as for any
    number field or its part (`\\mathbb{C}^d`, `\\mathbb{R}_{+}^d`) and for a set raised to a power
    (`\\{0,1\\}^K` → ("K",)); `\\mathbb{R}`, `\\mathbb{R}_{+}` or an interval (`[0, 1)`) → () (a scalar); None for
    anything else (a named set, a set written out)."""
    if isinstance(node, ast.Interval):
        return ()
    if isinstance(node, ast.Symbol) and node.font == "bb" and node.name in _NUMBER_FIELDS:
        if node.sup_label is not None:  # \mathbb{R}^D read with D as a label
            return _real_space_dims(ast.Power(replace(node, sup_label=None), node.sup_label))
        return ()
    power = None
    if isinstance(node, ast.Power) and isinstance(node.base, ast.Symbol) and \
            (node.base.name == "R" or node.base.font == "bb" and node.base.name in _NUMBER_FIELDS):
        power = node.exponent
    elif isinstance(node, ast.Power) and isinstance(node.base, ast.SetLiteral):
        power = node.exponent
    elif isinstance(node, ast.Labeled) and node.position == "sup" and isinstance(node.base, ast.SetLiteral):
        power = node.label  # `\{0,1\}^K`: K entries, each a member of the set
    if power is None:
        return None
    parts: list[ast.Node] = []

    def flatten(n):
        if isinstance(n, ast.BinOp) and n.op in ("\\times", "\\cdot", "*"):
            flatten(n.left)
            flatten(n.right)
        else:
            parts.append(n)
    flatten(power)
    return tuple(to_latex(p) for p in parts)


# The number fields a paper puts a quantity's entries in (ℝ, ℂ, ℤ, ℕ, ℚ).
_NUMBER_FIELDS = frozenset({"R", "C", "Z", "N", "Q"})


def _parse_cached(latex: str):
    """The formula's tree, or None: `math.parse` keeps the last few thousand parses (errors too), so this
    cache is bounded, and shared with every other stage that parses the same formula."""
    try:
        return parse(latex).tree
    except MathParseError:
        return None


# A big operator the paper may define as another operation (`where $\oplus$ denotes concatenation`): (the
# reduction's op, the notation's key, the word of the paper's definition, the op it then is).
_OPERATION_WORDS = (("direct_sum", "\\oplus", re.compile(r"\bconcatenat", re.I), "concatenation"),)


def _as_the_paper_names_them(reductions: tuple[ReductionReading, ...],
                             symbols: list[SymbolReading]) -> tuple[ReductionReading, ...]:
    """The reductions with the operation the paper's own definition of the operator names: `\\bigoplus_h W_h` is a
    direct sum by default, a concatenation where the paper says "$\\oplus$ denotes concatenation"."""
    out = []
    for red in reductions:
        for op, key, word, named in _OPERATION_WORDS:
            defined = next((s.definition for s in symbols if s.symbol == key and s.kind == "operator" and
                            s.definition is not None and s.definition.strength == DEFINES), None)
            if red.op == op and defined is not None and word.search(defined.quote):
                red = replace(red, op=named)
        out.append(red)
    return tuple(out)


_EXTREMA = {"\\min": "min", "\\max": "max"}


# Operations named in words that run over the index their subscript writes (`\\text{sorted}_j(c_j)`).
_WORDED_REDUCTIONS = {"sorted": "sort", "sort": "sort", "argsort": "argsort"}


def _extrema_of_terms(tree: ast.Node | None) -> tuple[ReductionReading, ...]:
    """`\\min\\{r A, \\mathrm{clip}(r; 1-ε, 1+ε) A\\}`, `\\max(0, x)`: a min or max of terms written out reduces over
    them (no variable is bound: it runs over the listed terms). `\\text{sorted}_j(c_j)`, also in a condition's
    words: a sort over j."""
    found = []
    pending = [tree] if tree is not None else []
    while pending:
        for node in ast.walk(pending.pop(0)):
            if isinstance(node, ast.Text) and "$" in node.text:
                pending.extend(formulas_in_words(node.text, []))
            if not isinstance(node, ast.Apply) or node.given or node.params:
                continue
            if isinstance(node.func, ast.Symbol) and node.func.name in _EXTREMA and len(node.args) >= 2:
                found.append(ReductionReading(_EXTREMA[node.func.name], (), None, None,
                                              f"the {len(node.args)} terms listed", None, to_latex(node)[:200]))
            worded = _worded_reduction(node) or _named_normalisation(node)
            if worded is not None:
                found.append(ReductionReading(worded[0], worded[1], None, None, worded[2] if len(worded) > 2 else None,
                                              None, to_latex(node)[:200]))
    return tuple(found)


# Operations the parser reads as functions though they run over the entries of their argument: a softmax written
# without a subscript (`\mathrm{softmax}(QK^\top/\sqrt{d})`) and a top-k of a set written with its index
# (`\operatorname{Topk}(\{s_{j,t} | 1 \le j \le N_r\}, K_r)`).
_UNSCRIPTED_REDUCTIONS = {"softmax": "softmax", "topk": "topk"}


def _named_normalisation(node: ast.Apply) -> tuple[str, tuple[str, ...], str] | None:
    """(op, over, what it runs over in words) of an unsubscripted softmax or top-k: a top-k of a set builder runs
    over the set's variable; a softmax with no index written, over its argument's entries (which axis the paper
    does not write: said so, not guessed)."""
    func = node.func
    name = func.name if isinstance(func, ast.Symbol) and func.sub_label is None else None
    op = _UNSCRIPTED_REDUCTIONS.get((name or "").lstrip("\\").lower())
    if op is None or not node.args:
        return None
    first = node.args[0]
    if op == "topk":
        if not isinstance(first, ast.SetBuilder):
            return None
        bound = [to_latex(n) for n in ast.walk(first.condition) if isinstance(n, ast.Symbol) and
                 any(isinstance(e, ast.Symbol) and to_latex(e) == to_latex(n) for e in ast.walk(first.element))] \
            if getattr(first, "condition", None) is not None else []
        return (op, (bound[0],), f"the set's members, {to_latex(first.condition)}") if bound else None
    return op, (), "the entries of its argument (no index written)"


def _worded_reduction(node: ast.Apply) -> tuple[str, tuple[str, ...]] | None:
    """(op, over) of `\\text{sorted}_j(c_j)`: an operation named in words whose subscript its argument carries."""
    func = node.func
    if not isinstance(func, ast.Indexed) or not isinstance(func.base, (ast.Text, ast.Symbol)):
        return None
    name = func.base.text if isinstance(func.base, ast.Text) else func.base.name
    op = _WORDED_REDUCTIONS.get(name.strip().lstrip("\\"))
    over = tuple(to_latex(i) for i in func.indices if isinstance(i, ast.Symbol))
    in_args = {to_latex(n) for a in node.args for n in ast.walk(a) if isinstance(n, ast.Symbol)}
    if op is None or not over or not set(over) <= in_args:
        return None
    return op, over


def _read_reduction(node: ast.Reduction) -> ReductionReading:
    def tex(n):
        return to_latex(n) if n is not None else None
    condition = tex(node.condition) or (tex(node.domain) and
                                         f"{', '.join(to_latex(v) for v in node.variables)} \\in {tex(node.domain)}")
    return ReductionReading(node.op, tuple(to_latex(v) for v in node.variables), tex(node.lower), tex(node.upper),
                            condition, tex(node.distribution), to_latex(node)[:200])


def _kind(eq: Equation, info: FormulaSymbols, before, after, index: PaperIndex | None = None) -> tuple[str, str]:
    """The kind of statement, from the relation and the statement's place in the text (first rule that holds):
    `:=`/`←`; `≈` (a fit or an estimator); a recurrence, or a row of a display whose other rows recur (an update
    rule); a loss on the left or an argmin/min/max on the right (an objective); an inequality (a bound inside a
    theorem or next to "bound", else a constraint); a hatted left side, `\\hat{\\mathbb{E}}` or a gradient equal to
    an expectation (an estimator); a bare expression the lead-in calls a loss (an objective); a function, a set
    or a distribution given by `=` (a definition); otherwise a computation."""
    ops = info.relation_ops
    for kind, relation_ops, cue in RELATION_KINDS:
        for op in ops:
            if op in relation_ops:
                return kind, cue.format(op=op)
    context = " ".join(p.text for p in (before, after) if p is not None)
    context_words = re.sub(r"\$[^$]*\$", " ", context)
    lead = re.sub(r"\$[^$]*\$", " ", before.sentences[-1].text if before is not None and before.sentences else "")
    lhs = info.lhs_keys[0] if info.lhs_keys else ""
    if any(op in ESTIMATE_OPS for op in ops):
        if FIT_WORDS.search(context_words):
            return "empirical fit", f"\\approx with \"{FIT_WORDS.search(context_words).group(0)}\""
        return "estimator", "\\approx (an approximation of the right side)"
    recurrence = _recurrence(info) or (_row_of_recurrence(index, eq) if index is not None else None) or \
        _differential_equation(eq.latex) or _primed_step(info, lead)
    if recurrence:
        return "update rule", recurrence
    if lhs and LOSS_NAME.match(lhs):
        return "objective", f"left-hand side {lhs} names a loss"
    rhs = eq.latex.split("=", 1)[1] if "=" in ops else eq.latex
    if _OPTIMUM_AT_TOP.match(rhs):
        return "objective", f"{_OPTIMUM_AT_TOP.match(rhs).group(0).strip()} (the best value or its argument)"
    if "=" in ops and _OPTIMUM_AT_TOP.match(eq.latex) and not _OPTIMUM_AT_TOP.match(eq.latex).group(0).strip(). \
            startswith("-"):
        # `\min_x \max_y f(x, y) = \frac{\rho}{6}\|x\|^3 + …`: the problem to solve, its function written out
        return "objective", f"{_OPTIMUM_AT_TOP.match(eq.latex).group(0).strip()} on the left (the problem to solve)"
    if ops and all(op in CONSTRAINT_OPS for op in ops):
        in_statement = index is not None and equation_place(index.doc, eq)[1] is not None
        if any(op not in MEMBERSHIP_OPS for op in ops) and \
                (in_statement or BOUND_WORDS.search(context_words)):
            cue = "in a theorem or lemma" if in_statement else f"\"{BOUND_WORDS.search(context_words).group(0)}\""
            return "bound", f"{ops[0]} {cue}"
        return "constraint", f"{ops[0]} (a property the result must have)"
    if any(isinstance(r, ast.Reduction) and r.op == "E" and _hat(r) for r in info.reductions):
        return "estimator", "\\hat{\\mathbb{E}}"
    if lhs.startswith("\\hat") or lhs.startswith("\\widehat"):
        return "estimator", f"the left side {lhs} is an estimate (a hat)"
    if "=" in ops and re.match(r"\s*\\nabla", eq.latex) and any(r.op == "E" for r in info.reductions):
        return "estimator", "a gradient written as an expectation over samples"
    if not ops and (OBJECTIVE_WORDS.search(lead) or any(r.op in ("min", "max") for r in info.reductions)):
        m = OBJECTIVE_WORDS.search(lead)
        return "objective", (f"\"{m.group(0)}\" before the expression" if m else "an expression to minimise")
    if OBJECTIVE_WORDS.search(before.text if before else "") and lhs and (lhs.startswith("\\mathcal") or "L" in lhs):
        return "objective", f"\"{OBJECTIVE_WORDS.search(before.text).group(0)}\" before the equation"
    if "=" in ops:
        defined = _procedure_step(eq.latex, lead) or _defines_by_equality(info, eq.latex, lead)
        if defined and defined.startswith(_STEP_CUE):
            return "computation", defined
        if defined:
            return "definition", defined
        return "computation", "= (how to get the left side from the right)"
    return "computation", "no relation: an expression to compute"


_OPTIMUM_AT_TOP = re.compile(r"\s*(?:-\s*)?(?:\\arg\s*\\?(?:min|max)|\\argmin|\\argmax|\\operatorname\*?\{arg\s*\\?,?\s*"
                             r"(?:min|max)\}|"
                             # \mathop{\arg\min}, \mathop{\text{argmin}}, \mathop{\mathrm{arg min}}
                             r"\\mathop\{(?:\\(?:mathrm|text|operatorname)\{)?\\?arg\s*\\?(?:min|max)\}?\}|\\min|\\max)"
                             r"(?![A-Za-z])")
_DEFINE_WORDS = re.compile(r"\b(?:defin(?:e|ed|es|ing)|denot(?:e|ed|es)|let|is given by|are given by|we write|"
                           r"we model|formulated as|parameteri[sz]ed as|called)\b", re.I)


def _defines_by_equality(info: FormulaSymbols, latex: str, lead: str) -> str | None:
    """`p_θ(x_{t-1}|x_t) = 𝒩(…)`, `w(u) = …`, `𝒱_min = {v ∈ 𝒱 : …}`, or a lead-in that says "we define":
    an equality that introduces a function, a distribution or a set rather than computing a value."""
    first = info.lhs_keys[0] if info.lhs_keys else None
    if any(u.kind == "function" and u.key == first for u in info.uses if u.lhs) and \
            (not _NAMED_OPERATION.match(first or "") or
             re.match(r"\\(?:operatorname\*?|mathrm|text|textrm)\{(?:Pr|Prob)\}", first or "")):
        # f(x) = …, p(x | y) = 𝒩(…): a function or a distribution is introduced. A named operator applied to
        # its inputs (Attention(Q, K, V) = …) says how to compute an output: a computation (guide 002).
        return "the left side is a function of its arguments (a definition)"
    if not info.lhs_keys and _distribution_on_the_left(latex):
        return "a distribution of its arguments on the left (a definition)"
    for rhs in latex.split("=")[1:]:
        # `\mathcal{V}_{min} = \{v : …\}`; `n = β σ, \quad S = \{ i \mid … \}` (a part of the display is a set)
        if re.match(r"\s*\\(?:left)?\\?\{", rhs) and re.search(r"\\mid|\||:|\\colon", rhs):
            return "the right side is a set (a definition)"
    closed = _closed_form_sequence(info, latex)
    if closed:
        return closed
    said = _LEAD_DEFINES.search(lead)
    if said:
        # "a sequence of functions defined as", "It defines a truncation threshold:", "can be formulated as:"
        return f"\"{said.group(0).strip()}\" before the equation (a definition)"
    return None


# A lead-in that is a step of a procedure under a bold heading ("\textbf{Sample from the Pool:} Sample the next …").
_PROCEDURE_STEP = re.compile(r"\s*(?:\d+\.\s*|\(\w\)\s*)?\\textbf\s*\{\s*([^{}]{2,60}?)\s*[:.]?\s*\}\s*:?\s*[A-Z]")


_STEP_CUE = "a step of a procedure"


def _procedure_step(latex: str, lead: str) -> str | None:
    """"\\textbf{Sample from the Pool:} Sample the next token … according to their normalized probabilities:": a
    step of a procedure under a bold heading computes what the next step uses, whatever its left side is written
    as (`P'(v) = …`); a step that says it defines, or builds a set, defines."""
    step = _PROCEDURE_STEP.match(lead)
    if step is None or _DEFINE_WORDS.search(step.group(1)) or \
            any(re.match(r"\s*\\(?:left)?\\?\{", rhs) for rhs in latex.split("=")[1:]):
        return None
    return f"{_STEP_CUE} (\"{step.group(1)}\")"


_PROBABILITY_NAME = re.compile(r"^\s*(?:\\(?:text|mathrm|operatorname|textrm)\s*\{\s*(?:Pr|Prob|P)\s*\}|\\Pr\b|"
                               r"\\mathbb\s*\{\s*P\s*\})")


def _distribution_on_the_left(latex: str) -> bool:
    """`\\text{Pr}_{\\mu}^{\\pi^1, \\pi^2}(\\tau) = \\mu(s_0) \\pi^1(a_0 | s_0) …`: a probability named and applied on
    the left (whose label the symbol table does not key) is defined by the right side."""
    tree = _parse_cached(latex)
    if isinstance(tree, ast.Sequence) and len(tree.items) == 1:
        tree = tree.items[0]
    if not isinstance(tree, ast.Relation) or not tree.ops or tree.ops[0] not in ("=", ":=", "\\coloneqq"):
        return False
    lhs = tree.operands[0]
    return isinstance(lhs, ast.Apply) and _PROBABILITY_NAME.match(to_latex(lhs.func)) is not None


def _closed_form_sequence(info: FormulaSymbols, latex: str) -> str | None:
    """`t_i = \\frac{i}{N}`, `t_i = (t_1^{1/\\rho} + \\frac{i-1}{N-1}(…))^{\\rho}`: every member of a sequence given by
    its index alone (and constants): a schedule the paper defines, not one value computed from data."""
    if "=" not in latex or len(info.lhs_keys) != 1:
        return None
    lhs = next((u for u in info.uses if u.lhs and u.key == info.lhs_keys[0]), None)
    if lhs is None or len(lhs.indices) != 1 or not re.fullmatch(r"[a-z]", lhs.indices[0]):
        return None
    letter = lhs.indices[0]
    others = [u for u in info.uses if not u.lhs and u.kind != "function"]
    if not any(u.key == letter for u in others):
        return None  # the index itself must be written on the right (`i/N`)
    for u in others:
        if u.key == letter:
            continue
        if u.indices or u.all_indices or u.sampled or u.bound_by:
            return None  # x_i^{k+1} = tanh(a_i x_i^k): computed from other indexed quantities
    if any(i != letter and not re.fullmatch(r"\d+|[A-Z]", i) for i in lhs.all_indices):
        return None  # t_1, t_N on the right are the sequence's ends; t_{i-1} would be a recurrence
    return f"{lhs.key}_{letter} given in closed form by {letter} (a definition of the sequence)"


_LEAD_DEFINES = re.compile(r"\b(?:(?:is|are|be)\s+)?(?:defined|formulated)\s+(?:as|by)\s*:?\s*$|"
                           r"\bdefines?\s+(?:an?|the)\s+[\w\- ]{2,40}:?\s*$|\bwe\s+define\b[^.]*$", re.I)


def _display_groups(index: PaperIndex) -> dict[int, list[Equation]]:
    """The rows of each display environment (`Equation.group`), once per paper."""
    groups = index.paper.cache.get("display-groups") if index.paper is not None else None
    if groups is None:
        groups = {}
        for e in index.doc.equations:
            groups.setdefault(e.group, []).append(e)
        if index.paper is not None:
            index.paper.cache["display-groups"] = groups
    return groups


def _row_of_recurrence(index: PaperIndex, eq: Equation) -> str | None:
    """A row of a display whose other rows are recurrences (`y_t = …`, `z_{t+1} = …`, `x_{t+1} = …`): one step
    of an update."""
    groups = _display_groups(index)
    # Which rows of each display are recurrences, once per paper (a display of n rows asks about each row n times)
    rows = index.paper.cache.setdefault("recurrent-rows", {}) if index.paper is not None else {}
    if eq.group not in rows:
        infos = ((other, index.formulas.get(other.id, (None,))[0]) for other in groups.get(eq.group, ()))
        rows[eq.group] = [other for other, info in infos if info is not None and _recurrence(info) is not None]
    for other in rows[eq.group]:
        if other.id != eq.id and other.span.file == eq.span.file:
            return f"a step of the update with ({other.number or other.id})"
    return None


_STEP = re.compile(r"\(?([a-z])\s*\+\s*(?:1|1/2|\\frac\{1\}\{2\})\)?")
_NEXT_STEP_LABEL = re.compile(r"\^\{?\(?\s*t\s*\+\s*1\s*\)?\}?")


_DIFFERENTIAL_LHS = re.compile(r"\s*(?:\\mathrm\{d\}|\\text\{d\}|d)\s*(?:\\bm|\\mathbf|\\boldsymbol)?"
                               r"\s*\{?\s*\\?[A-Za-z]")
_DT = re.compile(r"(?:\\mathrm\{d\}|\\text\{d\}|\bd)\s*t\b|\\,\s*dt\b|\bdt\b")


def _differential_equation(latex: str) -> str | None:
    """`d\\bm{x_t} = [f_t x_t - …] dt`, `\\mathrm{d}x = f(x, t)\\,\\mathrm{d}t + g(t)\\,\\mathrm{d}w`: how the state
    changes along t (an ODE or SDE): an update rule."""
    if "=" not in latex:
        return None
    lhs, rhs = latex.split("=", 1)
    if _DIFFERENTIAL_LHS.match(lhs) and len(lhs.strip()) < 40 and _DT.search(rhs):
        return "a differential equation in t (how the state changes along t)"
    return None


_STEP_WORDS = re.compile(r"\b(?:step|steps|update[sd]?|iterat\w+|descent|ascent)\b", re.I)


def _primed_step(info: FormulaSymbols, lead: str) -> str | None:
    """`x' = x - t(\\nabla f(x) + v)` after "one step of gradient descent from $x$": the new value from the old."""
    if len(info.lhs_keys) != 1 or not info.lhs_keys[0].endswith("'") or not _STEP_WORDS.search(lead):
        return None
    old = info.lhs_keys[0].rstrip("'")
    if any(u.key == old and not u.lhs for u in info.uses):
        return f"{info.lhs_keys[0]} from {old} (one step of an update)"
    return None


def _recurrence(info: FormulaSymbols) -> str | None:
    """`x_{t+1} = … x_t …`: the left side at step t+1 computed from the same quantity at step t; a display
    without a left side that writes a quantity at t+1 and at t (`z_{t+1/2}` and `z_t`)."""
    indices_of_key: dict[str, set[str]] | None = None  # built once, on the first left side written at a step
    uses_of_family: dict[str, int] = {}
    for use in info.uses:
        if not use.lhs:
            continue
        steps = [i for i in use.indices if _STEP.fullmatch(i)]
        # `m_i^{(t+1)}`: the value at the next step t+1 (a time step, not the next layer k+1 of a forward pass)
        if not steps and _NEXT_STEP_LABEL.search(use.key):
            return f"{use.key} at step t+1 (an update)"
        if steps:
            if indices_of_key is None:
                indices_of_key = {}
                for u in info.uses:
                    indices_of_key.setdefault(u.key, set()).update(u.all_indices)
                    family = key_family(u.key)
                    uses_of_family[family] = uses_of_family.get(family, 0) + 1
            step = _STEP.fullmatch(steps[0]).group(1)
            if step in use.all_indices or step in indices_of_key[use.key] or \
                    uses_of_family[key_family(use.key)] > 1:
                return f"{use.key}_{{{steps[0]}}} from {use.key}_{{{step}}} (a recurrence)"
    if not info.lhs_keys:
        for use in info.uses:
            steps = [i for i in use.all_indices if _STEP.fullmatch(i)]
            if steps and _STEP.fullmatch(steps[0]).group(1) in use.all_indices:
                return f"{use.key} at {steps[0]} and at {_STEP.fullmatch(steps[0]).group(1)} (a recurrence)"
    return None


def _hat(reduction: ast.Reduction) -> bool:
    op = reduction.operator
    return isinstance(op, ast.Symbol) and "hat" in op.accents
