"""Where the benchmarks find the repository, the docs they write and the data they read.

No benchmark data lives in the repository: the public datasets and the cached embeddings
are kept in ``~/.cache/zenbrain-bench/`` (``$ZENBRAIN_BENCH_DATA``), and LoCoMo is read from
``../shared/data/locomo/locomo10.json`` beside the repository (``$ZENBRAIN_LOCOMO``).
"""

from __future__ import annotations

import os
from pathlib import Path

__all__ = [
    "BENCHMARKS_DOC",
    "BENCH_DATA_ENV_VAR",
    "DEFAULT_BENCH_DATA",
    "DEFAULT_LOCOMO_PATH",
    "DOCS_DIR",
    "LOCOMO_ENV_VAR",
    "REPO_ROOT",
    "bench_data_root",
    "default_locomo_path",
    "embeddings_dir",
]

REPO_ROOT = Path(__file__).resolve().parents[2]
DOCS_DIR = REPO_ROOT / "docs"
# The page most benchmarks write their section of (``--write-docs``).
BENCHMARKS_DOC = DOCS_DIR / "benchmarks.md"

BENCH_DATA_ENV_VAR = "ZENBRAIN_BENCH_DATA"
DEFAULT_BENCH_DATA = Path("~/.cache/zenbrain-bench")
LOCOMO_ENV_VAR = "ZENBRAIN_LOCOMO"
# Relative to the repository root: the data sits beside the repository, never inside it.
DEFAULT_LOCOMO_PATH = Path("..") / "shared" / "data" / "locomo" / "locomo10.json"


def bench_data_root() -> Path:
    """``$ZENBRAIN_BENCH_DATA`` if set, else ``~/.cache/zenbrain-bench``."""
    configured = os.environ.get(BENCH_DATA_ENV_VAR)
    return Path(configured).expanduser() if configured else DEFAULT_BENCH_DATA.expanduser()


def embeddings_dir() -> Path:
    """Where embedded texts are kept between runs: ``embeddings/`` of the data folder."""
    return bench_data_root() / "embeddings"


def default_locomo_path() -> Path:
    """``$ZENBRAIN_LOCOMO`` if set, else ``../shared/data/locomo/locomo10.json`` from the
    repository root."""
    configured = os.environ.get(LOCOMO_ENV_VAR)
    if configured:
        return Path(configured).expanduser()
    return (REPO_ROOT / DEFAULT_LOCOMO_PATH).resolve()
