"""`papermath serve SOURCE`: the HTML reader on a local web server (127.0.0.1 only)."""
from __future__ import annotations

import functools
import http.server
import signal
import sys
import tempfile

HELP = "serve the HTML reader on 127.0.0.1 and print its URL"
DESCRIPTION = """Build the HTML reader (see `papermath html`) into a temporary directory and serve it with Python's
http.server on 127.0.0.1 only — never on other interfaces. Prints the URL; Ctrl-C stops the server."""


def add_arguments(parser) -> None:
    parser.add_argument("source", metavar="SOURCE", help="directory, .tex/.md file, .zip or arXiv archive, arXiv id or URL")
    parser.add_argument("--port", type=int, default=8000, help="port on 127.0.0.1 (default 8000; 0 picks a free one)")


class ReaderHandler(http.server.SimpleHTTPRequestHandler):
    """Static files with the page's security headers; quiet logs."""

    def end_headers(self) -> None:
        from ..render.html import CSP
        self.send_header("Content-Security-Policy", CSP)
        self.send_header("X-Content-Type-Options", "nosniff")
        self.send_header("Referrer-Policy", "no-referrer")
        self.send_header("Cache-Control", "no-store")
        super().end_headers()

    def log_message(self, format, *args) -> None:  # noqa: A002 - the base class's name
        pass


def make_server(directory: str, port: int = 8000) -> http.server.ThreadingHTTPServer:
    """A server for `directory` bound to 127.0.0.1 only."""
    handler = functools.partial(ReaderHandler, directory=directory)
    try:
        return http.server.ThreadingHTTPServer(("127.0.0.1", port), handler)
    except OSError as error:
        from ..errors import UsageError
        raise UsageError(f"cannot listen on 127.0.0.1:{port}: {error.strerror or error}") from None


def _stop(signum, frame) -> None:
    raise KeyboardInterrupt


def run(args) -> int:
    from .html import build_site

    with tempfile.TemporaryDirectory(prefix="papermath-serve-") as tmp:
        _, notes = build_site(args.source, tmp)
        for note in notes:
            print(f"note: {note}")
        server = make_server(tmp, args.port)
        host, port = server.server_address[:2]
        print(f"serving {args.source} at http://{host}:{port}/  (Ctrl-C stops)", flush=True)
        previous = signal.signal(signal.SIGTERM, _stop)  # so the temporary directory is removed on kill too
        try:
            server.serve_forever()
        except KeyboardInterrupt:
            print("stopped", file=sys.stderr)
        finally:
            signal.signal(signal.SIGTERM, previous)
            server.server_close()
    return 0
