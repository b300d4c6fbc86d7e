"""Knowledge updates on store: a new memory closes the older ones it replaces, in the
store's own transaction, and links them (``valid_to``, ``superseded_by``).

Three ways to decide, in this order for each new memory:

1. **explicit**: ``store(..., supersedes=[id])`` and :func:`update`; every id must name a
   long-term memory of this namespace, or the store is refused and nothing changes;
2. **a resolver** (:class:`~zenbrain.providers.Resolver`, e.g. an LLM) when one is
   configured: it sees the new memory and its lexical candidates and may propose which it
   replaces; an answer that is not a subset of the candidates' ids is logged and ignored,
   and the rules decide instead;
3. **the rules** (:mod:`zenbrain.layers.supersession`) otherwise: the new memory's claims
   are looked up in the lexical index (and among the earlier items of its batch), and a
   candidate is closed when a claim of each has the same subject and attribute and a
   different value.

A replaced memory is closed from the time its replacement became valid. A new memory whose
statement is *older* than the current one it disagrees with (a fact consolidated from an
old episode, a back-dated import) is stored already closed, replaced by that current one.
Only episodes and facts take part in the rules; core blocks and procedures change through
their own calls.

Forgetting follows :func:`zenbrain.storage.validity.mend_after_forget`: the chain skips the
forgotten memory, and a memory it had replaced becomes current again when it was the last.
"""

from __future__ import annotations

import heapq
import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import Connection, Row

from zenbrain.errors import InvalidInputError
from zenbrain.layers.supersession import Claim, claims, probe_terms, superseding_claims
from zenbrain.memory.results import to_result
from zenbrain.memory.scope import MemoryScope
from zenbrain.providers.base import Resolver
from zenbrain.storage import validity as storage
from zenbrain.storage.records import NewMemory
from zenbrain.storage.timestamps import from_db
from zenbrain.text import words
from zenbrain.types import RecallResult

__all__ = [
    "RULE_LAYERS",
    "apply",
    "check_explicit",
    "check_supersedes",
    "check_supersession",
    "history",
]

log = logging.getLogger("zenbrain")

RULE_LAYERS = ("episodic", "semantic")
# Lexical candidates read per claim: the older statements of an attribute rank high on its
# words, and each candidate costs a row read and a rule check.
CANDIDATES_PER_CLAIM = 8
PROBE_TERMS = 8
# A term in more of a batch's items than this says nothing about which one is meant.
BATCH_TERM_POSTINGS = 64


def check_supersession(value: object) -> bool | Resolver:
    """The coordinator's ``supersession=``: True (the rules), False (off) or a Resolver."""
    if isinstance(value, bool | Resolver):
        return value
    raise InvalidInputError(
        "supersession must be True (the deterministic rules), False (off) or a Resolver "
        f"(an object with propose(new, candidates)); got {type(value).__name__}"
    )


def check_supersedes(value: object) -> list[str]:
    """``store(supersedes=...)``: a list of memory ids."""
    if value is None:
        return []
    if isinstance(value, str) or not isinstance(value, Sequence):
        raise InvalidInputError(f"supersedes must be a list of memory ids, got {value!r:.80}")
    ids = list(value)
    if not all(isinstance(i, str) and 0 < len(i) <= 36 for i in ids):
        raise InvalidInputError(
            f"supersedes must be a list of memory ids (strings), got {value!r:.80}"
        )
    return list(dict.fromkeys(ids))


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
    claims: tuple[Claim, ...]


def apply(scope: MemoryScope, conn: Connection, written: Sequence[tuple[int, NewMemory]]) -> None:
    """Close what the newly written memories (``(pk, item)``, in batch order) replace, in
    the caller's transaction (see the module docstring)."""
    namespace = scope.namespace
    mode = getattr(scope, "supersession", True)
    closed: set[int] = set()
    for _pk, item in written:
        if item.supersedes:
            since = item.valid_from or item.created_at or scope.now()
            for row in storage.rows_by_id(conn, namespace, item.supersedes).values():
                storage.close(conn, namespace, int(row.pk), since, item.id)
                closed.add(int(row.pk))
    if mode is False:
        return
    pending = [
        _Pending(pk, item, _valid_from(item), ())
        for pk, item in written
        if item.layer in RULE_LAYERS and not item.supersedes
    ]
    if not pending:
        return
    batch_pks = {p.pk for p in pending}
    if not isinstance(mode, bool):
        pending = _resolve(scope, conn, mode, pending, batch_pks, closed)
    for entry in pending:
        entry.claims = claims(entry.item.content, superseding=True, folded=entry.item.folded)
    if any(entry.claims for entry in pending):
        _by_rules(scope, conn, pending, batch_pks, closed)


