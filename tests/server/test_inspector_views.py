"""The inspector as a new user meets it, in a real browser (Debian's Chromium, the fixtures in
conftest.py) against a server on loopback: the first visit without a key, the key field, the
header after a search, the icon, the namespace shown, editing as ``update()`` with its
history, and the entity graph. Each view leaves its screenshot in build/inspector/."""

from __future__ import annotations

import struct
from collections.abc import Callable, Iterator
from pathlib import Path

import httpx
import pytest
from playwright.sync_api import Browser, Page, Route, expect

from zenbrain._coordinator import MemoryCoordinator
from zenbrain._storage.api_keys import add_key
from zenbrain.server import create_app
from zenbrain.stages import CrossContextStage
from zenbrain.testing.server import running_server

Snapshot = Callable[[Page, str], Path]


@pytest.fixture
def server(tmp_path: Path) -> Iterator[str]:
    with (
        MemoryCoordinator(str(tmp_path / "memory.db"), stages=[CrossContextStage()]) as memory,
        running_server(create_app(memory)) as url,
    ):
        yield url


def _depth(text: str) -> int:
    """How deep parentheses nest in ``text``."""
    depth = deepest = 0
    for char in text:
        depth += {"(": 1, ")": -1}.get(char, 0)
        deepest = max(deepest, depth)
    return deepest


def test_the_first_visit_without_a_key_says_what_to_do_once(
    tmp_path: Path, page: Page, snapshot: Snapshot
) -> None:
    with MemoryCoordinator(str(tmp_path / "keys.db")) as memory:
        add_key(memory.database, "alice")
        with running_server(create_app(memory)) as url:
            page.goto(f"{url}/#/browse")
            status = page.get_by_role("status")
            expect(status).to_contain_text("needs an API key")
            said = status.inner_text()
            snapshot(page, "first-visit")
    # Once, in plain words: the server's own message (which says the same for HTTP clients,
    # in parentheses of its own) is not appended in parentheses again.
    assert said.lower().count("needs an api key") == 1, said
    assert _depth(said) <= 1, said
    assert "Authorization" not in said, said
    assert "zenbrain keys add" in said, said


@pytest.mark.parametrize("width", [1200, 375], ids=["desktop", "phone"])
def test_the_key_fields_placeholder_is_not_cut_off(
    server: str, browser: Browser, width: int
) -> None:
    context = browser.new_context(viewport={"width": width, "height": 800})
    try:
        opened = context.new_page()
        opened.goto(f"{server}/#/browse")
        expect(
            opened.get_by_role("list", name="Memories").or_(opened.locator(".empty"))
        ).to_be_visible()
        room, needed = opened.evaluate(
            """() => {
              const field = document.getElementById("api-key");
              const style = getComputedStyle(field);
              const pen = document.createElement("canvas").getContext("2d");
              pen.font = style.font;
              const padding = parseFloat(style.paddingLeft) + parseFloat(style.paddingRight);
              const room = field.clientWidth - padding;
              return [room, pen.measureText(field.placeholder).width];
            }"""
        )
    finally:
        context.close()
    assert needed <= room, f"the placeholder needs {needed:.0f}px, the field shows {room:.0f}px"


def test_after_a_search_the_header_is_still_in_view(
    server: str, page: Page, snapshot: Snapshot
) -> None:
    httpx.post(
        f"{server}/v1/memories/batch",
        json={
            "items": [f"Staging database note number {i} for the backup plan." for i in range(20)]
        },
    )
    page.goto(f"{server}/#/search")
    page.get_by_label("Question").fill("staging database backup")
    page.get_by_role("button", name="Recall").click()
    expect(page.get_by_role("list", name="Results").get_by_role("listitem")).to_have_count(20)
    assert page.evaluate("window.scrollY") == 0
    header = page.locator("header.top").bounding_box()
    assert header is not None and header["y"] >= 0
    expect(page.get_by_role("button", name="Open")).to_be_in_viewport()
    # The view still takes the focus, so the keyboard goes on into its controls.
    assert page.evaluate("document.activeElement.id") == "main"
    snapshot(page, "search-results")


def test_the_page_has_an_icon_and_loads_nothing_missing(server: str, page: Page) -> None:
    icon = httpx.get(f"{server}/favicon.ico")
    assert icon.status_code == 200
    assert icon.headers["content-type"] in ("image/x-icon", "image/vnd.microsoft.icon")
    reserved, kind, count = struct.unpack("<HHH", icon.content[:6])
    assert (reserved, kind, count) == (0, 1, 1)  # an ICO file holding one image
    size, offset = struct.unpack("<II", icon.content[14:22])
    assert icon.content[offset : offset + 8] == b"\x89PNG\r\n\x1a\n"
    assert offset + size == len(icon.content)
    missing: list[str] = []
    page.on("response", lambda r: missing.append(r.url) if r.status >= 400 else None)
    page.goto(f"{server}/#/browse")
    expect(page.get_by_role("heading", name="Browse")).to_be_visible()
    page.wait_for_load_state("networkidle")
    assert page.evaluate("document.querySelector('link[rel=icon]').href") == f"{server}/favicon.ico"
    assert missing == []


