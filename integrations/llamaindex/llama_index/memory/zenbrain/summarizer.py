"""``LlamaIndexSummarizer``: any LlamaIndex ``LLM`` as zenbrain's consolidation
``Summarizer``."""

from __future__ import annotations

from collections.abc import Sequence

from llama_index.core.base.llms.types import ChatMessage, MessageRole
from llama_index.core.llms import LLM

from zenbrain.errors import InvalidInputError, ProviderError

__all__ = ["DEFAULT_SUMMARY_INSTRUCTIONS", "LlamaIndexSummarizer"]

DEFAULT_SUMMARY_INSTRUCTIONS = (
    "You condense memories of an assistant into one durable fact. Write a single short, "
    "self-contained statement in the language of the input that keeps names, numbers and "
    "dates. Answer with the statement only."
)


class LlamaIndexSummarizer:
    """Summarises texts with a LlamaIndex LLM; pass it as
    ``MemoryCoordinator(..., summarizer=LlamaIndexSummarizer(llm))`` and ``consolidate()``
    turns emotionally weighted episodes into facts with it."""

    def __init__(self, llm: LLM, *, instructions: str = DEFAULT_SUMMARY_INSTRUCTIONS) -> None:
        if not isinstance(llm, LLM):
            raise InvalidInputError(
                f"LlamaIndexSummarizer expects a llama_index LLM, got {type(llm).__name__}."
            )
        self._llm = llm
        self._instructions = instructions

    @property
    def llm(self) -> LLM:
        """The wrapped LLM."""
        return self._llm

    def summarize(self, texts: Sequence[str]) -> str:
        items = [text for text in texts if text and text.strip()]
        if not items:
            raise InvalidInputError("summarize needs at least one non-empty text.")
        listing = "\n".join(f"- {text.strip()}" for text in items)
        messages = [
            ChatMessage(role=MessageRole.SYSTEM, content=self._instructions),
            ChatMessage(role=MessageRole.USER, content=listing),
        ]
        try:
            response = self._llm.chat(messages)
        except Exception as exc:
            raise ProviderError(
                f"The LLM {type(self._llm).__name__} failed to summarise {len(items)} "
                f"text(s): {exc}"
            ) from exc
        summary = (response.message.content or "").strip()
        if not summary:
            raise ProviderError(f"The LLM {type(self._llm).__name__} returned an empty summary.")
        return summary
