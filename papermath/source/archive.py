"""Safe unpacking of arXiv e-print archives: tarballs (plain or gzipped) and single gzipped files.

Every member is checked before anything is written: no absolute paths, no `..`, no links that leave the
root, no devices or FIFOs, and caps on the total size and the member count. Files are then written by
us (never `tarfile.extract*`), so the result does not depend on tarfile's filters, which differ between
Python patch releases. Symlinks are never created on disk: a link to a file inside the archive becomes
a copy of that file.
"""
from __future__ import annotations

import gzip
import hashlib
import os
import posixpath
import shutil
import tarfile
import tempfile
import zlib
from pathlib import Path

from ..errors import SourceError, UnsafeArchiveError

MAX_UNPACKED_BYTES = 512 * 1024 * 1024
"""Default cap on the total size of an archive's files once unpacked."""
MAX_MEMBERS = 10_000
"""Default cap on the number of members in an archive."""

_GZIP_MAGIC = b"\x1f\x8b"
_CHUNK = 1 << 20


def detect_kind(path: Path) -> str | None:
    """What `path` holds, by its magic bytes: "tar", "tar.gz", "gz" (a single gzipped file), "zip", "pdf" or
    None."""
    try:
        with open(path, "rb") as f:
            head = f.read(512)
    except OSError as exc:
        raise SourceError(f"cannot read {path}: {exc.strerror or exc}") from exc
    if head.startswith(_GZIP_MAGIC):
        try:
            with gzip.open(path, "rb") as g:
                inner = g.read(512)
        except (OSError, EOFError, zlib.error) as exc:
            raise SourceError(f"{path.name} is not a valid gzip file: {exc}") from exc
        return "tar.gz" if _is_tar_header(inner) else "gz"
    if _is_tar_header(head):
        return "tar"
    if head.startswith(b"%PDF"):
        return "pdf"
    if head.startswith(b"PK\x03\x04") or head.startswith(b"PK\x05\x06"):
        return "zip"
    return None


def _is_tar_header(block: bytes) -> bool:
    if len(block) < 512:
        return False
    if block[257:262] == b"ustar":
        return True
    if block.count(0) == 512:  # an end-of-archive block first: an empty tarball
        return True
    # Pre-POSIX (v7) headers have no magic; accept them when the header checksum is right.
    try:
        stored = int(block[148:156].replace(b"\x00", b" ").strip() or b"-1", 8)
    except ValueError:
        return False
    computed = sum(block[:148]) + 8 * 32 + sum(block[156:512])
    return stored == computed and block[0] != 0


def _member_path(name: str) -> str:
    """The normalised relative path of a member, or raise naming it when it would leave the root."""
    if name.startswith(("/", "\\")) or (len(name) > 1 and name[1] == ":"):
        raise UnsafeArchiveError(f"archive member {name!r} has an absolute path")
    parts = name.replace("\\", "/").split("/")
    if ".." in parts:
        raise UnsafeArchiveError(f"archive member {name!r} contains a '..' component")
    return posixpath.normpath("/".join(p for p in parts if p not in ("", ".")) or ".")


def _link_target(member: tarfile.TarInfo, path: str) -> str:
    """Where a link member points, relative to the root; raise naming the member when it leaves the root."""
    target = member.linkname.replace("\\", "/")
    kind = "symlink" if member.issym() else "hard link"
    if target.startswith("/") or (len(target) > 1 and target[1] == ":"):
        raise UnsafeArchiveError(f"archive member {member.name!r} is a {kind} to an absolute path ({member.linkname})")
    # A symlink resolves from its own directory; a hard link names another member from the root.
    base = posixpath.dirname(path) if member.issym() else ""
    resolved = posixpath.normpath(posixpath.join(base, target))
    if resolved == ".." or resolved.startswith("../"):
        raise UnsafeArchiveError(
            f"archive member {member.name!r} is a {kind} pointing outside the archive ({member.linkname})")
    return resolved


