"""The two pluggable parts: an embedding provider and a summariser.

Both are small runtime-checkable protocols, so any object with the right members works; no
base class needs to be inherited.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol, TypeAlias, runtime_checkable

import numpy as np
import numpy.typing as npt

__all__ = ["EmbeddingProvider", "EmbeddingVectors", "Resolver", "Summarizer"]

#: What the embed methods return. numpy arrays are listed beside nested sequences because,
#: to a type checker, an ``ndarray`` is not a ``Sequence``.
EmbeddingVectors: TypeAlias = Sequence[Sequence[float]] | npt.NDArray[np.floating[Any]]


@runtime_checkable
class EmbeddingProvider(Protocol):
    """Turns texts into vectors.

    ``model_id`` and ``dimension`` are recorded in the store the first time vectors are
    written; opening the store later with a provider that reports another model id or
    dimension is an :class:`~zenbrain.errors.EmbeddingMismatchError`.

    Both embed methods take a batch and return one vector per text, in order, each of
    length ``dimension`` (a list of lists of floats or a 2-D numpy array). Models that embed
    queries and passages differently (e5's ``query:``/``passage:`` prefixes) do so here.
    """

    @property
    def model_id(self) -> str: ...

    @property
    def dimension(self) -> int: ...

    def embed_documents(self, texts: Sequence[str]) -> EmbeddingVectors: ...

    def embed_queries(self, texts: Sequence[str]) -> EmbeddingVectors: ...


@runtime_checkable
class Summarizer(Protocol):
    """Condenses texts into one summary; consolidation uses it to turn episodes into facts."""

    def summarize(self, texts: Sequence[str]) -> str: ...


@runtime_checkable
class Resolver(Protocol):
    """Decides which older memories a new one replaces (knowledge updates), instead of the
    deterministic rules. ``candidates`` are ``(id, content)`` pairs of older memories; the
    answer is the ids of those the new memory makes outdated (a subset, possibly empty).
    Anything else is ignored, logged, and the rules decide."""

    def propose(self, new: str, candidates: Sequence[tuple[str, str]]) -> Sequence[str]: ...
