"""`papermath cache ls|clear`: what papermath keeps in its cache directory (arXiv downloads, unpacked archives,
the TeX oracle's compilations), and removing it."""
from __future__ import annotations

import shutil
import time
from pathlib import Path

HELP = "list or clear papermath's cache: arXiv downloads, unpacked archives, TeX compilations"
DESCRIPTION = """List or clear what papermath keeps in its cache directory: arXiv e-prints it downloaded (one per id
and version, reused offline), archives it unpacked, and the TeX engine's compilations of papers. The directory
is the per-user cache directory, or PAPERMATH_CACHE when set. `clear` removes only the folders papermath
writes there (arxiv/, archives/, texoracle/), never anything else in the directory.

examples:
  papermath cache ls
  papermath cache clear
  PAPERMATH_OFFLINE=1 papermath read 1706.03762 --eq 1     read from the cache only, never the network"""

FOLDERS = {"arxiv": "arXiv e-prints", "archives": "unpacked archives", "texoracle": "TeX compilations"}


def add_arguments(parser) -> None:
    parser.add_argument("action", choices=("ls", "clear"), help="ls: list what is cached; clear: remove it")


def _size(path: Path) -> int:
    if path.is_file():
        return path.stat().st_size
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file() and not f.is_symlink())


def _human(size: int) -> str:
    value = float(size)
    for unit in ("B", "KB", "MB", "GB"):
        if value < 1024 or unit == "GB":
            return f"{value:.0f} {unit}" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1024
    return f"{size} B"


def entries(root: Path) -> list[tuple[str, str, int, float]]:
    """(folder, entry name, size in bytes, modification time) of everything papermath cached under `root`."""
    out = []
    for folder in FOLDERS:
        base = root / folder
        if not base.is_dir():
            continue
        for entry in sorted(base.iterdir()):
            if entry.name.startswith("."):
                continue
            out.append((folder, entry.name, _size(entry), entry.stat().st_mtime))
    return out


def run(args) -> int:
    from ..source.arxiv import default_cache_dir

    root = default_cache_dir()
    found = entries(root)
    if args.action == "ls":
        print(f"cache: {root}" + ("" if root.is_dir() else " (does not exist yet)"))
        if not found:
            print("nothing cached")
            return 0
        for folder, label in FOLDERS.items():
            rows = [e for e in found if e[0] == folder]
            if not rows:
                continue
            print(f"{label} ({folder}/): {len(rows)}, {_human(sum(r[2] for r in rows))}")
            for _, name, size, mtime in rows:
                shown = "arXiv:" + name.replace("_", "/", 1) if folder == "arxiv" and "_" in name and \
                    not name[0].isdigit() else ("arXiv:" + name if folder == "arxiv" else name)
                print(f"  {shown:<40} {_human(size):>10}  {time.strftime('%Y-%m-%d %H:%M', time.localtime(mtime))}")
        print(f"total: {_human(sum(e[2] for e in found))}")
        return 0
    removed = 0
    for folder in FOLDERS:
        base = root / folder
        if base.is_dir() and not base.is_symlink():
            removed += _size(base)
            shutil.rmtree(base)
    print(f"removed {len(found)} cached entries ({_human(removed)}) from {root}" if found else
          f"nothing cached in {root}")
    return 0
