"""The SQLite back end's vector pre-filter: numpy kernels over one scope's vectors.

Vectors are quantised to int8 (each row scaled so its largest component is ±127), and the
signs of each unit-length vector minus the scope's centre (the mean of its first rows) are
packed into 64-bit words. A search ranks every row by the Hamming distance of its sign bits
to the query's, re-ranks the closest few percent by int8 cosine and returns a few times more
candidates than asked, which the caller re-scores exactly
(:class:`~zenbrain._storage.sqlite.vectors.SqliteVectorIndex` reads their float32 vectors
back). ``benchmarks.scale.ann`` measures how often the true neighbours are among them.

Why the centre: many embedding models place every text in a narrow cone (multilingual-e5's
vectors share most of their direction: two unrelated texts have a cosine near 0.8), so most
components have the same sign in every vector and their bits tell rows apart no better than
chance. Signs taken around the centre split each component where the rows actually differ.

Every product here runs on the calling thread (:func:`dot_rows`).
"""

from __future__ import annotations

import numpy as np

__all__ = [
    "CENTRE_SAMPLE_ROWS",
    "PREFILTER_CANDIDATES_PER_RESULT",
    "PREFILTER_EXTRA_CANDIDATES",
    "SIGN_CANDIDATES_PER_CANDIDATE",
    "SIGN_CANDIDATES_SHARE",
    "SIGN_MIN_DIMENSION",
    "centred_codes",
    "code_centre",
    "code_words",
    "dot_rows",
    "int8_candidates",
    "int8_scales",
    "prefilter_candidates",
    "quantize_int8",
    "sign_codes",
    "top_positions",
]

PREFILTER_CANDIDATES_PER_RESULT = 1
PREFILTER_EXTRA_CANDIDATES = 20
# Rows re-ranked by int8 cosine after the sign-bit scan: this many per candidate, and at
# least this share of the scope (benchmarks.scale.ann measures the recall this gives).
SIGN_CANDIDATES_PER_CANDIDATE = 32
SIGN_CANDIDATES_SHARE = 0.03
# Fewer sign bits than this say too little about a row: such vectors are scanned as int8.
SIGN_MIN_DIMENSION = 256
_RERANK_CHUNK = 4096  # rows re-ranked per float32 product (6 MB at 384 dimensions)
CENTRE_SAMPLE_ROWS = 4096
"""Rows whose mean is a scope's centre (:func:`code_centre`): the first this many it holds."""


def quantize_int8(rows: np.ndarray) -> np.ndarray:
    """Each row scaled so its largest component is ±127, rounded to int8. Cosine similarity
    does not depend on a row's length, so the factor each row was scaled by is not kept."""
    rows = np.asarray(rows, dtype=np.float32)
    if rows.ndim == 1:
        rows = rows[None, :]
    peaks = np.abs(rows).max(axis=1, keepdims=True)
    peaks[peaks == 0] = 1.0
    return np.rint(rows * (127.0 / peaks)).astype(np.int8)


def _candidate_count(rows: int, limit: int) -> int:
    return min(rows, PREFILTER_CANDIDATES_PER_RESULT * limit + PREFILTER_EXTRA_CANDIDATES)


def int8_candidates(rows: np.ndarray, query: np.ndarray, limit: int) -> np.ndarray:
    """Positions of the int8 ``rows`` closest to ``query`` by cosine, ``limit + 20`` of
    them (or all rows), from usearch's exact (brute-force) SIMD scan on one thread."""
    from usearch.index import MetricKind, search

    count = _candidate_count(len(rows), limit)
    if count <= 0:
        return np.zeros(0, dtype=np.int64)
    found = search(rows, quantize_int8(query)[0], count, MetricKind.Cos, exact=True, threads=1)
    return np.asarray(found.keys, dtype=np.int64)


def int8_scales(rows: np.ndarray) -> np.ndarray:
    """``1 / |row|`` of each int8 row (float32; 0 for a row of zeros): a row's dot product
    with the query times its scale ranks it by cosine."""
    norms = np.sqrt(np.einsum("ij,ij->i", rows, rows, dtype=np.float32, casting="unsafe"))
    scales = np.zeros(len(norms), dtype=np.float32)
    np.divide(1.0, norms, out=scales, where=norms > 0)
    return scales


