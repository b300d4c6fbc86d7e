"""The hostile inputs of issue 12, one by one, on both back ends: each call either works or
raises a ``ZenbrainError`` subclass whose message stays short, and a rejected call changes
nothing. A failure lists every offending case with what it raised."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from zenbrain import InvalidInputError, MemoryCoordinator, ZenbrainError

SURROGATE = "lone \ud800 surrogate"
NUL = "nul \x00 byte"
TEN_MB = "y" * 10_000_000
MESSAGE_LIMIT = 1_000


def _deep(levels: int) -> dict[str, Any]:
    inner: dict[str, Any] = {"leaf": 1}
    for _ in range(levels):
        inner = {"a": inner}
    return inner


Case = Callable[[MemoryCoordinator, list[str]], object]


def _bad_text_cases(label: str, bad: str) -> dict[str, Case]:
    """Every text argument of the API, one at a time, holding ``bad``."""
    return {
        f"store(content={label})": lambda m, ids: m.store(bad),
        f"store(context={label})": lambda m, ids: m.store("ok", context=bad),
        f"store(source={label})": lambda m, ids: m.store("ok", source=bad),
        f"store(outcome={label})": lambda m, ids: m.store("ok", steps=["a"], outcome=bad),
        f"store(steps=[{label}])": lambda m, ids: m.store("ok", steps=[bad]),
        f"store(tools=[{label}])": lambda m, ids: m.store("ok", steps=["a"], tools=[bad]),
        f"store(metadata value {label})": lambda m, ids: m.store("ok", metadata={"k": bad}),
        f"store(metadata key {label})": lambda m, ids: m.store("ok", metadata={bad: 1}),
        f"store(layer={label})": lambda m, ids: m.store("ok", layer=bad),
        f"store_many([{label}])": lambda m, ids: m.store_many(["fine", bad]),
        f"store_many(context={label})": lambda m, ids: m.store_many(
            [{"content": "ok"}, {"content": "ok", "context": bad}]
        ),
        f"recall(query={label})": lambda m, ids: m.recall(bad),
        f"recall(context={label})": lambda m, ids: m.recall("ok", context=bad),
        f"recall(layers=[{label}])": lambda m, ids: m.recall("ok", layers=[bad]),
        f"set_core_block(label={label})": lambda m, ids: m.set_core_block(bad, "x"),
        f"set_core_block(content={label})": lambda m, ids: m.set_core_block("persona", bad),
        f"delete_core_block({label})": lambda m, ids: m.delete_core_block(bad),
        f"start_session({label})": lambda m, ids: m.start_session(bad),
        f"add_interaction(role={label})": lambda m, ids: m.add_interaction(bad, "hi"),
        f"add_interaction(content={label})": lambda m, ids: m.add_interaction("user", bad),
        f"add_interaction(metadata={label})": lambda m, ids: m.add_interaction(
            "user", "hi", {"k": bad}
        ),
        f"clear_session({label})": lambda m, ids: m.clear_session(bad),
        f"get({label})": lambda m, ids: m.get(bad),
        f"forget(id={label})": lambda m, ids: m.forget(bad, "semantic"),
        f"forget(layer={label})": lambda m, ids: m.forget(ids[0], bad),
        f"record_review({label})": lambda m, ids: m.record_review(bad, 3),
        f"procedure_feedback({label})": lambda m, ids: m.procedure_feedback(bad, True),
        f"for_namespace({label})": lambda m, ids: m.for_namespace(bad).store("ok"),
        f"open(namespace={label})": lambda m, ids: MemoryCoordinator(
            m.database.url, namespace=bad
        ).close(),
        f"open(contexts=[{label}])": lambda m, ids: MemoryCoordinator(
            m.database.url, contexts=["work", bad]
        ).close(),
    }


CASES: dict[str, Case] = {
    **_bad_text_cases("surrogate", SURROGATE),
    **_bad_text_cases("NUL", NUL),
    **_bad_text_cases("10 MB", TEN_MB),
    "store(created_at=9999-12-31)": lambda m, ids: m.store(
        "late", layer="semantic", created_at=datetime(9999, 12, 31, 23, 59, 59, tzinfo=UTC)
    ),
    "store(created_at='9999-12-31T23:59:59')": lambda m, ids: m.store(
        "late", layer="semantic", created_at="9999-12-31T23:59:59"
    ),
    "store(created_at=0001-01-01)": lambda m, ids: m.store(
        "early", layer="semantic", created_at=datetime(1, 1, 1)
    ),
    "store(created_at=0001-01-01, episodic)": lambda m, ids: m.store(
        "early", layer="episodic", created_at="0001-01-01T00:00:00"
    ),
    "store(metadata nested 100,000 deep)": lambda m, ids: m.store("deep", metadata=_deep(100_000)),
    "add_interaction(metadata nested 100,000 deep)": lambda m, ids: m.add_interaction(
        "user", "deep", _deep(100_000)
    ),
    "store(metadata with NaN)": lambda m, ids: m.store("nan", metadata={"x": float("nan")}),
    "store(metadata with a set)": lambda m, ids: m.store("set", metadata={"x": {1, 2}}),
    "store_many(None)": lambda m, ids: m.store_many(None),  # type: ignore[arg-type]
    "store_many(42)": lambda m, ids: m.store_many(42),  # type: ignore[arg-type]
    "store_many('text')": lambda m, ids: m.store_many("text"),
    "store_many({'content': ...})": lambda m, ids: m.store_many({"content": "x"}),  # type: ignore[arg-type]
    "store_many(b'bytes')": lambda m, ids: m.store_many(b"bytes"),  # type: ignore[arg-type]
    "store_many([None])": lambda m, ids: m.store_many([None]),  # type: ignore[list-item]
    "store_many(one bad dict last)": lambda m, ids: m.store_many(
        ["good one", {"content": "good two"}, {"no content": 1}]
    ),
    "open(working_capacity=0)": lambda m, ids: MemoryCoordinator(
        m.database.url, working_capacity=0
    ).close(),
    "open(working_capacity='7')": lambda m, ids: MemoryCoordinator(
        m.database.url,
        working_capacity="7",  # type: ignore[arg-type]
    ).close(),
    "open(working_capacity=True)": lambda m, ids: MemoryCoordinator(
        m.database.url, working_capacity=True
    ).close(),
    "open(working_capacity=-3)": lambda m, ids: MemoryCoordinator(
        m.database.url, working_capacity=-3
    ).close(),
    "open(contexts='work')": lambda m, ids: MemoryCoordinator(
        m.database.url, contexts="work"
    ).close(),
    "open(contexts=42)": lambda m, ids: MemoryCoordinator(
        m.database.url,
        contexts=42,  # type: ignore[arg-type]
    ).close(),
    "record_review(123, 3)": lambda m, ids: m.record_review(123, 3),  # type: ignore[arg-type]
    "record_review(None, 3)": lambda m, ids: m.record_review(None, 3),  # type: ignore[arg-type]
    "record_review(id, 5)": lambda m, ids: m.record_review(ids[0], 5),
    "record_review(id, True)": lambda m, ids: m.record_review(ids[0], True),
    "record_review(id, 3.0)": lambda m, ids: m.record_review(ids[0], 3.0),  # type: ignore[arg-type]
    "forget(123, 'semantic')": lambda m, ids: m.forget(123, "semantic"),  # type: ignore[arg-type]
    "get(123)": lambda m, ids: m.get(123),  # type: ignore[arg-type]
    "get(['id'])": lambda m, ids: m.get([ids[0]]),  # type: ignore[arg-type]
    "procedure_feedback(id, 'yes')": lambda m, ids: m.procedure_feedback(ids[2], "yes"),  # type: ignore[arg-type]
    "recall(limit=0)": lambda m, ids: m.recall("ok", limit=0),
    "recall(limit=10**12)": lambda m, ids: m.recall("ok", limit=10**12),
    "recall(limit=True)": lambda m, ids: m.recall("ok", limit=True),
    "recall(min_score=nan)": lambda m, ids: m.recall("ok", min_score=float("nan")),
    "recall(min_confidence=inf)": lambda m, ids: m.recall("ok", min_confidence=float("inf")),
    "recall(layers='semantic')": lambda m, ids: m.recall("ok", layers="semantic"),
    "recall(layers=[])": lambda m, ids: m.recall("ok", layers=[]),
    "recall(core='sometimes')": lambda m, ids: m.recall("ok", core="sometimes"),  # type: ignore[arg-type]
    "store(emotional_weight=nan)": lambda m, ids: m.store("ok", emotional_weight=float("nan")),
    "store(confidence=1e308)": lambda m, ids: m.store("ok", confidence=1e308),
    "store(confidence=True)": lambda m, ids: m.store("ok", confidence=True),
    "store(steps='one string')": lambda m, ids: m.store("ok", steps="one string"),
    "conversation(limit=-1)": lambda m, ids: m.conversation(limit=-1),
    "review_queue(limit=10**30)": lambda m, ids: m.review_queue(limit=10**30),
    "merge_candidates(limit='5')": lambda m, ids: m.merge_candidates(limit="5"),  # type: ignore[arg-type]
    "embed_missing(batch_size=0)": lambda m, ids: m.embed_missing(batch_size=0),
}


def run_cases(memory: MemoryCoordinator, ids: list[str], snapshot: Any) -> dict[str, list[str]]:
    """Every case; returns the raw exceptions, the long messages and the changes made by
    rejected calls, by case."""
    found: dict[str, list[str]] = {"raw exceptions": [], "long messages": [], "changed": []}
    for name, case in CASES.items():
        before = snapshot(memory)
        try:
            case(memory, ids)
        except ZenbrainError as exc:
            if len(str(exc)) > MESSAGE_LIMIT:
                found["long messages"].append(f"{name}: {len(str(exc)):,} characters")
            if snapshot(memory) != before:
                found["changed"].append(name)
        except Exception as exc:
            found["raw exceptions"].append(f"{name}: {type(exc).__name__}: {str(exc)[:120]}")
    return found


@pytest.mark.slow
def test_hostile_inputs_raise_zenbrain_errors_and_change_nothing(seeded: Any) -> None:
    found = run_cases(seeded.memory, seeded.ids, seeded.snapshot)
    counts = {kind: len(cases) for kind, cases in found.items()}
    report = "\n".join(f"{kind}: {case}" for kind, cases in found.items() for case in cases)
    assert counts == {"raw exceptions": 0, "long messages": 0, "changed": 0}, (
        f"{counts} of {len(CASES)} cases\n{report}"
    )


@pytest.mark.parametrize(
    "bad",
    [{"working_capacity": 0}, {"working_capacity": "7"}, {"contexts": 42}, {"namespace": ""}],
)
def test_bad_constructor_arguments_are_rejected_before_the_file_is_created(
    tmp_path: Path, bad: dict[str, Any]
) -> None:
    path = tmp_path / "never-created.db"
    with pytest.raises(InvalidInputError):
        MemoryCoordinator(path, **bad)
    assert not path.exists()


def test_nul_is_rejected_on_both_back_ends_alike(store_location: str) -> None:
    """PostgreSQL cannot store NUL in text; SQLite could. Both refuse it the same way."""
    with MemoryCoordinator(store_location) as memory:
        with pytest.raises(InvalidInputError, match="NUL"):
            memory.store("before\x00after")
        with pytest.raises(InvalidInputError, match="NUL"):
            memory.store("ok", metadata={"note": "a\x00b"})
        assert memory.health().semantic["count"] + memory.health().episodic["count"] == 0


@pytest.mark.parametrize(
    "call",
    [
        pytest.param(lambda m, fact: m.get(f"{fact}\x00"), id="get"),
        pytest.param(lambda m, fact: m.forget(f"{fact}\x00", "semantic"), id="forget"),
        pytest.param(lambda m, fact: m.record_review(f"{fact}\x00", 3), id="record_review"),
        pytest.param(lambda m, fact: m.procedure_feedback(f"{fact}\x00", True), id="feedback"),
        pytest.param(lambda m, fact: m.add_interaction("user", "a\x00b"), id="add_interaction"),
        pytest.param(
            lambda m, fact: m.add_interactions([{"role": "user", "content": "a\x00b"}]),
            id="add_interactions",
        ),
    ],
)
def test_nul_in_an_id_or_an_interaction_is_refused_on_both_back_ends(
    store_location: str, call: Callable[[MemoryCoordinator, str], object]
) -> None:
    """PostgreSQL raised StorageError here and SQLite found nothing (or stored the NUL):
    both now refuse it, naming the NUL, and nothing changes."""
    with MemoryCoordinator(store_location) as memory:
        fact = memory.store("the sky is blue", layer="semantic")
        with pytest.raises(InvalidInputError, match="NUL"):
            call(memory, fact)
        assert memory.get(fact) is not None
        assert memory.conversation() == []
