"""``ZenBrainMemoryBlock``: zenbrain as a block of LlamaIndex's ``Memory``."""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from typing import Any, Literal

from llama_index.core.base.embeddings.base import BaseEmbedding
from llama_index.core.base.llms.types import ChatMessage
from llama_index.core.bridge.pydantic import Field, PrivateAttr, field_validator
from llama_index.core.llms import LLM
from llama_index.core.memory.memory import BaseMemoryBlock
from llama_index.core.settings import Settings
from llama_index.core.utils import get_tokenizer

from zenbrain import MemoryCoordinator
from zenbrain.errors import InvalidInputError
from zenbrain.layers import worth_remembering
from zenbrain.types import RECALLABLE_LAYERS, SEARCHED_LAYERS, CoreBlock, RecallResult

from .embeddings import LlamaIndexEmbedding
from .messages import ROLES, fingerprint, message_role, message_text, one_line
from .summarizer import LlamaIndexSummarizer

__all__ = ["CORE_HEADING", "RECALLED_HEADING", "SOURCE", "ZenBrainMemoryBlock"]

logger = logging.getLogger("llama_index.memory.zenbrain")

CORE_HEADING = "Core memory:"
RECALLED_HEADING = "Recalled memories:"
#: ``source`` of every memory the block writes, and its ``written_by`` metadata.
SOURCE = "llamaindex"
_ENTRY_PREFIXES = ("[", "- ")


