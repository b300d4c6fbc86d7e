"""``ZenBrainStore``: a LangGraph long-term memory store backed by zenbrain.

How LangGraph's model maps onto zenbrain's (all through the coordinator's public API):

* A LangGraph namespace (a tuple of labels) is a zenbrain namespace of its own, named
  ``<coordinator namespace>.<label>.<label>...`` (see :mod:`langchain_zenbrain.namespaces`).
  zenbrain treats a namespace as a hard boundary, so no operation in one LangGraph namespace
  reads or changes another's items.
* An item is one long-term memory (a semantic fact by default). Its searchable text is the
  text at the indexed fields of the value (all strings by default); the key, the value and
  the timestamps travel in the memory's metadata, marked as a LangGraph item so memories
  stored there by other means are never taken for items.
* ``put`` is ``replace`` on the item's key: one write transaction, so concurrent puts of
  one key leave exactly one item. ``get`` and ``delete`` find the item by metadata.
* ``search`` reads the items of the prefix's whole namespace subtree in one query
  (``find(..., subtree=True)``; string equality filters are applied in SQL too), applies
  the whole ``filter`` and, with a ``query``, ranks every item by one subtree recall
  (``recall(..., subtree=True)``): items that match nothing score 0
  and come after the matches, items put with ``index=False`` come last without a score.
  Without a query, items come most recently updated first (as in LangGraph's
  ``PostgresStore``).
"""

from __future__ import annotations

import asyncio
import json
import math
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Literal, TypeGuard

from langgraph.store.base import (
    BaseStore,
    GetOp,
    IndexConfig,
    InvalidNamespaceError,
    Item,
    ListNamespacesOp,
    MatchCondition,
    Op,
    PutOp,
    Result,
    SearchItem,
    SearchOp,
)
from langgraph.store.base.embed import get_text_at_path

from langchain_zenbrain import namespaces
from langchain_zenbrain.embeddings import LangChainEmbeddings
from langchain_zenbrain.store_index import checked_fields, checked_index, with_embedder
from zenbrain import MemoryCoordinator
from zenbrain.errors import InvalidInputError
from zenbrain.types import RecallResult

__all__ = ["ZenBrainStore"]

# Keys of the zenbrain memory metadata that carry the LangGraph item.
ITEM_FIELD = "langgraph_item"
KEY_FIELD = "langgraph_key"
VALUE_FIELD = "langgraph_value"
CREATED_FIELD = "langgraph_created_at"
UPDATED_FIELD = "langgraph_updated_at"
INDEXED_FIELD = "langgraph_indexed"
# Top-level string fields of the value are also kept as ``langgraph_field:<name>``, so an
# equality filter on them narrows the items in SQL, before ranking (long texts are left out).
FIELD_PREFIX = "langgraph_field:"
_MAX_FILTERABLE_CHARS = 200

_MAX_RECALL = 1000
# Any score above 0: recall returns matches only; the store ranks the rest at 0 itself.
_MATCHES_ONLY = 1e-9
_OPERATORS = frozenset({"$eq", "$ne", "$gt", "$gte", "$lt", "$lte"})
_ItemLayer = Literal["semantic", "episodic"]


@dataclass(frozen=True, slots=True)
class _Stored:
    """One item as found in zenbrain: the memory behind it and the item."""

    memory: RecallResult
    item: Item

    @property
    def indexed(self) -> bool:
        return bool(self.memory.metadata.get(INDEXED_FIELD, True))


