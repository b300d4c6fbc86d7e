"""The recall benchmark over several datasets, on tiny files shaped like each dataset and
written per test (the real data never enters the repository)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from benchmarks.common.embeddings import CachedEmbedder
from benchmarks.retrieval.__main__ import main
from benchmarks.retrieval.datasets import (
    BENCH_DATA_ENV_VAR,
    MissingDatasetError,
    bench_data_root,
    load_dataset,
    madial_query,
)
from benchmarks.retrieval.harness import SYSTEM_NAMES, run_retrieval, sample_questions
from benchmarks.retrieval.metrics import ndcg_at, recall_at
from benchmarks.retrieval.report import SECTION_HEADING, markdown
from benchmarks.retrieval.tuning.lexical import LexicalVariant
from benchmarks.retrieval.tuning.run import run_tuning
from zenbrain.providers import HashingEmbedder


def _message(dia_id: str, speaker: str, text: str, when: str, **extra: Any) -> dict[str, Any]:
    return {"clean_text": text, "speaker": speaker, "date_time": when, "dia_id": dia_id, **extra}


def write_realtalk(folder: Path) -> None:
    folder.mkdir(parents=True)
    chat = {
        "name": {"speaker_1": "Emi", "speaker_2": "Elise"},
        "session_1": [
            _message("D1:1", "Emi", "Hey! How are you?", "29.12.2023, 22:42:04"),
            _message(
                "D1:2", "Elise", "I went skiing in Colorado last week", "29.12.2023, 22:43:10"
            ),
            _message(
                "D1:3",
                "Emi",
                "Look at my pasta",
                "29.12.2023, 22:44:00",
                blip_caption="a plate of pasta with ham and peas",
            ),
        ],
        # Session numbers and dia_ids disagree in REALTALK: ids are kept as they are.
        "session_2": [
            _message("D1:30", "Elise", "Art Basel in Miami was amazing", "30.12.2023, 21:00:00"),
            _message("D1:31", "Emi", "I start a cooking class tomorrow", "30.12.2023, 21:05:00"),
        ],
        "session_1_date_time": "29.12.2023, 22:42:04",
        "session_2_date_time": "30.12.2023, 21:00:00",
        "qa": [
            {"question": "Where did Elise go skiing?", "evidence": ["D1:2"], "category": 1},
            {"question": "What did Emi cook with ham?", "evidence": ["D1:3"], "category": 3},
            {"question": "When was Elise at Art Basel?", "evidence": ["D1:30"], "category": 2},
            {"question": "Who has no evidence?", "evidence": ["D9:9"], "category": 1},
            {"question": "A category REALTALK does not score", "evidence": ["D1:1"], "category": 5},
        ],
    }
    (folder / "Chat_1_Emi_Elise.json").write_text(json.dumps(chat), encoding="utf-8")


def write_madial(folder: Path) -> None:
    folder.mkdir(parents=True)
    memories = [
        {"1": {"time": "2023-12-25", "scene": "Activity", "emotion": "Happy",
               "event": "Bart danced at the Christmas party and felt very happy."}},
        {"2": {"time": "2023-03-07", "scene": "Activity", "emotion": "Happy",
               "event": "Bart won the 100 meters at the school sports festival."}},
        {"3": {"time": "2023-05-15", "scene": "Preferences", "emotion": "Happy",
               "event": "Lisa built a small ecosystem sphere for the science fair."}},
    ]  # fmt: skip
    dialogues = [
        {
            "dialogue": [
                "<BOD>\n",
                '<Bart>: "I will perform at the New Year party!"\n',
                '<Assistant>: "That is great."\n',
                '<Bart>: "Can I dance again like at Christmas?"\n',
                '<Assistant>: "Do you remember the Christmas party?"\n',
                "<EOD>\n",
            ],
            "test-turn": [4],
            "relevant-id": [1, 99],
            "user-id": 1,
        },
        {
            "dialogue": ["<BOD>\n", '<Lisa>: "The science fair is soon."\n', "<EOD>\n"],
            "test-turn": [2],
            "relevant-id": [3],
            "user-id": 2,
        },
    ]
    # Both files are JSON lines, one object per line, as MADial-Bench ships them.
    (folder / "MADial-Bench-en-memory.json").write_text(
        "\n".join(json.dumps(m) for m in memories) + "\n", encoding="utf-8"
    )
    (folder / "MADial-Bench-en-dialogue.json").write_text(
        "\n".join(json.dumps(d) for d in dialogues) + "\n", encoding="utf-8"
    )


@pytest.fixture
def data_root(tmp_path: Path) -> Path:
    root = tmp_path / "bench"
    write_realtalk(root / "realtalk")
    write_madial(root / "madial-bench")
    return root


def test_realtalk_loader_keeps_ids_captions_times_and_scored_categories(data_root: Path) -> None:
    dataset = load_dataset("realtalk", data_root)
    (haystack,) = dataset.haystacks
    assert [t.dia_id for t in haystack.turns] == ["D1:1", "D1:2", "D1:3", "D1:30", "D1:31"]
    assert (
        haystack.turns[2].text
        == "Emi: Look at my pasta [image: a plate of pasta with ham and peas]"
    )
    assert haystack.turns[3].session == 2
    assert haystack.turns[3].session_datetime.isoformat() == "2023-12-30T21:00:00"
    asked = haystack.scorable_questions()
    assert [q.category for q in asked] == [1, 3, 2]
    assert dataset.question_count() == 3
    assert dataset.category_names == {1: "multi-hop", 2: "temporal", 3: "open-domain"}


def test_madial_loader_asks_with_the_dialogue_before_the_test_turn(data_root: Path) -> None:
    dataset = load_dataset("madial-bench", data_root)
    (haystack,) = dataset.haystacks
    assert [t.dia_id for t in haystack.turns] == ["1", "2", "3"]
    first, second = haystack.scorable_questions()
    assert first.question == (
        "Bart: I will perform at the New Year party!\n"
        "Assistant: That is great.\n"
        "Bart: Can I dance again like at Christmas?"
    )
    assert first.evidence == ("1",)  # id 99 names no memory
    assert second.evidence == ("3",)
    assert madial_query(["<BOD>\n", '<A>: "x"\n'], 1) == ""


def test_a_missing_dataset_says_how_to_fetch_it(tmp_path: Path) -> None:
    with pytest.raises(MissingDatasetError) as raised:
        load_dataset("realtalk", tmp_path)
    message = str(raised.value)
    assert str(tmp_path / "realtalk") in message
    assert "git clone --depth 1 https://github.com/danny911kr/REALTALK" in message
    assert BENCH_DATA_ENV_VAR in message


def test_the_data_folder_follows_the_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(BENCH_DATA_ENV_VAR, str(tmp_path))
    assert bench_data_root() == tmp_path
    monkeypatch.delenv(BENCH_DATA_ENV_VAR)
    assert bench_data_root() == Path.home() / ".cache" / "zenbrain-bench"


def test_metrics() -> None:
    assert recall_at(["a", "b", "c"], {"c"}, 2) == 0.0
    assert recall_at(["a", "b", "c"], {"c"}, 3) == 1.0
    assert ndcg_at(["x", "a"], {"a"}, 10) == pytest.approx(1 / 1.584962500721156)
    assert ndcg_at(["a", "b"], {"a", "b"}, 10) == pytest.approx(1.0)
    assert ndcg_at(["b", "x", "a"], {"a", "b", "c"}, 10) == pytest.approx(
        (1 + 0.5) / (1 + 1 / 1.584962500721156 + 0.5)
    )
    assert ndcg_at(["a"], set(), 10) == 0.0


def test_sampling_is_deterministic_and_spread(data_root: Path) -> None:
    dataset = load_dataset("realtalk", data_root)
    sampled = sample_questions(dataset, 2)
    again = sample_questions(dataset, 2)
    assert sampled.question_count() == 2
    assert [q.question for h in sampled.haystacks for q in h.questions] == [
        q.question for h in again.haystacks for q in h.questions
    ]
    assert sample_questions(dataset, 50) is dataset


def test_one_run_scores_every_system_on_every_dataset(data_root: Path, tmp_path: Path) -> None:
    datasets = [load_dataset("realtalk", data_root), load_dataset("madial-bench", data_root)]
    embedder = CachedEmbedder(HashingEmbedder(256), tmp_path / "cache")
    run = run_retrieval(datasets, list(SYSTEM_NAMES), embedder_factory=lambda: embedder)
    for system in SYSTEM_NAMES:
        for dataset in datasets:
            result = run.result(system, dataset.name)
            assert result.skipped is None
            assert result.overall().questions == dataset.question_count()
    lexical = run.result("zenbrain-lexical", "realtalk")
    hits = {o.evidence: o.retrieved[:1] for o in lexical.outcomes}
    assert hits[("D1:2",)] == ("D1:2",)  # "skiing" is only in D1:2
    assert lexical.by_category(2).questions == 1
    text = markdown(run, "python -m benchmarks retrieval --write-docs")
    assert text.startswith(SECTION_HEADING)
    assert "| zenbrain-lexical |" in text and "`madial-bench`:" in text
    assert "zenbrain-hybrid ≥ rrf" in text


def test_main_writes_its_section_and_reports_missing_data(
    data_root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any
) -> None:
    monkeypatch.setenv(BENCH_DATA_ENV_VAR, str(data_root))
    monkeypatch.delenv("ZENBRAIN_LOCOMO", raising=False)
    docs = tmp_path / "benchmarks.md"
    docs.write_text("# Benchmarks\n\n## Other\n\nkept\n", encoding="utf-8")
    code = main(
        ["--datasets", "realtalk", "--systems", "bm25,zenbrain-lexical", "--write-docs",
         "--docs", str(docs)]
    )  # fmt: skip
    assert code == 0
    written = docs.read_text(encoding="utf-8")
    assert "## Other\n\nkept" in written and SECTION_HEADING in written
    assert "python -m benchmarks retrieval --datasets realtalk" in written
    assert main(["--datasets", "locomo", "--systems", "bm25"]) == 2
    assert "the locomo dataset is not in" in capsys.readouterr().err


def test_tuning_scores_every_variant_on_every_dataset(data_root: Path) -> None:
    datasets = [load_dataset("realtalk", data_root), load_dataset("madial-bench", data_root)]
    variants = (LexicalVariant("default"), LexicalVariant("no stemming", stemmer="none"))
    run = run_tuning(datasets, embedder=None, lexical_variants=variants, fusion_variants=())
    assert set(run.lexical) == {"default", "no stemming"}
    assert run.lexical["default"]["realtalk"].recall10 == pytest.approx(1.0)
    assert set(run.lexical["default"]) == {"realtalk", "madial-bench"}


def write_beam(folder: Path) -> None:
    chat_dir = folder / "chats" / "100K" / "1"
    (chat_dir / "probing_questions").mkdir(parents=True)

    def turn(i: int, role: str, text: str, anchor: str | None = None) -> dict[str, Any]:
        return {"id": i, "role": role, "content": text, "time_anchor": anchor, "index": "1,1"}

    chat = [
        {"batch_number": 1, "time_anchor": None, "turns": [
            [turn(0, "user", "I plan a budget app ->-> 1,1", "March-15-2024"),
             turn(1, "assistant", "Here is a plan for the budget app")],
            [turn(2, "user", "My first sprint ends on March 29"),
             turn(3, "assistant", "Noted, sprint one ends then")],
        ]},
        {"batch_number": 2, "time_anchor": None, "turns": [
            [turn(4, "user", "I moved the sprint end to April 2", "April-05-2024"),
             turn(5, "assistant", "Updated")],
        ]},
    ]  # fmt: skip
    probing = {
        "abstention": [{"question": "What colour is the logo?", "source_chat_ids": None}],
        "information_extraction": [{"question": "When does my sprint end?",
                                    "source_chat_ids": [2]}],
        "knowledge_update": [{"question": "When does the first sprint end now?",
                              "source_chat_ids": {"original_info": [2], "updated_info": [4]}}],
    }  # fmt: skip
    (chat_dir / "chat.json").write_text(json.dumps(chat), encoding="utf-8")
    (chat_dir / "probing_questions" / "probing_questions.json").write_text(
        json.dumps(probing), encoding="utf-8"
    )


def test_beam_loader_dates_sessions_and_names_evidence(tmp_path: Path) -> None:
    write_beam(tmp_path / "beam")
    dataset = load_dataset("beam", tmp_path)
    (haystack,) = dataset.haystacks
    assert [t.session for t in haystack.turns] == [1, 1, 2, 2, 3, 3]
    assert haystack.turns[0].text == "user: I plan a budget app"  # the marker goes
    # A batch's sessions are spread from its date to the next batch's.
    assert haystack.turns[0].session_datetime.isoformat() == "2024-03-15T09:00:00"
    assert haystack.turns[2].session_datetime.isoformat() == "2024-03-25T21:00:00"
    assert haystack.turns[4].session_datetime.isoformat() == "2024-04-05T09:00:00"
    asked = haystack.scorable_questions()
    assert [(q.category, q.evidence) for q in asked] == [(1, ("2",)), (3, ("2", "4"))]


def test_sessions_are_ranked_by_their_best_turn_and_bm25_ranks_whole_sessions(
    tmp_path: Path,
) -> None:
    from benchmarks.retrieval.harness import session_ranking

    assert session_ranking(["b2", "a1", "b1", "c1"], {"a1": "1", "b1": "2", "b2": "2"}) == (
        "2",
        "1",
    )
    write_beam(tmp_path / "beam")
    dataset = load_dataset("beam", tmp_path)
    run = run_retrieval([dataset], ["bm25", "bm25-sessions", "zenbrain-lexical"])
    sessions = run.result("bm25-sessions", "beam")
    assert [o.retrieved for o in sessions.outcomes] == [(), ()]  # no turns, only sessions
    assert sessions.outcomes[0].evidence_sessions == ("2",)
    assert sessions.outcomes[0].sessions[0] == "2"
    assert sessions.overall().session_recall5 == 1.0
    lexical = run.result("zenbrain-lexical", "beam").outcomes[0]
    session_of = {t.dia_id: str(t.session) for t in dataset.haystacks[0].turns}
    assert "2" in lexical.retrieved[:3]  # the sprint's end
    assert lexical.sessions[:2] == session_ranking(lexical.retrieved, session_of)[:2]
    text = markdown(run, "python -m benchmarks retrieval --write-docs")
    assert "| session recall@5 | bm25 | bm25-sessions | zenbrain-lexical |" in text
    assert "| sessions of the first 10 turns | " in text
    assert "| 1 information_extraction | 1 |" in text


def test_the_clock_at_question_time_is_a_day_after_the_last_turn(tmp_path: Path) -> None:
    from benchmarks.locomo.systems import make_system

    write_beam(tmp_path / "beam")
    (haystack,) = load_dataset("beam", tmp_path).haystacks
    system = make_system("zenbrain-lexical", lambda: None, clock="question")  # type: ignore[arg-type,return-value]
    retriever = system.retriever("beam-1")
    try:
        retriever.index(haystack.turns)
        coordinator = retriever._coordinator  # type: ignore[attr-defined]
        assert coordinator.clock().isoformat() == "2024-04-06T09:01:00+00:00"
    finally:
        retriever.close()
        system.close()
