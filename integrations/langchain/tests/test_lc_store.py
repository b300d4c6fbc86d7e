"""ZenBrainStore through LangGraph's real store API, next to LangGraph's InMemoryStore, under
threads and asyncio, and inside a compiled graph; on a SQLite file and on PostgreSQL."""

from __future__ import annotations

import re
import zlib
from collections.abc import Iterator, Sequence
from datetime import UTC, datetime
from typing import Any, TypedDict

import pytest
from langchain_core.embeddings import DeterministicFakeEmbedding
from langchain_zenbrain import ZenBrainRetriever, ZenBrainStore
from langgraph.graph import END, START, StateGraph
from langgraph.store.base import (
    BaseStore,
    GetOp,
    IndexConfig,
    InvalidNamespaceError,
    Item,
    ListNamespacesOp,
    Op,
    PutOp,
    SearchOp,
)
from langgraph.store.memory import InMemoryStore

from zenbrain import MemoryCoordinator
from zenbrain.errors import InvalidInputError

ADA = ("users", "ada")
ADA_NOTES = ("users", "ada", "notes")
BOB = ("users", "bob")

# ---------------------------------------------------------------------- a tiny embedding
# Words of one group get the same direction, so "vehicle" finds "car" without sharing a
# word: a stand-in for a real embedding model that LangGraph's stores can share.
_GROUPS = [
    {"tea", "sencha", "matcha", "drink", "drinks", "coffee"},
    {"car", "vehicle", "automobile", "bike", "tyres"},
    {"cello", "jazz", "music", "orchestra", "bass"},
    {"compiler", "compilers", "code", "software"},
]
DIMS = 32


def concept_embed(texts: Sequence[str]) -> list[list[float]]:
    vectors = []
    for text in texts:
        vector = [0.0] * DIMS
        for word in re.findall(r"[a-z]+", text.lower()):
            group = next((n for n, words in enumerate(_GROUPS) if word in words), None)
            slot = group if group is not None else 4 + zlib.crc32(word.encode()) % (DIMS - 4)
            vector[slot] += 1.0
        vectors.append(vector)
    return vectors


CONCEPT_INDEX: IndexConfig = {"dims": DIMS, "embed": concept_embed, "fields": ["text"]}


@pytest.fixture
def coordinator(memory: MemoryCoordinator) -> MemoryCoordinator:
    return memory


# ---------------------------------------------------------------------- same as InMemoryStore
Call = tuple[str, tuple[Any, ...], dict[str, Any]]


def _call(method: str, *args: Any, **kwargs: Any) -> Call:
    return method, args, kwargs


