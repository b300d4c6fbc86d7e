"""Validity over time through the coordinator, on SQLite and PostgreSQL: supersession on
store (rules, explicit, update), the chain and forget's cascade, recall as of a moment,
time in the question, and bad input changing nothing."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from zenbrain import InvalidInputError, MemoryCoordinator

MAY = datetime(2025, 5, 1, 12, tzinfo=UTC)
OCTOBER = datetime(2025, 10, 1, 12, tzinfo=UTC)


class _Clock:
    def __init__(self, moment: datetime) -> None:
        self.moment = moment

    def __call__(self) -> datetime:
        return self.moment


@pytest.fixture
def clock() -> _Clock:
    return _Clock(MAY)


@pytest.fixture
def timed(store_location: str, clock: _Clock) -> MemoryCoordinator:
    memory = MemoryCoordinator(store_location, clock=clock)
    yield memory  # type: ignore[misc]
    memory.close()


def test_a_newer_value_closes_the_older_and_recall_ranks_it_first(
    timed: MemoryCoordinator, clock: _Clock
) -> None:
    old = timed.store("I attended three sessions of the support group.")
    clock.moment = OCTOBER
    new = timed.store("That was my fifth session of the support group.")
    closed = timed.get(old)
    assert closed is not None
    assert (closed.valid_to, closed.superseded_by, closed.valid_from) == (OCTOBER, new, MAY)
    current = timed.get(new)
    assert current is not None and current.valid_to is None and current.valid_from == OCTOBER
    ranked = timed.recall("how many sessions of the support group did I attend?")
    ids = [r.id for r in ranked]
    assert ids.index(new) < ids.index(old)
    assert all(0.0 <= r.score <= 1.0 for r in ranked)
    by_id = {r.id: r for r in ranked}
    assert by_id[old].superseded_by == new and by_id[old].valid_to == OCTOBER
    # find() and the JSON form carry the interval too.
    [found_old] = [r for r in timed.find() if r.id == old]
    assert found_old.to_dict()["superseded_by"] == new
    assert found_old.to_dict()["valid_to"] == OCTOBER.isoformat()


def test_current_only_and_as_of(timed: MemoryCoordinator, clock: _Clock) -> None:
    old = timed.store("I live in Hamburg near the harbour.")
    clock.moment = OCTOBER
    new = timed.store("I moved to Berlin and live in Kreuzberg now.")
    assert [r.id for r in timed.recall("where do I live", current_only=True, min_score=0.01)] == [
        new
    ]
    then = timed.recall("where do I live", as_of=MAY + timedelta(days=30), min_score=0.01)
    assert [r.id for r in then] == [old]
    before_anything = timed.recall("where do I live", as_of=MAY - timedelta(days=1))
    assert before_anything == []


def test_replacement_found_even_when_the_query_misses_it(
    timed: MemoryCoordinator, clock: _Clock
) -> None:
    old = timed.store("I live in Hamburg.")
    clock.moment = OCTOBER
    new = timed.store("I moved to Berlin.")
    ranked = timed.recall("Hamburg", layers=["semantic"], min_score=0.01)
    assert [r.id for r in ranked] == [new, old]  # the replacement stands in above it
    assert ranked[1].score < ranked[0].score


def test_distractors_do_not_supersede(timed: MemoryCoordinator, clock: _Clock) -> None:
    home = timed.store("I live in Hamburg.")
    clock.moment = OCTOBER
    timed.store_many(
        [
            "If I moved to Berlin I would be closer to my friends.",
            "My sister lives in Vienna.",
            "Do you think I should live in Munich?",
            "I work at Siemens.",
        ]
    )
    found = timed.get(home)
    assert found is not None and found.valid_to is None and found.superseded_by is None


def test_within_one_batch_the_later_item_wins(timed: MemoryCoordinator) -> None:
    ids = timed.store_many(
        [
            {"content": "I work at Siemens.", "created_at": MAY},
            {"content": "I just joined Bosch as an engineer.", "created_at": OCTOBER},
        ]
    )
    first = timed.get(ids[0])
    assert first is not None and first.superseded_by == ids[1]


def test_an_older_statement_stored_later_is_born_closed(timed: MemoryCoordinator) -> None:
    new = timed.store("I moved to Berlin.", created_at=OCTOBER)
    old = timed.store("I live in Hamburg.", created_at=MAY)
    assert (timed.get(new) or pytest.fail()).valid_to is None
    late = timed.get(old)
    assert late is not None and late.superseded_by == new


def test_rules_off_changes_nothing(store_location: str) -> None:
    with MemoryCoordinator(store_location, supersession=False) as memory:
        old = memory.store("I live in Hamburg.", created_at=MAY)
        memory.store("I moved to Berlin.", created_at=OCTOBER)
        assert (memory.get(old) or pytest.fail()).valid_to is None


def test_explicit_supersedes_and_update_build_a_chain(
    timed: MemoryCoordinator, clock: _Clock
) -> None:
    first = timed.store("Project status: planning", metadata={"project": "atlas"})
    clock.moment = MAY + timedelta(days=10)
    second = timed.store("Project status: building", supersedes=[first])
    clock.moment = MAY + timedelta(days=20)
    third = timed.update(second, "Project status: shipped")
    chain = timed.history(second)
    assert [r.id for r in chain] == [first, second, third]
    assert [r.superseded_by for r in chain] == [second, third, None]
    assert chain[2].metadata.get("project") is None  # update copies the old one's metadata
    assert timed.history(third) == chain
    assert timed.history("no-such-id") == []


def test_update_keeps_layer_context_and_metadata(timed: MemoryCoordinator) -> None:
    old = timed.store("Standup at 9:00", metadata={"team": "core"}, context="work")
    new = timed.update(old, "Standup at 9:30")
    stored = timed.get(new)
    assert stored is not None
    assert stored.layer == "semantic"
    assert stored.metadata["team"] == "core" and stored.context == "work"


def test_update_clears_what_is_given_as_none_and_keeps_the_rest(
    timed: MemoryCoordinator,
) -> None:
    old = timed.store("Standup at 9:00", context="work", conversation="standup")
    new = timed.update(old, "Standup at 9:30", context=None)
    stored = timed.get(new)
    assert stored is not None
    assert stored.context is None and stored.conversation == "standup"


def _counts(memory: MemoryCoordinator) -> tuple[int, int]:
    return len(memory.find()), len(memory.working.slots())


@pytest.mark.parametrize(
    "supersedes",
    [["no-such-id"], "not-a-list", [42], ["x" * 40]],
)
def test_bad_supersedes_is_refused_and_changes_nothing(
    timed: MemoryCoordinator, supersedes: object
) -> None:
    timed.store("I live in Kiel.")
    before = _counts(timed)
    with pytest.raises(InvalidInputError):
        timed.store("I live in Bonn.", supersedes=supersedes)  # type: ignore[arg-type]
    assert _counts(timed) == before


def test_another_namespaces_memory_cannot_be_superseded(timed: MemoryCoordinator) -> None:
    other = timed.for_namespace("someone-else")
    theirs = other.store("I live in Kiel.")
    with pytest.raises(InvalidInputError, match="no long-term memory of namespace"):
        timed.store("I live in Bonn.", supersedes=[theirs])
    with pytest.raises(InvalidInputError):
        timed.update(theirs, "I live in Bonn.")
    assert (other.get(theirs) or pytest.fail()).valid_to is None
    assert timed.history(theirs) == []
    assert timed.find() == []


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"as_of": datetime(2025, 1, 1)}, "aware datetime"),
        ({"as_of": "2025-01-01"}, "aware datetime"),
        ({"current_only": "yes"}, "current_only"),
        ({"time_range": (OCTOBER, MAY)}, "end after"),
        ({"time_range": (MAY,)}, "pair"),
        ({"time_range": (datetime(2025, 1, 1), datetime(2025, 2, 1))}, "aware"),
    ],
)
def test_bad_recall_arguments_are_refused(
    timed: MemoryCoordinator, kwargs: dict[str, object], message: str
) -> None:
    with pytest.raises(InvalidInputError, match=message):
        timed.recall("anything", **kwargs)  # type: ignore[arg-type]


def test_forget_in_a_chain_relinks_and_reopens(timed: MemoryCoordinator, clock: _Clock) -> None:
    a = timed.store("I live in Hamburg.")
    clock.moment = MAY + timedelta(days=30)
    b = timed.store("I moved to Berlin.")
    clock.moment = MAY + timedelta(days=60)
    c = timed.store("I moved to Leipzig.")
    assert [r.id for r in timed.history(a)] == [a, b, c]
    timed.forget(b, "semantic")  # the middle one: the chain skips it
    chain = timed.history(a)
    assert [r.id for r in chain] == [a, c] and chain[0].superseded_by == c
    timed.forget(c, "semantic")  # the current one: the previous is current again
    back = timed.get(a)
    assert back is not None and (back.valid_to, back.superseded_by) == (None, None)


def test_time_in_the_question_prefers_that_time(store_location: str) -> None:
    now = datetime(2026, 12, 4, 15, tzinfo=UTC)  # a Friday
    with MemoryCoordinator(store_location, clock=lambda: now) as memory:
        tuesday = memory.store(
            "We talked about the garden plans.", created_at=datetime(2026, 12, 1, 10, tzinfo=UTC)
        )
        other = memory.store(
            "We talked about the garden plans again.",
            created_at=datetime(2026, 11, 20, 10, tzinfo=UTC),
        )
        ranked = memory.recall("what did we talk about last Tuesday about the garden plans")
        assert ranked[0].id == tuesday
        german = memory.recall("Gartenpläne letzten Dienstag garden plans")
        assert german[0].id == tuesday
        span = (datetime(2026, 11, 19, tzinfo=UTC), datetime(2026, 11, 21, tzinfo=UTC))
        assert memory.recall("garden plans", time_range=span)[0].id == other


def test_consolidation_applies_the_rules(tmp_path: Path) -> None:
    path = str(tmp_path / "store.db")
    with MemoryCoordinator(path, supersession=False) as memory:
        fact = memory.store("I live in Hamburg.", created_at=MAY)
        memory.store(
            "I moved to Berlin and I am so thrilled, it is amazing!",
            emotional_weight=0.9,
            created_at=OCTOBER,
        )
    with MemoryCoordinator(path) as memory:
        assert memory.consolidate().promoted == 1
        closed = memory.get(fact)
        assert closed is not None and closed.superseded_by is not None
        made = memory.get(closed.superseded_by)
        assert made is not None and made.layer == "semantic"
        assert made.valid_from == OCTOBER  # true since the episode said it


class _Proposing:
    def __init__(self, answer: object) -> None:
        self.answer = answer
        self.seen: list[Sequence[tuple[str, str]]] = []

    def propose(self, new: str, candidates: Sequence[tuple[str, str]]) -> object:
        self.seen.append(candidates)
        return self.answer(candidates) if callable(self.answer) else self.answer


def test_a_resolver_decides_instead_of_the_rules(store_location: str) -> None:
    resolver = _Proposing(lambda candidates: [candidates[0][0]])
    with MemoryCoordinator(store_location, supersession=resolver) as memory:  # type: ignore[arg-type]
        old = memory.store("The garden gate is painted blue.", created_at=MAY)
        new = memory.store("The garden gate is painted red.", created_at=OCTOBER)
        assert resolver.seen and resolver.seen[-1][0][0] == old
        assert (memory.get(old) or pytest.fail()).superseded_by == new


@pytest.mark.parametrize("garbage", ["yes", [None], ["not-a-candidate"], {"ids": []}, 7])
def test_a_garbage_answer_falls_back_to_the_rules_and_is_logged(
    store_location: str, garbage: object, caplog: pytest.LogCaptureFixture
) -> None:
    resolver = _Proposing(garbage)
    with MemoryCoordinator(store_location, supersession=resolver) as memory:  # type: ignore[arg-type]
        old = memory.store("I live in Hamburg.", created_at=MAY)
        with caplog.at_level(logging.WARNING, logger="zenbrain"):
            new = memory.store("I don't live in Hamburg anymore.", created_at=OCTOBER)
        assert resolver.seen  # it was asked, about the memory sharing words
        assert "resolver answer ignored" in caplog.text
        assert (memory.get(old) or pytest.fail()).superseded_by == new  # the rules decided


def test_supersession_must_be_a_flag_or_a_resolver() -> None:
    with pytest.raises(InvalidInputError, match="supersession"):
        MemoryCoordinator(":memory:", supersession="rules")  # type: ignore[arg-type]


_BUDGET_QUESTION = "What is my monthly book budget?"
_BESIDE = ["The library card renewal is due in June.", "My bike needs new brakes."]


@pytest.mark.parametrize("new_layer", ["episodic", None])
def test_a_newer_change_outranks_an_older_fuller_match_in_any_layer(
    store_location: str, new_layer: str | None
) -> None:
    """The newer memory matches fewer of the question's words ("monthly" is only in the
    older one) but says the value changed: it ranks first, whichever layer routing gave it.
    The rules are off, so this is recall's newer-first step alone."""
    with MemoryCoordinator(store_location, supersession=False) as memory:
        memory.store_many([{"content": text, "created_at": MAY} for text in _BESIDE])
        old = memory.store(
            "My monthly book budget is $35, tracked in a spreadsheet.",
            layer="semantic",
            created_at=MAY,
        )
        placed = {} if new_layer is None else {"layer": new_layer}
        new = memory.store("I've increased the book budget to $50.", created_at=OCTOBER, **placed)
        ranked = memory.recall(_BUDGET_QUESTION)
        assert [r.id for r in ranked[:2]] == [new, old]
        assert ranked[0].score == ranked[1].score  # it took the older one's score
        assert memory.get(old).valid_to is None  # type: ignore[union-attr]  # nothing closed


