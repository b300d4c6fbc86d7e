"""ZenBrainStore under threads and asyncio: one key put at once from many writers leaves one
item; on a SQLite file and on PostgreSQL."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

from langchain_zenbrain import ZenBrainStore

from zenbrain import MemoryCoordinator

ADA = ("users", "ada")


# ---------------------------------------------------------------------- concurrency
def _in_threads(count: int, work: Callable[[int], None]) -> None:
    start = threading.Barrier(count)

    def run(n: int) -> None:
        start.wait()
        work(n)

    with ThreadPoolExecutor(count) as pool:
        list(pool.map(run, range(count)))


def _items_for_key(store: ZenBrainStore, namespace: tuple[str, ...], key: str) -> int:
    view = store.coordinator_for(namespace)
    return sum(r.metadata.get("langgraph_key") == key for r in view.find())


def test_six_threads_putting_one_key_leave_one_item(store: ZenBrainStore) -> None:
    _in_threads(6, lambda n: store.put(ADA, "k", {"text": f"version {n}"}))
    assert _items_for_key(store, ADA, "k") == 1
    assert len(store.search(ADA)) == 1
    assert len(store.search(ADA, query="version")) == 1


def test_two_stores_on_one_database_putting_one_key_leave_one_item(
    store_location: str,
) -> None:
    with MemoryCoordinator(store_location) as one, MemoryCoordinator(store_location) as two:
        stores = [ZenBrainStore(one), ZenBrainStore(two)]
        _in_threads(6, lambda n: stores[n % 2].put(ADA, "k", {"text": f"version {n}"}))
        assert _items_for_key(stores[0], ADA, "k") == 1


async def test_gathered_aputs_of_one_key_leave_one_item(store: ZenBrainStore) -> None:
    await asyncio.gather(*(store.aput(ADA, "k", {"text": f"version {n}"}) for n in range(6)))
    assert _items_for_key(store, ADA, "k") == 1
    assert len(await store.asearch(ADA)) == 1


def test_threads_putting_different_keys_keep_all(store: ZenBrainStore) -> None:
    _in_threads(6, lambda n: store.put(ADA, f"k{n}", {"text": f"item {n}"}))
    assert {i.key for i in store.search(ADA, limit=100)} == {f"k{n}" for n in range(6)}
