"""``LangChainSummarizer``: any LangChain chat model as zenbrain's consolidation
``Summarizer``."""

from __future__ import annotations

from collections.abc import Sequence

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import HumanMessage, SystemMessage

from zenbrain.errors import InvalidInputError, ProviderError

__all__ = ["DEFAULT_SUMMARY_INSTRUCTIONS", "LangChainSummarizer"]

DEFAULT_SUMMARY_INSTRUCTIONS = (
    "You condense memories of an assistant into one durable fact. Write a single short, "
    "self-contained statement in the language of the input that keeps names, numbers and "
    "dates. Answer with the statement only."
)


class LangChainSummarizer:
    """Summarises texts with a LangChain chat model; pass it as
    ``MemoryCoordinator(..., summarizer=LangChainSummarizer(model))`` and ``consolidate()``
    turns emotionally weighted episodes into facts with it."""

    def __init__(
        self, chat_model: BaseChatModel, *, instructions: str = DEFAULT_SUMMARY_INSTRUCTIONS
    ) -> None:
        if not isinstance(chat_model, BaseChatModel):
            raise InvalidInputError(
                "LangChainSummarizer expects a LangChain chat model (BaseChatModel), "
                f"got {type(chat_model).__name__}."
            )
        self._chat_model = chat_model
        self._instructions = instructions

    @property
    def chat_model(self) -> BaseChatModel:
        """The wrapped chat model."""
        return self._chat_model

    def summarize(self, texts: Sequence[str]) -> str:
        items = [text for text in texts if text and text.strip()]
        if not items:
            raise InvalidInputError("summarize needs at least one non-empty text.")
        listing = "\n".join(f"- {text.strip()}" for text in items)
        messages = [SystemMessage(self._instructions), HumanMessage(listing)]
        try:
            reply = self._chat_model.invoke(messages)
        except Exception as exc:
            raise ProviderError(
                f"The chat model {type(self._chat_model).__name__} failed to summarise "
                f"{len(items)} text(s): {exc}"
            ) from exc
        summary = reply.text.strip()
        if not summary:
            raise ProviderError(
                f"The chat model {type(self._chat_model).__name__} returned an empty summary."
            )
        return summary
