"""List every agent token: what it may do and whether it still works (never the token)."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from memory.selectors.tokens import token_list


def _when(value: Any) -> str:
    return value.strftime("%Y-%m-%d %H:%M") if value else "-"


class Command(BaseCommand):
    help = (
        "List agent tokens: prefix, label, scope, namespaces, created, last used, expires, "
        "revoked (revoke one with revoke_agent_token PREFIX)."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--all", action="store_true", help="include revoked and expired")

    def handle(self, *args: Any, **options: Any) -> None:
        rows = [t for t in token_list() if options["all"] or t.live]
        header = ("prefix", "label", "scope", "namespaces", "created", "last used", "expires")
        table = [(*header, "revoked")]
        for t in rows:
            scope = f"{t.scope}+installation" if t.installation else t.scope
            table.append(
                (
                    f"sg_{t.prefix}",
                    t.label or "-",
                    scope,
                    ",".join(t.namespaces) or "-",
                    _when(t.created_at),
                    _when(t.last_used_at),
                    _when(t.expires_at),
                    _when(t.revoked_at),
                )
            )
        widths = [max(len(str(row[i])) for row in table) for i in range(len(table[0]))]
        for row in table:
            self.stdout.write("  ".join(str(c).ljust(w) for c, w in zip(row, widths, strict=True)))
        if not rows:
            self.stdout.write("(no live tokens; --all shows revoked and expired ones)")
