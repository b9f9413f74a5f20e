"""`papermath html SOURCE -o DIR`: the reader as a self-contained directory (index.html + assets)."""
from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

HELP = "write the paper as an HTML reader with hover definitions (offline, self-contained)"
DESCRIPTION = """Write the paper as a local HTML reader: the text with every formula rendered by the bundled KaTeX,
every symbol hoverable (its definition quoted from the paper, its role and shape, a link to where it is
defined; undefined symbols marked), a panel under each display equation (kind, symbol table, reductions,
shapes, small-number steps, code), a glossary, search (/), and j/k to move between equations.

The output directory holds index.html and assets/; open index.html from disk — it makes no network
requests. Anchors use papermath's stable ids: index.html#eq:15."""

# Optional later stages that fill parts of each equation's panel: part → (module, function names tried).
PANEL_BACKENDS: dict[str, tuple[str, tuple[str, ...]]] = {
    "shapes": ("papermath.analysis.shapes", ("shape_table", "equation_shapes", "infer_shapes", "shapes")),
    "numbers": ("papermath.evaluate", ("small_numbers", "evaluate_equation", "steps", "evaluate")),
    "code": ("papermath.codegen", ("generate_code", "equation_code", "generate", "codegen")),
}


def add_arguments(parser) -> None:
    parser.add_argument("source", metavar="SOURCE", help="directory, .tex/.md file, archive, or arXiv id")
    parser.add_argument("-o", "--output", default="papermath-html", metavar="DIR",
                        help="output directory (default: ./papermath-html)")


def run(args) -> int:
    page, notes = build_site(args.source, args.output)
    for note in notes:
        print(f"note: {note}")
    print(f"wrote {page}")
    print(f"open: {page.resolve().as_uri()}")
    return 0


def read_paper(doc) -> tuple[Any, list[str]]:
    """The paper's reading, or None and a note saying why it is missing."""
    try:
        from ..analysis.read import read_document
    except ImportError as error:
        return None, [f"symbol readings are not available in this version of papermath ({error})"]
    return read_document(doc), []


def _backend(part: str) -> Callable | str:
    module_name, names = PANEL_BACKENDS[part]
    try:
        module = importlib.import_module(module_name)
    except ImportError:
        return f"not available in this version of papermath ({module_name} is not installed yet)"
    for name in names:
        fn = getattr(module, name, None)
        if callable(fn):
            return fn
    return f"not available in this version of papermath ({module_name} has no {' / '.join(names)})"


def gather_panels(doc, reading) -> Mapping[str, Any]:
    """Each equation's optional panel parts (shapes, small numbers, code) from whichever stages exist."""
    from ..render.html import PANEL_PARTS, Panel
    from ..render.jsonout import to_jsonable

    if reading is None:
        return {}
    backends = {part: _backend(part) for part in PANEL_PARTS}
    panels = {}
    for eq in reading.equations:
        parts: dict[str, Any] = {}
        for part, fn in backends.items():
            if isinstance(fn, str):
                parts[part] = fn
                continue
            try:
                parts[part] = to_jsonable(fn(doc, eq))
            except Exception as error:  # noqa: BLE001 - one equation's failure is a note in its panel
                parts[part] = f"could not compute the {part} for this equation: {error}"
        panels[eq.id] = Panel(parts)
    return panels


def build_site(source: str, output: str | Path) -> tuple[Path, list[str]]:
    """source → document → reading → panels → index.html + assets. Returns the page and notes."""
    from ..latex import load_document
    from ..render.html import write_site

    doc = load_document(source)
    reading, notes = read_paper(doc)
    panels = gather_panels(doc, reading)
    page = write_site(doc, output, reading, panels, notes=notes)
    return page, notes