class ZenBrainStore(BaseStore):
    """LangGraph ``BaseStore`` over a :class:`zenbrain.MemoryCoordinator`.

    Use it wherever LangGraph takes a store: ``create_agent(model, tools,
    store=ZenBrainStore(coordinator))``, ``graph.compile(store=...)`` or LangMem's memory
    tools. ``layer`` is the zenbrain layer items are stored in (``"semantic"`` facts by
    default, or ``"episodic"``).

    ``index`` takes LangGraph's index configuration, as ``InMemoryStore`` and
    ``PostgresStore`` do: ``fields`` are the value fields whose text is searchable when a
    ``put`` names none (default: every string in the value); ``embed`` (a LangChain
    ``Embeddings``, a function from texts to vectors, or a ``"provider:model"`` string) with
    ``dims`` makes search hybrid (lexical + embedding). zenbrain records one embedding model
    per database, so with ``embed`` the coordinator must have no embedder of its own: the
    store then opens the same database with that embedder (a file or PostgreSQL, not
    ``:memory:``) and :meth:`close` releases it. ``index_fields`` is the older spelling of
    ``index={"fields": ...}``.
    """

    __slots__ = (
        "_coordinator",
        "_index_fields",
        "_layer",
        "_memory",
        "_owns_memory",
        "_root",
    )

    def __init__(
        self,
        coordinator: MemoryCoordinator,
        *,
        layer: _ItemLayer = "semantic",
        index_fields: list[str] | None = None,
        index: IndexConfig | None = None,
    ) -> None:
        if not isinstance(coordinator, MemoryCoordinator):
            raise InvalidInputError(
                "ZenBrainStore needs a zenbrain.MemoryCoordinator, "
                f"got {type(coordinator).__name__}."
            )
        if layer not in ("semantic", "episodic"):
            raise InvalidInputError(
                f"ZenBrainStore keeps items as 'semantic' facts or 'episodic' memories, "
                f"got layer {layer!r}."
            )
        if index is not None and index_fields is not None:
            raise InvalidInputError(
                "Give the indexed fields once: index={'fields': [...]} or index_fields=[...]."
            )
        fields = checked_fields(index_fields, "index_fields")
        embeddings: LangChainEmbeddings | None = None
        if index is not None:
            fields, embeddings = checked_index(index)
        self._coordinator = coordinator
        self._layer: str = layer
        self._index_fields = fields
        self._memory = coordinator
        self._owns_memory = False
        if embeddings is not None:
            self._memory = with_embedder(coordinator, embeddings)
            self._owns_memory = True
        self._root = namespaces.root_of(coordinator.namespace)

    @property
    def coordinator(self) -> MemoryCoordinator:
        """The coordinator whose namespace is the root of every LangGraph namespace (the one
        opened with the index's embedder when ``index`` has ``embed``)."""
        return self._memory

    def close(self) -> None:
        """Release the database connection the store opened for ``index={"embed": ...}``;
        the coordinator it was given stays open."""
        if self._owns_memory:
            self._memory.close()

    def __enter__(self) -> ZenBrainStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def zenbrain_namespace(self, namespace: tuple[str, ...]) -> str:
        """The zenbrain namespace holding the LangGraph namespace ``namespace``."""
        if not namespace:
            raise InvalidNamespaceError("A LangGraph namespace for items cannot be empty.")
        try:
            return namespaces.under(self._root, namespace)
        except InvalidInputError as exc:
            raise InvalidNamespaceError(str(exc)) from exc

    def coordinator_for(self, namespace: tuple[str, ...]) -> MemoryCoordinator:
        """The coordinator's view of the zenbrain namespace of ``namespace`` (sharing the
        connection pool; the same view on every call), e.g. to use a ``ZenBrainRetriever`` on
        what a LangGraph agent stored."""
        return self._memory.for_namespace(self.zenbrain_namespace(namespace))

    # ------------------------------------------------------------------ BaseStore
    def batch(self, ops: Iterable[Op]) -> list[Result]:
        """Run ``ops`` as LangGraph's stores do: every read sees the store as it was before
        the batch, then the puts are applied (the last put of a key wins). Every operation
        is checked before any runs, so a rejected batch changes nothing."""
        ops = list(ops)
        for op in ops:
            _check_op(op)
        results: list[Result] = []
        puts: dict[tuple[tuple[str, ...], str], PutOp] = {}
        for op in ops:
            if isinstance(op, GetOp):
                found = self._find(op.namespace, op.key)
                results.append(found[-1].item if found else None)
            elif isinstance(op, SearchOp):
                results.append(self._search(op))
            elif isinstance(op, ListNamespacesOp):
                results.append(self._list_namespaces(op))
            else:
                assert isinstance(op, PutOp)
                puts.pop((op.namespace, op.key), None)
                puts[(op.namespace, op.key)] = op
                results.append(None)
        for put in puts.values():
            self._put(put)
        return results

    async def abatch(self, ops: Iterable[Op]) -> list[Result]:
        # The coordinator's async methods are its sync ones in a worker thread; one thread
        # for the whole batch keeps the operations in order.
        return await asyncio.to_thread(self.batch, list(ops))

    # ------------------------------------------------------------------ put / delete
    def _put(self, op: PutOp) -> None:
        view = self.coordinator_for(op.namespace)
        if op.value is None:
            for stored in self._find(op.namespace, op.key):
                view.forget(stored.memory.id, stored.memory.layer)
            return
        value = dict(op.value)
        now = self._memory.clock()
        previous = self._find(op.namespace, op.key)
        created = previous[-1].item.created_at if previous else now
        metadata: dict[str, Any] = {
            VALUE_FIELD: value,
            CREATED_FIELD: created.isoformat(),
            UPDATED_FIELD: now.isoformat(),
            INDEXED_FIELD: op.index is not False,
        }
        metadata.update(
            (FIELD_PREFIX + name, field) for name, field in value.items() if _filterable(field)
        )
        # One transaction: every memory of this key goes, the new one comes.
        view.replace(
            {ITEM_FIELD: True, KEY_FIELD: op.key},
            self._searchable_text(value, op.index),
            layer=self._layer,
            metadata=metadata,
            created_at=created,
        )

    def _searchable_text(
        self, value: dict[str, Any], index: Literal[False] | list[str] | None
    ) -> str:
        fields = self._index_fields if index is None else (index or None)
        if fields is None or "$" in fields:
            texts = list(_strings(value))
        else:
            texts = [text for field in fields for text in get_text_at_path(value, field)]
        text = "\n".join(t for t in texts if t.strip())
        # zenbrain keeps text; a value with no text at the indexed fields is kept as JSON.
        return text or json.dumps(value, ensure_ascii=False, sort_keys=True)

    # ------------------------------------------------------------------ lookups
    def _items(
        self, namespace: tuple[str, ...], match: Mapping[str, Any] | None = None
    ) -> list[_Stored]:
        """The items of one namespace whose metadata contains ``match``, oldest first."""
        view = self.coordinator_for(namespace)
        # Without a match, reading the namespace and keeping the items is cheaper than
        # asking the database to match the item marker.
        found = view.find({ITEM_FIELD: True, **match}) if match else view.find()
        return [
            _Stored(memory, _item(namespace, memory.metadata))
            for memory in found
            if memory.metadata.get(ITEM_FIELD) is True
        ]

    def _find(self, namespace: tuple[str, ...], key: str) -> list[_Stored]:
        return self._items(namespace, {KEY_FIELD: key})

    def _namespaces_under(self, prefix: tuple[str, ...]) -> list[tuple[str, ...]]:
        """The LangGraph namespaces at or below ``prefix`` that zenbrain holds anything in,
        listed by the database (not by reading every namespace)."""
        if prefix:
            exact = self.zenbrain_namespace(prefix)
            names = self._memory.namespaces(exact)
            names = [n for n in names if n == exact or n.startswith(exact + namespaces.SEPARATOR)]
        else:
            names = self._memory.namespaces(self._root + namespaces.SEPARATOR)
        found = (namespaces.labels_of(self._root, name) for name in names)
        return [labels for labels in found if labels is not None]

    # ------------------------------------------------------------------ search
    def _search(self, op: SearchOp) -> list[SearchItem]:
        # One core read of the prefix's whole subtree (and with a query one recall of it),
        # whatever the number of namespaces below the prefix.
        view = self._subtree_view(op.namespace_prefix)
        in_sql = _sql_filter(op.filter)
        match = {ITEM_FIELD: True, **in_sql}
        stored = [
            entry
            for entry in self._subtree_items(view, match)
            if _matches(entry.item.value, op.filter)
        ]
        query = op.query.strip() if op.query else ""
        scores = self._scores(view, query, match, len(stored)) if query and stored else {}
        ranked: list[tuple[float | None, Item]] = []
        for entry in stored:
            if not query:
                score = None
            elif entry.indexed:
                score = scores.get(entry.memory.id, 0.0)
            else:
                score = None  # put with index=False: listed after every ranked item
            ranked.append((score, entry.item))
        if query:
            ranked.sort(
                key=lambda pair: (pair[0] is not None, pair[0] or 0.0, pair[1].updated_at),
                reverse=True,
            )
        else:
            ranked.sort(key=lambda pair: (pair[1].updated_at, pair[1].created_at), reverse=True)
        page = ranked[op.offset : op.offset + op.limit]
        return [_search_item(item, score) for score, item in page]

    def _subtree_view(self, prefix: tuple[str, ...]) -> MemoryCoordinator:
        """The coordinator whose namespace subtree holds every item under ``prefix``."""
        if prefix:
            return self.coordinator_for(prefix)
        return self._memory.for_namespace(self._root)

    def _subtree_items(self, view: MemoryCoordinator, match: Mapping[str, Any]) -> list[_Stored]:
        """The items in ``view``'s namespace and below whose metadata contains ``match``."""
        found = []
        for memory in view.find(match, subtree=True):
            labels = namespaces.labels_of(self._root, str(memory.namespace))
            if labels is not None and memory.metadata.get(ITEM_FIELD) is True:
                found.append(_Stored(memory, _item(labels, memory.metadata)))
        return found

    def _scores(
        self, view: MemoryCoordinator, query: str, match: Mapping[str, Any], count: int
    ) -> dict[str, float]:
        """zenbrain's recall score of the items under ``view`` that match ``query``."""
        results = view.recall(
            query,
            layers=[self._layer],
            limit=min(_MAX_RECALL, max(count, 1)),
            min_score=_MATCHES_ONLY,
            where=match,
            subtree=True,
        )
        return {result.id: result.score for result in results}

    # ------------------------------------------------------------------ namespaces
    def _list_namespaces(self, op: ListNamespacesOp) -> list[tuple[str, ...]]:
        # One query: the namespaces zenbrain holds anything in under the prefix (so a store
        # namespace that other code wrote memories into is listed too, item or not).
        conditions = list(op.match_conditions or ())
        found = [
            ns
            for ns in self._namespaces_under(_literal_prefix(conditions))
            if all(_condition_holds(c, ns) for c in conditions)
        ]
        if op.max_depth is not None:
            found = list({ns[: op.max_depth] for ns in found})
        return sorted(found)[op.offset : op.offset + op.limit]

    def __repr__(self) -> str:
        return f"ZenBrainStore({self._memory!r}, layer={self._layer!r})"


