"""The scale benchmark's harness on tiny runs: real SQLite files (and a real PostgreSQL),
real LangGraph and LlamaIndex stores. Timings are never asserted, only that the harness
measures what it says it measures and writes only its own docs section."""

from __future__ import annotations

import copy
import random
import threading
import time
from pathlib import Path

import numpy as np
import pytest

from benchmarks.common.docs_sections import replace_section
from benchmarks.common.locomo_corpus import load_turns, make_locomo_corpus, vary
from benchmarks.common.paths import default_locomo_path
from benchmarks.common.synthetic_corpus import FUNCTION_WORDS, LookupEmbedder, make_corpus
from benchmarks.scale import harness as scale
from benchmarks.scale.__main__ import build_parser, main
from benchmarks.scale.peers import measure_bm25s, measure_fts5
from benchmarks.scale.report import (
    LOCOMO_SECTION_HEADING,
    SECTION_HEADING,
    markdown_section,
    write_docs,
)
from benchmarks.scale.results import ScaleRun, load_results, save_results
from benchmarks.scale.systems import (
    NAMESPACE,
    Latencies,
    Measurement,
    RunSettings,
    _timed_queries,
    measure_llamaindex,
    measure_zenbrain,
    prefilter_recall,
)
from benchmarks.scale.targets import check_targets, growth_exponent
from zenbrain import MemoryCoordinator
from zenbrain._storage.sqlite.vectors import SqliteVectorIndex
from zenbrain.providers import EmbeddingProvider
from zenbrain.text import tokenize

TINY = RunSettings(batch_size=64, single_stores=8, queries=12, warmup=2, progress=False)


@pytest.fixture(scope="module")
def tiny_run() -> ScaleRun:
    return scale.run_benchmark(
        sizes=[200],
        backends=["sqlite"],
        peers=["langgraph", "numpy"],
        floor_sizes=[],
        profile_size=200,
        settings=TINY,
        command="python -m benchmarks scale --sizes 200 (test)",
    )


def _one(run: ScaleRun, system: str, mode: str) -> Measurement:
    found = [m for m in run.measurements if m.system == system and m.mode == mode]
    assert len(found) == 1, [m.label for m in run.measurements]
    return found[0]


# --------------------------------------------------------------------------- corpus
def test_timed_queries_count_the_cpu_of_every_thread() -> None:
    """A call whose work runs on another thread takes CPU time beyond its own thread's."""

    def spin(seconds: float) -> None:
        end = time.thread_time() + seconds
        while time.thread_time() < end:
            pass

    def on_a_thread(query: str) -> int:
        worker = threading.Thread(target=spin, args=(0.005,))
        worker.start()
        worker.join()
        return 10

    latencies, short = _timed_queries(["q"] * 20, TINY, on_a_thread)
    assert short == 0 and latencies.count == TINY.queries
    assert latencies.cpu_ms_per_call is not None and latencies.cpu_ms_per_call >= 4.5
    assert Latencies([0.001]).cpu_ms_per_call is None  # not measured: shown as "—"


def test_corpus_is_seeded() -> None:
    small = make_corpus(40, 5, extra=3, seed=3)
    again = make_corpus(40, 5, extra=3, seed=3)
    other = make_corpus(40, 5, extra=3, seed=4)
    assert small.memories == again.memories and small.queries == again.queries
    assert np.array_equal(small.memory_vectors, again.memory_vectors)
    assert other.memories != small.memories
    assert len(set(small.memories)) == 40
    assert len(small.memories) == 40 and len(small.extra) == 3 and len(small.queries) == 5


def test_corpus_words_follow_a_zipf_like_ranking() -> None:
    corpus = make_corpus(2000, 5, seed=5)
    words = " ".join(corpus.memories).lower().replace(",", "").replace(".", "").split()
    counts: dict[str, int] = {}
    for word in words:
        counts[word] = counts.get(word, 0) + 1
    ranked = sorted(counts, key=counts.__getitem__, reverse=True)
    # The most frequent words are the function words, which the tokenizer drops.
    assert set(ranked[:5]) <= set(FUNCTION_WORDS)
    assert all(tokenize(w) == [] for w in ranked[:5])
    assert counts[ranked[0]] > 5 * counts[ranked[50]]


