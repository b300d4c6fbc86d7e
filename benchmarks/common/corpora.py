"""The two corpora of the scale and speed benchmarks, by the name ``--corpus`` gives them.

``synthetic`` (:mod:`benchmarks.common.synthetic_corpus`): Zipf-distributed sentences;
``locomo`` (:mod:`benchmarks.common.locomo_corpus`): LoCoMo's turns, then seeded variations.
Both come with precomputed vectors, so no embedder's speed hides a store's.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from benchmarks.common.synthetic_corpus import Corpus

__all__ = ["CORPORA", "corpus_label", "make_corpus_of"]

CORPORA: tuple[str, ...] = ("synthetic", "locomo")
_LABELS = {"synthetic": "synthetic", "locomo": "LoCoMo-derived"}


def make_corpus_of(kind: str, memories: int, queries: int, **options: Any) -> Corpus:
    """``memories`` memories and ``queries`` queries of corpus ``kind``, with their vectors
    (``options``: ``extra``, ``seed``, ``dimension``, as both makers take them)."""
    if kind == "locomo":
        from benchmarks.common.locomo_corpus import make_locomo_corpus

        return make_locomo_corpus(memories, queries, **options)
    if kind == "synthetic":
        from benchmarks.common.synthetic_corpus import make_corpus

        return make_corpus(memories, queries, **options)
    raise ValueError(f"unknown corpus {kind!r}; choose from {', '.join(CORPORA)}")


def corpus_label(kind: str) -> str:
    """How a report names the corpus: ``LoCoMo-derived`` or ``synthetic``."""
    return _LABELS[kind]
