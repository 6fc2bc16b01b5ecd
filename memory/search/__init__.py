"""Full-text search over messages, events and graph nodes, on the database's own engine
(SQLite FTS5 or PostgreSQL tsvector) behind one interface (SPEC §8.1–8.2)."""

from memory.search.index import (
    index_events,
    index_messages,
    index_nodes,
    reindex_namespace,
    unindex_events,
    unindex_messages,
    unindex_nodes,
)
from memory.search.query import (
    TextHit,
    search_events,
    search_messages,
    search_nodes,
    term_weights,
)
from memory.search.text import analyze

__all__ = [
    "TextHit",
    "analyze",
    "index_events",
    "index_messages",
    "index_nodes",
    "reindex_namespace",
    "search_events",
    "search_messages",
    "search_nodes",
    "term_weights",
    "unindex_events",
    "unindex_messages",
    "unindex_nodes",
]
