"""Helpers for testing zenbrain and code built on it.

* :mod:`zenbrain.testing._fakes`: :class:`DeterministicEmbedder` and :class:`ScriptedSummarizer`.
* :mod:`zenbrain.testing.postgres`: a throwaway PostgreSQL server (import it explicitly);
  :mod:`zenbrain.testing.pytest_postgres`: pytest fixtures over it.
* :mod:`zenbrain.testing.contract`: the storage contract suite every back end passes
  (subclass :class:`~zenbrain.testing.contract.StorageContract`; needs pytest).
"""

from zenbrain.testing._fakes import DeterministicEmbedder, ScriptedSummarizer

__all__ = ["DeterministicEmbedder", "ScriptedSummarizer"]
