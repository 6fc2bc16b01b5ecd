"""Write transactions that queue politely on SQLite.

SQLite lets one writer in at a time and makes the others poll with sleeps of up to 100 ms;
the web server answers requests on several threads, so concurrent requests of one process would
mostly sleep. Taking a process-wide lock first hands the database over the moment it is free.
Other processes (workers) still meet SQLite's own busy timeout. PostgreSQL needs none of this.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager

from django.db import connection, transaction

# Re-entrant: a service that owns a transaction may call another that opens its own (the
# proxy's capture stores its turn through `turn_ingest`), which then runs as a savepoint.
_SQLITE_WRITER = threading.RLock()


@contextmanager
def write_transaction() -> Iterator[None]:
    """`transaction.atomic()`, serialised per process on SQLite; nested calls are savepoints."""
    if connection.vendor != "sqlite":
        with transaction.atomic():
            yield
        return
    with _SQLITE_WRITER, transaction.atomic():
        yield


# The advisory lock class of event storing (`namespace_events_lock`); the second key is the
# namespace's id.
_EVENTS_LOCK_CLASS = 29


def namespace_events_lock(namespace_id: int) -> None:
    """Hold, until the caller's transaction ends, the namespace's lock for storing extracted
    events and applying graph proposals: two workers storing blocks of one namespace at once
    would otherwise both find no event stating a fact and both create one (one event per fact,
    `services.mentions`), and two rebuilding one node's search document would each miss the
    other's change (`services.graph.graph_apply`). A
    PostgreSQL advisory lock, so ingest (which locks the namespace's row) never waits on it;
    SQLite's write transactions already run one at a time."""
    if connection.vendor != "postgresql":
        return
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_advisory_xact_lock(%s, %s)", [_EVENTS_LOCK_CLASS, namespace_id])
