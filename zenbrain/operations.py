"""What a recall and a store are asked: one frozen value each, checked once when it is built.

:class:`RecallQuery` and :class:`StoreItem` are the only place where recall's options and
store's fields are declared. The facade builds them from its keyword arguments, the HTTP API
reads its request bodies into them (:meth:`RecallQuery.from_json`), the remote client sends
them (:meth:`RecallQuery.to_json`), and the tools, the CLI and the MCP server fill them in.
A value that could be built is valid: the pipelines never check an option again. Every
refusal is an :class:`~zenbrain.errors.InvalidInputError` that names the field.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import KW_ONLY, dataclass, field, fields
from datetime import datetime
from typing import Any, ClassVar, Literal, TypedDict, TypeVar

from zenbrain import _validation as check
from zenbrain.errors import InvalidInputError
from zenbrain.types import DEFAULT_RECALL_LAYERS, RECALLABLE_LAYERS, STORABLE_LAYERS, Layer

__all__ = ["RecallOptions", "RecallQuery", "StoreItem", "StoreOptions"]

_Value = TypeVar("_Value", "RecallQuery", "StoreItem")
_TIME_FIELDS = frozenset({"as_of", "time_range", "created_at"})


def _help(text: str) -> dict[str, str]:
    """A field's one sentence, which every surface (CLI help, API schema) shows for it."""
    return {"help": text}


def _set(value: object, name: str, checked: object) -> None:
    object.__setattr__(value, name, checked)  # a frozen value normalises itself once


def _wire_time(name: str, value: object) -> object:
    """A time of a JSON body: ISO-8601 text becomes a datetime (the checks then apply)."""
    if isinstance(value, str):
        try:
            return datetime.fromisoformat(value)
        except ValueError as exc:
            raise InvalidInputError(
                f"{name} must be an ISO-8601 timestamp, got {check.shown(value)}"
            ) from exc
    if name == "time_range" and isinstance(value, list | tuple):
        return tuple(_wire_time(name, part) for part in value)
    return value


def _build(cls: type[_Value], first: str, value: object, options: Mapping[str, Any]) -> _Value:
    """``cls(value, **options)``, or ``value`` (already one) with ``options`` replacing its
    fields; an unknown option is refused by name (not a TypeError) either way."""
    unknown = sorted(set(options) - cls._names - {first})
    if unknown:
        raise InvalidInputError(
            f"unknown {cls.__name__} field(s) {', '.join(map(repr, unknown))}; allowed: "
            f"{', '.join(sorted(cls._names))}"
        )
    if isinstance(value, cls):
        return dataclasses.replace(value, **options) if options else value
    return cls(value, **options)  # type: ignore[arg-type]


def _from_json(cls: type[_Value], first: str, data: object) -> _Value:
    if not isinstance(data, Mapping):
        raise InvalidInputError(f"a {cls.__name__} must be a JSON object, got {check.shown(data)}")
    if first not in data:
        raise InvalidInputError(f"a {cls.__name__} needs {first!r}")
    options = {
        key: _wire_time(key, value) if key in _TIME_FIELDS else value
        for key, value in data.items()
        if key != first and value is not None
    }
    return _build(cls, first, data[first], options)


def _to_json(value: RecallQuery | StoreItem) -> dict[str, Any]:
    """The fields that differ from their defaults, as JSON values."""
    out: dict[str, Any] = {}
    for f in fields(value):
        item = getattr(value, f.name)
        if f.default is not dataclasses.MISSING and item == f.default:
            continue
        if isinstance(item, datetime):
            item = item.isoformat()
        elif isinstance(item, tuple):
            item = [part.isoformat() if isinstance(part, datetime) else part for part in item]
        out[f.name] = item
    return out


