"""The `latex` stage: tokens, user macros, and the document model of a paper."""
from __future__ import annotations

from ..source import SourceTree, flatten, open_source
from .build import build_document
from .document import (
    Algorithm,
    AlgorithmLine,
    Document,
    Equation,
    Float,
    Footnote,
    InlineMath,
    PaperInfo,
    Paragraph,
    Reference,
    Section,
    Sentence,
)
from .macros import Expander, MacroTable
from .markdown import build_markdown_document
from .tokens import tokenize

__all__ = [
    "Algorithm",
    "AlgorithmLine",
    "Document",
    "Equation",
    "Float",
    "Footnote",
    "InlineMath",
    "PaperInfo",
    "Paragraph",
    "Reference",
    "Section",
    "Sentence",
    "document_from_string",
    "document_from_tree",
    "load_document",
]


def load_document(source: str, *, cache_dir=None) -> Document:
    """Open a paper (directory, .tex, archive or arXiv id) and build its document model."""
    return document_from_tree(open_source(source, cache_dir=cache_dir))


def document_from_tree(tree: SourceTree) -> Document:
    """source → flat text → tokens → expanded tokens → document model."""
    flat = flatten(tree)
    paper = PaperInfo(None, tree.origin, tree.arxiv_id, tree.version, flat.main_file, flat.format)
    if flat.format == "markdown":
        return build_markdown_document(flat.source_map, paper, list(flat.diagnostics))
    table = MacroTable()
    diagnostics = list(flat.diagnostics)
    directives = []
    for package in flat.package_files:
        # Packages shipped with the paper contribute definitions and numbering commands, never text.
        expander = Expander(table, package.locate, package=True)
        expander.expand(tokenize(package.text))
        diagnostics.extend(expander.diagnostics)
        directives.extend(expander.directives)
    smap = flat.source_map
    expander = Expander(table, smap.locate)
    tokens = directives + expander.expand(tokenize(smap.text))
    diagnostics.extend(expander.diagnostics)
    return build_document(tokens, smap, paper, table.operators, diagnostics, table.macros)


def document_from_string(text: str, name: str = "<string>") -> Document:
    """The document model of one LaTeX string (tests, bare paragraphs)."""
    from ..spans import SourceMap
    smap = SourceMap.identity(text, name)
    table = MacroTable()
    expander = Expander(table, smap.locate)
    tokens = expander.expand(tokenize(text))
    paper = PaperInfo(None, name, None, None, name, "latex")
    return build_document(tokens, smap, paper, table.operators, expander.diagnostics, table.macros)
