"""zenbrain: seven-layer memory for LLM agents.

>>> from zenbrain import MemoryCoordinator
>>> with MemoryCoordinator(":memory:") as memory:
...     _ = memory.store("The deploy script lives in ops/deploy.sh")
...     memory.recall("deploy script")[0].layer
'semantic'
"""

from zenbrain.coordinator import DEFAULT_CONTEXTS, MemoryCoordinator
from zenbrain.errors import (
    DatabaseNotWritableError,
    EmbeddingMismatchError,
    InvalidInputError,
    MissingDependencyError,
    ProviderError,
    SchemaVersionError,
    StorageError,
    StoreNotFoundError,
    UnknownLayerError,
    ZenbrainError,
)
from zenbrain.providers.base import EmbeddingProvider, Summarizer
from zenbrain.types import (
    ALL_LAYERS,
    DEFAULT_RECALL_LAYERS,
    ConsolidationReport,
    CoreBlock,
    ForgetResult,
    Health,
    Interaction,
    Layer,
    RecallResult,
    ReviewItem,
)

__version__ = "0.1.0"

__all__ = [
    "ALL_LAYERS",
    "DEFAULT_CONTEXTS",
    "DEFAULT_RECALL_LAYERS",
    "ConsolidationReport",
    "CoreBlock",
    "DatabaseNotWritableError",
    "EmbeddingMismatchError",
    "EmbeddingProvider",
    "ForgetResult",
    "Health",
    "Interaction",
    "InvalidInputError",
    "Layer",
    "MemoryCoordinator",
    "MissingDependencyError",
    "ProviderError",
    "RecallResult",
    "ReviewItem",
    "SchemaVersionError",
    "StorageError",
    "StoreNotFoundError",
    "Summarizer",
    "UnknownLayerError",
    "ZenbrainError",
    "__version__",
]
