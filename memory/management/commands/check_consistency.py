"""Check the database's invariants and optionally repair what is safely fixable; exits 1 while
violations remain, so scripts and CI can gate on it (docs/OPERATIONS.md, "Consistency")."""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from memory.errors import NotFound
from memory.selectors.namespaces import namespace_get
from memory.services.consistency import (
    ConsistencyReport,
    Violation,
    consistency_run,
    namespace_labels,
)

SHOWN_PER_CODE = 20
VIOLATIONS_REMAIN = 1
BAD_USAGE = 2


class Command(BaseCommand):
    help = (
        "Verify StrataGate's invariants (sources, receipts, blocks, search index, job leases, "
        "turn counters); --repair fixes what is safely fixable."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--namespace", help="only this namespace (default: all)")
        parser.add_argument(
            "--repair", action="store_true", help="fix what is safely fixable, then check again"
        )
        parser.add_argument("--json", action="store_true", help="print one JSON document")

    def handle(self, *args: Any, **options: Any) -> None:
        namespace = None
        if options["namespace"]:
            try:
                namespace = namespace_get(options["namespace"])
            except NotFound as exc:
                raise CommandError(
                    f"namespace {options['namespace']!r} does not exist", returncode=BAD_USAGE
                ) from exc
        report = consistency_run(namespace=namespace, repair=options["repair"])
        names = namespace_labels()
        if options["json"]:
            self.stdout.write(json.dumps(_as_json(report, names, options["repair"]), indent=2))
        else:
            self._write(report, names, repaired=options["repair"])
        if not report.clean:
            raise CommandError(
                f"{len(report.remaining)} consistency violations remain",
                returncode=VIOLATIONS_REMAIN,
            )

    def _write(self, report: ConsistencyReport, names: dict[int, str], *, repaired: bool) -> None:
        scope = f'namespace "{report.namespace.name}"' if report.namespace else "all namespaces"
        if not repaired or not report.repairs:
            self._list(f"{scope}: ", report.found, names)
            if repaired:
                self.stdout.write("Repaired: nothing (no violation is safely fixable).")
            return
        self._list(f"{scope} before repair: ", report.found, names)
        self.stdout.write(f"Repaired ({len(report.repairs)}):")
        for repair in report.repairs:
            self.stdout.write(f"  {_name(names, repair.namespace_id)}: {repair.message}")
        self._list(f"{scope} after repair: ", report.remaining, names)

    def _list(self, heading: str, violations: list[Violation], names: dict[int, str]) -> None:
        if not violations:
            self.stdout.write(f"{heading}consistent, no violations.")
            return
        self.stdout.write(f"{heading}{len(violations)} violations")
        shown: Counter[str] = Counter()
        for violation in violations:
            shown[violation.code] += 1
            if shown[violation.code] > SHOWN_PER_CODE:
                continue
            ids = ", ".join(f"{key}={value}" for key, value in violation.ids.items())
            fixable = "  [fixable]" if violation.fixable else ""
            self.stdout.write(
                f"  {violation.kind} {violation.code} ({_name(names, violation.namespace_id)}; "
                f"{ids}): {violation.message}{fixable}"
            )
        for code, count in sorted(shown.items()):
            if count > SHOWN_PER_CODE:
                self.stdout.write(
                    f"  … and {count - SHOWN_PER_CODE} more {code} (--json lists all)"
                )


def _name(names: dict[int, str], namespace_id: int) -> str:
    return names.get(namespace_id, f"deleted namespace #{namespace_id}")


def _as_json(report: ConsistencyReport, names: dict[int, str], repaired: bool) -> dict[str, Any]:
    return {
        "namespace": report.namespace.name if report.namespace else None,
        "repair": repaired,
        "clean": report.clean,
        "found": [v.as_dict(_name(names, v.namespace_id)) for v in report.found],
        "repairs": [r.as_dict(_name(names, r.namespace_id)) for r in report.repairs],
        "violations": [v.as_dict(_name(names, v.namespace_id)) for v in report.remaining],
        "counts": dict(sorted(Counter(v.code for v in report.remaining).items())),
    }
