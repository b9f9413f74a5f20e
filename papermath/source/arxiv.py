"""arXiv identifiers, version resolution and e-print download into the per-user cache.

The base URL comes from `PAPERMATH_ARXIV_URL` (mirrors, tests), the cache from `PAPERMATH_CACHE`, the
timeout from `PAPERMATH_TIMEOUT`. A download is written to a temporary file in the entry's directory,
fsynced and renamed into place, so an interrupted download never leaves a corrupt cache entry.
"""
from __future__ import annotations

import http.client
import os
import re
import socket
import tempfile
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path

from ..errors import FetchError

DEFAULT_BASE_URL = "https://arxiv.org"
DEFAULT_TIMEOUT = 30.0
RETRY_DELAY = 0.2
"""Seconds to wait before the single retry."""
USER_AGENT = "papermath (+source fetch)"

_NEW_ID = r"\d{4}\.\d{4,5}"
_OLD_ID = r"[a-z]+(?:-[a-z]+)*(?:\.[A-Z]{2})?/\d{7}"
ARXIV_ID = re.compile(rf"^(?:arxiv:\s*)?(?P<id>{_NEW_ID}|{_OLD_ID})(?P<version>v\d+)?$", re.IGNORECASE)
ARXIV_URL = re.compile(rf"^(?:https?://)?(?:www\.|export\.)?arxiv\.org/(?:abs|pdf|html|format|src|e-print)/"
                       rf"(?P<id>{_NEW_ID}|{_OLD_ID})(?P<version>v\d+)?(?:\.pdf)?/?(?:[?#].*)?$", re.IGNORECASE)
"""An arXiv page's URL: abs, pdf (with or without .pdf), html, src, e-print; the id and version are read from it."""


@dataclass(frozen=True)
class ArxivId:
    """An arXiv identifier split into its id and optional version."""

    id: str
    """The id without version: "1706.03762" or "hep-th/9901001"."""
    version: str | None
    """"v7", or None when the user gave no version."""

    def __str__(self) -> str:
        return f"{self.id}{self.version or ''}"

    @property
    def cache_name(self) -> str:
        """Directory name of this id (with version) in the cache: "/" of old-style ids becomes "_"."""
        return f"{self.id.replace('/', '_')}{self.version or ''}"


def parse_arxiv_id(spec: str) -> ArxivId | None:
    """The arXiv id in `spec` ("1706.03762v7", "arXiv:2412.19437", "hep-th/9901001v1"), or None."""
    match = ARXIV_ID.match(spec.strip()) or ARXIV_URL.match(spec.strip())
    if match is None:
        return None
    ident = match["id"]
    if "/" not in ident:
        yymm, number = ident.split(".")
        if len(number) != (5 if int(yymm) >= 1501 else 4):  # arXiv went to 5-digit numbers in 2015
            return None
    if "/" in ident:
        archive, number = ident.split("/")
        ident = f"{archive.lower()}/{number}" if "." not in archive else ident
    version = match["version"].lower() if match["version"] else None
    return ArxivId(ident, version)


def base_url() -> str:
    """arXiv's base URL, or the mirror named by PAPERMATH_ARXIV_URL."""
    return os.environ.get("PAPERMATH_ARXIV_URL", DEFAULT_BASE_URL).rstrip("/")


def timeout() -> float:
    """Network timeout in seconds (PAPERMATH_TIMEOUT overrides the default of 30)."""
    raw = os.environ.get("PAPERMATH_TIMEOUT")
    if not raw:
        return DEFAULT_TIMEOUT
    try:
        value = float(raw)
    except ValueError:
        raise FetchError(f"PAPERMATH_TIMEOUT must be a number of seconds, not {raw!r}") from None
    if value <= 0:
        raise FetchError(f"PAPERMATH_TIMEOUT must be positive, not {raw!r}")
    return value


def default_cache_dir() -> Path:
    """The cache directory: PAPERMATH_CACHE, else the per-user cache dir of papermath."""
    override = os.environ.get("PAPERMATH_CACHE")
    if override:
        return Path(override).expanduser()
    import platformdirs

    return Path(platformdirs.user_cache_dir("papermath"))


class _Retryable(Exception):
    """A failure worth one more try (connection error, timeout, 5xx, truncated body)."""

    def __init__(self, error: FetchError) -> None:
        super().__init__(error.message)
        self.error = error


def offline() -> bool:
    """PAPERMATH_OFFLINE=1: never touch the network; only what the cache holds can be read."""
    return os.environ.get("PAPERMATH_OFFLINE", "").strip().lower() not in ("", "0", "false", "no")


def progress(message: str) -> None:
    """One line on stderr saying what is being fetched (a download can take a while; silence looks stuck)."""
    import sys

    try:
        print(f"papermath: {message}", file=sys.stderr, flush=True)
    except (OSError, ValueError):
        pass


