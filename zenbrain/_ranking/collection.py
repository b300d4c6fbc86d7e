"""What BM25 needs to know about everything one recall searches, as one collection.

Each layer's index keeps its own counts (memories, mean length, document frequencies). A
recall over several layers ranks them as one collection: the counts add up (memories and
document frequencies are sums, the mean length a weighted mean), which gives exactly the
statistics of one index over the union, so a memory's IDF weights do not depend on how many
neighbours routing gave it in its own layer. Memories held outside the index (working
memory's slots, a subtree read) join the same counts from their terms.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from zenbrain._ranking.function_words import is_function_word
from zenbrain._ranking.scoring import LexicalQuery, idf, query_weights

# Whether a query's content words that no memory holds count in what it can attain.
COUNT_UNHELD = True

__all__ = ["Collection"]


@dataclass(slots=True)
class Collection:
    """Counts of the memories one recall ranks, for the query's terms."""

    terms: Sequence[str]
    documents: int = 0
    total_length: float = 0.0
    frequencies: dict[str, int] = field(default_factory=dict)

    def add_counts(
        self, documents: int, average_length: float, frequencies: Mapping[str, int]
    ) -> None:
        """Add one scope's counts (an index's statistics of a layer)."""
        self.documents += max(documents, 0)
        self.total_length += max(documents, 0) * max(average_length, 0.0)
        for term in set(self.terms):
            self.frequencies[term] = self.frequencies.get(term, 0) + frequencies.get(term, 0)

    def add_documents(self, documents: Iterable[Sequence[str]]) -> None:
        """Add memories given by their terms."""
        wanted = set(self.terms)
        for term in wanted:
            self.frequencies.setdefault(term, 0)
        for doc in documents:
            self.documents += 1
            self.total_length += len(doc)
            for term in wanted.intersection(doc):
                self.frequencies[term] = self.frequencies.get(term, 0) + 1

    @property
    def average_length(self) -> float | None:
        return self.total_length / self.documents if self.documents else None

    def weights(self) -> dict[str, float]:
        """Each held query term's weight (:func:`~zenbrain._ranking.scoring.query_weights`)."""
        return query_weights(self.documents, self.frequencies)

    def query(self) -> LexicalQuery | None:
        """The query prepared for scoring this collection's memories; None when no memory
        holds any of its words."""
        weights = self.weights()
        if not weights:
            return None
        unheld = 0.0
        if COUNT_UNHELD:
            unheld = sum(
                idf(self.documents, 0)
                for term in dict.fromkeys(self.terms)
                if term not in weights and not is_function_word(term)
            )
        return LexicalQuery(self.terms, weights, unheld_weight=unheld)
