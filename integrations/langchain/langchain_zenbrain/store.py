"""``ZenBrainStore``: a LangGraph long-term memory store backed by zenbrain.

How LangGraph's model maps onto zenbrain's:

* A LangGraph namespace (a tuple of labels) is a zenbrain namespace of its own, named
  ``<coordinator namespace>.<label>.<label>...`` (LangGraph forbids ``.`` in labels, so
  the name is unambiguous; ``%`` and ``.`` in the coordinator's namespace are
  percent-encoded). zenbrain treats a namespace as a hard boundary, so no operation in one
  LangGraph namespace reads or changes another's items.
* An item is one long-term memory (a semantic fact by default). Its searchable text is
  the text at the indexed fields of the value (all string fields by default); the key, the
  value and the timestamps travel in the memory's metadata.
* ``put`` on an existing key stores the new memory, then forgets the old one; a ``None``
  value forgets it. ``search`` with a ``query`` is zenbrain's ``recall`` (lexical, or
  hybrid with an embedder) in every namespace under the prefix, merged by score, matches
  only; without a query it lists items, most recently updated first. ``filter`` matches
  value fields like LangGraph's stores do (``$eq``, ``$ne``, ``$gt``, ``$gte``, ``$lt``,
  ``$lte``).
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Literal

from langgraph.store.base import (
    BaseStore,
    GetOp,
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
from sqlalchemy import select

from zenbrain import MemoryCoordinator
from zenbrain.errors import InvalidInputError
from zenbrain.storage.schema import memories
from zenbrain.types import RecallResult

__all__ = ["ZenBrainStore"]

# Keys of the zenbrain memory metadata that carry the LangGraph item.
KEY_FIELD = "langgraph_key"
VALUE_FIELD = "langgraph_value"
CREATED_FIELD = "langgraph_created_at"
UPDATED_FIELD = "langgraph_updated_at"
INDEXED_FIELD = "langgraph_indexed"

_SEPARATOR = "."
_MAX_NAMESPACE_CHARS = 200
_MAX_RECALL = 1000
# Any score above 0: a query search returns matches only, not zenbrain's score-0 fill-ins
# (recent memories offered when a layer has no match at all).
_MATCHES_ONLY = 1e-9
_ItemLayer = Literal["semantic", "episodic"]


@dataclass(frozen=True, slots=True)
class _Stored:
    """One item as found in the database: the memory's id and layer plus the item."""

    memory_id: str
    layer: str
    item: Item


