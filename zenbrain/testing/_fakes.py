"""Stand-ins for the two pluggable parts, for tests of code built on zenbrain.

* :class:`DeterministicEmbedder`: the :class:`~zenbrain.providers.HashingEmbedder` (same
  vectors, same ``model_id``) with a small default dimension, recording what it was asked
  to embed.
* :class:`ScriptedSummarizer`: answers from a script (fixed strings, a list consumed in
  order, or a function) and records every batch of texts it was given, so a test can check
  what consolidation summarised.

Both are thread-safe, since the coordinator's async methods run in worker threads.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence

from zenbrain.errors import InvalidInputError, ProviderError
from zenbrain.providers import HashingEmbedder
from zenbrain.providers._vectors import EmbeddingMatrix, as_text_list

__all__ = ["DeterministicEmbedder", "ScriptedSummarizer"]


class DeterministicEmbedder(HashingEmbedder):
    """Reproducible vectors without a model; ``document_calls``/``query_calls`` record inputs.

    Each embed call appends the list of texts it received, so a test can assert, say, that a
    recall embedded its query with :meth:`embed_queries`.
    """

    def __init__(self, dimension: int = 64) -> None:
        super().__init__(dimension)
        self.document_calls: list[list[str]] = []
        self.query_calls: list[list[str]] = []
        self._calls_lock = threading.Lock()

    def embed_documents(self, texts: Sequence[str]) -> EmbeddingMatrix:
        items = as_text_list(texts)
        with self._calls_lock:
            self.document_calls.append(items)
        return super().embed_documents(items)

    def embed_queries(self, texts: Sequence[str]) -> EmbeddingMatrix:
        items = as_text_list(texts)
        with self._calls_lock:
            self.query_calls.append(items)
        return super().embed_queries(items)


class ScriptedSummarizer:
    """A :class:`~zenbrain.providers.Summarizer` whose answers a test decides.

    ``responses`` may be

    * ``None`` (default): the texts joined with ``" "``, a stand-in that keeps every word;
    * a ``str``: that answer, every time;
    * a sequence of ``str``: one per call, in order; a call after the last one raises
      :class:`~zenbrain.errors.ProviderError`, so an unexpected extra call fails loudly;
    * a callable taking the list of texts and returning the answer.

    ``calls`` holds the list of texts of every call, in order.
    """

    def __init__(
        self,
        responses: str | Sequence[str] | Callable[[list[str]], str] | None = None,
    ) -> None:
        self._function: Callable[[list[str]], str] | None = None
        self._script: list[str] | None = None
        if responses is None:
            self._function = " ".join
        elif isinstance(responses, str):
            fixed = responses
            self._function = lambda _texts: fixed
        elif callable(responses):
            self._function = responses
        else:
            script = list(responses)
            for position, answer in enumerate(script):
                if not isinstance(answer, str):
                    raise InvalidInputError(
                        f"responses[{position}] must be a str, got {type(answer).__name__}"
                    )
            self._script = script
        self.calls: list[list[str]] = []
        self._lock = threading.Lock()

    def summarize(self, texts: Sequence[str]) -> str:
        items = as_text_list(texts)
        with self._lock:
            self.calls.append(items)
            if self._script is not None:
                call_number = len(self.calls)
                if call_number > len(self._script):
                    raise ProviderError(
                        f"ScriptedSummarizer was called {call_number} times but scripted only "
                        f"{len(self._script)} responses"
                    )
                return self._script[call_number - 1]
        assert self._function is not None
        answer = self._function(items)
        if not isinstance(answer, str):
            raise ProviderError(
                f"the ScriptedSummarizer function returned {type(answer).__name__}, not str"
            )
        return answer
