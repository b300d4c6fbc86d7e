"""The tables, as SQLAlchemy Core metadata shared by every back end.

All long-term memories live in one ``zb_memories`` table (one row per memory, tagged with its
namespace and layer) so that one lexical index and one vector index serve every layer;
layer-specific state sits in side tables keyed by the memory's integer ``pk``.
"""

from __future__ import annotations

from sqlalchemy import (
    DDL,
    JSON,
    BigInteger,
    Boolean,
    Column,
    ColumnElement,
    DateTime,
    Float,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    MetaData,
    PrimaryKeyConstraint,
    String,
    Table,
    Text,
    UniqueConstraint,
    event,
    literal_column,
)

__all__ = [
    "CONTENT_HASH_KEY_BLOCK",
    "SCHEMA_VERSION",
    "SUPERSEDED_BY_INDEX",
    "api_keys",
    "claim_backlog",
    "claims",
    "consolidation_links",
    "content_key_block",
    "core_blocks",
    "entities",
    "entity_links",
    "entity_mentions",
    "fact_priors",
    "fact_relations",
    "fact_replays",
    "facts",
    "interactions",
    "keyed_namespace_filter",
    "memories",
    "memory_edges",
    "meta",
    "metadata",
    "procedures",
    "sessions",
    "vector_removals",
    "vector_versions",
    "vectors",
]

SCHEMA_VERSION = 10  # the last step of zenbrain/_storage/migrations.py

metadata = MetaData()
_PK = BigInteger().with_variant(Integer, "sqlite")  # INTEGER PRIMARY KEY is SQLite's rowid

meta = Table(
    "zb_meta",
    metadata,
    Column("key", String(64), primary_key=True),
    Column("value", Text, nullable=False),
)

memories = Table(
    "zb_memories",
    metadata,
    Column("pk", _PK, primary_key=True, autoincrement=True),
    Column("id", String(36), nullable=False, unique=True),
    Column("namespace", String(200), nullable=False),
    Column("layer", String(20), nullable=False),
    Column("content", Text, nullable=False),
    Column("content_hash", BigInteger, nullable=False),  # records.content_hash(content)
    Column("context", String(200)),
    Column("conversation", String(200)),  # the session or thread it came from (v10)
    Column("emotional_weight", Float),
    Column("confidence", Float),
    Column("source", String(200)),
    Column("metadata", JSON, nullable=False),
    Column("created_at", DateTime, nullable=False),
    Column("updated_at", DateTime, nullable=False),
    # Validity over time (zenbrain._memory.validity): true from valid_from (the memory's time
    # unless given), until valid_to when a newer memory, superseded_by, replaced it.
    Column("valid_from", DateTime),
    Column("valid_to", DateTime),
    Column("superseded_by", String(36)),
    Index("zb_memories_scope_time", "namespace", "layer", "created_at"),
    sqlite_autoincrement=True,  # keys are never reused, so index caches can trust them
)

# Partial: the few replaced memories only, so a new memory's insert never touches it. Plain
# DDL (the same on both back ends), not Index(..., postgresql_where=): that would import the
# PostgreSQL dialect into every SQLite user.
SUPERSEDED_BY_INDEX = (
    "CREATE INDEX IF NOT EXISTS zb_memories_superseded_by ON zb_memories (superseded_by) "
    "WHERE superseded_by IS NOT NULL"
)
event.listen(memories, "after_create", DDL(SUPERSEDED_BY_INDEX))

CONTENT_HASH_KEY_BLOCK = 4096
"""Memories per key block of the content-hash index (see :func:`content_key_block`)."""


def content_key_block() -> ColumnElement[int]:
    """A memory's key block, ``pk / CONTENT_HASH_KEY_BLOCK`` (integer division on both back
    ends), as the content-hash index holds it and a lookup must name it.

    The content-hash index leads with the key block because hashes are random: keyed by
    (namespace, hash) alone, each new memory's entry lands on a random page of an index that
    grows with the store, so a batch of 1,000 rewrote about 500 pages of it (half of all the
    pages a batch wrote, at 100k memories). Keys grow with time, so a batch's entries share
    the newest block and its few pages. A lookup by hash then probes each block (at 1M
    memories, about 250 short index descents), which forgetting and consolidation, the only
    lookups, can afford."""
    # A literal, not a bound parameter: a plan made before the value is known (PostgreSQL's
    # generic plans of prepared statements) must still see the indexed expression.
    return memories.c.pk.op("/")(literal_column(str(CONTENT_HASH_KEY_BLOCK)))


Index(
    "zb_memories_content_by_block",
    memories.c.namespace,
    content_key_block(),
    memories.c.content_hash,
)