@dataclass(frozen=True, slots=True)
class RecallQuery:
    """One recall: what to look for and how (docs/guide/recall-and-scores.md).

    ``layers`` (default: episodic, semantic, procedural and core; ``working`` on request),
    ``limit`` 1..1000, ``min_score`` drops results below it (above 0 also the fill-ins),
    ``min_confidence`` drops less certain memories, ``core`` ``"always"`` (every block
    competes) or ``"matching"`` (only blocks sharing a word), ``context`` and ``where`` (a
    metadata match) filter first, ``subtree`` adds ``<namespace>.*``. Validity
    (docs/guide/knowledge-updates.md): ``current_only`` leaves replaced memories out,
    ``as_of`` answers as of an aware moment, ``time_range`` (start, end) ranks that span
    first. ``explain`` gives each result its score in parts (:class:`~zenbrain.ScoreParts`).
    ``per_conversation`` keeps at most that many results of one conversation (1: recall
    ranks conversations, each by its best match); memories naming none are not limited.
    """

    query: str
    _: KW_ONLY
    layers: tuple[Layer, ...] = field(
        default=DEFAULT_RECALL_LAYERS,
        metadata=_help("Layers to search (default: episodic, semantic, procedural, core)."),
    )
    limit: int = field(default=10, metadata=_help("Most results to return (1..1000)."))
    min_score: float = field(
        default=0.0,
        metadata=_help("Drop results scoring below this (0..1); above 0 drops fill-ins."),
    )
    min_confidence: float = field(
        default=0.0, metadata=_help("Drop memories held with less confidence (0..1).")
    )
    core: Literal["always", "matching"] = field(
        default="always",
        metadata=_help(
            "Core blocks: 'always' every block competes, 'matching' only those sharing a word."
        ),
    )
    context: str | None = field(default=None, metadata=_help("Only memories of this context."))
    where: Mapping[str, Any] | None = field(
        default=None, metadata=_help("Only memories whose metadata holds these pairs.")
    )
    subtree: bool = field(
        default=False, metadata=_help("Also search the namespaces below this one.")
    )
    current_only: bool = field(
        default=False, metadata=_help("Leave out memories a newer one replaced.")
    )
    as_of: datetime | None = field(
        default=None, metadata=_help("Answer as of this moment (ISO 8601, with a time zone).")
    )
    time_range: tuple[datetime, datetime] | None = field(
        default=None, metadata=_help("Rank memories of this span (start, end) first.")
    )
    explain: bool = field(default=False, metadata=_help("Give each result its score in parts."))
    per_conversation: int | None = field(
        default=None,
        metadata=_help("At most this many results of one conversation (1: one per conversation)."),
    )

    _names: ClassVar[frozenset[str]]

    def __post_init__(self) -> None:
        _set(self, "query", check.check_content(self.query, "query"))
        layers = DEFAULT_RECALL_LAYERS if self.layers is None else self.layers
        if isinstance(layers, str) or not isinstance(layers, list | tuple) or not layers:
            raise InvalidInputError(
                f"layers must be a non-empty list of layer names, got {check.shown(layers)}"
            )
        names = (check.check_layer(name, RECALLABLE_LAYERS) for name in layers)
        _set(self, "layers", tuple(dict.fromkeys(names)))
        _set(self, "limit", check.check_int(self.limit, "limit", 1, 1000))
        _set(self, "min_score", check.check_fraction(self.min_score, "min_score", optional=False))
        confidence = check.check_fraction(self.min_confidence, "min_confidence", optional=False)
        _set(self, "min_confidence", confidence)
        if self.core not in ("always", "matching"):
            raise InvalidInputError(f"core must be 'always' or 'matching', got {self.core!r:.40}")
        _set(self, "context", check.check_optional_text(self.context, "context"))
        if self.where is not None:
            _set(self, "where", check.check_match(self.where, "where"))
        for flag in ("subtree", "current_only", "explain"):
            check.check_bool(getattr(self, flag), flag)
        if self.as_of is not None:
            check.check_aware(self.as_of, "as_of")
        span = self.time_range
        if span is not None:
            if not isinstance(span, tuple | list) or len(span) != 2:
                raise InvalidInputError(
                    "time_range must be a (start, end) pair of aware datetimes, got "
                    f"{check.shown(span)}"
                )
            start, end = (check.check_aware(moment, "time_range") for moment in span)
            if end <= start:
                raise InvalidInputError(
                    f"time_range must end after it starts, got {start} .. {end}"
                )
            _set(self, "time_range", (start, end))
        if self.per_conversation is not None:
            spread = check.check_int(self.per_conversation, "per_conversation", 1, 1000)
            _set(self, "per_conversation", spread)

    @classmethod
    def of(cls, query: str | RecallQuery, options: Mapping[str, Any]) -> RecallQuery:
        """The facade's ``recall(query, **options)`` as one value (``query`` may already be
        one: the options then replace its fields)."""
        return _build(cls, "query", query, options)

    @classmethod
    def from_json(cls, data: object) -> RecallQuery:
        """A JSON object's recall (times as ISO-8601 text; ``null`` means the default)."""
        return _from_json(cls, "query", data)

    def to_json(self) -> dict[str, Any]:
        """The query and every option not at its default, as JSON values."""
        return _to_json(self)


