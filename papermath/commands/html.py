"""`papermath html SOURCE -o DIR`: the reader as a self-contained directory (index.html + assets)."""
from __future__ import annotations

import importlib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

HELP = "write the paper as an HTML reader with hover definitions (offline, self-contained)"
DESCRIPTION = """Write the paper as a local HTML reader: the text with every formula rendered by the bundled KaTeX,
every symbol hoverable (its definition quoted from the paper, its role and shape, a link to where it is
defined; undefined symbols marked), a panel under each display equation (kind, symbol table, reductions,
shapes, small-number steps, code), a glossary, search (/), and j/k to move between equations.

The output directory holds index.html and assets/; open index.html from disk — it makes no network
requests. Anchors use papermath's stable ids: index.html#eq:15."""

# The panel's optional parts come from later stages; each is used when its module is installed.
PANEL_STAGES = {"shapes": "papermath.analysis.shapes", "numbers": "papermath.evaluate", "code": "papermath.codegen"}

def add_arguments(parser) -> None:
    parser.add_argument("source", metavar="SOURCE", help="directory, .tex/.md file, .zip or arXiv archive, arXiv id or URL")
    parser.add_argument("-o", "--output", default="papermath-html", metavar="DIR",
                        help="output directory (default: ./papermath-html)")


def run(args) -> int:
    page, notes = build_site(args.source, args.output)
    for note in notes:
        print(f"note: {note}")
    print(f"wrote {page}")
    print(f"open: {page.resolve().as_uri()}")
    return 0


def read_paper(paper) -> tuple[Any, list[str]]:
    """The paper's reading (`paper`: a session or a Document), or None and a note saying why it is missing."""
    try:
        from ..analysis.read import read_document
    except ImportError as error:
        return None, [f"symbol readings are not available in this version of papermath ({error})"]
    try:
        return read_document(paper), []
    except Exception as error:  # noqa: BLE001 - the text and formulas are still worth showing
        return None, [f"the symbols could not be read ({type(error).__name__}: {error}); "
                      "showing the text and formulas only"]


def _missing_stages() -> dict[str, str]:
    missing = {}
    for part, module in PANEL_STAGES.items():
        try:
            importlib.import_module(module)
        except ImportError:
            missing[part] = f"not available in this version of papermath ({module} is not installed)"
    return missing


def _shapes_part(report) -> dict[str, Any]:
    from ..analysis.shapes import show
    rows = [[step.latex, show(step.shape), step.note] for step in report.steps]
    notes = [f"mismatch: {m.message}" + (f" ({m.hint})" if m.hint else "") for m in report.mismatches]
    notes += [f"unknown: {reason}" for reason in report.unknown]
    notes.append(f"result: {show(report.result)}")
    return {"tables": [{"columns": ["sub-expression", "shape", "note"], "rows": rows, "math": [0]}], "notes": notes}


def _how(item) -> str:
    """Where an input's value came from, said once ("chosen: small integers", not "chosen: chosen: …")."""
    if not item.note:
        return item.source
    return item.note if item.note.startswith(item.source) else f"{item.source}: {item.note}"


def _numbers_part(evaluation) -> dict[str, Any]:
    from ..evaluate import fmt
    inputs = [[i.key, fmt(i.value), _how(i)] for i in evaluation.inputs]
    steps = [[step.latex, fmt(step.value), step.note] for step in evaluation.steps]
    notes = list(evaluation.notes) + [f"check: {c}" for c in evaluation.checks]
    return {"tables": [{"title": "values", "columns": ["symbol", "value", "from"], "rows": inputs, "math": [0]},
                       {"title": "steps, inside out", "columns": ["sub-expression", "value", "operation"],
                        "rows": steps, "math": [0]}],
            "notes": notes}


def equation_parts(doc, equation, missing: Mapping[str, str]) -> dict[str, Any]:
    """Shapes, small-number steps and code for one equation, from the stages that exist (`doc`: the paper
    session or a Document). A stage that fails on this equation gives a one-line reason instead: one broken
    equation is a note in its panel, not a crash."""
    from ..paper import paper_of
    paper = doc if not hasattr(doc, "equations") else paper_of(doc)
    doc = paper.doc
    parts: dict[str, Any] = dict(missing)
    functions = paper.functions
    declared: dict = {}
    sources: dict = {}
    if "shapes" not in missing:
        from ..analysis.shapes import declared_shapes_for, infer_shapes
        try:
            declared, sources, notes = declared_shapes_for(paper, equation)
            parsed = paper.parse(equation.latex)
            report = infer_shapes(parsed.tree if parsed is not None else equation.latex, declared, sources=sources,
                                  functions=functions)
            parts["shapes"] = _shapes_part(report)
            parts["shapes"]["notes"].extend(notes)
        except Exception as error:  # noqa: BLE001 - a stage's failure on one equation is reported, not raised
            parts["shapes"] = f"shapes could not be worked out for this equation: {error}"
    evaluation = None
    if "numbers" not in missing:
        from ..evaluate import evaluate
        try:
            evaluation = evaluate(equation.latex, {}, declared_shapes=declared, functions=functions)
            parts["numbers"] = _numbers_part(evaluation)
        except Exception as error:  # noqa: BLE001
            parts["numbers"] = f"small numbers could not be plugged into this equation: {error}"
    if "code" not in missing:
        if evaluation is None:
            parts["code"] = "no code: the equation could not be evaluated (see small numbers)"
        else:
            from ..codegen import Citation, generate
            try:
                version = (doc.paper.arxiv_id or "") + (doc.paper.version or "") or None
                # SymPy's reading of every equation would cost the page several times a whole read (its
                # LaTeX parser: ~1 s to import, 0.1-1 s per equation); `papermath code` adds that check.
                code = generate(evaluation, Citation(doc.paper.title or doc.paper.source, version, equation.number),
                                second_reader=False)
                parts["code"] = {"code": {"NumPy": code.numpy, "PyTorch": code.torch, "test (pytest)": code.test},
                                 "notes": [f"papermath code SOURCE --eq {equation.number or equation.id} adds a "
                                           "test against SymPy's reading of the equation (second reader), when "
                                           "SymPy is installed"]}
            except Exception as error:  # noqa: BLE001
                parts["code"] = f"code could not be generated for this equation: {error}"
    return parts


def gather_panels(doc, reading) -> Mapping[str, Any]:
    """Each equation's optional panel parts (shapes, small numbers, code) from whichever stages exist (`doc`:
    the paper session or a Document)."""
    from ..paper import paper_of
    from ..render.html import Panel

    if reading is None:
        return {}
    paper = doc if not hasattr(doc, "equations") else paper_of(doc)
    missing = _missing_stages()
    panels = {}
    for eq in reading.equations:
        equation = paper.find_equation(eq.id)
        if equation is not None:
            panels[eq.id] = Panel(equation_parts(paper, equation, missing))
    return panels


def build_site(source: str, output: str | Path) -> tuple[Path, list[str]]:
    """source → document → reading → panels → index.html + assets. Returns the page and notes."""
    from ..paper import gc_paused, open as open_paper
    from ..render.html import write_site

    with gc_paused():
        paper = open_paper(source)
        reading, notes = read_paper(paper)
        panels = gather_panels(paper, reading)
        page = write_site(paper.doc, output, reading, panels, notes=notes)
    return page, notes
