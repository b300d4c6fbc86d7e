"""The public surface is explicit: every name in ``__all__`` exists, nothing public is
left out, and the documented modules each declare their own ``__all__``."""

from __future__ import annotations

import importlib
import inspect

import pytest

import zenbrain

MODULES = [
    "zenbrain",
    "zenbrain.errors",
    "zenbrain.types",
    "zenbrain.text",
    "zenbrain.ranking",
    "zenbrain.coordinator",
    "zenbrain.cli",
    "zenbrain.providers",
    "zenbrain.providers.wrapped",
    "zenbrain.tools",
    "zenbrain.stages",
    "zenbrain.testing",
    "zenbrain.testing.fakes",
    "zenbrain.testing.postgres",
    "zenbrain.testing.contract",
    "zenbrain.algorithms",
    "zenbrain.layers",
    "zenbrain.layers.working",
    "zenbrain.layers.short_term",
    "zenbrain.layers.episodic",
    "zenbrain.layers.semantic",
    "zenbrain.layers.procedural",
    "zenbrain.layers.core",
    "zenbrain.layers.cross_context",
    "zenbrain.layers.routing",
    "zenbrain.storage.schema",
    "zenbrain.storage.database",
    "zenbrain.storage.indexes",
]


@pytest.mark.parametrize("name", MODULES)
def test_module_declares_all_and_every_name_exists(name: str) -> None:
    module = importlib.import_module(name)
    exported = module.__all__
    assert len(exported) == len(set(exported)), "duplicates in __all__"
    for symbol in exported:
        assert hasattr(module, symbol), f"{name}.__all__ names missing {symbol}"


def test_top_level_exports() -> None:
    expected = {
        "MemoryCoordinator",
        "RecallResult",
        "ForgetResult",
        "ConsolidationReport",
        "Health",
        "ReviewItem",
        "CoreBlock",
        "Interaction",
        "EmbeddingProvider",
        "Summarizer",
        "Resolver",
        "ZenbrainError",
        "InvalidInputError",
        "UnknownLayerError",
        "StorageError",
        "DatabaseNotWritableError",
        "SchemaVersionError",
        "EmbeddingMismatchError",
        "ProviderError",
        "MissingDependencyError",
    }
    assert expected <= set(zenbrain.__all__)
    public_classes = {
        n for n, v in vars(zenbrain).items() if inspect.isclass(v) and not n.startswith("_")
    }
    assert public_classes <= set(zenbrain.__all__), public_classes - set(zenbrain.__all__)


def test_every_sync_method_has_an_async_twin() -> None:
    cls = zenbrain.MemoryCoordinator
    sync = [
        "store", "store_many", "recall", "forget", "consolidate", "health", "review_queue",
        "record_review", "procedure_feedback", "set_core_block", "core_blocks",
        "delete_core_block", "core_context", "start_session", "add_interaction",
        "conversation", "pop_interaction", "clear_session", "get", "embed_missing",
    ]  # fmt: skip
    for name in sync:
        assert inspect.iscoroutinefunction(getattr(cls, "a" + name)), name


def test_version() -> None:
    assert zenbrain.__version__.count(".") == 2
