"""More peers for the scale benchmark, each fed the same texts and vectors as zenbrain:
ChromaDB (HNSW, on disk), mem0 (``infer=False``, qdrant in local mode) and the lexical
floors, SQLite FTS5's ``bm25()`` queried directly and bm25s.

Each ``measure_*`` returns a :class:`~benchmarks.scale.systems.Measurement` like those of
:mod:`benchmarks.scale.systems`. The peers are optional benchmark dependencies
(``benchmarks/scale/requirements.txt``); one that is not installed is skipped by the runner
with a note.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import sqlite3
import tempfile
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from benchmarks.common.synthetic_corpus import Corpus
from benchmarks.scale.systems import (
    Measurement,
    RunSettings,
    _bar,
    _load_in_batches,
    _timed_queries,
)
from zenbrain.text import tokenize

__all__ = [
    "available",
    "insert_fts5",
    "measure_bm25s",
    "measure_chroma",
    "measure_fts5",
    "measure_mem0",
    "open_chroma",
    "open_fts5",
    "search_fts5",
]


@contextmanager
def _folder(prefix: str) -> Iterator[Path]:
    folder = Path(tempfile.mkdtemp(prefix=prefix))
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _disk(folder: Path) -> int:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())


def _fts_query(text: str) -> str:
    """The query's terms, OR-ed: what an application would pass to ``MATCH``."""
    return " OR ".join(f'"{t}"' for t in dict.fromkeys(tokenize(text)))


# --------------------------------------------------------------------------- FTS5 floor
def open_fts5(path: Path) -> sqlite3.Connection:
    """A new SQLite file at ``path`` (autocommit mode, WAL, ``synchronous = NORMAL``) holding
    the bare FTS5 table ``docs(body)``."""
    db = sqlite3.connect(path, isolation_level=None)
    db.execute("PRAGMA journal_mode = WAL")
    db.execute("PRAGMA synchronous = NORMAL")
    db.execute("CREATE VIRTUAL TABLE docs USING fts5(body)")
    return db


def search_fts5(db: sqlite3.Connection, query: str, limit: int) -> int:
    """How many of ``docs`` a ``MATCH`` of ``query``'s terms ranks ``ORDER BY bm25()`` up to
    ``limit`` (0 for a query without terms)."""
    match = _fts_query(query)
    if not match:
        return 0
    rows = db.execute(
        "SELECT rowid, body FROM docs WHERE docs MATCH ? ORDER BY bm25(docs) LIMIT ?",
        (match, limit),
    ).fetchall()
    return len(rows)


def insert_fts5(db: sqlite3.Connection, texts: Sequence[str], batch_size: int) -> float:
    """Insert ``texts`` into the FTS5 table ``docs`` of ``db`` (autocommit mode), one
    transaction per batch; returns the seconds taken."""
    start = time.perf_counter()
    for begin in range(0, len(texts), batch_size):
        db.execute("BEGIN")
        db.executemany(
            "INSERT INTO docs(body) VALUES (?)", [(t,) for t in texts[begin : begin + batch_size]]
        )
        db.execute("COMMIT")
    return time.perf_counter() - start


def measure_fts5(corpus: Corpus, size: int, *, settings: RunSettings) -> Measurement:
    """A bare FTS5 table of the texts (unicode61 tokenizer), one transaction per batch, and
    ``ORDER BY bm25()`` queries: the floor of any SQLite lexical search."""
    result = Measurement("fts5", "sqlite", "lexical", size)
    with _folder("zb-fts5-") as folder:
        db = open_fts5(folder / "fts.db")
        start = time.perf_counter()
        result.batch_rates = _load_in_batches(
            size,
            settings,
            f"fts5 {size:,}",
            lambda begin, end: insert_fts5(db, corpus.memories[begin:end], end - begin),
        )
        result.load_seconds = time.perf_counter() - start
        result.batch_rate = size / result.load_seconds

        def recall(query: str) -> int:
            return search_fts5(db, query, settings.limit)

        result.recall, result.mismatches = _timed_queries(corpus.queries, settings, recall)
        for text in corpus.extra[: settings.single_stores]:
            tick = time.perf_counter()
            db.execute("INSERT INTO docs(body) VALUES (?)", (text,))
            result.single.samples.append(time.perf_counter() - tick)
        db.close()
        result.bytes_on_disk = _disk(folder)
    return result


# --------------------------------------------------------------------------- bm25s floor
def measure_bm25s(corpus: Corpus, size: int, *, settings: RunSettings) -> Measurement:
    """bm25s (sparse BM25 in numpy/scipy), indexed once over the texts; it has no
    incremental insert, so there are no single-store timings."""
    import bm25s

    result = Measurement("bm25s", "memory", "lexical", size)
    texts = corpus.memories[:size]
    start = time.perf_counter()
    retriever = bm25s.BM25()
    retriever.index(bm25s.tokenize(texts, show_progress=False), show_progress=False)
    result.load_seconds = time.perf_counter() - start
    result.batch_rate = size / result.load_seconds

    def recall(query: str) -> int:
        tokens = bm25s.tokenize([query], show_progress=False)
        if not tokens.ids or not tokens.ids[0]:
            return 0
        k = min(settings.limit, size)
        docs, _ = retriever.retrieve(tokens, k=k, show_progress=False, n_threads=1)
        return int(docs.shape[1])

    result.recall, result.mismatches = _timed_queries(corpus.queries, settings, recall)
    result.notes.append("indexed in one batch (bm25s has no incremental insert)")
    return result


