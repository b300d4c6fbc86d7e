"""A namespace's subtree in SQL: the namespace itself and every namespace that starts with
it followed by ``"."`` (``"a.b"`` holds ``"a.b"`` and ``"a.b.c"``, never ``"a.bc"``, ``"a"``
or a sibling). One condition, the same on SQLite and PostgreSQL."""

from __future__ import annotations

from typing import Any

from sqlalchemy import ColumnElement, func, or_

__all__ = ["SEPARATOR", "in_subtree"]

SEPARATOR = "."


def in_subtree(column: ColumnElement[Any], namespace: str) -> ColumnElement[bool]:
    """``column`` is ``namespace`` or a namespace below it.

    LIKE (with ``\\``, ``%`` and ``_`` escaped) narrows the rows; SQLite's LIKE ignores ASCII
    case, so the exact leading characters are compared as well."""
    head = namespace + SEPARATOR
    escaped = head.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    below = column.like(escaped + "%", escape="\\") & (func.substr(column, 1, len(head)) == head)
    return or_(column == namespace, below)
