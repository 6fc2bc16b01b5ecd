"""Housekeeping of the task queue's result rows (django-tasks-db's `DBTaskResult`).

Every trigger of a job (`jobs.job_trigger`, retries and recovery sweeps included) leaves one
row, and the queue keeps it after the task has run: without pruning the table only grows.
Rows that finished (successfully or not) more than the retention period ago are deleted in
small batches, each its own short transaction, so a large backlog never holds a long lock and
the workers keep claiming tasks meanwhile. Rows still ready or running are never touched, and
neither are StrataGate's own `ProcessingJob` rows: they are the jobs' history (state, attempts,
errors) and the task rows only ever pointed at them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.conf import settings
from django.db.models import Count, Q, QuerySet
from django.tasks import TaskResultStatus
from django.utils import timezone
from django_tasks_db.models import DBTaskResult

FINISHED = (TaskResultStatus.SUCCESSFUL, TaskResultStatus.FAILED)
# Rows per DELETE: one short statement even on SQLite, well inside its parameter limit.
PRUNE_BATCH_SIZE = 500


@dataclass(frozen=True)
class TaskResultCensus:
    """The result rows by what pruning does with them at one cutoff."""

    cutoff: datetime
    expired_successful: int  # finished before the cutoff: pruned
    expired_failed: int
    kept_finished: int  # finished since the cutoff: kept until they are old enough
    unfinished: int  # ready or running: never pruned

    @property
    def expired(self) -> int:
        return self.expired_successful + self.expired_failed


@dataclass(frozen=True)
class PruneOutcome:
    cutoff: datetime
    deleted_successful: int
    deleted_failed: int
    complete: bool  # False when stopped (max_batches, should_stop) with expired rows maybe left

    @property
    def deleted(self) -> int:
        return self.deleted_successful + self.deleted_failed


def task_results_cutoff(
    *, now: datetime | None = None, retention_days: int | None = None
) -> datetime:
    """Rows that finished before this moment are old enough to delete."""
    days = (
        settings.STRATAGATE_TASK_RESULT_RETENTION_DAYS if retention_days is None else retention_days
    )
    if days < 1:
        # memory.checks refuses such a setting at start-up; this guards direct callers.
        raise ValueError(f"task results are kept at least 1 day, not {days}")
    return (now or timezone.now()) - timedelta(days=days)


def _expired(cutoff: datetime, status: str) -> QuerySet[DBTaskResult]:
    # No ordering: the model's default (priority, run_after, enqueued_at) would sort every
    # expired row to pick a batch; unordered, the LIMIT stops at the first rows found.
    return DBTaskResult.objects.filter(status=status, finished_at__lt=cutoff).order_by()


def task_results_census(*, cutoff: datetime) -> TaskResultCensus:
    """Counts for a dry run and for the prune command's report, in one query."""
    expired = Q(finished_at__lt=cutoff)
    counts = DBTaskResult.objects.order_by().aggregate(
        expired_successful=Count("pk", filter=expired & Q(status=TaskResultStatus.SUCCESSFUL)),
        expired_failed=Count("pk", filter=expired & Q(status=TaskResultStatus.FAILED)),
        kept_finished=Count("pk", filter=Q(status__in=FINISHED) & ~expired),
        unfinished=Count("pk", filter=~Q(status__in=FINISHED)),
    )
    return TaskResultCensus(cutoff=cutoff, **counts)


def task_results_prune(
    *,
    cutoff: datetime,
    batch_size: int = PRUNE_BATCH_SIZE,
    max_batches: int | None = None,
    should_stop: Callable[[], bool] | None = None,
) -> PruneOutcome:
    """Delete the rows that finished before `cutoff`, `batch_size` rows per statement.

    `max_batches` bounds one call (a worker's sweep goes on at its next sweep); `should_stop`
    is asked between batches (a worker shutting down). Safe to run from several processes at
    once: a row another one deleted first is simply not counted twice.
    """
    if batch_size < 1:
        raise ValueError("batch_size must be 1 or more")
    deleted = {status: 0 for status in FINISHED}
    batches = 0
    for status in FINISHED:
        while True:
            if (max_batches is not None and batches >= max_batches) or (
                should_stop is not None and should_stop()
            ):
                return PruneOutcome(
                    cutoff=cutoff,
                    deleted_successful=deleted[TaskResultStatus.SUCCESSFUL],
                    deleted_failed=deleted[TaskResultStatus.FAILED],
                    complete=False,
                )
            ids = list(_expired(cutoff, status).values_list("pk", flat=True)[:batch_size])
            if not ids:
                break
            # The conditions again: the DELETE alone decides, whatever changed since the read.
            count, _ = _expired(cutoff, status).filter(pk__in=ids).delete()
            deleted[status] += count
            batches += 1
            if len(ids) < batch_size:
                break
    return PruneOutcome(
        cutoff=cutoff,
        deleted_successful=deleted[TaskResultStatus.SUCCESSFUL],
        deleted_failed=deleted[TaskResultStatus.FAILED],
        complete=True,
    )
