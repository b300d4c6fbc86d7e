"""ZenBrainStore through LangGraph's real store API and inside a compiled graph."""

from __future__ import annotations

from pathlib import Path
from typing import TypedDict

import pytest
from langchain_zenbrain import ZenBrainRetriever, ZenBrainStore
from langgraph.graph import END, START, StateGraph
from langgraph.store.base import (
    BaseStore,
    GetOp,
    InvalidNamespaceError,
    Item,
    ListNamespacesOp,
    PutOp,
    SearchOp,
)

from zenbrain import MemoryCoordinator
from zenbrain.errors import InvalidInputError

ADA = ("users", "ada")
BOB = ("users", "bob")


@pytest.fixture
def coordinator(memory: MemoryCoordinator) -> MemoryCoordinator:
    # The store builds SQL of its own (key lookups, namespace listing): run on both back ends.
    return memory


@pytest.fixture
def store(coordinator: MemoryCoordinator) -> ZenBrainStore:
    return ZenBrainStore(coordinator)


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


def test_items_persist_across_a_reopen(db_path: Path) -> None:
    with MemoryCoordinator(db_path) as memory:
        ZenBrainStore(memory).put(ADA, "city", {"text": "Ada lives in Kiel"})
    with MemoryCoordinator(db_path) as reopened:
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
    # Another coordinator namespace on the same file sees none of these items.
    other = ZenBrainStore(coordinator.for_namespace("default.users"))
    assert other.search(()) == []
    assert other.list_namespaces() == []


def test_search_with_query_filter_limit_and_offset(store: ZenBrainStore) -> None:
    store.put(ADA, "tea", {"text": "Ada likes green tea", "kind": "food", "stars": 5})
    store.put(ADA, "cake", {"text": "Ada likes cheese cake", "kind": "food", "stars": 3})
    store.put(ADA, "job", {"text": "Ada likes her compiler job", "kind": "work", "stars": 4})
    store.put(("users", "ada", "notes"), "tea2", {"text": "green tea from Japan", "kind": "food"})
    store.put(BOB, "tea", {"text": "Bob hates green tea", "kind": "food"})

    found = store.search(ADA, query="green tea")
    assert [i.key for i in found][:2] == ["tea", "tea2"] or [i.key for i in found][:2] == [
        "tea2",
        "tea",
    ]
    assert "Bob hates green tea" not in {i.value["text"] for i in found}
    scores = [i.score for i in found]
    assert all(s is not None for s in scores)
    assert scores == sorted(scores, reverse=True)  # type: ignore[type-var]

    food = store.search(ADA, query="likes", filter={"kind": "food"})
    assert {i.key for i in food} == {"tea", "cake"}
    best = store.search(ADA, filter={"stars": {"$gte": 4}})
    assert {i.key for i in best} == {"tea", "job"}
    assert store.search(ADA, filter={"kind": {"$ne": "food"}})[0].key == "job"

    listed = store.search(ADA)
    assert len(listed) == 4 and all(i.score is None for i in listed)
    # Newest first, then paged.
    assert [i.key for i in listed] == ["tea2", "job", "cake", "tea"]
    assert [i.key for i in store.search(ADA, limit=2, offset=1)] == ["job", "cake"]
    assert len(store.search(())) == 5


def test_index_fields_and_unindexed_items(coordinator: MemoryCoordinator) -> None:
    store = ZenBrainStore(coordinator, index_fields=["memory"])
    store.put(ADA, "a", {"memory": "Ada plays the cello", "note": "orchestra rehearsal"})
    store.put(ADA, "b", {"memory": "Ada bakes bread", "note": "cello case"}, index=["note"])
    store.put(ADA, "c", {"memory": "Ada repairs the cello"}, index=False)
    found = {i.key for i in store.search(ADA, query="cello")}
    assert found == {"a", "b"}
    # "orchestra" is only in a field that is not indexed.
    assert store.search(ADA, query="orchestra") == []
    assert store.get(ADA, "c") is not None


def test_list_namespaces(store: ZenBrainStore) -> None:
    store.put(ADA, "k", {"text": "one"})
    store.put(("users", "ada", "notes"), "k", {"text": "two"})
    store.put(BOB, "k", {"text": "three"})
    store.put(("teams", "compiler"), "k", {"text": "four"})
    assert store.list_namespaces() == [
        ("teams", "compiler"),
        ("users", "ada"),
        ("users", "ada", "notes"),
        ("users", "bob"),
    ]
    assert store.list_namespaces(prefix=("users",), max_depth=2) == [ADA, BOB]
    assert store.list_namespaces(suffix=("notes",)) == [("users", "ada", "notes")]
    assert store.list_namespaces(prefix=("users", "*"), limit=1, offset=1) == [
        ("users", "ada", "notes")
    ]
    store.delete(("teams", "compiler"), "k")
    assert ("teams", "compiler") not in store.list_namespaces()


def test_batch_runs_ops_in_order(store: ZenBrainStore) -> None:
    results = store.batch(
        [
            PutOp(ADA, "x", {"text": "first"}),
            GetOp(ADA, "x"),
            PutOp(ADA, "x", {"text": "second"}),
            GetOp(ADA, "x"),
            SearchOp(ADA, query="second"),
            ListNamespacesOp(),
            PutOp(ADA, "x", None),
            GetOp(ADA, "x"),
        ]
    )
    assert results[0] is None and results[2] is None and results[6] is None
    assert results[1].value == {"text": "first"}  # type: ignore[union-attr]
    assert results[3].value == {"text": "second"}  # type: ignore[union-attr]
    assert [i.key for i in results[4]] == ["x"]  # type: ignore[union-attr]
    assert results[5] == [ADA]
    assert results[7] is None


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
