"""The database of LlamaIndex's own chat history, closed by each test that opens it."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
from sqlalchemy.ext.asyncio import AsyncEngine, create_async_engine


@pytest.fixture
async def chat_engine() -> AsyncIterator[AsyncEngine]:
    """The engine a ``Memory.from_defaults`` would make for itself (aiosqlite in memory),
    disposed on the test's own event loop. Left to the garbage collector, its connection
    is closed after that loop has gone, and aiosqlite's worker thread then fails posting
    the result ("Event loop is closed")."""
    engine = create_async_engine("sqlite+aiosqlite:///:memory:")
    yield engine
    await engine.dispose()
