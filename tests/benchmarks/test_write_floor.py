"""The write-floor benchmark on a tiny corpus: its replay writes exactly the rows that
``store_many`` wrote, and its table reports what the rounds measured. Timings are never
asserted."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from benchmarks.common.synthetic_corpus import make_corpus
from benchmarks.speed import write_floor
from benchmarks.speed.write_floor import RoundTimes, markdown_table, replay_rows, store_rows

BATCH = 50


def _contents(path: Path) -> dict[str, list[tuple[object, ...]]]:
    db = sqlite3.connect(path)
    try:
        tables = [
            name
            for (name,) in db.execute(
                "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'"
            )
        ]
        return {t: sorted(db.execute(f"SELECT * FROM {t}").fetchall(), key=repr) for t in tables}
    finally:
        db.close()


@pytest.fixture(scope="module")
def texts() -> list[str]:
    corpus = make_corpus(240, 1, seed=3)
    # Named people, so the batches write entities and their mentions too.
    return [f"{text} Alice met Bob in Paris." if i % 3 == 0 else text
            for i, text in enumerate(corpus.memories)]  # fmt: skip


def test_the_replay_writes_every_row_store_many_wrote(tmp_path: Path, texts: list[str]) -> None:
    stored, replayed = tmp_path / "stored.db", tmp_path / "replayed.db"
    seconds, bounds = store_rows(stored, texts, BATCH)
    assert seconds > 0
    assert len(bounds) == len(texts) // BATCH + 1  # 240 texts: four full batches and one of 40
    assert bounds[-1]["zb_memories"] == len(texts)
    times = replay_rows(stored, replayed, bounds)
    source, copy = _contents(stored), _contents(replayed)
    assert copy == source
    # The rows a store keeps for a memory, not only the memory's own row.
    for table in ("zb_memories", "zb_lexical", "zb_facts", "zb_entities", "zb_entity_mentions"):
        assert source[table], f"{table} is empty: the replay would not time it"
        assert times.replay_tables[table] > 0
    assert times.replay >= sum(times.replay_tables.values()) + times.replay_commits


def test_a_lean_replay_leaves_out_exactly_the_named_tables(
    tmp_path: Path, texts: list[str]
) -> None:
    stored, lean = tmp_path / "stored.db", tmp_path / "lean.db"
    _, bounds = store_rows(stored, texts, BATCH)
    times = replay_rows(stored, lean, bounds, leave_out={"zb_facts"})
    source, copy = _contents(stored), _contents(lean)
    assert source["zb_facts"] and copy["zb_facts"] == []
    assert {t: rows for t, rows in copy.items() if t != "zb_facts"} == {
        t: rows for t, rows in source.items() if t != "zb_facts"
    }
    assert "zb_facts" not in times.replay_tables and times.replay_tables["zb_memories"] > 0


def test_batches_replay_in_the_order_they_were_stored(tmp_path: Path, texts: list[str]) -> None:
    _, bounds = store_rows(tmp_path / "stored.db", texts, BATCH)
    highest = [bound["zb_memories"] for bound in bounds]
    assert highest == sorted(highest)
    assert highest[0] == BATCH


def test_the_table_reports_medians_and_ratios_to_fts5() -> None:
    rounds = [
        RoundTimes(80e-6, 20e-6, 10e-6, {"zb_memories": 7e-6, "zb_facts": 3e-6}, 5e-6),
        RoundTimes(60e-6, 30e-6, 10e-6, {"zb_memories": 9e-6, "zb_facts": 1e-6}, 6e-6),
        RoundTimes(70e-6, 25e-6, 12e-6, {"zb_memories": 8e-6, "zb_facts": 2e-6}, 7e-6),
    ]
    table = markdown_table(rounds, corpus="synthetic", size=1000)
    assert "median of 3 interleaved rounds" in table
    assert "| `store_many` | 70.0 | 14,286 | 0.14× |" in table
    assert "| its rows replayed (no Python work) | 25.0 | 40,000 | 0.40× |" in table
    assert "| raw FTS5 inserts | 10.0 | 100,000 | 1.00× |" in table
    assert table.index("`zb_memories`") < table.index("`zb_facts`")  # costliest first
    assert "| the commits | 6.00 |" in table


def test_the_table_shows_the_lean_replay_and_the_headroom_at_half_the_fts5_rate() -> None:
    rounds = [
        RoundTimes(80e-6, 20e-6, 10e-6, {"zb_memories": 7e-6}, 5e-6, replay_without=16e-6),
        RoundTimes(60e-6, 30e-6, 10e-6, {"zb_memories": 9e-6}, 6e-6, replay_without=26e-6),
        RoundTimes(70e-6, 25e-6, 12e-6, {"zb_memories": 8e-6}, 7e-6, replay_without=21e-6),
    ]
    table = markdown_table(rounds, corpus="synthetic", size=1000, without=["zb_facts"])
    assert "| its rows replayed without `zb_facts` | 21.0 | 47,619 | 0.48× |" in table
    assert "At half the FTS5 rate a memory may cost 20.0 µs in all." in table
    assert "- the rows replayed (no Python work): -5.0 µs" in table
    assert "- the rows replayed without `zb_facts`: -1.0 µs" in table
    # Without --without, neither the lean row nor its headroom line.
    plain = markdown_table(rounds, corpus="synthetic", size=1000)
    assert "without `zb_facts`" not in plain and "(no Python work): -5.0 µs" in plain


def test_one_small_round_from_the_command_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert write_floor.main(["--corpus", "synthetic", "--size", "120", "--rounds", "1",
                             "--batch-size", "40"]) == 0  # fmt: skip
    out = capsys.readouterr().out
    assert out.startswith("120 synthetic memories, SQLite, median of 1 interleaved rounds:")
    assert "| raw FTS5 inserts |" in out and "| `zb_memories` |" in out


def test_bad_sizes_are_refused(capsys: pytest.CaptureFixture[str]) -> None:
    assert write_floor.main(["--size", "0"]) == 2
    assert "at least 1" in capsys.readouterr().err


def test_an_unknown_table_to_leave_out_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    assert write_floor.main(["--size", "10", "--without", "zb_fact"]) == 2
    err = capsys.readouterr().err
    assert "no table zb_fact" in err and "zb_facts" in err


def test_a_lean_round_from_the_command_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert write_floor.main(["--corpus", "synthetic", "--size", "80", "--rounds", "1",
                             "--batch-size", "40", "--without", "zb_facts"]) == 0  # fmt: skip
    out = capsys.readouterr().out
    assert "| its rows replayed without `zb_facts` |" in out
    assert "- the rows replayed without `zb_facts`:" in out
