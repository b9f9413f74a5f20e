"""Prompts for an LLM, filled in from the paper's clean LaTeX source (never PDF text).

Guide 002's five-step prompt for one equation: the paper's title with its arXiv id and version, the equation's
LaTeX, and the paragraphs that define its symbols (the paragraph before, the "where" clause after, and every
paragraph `papermath read` found a definition in, with their footnotes). Guide 004's three prompts —
derivation exercises, application problems, a story — for the same equation or a section.

    doc = load_document(source)
    prompt = equation_prompt(doc, "15")          # guide 002's five steps
    prompt = task_prompt(doc, "problems", eq="15")
"""
from __future__ import annotations

from dataclasses import dataclass

from .errors import UsageError
from .latex.document import Document, Equation, Paragraph
from .safety import fence, one_line

FIVE_STEPS = (
    "Make a table with one row per symbol: shape or type, meaning, and whether it is input data, a trained "
    "weight, a frozen model, a fixed setting or a random sample. Quote the sentence that defines it.",
    "List every symbol the pasted text does not define. Do not guess them.",
    "For every sum, mean, softmax, min or expectation, name the index or the distribution it runs over.",
    "Work through the equation with the smallest numbers that use every term.",
    "Say which kind of statement it is: a computation, definition, objective, update rule, constraint, bound, "
    "estimator or empirical fit.",
)
"""Guide 002's prompt, step by step (its words)."""

TASKS = {
    "derivations": (
        "From the mathematical sections of this paper, generate a set of 5–10 step-by-step derivation exercises. "
        "Each question should start from first principles and gradually work toward the equations given in the "
        "paper. The goal is to practice re-deriving the results, not just copying them, so make sure each "
        "exercise highlights the reasoning behind the steps."),
    "problems": (
        "From the concepts discussed in this paper, create 5–10 application-style problems. Each problem should "
        "ask me to apply the equations, algorithms, or methods to a specific scenario (e.g., working with a "
        "tensor, applying a Hessian, or analyzing a result). The problems should vary in difficulty and require "
        "detailed solutions, so I can check how well I've understood the material."),
    "story": (
        "Understand the paper and assign characters to the concepts involved in it. Generate a story-like flow "
        "explanation where each character represents a key idea or method, and their interactions represent the "
        "logical flow of the paper. The goal is to create a narrative that makes the entire paper easy to "
        "follow, while still preserving the technical accuracy of the concepts."),
}
"""Guide 004's three prompts (its words)."""

ANSWER_FORMAT = """Answer in Markdown laid out exactly like this, so the answer can be checked mechanically
(every quote is searched for in the paper; a row whose quote is not found is treated as a guess):

## Equation {number} ({id})

Kind: <one of: computation, definition, objective, update rule, constraint, bound, estimator, empirical fit>

| symbol | shape or type | meaning | role | quote |
|---|---|---|---|---|
| $<symbol in LaTeX>$ | <[d_c, d], scalar, function, or ?> | <meaning> | <input data, trained weight, frozen model, fixed setting, random sample, index, function, defined here, computed> | <the defining sentence copied word for word, or empty> |

### Undefined — not defined in the paper; do not guess

- $<symbol>$

### Reductions

- <operator> over <index or distribution>

### Small-number check

- inputs: `<symbol>=<value>`; `<symbol>=<value>`
- result: `<value>`"""


@dataclass(frozen=True)
class Prompt:
    """A prompt ready to paste into a chat model (or send with `papermath draft`)."""

    text: str
    """The prompt."""
    task: str
    """`read` (guide 002's five steps), `derivations`, `problems` or `story`."""
    paper: str
    """The paper line: title, arXiv id and version (or "version: not recorded (local source)")."""
    equation: str | None
    """Id of the equation (`eq:15`), when the prompt is about one."""
    paragraphs: tuple[str, ...]
    """Ids of the paragraphs pasted in, in document order."""


def paper_line(doc: Document) -> str:
    """`DeepSeek-V3 Technical Report, arXiv:2412.19437v2`; a local source without an arXiv id says so."""
    p = doc.paper
    title = one_line(p.title or "(untitled paper)")
    if p.arxiv_id:
        version = p.version or "(version not recorded)"
        return f"{title}, arXiv:{p.arxiv_id}{version if p.version else ' ' + version}"
    return f"{title}, version: not recorded (local source)"


def _require_latex(doc: Document) -> None:
    if doc.paper.source.lower().endswith(".pdf"):
        raise UsageError("prompts are built from the paper's LaTeX source, never from PDF text: give the source "
                         "directory, .tex, archive or arXiv id")


def find_equation(doc: Document, key: str) -> Equation:
    from .paper import paper_of
    return paper_of(doc).equation(key)


def defining_paragraphs(doc: Document, eq: Equation) -> list[Paragraph]:
    """The paragraph before, the one after, and every paragraph holding a definition `read` found."""
    from .analysis.read import index_paper, read_equation
    ids = [eq.paragraph_before, eq.paragraph_after]
    reading = read_equation(index_paper(doc), eq)
    for s in reading.symbols:
        if s.definition is not None and s.definition.paragraph:
            ids.append(s.definition.paragraph)
    seen, out = set(), []
    for pid in ids:
        para = doc.paragraph(pid)
        if para is not None and para.id not in seen:
            seen.add(para.id)
            out.append(para)
    out.sort(key=lambda p: int(p.id[2:]))
    return out


