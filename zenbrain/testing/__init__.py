"""Helpers for testing zenbrain and code built on it.

* :mod:`zenbrain.testing.fakes`: :class:`DeterministicEmbedder` and :class:`ScriptedSummarizer`.
* :mod:`zenbrain.testing.postgres`: a throwaway PostgreSQL server (import it explicitly).
"""

from zenbrain.testing.fakes import DeterministicEmbedder, ScriptedSummarizer

__all__ = ["DeterministicEmbedder", "ScriptedSummarizer"]
