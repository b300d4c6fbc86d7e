"""What SQLite and PostgreSQL spell differently, for the repository: the INSERT that can
upsert, exact matches on a JSON metadata key, a lock on an arbitrary key, and reading
stored vectors back."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
from sqlalchemy import (
    ColumnElement,
    Connection,
    String,
    Table,
    bindparam,
    cast,
    exists,
    func,
    literal,
    select,
    text,
)

from zenbrain._storage.schema import memories, vectors

if TYPE_CHECKING:
    from sqlalchemy.dialects import postgresql, sqlite

__all__ = [
    "POSTGRES_MIGRATION_LOCK",
    "JsonScalar",
    "lock_key",
    "metadata_equals",
    "stored_cosines",
    "upsert_insert",
]

JsonScalar = str | int | float | bool | None

# One advisory-lock key serialises schema work (migrations, CREATE EXTENSION) across
# processes opening the same PostgreSQL database.
POSTGRES_MIGRATION_LOCK = 0x7A62_6D67  # "zbmg"


def upsert_insert(dialect: str, table: Table) -> postgresql.Insert | sqlite.Insert:
    """The dialect's INSERT, which both spell ``on_conflict_do_nothing/_update``."""
    # Each dialect's module is imported when a store of its kind first needs it: PostgreSQL's
    # (with asyncio, which it loads) was a tenth of an SQLite command's start-up.
    if dialect == "postgresql":
        from sqlalchemy.dialects import postgresql

        return postgresql.insert(table)
    from sqlalchemy.dialects import sqlite

    return sqlite.insert(table)


def metadata_equals(dialect: str, key: str, value: JsonScalar) -> ColumnElement[bool]:
    """``zb_memories.metadata[key]`` equals the JSON scalar ``value`` exactly: same JSON
    type (``true`` is not ``1``), same value (``1`` equals ``1.0``, as in Python)."""
    if dialect == "postgresql":
        from sqlalchemy.dialects.postgresql import JSONB

        encoded = cast(bindparam(None, json.dumps(value), String), JSONB)
        return cast(memories.c.metadata, JSONB)[key] == encoded
    each = func.json_each(memories.c.metadata).table_valued("key", "type", "atom")
    condition: ColumnElement[bool] = each.c.key == key
    if value is None:
        condition &= each.c.type == "null"
    elif isinstance(value, bool):
        condition &= each.c.type == ("true" if value else "false")
    elif isinstance(value, int | float):
        condition &= each.c.type.in_(("integer", "real")) & (each.c.atom == value)
    else:
        condition &= (each.c.type == "text") & (each.c.atom == value)
    return exists(select(literal(1)).select_from(each).where(condition))


def lock_key(dialect: str, conn: Connection, key: object) -> None:
    """Hold a lock on ``key`` (any JSON value) until the transaction ends: PostgreSQL's
    transaction-scoped advisory lock. SQLite needs none: a write transaction there already
    excludes every other writer."""
    if dialect != "postgresql":
        return
    encoded = json.dumps(key, sort_keys=True).encode("utf-8")
    number = int.from_bytes(hashlib.blake2b(encoded, digest_size=8).digest(), "big", signed=True)
    conn.execute(select(func.pg_advisory_xact_lock(number)))


def stored_cosines(
    dialect: str, conn: Connection, pks: Sequence[int], query: np.ndarray
) -> dict[int, float]:
    """Cosine similarity of ``query`` to the stored vectors of ``pks`` (those that have
    one; vectors are stored at unit length). PostgreSQL keeps them in pgvector's
    ``zb_pgvectors``, SQLite as float32 blobs in ``zb_vectors``."""
    if not pks:
        return {}
    if dialect == "postgresql":
        if not conn.execute(select(func.to_regclass("zb_pgvectors"))).scalar():
            return {}
        rows = conn.execute(
            text("SELECT memory_pk, embedding FROM zb_pgvectors WHERE memory_pk = ANY(:pks)"),
            {"pks": list(pks)},
        ).all()
        # pgvector's psycopg adapter (registered for binary inserts) reads a Vector object.
        found = [(int(pk), _pgvector_array(vector)) for pk, vector in rows]
    else:
        rows = conn.execute(
            select(vectors.c.memory_pk, vectors.c.vector).where(vectors.c.memory_pk.in_(list(pks)))
        ).all()
        found = [(int(pk), np.frombuffer(blob, dtype=np.float32)) for pk, blob in rows]
    q = np.asarray(query, dtype=np.float32)
    return {pk: float(vector @ q) for pk, vector in found if vector.shape == q.shape}


def _pgvector_array(vector: Any) -> np.ndarray:
    if hasattr(vector, "to_numpy"):
        return np.asarray(vector.to_numpy(), dtype=np.float32)
    return np.asarray(vector, dtype=np.float32)
