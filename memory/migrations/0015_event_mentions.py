"""One event per fact (issue 29): an event's mention count and last mention time, and one row
per later mention.

On SQLite, adding a NOT NULL column rebuilds `memory_event` (create, copy, drop, rename), and
dropping the old table drops its triggers — among them the one that deletes an event's search
index row with the event (0004_search_index). It is created again after the rebuild, both ways.
"""

import django.db.models.deletion
from django.db import migrations, models

EVENT_INDEX_TRIGGER = (
    "CREATE TRIGGER IF NOT EXISTS memory_search_event_gc AFTER DELETE ON memory_event "
    "BEGIN DELETE FROM memory_search_event WHERE rowid = old.id; END"
)


def event_index_trigger(apps, schema_editor):
    if schema_editor.connection.vendor == "sqlite":
        schema_editor.execute(EVENT_INDEX_TRIGGER)


class Migration(migrations.Migration):
    dependencies = [
        ("memory", "0014_proxy_tools_and_what_the_model_saw"),
    ]

    operations = [
        # Reversed last: after RemoveField has rebuilt the table again.
        migrations.RunPython(migrations.RunPython.noop, event_index_trigger),
        migrations.AddField(
            model_name="event",
            name="last_mentioned_at",
            field=models.DateTimeField(blank=True, null=True),
        ),
        migrations.AddField(
            model_name="event",
            name="mention_count",
            field=models.PositiveIntegerField(default=1),
        ),
        migrations.CreateModel(
            name="EventMention",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("mentioned_at", models.DateTimeField()),
                ("formed_turn", models.BigIntegerField()),
                ("quotes_added", models.JSONField(blank=True, default=list)),
                ("created_at", models.DateTimeField(auto_now_add=True)),
                (
                    "block",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="event_mentions",
                        to="memory.block",
                    ),
                ),
                (
                    "event",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="mentions",
                        to="memory.event",
                    ),
                ),
                (
                    "messages",
                    models.ManyToManyField(related_name="event_mentions", to="memory.message"),
                ),
                (
                    "namespace",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="+",
                        to="memory.namespace",
                    ),
                ),
            ],
            options={
                "ordering": ["mentioned_at", "id"],
                "indexes": [
                    models.Index(fields=["event", "mentioned_at"], name="event_mention_event"),
                    models.Index(fields=["block"], name="event_mention_block"),
                ],
            },
        ),
        migrations.RunPython(event_index_trigger, migrations.RunPython.noop),
    ]