# --------------------------------------------------------------------------- ChromaDB
def open_chroma(folder: Path) -> Any:
    """A new collection ``bench`` (HNSW, cosine, no embedding function: it is given vectors)
    of ChromaDB's embedded ``PersistentClient`` in ``folder``, telemetry off."""
    import chromadb
    from chromadb.config import Settings

    client = chromadb.PersistentClient(
        path=str(folder), settings=Settings(anonymized_telemetry=False)
    )
    return client.create_collection(
        "bench", metadata={"hnsw:space": "cosine"}, embedding_function=None
    )


def measure_chroma(corpus: Corpus, size: int, *, settings: RunSettings) -> Measurement:
    """ChromaDB's embedded ``PersistentClient`` (HNSW, cosine), given the same vectors."""
    result = Measurement("chroma", "disk", "vector", size)
    with _folder("zb-chroma-") as folder:
        collection = open_chroma(folder)

        def load(begin: int, end: int) -> None:
            collection.add(
                ids=[f"m{i}" for i in range(begin, end)],
                embeddings=corpus.memory_vectors[begin:end],
                documents=corpus.memories[begin:end],
            )

        start = time.perf_counter()
        result.batch_rates = _load_in_batches(size, settings, f"chroma {size:,}", load)
        result.load_seconds = time.perf_counter() - start
        result.batch_rate = size / result.load_seconds
        table = corpus.table

        def recall(query: str) -> int:
            found = collection.query(
                query_embeddings=[table[query]], n_results=min(settings.limit, size)
            )
            return len(found["ids"][0])

        result.recall, result.mismatches = _timed_queries(corpus.queries, settings, recall)
        for i, text in enumerate(corpus.extra[: settings.single_stores]):
            tick = time.perf_counter()
            collection.add(ids=[f"x{i}"], embeddings=[table[text]], documents=[text])
            result.single.samples.append(time.perf_counter() - tick)
        result.bytes_on_disk = _disk(folder)
    return result


# --------------------------------------------------------------------------- mem0
class _LookupMem0Embedder:
    """Stands in for mem0's embedder: the corpus's precomputed vectors."""

    def __init__(self, corpus: Corpus) -> None:
        self.embedder = corpus.embedder()

    def embed(self, text: str, memory_action: Any = None) -> list[float]:
        return [float(x) for x in self.embedder.vector(text)]


def measure_mem0(corpus: Corpus, size: int, *, settings: RunSettings) -> Measurement:
    """mem0's ``Memory`` with ``infer=False`` (no LLM: each text stored as given), qdrant in
    local (embedded) mode on disk, and the corpus's vectors as its embedder. mem0 adds one
    memory per call, so the load goes through ``add`` one text at a time."""
    os.environ.setdefault("MEM0_TELEMETRY", "False")
    # mem0 builds its (unused, with infer=False) OpenAI client at start-up; it never calls it.
    os.environ.setdefault("OPENAI_API_KEY", "unused-by-the-benchmark")
    from mem0 import Memory

    result = Measurement("mem0", "disk", "vector", size)
    with _folder("zb-mem0-") as folder:
        memory = Memory.from_config(
            {
                "vector_store": {
                    "provider": "qdrant",
                    "config": {
                        "collection_name": "bench",
                        "embedding_model_dims": corpus.projection.dimension,
                        "path": str(folder / "qdrant"),
                        "on_disk": True,
                    },
                },
                "history_db_path": str(folder / "history.db"),
            }
        )
        memory.embedding_model = _LookupMem0Embedder(corpus)
        bar = _bar(size, f"mem0 {size:,}", settings)
        start = time.perf_counter()
        for text in corpus.memories[:size]:
            memory.add(text, user_id="bench", infer=False)
            bar.update(1)
        result.load_seconds = time.perf_counter() - start
        result.batch_rate = size / result.load_seconds
        bar.close()

        def recall(query: str) -> int:
            found = memory.search(query, top_k=settings.limit, filters={"user_id": "bench"})
            return len(found.get("results", []))

        result.recall, result.mismatches = _timed_queries(
            corpus.queries, settings, recall, budget_s=settings.peer_budget_s
        )
        for text in corpus.extra[: settings.single_stores]:
            tick = time.perf_counter()
            memory.add(text, user_id="bench", infer=False)
            result.single.samples.append(time.perf_counter() - tick)
        result.bytes_on_disk = _disk(folder)
        result.notes.append("loaded one add() at a time (mem0 has no batch add)")
    return result


def available(peer: str) -> str | None:
    """``None`` when ``peer`` can run here, else why not."""
    module = {"chroma": "chromadb", "mem0": "mem0", "bm25s": "bm25s"}.get(peer)
    if module is None:
        return None
    # Looked up, not imported: importing would start their telemetry threads in the
    # parent, and every measurement is a fork of it.
    if importlib.util.find_spec(module) is None:
        return f"{peer} is not installed; pip install -r benchmarks/scale/requirements.txt"
    return None
