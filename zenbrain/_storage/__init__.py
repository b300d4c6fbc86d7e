"""zenbrain's storage, internal: nothing here is public API (reach a store through
:class:`~zenbrain.MemoryCoordinator`).

What the pipelines import sits at the top: :mod:`.database` (``Database``: opening,
migrating, transactions) and :mod:`.repository` (``Repository``: one namespace's SQL), with
the shared schema, migrations, records, reads, writes and dialect differences beside them.
Each back end has a folder of its own: :mod:`.sqlite` and :mod:`.postgres`; :mod:`.postings`
holds the in-memory postings both back ends' lexical indexes search.
"""

__all__: list[str] = []