def test_vectors_are_unit_length_and_served_by_the_lookup_embedder() -> None:
    corpus = make_corpus(30, 4, extra=2, seed=9)
    embedder = corpus.embedder()
    assert isinstance(embedder, EmbeddingProvider)
    norms = np.linalg.norm(corpus.memory_vectors, axis=1)
    assert np.allclose(norms[norms > 0], 1.0, atol=1e-5)
    served = embedder.embed_documents(corpus.memories[:3])
    assert np.array_equal(served, corpus.memory_vectors[:3])
    assert embedder.misses == 0
    # A text outside the table is projected the same way, so shared words mean similarity.
    fresh = embedder.embed_queries([corpus.memories[0] + " zzyzx"])[0]
    assert embedder.misses == 1
    assert float(fresh @ corpus.memory_vectors[0]) > 0.8
    # The stored texts' own projection equals their precomputed vector.
    assert np.allclose(
        corpus.projection.embed_text(corpus.memories[1]), corpus.memory_vectors[1], atol=1e-5
    )


def test_lookup_embedder_returns_an_empty_matrix_for_no_texts() -> None:
    embedder: LookupEmbedder = make_corpus(5, 2, seed=1).embedder()
    assert embedder.embed_documents([]).shape == (0, embedder.dimension)


# --------------------------------------------------------------------------- a tiny run
def test_tiny_run_measures_every_system(tiny_run: ScaleRun) -> None:
    lexical = _one(tiny_run, "zenbrain", "lexical")
    hybrid = _one(tiny_run, "zenbrain", "hybrid")
    langgraph = _one(tiny_run, "langgraph", "vector")
    floor = _one(tiny_run, "numpy", "vector")
    for m in (lexical, hybrid, langgraph, floor):
        assert m.size == 200
        assert m.recall.count == TINY.queries
        assert all(s > 0 for s in m.recall.samples)
        assert m.recall.p95_ms is not None and m.recall.p50_ms is not None
        assert m.recall.p95_ms >= m.recall.p50_ms > 0
        assert m.recall.cpu_ms_per_call is not None and m.recall.cpu_ms_per_call >= 0
    assert "| recall CPU per call (ms) |" in markdown_section(tiny_run)
    older = copy.deepcopy(tiny_run)  # as a run from before CPU time was measured
    for m in older.measurements:
        m.recall.cpu_seconds = None
    assert "CPU per call" not in markdown_section(older)
    for m in (lexical, hybrid):
        assert m.single.count == TINY.single_stores
        assert m.recall_after_store.count == TINY.single_stores
        assert m.memories_stored == 200 + TINY.single_stores + TINY.warmup
        assert m.batch_rate is not None and m.batch_rate > 0
        assert m.bytes_on_disk is not None and m.bytes_on_disk > 0
    # The hybrid store holds a float32 vector per memory on top of the lexical one's rows.
    assert lexical.bytes_per_memory is not None and hybrid.bytes_per_memory is not None
    assert hybrid.bytes_per_memory - lexical.bytes_per_memory > 0.8 * 4 * 384
    assert langgraph.batch_rate is not None and langgraph.single.count == TINY.single_stores
    assert floor.mismatches == 0 and langgraph.mismatches == 0
    assert floor.batch_rate is None


def test_tiny_run_profiles_store_and_recall(tiny_run: ScaleRun) -> None:
    profile = tiny_run.profile
    assert profile is not None and profile.size == 200
    names = [p.name for p in profile.paths]
    assert any(n.startswith("recall, hybrid") for n in names)
    assert any(n.startswith("recall, lexical") for n in names)
    assert any(n.startswith("store()") for n in names)
    assert any(n.startswith("store_many()") for n in names)
    recall = next(p for p in profile.paths if p.name.startswith("recall, hybrid"))
    assert recall.entries and recall.zenbrain_entries
    assert any("recall" in e.function for e in recall.zenbrain_entries)
    assert all(e.cumulative_ms >= e.own_ms for e in recall.entries)


