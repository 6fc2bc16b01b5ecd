"""Online backup of the SQLite database to PATH (`memory.services.backup`); PostgreSQL installs
use `pg_dump` instead (docs/OPERATIONS.md)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import DEFAULT_DB_ALIAS, connections

from memory.errors import StrataGateError
from memory.services.backup import sqlite_backup


class Command(BaseCommand):
    help = (
        "Copy the SQLite database to PATH as one consistent snapshot, while StrataGate keeps "
        "running (SQLite's backup API; never cp a live WAL database)."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("path", help="where to write the backup (a new file)")
        parser.add_argument("--overwrite", action="store_true", help="replace PATH if it exists")

    def handle(self, *args: Any, **options: Any) -> None:
        connection = connections[DEFAULT_DB_ALIAS]
        if connection.vendor != "sqlite":
            raise CommandError(
                f"the database is {connection.display_name}, not SQLite: back it up with "
                "pg_dump (see docs/OPERATIONS.md)"
            )
        source = Path(str(connection.settings_dict["NAME"]))
        try:
            result = sqlite_backup(
                source=source, destination=Path(options["path"]), overwrite=options["overwrite"]
            )
        except StrataGateError as exc:
            raise CommandError(f"{exc.message} [{exc.code}]") from exc
        self.stdout.write(
            f"backed up {source} to {result.destination} ({result.pages} pages, "
            f"{result.bytes} bytes). Keep the data directory's secret_key with it (unless "
            "DJANGO_SECRET_KEY is set)."
        )
