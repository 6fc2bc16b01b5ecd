"""Create an agent token bound to namespaces, or an installation token; prints only the token
(shown once). Audited as `command:<OS user>`."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from memory.errors import StrataGateError
from memory.management.actor import command_actor
from memory.models import TokenScope
from memory.services.tokens import expiry_from, token_issue


class Command(BaseCommand):
    help = (
        "Create an agent token for one or more namespaces (or, with --installation, one that may "
        "also change installation-wide settings) and print it: it is shown once."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--namespace",
            action="append",
            default=[],
            help="namespace name (repeat for several); created when missing",
        )
        parser.add_argument(
            "--scope", choices=TokenScope.values, default=TokenScope.READ_WRITE.value
        )
        parser.add_argument(
            "--installation",
            action="store_true",
            help="an installation token (admin scope): may change λ and block size (PUT "
            "/api/v1/settings); --namespace is optional for it",
        )
        parser.add_argument(
            "--expires-in", default="", help="e.g. 30d, 12h, 2w (default: does not expire)"
        )
        parser.add_argument("--label", default="")

    def handle(self, *args: Any, **options: Any) -> None:
        if not options["namespace"] and not options["installation"]:
            raise CommandError("name at least one --namespace (or make an --installation token)")
        try:
            _, raw = token_issue(
                namespaces=options["namespace"],
                scope=options["scope"],
                label=options["label"],
                installation=options["installation"],
                expires_at=expiry_from(options["expires_in"]),
                actor=command_actor(),
            )
        except StrataGateError as exc:
            raise CommandError(f"{exc.code}: {exc.message}") from exc
        self.stdout.write(raw)