@dataclass(frozen=True, slots=True)
class StoreItem:
    """One memory to store. ``layer="auto"`` routes it (``steps`` or step-like content →
    procedural; ``emotional_weight`` above 0.5 → episodic; ``confidence`` above 0.9 → core;
    otherwise a fact); ``fact``, ``episode``, ``procedure`` name layers too. ``context`` is
    its domain, ``conversation`` the conversation (session, thread) it came from,
    ``metadata`` the caller's own, stored and returned as given. ``steps``, ``tools`` and
    ``outcome`` describe a procedure; ``source`` where a fact came from; ``created_at``
    when it happened (default: now); ``supersedes`` ids it replaces
    (docs/guide/knowledge-updates.md)."""

    content: str
    _: KW_ONLY
    layer: str = "auto"
    context: str | None = None
    conversation: str | None = None
    emotional_weight: float | None = None
    confidence: float | None = None
    source: str | None = None
    steps: tuple[str, ...] | None = None
    tools: tuple[str, ...] | None = None
    outcome: str | None = None
    metadata: Mapping[str, Any] | None = None
    created_at: datetime | None = None
    supersedes: tuple[str, ...] = ()

    _names: ClassVar[frozenset[str]]

    def __post_init__(self) -> None:
        # Fields left at None skip their check: a plain string item checks its content only.
        _set(self, "content", check.check_content(self.content))
        if self.layer != "auto":
            _set(self, "layer", check.check_layer(self.layer, STORABLE_LAYERS, aliases=True))
        for name in ("context", "conversation", "source"):
            if (value := getattr(self, name)) is not None:
                _set(self, name, check.check_optional_text(value, name))
        for name in ("emotional_weight", "confidence"):
            if (value := getattr(self, name)) is not None:
                _set(self, name, check.check_fraction(value, name))
        for name in ("steps", "tools"):
            if (value := getattr(self, name)) is not None:
                _set(self, name, tuple(check.check_strings(value, name) or ()))
        if self.outcome is not None:
            outcome = self.outcome
            if not isinstance(outcome, str) or len(outcome) > check.MAX_OUTCOME_CHARS:
                raise InvalidInputError(
                    f"outcome must be a string of at most {check.MAX_OUTCOME_CHARS:,} "
                    f"characters, got {check.shown(outcome)}"
                )
            check.check_storable(outcome, "outcome")
        if self.metadata is not None:
            _set(self, "metadata", check.check_metadata(self.metadata))
        if self.created_at is not None:
            _set(self, "created_at", check.check_created_at(self.created_at))
        replaced = () if self.supersedes is None else check.check_ids(self.supersedes, "supersedes")
        _set(self, "supersedes", replaced)

    @classmethod
    def of(cls, content: str | StoreItem, options: Mapping[str, Any]) -> StoreItem:
        """The facade's ``store(content, **options)`` as one value."""
        return _build(cls, "content", content, options)

    @classmethod
    def from_json(cls, data: object) -> StoreItem:
        """A JSON object's memory (``created_at`` as ISO-8601 text)."""
        return _from_json(cls, "content", data)

    @classmethod
    def from_item(cls, item: object) -> StoreItem:
        """One item of ``store_many``: a string, a dict of store()'s fields, or a StoreItem."""
        if isinstance(item, StoreItem):
            return item
        if isinstance(item, str):
            return cls(item)
        if isinstance(item, Mapping):
            if "content" not in item:
                raise InvalidInputError("a dict item needs a 'content' key")
            options = {key: value for key, value in item.items() if key != "content"}
            return _build(cls, "content", item["content"], options)
        raise InvalidInputError(
            f"items must be strings, dicts or StoreItems, got {type(item).__name__}"
        )

    def to_json(self) -> dict[str, Any]:
        """The content and every field not at its default, as JSON values."""
        return _to_json(self)


RecallQuery._names = frozenset(f.name for f in fields(RecallQuery))
StoreItem._names = frozenset(f.name for f in fields(StoreItem))


class RecallOptions(TypedDict, total=False):
    """``recall(query, **options)``'s keywords: :class:`RecallQuery`'s fields (a test keeps
    the two alike)."""

    layers: Sequence[str] | None
    limit: int
    min_score: float
    min_confidence: float
    core: Literal["always", "matching"]
    context: str | None
    where: Mapping[str, Any] | None
    subtree: bool
    current_only: bool
    as_of: datetime | None
    time_range: tuple[datetime, datetime] | None
    explain: bool
    per_conversation: int | None


class StoreOptions(TypedDict, total=False):
    """``store(content, **options)``'s keywords: :class:`StoreItem`'s fields (a test keeps
    the two alike)."""

    layer: str
    context: str | None
    conversation: str | None
    emotional_weight: float | None
    confidence: float | None
    source: str | None
    steps: Sequence[str] | None
    tools: Sequence[str] | None
    outcome: str | None
    metadata: Mapping[str, Any] | None
    created_at: datetime | str | None
    supersedes: Sequence[str] | None
