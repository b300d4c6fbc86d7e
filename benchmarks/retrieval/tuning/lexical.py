"""The lexical variants of the tuning run: zenbrain's scoring functions (and the scores they
replaced) over an in-memory index of one haystack that hands out candidates as SQLite FTS5
does for zenbrain's recall."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from functools import lru_cache
from itertools import pairwise

import numpy as np

from zenbrain import _ranking as ranking
from zenbrain.text import STOPWORDS, stem, words

__all__ = [
    "POOL",
    "Index",
    "LexicalVariant",
    "best_first",
    "coverage_score",
    "tokenizer",
    "uncapped_score",
]

# zenbrain reads at most this many candidates per list (MIN_CANDIDATES for limit 10).
POOL = 50


# --------------------------------------------------------------------------- tokenizers
def _snowball() -> Callable[[str], str]:
    import Stemmer

    english = Stemmer.Stemmer("english")
    return lru_cache(maxsize=200_000)(english.stemWord)


def tokenizer(stemmer: str) -> Callable[[str], tuple[str, ...]]:
    if stemmer == "light":
        root: Callable[[str], str] = stem
    elif stemmer == "snowball":
        root = _snowball()
    else:
        root = str

    @lru_cache(maxsize=100_000)
    def tokenize(text: str) -> tuple[str, ...]:
        return tuple(root(t) for t in words(text) if len(t) >= 2 and t not in STOPWORDS)

    return tokenize


def coverage_score(
    query_terms: Sequence[str], doc_terms: Sequence[str], weights: Mapping[str, float]
) -> float:
    """zenbrain's lexical score before BM25 (kept here as the baseline it replaced): the
    share of the query's IDF mass in the memory (0.8) plus adjacency of query pairs (0.2),
    IDF ``ln(1 + N / (1 + df))``."""
    distinct = list(dict.fromkeys(query_terms))
    total = sum(weights.get(t, 0.0) for t in distinct)
    doc_set = set(doc_terms)
    matched = sum(weights.get(t, 0.0) for t in distinct if t in doc_set)
    if total <= 0 or matched <= 0:
        return 0.0
    coverage = matched / total
    pairs = ranking.query_pairs(query_terms)
    if not pairs:
        return 0.8 * coverage + 0.2 * coverage
    present = set(pairwise(doc_terms))
    pair_total = sum(weights.get(a, 0.0) + weights.get(b, 0.0) for a, b in pairs)
    pair_hit = sum(weights.get(a, 0.0) + weights.get(b, 0.0) for a, b in pairs if (a, b) in present)
    return 0.8 * coverage + 0.2 * (pair_hit / pair_total if pair_total else 0.0)


def uncapped_score(
    query_terms: Sequence[str],
    doc_terms: Sequence[str],
    weights: Mapping[str, float],
    average_length: float,
    variant: LexicalVariant,
) -> float:
    """Plain BM25 divided by its supremum ``(k1 + 1) * sum(idf)`` (the alternative to the
    per-term cap of :func:`zenbrain._ranking.lexical_score`), plus the same proximity."""
    distinct = list(dict.fromkeys(query_terms))
    attainable = sum(weights.get(t, 0.0) for t in distinct) * (variant.k1 + 1)
    counts = Counter(doc_terms)
    norm = 1 - variant.b + variant.b * len(doc_terms) / average_length if average_length else 1.0
    gained = sum(
        weights.get(t, 0.0) * counts[t] * (variant.k1 + 1) / (counts[t] + variant.k1 * norm)
        for t in distinct
        if counts.get(t)
    )
    if attainable <= 0 or gained <= 0:
        return 0.0
    pairs = ranking.query_pairs(query_terms)
    if not pairs:
        return gained / attainable
    present = set(pairwise(doc_terms))
    pair_total = sum(weights.get(a, 0.0) + weights.get(b, 0.0) for a, b in pairs)
    pair_hit = sum(weights.get(a, 0.0) + weights.get(b, 0.0) for a, b in pairs if (a, b) in present)
    proximity = pair_hit / pair_total if pair_total else 0.0
    w = variant.proximity
    return (1 - w) * gained / attainable + w * proximity


# --------------------------------------------------------------------------- index
@dataclass
class Index:
    """One haystack's terms, with FTS-like candidate search: the top ``POOL`` memories by
    plain BM25 (k1=1.2, b=0.75, as SQLite FTS5's ``bm25()`` orders zenbrain's candidates),
    which each variant then rescores, as recall does."""

    docs: list[tuple[str, ...]]
    postings: dict[str, tuple[np.ndarray, np.ndarray]]  # term -> (doc indexes, tfs)
    lengths: np.ndarray
    average_length: float
    times: tuple[datetime, ...] = ()  # when each memory was stored (its turn's time)
    conversations: tuple[str | None, ...] = ()  # the conversation (session) each was told in

    @classmethod
    def build(
        cls,
        docs: list[tuple[str, ...]],
        times: Sequence[datetime] = (),
        conversations: Sequence[str | None] = (),
    ) -> Index:
        collected: dict[str, tuple[list[int], list[int]]] = {}
        for i, terms in enumerate(docs):
            for term, tf in Counter(terms).items():
                ids, tfs = collected.setdefault(term, ([], []))
                ids.append(i)
                tfs.append(tf)
        postings = {
            t: (np.array(ids, dtype=np.int64), np.array(tfs, dtype=np.float64))
            for t, (ids, tfs) in collected.items()
        }
        lengths = np.array([len(d) for d in docs], dtype=np.float64)
        average = float(lengths.mean()) if len(docs) else 0.0
        return cls(docs, postings, lengths, average, tuple(times), tuple(conversations))

    def weights(self, terms: Sequence[str], lucene: bool, known_only: bool) -> dict[str, float]:
        n = len(self.docs)
        out = {}
        for term in dict.fromkeys(terms):
            df = len(self.postings[term][0]) if term in self.postings else 0
            if df == 0 and known_only:
                continue
            out[term] = math.log1p((n - df + 0.5) / (df + 0.5)) if lucene else ranking.idf(n, df)
        return out

    def with_neighbours(
        self, scores: Mapping[int, float], weight: float, gap: timedelta
    ) -> dict[int, float]:
        """:func:`zenbrain._ranking.with_neighbours` over these candidates, memories stored in
        haystack order (so a memory's key is its position) at their turn's time."""
        if weight <= 0 or not scores:
            return dict(scores)
        docs = list(scores)
        lifted = ranking.with_neighbours(
            [(scores[d], d, self.times[d]) for d in docs], weight=weight, gap=gap
        )
        return dict(zip(docs, lifted, strict=True))

    def with_conversation(self, scores: Mapping[int, float], weight: float) -> dict[int, float]:
        """:func:`zenbrain._ranking.with_conversation` over these candidates: each memory
        of a named conversation (its session) lent that conversation's best other match."""
        if weight <= 0 or not scores or not self.conversations:
            return dict(scores)
        docs = list(scores)
        lifted = ranking.with_conversation(
            [(scores[d], self.conversations[d]) for d in docs], weight=weight
        )
        return dict(zip(docs, lifted, strict=True))

    def candidates(self, terms: Sequence[str], pool: int = POOL) -> list[int]:
        scores = np.zeros(len(self.docs))
        norm = 1.2 * (0.25 + 0.75 * self.lengths / (self.average_length or 1.0))
        for term in dict.fromkeys(terms):
            if term not in self.postings:
                continue
            ids, tfs = self.postings[term]
            n, df = len(self.docs), len(ids)
            weight = math.log1p((n - df + 0.5) / (df + 0.5))  # FTS5's bm25() IDF
            scores[ids] += weight * tfs * 2.2 / (tfs + norm[ids])
        matched = np.flatnonzero(scores > 0)
        if len(matched) > pool:
            matched = matched[np.argsort(-scores[matched], kind="stable")[:pool]]
        return [int(d) for d in matched]


@dataclass(frozen=True)
class LexicalVariant:
    name: str
    stemmer: str = "light"
    k1: float = ranking.K1
    b: float = ranking.B
    proximity: float = ranking.PROXIMITY_WEIGHT
    coverage: bool = False  # the pre-BM25 score
    capped: bool = True  # False: plain BM25 over its supremum (k1 + 1) * sum(idf)
    lucene_idf: bool = False  # ln(1 + (N - df + 0.5) / (df + 0.5)) instead of ranking.idf
    known_only: bool = True  # False: words no memory holds count in what a query can attain
    neighbours: float = ranking.NEIGHBOUR_WEIGHT
    gap: timedelta = ranking.CONVERSATION_GAP
    conversation: float = ranking.CONVERSATION_WEIGHT

    def ranked(self, index: Index, query: Sequence[str]) -> dict[int, float]:
        """The scores recall ranks by: :meth:`score` with conversation neighbours, then
        the conversation's evidence."""
        lifted = index.with_neighbours(self.score(index, query), self.neighbours, self.gap)
        return index.with_conversation(lifted, self.conversation)

    def score(self, index: Index, query: Sequence[str]) -> dict[int, float]:
        weights = index.weights(query, lucene=self.lucene_idf, known_only=self.known_only)
        scores = {}
        for doc in index.candidates(query):
            terms = index.docs[doc]
            if self.coverage:
                s = coverage_score(query, terms, weights)
            elif not self.capped:
                s = uncapped_score(query, terms, weights, index.average_length, self)
            else:
                s = ranking.lexical_score(
                    query,
                    terms,
                    weights,
                    index.average_length,
                    k1=self.k1,
                    b=self.b,
                    proximity_weight=self.proximity,
                )
            if s > 0:
                scores[doc] = s
        return scores


def best_first(scores: Mapping[int, float], k: int) -> list[int]:
    """Best first; equal scores newest (latest stored) first, as recall orders them."""
    return sorted(scores, key=lambda d: (-scores[d], -d))[:k]
