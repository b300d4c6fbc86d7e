"""Property test: every public ``MemoryCoordinator`` method and ``zenbrain.tools.dispatch``,
called with arbitrary values on both back ends, either works or raises a ``ZenbrainError``
subclass, and a rejected call changes nothing (every table row, working memory, the current
session). No Python error is allowed for bad *values*: see ``zenbrain/errors.py``.

Arguments are drawn per parameter from a mix of sensible values (so that calls also
succeed and the store evolves) and hostile ones: lone surrogates, NUL, huge and empty
text, NaN/inf/huge/negative numbers, booleans, wrong types, years 1 and 9999, and metadata
nested 100,000 deep.
"""

from __future__ import annotations

import inspect
import math
import typing
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from zenbrain import MemoryCoordinator, ZenbrainError
from zenbrain.tools import TOOL_NAMES, dispatch

EXAMPLES = 200


class DeepDict(dict[str, Any]):
    """A dict nested 100,000 levels deep, with a short repr for hypothesis' reports."""

    def __repr__(self) -> str:
        return "DeepDict(<100,000 levels>)"


def _deep(levels: int = 100_000) -> DeepDict:
    inner: dict[str, Any] = {"leaf": 1}
    for _ in range(levels):
        inner = {"a": inner}
    return DeepDict(inner)


class HugeText(str):
    __slots__ = ()

    def __repr__(self) -> str:
        return f"HugeText(<{len(self):,} characters>)"


DEEP = _deep()
HUGE = HugeText("x" * 1_000_001)

surrogates = st.text(st.characters(min_codepoint=0xD800, max_codepoint=0xDFFF), min_size=1)
any_text = st.one_of(
    st.text(st.characters(exclude_categories=())),  # every code point, surrogates too
    st.builds(lambda a, s, b: a + s + b, st.text(max_size=5), surrogates, st.text(max_size=5)),
    st.sampled_from(["", " ", "\n\t", "\x00", "a\x00b", "\ud800", "ok\udfff", "x" * 201]),
    st.just(HUGE),
)
numbers = st.one_of(
    st.integers(),
    st.floats(),  # NaN and infinities included
    st.sampled_from([0, -1, 10**400, 2**63, -(2**63) - 1, 1e308, -0.0, 0.5, True, False]),
)
dates = st.one_of(
    st.datetimes(),
    st.sampled_from(
        [
            datetime(1, 1, 1),
            datetime(9999, 12, 31, 23, 59, 59),
            datetime(9999, 12, 31, 23, 59, 59, tzinfo=UTC),
            "9999-12-31T23:59:59",
            "0001-01-01",
            "not a date",
        ]
    ),
)
wrong_types = st.one_of(
    st.none(),
    st.binary(max_size=10),
    st.lists(st.one_of(st.integers(), st.text(max_size=5), st.none()), max_size=4),
    st.dictionaries(st.text(max_size=5), st.one_of(st.integers(), st.text(max_size=5))),
    st.sampled_from([(), {}, set(), frozenset({"a"}), object(), 1j, Ellipsis, DEEP, len]),
)
hostile = st.one_of(any_text, numbers, dates, wrong_types)

