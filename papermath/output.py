"""Output folders that never destroy what papermath did not write.

`html -o DIR` and `code --out DIR` write through `OutputFolder`: it writes into a folder that is new, empty, or
one papermath wrote before (it holds the marker file `.papermath-output`, which lists the files papermath put
there), and refuses any other folder with a clear message. Inside its folder it only replaces or removes files
the marker lists; a file the user added is kept, and a file the user put where papermath would write is a
refusal, never an overwrite. Symbolic links are not followed out of the folder.

    >>> with OutputFolder.claim("site", "html") as out:
    ...     out.write_text("index.html", page)
    ...     out.copy_tree(asset_dir(), "assets")
    ...     out.remove_stale("assets")
"""
from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterable
from pathlib import Path, PurePosixPath
from types import TracebackType
from typing import Self

from .errors import UsageError

MARKER = ".papermath-output"
"""Name of the marker file; its content is JSON: {"written_by": "papermath", "files": [relative paths]}."""


class OutputFolderError(UsageError):
    """The output folder holds files papermath did not write (or is not a folder): nothing was written."""


def _listing(root: Path, limit: int = 3) -> str:
    names = sorted(p.name for p in root.iterdir())[:limit + 1]
    shown = ", ".join(names[:limit]) + (", …" if len(names) > limit else "")
    return shown


class OutputFolder:
    """A folder papermath may write into (see the module docstring). Use `claim`, then `write_text`/`write_bytes`
    /`copy_tree`, optionally `remove_stale`; leaving the `with` block records the files in the marker."""

    def __init__(self, root: Path, command: str, previous: set[str]) -> None:
        self.root = root
        self.command = command
        self.previous = previous
        """Files an earlier run recorded in the marker."""
        self.written: set[str] = set()
        """Files written by this run (relative POSIX paths)."""
        self.removed: set[str] = set()

    @classmethod
    def claim(cls, directory: str | os.PathLike[str], command: str) -> OutputFolder:
        """The folder, if papermath may write into it; else `OutputFolderError` and nothing is touched."""
        root = Path(directory)
        if root.is_symlink() and not root.exists():
            raise OutputFolderError(f"{root} is a broken symbolic link; choose another folder")
        if root.exists() and not root.is_dir():
            raise OutputFolderError(f"{root} exists and is not a folder; nothing was written")
        previous: set[str] = set()
        if root.is_dir():
            marker = root / MARKER
            if marker.is_file() and not marker.is_symlink():
                previous = _read_marker(marker)
            elif any(root.iterdir()):
                raise OutputFolderError(
                    f"{root} already holds files papermath did not write ({_listing(root)}); "
                    "nothing was written. Choose a new or empty folder (papermath only rewrites folders it wrote "
                    f"itself, which hold a {MARKER} file)")
        root.mkdir(parents=True, exist_ok=True)
        folder = cls(root, command, previous)
        folder._save_marker(previous)
        return folder

    def __enter__(self) -> Self:
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        self._save_marker((self.previous - self.removed) | self.written)

    def path(self, relative: str) -> Path:
        """The absolute path for `relative`, refusing `..`, absolute paths and links inside the folder."""
        parts = PurePosixPath(relative).parts
        if not parts or relative.startswith("/") or any(p in ("..", "") for p in parts) or parts == (MARKER,):
            raise OutputFolderError(f"refusing to write {relative!r}")
        current = self.root
        for part in parts[:-1]:
            current = current / part
            if current.is_symlink() or (current.exists() and not current.is_dir()):
                raise OutputFolderError(f"{current} is not a folder papermath wrote; "
                                        "nothing more was written")
        target = current / parts[-1]
        key = "/".join(parts)
        if (target.exists() or target.is_symlink()) and key not in self.previous and key not in self.written:
            raise OutputFolderError(f"{target} was not written by papermath; it is kept "
                                    "and nothing more was written (move it, or choose another folder)")
        if target.is_dir() and not target.is_symlink():
            raise OutputFolderError(f"{target} is a folder; nothing more was written")
        return target

    def write_bytes(self, relative: str, data: bytes) -> Path:
        target = self.path(relative)
        key = "/".join(PurePosixPath(relative).parts)
        if key not in self.written:
            self.written.add(key)
            self._save_marker(self.previous | self.written)  # claimed before it is written
        return self._write(target, data)

    @staticmethod
    def _write(target: Path, data: bytes) -> Path:
        target.parent.mkdir(parents=True, exist_ok=True)
        if target.is_symlink():
            target.unlink()  # a link papermath's marker claims: replace the link, never write through it
        target.write_bytes(data)
        return target

    def write_text(self, relative: str, text: str) -> Path:
        return self.write_bytes(relative, text.encode("utf-8"))

    def copy_tree(self, source: Path, relative: str, skip: Callable[[Path], bool] = lambda path: False) -> None:
        """Copy every file under `source` to `relative/…` (files for which `skip` is true are left out)."""
        files = [p for p in sorted(Path(source).rglob("*")) if p.is_file() and not skip(p)]
        targets = [f"{relative}/{p.relative_to(source).as_posix()}" for p in files]
        paths = [self.path(target) for target in targets]  # refuse before writing any of them
        self.written.update("/".join(PurePosixPath(t).parts) for t in targets)
        self._save_marker(self.previous | self.written)  # all of them claimed once, before any is written
        for path, target in zip(files, paths):
            self._write(target, path.read_bytes())

    def remove_stale(self, under: str) -> None:
        """Remove files under `under/` that an earlier run wrote and this one did not (and folders left empty)."""
        prefix = under.rstrip("/") + "/"
        for key in sorted(self.previous - self.written):
            if not key.startswith(prefix):
                continue
            target = self.root / key
            if target.is_symlink() or target.is_file():
                target.unlink()
            self.removed.add(key)
        base = self.root / under
        if base.is_dir() and not base.is_symlink():
            for folder in sorted((p for p in base.rglob("*") if p.is_dir() and not p.is_symlink()), reverse=True):
                if not any(folder.iterdir()):
                    folder.rmdir()

    def _save_marker(self, files: Iterable[str]) -> None:
        marker = self.root / MARKER
        if marker.is_symlink():
            marker.unlink()
        marker.write_text(json.dumps({"written_by": "papermath", "files": sorted(files)}, indent=1) + "\n",
                          encoding="utf-8")


def _read_marker(marker: Path) -> set[str]:
    try:
        data = json.loads(marker.read_text(encoding="utf-8"))
        files = data.get("files", []) if isinstance(data, dict) else []
        return {f for f in files if isinstance(f, str) and ".." not in PurePosixPath(f).parts
                and not f.startswith("/")}
    except (OSError, ValueError, UnicodeDecodeError):
        return set()

