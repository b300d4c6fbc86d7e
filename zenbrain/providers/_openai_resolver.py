"""A :class:`~zenbrain.providers.Resolver` over any server that speaks OpenAI's
``POST /chat/completions``: the model reads a new memory and older ones that may say the
same thing, and answers with the numbers of those the new one makes outdated.

Its answer is checked, never trusted: anything but a JSON list of the candidates' numbers is
refused (:class:`~zenbrain.errors.ProviderError`), and the store then goes ahead with the
deterministic rules (:mod:`zenbrain._memory.supersede`)."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

from zenbrain.errors import InvalidInputError, ProviderError
from zenbrain.providers._http import JsonHttpClient, chat_reply_text, resolve_api_key

__all__ = ["DEFAULT_RESOLVER_PROMPT", "OpenAIChatResolver"]

DEFAULT_RESOLVER_PROMPT = (
    "You maintain the long-term memory of an AI assistant. You receive one NEW note and "
    "numbered OLDER notes. An older note is outdated when the new note gives a newer value "
    "of the same thing about the same person (where they live, where they work, a number, a "
    "date, a status, a preference, a plan). A hypothetical, a question, another person's "
    "fact or a different attribute never makes a note outdated. Answer with a JSON list of "
    "the numbers of the outdated older notes, [] when none is, and nothing else."
)
_FENCE = re.compile(r"^```(?:json)?\s*|\s*```$")


class OpenAIChatResolver:
    """Proposes supersessions with an OpenAI-compatible chat model (OpenAI, Ollama, vLLM,
    LM Studio, ...). ``api_key`` defaults to ``OPENAI_API_KEY``."""

    def __init__(
        self,
        model: str,
        *,
        base_url: str = "https://api.openai.com/v1",
        api_key: str | None = None,
        system_prompt: str = DEFAULT_RESOLVER_PROMPT,
        timeout: float = 60.0,
        max_retries: int = 2,
    ) -> None:
        if not isinstance(model, str) or not model.strip():
            raise InvalidInputError(f"model must be a non-empty model name, got {model!r}")
        if not isinstance(system_prompt, str) or not system_prompt.strip():
            raise InvalidInputError("system_prompt must be a non-empty str")
        self._model = model
        self._system_prompt = system_prompt
        self._client = JsonHttpClient(
            base_url, api_key=resolve_api_key(api_key), timeout=timeout, max_retries=max_retries
        )

    @property
    def model(self) -> str:
        return self._model

    @property
    def base_url(self) -> str:
        return self._client.base_url

    def __repr__(self) -> str:
        return f"{type(self).__name__}(model={self._model!r}, base_url={self.base_url!r})"

    def propose(self, new: str, candidates: Sequence[tuple[str, str]]) -> list[str]:
        """The ids among ``candidates`` that ``new`` makes outdated, as the model says;
        ProviderError when the server fails or the answer is not such a list."""
        if not candidates:
            return []
        older = "\n".join(f"{n}. {text}" for n, (_, text) in enumerate(candidates, start=1))
        payload: dict[str, Any] = {
            "model": self._model,
            "temperature": 0.0,
            "messages": [
                {"role": "system", "content": self._system_prompt},
                {"role": "user", "content": f"NEW: {new}\n\nOLDER:\n{older}\n\nOutdated:"},
            ],
        }
        answer = self._client.post("/chat/completions", payload)
        numbers = self._numbers_from(answer, len(candidates))
        return [candidates[n - 1][0] for n in numbers]

    def _numbers_from(self, answer: Any, count: int) -> list[int]:
        where = f"{self.base_url}/chat/completions"
        text = _FENCE.sub("", chat_reply_text(answer, where))
        try:
            numbers = json.loads(text)
        except ValueError:
            raise ProviderError(
                f"{where} should answer a JSON list of note numbers, got {text!r:.120}"
            ) from None
        if not isinstance(numbers, list) or not all(
            isinstance(n, int) and not isinstance(n, bool) and 1 <= n <= count for n in numbers
        ):
            raise ProviderError(
                f"{where} should answer a JSON list of numbers from 1 to {count}, got {text!r:.120}"
            )
        return sorted(set(numbers))