# ---------------------------------------------------------------------- helpers
def _check_op(op: Op) -> None:
    """Raise ``InvalidNamespaceError`` or ``InvalidInputError`` for an operation that would
    fail, before anything runs."""
    if isinstance(op, GetOp | PutOp):
        paths: list[tuple[str, ...]] = [op.namespace]
    elif isinstance(op, SearchOp):
        paths = [op.namespace_prefix]
        if op.limit < 0 or op.offset < 0:
            raise InvalidInputError(
                f"search needs a non-negative limit and offset, got {op.limit} and {op.offset}."
            )
        _check_filter(op.filter)
    elif isinstance(op, ListNamespacesOp):
        paths = [
            tuple(label for label in c.path if label != "*") for c in op.match_conditions or ()
        ]
    else:
        raise InvalidInputError(f"ZenBrainStore cannot run the operation {op!r}.")
    for path in paths:
        try:
            namespaces.check_labels(path)
        except InvalidInputError as exc:
            raise InvalidNamespaceError(str(exc)) from exc
    if isinstance(op, PutOp):
        if not op.namespace:
            raise InvalidNamespaceError("A LangGraph namespace for items cannot be empty.")
        if op.value is not None:
            if op.namespace[0] == "langgraph":
                # LangGraph reserves this root label for its own use.
                raise InvalidNamespaceError(
                    f'Root label for namespace cannot be "langgraph". Got: {op.namespace}'
                )
            if not isinstance(op.value, Mapping):
                raise InvalidInputError(f"A store value must be a dict, got {op.value!r}.")
            _check_json(op.value)


