"""The exceptions zenbrain raises.

Every error derives from :class:`ZenbrainError`, so ``except ZenbrainError`` catches all of
them. Messages say what was expected, what came, and how to fix it::

    ZenbrainError
    ├── InvalidInputError (also a ValueError)     bad content, layer, weight, grade, id ...
    │   └── UnknownLayerError                     a layer name that is not one of the seven
    ├── StorageError                              the database could not be used
    │   ├── DatabaseNotWritableError              the path cannot be created or written
    │   ├── StoreNotFoundError                    no store at the path a read was asked of
    │   ├── EncryptionKeyError                    an encrypted store's key is missing or wrong
    │   └── SchemaVersionError                    the file was written by a newer zenbrain
    ├── EmbeddingMismatchError                    store and embedder disagree on model/dimension
    ├── ProviderError                             an embedding provider or summariser failed
    ├── MissingDependencyError (also ImportError) an optional extra is not installed
    └── RemoteError                               the HTTP server (zenbrain serve) said no
        ├── NotFoundError                         no such memory, block or route there
        ├── AccessDeniedError                     no API key, a wrong one, another namespace
        └── RequestTooLargeError                  the request body is over the server's limit

What the public API raises: for any argument *value* (wrong type, NaN, text with NUL or
lone surrogates, huge or deeply nested data, dates out of range), only these errors, and a
rejected call changes nothing. The one Python error left to Python is the ``TypeError`` of
a call that does not fit the signature (an unknown keyword, a missing argument), which is
raised before zenbrain runs. Messages quote at most about 80 characters of a value; a
message is never longer than :data:`MAX_MESSAGE_CHARS`.
"""

from __future__ import annotations

__all__ = [
    "MAX_MESSAGE_CHARS",
    "AccessDeniedError",
    "DatabaseNotWritableError",
    "EmbeddingMismatchError",
    "EncryptionKeyError",
    "InvalidInputError",
    "MissingDependencyError",
    "NotFoundError",
    "ProviderError",
    "RemoteError",
    "RequestTooLargeError",
    "SchemaVersionError",
    "StorageError",
    "StoreNotFoundError",
    "UnknownLayerError",
    "ZenbrainError",
]


MAX_MESSAGE_CHARS = 1_000


class ZenbrainError(Exception):
    """Base class of every error zenbrain raises on purpose."""

    def __init__(self, *args: object) -> None:
        if len(args) == 1 and isinstance(args[0], str) and len(args[0]) > MAX_MESSAGE_CHARS:
            # A safety net: no raise site may echo a huge value back whole.
            message = args[0]
            omitted = len(message) - MAX_MESSAGE_CHARS + 100
            args = (
                f"{message[: MAX_MESSAGE_CHARS - 300]} [... {omitted:,} characters omitted ...] "
                f"{message[-200:]}",
            )
        super().__init__(*args)


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


class EncryptionKeyError(StorageError):
    """An encrypted store was opened without its key or with a wrong one (or a plain store
    with a key); the message names ``ZENBRAIN_KEY`` / ``ZENBRAIN_KEY_FILE`` / ``key=``."""


class SchemaVersionError(StorageError):
    """The store's schema version is newer than this release understands."""


class EmbeddingMismatchError(ZenbrainError):
    """The store was embedded with a different model or dimension than the embedder given."""


class ProviderError(ZenbrainError):
    """An embedding provider or summariser failed (network, HTTP status, bad response)."""


class MissingDependencyError(ZenbrainError, ImportError):
    """An optional dependency is missing; the message names the ``pip install`` line."""


class RemoteError(ZenbrainError):
    """The HTTP server could not be reached, or refused or failed a request
    (:class:`zenbrain.remote.RemoteMemory`); its own errors come back as their classes."""


class NotFoundError(RemoteError):
    """The server has no such memory, core block or route in the namespace asked for."""


class AccessDeniedError(RemoteError):
    """No API key, a wrong or revoked one, or a key that does not open the namespace."""

    def __init__(self, *args: object, status: int = 403) -> None:
        super().__init__(*args)
        self.status = status


class RequestTooLargeError(RemoteError):
    """The request body is larger than the server accepts (``zenbrain serve --max-body``)."""


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
