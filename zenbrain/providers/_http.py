"""The small JSON-over-HTTP client shared by the OpenAI-compatible providers.

Standard library only (``urllib.request``), so the core needs no HTTP dependency. It posts
one JSON body, retries what is worth retrying (HTTP 408/429/5xx, refused or dropped
connections, timeouts) a bounded number of times with exponential backoff, and turns every
failure into a :class:`~zenbrain.errors.ProviderError` that names the URL, the HTTP status
and the server's own error message. The API key is sent in the ``Authorization`` header only;
it never appears in an error message, a log line or a ``repr``.
"""

from __future__ import annotations

import http.client
import json
import logging
import os
import re
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from email.message import Message
from typing import Any

from zenbrain.errors import InvalidInputError, ProviderError

__all__ = ["JsonHttpClient", "resolve_api_key"]

_LOG = logging.getLogger("zenbrain.providers")

#: Statuses that usually go away on their own: timeouts, rate limits, overloaded servers.
_RETRYABLE_STATUSES = frozenset({408, 409, 425, 429, 500, 502, 503, 504})
#: Longest pause between attempts, whatever ``Retry-After`` or the backoff asks for.
_MAX_PAUSE_SECONDS = 30.0
#: How much of a non-JSON error body is quoted in a message.
_BODY_SNIPPET_CHARS = 300


def resolve_api_key(api_key: str | None, env_var: str = "OPENAI_API_KEY") -> str | None:
    """``api_key`` if given, else the environment variable, else ``None`` (no auth header)."""
    if api_key is not None:
        if not isinstance(api_key, str):
            raise InvalidInputError(f"api_key must be a str or None, got {type(api_key).__name__}")
        return api_key or None
    return os.environ.get(env_var) or None


def _normalise_base_url(base_url: str) -> str:
    if not isinstance(base_url, str) or not base_url.strip():
        raise InvalidInputError(f"base_url must be a non-empty URL string, got {base_url!r}")
    parsed = urllib.parse.urlsplit(base_url.strip())
    if parsed.scheme not in ("http", "https") or not parsed.netloc:
        raise InvalidInputError(
            f"base_url must be an http:// or https:// URL such as "
            f"'https://api.openai.com/v1' or 'http://localhost:11434/v1', got {base_url!r}"
        )
    return base_url.strip().rstrip("/")


def _public_url(url: str) -> str:
    """``url`` without any user:password part, for messages."""
    parts = urllib.parse.urlsplit(url)
    if "@" not in parts.netloc:
        return url
    return urllib.parse.urlunsplit(parts._replace(netloc=parts.netloc.rsplit("@", 1)[1]))


def _server_error_message(body: bytes) -> str:
    """The error text a server put in its body, for the shapes OpenAI-like servers use."""
    text = body.decode("utf-8", errors="replace").strip()
    try:
        payload = json.loads(text)
    except ValueError:
        payload = None
    if isinstance(payload, dict):
        error = payload.get("error")
        # OpenAI, vLLM, LM Studio: {"error": {"message": ...}}; Ollama: {"error": "..."}
        if isinstance(error, dict) and isinstance(error.get("message"), str):
            return error["message"]
        if isinstance(error, str):
            return error
        if isinstance(payload.get("message"), str):
            return payload["message"]
        if isinstance(payload.get("detail"), str):
            return payload["detail"]
    if not text:
        return "(empty body)"
    if len(text) > _BODY_SNIPPET_CHARS:
        return text[:_BODY_SNIPPET_CHARS] + "..."
    return text


def _retry_after_seconds(headers: Message | None) -> float | None:
    if headers is None:
        return None
    value = headers.get("Retry-After")
    if value is None:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        return None  # an HTTP date; the backoff is good enough


