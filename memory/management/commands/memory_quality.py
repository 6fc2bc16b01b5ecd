"""Memory quality end to end on a labelled set of conversations (issue 29).

manage.py memory_quality tests/evaluation/memory_quality_set.json [--details] [--json-out FILE]
[--keep]
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from memory.errors import Invalid
from memory.evaluation.memory_quality import QualityReport, QualityTally, memory_quality_score
from memory.evaluation.memory_quality_run import ModelConfigured
from memory.evaluation.memory_quality_set import quality_set_load

_COLUMNS = (
    ("event_precision", "ev.P"),
    ("event_recall", "ev.R"),
    ("duplicates", "dup"),
    ("supersession_recall", "sup.R"),
    ("edge_precision", "edge.P"),
    ("edge_recall", "edge.R"),
    ("status_accuracy", "status"),
    ("day_accuracy", "day"),
)


class Command(BaseCommand):
    help = "Drive a labelled set of conversations through the product and score what it stores."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("path", type=Path, help="a labelled memory-quality set (JSON)")
        parser.add_argument("--details", action="store_true", help="list every miss")
        parser.add_argument("--json-out", type=Path, help="also write the figures as JSON here")
        parser.add_argument(
            "--keep", action="store_true", help="keep each conversation's namespace afterwards"
        )
        parser.add_argument("--namespace-prefix", default="quality-")

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            labelled = quality_set_load(options["path"])
            report = memory_quality_score(
                labelled, namespace_prefix=options["namespace_prefix"], keep=options["keep"]
            )
        except Invalid as exc:
            raise CommandError(f"{exc.code}: {exc}") from exc
        except ModelConfigured as exc:
            raise CommandError(
                "model_configured: the set scores the offline processor; unset STRATAGATE_LLM_*"
                f" (namespace {exc})"
            ) from exc
        self.stdout.write(quality_table(report))
        if options["details"]:
            for miss in report.misses:
                self.stdout.write(f"  {miss}")
        out = options["json_out"]
        if out is not None:
            out.parent.mkdir(parents=True, exist_ok=True)
            body = json.dumps(report.as_dict(), indent=2, ensure_ascii=False)
            out.write_text(body + "\n", encoding="utf-8")
            self.stdout.write(f"wrote {out}")


def quality_table(report: QualityReport) -> str:
    header = "  " + "category".ljust(22) + "n".rjust(5) + "".join(h.rjust(8) for _, h in _COLUMNS)
    lines = [header]
    rows: list[tuple[str, QualityTally]] = [
        *report.by_category.items(),
        ("overall", report.overall),
    ]
    for label, tally in rows:
        figures = tally.figures()
        cells = "".join(_cell(figures[name]).rjust(8) for name, _ in _COLUMNS)
        lines.append("  " + label.ljust(22) + str(tally.statements).rjust(5) + cells)
    lines.append("")
    lines.append("  goals:")
    for name, op, target, value, met in report.goals():
        verdict = "met" if met else "missed"
        lines.append(f"    {name:<20} {op} {target:.2f}  {_cell(value):>6}  {verdict}")
    return "\n".join(lines)


def _cell(value: float | None) -> str:
    return "—" if value is None else f"{value:.3f}"
