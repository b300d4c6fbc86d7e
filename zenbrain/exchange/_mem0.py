"""mem0's memories in: what ``Memory.get_all()`` / ``MemoryClient.get_all()`` return
(``{"results": [...]}``, a plain list, or ``{"memories": [...]}``) saved as JSON.

Each memory becomes a semantic fact: ``memory`` its content, ``created_at``/``updated_at``
its times, its ``metadata`` kept, with mem0's ``id``, ``hash``, ``categories`` and scope
(``user_id``, ``agent_id``, ``run_id``, ``actor_id``, ``role``) added to it under
``mem0_*`` keys.
"""

from __future__ import annotations

from typing import Any

from zenbrain.errors import InvalidInputError
from zenbrain.exchange._build import Builder, foreign_time

__all__ = ["looks_like_mem0", "read_mem0"]

_SCOPE = ("user_id", "agent_id", "run_id", "actor_id", "role", "app_id")


def _items(data: object) -> list[Any] | None:
    if isinstance(data, list):
        return data
    if isinstance(data, dict):
        for key in ("results", "memories"):
            if isinstance(data.get(key), list):
                return list(data[key])
    return None


def looks_like_mem0(data: object) -> bool:
    items = _items(data)
    return bool(items) and all(isinstance(i, dict) and "memory" in i for i in items[:5])  # type: ignore[index]


def read_mem0(data: object, builder: Builder, name: str) -> None:
    items = _items(data)
    if items is None:
        raise InvalidInputError(
            f'{name}: expected mem0\'s get_all() JSON, {{"results": [...]}} or a list of '
            f"memories, got {type(data).__name__}"
        )
    for position, item in enumerate(items):
        where = f"{name} results[{position}]"
        if not isinstance(item, dict):
            raise InvalidInputError(f"{where}: expected an object, got {type(item).__name__}")
        if not isinstance(item.get("memory"), str):
            raise InvalidInputError(
                f"{where}: field 'memory': expected the memory's text, got {item.get('memory')!r}"
            )
        metadata = item.get("metadata") or {}
        if not isinstance(metadata, dict):
            raise InvalidInputError(f"{where}: field 'metadata': expected an object")
        extra = {f"mem0_{key}": item[key] for key in ("id", "hash", *_SCOPE) if item.get(key)}
        if item.get("categories"):
            extra["mem0_categories"] = item["categories"]
        builder.memory(
            where,
            "semantic",
            item["memory"],
            created_at=foreign_time(item.get("created_at"), where, "created_at"),
            updated_at=foreign_time(item.get("updated_at"), where, "updated_at"),
            metadata={**metadata, **extra},
        )
