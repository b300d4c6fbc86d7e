"""The SQL the memory pipelines need, for one namespace: rows by key, inserts in bulk,
deletes, counts, upserts, metadata matches. The pipelines in :mod:`zenbrain._memory` never
write SQL or branch on the dialect; where the dialects differ this module chooses (with
:mod:`zenbrain._storage.dialect`). What text is indexed for a memory is decided once, in
:func:`zenbrain._storage.records.indexed_text`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from contextlib import AbstractContextManager
from datetime import datetime
from typing import Any

import numpy as np
from sqlalchemy import (
    ColumnElement,
    Connection,
    Row,
    Select,
    Table,
    bindparam,
    delete,
    func,
    select,
    true,
    update,
)

from zenbrain._storage.database import Database
from zenbrain._storage.dialect import (
    JsonScalar,
    lock_key,
    metadata_equals,
    stored_cosines,
    upsert_insert,
)
from zenbrain._storage.indexes import IndexedDocuments, IndexedText, IndexedVector, ScopeStatistics
from zenbrain._storage.reads import by_pk_statement, core_statement, latest_statement, memory_select
from zenbrain._storage.records import NewMemory, content_hash, indexed_text
from zenbrain._storage.schema import (
    CONTENT_HASH_KEY_BLOCK,
    claim_backlog,
    claims,
    consolidation_links,
    content_key_block,
    core_blocks,
    facts,
    interactions,
    keyed_namespace_filter,
    memories,
    meta,
    procedures,
    sessions,
)
from zenbrain._storage.timestamps import to_db
from zenbrain._storage.writes import insert_many, layer_rows, memory_row
from zenbrain.text import tokenize

__all__ = ["Repository"]


class Repository:
    """Queries and writes scoped to ``namespace`` on ``database``. Methods take the
    connection of the caller's transaction (:meth:`read` or :meth:`write`)."""

    def __init__(self, database: Database, namespace: str) -> None:
        self.database = database
        self.namespace = namespace

    # ------------------------------------------------------------------ transactions
    def read(self) -> AbstractContextManager[Connection]:
        return self.database.read()

    def write(self) -> AbstractContextManager[Connection]:
        """One write transaction (see :meth:`~zenbrain._storage.database.Database.write`)."""
        return self.database.write()

    # ------------------------------------------------------------------ rows
    def memory_query(self, *, keyed: bool = False, subtree: bool = False) -> Select[Any]:
        """:func:`~zenbrain._storage.reads.memory_select` of this namespace."""
        return memory_select(self.namespace, keyed=keyed, subtree=subtree)

    def row(self, conn: Connection, memory_id: str, layer: str | None = None) -> Row[Any] | None:
        query = self.memory_query(keyed=True).where(memories.c.id == memory_id)
        if layer is not None:
            query = query.where(memories.c.layer == layer)
        return conn.execute(query).one_or_none()

    def rows_by_pk(self, conn: Connection, pks: Sequence[int]) -> dict[int, Row[Any]]:
        if not pks:
            return {}
        found = conn.execute(by_pk_statement(self.namespace), {"pks": list(pks)})
        return {int(row.pk): row for row in found.all()}

    def latest_rows(
        self, conn: Connection, layer: str, context: str | None, limit: int
    ) -> list[Row[Any]]:
        """The newest memories of a layer (procedures: the most successful)."""
        query = latest_statement(self.namespace, layer, context is not None)
        return list(conn.execute(query, {"context": context, "limit": limit}).all())

    def core_rows(self, conn: Connection, label: str | None = None) -> list[Row[Any]]:
        if label is None:
            return list(conn.execute(core_statement(self.namespace)).all())
        query = self.memory_query().where(memories.c.layer == "core")
        query = query.where(core_blocks.c.label == label)
        return list(conn.execute(query.order_by(core_blocks.c.label)).all())

    # ------------------------------------------------------------------ metadata matches
    def metadata_filter(self, match: Mapping[str, JsonScalar]) -> ColumnElement[bool]:
        """Memories whose metadata holds every key of ``match`` with an equal value."""
        condition: ColumnElement[bool] = true()
        for key, value in match.items():
            condition &= metadata_equals(self.database.dialect, key, value)
        return condition

    def find_rows(
        self,
        conn: Connection,
        match: Mapping[str, JsonScalar],
        layers: Sequence[str] | None,
        limit: int | None,
        offset: int,
        subtree: bool = False,
    ) -> list[Row[Any]]:
        query = self.memory_query(subtree=subtree).where(self.metadata_filter(match))
        if layers is not None:
            query = query.where(memories.c.layer.in_(list(layers)))
        query = query.order_by(memories.c.created_at, memories.c.pk).offset(offset)
        if limit is not None:
            query = query.limit(limit)
        return list(conn.execute(query).all())

    def matching_pks(
        self,
        conn: Connection,
        match: Mapping[str, JsonScalar],
        layer: str | None = None,
        context: str | None = None,
    ) -> list[int]:
        query = select(memories.c.pk).where(
            memories.c.namespace == self.namespace, self.metadata_filter(match)
        )
        if layer is not None:
            query = query.where(memories.c.layer == layer)
        if context is not None:
            query = query.where(memories.c.context == context)
        return [int(pk) for pk in conn.execute(query.order_by(memories.c.pk)).scalars()]

    def lock_match(self, conn: Connection, match: Mapping[str, JsonScalar]) -> None:
        """Serialise writers of one metadata match until the transaction ends."""
        lock_key(self.database.dialect, conn, [self.namespace, dict(match)])

    # ------------------------------------------------------------------ inserts
    def insert(self, conn: Connection, items: Sequence[NewMemory], now: datetime) -> list[int]:
        """Insert new memories with their layer rows and index entries, in bulk; returns
        their pks in order."""
        if not items:
            return []
        pks = self.database.allocate_keys(conn, len(items))
        stamps: dict[datetime, datetime] = {}  # a batch shares its times: convert each once
        pairs = list(zip(pks, items, strict=True))
        insert_many(
            conn,
            memories,
            [memory_row(self.namespace, pk, item, now, stamps) for pk, item in pairs],
        )
        fact_rows, procedure_rows, core_rows = layer_rows(self.namespace, pairs, now)
        insert_many(conn, facts, fact_rows)
        insert_many(conn, procedures, procedure_rows)
        insert_many(conn, core_blocks, core_rows)
        self._index(conn, pairs)
        return pks

    def _index(self, conn: Connection, rows: Sequence[tuple[int, NewMemory]]) -> None:
        self.database.lexical.add(
            conn,
            [
                IndexedText(
                    pk,
                    self.namespace,
                    item.layer,
                    item.context,
                    tokenize(item.indexed_text) if item.terms is None else item.terms,
                )
                for pk, item in rows
            ],
        )
        self.add_vectors(
            conn,
            [
                (pk, item.layer, item.context, item.vector)
                for pk, item in rows
                if item.vector is not None
            ],
        )

    def add_vectors(
        self, conn: Connection, rows: Sequence[tuple[int, str, str | None, np.ndarray]]
    ) -> None:
        self.database.vectors.add(
            conn,
            [
                IndexedVector(pk, self.namespace, layer, context, vector)
                for pk, layer, context, vector in rows
            ],
        )

    def cosines(self, conn: Connection, pks: Sequence[int], query: np.ndarray) -> dict[int, float]:
        """Cosine similarity of ``query`` to the stored vectors of ``pks`` that have one."""
        return stored_cosines(self.database.dialect, conn, pks, query)

    def missing_vectors(self, conn: Connection, limit: int) -> list[int]:
        return self.database.vectors.missing(conn, self.namespace, limit)

    # ------------------------------------------------------------------ core blocks
    def upsert_core(self, conn: Connection, item: NewMemory, now: datetime) -> tuple[str, int]:
        """Create the core block ``item.label``, or give the existing one ``item``'s content;
        returns its id and pk. The label is claimed with INSERT .. ON CONFLICT DO NOTHING,
        so two writers of one label never both insert (PostgreSQL waits for the first)."""
        for existing in self.core_rows(conn, item.label):  # the common case: an update
            self.update_core(conn, existing, item.content, now, item.vector)
            return str(existing.id), int(existing.pk)
        pk = self.database.allocate_keys(conn, 1)[0]
        conn.execute(memories.insert().values(memory_row(self.namespace, pk, item, now, {})))
        claimed = conn.execute(
            self._insert(core_blocks)
            .values(memory_pk=pk, namespace=self.namespace, label=item.label, pinned=True)
            .on_conflict_do_nothing(index_elements=["namespace", "label"])
            .returning(core_blocks.c.memory_pk)
        ).first()
        if claimed is not None:
            self._index(conn, [(pk, item)])
            return item.id, pk
        conn.execute(delete(memories).where(memories.c.pk == pk))
        existing = self.core_rows(conn, item.label)[0]
        self.update_core(conn, existing, item.content, now, item.vector)
        return str(existing.id), int(existing.pk)

    def update_core(
        self,
        conn: Connection,
        row: Row[Any],
        content: str,
        now: datetime,
        vector: np.ndarray | None,
    ) -> None:
        conn.execute(
            update(memories)
            .where(memories.c.pk == row.pk)
            .values(content=content, content_hash=content_hash(content), updated_at=to_db(now))
        )
        self.database.lexical.remove(conn, [row.pk])
        text = indexed_text("core", content, label=row.label)
        self.database.lexical.add(
            conn, [IndexedText(row.pk, self.namespace, "core", row.context, tokenize(text))]
        )
        if vector is not None:
            self.database.vectors.remove(conn, [row.pk])
            self.add_vectors(conn, [(row.pk, "core", row.context, vector)])

    # ------------------------------------------------------------------ deletes
    def delete(self, conn: Connection, pks: Sequence[int]) -> None:
        """Delete memories with their layer rows and index entries (stage rows are the
        stages' own: see :func:`zenbrain.stages.forget_stage_rows`)."""
        if not pks:
            return
        pks = list(pks)
        self.database.lexical.remove(conn, pks)
        self.database.vectors.remove(conn, pks)
        for table in (facts, procedures, core_blocks, claims):
            conn.execute(delete(table).where(table.c.memory_pk.in_(pks)))
        conn.execute(delete(memories).where(memories.c.pk.in_(pks)))

    def same_content(
        self, conn: Connection, contents: set[str], exclude_ids: Sequence[str]
    ) -> list[Any]:
        if not contents:
            return []
        return list[Any](
            conn.execute(
                select(memories.c.id, memories.c.layer).where(
                    self._with_content(conn, contents),
                    memories.c.id.not_in(list(exclude_ids)),
                )
            ).all()
        )

    def _with_content(self, conn: Connection, contents: set[str]) -> ColumnElement[bool]:
        """This namespace's memories whose content is one of ``contents``, found through the
        content-hash index: one probe per key block (see
        :func:`~zenbrain._storage.schema.content_key_block`) and hash, the content itself
        compared as well, so a hash collision never matches."""
        newest = conn.execute(select(func.max(memories.c.pk))).scalar()
        # One block more than the newest key needs: on PostgreSQL each statement sees the
        # writes committed before it, so memories stored between these two statements
        # (keys above ``newest``) are probed too.
        blocks = list(range(int(newest or 0) // CONTENT_HASH_KEY_BLOCK + 2))
        # Written into the statement: a huge store's blocks must not use up bound parameters.
        return (
            (memories.c.namespace == self.namespace)
            & content_key_block().in_(bindparam("key_blocks", blocks, literal_execute=True))
            & memories.c.content_hash.in_({content_hash(c) for c in contents})
            & memories.c.content.in_(contents)
        )

    def all_pks(self, conn: Connection) -> list[int]:
        query = select(memories.c.pk).where(memories.c.namespace == self.namespace)
        return [int(pk) for pk in conn.execute(query).scalars()]

    def delete_namespace_rows(self, conn: Connection) -> None:
        """Everything but the memories themselves and the stages' rows: sessions,
        interactions, consolidation links."""
        for table in (interactions, sessions, consolidation_links, claim_backlog):
            conn.execute(delete(table).where(table.c.namespace == self.namespace))

    def namespaces(self, conn: Connection, prefix: str) -> list[str]:
        found: set[str] = set()
        for table in (memories, sessions, interactions):
            query = select(table.c.namespace).distinct()
            if prefix:
                escaped = prefix.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
                query = query.where(table.c.namespace.like(escaped + "%", escape="\\"))
            found.update(str(ns) for ns in conn.execute(query).scalars())
        return sorted(ns for ns in found if ns.startswith(prefix))

    # ------------------------------------------------------------------ consolidation
    def linked_ids(self, conn: Connection, memory_id: str, *, of_episode: bool) -> list[str]:
        """Facts made from an episode (``of_episode``), or episodes consolidated into a fact."""
        links = consolidation_links.c
        wanted, given = links.fact_id, links.episode_id
        if not of_episode:
            wanted, given = given, wanted
        query = select(wanted).where(links.namespace == self.namespace, given == memory_id)
        return [str(i) for i in conn.execute(query).scalars()]

    def unlink(self, conn: Connection, ids: Sequence[str]) -> None:
        # One statement per column, each by its own index: joined by OR, SQLite read every
        # link of the namespace.
        links = consolidation_links.c
        for column in (links.episode_id, links.fact_id):
            conn.execute(
                delete(consolidation_links).where(
                    links.namespace == self.namespace, column.in_(list(ids))
                )
            )

    _EPISODE_FIELDS = ("id", "content", "context", "conversation", "created_at")

    def unpromoted_episodes(self, conn: Connection, min_weight: float, limit: int) -> list[Any]:
        # Each episode's link looked up by its key, not every link read (NOT IN) each pass.
        links = consolidation_links.c
        link = links.episode_id == memories.c.id
        promoted = select(links.episode_id).where(link, links.namespace == self.namespace).exists()
        return list[Any](
            conn.execute(
                select(*(memories.c[name] for name in self._EPISODE_FIELDS))
                .where(
                    memories.c.namespace == self.namespace,
                    memories.c.layer == "episodic",
                    memories.c.emotional_weight > min_weight,
                    ~promoted,
                )
                .order_by(memories.c.created_at.desc(), memories.c.pk.desc())
                .limit(limit)
            ).all()
        )

    def consolidated_fact(self, conn: Connection, content: str) -> str | None:
        # Layer and source are compared here: named in the statement, they led SQLite's
        # planner to walk the whole semantic layer by its (namespace, layer) index instead
        # of probing the content hash, once for every episode consolidated.
        same = conn.execute(
            select(memories.c.id, memories.c.layer, memories.c.source).where(
                self._with_content(conn, {content})
            )
        ).all()
        return next(
            (str(r.id) for r in same if r.layer == "semantic" and r.source == "consolidation"),
            None,
        )

    def link(self, conn: Connection, episode_id: str, fact_id: str, now: datetime) -> bool:
        """Link an episode to its fact unless it is linked already (by anyone): True when
        this call made the link. The episode's ``updated_at`` is touched with it."""
        made = conn.execute(
            self._insert(consolidation_links)
            .values(
                namespace=self.namespace,
                episode_id=episode_id,
                fact_id=fact_id,
                created_at=to_db(now),
            )
            .on_conflict_do_nothing(index_elements=["episode_id"])
            .returning(consolidation_links.c.episode_id)
        ).first()
        if made is not None:
            conn.execute(
                update(memories)
                .where(memories.c.namespace == self.namespace, memories.c.id == episode_id)
                .values(updated_at=to_db(now))
            )
        return made is not None

    def existing_ids(self, conn: Connection, ids: Sequence[str]) -> set[str]:
        if not ids:
            return set()
        query = select(memories.c.id).where(
            keyed_namespace_filter(self.namespace), memories.c.id.in_(list(ids))
        )
        return {str(i) for i in conn.execute(query).scalars()}

    def statistics(
        self, conn: Connection, layers: Sequence[str], terms: Sequence[str], context: str | None
    ) -> dict[str, ScopeStatistics]:
        """Each layer's counts for the query's terms (the lexical index's own)."""
        return self.database.lexical.statistics(conn, self.namespace, layers, terms, context)

    def lexical_candidates(
        self,
        conn: Connection,
        terms_by_layer: Mapping[str, Sequence[str]],
        context: str | None,
        limit: int,
    ) -> dict[str, list[int]]:
        """Each layer's best keys by its words, in one statement."""
        return self.database.lexical.candidates_by_layer(
            conn, self.namespace, terms_by_layer, context, limit
        )

    def nearest(
        self, conn: Connection, layer: str, query: np.ndarray, context: str | None, limit: int
    ) -> dict[int, float]:
        """The layer's ``limit`` nearest keys to ``query``, with their cosines."""
        return dict(
            self.database.vectors.nearest(conn, self.namespace, layer, query, context, limit)
        )

    def indexed_documents(
        self, conn: Connection, pks_by_layer: Mapping[str, Sequence[int]]
    ) -> dict[str, IndexedDocuments]:
        """The memories' index terms in order and times (empty: the index keeps no order)."""
        return self.database.lexical.indexed_documents(conn, self.namespace, pks_by_layer) or {}

    def pks_of_ids(self, conn: Connection, ids: Sequence[str]) -> dict[str, int]:
        """The primary key of each of ``ids`` that this namespace holds."""
        query = select(memories.c.id, memories.c.pk).where(
            keyed_namespace_filter(self.namespace), memories.c.id.in_(list(ids))
        )
        return {str(i): int(pk) for i, pk in conn.execute(query).all()} if ids else {}

    # ------------------------------------------------------------------ review and procedures
    def due_facts(self, conn: Connection, now: datetime, limit: int) -> list[Row[Any]]:
        return list(
            conn.execute(
                self._fact_query()
                .where(facts.c.namespace == self.namespace, facts.c.due <= to_db(now))
                .order_by(facts.c.due, memories.c.pk)
                .limit(limit)
            ).all()
        )

    def fact(self, conn: Connection, fact_id: str) -> Row[Any] | None:
        return conn.execute(
            self._fact_query().where(
                memories.c.namespace == self.namespace, memories.c.id == fact_id
            )
        ).one_or_none()

    @staticmethod
    def _fact_query() -> Select[Any]:
        return select(
            memories.c.pk,
            memories.c.id,
            memories.c.content,
            memories.c.confidence,
            facts.c.due,
            facts.c.card,
        ).join(facts, facts.c.memory_pk == memories.c.pk)

    def reschedule(
        self, conn: Connection, pk: int, card: dict[str, Any], due: datetime, now: datetime
    ) -> None:
        conn.execute(
            update(facts)
            .where(facts.c.memory_pk == pk)
            .values(
                card=card,
                due=to_db(due),
                reviews=facts.c.reviews + 1,
                access_count=facts.c.access_count + 1,
                last_accessed=to_db(now),
            )
        )

    def set_procedure_stats(self, conn: Connection, pk: int, rate: float, count: int) -> None:
        conn.execute(
            update(procedures)
            .where(procedures.c.memory_pk == pk)
            .values(success_rate=rate, execution_count=count)
        )

    # ------------------------------------------------------------------ counts
    def layer_counts(self, conn: Connection) -> dict[str, int]:
        query = (
            select(memories.c.layer, func.count())
            .where(memories.c.namespace == self.namespace)
            .group_by(memories.c.layer)
        )
        return {str(layer): int(n) for layer, n in conn.execute(query).all()}

    def count(self, conn: Connection, table: Table, *conditions: ColumnElement[bool]) -> int:
        query = select(func.count()).select_from(table)
        query = query.where(table.c.namespace == self.namespace, *conditions)
        return int(conn.execute(query).scalar_one())

    def due_count(self, conn: Connection, now: datetime) -> int:
        return self.count(conn, facts, facts.c.due <= to_db(now))

    # ------------------------------------------------------------------ sessions
    def latest_session(self, conn: Connection) -> str | None:
        return conn.execute(
            select(sessions.c.session_id)
            .where(sessions.c.namespace == self.namespace)
            .order_by(sessions.c.started_at.desc())
            .limit(1)
        ).scalar()

    def upsert_session(self, conn: Connection, session_id: str, now: datetime) -> None:
        statement = self._insert(sessions).values(
            namespace=self.namespace, session_id=session_id, started_at=to_db(now)
        )
        conn.execute(
            statement.on_conflict_do_update(
                index_elements=["namespace", "session_id"],
                set_={"started_at": statement.excluded.started_at},
            )
        )

    def add_interactions(
        self,
        conn: Connection,
        session_id: str,
        turns: Sequence[tuple[str, str, dict[str, Any]]],
        now: datetime,
    ) -> None:
        conn.execute(
            interactions.insert(),
            [
                {
                    "namespace": self.namespace,
                    "session_id": session_id,
                    "role": role,
                    "content": content,
                    "metadata": metadata,
                    "created_at": to_db(now),
                }
                for role, content, metadata in turns
            ],
        )

    def _in_session(self, session_id: str) -> ColumnElement[bool]:
        return (interactions.c.namespace == self.namespace) & (
            interactions.c.session_id == session_id
        )

    def interactions(self, conn: Connection, session_id: str, limit: int) -> list[Row[Any]]:
        """The latest ``limit`` interactions of a session, newest first."""
        query = select(interactions).where(self._in_session(session_id))
        return list(conn.execute(query.order_by(interactions.c.pk.desc()).limit(limit)).all())

    def delete_interaction(self, conn: Connection, pk: int) -> None:
        conn.execute(delete(interactions).where(interactions.c.pk == pk))

    def clear_interactions(self, conn: Connection, session_id: str) -> int:
        statement = delete(interactions).where(self._in_session(session_id))
        return int(conn.execute(statement).rowcount)

    def interaction_count(self, conn: Connection, session_id: str) -> int:
        return self.count(conn, interactions, interactions.c.session_id == session_id)

    # ------------------------------------------------------------------ store-wide settings
    @staticmethod
    def get_setting(conn: Connection, key: str) -> str | None:
        value = conn.execute(select(meta.c.value).where(meta.c.key == key)).scalar_one_or_none()
        return None if value is None else str(value)

    def put_setting(self, conn: Connection, key: str, value: str) -> None:
        statement = self._insert(meta).values(key=key, value=value)
        conn.execute(
            statement.on_conflict_do_update(
                index_elements=["key"], set_={"value": statement.excluded.value}
            )
        )

    # ------------------------------------------------------------------ dialect
    def _insert(self, table: Table) -> Any:
        return upsert_insert(self.database.dialect, table)
