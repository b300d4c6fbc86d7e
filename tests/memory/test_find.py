"""Memories by metadata, on both back ends: find, recall(where=...), atomic replace,
namespaces by prefix and dropping a namespace."""

from __future__ import annotations

import threading

import pytest

from zenbrain import InvalidInputError, MemoryCoordinator
from zenbrain._memory import candidates as candidate_search
from zenbrain.types import RecallResult


def test_find_matches_every_key_exactly_oldest_first(memory: MemoryCoordinator) -> None:
    first = memory.store("alpha note", layer="semantic", metadata={"user": "a", "n": 1})
    second = memory.store("beta note", layer="episodic", metadata={"user": "a", "n": 1.0})
    memory.store("gamma note", layer="semantic", metadata={"user": "b", "n": 1})
    flagged = memory.store("delta note", layer="semantic", metadata={"user": "a", "n": True})
    nulled = memory.store("epsilon note", layer="semantic", metadata={"user": "a", "n": None})
    memory.store("zeta note", layer="semantic", metadata={"user": "a"})
    assert [r.id for r in memory.find({"user": "a", "n": 1})] == [first, second]
    assert [r.id for r in memory.find({"n": True})] == [flagged]
    assert [r.id for r in memory.find({"n": None})] == [nulled]
    assert [r.id for r in memory.find({"user": "a", "n": 1}, layers=["episodic"])] == [second]
    assert [r.id for r in memory.find({"user": "a"}, limit=2, offset=1)] == [second, flagged]
    assert len(memory.find()) == 6
    assert all(r.score == 1.0 for r in memory.find({"user": "a"}))
    assert memory.find({"user": "nobody"}) == []


def test_find_stays_in_its_namespace(memory: MemoryCoordinator) -> None:
    other = memory.for_namespace("other")
    other.store("hidden", layer="semantic", metadata={"k": "v"})
    assert memory.find({"k": "v"}) == []
    assert len(other.find({"k": "v"})) == 1


@pytest.mark.parametrize(
    "bad",
    [
        {"k": {"nested": 1}},
        {"k": [1, 2]},
        {"": 1},
        {1: "x"},
        "k=v",
        {"k": float("nan")},
        {"k": 2**70},
        {"k": "a\x00b"},
        {"k\x00": 1},
        {"k": "\ud800"},
    ],
)
def test_find_refuses_what_it_cannot_match_exactly(memory: MemoryCoordinator, bad: object) -> None:
    with pytest.raises(InvalidInputError):
        memory.find(bad)  # type: ignore[arg-type]


def test_recall_where_filters_before_ranking(memory: MemoryCoordinator) -> None:
    wanted = memory.store(
        "A long note that only mentions the deploy once among many other words",
        layer="semantic",
        metadata={"user": "alice"},
    )
    memory.store_many(
        [
            {
                "content": f"deploy deploy script {i}",
                "layer": "semantic",
                "metadata": {"user": "bob"},
            }
            for i in range(120)
        ]
    )
    hits = memory.recall("deploy", where={"user": "alice"}, limit=1, min_score=0.01)
    assert [hit.id for hit in hits] == [wanted]
    assert memory.recall("deploy", where={"user": "carol"}, min_score=0.01) == []
    assert all(
        hit.metadata["user"] == "bob"
        for hit in memory.recall("deploy", where={"user": "bob"}, limit=20)
    )


def test_recall_where_applies_to_core_and_fill_ins(memory: MemoryCoordinator) -> None:
    memory.set_core_block("persona", "Anna")
    tagged = memory.store("unrelated words here", layer="episodic", metadata={"t": 1})
    memory.store("other unrelated words", layer="episodic", metadata={"t": 2})
    hits = memory.recall("nothing matches this", where={"t": 1})
    assert [hit.id for hit in hits] == [tagged]
    assert hits[0].score == 0.0


def test_replace_swaps_every_match_for_one_memory(memory: MemoryCoordinator) -> None:
    memory.store("old value one", layer="semantic", metadata={"key": "k", "extra": 1})
    memory.store("old value two", layer="episodic", metadata={"key": "k"})
    kept = memory.store("another key", layer="semantic", metadata={"key": "other"})
    new = memory.replace({"key": "k"}, "the new value", metadata={"extra": 2})
    found = memory.find({"key": "k"})
    assert [(r.id, r.content, r.metadata["extra"]) for r in found] == [(new, "the new value", 2)]
    assert memory.get(kept) is not None
    assert memory.recall("old", min_score=0.01) == []
    again = memory.replace({"key": "k"}, "newest value", layer="episodic")
    assert [r.id for r in memory.find({"key": "k"})] == [again]
    assert memory.get(new) is None


