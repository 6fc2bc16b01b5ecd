"""Export a namespace as a stratagate.external-memory.v2 document or as the lossless JSONL dump."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from memory.models import Namespace
from memory.services.imports import export_v2
from memory.services.imports.dumpfile import dump_lines


class Command(BaseCommand):
    help = "Write a namespace's memory as v2 JSON or as a JSONL dump (stdout by default)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--namespace", required=True)
        parser.add_argument("--format", default="v2", choices=("v2", "jsonl"))
        parser.add_argument("--output", help="a file to write (default: stdout)")
        parser.add_argument(
            "--no-redact",
            action="store_true",
            help="jsonl only: keep secrets as stored (an operator's backup)",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        namespace = Namespace.objects.filter(name=options["namespace"]).first()
        if namespace is None:
            raise CommandError(f"namespace {options['namespace']!r} does not exist")
        if options["output"]:
            with Path(options["output"]).open("w", encoding="utf-8") as out:
                count = self._write(namespace, options, out.write)
            self.stderr.write(f"wrote {count} lines to {options['output']}")
        else:
            self._write(namespace, options, lambda text: self.stdout.write(text, ending=""))

    def _write(
        self, namespace: Namespace, options: dict[str, Any], write: Callable[[str], object]
    ) -> int:
        if options["format"] == "v2":
            write(json.dumps(export_v2(namespace=namespace), ensure_ascii=False, indent=1) + "\n")
            return 1
        count = 0
        for line in dump_lines(namespace, redacted=not options["no_redact"]):
            write(line)
            count += 1
        return count
