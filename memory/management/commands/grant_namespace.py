"""Give a person a role in a namespace of the Memory UI, or take it away."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from memory.errors import StrataGateError
from memory.management.actor import command_actor
from memory.models import Role
from memory.services.grants import grant_revoke, grant_set


class Command(BaseCommand):
    help = (
        "Give USER the role viewer, editor or admin in NAMESPACE of the Memory UI, or take it "
        "away with --revoke. Staff users see every namespace without a grant."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("user", help="the username")
        parser.add_argument("namespace")
        role = parser.add_mutually_exclusive_group(required=True)
        role.add_argument("--role", choices=Role.values)
        role.add_argument("--revoke", action="store_true", help="remove the user's role")

    def handle(self, *args: Any, **options: Any) -> None:
        actor = command_actor()
        try:
            if options["revoke"]:
                removed = grant_revoke(
                    username=options["user"], namespace=options["namespace"], actor=actor
                )
                verb = "no longer sees" if removed else "had no role in"
                self.stdout.write(f"{options['user']} {verb} {options['namespace']}")
                return
            grant = grant_set(
                username=options["user"],
                namespace=options["namespace"],
                role=options["role"],
                actor=actor,
            )
        except StrataGateError as exc:
            raise CommandError(f"{exc.code}: {exc.message}") from exc
        self.stdout.write(f"{options['user']} is {grant.role} of {options['namespace']}")
