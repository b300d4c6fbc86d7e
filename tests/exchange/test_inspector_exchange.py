"""The inspector's "Export / import" view in a real browser (Debian's Chromium through
Playwright, as tests/server does): a Letta agent file checked with a dry run (its summary
shown, nothing stored), then imported; the archive downloaded as a zip."""

from __future__ import annotations

import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest

pytest.importorskip("playwright.sync_api")
pytest.importorskip("fastapi")

from playwright.sync_api import Page, expect, sync_playwright

from zenbrain import MemoryCoordinator
from zenbrain.server import create_app
from zenbrain.testing.server import running_server

CHROMIUM = "/usr/bin/chromium"
LETTA = Path(__file__).parent / "fixtures" / "customer_service.af"
Opened = tuple[MemoryCoordinator, str, Page]


@pytest.fixture
def opened(tmp_path: Path) -> Iterator[Opened]:
    assert Path(CHROMIUM).exists(), f"the browser tests need Debian's chromium at {CHROMIUM}"
    with (
        MemoryCoordinator(str(tmp_path / "memory.db")) as memory,
        running_server(create_app(memory)) as url,
        sync_playwright() as driver,
    ):
        browser = driver.chromium.launch(
            executable_path=CHROMIUM, headless=True, args=["--no-sandbox"]
        )
        context = browser.new_context(viewport={"width": 1200, "height": 900})
        yield memory, url, context.new_page()
        browser.close()


def test_check_then_import_then_download(opened: Opened, tmp_path: Path) -> None:
    memory, url, page = opened
    page.goto(f"{url}/#/browse")
    page.get_by_role("link", name="Export / import").click()
    expect(page.get_by_role("heading", name="Export / import")).to_be_visible()
    page.get_by_label("File").set_input_files(str(LETTA))
    page.get_by_role("button", name="Check (dry run)").click()
    summary = page.locator("#import-summary")
    expect(summary).to_contain_text("Would import")
    expect(summary).to_contain_text("2 core, 5 episodic")
    assert memory.core_blocks() == []
    page.get_by_role("button", name="Import", exact=True).click()
    expect(summary).to_contain_text("Imported")
    assert [b.label for b in memory.core_blocks()] == ["human", "persona"]
    with page.expect_download() as waiting:
        page.get_by_role("button", name="archive", exact=True).click()
    saved = tmp_path / "downloaded.zip"
    waiting.value.save_as(str(saved))
    assert "manifest.json" in zipfile.ZipFile(saved).namelist()
