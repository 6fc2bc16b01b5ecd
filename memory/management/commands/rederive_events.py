"""Re-derive namespaces' events with the current extraction rules, keeping pins, forgets and
everything receipts cite, then rebuild their graphs (issue 29; `services.rederive`)."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from memory.errors import StrataGateError
from memory.management.actor import command_actor
from memory.models import Namespace
from memory.services.rederive import RederiveReport, namespace_rederive


def report_lines(report: RederiveReport) -> list[str]:
    r = report
    state = "would change (dry run, nothing written)" if r.dry_run else "done"
    if not r.changed:
        state = "events already current" + ("" if r.graph_rebuilt else "; nothing changed")
    graph = "rebuilt" if r.graph_rebuilt else "kept (same ids)"
    return [
        f"{r.namespace}: {r.blocks} blocks re-extracted; {state}",
        f"  events       {r.kept} kept, {r.updated} updated, {r.created} created, "
        f"{r.removed} removed",
        f"  kept as is   {r.kept_pinned} pinned, {r.kept_forgotten} forgotten, "
        f"{r.kept_cited} cited (no longer produced by the rules)",
        f"  mentions     {r.mentions_before} → {r.mentions_after}",
        f"  superseded   {r.superseded_before} → {r.superseded_after}",
        f"  graph        {graph}: {r.nodes_before} → {r.nodes_after} nodes, "
        f"{r.edges_before} → {r.edges_after} edges",
    ]


class Command(BaseCommand):
    help = (
        "Re-run event extraction over every ready block with the current rules and reconcile "
        "with the stored events (pins, forgets, receipts kept), then rebuild the graph."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--namespace", action="append", default=[], help="this namespace (repeatable)"
        )
        parser.add_argument("--all", action="store_true", help="every namespace")
        parser.add_argument(
            "--dry-run", action="store_true", help="print what would change; write nothing"
        )
        parser.add_argument(
            "--graph",
            action="store_true",
            help="rebuild the graph even when no event it is projected from changed",
        )
        parser.add_argument(
            "--use-model",
            action="store_true",
            help="extract with the configured model (one call per block); default: the rules",
        )
        parser.add_argument(
            "--rules-over-model",
            action="store_true",
            help="use the rules even for blocks a model processed (its events are replaced)",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        names: list[str] = options["namespace"]
        if bool(names) == bool(options["all"]):
            raise CommandError("name --namespace NAME (repeatable) or --all")
        namespaces = Namespace.objects.order_by("name")
        if names:
            namespaces = namespaces.filter(name__in=names)
            missing = sorted(set(names) - set(namespaces.values_list("name", flat=True)))
            if missing:
                raise CommandError(f"namespace {missing[0]!r} does not exist")
        actor = command_actor()
        failed: list[str] = []
        for namespace in namespaces:  # each its own transaction: one refusal stops no other
            try:
                report = namespace_rederive(
                    namespace=namespace,
                    actor=actor,
                    use_model=options["use_model"],
                    dry_run=options["dry_run"],
                    force_graph=options["graph"],
                    rules_over_model=options["rules_over_model"],
                )
            except StrataGateError as exc:
                self.stderr.write(f"{namespace.name}: {exc.code}: {exc.message}")
                failed.append(namespace.name)
                continue
            for line in report_lines(report):
                self.stdout.write(line)
        if failed:
            raise CommandError(f"not re-derived: {', '.join(failed)}")
