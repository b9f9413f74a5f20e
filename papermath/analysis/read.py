"""`read`: the reading of each display equation — guide 002's read-paper-math procedure, deterministically.

    doc = load_document(source)              # source → latex
    reading = read_document(doc)             # analysis: symbols, quoted definitions, roles, shapes, kinds

Within `read_document`, one stage per line: index the prose once (every inline formula parsed and its
definition pattern classified), then read each equation against that index.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from ..errors import Diagnostic, MathParseError, UsageError
from ..latex.document import Document, Equation
from ..math import ast, parse, to_latex
from ..notation import conventional_meaning
from .cues import (BOUND_WORDS, CONSTRAINT_OPS, D_DIMENSIONAL, ESTIMATOR_WORDS, FIT_WORDS, LOSS_NAME,
                   OBJECTIVE_WORDS, OF_DIMENSION, RELATION_KINDS, ROLE_CUES, SHAPE_TUPLE, SHAPE_WORDS)
from .definitions import Mention, find_mentions, membership_groups, ordinal_indices, row_description
from .reading import Definition, EquationReading, PaperReading, ReductionReading, SymbolReading
from .symbols import FormulaSymbols, SymbolUse, collect, symbol_key, written_form

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
    mentions: tuple[Mention, ...]
    """Every inline formula of the prose with its definition pattern."""
    by_key: dict
    """Symbol key → indices into `mentions` that define it (strength > 0)."""
    by_base: dict
    """Subscript-stripped key → the same."""
    formulas: dict
    """Equation id → (FormulaSymbols or None, parse warnings, error message or None)."""
    functions: frozenset[str]
    """Operator names the paper declares (\\DeclareMathOperator)."""


def index_paper(doc: Document) -> PaperIndex:
    """Parse every equation and every inline formula once; classify the prose around each formula."""
    ordinals = ordinal_indices(doc)
    mentions = tuple(find_mentions(doc, ordinals))
    by_key: dict[str, list[int]] = {}
    by_base: dict[str, list[int]] = {}
    for i, mention in enumerate(mentions):
        if mention.strength <= 0:
            continue
        for key in mention.keys:
            by_key.setdefault(key, []).append(i)
        for base in mention.bases:
            by_base.setdefault(base, []).append(i)
    functions = frozenset(doc.operators.values()) | frozenset(doc.operators)
    formulas = {}
    for eq in doc.equations:
        formulas[eq.id] = _parse_equation(eq, functions, ordinals)
    return PaperIndex(doc, ordinals, mentions, by_key, by_base, formulas, functions)


def _parse_equation(eq: Equation, functions, ordinals):
    try:
        result = parse(eq.latex, functions=functions)
    except MathParseError as error:
        return None, (), f"formula does not parse: {error.message} (at offset {error.offset})"
    return collect(result.tree, ordinals), result.warnings, None


def read_document(doc: Document, keys: list[str] | None = None) -> PaperReading:
    """Readings of all display equations, or of the ones named by number, id or label."""
    index = index_paper(doc)
    if keys:
        equations = []
        for key in keys:
            eq = doc.equation(key)
            if eq is None:
                raise UsageError(f"no equation {key!r} in this paper (numbers run "
                                 f"{_number_range(doc)}; unnumbered ones are eq:u1, eq:u2, …)")
            equations.append(eq)
    else:
        equations = list(doc.equations)
    readings = tuple(read_equation(index, eq) for eq in equations)
    diagnostics = list(doc.diagnostics)
    for eq in equations:
        error = index.formulas[eq.id][2]
        if error:
            diagnostics.append(Diagnostic("error", f"{eq.id}: {error}", eq.span.position))
    return PaperReading(doc.paper, readings, tuple(diagnostics))


def _number_range(doc: Document) -> str:
    numbers = [e.number for e in doc.equations if e.number]
    return f"({numbers[0]})–({numbers[-1]})" if numbers else "nowhere: the paper numbers no equation"


def read_equation(index: PaperIndex, eq: Equation) -> EquationReading:
    """The reading of one equation: its symbols with quoted definitions, roles, shapes; reductions; kind."""
    doc = index.doc
    info, warnings, error = index.formulas[eq.id]
    before = doc.paragraph(eq.paragraph_before)
    after = doc.paragraph(eq.paragraph_after)
    if info is None:
        return EquationReading(eq.id, eq.number, eq.section, eq.latex, "computation", "formula did not parse",
                               (), (), (), (), (), before.text if before else None, after.text if after else None,
                               eq.span.file, eq.span.line, (error,))
    defined_elsewhere = _defined_by(index)
    symbols: list[SymbolReading] = []
    undefined: list[str] = []
    for use in info.uses:
        reading = _read_symbol(index, eq, use, info, defined_elsewhere)
        symbols.append(reading)
        if reading.definition is None and reading.conventional is None and reading.kind != "index" and \
                reading.role not in ("defined here", "computed"):
            undefined.append(reading.latex)
        elif reading.definition is None and reading.kind == "index" and use.key not in index.ordinals:
            undefined.append(reading.latex)
    for op in info.operators:
        meaning = _conventional(OPERATOR_MEANINGS.get(op, op))
        if meaning is not None:
            latex = {"transpose": "^{\\top}", "norm": "\\|\\cdot\\|", "indicator": "\\mathbb{1}[\\cdot]",
                     "gradient": "\\nabla", "divergence": "D_{\\mathrm{KL}}"}.get(op, op)
            symbols.append(SymbolReading(f"{eq.id}/sym:{latex}", latex, latex, (), "operator", "function",
                                         "standard notation", None, None, meaning, None))
    reductions = tuple(_read_reduction(r) for r in info.reductions)
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
    kind, cue = _kind(eq, info, before, after)
    uses = tuple(other for other, (oinfo, _, _) in index.formulas.items()
                 if other != eq.id and oinfo is not None and info.lhs_keys
                 and any(u.key in info.lhs_keys for u in oinfo.uses if not u.lhs))
    return EquationReading(eq.id, eq.number, eq.section, eq.latex, kind, cue, tuple(symbols), reductions,
                           tuple(dict.fromkeys(undefined)), uses, tuple(info.lhs_keys),
                           before.text if before else None, after.text if after else None,
                           eq.span.file, eq.span.line, tuple(warnings))


def _defined_by(index: PaperIndex) -> dict[str, str]:
    """Symbol key → the first equation whose left-hand side defines it."""
    out: dict[str, str] = {}
    for eq_id, (info, _, _) in index.formulas.items():
        if info is None:
            continue
        for key in info.lhs_keys:
            out.setdefault(key, eq_id)
    return out


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
    found = _find_definitions(index, eq, use)
    definition = found[0][1] if found else None
    mention = found[0][0] if found else None
    redefinitions = tuple(d for _, d in found[1:4])
    conventional = None
    if definition is None and use.lhs:
        definition = _introducing_sentence(index, eq)
    if use.kind == "function" and definition is None and not use.lhs:
        conventional = _conventional(use.key)
        if conventional is None and use.known_function:
            conventional = f"the standard function {use.key} (the paper uses it without defining it)"
    if use.kind == "index":
        role, role_cue = "index", (definition.quote if definition else "a subscript position")
    elif use.lhs:
        role, role_cue = "defined here", f"left-hand side of ({eq.number})" if eq.number else "left-hand side"
    elif use.kind == "function":
        role, role_cue = "function", "applied to arguments"
    else:
        # Words next to the equation decide first ("Let u_t denote the FFN input"); then being the left side
        # of another equation; then words elsewhere; then `~`.
        role, role_cue = _role_from_text(definition.quote if definition else "", mention)
        near = definition is not None and mention is not None and mention.strength >= 3 and \
            definition.paragraph in (eq.paragraph_before, eq.paragraph_after)
        if not (near and role != "unknown") and use.key in defined_elsewhere and \
                defined_elsewhere[use.key] != eq.id:
            other = index.doc.equation(defined_elsewhere[use.key])
            role = "computed"
            role_cue = f"computed by ({other.number})" if other.number else f"computed by {other.id}"
        if role == "unknown" and use.sampled:
            role, role_cue = "random sample", "\\sim (drawn from a distribution)"
    shape, shape_cue = _shape_from_text(index, use, found) if use.kind != "index" else (None, None)
    return SymbolReading(sid, latex, use.key, tuple(use.indices), use.kind, role, role_cue, shape, shape_cue,
                         conventional, definition, redefinitions)


_INTRODUCES = re.compile(r"(?::\s*$|\bas follows\b|\b(?:defined|given|computed|written|formulated|expressed)\s+"
                         r"(?:as|by)\s*:?\s*$|\bemploy\b.*:\s*$)", re.I)


def _introducing_sentence(index: PaperIndex, eq: Equation) -> Definition | None:
    """For what an equation defines: the sentence that introduces the display ("we also employ a … loss:")."""
    para = index.doc.paragraph(eq.paragraph_before)
    if para is None or not para.sentences:
        return None
    sentence = para.sentences[-1]
    if not _INTRODUCES.search(sentence.text):
        return None
    return Definition(sentence.text, _section_label(index.doc, para.section), sentence.span.file,
                      sentence.span.line, "introduces", para.id)


def _role_from_text(quote: str, mention: Mention | None) -> tuple[str, str | None]:
    if not quote:
        return "unknown", None
    text = re.sub(r"\$[^$]*\$", " ", quote)
    for role, pattern in ROLE_CUES:
        m = pattern.search(text)
        if m:
            return role, m.group(0)
    return "unknown", None


def _find_definitions(index: PaperIndex, eq: Equation, use: SymbolUse) -> list[tuple[Mention, Definition]]:
    """Definitions of a symbol, best first: the context of the equation, then earlier text, then later text."""
    candidates = set(index.by_key.get(use.key, ()))
    if use.indices or use.kind == "function":
        candidates |= set(index.by_base.get(use.key, ()))
    candidates |= set(index.by_key.get(written_form(use), ()))
    if not candidates:
        return []
    doc = index.doc
    near = {pid for pid in (eq.paragraph_before, eq.paragraph_after) if pid}
    eq_para = _paragraph_index(eq.paragraph_after) if eq.paragraph_after else len(doc.paragraphs)

    def rank(i: int):
        # Explicit definitions (strength 3) beat appositives; among equals, the equation's own context
        # (the paragraph before, the "where" after) beats earlier text, which beats later text (appendix).
        m = index.mentions[i]
        pid = f"p:{m.paragraph_index}"
        place = 0 if pid in near else (1 if m.paragraph_index < eq_para else 2)
        if use.kind == "index" and m.pattern != "ordinal":  # an index: "the $i$-th expert" first, then the rest
            return (9, -m.strength, place, m.paragraph_index, m.sentence_index)
        return (-m.strength, place, m.paragraph_index, m.sentence_index)

    ordered = sorted(candidates, key=rank)
    if use.kind != "index":
        ordered = [i for i in ordered if index.mentions[i].pattern != "ordinal"]
    out = []
    seen = set()
    for i in ordered:
        m = index.mentions[i]
        if m.quote in seen:
            continue
        seen.add(m.quote)
        para = doc.paragraphs[m.paragraph_index]
        sentence = para.sentences[m.sentence_index]
        section = _section_label(doc, para.section)
        line = _locate(doc, m, sentence)
        out.append((m, Definition(m.quote, section, sentence.span.file, line, m.pattern or "use", para.id)))
    return out


def _locate(doc: Document, m: Mention, sentence) -> int:
    """The line a quote starts on; a notation-table row is found by its description cell, which may stand
    before or after the caption that anchors it."""
    if m.pattern != "table":
        return doc.locate_text(m.quote, sentence.span.file, sentence.span.start) or sentence.span.line
    words = row_description(m.quote) or m.quote
    # The longest stretch of prose between formulas: the source may spell a formula with the paper's macros.
    words = max(re.split(r"\$[^$]*\$", words), key=lambda piece: len(piece.strip())).strip() or words
    return (doc.locate_text(words, sentence.span.file, sentence.span.start) or
            doc.locate_text(words, sentence.span.file, 0) or sentence.span.line)


def _paragraph_index(pid: str | None) -> int:
    try:
        return int(pid[2:]) if pid else 0
    except ValueError:
        return 0


def _section_label(doc: Document, section_id: str | None) -> str | None:
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


def _shape_from_text(index: PaperIndex, use: SymbolUse, found) -> tuple[tuple[str, ...] | None, str | None]:
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
    if found and found[0][0].pattern == "table":
        # "$K$ & & Number of Gaussian components." — the description cell alone says it is a number.
        description = row_description(found[0][1].quote)
        m = _TABLE_COUNT.match(description) if description else None
        if m:
            return (), f'"{m.group(0).strip()}" (a number)'
    for mention, definition in found:
        tree = _parse_cached(mention.math)
        if tree is not None:
            for subjects, op, rhs in membership_groups(tree):
                if op != "\\in" or rhs is None:
                    continue
                if not any(_same_symbol(subject, use, index.ordinals) for subject in subjects):
                    continue
                dims = _real_space_dims(rhs)
                if dims is not None:
                    return dims, f"${mention.math}$"
        text = definition.quote
        m = SHAPE_TUPLE.search(text)
        if m:
            return tuple(d.strip() for d in m.group(1).split(",") if d.strip()), m.group(0)
        if mention.pattern == "dimension":
            return (), "a dimension (a number)"
        m = OF_DIMENSION.search(text) or D_DIMENSIONAL.search(text)
        if m and mention.pattern in ("appositive", "is", "where", "let") and m.group(1).strip() != mention.math:
            return (m.group(1).strip(),), m.group(0)
        plain = re.sub(r"\$[^$]*\$", " ", text)
        for pattern, shape in SHAPE_WORDS:
            m = pattern.search(plain)
            if m and coarse[0] is None:
                coarse = (shape, m.group(0))
    return coarse


def _same_symbol(node: ast.Node, use: SymbolUse, ordinals: frozenset[str]) -> bool:
    target = node.base if isinstance(node, ast.Power) else node
    info = collect(target, ordinals)
    keys = {u.key for u in info.uses if u.kind != "index"}
    return use.key in keys or symbol_key(target) == use.key


_COUNT_OR_DIMENSION = re.compile(r"\s*(?:denotes?|is|are|be|represents?)\s+the\s+(?:total\s+)?"
                                 r"(?:numbers?\s+of|(?:[\w\-]+\s+)?(?:dimension|dimensionality|size|width|length|"
                                 r"rank)\b)", re.I)


_TABLE_COUNT = re.compile(r"\s*(?:the\s+)?(?:total\s+)?(?:numbers?\s+of\b|(?:[\w\-]+\s+)?(?:dimension|dimensionality|"
                          r"size|width|length|rank)\b\s*(?:\.|$|of\b))", re.I)


def _real_space_dims(node: ast.Node) -> tuple[str, ...] | None:
    """`\\mathbb{R}^{d_c \\times d}` → ("d_c", "d"); `\\mathbb{R}` → () (a scalar)."""
    if isinstance(node, ast.Symbol) and node.font == "bb" and node.name == "R":
        if node.sup_label is not None:  # \mathbb{R}^D read with D as a label
            return _real_space_dims(ast.Power(ast.Symbol("R", "bb"), node.sup_label))
        return ()
    if isinstance(node, ast.Power) and isinstance(node.base, ast.Symbol) and node.base.name == "R":
        exponent = node.exponent
        parts: list[ast.Node] = []

        def flatten(n):
            if isinstance(n, ast.BinOp) and n.op in ("\\times", "\\cdot", "*"):
                flatten(n.left)
                flatten(n.right)
            else:
                parts.append(n)
        flatten(exponent)
        return tuple(to_latex(p) for p in parts)
    return None


_TREE_CACHE: dict[str, ast.Node | None] = {}


def _parse_cached(latex: str):
    if latex not in _TREE_CACHE:
        try:
            _TREE_CACHE[latex] = parse(latex).tree
        except MathParseError:
            _TREE_CACHE[latex] = None
    return _TREE_CACHE[latex]


def _read_reduction(node: ast.Reduction) -> ReductionReading:
    def tex(n):
        return to_latex(n) if n is not None else None
    condition = tex(node.condition) or (tex(node.domain) and
                                         f"{', '.join(to_latex(v) for v in node.variables)} \\in {tex(node.domain)}")
    return ReductionReading(node.op, tuple(to_latex(v) for v in node.variables), tex(node.lower), tex(node.upper),
                            condition, tex(node.distribution), to_latex(node)[:200])


def _kind(eq: Equation, info: FormulaSymbols, before, after) -> tuple[str, str]:
    ops = info.relation_ops
    for kind, relation_ops, cue in RELATION_KINDS:
        for op in ops:
            if op in relation_ops:
                return kind, cue.format(op=op)
    context = " ".join(p.text for p in (before, after) if p is not None)
    context_words = re.sub(r"\$[^$]*\$", " ", context)
    lhs = info.lhs_keys[0] if info.lhs_keys else ""
    if any(op in ("\\approx",) for op in ops):
        if FIT_WORDS.search(context_words):
            return "empirical fit", f"\\approx with \"{FIT_WORDS.search(context_words).group(0)}\""
        return "estimator", "\\approx (an approximation of the right side)"
    recurrence = _recurrence(info)
    if recurrence:
        return "update rule", recurrence
    top_reductions = [r for r in info.reductions if r.op in ("min", "max", "argmin", "argmax")]
    if lhs and LOSS_NAME.match(lhs):
        return "objective", f"left-hand side {lhs} names a loss"
    if top_reductions and any(to_latex(v).startswith(("\\theta", "\\phi", "\\psi", "w", "W")) for r in top_reductions
                              for v in r.variables):
        return "objective", f"\\{top_reductions[0].op} over parameters"
    if ops and all(op in CONSTRAINT_OPS for op in ops):
        if BOUND_WORDS.search(context_words) and any(op not in ("\\in", "\\subset", "\\subseteq") for op in ops):
            return "bound", f"{ops[0]} with \"{BOUND_WORDS.search(context_words).group(0)}\""
        return "constraint", f"{ops[0]} (a property the result must have)"
    if any(isinstance(r, ast.Reduction) and r.op == "E" and _hat(r) for r in info.reductions) or \
            (ESTIMATOR_WORDS.search(context_words) and "estimat" in context_words.lower()):
        return "estimator", "\"estimate\" in the text" if ESTIMATOR_WORDS.search(context_words) else "\\hat{\\mathbb{E}}"
    if OBJECTIVE_WORDS.search(before.text if before else "") and lhs and (lhs.startswith("\\mathcal") or "L" in lhs):
        return "objective", f"\"{OBJECTIVE_WORDS.search(before.text).group(0)}\" before the equation"
    if "=" in ops:
        return "computation", "= (how to get the left side from the right)"
    return "computation", "no relation: an expression to compute"


def _recurrence(info: FormulaSymbols) -> str | None:
    """`x_{t+1} = … x_t …`: the left side at step t+1 computed from the same quantity at step t."""
    for use in info.uses:
        if not use.lhs:
            continue
        steps = [i for i in use.indices if re.fullmatch(r"([a-z])\s*\+\s*1", i)]
        if steps:
            step = steps[0][0]
            if step in use.all_indices or any(u.key == use.key and step in u.all_indices for u in info.uses):
                return f"{use.key}_{{{steps[0]}}} from {use.key}_{{{step}}} (a recurrence)"
            if any(step in u.all_indices for u in info.uses if u.key != use.key and u.kind == "symbol"):
                return f"{use.key}_{{{steps[0]}}} from step {step} (a recurrence)"
    return None


def _hat(reduction: ast.Reduction) -> bool:
    op = reduction.operator
    return isinstance(op, ast.Symbol) and "hat" in op.accents