SEQUENCE: list[Call] = [
    _call("put", ADA, "tea", {"text": "Ada drinks green tea", "kind": "food", "stars": 5}),
    _call("put", ADA, "cake", {"text": "Ada bakes cheese cake", "kind": "food", "stars": 3}),
    _call("put", ADA, "job", {"text": "Ada writes compilers", "kind": "work", "stars": 4}),
    _call("put", ADA_NOTES, "tea", {"text": "Sencha from Shizuoka", "kind": "food", "stars": 4}),
    _call(
        "put",
        BOB,
        "tea",
        {"text": "Bob hates tea", "kind": "food", "tags": ["x", "y"], "nested": {"a": 1}},
    ),
    _call("put", ("teams", "compiler"), "lead", {"text": "Ada leads the team", "kind": "work"}),
    _call("get", ADA, "tea"),
    _call("get", ADA, "missing"),
    _call("search", ADA),
    _call("search", ("users",)),
    _call("search", ()),
    _call("search", ("user",)),
    _call("search", ADA, filter={"kind": "food"}),
    _call("search", ADA, filter={"stars": {"$gte": 4}}),
    _call("search", ADA, filter={"stars": {"$gt": 3, "$lt": 5}}),
    _call("search", (), filter={"kind": {"$ne": "food"}}),
    _call("search", (), filter={"nested": {"a": 1}}),
    _call("search", (), filter={"tags": ["x", "y"]}),
    _call("search", (), filter={"kind": "nothing"}),
    # With a query every item under the prefix is ranked; none is dropped.
    _call("search", (), query="tea"),
    _call("search", ADA, query="compilers"),
    _call("search", (), query="tea", filter={"kind": "work"}),
    _call("search", ("users",), query="vehicle"),
    # Pages: both stores order differently without a query, so compare their sizes.
    _call("search_page", (), limit=2),
    _call("search_page", (), limit=2, offset=4),
    _call("search_page", (), offset=10),
    _call("search_page", (), query="tea", limit=3),
    _call("list_namespaces"),
    _call("list_namespaces", prefix=("users",)),
    _call("list_namespaces", prefix=("users", "*")),
    _call("list_namespaces", suffix=("notes",)),
    _call("list_namespaces", prefix=("users",), suffix=("bob",)),
    _call("list_namespaces", max_depth=1),
    _call("list_namespaces", prefix=("users",), max_depth=2),
    _call("list_namespaces", limit=1, offset=1),
    _call("list_namespaces", prefix=("nobody",)),
    _call("put", ADA, "tea", {"text": "Ada switched to coffee", "kind": "drink", "stars": 2}),
    _call("get", ADA, "tea"),
    _call("search", ADA, filter={"kind": "food"}),
    _call("delete", ADA, "cake"),
    _call("get", ADA, "cake"),
    _call("search", ADA),
    # (InMemoryStore keeps listing a namespace whose items were all deleted, and one that was
    # only read from: PostgresStore and ZenBrainStore do not, so no listing follows these.)
    _call("delete", ADA_NOTES, "tea"),
    _call("delete", ADA, "never-there"),
    _call("put", ADA, "hidden", {"text": "a secret recipe"}, index=False),
    _call("get", ADA, "hidden"),
    _call("search", ADA, query="secret recipe"),
    _call("put", ADA, "by-title", {"title": "tea notes", "body": "long"}, index=["title"]),
    _call("search", ADA, query="tea"),
    _call("get", ("nobody",), "tea"),
]


def _normal(result: Any) -> Any:
    if isinstance(result, Item):
        return (result.namespace, result.key, result.value)
    if isinstance(result, list) and result and isinstance(result[0], Item):
        # LangGraph leaves the order of an unranked listing to the store: compare as sets.
        return sorted((_normal(item) for item in result), key=repr)
    return result


def _run(store: BaseStore, call: Call) -> Any:
    method, args, kwargs = call
    if method == "search_page":
        return len(store.search(*args, **kwargs))
    return _normal(getattr(store, method)(*args, **kwargs))


@pytest.mark.parametrize("index", [None, CONCEPT_INDEX], ids=["no-index", "index"])
def test_the_same_calls_give_what_inmemorystore_gives(
    coordinator: MemoryCoordinator, index: IndexConfig | None
) -> None:
    reference = InMemoryStore(index=index)
    store = ZenBrainStore(coordinator, index=index)
    for call in SEQUENCE:
        assert _run(store, call) == _run(reference, call), call


def test_the_best_match_is_the_one_inmemorystore_ranks_first(
    coordinator: MemoryCoordinator,
) -> None:
    reference = InMemoryStore(index=CONCEPT_INDEX)
    store = ZenBrainStore(coordinator, index=CONCEPT_INDEX)
    for target in (reference, store):
        for call in SEQUENCE[:6]:
            _run(target, call)
    for query, prefix in [("software", ()), ("matcha", ADA), ("team", ()), ("coffee", ())]:
        expected = reference.search(prefix, query=query, limit=1)
        found = store.search(prefix, query=query, limit=1)
        assert [(i.namespace, i.key) for i in found] == [(i.namespace, i.key) for i in expected], (
            query
        )


def _keys(items: Sequence[Item]) -> list[tuple[tuple[str, ...], str]]:
    return sorted((item.namespace, item.key) for item in items)


@pytest.fixture(scope="module")
def many_namespaces(
    module_store_location: str,
) -> Iterator[tuple[InMemoryStore, ZenBrainStore]]:
    """InMemoryStore and a ZenBrainStore (each back end) given the same puts, once for the
    module: the searches below only read them."""
    reference = InMemoryStore()
    with MemoryCoordinator(module_store_location) as coordinator:
        store = ZenBrainStore(coordinator)
        # 60 namespaces: ("users", "u1") has siblings ("users", "u10"...) that share its start.
        for n in range(40):
            for target in (reference, store):
                namespace = ("users", f"u{n}") if n % 4 else ("users", f"u{n // 4}", "notes")
                target.put(
                    namespace, "likes", {"text": f"likes tea {n}", "n": -n, "team": f"t{n % 3}"}
                )
                target.put(namespace, "rank", {"text": "rank", "n": n, "team": f"t{n % 3}"})
                if n < 20:
                    target.put(("teams", f"t{n}"), "size", {"text": "team size", "n": n})
        yield reference, store


