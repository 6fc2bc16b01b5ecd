"""Revoke an agent token by its prefix: every later request with it is refused (401)."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from memory.errors import StrataGateError
from memory.management.actor import command_actor
from memory.services.tokens import token_find, token_revoke


class Command(BaseCommand):
    help = "Revoke the agent token with this prefix (as list_agent_tokens shows it: sg_1a2b3c4d)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("prefix")

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            token = token_revoke(token_id=token_find(options["prefix"]).pk, actor=command_actor())
        except StrataGateError as exc:
            raise CommandError(f"{exc.code}: {exc.message}") from exc
        self.stdout.write(f"revoked sg_{token.prefix} ({token.label or 'no label'})")
