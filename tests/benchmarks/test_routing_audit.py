"""The routing audit: every item stored without a layer, counted where routing put it."""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path

import pytest

from benchmarks.locomo.data import Turn
from benchmarks.retrieval.datasets import BENCH_DATA_ENV_VAR, Dataset, Haystack
from benchmarks.retrieval.routing_audit import (
    audit_dataset,
    main,
    markdown,
    spread_sample,
    step_trigger,
)
from zenbrain.errors import InvalidInputError

WHEN = datetime(2024, 5, 1, 12, 0)
TEXTS = [
    "Ana: We moved to Porto in 2019.",
    "Bot: To bake it:\n1. Preheat the oven.\n2. Do not over-bake.",
    "Ana: I was thrilled, so excited and overjoyed, the best day ever, amazing!",
    "How to fix a flat: take the wheel off and patch the tube.",
    "Ben: The bus leaves at eight.",
]


def _dataset() -> Dataset:
    turns = tuple(Turn(f"D1:{i}", 1, "x", text, WHEN) for i, text in enumerate(TEXTS))
    half = (Haystack("a", turns[:3], ()), Haystack("b", turns[3:], ()))
    return Dataset("tiny", half, {})


def test_every_item_is_counted_in_the_layer_routing_chose(tmp_path: Path) -> None:
    result = audit_dataset(_dataset(), str(tmp_path / "audit.db"))
    assert result.items == 5
    assert sum(result.counts.values()) == 5
    assert result.counts["procedural"] == 2
    assert result.counts["episodic"] == 1
    assert result.counts["semantic"] == 2
    assert set(result.by_layer["procedural"]) == {TEXTS[1], TEXTS[3]}
    text = markdown([result], 10, "cmd")
    assert "| tiny | 5 | 2 (40.0%) | 1 (20.0%) | 2 (40.0%) | 0 (0.0%) |" in text
    assert "| step lines | Bot: To bake it:" in text
    assert "'How to'" in text


def test_the_sample_is_spread_over_the_items() -> None:
    items = [str(i) for i in range(100)]
    assert spread_sample(items, 4) == ["0", "25", "50", "75"]
    assert spread_sample(items[:3], 10) == ["0", "1", "2"]
    with pytest.raises(InvalidInputError):
        spread_sample(items, 0)
    assert step_trigger("The bus leaves at eight.") == "-"


def test_the_command_audits_a_dataset_from_the_cache_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "madial-bench"
    folder.mkdir()
    memories = [
        {str(i): {"time": "2023-05-0" + str(i), "event": text}}
        for i, text in enumerate(["Lisa was thrilled and so excited to win!", "Bart ate."], 1)
    ]
    (folder / "MADial-Bench-en-memory.json").write_text(
        "\n".join(json.dumps(m) for m in memories), encoding="utf-8"
    )
    (folder / "MADial-Bench-en-dialogue.json").write_text("", encoding="utf-8")
    monkeypatch.setenv(BENCH_DATA_ENV_VAR, str(tmp_path))
    docs = tmp_path / "benchmarks.md"
    docs.write_text("# Benchmarks\n\n## Other\n\nkept\n", encoding="utf-8")
    assert (
        main(["--datasets", "madial-bench", "--sample", "3", "--write-docs", "--docs", str(docs)])
        == 0
    )
    out = capsys.readouterr().out
    assert "| madial-bench | 2 | 1 (50.0%) | 1 (50.0%) |" in out
    written = docs.read_text(encoding="utf-8")
    assert "## Other\n\nkept" in written and "| madial-bench | 2 |" in written
    assert main(["--datasets", "realtalk"]) == 2  # not in the folder: says how to get it
    assert "Fill it with" in capsys.readouterr().err
