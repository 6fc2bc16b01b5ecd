"""Pruning the task queue's result rows (django-tasks-db's DBTaskResult): finished rows older
than STRATAGATE_TASK_RESULT_RETENTION_DAYS go, in bounded batches, by the workers themselves;
ready and running rows and StrataGate's own ProcessingJob rows stay."""

from __future__ import annotations

import threading
import time
from datetime import timedelta
from typing import Any

import pytest
from django.db import connection
from django.tasks import TaskResultStatus
from django.test.utils import CaptureQueriesContext
from django.utils import timezone
from django_tasks_db.management.commands.db_worker import Command as DBWorkerCommand
from django_tasks_db.models import DBTaskResult

from memory.management.commands import db_worker
from memory.models import JobKind, JobStatus, ProcessingJob
from memory.services.namespaces import namespace_get_or_create
from memory.services.task_results import (
    task_results_census,
    task_results_cutoff,
    task_results_prune,
)

READY, RUNNING = TaskResultStatus.READY, TaskResultStatus.RUNNING
SUCCESSFUL, FAILED = TaskResultStatus.SUCCESSFUL, TaskResultStatus.FAILED


def task_row(status: str, *, days_ago: float | None = None) -> DBTaskResult:
    """A trigger's row as the queue leaves it; `days_ago` dates its start and finish."""
    at = None if days_ago is None else timezone.now() - timedelta(days=days_ago)
    return DBTaskResult.objects.create(
        status=status,
        args_kwargs={"args": [1], "kwargs": {}},
        task_path="memory.services.jobs.run_job",
        backend_name="default",
        started_at=at,
        finished_at=at,
    )


def remaining() -> set[tuple[str, int | None]]:
    now = timezone.now()
    return {
        (row.status, None if row.finished_at is None else (now - row.finished_at).days)
        for row in DBTaskResult.objects.all()
    }


@pytest.fixture
def rows(db: None, settings: Any) -> dict[str, DBTaskResult]:
    settings.STRATAGATE_TASK_RESULT_RETENTION_DAYS = 7
    return {
        "old successful": task_row(SUCCESSFUL, days_ago=8),
        "old failed": task_row(FAILED, days_ago=30),
        "recent successful": task_row(SUCCESSFUL, days_ago=6),
        "recent failed": task_row(FAILED, days_ago=1),
        "ready": task_row(READY),
        # Rows not finished are kept whatever their dates say.
        "old running": task_row(RUNNING, days_ago=30),
        "old ready": task_row(READY, days_ago=30),
    }


def test_finished_rows_older_than_the_retention_are_deleted_and_the_rest_kept(
    rows: dict[str, DBTaskResult],
) -> None:
    namespace = namespace_get_or_create(name="proj")
    job = ProcessingJob.objects.create(
        namespace=namespace,
        kind=JobKind.GRAPH_PROJECT,
        status=JobStatus.SUCCEEDED,
        finished_at=timezone.now() - timedelta(days=400),
    )
    cutoff = task_results_cutoff()
    census = task_results_census(cutoff=cutoff)
    assert (census.expired_successful, census.expired_failed) == (1, 1)
    assert (census.kept_finished, census.unfinished) == (2, 3)

    outcome = task_results_prune(cutoff=cutoff)

    assert (outcome.deleted_successful, outcome.deleted_failed, outcome.complete) == (1, 1, True)
    assert remaining() == {
        (SUCCESSFUL, 6),
        (FAILED, 1),
        (READY, None),
        (RUNNING, 30),
        (READY, 30),
    }
    assert not DBTaskResult.objects.filter(
        pk__in=[rows["old successful"].pk, rows["old failed"].pk]
    ).exists()
    assert list(ProcessingJob.objects.values_list("pk", "status")) == [(job.pk, "succeeded")]
    assert task_results_prune(cutoff=cutoff).deleted == 0


def test_the_retention_setting_decides_the_cutoff(
    rows: dict[str, DBTaskResult], settings: Any
) -> None:
    settings.STRATAGATE_TASK_RESULT_RETENTION_DAYS = 2
    task_results_prune(cutoff=task_results_cutoff())
    assert remaining() == {(FAILED, 1), (READY, None), (RUNNING, 30), (READY, 30)}
    with pytest.raises(ValueError, match="at least 1 day"):
        task_results_cutoff(retention_days=0)