@pytest.mark.parametrize(
    "prefix",
    [(), ("users",), ("users", "u1"), ("users", "u1", "notes"), ("teams",), ("nobody",)],
    ids=repr,
)
def test_search_under_a_prefix_across_many_namespaces_gives_what_inmemorystore_gives(
    many_namespaces: tuple[InMemoryStore, ZenBrainStore], prefix: tuple[str, ...]
) -> None:
    reference, store = many_namespaces
    for filter_ in (None, {"team": "t1"}, {"n": {"$gte": 10}}, {"team": {"$ne": "t0"}, "n": 3}):
        expected = reference.search(prefix, filter=filter_, limit=1000)
        assert _keys(store.search(prefix, filter=filter_, limit=1000)) == _keys(expected)
        # Pages of 7 cover the same items once each (the order of a listing is the store's).
        pages = [store.search(prefix, filter=filter_, limit=7, offset=o) for o in range(0, 140, 7)]
        assert all(len(page) == 7 for page in pages[: len(expected) // 7])
        assert _keys([item for page in pages for item in page]) == _keys(expected)
        for query in ("tea", "team size"):
            wanted = reference.search(prefix, query=query, filter=filter_, limit=1000)
            found = store.search(prefix, query=query, filter=filter_, limit=1000)
            assert _keys(found) == _keys(wanted), (query, filter_)
            top = store.search(prefix, query=query, filter=filter_, limit=2, offset=1)
            assert [i.key for i in top] == [i.key for i in found[1:3]]


def _batch_results(store: BaseStore, ops: list[Op]) -> list[Any]:
    store.put(ADA, "x", {"text": "before"})
    store.put(BOB, "y", {"text": "bob's"})
    return [_normal(result) for result in store.batch(ops)]


BATCH: list[Op] = [
    # Reads see the store as it was before the batch; the last put of a key wins.
    PutOp(ADA, "x", {"text": "first"}),
    GetOp(ADA, "x"),
    PutOp(ADA, "x", {"text": "second"}),
    PutOp(ADA_NOTES, "z", {"text": "new"}),
    GetOp(ADA, "x"),
    SearchOp(("users",), filter={"text": "before"}),
    SearchOp(("users",), query="bob"),
    ListNamespacesOp(),
    PutOp(BOB, "y", None),
    GetOp(BOB, "y"),
]


def test_batch_gives_what_inmemorystore_gives(coordinator: MemoryCoordinator) -> None:
    expected = _batch_results(InMemoryStore(), BATCH)
    store = ZenBrainStore(coordinator)
    assert _batch_results(store, BATCH) == expected
    after: list[Op] = [GetOp(ADA, "x"), GetOp(ADA_NOTES, "z"), GetOp(BOB, "y"), ListNamespacesOp()]
    assert [_normal(r) for r in store.batch(after)] == [
        (ADA, "x", {"text": "second"}),
        (ADA_NOTES, "z", {"text": "new"}),
        None,
        [ADA, ADA_NOTES],
    ]


async def test_abatch_gives_what_inmemorystore_gives(coordinator: MemoryCoordinator) -> None:
    reference = InMemoryStore()
    store = ZenBrainStore(coordinator)
    for target in (reference, store):
        await target.aput(ADA, "x", {"text": "before"})
    expected = [_normal(r) for r in await reference.abatch(BATCH)]
    assert [_normal(r) for r in await store.abatch(BATCH)] == expected


def test_a_rejected_batch_changes_nothing(store: ZenBrainStore) -> None:
    with pytest.raises(InvalidNamespaceError):
        store.batch([PutOp(ADA, "ok", {"text": "fine"}), PutOp(("users", "a.b"), "k", {})])
    with pytest.raises(InvalidInputError):
        store.batch([PutOp(ADA, "ok", {"text": "fine"}), SearchOp(ADA, filter={"$or": []})])
    assert store.get(ADA, "ok") is None


# ---------------------------------------------------------------------- search
def test_filtered_search_with_limit_1_finds_the_match(store: ZenBrainStore) -> None:
    for n in range(40):
        store.put(ADA, f"tea{n}", {"text": f"Ada drinks tea number {n}", "kind": "common"})
    store.put(ADA, "rare", {"text": "Ada once had tea", "kind": "rare"})
    (hit,) = store.search(ADA, query="Ada drinks tea", filter={"kind": "rare"}, limit=1)
    assert hit.key == "rare"
    (hit,) = store.search(("users",), query="tea", filter={"kind": {"$eq": "rare"}}, limit=1)
    assert hit.key == "rare"


def test_items_sharing_no_word_with_the_query_are_ranked_not_dropped(
    store: ZenBrainStore,
) -> None:
    store.put(ADA, "cello", {"text": "Ada plays the cello"})
    store.put(ADA, "bike", {"text": "Ada rides a green bike"})
    store.put(ADA, "tea", {"text": "Ada drinks green tea"})
    found = store.search(ADA, query="cello")
    assert found[0].key == "cello"
    assert {i.key for i in found} == {"cello", "bike", "tea"}
    scores = [i.score for i in found]
    assert all(isinstance(s, float) for s in scores)
    assert scores == sorted(scores, reverse=True)  # type: ignore[type-var]
    assert scores[0] > 0 and scores[-1] == 0.0  # type: ignore[operator]
    # Paging walks the same ranking.
    pages = [store.search(ADA, query="cello", limit=1, offset=n)[0].key for n in range(3)]
    assert pages == [i.key for i in found]


def test_search_with_query_filter_limit_and_offset(store: ZenBrainStore) -> None:
    store.put(ADA, "tea", {"text": "Ada likes green tea", "kind": "food", "stars": 5})
    store.put(ADA, "cake", {"text": "Ada likes cheese cake", "kind": "food", "stars": 3})
    store.put(ADA, "job", {"text": "Ada likes her compiler job", "kind": "work", "stars": 4})
    store.put(ADA_NOTES, "tea2", {"text": "green tea from Japan", "kind": "food"})
    store.put(BOB, "tea", {"text": "Bob hates green tea", "kind": "food"})

    found = store.search(ADA, query="green tea", limit=2)
    assert {i.key for i in found} == {"tea", "tea2"}
    assert "Bob hates green tea" not in {i.value["text"] for i in store.search(ADA, query="tea")}

    food = store.search(ADA, query="likes", filter={"kind": "food"})
    assert {i.key for i in food} == {"tea", "cake", "tea2"}
    best = store.search(ADA, filter={"stars": {"$gte": 4}})
    assert {i.key for i in best} == {"tea", "job"}

    listed = store.search(ADA)
    assert len(listed) == 4 and all(i.score is None for i in listed)
    # Without a query: most recently updated first (as LangGraph's PostgresStore), paged.
    assert [i.key for i in listed] == ["tea2", "job", "cake", "tea"]
    assert [i.key for i in store.search(ADA, limit=2, offset=1)] == ["job", "cake"]
    assert len(store.search(())) == 5


def test_search_under_a_prefix_is_one_core_read_of_its_subtree(
    store: ZenBrainStore, coordinator: MemoryCoordinator, monkeypatch: pytest.MonkeyPatch
) -> None:
    for n in range(30):
        store.put(("tenants", f"t{n}"), "k", {"text": f"tenant {n} likes tea"})
        store.put(("users", f"u{n}"), "k", {"text": f"user {n} likes tea"})
    store.put(ADA, "tea", {"text": "Ada likes tea"})
    opened: list[str] = []
    views: list[MemoryCoordinator] = []
    calls: list[tuple[str, str, bool]] = []
    open_view = MemoryCoordinator.for_namespace
    find, recall = MemoryCoordinator.find, MemoryCoordinator.recall

    def opening(self: MemoryCoordinator, namespace: str) -> MemoryCoordinator:
        opened.append(namespace)
        views.append(open_view(self, namespace))
        return views[-1]

    def finding(self: MemoryCoordinator, *args: Any, **kwargs: Any) -> Any:
        calls.append(("find", self.namespace, kwargs.get("subtree", False)))
        return find(self, *args, **kwargs)

    def recalling(self: MemoryCoordinator, *args: Any, **kwargs: Any) -> Any:
        calls.append(("recall", self.namespace, kwargs.get("subtree", False)))
        return recall(self, *args, **kwargs)

    monkeypatch.setattr(MemoryCoordinator, "for_namespace", opening)
    monkeypatch.setattr(MemoryCoordinator, "find", finding)
    monkeypatch.setattr(MemoryCoordinator, "recall", recalling)
    fresh = ZenBrainStore(coordinator)
    found = fresh.search(("users",), query="Ada tea", limit=40)
    assert len(found) == 31 and found[0].key == "tea" and found[0].namespace == ADA
    assert {i.namespace[0] for i in found} == {"users"}
    assert len(fresh.search(("users",), limit=100)) == 31
    # One subtree read (and one subtree recall with a query) of the prefix's namespace,
    # however many namespaces lie below it; no other namespace is opened.
    users = "default.users"
    assert calls == [("find", users, True), ("recall", users, True), ("find", users, True)]
    assert set(opened) == {users}
    assert all(view is views[0] for view in views)  # the coordinator's one view of it


def test_unindexed_items_come_last_without_a_score(coordinator: MemoryCoordinator) -> None:
    store = ZenBrainStore(coordinator, index_fields=["memory"])
    store.put(ADA, "a", {"memory": "Ada plays the cello", "note": "orchestra rehearsal"})
    store.put(ADA, "b", {"memory": "Ada bakes bread", "note": "cello case"}, index=["note"])
    store.put(ADA, "c", {"memory": "Ada repairs the cello"}, index=False)
    found = store.search(ADA, query="cello")
    assert {i.key for i in found[:2]} == {"a", "b"}
    assert found[2].key == "c" and found[2].score is None
    # "orchestra" is only in a field that is not indexed: it matches nothing.
    assert all(not i.score for i in store.search(ADA, query="orchestra"))


# ---------------------------------------------------------------------- index=
def test_index_with_an_embed_function(coordinator: MemoryCoordinator) -> None:
    store = ZenBrainStore(coordinator, index=CONCEPT_INDEX)
    store.put(ADA, "car", {"text": "Ada's car needs new brakes", "note": "tea"})
    store.put(ADA, "tea", {"text": "Ada drinks sencha"})
    # No shared word: the embedding finds it; only the indexed field counts.
    assert store.search(ADA, query="automobile")[0].key == "car"
    assert store.search(ADA, query="matcha")[0].key == "tea"


def test_index_with_langchain_embeddings(coordinator: MemoryCoordinator) -> None:
    index: IndexConfig = {"dims": 16, "embed": DeterministicFakeEmbedding(size=16)}
    store = ZenBrainStore(coordinator, index=index)
    store.put(ADA, "a", {"text": "Ada plays the cello"})
    store.put(ADA, "b", {"text": "Ada rides a bike"})
    found = store.search(ADA, query="Ada plays the cello")
    assert found[0].key == "a" and {i.key for i in found} == {"a", "b"}
    assert all(isinstance(i.score, float) for i in found)


def test_index_fields_without_embed(coordinator: MemoryCoordinator) -> None:
    store = ZenBrainStore(coordinator, index={"fields": ["title"]})
    store.put(ADA, "a", {"title": "cello lessons", "body": "tuesday"})
    store.put(ADA, "b", {"title": "bread", "body": "cello"})
    assert store.search(ADA, query="cello")[0].key == "a"
    assert store.search(ADA, query="cello")[1].score == 0.0


def test_bad_index_configuration_is_refused(coordinator: MemoryCoordinator) -> None:
    bad: list[Any] = [
        {"dims": 0, "embed": concept_embed},
        {"embed": concept_embed},
        {"dims": 8, "fields": "text"},
        {"dims": 8, "embed": concept_embed, "speed": "fast"},
        "text",
    ]
    for index in bad:
        with pytest.raises(InvalidInputError):
            ZenBrainStore(coordinator, index=index)
    with pytest.raises(InvalidInputError):
        ZenBrainStore(coordinator, index=CONCEPT_INDEX, index_fields=["a"])
    with MemoryCoordinator(":memory:") as in_memory, pytest.raises(InvalidInputError):
        ZenBrainStore(in_memory, index=CONCEPT_INDEX)


# ---------------------------------------------------------------------- the rest
def test_put_get_update_delete(store: ZenBrainStore) -> None:
    assert store.get(ADA, "drink") is None
    store.put(ADA, "drink", {"text": "Ada drinks green tea", "count": 1})
    item = store.get(ADA, "drink")
    assert isinstance(item, Item)
    assert (item.namespace, item.key) == (ADA, "drink")
    assert item.value == {"text": "Ada drinks green tea", "count": 1}
    assert item.created_at == item.updated_at

    store.put(ADA, "drink", {"text": "Ada switched to coffee", "count": 2})
    updated = store.get(ADA, "drink")
    assert updated is not None
    assert updated.value == {"text": "Ada switched to coffee", "count": 2}
    assert updated.created_at == item.created_at
    assert updated.updated_at > item.updated_at
    # The old memory is gone from zenbrain, not just hidden.
    view = store.coordinator_for(ADA)
    assert [r.content for r in view.recall("Ada", layers=["semantic"])] == [
        "Ada switched to coffee"
    ]

    store.delete(ADA, "drink")
    assert store.get(ADA, "drink") is None
    assert view.recall("Ada coffee", layers=["semantic"]) == []


def test_timestamps_come_from_the_coordinator_clock(store_location: str) -> None:
    now = [datetime(2030, 1, 1, 9, 0, tzinfo=UTC)]
    with MemoryCoordinator(store_location, clock=lambda: now[0]) as memory:
        store = ZenBrainStore(memory)
        store.put(ADA, "k", {"text": "first"})
        now[0] = datetime(2030, 1, 2, 9, 0, tzinfo=UTC)
        store.put(ADA, "k", {"text": "second"})
        item = store.get(ADA, "k")
    assert item is not None
    assert (item.created_at, item.updated_at) == (
        datetime(2030, 1, 1, 9, 0, tzinfo=UTC),
        datetime(2030, 1, 2, 9, 0, tzinfo=UTC),
    )


def test_filters_on_long_and_short_text_fields(store: ZenBrainStore) -> None:
    long_text = "tea " * 100
    store.put(ADA, "long", {"text": long_text, "kind": "note"})
    store.put(ADA, "short", {"text": "tea", "kind": "note"})
    assert [i.key for i in store.search(ADA, filter={"text": long_text})] == ["long"]
    assert [i.key for i in store.search(ADA, query="tea", filter={"text": "tea"})] == ["short"]
    assert {i.key for i in store.search(ADA, filter={"kind": {"$eq": "note"}})} == {
        "long",
        "short",
    }


def test_items_persist_across_a_reopen(store_location: str) -> None:
    with MemoryCoordinator(store_location) as memory:
        ZenBrainStore(memory).put(ADA, "city", {"text": "Ada lives in Kiel"})
    with MemoryCoordinator(store_location) as reopened:
        item = ZenBrainStore(reopened).get(ADA, "city")
    assert item is not None and item.value == {"text": "Ada lives in Kiel"}


def test_namespaces_are_a_hard_boundary(
    store: ZenBrainStore, coordinator: MemoryCoordinator
) -> None:
    store.put(ADA, "pet", {"text": "Ada has a cat called Miso"})
    store.put(BOB, "pet", {"text": "Bob has a dog called Rex"})
    assert store.get(BOB, "pet").value["text"] == "Bob has a dog called Rex"  # type: ignore[union-attr]
    assert [i.value["text"] for i in store.search(ADA, query="pet cat dog")] == [
        "Ada has a cat called Miso"
    ]
    # Each LangGraph namespace is its own zenbrain namespace; the root stays untouched.
    assert coordinator.recall("cat dog", layers=["semantic"]) == []
    assert store.coordinator_for(BOB).namespace == "default.users.bob"
    store.delete(ADA, "pet")
    assert store.get(BOB, "pet") is not None
    # Another coordinator namespace on the same database sees none of these items.
    other = ZenBrainStore(coordinator.for_namespace("default.users"))
    assert other.search(()) == []
    assert other.list_namespaces() == []


def test_memories_that_are_not_items_stay_out(
    store: ZenBrainStore, coordinator: MemoryCoordinator
) -> None:
    # Something else (the agent middleware, a retriever user) stored into the same namespace.
    store.coordinator_for(ADA).store("Ada's note kept by another tool")
    assert store.get(ADA, "note") is None
    assert store.search(ADA) == []
    assert store.search(ADA, query="note") == []
    store.put(ADA, "k", {"text": "an item"})
    assert [i.key for i in store.search(ADA, query="note")] == ["k"]
    # The namespace listing is one query over what zenbrain holds: the namespace is listed.
    assert store.list_namespaces() == [ADA]


def test_list_namespaces(store: ZenBrainStore) -> None:
    store.put(ADA, "k", {"text": "one"})
    store.put(ADA_NOTES, "k", {"text": "two"})
    store.put(BOB, "k", {"text": "three"})
    store.put(("teams", "compiler"), "k", {"text": "four"})
    assert store.list_namespaces() == [("teams", "compiler"), ADA, ADA_NOTES, BOB]
    assert store.list_namespaces(prefix=("users",), max_depth=2) == [ADA, BOB]
    assert store.list_namespaces(suffix=("notes",)) == [ADA_NOTES]
    assert store.list_namespaces(prefix=("users", "*"), limit=1, offset=1) == [ADA_NOTES]
    store.delete(("teams", "compiler"), "k")
    assert ("teams", "compiler") not in store.list_namespaces()


async def test_async_api(store: ZenBrainStore) -> None:
    await store.aput(ADA, "song", {"text": "Ada hums Bach in the morning"})
    item = await store.aget(ADA, "song")
    assert item is not None and item.value["text"] == "Ada hums Bach in the morning"
    assert [i.key for i in await store.asearch(("users",), query="Bach")] == ["song"]
    assert await store.alist_namespaces() == [ADA]
    await store.adelete(ADA, "song")
    assert await store.aget(ADA, "song") is None


def test_bad_input(store: ZenBrainStore, coordinator: MemoryCoordinator) -> None:
    with pytest.raises(InvalidNamespaceError):
        store.put(("users", "a.b"), "k", {"text": "x"})
    with pytest.raises(InvalidNamespaceError):
        store.put(("langgraph", "x"), "k", {"text": "x"})
    with pytest.raises(InvalidNamespaceError):
        store.batch([PutOp((), "k", {"text": "x"})])
    with pytest.raises(InvalidNamespaceError):
        store.put(("x" * 250,), "k", {"text": "x"})
    with pytest.raises(InvalidInputError):
        store.put(ADA, "k", {"when": object()})
    with pytest.raises(InvalidInputError):
        store.search(ADA, filter={"n": {"$regex": "x"}})
    with pytest.raises(InvalidInputError):
        ZenBrainStore(coordinator, layer="core")  # type: ignore[arg-type]
    assert store.list_namespaces() == []


def test_retriever_on_what_the_store_holds(store: ZenBrainStore) -> None:
    store.put(ADA, "tea", {"text": "Ada likes green tea"})
    retriever = ZenBrainRetriever(coordinator=store.coordinator_for(ADA), k=1)
    (document,) = retriever.invoke("green tea")
    assert document.page_content == "Ada likes green tea"
    assert document.metadata["langgraph_key"] == "tea"


class _State(TypedDict):
    user: str
    fact: str
    answer: str


def test_store_inside_a_compiled_graph(store: ZenBrainStore) -> None:
    def remember(state: _State, *, store: BaseStore) -> dict[str, str]:
        store.put(("users", state["user"]), "fact", {"text": state["fact"]})
        return {}

    def answer(state: _State, *, store: BaseStore) -> dict[str, str]:
        hits = store.search(("users", state["user"]), query=state["fact"], limit=1)
        return {"answer": hits[0].value["text"] if hits else ""}

    builder = StateGraph(_State)
    builder.add_node("remember", remember)
    builder.add_node("answer", answer)
    builder.add_edge(START, "remember")
    builder.add_edge("remember", "answer")
    builder.add_edge("answer", END)
    graph = builder.compile(store=store)
    result = graph.invoke({"user": "ada", "fact": "Ada's bike is blue", "answer": ""})
    assert result["answer"] == "Ada's bike is blue"
    assert store.get(("users", "ada"), "fact") is not None
