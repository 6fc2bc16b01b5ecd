"""Create an agent token bound to namespaces; prints only the token (shown once)."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from memory.errors import StrataGateError
from memory.models import TokenScope
from memory.services.tokens import token_create


class Command(BaseCommand):
    help = "Create an agent token for one or more namespaces and print it (it is shown once)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--namespace",
            action="append",
            required=True,
            help="namespace name (repeat for several); created when missing",
        )
        parser.add_argument(
            "--scope", choices=TokenScope.values, default=TokenScope.READ_WRITE.value
        )
        parser.add_argument("--label", default="")

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            _, raw = token_create(
                namespaces=options["namespace"], scope=options["scope"], label=options["label"]
            )
        except StrataGateError as exc:
            raise CommandError(f"{exc.code}: {exc.message}") from exc
        self.stdout.write(raw)
