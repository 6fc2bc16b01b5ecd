"""Rebuild the full-text search index from the database (all namespaces, or one)."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from memory.models import Namespace
from memory.search import reindex_namespace
from memory.search.index import reindex_all


class Command(BaseCommand):
    help = "Drop and rebuild the search index of messages, events and graph nodes."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--namespace", help="only this namespace")

    def handle(self, *args: Any, **options: Any) -> None:
        name = options["namespace"]
        if not name:
            totals = reindex_all()
            self.stdout.write(
                f"all namespaces: {totals['messages']} messages, {totals['events']} events, "
                f"{totals['nodes']} nodes"
            )
            return
        namespace = Namespace.objects.filter(name=name).first()
        if namespace is None:
            raise CommandError(f"namespace {name!r} does not exist")
        counts = reindex_namespace(namespace.pk)
        self.stdout.write(
            f"{namespace.name}: {counts['messages']} messages, {counts['events']} events, "
            f"{counts['nodes']} nodes"
        )
