"""Message search documents gain the speaker's name and the neighbouring messages' text
(memory/search/documents.py). SQLite: the FTS5 table is rebuilt with the new columns;
PostgreSQL keeps one tsvector per row. Both re-index every message. Messages also get an
index on (session, id): the neighbour look-ups walk it."""

from django.db import migrations, models

COLUMNS = ["content", "session_date", "speaker", "before", "after"]


def rebuild(apps, schema_editor):
    from memory.search.index import reindex_messages

    if schema_editor.connection.vendor == "sqlite":
        schema_editor.execute("DROP TABLE IF EXISTS memory_search_message")
        schema_editor.execute(
            "CREATE VIRTUAL TABLE memory_search_message USING fts5("
            f"ns, session, {', '.join(COLUMNS)}, tokenize = \"ascii tokenchars '-_'\")"
        )
    reindex_messages()


def rebuild_old(apps, schema_editor):
    # Back to the old columns, empty: run `manage.py reindex_search` after migrating back.
    if schema_editor.connection.vendor == "sqlite":
        schema_editor.execute("DROP TABLE IF EXISTS memory_search_message")
        schema_editor.execute(
            "CREATE VIRTUAL TABLE memory_search_message USING fts5("
            "ns, session, content, session_date, tokenize = \"ascii tokenchars '-_'\")"
        )


class Migration(migrations.Migration):
    dependencies = [
        ("memory", "0006_admin_action_installation_wide"),
    ]

    operations = [
        migrations.AddIndex(
            model_name="message",
            index=models.Index(fields=["session", "id"], name="message_session_order"),
        ),
        migrations.RunPython(rebuild, rebuild_old),
    ]
