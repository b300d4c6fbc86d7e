"""The public surface is explicit: every name in ``__all__`` exists, nothing public is
left out, and the documented modules each declare their own ``__all__``."""

from __future__ import annotations

import importlib
import inspect
from pathlib import Path

import pytest

import zenbrain

MODULES = [
    "zenbrain",
    "zenbrain.errors",
    "zenbrain.types",
    "zenbrain.config",
    "zenbrain.providers",
    "zenbrain.providers.wrapped",
    "zenbrain.layers",
    "zenbrain.stages",
    "zenbrain.inspection",
    "zenbrain.tools",
    "zenbrain.testing",
    "zenbrain.testing.contract",
    "zenbrain.cli",
    "zenbrain.remote",  # needs httpx only when a RemoteMemory is made
]  # zenbrain.server needs the server extra: tests/server/test_remote_surface.py
"""The public modules: what users and the integrations import. Every other module of the
package (storage, the pipelines, ranking, the algorithms) is internal and may change."""

# Public too, behind the server extra (tests/server checks their surface).
SERVER_MODULES = ["zenbrain.server", "zenbrain.server.keys"]

ROOT = Path(zenbrain.__file__).parent.parent
ADAPTERS = [
    path
    for path in [
        *(ROOT / "integrations").glob("*/**/*.py"),
        *(ROOT / "zenbrain" / "cli").glob("*.py"),
    ]
    if "tests" not in path.parts
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
        "EncryptionKeyError",
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


def test_the_public_surface_is_short() -> None:
    assert len(MODULES) <= 14
    assert not [name for name in MODULES if name.startswith("zenbrain.storage")]
    storage = importlib.import_module("zenbrain.storage")
    assert storage.__all__ == []  # internal: users reach the store through the coordinator


def _imported_modules(path: Path) -> set[str]:
    import ast

    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
    return {name for name in found if name == "zenbrain" or name.startswith("zenbrain.")}


def test_adapters_and_the_cli_use_only_the_public_surface() -> None:
    """Integrations import public modules only; the CLI its own modules and public ones;
    neither reaches into the store through ``coordinator.database``."""
    assert len(ADAPTERS) > 20  # the integrations' packages and the CLI were found
    for path in ADAPTERS:
        own = "zenbrain.cli" if path.parent.name == "cli" else None
        private = {
            name
            for name in _imported_modules(path)
            if name not in MODULES
            and name not in SERVER_MODULES
            and not (own and name.startswith(own))
        }
        assert private == set(), f"{path.relative_to(ROOT)} imports {sorted(private)}"
        source = path.read_text(encoding="utf-8")
        assert ".database" not in source, f"{path.relative_to(ROOT)} uses coordinator.database"
