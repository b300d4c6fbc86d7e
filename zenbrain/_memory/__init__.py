"""The memory pipelines behind :class:`~zenbrain.MemoryCoordinator`, one concept each.

Every pipeline is a set of functions over a :class:`~zenbrain._memory.scope.MemoryScope`
(the namespace's repository, embedder, working memory, stages, clock and lock); the
coordinator delegates to them. SQL lives in
:mod:`zenbrain._storage.repository`, never here.

- :mod:`~zenbrain._memory.store`: validating, routing and writing memories
- :mod:`~zenbrain._memory.recall`: the recall pipeline (check, embed, search, rank, stages)
- :mod:`~zenbrain._memory.candidates`: a recall's candidates of every layer, on one scale
- :mod:`~zenbrain._memory.find`: metadata matches, atomic replace
- :mod:`~zenbrain._memory.forget`: deleting a memory with what consolidation linked to it
- :mod:`~zenbrain._memory.consolidate`: promoting emotional episodes to facts
- :mod:`~zenbrain._memory.review`: the FSRS review queue and procedure feedback
- :mod:`~zenbrain._memory.sessions`: short-term memory (sessions and interactions)
- :mod:`~zenbrain._memory.core_blocks`: the pinned core blocks
- :mod:`~zenbrain._memory.embedding`: model check, calibration floor, vector validation
- :mod:`~zenbrain._memory.namespaces`: listing and dropping namespaces
- :mod:`~zenbrain._memory.health`: per-layer counts
- :mod:`~zenbrain._memory.inspection`: score parts, provenance and dry-run forgets (read only)
"""

__all__: list[str] = []