class ZenBrainMemoryBlock(BaseMemoryBlock[str]):
    """A memory block backed by a :class:`zenbrain.MemoryCoordinator`.

    ``aget`` returns the core blocks first (``[label]: content`` lines), then what zenbrain
    recalls for the latest messages, best first, one ``- (layer) speaker: content`` line
    each. Messages are written to long-term memory as soon as the block sees them in the
    chat history (``store_new_messages``, on by default) or when ``Memory`` flushes them out
    of its short-term queue; each is written once.

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
    k: int = Field(default=5, ge=1, le=100, description="How many memories to recall at most.")
    layers: list[str] | None = Field(
        default=None,
        description="Layers to recall from (episodic, semantic, procedural, core, working); "
        "None means episodic, semantic and procedural (core blocks are added separately "
        "when include_core is true).",
    )
    min_score: float = Field(
        default=0.01,
        ge=0.0,
        le=1.0,
        description="Drop recalled memories scoring below this. The default drops zenbrain's "
        "score-0 fill-ins (recent memories of a layer with no match); 0 keeps them.",
    )
    include_core: bool = Field(
        default=True, description="Put zenbrain's core blocks first in the block's text."
    )
    query_window: int = Field(
        default=1, ge=1, description="How many of the latest messages form the recall query."
    )
    store_roles: list[str] = Field(
        default_factory=lambda: ["user"],
        description="Roles of the messages written to long-term memory.",
    )
    only_worth_remembering: bool = Field(
        default=True,
        description="Write a user message only when it states something "
        "(zenbrain.layers.worth_remembering: not questions, greetings or "
        "one-off commands); False writes every message of store_roles.",
    )
    store_new_messages: bool = Field(
        default=True,
        description="Write each new message when the block first sees it in the chat "
        "history (on the next Memory.get, after recalling), instead of waiting until "
        "Memory flushes it out of its short-term queue.",
    )
    recall_scope: Literal["session", "all"] = Field(
        default="session",
        description="'session': recall what this Memory session wrote plus memories tied "
        "to no session (stored by tools or by your code), never another session's "
        "messages; 'all': every memory of the coordinator's namespace.",
    )
    context: str | None = Field(
        default=None, description="Cross-context domain to recall in and store under."
    )
    tokenizer_fn: Callable[[str], list[Any]] | None = Field(
        default=None,
        exclude=True,
        description="Counts tokens when truncating: pass the Memory's tokenizer_fn; None "
        "uses LlamaIndex's global tokenizer (Memory's default).",
    )

    _written: dict[str | None, set[str]] = PrivateAttr(default_factory=dict)

    # ------------------------------------------------------------------ construction
    @field_validator("layers", mode="before")
    @classmethod
    def _check_layers(cls, value: Any) -> Any:
        layers = [value] if isinstance(value, str) else value
        if layers is None:
            return None
        unknown = [layer for layer in layers if layer not in RECALLABLE_LAYERS]
        if unknown or not layers:
            raise ValueError(
                f"layers must name some of {', '.join(RECALLABLE_LAYERS)}; got {layers!r}"
            )
        return list(layers)

    @field_validator("store_roles", mode="before")
    @classmethod
    def _check_roles(cls, value: Any) -> Any:
        roles = [value] if isinstance(value, str) else value
        unknown = [role for role in roles if getattr(role, "value", role) not in ROLES]
        if unknown:
            raise ValueError(
                f"store_roles must name LlamaIndex message roles ({', '.join(ROLES)}); "
                f"unknown: {unknown!r}"
            )
        return [str(getattr(role, "value", role)) for role in roles]

    @classmethod
    def from_defaults(
        cls,
        db: str | None = None,
        namespace: str = "default",
        *,
        coordinator: MemoryCoordinator | None = None,
        embed_model: BaseEmbedding | None = None,
        llm: LLM | None = None,
        **fields: Any,
    ) -> ZenBrainMemoryBlock:
        """A block on the store ``db`` (a path, ``:memory:`` or a SQLAlchemy URL; default
        ``ZENBRAIN_DB``, else ``./zenbrain.db``), in ``namespace`` (e.g. one per user).

        Embeddings come from ``embed_model``, else from ``Settings.embed_model``; the
        consolidation summariser from ``llm``, else ``Settings.llm``. When ``Settings`` has
        none it can use (its default needs ``llama-index-embeddings-openai`` /
        ``llama-index-llms-openai`` and an API key), zenbrain recalls lexically and
        consolidates without a summariser. Or pass a ``coordinator`` you built yourself.
        Other keyword arguments set the block's fields.
        """
        if coordinator is not None:
            if (db, embed_model, llm) != (None, None, None) or namespace != "default":
                raise InvalidInputError(
                    "from_defaults() takes either a coordinator or db/namespace/embed_model/"
                    "llm to build one, not both; use coordinator.for_namespace(...) for "
                    "another namespace of the same store."
                )
            return cls(coordinator=coordinator, **fields)
        chosen_embed = embed_model or _from_settings("embed_model")
        chosen_llm = llm or _from_settings("llm")
        memory = MemoryCoordinator(
            db,
            namespace=namespace,
            embedder=LlamaIndexEmbedding(chosen_embed) if chosen_embed is not None else None,
            summarizer=LlamaIndexSummarizer(chosen_llm) if chosen_llm is not None else None,
        )
        return cls(coordinator=memory, **fields)

    # ------------------------------------------------------------------ get
    async def _aget(
        self,
        messages: list[ChatMessage] | None = None,
        session_id: str | None = None,
        **block_kwargs: Any,
    ) -> str:
        messages = messages or []
        sections: list[str] = []
        if self.include_core:
            blocks = await self.coordinator.acore_blocks()
            if blocks:
                sections.append("\n".join([CORE_HEADING, *map(_core_line, blocks)]))
        query = _query_text(messages, self.query_window)
        if query:
            # Recall before writing this turn: the user's words must not come back as a
            # "memory" of themselves.
            results = await self._recall(query, session_id, seen=messages)
            if results:
                sections.append("\n".join([RECALLED_HEADING, *map(_recalled_line, results)]))
        if self.store_new_messages and messages:
            await self._write(messages, session_id)
        return "\n\n".join(sections)

    async def _recall(
        self, query: str, session_id: str | None, *, seen: Sequence[ChatMessage]
    ) -> list[RecallResult]:
        options: dict[str, Any] = {
            "layers": self._recall_layers(),
            "min_score": self.min_score,
            "context": self.context,
        }
        if self.recall_scope == "all" or session_id is None:
            found = await self.coordinator.arecall(query, limit=self.k * 2, **options)
        else:
            mine = await self.coordinator.arecall(
                query, limit=self.k * 2, where={"session_id": session_id}, **options
            )
            # Memories tied to no session (tools, the application) are shared by all.
            shared = [
                result
                for result in await self.coordinator.arecall(query, limit=self.k * 4, **options)
                if "session_id" not in result.metadata
            ]
            found = sorted([*mine, *shared], key=lambda result: -result.score)
        # Each sentence once, and nothing the chat history already shows.
        shown = {one_line(message_text(message)).casefold() for message in seen}
        kept: list[RecallResult] = []
        for result in found:
            key = one_line(result.content).casefold()
            if key in shown:
                continue
            shown.add(key)
            kept.append(result)
        return kept[: self.k]

    def _recall_layers(self) -> list[str]:
        if self.layers is None:
            return list(SEARCHED_LAYERS)
        # Core blocks already lead the text; recalling them again would repeat them.
        chosen = [layer for layer in self.layers if not (self.include_core and layer == "core")]
        return chosen or list(self.layers)

    # ------------------------------------------------------------------ put
    async def _aput(self, messages: list[ChatMessage]) -> None:
        by_session: dict[str | None, list[ChatMessage]] = {}
        for message in messages:
            session_id = message.additional_kwargs.get("session_id")
            key = session_id if isinstance(session_id, str) else None
            by_session.setdefault(key, []).append(message)
        for session_id, batch in by_session.items():
            await self._write(batch, session_id)

    async def _write(self, messages: Sequence[ChatMessage], session_id: str | None) -> None:
        """Write the messages worth keeping that were not written before, in one
        transaction."""
        written = await self._written_in(session_id)
        items: list[dict[str, Any]] = []
        for message in messages:
            role, text = message_role(message), message_text(message)
            if role not in self.store_roles or not text.strip():
                continue
            key = fingerprint(role, text)
            if key in written:
                continue
            if self.only_worth_remembering and role == "user" and not worth_remembering(role, text):
                continue
            metadata: dict[str, Any] = {"role": role, "fingerprint": key, "written_by": SOURCE}
            if session_id is not None:
                metadata["session_id"] = session_id
            items.append(
                {
                    "content": text,
                    # What the assistant or a tool said is a record of the conversation,
                    # not the user's fact or procedure, whatever its shape.
                    "layer": "auto" if role == "user" else "episodic",
                    "context": self.context,
                    "conversation": session_id,  # the chat store key it was told under
                    "source": SOURCE,
                    "metadata": metadata,
                }
            )
            written.add(key)
        if items:
            try:
                await self.coordinator.astore_many(items)
            except BaseException:
                written.difference_update(item["metadata"]["fingerprint"] for item in items)
                raise

    async def _written_in(self, session_id: str | None) -> set[str]:
        if session_id not in self._written:
            where: dict[str, Any] = {"written_by": SOURCE}
            if session_id is not None:
                where["session_id"] = session_id
            earlier = await self.coordinator.afind(where)
            self._written[session_id] = {
                str(result.metadata["fingerprint"])
                for result in earlier
                if "fingerprint" in result.metadata
            }
        return self._written[session_id]

    # ------------------------------------------------------------------ truncate
    async def atruncate(self, content: Any, tokens_to_truncate: int) -> str | None:
        """Drop whole entries from the end (least relevant recalled memories first, core
        blocks last) until about ``tokens_to_truncate`` tokens are gone. ``Memory`` passes
        an empty list when the block had nothing to show: there is nothing to drop."""
        if not isinstance(content, str) or not content:
            return None
        if tokens_to_truncate <= 0:
            return content
        count = self.tokenizer_fn or get_tokenizer()
        lines = content.split("\n")
        saved = 0
        while saved < tokens_to_truncate:
            entries = [i for i, line in enumerate(lines) if line.startswith(_ENTRY_PREFIXES)]
            if not entries:
                break
            saved += len(count(lines.pop(entries[-1]))) + 1
        kept = _without_empty_sections(lines)
        return "\n".join(kept) if kept else None


def _from_settings(name: Literal["embed_model", "llm"]) -> Any:
    """``Settings.embed_model`` / ``Settings.llm``, or ``None`` when LlamaIndex cannot
    provide one (its OpenAI default without the package or the API key)."""
    try:
        return getattr(Settings, name)
    except Exception as exc:
        logger.info("zenbrain: no %s from llama_index Settings (%s); going without", name, exc)
        return None


def _core_line(block: CoreBlock) -> str:
    return f"[{block.label}]: {one_line(block.content)}"


def _recalled_line(result: RecallResult) -> str:
    speaker = result.metadata.get("role")
    said = f"{speaker}: " if isinstance(speaker, str) and speaker else ""
    replaced = ", replaced by a newer memory" if result.superseded_by is not None else ""
    return f"- ({result.layer}{replaced}) {said}{one_line(result.content)}"


def _query_text(messages: list[ChatMessage], window: int) -> str:
    texts = [message_text(message) for message in messages[-window:]]
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
