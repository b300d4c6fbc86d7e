"""BM25 over whole sessions: every session of a haystack (all its turns joined, in order)
one document, so a question is answered with session ids. The baseline of session
recall@5 (a memory system's turns ranked by session, each session at its best turn)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from benchmarks.locomo.data import Turn
from benchmarks.locomo.systems import BM25Retriever, System

__all__ = ["SessionBM25Retriever", "session_system"]


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


def session_system(name: str) -> System:
    return System(name, lambda _ns: SessionBM25Retriever())
