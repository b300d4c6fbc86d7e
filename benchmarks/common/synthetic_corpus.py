"""Synthetic memories and queries for the scale benchmark, with precomputed vectors.

Texts are sentences whose words follow a Zipf distribution over ranks, the way natural
language does: the top ranks are English function words (which zenbrain's tokenizer drops
as stopwords, like real text), the rest are pronounceable made-up words. Queries are
shorter sentences drawn from the same distribution. Everything is seeded.

Vectors are a fixed random projection of each text's bag of content words (each word has
its own random 384-d direction; a text's vector is the normalised sum), so texts sharing
words are close and the embedder costs nothing at benchmark time. :class:`LookupEmbedder`
serves them to zenbrain and the peers from a dict, falling back to computing the same
projection for a text it has not seen (zenbrain embeds calibration sentences on open).
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from zenbrain.text import tokenize

__all__ = [
    "DEFAULT_DIMENSION",
    "FUNCTION_WORDS",
    "Corpus",
    "LookupEmbedder",
    "WordProjection",
    "make_corpus",
    "make_vocabulary",
]

DEFAULT_DIMENSION = 384
ZIPF_EXPONENT = 1.0
DEFAULT_VOCABULARY = 30_000
MEMORY_WORDS = (8, 24)  # words per memory, inclusive
QUERY_WORDS = (5, 10)
# Function words at the top of the Zipf ranks, roughly in English frequency order. All are
# in zenbrain's stopword list, so, as in real text, they take half the tokens and none of
# the index.
FUNCTION_WORDS = [
    "the",
    "of",
    "and",
    "to",
    "in",
    "is",
    "was",
    "for",
    "that",
    "on",
    "with",
    "as",
    "it",
    "by",
    "at",
    "from",
    "this",
    "be",
    "are",
    "or",
    "have",
    "an",
    "not",
    "but",
    "which",
    "they",
    "you",
    "his",
    "her",
    "were",
    "had",
    "been",
    "their",
    "we",
    "will",
    "would",
    "there",
    "can",
    "could",
    "all",
    "she",
    "he",
    "my",
    "so",
    "if",
    "about",
    "into",
    "than",
    "then",
    "up",
    "out",
    "no",
    "some",
    "just",
    "over",
    "also",
    "more",
    "very",
    "too",
]
_ONSETS = ("b", "d", "f", "g", "k", "l", "m", "n", "p", "r", "s", "t", "v", "z", "br", "st", "tr")
_VOWELS = ("a", "e", "i", "o", "u", "ai", "ou")


def make_vocabulary(size: int, seed: int) -> list[str]:
    """``size`` distinct words: the function words first, then made-up words of 2-4
    syllables (never a stopword, never shorter than four letters)."""
    if size <= len(FUNCTION_WORDS):
        raise ValueError(f"vocabulary size must exceed {len(FUNCTION_WORDS)}, got {size}")
    rng = np.random.default_rng(seed)
    words = list(FUNCTION_WORDS)
    seen = set(words)
    while len(words) < size:
        syllables = int(rng.integers(2, 5))
        word = "".join(
            _ONSETS[rng.integers(len(_ONSETS))] + _VOWELS[rng.integers(len(_VOWELS))]
            for _ in range(syllables)
        )
        if word not in seen and tokenize(word) == [word]:
            seen.add(word)
            words.append(word)
    return words


def _zipf_probabilities(size: int, exponent: float) -> np.ndarray:
    weights = 1.0 / np.arange(1, size + 1, dtype=np.float64) ** exponent
    return weights / weights.sum()


class WordProjection:
    """Each word's fixed random unit direction; a text's vector sums its content words'.

    Known words get rows of one seeded matrix; unknown words a direction seeded by their
    BLAKE2b hash, so any text (even one never generated) has a stable vector.
    """

    def __init__(self, vocabulary: Sequence[str], dimension: int, seed: int) -> None:
        self.dimension = dimension
        self.index = {word: i for i, word in enumerate(vocabulary)}
        rng = np.random.default_rng(seed + 1)
        self.directions = rng.standard_normal((len(vocabulary), dimension)).astype(np.float32)

    def _direction(self, word: str) -> np.ndarray:
        position = self.index.get(word)
        if position is not None:
            return self.directions[position]
        digest = hashlib.blake2b(word.encode("utf-8"), digest_size=8).digest()
        rng = np.random.default_rng(int.from_bytes(digest, "big"))
        return rng.standard_normal(self.dimension).astype(np.float32)

    def embed_text(self, text: str) -> np.ndarray:
        vector = np.zeros(self.dimension, dtype=np.float32)
        for word in tokenize(text):
            vector += self._direction(word)
        norm = float(np.linalg.norm(vector))
        return vector / norm if norm > 0 else vector

    def embed_word_ids(self, rows: Sequence[np.ndarray]) -> np.ndarray:
        """Unit vectors for texts given as arrays of vocabulary positions (content words)."""
        matrix = np.zeros((len(rows), self.dimension), dtype=np.float32)
        for i, ids in enumerate(rows):
            if len(ids):
                matrix[i] = self.directions[ids].sum(axis=0)
        norms = np.linalg.norm(matrix, axis=1, keepdims=True)
        return matrix / np.where(norms == 0, 1.0, norms)


@dataclass
class Corpus:
    """Memories, held-out texts for single-store timing, queries, and all their vectors."""

    memories: list[str]
    extra: list[str]
    queries: list[str]
    memory_vectors: np.ndarray
    extra_vectors: np.ndarray
    query_vectors: np.ndarray
    projection: WordProjection
    seed: int
    table: dict[str, np.ndarray] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not self.table:
            for texts, matrix in (
                (self.memories, self.memory_vectors),
                (self.extra, self.extra_vectors),
                (self.queries, self.query_vectors),
            ):
                self.table.update(zip(texts, matrix, strict=True))

    def embedder(self) -> LookupEmbedder:
        return LookupEmbedder(self.table, self.projection)


class _SentenceMaker:
    def __init__(self, vocabulary: list[str], rng: np.random.Generator) -> None:
        self.vocabulary = vocabulary
        self.rng = rng
        self.probabilities = _zipf_probabilities(len(vocabulary), ZIPF_EXPONENT)
        self.first_content = len(FUNCTION_WORDS)

    def make(self, count: int, lengths: tuple[int, int]) -> tuple[list[str], list[np.ndarray]]:
        sizes = self.rng.integers(lengths[0], lengths[1] + 1, size=count)
        drawn = self.rng.choice(len(self.vocabulary), size=int(sizes.sum()), p=self.probabilities)
        commas = self.rng.random(count) < 0.3
        texts: list[str] = []
        content_ids: list[np.ndarray] = []
        start = 0
        for i, size in enumerate(sizes):
            ids = drawn[start : start + size]
            start += size
            words = [self.vocabulary[w] for w in ids]
            words[0] = words[0].capitalize()
            if commas[i] and size > 6:
                words[size // 2] += ","
            texts.append(" ".join(words) + ".")
            content_ids.append(ids[ids >= self.first_content])
        return texts, content_ids


def make_corpus(
    memories: int,
    queries: int,
    *,
    extra: int = 0,
    seed: int = 7,
    dimension: int = DEFAULT_DIMENSION,
    vocabulary_size: int = DEFAULT_VOCABULARY,
    chunk: int = 50_000,
) -> Corpus:
    """``memories`` memory texts, ``extra`` held-out ones, ``queries`` queries, all vectors.

    One corpus, made for the largest size, serves every size of a run: size ``n`` uses its
    first ``n`` memories. The same arguments always give the same corpus.
    """
    vocabulary = make_vocabulary(vocabulary_size, seed)
    projection = WordProjection(vocabulary, dimension, seed)
    maker = _SentenceMaker(vocabulary, np.random.default_rng(seed + 2))
    query_maker = _SentenceMaker(vocabulary, np.random.default_rng(seed + 3))
    extra_maker = _SentenceMaker(vocabulary, np.random.default_rng(seed + 4))

    def generate(source: _SentenceMaker, count: int, lengths: tuple[int, int]) -> tuple:
        texts: list[str] = []
        blocks: list[np.ndarray] = [np.zeros((0, dimension), dtype=np.float32)]
        for begin in range(0, count, chunk):
            part, ids = source.make(min(chunk, count - begin), lengths)
            texts.extend(part)
            blocks.append(projection.embed_word_ids(ids))
        return texts, np.concatenate(blocks)

    memory_texts, memory_vectors = generate(maker, memories, MEMORY_WORDS)
    extra_texts, extra_vectors = generate(extra_maker, extra, MEMORY_WORDS)
    query_texts, query_vectors = generate(query_maker, queries, QUERY_WORDS)
    return Corpus(
        memories=memory_texts,
        extra=extra_texts,
        queries=query_texts,
        memory_vectors=memory_vectors,
        extra_vectors=extra_vectors,
        query_vectors=query_vectors,
        projection=projection,
        seed=seed,
    )


class LookupEmbedder:
    """An :class:`~zenbrain.providers.EmbeddingProvider` that returns precomputed
    vectors, so a benchmark times the store and not the model."""

    def __init__(self, table: dict[str, np.ndarray], projection: WordProjection) -> None:
        self.table = table
        self.projection = projection
        self.misses = 0

    @property
    def model_id(self) -> str:
        return f"scale-bench-bag-of-words-{self.projection.dimension}"

    @property
    def dimension(self) -> int:
        return self.projection.dimension

    def vector(self, text: str) -> np.ndarray:
        found = self.table.get(text)
        if found is None:
            self.misses += 1
            return self.projection.embed_text(text)
        return found

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        return np.vstack([self.vector(t) for t in texts]) if texts else self._empty()

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        return self.embed_documents(texts)

    def _empty(self) -> np.ndarray:
        return np.zeros((0, self.dimension), dtype=np.float32)
