"""Turn what the user typed (a directory, a file, an archive, an arXiv id) into a directory of sources."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ..errors import SourceError
from . import archive as _archive
from . import arxiv as _arxiv


@dataclass(frozen=True)
class SourceTree:
    """A paper's source files on disk, and where they came from."""

    root: Path
    """Directory holding the paper's files (every include is resolved inside it)."""
    origin: str
    """What the user gave: a path or an arXiv id, as typed."""
    arxiv_id: str | None
    """The arXiv id without version ("1706.03762"), when the source came from arXiv."""
    version: str | None
    """The arXiv version read ("v7"); always set for arXiv ids, resolved when the user gave none."""
    main_hint: str | None = None
    """Path of the main file relative to root, when the user named a file."""

    @property
    def pinned(self) -> str | None:
        """The exact arXiv id read, with version ("1706.03762v7"), or None for local sources."""
        return f"{self.arxiv_id}{self.version}" if self.arxiv_id else None


_TEXT_SUFFIXES = {".tex": "latex", ".ltx": "latex", ".md": "markdown", ".markdown": "markdown"}


def open_source(spec: str, *, cache_dir: Path | None = None) -> SourceTree:
    """Resolve `spec` (directory, .tex/.md file, e-print archive, or arXiv id) to a SourceTree."""
    try:
        return _open_source(spec, cache_dir)
    except OSError as exc:  # permissions, a vanished file, a full disk: still our error, naming the path
        raise SourceError(f"cannot open {spec}: {exc.strerror or exc}") from exc


def _open_source(spec: str, cache_dir: Path | None) -> SourceTree:
    try:
        path = Path(spec).expanduser()
    except RuntimeError:  # "~user" that does not exist
        path = Path(spec)
    if path.is_dir():
        return SourceTree(path.resolve(), spec, None, None)
    if path.is_file():
        if path.suffix.lower() in _TEXT_SUFFIXES:
            resolved = path.resolve()
            return SourceTree(resolved.parent, spec, None, None, resolved.name)
        return _open_archive(path, spec, cache_dir, None)
    ident = _arxiv.parse_arxiv_id(spec)
    if ident is not None:
        eprint, pinned = _arxiv.fetch_eprint(ident, cache_dir)
        return _open_archive(eprint, spec, cache_dir, pinned)
    if path.exists():
        raise SourceError(f"{spec} is neither a directory nor a regular file")
    raise SourceError(f"no such file or directory, and not an arXiv id or URL: {spec} (an id looks like "
                      "2412.19437, 2412.19437v2 or arXiv:2412.19437; a URL like https://arxiv.org/abs/2412.19437)")


def _open_archive(path: Path, spec: str, cache_dir: Path | None, pinned: _arxiv.ArxivId | None) -> SourceTree:
    cache = cache_dir or _arxiv.default_cache_dir()
    kind = _archive.detect_kind(path)
    if kind is None:
        raise SourceError(
            f"{spec} is not a LaTeX (.tex) or Markdown (.md) file nor an archive of one (.zip, or an arXiv "
            "e-print: tar, tar.gz, gz)")
    if pinned is not None:
        dest = path.parent / "source"
    else:
        dest = cache / "archives" / _archive.content_hash(path)[:32]
    root = _single_subdirectory(_archive.unpack(path, dest))
    if pinned is None:
        return SourceTree(root, spec, None, None)
    return SourceTree(root, spec, pinned.id, pinned.version)


def _single_subdirectory(root: Path) -> Path:
    """A tarball that wraps everything in one top-level folder is read from inside that folder."""
    entries = list(root.iterdir())
    if len(entries) == 1 and entries[0].is_dir():
        return entries[0]
    return root
