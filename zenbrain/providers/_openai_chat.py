"""A summariser over any server that speaks OpenAI's ``POST /chat/completions``.

Consolidation hands it the episodes that are about to become one fact; it asks the model for
a short, self-contained statement of that fact. Works with OpenAI, Ollama, vLLM, LM Studio
and other compatible servers; only the standard library is used.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from zenbrain.errors import InvalidInputError, ProviderError
from zenbrain.providers._http import JsonHttpClient, chat_reply_text, resolve_api_key
from zenbrain.providers._vectors import as_text_list

__all__ = ["DEFAULT_SUMMARY_PROMPT", "OpenAIChatSummarizer"]

DEFAULT_SUMMARY_PROMPT = (
    "You maintain the long-term memory of an AI assistant. You receive notes that were "
    "recorded on different occasions about one subject. Write the lasting fact they express "
    "as one or two short, self-contained sentences. Keep names, numbers, dates and the "
    "language of the notes. Leave out anything that only mattered at the moment. Answer with "
    "the summary alone."
)

# Reasoning models served through Ollama or vLLM may put their deliberation first.


class OpenAIChatSummarizer:
    """A :class:`~zenbrain.providers.Summarizer` over an OpenAI-compatible chat API.

    ``max_tokens`` and ``temperature`` are sent when not ``None``; set both to ``None`` for
    models that refuse them (OpenAI's reasoning models accept neither a ``max_tokens`` nor a
    temperature other than the default). ``api_key`` defaults to ``OPENAI_API_KEY``.
    Transient failures are retried as in :class:`~zenbrain.providers.OpenAIEmbeddings`.
    """

    def __init__(
        self,
        model: str,
        *,
        base_url: str = "https://api.openai.com/v1",
        api_key: str | None = None,
        system_prompt: str = DEFAULT_SUMMARY_PROMPT,
        max_tokens: int | None = 256,
        temperature: float | None = 0.0,
        timeout: float = 120.0,
        max_retries: int = 3,
        retry_backoff: float = 0.5,
    ) -> None:
        if not isinstance(model, str) or not model.strip():
            raise InvalidInputError(f"model must be a non-empty model name, got {model!r}")
        if not isinstance(system_prompt, str):
            raise InvalidInputError(
                f"system_prompt must be a str, got {type(system_prompt).__name__}"
            )
        if max_tokens is not None and (
            isinstance(max_tokens, bool) or not isinstance(max_tokens, int) or max_tokens < 1
        ):
            raise InvalidInputError(f"max_tokens must be an int >= 1 or None, got {max_tokens!r}")
        if temperature is not None and (
            isinstance(temperature, bool)
            or not isinstance(temperature, int | float)
            or not 0.0 <= temperature <= 2.0
        ):
            raise InvalidInputError(
                f"temperature must be a number in [0, 2] or None, got {temperature!r}"
            )
        self._model = model
        self._system_prompt = system_prompt
        self._max_tokens = max_tokens
        self._temperature = temperature
        self._client = JsonHttpClient(
            base_url,
            api_key=resolve_api_key(api_key),
            timeout=timeout,
            max_retries=max_retries,
            retry_backoff=retry_backoff,
        )

    @property
    def model(self) -> str:
        return self._model

    @property
    def base_url(self) -> str:
        return self._client.base_url

    def summarize(self, texts: Sequence[str]) -> str:
        """One summary of ``texts``; ProviderError if the server fails or answers nothing."""
        notes = [text.strip() for text in as_text_list(texts) if text.strip()]
        if not notes:
            raise InvalidInputError("summarize needs at least one non-empty text")
        payload: dict[str, Any] = {
            "model": self._model,
            "messages": [
                {"role": "system", "content": self._system_prompt},
                {"role": "user", "content": _format_notes(notes)},
            ],
        }
        if self._max_tokens is not None:
            payload["max_tokens"] = self._max_tokens
        if self._temperature is not None:
            payload["temperature"] = self._temperature
        answer = self._client.post("/chat/completions", payload)
        return self._summary_from(answer)

    def __repr__(self) -> str:
        return f"{type(self).__name__}(model={self._model!r}, base_url={self.base_url!r})"

    def _summary_from(self, answer: Any) -> str:
        where = f"{self.base_url}/chat/completions"
        summary = chat_reply_text(answer, where)
        if not summary:
            raise ProviderError(f"{where} answered with an empty summary")
        return summary


def _format_notes(notes: list[str]) -> str:
    lines = "\n".join(f"{number}. {note}" for number, note in enumerate(notes, start=1))
    return f"Notes:\n{lines}\n\nSummary:"
