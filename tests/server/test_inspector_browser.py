"""The inspector in a real browser: Playwright driving Debian's Chromium (``apt-get install
chromium``; never a downloaded browser; the fixtures are in conftest.py) against a server on
loopback. Without Chromium these tests fail, they do not skip: CI installs it (.ci/run). Each
view checked leaves its screenshot in build/inspector/ (git ignores it)."""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import httpx
import pytest
from playwright.sync_api import Browser, Page, expect

from zenbrain._coordinator import MemoryCoordinator
from zenbrain._storage.api_keys import add_key
from zenbrain.server import create_app
from zenbrain.testing.server import running_server

SCREENSHOT = Path(__file__).resolve().parents[2] / "docs" / "images" / "inspector.png"
# The docs' screenshot is rewritten only when asked (`make screenshot`): a test run must leave
# a clone as it found it.
UPDATE_SCREENSHOT_ENV = "ZENBRAIN_UPDATE_SCREENSHOT"


@pytest.fixture
def server(tmp_path: Path) -> Iterator[str]:
    with (
        MemoryCoordinator(str(tmp_path / "memory.db")) as memory,
        running_server(create_app(memory)) as url,
    ):
        yield url


def test_a_memory_stored_through_the_api_shows_in_the_page(
    server: str, page: Page, snapshot: Callable[[Page, str], Path]
) -> None:
    text = "The harbour ferry leaves Kiel at 07:40 on weekdays."
    stored = httpx.post(f"{server}/v1/memories", json={"content": text, "layer": "semantic"})
    assert stored.status_code == 201
    page.goto(f"{server}/#/browse")
    expect(page.get_by_role("list", name="Memories")).to_contain_text(text)
    snapshot(page, "browse")
    page.get_by_label("Layer").select_option("episodic")
    page.get_by_role("button", name="Show").click()
    expect(page.get_by_text("Nothing stored here yet.")).to_be_visible()


def test_search_shows_each_results_score_parts(server: str, page: Page) -> None:
    httpx.post(
        f"{server}/v1/memories", json={"content": "Anna's staging database is PostgreSQL 17."}
    )
    httpx.post(f"{server}/v1/memories", json={"content": "Bob prefers tea over coffee."})
    page.goto(f"{server}/#/search")
    page.get_by_label("Question").fill("staging database")
    page.get_by_role("button", name="Recall").click()
    results = page.get_by_role("list", name="Results")
    first = results.get_by_role("listitem").first
    expect(first).to_contain_text("Anna's staging database")
    expect(first.get_by_role("group", name="Score breakdown")).to_be_visible()
    assert float(first.locator(".part-lexical").inner_text()) > 0


def test_forgetting_in_the_page_shows_the_cascade_and_removes_it(
    server: str, page: Page, snapshot: Callable[[Page, str], Path]
) -> None:
    episode = httpx.post(
        f"{server}/v1/memories",
        json={"content": "I was thrilled when my talk got accepted at PyCon!", "layer": "episodic",
              "emotional_weight": 0.9},
    ).json()["id"]  # fmt: skip
    report = httpx.post(f"{server}/v1/consolidate").json()
    fact = report["promotions"][0]["fact_ids"][0]
    preview = httpx.delete(f"{server}/v1/memories/{episode}", params={"dry_run": "true"}).json()
    cascade = preview["also_forgotten"]  # the fact, and the working-memory copy of the episode
    assert {"id": fact, "layer": "semantic"} in cascade
    page.goto(f"{server}/#/memory/{episode}")
    expect(page.get_by_role("region", name="Provenance")).to_contain_text(fact)
    page.get_by_role("button", name="Forget…").click()
    dialog = page.get_by_role("dialog", name="Forget this memory?")
    expect(dialog).to_contain_text(fact)  # the fact made from the episode goes with it
    expect(dialog).to_contain_text("its copy in working memory")  # not a bare slot id
    expect(dialog).to_contain_text(f"It takes with it {len(cascade)} linked memories:")
    expect(dialog).not_to_contain_text("null")
    snapshot(page, "forget-dialog")
    dialog.get_by_role("button", name="Forget").click()
    expect(page.get_by_role("status")).to_contain_text(f"Forgotten, with {len(cascade)} linked")
    assert httpx.get(f"{server}/v1/memories/{episode}").status_code == 404
    assert httpx.get(f"{server}/v1/memories/{fact}").status_code == 404