def _check_json(value: Mapping[str, Any]) -> None:
    try:
        json.dumps(value, allow_nan=False)
    except (TypeError, ValueError) as exc:
        raise InvalidInputError(f"A store value must be JSON-serialisable: {exc}") from exc


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, Mapping):
        for nested in value.values():
            yield from _strings(nested)
    elif isinstance(value, list | tuple):
        for nested in value:
            yield from _strings(nested)


def _item(namespace: tuple[str, ...], metadata: Mapping[str, Any]) -> Item:
    return Item(
        namespace=namespace,
        key=str(metadata[KEY_FIELD]),
        value=dict(metadata.get(VALUE_FIELD) or {}),
        created_at=datetime.fromisoformat(str(metadata[CREATED_FIELD])),
        updated_at=datetime.fromisoformat(str(metadata[UPDATED_FIELD])),
    )


def _search_item(item: Item, score: float | None) -> SearchItem:
    return SearchItem(
        namespace=item.namespace,
        key=item.key,
        value=item.value,
        created_at=item.created_at,
        updated_at=item.updated_at,
        score=score,
    )


def _literal_prefix(conditions: Sequence[MatchCondition]) -> tuple[str, ...]:
    """The labels every listed namespace must start with: the prefix condition up to its
    first wildcard (the database lists namespaces by a plain prefix)."""
    for condition in conditions:
        if condition.match_type == "prefix":
            labels = []
            for label in condition.path:
                if label == "*":
                    break
                labels.append(label)
            return tuple(labels)
    return ()


