"""Where zenbrain's recall defaults come from: every candidate value scored on every dataset.

The functions under test are zenbrain's own (:func:`zenbrain._ranking.lexical_score`,
:func:`zenbrain._ranking.fuse`, :func:`zenbrain._ranking.semantic_score`, the tokenizer of
:mod:`zenbrain.text` with each stemmer); only the store around them is replaced by an
in-memory index of each haystack (:mod:`~benchmarks.retrieval.tuning.lexical`), so a grid of
variants (:mod:`~benchmarks.retrieval.tuning.variants`) runs in minutes. The rule for a
default: it must not lose to the alternatives on any dataset by more than noise, and it is
never picked on one dataset alone. The recall benchmark (``retrieval``) then measures the
chosen defaults through the real ``MemoryCoordinator``.

Tables (recall@10 and nDCG@10 per dataset) go to stdout, and with ``--write-docs`` to the
section "Recall: how the defaults were chosen" of docs/benchmarks.md.
"""
