"""The exceptions zenbrain raises.

Every error derives from :class:`ZenbrainError`, so ``except ZenbrainError`` catches all of
them. Messages say what was expected, what came, and how to fix it::

    ZenbrainError
    ├── InvalidInputError (also a ValueError)     bad content, layer, weight, grade, id ...
    │   └── UnknownLayerError                     a layer name that is not one of the seven
    ├── StorageError                              the database could not be used
    │   ├── DatabaseNotWritableError              the path cannot be created or written
    │   ├── StoreNotFoundError                    no store at the path a read was asked of
    │   └── SchemaVersionError                    the file was written by a newer zenbrain
    ├── EmbeddingMismatchError                    store and embedder disagree on model/dimension
    ├── ProviderError                             an embedding provider or summariser failed
    └── MissingDependencyError (also ImportError) an optional extra is not installed
"""

from __future__ import annotations

__all__ = [
    "DatabaseNotWritableError",
    "EmbeddingMismatchError",
    "InvalidInputError",
    "MissingDependencyError",
    "ProviderError",
    "SchemaVersionError",
    "StorageError",
    "StoreNotFoundError",
    "UnknownLayerError",
    "ZenbrainError",
]


class ZenbrainError(Exception):
    """Base class of every error zenbrain raises on purpose."""


class InvalidInputError(ZenbrainError, ValueError):
    """An argument is out of range or of the wrong kind; nothing was changed."""


class UnknownLayerError(InvalidInputError):
    """A layer name is not one of the seven layers (or not valid for this call)."""


class StorageError(ZenbrainError):
    """The database could not be opened, read or written."""


class DatabaseNotWritableError(StorageError):
    """The database path cannot be created or written."""


class StoreNotFoundError(StorageError):
    """No zenbrain store at the path given to a command that only reads (nothing was created)."""


class SchemaVersionError(StorageError):
    """The store's schema version is newer than this release understands."""


class EmbeddingMismatchError(ZenbrainError):
    """The store was embedded with a different model or dimension than the embedder given."""


class ProviderError(ZenbrainError):
    """An embedding provider or summariser failed (network, HTTP status, bad response)."""


class MissingDependencyError(ZenbrainError, ImportError):
    """An optional dependency is missing; the message names the ``pip install`` line."""


def require(module: str, extra: str, feature: str) -> object:
    """Import ``module`` or raise :class:`MissingDependencyError` naming the extra to install."""
    import importlib

    try:
        return importlib.import_module(module)
    except ImportError as exc:  # pragma: no cover - exercised via subclasses' tests
        raise MissingDependencyError(
            f"{feature} needs the optional dependency {module!r}, which is not installed. "
            f"Install it with: pip install 'zenbrain[{extra}]'"
        ) from exc