def _condition_holds(condition: MatchCondition, namespace: tuple[str, ...]) -> bool:
    path = tuple(condition.path)
    if len(namespace) < len(path):
        return False
    if condition.match_type == "prefix":
        pairs = zip(namespace, path, strict=False)
    elif condition.match_type == "suffix":
        pairs = zip(reversed(namespace), reversed(path), strict=False)
    else:
        raise InvalidInputError(f"Unknown namespace match type {condition.match_type!r}.")
    return all(wanted == "*" or label == wanted for label, wanted in pairs)


def _sql_filter(conditions: Mapping[str, Any] | None) -> dict[str, str]:
    """The part of a filter the database can apply: equality of top-level string fields
    (kept in metadata by ``put``). The whole filter is applied to what it returns."""
    pushed: dict[str, str] = {}
    for name, wanted in (conditions or {}).items():
        if isinstance(wanted, Mapping) and set(wanted) == {"$eq"}:
            wanted = wanted["$eq"]
        if _filterable(wanted):
            pushed[FIELD_PREFIX + name] = wanted
    return pushed


def _filterable(value: object) -> TypeGuard[str]:
    """A string short enough that ``put`` keeps a copy of it for filtering in SQL."""
    return isinstance(value, str) and len(value) <= _MAX_FILTERABLE_CHARS


def _matches(value: Mapping[str, Any], conditions: Mapping[str, Any] | None) -> bool:
    if not conditions:
        return True
    return all(_value_matches(value.get(field), wanted) for field, wanted in conditions.items())


def _value_matches(actual: Any, wanted: Any) -> bool:
    if isinstance(wanted, Mapping):
        if any(str(name).startswith("$") for name in wanted):
            return all(_compare(actual, op, operand) for op, operand in wanted.items())
        return isinstance(actual, Mapping) and all(
            _value_matches(actual.get(name), nested) for name, nested in wanted.items()
        )
    if isinstance(wanted, list | tuple):
        return (
            isinstance(actual, list | tuple)
            and len(actual) == len(wanted)
            and all(_value_matches(a, w) for a, w in zip(actual, wanted, strict=True))
        )
    return bool(actual == wanted)


def _check_filter(conditions: Any) -> None:
    """Refuse unknown operators before searching, so a typo is never an empty result."""
    if conditions is None:
        return
    if not isinstance(conditions, Mapping):
        raise InvalidInputError(f"A search filter must be a dict, got {conditions!r}.")
    for name, wanted in conditions.items():
        if isinstance(name, str) and name.startswith("$") and name not in _OPERATORS:
            raise InvalidInputError(
                f"Unsupported filter operator {name!r}; use $eq, $ne, $gt, $gte, $lt or $lte."
            )
        if isinstance(wanted, Mapping):
            _check_filter(wanted)


def _compare(actual: Any, operator: str, operand: Any) -> bool:
    if operator == "$eq":
        return bool(actual == operand)
    if operator == "$ne":
        return bool(actual != operand)
    if isinstance(actual, bool) or not isinstance(actual, int | float) or math.isnan(actual):
        return False
    if isinstance(operand, bool) or not isinstance(operand, int | float):
        raise InvalidInputError(f"{operator} needs a number, got {operand!r}.")
    number, bound = float(actual), float(operand)
    if operator == "$gt":
        return number > bound
    if operator == "$gte":
        return number >= bound
    if operator == "$lt":
        return number < bound
    return number <= bound
