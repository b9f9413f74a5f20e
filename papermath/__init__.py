"""papermath: read the mathematics in ML papers the way a careful engineer does, and show the work."""
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
    raise AttributeError(f"module 'papermath' has no attribute {name!r}")