facts = Table(
    "zb_facts",
    metadata,
    Column("memory_pk", _PK, ForeignKey("zb_memories.pk", ondelete="CASCADE"), primary_key=True),
    Column("namespace", String(200), nullable=False),
    Column("due", DateTime, nullable=False),
    Column("card", JSON, nullable=False),
    Column("reviews", Integer, nullable=False, default=0),
    Column("access_count", Integer, nullable=False, default=0),
    Column("last_accessed", DateTime),
    Index("zb_facts_due", "namespace", "due"),
)

procedures = Table(
    "zb_procedures",
    metadata,
    Column("memory_pk", _PK, ForeignKey("zb_memories.pk", ondelete="CASCADE"), primary_key=True),
    Column("namespace", String(200), nullable=False),
    Column("trigger", Text, nullable=False),
    Column("steps", JSON, nullable=False),
    Column("tools", JSON, nullable=False),
    Column("outcome", Text, nullable=False),
    Column("success_rate", Float, nullable=False),
    Column("execution_count", Integer, nullable=False),
    Index("zb_procedures_success", "namespace", "success_rate"),
)

core_blocks = Table(
    "zb_core_blocks",
    metadata,
    Column("memory_pk", _PK, ForeignKey("zb_memories.pk", ondelete="CASCADE"), primary_key=True),
    Column("namespace", String(200), nullable=False),
    Column("label", String(200), nullable=False),
    Column("pinned", Boolean, nullable=False, default=True),
    UniqueConstraint("namespace", "label", name="zb_core_blocks_label"),
)

consolidation_links = Table(
    "zb_consolidation_links",
    metadata,
    Column("namespace", String(200), nullable=False),
    Column("episode_id", String(36), nullable=False, primary_key=True),
    Column("fact_id", String(36), nullable=False),
    Column("created_at", DateTime, nullable=False),
    Index("zb_links_fact", "namespace", "fact_id"),
)

vectors = Table(
    "zb_vectors",
    metadata,
    Column("memory_pk", _PK, ForeignKey("zb_memories.pk", ondelete="CASCADE"), primary_key=True),
    Column("namespace", String(200), nullable=False),
    Column("layer", String(20), nullable=False),
    Column("vector", LargeBinary, nullable=False),
    Index("zb_vectors_scope", "namespace", "layer"),
)

vector_versions = Table(
    "zb_vector_versions",
    metadata,
    # Bumped by every write to a scope's vectors, so a cached matrix is checked by one row.
    Column("namespace", String(200), primary_key=True),
    Column("layer", String(20), primary_key=True),
    Column("version", Integer, nullable=False),
    Column("count", Integer, nullable=False),
)

vector_removals = Table(
    "zb_vector_removals",
    metadata,
    # Vectors removed, in order, so a process holding a scope in memory drops exactly those
    # (and reads back any stored again under the same key). Pruned to the newest entries.
    Column("seq", Integer, primary_key=True, autoincrement=True),
    Column("namespace", String(200), nullable=False),
    Column("layer", String(20), nullable=False),
    Column("memory_pk", _PK, nullable=False),
    sqlite_autoincrement=True,
)

sessions = Table(
    "zb_sessions",
    metadata,
    Column("namespace", String(200), primary_key=True),
    Column("session_id", String(200), primary_key=True),
    Column("started_at", DateTime, nullable=False),
)

interactions = Table(
    "zb_interactions",
    metadata,
    Column("pk", _PK, primary_key=True, autoincrement=True),
    Column("namespace", String(200), nullable=False),
    Column("session_id", String(200), nullable=False),
    Column("role", String(50), nullable=False),
    Column("content", Text, nullable=False),
    Column("metadata", JSON, nullable=False),
    Column("created_at", DateTime, nullable=False),
    Index("zb_interactions_session", "namespace", "session_id", "pk"),
)

entities = Table(
    "zb_entities",
    metadata,
    Column("pk", _PK, primary_key=True, autoincrement=True),
    Column("namespace", String(200), nullable=False),
    Column("name", String(200), nullable=False),
    Column("key", String(200), nullable=False),
    Column("context", String(200), nullable=False),
    Column("created_at", DateTime, nullable=False),
    UniqueConstraint("namespace", "key", "context", name="zb_entities_key"),
)

entity_mentions = Table(
    "zb_entity_mentions",
    metadata,
    Column("entity_pk", _PK, ForeignKey("zb_entities.pk", ondelete="CASCADE"), primary_key=True),
    Column("memory_pk", _PK, ForeignKey("zb_memories.pk", ondelete="CASCADE"), primary_key=True),
    Index("zb_mentions_memory", "memory_pk"),
)

