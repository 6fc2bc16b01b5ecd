"""Load the demo namespace (four sessions, events, graph, receipts, one import) through the
real services; safe to run again. `--nodes N` grows the graph for the graph-page benchmark."""

from __future__ import annotations

import time
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from memory.demo import DemoSummary, demo_load
from memory.errors import StrataGateError


def _listed(counts: dict[str, int]) -> str:
    return ", ".join(f"{n} {key}" for key, n in counts.items()) or "none"


class Command(BaseCommand):
    help = "Load a realistic demo namespace through the real services (idempotent)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--namespace", default="demo", help="namespace to load (default demo)")
        parser.add_argument(
            "--nodes",
            type=int,
            default=0,
            help="also grow the namespace's graph to at least N nodes (graph benchmarks)",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        if options["nodes"] < 0:
            raise CommandError("--nodes must be 0 or more")
        started = time.monotonic()
        try:
            summary = demo_load(name=options["namespace"], nodes=options["nodes"])
        except StrataGateError as exc:
            raise CommandError(f"{exc.code}: {exc.message}") from exc
        self._report(summary, time.monotonic() - started)

    def _report(self, summary: DemoSummary, seconds: float) -> None:
        c = summary.counts
        state = "already loaded; nothing changed" if summary.already_loaded else "loaded"
        self.stdout.write(f'Demo namespace "{summary.namespace}": {state} ({seconds:.1f} s)')
        rows = [
            ("sessions", f"{c['sessions']}, {c['turns']} turns"),
            ("blocks", _listed(c["blocks"])),
            ("events", _listed(c["events"])),
            ("relations", _listed(c["relations"])),
            ("graph", f"{c['nodes']} nodes, edges: {_listed(c['edges'])}"),
            ("receipts", f"{c['receipts']} ({c['zero_increment_receipts']} zero-increment)"),
            ("assessments", _listed(c["assessments"])),
            ("imports", _listed(c["imports"])),
        ]
        if summary.bulk_nodes:
            rows.append(("bulk graph", f"{summary.bulk_nodes} nodes added"))
        if c["jobs_open"]:
            rows.append(("jobs", f"{c['jobs_open']} not finished (see the Processing page)"))
        for label, text in rows:
            self.stdout.write(f"  {label:<12} {text}")
        self.stdout.write(
            "Open it: bash scripts/run.sh (or manage.py serve), log in to the Memory UI and pick "
            f'namespace "{summary.namespace}".'
        )
