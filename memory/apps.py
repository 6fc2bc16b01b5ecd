"""App config for the memory engine; registers system checks."""

from typing import Any

from django.apps import AppConfig
from django.db import connections
from django.db.models.signals import post_migrate


def use_wal_journal(*, using: str = "default", **kwargs: Any) -> None:
    """SQLite: write-ahead logging lets readers work while one writer commits. Persistent."""
    connection = connections[using]
    if connection.vendor == "sqlite":
        with connection.cursor() as cursor:
            cursor.execute("PRAGMA journal_mode=WAL")


class MemoryConfig(AppConfig):
    name = "memory"
    verbose_name = "StrataGate memory"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        post_migrate.connect(use_wal_journal, sender=self)
        from memory import checks  # noqa: F401  (registers the checks)
        from memory.services import graph, imports, processing  # noqa: F401  (job handlers)
