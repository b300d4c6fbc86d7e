"""The stage ablation of the LoCoMo harness, on a tiny LoCoMo-shaped file."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchmarks.locomo.data import load_locomo
from benchmarks.locomo.stages import VARIANTS, run_stage_ablation, stage_system
from zenbrain.errors import InvalidInputError

QUESTION = "What did Alice do right after the jazz concert?"


def write_sample(path: Path) -> Path:
    turns = [
        ("D1:1", "Alice", "I went to the jazz concert downtown last night."),
        ("D1:2", "Bob", "Then we bought new running shoes at the mall."),
        ("D1:3", "Alice", "My sister loves the saxophone."),
        ("D1:4", "Bob", "The weather was terrible all week."),
    ]
    sample = {
        "sample_id": "conv-stages",
        "conversation": {
            "speaker_a": "Alice",
            "speaker_b": "Bob",
            "session_1_date_time": "1:56 pm on 8 May, 2023",
            "session_1": [{"speaker": s, "dia_id": d, "text": t} for d, s, t in turns],
        },
        "qa": [{"question": QUESTION, "answer": "shoes", "evidence": ["D1:2"], "category": 2}],
    }
    path.write_text(json.dumps([sample]), encoding="utf-8")
    return path


def test_each_variant_runs_on_the_same_questions(tmp_path: Path) -> None:
    conversations = load_locomo(write_sample(tmp_path / "mini.json"))
    run = run_stage_ablation(conversations, ["none", "temporal", "all"], cache_dir=None)
    assert [r.name for r in run.results] == [
        "zenbrain-lexical+none",
        "zenbrain-lexical+temporal",
        "zenbrain-lexical+all",
    ]
    none, temporal, everything = run.results
    # The answer shares no word with the question: only the temporal route reaches it.
    assert none.recall(10) == 0.0
    assert temporal.recall(10) == everything.recall(10) == 1.0
    assert temporal.outcomes[0].retrieved[0] == "D1:1"  # the anchor: the concert
    assert "D1:2" in temporal.outcomes[0].retrieved[:3]


def test_unknown_variants_are_rejected() -> None:
    assert set(VARIANTS) == {"none", "cross_context", "graph", "temporal", "all"}
    with pytest.raises(InvalidInputError, match="unknown variant"):
        stage_system("everything", None)
