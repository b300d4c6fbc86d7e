"""ZenBrainSession next to the SDK's own SQLiteSession, and its one-transaction writes."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from agents import Agent, Runner, SQLiteSession, set_tracing_disabled
from agents.memory import Session, SessionSettings
from agents.testing import ModelCall, ScriptedModel, assistant_message, function_call
from zenbrain_openai_agents import ZenBrainSession, memory_tools

from zenbrain import MemoryCoordinator
from zenbrain.errors import InvalidInputError

RECALL_NULLS = dict.fromkeys(("layers", "limit", "min_score", "min_confidence", "core"))


@pytest.fixture(autouse=True)
def no_trace_export() -> Iterator[None]:
    set_tracing_disabled(True)
    yield
    set_tracing_disabled(False)


@pytest.fixture
def db(tmp_path: Path) -> Path:
    return tmp_path / "session.db"


@pytest.fixture
def memory(db: Path) -> Iterator[MemoryCoordinator]:
    with MemoryCoordinator(db) as coordinator:
        yield coordinator


MIXED_ITEMS: list[Any] = [
    {"role": "user", "content": "Plan my trip to Kiel."},
    {
        "type": "function_call",
        "call_id": "c1",
        "name": "zenbrain_recall",
        "arguments": '{"query": "Kiel"}',
    },
    {"type": "function_call_output", "call_id": "c1", "output": '{"count": 0, "results": []}'},
    {
        "type": "reasoning",
        "id": "rs_1",
        "summary": [{"type": "summary_text", "text": "Nothing known yet."}],
    },
    {
        "type": "message",
        "role": "assistant",
        "id": "msg_1",
        "status": "completed",
        "content": [{"type": "output_text", "text": "Kiel is lovely.", "annotations": []}],
    },
    {"role": "user", "content": [{"type": "input_text", "text": "Thanks! Cut emoji \ud83d"}]},
]


async def _sequence(session: Session) -> list[Any]:
    """One call sequence; everything it observes."""
    seen: list[Any] = []
    await session.add_items(MIXED_ITEMS[:3])
    await session.add_items([])
    await session.add_items(MIXED_ITEMS[3:])
    for limit in (None, 2, 0, -1, 100):
        seen.append(await session.get_items(limit))
    seen.append(await session.pop_item())
    seen.append(await session.get_items())
    await session.clear_session()
    seen.append(await session.get_items())
    seen.append(await session.pop_item())
    await session.add_items([{"role": "user", "content": "again"}])
    seen.append(await session.get_items())
    return seen


async def test_the_same_calls_give_what_sqlite_session_gives(
    memory: MemoryCoordinator, tmp_path: Path
) -> None:
    reference = SQLiteSession("thread", str(tmp_path / "sdk.db"))
    ours = ZenBrainSession("thread", memory)
    assert await _sequence(ours) == await _sequence(reference)


async def test_session_settings_limit_applies_like_sqlite_session(
    memory: MemoryCoordinator,
) -> None:
    settings = SessionSettings(limit=2)
    ours = ZenBrainSession("s", memory, session_settings=settings)
    reference = SQLiteSession("s", session_settings=settings)
    for session in (ours, reference):
        await session.add_items([{"role": "user", "content": f"m{n}"} for n in range(5)])
    assert await ours.get_items() == await reference.get_items()
    assert await ours.get_items(limit=4) == await reference.get_items(limit=4)


async def test_items_and_memories_are_written_in_one_transaction(
    memory: MemoryCoordinator,
) -> None:
    session = ZenBrainSession("t", memory)
    await session.add_items(
        [
            {"role": "user", "content": "I am vegan."},
            {"role": "assistant", "content": "Noted: vegan."},
            {"role": "user", "content": "What should I cook tonight?"},
        ]
    )
    assert len(await session.get_items()) == 3
    # Only the turn that states something: not the question, not the assistant's words.
    assert [r.content for r in memory.find()] == ["I am vegan."]


async def test_a_user_turn_of_a_million_characters_is_kept_as_sqlite_session_keeps_it(
    memory: MemoryCoordinator, tmp_path: Path
) -> None:
    """The item's copy of its text used to count against the metadata limit and fail the
    whole run ("metadata has 1,176,051 characters as JSON"); now the run goes through and
    the history is what SQLiteSession holds after the same run."""
    turn = "I like " + "very " * 220_000 + "long walks."  # about 1.1 million characters
    histories = []
    for session in (
        ZenBrainSession("long", memory),
        SQLiteSession("long", str(tmp_path / "sdk.db")),
    ):
        agent = Agent(name="Assistant", model=ScriptedModel([[assistant_message("Noted.")]]))
        result = await Runner.run(agent, turn, session=session)
        assert result.final_output == "Noted."
        histories.append(await session.get_items())
    ours, reference = histories
    assert ours == reference
    assert ours[0] == {"role": "user", "content": turn}
    # Reopened from the file, the item comes back whole too.
    with MemoryCoordinator(memory.database.path) as again:
        assert (await ZenBrainSession("long", again).get_items())[0]["content"] == turn
    # Too long for a long-term memory (1,000,000 characters at most): history only.
    assert memory.find() == []


async def test_an_item_whose_other_fields_are_too_large_is_refused_with_nothing_written(
    memory: MemoryCoordinator,
) -> None:
    session = ZenBrainSession("long", memory)
    huge_call = {
        "type": "function_call",
        "call_id": "c1",
        "name": "zenbrain_store",
        "arguments": json.dumps({"content": "very " * 250_000}),
    }
    items: list[Any] = [{"role": "user", "content": "I live in Kiel."}, huge_call]
    with pytest.raises(InvalidInputError, match="1,000,000"):
        await session.add_items(items)
    assert await session.get_items() == []  # all or nothing: not even the short turn
    assert memory.find() == []


async def test_text_parts_outputs_and_nul_come_back_exactly(memory: MemoryCoordinator) -> None:
    items: list[Any] = [
        {"role": "user", "content": [{"type": "input_text", "text": "one part"}]},
        {"type": "function_call_output", "call_id": "c1", "output": "x" * 1_100_000},
        {"role": "user", "content": "nul \x00 inside"},
        {"role": "user", "content": [{"type": "input_text", "text": "a"}, {"text": "b"}]},
    ]
    session = ZenBrainSession("parts", memory)
    await session.add_items(items)
    assert await session.get_items() == items
    shown = [i.content for i in memory.conversation(session_id="parts")]
    assert shown[2] == "nul \ufffd inside"  # the readable copy; the item keeps the NUL


async def test_the_users_question_is_not_recalled_back_as_a_fact_in_the_same_turn(
    memory: MemoryCoordinator,
) -> None:
    def answer(call: ModelCall) -> list[Any]:
        outputs = [
            json.loads(item["output"])
            for item in call.input
            if isinstance(item, dict) and item.get("type") == "function_call_output"
        ]
        return [assistant_message(json.dumps(outputs[-1]))]

    from agents.testing import ModelStep

    recall = {**RECALL_NULLS, "query": "where is my boat moored", "min_score": 0.01}
    model = ScriptedModel(
        [[function_call("zenbrain_recall", recall, call_id="r")], ModelStep.respond(answer)]
    )
    agent = Agent(name="Assistant", model=model, tools=memory_tools(memory))
    session = ZenBrainSession("boat", memory)
    result = await Runner.run(agent, "Where is my boat moored?", session=session)
    assert json.loads(result.final_output)["count"] == 0
    assert memory.find() == []


async def test_a_long_session_id_and_a_lone_surrogate_do_not_fail_the_run(
    memory: MemoryCoordinator,
) -> None:
    session = ZenBrainSession("t" * 200, memory)
    model = ScriptedModel([[assistant_message("Sure.")]])
    agent = Agent(name="Assistant", model=model)
    result = await Runner.run(agent, "I moved to Kiel last spring \ud83d", session=session)
    assert result.final_output == "Sure."
    items: list[Any] = await session.get_items()
    assert items[0]["content"] == "I moved to Kiel last spring \ud83d"
    assert [r.content for r in memory.find()] == ["I moved to Kiel last spring \ufffd"]