def test_cancelling_the_forget_dialog_keeps_the_memory(server: str, page: Page) -> None:
    kept = httpx.post(f"{server}/v1/memories", json={"content": "Keep the spare key."}).json()["id"]
    page.goto(f"{server}/#/memory/{kept}")
    page.get_by_role("button", name="Forget…").click()
    # One linked memory (its working-memory copy) is counted in the singular.
    expect(page.get_by_role("dialog")).to_contain_text("It takes with it 1 linked memory:")
    page.get_by_role("dialog").get_by_role("button", name="Cancel").click()
    expect(page.get_by_role("status")).to_contain_text("Nothing was forgotten")
    assert httpx.get(f"{server}/v1/memories/{kept}").status_code == 200


def test_editing_a_core_block_and_grading_a_review(
    server: str, page: Page, snapshot: Callable[[Page, str], Path]
) -> None:
    httpx.put(f"{server}/v1/core-blocks/persona", json={"content": "Anna, engineer in Kiel."})
    page.goto(f"{server}/#/core")
    box = page.get_by_role("textbox", name="persona")
    box.fill("Anna, engineer in Hamburg.")
    page.get_by_role("form", name="Core block persona").get_by_role("button", name="Save").click()
    expect(page.get_by_role("status")).to_contain_text("Saved persona")
    snapshot(page, "core-blocks")
    blocks = httpx.get(f"{server}/v1/core-blocks").json()
    assert [b["content"] for b in blocks] == ["Anna, engineer in Hamburg."]


def test_health_consolidation_and_review_views(
    server: str, page: Page, snapshot: Callable[[Page, str], Path]
) -> None:
    httpx.post(
        f"{server}/v1/memories",
        json={"content": "I was thrilled when my talk got accepted at PyCon!", "layer": "episodic",
              "emotional_weight": 0.9},
    )  # fmt: skip
    for i in range(3):
        httpx.post(f"{server}/v1/memories", json={"content": f"Fact {i}.", "layer": "semantic"})
    page.goto(f"{server}/#/health")
    chart = page.get_by_role("img", name="Memories per layer")
    expect(chart).to_have_accessible_name(re.compile(r"episodic 1, semantic 3"))
    page.get_by_role("link", name="Review").click()
    page.get_by_role("button", name="Consolidate now").click()
    expect(page.get_by_text("Promoted 1 episodes")).to_be_visible()
    snapshot(page, "review")
    fact = httpx.post(f"{server}/v1/find", json={"metadata": None, "layers": ["semantic"]}).json()
    assert any(m["source"] == "consolidation" and m["metadata"] == {} for m in fact)
    page.goto(f"{server}/#/health")
    expect(page.get_by_role("img", name="Memories per layer")).to_have_accessible_name(
        re.compile(r"semantic 4")
    )
    snapshot(page, "health")


def test_grading_a_due_fact_in_the_page(tmp_path: Path, page: Page) -> None:
    now = [datetime(2026, 1, 5, 9, 0, tzinfo=UTC)]
    with MemoryCoordinator(str(tmp_path / "review.db"), clock=lambda: now[0]) as memory:
        fact = memory.store("The capital of Australia is Canberra.", layer="semantic")
        now[0] += timedelta(days=60)  # long overdue
        with running_server(create_app(memory)) as url:
            page.goto(f"{url}/#/review")
            due = page.get_by_role("list", name="Due for review")
            expect(due).to_contain_text("Canberra")
            due.get_by_role("group", name="Grade this review").get_by_role(
                "button", name="Easy (4)"
            ).click()
            expect(page.get_by_role("status")).to_contain_text("Next review")
            expect(page.get_by_text("Nothing is due for review.")).to_be_visible()
        assert [item.id for item in memory.review_queue()] == []
        assert memory.get(fact) is not None