entity_links = Table(
    "zb_entity_links",
    metadata,
    Column("namespace", String(200), nullable=False),
    Column("entity_a", _PK, ForeignKey("zb_entities.pk", ondelete="CASCADE"), primary_key=True),
    Column("entity_b", _PK, ForeignKey("zb_entities.pk", ondelete="CASCADE"), primary_key=True),
    Column("similarity", Float, nullable=False),
    Column("created_at", DateTime, nullable=False),
)

# What each current episode and fact states (zenbrain._memory.supersede): a row per subject,
# attribute and key word of its claims, as a 64-bit hash (``about``). Finding what a new
# memory replaces is then one short index range per claim, newest first, whatever the size
# of the store; a memory's rows go when it is closed or forgotten.
claims = Table(
    "zb_claims",
    metadata,
    Column("namespace", String(200), nullable=False),
    Column("about", BigInteger, nullable=False),
    Column("memory_pk", _PK, ForeignKey("zb_memories.pk", ondelete="CASCADE"), nullable=False),
    PrimaryKeyConstraint("namespace", "about", "memory_pk", name="zb_claims_pkey"),
    Index("zb_claims_memory", "memory_pk"),
)

# Namespaces holding memories stored with knowledge updates off (``supersession=False``),
# whose claims were not read: the next store with them on reads the claims of every
# current memory from ``from_pk`` on before it decides anything.
claim_backlog = Table(
    "zb_claim_backlog",
    metadata,
    Column("namespace", String(200), primary_key=True),
    Column("from_pk", BigInteger, nullable=False),
)

# Tables of the opt-in stages (zenbrain.stages); every row hangs off a memory and is deleted
# with it.
memory_edges = Table(
    "zb_memory_edges",
    metadata,
    Column("namespace", String(200), nullable=False),
    Column("memory_a", _PK, ForeignKey("zb_memories.pk", ondelete="CASCADE"), primary_key=True),
    Column("memory_b", _PK, ForeignKey("zb_memories.pk", ondelete="CASCADE"), primary_key=True),
    Column("weight", Float, nullable=False),
    Column("updated_at", DateTime, nullable=False),
    Column("decayed_at", DateTime, nullable=False),
    Index("zb_memory_edges_b", "memory_b"),
    Index("zb_memory_edges_scope", "namespace"),
)

fact_relations = Table(
    "zb_fact_relations",
    metadata,
    Column("namespace", String(200), nullable=False),
    Column("source_pk", _PK, ForeignKey("zb_memories.pk", ondelete="CASCADE"), primary_key=True),
    Column("target_pk", _PK, ForeignKey("zb_memories.pk", ondelete="CASCADE"), primary_key=True),
    Column("relation", String(20), primary_key=True),
    Column("weight", Float, nullable=False),
    Column("created_at", DateTime, nullable=False),
    Index("zb_fact_relations_target", "target_pk"),
)

fact_priors = Table(
    "zb_fact_priors",
    metadata,
    Column("memory_pk", _PK, ForeignKey("zb_memories.pk", ondelete="CASCADE"), primary_key=True),
    Column("namespace", String(200), nullable=False),
    Column("prior", Float, nullable=False),
)

fact_replays = Table(
    "zb_fact_replays",
    metadata,
    Column("memory_pk", _PK, ForeignKey("zb_memories.pk", ondelete="CASCADE"), primary_key=True),
    Column("namespace", String(200), nullable=False),
    Column("replayed_at", DateTime, nullable=False),
    Column("replays", Integer, nullable=False),
)


def keyed_namespace_filter(namespace: str) -> ColumnElement[bool]:
    """``zb_memories.namespace = namespace`` for lookups by key (pk or id).

    Written as an expression so that SQLite's planner, which keeps no statistics by default,
    does not choose the namespace index and scan a whole namespace for a handful of keys:
    the key's own index finds the rows, and this condition only checks them.
    """
    return memories.c.namespace.op("||")("") == namespace


# The HTTP server's API keys (zenbrain.server): only a SHA-256 of each token is kept. A key
# opens one namespace, or every namespace starting with it when ``is_prefix``.
api_keys = Table(
    "zb_api_keys",
    metadata,
    Column("key_id", String(40), primary_key=True),
    Column("name", String(200), nullable=False),
    Column("namespace", String(200), nullable=False),
    Column("is_prefix", Boolean, nullable=False),
    Column("token_sha256", String(64), nullable=False),
    Column("created_at", DateTime, nullable=False),
    Column("revoked_at", DateTime, nullable=True),
)