def test_a_newer_match_that_states_no_change_keeps_its_place(store_location: str) -> None:
    with MemoryCoordinator(store_location, supersession=False) as memory:
        memory.store_many([{"content": text, "created_at": MAY} for text in _BESIDE])
        old = memory.store("My monthly book budget is $35, tracked in a spreadsheet.",
                           created_at=MAY)  # fmt: skip
        new = memory.store("I spent $50 of the book budget on a box set.", created_at=OCTOBER)
        ranked = memory.recall(_BUDGET_QUESTION)
        assert [r.id for r in ranked[:2]] == [old, new]
        assert ranked[0].score > ranked[1].score


def test_memories_spread_over_layers_are_arranged_like_one_layer(tmp_path: Path) -> None:
    """Validity reorders the same depth whether the memories are spread over several
    layers (as routing spreads them) or one layer holds them all: the same memories come
    back in the same order."""
    texts = [
        "Our team standup moved to 9:30 every weekday now.",
        "The standup happens at 9:00 in room 4.",
        "I prefer tea over coffee in the morning.",
        "The standup ran an hour over and I missed the train.",
        "The deploy window is Thursday at 14:00.",
        "The deploy window changed to Friday at 10:00.",
        "Lunch with the team on Friday at the Thai place.",
    ] * 3
    spread = ("episodic", "semantic", "procedural")
    orders = []
    for layer_of in (lambda i: spread[i % 3], lambda i: "episodic"):
        with MemoryCoordinator(str(tmp_path / f"{len(orders)}.db"), supersession=False) as memory:
            memory.store_many(
                [
                    {"content": f"{text} ({i})", "created_at": MAY + timedelta(hours=i),
                     "layer": layer_of(i)}
                    for i, text in enumerate(texts)
                ]
            )  # fmt: skip
            orders.append(
                [
                    [r.content for r in memory.recall(question, limit=3)]
                    for question in ("when is the standup", "deploy window", "team friday")
                ]
            )
    assert orders[0] == orders[1]


