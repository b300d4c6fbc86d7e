"""``ZenBrainMemoryMiddleware``: long-term memory for ``langchain.agents.create_agent``.

Before each model call it recalls what zenbrain knows that is relevant to the user's latest
message and adds it to the system message; after each model call it stores the user's new
messages that are worth remembering (by default the core rule
:func:`zenbrain.layers.worth_remembering`: statements, preferences, standing
instructions; not questions or small talk). Whose memory it is comes from the runtime
context (``agent.invoke(..., context={"user_id": "ada"})``).

Needs the ``langchain`` package: ``pip install 'langchain-zenbrain[agents]'``.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any, Literal

from langchain.agents.middleware import (
    AgentMiddleware,
    AgentState,
    ModelRequest,
    ModelResponse,
)
from langchain_core.messages import AIMessage, AnyMessage, HumanMessage, SystemMessage
from langgraph.runtime import Runtime

from langchain_zenbrain import namespaces
from zenbrain import MemoryCoordinator
from zenbrain.errors import InvalidInputError
from zenbrain.layers import worth_remembering
from zenbrain.types import RecallResult

__all__ = ["ZenBrainMemoryMiddleware"]

#: Where the memories this middleware stores came from (their ``source``).
SOURCE = "langchain-agent"
_MATCHES_ONLY = 1e-9


class ZenBrainMemoryMiddleware(AgentMiddleware[AgentState[Any], Any]):
    """Recall into the model call, remember after it, per user.

    ``user_key`` names the runtime-context field holding the user id (a dict key or an
    attribute of a dataclass/pydantic context); user ``ada``'s memories live in the zenbrain
    namespace ``"<coordinator namespace>.users.ada"`` (``namespace_prefix`` sets the
    ``"users"`` part), the same one ``ZenBrainStore(coordinator)`` uses for the LangGraph
    namespace ``("users", "ada")`` (``.`` and ``%`` in a user id are percent-encoded). A run
    whose context lacks the user id is refused rather than mixed into a shared memory;
    ``user_key=None`` uses the coordinator's own namespace for everyone.

    ``k``, ``layers``, ``min_score`` and ``core`` shape the recall like the retriever's
    fields (matches only; core blocks only when they share a word with the message).
    ``should_remember(role, content)`` decides which of the user's messages are stored
    (default :func:`zenbrain.layers.worth_remembering`); ``remember=False``
    makes the middleware read-only.
    """

    def __init__(
        self,
        coordinator: MemoryCoordinator,
        *,
        user_key: str | None = "user_id",
        namespace_prefix: Sequence[str] = ("users",),
        k: int = 5,
        layers: Sequence[str] | None = None,
        min_score: float = 0.0,
        core: Literal["matching", "always"] = "matching",
        remember: bool = True,
        should_remember: Callable[[str, str], bool] = worth_remembering,
        heading: str = "What you remember about the user (from earlier conversations):",
    ) -> None:
        super().__init__()
        if not isinstance(coordinator, MemoryCoordinator):
            raise InvalidInputError(
                "ZenBrainMemoryMiddleware needs a zenbrain.MemoryCoordinator, "
                f"got {type(coordinator).__name__}."
            )
        if user_key is not None and (not isinstance(user_key, str) or not user_key):
            raise InvalidInputError(f"user_key must be a field name or None, got {user_key!r}.")
        if isinstance(namespace_prefix, str):
            raise InvalidInputError(
                f"namespace_prefix must be a tuple of labels, got the string {namespace_prefix!r}."
            )
        namespaces.check_labels(list(namespace_prefix))
        if isinstance(k, bool) or not isinstance(k, int) or not 1 <= k <= 1000:
            raise InvalidInputError(f"k must be a whole number from 1 to 1000, got {k!r}.")
        if (
            isinstance(min_score, bool)
            or not isinstance(min_score, int | float)
            or not 0 <= min_score <= 1
        ):
            raise InvalidInputError(f"min_score must be a number from 0 to 1, got {min_score!r}.")
        if core not in ("matching", "always"):
            raise InvalidInputError(f"core must be 'matching' or 'always', got {core!r}.")
        if not callable(should_remember):
            raise InvalidInputError("should_remember must be a callable(role, content) -> bool.")
        self.coordinator = coordinator
        self.user_key = user_key
        self.namespace_prefix = tuple(namespace_prefix)
        self.recall_options: dict[str, Any] = {
            "limit": k,
            "layers": list(layers) if layers is not None else None,
            "min_score": max(float(min_score), _MATCHES_ONLY),
            "core": core,
        }
        self.remember = remember
        self.should_remember = should_remember
        self.heading = heading
        self._root = namespaces.root_of(coordinator.namespace)

    # ------------------------------------------------------------------ whose memory
    def memory_for(self, context: Any) -> MemoryCoordinator:
        """The coordinator holding the memories of the user named in ``context`` (a runtime
        context: mapping, dataclass or pydantic model)."""
        if self.user_key is None:
            return self.coordinator
        user = (
            context.get(self.user_key)
            if isinstance(context, Mapping)
            else getattr(context, self.user_key, None)
        )
        if not isinstance(user, str) or not user.strip():
            raise InvalidInputError(
                f"ZenBrainMemoryMiddleware needs the user id in the runtime context field "
                f"{self.user_key!r} (got {user!r}): invoke the agent with "
                f"context={{{self.user_key!r}: ...}}, or create the middleware with "
                "user_key=None to share one memory."
            )
        # Any user id works (an e-mail address too): "." and "%" are percent-encoded.
        label = user.replace("%", "%25").replace(".", "%2E")
        # The coordinator keeps one view per namespace: the user's working memory lasts.
        return self.coordinator.for_namespace(
            namespaces.under(self._root, (*self.namespace_prefix, label))
        )

    # ------------------------------------------------------------------ recall
    def wrap_model_call(
        self,
        request: ModelRequest[Any],
        handler: Callable[[ModelRequest[Any]], ModelResponse[Any]],
    ) -> ModelResponse[Any] | AIMessage:
        query = _latest_user_text(request.messages)
        if query is None:
            return handler(request)
        memory = self.memory_for(request.runtime.context)
        found = memory.recall(query, **self.recall_options)
        return handler(self._with_memories(request, found))

    async def awrap_model_call(
        self,
        request: ModelRequest[Any],
        handler: Callable[[ModelRequest[Any]], Awaitable[ModelResponse[Any]]],
    ) -> ModelResponse[Any] | AIMessage:
        query = _latest_user_text(request.messages)
        if query is None:
            return await handler(request)
        memory = self.memory_for(request.runtime.context)
        found = await memory.arecall(query, **self.recall_options)
        return await handler(self._with_memories(request, found))

    def _with_memories(
        self, request: ModelRequest[Any], found: list[RecallResult]
    ) -> ModelRequest[Any]:
        # The user's own messages of this conversation are already in the prompt.
        in_prompt = {message.id for message in request.messages if message.id}
        lines = [
            f"- {result.content}"
            for result in found
            if result.metadata.get("message_id") not in in_prompt
        ]
        if not lines:
            return request
        block = "\n".join([self.heading, *lines])
        system = request.system_message
        if system is None:
            return request.override(system_message=SystemMessage(block))
        if isinstance(system.content, str):
            content: str | list[str | dict[Any, Any]] = f"{system.content}\n\n{block}"
        else:
            content = [*system.content, {"type": "text", "text": block}]
        return request.override(system_message=SystemMessage(content=content))

    # ------------------------------------------------------------------ remember
    def after_model(self, state: AgentState[Any], runtime: Runtime[Any]) -> dict[str, Any] | None:
        items = self._to_remember(state["messages"])
        if items:
            self.memory_for(runtime.context).store_many(items)
        return None

    async def aafter_model(
        self, state: AgentState[Any], runtime: Runtime[Any]
    ) -> dict[str, Any] | None:
        items = self._to_remember(state["messages"])
        if items:
            await self.memory_for(runtime.context).astore_many(items)
        return None

    def _to_remember(self, messages: Sequence[AnyMessage]) -> list[dict[str, Any]]:
        """The user's messages the model has just answered for the first time (those after
        the AI message before the newest one) that are worth remembering."""
        if not self.remember or not messages or not isinstance(messages[-1], AIMessage):
            return []
        start = 0
        for position in range(len(messages) - 2, -1, -1):
            if isinstance(messages[position], AIMessage):
                start = position + 1
                break
        items = []
        for message in messages[start:-1]:
            if not isinstance(message, HumanMessage):
                continue
            text = message.text.strip()
            if text and self.should_remember("user", text):
                metadata = {"role": "user"}
                if message.id:
                    metadata["message_id"] = message.id
                items.append({"content": text, "source": SOURCE, "metadata": metadata})
        return items

    def __repr__(self) -> str:
        return f"ZenBrainMemoryMiddleware({self.coordinator!r}, user_key={self.user_key!r})"


def _latest_user_text(messages: Sequence[AnyMessage]) -> str | None:
    for message in reversed(messages):
        if isinstance(message, HumanMessage):
            text = message.text.strip()
            return text or None
    return None
