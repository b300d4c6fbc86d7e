"""Ranking metrics of the retrieval benchmark, for one question at a time.

- recall@k: 1 when any evidence item is among the first k results, else 0 (LoCoMo's usual
  "hit" reading: one evidence turn is enough to answer), averaged over questions;
- nDCG@k: binary gains, every evidence item relevant, ideal ranking = all evidence first.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Sequence

__all__ = ["ndcg_at", "recall_at"]


def recall_at(ranking: Sequence[str], evidence: Collection[str], k: int) -> float:
    wanted = set(evidence)
    return 1.0 if any(item in wanted for item in ranking[:k]) else 0.0


def ndcg_at(ranking: Sequence[str], evidence: Collection[str], k: int) -> float:
    wanted = set(evidence)
    if not wanted:
        return 0.0
    seen: set[str] = set()
    dcg = 0.0
    for rank, item in enumerate(ranking[:k], start=1):
        if item in wanted and item not in seen:
            seen.add(item)
            dcg += 1.0 / math.log2(rank + 1)
    ideal = sum(1.0 / math.log2(rank + 1) for rank in range(1, min(len(wanted), k) + 1))
    return dcg / ideal