def test_llamaindex_vector_memory_block_recalls_ten_texts() -> None:
    corpus = make_corpus(60, 20, extra=5, seed=2)
    m = measure_llamaindex(corpus, 60, settings=TINY)
    assert m.recall.count == TINY.queries
    assert m.mismatches == 0  # every recall returned ten stored messages
    assert m.single.count == 5  # only five held-out texts exist
    assert m.batch_rate is not None and m.batch_rate > 0


@pytest.mark.postgres
def test_postgres_measurement(postgres_url: str) -> None:
    corpus = make_corpus(120, 20, extra=20, seed=4)
    m = measure_zenbrain(
        corpus, 120, backend="postgres", hybrid=True, settings=TINY, server_url=postgres_url
    )
    assert m.recall.count == TINY.queries and m.single.count == TINY.single_stores
    assert m.bytes_on_disk is not None and m.bytes_per_memory is not None
    assert m.bytes_per_memory > 4 * 384  # the pgvector column alone


def test_zenbrain_rejects_an_unknown_back_end() -> None:
    with pytest.raises(ValueError, match="unknown back end"):
        measure_zenbrain(
            make_corpus(5, 2, seed=1), 5, backend="oracle", hybrid=False, settings=TINY
        )


# --------------------------------------------------------------------------- report
def test_results_round_trip(tiny_run: ScaleRun, tmp_path: Path) -> None:
    path = tmp_path / "results.json"
    save_results(tiny_run, path)
    loaded = load_results(path)
    assert markdown_section(loaded) == markdown_section(tiny_run)
    assert loaded.measurements[0].recall.samples == tiny_run.measurements[0].recall.samples


