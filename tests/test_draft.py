"""`papermath draft` end to end against a local OpenAI-compatible server (127.0.0.1, started by the test), and
the LLM client's errors: unreachable, too slow, garbage, HTTP errors, no reading in the answer."""
from __future__ import annotations

import json
import socket
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from papermath.cli import main
from papermath.llm import LLMConfig, LLMError, chat, chat_url, config_from_env

from conftest import EXAMPLE

ANSWER = """```markdown
## Equation 1 (eq:1)

Kind: computation

| symbol | shape or type | meaning | role | quote |
|---|---|---|---|---|
| $Q$ | [n, d_k] | the queries, one per row | input data | We pack the queries into a matrix $Q \\in \\mathbb{R}^{n \\times d_k}$ |
| $K$ | [d_k, m] | the keys | input data | and the keys and values into matrices $K \\in \\mathbb{R}^{m \\times d_k}$ and $V \\in \\mathbb{R}^{m \\times d_v}$ |
| $V$ | [m, d_v] | the values | trained weight | The values are learned projections of the input tokens. |
| $d_k$ | scalar | width of queries and keys | fixed setting | The queries and keys have dimension $d_k$ |
| $\\operatorname{softmax}$ | function | row-wise softmax over the keys | function |  |

### Undefined — not defined in the paper; do not guess

- none

### Reductions

- softmax over the keys j of each row

### Small-number check

- inputs: `Q=[[1,0]]`; `K=[[1,0],[0,1],[1,1]]`; `V=[[10,0],[0,10],[5,5]]`; `d_k=2`
- result: `[[6.017, 3.983]]`
```"""


class _Handler(BaseHTTPRequestHandler):
    def log_message(self, *args):  # keep the test output clean
        pass

    def do_POST(self):
        length = int(self.headers.get("Content-Length", 0))
        body = json.loads(self.rfile.read(length) or b"{}")
        self.server.requests.append({"path": self.path, "body": body,
                                     "auth": self.headers.get("Authorization")})
        mode = self.server.mode
        if self.path != "/v1/chat/completions":
            self._send(404, b'{"error": "not found"}')
        elif mode == "reading":
            self._send(200, json.dumps({"id": "x", "object": "chat.completion", "model": body.get("model"),
                                        "choices": [{"index": 0, "finish_reason": "stop",
                                                     "message": {"role": "assistant", "content": ANSWER}}]}).encode())
        elif mode == "garbage":
            self._send(200, b"<html>this is not an API</html>")
        elif mode == "no-choices":
            self._send(200, b'{"object": "chat.completion", "choices": []}')
        elif mode == "prose":
            self._send(200, json.dumps({"choices": [{"message": {"role": "assistant",
                                                                 "content": "I think Q is the queries."}}]}).encode())
        elif mode == "http-500":
            self._send(500, b'{"error": {"message": "model crashed"}}')
        elif mode == "slow":
            time.sleep(2.0)
            self._send(200, b"{}")

    def _send(self, code: int, payload: bytes):
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        try:
            self.wfile.write(payload)
        except (BrokenPipeError, ConnectionResetError):
            pass


@pytest.fixture
def server():
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    httpd.requests = []
    httpd.mode = "reading"
    httpd.daemon_threads = True
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield httpd
    httpd.shutdown()
    httpd.server_close()


def _env(monkeypatch, httpd, key="sk-test"):
    monkeypatch.setenv("PAPERMATH_LLM_URL", f"http://127.0.0.1:{httpd.server_address[1]}/v1")
    monkeypatch.setenv("PAPERMATH_LLM_MODEL", "tiny-test-model")
    monkeypatch.setenv("PAPERMATH_LLM_API_KEY", key)


