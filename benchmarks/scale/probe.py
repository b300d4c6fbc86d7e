"""A fresh process that opens a benchmark store and recalls, reporting its peak RSS.

``QUERIES.npz`` holds ``texts`` and their precomputed ``vectors``. Prints one JSON line:
``{"peak_rss_bytes": ..., "recalls": ..., "p50_ms": ...}``. The process imports nothing but
zenbrain and numpy, so its peak is what a recalling application would need for this store.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import json
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from zenbrain import MemoryCoordinator

__all__ = ["QueryEmbedder", "main", "peak_rss_bytes", "reset_peak_rss", "rss_bytes"]

NAMESPACE = "bench"  # as benchmarks.scale.systems stores


def rss_bytes() -> int:
    """This process's resident set size now (``VmRSS``; 0 where /proc is missing)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    return 0


def reset_peak_rss() -> None:
    """Make ``VmHWM`` start again from the current RSS (Linux 4.0+)."""
    with contextlib.suppress(OSError):
        Path("/proc/self/clear_refs").write_text("5")


def peak_rss_bytes() -> int:
    """This process's peak resident set size (``VmHWM``)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) * 1024
    import resource

    return int(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss) * 1024


class QueryEmbedder:
    """The benchmark's vectors for the queries; any other text (zenbrain's calibration
    sentences) gets a seeded random unit vector. Same model id as the loading embedder."""

    def __init__(self, texts: Sequence[str], vectors: np.ndarray) -> None:
        self.table = dict(zip(texts, vectors.astype(np.float32), strict=True))
        self._dimension = int(vectors.shape[1])

    @property
    def model_id(self) -> str:
        return f"scale-bench-bag-of-words-{self._dimension}"

    @property
    def dimension(self) -> int:
        return self._dimension

    def _vector(self, text: str) -> np.ndarray:
        found = self.table.get(text)
        if found is not None:
            return found
        seed = int.from_bytes(hashlib.blake2b(text.encode(), digest_size=8).digest(), "big")
        vector = np.random.default_rng(seed).standard_normal(self._dimension).astype(np.float32)
        return vector / np.linalg.norm(vector)

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        return np.vstack([self._vector(t) for t in texts]).astype(np.float32)

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        return self.embed_documents(texts)


def main(argv: Sequence[str] | None = None) -> int:
    # Not benchmarks.runner.Command: this process imports nothing but zenbrain and numpy.
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks scale.probe",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("store")
    parser.add_argument("queries", type=Path)
    parser.add_argument("--hybrid", action="store_true")
    args = parser.parse_args(argv)
    spec = np.load(args.queries)
    texts = [str(t) for t in spec["texts"]]
    embedder = QueryEmbedder(texts, spec["vectors"]) if args.hybrid else None
    latencies = []
    with MemoryCoordinator(args.store, namespace=NAMESPACE, embedder=embedder) as memory:
        for text in texts:
            tick = time.perf_counter()
            memory.recall(text, limit=10)
            latencies.append(time.perf_counter() - tick)
    print(
        json.dumps(
            {
                "peak_rss_bytes": peak_rss_bytes(),
                "recalls": len(latencies),
                "p50_ms": float(np.median(latencies) * 1000) if latencies else None,
            }
        )
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
