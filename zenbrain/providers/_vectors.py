"""Input checks and vector helpers shared by the built-in embedding providers."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from zenbrain.errors import InvalidInputError

__all__ = ["EmbeddingMatrix", "as_text_list", "check_dimension", "l2_normalise_rows"]

EmbeddingMatrix = npt.NDArray[np.float32]


def as_text_list(texts: Sequence[str], *, what: str = "texts") -> list[str]:
    """``texts`` as a list, or InvalidInputError if it is a bare string or holds a non-string.

    A bare string is refused rather than embedded character by character, the classic slip.
    """
    if isinstance(texts, str | bytes):
        raise InvalidInputError(
            f"{what} must be a sequence of strings, got a single {type(texts).__name__}; "
            f"wrap it in a list: [{texts[:40]!r}]"
        )
    try:
        items = list(texts)
    except TypeError:
        raise InvalidInputError(
            f"{what} must be a sequence of strings, got {type(texts).__name__}"
        ) from None
    for position, item in enumerate(items):
        if not isinstance(item, str):
            raise InvalidInputError(f"{what}[{position}] must be a str, got {type(item).__name__}")
    return items


def check_dimension(dimension: object, *, minimum: int = 1) -> int:
    """``dimension`` if it is an int >= ``minimum``, else InvalidInputError."""
    if isinstance(dimension, bool) or not isinstance(dimension, int):
        raise InvalidInputError(f"dimension must be an int, got {dimension!r}")
    if dimension < minimum:
        raise InvalidInputError(f"dimension must be >= {minimum}, got {dimension}")
    return dimension


def l2_normalise_rows(matrix: npt.ArrayLike) -> EmbeddingMatrix:
    """Rows scaled to unit length as float32; all-zero rows stay zero instead of turning NaN."""
    array = np.asarray(matrix, dtype=np.float64)
    norms = np.linalg.norm(array, axis=1, keepdims=True)
    safe = np.where(norms > 0.0, norms, 1.0)
    return (array / safe).astype(np.float32)