def code_words(dimension: int) -> int:
    """How many 64-bit words hold the sign bits of a vector of ``dimension`` components."""
    return -(-dimension // 64)


def sign_codes(rows: np.ndarray) -> np.ndarray:
    """Each row's sign bits (component > 0), packed into 64-bit words."""
    rows = np.atleast_2d(rows)
    bits = np.packbits(rows > 0, axis=1)
    padded = np.zeros((len(rows), code_words(rows.shape[1]) * 8), dtype=np.uint8)
    padded[:, : bits.shape[1]] = bits
    return padded.view(np.uint64)


def _unit_rows(rows: np.ndarray) -> np.ndarray:
    rows = np.atleast_2d(np.asarray(rows, dtype=np.float32))
    norms = np.linalg.norm(rows, axis=1, keepdims=True)
    return np.divide(rows, norms, out=np.zeros_like(rows), where=norms > 0)


def code_centre(rows: np.ndarray) -> np.ndarray:
    """The mean of the unit-length ``rows`` (float32; zeros for no rows): the point the
    sign bits of :func:`centred_codes` are taken around."""
    if len(rows) == 0:
        return np.zeros(np.shape(rows)[-1], dtype=np.float32)
    return np.asarray(_unit_rows(rows).mean(axis=0), dtype=np.float32)


def centred_codes(rows: np.ndarray, centre: np.ndarray) -> np.ndarray:
    """:func:`sign_codes` of each unit-length row minus ``centre``."""
    return sign_codes(_unit_rows(rows) - centre)


_BITS_IN_BYTE = np.array([bin(byte).count("1") for byte in range(256)], dtype=np.uint8)


def _popcount(words: np.ndarray) -> np.ndarray:
    """Set bits of each 64-bit word (numpy's own kernel from numpy 2.0)."""
    if hasattr(np, "bitwise_count"):
        return np.asarray(np.bitwise_count(words))
    per_byte = _BITS_IN_BYTE[words.view(np.uint8)].reshape(*words.shape, 8)
    return per_byte.sum(axis=-1, dtype=np.uint8)


def _hamming(codes: np.ndarray, query_code: np.ndarray) -> np.ndarray:
    """Hamming distance of every row's code (``codes`` word-major) to the query's, one word
    at a time over contiguous runs (a row-major reduction costs three times more)."""
    distances = np.zeros(codes.shape[1], dtype=np.uint16)
    differing = np.empty(codes.shape[1], dtype=np.uint64)
    for word in range(codes.shape[0]):
        np.bitwise_xor(codes[word], query_code[word], out=differing)
        distances += _popcount(differing)
    return distances


def _nearest_codes(distances: np.ndarray, wide: int) -> np.ndarray:
    """Positions of the ``wide`` smallest distances (positions first on ties). Distances are
    a few hundred values at most: a histogram finds the cut faster than a partition."""
    counts = np.cumsum(np.bincount(distances))
    cut = int(np.searchsorted(counts, wide))
    near = np.flatnonzero(distances <= cut)  # one pass over every row; the rest over these
    if len(near) == wide:
        return near
    at_cut = distances[near] == cut
    keep = ~at_cut
    keep[np.flatnonzero(at_cut)[: wide - (len(near) - int(at_cut.sum()))]] = True
    return near[keep]


def prefilter_candidates(
    rows: np.ndarray,
    codes: np.ndarray,
    query: np.ndarray,
    limit: int,
    scales: np.ndarray | None = None,
    centre: np.ndarray | None = None,
) -> np.ndarray:
    """Positions of the int8 ``rows`` (with their :func:`centred_codes` around ``centre``,
    word-major: the transpose, and their :func:`int8_scales` if kept) closest to
    ``query``, ``limit + 20`` of them: the rows nearest by Hamming distance of sign bits
    (3% of the rows, at least 32 per candidate), re-ranked by int8 cosine. Nearest first.
    Vectors of fewer than :data:`SIGN_MIN_DIMENSION` dimensions, and scopes that small,
    are scanned as int8 (:func:`int8_candidates`)."""
    count = _candidate_count(len(rows), limit)
    if count <= 0:
        return np.zeros(0, dtype=np.int64)
    quantized = quantize_int8(query)
    wide = max(SIGN_CANDIDATES_PER_CANDIDATE * count, int(len(rows) * SIGN_CANDIDATES_SHARE))
    if wide >= len(rows) or rows.shape[1] < SIGN_MIN_DIMENSION:
        return int8_candidates(rows, query, limit)
    # Without a centre, the codes are the int8 rows' own signs (:func:`sign_codes`).
    query_code = (sign_codes(quantized) if centre is None else centred_codes(query, centre))[0]
    near = _nearest_codes(_hamming(codes, query_code), wide)
    # float32 products on this thread cost less than a usearch call; a chunk at a time, so
    # the float32 copy stays small however many rows a large scope keeps (3% of a million).
    target = quantized[0].astype(np.float32)
    cosines = np.empty(len(near), dtype=np.float32)
    for begin in range(0, len(near), _RERANK_CHUNK):
        part = near[begin : begin + _RERANK_CHUNK]
        chosen = rows[part]
        scale = scales[part] if scales is not None else int8_scales(chosen)
        cosines[begin : begin + len(part)] = dot_rows(chosen.astype(np.float32), target) * scale
    return near[top_positions(cosines, count)]


def dot_rows(rows: np.ndarray, query: np.ndarray) -> np.ndarray:
    """``rows @ query``, computed on the calling thread. numpy's ``@`` hands a product of
    more than a few thousand elements to OpenBLAS, whose threads then spin on every core
    for a while after each call: each search would keep the other cores busy for nothing
    (twice the CPU time of a recall on two cores, for the same wall time)."""
    if hasattr(np, "vecdot"):  # numpy 2: a loop of its own, no BLAS threads
        return np.asarray(np.vecdot(rows, query))
    return np.einsum("ij,j->i", rows, query)


def top_positions(scores: np.ndarray, limit: int) -> np.ndarray:
    """Positions of the ``limit`` highest scores, highest first (stable on ties)."""
    k = min(limit, len(scores))
    if k <= 0:
        return np.zeros(0, dtype=np.int64)
    top = np.argpartition(-scores, k - 1)[:k] if k < len(scores) else np.arange(len(scores))
    return top[np.argsort(-scores[top], kind="stable")]
