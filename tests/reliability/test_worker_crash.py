"""kill -9 of `db_worker` processes in the middle of a job, again and again: after a restart every
block is ready, `check_consistency` is clean, and nothing was derived twice (issue 11, item 2).

Two workers process a namespace; each time one of them is seen running a job (the job row says
`running`, django-tasks-db says which worker holds its trigger) that worker is killed with
SIGKILL and a replacement starts. Killed jobs are taken over once their lease expires (5 s
here). A reference namespace fed the same turns is processed undisturbed in this process: the
crashed one must end with exactly the same events, graph nodes, facts and edges.

Only jobs in their first two attempts are killed: a job whose worker dies in every one of its
three attempts is failed on purpose (a job that crashes its worker must not loop forever;
tests/services/test_processing.py covers that rule).
"""

from __future__ import annotations

import random
import time
from typing import Any

import pytest
from django.utils import timezone
from django_tasks_db.models import DBTaskResult

from memory.models import Block, BlockStatus, JobStatus, Namespace, ProcessingJob
from memory.services.jobs import jobs_drain
from tests.reliability.procs import SHORT_LEASE_SECONDS, Child, Processes, wait_until
from tests.reliability.world import (
    assert_consistent,
    assert_processed_once,
    assert_turns_whole,
    derived_summary,
    ingest_sessions,
    turn_in,
)

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.xdist_group("subprocess-serve"),
]


def _victim(namespace: Namespace, pool: dict[str, Child]) -> tuple[ProcessingJob, Child] | None:
    """A job of the namespace running right now in a live worker, in its first two attempts,
    and that worker."""
    running = {
        job.pk: job
        for job in ProcessingJob.objects.filter(
            namespace=namespace, status=JobStatus.RUNNING, attempts__lt=3
        )
    }
    if not running:
        return None
    for task in DBTaskResult.objects.filter(status="RUNNING").only("args_kwargs", "worker_ids"):
        args = task.args_kwargs.get("args") or [None]
        holder = pool.get(task.worker_ids[-1]) if task.worker_ids else None
        if args[0] in running and holder is not None and holder.alive():
            return running[args[0]], holder
    return None


def _settled(namespace: Namespace) -> bool:
    jobs = ProcessingJob.objects.filter(namespace=namespace)
    blocks = Block.objects.filter(namespace=namespace)
    return (
        not jobs.filter(status__in=[JobStatus.QUEUED, JobStatus.RUNNING]).exists()
        and not blocks.exclude(status=BlockStatus.READY).exists()
    )


def worker_crash_scenario(
    processes: Processes,
    *,
    sessions: int,
    turns: int,
    kills: int,
    workers: int,
    kill_delay: float = 0.0,
) -> dict[str, Any]:
    # A killed worker's job is taken over once its lease (the shortest allowed) runs out.
    processes.configure(STRATAGATE_JOB_LEASE_SECONDS=SHORT_LEASE_SECONDS)
    calm = ingest_sessions("calm", sessions=sessions, turns=turns)
    jobs_drain()
    processes.use_database_queue()
    namespace = ingest_sessions("crash", sessions=sessions, turns=turns)

    started = time.monotonic()
    pool = {name: processes.worker(name) for name in (f"w{n}" for n in range(workers))}
    killed: list[ProcessingJob] = []
    rng = random.Random(kills)
    while len(killed) < kills:
        found = wait_until(
            lambda: _victim(namespace, pool) or ("settled" if _settled(namespace) else None),
            timeout=120,
            what="a worker in the middle of a job",
            every=0.02,
        )
        if found == "settled":
            break
        job, holder = found
        # The first crash lands while the job runs; later ones up to `kill_delay` seconds into
        # it, so some hit a worker that had committed the job's work but not yet recorded its
        # success, or had just taken the next trigger (that job then waits for the sweep's
        # 30 s grace for lost triggers).
        time.sleep(rng.uniform(0, kill_delay) if killed else 0)
        holder.kill9()
        killed.append(job)
        del pool[holder.name]
        replacement = f"w{len(killed) + workers - 1}"
        pool[replacement] = processes.worker(replacement)
    assert len(killed) == kills, f"processing finished after {len(killed)} kills"

    # The last killed job's lease must run out before a worker's sweep may take it over; a
    # worker sweeps when it starts, so restart one then instead of waiting for the next sweep.
    leases = ProcessingJob.objects.filter(pk__in=[j.pk for j in killed]).values_list(
        "lease_expires_at", flat=True
    )
    latest = max((lease for lease in leases if lease is not None), default=timezone.now())
    time.sleep(max(0.0, (latest - timezone.now()).total_seconds()) + 0.5)
    restarted = processes.worker("after-crashes")
    wait_until(lambda: _settled(namespace), timeout=180, what="every block to be ready")
    seconds = time.monotonic() - started
    for child in [*pool.values(), restarted]:
        assert child.stop() == 0, child.output()

    assert_processed_once(namespace)
    taken_over = ProcessingJob.objects.filter(pk__in=[j.pk for j in killed], attempts__gte=2)
    assert taken_over.exists(), "no killed job was taken over by another worker"
    assert_consistent(namespace)
    expected = {turn_in(s, n).receipt_id: 2 for s in range(sessions) for n in range(1, turns + 1)}
    assert_turns_whole(namespace, expected)
    assert derived_summary(namespace) == derived_summary(calm)
    summary = derived_summary(namespace)
    return {
        "kills": len(killed),
        "jobs_taken_over": taken_over.count(),
        "killed_kinds": sorted({job.kind for job in killed}),
        "blocks": Block.objects.filter(namespace=namespace).count(),
        "jobs": ProcessingJob.objects.filter(namespace=namespace).count(),
        "events": sum(len(rows) for rows in summary["events"].values()),
        "nodes": len(summary["nodes"]),
        "seconds_to_all_ready": round(seconds, 1),
    }


def test_killed_workers_lose_nothing_and_derive_nothing_twice(processes):
    figures = worker_crash_scenario(processes, sessions=4, turns=12, kills=3, workers=2)
    assert figures["kills"] == 3
    assert figures["blocks"] == 8
    assert figures["events"] > 0 and figures["nodes"] > 0
