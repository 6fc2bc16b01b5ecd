"""PostgreSQL search documents change shape (memory/search/postgres.py): a ranking-only field's
terms are stored as `~term`, and the namespace is no longer a `#ns<id>` lexeme. Re-index every
kind on PostgreSQL, then VACUUM ANALYZE the index tables: the rebuild leaves a dead row behind
every live one, which searches would keep visiting until (auto)vacuum runs. Not atomic, since
VACUUM cannot run in a transaction; the re-index itself is one transaction. SQLite's FTS5
tables do not change.

The search GIN indexes also get a 256 kB pending list instead of the server's default 4 MB:
every search scans the whole pending list, and the insert that fills it merges it into the
index while its request waits (docs/OPERATIONS.md, "PostgreSQL")."""

from django.db import migrations

TABLES = ("memory_search_message", "memory_search_event", "memory_search_node")
PENDING_LIST_KB = 256


def rebuild(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    from memory.search.index import reindex_all

    for table in TABLES:
        schema_editor.execute(
            f"ALTER INDEX {table}_document SET (gin_pending_list_limit = {PENDING_LIST_KB})"
        )
    reindex_all()
    for table in TABLES:
        schema_editor.execute(f"VACUUM ANALYZE {table}")


def rebuild_old(apps, schema_editor):
    # The older code writes the older documents: run `manage.py reindex_search` after it.
    if schema_editor.connection.vendor != "postgresql":
        return
    for table in TABLES:
        schema_editor.execute(f"ALTER INDEX {table}_document RESET (gin_pending_list_limit)")


class Migration(migrations.Migration):
    atomic = False
    dependencies = [
        ("memory", "0008_message_search_window"),
    ]

    operations = [
        migrations.RunPython(rebuild, rebuild_old),
    ]