LAYER_NAMES = ["working", "short_term", "episodic", "semantic", "procedural", "core"]
GOOD: dict[str, st.SearchStrategy[Any]] = {
    "content": st.sampled_from(
        ["Anna moved to Kiel", "deploy with make release", "otters hold hands", "Zürich trip"]
    ),
    "query": st.sampled_from(["Kiel", "deploy", "otters", "payments"]),
    "layer": st.sampled_from([*LAYER_NAMES, "auto", "fact", "episode", "cross_context"]),
    "layers": st.lists(st.sampled_from(LAYER_NAMES), min_size=1, max_size=3),
    "context": st.sampled_from([None, "work", "personal"]),
    "emotional_weight": st.floats(0, 1),
    "confidence": st.floats(0, 1),
    "min_score": st.floats(0, 1),
    "min_confidence": st.floats(0, 1),
    "source": st.sampled_from([None, "chat"]),
    "steps": st.lists(st.sampled_from(["open", "check", "close"]), max_size=3),
    "tools": st.lists(st.sampled_from(["git", "make"]), max_size=2),
    "outcome": st.sampled_from(["done", "live"]),
    "metadata": st.dictionaries(
        st.sampled_from(["k", "topic"]), st.sampled_from([1, "v", True]), max_size=2
    ),
    "where": st.dictionaries(st.sampled_from(["k", "topic"]), st.sampled_from([1, "v"])),
    "match": st.dictionaries(st.sampled_from(["k", "topic"]), st.sampled_from([1, "v"])),
    "created_at": st.datetimes(
        min_value=datetime(2000, 1, 1), max_value=datetime(2030, 1, 1), timezones=st.just(UTC)
    ),
    "limit": st.integers(1, 20),
    "offset": st.integers(0, 5),
    "grade": st.integers(1, 4),
    "success": st.booleans(),
    "label": st.sampled_from(["persona", "goals", "style"]),
    "role": st.sampled_from(["user", "assistant", "system"]),
    "session_id": st.sampled_from([None, "seed-session", "other-session"]),
    "core": st.sampled_from(["always", "matching"]),
    "parallel_workers": st.integers(0, 4),
    "maintenance_work_mem": st.sampled_from(["64MB", "128 MB", "1GB", "9999999TB"]),
    "batch_size": st.integers(1, 100),
    "namespace": st.sampled_from(["default", "tenant-b"]),
    "prefix": st.sampled_from(["", "ten"]),
    "remember": st.booleans(),
    "subtree": st.booleans(),
    "supersedes": st.lists(st.sampled_from(["no-such-id", ""]), max_size=2),
    "current_only": st.booleans(),
    "explain": st.booleans(),
    "conversation": st.sampled_from([None, "standup", "chat-7"]),
    "per_conversation": st.sampled_from([None, 1, 2]),
    "as_of": st.datetimes(
        min_value=datetime(2000, 1, 1), max_value=datetime(2030, 1, 1), timezones=st.just(UTC)
    ),
    "time_range": st.tuples(
        st.datetimes(min_value=datetime(2000, 1, 1), timezones=st.just(UTC)),
        st.datetimes(min_value=datetime(2000, 1, 1), timezones=st.just(UTC)),
    ),
}


def _items() -> st.SearchStrategy[Any]:
    item = st.one_of(
        GOOD["content"],
        st.fixed_dictionaries({"content": GOOD["content"]}, optional={"layer": GOOD["layer"]}),
        hostile,
    )
    return st.lists(item, max_size=4)


def _turns() -> st.SearchStrategy[Any]:
    turn = st.one_of(
        st.fixed_dictionaries({"role": GOOD["role"], "content": GOOD["content"]}), hostile
    )
    return st.lists(turn, max_size=3)


STORE_OPTIONS = (
    "layer",
    "context",
    "emotional_weight",
    "confidence",
    "source",
    "steps",
    "tools",
    "outcome",
    "metadata",
    "created_at",
    "supersedes",
    "conversation",
)
# method -> (required parameters, optional parameters); the async twins share these.
SPECS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "store": (("content",), STORE_OPTIONS),
    "store_many": (("items",), ("progress",)),
    "recall": (
        ("query",),
        (
            "layers",
            "limit",
            "min_score",
            "min_confidence",
            "core",
            "context",
            "where",
            "subtree",
            "current_only",
            "as_of",
            "time_range",
            "explain",
            "per_conversation",
        ),
    ),
    "forget": (("id", "layer"), ()),
    "consolidate": ((), ()),
    "health": ((), ()),
    "review_queue": ((), ("limit",)),
    "record_review": (("fact_id", "grade"), ()),
    "procedure_feedback": (("id", "success"), ()),
    "set_core_block": (("label", "content"), ()),
    "core_blocks": ((), ()),
    "delete_core_block": (("label",), ()),
    "merge_candidates": ((), ("limit",)),
    "core_context": ((), ()),
    "start_session": ((), ("session_id",)),
    "add_interaction": (("role", "content"), ("metadata", "session_id")),
    "add_interactions": (("turns",), ("session_id", "remember")),
    "conversation": ((), ("limit", "session_id")),
    "pop_interaction": ((), ("session_id",)),
    "clear_session": ((), ("session_id",)),
    "get": (("id",), ()),
    "embed_missing": ((), ("batch_size", "progress")),
    "bulk_load": ((), ("parallel_workers", "maintenance_work_mem")),
    "for_namespace": (("namespace",), ()),
    "find": ((), ("metadata", "layers", "limit", "offset", "subtree")),
    "replace": (("match", "content"), STORE_OPTIONS),
    "update": (("id", "content"), STORE_OPTIONS),
    "history": (("id",), ()),
    "namespaces": ((), ("prefix",)),
    "drop_namespace": ((), ()),
    "backup": (("path",), ()),
}
# Not driven: close() ends the test's store; the context-manager dunders call close().
NOT_DRIVEN = {"close"}