def check_members(tar: tarfile.TarFile, *, max_bytes: int = MAX_UNPACKED_BYTES,
                  max_members: int = MAX_MEMBERS) -> list[tuple[tarfile.TarInfo, str]]:
    """Every member of `tar` with its safe relative path; raise UnsafeArchiveError on the first bad one."""
    checked: list[tuple[tarfile.TarInfo, str]] = []
    sizes: dict[str, int] = {}
    total = 0
    try:
        for member in tar:
            if len(checked) >= max_members:
                raise UnsafeArchiveError(
                    f"archive has more than {max_members} members (stopped at {member.name!r})")
            path = _member_path(member.name)
            if member.ischr() or member.isblk() or member.isfifo():
                raise UnsafeArchiveError(f"archive member {member.name!r} is a device file or FIFO")
            if member.issym() or member.islnk():
                target = _link_target(member, path)
                size = sizes.get(target, 0) if member.islnk() else 0
            elif member.isreg():
                size = member.size
            elif member.isdir():
                size = 0
            else:
                raise UnsafeArchiveError(f"archive member {member.name!r} has an unsupported type {member.type!r}")
            total += size
            if total > max_bytes:
                raise UnsafeArchiveError(
                    f"archive unpacks to more than {max_bytes} bytes (stopped at {member.name!r})")
            sizes[path] = size
            checked.append((member, path))
    except (tarfile.TarError, EOFError, OSError, zlib.error) as exc:
        raise UnsafeArchiveError(f"corrupt archive: {exc}") from exc
    if not any(m.isreg() or m.islnk() for m, _ in checked):
        raise UnsafeArchiveError("archive is empty (no files in it)")
    return checked


def _write_stream(src, dest: Path, budget: int, name: str) -> int:
    """Copy `src` into `dest` without exceeding `budget` bytes; return the bytes written."""
    written = 0
    with open(dest, "wb") as out:
        while True:
            chunk = src.read(_CHUNK)
            if not chunk:
                break
            written += len(chunk)
            if written > budget:
                raise UnsafeArchiveError(f"archive unpacks to more bytes than allowed (at {name!r})")
            out.write(chunk)
    return written


def extract_tar(archive: Path, dest: Path, *, max_bytes: int = MAX_UNPACKED_BYTES,
                max_members: int = MAX_MEMBERS) -> None:
    """Check every member of the tarball `archive`, then write its files under the existing directory `dest`."""
    try:
        tar = tarfile.open(archive, "r:*")
    except (tarfile.TarError, OSError, EOFError, zlib.error) as exc:
        raise UnsafeArchiveError(f"{archive.name} is not a readable tar archive: {exc}") from exc
    with tar:
        members = check_members(tar, max_bytes=max_bytes, max_members=max_members)
        budget = max_bytes
        symlinks: list[tuple[str, str]] = []
        try:
            for member, path in members:
                target = dest / path
                if member.isdir():
                    target.mkdir(parents=True, exist_ok=True)
                elif member.issym():
                    symlinks.append((path, _link_target(member, path)))
                else:  # regular file or hard link (tarfile reads the linked member's data)
                    target.parent.mkdir(parents=True, exist_ok=True)
                    src = tar.extractfile(member)
                    if src is None:
                        continue
                    with src:
                        budget -= _write_stream(src, target, budget, member.name)
        except (tarfile.TarError, EOFError, zlib.error) as exc:
            raise UnsafeArchiveError(f"corrupt archive: {exc}") from exc
        except KeyError as exc:  # a hard link to a member that is not in the archive
            raise UnsafeArchiveError(f"archive has a hard link to a missing member: {exc}") from exc
    _materialise_symlinks(dest, symlinks)


def _materialise_symlinks(dest: Path, symlinks: list[tuple[str, str]]) -> None:
    """Replace each in-archive symlink by a copy of the regular file it names (links to dirs are dropped)."""
    root = dest.resolve()
    for path, target in symlinks:
        source = (dest / target).resolve()
        if not source.is_relative_to(root) or not source.is_file():
            continue
        out = dest / path
        out.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source, out)


def extract_gzip(archive: Path, dest: Path, *, max_bytes: int = MAX_UNPACKED_BYTES) -> None:
    """Decompress a single gzipped file (arXiv's form for one-file papers) into `dest` under its stored name."""
    name = _gzip_original_name(archive) or "main.tex"
    try:
        path = _member_path(name)
    except UnsafeArchiveError:
        path = "main.tex"
    if "/" in path or path == ".":
        path = posixpath.basename(path) or "main.tex"
    if not path.endswith((".tex", ".md", ".ltx")):
        path = "main.tex"
    try:
        with gzip.open(archive, "rb") as src:
            written = _write_stream(src, dest / path, max_bytes, name)
    except (OSError, EOFError, zlib.error) as exc:
        raise UnsafeArchiveError(f"{archive.name} is not a valid gzip file: {exc}") from exc
    if written == 0:
        raise UnsafeArchiveError(f"archive {archive.name} is empty")


