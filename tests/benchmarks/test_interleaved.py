"""The interleaved benchmark on a tiny corpus: every system gets every batch and every
question, in rotating order, and the report's ratios are those of its latencies. Timings
are never asserted."""

from __future__ import annotations

from pathlib import Path

import pytest

from benchmarks.common.synthetic_corpus import make_corpus
from benchmarks.speed import interleaved
from benchmarks.speed.interleaved import (
    CHROMA,
    FTS5,
    HYBRID,
    LEXICAL,
    Interleaved,
    System,
    build_systems,
    markdown_report,
    run,
)

SIZE, QUERIES, ROUNDS, BATCH = 240, 12, 2, 50


def test_every_system_holds_the_corpus_and_answers_every_question(tmp_path: Path) -> None:
    corpus = make_corpus(SIZE, QUERIES, seed=5)
    systems = build_systems(tmp_path, corpus, limit=5, chroma=False)
    try:
        result = run(
            corpus, systems, size=SIZE, corpus_name="synthetic", queries=QUERIES,
            rounds=ROUNDS, batch_size=BATCH, limit=5, warmup=2,
        )  # fmt: skip
        assert [s.count() for s in systems] == [SIZE] * 3
        assert [s.name for s in systems] == [LEXICAL, HYBRID, FTS5]
        assert all(seconds > 0 for seconds in result.load_seconds.values())
        assert len(result.rounds) == ROUNDS
        for measured in result.rounds:
            assert {name: len(samples) for name, samples in measured.items()} == {
                LEXICAL: QUERIES,
                HYBRID: QUERIES,
                FTS5: QUERIES,
            }
        # zenbrain finds a full page for nearly every question of its own corpus.
        assert result.short[HYBRID] <= QUERIES * ROUNDS // 4
    finally:
        for system in systems:
            system.close()


def _recording(name: str, log: list[tuple[str, str]], held: int) -> System:
    return System(
        name,
        add=lambda begin, end: log.append((name, f"add {begin}-{end}")),
        recall=lambda query: log.append((name, query)) or 10,
        count=lambda: held,
        close=lambda: None,
    )


def test_batches_and_questions_go_to_each_system_in_rotating_order() -> None:
    corpus = make_corpus(100, 4, seed=5)
    log: list[tuple[str, str]] = []
    systems = [_recording(name, log, 100) for name in (LEXICAL, HYBRID, FTS5)]
    run(corpus, systems, size=100, corpus_name="synthetic", queries=3, rounds=1,
        batch_size=50, limit=10, warmup=0)  # fmt: skip
    loads = [name for name, what in log if what.startswith("add")]
    assert loads == [LEXICAL, HYBRID, FTS5, HYBRID, FTS5, LEXICAL]
    asked = [name for name, what in log if not what.startswith("add")]
    assert asked[:3] == [LEXICAL, HYBRID, FTS5]
    assert asked[3:6] == [HYBRID, FTS5, LEXICAL]
    assert asked[6:9] == [FTS5, LEXICAL, HYBRID]
    first = [what for _, what in log if not what.startswith("add")][:3]
    assert first == [corpus.queries[0]] * 3  # one question asked of all before the next


def test_a_system_missing_memories_stops_the_run() -> None:
    corpus = make_corpus(100, 4, seed=5)
    log: list[tuple[str, str]] = []
    systems = [_recording(LEXICAL, log, 100), _recording(FTS5, log, 99)]
    with pytest.raises(RuntimeError, match="FTS5 bm25\\(\\) holds 99 memories"):
        run(corpus, systems, size=100, corpus_name="synthetic", queries=3, rounds=1,
            batch_size=50, limit=10)  # fmt: skip


def test_the_report_gives_the_targets_ratios_over_all_rounds_and_each() -> None:
    ms = 1e-3
    result = Interleaved(1000, "synthetic", 10)
    result.load_seconds = {LEXICAL: 0.1, HYBRID: 0.2, FTS5: 0.01, CHROMA: 1.0}
    result.short = dict.fromkeys(result.load_seconds, 0)
    result.rounds = [
        {LEXICAL: [1 * ms] * 3, HYBRID: [3 * ms] * 3, FTS5: [2 * ms] * 3, CHROMA: [2 * ms] * 3},
        {LEXICAL: [3 * ms] * 3, HYBRID: [4 * ms] * 3, FTS5: [2 * ms] * 3, CHROMA: [2 * ms] * 3},
    ]
    report = markdown_report(result)
    assert "| zenbrain lexical | 2.00 | 3.00 | 10,000 | 0 |" in report
    assert "| lexical ÷ FTS5 | 1.00 | 0.50–1.50 | ≤ 1 |" in report
    assert "| hybrid ÷ (FTS5 + ChromaDB) | 0.88 | 0.75–1.00 | ≤ 1 |" in report
    assert "| `store_many` rate ÷ FTS5 insert rate | 0.10 | — | ≥ 0.5 |" in report


def test_chromadb_joins_when_installed(tmp_path: Path) -> None:
    pytest.importorskip("chromadb")
    corpus = make_corpus(SIZE, QUERIES, seed=5)
    systems = build_systems(tmp_path, corpus, limit=5, chroma=True)
    try:
        result = run(corpus, systems, size=SIZE, corpus_name="synthetic", queries=QUERIES,
                     rounds=1, batch_size=BATCH, limit=5, warmup=2)  # fmt: skip
        assert "hybrid ÷ (FTS5 + ChromaDB)" in markdown_report(result)
        assert result.short[CHROMA] == 0
    finally:
        for system in systems:
            system.close()


def test_the_command_line_runs_a_small_load_and_refuses_bad_sizes(
    capsys: pytest.CaptureFixture[str],
) -> None:
    arguments = "--corpus synthetic --size 150 --queries 6 --rounds 1 --batch-size 50 --no-chroma"
    assert interleaved.main(arguments.split()) == 0
    out = capsys.readouterr().out
    assert out.startswith("150 synthetic memories, SQLite, limit=10, 1 rounds of 6 queries")
    assert "| lexical ÷ FTS5 |" in out and "ChromaDB" not in out
    assert interleaved.main(["--rounds", "0"]) == 2
    assert "at least 1" in capsys.readouterr().err
