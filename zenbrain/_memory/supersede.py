"""Knowledge updates on store: a new memory closes the older ones it replaces, in the
store's own transaction, and links them (``valid_to``, ``superseded_by``).

Three ways to decide, in this order for each new memory:

1. **explicit**: ``store(..., supersedes=[id])`` and :func:`update`; every id must name a
   long-term memory of this namespace, or the store is refused and nothing changes;
2. **a resolver** (:class:`~zenbrain.providers.Resolver`, e.g. an LLM) when one is
   configured: before the write and outside the store's lock (:func:`plan`), it sees the new
   memory and its lexical candidates and may propose which it replaces; the write closes
   those still current. An answer that is not a subset of the candidates' ids is logged and
   ignored, and the rules decide instead;
3. **the rules** (:mod:`zenbrain.layers._supersession`) otherwise: what each claim of the
   new memory is about (its subject and attribute, and a word of its key) is looked up in
   the claim index (``zb_claims``, :mod:`zenbrain._storage.claims`), which holds the claims
   of every current episode and fact, and among the earlier items of its batch; a
   candidate is closed when a claim of each has the same subject and attribute and a
   different value. A lookup reads the newest few memories under each key, so its cost
   does not grow with the store.

A replaced memory is closed from the time its replacement became valid. A new memory whose
statement is *older* than the current one it disagrees with (a fact consolidated from an
old episode, a back-dated import) is stored already closed, replaced by that current one.
Only episodes and facts take part in the rules; core blocks and procedures change through
their own calls.

Forgetting follows :func:`zenbrain._storage.validity.mend_after_forget`: the chain skips the
forgotten memory, and a memory it had replaced becomes current again when it was the last.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import Connection, Row

from zenbrain._memory.results import to_result
from zenbrain._memory.scope import MemoryScope
from zenbrain._storage import claims as claim_index
from zenbrain._storage import validity as storage
from zenbrain._storage.records import NewMemory
from zenbrain._storage.timestamps import from_db
from zenbrain.errors import InvalidInputError
from zenbrain.layers._supersession import (
    RULE_LAYERS,
    Claim,
    about,
    claim_keys,
    claims,
    superseding_claims,
)
from zenbrain.providers import Resolver
from zenbrain.text import words
from zenbrain.types import RecallResult

__all__ = [
    "RULE_LAYERS",
    "apply",
    "check_explicit",
    "check_supersession",
    "history",
    "plan",
    "reopen",
]

log = logging.getLogger("zenbrain")

# Memories read per claim-index key, newest first: each costs a row read and a rule check,
# and a statement repeated many times is closed by the newest repeats' replacement.
CANDIDATES_PER_KEY = 8


def check_supersession(value: object) -> bool | Resolver:
    """The coordinator's ``supersession=``: True (the rules), False (off) or a Resolver."""
    if isinstance(value, bool | Resolver):
        return value
    raise InvalidInputError(
        "supersession must be True (the deterministic rules), False (off) or a Resolver "
        f"(an object with propose(new, candidates)); got {type(value).__name__}"
    )


def check_explicit(scope: MemoryScope, conn: Connection, batch: Sequence[NewMemory]) -> None:
    """Refuse the batch (before anything is written) when ``supersedes`` names an id this
    namespace does not hold, or a working-memory item names any."""
    wanted = [i for item in batch for i in item.supersedes]
    if not wanted:
        return
    if any(item.supersedes and item.layer == "working" for item in batch):
        raise InvalidInputError(
            "supersedes needs a long-term memory: working-memory items cannot replace one"
        )
    found = storage.rows_by_id(conn, scope.namespace, wanted)
    missing = [i for i in wanted if i not in found]
    if missing:
        raise InvalidInputError(
            f"supersedes names {missing[0]!r}, which is no long-term memory of namespace "
            f"{scope.namespace!r}; pass ids returned by store() or recall() in this namespace"
        )


@dataclass(slots=True)
class _Pending:
    pk: int
    item: NewMemory
    valid_from: datetime
    claims: tuple[Claim, ...] = ()  # what it may replace (read with superseding=True)
    keys: tuple[str, ...] = ()  # what all its claims are about: its claim-index keys


