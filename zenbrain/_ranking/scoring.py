"""The lexical score, the semantic score and their fusion.

Lexical score (0..1) of a memory for a query, both as index terms (:mod:`zenbrain.text`):

* relevance: Okapi BM25 over everything the recall searches, as one collection
  (:class:`~zenbrain._ranking.collection.Collection`: every searched layer's memories, core
  blocks and working memory included). Each distinct query term found gets BM25's term
  factor ``tf * (k1 + 1) / (tf + k1 * L)``, ``L = 1 - b + b * length / average_length``
  (length: the memory's number of index terms), weighted by :func:`idf`. Repeating a word
  saturates, and a memory longer than the collection's average counts less, so a long memory
  that mentions a bit of everything does not win on its length. The factor is 1 for a word
  found once in a memory of average length and is capped at 1, so the relevance,
  ``sum(weight * min(1, factor)) / sum(weight)``, lies in 0..1 and means the same for every
  query and every layer: 1 is what the query can attain (each of its words in a memory no
  longer than average), and a memory holding only the query's rarer half of IDF mass scores
  about 0.5, whatever else was found. Function words weigh a quarter of their IDF
  (:func:`query_weights`), so "when" or "wie" alone scores near 0.
* proximity: the share of the query's neighbouring word pairs that stand next to each other
  in the memory too (weighted by their IDF), so "Kieler Förde" beats a text that has "Kiel"
  and "Förde" far apart. A bounded bonus: it takes ``PROXIMITY_WEIGHT`` of the score.

``score = (1 - PROXIMITY_WEIGHT) * relevance + PROXIMITY_WEIGHT * proximity``; a one-word
query has no pairs and its score is the relevance. The query's words are those some memory
of the collection holds (:func:`query_weights`): a word no memory holds can be found by
none, so it does not lower what every memory scores. With an embedding provider the lexical
score and the cosine similarity are fused (:func:`fuse`). What follows (layer priors,
conversation neighbours, the order) is :mod:`zenbrain._ranking.engine`'s.

Every default below cites the cross-dataset table that chose it: docs/benchmarks.md,
section "Recall: how the defaults were chosen".
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from itertools import pairwise

import numpy as np

from zenbrain._ranking.function_words import FUNCTION_WORD_WEIGHT, is_function_word

__all__ = [
    "CANDIDATE_POSTINGS",
    "K1",
    "PROXIMITY_WEIGHT",
    "SEMANTIC_WEIGHT",
    "B",
    "EncodedDocuments",
    "LexicalQuery",
    "candidate_terms",
    "fuse",
    "idf",
    "lexical_score",
    "query_pairs",
    "query_weights",
    "semantic_score",
]

# docs/benchmarks.md, "Recall: how the defaults were chosen", table "Lexical score".
K1 = 1.2
B = 0.75
PROXIMITY_WEIGHT = 0.2
# docs/benchmarks.md, "Recall: how the defaults were chosen", table "Fusion".
SEMANTIC_WEIGHT = 0.35
# Postings read for lexical candidates: bounds the cost of common words in a large store.
CANDIDATE_POSTINGS = 20_000
_COUNT_IN_PLACE = 2_048  # query terms x memory terms up to which terms are counted in place


def idf(document_count: int, document_frequency: int) -> float:
    """Inverse document frequency, always positive: ``ln(1 + N / (1 + df))``.

    A smoothed form of BM25's IDF; Lucene's ``ln(1 + (N - df + 0.5) / (df + 0.5))`` weighs
    common words down harder and loses on every dataset (docs/benchmarks.md, "Recall: how
    the defaults were chosen", table "Lexical score")."""
    return math.log1p(max(document_count, 0) / (1 + max(document_frequency, 0)))


def query_weights(
    document_count: int,
    frequencies: Mapping[str, int],
    *,
    function_word_weight: float = FUNCTION_WORD_WEIGHT,
) -> dict[str, float]:
    """The weight of each query term that some memory of the collection holds: its IDF, and
    :data:`~zenbrain._ranking.function_words.FUNCTION_WORD_WEIGHT` of it for a function
    word ("when", "how often", "wann"), as BM25 would weigh it in a large collection however
    small this one is. A word no memory holds cannot be found by any memory, so it is left
    out of what the query can attain: 1.0 means every query word the collection knows,
    whatever else the query says (a query that quotes a whole dialogue would otherwise score
    every memory near 0). A query of function words only keeps their full weights: they
    are all it says."""
    held = {term: df for term, df in frequencies.items() if df > 0}
    damped = any(not is_function_word(term) for term in held)
    return {
        term: idf(document_count, df)
        * (function_word_weight if damped and is_function_word(term) else 1.0)
        for term, df in held.items()
    }


def query_pairs(query_terms: Sequence[str]) -> list[tuple[str, str]]:
    """Distinct neighbouring pairs of the query's terms, in order."""
    seen: dict[tuple[str, str], None] = {}
    for a, b in pairwise(query_terms):
        if a != b:
            seen.setdefault((a, b), None)
    return list(seen)


@dataclass(frozen=True, slots=True)
class EncodedDocuments:
    """Documents given as term numbers, many at once: ``terms`` holds every document's
    term numbers in order, one document after the other, ``lengths`` how many each has,
    ``numbers`` the number of each term (a term missing from it is in no document) and
    ``vocabulary`` the term of each number."""

    terms: np.ndarray
    lengths: np.ndarray
    numbers: Mapping[str, int]
    vocabulary: Sequence[str]

    def __len__(self) -> int:
        return len(self.lengths)

    def words(self, index: int) -> tuple[str, ...]:
        """Document ``index``'s terms, in order."""
        begin = int(np.sum(self.lengths[:index]))
        numbers = self.terms[begin : begin + int(self.lengths[index])]
        return tuple(self.vocabulary[int(number)] for number in numbers)


class LexicalQuery:
    """A query prepared for :func:`lexical_score`: what depends only on the query and the
    scope's weights is worked out once, so scoring many documents repeats none of it."""

    __slots__ = (
        "_attainable",
        "_distinct",
        "_held_share",
        "_pairs",
        "_total",
        "b",
        "k1",
        "proximity_weight",
    )

    def __init__(
        self,
        query_terms: Sequence[str],
        weights: Mapping[str, float],
        *,
        k1: float = K1,
        b: float = B,
        proximity_weight: float = PROXIMITY_WEIGHT,
        unheld_weight: float = 0.0,
    ) -> None:
        self.k1, self.b, self.proximity_weight = k1, b, proximity_weight
        distinct = list(dict.fromkeys(query_terms))
        self._attainable = sum(weights.get(t, 0.0) for t in distinct)
        # ``unheld_weight``: the weight of the query's words no memory holds. No memory can
        # gain it, so it scales every score alike (:attr:`held_share`; the ranking applies
        # it, so the order stays what the held words make it), and a match of one word out
        # of many stays well below 1.
        total = self._attainable + max(unheld_weight, 0.0)
        self._held_share = self._attainable / total if total > 0 else 0.0

        self._distinct = [(t, weights.get(t, 0.0)) for t in distinct]
        # A pair with a word no memory holds stands in no memory.
        self._pairs = [
            (pair, weights.get(pair[0], 0.0) + weights.get(pair[1], 0.0))
            for pair in query_pairs(query_terms)
            if pair[0] in weights and pair[1] in weights
        ]
        self._total = 0.0
        for _, weight in self._pairs:
            self._total += weight

    @property
    def held_share(self) -> float:
        """The share of the query's weight that some memory holds (1.0 when every word is
        held): the most any memory can score, which the ranking scales each score to."""
        return self._held_share

    def score(self, doc_terms: Iterable[str], average_length: float | None = None) -> float:
        """The lexical score (0..1) of a document, its terms in order."""
        return self.score_and_tie(doc_terms, average_length)[0]

    def score_and_tie(
        self, doc_terms: Iterable[str], average_length: float | None = None
    ) -> tuple[float, float]:
        """:meth:`score` and what breaks a tie of two equal scores: BM25's own relevance,
        each term's factor uncapped (a word found in a memory shorter than average gains
        more), so of two memories that both hold the query the shorter comes first."""
        if self._attainable <= 0:
            return 0.0, 0.0
        doc_sequence = doc_terms if isinstance(doc_terms, (list, tuple)) else list(doc_terms)
        length = len(doc_sequence)
        k1, b = self.k1, self.b
        norm = 1.0
        if average_length is not None and average_length > 0:
            norm = 1.0 - b + b * length / average_length
        # Few distinct terms in a short memory: counting each in place beats a Counter.
        count = (
            doc_sequence.count
            if length * len(self._distinct) <= _COUNT_IN_PLACE
            else Counter(doc_sequence).__getitem__
        )
        gained = uncapped = 0.0
        for term, weight in self._distinct:
            tf = count(term)
            if tf:
                factor = tf * (k1 + 1.0) / (tf + k1 * norm)
                gained += weight * min(1.0, factor)
                uncapped += weight * factor
        if gained <= 0:
            return 0.0, 0.0
        relevance = gained / self._attainable
        tie = uncapped / self._attainable
        proximity = self._proximity(doc_sequence)
        if proximity is None:
            return min(1.0, relevance), tie
        weight = self.proximity_weight
        return min(1.0, (1.0 - weight) * relevance + weight * proximity), tie

    def score_documents(
        self, documents: EncodedDocuments, average_length: float | None = None
    ) -> np.ndarray:
        """:meth:`score` of every document at once (float64, equal to it bit for bit: the
        same operations in the same order, a query term at a time over all documents)."""
        return self.scores_and_ties(documents, average_length)[0]

    def scores_and_ties(
        self, documents: EncodedDocuments, average_length: float | None = None
    ) -> tuple[np.ndarray, np.ndarray]:
        """:meth:`score_and_tie` of every document at once."""
        count = len(documents)
        scores = np.zeros(count, dtype=np.float64)
        ties = np.zeros(count, dtype=np.float64)
        if self._attainable <= 0 or count == 0:
            return scores, ties
        lengths = np.asarray(documents.lengths, dtype=np.int64)
        terms = np.asarray(documents.terms, dtype=np.int64)
        owner = np.repeat(np.arange(count), lengths)  # the document of each term
        k1, b = self.k1, self.b
        norm = np.ones(count, dtype=np.float64)
        if average_length is not None and average_length > 0:
            # A vanishing mean length overflows to inf, as Python's floats do in score(),
            # without numpy's warning about it.
            with np.errstate(over="ignore"):
                norm = 1.0 - b + b * lengths.astype(np.float64) / average_length
        gained = np.zeros(count, dtype=np.float64)
        for term, weight in self._distinct:
            number = documents.numbers.get(term)
            if number is None:
                continue
            tf = np.bincount(owner[terms == number], minlength=count)
            holding = np.flatnonzero(tf)
            found_tf = tf[holding].astype(np.float64)
            factor = found_tf * (k1 + 1.0) / (found_tf + k1 * norm[holding])
            gained[holding] += weight * np.minimum(1.0, factor)
            ties[holding] += weight * factor
        found = gained > 0
        relevance = gained / self._attainable
        ties /= self._attainable
        proximity = self._proximity_documents(documents, terms, owner)
        if proximity is None:
            scores[found] = np.minimum(1.0, relevance[found])
            return scores, ties
        weight = self.proximity_weight
        mixed = (1.0 - weight) * relevance + weight * proximity
        scores[found] = np.minimum(1.0, mixed[found])
        return scores, ties

    def _proximity_documents(
        self, documents: EncodedDocuments, terms: np.ndarray, owner: np.ndarray
    ) -> np.ndarray | None:
        if not self._pairs or self._total <= 0:
            return None
        hit = np.zeros(len(documents), dtype=np.float64)
        same = owner[:-1] == owner[1:]  # neighbouring terms of one document
        first, second, holder = terms[:-1], terms[1:], owner[:-1]
        for (a, b), weight in self._pairs:
            number_a, number_b = documents.numbers.get(a), documents.numbers.get(b)
            if number_a is None or number_b is None:
                continue
            holders = holder[same & (first == number_a) & (second == number_b)]
            present = np.zeros(len(documents), dtype=bool)
            present[holders] = True
            hit[present] += weight
        return hit / self._total

    def _proximity(self, doc_sequence: Sequence[str]) -> float | None:
        if not self._pairs:
            return None
        present = set(pairwise(doc_sequence))
        hit = 0.0
        for pair, weight in self._pairs:
            if pair in present:
                hit += weight
        return hit / self._total if self._total > 0 else None


def lexical_score(
    query_terms: Sequence[str],
    doc_terms: Iterable[str],
    weights: Mapping[str, float],
    average_length: float | None = None,
    *,
    k1: float = K1,
    b: float = B,
    proximity_weight: float = PROXIMITY_WEIGHT,
) -> float:
    """The lexical score (0..1) of a document (its terms in order) for a query (its terms in
    order). ``weights`` are the query terms' IDFs over the scope; ``average_length`` is the
    scope's mean document length in terms (None: no length normalisation, as for a scope
    of one). Scoring many documents for one query: :class:`LexicalQuery`."""
    query = LexicalQuery(query_terms, weights, k1=k1, b=b, proximity_weight=proximity_weight)
    return query.score(doc_terms, average_length)


def candidate_terms(frequencies: Mapping[str, int], budget: int = CANDIDATE_POSTINGS) -> list[str]:
    """The query terms worth reading postings for: the rarest first, until their document
    frequencies add up to ``budget`` (the rarest one always). A memory holding none of the
    rare terms can only cover the cheap part of the query's IDF mass, so skipping the
    commonest terms' long posting lists keeps candidate search from growing with the store
    while the ranking of what is found stays exact."""
    chosen: list[str] = []
    total = 0
    for term, df in sorted(frequencies.items(), key=lambda item: (item[1], item[0])):
        if df == 0:
            continue
        if chosen and total + df > budget:
            break
        chosen.append(term)
        total += df
    return chosen


def semantic_score(cosine: float, floor: float) -> float:
    """Map a cosine similarity onto 0..1, where ``floor`` (the similarity of unrelated texts
    for this model) maps to 0."""
    if cosine <= floor:
        return 0.0
    return min(1.0, (cosine - floor) / (1.0 - floor))


def fuse(lexical: float, semantic: float, semantic_weight: float = SEMANTIC_WEIGHT) -> float:
    """One 0..1 score from a lexical and a semantic score."""
    return (1.0 - semantic_weight) * lexical + semantic_weight * semantic
