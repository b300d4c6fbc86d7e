"""What the scale benchmark measures: zenbrain on SQLite and PostgreSQL, and the peers.

Each ``measure_*`` function loads the first ``size`` memories of a corpus into a fresh store,
then times single stores and recalls, and returns one :class:`Measurement`. Warm-up calls
are made and discarded before anything is timed; latencies are kept per call so the report
can take medians and 95th percentiles.
"""

from __future__ import annotations

import asyncio
import contextlib
import re
import shutil
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from tqdm import tqdm

from benchmarks.common.synthetic_corpus import Corpus, LookupEmbedder
from zenbrain import MemoryCoordinator

__all__ = [
    "Latencies",
    "Measurement",
    "RunSettings",
    "measure_langgraph",
    "measure_llamaindex",
    "measure_numpy",
    "measure_zenbrain",
    "prefilter_recall",
    "recall_process_rss",
]

NAMESPACE = "bench"
PEER_WARMUP = 3  # the in-memory peers have no cache to warm; their recalls take seconds
BULK_MAINTENANCE_MEMORY = "2GB"  # the HNSW graph of 1M 384-d vectors fits (docs/postgres.md)


@dataclass
class Latencies:
    """Per-call wall times in seconds (warm-up excluded), and the CPU time the process spent
    over those calls (every thread of it; None where not measured)."""

    samples: list[float] = field(default_factory=list)
    cpu_seconds: float | None = None

    @property
    def count(self) -> int:
        return len(self.samples)

    def percentile_ms(self, q: float) -> float | None:
        return float(np.percentile(self.samples, q) * 1000) if self.samples else None

    @property
    def p50_ms(self) -> float | None:
        return self.percentile_ms(50)

    @property
    def p95_ms(self) -> float | None:
        return self.percentile_ms(95)

    @property
    def cpu_ms_per_call(self) -> float | None:
        """Mean CPU time per call: above the wall time when other threads work (or spin)."""
        if self.cpu_seconds is None or not self.samples:
            return None
        return self.cpu_seconds / len(self.samples) * 1000


@dataclass
class RunSettings:
    """How much is timed per measurement."""

    batch_size: int = 1000
    single_stores: int = 200
    queries: int = 200
    warmup: int = 20
    limit: int = 10
    peer_budget_s: float = 20.0  # stop timing a slow peer's recalls after this, keeping >= 10
    progress: bool = True


@dataclass
class Measurement:
    """One system at one size."""

    # zenbrain, langgraph, llamaindex, numpy...; "zenbrain@<variant>" for zenbrain measured
    # another way beside its defaults (supersession=False, or an older commit's code).
    system: str
    backend: str  # sqlite, postgres, memory
    mode: str  # lexical, hybrid, vector
    size: int
    load_seconds: float | None = None
    batch_rate: float | None = None  # memories per second through the batch path
    # Memories per second of each batch of the load, in order: the rate as the store fills.
    batch_rates: list[float] = field(default_factory=list)
    single: Latencies = field(default_factory=Latencies)
    recall: Latencies = field(default_factory=Latencies)
    recall_after_store: Latencies = field(default_factory=Latencies)
    bytes_on_disk: int | None = None
    memories_stored: int | None = None  # the loaded ones plus the single stores
    notes: list[str] = field(default_factory=list)
    mismatches: int = 0  # recalls that returned fewer results than asked
    # Peak resident memory the measurement added to its (forked) process: the store, its
    # caches and indexes, on top of the corpus every system shares.
    rss_growth_bytes: int | None = None
    # zenbrain only: peak RSS of a fresh process that opens the store and recalls.
    recall_process_rss_bytes: int | None = None
    vector_bytes: int | None = None  # n × dimension × 4: the float32 vectors' size
    # zenbrain SQLite hybrid only: share of the exact top-10 (by float32 cosine over every
    # row of a scope) that the vector index returned, over scopes searched via int8.
    prefilter_recall_at_10: float | None = None

    @property
    def label(self) -> str:
        if self.system == "zenbrain":
            return f"zenbrain {self.backend} {self.mode}"
        if self.system.startswith("zenbrain@"):
            return f"zenbrain {self.backend} {self.mode}, {self.system.partition('@')[2]}"
        return {
            "langgraph": "LangGraph InMemoryStore",
            "llamaindex": "LlamaIndex VectorMemoryBlock",
            "numpy": "numpy dot product (floor)",
            "fts5": "SQLite FTS5 bm25() (floor)",
            "bm25s": "bm25s (floor)",
            "chroma": "ChromaDB (HNSW)",
            "mem0": "mem0 (infer=False, qdrant local)",
        }.get(self.system, self.system)

    @property
    def single_rate(self) -> float | None:
        p50 = self.single.p50_ms
        return 1000.0 / p50 if p50 else None

    @property
    def bytes_per_memory(self) -> float | None:
        count = self.memories_stored or self.size
        return self.bytes_on_disk / count if self.bytes_on_disk and count else None

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Measurement:
        values = dict(data)
        for key in ("single", "recall", "recall_after_store"):
            values[key] = Latencies(**values.get(key, {"samples": []}))
        return cls(**values)


