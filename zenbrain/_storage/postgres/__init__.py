"""The PostgreSQL back end: the engine and its pool, the lexical index, pgvector's HNSW indexes."""
