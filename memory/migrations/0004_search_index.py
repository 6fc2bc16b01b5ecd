"""Full-text search index tables (memory.search), one per kind, on the database's own engine.

SQLite: FTS5 tables whose rowid is the object id; columns `ns` (and `session`) carry filter
terms, the rest are the weighted fields of memory/search/documents.py, in that order. The
`ascii` tokenizer splits the space-joined analyzed terms and changes nothing else (non-ASCII
characters are always token characters); `-` (ISO dates) and `_` (the `<namespace>_` prefix
of every stored term) are token characters too.
PostgreSQL: (object_id, namespace_id, session_id, document tsvector) with a GIN index.

On both, deleting a message, event or node deletes its index row by trigger, and on
PostgreSQL a TRUNCATE (Django's test flush) empties the index too, so no index row outlives
its object. No Django models: these tables are written with SQL by memory.search only.
"""

from django.core.exceptions import ImproperlyConfigured
from django.db import migrations

KINDS = {
    # index table: (base table, has session, weighted columns)
    "memory_search_message": ("memory_message", True, ["content", "session_date"]),
    "memory_search_event": (
        "memory_event",
        False,
        ["title", "summary", "tags", "quotes", "participants", "event_type", "temporal", "dates"],
    ),
    "memory_search_node": (
        "memory_graphnode",
        False,
        [
            "name",
            "aliases",
            "tags",
            "node_type",
            "facts_current",
            "facts_historical",
            "neighbours_current",
            "neighbours_historical",
            "relations",
        ],
    ),
}


def _sqlite(table, base, has_session, columns):
    filters = ["ns", "session"] if has_session else ["ns"]
    return [
        f"CREATE VIRTUAL TABLE {table} USING fts5("
        f"{', '.join(filters + columns)}, tokenize = \"ascii tokenchars '-_'\")",
        f"CREATE TRIGGER {table}_gc AFTER DELETE ON {base} "
        f"BEGIN DELETE FROM {table} WHERE rowid = old.id; END",
    ]


def _sqlite_reverse(table, base, has_session, columns):
    return [f"DROP TRIGGER IF EXISTS {table}_gc", f"DROP TABLE IF EXISTS {table}"]


def _postgres(table, base, has_session, columns):
    return [
        f"CREATE TABLE {table} (object_id bigint PRIMARY KEY, namespace_id bigint NOT NULL, "
        f"session_id bigint NULL, document tsvector NOT NULL)",
        f"CREATE INDEX {table}_document ON {table} USING GIN (document)",
        f"CREATE INDEX {table}_namespace ON {table} (namespace_id)",
        f"CREATE FUNCTION {table}_gc() RETURNS trigger LANGUAGE plpgsql AS "
        f"$$ BEGIN DELETE FROM {table} WHERE object_id = OLD.id; RETURN OLD; END $$",
        f"CREATE TRIGGER {table}_gc AFTER DELETE ON {base} "
        f"FOR EACH ROW EXECUTE FUNCTION {table}_gc()",
        f"CREATE FUNCTION {table}_truncate() RETURNS trigger LANGUAGE plpgsql AS "
        f"$$ BEGIN DELETE FROM {table}; RETURN NULL; END $$",
        f"CREATE TRIGGER {table}_truncate AFTER TRUNCATE ON {base} "
        f"FOR EACH STATEMENT EXECUTE FUNCTION {table}_truncate()",
    ]


def _postgres_reverse(table, base, has_session, columns):
    return [
        f"DROP TRIGGER IF EXISTS {table}_truncate ON {base}",
        f"DROP TRIGGER IF EXISTS {table}_gc ON {base}",
        f"DROP FUNCTION IF EXISTS {table}_truncate()",
        f"DROP FUNCTION IF EXISTS {table}_gc()",
        f"DROP TABLE IF EXISTS {table}",
    ]


BUILDERS = {
    "sqlite": (_sqlite, _sqlite_reverse),
    "postgresql": (_postgres, _postgres_reverse),
}


def _run(schema_editor, reverse):
    vendor = schema_editor.connection.vendor
    if vendor not in BUILDERS:
        raise ImproperlyConfigured(f"StrataGate supports SQLite and PostgreSQL, not {vendor}")
    build = BUILDERS[vendor][1 if reverse else 0]
    for table, spec in KINDS.items():
        for statement in build(table, *spec):
            schema_editor.execute(statement, params=None)


def create_search_index(apps, schema_editor):
    _run(schema_editor, reverse=False)


def drop_search_index(apps, schema_editor):
    _run(schema_editor, reverse=True)


class Migration(migrations.Migration):
    dependencies = [
        ("memory", "0003_retrieval_imports"),
    ]

    operations = [
        migrations.RunPython(create_search_index, drop_search_index),
    ]