def test_draft_end_to_end_prompt_sent_answer_parsed_checked_rows_marked(server, monkeypatch, capsys, tmp_path):
    _env(monkeypatch, server)
    saved = tmp_path / "draft.md"
    code = main(["draft", str(EXAMPLE), "--eq", "1", "--save", str(saved)])
    out = capsys.readouterr().out
    assert code == 1  # the drafted reading has wrong rows
    # the prompt was sent: one request, the configured model, the key as a bearer token, the five steps
    (request,) = server.requests
    assert request["path"] == "/v1/chat/completions" and request["auth"] == "Bearer sk-test"
    assert request["body"]["model"] == "tiny-test-model"
    prompt = request["body"]["messages"][-1]["content"]
    assert "\\mathrm{Attention}(Q, K, V)" in prompt and "We pack the queries into a matrix" in prompt
    assert "2. List every symbol the pasted text does not define. Do not guess them." in prompt
    assert "| symbol | shape or type | meaning | role | quote |" in prompt
    # the answer was parsed and checked, and each row marked
    lines = {line.split()[1]: line.split()[0] for line in out.splitlines()
             if line.startswith("  ") and len(line.split()) > 1 and line.split()[1].startswith("$")}
    assert lines["$Q$"] == "verified"
    assert lines["$d_k$"] == "verified"
    assert lines["$V$"] == "guess"
    assert lines["$K$"] == "mismatch"
    assert "quote NOT FOUND" in out and "closest" in out
    assert "the reading says [d_k, m]; the paper says [m, d_k]" in out
    assert "ok   numbers" in out
    assert saved.read_text(encoding="utf-8").startswith("```markdown")


def test_draft_json_report_carries_prompt_and_answer(server, monkeypatch, capsys):
    _env(monkeypatch, server)
    assert main(["draft", str(EXAMPLE), "--eq", "1", "--json"]) == 1
    data = json.loads(capsys.readouterr().out)
    assert data["schema"] == "papermath.check/1" and data["passed"] is False
    assert data["summary"]["rows"] == {"verified": 2, "guess": 1, "mismatch": 1, "standard": 1}
    assert data["draft"]["model"] == "tiny-test-model" and "## Equation 1" in data["draft"]["answer"]
    assert data["equations"][0]["numbers"]["ok"] is True


@pytest.mark.parametrize("mode, message", [
    ("garbage", "did not answer with JSON"),
    ("no-choices", "without choices[0].message.content"),
    ("http-500", "answered HTTP 500"),
    ("prose", "the model's answer is not a reading"),
])
def test_draft_reports_bad_answers_clearly(server, monkeypatch, capsys, mode, message):
    _env(monkeypatch, server)
    server.mode = mode
    assert main(["draft", str(EXAMPLE), "--eq", "1"]) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


def test_draft_times_out(server, monkeypatch, capsys):
    _env(monkeypatch, server)
    server.mode = "slow"
    assert main(["draft", str(EXAMPLE), "--eq", "1", "--timeout", "0.3"]) == 2
    assert "no answer from" in capsys.readouterr().err


def test_draft_unreachable_endpoint(monkeypatch, capsys):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # closed once the block ends: nothing listens there
    monkeypatch.setenv("PAPERMATH_LLM_URL", f"http://127.0.0.1:{port}/v1")
    assert main(["draft", str(EXAMPLE), "--eq", "1", "--timeout", "2"]) == 2
    assert "cannot reach the LLM endpoint" in capsys.readouterr().err


def test_draft_without_configuration_says_what_to_set(monkeypatch, capsys):
    monkeypatch.delenv("PAPERMATH_LLM_URL", raising=False)
    assert main(["draft", str(EXAMPLE), "--eq", "1"]) == 2
    assert "set PAPERMATH_LLM_URL" in capsys.readouterr().err


@pytest.mark.parametrize("base, url", [
    ("http://127.0.0.1:8080/v1", "http://127.0.0.1:8080/v1/chat/completions"),
    ("http://127.0.0.1:11434", "http://127.0.0.1:11434/v1/chat/completions"),
    ("https://api.example.org/v1/chat/completions/", "https://api.example.org/v1/chat/completions"),
])
def test_chat_url(base, url):
    assert chat_url(base) == url


@pytest.mark.parametrize("bad", ["file:///etc/passwd", "127.0.0.1:8080", "ftp://host/v1"])
def test_chat_url_refuses_non_http(bad):
    with pytest.raises(LLMError):
        chat_url(bad)


def test_config_hides_the_key(monkeypatch):
    monkeypatch.setenv("PAPERMATH_LLM_URL", "http://127.0.0.1:1/v1")
    monkeypatch.setenv("PAPERMATH_LLM_API_KEY", "sk-secret")
    config = config_from_env()
    assert "sk-secret" not in repr(config) and config.api_key == "sk-secret"


def test_chat_returns_the_message(server):
    config = LLMConfig(f"http://127.0.0.1:{server.server_address[1]}/v1/chat/completions", "m", None, 5.0)
    assert chat(config, [{"role": "user", "content": "hi"}]).startswith("```markdown")
    assert server.requests[0]["auth"] is None
