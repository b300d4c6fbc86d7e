"""How times are stored: naive UTC in the database (SQLite has no time zones), aware UTC
everywhere else."""

from __future__ import annotations

from datetime import UTC, datetime

__all__ = ["from_db", "to_db"]


def to_db(moment: datetime) -> datetime:
    """An aware (or naive-as-UTC) datetime as the naive UTC value the tables hold."""
    return moment.astimezone(UTC).replace(tzinfo=None) if moment.tzinfo else moment


def from_db(moment: datetime) -> datetime:
    """A stored naive UTC value as an aware UTC datetime."""
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)
