"""Write helpers: transactions that queue politely on SQLite, and plain-row bulk inserts.

SQLite lets one writer in at a time and makes the others poll with sleeps of up to 100 ms;
the web server answers requests on several threads, so concurrent requests of one process would
mostly sleep. Taking a process-wide lock first hands the database over the moment it is free.
Other processes (workers) still meet SQLite's own busy timeout. PostgreSQL needs none of this.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from django.db import connection, models, transaction

_SQLITE_WRITER = threading.Lock()
# Rows per INSERT statement: far below both databases' parameter limits for any model here.
INSERT_ROWS = 500


@contextmanager
def write_transaction() -> Iterator[None]:
    """`transaction.atomic()`, serialised per process on SQLite. Not re-entrant on SQLite."""
    if connection.vendor != "sqlite":
        with transaction.atomic():
            yield
        return
    with _SQLITE_WRITER, transaction.atomic():
        yield


def insert_rows[M: models.Model](rows: list[M]) -> list[M]:
    """INSERT new rows of one model and set their ids, in input order: `bulk_create` for plain
    rows (no expressions, no conflicts), without its per-value query compilation, which was a
    third of a batch ingest's CPU. Values are converted by each field as Django would
    (`pre_save` for auto_now_add, `get_db_prep_save`); ids come back through RETURNING, in
    statement order, as Django's own bulk_create relies on for both databases. Related rows
    must be saved before a row naming them is made (its `<fk>_id` is read as it is)."""
    if not rows:
        return rows
    meta = rows[0]._meta
    fields = [f for f in meta.concrete_fields if not f.primary_key]
    quote = connection.ops.quote_name
    columns = ", ".join(quote(str(f.column)) for f in fields)
    row_marks = "(" + ", ".join(["%s"] * len(fields)) + ")"
    with connection.cursor() as cursor:
        for start in range(0, len(rows), INSERT_ROWS):
            chunk = rows[start : start + INSERT_ROWS]
            params: list[Any] = []
            for row in chunk:
                params.extend(f.get_db_prep_save(f.pre_save(row, True), connection) for f in fields)
            cursor.execute(
                f"INSERT INTO {quote(meta.db_table)} ({columns}) VALUES "
                f"{', '.join([row_marks] * len(chunk))} RETURNING {quote(str(meta.pk.column))}",
                params,
            )
            for row, (pk,) in zip(chunk, cursor.fetchall(), strict=True):
                row.pk = pk
                row._state.adding = False
                row._state.db = connection.alias
    return rows
