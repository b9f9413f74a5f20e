"""papermath: read the mathematics in ML papers the way a careful engineer does, and show the work.

    import papermath
    paper = papermath.open("paper/")            # a directory, .tex, .zip/arXiv archive, arXiv id or URL
    eq = paper.equation("15")                   # the number the PDF prints, eq:15, a \\label
    eq.reading                                  # symbols quoted from the paper, roles, shapes, kind
    eq.shapes(); eq.numbers(set={"Q": [[1, 0]]}); eq.code(torch=False)
    paper.check(eq.reading)                     # a reading checked against the paper

Every result shows itself in a notebook (`_repr_html_`, `_repr_markdown_`) and `.json()` is the documented
`--json` output (docs/schemas/). See `papermath.api`.
"""
__all__ = ["open", "Paper", "Formula", "PaperEquation", "Result", "schemas", "__version__"]
__version__ = "0.1.0"


def __getattr__(name: str):
    # `papermath.open` imports the session (and through it the document model) only when it is first used,
    # so `import papermath` stays cheap for the CLI.
    if name == "open":
        from .paper import open as open_paper
        return open_paper
    if name in ("Paper", "Formula"):
        from . import paper
        return getattr(paper, name)
    if name in ("PaperEquation", "Result"):
        from . import api
        return getattr(api, name)
    if name == "schemas":
        import importlib
        return importlib.import_module("papermath.schemas")
    raise AttributeError(f"module 'papermath' has no attribute {name!r}")