def public_methods() -> set[str]:
    names = set()
    for name, member in inspect.getmembers(MemoryCoordinator):
        if name.startswith("_") or isinstance(member, property) or not callable(member):
            continue
        if name.startswith("a") and hasattr(MemoryCoordinator, name[1:]):
            continue  # an async twin: same checks, run in a thread
        names.add(name)
    return names


def test_every_public_method_is_driven() -> None:
    """A new public method must be added to SPECS, or this suite would silently skip it."""
    assert public_methods() - NOT_DRIVEN <= set(SPECS)


def test_every_public_parameter_is_driven() -> None:
    """A new keyword must be added to SPECS too, or hostile values would never reach it:
    ``**options`` counts as the fields of the TypedDict it is typed by (RecallOptions,
    StoreOptions)."""
    for method, (required, optional) in SPECS.items():
        function = getattr(MemoryCoordinator, method)
        parameters = inspect.signature(function).parameters
        named = {
            name
            for name, parameter in parameters.items()
            if name != "self" and parameter.kind is not inspect.Parameter.VAR_KEYWORD
        }
        for name, parameter in parameters.items():
            if parameter.kind is inspect.Parameter.VAR_KEYWORD:
                (options,) = typing.get_args(typing.get_type_hints(function)[name])
                named |= set(typing.get_type_hints(options))
        assert named <= {*required, *optional}, method


def _value(data: st.DataObject, name: str, ids: list[str], tmp: str, *, bad: bool | None) -> Any:
    """A value for parameter ``name``: sensible (``bad=False``), hostile (``True``), or
    either (``None``)."""
    if name == "items":
        good: st.SearchStrategy[Any] = _items()
    elif name == "turns":
        good = _turns()
    elif name in ("id", "fact_id"):
        # An index, not sampled_from(ids): the list grows as the test stores, and a
        # strategy must not depend on state that changes between examples.
        good = st.integers(0, 1_000).map(lambda i: ids[i % len(ids)])
    elif name == "path":
        good = st.sampled_from([f"{tmp}/backup.db", f"{tmp}/sub/backup2.db"])
        # Hostile names stay inside the test's folder: a relative path would land in the
        # working directory.
        inside = st.builds(lambda name: f"{tmp}/{name}", any_text)
        bad_path = st.one_of(inside, numbers, wrong_types)
        choice = {False: good, True: bad_path, None: st.one_of(good, bad_path)}[bad]
        return data.draw(choice, label=name)
    elif name == "progress":
        good = st.just(lambda done, total: None)
    else:
        good = GOOD.get(name, hostile)
    chosen = {False: good, True: hostile, None: st.one_of(good, hostile)}[bad]
    return data.draw(chosen, label=name)


def _call(memory: MemoryCoordinator, method: str, args: dict[str, Any]) -> Callable[[], object]:
    function = getattr(memory, method)
    # Parameters named before any keyword-only one are passed by position, the rest (the
    # keyword-only ones and what **options takes) by name, as callers write them.
    by_position = {
        name
        for name, parameter in inspect.signature(function).parameters.items()
        if parameter.kind in (parameter.POSITIONAL_ONLY, parameter.POSITIONAL_OR_KEYWORD)
    }
    positional = [value for key, value in args.items() if key in by_position]
    keywords = {key: value for key, value in args.items() if key not in by_position}
    if method == "bulk_load":  # a context manager: drive the drop and the rebuild too
        return lambda: _enter_and_leave(function(*positional, **keywords))
    return lambda: function(*positional, **keywords)


def _enter_and_leave(manager: Any) -> None:
    with manager:
        pass


# Parameters that arrive with the coordinator's split into zenbrain/_memory/ ("Architecture").
_ARCHITECTURE = hasattr(MemoryCoordinator, "find")
_NEW_PARAMETERS = {
    ("add_interaction", "session_id"),
    ("conversation", "session_id"),
    ("pop_interaction", "session_id"),
    ("recall", "where"),
    ("store_many", "progress"),
    ("embed_missing", "progress"),
}


