"""A small client for OpenAI-compatible chat endpoints (hosted APIs, llama.cpp, vLLM, Ollama), standard library only.

Configured by environment variables (or arguments that override them):

    PAPERMATH_LLM_URL      base URL (`http://127.0.0.1:8080/v1`) or the full `…/chat/completions` URL
    PAPERMATH_LLM_MODEL    model name sent with each request
    PAPERMATH_LLM_API_KEY  bearer token, when the endpoint needs one (never printed)

Anything the LLM says is only a draft: `papermath draft` parses it into a reading and checks it against the paper.
Every failure — no URL, an unreachable host, a timeout, an HTTP error, an answer that is not the API's JSON — is an
`LLMError` with a short message naming the endpoint.
"""
from __future__ import annotations

import json
import os
import socket
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass

from .errors import PapermathError

DEFAULT_TIMEOUT = 120.0
"""Seconds to wait for an answer: local models on a CPU are slow."""


class LLMError(PapermathError):
    """The LLM endpoint is not configured, cannot be reached, or answered something that is not a chat completion."""


@dataclass(frozen=True)
class LLMConfig:
    """Where and how to ask."""

    url: str
    """The chat-completions URL (`…/v1/chat/completions`)."""
    model: str
    """Model name."""
    api_key: str | None
    """Bearer token, or None."""
    timeout: float
    """Seconds to wait for the whole answer."""

    def __repr__(self) -> str:  # keep the key out of logs and tracebacks
        return f"LLMConfig(url={self.url!r}, model={self.model!r}, api_key={'***' if self.api_key else None}, " \
               f"timeout={self.timeout})"


def chat_url(base: str) -> str:
    """`http://host:8080` or `…/v1` → `…/v1/chat/completions`; a full completions URL is kept."""
    url = base.strip().rstrip("/")
    parts = urllib.parse.urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise LLMError(f"PAPERMATH_LLM_URL must be an http(s) URL, not {base!r}")
    if url.endswith("/chat/completions"):
        return url
    if url.endswith("/v1"):
        return url + "/chat/completions"
    return url + "/v1/chat/completions"


def config_from_env(url: str | None = None, model: str | None = None, api_key: str | None = None,
                    timeout: float | None = None) -> LLMConfig:
    base = url or os.environ.get("PAPERMATH_LLM_URL")
    if not base:
        raise LLMError("no LLM endpoint: set PAPERMATH_LLM_URL (e.g. http://127.0.0.1:8080/v1 for llama.cpp, "
                       "http://127.0.0.1:11434/v1 for Ollama) and PAPERMATH_LLM_MODEL, or pass --url and --model")
    return LLMConfig(chat_url(base), model or os.environ.get("PAPERMATH_LLM_MODEL") or "default",
                     api_key or os.environ.get("PAPERMATH_LLM_API_KEY") or None,
                     float(timeout if timeout is not None else DEFAULT_TIMEOUT))


def chat(config: LLMConfig, messages: list[dict], *, temperature: float = 0.0, max_tokens: int | None = None) -> str:
    """Send one chat request; return the first choice's message content."""
    body: dict = {"model": config.model, "messages": messages, "temperature": temperature, "stream": False}
    if max_tokens is not None:
        body["max_tokens"] = max_tokens
    headers = {"Content-Type": "application/json", "Accept": "application/json"}
    if config.api_key:
        headers["Authorization"] = f"Bearer {config.api_key}"
    request = urllib.request.Request(config.url, data=json.dumps(body).encode("utf-8"), headers=headers,
                                     method="POST")
    try:
        with urllib.request.urlopen(request, timeout=config.timeout) as response:
            raw = response.read()
    except urllib.error.HTTPError as error:
        detail = error.read()[:300].decode("utf-8", "replace").strip()
        raise LLMError(f"{config.url} answered HTTP {error.code} {error.reason}: {detail or '(no body)'}") from None
    except (TimeoutError, socket.timeout):
        raise LLMError(f"no answer from {config.url} within {config.timeout:g} s (raise it with --timeout)") from None
    except urllib.error.URLError as error:
        reason = error.reason
        if isinstance(reason, (TimeoutError, socket.timeout)):
            raise LLMError(f"no answer from {config.url} within {config.timeout:g} s (raise it with --timeout)") \
                from None
        raise LLMError(f"cannot reach the LLM endpoint {config.url}: {reason}") from None
    except (ConnectionError, OSError) as error:
        raise LLMError(f"cannot reach the LLM endpoint {config.url}: {error}") from None
    return _content(raw, config.url)


def _content(raw: bytes, url: str) -> str:
    text = raw.decode("utf-8", "replace")
    try:
        data = json.loads(text)
    except json.JSONDecodeError:
        raise LLMError(f"{url} did not answer with JSON (is it an OpenAI-compatible endpoint?): "
                       f"{_snippet(text)}") from None
    if isinstance(data, dict) and "error" in data and not data.get("choices"):
        error = data["error"]
        message = error.get("message") if isinstance(error, dict) else error
        raise LLMError(f"{url} returned an error: {message}")
    try:
        content = data["choices"][0]["message"]["content"]
    except (KeyError, IndexError, TypeError):
        raise LLMError(f"{url} answered JSON without choices[0].message.content: {_snippet(text)}") from None
    if not isinstance(content, str) or not content.strip():
        raise LLMError(f"{url} answered an empty message")
    return content


def _snippet(text: str, n: int = 160) -> str:
    text = " ".join(text.split())
    return repr(text if len(text) <= n else text[:n] + "…")