def _bar(total: int, label: str, settings: RunSettings) -> tqdm:
    return tqdm(total=total, desc=label, unit="mem", leave=False, disable=not settings.progress)


def _load_in_batches(
    size: int, settings: RunSettings, label: str, load: Callable[[int, int], object]
) -> list[float]:
    """Call ``load(begin, end)`` for each batch of the first ``size`` memories; the
    memories per second of each batch, in order (how the rate moves as the store fills)."""
    rates: list[float] = []
    with _bar(size, label, settings) as bar:
        for begin in range(0, size, settings.batch_size):
            end = min(size, begin + settings.batch_size)
            tick = time.perf_counter()
            load(begin, end)
            rates.append((end - begin) / max(time.perf_counter() - tick, 1e-9))
            bar.update(end - begin)
    return rates


def _timed_queries(
    queries: Sequence[str],
    settings: RunSettings,
    call: Callable[[str], int],
    *,
    budget_s: float | None = None,
) -> tuple[Latencies, int]:
    """Time ``call(query)`` per query after ``settings.warmup`` untimed calls; ``call``
    returns how many results it got. Stops early when ``budget_s`` is spent (>= 10 timed)."""
    warm = min(settings.warmup if budget_s is None else PEER_WARMUP, max(1, len(queries) // 10))
    for query in queries[:warm]:
        call(query)
    latencies = Latencies()
    short = 0
    spent = 0.0
    cpu_start = time.process_time()  # the whole process: worker threads count too
    for query in queries[warm : warm + settings.queries]:
        start = time.perf_counter()
        got = call(query)
        elapsed = time.perf_counter() - start
        latencies.samples.append(elapsed)
        short += got < settings.limit
        spent += elapsed
        if budget_s is not None and spent > budget_s and latencies.count >= 10:
            break
    latencies.cpu_seconds = time.process_time() - cpu_start
    return latencies, short


# --------------------------------------------------------------------------- zenbrain
@contextlib.contextmanager
def _sqlite_location() -> Iterator[tuple[str, Callable[[], int]]]:
    folder = Path(tempfile.mkdtemp(prefix="zb-scale-"))
    path = folder / "memory.db"

    def size() -> int:
        return sum(p.stat().st_size for p in folder.iterdir() if p.name.startswith("memory.db"))

    try:
        yield str(path), size
    finally:
        shutil.rmtree(folder, ignore_errors=True)


@contextlib.contextmanager
def _postgres_location(server_url: str) -> Iterator[tuple[str, Callable[[], int]]]:
    from sqlalchemy import create_engine, text

    from zenbrain.testing.postgres import fresh_database

    with fresh_database(server_url, prefix="zb_scale") as url:

        def size() -> int:
            engine = create_engine(url)
            try:
                with engine.connect() as conn:
                    return int(
                        conn.execute(
                            text(
                                "SELECT coalesce(sum(pg_total_relation_size(oid)), 0) "
                                "FROM pg_class WHERE relkind = 'r' "
                                "AND relnamespace = 'public'::regnamespace"
                            )
                        ).scalar_one()
                    )
            finally:
                engine.dispose()

        yield url, size


def prefilter_recall(
    coordinator: MemoryCoordinator, queries: np.ndarray, k: int = 10
) -> float | None:
    """Share of the exact top ``k`` (float32 cosine over every row of a scope, ties
    counted as hits) that the SQLite vector index returns, over the scopes large enough to
    be searched through their int8 copy; ``None`` when no scope is."""
    from sqlalchemy import select

    from zenbrain._storage.schema import vectors
    from zenbrain._storage.sqlite.vectors import SqliteVectorIndex

    index = coordinator.database.vectors
    if not isinstance(index, SqliteVectorIndex):
        return None
    hits = total = 0
    with coordinator.database.engine.connect() as conn:
        layers = conn.execute(
            select(vectors.c.layer).where(vectors.c.namespace == NAMESPACE).distinct()
        ).scalars()
        for layer in list(layers):
            rows = conn.execute(
                select(vectors.c.vector).where(
                    vectors.c.namespace == NAMESPACE, vectors.c.layer == layer
                )
            ).scalars()
            blobs = list(rows)
            if len(blobs) < index.prefilter_min_rows:
                continue
            matrix = np.frombuffer(b"".join(blobs), dtype=np.float32).reshape(len(blobs), -1)
            del blobs
            for query in queries:
                sims = matrix @ query
                kth = float(np.partition(sims, len(sims) - k)[len(sims) - k])
                got = index.nearest(conn, NAMESPACE, layer, query, None, k)
                hits += min(k, sum(score >= kth - 1e-6 for _, score in got))
                total += k
    return hits / total if total else None


def recall_process_rss(
    db: str, corpus: Corpus, settings: RunSettings, *, hybrid: bool
) -> int | None:
    """Peak RSS of a fresh Python process that opens the store and recalls (see
    :mod:`benchmarks.scale.probe`)."""
    import json
    import os
    import subprocess
    import sys

    import zenbrain

    queries = corpus.queries[: settings.queries]
    with tempfile.TemporaryDirectory(prefix="zb-probe-") as folder:
        spec = Path(folder) / "queries.npz"
        np.savez(
            spec,
            texts=np.array(queries, dtype=str),
            vectors=corpus.query_vectors[: len(queries)],
        )
        command = [sys.executable, "-m", "benchmarks.scale.probe", db, str(spec)]
        if hybrid:
            command.append("--hybrid")
        done = subprocess.run(
            command,
            capture_output=True,
            text=True,
            timeout=1800,
            cwd=Path(zenbrain.__file__).parent.parent,  # this zenbrain, not another tree's
            env={**os.environ, "OPENBLAS_NUM_THREADS": "1"},
        )
    if done.returncode != 0:
        return None
    return int(json.loads(done.stdout.strip().splitlines()[-1])["peak_rss_bytes"])


@contextlib.contextmanager
def _bulk_load(coordinator: MemoryCoordinator, backend: str, hybrid: bool) -> Iterator[None]:
    """PostgreSQL's bulk import path for a hybrid load: the HNSW index is built once after
    the load (with parallel maintenance workers) instead of row by row; its build time is
    part of the load time."""
    if backend != "postgres" or not hybrid:
        yield
        return
    with coordinator.bulk_load(parallel_workers=2, maintenance_work_mem=BULK_MAINTENANCE_MEMORY):
        yield


def measure_zenbrain(
    corpus: Corpus,
    size: int,
    *,
    backend: str,
    hybrid: bool,
    settings: RunSettings,
    server_url: str | None = None,
    profile_hook: Callable[[MemoryCoordinator, Corpus], None] | None = None,
    supersession: bool = True,
) -> Measurement:
    """Load ``size`` memories with ``store_many`` in batches (no ``layer=``: routing files
    them, as an agent's store), then time single ``store`` calls, ``recall`` calls, and
    recalls made right after a store. ``supersession=False`` opens the store with the
    knowledge-update rules off (the defaults have them on)."""
    mode = "hybrid" if hybrid else "lexical"
    result = Measurement("zenbrain", backend, mode, size)
    if backend == "sqlite":
        location = _sqlite_location()
    elif backend == "postgres":
        if server_url is None:
            raise ValueError("the postgres back end needs a server URL")
        location = _postgres_location(server_url)
    else:
        raise ValueError(f"unknown back end {backend!r}")
    embedder: LookupEmbedder | None = corpus.embedder() if hybrid else None
    # Only when off: the code of an older commit (a baseline row) has no such argument.
    options: dict[str, Any] = {} if supersession else {"supersession": False}
    with location as (db, disk_size):
        coordinator = MemoryCoordinator(db, namespace=NAMESPACE, embedder=embedder, **options)
        try:
            start = time.perf_counter()
            with _bulk_load(coordinator, backend, hybrid):
                result.batch_rates = _load_in_batches(
                    size,
                    settings,
                    f"zenbrain {backend} {mode} {size:,}",
                    lambda begin, end: coordinator.store_many(corpus.memories[begin:end]),
                )
            result.load_seconds = time.perf_counter() - start
            if backend == "postgres" and hybrid:
                result.notes.append(
                    "loaded inside bulk_load() (HNSW built after the load, "
                    f"maintenance_work_mem={BULK_MAINTENANCE_MEMORY})"
                )
            result.batch_rate = size / result.load_seconds

            def recall(query: str) -> int:
                return len(coordinator.recall(query, limit=settings.limit))

            result.recall, result.mismatches = _timed_queries(corpus.queries, settings, recall)
            extra = corpus.extra[: settings.single_stores + settings.warmup]
            for text in extra[: settings.warmup]:
                coordinator.store(text)
            queries = corpus.queries
            spent = 0.0
            for i, text in enumerate(extra[settings.warmup :]):
                tick = time.perf_counter()
                coordinator.store(text)
                result.single.samples.append(time.perf_counter() - tick)
                if spent > settings.peer_budget_s and result.recall_after_store.count >= 10:
                    continue
                # An agent stores and recalls turn by turn: time the recall after a write.
                tick = time.perf_counter()
                coordinator.recall(queries[i % len(queries)], limit=settings.limit)
                elapsed = time.perf_counter() - tick
                result.recall_after_store.samples.append(elapsed)
                spent += elapsed
            result.memories_stored = size + len(extra)
            if embedder is not None and embedder.misses > len(extra) // 2:
                result.notes.append(f"{embedder.misses} texts embedded outside the table")
        finally:
            coordinator.close()
        result.bytes_on_disk = disk_size()
        result.vector_bytes = size * corpus.projection.dimension * 4 if hybrid else None
        if backend == "sqlite":
            result.recall_process_rss_bytes = recall_process_rss(
                db, corpus, settings, hybrid=hybrid
            )
            if hybrid:
                with MemoryCoordinator(db, namespace=NAMESPACE, embedder=embedder) as reopened:
                    try:
                        result.prefilter_recall_at_10 = prefilter_recall(
                            reopened, corpus.query_vectors[: min(100, settings.queries)]
                        )
                    except ImportError as exc:  # an older commit's modules (a baseline row)
                        result.notes.append(f"int8 pre-filter recall not measured: {exc}")
        if profile_hook is not None:
            # Profiled after the disk size was taken: profiling stores more memories.
            with MemoryCoordinator(db, namespace=NAMESPACE, embedder=embedder) as reopened:
                profile_hook(reopened, corpus)
    return result


# --------------------------------------------------------------------------- peers
def measure_numpy(corpus: Corpus, size: int, *, settings: RunSettings) -> Measurement:
    """The floor: one matrix-vector product over the same unit vectors, then the top k."""
    result = Measurement("numpy", "memory", "vector", size)
    matrix = np.ascontiguousarray(corpus.memory_vectors[:size])
    embedder = corpus.embedder()

    def recall(query: str) -> int:
        sims = matrix @ embedder.vector(query)
        k = min(settings.limit, size)
        top = np.argpartition(-sims, k - 1)[:k]
        return len(top[np.argsort(-sims[top])])

    result.recall, result.mismatches = _timed_queries(corpus.queries, settings, recall)
    return result


def measure_langgraph(corpus: Corpus, size: int, *, settings: RunSettings) -> Measurement:
    """LangGraph's ``InMemoryStore`` with a vector index over the ``text`` field."""
    from langgraph.store.base import PutOp
    from langgraph.store.memory import InMemoryStore

    embedder = corpus.embedder()

    def embed(texts: Sequence[str]) -> list[list[float]]:
        # Plain lists of floats: what LangChain embedding models return to the store.
        return [embedder.vector(t).tolist() for t in texts]

    store = InMemoryStore(index={"dims": embedder.dimension, "embed": embed, "fields": ["text"]})
    namespace = (NAMESPACE,)
    result = Measurement("langgraph", "memory", "vector", size)

    def load(begin: int, end: int) -> None:
        chunk = corpus.memories[begin:end]
        store.batch([PutOp(namespace, f"m{begin + i}", {"text": t}) for i, t in enumerate(chunk)])

    start = time.perf_counter()
    result.batch_rates = _load_in_batches(size, settings, f"langgraph {size:,}", load)
    result.load_seconds = time.perf_counter() - start
    result.batch_rate = size / result.load_seconds

    def recall(query: str) -> int:
        return len(store.search(namespace, query=query, limit=settings.limit))

    result.recall, result.mismatches = _timed_queries(
        corpus.queries, settings, recall, budget_s=settings.peer_budget_s
    )
    for i, text in enumerate(corpus.extra[: settings.single_stores]):
        tick = time.perf_counter()
        store.put(namespace, f"x{i}", {"text": text})
        result.single.samples.append(time.perf_counter() - tick)
    return result


_MESSAGE_WRAPPER = re.compile(r"^<message role='[a-z]+'>(.*)</message>$", re.DOTALL)


def _llama_embedding_class(embedder: LookupEmbedder) -> Any:
    from llama_index.core.base.embeddings.base import BaseEmbedding

    def lookup(text: str) -> list[float]:
        # VectorMemoryBlock wraps each stored message in <message role='...'>...</message>.
        found = _MESSAGE_WRAPPER.match(text)
        return embedder.vector(found.group(1) if found else text).tolist()

    class LookupLlamaEmbedding(BaseEmbedding):
        def _get_query_embedding(self, query: str) -> list[float]:
            return lookup(query)

        async def _aget_query_embedding(self, query: str) -> list[float]:
            return lookup(query)

        def _get_text_embedding(self, text: str) -> list[float]:
            return lookup(text)

    return LookupLlamaEmbedding(model_name=embedder.model_id)


def _text_keeping_store() -> Any:
    """LlamaIndex's ``SimpleVectorStore``, plus the node texts ``VectorMemoryBlock`` needs.

    The block refuses a store that does not keep text, and ``SimpleVectorStore`` keeps only
    vectors and ids; this subclass keeps each node in a dict and attaches the top-k nodes
    to the query result. Search itself is ``SimpleVectorStore.query``, unchanged.
    """
    from llama_index.core.bridge.pydantic import PrivateAttr
    from llama_index.core.schema import BaseNode
    from llama_index.core.vector_stores import SimpleVectorStore
    from llama_index.core.vector_stores.types import VectorStoreQuery, VectorStoreQueryResult

    class TextKeepingSimpleVectorStore(SimpleVectorStore):
        stores_text: bool = True
        _nodes: dict[str, BaseNode] = PrivateAttr(default_factory=dict)

        def add(self, nodes: Sequence[BaseNode], **add_kwargs: Any) -> list[str]:
            ids = super().add(nodes, **add_kwargs)
            self._nodes.update((node.node_id, node) for node in nodes)
            return ids

        def query(self, query: VectorStoreQuery, **kwargs: Any) -> VectorStoreQueryResult:
            found = super().query(query, **kwargs)
            found.nodes = [self._nodes[i] for i in found.ids or []]
            return found

    return TextKeepingSimpleVectorStore()


def measure_llamaindex(corpus: Corpus, size: int, *, settings: RunSettings) -> Measurement:
    """LlamaIndex's ``VectorMemoryBlock`` over its ``SimpleVectorStore``."""
    return asyncio.run(_measure_llamaindex(corpus, size, settings))


async def _measure_llamaindex(corpus: Corpus, size: int, settings: RunSettings) -> Measurement:
    from llama_index.core.base.llms.types import ChatMessage
    from llama_index.core.memory import VectorMemoryBlock
    from llama_index.core.schema import TextNode

    embed_model = _llama_embedding_class(corpus.embedder())
    block = VectorMemoryBlock(
        vector_store=_text_keeping_store(),
        embed_model=embed_model,
        similarity_top_k=settings.limit,
    )
    result = Measurement("llamaindex", "memory", "vector", size)

    def load(begin: int, end: int) -> None:
        # The block's own put joins a batch of messages into one node; a bulk load adds one
        # node per memory, shaped as the block shapes them, straight to its vector store.
        wrapped = [f"<message role='user'>{t}</message>" for t in corpus.memories[begin:end]]
        vectors = embed_model.get_text_embedding_batch(wrapped)
        nodes = [
            TextNode(text=w, embedding=v, metadata={"session_id": None})
            for w, v in zip(wrapped, vectors, strict=True)
        ]
        block.vector_store.add(nodes)

    start = time.perf_counter()
    result.batch_rates = _load_in_batches(size, settings, f"llamaindex {size:,}", load)
    result.load_seconds = time.perf_counter() - start
    result.batch_rate = size / result.load_seconds

    queries = corpus.queries
    warm = min(PEER_WARMUP, max(1, len(queries) // 10))
    for query in queries[:warm]:
        await block.aget(messages=[ChatMessage(role="user", content=query)])
    spent = 0.0
    for query in queries[warm : warm + settings.queries]:
        tick = time.perf_counter()
        text = await block.aget(messages=[ChatMessage(role="user", content=query)])
        elapsed = time.perf_counter() - tick
        result.recall.samples.append(elapsed)
        result.mismatches += text.count("<message role=") < min(settings.limit, size)
        spent += elapsed
        if spent > settings.peer_budget_s and result.recall.count >= 10:
            break
    for text in corpus.extra[: settings.single_stores]:
        tick = time.perf_counter()
        await block.aput([ChatMessage(role="user", content=text)])
        result.single.samples.append(time.perf_counter() - tick)
    return result
