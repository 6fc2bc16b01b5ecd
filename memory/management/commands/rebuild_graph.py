"""Rebuild the knowledge graph from events (all namespaces, or one), with a progress bar."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from memory.models import Namespace
from memory.services.graph import graph_rebuild


class Command(BaseCommand):
    help = "Drop and re-project the graph from events; events and sources are untouched."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--namespace", help="only this namespace")

    def handle(self, *args: Any, **options: Any) -> None:
        namespaces = Namespace.objects.order_by("name")
        if options["namespace"]:
            namespaces = namespaces.filter(name=options["namespace"])
            if not namespaces.exists():
                raise CommandError(f"namespace {options['namespace']!r} does not exist")
        for namespace in namespaces:

            def progress(done: int, total: int, name: str = namespace.name) -> None:
                width = 30
                filled = width * done // max(total, 1)
                bar = "#" * filled + "-" * (width - filled)
                self.stderr.write(f"\r{name}: [{bar}] {done}/{total} events", ending="")
                self.stderr.flush()

            total = graph_rebuild(namespace=namespace, progress=progress)
            self.stderr.write("")
            self.stdout.write(f"{namespace.name}: projected {total} events")
