"""`manage.py prune_task_results [--dry-run] [--older-than-days N]`: a one-off prune of the task
queue's finished result rows, as every db_worker does hourly by itself.

Unlike django-tasks-db's own `prune_db_task_results` (one unbounded DELETE, 14 days, the default
queue only), this deletes in short batches, whatever the queue, with StrataGate's retention.
"""

from __future__ import annotations

from argparse import ArgumentTypeError
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandParser

from memory.services.task_results import (
    TaskResultCensus,
    task_results_census,
    task_results_cutoff,
    task_results_prune,
)


def _days(value: str) -> int:
    try:
        days = int(value)
    except ValueError:
        raise ArgumentTypeError(f"{value!r} is not a whole number of days") from None
    if days < 1:
        raise ArgumentTypeError("must be 1 or more (results that just finished are kept)")
    return days


class Command(BaseCommand):
    help = (
        "Delete finished task results (successful or failed) older than the retention period, "
        "in small batches; ready and running ones, and StrataGate's job rows, are never touched."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--dry-run",
            action="store_true",
            help="count what would be deleted and kept, delete nothing",
        )
        parser.add_argument(
            "--older-than-days",
            type=_days,
            default=None,
            help="retention in days (default: STRATAGATE_TASK_RESULT_RETENTION_DAYS)",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        days: int = options["older_than_days"] or settings.STRATAGATE_TASK_RESULT_RETENTION_DAYS
        cutoff = task_results_cutoff(retention_days=days)
        plural = "s" if days != 1 else ""
        age = (
            f"finished more than {days} day{plural} ago "
            f"(before {cutoff.isoformat(timespec='seconds')})"
        )
        if options["dry_run"]:
            census = task_results_census(cutoff=cutoff)
            self.stdout.write(
                f"Would delete {census.expired} task results {age}: "
                f"{census.expired_successful} successful, {census.expired_failed} failed."
            )
            self.stdout.write(self._kept(census))
            return
        outcome = task_results_prune(cutoff=cutoff)
        self.stdout.write(
            f"Deleted {outcome.deleted} task results {age}: "
            f"{outcome.deleted_successful} successful, {outcome.deleted_failed} failed."
        )
        self.stdout.write(self._kept(task_results_census(cutoff=cutoff)))

    @staticmethod
    def _kept(census: TaskResultCensus) -> str:
        return (
            f"Kept {census.kept_finished} finished more recently and {census.unfinished} "
            "ready or running."
        )
