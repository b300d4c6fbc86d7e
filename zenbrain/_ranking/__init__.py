"""Ranking: the one place a recall score is made, for every layer alike.

- :mod:`~zenbrain._ranking.scoring`: the lexical score (BM25 relevance and proximity, 0..1),
  the semantic score and their fusion.
- :mod:`~zenbrain._ranking.collection`: the statistics of everything one recall searches, as
  one collection (IDF worked out once, for every layer).
- :mod:`~zenbrain._ranking.function_words`: the function words weighed as a large collection
  weighs them.
- :mod:`~zenbrain._ranking.neighbours`: turns stored one after the other lending each other
  relevance.
- :mod:`~zenbrain._ranking.conversation`: the turns of one named conversation lending each
  other their best match.
- :mod:`~zenbrain._ranking.engine`: candidates of every layer scored on that one scale, with
  the layers' priors, and ordered.
"""

from zenbrain._ranking.collection import Collection
from zenbrain._ranking.conversation import CONVERSATION_WEIGHT, with_conversation
from zenbrain._ranking.engine import (
    CORE_PRIOR,
    Candidate,
    Ranked,
    rank_candidates,
)
from zenbrain._ranking.function_words import FUNCTION_WORD_WEIGHT, FUNCTION_WORDS
from zenbrain._ranking.neighbours import CONVERSATION_GAP, NEIGHBOUR_WEIGHT, with_neighbours
from zenbrain._ranking.scoring import (
    CANDIDATE_POSTINGS,
    K1,
    PROXIMITY_WEIGHT,
    SEMANTIC_WEIGHT,
    B,
    EncodedDocuments,
    LexicalQuery,
    candidate_terms,
    fuse,
    idf,
    lexical_score,
    query_pairs,
    query_weights,
    semantic_score,
)

__all__ = [
    "CANDIDATE_POSTINGS",
    "CONVERSATION_GAP",
    "CONVERSATION_WEIGHT",
    "CORE_PRIOR",
    "FUNCTION_WORDS",
    "FUNCTION_WORD_WEIGHT",
    "K1",
    "NEIGHBOUR_WEIGHT",
    "PROXIMITY_WEIGHT",
    "SEMANTIC_WEIGHT",
    "B",
    "Candidate",
    "Collection",
    "EncodedDocuments",
    "LexicalQuery",
    "Ranked",
    "candidate_terms",
    "fuse",
    "idf",
    "lexical_score",
    "query_pairs",
    "query_weights",
    "rank_candidates",
    "semantic_score",
    "with_conversation",
    "with_neighbours",
]