def _section(doc: Document, para: Paragraph) -> str:
    """`§2.1.2 Title`, or `§2.1.2 › Paragraph heading` for an unnumbered heading inside a numbered section."""
    sec = doc.section_by_id(para.section)
    if sec is None:
        return ""
    if sec.number:
        return f"§{sec.number} {sec.title}"
    k = doc.sections.index(sec)
    numbered = next((s for s in reversed(doc.sections[:k]) if s.number and s.level < sec.level), None)
    title = sec.title.rstrip(". ")
    return f"§{numbered.number} › {title}" if numbered else title


def _clean(text: str) -> str:
    """Paragraph text for a chat model: empty groups and ties removed, nothing else changed."""
    return " ".join(text.replace("{}", "").replace("~", " ").split())


def _paragraph_block(doc: Document, para: Paragraph) -> str:
    where = _section(doc, para)
    where = one_line(where)
    head = f"[{where}, {para.span.file}:{para.span.line}]" if where else f"[{para.span.file}:{para.span.line}]"
    lines = [head, _clean(para.text)]
    last = max((s.span.line for s in para.sentences), default=para.span.line)
    for fn in doc.footnotes:
        inside = fn.span.file == para.span.file and para.span.line <= fn.span.line <= last
        if fn.paragraph == para.id or inside:
            lines.append(f"Footnote {fn.number}: {_clean(fn.text)}")
    return "\n".join(lines)


def equation_prompt(doc: Document, key: str, *, answer_format: bool = False) -> Prompt:
    """Guide 002's five-step prompt for equation `key`, filled in from the clean source."""
    _require_latex(doc)
    eq = find_equation(doc, key)
    paras = defining_paragraphs(doc, eq)
    paper = paper_line(doc)
    name = f"equation ({one_line(eq.number)})" if eq.number else f"the unnumbered equation {eq.id}"
    where = f" (§{one_line(eq.section)})" if eq.section else ""
    # The equation goes in a fence it cannot close (safety.fence): the paper's text is material, never the
    # prompt's own instructions.
    out = [f"Below is {name}{where} from {paper}, followed by", "the paragraphs that define its symbols.", "",
           *fence(eq.latex, "latex"), ""]
    for para in paras:
        out.append(_paragraph_block(doc, para))
        out.append("")
    for k, step in enumerate(FIVE_STEPS, 1):
        out.append(f"{k}. {step}")
    if answer_format:
        out.append("")
        out.append(ANSWER_FORMAT.format(number=one_line(eq.number or eq.id), id=eq.id))
    return Prompt("\n".join(out).rstrip() + "\n", "read", paper, eq.id, tuple(p.id for p in paras))


def task_prompt(doc: Document, task: str, *, eq: str | None = None, section: str | None = None) -> Prompt:
    """One of guide 004's prompts (derivations, problems, story) for an equation, a section or the paper."""
    _require_latex(doc)
    if task not in TASKS:
        raise UsageError(f"unknown task {task!r}: choose derivations, problems or story")
    paper = paper_line(doc)
    material: list[str] = []
    pids: list[str] = []
    equation_id = None
    if eq is not None:
        equation = find_equation(doc, eq)
        equation_id = equation.id
        scope = f"equation ({one_line(equation.number)})" if equation.number else f"equation {equation.id}"
        material += [*fence(equation.latex, "latex"), ""]
        for para in defining_paragraphs(doc, equation):
            material += [_paragraph_block(doc, para), ""]
            pids.append(para.id)
    elif section is not None:
        sec = next((s for s in doc.sections if s.number == section.lstrip("§") or s.id == section), None)
        if sec is None:
            raise UsageError(f"no section {section!r} in {doc.paper.source}")
        ids = _section_ids(doc, sec)
        scope = one_line(f"§{sec.number} {sec.title}" if sec.number else sec.title)
        for para in doc.paragraphs:
            if para.section in ids:
                material += [_paragraph_block(doc, para), ""]
                pids.append(para.id)
        for e in doc.equations:
            if e.section_id in ids:
                label = f"({one_line(e.number)})" if e.number else e.id
                material += [f"Equation {label}:", *fence(e.latex, "latex"), ""]
    else:
        scope = "the paper"
        if doc.abstract:
            material += ["Abstract: " + one_line(doc.abstract), ""]
        material += ["Sections: " + "; ".join(one_line(f"{s.number or ''} {s.title}") for s in doc.sections
                                              if s.level <= 2), ""]
    intro = [f"The material below is {scope} from {paper}, taken from its LaTeX source.", ""]
    instruction = TASKS[task]
    if task == "story":
        instruction = instruction.replace("the entire paper", "the entire paper (here: " + scope + ")")
    text = "\n".join(intro + material + [instruction]).rstrip() + "\n"
    return Prompt(text, task, paper, equation_id, tuple(pids))


def _section_ids(doc: Document, sec) -> set[str]:
    """The section and its subsections (every heading after it at a deeper level, up to the next sibling)."""
    out = {sec.id}
    started = False
    for s in doc.sections:
        if s.id == sec.id:
            started = True
            continue
        if started:
            if s.level <= sec.level:
                break
            out.add(s.id)
    return out