def test_a_backlog_is_deleted_in_bounded_batches(db: None) -> None:
    for _ in range(5):
        task_row(SUCCESSFUL, days_ago=10)
    task_row(FAILED, days_ago=10)
    cutoff = task_results_cutoff(retention_days=7)

    with CaptureQueriesContext(connection) as queries:
        first = task_results_prune(cutoff=cutoff, batch_size=2, max_batches=2)
    assert (first.deleted, first.complete) == (4, False)
    deletes = [q["sql"] for q in queries.captured_queries if q["sql"].startswith("DELETE")]
    assert len(deletes) == 2  # one short statement per batch, never one for the whole backlog

    rest = task_results_prune(cutoff=cutoff, batch_size=2)
    assert (rest.deleted_successful, rest.deleted_failed, rest.complete) == (1, 1, True)
    assert not DBTaskResult.objects.exists()


def test_a_stop_request_ends_the_prune_between_batches(db: None) -> None:
    for _ in range(3):
        task_row(SUCCESSFUL, days_ago=10)
    asked: list[bool] = []

    def stop_after_one_batch() -> bool:
        asked.append(True)
        return len(asked) > 1

    outcome = task_results_prune(
        cutoff=task_results_cutoff(retention_days=7), batch_size=1, should_stop=stop_after_one_batch
    )
    assert (outcome.deleted, outcome.complete) == (1, False)
    assert DBTaskResult.objects.count() == 2


def test_the_worker_sweep_prunes_hourly_and_works_off_a_backlog_sweep_by_sweep(
    rows: dict[str, DBTaskResult], monkeypatch: pytest.MonkeyPatch
) -> None:
    sweeper = db_worker.Sweeper(first_prune_in=0)
    sweeper.sweep()
    assert DBTaskResult.objects.count() == 5
    assert sweeper.next_prune > time.monotonic() + db_worker.PRUNE_INTERVAL_SECONDS - 60

    task_row(FAILED, days_ago=9)
    sweeper.sweep()  # not due again for an hour
    assert DBTaskResult.objects.count() == 6

    for _ in range(4):
        task_row(FAILED, days_ago=9)
    monkeypatch.setattr(db_worker, "PRUNE_BATCH_SIZE", 2)
    monkeypatch.setattr(db_worker, "PRUNE_BATCHES_PER_SWEEP", 1)
    sweeper.next_prune = 0.0
    sweeper.sweep()
    assert DBTaskResult.objects.count() == 8  # one batch of two this sweep …
    assert sweeper.next_prune <= time.monotonic()  # … and the rest at the next one
    sweeper.sweep()
    sweeper.sweep()
    assert DBTaskResult.objects.count() == 5
    assert sweeper.next_prune > time.monotonic() + 60


@pytest.mark.django_db(transaction=True)  # the worker's sweeper thread has its own connection
def test_a_running_db_worker_prunes_by_itself(
    settings: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings.STRATAGATE_TASK_RESULT_RETENTION_DAYS = 7
    task_row(SUCCESSFUL, days_ago=8)
    task_row(FAILED, days_ago=8)
    kept = task_row(SUCCESSFUL, days_ago=1)
    monkeypatch.setattr(db_worker, "FIRST_PRUNE_WITHIN_SECONDS", 0.0)
    seen: list[set[Any]] = []

    def worker_running(self: Any, *args: Any, **options: Any) -> None:
        """Stands in for the task loop: runs until the sweeper thread has pruned."""
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            ids = set(DBTaskResult.objects.values_list("pk", flat=True))
            if ids == {kept.pk}:
                break
            time.sleep(0.05)
        seen.append(ids)

    monkeypatch.setattr(DBWorkerCommand, "handle", worker_running)
    db_worker.Command().handle()
    assert seen == [{kept.pk}]
    # The worker's end stops its sweeper too.
    for thread in threading.enumerate():
        if thread.name == "stratagate-sweeper":
            thread.join(timeout=10)
            assert not thread.is_alive()


def test_a_trigger_queued_under_the_old_task_path_still_finds_its_task(db: None) -> None:
    """Rows queued before `run_job` moved to `services.jobs` name `memory.tasks.run_job`."""
    from memory.services.jobs import run_job

    row = task_row(READY)
    row.task_path = "memory.tasks.run_job"
    assert row.task.func is run_job.func
    assert run_job.module_path == "memory.services.jobs.run_job"
