"""A real server per test: uvicorn on 127.0.0.1 (a free port) over a fresh store, SQLite or
PostgreSQL, and the API keys of two namespaces; for the inspector's browser tests, Debian's
Chromium driven by Playwright (``apt-get install chromium``; never a downloaded browser)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest
from playwright.sync_api import Browser, Page, sync_playwright

from zenbrain._coordinator import MemoryCoordinator
from zenbrain._storage.api_keys import add_key
from zenbrain.server import create_app
from zenbrain.testing.server import running_server


@dataclass
class Served:
    url: str
    memory: MemoryCoordinator  # the server's own coordinator, for checks beside the API


@pytest.fixture
def served(store_location: str) -> Iterator[Served]:
    """A key-less (loopback) server over a fresh store."""
    with MemoryCoordinator(store_location) as memory, running_server(create_app(memory)) as url:
        yield Served(url, memory)


@pytest.fixture
def client(served: Served) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=served.url, timeout=30) as http:
        yield http


@dataclass
class Keyed:
    url: str
    memory: MemoryCoordinator
    alice: str  # opens "alice" only
    bob: str  # opens "bob" only
    team: str  # opens every namespace starting with "team."


@pytest.fixture
def keyed(store_location: str) -> Iterator[Keyed]:
    """A server whose store holds keys of different namespaces."""
    with MemoryCoordinator(store_location) as memory:
        _, alice = add_key(memory.database, "alice")
        _, bob = add_key(memory.database, "bob")
        _, team = add_key(memory.database, "team.", is_prefix=True)
        with running_server(create_app(memory)) as url:
            yield Keyed(url, memory, alice, bob, team)


def _client_with(url: str, token: str | None) -> httpx.Client:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    return httpx.Client(base_url=url, headers=headers, timeout=30)


@pytest.fixture
def as_key() -> Callable[[str, str | None], httpx.Client]:
    """``as_key(url, token)``: an HTTP client sending that key (none for None)."""
    return _client_with


CHROMIUM = "/usr/bin/chromium"
#: Where the browser tests leave a screenshot of each view they check (git ignores build/).
SCREENSHOTS = Path(__file__).resolve().parents[2] / "build" / "inspector"


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    """Without Chromium the browser tests fail, they do not skip: CI installs it (.ci/run)."""
    assert Path(CHROMIUM).exists(), (
        f"the browser tests need Debian's chromium at {CHROMIUM}: apt-get install -y chromium"
    )
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(
            executable_path=CHROMIUM, headless=True, args=["--no-sandbox"]
        )
        yield launched
        launched.close()


@pytest.fixture
def page(browser: Browser) -> Iterator[Page]:
    context = browser.new_context(viewport={"width": 1200, "height": 900})
    opened = context.new_page()
    yield opened
    context.close()


@pytest.fixture
def snapshot() -> Callable[[Page, str], Path]:
    """``snapshot(page, name)``: the page as it is now, into build/inspector/NAME.png."""

    def take(page: Page, name: str) -> Path:
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        target = SCREENSHOTS / f"{name}.png"
        page.screenshot(path=str(target), full_page=True)
        return target

    return take