def test_a_rejected_replace_changes_nothing(memory: MemoryCoordinator) -> None:
    old = memory.store("old value", layer="semantic", metadata={"key": "k"})
    with pytest.raises(InvalidInputError):
        memory.replace({"key": "k"}, "")
    with pytest.raises(InvalidInputError):
        memory.replace({}, "no match given")
    with pytest.raises(InvalidInputError):
        memory.replace({"key": "k"}, "working", layer="working")
    with pytest.raises(InvalidInputError):
        memory.replace({"key": "k"}, "typo", layr="semantic")  # type: ignore[call-arg]
    assert [r.id for r in memory.find({"key": "k"})] == [old]


def test_concurrent_replaces_of_one_match_leave_one_memory(store_location: str) -> None:
    writers = 6
    coordinators = [MemoryCoordinator(store_location) for _ in range(writers)]
    try:
        coordinators[0].store("seed", layer="semantic", metadata={"key": "shared"})
        start = threading.Barrier(writers)
        errors: list[BaseException] = []

        def replace(i: int) -> None:
            try:
                start.wait(30)
                for round_ in range(3):
                    coordinators[i].replace({"key": "shared"}, f"value {i} round {round_}")
            except BaseException as exc:
                errors.append(exc)

        threads = [threading.Thread(target=replace, args=(i,)) for i in range(writers)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(120)
        assert errors == []
        assert len(coordinators[0].find({"key": "shared"})) == 1
        assert coordinators[0].health().semantic["count"] == 1
    finally:
        for coordinator in coordinators:
            coordinator.close()


def test_namespaces_by_prefix(memory: MemoryCoordinator) -> None:
    memory.for_namespace("chat/alice").store("a")
    memory.for_namespace("chat/bob").add_interaction("user", "hi")
    memory.for_namespace("chat_x").store("c")
    memory.for_namespace("other").store("d")
    assert memory.namespaces("chat/") == ["chat/alice", "chat/bob"]
    assert memory.namespaces("chat_") == ["chat_x"]
    assert memory.namespaces("c%") == []
    assert memory.namespaces() == ["chat/alice", "chat/bob", "chat_x", "other"]
    for bad in (None, "\x00", "\ud800", "x" * 201):
        with pytest.raises(InvalidInputError):
            memory.namespaces(bad)  # type: ignore[arg-type]


def test_drop_namespace_deletes_only_that_namespace(memory: MemoryCoordinator) -> None:
    doomed = memory.for_namespace("doomed")
    kept = memory.for_namespace("kept")
    doomed.store_many(
        ["one fact", "two facts", {"content": "A great trip", "layer": "episodic",
                                   "emotional_weight": 0.9}]
    )  # fmt: skip
    doomed.set_core_block("persona", "Anna")
    doomed.add_interaction("user", "hello")
    assert doomed.consolidate().promoted == 1
    kept.store("survivor", layer="semantic")
    kept.add_interaction("user", "still here")
    assert doomed.drop_namespace() == 5
    assert memory.namespaces() == ["kept"]
    assert doomed.find() == [] and doomed.conversation() == [] and doomed.core_blocks() == []
    assert doomed.recall("fact", min_score=0.01) == []
    assert [r.content for r in kept.find()] == ["survivor"]
    assert [i.content for i in kept.conversation()] == ["still here"]
    assert doomed.drop_namespace() == 0


def test_recall_where_with_a_large_match_widens_the_pools(memory: MemoryCoordinator) -> None:
    memory.store_many(
        [{"content": f"deploy deploy deploy {i}", "metadata": {"team": "b"}} for i in range(300)]
        + [{"content": f"deploy note {i}", "metadata": {"team": "a"}} for i in range(2_100)]
    )
    hits = memory.recall("deploy", where={"team": "a"}, limit=3, min_score=0.01)
    assert len(hits) == 3
    assert all(hit.metadata["team"] == "a" and hit.score > 0 for hit in hits)


# ---------------------------------------------------------------------- subtree reads
def _store_in(memory: MemoryCoordinator, namespaces: list[str]) -> None:
    for name in namespaces:
        memory.for_namespace(name).store(
            f"tea note of {name}", layer="semantic", metadata={"kind": "note"}
        )


def _namespaces_of(results: list[RecallResult]) -> list[str]:
    return sorted(str(r.namespace) for r in results)


def test_find_subtree_reads_the_namespace_and_those_below_it(memory: MemoryCoordinator) -> None:
    below = ["default.users", "default.users.ada", "default.users.ada.notes", "default.users.bo"]
    beside = ["default", "default.usersX", "default.users_", "default.user", "defaultXusers.a"]
    _store_in(memory, [*below, *beside, "other.users.ada", "Default.users.ada"])
    users = memory.for_namespace("default.users")
    assert _namespaces_of(users.find(subtree=True)) == sorted(below)
    assert _namespaces_of(users.find({"kind": "note"}, subtree=True, limit=2, offset=1)) == [
        "default.users.ada",
        "default.users.ada.notes",
    ]
    # Without subtree: the namespace alone, and no namespace key added to the metadata.
    own = users.find()
    assert [r.content for r in own] == ["tea note of default.users"]
    assert "namespace" not in own[0].metadata
    assert _namespaces_of(memory.for_namespace("default.users.bo").find(subtree=True)) == [
        "default.users.bo"
    ]
    # A child never sees its parent or siblings.
    ada = memory.for_namespace("default.users.ada")
    assert _namespaces_of(ada.find(subtree=True)) == sorted(below[1:3])


@pytest.mark.parametrize("root", ["a%b", "a_b", "a\\b", "Team"])
def test_find_subtree_takes_like_wildcards_and_case_literally(
    memory: MemoryCoordinator, root: str
) -> None:
    lookalikes = ["axb.c", "a%b.c", "a_b.c", "aXb.c", "a\\b.c", "ab.c", "team.c", "TEAM.c"]
    _store_in(memory, [name for name in lookalikes if not name.startswith(root + ".")])
    _store_in(memory, [root, root + ".c", root + ".c.d"])
    found = memory.for_namespace(root).find(subtree=True)
    assert _namespaces_of(found) == sorted([root, root + ".c", root + ".c.d"])


def test_recall_subtree_ranks_the_whole_subtree(memory: MemoryCoordinator) -> None:
    users = memory.for_namespace("default.users")
    memory.for_namespace("default.users.ada").store("Ada likes green tea", layer="semantic")
    memory.for_namespace("default.users.bo").store(
        "Bo likes black tea", layer="semantic", metadata={"kind": "note"}
    )
    memory.for_namespace("default.usersX").store("X likes tea", layer="semantic")
    memory.store("the root likes tea", layer="semantic")
    users.store("a shared fact about coffee", layer="episodic")
    found = users.recall("tea", subtree=True, min_score=0.01)
    assert _namespaces_of(found) == ["default.users.ada", "default.users.bo"]
    assert users.recall("tea", min_score=0.01) == []
    assert users.recall("green tea", subtree=True)[0].content == "Ada likes green tea"
    noted = users.recall("tea", subtree=True, where={"kind": "note"}, layers=["semantic"])
    assert [r.content for r in noted] == ["Bo likes black tea"]
    # Nothing matches: the subtree's newest memories of each layer fill in with score 0.
    fill = users.recall("zebra", subtree=True, layers=["semantic", "episodic"], limit=5)
    assert {r.score for r in fill} == {0.0} and len(fill) == 3


async def test_async_twins_read_the_subtree(memory: MemoryCoordinator) -> None:
    _store_in(memory, ["default.users.ada", "default.users2"])
    users = memory.for_namespace("default.users")
    assert _namespaces_of(await users.afind(subtree=True)) == ["default.users.ada"]
    found = await users.arecall("tea note", subtree=True, min_score=0.01)
    assert _namespaces_of(found) == ["default.users.ada"]


@pytest.mark.parametrize("bad", ["yes", 1, None, 0.0, [True]])
def test_subtree_must_be_a_bool(memory: MemoryCoordinator, bad: object) -> None:
    memory.store("tea", layer="semantic")
    with pytest.raises(InvalidInputError, match="subtree"):
        memory.find(subtree=bad)  # type: ignore[arg-type]
    with pytest.raises(InvalidInputError, match="subtree"):
        memory.recall("tea", subtree=bad)  # type: ignore[arg-type]


def test_recall_subtree_refuses_more_memories_than_it_scores(
    memory: MemoryCoordinator, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(candidate_search, "MAX_FILTERED_POOL", 3)
    _store_in(memory, ["team.a", "team.b", "team.c"])
    team = memory.for_namespace("team")
    assert len(team.recall("tea", subtree=True, layers=["semantic"])) == 3
    _store_in(memory, ["team.d"])
    with pytest.raises(InvalidInputError, match="narrow it"):
        team.recall("tea", subtree=True, layers=["semantic"])
