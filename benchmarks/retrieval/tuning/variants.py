"""The candidates the tuning run scores: one change at a time from each default."""

from __future__ import annotations

from datetime import timedelta

from benchmarks.retrieval.tuning.fusion import FusionVariant
from benchmarks.retrieval.tuning.lexical import LexicalVariant

__all__ = ["DEFAULT_FUSION", "DEFAULT_LEXICAL", "FUSION_VARIANTS", "LEXICAL_VARIANTS"]

DEFAULT_LEXICAL = "bm25 capped k1=1.2 b=0.75 prox=0.2 neighbours=0.5 conversation=0.2 (default)"
LEXICAL_VARIANTS: tuple[LexicalVariant, ...] = (
    LexicalVariant(
        "coverage 0.8/0.2, every query word attainable, no neighbours (first release)",
        coverage=True,
        known_only=False,
        neighbours=0.0,
        conversation=0.0,
    ),
    LexicalVariant(
        "bm25 capped, every query word attainable, no neighbours (previous default)",
        known_only=False,
        neighbours=0.0,
        conversation=0.0,
    ),
    LexicalVariant(DEFAULT_LEXICAL),
    LexicalVariant("bm25 capped, every query word attainable", known_only=False),
    LexicalVariant("bm25 capped, no neighbours", neighbours=0.0),
    LexicalVariant("bm25 capped, neighbours=0.2", neighbours=0.2),
    LexicalVariant("bm25 capped, neighbours=0.3", neighbours=0.3),
    LexicalVariant("bm25 capped, neighbours=0.4", neighbours=0.4),
    LexicalVariant("bm25 capped, neighbours=0.6", neighbours=0.6),
    LexicalVariant("bm25 capped, neighbours at any time gap", gap=timedelta.max),
    LexicalVariant("bm25 capped, no conversation evidence", conversation=0.0),
    LexicalVariant("bm25 capped, conversation=0.1", conversation=0.1),
    LexicalVariant("bm25 capped, conversation=0.3", conversation=0.3),
    LexicalVariant("bm25 capped, conversation=0.4", conversation=0.4),
    LexicalVariant(
        "bm25 capped, no neighbours, conversation=0.4", neighbours=0.0, conversation=0.4
    ),
    LexicalVariant("bm25 capped, neighbours within 5 min", gap=timedelta(minutes=5)),
    LexicalVariant("bm25 capped, neighbours within 1 day", gap=timedelta(days=1)),
    LexicalVariant("bm25 uncapped (over (k1+1) sum idf)", capped=False),
    LexicalVariant("bm25 capped, Lucene IDF", lucene_idf=True),
    LexicalVariant("bm25 capped prox=0", proximity=0.0),
    LexicalVariant("bm25 capped prox=0.1", proximity=0.1),
    LexicalVariant("bm25 capped prox=0.3", proximity=0.3),
    LexicalVariant("bm25 capped k1=0.8", k1=0.8),
    LexicalVariant("bm25 capped k1=1.6", k1=1.6),
    LexicalVariant("bm25 capped k1=2.0", k1=2.0),
    LexicalVariant("bm25 capped b=0", b=0.0),
    LexicalVariant("bm25 capped b=0.3", b=0.3),
    LexicalVariant("bm25 capped b=0.5", b=0.5),
    LexicalVariant("bm25 capped b=0.9", b=0.9),
    LexicalVariant("bm25 capped, Snowball stemmer", stemmer="snowball"),
    LexicalVariant("bm25 capped, no stemming", stemmer="none"),
)

DEFAULT_FUSION = "convex w=0.35, neighbours=0.5, conversation=0.2"
FUSION_VARIANTS: tuple[FusionVariant, ...] = (
    FusionVariant(
        "convex w=0.35, every query word attainable, no neighbours (previous default)",
        "convex",
        0.35,
        neighbours=0.0,
        conversation=0.0,
        known_only=False,
    ),
    FusionVariant("convex w=0.35, every query word attainable", "convex", 0.35, known_only=False),
    FusionVariant("convex w=0.35, no neighbours", "convex", 0.35, neighbours=0.0),
    FusionVariant("convex w=0.35, neighbours=0.2", "convex", 0.35, neighbours=0.2),
    FusionVariant("convex w=0.35, neighbours=0.3", "convex", 0.35, neighbours=0.3),
    FusionVariant("convex w=0.35, neighbours=0.4", "convex", 0.35, neighbours=0.4),
    FusionVariant("convex w=0.35, neighbours=0.6", "convex", 0.35, neighbours=0.6),
    FusionVariant("convex w=0.35, no conversation evidence", "convex", 0.35, conversation=0.0),
    FusionVariant("convex w=0.35, conversation=0.1", "convex", 0.35, conversation=0.1),
    FusionVariant("convex w=0.35, conversation=0.3", "convex", 0.35, conversation=0.3),
    FusionVariant("convex w=0.2", "convex", 0.2),
    FusionVariant("calibrated convex w=0.2", "calibrated", 0.2),
    FusionVariant("calibrated convex w=0.35", "calibrated", 0.35),
    FusionVariant(DEFAULT_FUSION, "convex", 0.35),
    FusionVariant("convex w=0.5", "convex", 0.5),
    FusionVariant("convex w=0.65", "convex", 0.65),
    FusionVariant("rrf k=60", "rrf"),
    FusionVariant("dbsf (3 sigma)", "dbsf"),
    FusionVariant("min-max w=0.35", "minmax", 0.35),
    FusionVariant("min-max w=0.5", "minmax", 0.5),
)
