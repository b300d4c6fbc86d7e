"""A dependency-free embedder built from hashed words and character n-grams.

Each text is folded and split into words the way the lexical ranking does it (lower case,
German umlauts transliterated, accents stripped; stopwords kept: :func:`zenbrain.text.words`).
Every token adds two things to the vector:

* the token itself, hashed into one signed bucket with weight 1, and
* its character 3- and 4-grams (of the token padded as ``<token>``), each hashed into a
  signed bucket, together scaled to about the weight of the token.

The n-grams are why "memory" and "memories", or two Japanese sentences sharing most
characters, land close together; the sign bit keeps unrelated collisions from adding up.
Hashing uses BLAKE2b, never Python's per-process salted ``hash``, so a vector is the same in
every process and on every machine: stores written with it can be reopened.

It knows nothing of meaning ("car" and "automobile" share nothing), so it is for tests,
demos and as a reproducible baseline, not a replacement for a real embedding model.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Sequence
from functools import lru_cache

import numpy as np

from zenbrain.providers._vectors import (
    EmbeddingMatrix,
    as_text_list,
    check_dimension,
    l2_normalise_rows,
)
from zenbrain.text import words

__all__ = ["HashingEmbedder"]

_NGRAM_SIZES = (3, 4)
# Bump when the features or weights change: the version is part of model_id, so stores
# written by an older recipe are refused instead of being compared with different vectors.
_RECIPE_VERSION = 1


@lru_cache(maxsize=1 << 16)
def _feature_hash(feature: str) -> int:
    return int.from_bytes(hashlib.blake2b(feature.encode("utf-8"), digest_size=8).digest(), "big")


def _char_ngrams(token: str) -> list[str]:
    padded = f"<{token}>"
    grams: list[str] = []
    for size in _NGRAM_SIZES:
        grams.extend(padded[i : i + size] for i in range(len(padded) - size + 1))
    return grams


class HashingEmbedder:
    """Deterministic feature-hashing embedder; L2-normalised float32 rows.

    ``dimension`` is the number of hash buckets (default 256). A text without any letter or
    digit gets the zero vector, which is similar to nothing.
    """

    def __init__(self, dimension: int = 256) -> None:
        self._dimension = check_dimension(dimension, minimum=2)

    @property
    def model_id(self) -> str:
        return f"zenbrain-hashing-v{_RECIPE_VERSION}-{self._dimension}"

    @property
    def dimension(self) -> int:
        return self._dimension

    def embed_documents(self, texts: Sequence[str]) -> EmbeddingMatrix:
        return self._embed(as_text_list(texts))

    def embed_queries(self, texts: Sequence[str]) -> EmbeddingMatrix:
        return self._embed(as_text_list(texts))

    def __repr__(self) -> str:
        return f"{type(self).__name__}(dimension={self._dimension})"

    def _embed(self, texts: list[str]) -> EmbeddingMatrix:
        matrix = np.zeros((len(texts), self._dimension), dtype=np.float64)
        for row, text in enumerate(texts):
            self._add_features(matrix[row], text)
        return l2_normalise_rows(matrix)

    def _add_features(self, vector: np.ndarray, text: str) -> None:
        for token in words(text):
            self._add(vector, f"w:{token}", 1.0)
            grams = _char_ngrams(token)
            # Scale so a token's n-grams weigh about as much as the token, however long it is.
            gram_weight = 1.0 / math.sqrt(len(grams))
            for gram in grams:
                self._add(vector, f"g:{gram}", gram_weight)

    def _add(self, vector: np.ndarray, feature: str, weight: float) -> None:
        hashed = _feature_hash(feature)
        bucket = hashed % self._dimension
        sign = 1.0 if (hashed >> 63) & 1 else -1.0
        vector[bucket] += sign * weight
