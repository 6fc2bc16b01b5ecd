"""Event-detection precision, recall and type accuracy of the offline extractor on a labelled set.

manage.py event_precision tests/evaluation/event_precision_set.json [--details] [--json-out FILE]
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from memory.errors import Invalid
from memory.evaluation.event_precision import (
    PrecisionReport,
    Tally,
    event_precision_score,
    labelled_set_load,
)

_COLUMNS = ("precision", "recall", "type_accuracy", "status_accuracy", "day_accuracy")


class Command(BaseCommand):
    help = "Score the offline event extractor on a labelled set of chat statements."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("path", type=Path, help="a labelled set (JSON)")
        parser.add_argument("--json-out", type=Path, help="also write the figures as JSON here")
        parser.add_argument(
            "--details", action="store_true", help="list every statement scored wrong"
        )

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            report = event_precision_score(labelled_set_load(options["path"]))
        except Invalid as exc:
            raise CommandError(f"{exc.code}: {exc}") from exc
        self.stdout.write(_table(report))
        if options["details"]:
            for miss in report.as_dict(details=True)["misses"]:
                expected = miss["expected"] or "no event"
                got = ", ".join(miss["extracted"]) or "no event"
                self.stdout.write(
                    f"  [{miss['lang']}] expected {expected}, got {got}: {miss['text']}"
                )
        out = options["json_out"]
        if out is not None:
            out.parent.mkdir(parents=True, exist_ok=True)
            body = json.dumps(report.as_dict(details=True), indent=2, ensure_ascii=False)
            out.write_text(body + "\n", encoding="utf-8")
            self.stdout.write(f"wrote {out}")


def _table(report: PrecisionReport) -> str:
    lines = ["  " + "group".ljust(10) + "n".rjust(5) + "".join(c.rjust(17) for c in _COLUMNS)]
    rows: list[tuple[str, Tally]] = [("overall", report.overall), *report.by_language.items()]
    for label, tally in rows:
        figures = tally.as_dict()
        cells = "".join(f"{figures[c]:.3f}".rjust(17) for c in _COLUMNS)
        lines.append("  " + label.ljust(10) + str(tally.statements).rjust(5) + cells)
    return "\n".join(lines)