def test_write_docs_replaces_only_its_section(tiny_run: ScaleRun, tmp_path: Path) -> None:
    docs = tmp_path / "benchmarks.md"
    before = "# Benchmarks\n\n## LoCoMo retrieval\n\nrecall table\n\n"
    after = "## Later section\n\n```\n## not a heading inside a fence\n```\nend\n"
    docs.write_text(before + SECTION_HEADING + "\n\nstale numbers\n\n" + after, encoding="utf-8")
    write_docs(tiny_run, docs, tmp_path / "scale.png")
    first = docs.read_text(encoding="utf-8")
    assert first.startswith(before) and first.endswith(after)
    assert "stale numbers" not in first
    assert first.count(SECTION_HEADING) == 1
    assert "| zenbrain sqlite hybrid |" in first and "LangGraph InMemoryStore" in first
    assert "![recall latency" in first and "(scale.png)" in first
    assert (tmp_path / "scale.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    write_docs(tiny_run, docs, tmp_path / "scale.png")
    assert docs.read_text(encoding="utf-8") == first


def test_replace_section_appends_and_creates() -> None:
    section = f"{SECTION_HEADING}\n\nbody\n"
    assert replace_section("", section, SECTION_HEADING) == f"# Benchmarks\n\n{section}"
    appended = replace_section("# B\n\n## Other\n\nx\n", section, SECTION_HEADING)
    assert appended == f"# B\n\n## Other\n\nx\n\n{section}"


def _measurement(backend: str, mode: str, size: int, p50_ms: float) -> Measurement:
    m = Measurement("zenbrain", backend, mode, size, batch_rate=5000.0)
    m.recall = Latencies([p50_ms / 1000] * 3)
    return m


def test_targets_say_by_how_much_they_are_missed() -> None:
    run = ScaleRun(command="x", started="now", seconds=1.0, machine={}, settings={})
    run.measurements = [
        _measurement("sqlite", "lexical", 10_000, 5.0),
        _measurement("sqlite", "lexical", 100_000, 30.0),
        _measurement("sqlite", "hybrid", 10_000, 10.0),
        _measurement("sqlite", "hybrid", 100_000, 20.0),
    ]
    peer = Measurement("langgraph", "memory", "vector", 100_000)
    peer.recall = Latencies([0.010] * 3)
    run.measurements.append(peer)
    checks = {c.target: c for c in check_targets(run)}
    lexical = checks["recall p50 ≤ 15 ms, lexical, SQLite, 100k"]
    assert lexical.met is False and lexical.gap.startswith("15.0 ms over (2.0×")
    assert checks["recall p50 ≤ 25 ms, hybrid, SQLite, 100k"].met is True
    assert checks["recall p50 ≤ 20 ms, hybrid, PostgreSQL + HNSW, 1M"].met is None
    batch = checks["batch store ≥ 20,000/s without embeddings (SQLite)"]
    assert batch.met is False and batch.gap == "4.0× too slow"
    growth = checks["recall grows sublinearly, sqlite lexical"]
    assert growth.met is True  # 5 → 30 ms over 10×: exponent log10(6) ≈ 0.78
    assert "n^0.78" in growth.measured
    assert (
        checks["faster than LangGraph InMemoryStore on recall at 100k (SQLite hybrid)"].met is False
    )
    assert growth_exponent(1.0, 10.0, 1000, 10_000) == pytest.approx(1.0)


# --------------------------------------------------------------------------- command line
def test_command_line_rejects_bad_sizes_and_names() -> None:
    parser = build_parser()
    with pytest.raises(SystemExit):
        parser.parse_args(["--sizes", "1000,abc"])
    with pytest.raises(SystemExit):
        parser.parse_args(["--backends", "sqlite,oracle"])
    assert parser.parse_args(["--peers", "none"]).peers == []
    assert parser.parse_args(["--sizes", "1_000,200"]).sizes == [1000, 200]


def test_command_line_rebuilds_docs_from_results(
    tiny_run: ScaleRun, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    results = tmp_path / "r.json"
    save_results(tiny_run, results)
    docs = tmp_path / "docs" / "benchmarks.md"
    code = main(
        [
            "--from-results",
            str(results),
            "--write-docs",
            "--docs",
            str(docs),
            "--plot",
            str(tmp_path / "docs" / "scale.png"),
        ]
    )
    assert code == 0
    assert SECTION_HEADING in docs.read_text(encoding="utf-8")
    assert SECTION_HEADING in capsys.readouterr().out


# --------------------------------------------------------------------------- issue 15 parts
LOCOMO = default_locomo_path()
needs_locomo = pytest.mark.skipif(not LOCOMO.is_file(), reason=f"no LoCoMo data at {LOCOMO}")


@needs_locomo
def test_locomo_corpus_starts_with_the_turns_and_varies_them_seeded() -> None:
    turns, questions, people = load_turns(LOCOMO)
    corpus = make_locomo_corpus(len(turns) + 50, 20, extra=5, seed=3)
    again = make_locomo_corpus(len(turns) + 50, 20, extra=5, seed=3)
    assert corpus.memories[: len(turns)] == turns
    variations = corpus.memories[len(turns) :]
    assert variations == again.memories[len(turns) :]
    assert sum(v != t for v, t in zip(variations, turns, strict=False)) > 40
    # A variation renames the speaker: the name before the colon is no longer LoCoMo's.
    assert sum(v.split(":")[0] not in people for v in variations) > 40
    assert len(corpus.queries) == 20 and all(q for q in corpus.queries)
    assert {q.split()[0] for q in corpus.queries} & {"What", "When", "How", "Who", "Where"}
    assert corpus.memory_vectors.shape == (len(turns) + 50, 384)
    assert corpus.embedder().misses == 0
    assert np.array_equal(
        corpus.embedder().embed_documents(variations[:2]),
        corpus.memory_vectors[len(turns) : len(turns) + 2],
    )
    assert len(questions) > 1000


def test_vary_renames_people_and_keeps_other_text_seeded() -> None:
    text = "Caroline: I met Melanie on 12 May 2023 at the lake."
    first = vary(text, ["Caroline", "Melanie"], random.Random(1))
    assert first == vary(text, ["Caroline", "Melanie"], random.Random(1))
    assert "Caroline" not in first and "Melanie" not in first
    assert "2023" not in first or "12" not in first  # numbers are redrawn


def test_floor_peers_measure_loads_and_recalls() -> None:
    corpus = make_corpus(300, 30, extra=10, seed=4)
    fts5 = measure_fts5(corpus, 300, settings=TINY)
    bm25 = measure_bm25s(corpus, 300, settings=TINY)
    for m in (fts5, bm25):
        assert m.recall.count == TINY.queries and m.batch_rate and m.batch_rate > 0
    assert fts5.single.count == TINY.single_stores
    assert fts5.bytes_on_disk and fts5.bytes_on_disk > 0
    assert fts5.mismatches < TINY.queries  # most queries share a word with some memory


def test_measurements_in_a_child_report_the_memory_they_added() -> None:
    def work() -> tuple[Measurement, None]:
        held = np.ones(40 * 1024 * 1024, dtype=np.uint8)  # 40 MB, touched
        result = Measurement("numpy", "memory", "vector", 1)
        result.notes.append(str(int(held.sum())))
        return result, None

    measured = scale._in_child(work, "test")
    assert measured is not None
    grown = measured[0].rss_growth_bytes
    assert grown is not None and 35 * 1024 * 1024 < grown < 200 * 1024 * 1024
    assert measured[0].notes == [str(40 * 1024 * 1024)]
    assert scale._in_child(lambda: 1 / 0, "failing") is None  # type: ignore[arg-type,return-value]


def test_prefilter_recall_compares_the_index_with_exact_search(tmp_path: Path) -> None:
    corpus = make_corpus(400, 30, seed=6)
    embedder = corpus.embedder()
    with MemoryCoordinator(tmp_path / "m.db", namespace=NAMESPACE, embedder=embedder) as memory:
        memory.store_many(corpus.memories)
        assert prefilter_recall(memory, corpus.query_vectors) is None  # all exact below 20k
        index = memory.database.vectors
        assert isinstance(index, SqliteVectorIndex)
        index.prefilter_min_rows = 100
        measured = prefilter_recall(memory, corpus.query_vectors)
        assert measured is not None and measured >= 0.98


def test_report_has_a_section_per_corpus_and_issue_15_targets(tiny_run: ScaleRun) -> None:
    section = markdown_section(tiny_run)
    assert section.startswith(SECTION_HEADING + "\n")
    assert "### Memory" in section and "### Approximate vector search" in section
    locomo = ScaleRun(
        **{**tiny_run.__dict__, "settings": {**tiny_run.settings, "corpus": "locomo"}}
    )
    assert markdown_section(locomo).startswith(LOCOMO_SECTION_HEADING + "\n")
    lexical = _one(tiny_run, "zenbrain", "lexical")
    fts5 = Measurement(
        "fts5", "sqlite", "lexical", 100_000, batch_rate=2 * (lexical.batch_rate or 1)
    )
    fts5.recall.samples = [0.001]
    big = Measurement("zenbrain", "sqlite", "lexical", 100_000, batch_rate=lexical.batch_rate)
    big.recall.samples = [0.002]
    run = ScaleRun(**{**tiny_run.__dict__, "measurements": [fts5, big]})
    checks = {c.target: c for c in check_targets(run)}
    floor = checks["lexical recall p50 ≤ FTS5 bm25() floor, SQLite, 100k"]
    assert floor.met is False and "2.0× the floor" in floor.gap
    store = next(c for t, c in checks.items() if t.startswith("store_many ≥ 0.5×"))
    assert store.met is True
    # Targets this run has no measurement for are named below the table, not in it.
    targets = markdown_section(run).split("### Targets\n\n", 1)[1].split("\n### ", 1)[0]
    table, _, below = targets.partition("\n\n")
    million = "recall p50 ≤ 20 ms, hybrid, PostgreSQL + HNSW, 1M"
    assert million not in table and "not run" not in table
    assert below.startswith("Not measured in this run") and million in below


@needs_locomo
def test_cold_start_times_a_fresh_process_first_recalls(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from benchmarks.speed import cold_start

    assert cold_start.main(["--sizes", "400", "--backends", "sqlite", "--runs", "1"]) == 0
    rows = [line for line in capsys.readouterr().out.splitlines() if line.startswith("| sqlite")]
    assert len(rows) == 1
    cells = [cell.strip() for cell in rows[0].strip("|").split("|")]
    assert cells[:3] == ["sqlite", "400", "1"]
    first, warm = float(cells[4].split()[0]), float(cells[7].split()[0])
    assert first > 0 and warm > 0