def _open(url: str, what: str):
    if offline():
        raise FetchError(f"cannot fetch {what}: PAPERMATH_OFFLINE is set and it is not in the cache "
                         f"({default_cache_dir()}); unset PAPERMATH_OFFLINE to download it")
    seconds = timeout()
    try:
        request = urllib.request.Request(url, headers={"User-Agent": USER_AGENT})
        return urllib.request.urlopen(request, timeout=seconds)
    except urllib.error.HTTPError as exc:
        exc.close()
        if exc.code == 404:
            raise FetchError(f"arXiv has no {what} (HTTP 404 from {url})") from None
        error = FetchError(f"cannot fetch {what}: HTTP {exc.code} {exc.reason} from {url}")
        if exc.code >= 500 or exc.code == 429:
            raise _Retryable(error) from None
        raise error from None
    except ValueError as exc:  # a malformed PAPERMATH_ARXIV_URL
        raise FetchError(f"cannot fetch {what}: bad URL {url!r} ({exc}); check PAPERMATH_ARXIV_URL") from None
    except (urllib.error.URLError, http.client.HTTPException, socket.timeout, OSError) as exc:
        reason = getattr(exc, "reason", None) or exc
        raise _Retryable(FetchError(f"cannot fetch {what} from {url}: {reason}")) from None


def _with_retry(action, *args):
    try:
        return action(*args)
    except _Retryable:
        time.sleep(RETRY_DELAY)
    try:
        return action(*args)
    except _Retryable as exc:
        raise exc.error from None


def _get_text(url: str, what: str) -> str:
    def once() -> str:
        with _open(url, what) as response:
            try:
                body = response.read()
            except (http.client.HTTPException, OSError) as exc:
                raise _Retryable(FetchError(f"download of {what} from {url} was interrupted: {exc}")) from None
        return body.decode("utf-8", "replace")

    return _with_retry(once)


def resolve_version(ident: str) -> str:
    """The latest version ("v7") of the arXiv paper `ident`, read from its abstract page."""
    url = f"{base_url()}/abs/{ident}"
    if not offline():
        progress(f"fetching the latest version of arXiv:{ident} …")
    page = _get_text(url, f"abstract page for {ident}")
    versions = [int(v) for v in re.findall(r"\[v(\d+)\]", page)]
    versions += [int(v) for v in re.findall(re.escape(ident) + r"v(\d+)", page)]
    if not versions:
        raise FetchError(f"cannot find the version of {ident} on its abstract page {url}")
    return f"v{max(versions)}"


def _download_once(url: str, target: Path, what: str) -> None:
    with _open(url, what) as response:
        expected = response.headers.get("Content-Length")
        fd, tmp_name = tempfile.mkstemp(prefix=".download-", suffix=".tmp", dir=target.parent)
        tmp = Path(tmp_name)
        try:
            received = 0
            with os.fdopen(fd, "wb") as out:
                while True:
                    try:
                        chunk = response.read(1 << 16)
                    except (http.client.HTTPException, OSError) as exc:
                        raise _Retryable(FetchError(
                            f"download of {what} from {url} was interrupted after {received} bytes: {exc}")) from None
                    if not chunk:
                        break
                    received += len(chunk)
                    out.write(chunk)
                out.flush()
                os.fsync(out.fileno())
            if expected is not None and expected.isdigit() and received != int(expected):
                raise _Retryable(FetchError(
                    f"download of {what} from {url} was interrupted: {received} of {expected} bytes"))
            if received == 0:
                raise FetchError(f"arXiv returned an empty e-print for {what} ({url})")
            os.replace(tmp, target)
        finally:
            if tmp.exists():
                tmp.unlink()


def fetch_eprint(arxiv_id: ArxivId, cache_dir: Path | None = None) -> tuple[Path, ArxivId]:
    """Download (or reuse from the cache) the e-print of `arxiv_id`; return its file and the versioned id.

    An id without version is resolved to the latest version first.
    """
    if arxiv_id.version is None:
        cached = _cached_versions(arxiv_id, cache_dir) if offline() else []
        arxiv_id = ArxivId(arxiv_id.id, cached[-1] if cached else resolve_version(arxiv_id.id))
    cache = (cache_dir or default_cache_dir()) / "arxiv" / arxiv_id.cache_name
    target = cache / "e-print"
    if target.is_file():
        return target, arxiv_id
    try:
        cache.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise FetchError(f"cannot create the cache directory {cache}: {exc.strerror or exc}") from exc
    url = f"{base_url()}/e-print/{arxiv_id}"
    if not offline():
        progress(f"fetching the source of arXiv:{arxiv_id} (timeout {timeout():g} s, into {cache}) …")
    try:
        _with_retry(_download_once, url, target, f"e-print for {arxiv_id}")
    except OSError as exc:
        raise FetchError(f"cannot write the download of {arxiv_id} into {cache}: {exc.strerror or exc}") from exc
    finally:
        _remove_if_empty(cache)
    return target, arxiv_id


def _cached_versions(arxiv_id: ArxivId, cache_dir: Path | None) -> list[str]:
    """Versions of `arxiv_id` whose e-print is in the cache, oldest first (offline, a bare id reads the latest)."""
    root = (cache_dir or default_cache_dir()) / "arxiv"
    stem = ArxivId(arxiv_id.id, None).cache_name
    found = []
    for entry in root.glob(f"{stem}v*"):
        version = entry.name[len(stem):]
        if re.fullmatch(r"v\d+", version) and (entry / "e-print").is_file():
            found.append(version)
    return sorted(found, key=lambda v: int(v[1:]))


def _remove_if_empty(directory: Path) -> None:
    try:
        directory.rmdir()
    except OSError:
        pass
