"""Message search documents take two neighbouring messages on each side instead of one
(memory/search/index.py WINDOW): re-index every message. The columns do not change."""

from django.db import migrations


def rebuild(apps, schema_editor):
    from memory.search.index import reindex_messages

    reindex_messages()


class Migration(migrations.Migration):
    dependencies = [
        ("memory", "0007_message_search_context"),
    ]

    operations = [
        migrations.RunPython(rebuild, rebuild),
    ]