def test_a_wrong_key_sees_nothing(
    tmp_path: Path, page: Page, snapshot: Callable[[Page, str], Path]
) -> None:
    secret = "Alice's locker code is 4711."
    with MemoryCoordinator(str(tmp_path / "keys.db")) as memory:
        _, alice = add_key(memory.database, "alice")
        memory.for_namespace("alice").store(secret, layer="semantic")
        with running_server(create_app(memory)) as url:
            page.goto(f"{url}/#/browse")
            expect(page.get_by_role("status")).to_contain_text("needs an API key")
            page.get_by_label("API key").fill("zb_0123456789ab_not-the-key")
            page.get_by_role("button", name="Open").click()
            expect(page.get_by_role("status")).to_contain_text("not valid")
            assert secret not in page.content()
            page.get_by_label("API key").fill(alice)
            page.get_by_role("button", name="Open").click()
            expect(page.get_by_role("list", name="Memories")).to_contain_text(secret)
            # The page says which namespace the key opened, not the key-less "default".
            expect(page.get_by_text("Namespace open: alice")).to_be_visible()
            expect(page.get_by_label("Namespace")).to_have_attribute("placeholder", "alice")
            snapshot(page, "namespace-opened")


def test_the_page_fits_a_phone_and_works_by_keyboard(server: str, browser: Browser) -> None:
    httpx.post(f"{server}/v1/memories", json={"content": "A rather long memory " * 12})
    context = browser.new_context(viewport={"width": 375, "height": 740})
    phone = context.new_page()
    try:
        phone.goto(f"{server}/#/browse")
        expect(phone.get_by_role("list", name="Memories")).to_be_visible()
        overflow = phone.evaluate("document.documentElement.scrollWidth - window.innerWidth")
        assert overflow <= 0, f"the page is {overflow}px wider than a phone's screen"
        # Each view takes the focus, so Tab goes on into its controls, not back to the top.
        assert phone.evaluate("document.activeElement.id") == "main"
        phone.keyboard.press("Tab")
        assert phone.evaluate("document.activeElement.id") == "layer"
        phone.get_by_role("link", name="Search").focus()
        phone.keyboard.press("Enter")
        expect(phone.get_by_role("heading", name="Search")).to_be_visible()
        phone.get_by_label("Question").fill("long memory")
        phone.keyboard.press("Enter")
        phone.get_by_role("list", name="Results").get_by_role("link").first.focus()
        phone.keyboard.press("Enter")
        expect(phone.get_by_role("heading", name="Memory")).to_be_visible()
    finally:
        context.close()


def test_screenshot_of_the_inspector(
    server: str, page: Page, tmp_path: Path, snapshot: Callable[[Page, str], Path]
) -> None:
    """The README's screenshot, taken here from a real page: into docs/images/inspector.png
    with ZENBRAIN_UPDATE_SCREENSHOT=1 (``make screenshot``), else into a temporary folder."""
    target = SCREENSHOT if os.environ.get(UPDATE_SCREENSHOT_ENV) == "1" else tmp_path / "shot.png"
    for content, layer in [
        ("Anna's staging database is PostgreSQL 17 with pgvector.", "semantic"),
        ("The staging database is backed up every night at 02:00.", "semantic"),
        ("We migrated the staging database to the new cluster; it went smoothly!", "episodic"),
        ("How to restore staging: stop the app, restore the dump, run migrations.", "procedural"),
    ]:
        httpx.post(f"{server}/v1/memories", json={"content": content, "layer": layer})
    page.goto(f"{server}/#/search?q=staging%20database%20backup")
    expect(page.get_by_role("list", name="Results").get_by_role("listitem").first).to_be_visible()
    target.parent.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(target), full_page=False)
    snapshot(page, "search")
    assert target.stat().st_size > 10_000
