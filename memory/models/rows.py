"""Plain rows for the per-request hot path: bulk inserts and reads that give the ORM's own
results without its per-query compilation (measured in benchmarks/README.md: a third of a batch
ingest's CPU, a seventh of a web process's). Values are converted by each field exactly as the
ORM converts them; no domain logic here. Used by services and by the search index."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from datetime import datetime
from functools import cache
from typing import Any, cast

from django.conf import settings
from django.db import DEFAULT_DB_ALIAS, connection, connections, models
from django.utils.dateparse import parse_datetime

# Rows per INSERT statement: far below both databases' parameter limits for any model here.
INSERT_ROWS = 500
# psycopg remembers how it split a statement into text and placeholders for statements of at
# most this many placeholders (and 4 kB); longer ones are split again, in Python, every time.
CACHED_PLACEHOLDERS = 50


def insert_rows[M: models.Model](rows: list[M]) -> list[M]:
    """INSERT new rows of one model and set their ids, in input order: `bulk_create` for plain
    rows (no expressions, no conflicts), without its per-value query compilation, which was a
    third of a batch ingest's CPU. Values are converted by each field as Django would
    (`pre_save` for auto_now_add, `get_db_prep_save`); ids come back through RETURNING, in
    statement order, as Django's own bulk_create relies on for both databases. Related rows
    must be saved before a row naming them is made (its `<fk>_id` is read as it is)."""
    if not rows:
        return rows
    plan = _insert_plan(type(rows[0]))
    values = [[_db_value(row, field, kind) for field, kind in plan] for row in rows]
    ids = _insert(type(rows[0]), [field for field, _ in plan], values, returning=True)
    for row, pk in zip(rows, ids, strict=True):
        row.pk = pk
        row._state.adding = False
        row._state.db = connection.alias
    return rows


def _insert(
    model: type[models.Model],
    fields: Sequence[models.Field[Any, Any]],
    values: Sequence[Sequence[Any]],
    *,
    returning: bool,
) -> list[Any]:
    """INSERT rows of database values, INSERT_ROWS per statement; their ids in statement order
    when `returning`."""
    quote = connection.ops.quote_name
    table = quote(model._meta.db_table)
    columns = ", ".join(quote(str(field.column)) for field in fields)
    row_marks = "(" + ", ".join(["%s"] * len(fields)) + ")"
    back = f" RETURNING {quote(str(model._meta.pk.column))}" if returning else ""
    arrays = _unnest_arrays(fields) if connection.vendor == "postgresql" else None
    ids: list[Any] = []
    with connection.cursor() as cursor:
        for start in range(0, len(values), INSERT_ROWS):
            chunk = values[start : start + INSERT_ROWS]
            if arrays is not None and len(chunk) * len(fields) > CACHED_PLACEHOLDERS:
                # One array per column, as Django's bulk_create does on PostgreSQL: psycopg
                # parses a statement of more placeholders in Python on every call (2.8 ms for
                # a graph search's 70 refs), and PostgreSQL plans it longer.
                cursor.execute(
                    f"INSERT INTO {table} ({columns}) SELECT * FROM unnest({arrays}){back}",
                    [list(column) for column in zip(*chunk, strict=True)],
                )
            else:
                listed = ", ".join([row_marks] * len(chunk))
                cursor.execute(
                    f"INSERT INTO {table} ({columns}) VALUES {listed}{back}",
                    [value for row in chunk for value in row],
                )
            if returning:
                ids.extend(pk for (pk,) in cursor.fetchall())
    return ids


def _unnest_arrays(fields: Sequence[models.Field[Any, Any]]) -> str | None:
    """`%s::<type>[], …`, one typed array per field, or None when a field's values cannot go
    through an array (Django's own test in its PostgreSQL `SQLInsertCompiler`)."""
    return _unnest_arrays_for(tuple(fields), connection.vendor)


@cache
def _unnest_arrays_for(fields: tuple[models.Field[Any, Any], ...], vendor: str) -> str | None:
    for field in fields:
        target = field.target_field if isinstance(field, models.ForeignKey) else field
        if (
            hasattr(field, "get_placeholder_sql")
            or target.get_internal_type() not in connection.data_types
        ):
            return None
    # The type without its parameters: varchar[] rather than varchar(50)[] (no truncation).
    return ", ".join(f"%s::{str(field.db_type(connection)).split('(')[0]}[]" for field in fields)


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
    models.FloatField: float,
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
    # A field of a plain kind saves its attribute as it is (`Field.pre_save`).
    value = getattr(row, field.attname) if kind is not None else field.pre_save(row, True)
    return _prepared(value, field, kind)


def _prepared(value: Any, field: models.Field[Any, Any], kind: type | None) -> Any:
    """The database value: as it is when the field's kind passes it so (None included), else
    converted by the field."""
    if kind is not None and (value is None or type(value) is kind):
        return value
    return field.get_db_prep_save(value, connection)


def insert_values(
    model: type[models.Model], names: Sequence[str], rows: Sequence[Sequence[Any]]
) -> None:
    """INSERT rows of one model given as values (in the order of `names`: every inserted
    field's attname), without an instance per row: a graph search records ~70 refs, and making
    their instances cost more than inserting them. Values are converted as `insert_rows`
    converts them; for models none of whose fields sets its own value on save (auto_now)."""
    if not rows:
        return
    plan = {field.attname: (field, kind) for field, kind in _insert_plan(model)}
    if sorted(names) != sorted(plan) or any(
        getattr(field, "auto_now", False) or getattr(field, "auto_now_add", False)
        for field, _ in plan.values()
    ):
        raise ValueError(f"insert_values needs every field of {model.__name__}, none auto_now")
    order = [plan[name] for name in names]
    values = [
        [_prepared(value, *entry) for value, entry in zip(row, order, strict=True)] for row in rows
    ]
    _insert(model, [field for field, _ in order], values, returning=False)


# Values per `IN (…)` list in plain SQL: well under SQLite's 32,766 and PostgreSQL's 65,535
# parameters per statement.
IN_CHUNK = 5000


def _concrete(model: type[models.Model], name: str) -> models.Field[Any, Any]:
    field = model._meta.get_field(name)
    if not isinstance(field, models.Field) or not field.concrete:
        raise ValueError(f"{model.__name__}.{name} is no column")
    return field


def update_row(model: type[models.Model], pk: Any, /, **values: Any) -> None:
    """UPDATE one row's fields (by name, or `<fk>_id`), each value converted as the field saves
    it (`get_db_prep_save`): what `Model.objects.filter(pk=pk).update(...)` does for plain
    values, without compiling a query."""
    quote = connection.ops.quote_name
    fields = [_concrete(model, name) for name in values]
    sets = ", ".join(f"{quote(str(field.column))} = %s" for field in fields)
    params = [
        field.get_db_prep_save(value, connection)
        for field, value in zip(fields, values.values(), strict=True)
    ]
    with connection.cursor() as cursor:
        cursor.execute(
            f"UPDATE {quote(model._meta.db_table)} SET {sets} "
            f"WHERE {quote(str(model._meta.pk.column))} = %s",
            [*params, pk],
        )


def in_chunks[T](values: Sequence[T]) -> Iterator[Sequence[T]]:
    """`values` in slices of at most IN_CHUNK, for one `IN (…)` statement each."""
    for start in range(0, len(values), IN_CHUNK):
        yield values[start : start + IN_CHUNK]


def marks(values: Sequence[Any]) -> str:
    """`%s, %s, …`: one placeholder per value, for `IN (…)` in plain SQL (never empty: an
    empty list gives `NULL`, which matches nothing)."""
    return ", ".join(["%s"] * len(values)) or "NULL"


def read_rows(sql: str, params: Sequence[Any]) -> list[tuple[Any, ...]]:
    """Plain rows of plain SQL, for values no field converts (ids, strings, integers)."""
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return cursor.fetchall()


Converter = Callable[[Any, Any, Any], Any]
Conversion = tuple[Any, list[Converter]]  # (the column expression, its converters)


def _conversion(field: models.Field[Any, Any], alias: str) -> Conversion:
    """The converters a compiled query applies to the field's column (the backend's, then the
    field's), as Django's compiler gathers them."""
    return _conversion_for(field, alias, connection.vendor, settings.USE_TZ)


@cache
def _conversion_for(
    field: models.Field[Any, Any], alias: str, vendor: str, use_tz: bool
) -> Conversion:
    """Once per field, alias, database vendor (whose backend supplies converters) and USE_TZ."""
    column = field.get_col(alias)
    return column, [
        _faster(convert, vendor, use_tz)
        for convert in [
            *connection.ops.get_db_converters(column),
            *column.get_db_converters(connection),
        ]
    ]


def _faster(convert: Converter, vendor: str, use_tz: bool) -> Converter:
    """SQLite's datetime converter, without its two settings reads per value: plain-SQL reads
    of facts, edges and events convert thousands of timestamps a second, and reading
    `settings.USE_TZ` through its lazy wrapper was most of that (py-spy of the model proxy).
    The same result as `convert_datetimefield_value`: a string is parsed as `parse_datetime`
    parses it, a naive value made aware in the connection's time zone."""
    # Recognised by name: importing SQLite's backend here would load it under PostgreSQL too.
    if vendor != "sqlite" or getattr(convert, "__name__", "") != "convert_datetimefield_value":
        return convert

    def datetime_value(value: Any, expression: Any, conn: Any) -> Any:
        if value is None:
            return None
        if not isinstance(value, datetime):
            value = parse_datetime(value)
        if use_tz and value.tzinfo is None:
            value = value.replace(tzinfo=conn.timezone)
        return value

    return datetime_value


@cache
def _read_plan(
    model: type[models.Model], alias: str, vendor: str
) -> tuple[str, list[str], list[Conversion]]:
    """The select list of the model's columns (qualified by `alias`), their attribute names and
    their conversions."""
    fields = model._meta.concrete_fields
    quote = connection.ops.quote_name
    select = ", ".join(f"{alias}.{quote(str(f.column))}" for f in fields)
    return select, [f.attname for f in fields], [_conversion(f, alias) for f in fields]


def _converted(rows: list[tuple[Any, ...]], conversions: Sequence[Conversion]) -> list[list[Any]]:
    """Each row's values converted as Django's compiler converts them (`apply_converters`):
    only the columns that have converters are touched, each converter in turn."""
    todo = [
        (i, column, converters) for i, (column, converters) in enumerate(conversions) if converters
    ]
    # The connection itself, not `django.db.connection`: each attribute read through that
    # proxy looks the connection up again in its context-local storage (the datetime converter
    # reads its time zone once per value).
    conn = connections[DEFAULT_DB_ALIAS]
    found = []
    for row in rows:
        values = list(row)
        for i, column, converters in todo:
            value = values[i]
            for convert in converters:
                value = convert(value, column, conn)
            values[i] = value
        found.append(values)
    return found


def columns_of(
    model: type[models.Model], names: Sequence[str], alias: str
) -> list[tuple[models.Field[Any, Any], str]]:
    """The named concrete fields of `model` (names or attnames), each with `alias`, for
    `read_values`."""
    return [(cast(models.Field[Any, Any], model._meta.get_field(n)), alias) for n in names]


def read_values(
    columns: Sequence[tuple[models.Field[Any, Any], str]], rest: str, params: Sequence[Any]
) -> list[tuple[Any, ...]]:
    """`SELECT <each field's column, qualified by its table's alias> <rest>` as tuples, each
    value converted as the ORM converts that field's (what `values_list` gives, without the
    per-query compilation)."""
    quote = connection.ops.quote_name
    select = ", ".join(f"{alias}.{quote(str(field.column))}" for field, alias in columns)
    conversions = [_conversion(field, alias) for field, alias in columns]
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT {select} {rest}", params)
        rows = cursor.fetchall()
    return [tuple(values) for values in _converted(rows, conversions)]


def read_models[M: models.Model](
    model: type[M], alias: str, rest: str, params: list[Any]
) -> list[M]:
    """`SELECT <every column of model> FROM <its table> <alias> <rest>` as model instances, with
    each value converted as the ORM converts it: what `Model.objects.raw` gives, without its
    per-query set-up (column introspection, init order, a compiler), which was a seventh of a
    web process's CPU when every API request made two such reads. `rest` names the table's
    `alias` for its joins and conditions."""
    return [m for m, _ in read_models_with(model, alias, rest, params, ())]


def read_by_id[M: models.Model](model: type[M], ids: Sequence[int]) -> dict[int, M]:
    """id → instance for those of `ids` that exist: what `model.objects.in_bulk(ids)` gives,
    through `read_models` (IN_CHUNK ids per statement)."""
    found: dict[int, M] = {}
    for chunk in in_chunks(list(dict.fromkeys(ids))):
        for row in read_models(model, "r", f"WHERE r.id IN ({marks(chunk)})", list(chunk)):
            found[row.pk] = row
    return found


def read_joined[M: models.Model](
    model: type[M],
    alias: str,
    rest: str,
    params: list[Any],
    related: Sequence[tuple[type[models.Model], str]],
) -> list[tuple[M, list[models.Model | None]]]:
    """`read_models`, each instance with instances of the `related` (model, table alias) that
    `rest` joins, in that order: what `select_related` reads in its one query. A related row
    whose id is NULL (a LEFT JOIN that found none) is None."""
    quote = connection.ops.quote_name
    also = [
        (f"{table}.{quote(str(f.column))}", f, table)
        for other, table in related
        for f in other._meta.concrete_fields
    ]
    # Per related model: its attnames and the position of its id among them.
    layouts = []
    for other, _ in related:
        names = [f.attname for f in other._meta.concrete_fields]
        layouts.append((other, names, names.index(other._meta.pk.attname)))
    found = []
    for instance, values in read_models_with(model, alias, rest, params, also):
        joined: list[models.Model | None] = []
        for other, names, pk_at in layouts:
            mine, values = values[: len(names)], values[len(names) :]
            pk = mine[pk_at]
            joined.append(None if pk is None else other.from_db(connection.alias, names, mine))
        found.append((instance, joined))
    return found


def read_models_with[M: models.Model](
    model: type[M],
    alias: str,
    rest: str,
    params: list[Any],
    also: Sequence[tuple[str, models.Field[Any, Any], str]],
) -> list[tuple[M, list[Any]]]:
    """`read_models`, each instance with the values of `also`: (a column of a joined table,
    its field, that table's alias), converted as that field's."""
    select, names, conversions = _read_plan(model, alias, connection.vendor)
    extra = [_conversion(field, table) for _, field, table in also]
    columns = ", ".join([select, *(column for column, _, _ in also)])
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT {columns} FROM {model._meta.db_table} {alias} {rest}", params)
        rows = cursor.fetchall()
    width = len(names)
    return [
        (model.from_db(connection.alias, names, values[:width]), values[width:])
        for values in _converted(rows, [*conversions, *extra])
    ]
