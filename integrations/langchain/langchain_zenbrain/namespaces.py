"""How a tuple of labels (a LangGraph namespace, or a user id from the runtime context)
names a zenbrain namespace under a coordinator's own.

``("users", "ada")`` under the coordinator namespace ``"default"`` is ``"default.users.ada"``.
Labels may not contain ``.`` (LangGraph forbids it too), so the name is unambiguous; ``%``
and ``.`` in the coordinator's namespace are percent-encoded. The store and the agent
middleware share this mapping, so a middleware's memories of user ``ada`` are the ones
``ZenBrainStore(coordinator).coordinator_for(("users", "ada"))`` sees.
"""

from __future__ import annotations

from collections.abc import Sequence

from zenbrain.errors import InvalidInputError

__all__ = ["MAX_NAMESPACE_CHARS", "SEPARATOR", "check_labels", "labels_of", "root_of", "under"]

SEPARATOR = "."
MAX_NAMESPACE_CHARS = 200


def root_of(coordinator_namespace: str) -> str:
    """The coordinator's namespace as the first part of every name below it."""
    return coordinator_namespace.replace("%", "%25").replace(".", "%2E")


def check_labels(labels: Sequence[object]) -> None:
    """Raise ``InvalidInputError`` unless every label is a non-empty string without ``.``
    or NUL bytes."""
    for label in labels:
        if not isinstance(label, str) or not label or SEPARATOR in label or "\x00" in label:
            raise InvalidInputError(
                f"Invalid namespace label {label!r} in {tuple(labels)}: labels must be "
                "non-empty strings without periods or NUL bytes."
            )


def under(root: str, labels: Sequence[str]) -> str:
    """The zenbrain namespace for ``labels`` below ``root`` (see :func:`root_of`)."""
    check_labels(labels)
    name = SEPARATOR.join((root, *labels))
    if len(name) > MAX_NAMESPACE_CHARS:
        raise InvalidInputError(
            f"The namespace {tuple(labels)} maps to the zenbrain namespace {name!r} of "
            f"{len(name)} characters; zenbrain allows at most {MAX_NAMESPACE_CHARS}."
        )
    return name


def labels_of(root: str, name: str) -> tuple[str, ...] | None:
    """The labels of a zenbrain namespace below ``root``, or None for any other name."""
    head = root + SEPARATOR
    if not name.startswith(head):
        return None
    return tuple(name[len(head) :].split(SEPARATOR))
