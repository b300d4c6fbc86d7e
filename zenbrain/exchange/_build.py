"""What the importers of other systems' files share: rows built the way the store pipeline
would build them (a fact's first FSRS card, the emotional weight estimated, the entities
each memory names), checked as ``store()`` checks them, into :class:`ArchiveContent` that
:func:`~zenbrain.exchange._archive_import.restore` writes all or nothing."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from zenbrain._algorithms.emotional import emotional_weight
from zenbrain._storage.records import new_memory_id
from zenbrain._validation import (
    check_content,
    check_metadata,
    check_optional_text,
    check_storable,
)
from zenbrain.errors import InvalidInputError
from zenbrain.exchange._archive_read import ArchiveContent
from zenbrain.exchange._fields import parse_time
from zenbrain.layers import validate_label
from zenbrain.layers._cross_context import entity_key, extract_entities
from zenbrain.layers._semantic import DEFAULT_FACT_CONFIDENCE, first_schedule

__all__ = ["Builder", "foreign_time"]


def foreign_time(value: object, where: str, name: str) -> datetime | None:
    """A time as other systems write it: ISO 8601 (no offset: UTC), or seconds (or
    milli-, micro-, nanoseconds) since 1970; None or "" for none."""
    if value is None or value == "":
        return None
    try:
        if isinstance(value, bool):
            raise ValueError
        if isinstance(value, int | float):
            seconds = float(value)
            while abs(seconds) > 2e10:
                seconds /= 1000
            return datetime.fromtimestamp(seconds, tz=UTC)
        if isinstance(value, str):
            return parse_time(value.strip())
    except (ValueError, OverflowError, OSError):
        pass
    raise InvalidInputError(
        f"{where}: field {name!r}: expected an ISO 8601 time or seconds since 1970, "
        f"got {str(value)[:80]!r}"
    )


class Builder:
    """Collects one import's memories, sessions and entities."""

    def __init__(self, source: str, now: datetime) -> None:
        self.source, self.now = source, now
        self.content = ArchiveContent({"embedding_model": None, "embedding_dimension": None})
        self.rows = self.content.rows
        self._entities: dict[tuple[str, str], dict[str, Any]] = {}
        self.skipped: dict[str, int] = {}

    def skip(self, what: str) -> None:
        self.skipped[what] = self.skipped.get(what, 0) + 1

    def memory(
        self,
        where: str,
        layer: str,
        content: object,
        *,
        created_at: datetime | None = None,
        updated_at: datetime | None = None,
        context: str | None = None,
        metadata: object = None,
        confidence: float | None = None,
        valid_from: datetime | None = None,
        valid_to: datetime | None = None,
        label: object = None,
        entities: bool = True,
        conversation: str | None = None,
    ) -> str:
        """Add a memory; returns its new id. Bad values raise naming ``where``."""
        try:
            text = check_content(content)
            checked = check_metadata(metadata, "metadata")
            context = check_optional_text(context, "context")
            core = None if layer != "core" else {"label": validate_label(label), "pinned": True}
        except InvalidInputError as exc:
            raise InvalidInputError(f"{where}: {exc}") from exc
        created = created_at or self.now
        row: dict[str, Any] = {
            "_where": where,
            "id": new_memory_id(),
            "layer": layer,
            "content": text,
            "context": context,
            "emotional_weight": emotional_weight(text),
            "confidence": (
                confidence
                if confidence is not None
                else DEFAULT_FACT_CONFIDENCE
                if layer == "semantic"
                else None
            ),
            "source": self.source,
            "metadata": checked,
            "created_at": created,
            "updated_at": max(updated_at or created, created),
            "valid_from": valid_from,
            "valid_to": valid_to,
            "superseded_by": None,
            "conversation": conversation,  # the session it was told in (stores that keep it)
        }
        if layer == "semantic":
            card = first_schedule(created)
            row["fact"] = {
                "due": parse_time(card["due"]),
                "card": card,
                "reviews": 0,
                "access_count": 0,
                "last_accessed": None,
            }
        if core is not None:
            row["core"] = core
        self.rows.setdefault("memories", []).append(row)
        if entities:
            for found in extract_entities(text):
                self.mention(found.name, row["id"], context or "")
        return str(row["id"])

    def entity(self, name: str, context: str = "") -> tuple[str, str]:
        """The entity ``name`` (made on first use); returns its key and context."""
        key = (entity_key(name) or name.strip().lower())[:200]
        if (key, context) not in self._entities:
            row = {"name": name[:200], "key": key, "context": context, "created_at": self.now}
            row["mentions"] = []
            self._entities[key, context] = row
            self.rows.setdefault("entities", []).append(row)
        return key, context

    def mention(self, name: str, memory_id: str, context: str = "") -> None:
        mentions = self._entities[self.entity(name, context)]["mentions"]
        if memory_id not in mentions:
            mentions.append(memory_id)

    def session(self, session_id: str, started_at: datetime | None) -> str:
        """A session named ``session_id`` (made unique within this import)."""
        taken = {row["session_id"] for row in self.rows.get("sessions", [])}
        name, number = session_id[:200], 1
        while name in taken:
            number += 1
            name = f"{session_id[:190]}.{number}"
        self.rows.setdefault("sessions", []).append(
            {"session_id": name, "started_at": started_at or self.now}
        )
        return name

    def interaction(
        self, where: str, session_id: str, role: str, content: str,
        created_at: datetime | None, metadata: dict[str, Any] | None = None,
    ) -> None:  # fmt: skip
        try:
            check_storable(content, "content")
            check_storable(role, "role")
        except InvalidInputError as exc:
            raise InvalidInputError(f"{where}: {exc}") from exc
        self.rows.setdefault("interactions", []).append(
            {
                "session_id": session_id,
                "role": role[:50],
                "content": content,
                "metadata": metadata or {},
                "created_at": created_at or self.now,
            }
        )