@dataclass
class JsonHttpClient:
    """Posts JSON to one server and returns the decoded JSON answer.

    ``max_retries`` is the number of extra attempts after the first one; ``retry_backoff``
    the pause before the first retry, doubled for each further one.
    """

    base_url: str
    api_key: str | None = field(default=None, repr=False)
    timeout: float = 60.0
    max_retries: int = 3
    retry_backoff: float = 0.5
    sleep: Callable[[float], None] = field(default=time.sleep, repr=False)

    def __post_init__(self) -> None:
        self.base_url = _normalise_base_url(self.base_url)
        if isinstance(self.timeout, bool) or not isinstance(self.timeout, int | float):
            raise InvalidInputError(f"timeout must be a number of seconds, got {self.timeout!r}")
        if self.timeout <= 0:
            raise InvalidInputError(f"timeout must be > 0 seconds, got {self.timeout}")
        if isinstance(self.max_retries, bool) or not isinstance(self.max_retries, int):
            raise InvalidInputError(f"max_retries must be an int, got {self.max_retries!r}")
        if self.max_retries < 0:
            raise InvalidInputError(f"max_retries must be >= 0, got {self.max_retries}")
        if isinstance(self.retry_backoff, bool) or not isinstance(self.retry_backoff, int | float):
            raise InvalidInputError(f"retry_backoff must be seconds, got {self.retry_backoff!r}")
        if self.retry_backoff < 0:
            raise InvalidInputError(f"retry_backoff must be >= 0, got {self.retry_backoff}")

    def post(self, path: str, payload: Mapping[str, Any]) -> Any:
        """POST ``payload`` to ``base_url + path``; the decoded JSON reply or a ProviderError."""
        url = self.base_url + path
        shown_url = _public_url(url)
        body = json.dumps(payload).encode("utf-8")
        headers = {
            "Content-Type": "application/json",
            "Accept": "application/json",
            "User-Agent": "zenbrain",
        }
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"

        attempts = self.max_retries + 1
        for attempt in range(1, attempts + 1):
            request = urllib.request.Request(url, data=body, headers=headers, method="POST")
            failure: str
            retry_after: float | None = None
            try:
                with urllib.request.urlopen(request, timeout=self.timeout) as response:
                    raw = response.read()
                    status = response.status
            except urllib.error.HTTPError as exc:
                detail = self._redact(_server_error_message(exc.read()))
                failure = f"HTTP {exc.code}: {detail}"
                if exc.code not in _RETRYABLE_STATUSES:
                    raise ProviderError(
                        f"POST {shown_url} failed with {failure}{self._hint(exc.code)}"
                    ) from None
                retry_after = _retry_after_seconds(exc.headers)
            except (urllib.error.URLError, OSError, http.client.HTTPException) as exc:
                reason = getattr(exc, "reason", None) or exc
                failure = f"connection error: {self._redact(str(reason)) or type(exc).__name__}"
            else:
                return self._decode(raw, status, shown_url)

            if attempt == attempts:
                raise ProviderError(
                    f"POST {shown_url} failed with {failure} "
                    f"(gave up after {attempts} attempt{'s' if attempts > 1 else ''})"
                )
            pause = self.retry_backoff * 2 ** (attempt - 1)
            if retry_after is not None:
                pause = max(pause, retry_after)
            pause = min(pause, _MAX_PAUSE_SECONDS)
            _LOG.warning(
                "POST %s failed with %s; retrying in %.2f s (attempt %d of %d)",
                shown_url,
                failure,
                pause,
                attempt + 1,
                attempts,
            )
            self.sleep(pause)
        raise AssertionError("unreachable")  # pragma: no cover

    def _decode(self, raw: bytes, status: int, shown_url: str) -> Any:
        try:
            return json.loads(raw.decode("utf-8"))
        except ValueError:
            snippet = raw[:_BODY_SNIPPET_CHARS].decode("utf-8", errors="replace")
            raise ProviderError(
                f"POST {shown_url} returned HTTP {status} with a body that is not JSON: "
                f"{self._redact(snippet)!r}"
            ) from None

    def _redact(self, text: str) -> str:
        """Servers sometimes echo the key they rejected; never pass it on."""
        if self.api_key and self.api_key in text:
            return text.replace(self.api_key, "***")
        return text

    @staticmethod
    def _hint(status: int) -> str:
        if status == 401:
            return " (check the api_key argument or the OPENAI_API_KEY environment variable)"
        if status == 404:
            return " (check base_url: it should end in the API version, e.g. '/v1')"
        return ""


# A reasoning model's leading <think>…</think> block is not part of its answer.
_THINK_BLOCK = re.compile(r"^\s*<think>.*?</think>\s*", re.DOTALL)


def chat_reply_text(answer: Any, where: str) -> str:
    """The text of an OpenAI-style chat completion (``choices[0].message.content``) without
    a leading think block; a ProviderError naming ``where`` for any other answer."""
    try:
        content = answer["choices"][0]["message"]["content"]
    except (KeyError, IndexError, TypeError):
        raise ProviderError(
            f"{where} answered without choices[0].message.content; got {answer!r:.200}"
        ) from None
    if not isinstance(content, str):
        raise ProviderError(
            f"{where} answered with no text content (content={content!r:.80}); the model may "
            f"have refused or called a tool"
        )
    return _THINK_BLOCK.sub("", content).strip()
