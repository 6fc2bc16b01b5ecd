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
from functools import cache
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
    plan = _insert_plan(type(rows[0]))
    quote = connection.ops.quote_name
    columns = ", ".join(quote(str(f.column)) for f, _ in plan)
    row_marks = "(" + ", ".join(["%s"] * len(plan)) + ")"
    with connection.cursor() as cursor:
        for start in range(0, len(rows), INSERT_ROWS):
            chunk = rows[start : start + INSERT_ROWS]
            params: list[Any] = []
            for row in chunk:
                params.extend(_db_value(row, field, kind) for field, kind in plan)
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


# Field classes whose conversion for the database returns a value of this exact Python type
# unchanged, on SQLite and PostgreSQL (`int(x)`, `str` via `to_python`, `bool`): such a value,
# or None, is passed as it is, which saves a third of the conversion work of a batch ingest.
# Anything else (dates, JSON, a subclass, a value of another type) goes through the field.
_PASSED_AS_IS: dict[type[models.Field[Any, Any]], type] = {
    models.IntegerField: int,
    models.BigIntegerField: int,
    models.SmallIntegerField: int,
    models.PositiveIntegerField: int,
    models.PositiveBigIntegerField: int,
    models.PositiveSmallIntegerField: int,
    models.BigAutoField: int,
    models.AutoField: int,
    models.CharField: str,
    models.TextField: str,
    models.BooleanField: bool,
}


@cache
def _insert_plan(model: type[models.Model]) -> list[tuple[models.Field[Any, Any], type | None]]:
    """The model's inserted fields, each with the Python type its values may keep as they are
    (a foreign key's is its target's), or None."""
    plan: list[tuple[models.Field[Any, Any], type | None]] = []
    for field in model._meta.concrete_fields:
        if field.primary_key:
            continue
        target = field.target_field if isinstance(field, models.ForeignKey) else field
        plan.append((field, _PASSED_AS_IS.get(type(target))))
    return plan


def _db_value(row: models.Model, field: models.Field[Any, Any], kind: type | None) -> Any:
    if kind is not None:
        value = getattr(row, field.attname)
        if value is None or type(value) is kind:
            return value
    return field.get_db_prep_save(field.pre_save(row, True), connection)