def _gzip_original_name(archive: Path) -> str | None:
    """The file name stored in a gzip header (FNAME), if any."""
    try:
        with open(archive, "rb") as f:
            head = f.read(4096)
    except OSError:
        return None
    if len(head) < 10 or not head[3] & 0x08:
        return None
    pos = 10
    if head[3] & 0x04:  # FEXTRA
        if len(head) < 12:
            return None
        pos += 2 + int.from_bytes(head[10:12], "little")
    end = head.find(b"\x00", pos)
    if end < 0:
        return None
    return head[pos:end].decode("latin-1") or None


def extract_zip(archive: Path, dest: Path, *, max_bytes: int = MAX_UNPACKED_BYTES,
                max_members: int = MAX_MEMBERS) -> None:
    """Unpack a .zip of a paper's sources with the tar rules: member names relative and inside `dest` (no
    absolute paths, no `..`), no links, at most `max_members` members and `max_bytes` unpacked (counted while
    writing, not trusted from the headers); encrypted members refused."""
    import stat
    import zipfile

    try:
        with zipfile.ZipFile(archive) as zf:
            members = zf.infolist()
            if len(members) > max_members:
                raise UnsafeArchiveError(f"{archive.name} has {len(members)} members (more than {max_members})")
            budget = max_bytes
            for info in members:
                path = _member_path(info.filename)
                mode = info.external_attr >> 16
                if stat.S_ISLNK(mode):
                    raise UnsafeArchiveError(f"{archive.name}: {info.filename} is a symbolic link")
                if info.flag_bits & 0x1:
                    raise UnsafeArchiveError(f"{archive.name}: {info.filename} is encrypted")
                if not path:
                    continue
                target = dest / path
                if info.is_dir():
                    target.mkdir(parents=True, exist_ok=True)
                    continue
                target.parent.mkdir(parents=True, exist_ok=True)
                with zf.open(info) as src:
                    budget -= _write_stream(src, target, budget, info.filename)
    except zipfile.BadZipFile as exc:
        raise SourceError(f"{archive.name} is not a valid zip file: {exc}") from None


def content_hash(path: Path) -> str:
    """SHA-256 of a file's bytes, hex."""
    digest = hashlib.sha256()
    try:
        with open(path, "rb") as f:
            for chunk in iter(lambda: f.read(_CHUNK), b""):
                digest.update(chunk)
    except OSError as exc:
        raise SourceError(f"cannot read {path}: {exc.strerror or exc}") from exc
    return digest.hexdigest()


def unpack(archive: Path, dest: Path, *, max_bytes: int = MAX_UNPACKED_BYTES,
           max_members: int = MAX_MEMBERS) -> Path:
    """Unpack `archive` into `dest` atomically: into a temporary sibling first, renamed when complete.

    If `dest` already exists it is returned untouched (a finished unpack is never redone).
    """
    if dest.is_dir():
        return dest
    kind = detect_kind(archive)
    if kind == "pdf":
        raise SourceError(f"{archive.name} is a PDF, not a LaTeX source (arXiv has no source for this paper)")
    if kind is None:
        raise SourceError(f"{archive.name} is neither a tar or zip archive nor a gzipped file")
    try:
        dest.parent.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(prefix=f".{dest.name}.", suffix=".tmp", dir=dest.parent))
    except OSError as exc:
        raise SourceError(f"cannot create an unpack directory in {dest.parent}: {exc.strerror or exc}") from exc
    try:
        if kind == "gz":
            extract_gzip(archive, tmp, max_bytes=max_bytes)
        elif kind == "zip":
            extract_zip(archive, tmp, max_bytes=max_bytes, max_members=max_members)
        else:
            extract_tar(archive, tmp, max_bytes=max_bytes, max_members=max_members)
        try:
            os.rename(tmp, dest)
        except OSError:
            if not dest.is_dir():  # not a lost race with another process: a real failure
                raise
    except OSError as exc:
        raise SourceError(f"cannot unpack {archive.name} into {dest.parent}: {exc.strerror or exc}") from exc
    finally:
        if tmp.exists():
            shutil.rmtree(tmp, ignore_errors=True)
    return dest
