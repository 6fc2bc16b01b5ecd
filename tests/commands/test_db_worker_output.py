"""What a db_worker prints: by default no line per job (django.tasks logged two INFO lines for
each, burying what `scripts/run.sh` printed), but every failure and a one-line summary while
jobs run; `--verbose` (also `serve --verbose`) logs every job again."""

from __future__ import annotations

import re
import socket
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from django.tasks import TaskResultStatus

from memory.management.commands import serve
from memory.management.commands.db_worker import JobTally, Sweeper
from tests.manage_process import run_manage

PER_JOB_LINE = re.compile(r"django\.tasks: Task id=\S+ path=memory\.services\.jobs\.run_job state=")

FAILING_WORKER = """
import memory.services.extraction, memory.services.graph, memory.services.processing
from django.core.management import call_command
from memory.services import jobs

def broken(job):
    raise RuntimeError("the model endpoint is down")

for kind in list(jobs.HANDLERS):
    jobs.HANDLERS[kind] = broken
call_command("db_worker", "--batch", "--no-reload", "--no-startup-delay")
"""


WORKER = ("db_worker", "--batch", "--no-reload", "--no-startup-delay")


@pytest.mark.xdist_group("subprocess-serve")
def test_a_default_worker_prints_no_line_per_job_but_a_summary(queued: Path) -> None:
    worker = run_manage(queued, *WORKER)
    output = worker.stdout + worker.stderr
    assert worker.returncode == 0, output
    assert not PER_JOB_LINE.search(output), output
    summary = re.search(r"jobs: (\d+) done, 0 failed, 0 queued", output)
    assert summary and int(summary.group(1)) >= 4, output  # 2 blocks × views and extraction


@pytest.mark.xdist_group("subprocess-serve")
def test_a_verbose_worker_prints_every_job(queued: Path) -> None:
    worker = run_manage(queued, *WORKER, "--verbose")
    output = worker.stdout + worker.stderr
    assert worker.returncode == 0, output
    summary = re.search(r"jobs: (\d+) done, 0 failed, 0 queued", output)
    assert summary, output
    lines = PER_JOB_LINE.findall(output)
    assert len([line for line in output.splitlines() if "state=SUCCESSFUL" in line]) >= int(
        summary.group(1)
    )
    assert len(lines) >= 2 * int(summary.group(1))


@pytest.mark.xdist_group("subprocess-serve")
def test_a_default_worker_prints_its_failures(queued: Path) -> None:
    worker = run_manage(queued, "shell", "--no-imports", "-c", FAILING_WORKER)
    output = worker.stdout + worker.stderr
    assert worker.returncode == 0, output
    assert not PER_JOB_LINE.search(output), output
    assert re.search(r"job \d+ \(block_views\) attempt 1 failed; retry at", output), output
    summary = re.search(r"jobs: 0 done, (\d+) failed, (\d+) queued", output)
    assert summary and int(summary.group(1)) >= 1 and int(summary.group(2)) >= 2, output


def finished(status: str, outcome: str | None = None) -> SimpleNamespace:
    return SimpleNamespace(status=status, return_value=outcome)


@pytest.mark.django_db
def test_the_summary_comes_once_a_minute_and_only_after_jobs_finished(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level("INFO", logger="memory.management.commands.db_worker")
    tally = JobTally()
    sweeper = Sweeper(first_prune_in=3600, tally=tally)
    for result in [
        finished(TaskResultStatus.SUCCESSFUL, "succeeded"),
        finished(TaskResultStatus.SUCCESSFUL, "succeeded"),
        finished(TaskResultStatus.SUCCESSFUL, "retry"),  # an attempt failed, retried later
        finished(TaskResultStatus.SUCCESSFUL, "failed"),  # its last attempt failed
        finished(TaskResultStatus.FAILED),  # the task itself raised
        finished(TaskResultStatus.SUCCESSFUL, "waiting"),  # did no work: not counted
    ]:
        tally.task_finished(sender=None, task_result=result)

    sweeper.sweep()  # within the first minute: nothing yet
    assert "jobs:" not in caplog.text
    sweeper.next_summary = 0
    sweeper.sweep()
    assert caplog.messages.count("jobs: 2 done, 3 failed, 0 queued") == 1
    sweeper.next_summary = 0
    sweeper.sweep()  # a minute without finished jobs says nothing
    assert len([m for m in caplog.messages if m.startswith("jobs:")]) == 1


def test_serve_passes_verbose_to_its_workers(monkeypatch: pytest.MonkeyPatch) -> None:
    started: list[list[str]] = []

    def spawn(self: Any, role: str, name: str, argv: list[str], pass_fds: Any = ()) -> Any:
        started.append(argv)
        return SimpleNamespace(role=role, name=name)

    monkeypatch.setattr(serve.Command, "_spawn", spawn)
    with socket.socket() as listener:
        serve.Command()._start_children(listener, 1, 2, verbose=True)
        serve.Command()._start_children(listener, 1, 1)
    workers = [argv for argv in started if "db_worker" in argv]
    assert [argv[-1] == "--verbose" for argv in workers] == [True, True, False]