def apply(scope: MemoryScope, conn: Connection, written: Sequence[tuple[int, NewMemory]]) -> None:
    """Close what the newly written memories (``(pk, item)``, in batch order) replace, in
    the caller's transaction, and index the claims of those that stay current (see the
    module docstring)."""
    namespace = scope.namespace
    mode = getattr(scope, "supersession", True)
    closed: set[int] = set()
    for _pk, item in written:
        if item.supersedes:
            since = item.valid_from or item.created_at or scope.now()
            for row in storage.rows_by_id(conn, namespace, item.supersedes).values():
                storage.close(conn, namespace, int(row.pk), since, item.id)
                closed.add(int(row.pk))
    ruled = [(pk, item) for pk, item in written if item.layer in RULE_LAYERS]
    if mode is False:
        if ruled:  # their claims are read by the next store with knowledge updates on
            claim_index.note_backlog(conn, namespace, min(pk for pk, _ in ruled))
        claim_index.remove(conn, sorted(closed))
        return
    if ruled:
        start = claim_index.backlog_start(conn, namespace)
        if start is not None:
            below = min(pk for pk, _ in ruled)
            claim_index.fill(
                conn, claim_keys, RULE_LAYERS, namespace=namespace, start=start, below=below
            )
            claim_index.clear_backlog(conn, namespace)
    entries = [_Pending(pk, item, _valid_from(item), keys=_keys_of(item)) for pk, item in ruled]
    pending = [entry for entry in entries if not entry.item.supersedes]
    _close_resolved(conn, namespace, [e for e in pending if e.item.resolved is not None], closed)
    pending = [entry for entry in pending if entry.item.resolved is None]
    if pending:
        batch_pks = {entry.pk for entry in pending}
        for entry in pending:
            if entry.keys:  # a text with no claim at all can replace nothing
                entry.claims = claims(
                    entry.item.content, superseding=True, folded=entry.item.folded
                )
        if any(entry.claims for entry in pending):
            _by_rules(scope, conn, pending, batch_pks, closed)
    claim_index.add(
        conn, namespace, [(e.pk, e.keys) for e in entries if e.keys and e.pk not in closed]
    )
    claim_index.remove(conn, sorted(closed))


def reopen(conn: Connection, namespace: str, rows: Sequence[Row[Any]]) -> None:
    """Index the claims of memories that became current again (their replacement was
    forgotten)."""
    claim_index.add(
        conn,
        namespace,
        [(int(row.pk), claim_keys(str(row.content))) for row in rows if row.layer in RULE_LAYERS],
    )


def _keys_of(item: NewMemory) -> tuple[str, ...]:
    return tuple(sorted(claim_keys(item.content, item.folded)))


def _valid_from(item: NewMemory) -> datetime:
    when = item.valid_from or item.created_at
    assert when is not None  # prepare() always sets created_at
    return when


def _lexical_candidates(
    scope: MemoryScope, conn: Connection, terms: list[str], limit: int
) -> list[Row[Any]]:
    """Current episodes and facts that rank best on ``terms`` in the lexical index: what a
    resolver is shown (it judges more than the rules' claims)."""
    if not terms:
        return []
    lexical = scope.repo.database.lexical
    by_layer = lexical.candidates_by_layer(
        conn, scope.namespace, dict.fromkeys(RULE_LAYERS, terms), None, limit
    )
    pks = [pk for layer in RULE_LAYERS for pk in by_layer.get(layer, [])]
    return _current_rows(scope, conn, pks)


def _current_rows(scope: MemoryScope, conn: Connection, pks: Sequence[int]) -> list[Row[Any]]:
    rows = scope.repo.rows_by_pk(conn, pks)
    return [rows[pk] for pk in pks if pk in rows and rows[pk].valid_to is None]


class _BatchClaims:
    """The earlier items of a batch by what their claims are about (the claim index holds
    only what was stored before the batch)."""

    def __init__(self) -> None:
        self.by_key: dict[str, list[_Pending]] = {}

    def before(self, keys: Sequence[str], limit: int) -> list[_Pending]:
        found: dict[int, _Pending] = {}
        for key in keys:
            for entry in self.by_key.get(key, ())[-limit:]:  # the latest
                found[entry.pk] = entry
        return list(found.values())

    def add(self, entry: _Pending) -> None:
        for key in entry.keys:
            self.by_key.setdefault(key, []).append(entry)


