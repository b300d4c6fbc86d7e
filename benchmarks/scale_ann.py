"""How well and how fast the SQLite back end's int8 pre-filter finds the exact neighbours.

    python -m benchmarks.scale_ann [--sizes 100000,1000000] [--corpus synthetic|locomo]
                                   [--queries 100] [--hnsw] [--write-docs]

For each size, the corpus's float32 vectors are the ground truth: the exact top 10 of each
query by cosine. The pre-filter is what :class:`zenbrain.storage.sqlite_vectors.
SqliteVectorIndex` runs past its threshold: the rows nearest by the Hamming distance of their
sign bits, re-ranked by their int8 cosine (:func:`~zenbrain.storage.vector_prefilter.
prefilter_candidates`) to ``limit + 20`` candidates, which are then re-scored exactly,
so the search returns
the exact top 10 whenever they are among the candidates. Reported: recall@10 of the
candidates (ties counted as hits) for ``limit=10`` and for the 50 candidates a recall asks
per layer, and p50 latency of the pre-filter beside a float32 numpy scan of the same rows,
interleaved query by query (a shared machine: read the ratio). ``--hnsw`` adds usearch's
HNSW graph (i8, M=16, ef=64) at sizes up to 200k for comparison.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from benchmarks.docs_sections import replace_section
from benchmarks.scale_corpus import make_corpus
from benchmarks.scale_locomo import make_locomo_corpus
from zenbrain.storage.vector_prefilter import (
    PREFILTER_CANDIDATES_PER_RESULT,
    PREFILTER_EXTRA_CANDIDATES,
    SIGN_CANDIDATES_PER_CANDIDATE,
    SIGN_CANDIDATES_SHARE,
    int8_scales,
    prefilter_candidates,
    quantize_int8,
    sign_codes,
)

__all__ = ["AnnResult", "main", "measure"]

SECTION_HEADING = "## Approximate vector search on SQLite"
DOCS = Path(__file__).resolve().parents[1] / "docs" / "benchmarks.md"
HNSW_MAX_SIZE = 200_000


@dataclass
class AnnResult:
    corpus: str
    size: int
    queries: int
    recall_limit_10: float
    recall_limit_50: float
    recall_50_limit_50: float
    int8_p50_ms: float
    float32_p50_ms: float
    hnsw_recall: float | None = None
    hnsw_p50_ms: float | None = None


def _hits(sims: np.ndarray, candidates: np.ndarray, k: int = 10) -> int:
    """How many of the exact top ``k`` are among ``candidates`` (ties count as hits)."""
    kth = float(np.partition(sims, len(sims) - k)[len(sims) - k])
    return min(k, int((sims[candidates] >= kth - 1e-6).sum()))


def measure(
    vectors: np.ndarray, queries: np.ndarray, corpus: str, *, hnsw: bool = False
) -> AnnResult:
    size = len(vectors)
    quantized = quantize_int8(vectors)
    codes = np.ascontiguousarray(sign_codes(quantized).T)  # word-major, as the cache keeps them
    scales = int8_scales(quantized)  # kept beside the rows, as the cache keeps them
    hits10 = hits50 = pool50 = 0
    int8_times: list[float] = []
    float_times: list[float] = []
    for query in queries:
        tick = time.perf_counter()
        sims = vectors @ query
        top = np.argpartition(-sims, 10)[:10]
        float_times.append(time.perf_counter() - tick)
        del top
        tick = time.perf_counter()
        candidates = prefilter_candidates(quantized, codes, query, 10, scales)
        int8_times.append(time.perf_counter() - tick)
        hits10 += _hits(sims, candidates)
        pool = prefilter_candidates(quantized, codes, query, 50, scales)
        hits50 += _hits(sims, pool)
        pool50 += _hits(sims, pool, 50)
    result = AnnResult(
        corpus=corpus,
        size=size,
        queries=len(queries),
        recall_limit_10=hits10 / (10 * len(queries)),
        recall_limit_50=hits50 / (10 * len(queries)),
        recall_50_limit_50=pool50 / (50 * len(queries)),
        int8_p50_ms=float(np.median(int8_times) * 1000),
        float32_p50_ms=float(np.median(float_times) * 1000),
    )
    if hnsw and size <= HNSW_MAX_SIZE:
        from usearch.index import Index

        index = Index(
            ndim=vectors.shape[1], metric="cos", dtype="i8", connectivity=16, expansion_search=64
        )
        index.add(np.arange(size), vectors, threads=2)
        count = PREFILTER_CANDIDATES_PER_RESULT * 10 + PREFILTER_EXTRA_CANDIDATES
        hits = 0
        times = []
        for query in queries:
            tick = time.perf_counter()
            found = index.search(query, count, threads=1)
            times.append(time.perf_counter() - tick)
            hits += _hits(vectors @ query, np.asarray(found.keys, dtype=np.int64))
        result.hnsw_recall = hits / (10 * len(queries))
        result.hnsw_p50_ms = float(np.median(times) * 1000)
    return result


def _count_text() -> str:
    per = PREFILTER_CANDIDATES_PER_RESULT
    return f"{'' if per == 1 else f'{per} × '}limit + {PREFILTER_EXTRA_CANDIDATES}"


def markdown(results: Sequence[AnnResult], command: str) -> str:
    lines = [
        SECTION_HEADING,
        "",
        f"Produced by `{command}`. Ground truth: the exact top 10 by float32 cosine over every "
        "vector. The pre-filter (what a SQLite layer of 20,000 vectors or more uses) ranks "
        "every vector by the Hamming distance of its sign bits to the query's, keeps "
        f"{SIGN_CANDIDATES_SHARE:.0%} (at least {SIGN_CANDIDATES_PER_CANDIDATE} per "
        "candidate), ranks those by int8 cosine and keeps "
        f"`{_count_text()}` candidates, which are then re-scored exactly: recall@10 is the "
        "share of the exact top 10 among those candidates, for `limit=10` and for the 50 "
        "per layer a `recall(limit=10)` asks for; recall@50 is the share of the exact top "
        "50 among the candidates for `limit=50` (the whole vector pool of a layer). "
        "Latency: p50 of the pre-filter (column "
        '"int8 scan") and of a float32 numpy scan of the same rows, interleaved query by '
        "query on the shared 2-core machine (compare the ratio). Vectors: the benchmark "
        "corpora's bag-of-words projections (384-d, close to orthogonal: a hard case for "
        "approximate search).",
        "",
        "| corpus | vectors | recall@10, limit 10 | recall@10, limit 50 | recall@50, limit 50 "
        "| int8 scan p50 (ms) | float32 scan p50 (ms) | int8 ÷ float32 "
        "| HNSW recall@10 / p50 (ms) |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in results:
        hnsw = (
            f"{r.hnsw_recall:.4f} / {r.hnsw_p50_ms:.2f}"
            if r.hnsw_recall is not None and r.hnsw_p50_ms is not None
            else "—"
        )
        lines.append(
            f"| {r.corpus} | {r.size:,} | {r.recall_limit_10:.4f} | {r.recall_limit_50:.4f} | "
            f"{r.recall_50_limit_50:.4f} | "
            f"{r.int8_p50_ms:.2f} | {r.float32_p50_ms:.2f} | "
            f"{r.int8_p50_ms / r.float32_p50_ms:.2f} | {hnsw} |"
        )
    return "\n".join(lines) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="100000,1000000")
    parser.add_argument("--corpus", choices=("synthetic", "locomo"), default="synthetic")
    parser.add_argument("--queries", type=int, default=100)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--hnsw", action="store_true")
    parser.add_argument("--write-docs", action="store_true")
    parser.add_argument("--docs", type=Path, default=DOCS)
    args = parser.parse_args(argv)
    sizes = sorted(int(s.replace("_", "")) for s in args.sizes.split(",") if s.strip())
    make = make_locomo_corpus if args.corpus == "locomo" else make_corpus
    print(f"generating {sizes[-1]:,} vectors", file=sys.stderr)
    corpus = make(sizes[-1], args.queries, seed=args.seed)
    queries = corpus.query_vectors[: args.queries]
    results = []
    from threadpoolctl import threadpool_limits

    limits = threadpool_limits(limits=1, user_api="blas")  # one thread for both scans
    for size in sizes:
        print(f"measuring {size:,}", file=sys.stderr)
        vectors = np.ascontiguousarray(corpus.memory_vectors[:size])
        results.append(measure(vectors, queries, args.corpus, hnsw=args.hnsw))
    limits.restore_original_limits()
    shown = " ".join(sys.argv[1:] if argv is None else argv)
    section = markdown(results, f"python -m benchmarks.scale_ann {shown}".strip())
    if args.write_docs:
        current = args.docs.read_text(encoding="utf-8") if args.docs.is_file() else ""
        args.docs.write_text(replace_section(current, section, SECTION_HEADING), encoding="utf-8")
    print(section)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
