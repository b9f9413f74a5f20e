"""The `source` stage: fetch (arXiv), unpack (safely), and flatten a paper's sources into one mapped text."""
from __future__ import annotations

from .arxiv import ArxivId, fetch_eprint, parse_arxiv_id, resolve_version
from .flatten import FlatSource, find_main_file, flatten, strip_comments
from .resolve import SourceTree, open_source

__all__ = [
    "ArxivId", "FlatSource", "SourceTree", "fetch_eprint", "find_main_file", "flatten", "open_source",
    "parse_arxiv_id", "resolve_version", "strip_comments",
]
