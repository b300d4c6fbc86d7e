"""``ZenBrainMemoryBlock``: zenbrain as a block of LlamaIndex's ``Memory``."""

from __future__ import annotations

from typing import Any

from llama_index.core.base.llms.types import ChatMessage, TextBlock
from llama_index.core.bridge.pydantic import Field, field_validator
from llama_index.core.memory.memory import BaseMemoryBlock
from llama_index.core.utils import get_tokenizer

from zenbrain import MemoryCoordinator
from zenbrain.types import SEARCHED_LAYERS, CoreBlock, RecallResult

__all__ = ["CORE_HEADING", "RECALLED_HEADING", "ZenBrainMemoryBlock"]

CORE_HEADING = "Core memory:"
RECALLED_HEADING = "Recalled memories:"
_ENTRY_PREFIXES = ("[", "- ")


class ZenBrainMemoryBlock(BaseMemoryBlock[str]):
    """A memory block backed by a :class:`zenbrain.MemoryCoordinator`.

    ``aget`` returns the core blocks first (``[label]: content`` lines), then what zenbrain
    recalls for the latest messages (``- (layer) content`` lines, best first). ``aput``
    receives the messages ``Memory`` flushes out of its short-term queue and stores those
    whose role is in ``store_roles`` into long-term memory, where zenbrain's routing files
    them as facts, episodes or procedures.

    ``priority`` works as in every LlamaIndex block: 0 is never truncated; otherwise, when
    the memory is over its token limit, this block drops its least relevant recalled
    memories first and its core blocks last.
    """

    name: str = Field(default="zenbrain", description="The name of the memory block.")
    description: str | None = Field(
        default="Long-term memories recalled from zenbrain.",
        description="A description of the memory block.",
    )
    priority: int = Field(
        default=1, description="0 = never truncate; higher numbers are truncated last."
    )
    coordinator: MemoryCoordinator = Field(
        exclude=True, description="The zenbrain memory to recall from and store into."
    )
    k: int = Field(default=5, ge=1, description="How many memories to recall at most.")
    layers: list[str] | None = Field(
        default=None,
        description="Layers to recall from; None means episodic, semantic and procedural "
        "(core blocks are added separately when include_core is true).",
    )
    min_score: float = Field(
        default=0.0, ge=0.0, le=1.0, description="Drop recalled memories scoring below this."
    )
    include_core: bool = Field(
        default=True, description="Put zenbrain's core blocks first in the block's text."
    )
    query_window: int = Field(
        default=1, ge=1, description="How many of the latest messages form the recall query."
    )
    store_roles: list[str] = Field(
        default_factory=lambda: ["user", "assistant"],
        description="Roles of flushed messages that are stored into long-term memory.",
    )
    context: str | None = Field(
        default=None, description="Cross-context domain to recall in and store under."
    )

    @field_validator("layers", mode="before")
    @classmethod
    def _one_layer_is_a_list(cls, value: Any) -> Any:
        return [value] if isinstance(value, str) else value

    # ------------------------------------------------------------------ get
    async def _aget(self, messages: list[ChatMessage] | None = None, **block_kwargs: Any) -> str:
        sections: list[str] = []
        if self.include_core:
            blocks = await self.coordinator.acore_blocks()
            if blocks:
                sections.append("\n".join([CORE_HEADING, *map(_core_line, blocks)]))
        query = _query_text(messages or [], self.query_window)
        if query:
            results = await self.coordinator.arecall(
                query,
                layers=self._recall_layers(),
                limit=self.k,
                min_score=self.min_score,
                context=self.context,
            )
            if results:
                sections.append("\n".join([RECALLED_HEADING, *map(_recalled_line, results)]))
        return "\n\n".join(sections)

    def _recall_layers(self) -> list[str]:
        if self.layers is None:
            return list(SEARCHED_LAYERS)
        # Core blocks already lead the text; recalling them again would repeat them.
        chosen = [layer for layer in self.layers if not (self.include_core and layer == "core")]
        return chosen or list(self.layers)

    # ------------------------------------------------------------------ put
    async def _aput(self, messages: list[ChatMessage]) -> None:
        items: list[dict[str, Any]] = []
        for message in messages:
            role = _role(message)
            text = _text(message)
            if role not in self.store_roles or not text.strip():
                continue
            metadata: dict[str, Any] = {"role": role}
            session_id = message.additional_kwargs.get("session_id")
            if isinstance(session_id, str):
                metadata["session_id"] = session_id
            items.append(
                {
                    "content": text,
                    "context": self.context,
                    "source": "llamaindex-memory",
                    "metadata": metadata,
                }
            )
        if items:
            await self.coordinator.astore_many(items)

    # ------------------------------------------------------------------ truncate
    async def atruncate(self, content: str, tokens_to_truncate: int) -> str | None:
        """Drop whole entries from the end (least relevant recalled memories first, core
        blocks last) until about ``tokens_to_truncate`` tokens are gone."""
        if tokens_to_truncate <= 0:
            return content
        count = get_tokenizer()
        lines = content.split("\n")
        saved = 0
        while saved < tokens_to_truncate:
            entries = [i for i, line in enumerate(lines) if line.startswith(_ENTRY_PREFIXES)]
            if not entries:
                break
            saved += len(count(lines.pop(entries[-1]))) + 1
        kept = _without_empty_sections(lines)
        return "\n".join(kept) if kept else None


def _core_line(block: CoreBlock) -> str:
    return f"[{block.label}]: {_one_line(block.content)}"


def _recalled_line(result: RecallResult) -> str:
    return f"- ({result.layer}) {_one_line(result.content)}"


def _one_line(text: str) -> str:
    # One entry per line, so truncation can drop whole entries.
    return " ".join(text.split())


def _role(message: ChatMessage) -> str:
    role = message.role
    return str(getattr(role, "value", role))


def _text(message: ChatMessage) -> str:
    return "".join(block.text for block in message.blocks if isinstance(block, TextBlock))


def _query_text(messages: list[ChatMessage], window: int) -> str:
    texts = [_text(message) for message in messages[-window:]]
    return "\n".join(text for text in texts if text.strip())


def _without_empty_sections(lines: list[str]) -> list[str]:
    kept: list[str] = []
    for index, line in enumerate(lines):
        if line in (CORE_HEADING, RECALLED_HEADING):
            following = lines[index + 1] if index + 1 < len(lines) else ""
            if not following.startswith(_ENTRY_PREFIXES):
                continue
        kept.append(line)
    while kept and not kept[-1].strip():
        kept.pop()
    while kept and not kept[0].strip():
        kept.pop(0)
    return kept
