"""Search documents hold redacted text (memory/search/documents.py `_terms`): an index with a
secret's words let a search for part of a secret confirm it exists. Rebuild every index row of
every namespace from the rows (`reindex_all`: the rows of deleted namespaces go too), then
drop what the old rows left behind: on SQLite FTS5 a deleted row's terms stay in the index's
segments until they are merged, so each table is merged into one segment ('optimize'); on
PostgreSQL the rebuild leaves a dead row behind every live one, so VACUUM ANALYZE, as 0009
does. Not atomic, since VACUUM cannot run in a transaction; the rebuild itself is one
transaction. Going back needs nothing: the older code reads these rows as they are."""

from django.db import migrations

TABLES = ("memory_search_message", "memory_search_event", "memory_search_node")


def rebuild(apps, schema_editor):
    from memory.search.index import reindex_all

    reindex_all()
    vendor = schema_editor.connection.vendor
    for table in TABLES:
        if vendor == "sqlite":
            schema_editor.execute(f"INSERT INTO {table}({table}) VALUES('optimize')")
        elif vendor == "postgresql":
            schema_editor.execute(f"VACUUM ANALYZE {table}")


class Migration(migrations.Migration):
    atomic = False
    dependencies = [
        ("memory", "0011_grants_installation_tokens"),
    ]

    operations = [
        migrations.RunPython(rebuild, migrations.RunPython.noop),
    ]