def _supported(method: str, args: dict[str, Any]) -> bool:
    """Methods and parameters that this checkout does not have yet are left out, so that
    a missing *feature* is not mistaken for a raw error on bad input."""
    if not hasattr(MemoryCoordinator, method):
        return False
    return _ARCHITECTURE or not any((method, name) in _NEW_PARAMETERS for name in args)


def _describe(args: dict[str, Any]) -> str:
    return ", ".join(f"{k}={str(repr(v))[:60]}" for k, v in args.items())


@pytest.mark.slow
@settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[
        HealthCheck.function_scoped_fixture,
        HealthCheck.too_slow,
        HealthCheck.data_too_large,
    ],
)
@given(data=st.data())
def test_any_call_either_works_or_raises_a_zenbrain_error_and_changes_nothing(
    seeded: Any, data: st.DataObject
) -> None:
    memory = seeded.memory
    method = data.draw(st.sampled_from(sorted(SPECS)), label="method")
    required, optional = SPECS[method]
    names = [*required, *(n for n in optional if data.draw(st.booleans(), label=f"pass {n}"))]
    # A third of the calls are sensible, a third have one hostile argument (which pins down
    # the parameter that lacks a check), a third mix freely.
    mode = data.draw(st.sampled_from(["sensible", "one hostile", "mixed"]), label="mode")
    culprit = data.draw(st.sampled_from(names), label="culprit") if names else None
    args = {}
    for name in names:
        bad = {"sensible": False, "mixed": None}.get(mode, name == culprit)
        args[name] = _value(data, name, seeded.ids, str(seeded.tmp), bad=bad)
    if not _supported(method, args):
        return
    target = memory
    if method == "drop_namespace":
        target = memory.for_namespace("scratch")  # keep the seeded namespace for later calls
        target.store("scratch memory")
    before = seeded.snapshot(memory)
    try:
        result = _call(target, method, args)()
    except ZenbrainError as exc:
        event(f"{method}: rejected ({type(exc).__name__})")
        after = seeded.snapshot(memory)
        assert after == before, f"rejected {method}({_describe(args)}) changed the store"
        return
    except BaseException as exc:
        pytest.fail(f"{method}({_describe(args)}) raised {type(exc).__name__}: {str(exc)[:300]}")
    event(f"{method}: worked")
    if isinstance(result, str) and method in ("store",) and result not in seeded.ids:
        seeded.ids.append(result)
    assert not (isinstance(result, float) and math.isnan(result))


tool_arguments = st.one_of(
    st.dictionaries(
        st.sampled_from(
            ["content", "type", "query", "layers", "limit", "id", "layer", "min_score", "core"]
        ),
        st.one_of(GOOD["content"], GOOD["layers"], GOOD["limit"], hostile),
        max_size=4,
    ),
    st.text(max_size=30),
    st.sampled_from(['{"content": "\\ud800"}', '{"query": "a\\u0000b"}', "[1,2", "null", "{}"]),
    hostile,
)


@pytest.mark.slow
@settings(
    max_examples=EXAMPLES // 2,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    name=st.one_of(st.sampled_from(TOOL_NAMES), hostile),
    arguments=tool_arguments,
)
def test_dispatch_returns_a_result_or_an_error_object(
    seeded: Any, name: Any, arguments: Any
) -> None:
    memory = seeded.memory
    before = seeded.snapshot(memory)
    try:
        result = dispatch(memory, name, arguments)
    except BaseException as exc:
        pytest.fail(f"dispatch({name!r:.60}, {arguments!r:.80}) raised {type(exc).__name__}: {exc}")
    assert isinstance(result, dict)
    if "error" in result:
        assert set(result["error"]) == {"type", "message"}
        assert len(result["error"]["message"]) < 2_000
        assert seeded.snapshot(memory) == before, "a rejected tool call changed the store"


def test_the_hostile_values_really_are_hostile() -> None:
    """Guards the generators: a refactor must not quietly drop the nasty cases."""
    assert len(HUGE) > 1_000_000
    depth, node = 0, DEEP
    while isinstance(node, dict) and "a" in node:
        node, depth = node["a"], depth + 1
    assert depth == 100_000
    assert datetime(9999, 12, 31) - datetime(1, 1, 1) > timedelta(days=3_000_000)
