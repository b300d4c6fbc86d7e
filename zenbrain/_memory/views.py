"""Namespace views: one coordinator per namespace of a store, kept in one bounded cache.

:meth:`~zenbrain.MemoryCoordinator.for_namespace` hands out views from here, so every caller
(the tools, each integration, the CLI) asking for a namespace gets the same object, and with
it the same working memory, from one call to the next. The coordinator that opened the store
is pinned under its own namespace; the other views are kept for the
:data:`VIEWS_KEPT` most recently used namespaces. A view pushed out stays usable by whoever
still holds it, but the next ``for_namespace`` of its namespace makes a new one (with an
empty working memory; long-term memory is in the store and shared by both).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable
from typing import Generic, TypeVar

__all__ = ["VIEWS_KEPT", "NamespaceViews"]

VIEWS_KEPT = 128
"""Views of other namespaces kept per store, most recently used first."""

View = TypeVar("View")


class NamespaceViews(Generic[View]):
    """The views of one store's namespaces: a pinned opener and an LRU of the others."""

    def __init__(self, kept: int = VIEWS_KEPT) -> None:
        self.kept = kept
        self._pinned: dict[str, View] = {}
        self._recent: OrderedDict[str, View] = OrderedDict()
        self._lock = threading.Lock()

    def pin(self, namespace: str, view: View) -> None:
        """Keep ``view`` for ``namespace`` for as long as the store is open."""
        with self._lock:
            self._pinned[namespace] = view
            self._recent.pop(namespace, None)

    def get(self, namespace: str, make: Callable[[], View]) -> View:
        """The view of ``namespace``, made by ``make()`` (outside the lock) the first time."""
        with self._lock:
            found = self._pinned.get(namespace, self._recent.get(namespace))
            if found is not None:
                if namespace in self._recent:
                    self._recent.move_to_end(namespace)
                return found
        made = make()
        with self._lock:  # another thread may have made one meanwhile: keep the first
            view = self._pinned.get(namespace)
            if view is None:
                view = self._recent.setdefault(namespace, made)
                self._recent.move_to_end(namespace)
            while len(self._recent) > self.kept:
                self._recent.popitem(last=False)
        return view

    def __len__(self) -> int:
        with self._lock:
            return len(self._pinned) + len(self._recent)