class ZenBrainStore(BaseStore):
    """LangGraph ``BaseStore`` over a :class:`zenbrain.MemoryCoordinator`.

    Use it wherever LangGraph takes a store: ``create_react_agent(model, tools,
    store=ZenBrainStore(coordinator))``, ``graph.compile(store=...)`` or LangMem's memory
    tools. ``layer`` is the zenbrain layer items are stored in (``"semantic"`` facts by
    default, or ``"episodic"``); ``index_fields`` are the value fields whose text is
    searchable when a ``put`` names none (default: every string in the value).
    """

    __slots__ = ("_coordinator", "_index_fields", "_layer", "_root", "_views")

    def __init__(
        self,
        coordinator: MemoryCoordinator,
        *,
        layer: _ItemLayer = "semantic",
        index_fields: list[str] | None = None,
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
        if index_fields is not None and (
            isinstance(index_fields, str) or not all(isinstance(f, str) for f in index_fields)
        ):
            raise InvalidInputError(
                f"index_fields must be a list of field paths, got {index_fields!r}."
            )
        self._coordinator = coordinator
        self._layer: str = layer
        self._index_fields = list(index_fields) if index_fields is not None else None
        self._root = coordinator.namespace.replace("%", "%25").replace(".", "%2E")
        self._views: dict[str, MemoryCoordinator] = {}

    @property
    def coordinator(self) -> MemoryCoordinator:
        """The coordinator whose namespace is the root of every LangGraph namespace."""
        return self._coordinator

    def zenbrain_namespace(self, namespace: tuple[str, ...]) -> str:
        """The zenbrain namespace holding the LangGraph namespace ``namespace``."""
        if not namespace:
            raise InvalidNamespaceError("A LangGraph namespace for items cannot be empty.")
        name = _SEPARATOR.join((self._root, *namespace))
        if len(name) > _MAX_NAMESPACE_CHARS:
            raise InvalidNamespaceError(
                f"The namespace {namespace} maps to the zenbrain namespace {name!r} of "
                f"{len(name)} characters; zenbrain allows at most {_MAX_NAMESPACE_CHARS}."
            )
        return name

    def coordinator_for(self, namespace: tuple[str, ...]) -> MemoryCoordinator:
        """A coordinator on the zenbrain namespace of ``namespace`` (sharing the connection
        pool), e.g. to use a ``ZenBrainRetriever`` on what a LangGraph agent stored."""
        name = self.zenbrain_namespace(namespace)
        view = self._views.get(name)
        if view is None:
            view = self._views[name] = self._coordinator.for_namespace(name)
        return view

    # ------------------------------------------------------------------ BaseStore
    def batch(self, ops: Iterable[Op]) -> list[Result]:
        results: list[Result] = []
        for op in ops:
            _validate_labels(op)
            if isinstance(op, GetOp):
                found = self._find(op.namespace, op.key)
                results.append(found[0].item if found else None)
            elif isinstance(op, PutOp):
                self._put(op)
                results.append(None)
            elif isinstance(op, SearchOp):
                results.append(self._search(op))
            elif isinstance(op, ListNamespacesOp):
                results.append(self._list_namespaces(op))
            else:
                raise InvalidInputError(f"ZenBrainStore cannot run the operation {op!r}.")
        return results

    async def abatch(self, ops: Iterable[Op]) -> list[Result]:
        # The coordinator's async methods are its sync ones in a worker thread; one thread
        # for the whole batch keeps the operations in order.
        return await asyncio.to_thread(self.batch, list(ops))

    # ------------------------------------------------------------------ put / delete
    def _put(self, op: PutOp) -> None:
        view = self.coordinator_for(op.namespace)
        previous = self._find(op.namespace, op.key)
        if op.value is not None:
            if op.namespace[0] == "langgraph":
                # LangGraph reserves this root label for its own use.
                raise InvalidNamespaceError(
                    f'Root label for namespace cannot be "langgraph". Got: {op.namespace}'
                )
            value = dict(op.value)
            _check_json(value)
            now = datetime.now(UTC)
            created = previous[0].item.created_at if previous else now
            text = self._searchable_text(value, op.index)
            metadata = {
                KEY_FIELD: op.key,
                VALUE_FIELD: value,
                CREATED_FIELD: created.isoformat(),
                UPDATED_FIELD: now.isoformat(),
                INDEXED_FIELD: op.index is not False,
            }
            view.store(text, layer=self._layer, metadata=metadata, created_at=created)
        for stored in previous:
            view.forget(stored.memory_id, stored.layer)

    def _searchable_text(
        self, value: dict[str, Any], index: Literal[False] | list[str] | None
    ) -> str:
        fields = self._index_fields if index is None else (index or None)
        if fields is None:
            texts = list(_strings(value))
        else:
            texts = [text for field in fields for text in get_text_at_path(value, field)]
        text = "\n".join(t for t in texts if t.strip())
        # zenbrain keeps text; a value with no text at the indexed fields is kept as JSON.
        return text or json.dumps(value, ensure_ascii=False, sort_keys=True)

    # ------------------------------------------------------------------ lookups
    def _rows(self, names: list[str] | None, prefix: str | None, key: str | None) -> list[_Stored]:
        """Items in the zenbrain namespaces ``names`` or starting with ``prefix``."""
        query = select(
            memories.c.id, memories.c.namespace, memories.c.layer, memories.c.metadata
        ).where(memories.c.metadata[KEY_FIELD].as_string().is_not(None))
        if names is not None:
            query = query.where(memories.c.namespace.in_(names))
        if prefix is not None:
            query = query.where(memories.c.namespace.startswith(prefix, autoescape=True))
        if key is not None:
            query = query.where(memories.c.metadata[KEY_FIELD].as_string() == key)
        with self._coordinator.database.read() as conn:
            # Newest first: should two puts of one key ever race, a get sees the later one.
            rows = conn.execute(query.order_by(memories.c.pk.desc())).all()
        stored = []
        for row in rows:
            namespace = self._langgraph_namespace(row.namespace)
            if namespace is not None:
                item = _item(namespace, dict(row.metadata))
                stored.append(_Stored(row.id, row.layer, item))
        return stored

    def _find(self, namespace: tuple[str, ...], key: str) -> list[_Stored]:
        return self._rows([self.zenbrain_namespace(namespace)], None, key)

    def _langgraph_namespace(self, name: str) -> tuple[str, ...] | None:
        head = self._root + _SEPARATOR
        if not name.startswith(head):
            return None
        return tuple(name[len(head) :].split(_SEPARATOR))

    def _in_prefix(self, prefix: tuple[str, ...]) -> tuple[list[str] | None, str]:
        """The exact zenbrain namespace for ``prefix`` and the prefix of those below it."""
        if not prefix:
            return None, self._root + _SEPARATOR
        name = self.zenbrain_namespace(prefix)
        return [name], name + _SEPARATOR

    # ------------------------------------------------------------------ search
    def _search(self, op: SearchOp) -> list[SearchItem]:
        if op.limit < 0 or op.offset < 0:
            raise InvalidInputError(
                f"search needs a non-negative limit and offset, got {op.limit} and {op.offset}."
            )
        _check_filter(op.filter)
        if op.query is not None and op.query.strip():
            return self._recall(op)
        exact, prefix = self._in_prefix(op.namespace_prefix)
        stored = self._rows(None, prefix, None)
        if exact is not None:
            stored += self._rows(exact, None, None)
        items = [s.item for s in stored if _matches(s.item.value, op.filter)]
        items.sort(key=lambda item: item.updated_at, reverse=True)
        return [_search_item(item, None) for item in items[op.offset : op.offset + op.limit]]

    def _recall(self, op: SearchOp) -> list[SearchItem]:
        assert op.query is not None
        prefix = op.namespace_prefix
        namespaces = [ns for ns in self._namespaces() if ns[: len(prefix)] == prefix]
        wanted = op.offset + op.limit
        # Filters are applied after ranking, so ask for more than the page when filtering.
        pool = min(_MAX_RECALL, max(wanted * (4 if op.filter else 1), 1))
        ranked: list[tuple[float, Item]] = []
        for namespace in namespaces:
            view = self.coordinator_for(namespace)
            results = view.recall(
                op.query, layers=[self._layer], limit=pool, min_score=_MATCHES_ONLY
            )
            for result in results:
                item = _recalled_item(namespace, result)
                if item is None or not result.metadata.get(INDEXED_FIELD, True):
                    continue
                if _matches(item.value, op.filter):
                    ranked.append((result.score, item))
        ranked.sort(key=lambda pair: pair[0], reverse=True)
        page = ranked[op.offset : op.offset + op.limit]
        return [_search_item(item, score) for score, item in page]

    # ------------------------------------------------------------------ namespaces
    def _namespaces(self) -> list[tuple[str, ...]]:
        """Every LangGraph namespace holding at least one item."""
        query = (
            select(memories.c.namespace)
            .where(memories.c.metadata[KEY_FIELD].as_string().is_not(None))
            .where(memories.c.namespace.startswith(self._root + _SEPARATOR, autoescape=True))
            .distinct()
        )
        with self._coordinator.database.read() as conn:
            names = [row.namespace for row in conn.execute(query)]
        return sorted(ns for ns in map(self._langgraph_namespace, names) if ns is not None)

    def _list_namespaces(self, op: ListNamespacesOp) -> list[tuple[str, ...]]:
        found = self._namespaces()
        if op.match_conditions:
            found = [
                ns for ns in found if all(_condition_holds(c, ns) for c in op.match_conditions)
            ]
        if op.max_depth is not None:
            found = list({ns[: op.max_depth] for ns in found})
        return sorted(found)[op.offset : op.offset + op.limit]

    def __repr__(self) -> str:
        return f"ZenBrainStore({self._coordinator!r}, layer={self._layer!r})"


# ---------------------------------------------------------------------- helpers
def _validate_labels(op: Op) -> None:
    if isinstance(op, GetOp | PutOp):
        paths: list[tuple[str, ...]] = [op.namespace]
    elif isinstance(op, SearchOp):
        paths = [op.namespace_prefix]
    elif isinstance(op, ListNamespacesOp):
        paths = [condition.path for condition in op.match_conditions or ()]
    else:
        return
    for path in paths:
        for label in path:
            if not isinstance(label, str) or not label or _SEPARATOR in label or "\x00" in label:
                raise InvalidNamespaceError(
                    f"Invalid namespace label {label!r} in {path}: labels must be non-empty "
                    "strings without periods or NUL bytes."
                )


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


def _recalled_item(namespace: tuple[str, ...], result: RecallResult) -> Item | None:
    if KEY_FIELD not in result.metadata:
        return None  # stored into this namespace by other means: not a LangGraph item
    return _item(namespace, result.metadata)


def _search_item(item: Item, score: float | None) -> SearchItem:
    return SearchItem(
        namespace=item.namespace,
        key=item.key,
        value=item.value,
        created_at=item.created_at,
        updated_at=item.updated_at,
        score=score,
    )


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
    return bool(actual == wanted)


_OPERATORS = frozenset({"$eq", "$ne", "$gt", "$gte", "$lt", "$lte"})


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
    if operator in ("$gt", "$gte", "$lt", "$lte"):
        if isinstance(actual, bool) or not isinstance(actual, int | float):
            return False
        number, bound = float(actual), float(operand)
        return {
            "$gt": number > bound,
            "$gte": number >= bound,
            "$lt": number < bound,
            "$lte": number <= bound,
        }[operator]
    raise InvalidInputError(
        f"Unsupported filter operator {operator!r}; use $eq, $ne, $gt, $gte, $lt or $lte."
    )
