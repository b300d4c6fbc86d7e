"""The memory pipelines behind :class:`~zenbrain.MemoryCoordinator`, one concept each.

Every pipeline is a set of functions over a :class:`~zenbrain.memory.scope.MemoryScope`
(the namespace's repository, embedder, working memory, stages, clock and lock); the
coordinator delegates to them. SQL lives in
:mod:`zenbrain.storage.repository`, never here.

- :mod:`~zenbrain.memory.store`: validating, routing and writing memories
- :mod:`~zenbrain.memory.recall`: the recall pipeline (check, embed, search, rank, stages)
- :mod:`~zenbrain.memory.candidates`: a recall's candidates of every layer, on one scale
- :mod:`~zenbrain.memory.find`: metadata matches, atomic replace
- :mod:`~zenbrain.memory.forget`: deleting a memory with what consolidation linked to it
- :mod:`~zenbrain.memory.consolidate`: promoting emotional episodes to facts
- :mod:`~zenbrain.memory.review`: the FSRS review queue and procedure feedback
- :mod:`~zenbrain.memory.sessions`: short-term memory (sessions and interactions)
- :mod:`~zenbrain.memory.core_blocks`: the pinned core blocks
- :mod:`~zenbrain.memory.embedding`: model check, calibration floor, vector validation
- :mod:`~zenbrain.memory.namespaces`: listing and dropping namespaces
- :mod:`~zenbrain.memory.health`: per-layer counts
- :mod:`~zenbrain.memory.inspection`: score parts, provenance and dry-run forgets (read only)
"""

__all__: list[str] = []
