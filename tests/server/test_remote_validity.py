"""Validity over HTTP: update, history, supersedes and the recall options through
RemoteMemory give what the coordinator gives in process."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from tests.server.conftest import Served
from zenbrain.errors import InvalidInputError
from zenbrain.remote import RemoteMemory


async def test_update_history_and_current_only_over_http(served: Served) -> None:
    with RemoteMemory(served.url, namespace="default") as remote:
        old = remote.store("Anna lives in Kiel.", layer="semantic")
        new = remote.update(old, "Anna lives in Hamburg.")
        assert new != old
        chain = remote.history(new)
        assert [r.id for r in chain] == [old, new]
        assert chain[0].valid_to is not None and chain[0].superseded_by == new
        assert chain[1].valid_to is None
        assert [r.id for r in remote.recall("where does Anna live", current_only=True)] == [new]
        assert [r.id for r in await remote.ahistory(old)] == [old, new]
        # The same answers as the server's own coordinator.
        assert [r.id for r in served.memory.history(new)] == [old, new]
        later = remote.store("Anna lives in Lübeck.", layer="semantic", supersedes=[new])
        assert remote.get(new).superseded_by == later  # type: ignore[union-attr]
        before = datetime.now(UTC) - timedelta(days=1)
        assert remote.recall("Anna lives", as_of=before) == []


def test_bad_update_arguments_are_refused_and_change_nothing(served: Served) -> None:
    with RemoteMemory(served.url, namespace="default") as remote:
        kept = remote.store("The office closes at six.", layer="semantic")
        with pytest.raises(InvalidInputError):
            remote.update("no-such-memory", "anything")
        with pytest.raises(InvalidInputError):
            remote.recall("office", as_of=datetime(2026, 1, 1))  # naive: refused
        assert remote.history("no/such") == []
        assert [r.id for r in remote.find()] == [kept]
