"""`manage.py prune_task_results`: a one-off prune of the task queue's finished result rows,
with `--dry-run` counts first."""

from __future__ import annotations

from io import StringIO
from typing import Any

import pytest
from django.core.management import CommandError, call_command
from django.tasks import TaskResultStatus
from django_tasks_db.models import DBTaskResult

from tests.services.test_task_results import task_row

pytestmark = pytest.mark.django_db


@pytest.fixture
def queue(settings: Any) -> None:
    settings.STRATAGATE_TASK_RESULT_RETENTION_DAYS = 7
    for _ in range(3):
        task_row(TaskResultStatus.SUCCESSFUL, days_ago=10)
    task_row(TaskResultStatus.FAILED, days_ago=8)
    task_row(TaskResultStatus.SUCCESSFUL, days_ago=2)
    task_row(TaskResultStatus.READY)
    task_row(TaskResultStatus.RUNNING, days_ago=20)


def prune(*args: str) -> str:
    out = StringIO()
    call_command("prune_task_results", *args, stdout=out)
    return out.getvalue()


def test_a_dry_run_prints_the_counts_and_deletes_nothing(queue: None) -> None:
    out = prune("--dry-run")
    assert "Would delete 4 task results finished more than 7 days ago (before " in out
    assert "3 successful, 1 failed." in out
    assert "Kept 1 finished more recently and 2 ready or running." in out
    assert DBTaskResult.objects.count() == 7


def test_a_prune_deletes_the_old_finished_rows_and_says_what_it_kept(queue: None) -> None:
    out = prune()
    assert "Deleted 4 task results finished more than 7 days ago" in out
    assert "3 successful, 1 failed." in out
    assert "Kept 1 finished more recently and 2 ready or running." in out
    assert sorted(DBTaskResult.objects.values_list("status", flat=True)) == [
        "READY",
        "RUNNING",
        "SUCCESSFUL",
    ]
    assert "Deleted 0 task results" in prune()


def test_older_than_days_overrides_the_setting_but_never_goes_below_one(queue: None) -> None:
    assert "Would delete 5 task results finished more than 1 day ago" in prune(
        "--dry-run", "--older-than-days", "1"
    )
    for bad in ("0", "-3", "week"):
        with pytest.raises(CommandError, match="--older-than-days"):
            prune("--older-than-days", bad)
    assert DBTaskResult.objects.count() == 7
