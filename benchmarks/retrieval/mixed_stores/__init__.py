"""Recall on small mixed stores, as an agent builds them, beside BM25, dense and RRF.

The store an agent really builds (facts, procedures, episodes and core blocks of one
assistant, filed by routing) is asked questions with one right answer each; the baselines
index the same memories as one collection.

The stores are JSON files in ``benchmarks/retrieval/mixed_stores/stores/`` (format:
:mod:`benchmarks.retrieval.mixed_stores.scenarios`); ``--suite`` runs another folder of the
same kind.
"""

from benchmarks.retrieval.mixed_stores.harness import (
    SYSTEM_NAMES,
    Outcome,
    SuiteRun,
    hit_rate,
    run_suite,
)
from benchmarks.retrieval.mixed_stores.scenarios import (
    Entry,
    Question,
    Store,
    load_suite,
    parse_store,
)

__all__ = [
    "SYSTEM_NAMES",
    "Entry",
    "Outcome",
    "Question",
    "Store",
    "SuiteRun",
    "hit_rate",
    "load_suite",
    "parse_store",
    "run_suite",
]
