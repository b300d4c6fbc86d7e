"""The LoCoMo retrieval harness on a tiny LoCoMo-shaped file written per test.

The real data (CC BY-NC 4.0) never enters the repository; this fixture copies its shape
and its quirks: a date key without a session, an image caption, evidence strings holding
several ids, a stray colon, zero padding, ids naming no turn, and category-5 items
without an answer.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from benchmarks.common.docs_sections import replace_section
from benchmarks.common.embeddings import CachedEmbedder
from benchmarks.locomo import harness as locomo
from benchmarks.locomo.__main__ import main
from benchmarks.locomo.data import load_locomo, normalise_evidence
from benchmarks.locomo.report import SECTION_HEADING
from benchmarks.locomo.systems import reciprocal_rank_fusion
from zenbrain.errors import InvalidInputError
from zenbrain.providers import HashingEmbedder

KNOWN_HIT = "Which instrument does Alice play in the orchestra?"
# Shares its only content words with D2:2, while its evidence is the greeting D1:1.
KNOWN_MISS = "Who brought the lemon tart?"
CAPTION_QUESTION = "When did Bob share a photo of his golden retriever?"
ADVERSARIAL = "What instrument does Bob play in the orchestra?"


def _turn(dia_id: str, speaker: str, text: str, **extra: Any) -> dict[str, Any]:
    return {"speaker": speaker, "dia_id": dia_id, "text": text, **extra}


def _sample() -> dict[str, Any]:
    session_1 = [
        _turn("D1:1", "Alice", "Hi Bob, long time no see!"),
        _turn("D1:2", "Alice", "I play the violin in the city orchestra now."),
        _turn("D1:3", "Bob", "That sounds wonderful, congratulations on the new job too."),
        _turn(
            "D1:4",
            "Bob",
            "Look at my dog!",
            img_url=["https://example.invalid/dog.jpg"],
            blip_caption="a photo of a golden retriever on a beach",
            query="dog on beach",
        ),
        _turn("D1:5", "Alice", "So cute. I started running every morning."),
        _turn("D1:6", "Bob", "I am learning Portuguese for a trip to Lisbon."),
    ]
    session_2 = [
        _turn("D2:1", "Alice", "The orchestra tour starts in September."),
        _turn("D2:2", "Bob", "I baked a lemon tart for the picnic on Sunday."),
        _turn("D2:3", "Alice", "My sister visits next week."),
        _turn("D2:4", "Bob", "Lisbon was sunny and the trams were crowded."),
        _turn("D2:5", "Alice", "I finally bought a new bicycle."),
    ]
    qa = [
        {"question": KNOWN_HIT, "answer": "violin", "evidence": ["D1:2"], "category": 4},
        {"question": KNOWN_MISS, "answer": "Alice", "evidence": ["D1:1"], "category": 4},
        {
            "question": "What did Bob learn before visiting Lisbon?",
            "answer": "Portuguese",
            "evidence": ["D1:6; D2:4"],
            "category": 1,
        },
        {
            "question": CAPTION_QUESTION,
            "answer": "8 May 2023",
            "evidence": ["D:1:4"],
            "category": 2,
        },
        {
            "question": "Is Alice likely to enjoy classical music?",
            "answer": "yes",
            "evidence": ["D2:01", "D", "D9:9"],
            "category": 3,
        },
        {"question": "What might Bob do next summer?", "answer": "travel", "category": 3},
        {
            "question": ADVERSARIAL,
            "adversarial_answer": "violin",
            "evidence": ["D1:2"],
            "category": 5,
        },
    ]
    return {
        "sample_id": "conv-test",
        "conversation": {
            "speaker_a": "Alice",
            "speaker_b": "Bob",
            "session_1_date_time": "1:56 pm on 8 May, 2023",
            "session_1": session_1,
            "session_2_date_time": "10:04 am on 19 June, 2023",
            "session_2": session_2,
            # As in conv-26: a date for a session that does not exist.
            "session_3_date_time": "9:00 am on 1 July, 2023",
        },
        "qa": qa,
    }


@pytest.fixture
def data_path(tmp_path: Path) -> Path:
    path = tmp_path / "locomo-mini.json"
    path.write_text(json.dumps([_sample()]), encoding="utf-8")
    return path


def test_parsing_reads_sessions_turns_captions_and_dates(data_path: Path) -> None:
    [conversation] = load_locomo(data_path)

    assert conversation.sample_id == "conv-test"
    assert conversation.speakers == ("Alice", "Bob")
    assert conversation.session_count == 2
    assert [t.dia_id for t in conversation.turns][:2] == ["D1:1", "D1:2"]
    assert len(conversation.turns) == 11
    dog = conversation.turns[3]
    assert dog.text == "Bob: Look at my dog! [image: a photo of a golden retriever on a beach]"
    assert conversation.turns[0].text == "Alice: Hi Bob, long time no see!"
    assert dog.session_datetime.isoformat() == "2023-05-08T13:56:00"
    assert conversation.turns[6].session_datetime.isoformat() == "2023-06-19T10:04:00"


def test_parsing_normalises_malformed_evidence(data_path: Path) -> None:
    [conversation] = load_locomo(data_path)
    by_question = {q.question: q for q in conversation.questions}

    assert by_question["What did Bob learn before visiting Lisbon?"].evidence == ("D1:6", "D2:4")
    assert by_question[CAPTION_QUESTION].evidence == ("D1:4",)
    classical = by_question["Is Alice likely to enjoy classical music?"]
    assert classical.evidence == ("D2:1",)
    assert classical.unresolved_evidence == ("D", "D9:9")
    assert by_question[ADVERSARIAL].answer == "violin"


def test_normalise_evidence_splits_on_separators_and_drops_duplicates() -> None:
    known = ["D1:3", "D2:1", "D4:4", "D9:1"]
    resolved, unresolved = normalise_evidence(["D9:1 D4:4 D1:3", "D1:3,D2:1", "X7"], known)
    assert resolved == ["D9:1", "D4:4", "D1:3", "D2:1"]
    assert unresolved == ["X7"]


def test_category_filter_keeps_one_to_four_with_evidence(data_path: Path) -> None:
    [conversation] = load_locomo(data_path)
    asked = conversation.retrieval_questions()

    assert ADVERSARIAL not in {q.question for q in asked}
    assert "What might Bob do next summer?" not in {q.question for q in asked}
    assert sorted(q.category for q in asked) == [1, 2, 3, 4, 4]


@pytest.mark.parametrize("system", ["bm25", "zenbrain-lexical"])
def test_hits_are_counted_per_question_and_category(data_path: Path, system: str) -> None:
    run = locomo.run_benchmark(load_locomo(data_path), [system], cache_dir=None)
    result = run.result(system)
    outcomes = {o.question: o for o in result.outcomes}

    assert result.skipped is None
    assert ADVERSARIAL not in outcomes
    assert outcomes[KNOWN_HIT].first_hit_rank == 1
    assert outcomes[CAPTION_QUESTION].hit_at(5)
    assert outcomes[KNOWN_MISS].first_hit_rank is None
    assert outcomes[KNOWN_MISS].retrieved[0] == "D2:2"
    single_hop = result.by_category()[4]
    assert (single_hop.questions, single_hop.hits[10]) == (2, 1)
    assert single_hop.recall(10) == pytest.approx(0.5)
    assert result.overall().questions == 5
    assert run.question_counts == {1: 1, 2: 1, 3: 1, 4: 2}
    assert run.questions_without_evidence == 1
    assert run.unresolved_evidence == 2


def test_question_outcome_ranks_the_first_evidence_turn() -> None:
    outcome = locomo.QuestionOutcome("c", "q", 1, ("D3:1", "D2:2"), ("D1:1", "D2:2", "D3:1"))
    assert outcome.first_hit_rank == 2
    assert not outcome.hit_at(1)
    assert outcome.hit_at(2)


def test_reciprocal_rank_fusion_rewards_agreement() -> None:
    # b: 1/62 + 1/61, c: 2/63, a: 1/61, d: 1/62 (k=60, ranks from 1)
    assert reciprocal_rank_fusion([["a", "b", "c"], ["b", "d", "c"]]) == ["b", "c", "a", "d"]


def test_embedding_cache_serves_a_rerun_from_disk(tmp_path: Path) -> None:
    texts = ["Alice: I play the violin.", "Bob: I baked a lemon tart."]
    first = CachedEmbedder(HashingEmbedder(64), tmp_path / "cache")
    vectors = first.embed_documents(texts)
    first.flush()

    second = CachedEmbedder(HashingEmbedder(64), tmp_path / "cache")
    again = second.embed_documents(texts)
    query = second.embed_queries(texts[:1])

    assert (first.stats.embedded, first.stats.cached) == (2, 0)
    assert (second.stats.embedded, second.stats.cached) == (1, 2)  # the query is new
    np.testing.assert_array_equal(vectors, again)
    assert query.shape == (1, 64)
    assert (tmp_path / "cache" / ".gitignore").read_text() == "*\n"


def test_embedding_systems_run_with_a_given_embedder(data_path: Path, tmp_path: Path) -> None:
    embedder = CachedEmbedder(HashingEmbedder(256), tmp_path / "cache")
    systems = ["dense", "rrf", "zenbrain-hybrid"]
    run = locomo.run_benchmark(load_locomo(data_path), systems, embedder_factory=lambda: embedder)
    for name in systems:
        assert run.result(name).skipped is None, name
        outcomes = {o.question: o for o in run.result(name).outcomes}
        assert outcomes[KNOWN_HIT].hit_at(5), name
    assert run.result("dense").embedding.embedded == 11 + 5  # the turns, the questions
    # rrf reuses every vector dense computed.
    assert run.result("rrf").embedding.embedded == 0
    assert run.result("rrf").embedding.cached > 0


def test_unknown_system_and_missing_data_are_clear_errors(tmp_path: Path) -> None:
    with pytest.raises(InvalidInputError, match="unknown system"):
        locomo.run_benchmark(load_locomo_fixture(tmp_path), ["bm26"])
    with pytest.raises(InvalidInputError, match="ZENBRAIN_LOCOMO"):
        load_locomo(tmp_path / "absent.json")


def load_locomo_fixture(tmp_path: Path) -> list[Any]:
    path = tmp_path / "mini.json"
    path.write_text(json.dumps([_sample()]), encoding="utf-8")
    return load_locomo(path)


OTHER_SECTIONS = (
    "# Benchmarks\n\n## Write speed\n\nfast enough\n\n"
    f"{SECTION_HEADING}\n\nold numbers\n```\n## inside a fence\n```\nold tail\n\n"
    "## Consolidation\n\nkept as is\n"
)


def test_replace_section_keeps_other_sections() -> None:
    updated = replace_section(
        OTHER_SECTIONS, f"{SECTION_HEADING}\n\nnew numbers\n", SECTION_HEADING
    )

    assert "old numbers" not in updated
    assert "inside a fence" not in updated
    assert updated.startswith("# Benchmarks\n\n## Write speed\n\nfast enough\n\n")
    assert f"{SECTION_HEADING}\n\nnew numbers\n\n## Consolidation\n\nkept as is\n" in updated
    assert updated.count(SECTION_HEADING) == 1


def test_replace_section_appends_or_creates() -> None:
    assert replace_section("", f"{SECTION_HEADING}\n\nx\n", SECTION_HEADING) == (
        f"# Benchmarks\n\n{SECTION_HEADING}\n\nx\n"
    )
    appended = replace_section(
        "# Benchmarks\n\n## Other\n\ny\n", f"{SECTION_HEADING}\n\nx\n", SECTION_HEADING
    )
    assert appended == f"# Benchmarks\n\n## Other\n\ny\n\n{SECTION_HEADING}\n\nx\n"


def test_cli_prints_tables_and_writes_the_docs_section(
    data_path: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    docs = tmp_path / "benchmarks.md"
    docs.write_text(OTHER_SECTIONS, encoding="utf-8")

    code = main(
        [
            "--systems",
            "bm25,zenbrain-lexical",
            "--data",
            str(data_path),
            "--no-cache",
            "--write-docs",
            "--docs",
            str(docs),
        ]
    )

    out, err = capsys.readouterr()
    assert code == 0
    assert "| bm25 |" in out
    assert "| zenbrain-lexical |" in out
    assert "[bm25] conv-test (1/1)" in err
    text = docs.read_text(encoding="utf-8")
    assert "## Write speed\n\nfast enough" in text
    assert "## Consolidation\n\nkept as is\n" in text
    assert "old numbers" not in text
    assert "1 multi-hop: 1, 2 temporal: 1, 3 open-domain: 1, 4 single-hop: 2" in text
    assert "cores" in text
    assert "python -m benchmarks locomo --systems bm25,zenbrain-lexical" in text
    section = text[text.index(SECTION_HEADING) : text.index("## Consolidation")]
    # Only the known miss fails: single-hop 1 of 2, overall 4 of 5, at k=5 and k=10 alike.
    assert section.count("| bm25 | 1.000 | 1.000 | 1.000 | 0.500 | **0.800** |") == 2


def test_cli_reports_missing_data(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["--systems", "bm25", "--data", str(tmp_path / "absent.json")])
    assert code == 2
    assert "LoCoMo data not found" in capsys.readouterr().err


def test_real_locomo_counts_match_its_source_notes() -> None:
    """The counts SOURCE.md verified, through this parser (skipped without the data)."""
    from benchmarks.common.paths import default_locomo_path
    from benchmarks.locomo.data import question_counts

    path = default_locomo_path()
    if not path.is_file():
        pytest.skip(f"LoCoMo data not at {path} (set ZENBRAIN_LOCOMO)")
    conversations = load_locomo(path)

    assert len(conversations) == 10
    assert sum(len(c.turns) for c in conversations) == 5882
    assert sum(c.session_count for c in conversations) == 272
    assert question_counts(conversations) == {1: 282, 2: 321, 3: 92, 4: 841}
    unresolved = sorted(
        (c.sample_id, piece)
        for c in conversations
        for q in c.questions
        for piece in q.unresolved_evidence
    )
    assert unresolved == [("conv-42", "D"), ("conv-42", "D10:19"), ("conv-47", "D4:36")]