def test_the_header_says_which_namespace_is_open(
    server: str, page: Page, snapshot: Snapshot
) -> None:
    httpx.post(f"{server}/v1/memories", json={"content": "Bob's bike is red."})
    httpx.post(
        f"{server}/v1/memories", params={"namespace": "alice"}, json={"content": "Alice rows."}
    )
    page.goto(f"{server}/#/browse")
    expect(page.get_by_text("Namespace open: default")).to_be_visible()
    expect(page.get_by_role("list", name="Memories")).to_contain_text("Bob's bike")
    page.get_by_label("Namespace").fill("alice")
    page.get_by_role("button", name="Open").click()
    expect(page.get_by_text("Namespace open: alice")).to_be_visible()
    memories = page.get_by_role("list", name="Memories")
    expect(memories).to_contain_text("Alice rows.")
    expect(memories).not_to_contain_text("Bob's bike")
    snapshot(page, "namespace")


def test_editing_a_memory_updates_it_and_shows_its_history(
    server: str, page: Page, snapshot: Snapshot
) -> None:
    old_text = "How to restore staging: 1. stop the app 2. restore the dump"
    new_text = old_text + " 3. run the migrations"
    old = httpx.post(
        f"{server}/v1/memories", json={"content": old_text, "layer": "procedural"}
    ).json()["id"]
    page.goto(f"{server}/#/memory/{old}")
    expect(page.get_by_role("heading", name="Memory")).to_be_visible()
    expect(page.get_by_role("region", name="History")).to_have_count(0)  # one version only
    page.get_by_label("Text (saving stores a new version").fill(new_text)
    page.get_by_role("button", name="Save").click()
    expect(page.get_by_role("status")).to_contain_text("Saved as a new version")
    versions = page.get_by_role("list", name="Versions, oldest first").get_by_role("listitem")
    expect(versions).to_have_count(2)
    expect(versions.nth(0)).to_contain_text(old_text)
    expect(versions.nth(0)).to_contain_text("until")
    expect(versions.nth(1)).to_contain_text(new_text)
    expect(versions.nth(1)).to_contain_text("current · this version")
    snapshot(page, "memory-history")
    new = page.evaluate("decodeURIComponent(location.hash.split('/').pop())")
    assert new != old
    # An update (a chain with history), not a copy and a forget: the old version is still
    # there, closed and pointing at the new one, and the new one kept the old one's layer.
    before = httpx.get(f"{server}/v1/memories/{old}")
    assert before.status_code == 200
    assert before.json()["superseded_by"] == new
    assert before.json()["valid_to"] is not None
    after = httpx.get(f"{server}/v1/memories/{new}").json()
    assert (after["layer"], after["valid_to"]) == ("procedural", None)
    history = httpx.get(f"{server}/v1/memories/{new}/history").json()
    assert [v["id"] for v in history] == [old, new]
    versions.nth(0).get_by_role("link").click()  # the old version's own page
    expect(page.get_by_role("list", name="Versions, oldest first")).to_contain_text("this version")
    expect(page.locator(".memory-content")).to_have_text(old_text)


def test_the_entity_graph_links_an_entity_across_contexts(
    server: str, page: Page, snapshot: Snapshot
) -> None:
    page.goto(f"{server}/#/entities")
    expect(page.get_by_text("No entities of different contexts are linked yet.")).to_be_visible()
    for content, context in [
        ("Anna Schmidt presents the quarterly report", "work"),
        ("Anna Schmidt invited us to her birthday party", "personal"),
    ]:
        stored = httpx.post(f"{server}/v1/memories", json={"content": content, "context": context})
        assert stored.status_code == 201
    page.reload()
    graph = page.get_by_role("img", name="Entities linked across contexts")
    expect(graph).to_be_visible()
    expect(graph.locator("circle")).to_have_count(2)  # Anna Schmidt in each context
    expect(graph.locator("line")).to_have_count(1)  # and the link between them
    labels = sorted(graph.locator("text").all_text_contents())
    assert labels == ["Anna Schmidt · personal", "Anna Schmidt · work"]
    linked = page.get_by_role("list", name="Linked entities").get_by_role("listitem")
    expect(linked).to_have_count(1)
    expect(linked).to_contain_text("similarity 1.000")
    snapshot(page, "entities")


def test_a_slow_view_does_not_draw_over_the_tab_opened_after_it(server: str, page: Page) -> None:
    # Browse's request is held until the user has opened another tab; when it answers, the
    # tab asked for last stays on screen (before, browse drew itself over it).
    held: list[Route] = []
    page.route("**/v1/find*", lambda route: route.continue_() if held else held.append(route))
    page.goto(f"{server}/#/browse")
    page.wait_for_function("() => document.getElementById('status').textContent === 'Loading…'")
    for _ in range(200):  # until the browse request is held (a slow machine takes longer)
        if held:
            break
        page.wait_for_timeout(25)
    assert held, "the browse request was not made"
    page.get_by_role("link", name="Health").click()
    page.wait_for_timeout(300)  # time for Health to draw itself, had it not waited its turn
    held[0].continue_()
    expect(page.get_by_role("heading", name="Health", exact=True)).to_be_visible()
    page.wait_for_load_state("networkidle")
    assert page.locator("#view-title").inner_text() == "Health"
    assert page.locator("nav a[aria-current=page]").inner_text() == "Health"
