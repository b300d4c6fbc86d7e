"""``GET /v1/export`` reads the store as ``zenbrain export`` does, by key a page at a time
(zenbrain._memory.find.find_pages, through MemoryCoordinator._find_pages; its order and work:
tests/cli/test_export_pages.py):
every memory once, in find()'s order, whatever the pages cut through."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest

from tests.server.conftest import Served
from zenbrain._memory import find
from zenbrain.exchange import _rows as row_format


@pytest.mark.parametrize("page", [2, 500])
def test_export_streams_find_order_a_page_at_a_time(
    served: Served, client: httpx.Client, monkeypatch: pytest.MonkeyPatch, page: int
) -> None:
    memory = served.memory
    memory.store_many([f"batch note {i}" for i in range(7)])  # one time for all seven
    memory.store_many(
        [
            {"content": f"old diary {i}", "layer": "episodic", "created_at": f"2001-01-0{i + 1}"}
            for i in range(3)
        ]
    )
    memory.set_core_block("persona", "Terse.")
    memory.store("make tea", steps=["boil", "pour"])
    monkeypatch.setattr(row_format, "_PAGE", page)
    taken: list[int] = []
    paging = find.find_pages

    def counting_pages(*args: Any, **kwargs: Any) -> Any:
        taken.append(kwargs["size"])
        return paging(*args, **kwargs)

    monkeypatch.setattr(find, "find_pages", counting_pages)
    for layers, params in ((None, {}), (["episodic", "core"], {"layer": ["episodic", "core"]})):
        with client.stream("GET", "/v1/export", params=params) as response:
            assert response.status_code == 200
            rows = [json.loads(line) for line in response.iter_lines() if line]
        assert [row["id"] for row in rows] == [r.id for r in memory.find(layers=layers)]
    assert taken == [page, page]  # the CLI's reader, with the route's page size
