"""The namespace package exposes exactly what __all__ names, beside llama-index-core."""

from __future__ import annotations

from pathlib import Path

import llama_index.core
import llama_index.memory.zenbrain as package

PACKAGE_ROOT = Path(__file__).resolve().parents[1]


def test_all_names_the_public_api() -> None:
    assert set(package.__all__) == {
        "LlamaIndexEmbedding",
        "LlamaIndexSummarizer",
        "ZenBrainChatStore",
        "ZenBrainMemoryBlock",
        "zenbrain_tool",
        "zenbrain_tools",
    }
    for name in package.__all__:
        assert getattr(package, name) is not None


def test_namespace_packages_stay_open() -> None:
    # llama_index and llama_index.memory belong to every integration: no __init__.py there.
    assert not (PACKAGE_ROOT / "llama_index" / "__init__.py").exists()
    assert not (PACKAGE_ROOT / "llama_index" / "memory" / "__init__.py").exists()
    assert llama_index.core.__file__ is not None