def _valid_from(item: NewMemory) -> datetime:
    when = item.valid_from or item.created_at
    assert when is not None  # prepare() always sets created_at
    return when


def _candidates(
    scope: MemoryScope, conn: Connection, terms: list[str], exclude: set[int], limit: int
) -> list[Row[Any]]:
    """Current episodes and facts that rank best on ``terms`` in the lexical index."""
    if not terms:
        return []
    lexical = scope.repo.database.lexical
    by_layer = lexical.candidates_by_layer(
        conn, scope.namespace, dict.fromkeys(RULE_LAYERS, terms), None, limit + len(exclude)
    )
    pks = [pk for layer in RULE_LAYERS for pk in by_layer.get(layer, []) if pk not in exclude]
    rows = scope.repo.rows_by_pk(conn, pks)
    return [rows[pk] for pk in pks if pk in rows and rows[pk].valid_to is None]


class _BatchTerms:
    """The earlier items of a batch by index term, built as far as it is asked (the lexical
    index may not show a batch's own rows before it commits). Only ``wanted`` terms (those
    some claim of the batch probes for) are kept: one set intersection per item."""

    def __init__(self, entries: Sequence[_Pending], wanted: set[str]) -> None:
        self.entries = entries
        self.wanted = wanted
        self.by_term: dict[str, list[int]] = {}
        self.built = 0

    def before(self, position: int, terms: Sequence[str], limit: int) -> list[_Pending]:
        wanted = self.wanted
        for index in range(self.built, position):
            for term in wanted.intersection(self.entries[index].item.terms or ()):
                self.by_term.setdefault(term, []).append(index)
        self.built = max(self.built, position)
        hits: dict[int, int] = {}
        for term in terms:
            for index in self.by_term.get(term, ())[-BATCH_TERM_POSTINGS:]:  # the latest
                hits[index] = hits.get(index, 0) + 1
        best = heapq.nlargest(limit, hits, key=lambda index: (hits[index], index))
        return [self.entries[index] for index in best]


def _by_rules(
    scope: MemoryScope,
    conn: Connection,
    pending: Sequence[_Pending],
    batch_pks: set[int],
    closed: set[int],
) -> None:
    namespace = scope.namespace
    probes = {
        id(entry): list(dict.fromkeys(t for c in entry.claims for t in probe_terms(c)))[
            :PROBE_TERMS
        ]
        for entry in pending
        if entry.claims
    }
    earlier = _BatchTerms(pending, {t for terms in probes.values() for t in terms})
    # A batch stored into a scope that held nothing before has only itself to look at.
    older = storage.holds_older(conn, namespace, min(batch_pks))
    for position, entry in enumerate(pending):
        if not entry.claims:
            continue
        terms = probes[id(entry)]
        olds: list[tuple[int, str, str, datetime]] = [
            (int(row.pk), str(row.id), str(row.content), from_db(row.valid_from or row.created_at))
            for row in (
                _candidates(scope, conn, terms, batch_pks, CANDIDATES_PER_CLAIM) if older else ()
            )
        ]
        olds.extend(
            (other.pk, other.item.id, other.item.content, other.valid_from)
            for other in earlier.before(position, terms, CANDIDATES_PER_CLAIM)
        )
        for old_pk, old_id, old_content, old_from in dict.fromkeys(olds):
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


def _resolve(
    scope: MemoryScope,
    conn: Connection,
    resolver: Resolver,
    pending: list[_Pending],
    batch_pks: set[int],
    closed: set[int],
) -> list[_Pending]:
    """Let the resolver decide for each memory; returns those the rules must decide (its
    answer was unusable, or it had no candidates to judge)."""
    left: list[_Pending] = []
    for entry in pending:
        rows = _candidates(scope, conn, entry.item.terms or [], batch_pks, 5)
        if not rows:  # nothing for the model to judge: the rules may still find something
            left.append(entry)
            continue
        offered = [(str(row.id), str(row.content)) for row in rows]
        try:
            answer = resolver.propose(entry.item.content, offered)
            chosen = _checked_answer(answer, {i for i, _ in offered})
        except Exception as exc:  # a failing or confused model must not stop the store
            log.warning("resolver answer ignored, the rules decide instead: %s", exc)
            left.append(entry)
            continue
        for row in rows:
            if str(row.id) in chosen and int(row.pk) not in closed:
                storage.close(conn, scope.namespace, int(row.pk), entry.valid_from, entry.item.id)
                closed.add(int(row.pk))
    return left


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
