"""What several benchmarks share: paths, docs sections, the machine, corpora, embeddings."""
