"""How recalled memories are scored and ordered.

Lexical score (0..1) of a memory for a query, both as folded tokens (:mod:`zenbrain.text`):

* coverage: the share of the query's IDF mass that the memory contains, each distinct query
  word weighted ``ln(1 + N / (1 + df))`` over the layer, so rare words count for more;
* adjacency: the share of the query's neighbouring word pairs that stand next to each other in
  the memory too, so "Kieler Förde" beats a text that has "Kiel" and "Förde" far apart.

``score = 0.8 * coverage + 0.2 * adjacency``; a one-word query counts as adjacent when matched.
With an embedding provider, the lexical score and the cosine similarity are fused
(:func:`fuse`). Results from a layer with no match come after every match with score 0.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from itertools import pairwise

__all__ = [
    "ADJACENCY_WEIGHT",
    "CANDIDATE_POSTINGS",
    "COVERAGE_WEIGHT",
    "SEMANTIC_WEIGHT",
    "candidate_terms",
    "fuse",
    "idf",
    "lexical_score",
    "query_pairs",
    "semantic_score",
]

COVERAGE_WEIGHT = 0.8
ADJACENCY_WEIGHT = 0.2
# Tuned on LoCoMo with multilingual-e5-small (docs/benchmarks.md): 0.25-0.4 are within 0.005
# of each other; 0.5 loses 0.017 recall@10, 0.7 loses 0.04.
SEMANTIC_WEIGHT = 0.35
# Postings read for lexical candidates: bounds the cost of common words in a large store.
CANDIDATE_POSTINGS = 20_000


def idf(document_count: int, document_frequency: int) -> float:
    """Inverse document frequency, always positive: ``ln(1 + N / (1 + df))``."""
    return math.log1p(document_count / (1 + document_frequency))


def query_pairs(query_terms: Sequence[str]) -> list[tuple[str, str]]:
    """Distinct neighbouring pairs of the query's terms, in order."""
    seen: dict[tuple[str, str], None] = {}
    for a, b in pairwise(query_terms):
        if a != b:
            seen.setdefault((a, b), None)
    return list(seen)


def _adjacent_pairs(doc_terms: Sequence[str]) -> set[tuple[str, str]]:
    return set(pairwise(doc_terms))


def lexical_score(
    query_terms: Sequence[str], doc_terms: Iterable[str], weights: Mapping[str, float]
) -> float:
    """The lexical score of a document (its terms in order) for a query (its terms in order)."""
    distinct = list(dict.fromkeys(query_terms))
    total = sum(weights.get(t, 0.0) for t in distinct)
    if total <= 0:
        return 0.0
    doc_sequence = list(doc_terms)
    doc_set = set(doc_sequence)
    matched = sum(weights.get(t, 0.0) for t in distinct if t in doc_set)
    if matched <= 0:
        return 0.0
    coverage = matched / total
    pairs = query_pairs(query_terms)
    if not pairs:
        adjacency = coverage
    else:
        present = _adjacent_pairs(doc_sequence)
        pair_total = sum(weights.get(a, 0.0) + weights.get(b, 0.0) for a, b in pairs)
        pair_hit = sum(
            weights.get(a, 0.0) + weights.get(b, 0.0) for a, b in pairs if (a, b) in present
        )
        adjacency = pair_hit / pair_total if pair_total > 0 else 0.0
    return min(1.0, COVERAGE_WEIGHT * coverage + ADJACENCY_WEIGHT * adjacency)


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
