"""zenbrain: seven-layer memory for LLM agents.

>>> from zenbrain import MemoryCoordinator
>>> with MemoryCoordinator(":memory:") as memory:
...     _ = memory.store("The deploy script lives in ops/deploy.sh")
...     memory.recall("deploy script")[0].layer
'semantic'

The names below load on first use (PEP 562), so ``import zenbrain.config`` or the
``zenbrain`` command does not pay for SQLAlchemy and numpy until a store is opened.
"""

from __future__ import annotations

import importlib
import typing
from typing import TYPE_CHECKING

__version__ = "0.1.0"  # the one place the version is written (pyproject reads it via hatch)

if TYPE_CHECKING:
    from zenbrain._coordinator import DEFAULT_CONTEXTS, MemoryCoordinator
    from zenbrain.errors import (
        DatabaseNotWritableError,
        EmbeddingMismatchError,
        EncryptionKeyError,
        InvalidInputError,
        MissingDependencyError,
        ProviderError,
        SchemaVersionError,
        StorageError,
        StoreNotFoundError,
        UnknownLayerError,
        ZenbrainError,
    )
    from zenbrain.operations import RecallQuery, StoreItem
    from zenbrain.providers import EmbeddingProvider, Resolver, Summarizer
    from zenbrain.types import (
        ALL_LAYERS,
        DEFAULT_RECALL_LAYERS,
        ConsolidationReport,
        CoreBlock,
        ForgetResult,
        Health,
        Interaction,
        Layer,
        Procedure,
        RecallResult,
        ReviewItem,
        ScoreParts,
    )

_SOURCES = {
    "zenbrain._coordinator": ("DEFAULT_CONTEXTS", "MemoryCoordinator"),
    "zenbrain.errors": (
        "DatabaseNotWritableError",
        "EmbeddingMismatchError",
        "EncryptionKeyError",
        "InvalidInputError",
        "MissingDependencyError",
        "ProviderError",
        "SchemaVersionError",
        "StorageError",
        "StoreNotFoundError",
        "UnknownLayerError",
        "ZenbrainError",
    ),
    "zenbrain.operations": ("RecallQuery", "StoreItem"),
    "zenbrain.providers._base": ("EmbeddingProvider", "Resolver", "Summarizer"),
    "zenbrain.types": (
        "ALL_LAYERS",
        "DEFAULT_RECALL_LAYERS",
        "ConsolidationReport",
        "CoreBlock",
        "ForgetResult",
        "Health",
        "Interaction",
        "Layer",
        "Procedure",
        "RecallResult",
        "ReviewItem",
        "ScoreParts",
    ),
}
_MODULE_OF = {name: module for module, names in _SOURCES.items() for name in names}

__all__ = [
    "ALL_LAYERS",
    "DEFAULT_CONTEXTS",
    "DEFAULT_RECALL_LAYERS",
    "ConsolidationReport",
    "CoreBlock",
    "DatabaseNotWritableError",
    "EmbeddingMismatchError",
    "EmbeddingProvider",
    "EncryptionKeyError",
    "ForgetResult",
    "Health",
    "Interaction",
    "InvalidInputError",
    "Layer",
    "MemoryCoordinator",
    "MissingDependencyError",
    "Procedure",
    "ProviderError",
    "RecallQuery",
    "RecallResult",
    "Resolver",
    "ReviewItem",
    "SchemaVersionError",
    "ScoreParts",
    "StorageError",
    "StoreItem",
    "StoreNotFoundError",
    "Summarizer",
    "UnknownLayerError",
    "ZenbrainError",
    "__version__",
]


def __getattr__(name: str) -> typing.Any:
    module = _MODULE_OF.get(name)
    if module is None:
        raise AttributeError(f"module 'zenbrain' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value  # later lookups skip this function
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
