"""zenbrain's algorithms library: pure functions, one module per algorithm, numpy at most.

Nothing here touches storage or the clock: times ("now") come in as arguments. Each module
documents its source (paper or model), its constants and where it deliberately differs from
the TypeScript original. Functions and classes are re-exported here and imported on first
use (module ``__getattr__``), so importing the package or one module loads no other
module. Constants stay in their modules (``zenbrain._algorithms.hebbian.MAX_WEIGHT``),
because several modules share a constant name with different values (``MAX_STABILITY``,
``MAX_WEIGHT``, ...). No module is named after a function it exports, so a submodule import
never hides a re-exported function.

Modules, each used by a layer or a stage: bayesian (ConfidenceStage), emotional (episodic
weights, routing), hebbian and pagerank (MemoryGraphStage), similarity (semantic layer,
ConfidenceStage), sleep_consolidation (SleepReplayStage), temporal_routing (TemporalStage).
Algorithms no stage uses are kept out of the package, in the repository's ``research/``.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from zenbrain._algorithms.bayesian import (
        PropagationResult,
        Relation,
        propagate_confidence,
        relation_factor,
    )
    from zenbrain._algorithms.emotional import (
        EmotionalTag,
        contextual_valence,
        decay_multiplier,
        emotional_weight,
        is_emotionally_significant,
        tag_emotion,
        tag_folded,
    )
    from zenbrain._algorithms.hebbian import (
        apply_coactivation,
        decay,
        generate_pairs,
        normalize,
        strengthen,
    )
    from zenbrain._algorithms.pagerank import (
        PageRankResult,
        personalized_pagerank,
        top_k_by_pagerank,
        undirected_to_directed,
    )
    from zenbrain._algorithms.similarity import (
        NegationResult,
        StatementComparison,
        compare_statements,
        detect_negation,
        string_similarity,
        strip_negation,
    )
    from zenbrain._algorithms.sleep_consolidation import (
        ConsolidationEdge,
        PruneResult,
        ReplayCandidate,
        ReplayOutcome,
        prune_weak_connections,
        replay,
        replay_priority,
        select_for_replay,
    )
    from zenbrain._algorithms.temporal_routing import (
        FusedItem,
        RelativeDirection,
        TemporalCue,
        TemporalQuery,
        TemporalRoute,
        detect_temporal_routes,
        fuse_routes,
        relative_direction,
        run_temporal_multi_route,
    )

# Which module defines each re-exported name.
_MODULE_OF: dict[str, str] = {
    "PropagationResult": "bayesian",
    "Relation": "bayesian",
    "propagate_confidence": "bayesian",
    "relation_factor": "bayesian",
    "EmotionalTag": "emotional",
    "contextual_valence": "emotional",
    "decay_multiplier": "emotional",
    "emotional_weight": "emotional",
    "is_emotionally_significant": "emotional",
    "tag_emotion": "emotional",
    "tag_folded": "emotional",
    "apply_coactivation": "hebbian",
    "decay": "hebbian",
    "generate_pairs": "hebbian",
    "normalize": "hebbian",
    "strengthen": "hebbian",
    "PageRankResult": "pagerank",
    "personalized_pagerank": "pagerank",
    "top_k_by_pagerank": "pagerank",
    "undirected_to_directed": "pagerank",
    "NegationResult": "similarity",
    "StatementComparison": "similarity",
    "compare_statements": "similarity",
    "detect_negation": "similarity",
    "string_similarity": "similarity",
    "strip_negation": "similarity",
    "ConsolidationEdge": "sleep_consolidation",
    "PruneResult": "sleep_consolidation",
    "ReplayCandidate": "sleep_consolidation",
    "ReplayOutcome": "sleep_consolidation",
    "prune_weak_connections": "sleep_consolidation",
    "replay": "sleep_consolidation",
    "replay_priority": "sleep_consolidation",
    "select_for_replay": "sleep_consolidation",
    "FusedItem": "temporal_routing",
    "RelativeDirection": "temporal_routing",
    "relative_direction": "temporal_routing",
    "TemporalCue": "temporal_routing",
    "TemporalQuery": "temporal_routing",
    "TemporalRoute": "temporal_routing",
    "detect_temporal_routes": "temporal_routing",
    "fuse_routes": "temporal_routing",
    "run_temporal_multi_route": "temporal_routing",
}

__all__ = [
    "ConsolidationEdge",
    "EmotionalTag",
    "FusedItem",
    "NegationResult",
    "PageRankResult",
    "PropagationResult",
    "PruneResult",
    "Relation",
    "RelativeDirection",
    "ReplayCandidate",
    "ReplayOutcome",
    "StatementComparison",
    "TemporalCue",
    "TemporalQuery",
    "TemporalRoute",
    "apply_coactivation",
    "compare_statements",
    "contextual_valence",
    "decay",
    "decay_multiplier",
    "detect_negation",
    "detect_temporal_routes",
    "emotional_weight",
    "fuse_routes",
    "generate_pairs",
    "is_emotionally_significant",
    "normalize",
    "personalized_pagerank",
    "propagate_confidence",
    "prune_weak_connections",
    "relation_factor",
    "relative_direction",
    "replay",
    "replay_priority",
    "run_temporal_multi_route",
    "select_for_replay",
    "strengthen",
    "string_similarity",
    "strip_negation",
    "tag_emotion",
    "tag_folded",
    "top_k_by_pagerank",
    "undirected_to_directed",
]


def __getattr__(name: str) -> Any:
    module = _MODULE_OF.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    globals()[name] = value  # later look-ups skip this function
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
