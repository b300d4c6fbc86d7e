"""Running a tool call: :func:`dispatch` and :func:`adispatch`, which never raise."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Generator, Mapping
from typing import Any

from zenbrain.errors import ZenbrainError
from zenbrain.tools._arguments import (
    STORE_TYPE_TO_LAYER,
    parse_arguments,
    printable,
    show,
    unknown_tool_message,
)

__all__ = ["adispatch", "dispatch"]

JSONDict = dict[str, Any]
logger = logging.getLogger("zenbrain.tools")

# --------------------------------------------------------------------------------- dispatch

# A tool call is written once, as a generator: it yields (coordinator method, keyword
# arguments), receives that method's return value, and finally returns the JSON result.
# dispatch() drives it with the sync methods, adispatch() with their async twins.
_Calls = Generator[tuple[str, JSONDict], Any, JSONDict]


def _store(args: JSONDict) -> _Calls:
    kwargs = {key: value for key, value in args.items() if key != "type"}
    kwargs["layer"] = STORE_TYPE_TO_LAYER[args.get("type", "auto")]
    memory_id = yield "store", kwargs
    # Tell the model where routing put it: forget needs the layer as well as the id.
    stored = yield "get", {"id": memory_id}
    return {"id": str(memory_id), "layer": stored.layer if stored is not None else None}


def _recall(args: JSONDict) -> _Calls:
    results = yield "recall", dict(args)
    rendered = [result.to_dict() for result in results]
    return {"count": len(rendered), "results": rendered}


def _forget(args: JSONDict) -> _Calls:
    outcome = yield "forget", {"id": args["id"], "layer": args["layer"]}
    return outcome.to_dict()


def _report(method: str) -> Callable[[JSONDict], _Calls]:
    def calls(_args: JSONDict) -> _Calls:
        report = yield method, {}
        return report.to_dict()

    return calls


_CALLS: dict[str, Callable[[JSONDict], _Calls]] = {
    "zenbrain_store": _store,
    "zenbrain_recall": _recall,
    "zenbrain_forget": _forget,
    "zenbrain_consolidate": _report("consolidate"),
    "zenbrain_health": _report("health"),
}


def _error(type_name: str, message: str) -> JSONDict:
    return {"error": {"type": type_name, "message": printable(message)}}


def _failure(exc: Exception, name: object) -> JSONDict:
    if isinstance(exc, ZenbrainError):
        return _error(type(exc).__name__, str(exc))
    # Not a refusal but a fault (a driver error, a bug): still an answer the model can read,
    # and the traceback goes to the log for whoever runs the process.
    logger.exception("zenbrain tool %s failed", show(name))
    return _error(type(exc).__name__, f"The tool failed unexpectedly: {exc}")


def _bound(coordinator: Any, namespace: str | None) -> Any:
    # The coordinator keeps its namespace views (one per namespace, bounded), so a user's
    # working memory survives from one call to the next.
    return coordinator if namespace is None else coordinator.for_namespace(namespace)


async def _abound(coordinator: Any, namespace: str | None) -> Any:
    if namespace is None:
        return coordinator
    return await asyncio.to_thread(coordinator.for_namespace, namespace)


def _prepare(name: str, arguments: str | Mapping[str, Any] | None) -> _Calls | JSONDict:
    """The calls to make, or the error result saying why there are none."""
    if not isinstance(name, str) or name not in _CALLS:
        return _error("UnknownToolError", unknown_tool_message(name))
    try:
        checked = parse_arguments(name, arguments).arguments()
    except Exception as exc:
        return _failure(exc, name)
    return _CALLS[name](checked)


def dispatch(
    coordinator: Any,
    name: str,
    arguments: str | Mapping[str, Any] | None = None,
    *,
    namespace: str | None = None,
) -> JSONDict:
    """Run the tool ``name`` with ``arguments`` (a JSON string or a mapping) against
    ``coordinator`` (in ``namespace`` of its store, when given) and return its JSON-ready
    result. Never raises: an unknown tool, bad arguments, a :class:`ZenbrainError` or any
    other exception comes back as ``{"error": {"type", "message"}}``."""
    calls = _prepare(name, arguments)
    if isinstance(calls, dict):
        return calls
    try:
        memory = _bound(coordinator, namespace)
        method, kwargs = next(calls)
        while True:
            method, kwargs = calls.send(getattr(memory, method)(**kwargs))
    except StopIteration as finished:
        result: JSONDict = finished.value
        return result
    except Exception as exc:
        return _failure(exc, name)


async def adispatch(
    coordinator: Any,
    name: str,
    arguments: str | Mapping[str, Any] | None = None,
    *,
    namespace: str | None = None,
) -> JSONDict:
    """Async twin of :func:`dispatch`: awaits the coordinator's ``a``-prefixed methods, so
    the event loop is never blocked. Never raises either (cancellation still propagates)."""
    calls = _prepare(name, arguments)
    if isinstance(calls, dict):
        return calls
    try:
        memory = await _abound(coordinator, namespace)
        method, kwargs = next(calls)
        while True:
            method, kwargs = calls.send(await getattr(memory, "a" + method)(**kwargs))
    except StopIteration as finished:
        result: JSONDict = finished.value
        return result
    except Exception as exc:
        return _failure(exc, name)
