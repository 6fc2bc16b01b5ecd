"""Workers claiming the same jobs at the same time never process one job twice (issue 11,
"scale-out path"): real db_worker processes on the test database (SQLite or PostgreSQL).

While the workers run, the test floods the queue with extra triggers for every job that is
queued or running, so several workers keep trying to claim the same job, also while another
one is processing it. A claim is the only thing that counts an attempt and a handler only
runs after a claim, so: every job ends with exactly one attempt, and exactly one of its
triggers (django-tasks-db records each trigger's outcome and worker) ran its handler; the
others found it taken ("not_due"), finished ("done") or waiting for an earlier block.
"""

from __future__ import annotations

import threading
import time
from collections import Counter, defaultdict
from typing import Any

import pytest
from django.db import connections
from django_tasks_db.models import DBTaskResult

from memory.models import JobStatus, Namespace, ProcessingJob
from memory.services.jobs import run_job
from tests.reliability.procs import Processes, wait_until
from tests.reliability.world import assert_consistent, assert_processed_once, ingest_sessions

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.xdist_group("subprocess-serve"),
]

HANDLER_RAN = frozenset({"succeeded", "retry", "failed"})


def _flood(namespace: Namespace, stop: threading.Event, every: float) -> None:
    """Every `every` seconds, give each queued or running job of the namespace that has no
    trigger waiting two more, side by side in the queue so that two workers take them at once.
    (Topping up instead of adding keeps the queue short, so the flood never starves it.)"""
    try:
        while not stop.is_set():
            waiting = Counter(
                (task.args_kwargs.get("args") or [None])[0]
                for task in DBTaskResult.objects.filter(status="READY").only("args_kwargs")
            )
            live = ProcessingJob.objects.filter(
                namespace=namespace, status__in=[JobStatus.QUEUED, JobStatus.RUNNING]
            ).values_list("pk", flat=True)
            for job_id in live:
                if not waiting[job_id]:
                    run_job.enqueue(job_id)
                    run_job.enqueue(job_id)
            stop.wait(every)
    finally:
        connections.close_all()


def _settled(namespace: Namespace) -> bool:
    return not ProcessingJob.objects.filter(
        namespace=namespace, status__in=[JobStatus.QUEUED, JobStatus.RUNNING]
    ).exists()


def job_claims_scenario(
    processes: Processes, *, workers: int, sessions: int, turns: int, flood_every: float = 0.1
) -> dict[str, Any]:
    processes.use_database_queue()
    namespace = ingest_sessions("claims", sessions=sessions, turns=turns)
    stop = threading.Event()
    flood = threading.Thread(target=_flood, args=(namespace, stop, flood_every), daemon=True)
    started = time.monotonic()
    pool = [processes.worker(f"claimer-{n}") for n in range(workers)]
    flood.start()
    try:
        wait_until(lambda: _settled(namespace), timeout=300, what="every job to finish")
    finally:
        stop.set()
        flood.join(30)
    seconds = time.monotonic() - started
    for worker in pool:
        assert worker.stop() == 0, worker.output()

    jobs = {job.pk: job for job in ProcessingJob.objects.filter(namespace=namespace)}
    assert {(j.status, j.attempts) for j in jobs.values()} == {(JobStatus.SUCCEEDED, 1)}
    runs: dict[int, list[str]] = defaultdict(list)  # job → workers whose trigger ran it
    outcomes: Counter[str] = Counter()
    for task in DBTaskResult.objects.filter(status="SUCCESSFUL"):
        job_id = task.args_kwargs["args"][0]
        if job_id not in jobs:
            continue
        outcomes[task.return_value] += 1
        if task.return_value in HANDLER_RAN:
            runs[job_id].append(task.worker_ids[-1])
    twice = {job_id: who for job_id, who in runs.items() if len(who) != 1}
    assert twice == {}, f"jobs run more than once: {twice}"
    assert set(runs) == set(jobs), "a finished job has no trigger that ran it"
    assert not DBTaskResult.objects.filter(status="FAILED").exists()
    # The flood gave jobs spare triggers: each found its job taken ("not_due"), finished
    # ("done") or behind an earlier block ("waiting"), never ran it. Which of the three depends
    # on timing (on SQLite the file lock often serialises the claims), so only their sum is
    # certain.
    spare = outcomes["not_due"] + outcomes["done"] + outcomes["waiting"]
    assert spare > 0, f"no job ever had a competing trigger: {outcomes}"
    by_worker = Counter(who for who in (w[0] for w in runs.values()))
    assert len(by_worker) == workers, f"not every worker ran jobs: {by_worker}"
    assert_processed_once(namespace)
    assert_consistent(namespace)
    return {
        "workers": workers,
        "jobs": len(jobs),
        "triggers": sum(outcomes.values()),
        "trigger_outcomes": dict(outcomes),
        "jobs_per_worker": dict(by_worker),
        "runs_per_job": 1,
        "seconds": round(seconds, 1),
    }


@pytest.fixture
def jobs_take_a_moment(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each job's handler takes 30 ms more, in the forked workers too (they inherit the patch).
    The offline processor runs a job in a few ms, so one worker could finish all of them before
    the other's first poll, and the run would show no contention at all."""
    from memory.services import jobs

    def slowed(handler: jobs.Handler) -> jobs.Handler:
        def run(job: ProcessingJob) -> None:
            time.sleep(0.03)
            handler(job)

        return run

    for kind, handler in list(jobs.HANDLERS.items()):
        monkeypatch.setitem(jobs.HANDLERS, kind, slowed(handler))


def test_two_workers_never_run_the_same_job_twice(processes, jobs_take_a_moment):
    figures = job_claims_scenario(processes, workers=2, sessions=6, turns=12)
    assert figures["jobs"] >= 24
