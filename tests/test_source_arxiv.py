"""arXiv download over real HTTP, against a server the test starts on 127.0.0.1 in arXiv's URL layout."""
from __future__ import annotations

import gzip
import io
import tarfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from papermath.errors import FetchError
from papermath.source import ArxivId, flatten, open_source, parse_arxiv_id

MS_TEX = (b"\\documentclass{article}\n\\begin{document}\n\\input{intro}\n"
          b"\\begin{equation}\\label{eq:attn} y = x \\end{equation}\n\\end{document}\n")


def tarball(files: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
        for name, data in files.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


EPRINT = tarball({"ms.tex": MS_TEX, "intro.tex": b"Attention is all you need.\n"})
ABS_PAGE = (b"<html><title>[1706.03762v3] Attention</title>"
            b"<a href='/abs/1706.03762v1'>[v1]</a> <a href='/abs/1706.03762v2'>[v2]</a>"
            b" <strong>[v3]</strong></html>")


class _QuietServer(ThreadingHTTPServer):
    """A client that gave up (the timeout test) is expected here: no traceback for the write that follows."""

    def handle_error(self, request, client_address) -> None:
        import sys
        if isinstance(sys.exc_info()[1], (BrokenPipeError, ConnectionResetError)):
            return
        super().handle_error(request, client_address)


class ArxivServer:
    """Routes: path -> list of responses, used in turn (the last one repeats)."""

    def __init__(self) -> None:
        self.routes: dict[str, list[tuple]] = {}
        self.hits: list[str] = []
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802 (http.server's API)
                server.hits.append(self.path)
                responses = server.routes.get(self.path)
                if not responses:
                    self.send_error(404)
                    return
                response = responses.pop(0) if len(responses) > 1 else responses[0]
                status, body, *mode = response
                if mode and mode[0] == "sleep":
                    time.sleep(mode[1])
                self.send_response(status)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                if mode and mode[0] == "truncate":
                    self.wfile.write(body[: len(body) // 3])
                    self.wfile.flush()
                    self.close_connection = True
                    return
                self.wfile.write(body)

            def log_message(self, *args) -> None:
                pass

        self.httpd = _QuietServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        self.thread = threading.Thread(target=self.httpd.serve_forever, args=(0.05,), daemon=True)
        self.thread.start()

    def close(self) -> None:
        if self.thread.is_alive():
            self.httpd.shutdown()
            self.httpd.server_close()


@pytest.fixture
def arxiv(monkeypatch, tmp_path):
    server = ArxivServer()
    monkeypatch.setenv("PAPERMATH_ARXIV_URL", server.url)
    monkeypatch.setenv("PAPERMATH_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("PAPERMATH_TIMEOUT", "5")
    monkeypatch.setattr("papermath.source.arxiv.RETRY_DELAY", 0.01)
    yield server
    server.close()


@pytest.mark.parametrize("spec, expected", [
    ("1706.03762v7", ArxivId("1706.03762", "v7")),
    ("2412.19437", ArxivId("2412.19437", None)),
    ("arXiv:2305.13245v3", ArxivId("2305.13245", "v3")),
    ("0704.0001", ArxivId("0704.0001", None)),
    ("hep-th/9901001v1", ArxivId("hep-th/9901001", "v1")),
    ("math.AG/0309136", ArxivId("math.AG/0309136", None)),
    ("cond-mat/0102536v2", ArxivId("cond-mat/0102536", "v2")),
    ("1706.0376", None),
    ("paper.tex", None),
    ("1706.03762v", None),
    ("hep-th/990100", None),
])
def test_parse_arxiv_id(spec, expected):
    assert parse_arxiv_id(spec) == expected


def test_download_with_version(arxiv, tmp_path):
    arxiv.routes["/e-print/1706.03762v7"] = [(200, EPRINT)]
    tree = open_source("1706.03762v7")
    assert (tree.arxiv_id, tree.version, tree.pinned, tree.origin) == ("1706.03762", "v7", "1706.03762v7", "1706.03762v7")
    assert (tmp_path / "cache" / "arxiv" / "1706.03762v7" / "e-print").read_bytes() == EPRINT
    assert arxiv.hits == ["/e-print/1706.03762v7"]
    flat = flatten(tree)
    assert flat.main_file == "ms.tex" and flat.files == ("ms.tex", "intro.tex")
    assert "Attention is all you need." in flat.text


def test_download_without_version_resolves_and_records_it(arxiv, tmp_path):
    arxiv.routes["/abs/1706.03762"] = [(200, ABS_PAGE)]
    arxiv.routes["/e-print/1706.03762v3"] = [(200, EPRINT)]
    tree = open_source("1706.03762", cache_dir=tmp_path / "mine")
    assert tree.version == "v3" and tree.pinned == "1706.03762v3"
    assert arxiv.hits == ["/abs/1706.03762", "/e-print/1706.03762v3"]
    assert (tmp_path / "mine" / "arxiv" / "1706.03762v3" / "e-print").is_file()


def test_old_style_id_single_gzipped_file(arxiv, tmp_path):
    body = gzip.compress(b"\\documentclass{article}\\begin{document}Old.\\end{document}")
    arxiv.routes["/e-print/hep-th/9901001v1"] = [(200, body)]
    tree = open_source("hep-th/9901001v1")
    assert (tree.arxiv_id, tree.version) == ("hep-th/9901001", "v1")
    assert (tmp_path / "cache" / "arxiv" / "hep-th_9901001v1" / "e-print").is_file()
    assert flatten(tree).text.endswith("Old.\\end{document}")


def test_404_is_a_clear_fetch_error(arxiv, tmp_path):
    with pytest.raises(FetchError) as info:
        open_source("9999.99999v1")
    assert str(info.value) == f"arXiv has no e-print for 9999.99999v1 (HTTP 404 from {arxiv.url}/e-print/9999.99999v1)"
    assert arxiv.hits == ["/e-print/9999.99999v1"]  # a 404 is not retried
    assert not (tmp_path / "cache" / "arxiv" / "9999.99999v1").exists()


def test_unknown_id_without_version(arxiv):
    with pytest.raises(FetchError, match=r"arXiv has no abstract page for 9999.99999 \(HTTP 404"):
        open_source("9999.99999")


def test_500_then_200_is_retried_once(arxiv):
    arxiv.routes["/e-print/2412.19437v2"] = [(500, b"busy"), (200, EPRINT)]
    tree = open_source("2412.19437v2")
    assert tree.version == "v2" and (tree.root / "ms.tex").read_bytes() == MS_TEX
    assert arxiv.hits == ["/e-print/2412.19437v2"] * 2


def test_two_500s_fail_after_one_retry(arxiv):
    arxiv.routes["/e-print/2412.19437v2"] = [(503, b"busy")]
    with pytest.raises(FetchError, match="HTTP 503"):
        open_source("2412.19437v2")
    assert len(arxiv.hits) == 2


def test_cache_is_reused_without_the_server(arxiv):
    arxiv.routes["/e-print/1706.03762v7"] = [(200, EPRINT)]
    first = open_source("1706.03762v7")
    arxiv.close()  # a second open must not need the network at all
    second = open_source("1706.03762v7")
    assert second.root == first.root and arxiv.hits == ["/e-print/1706.03762v7"]


def test_interrupted_download_leaves_no_cache_entry(arxiv, tmp_path):
    arxiv.routes["/e-print/1706.03762v7"] = [(200, EPRINT, "truncate")]
    with pytest.raises(FetchError, match="interrupted"):
        open_source("1706.03762v7")
    assert len(arxiv.hits) == 2  # tried once more
    entry = tmp_path / "cache" / "arxiv" / "1706.03762v7"
    assert not entry.exists() or list(entry.iterdir()) == []
    # Once the server is healthy the same id downloads cleanly.
    arxiv.routes["/e-print/1706.03762v7"] = [(200, EPRINT)]
    assert (open_source("1706.03762v7").root / "ms.tex").read_bytes() == MS_TEX


def test_timeout_is_a_fetch_error(arxiv, monkeypatch):
    monkeypatch.setenv("PAPERMATH_TIMEOUT", "0.2")
    arxiv.routes["/e-print/1706.03762v7"] = [(200, EPRINT, "sleep", 0.6)]
    with pytest.raises(FetchError, match="timed out"):
        open_source("1706.03762v7")


def test_bad_timeout_setting(arxiv, monkeypatch):
    monkeypatch.setenv("PAPERMATH_TIMEOUT", "soon")
    with pytest.raises(FetchError, match="PAPERMATH_TIMEOUT must be a number of seconds, not 'soon'"):
        open_source("1706.03762v7")


def test_unreachable_server(monkeypatch, tmp_path):
    monkeypatch.setenv("PAPERMATH_ARXIV_URL", "http://127.0.0.1:9")  # discard port: nothing listens
    monkeypatch.setattr("papermath.source.arxiv.RETRY_DELAY", 0.01)
    with pytest.raises(FetchError, match=r"cannot fetch e-print for 1706.03762v7 from http://127.0.0.1:9"):
        open_source("1706.03762v7", cache_dir=tmp_path)


def test_malformed_mirror_url(monkeypatch, tmp_path):
    monkeypatch.setenv("PAPERMATH_ARXIV_URL", "not-a-url")
    with pytest.raises(FetchError, match="check PAPERMATH_ARXIV_URL"):
        open_source("1706.03762v7", cache_dir=tmp_path)
