"""Systems that answer a question with session ids: BM25 over whole sessions (every
session of a haystack, all its turns joined in order, one document), the baseline of session
recall@5, and zenbrain ranking conversations itself (``recall(per_conversation=1)``, each
turn stored with its session as its conversation)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime
from typing import Any

from benchmarks.locomo.data import Turn
from benchmarks.locomo.systems import BM25Retriever, Retriever, System, ZenbrainRetriever

__all__ = ["SESSION_SYSTEMS", "ConversationRetriever", "SessionBM25Retriever", "session_system"]

#: Each ranks sessions; ``zenbrain-*-sessions`` is the zenbrain system without the suffix.
SESSION_SYSTEMS: tuple[str, ...] = (
    "bm25-sessions",
    "zenbrain-lexical-sessions",
    "zenbrain-lexical-routed-sessions",
)


class SessionBM25Retriever:
    """BM25 (the ``bm25`` system's bm25s, Snowball-stemmed) over one document per session."""

    def __init__(self) -> None:
        self._inner = BM25Retriever()

    def index(self, turns: Sequence[Turn]) -> None:
        texts: dict[str, list[str]] = {}
        when: dict[str, datetime] = {}
        for turn in turns:
            texts.setdefault(str(turn.session), []).append(turn.text)
            when.setdefault(str(turn.session), turn.session_datetime)
        documents = [
            Turn(
                dia_id=session,
                session=int(session),
                speaker="",
                text="\n".join(parts),
                session_datetime=when[session],
            )
            for session, parts in texts.items()
        ]
        self._inner.index(documents)

    def search(self, query: str, k: int) -> list[str]:
        return self._inner.search(query, k)

    def close(self) -> None:
        self._inner.close()


class ConversationRetriever:
    """A zenbrain retriever answering with the sessions its recall ranks as conversations."""

    def __init__(self, inner: ZenbrainRetriever) -> None:
        self._inner = inner

    def index(self, turns: Sequence[Turn]) -> None:
        self._inner.index(turns)

    def search(self, query: str, k: int) -> list[str]:
        return self._inner.search_conversations(query, k)

    def close(self) -> None:
        self._inner.close()


def session_system(name: str, make: Callable[[str], System]) -> System:
    """``name`` (one of :data:`SESSION_SYSTEMS`); ``make`` builds a turn system by name."""
    if name == "bm25-sessions":
        return System(name, lambda _ns: SessionBM25Retriever())
    turns = make(name.removesuffix("-sessions"))

    def open_retriever(namespace: str) -> Retriever:
        inner: Any = turns.retriever(namespace)
        return ConversationRetriever(inner)

    return System(name, open_retriever, cleanup=turns.close)