def test_a_replaced_memory_fills_in_after_the_current_one(timed: MemoryCoordinator,
                                                           clock: _Clock) -> None:  # fmt: skip
    """When no memory holds a word of the question, results fill in at score 0; what
    was replaced still comes after what replaced it."""
    nurse = timed.store("I work as a nurse at the city hospital.")
    clock.moment = OCTOBER
    teacher = timed.store("I work as a teacher now, I retrained last year.")
    assert (timed.get(nurse) or pytest.fail()).superseded_by == teacher
    ids = [r.id for r in timed.recall("What is my job?")]
    assert ids.index(teacher) < ids.index(nurse)


def test_a_question_about_what_was_said_then_keeps_the_turn_that_said_it(
    timed: MemoryCoordinator, clock: _Clock
) -> None:
    """The newer-first step answers "what is X now". A question about what was said then
    (past tense) is answered by the memory that says it; a much longer newer memory that
    shares the words does not pass the one that matches (docs/benchmarks.md, "Why BEAM's
    sessions rank low"). Both orders were the other way round before."""
    said = timed.store("We chose the blue logo for the harbour app.", layer="episodic")
    backup = timed.store("Anna said the backup of the billing database runs at two.")
    clock.moment = OCTOBER
    timed.store(
        "The harbour app logo drafts came back today: more colours for the logo.",
        layer="episodic",
    )
    timed.store(
        "Anna asked again about the billing database backup window and the disks, the "
        "replicas, the monitoring, the alerts, the runbooks, the staging copies, the "
        "retention rules and the on-call rota for the whole quarter ahead."
    )
    asked = timed.recall("Which logo did we choose for the harbour app?", layers=["episodic"])
    assert asked[0].id == said
    assert timed.recall("billing database backup")[0].id == backup