def _by_rules(
    scope: MemoryScope,
    conn: Connection,
    pending: Sequence[_Pending],
    batch_pks: set[int],
    closed: set[int],
) -> None:
    namespace = scope.namespace
    first = min(batch_pks)
    keys_of = {
        entry.pk: list(dict.fromkeys(key for claim in entry.claims for key in about(claim)))
        for entry in pending
        if entry.claims
    }
    # What was stored before the batch, for every key of the batch at once (a batch stored
    # into a scope that held nothing before has only itself to look at).
    stored: dict[str, list[int]] = {}
    rows: dict[int, tuple[int, str, str, datetime]] = {}
    if storage.holds_older(conn, namespace, first):
        wanted = {key for keys in keys_of.values() for key in keys}
        stored = claim_index.latest(conn, namespace, wanted, first, CANDIDATES_PER_KEY)
        pks = list(dict.fromkeys(pk for found in stored.values() for pk in found))
        rows = {
            int(row.pk): (int(row.pk), str(row.id), str(row.content), _row_from(row))
            for row in _current_rows(scope, conn, pks)
        }
    earlier = _BatchClaims()
    for entry in pending:
        keys = keys_of.get(entry.pk)
        if keys:
            olds = [
                rows[pk]
                for pk in dict.fromkeys(pk for key in keys for pk in stored.get(key, ()))
                if pk in rows
            ]
            olds.extend(
                (other.pk, other.item.id, other.item.content, other.valid_from)
                for other in earlier.before(keys, CANDIDATES_PER_KEY)
            )
            _decide(conn, namespace, entry, olds, closed)
        earlier.add(entry)


def _row_from(row: Row[Any]) -> datetime:
    return from_db(row.valid_from or row.created_at)


def _decide(
    conn: Connection,
    namespace: str,
    entry: _Pending,
    olds: Sequence[tuple[int, str, str, datetime]],
    closed: set[int],
) -> None:
    """Close what ``entry`` replaces among ``olds`` (or ``entry``, when it is the older
    statement)."""
    for old_pk, old_id, old_content, old_from in olds:
        if old_pk in closed or old_pk == entry.pk:
            continue
        if not superseding_claims(entry.item.content, old_content, entry.claims):
            continue
        if old_from <= entry.valid_from:
            storage.close(conn, namespace, old_pk, entry.valid_from, entry.item.id)
            closed.add(old_pk)
        elif entry.pk not in closed:  # the new statement is the older one
            storage.close(conn, namespace, entry.pk, old_from, old_id)
            closed.add(entry.pk)


def plan(scope: MemoryScope, batch: Sequence[NewMemory]) -> None:
    """Ask the resolver, when one is configured, what each new episode or fact replaces,
    before the write and outside the store's lock: a model may take seconds, and every other
    call on the store would wait for it. It judges the candidates current now; the write
    closes those it chose that still are (:func:`apply`). A memory it had nothing to judge
    for, or whose answer was unusable, is left to the rules."""
    resolver = getattr(scope, "supersession", True)
    if isinstance(resolver, bool):
        return
    asking = [item for item in batch if item.layer in RULE_LAYERS and not item.supersedes]
    if not asking:
        return
    with scope.lock, scope.repo.read() as conn:
        offers = [(item, _lexical_candidates(scope, conn, item.terms or [], 5)) for item in asking]
    for item, rows in offers:
        if not rows:  # nothing for the model to judge: the rules may still find something
            continue
        offered = [(str(row.id), str(row.content)) for row in rows]
        try:
            answer = resolver.propose(item.content, offered)
            chosen = _checked_answer(answer, {i for i, _ in offered})
        except Exception as exc:  # a failing or confused model must not stop the store
            log.warning("resolver answer ignored, the rules decide instead: %s", exc)
            continue
        item.resolved = [i for i, _ in offered if i in chosen]


def _close_resolved(
    conn: Connection, namespace: str, entries: Sequence[_Pending], closed: set[int]
) -> None:
    """Close what the resolver chose for each entry, where it is still current."""
    for entry in entries:
        chosen = entry.item.resolved or []
        for row in storage.rows_by_id(conn, namespace, chosen).values():
            pk = int(row.pk)
            if row.valid_to is None and row.layer in RULE_LAYERS and pk not in closed:
                storage.close(conn, namespace, pk, entry.valid_from, entry.item.id)
                closed.add(pk)


def _checked_answer(answer: object, offered: set[str]) -> set[str]:
    if isinstance(answer, str | bytes | Mapping) or not isinstance(answer, Sequence):
        raise InvalidInputError(f"expected a list of candidate ids, got {answer!r:.80}")
    chosen = set()
    for value in answer:
        if not isinstance(value, str) or value not in offered:
            raise InvalidInputError(f"{value!r:.40} is not one of the candidates' ids")
        chosen.add(value)
    return chosen


def history(scope: MemoryScope, memory_id: object) -> list[RecallResult]:
    """The chain of replacements ``memory_id`` belongs to, oldest first (score 1.0)."""
    if not isinstance(memory_id, str) or not memory_id or len(memory_id) > 36:
        return []
    with scope.lock, scope.repo.read() as conn:
        rows = storage.history_rows(conn, scope.namespace, memory_id)
    return [to_result(row, 1.0) for row in rows]


def words_of(item: NewMemory) -> list[str]:
    """The folded words of a memory's content (kept from preparing it when known)."""
    return item.folded if item.folded is not None else words(item.content)
