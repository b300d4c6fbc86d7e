"""The mixed-store suite: its data is well-formed, its runner counts top-k right on a tiny
hand-made store, and its command runs."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from benchmarks.common.embeddings import CachedEmbedder
from benchmarks.retrieval.mixed_stores.__main__ import main
from benchmarks.retrieval.mixed_stores.harness import Outcome, ZenbrainIndex, hit_rate, run_suite
from benchmarks.retrieval.mixed_stores.report import SECTION_HEADING, failures, markdown
from benchmarks.retrieval.mixed_stores.scenarios import KINDS, load_suite, parse_store
from zenbrain.errors import InvalidInputError
from zenbrain.providers import HashingEmbedder

SUITE = load_suite()


def no_model() -> CachedEmbedder:
    raise AssertionError("a lexical system must never load the embedding model")


def hashing() -> Callable[[], CachedEmbedder]:
    shared = CachedEmbedder(HashingEmbedder(), None)
    return lambda: shared


def test_the_suite_covers_both_languages_and_every_assistant() -> None:
    languages = [store.language for store in SUITE]
    assert len(SUITE) >= 12
    assert languages.count("de") >= 4 and languages.count("en") >= 7
    assistants = " ".join(store.assistant for store in SUITE).lower()
    for kind in ("work", "personal", "coding", "health", "travel", "household", "study"):
        assert kind in assistants, kind
    for german in ("Arbeit", "persönlich", "Programmier", "Haushalt"):
        assert german.lower() in assistants, german


@pytest.mark.parametrize("store", SUITE, ids=lambda store: store.name)
def test_every_store_is_well_formed(store: Any) -> None:
    keys = [entry.key for entry in store.entries]
    assert len(keys) == len(set(keys))
    assert 20 <= len(store.entries) <= 48  # a few dozen memories
    assert 10 <= len(store.questions) <= 16
    assert sum(entry.kind == "core" and bool(entry.label) for entry in store.entries) >= 2
    for question in store.questions:
        assert question.answer in keys, question  # exactly one right memory, and it exists
    asked = [question.question for question in store.questions]
    assert len(asked) == len(set(asked))
    answered_kinds = {store.entry(question.answer).kind for question in store.questions}
    assert answered_kinds == set(KINDS), f"{store.name} answers only {answered_kinds}"


def test_the_procedures_come_in_several_shapes() -> None:
    procedures = [e.content for s in SUITE for e in s.entries if e.kind == "procedure"]
    numbered = [p for p in procedures if "\n1." in p]
    bulleted = [p for p in procedures if "\n- " in p]
    assert any(p.startswith("How to") for p in numbered)
    assert any(p.startswith("Anleitung") for p in numbered)
    assert any("Steps:" in p or "Schritte:" in p for p in procedures)
    assert any("workflow:" in p.lower() for p in procedures)
    assert len(bulleted) >= 6
    assert any("\n" not in p and ":" not in p for p in procedures)  # a plain-sentence one


def test_a_store_naming_a_missing_answer_or_kind_is_refused() -> None:
    raw: dict[str, Any] = {
        "name": "tiny",
        "language": "en",
        "assistant": "test",
        "memories": [{"key": "a", "kind": "fact", "at": "2026-01-01", "content": "x"}],
        "questions": [{"question": "q", "answer": "b"}],
    }
    with pytest.raises(InvalidInputError, match="answer 'b'"):
        parse_store(raw)
    raw["questions"] = [{"question": "q", "answer": "a"}]
    raw["memories"][0]["kind"] = "core"
    with pytest.raises(InvalidInputError, match="core blocks go in 'core'"):
        parse_store(raw)
    raw["memories"][0]["kind"] = "fact"
    raw["memories"][0]["at"] = "yesterday"
    with pytest.raises(InvalidInputError, match="ISO date"):
        parse_store(raw)


def _outcome(expected: str, ranked: tuple[str, ...]) -> Outcome:
    return Outcome("s", "en", "fact", None, "q", expected, ranked)


def test_hit_rate_counts_the_answer_among_the_first_k() -> None:
    outcomes = [
        _outcome("a", ("a", "b", "c")),
        _outcome("a", ("b", "a", "c")),
        _outcome("a", ("b", "c", "d", "a")),
        _outcome("a", ()),
    ]
    assert hit_rate(outcomes, 1) == 0.25
    assert hit_rate(outcomes, 3) == 0.5
    assert hit_rate(outcomes, 4) == 0.75
    assert hit_rate([], 1) == 0.0
    with pytest.raises(InvalidInputError):
        hit_rate(outcomes, 0)


TINY: dict[str, Any] = {
    "name": "tiny-en",
    "language": "en",
    "assistant": "test assistant",
    "core": [
        {
            "key": "persona",
            "label": "persona",
            "at": "2026-05-01T08:00",
            "content": "You help Robin keep track of the allotment garden.",
        },
    ],
    "memories": [
        {
            "key": "shed",
            "kind": "fact",
            "at": "2026-05-01T09:00",
            "content": "The shed padlock code is 2741.",
        },
        {
            "key": "tomatoes",
            "kind": "fact",
            "at": "2026-05-02T09:00",
            "content": "Tomatoes were planted in bed three, beside the tomatoes seedlings tray.",
        },
        {
            "key": "watering",
            "kind": "procedure",
            "at": "2026-05-03T09:00",
            "content": "How to water the beds:\n1. Fill the butt.\n2. Water bed three first.",
        },
        {
            "key": "hail",
            "kind": "episode",
            "at": "2026-05-04T18:00",
            "content": "Terrible, awful, heartbreaking afternoon: the hail destroyed the lettuce.",
        },
    ],
    "questions": [
        {"question": "what is the padlock code", "answer": "shed"},
        # "bed" and "three" are in both; "tomatoes" twice in the wrong one puts it first.
        {"question": "which bed got tomatoes three", "answer": "watering"},
        {"question": "what did the hail destroy", "answer": "hail"},
    ],
}


def test_the_runner_reads_top_k_from_each_system_on_a_tiny_store() -> None:
    store = parse_store(TINY)
    run = run_suite([store], ["bm25", "zenbrain-lexical"], no_model)
    bm25 = {o.question: o for o in run.of("bm25")}
    assert bm25["what is the padlock code"].ranked[0] == "shed"
    second = bm25["which bed got tomatoes three"]
    assert second.ranked[:2] == ("tomatoes", "watering")
    assert not second.hit(1) and second.hit(3)
    assert bm25["what did the hail destroy"].ranked == ("hail",)  # no shared term, no result
    assert hit_rate(run.of("bm25"), 1) == pytest.approx(2 / 3)
    assert hit_rate(run.of("bm25"), 3) == 1.0
    # zenbrain's ids come back as the store's keys, and routing is read for every entry.
    lexical = {o.question: o for o in run.of("zenbrain-lexical")}
    assert lexical["what is the padlock code"].ranked[0] == "shed"
    assert set(lexical["which bed got tomatoes three"].ranked) <= set(run.routing["tiny-en"].layers)
    layers = run.routing["tiny-en"].layers
    assert layers["persona"] == "core" and layers["watering"] == "procedural"
    assert layers["shed"] == "semantic"
    assert "tiny-en" in markdown(run, "cmd")
    listed = "\n".join(failures(run, ["bm25"]))
    assert "which bed got tomatoes three" in listed and "padlock" not in listed


def test_the_embedding_systems_run_with_any_embedder() -> None:
    store = parse_store(TINY)
    run = run_suite([store], ["dense", "rrf", "zenbrain-hybrid"], hashing())
    for system in ("dense", "rrf"):
        for outcome in run.of(system):
            assert sorted(outcome.ranked) == sorted(e.key for e in store.entries)
    assert len(run.of("zenbrain-hybrid")) == 3
    assert run.routing["tiny-en"].layers["persona"] == "core"  # read from the zenbrain run


def test_memories_are_stored_at_their_own_time(tmp_path: Path) -> None:
    store = parse_store(TINY)
    index = ZenbrainIndex(str(tmp_path / "clock.db"), None)
    index.index(store)
    try:
        stored = {r.content: r.created_at for r in index.coordinator.find()}
        for entry in store.entries:
            if entry.kind != "core":
                assert stored[entry.content] == entry.at
        assert index.coordinator.clock() > store.last_stored  # questions come afterwards
    finally:
        index.close()


def test_the_command_runs_one_store_and_writes_its_docs_section(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    docs = tmp_path / "benchmarks.md"
    docs.write_text("# Benchmarks\n\n## Other\n\nkept\n", encoding="utf-8")
    code = main(
        ["--stores", "coding-en", "--systems", "zenbrain-lexical,bm25", "--failures",
         "--write-docs", "--docs", str(docs)]
    )  # fmt: skip
    assert code == 0
    printed = capsys.readouterr().out
    assert "| coding-en | 16 |" in printed
    assert "Failures at top-1:" in printed
    written = docs.read_text(encoding="utf-8")
    assert SECTION_HEADING in written and "## Other\n\nkept" in written
    assert "Failures at top-1" not in written


def test_the_command_runs_another_suite_and_refuses_unknown_stores(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "tiny.json").write_text(json.dumps(TINY), encoding="utf-8")
    assert main(["--suite", str(tmp_path), "--systems", "bm25"]) == 0
    assert "| tiny-en | 3 |" in capsys.readouterr().out
    assert main(["--suite", str(tmp_path), "--stores", "nope", "--systems", "bm25"]) == 2
    assert "unknown store" in capsys.readouterr().err
    assert main(["--suite", str(tmp_path), "--systems", "bm26"]) == 2
