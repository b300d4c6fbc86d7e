"""Standard input for the SDK's stdio transport, safe from lone surrogates.

JSON allows ``"\\ud800"`` (half of a surrogate pair) and JavaScript clients send it when a
string is cut mid-emoji, but the SDK's message parser refuses such a line and the request
is never answered: the client waits forever. Each line is therefore checked here first. A
``tools/call`` whose arguments hold a lone surrogate has its arguments packed, as ASCII JSON
text, under :data:`PACKED_ARGUMENTS`; :func:`unpack_arguments` restores them in the tool
handler, so zenbrain's validation answers with its documented ``{"error": ...}`` result. In
any other message a lone surrogate becomes U+FFFD, the replacement character.
"""

from __future__ import annotations

import json
import re
from collections.abc import AsyncIterable, AsyncIterator, Mapping
from typing import Any

__all__ = ["PACKED_ARGUMENTS", "SurrogateSafeLines", "unpack_arguments"]

#: The single argument under which a call's surrogate-bearing arguments travel.
PACKED_ARGUMENTS = "zenbrain_mcp_packed_arguments"

# A \\uD800-\\uDFFF escape: only lines with one can hold a lone surrogate.
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def _has_lone_surrogate(value: Any) -> bool:
    return bool(_LONE_SURROGATE.search(json.dumps(value, ensure_ascii=False)))


def _replace_lone_surrogates(value: Any) -> Any:
    if isinstance(value, str):
        return _LONE_SURROGATE.sub("\ufffd", value)
    if isinstance(value, list):
        return [_replace_lone_surrogates(item) for item in value]
    if isinstance(value, dict):
        return {
            _replace_lone_surrogates(key): _replace_lone_surrogates(item)
            for key, item in value.items()
        }
    return value


def make_safe(line: str) -> str:
    """``line`` unchanged, or rewritten so that it holds no lone surrogate."""
    if not _SURROGATE_ESCAPE.search(line):
        return line
    try:
        message = json.loads(line)
    except ValueError:
        return line  # not JSON: the SDK reports that itself
    if not _has_lone_surrogate(message):
        return line  # only proper surrogate pairs
    params = message.get("params") if isinstance(message, dict) else None
    if (
        message.get("method") == "tools/call"
        and isinstance(params, dict)
        and isinstance(params.get("arguments"), dict)
        and _has_lone_surrogate(params["arguments"])
    ):
        params["arguments"] = {PACKED_ARGUMENTS: json.dumps(params["arguments"])}
    return json.dumps(_replace_lone_surrogates(message), ensure_ascii=False)


def unpack_arguments(arguments: Mapping[str, Any] | None) -> Mapping[str, Any] | None:
    """The arguments as the client sent them, for arguments packed by :func:`make_safe`."""
    if arguments is None or set(arguments) != {PACKED_ARGUMENTS}:
        return arguments
    packed = arguments[PACKED_ARGUMENTS]
    if not isinstance(packed, str):
        return arguments
    try:
        unpacked = json.loads(packed)
    except ValueError:
        return arguments
    return unpacked if isinstance(unpacked, dict) else arguments


class SurrogateSafeLines:
    """An async iterable of lines (what ``stdio_server(stdin=...)`` reads), each passed
    through :func:`make_safe`."""

    def __init__(self, lines: AsyncIterable[str]) -> None:
        self._lines = lines

    async def __aiter__(self) -> AsyncIterator[str]:
        async for line in self._lines:
            yield make_safe(line)
