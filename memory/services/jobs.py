"""Durable jobs: claim by lease, retry with backoff (1 s, 2 s, 4 s), fail visibly, recover.

Contract: a job handler may run more than once (a killed worker's job is taken over when its
lease expires), so every handler writes idempotently.
"""

from __future__ import annotations

import logging
import traceback
from collections.abc import Callable, Sequence
from datetime import datetime, timedelta
from typing import cast

from django.conf import settings
from django.db import connection, transaction
from django.db.models import Q
from django.tasks import task
from django.utils import timezone

from memory.engine.redact import redact
from memory.errors import Conflict
from memory.models import Block, BlockStatus, JobKind, JobStatus, Namespace, ProcessingJob
from memory.models.rows import insert_rows, read_joined, read_rows
from memory.services.audit import admin_action
from memory.services.live import publish

log = logging.getLogger(__name__)

ERROR_PREVIEW_CHARS = 2000
BLOCK_JOB_KINDS = (JobKind.BLOCK_VIEWS, JobKind.BLOCK_EXTRACT)
Handler = Callable[[ProcessingJob], None]
HANDLERS: dict[str, Handler] = {}


def job_handler(kind: str) -> Callable[[Handler], Handler]:
    def register(fn: Handler) -> Handler:
        HANDLERS[kind] = fn
        return fn

    return register


def backoff_seconds(attempts: int) -> int:
    """Delay before the next attempt after `attempts` failed ones: 1 s, 2 s, 4 s …"""
    return int(2 ** max(0, attempts - 1))


def job_create(
    *,
    namespace_id: int,
    kind: str,
    block: Block | None = None,
    payload: dict[str, object] | None = None,
) -> ProcessingJob:
    """Create a queued job; its trigger is enqueued only after the caller's transaction commits."""
    job = ProcessingJob.objects.create(
        namespace_id=namespace_id, kind=kind, block=block, payload=payload or {}
    )
    transaction.on_commit(lambda: job_trigger(job.pk))
    return job


def block_jobs_create(*, kind: str, blocks: Sequence[Block]) -> list[ProcessingJob]:
    """`job_create` for many blocks in one insert (batch ingest seals many at once); the
    triggers are enqueued after the caller's transaction commits, in block order."""
    jobs = insert_rows(
        [ProcessingJob(namespace_id=b.namespace_id, kind=kind, block=b) for b in blocks]
    )

    def trigger_all() -> None:
        for job in jobs:
            job_trigger(job.pk)

    transaction.on_commit(trigger_all)
    return jobs


def job_trigger(job_id: int, *, run_after: datetime | None = None) -> None:
    """Enqueue a django.tasks trigger. Losing one is harmless: recovery re-triggers due jobs."""
    try:
        task = run_job.using(run_after=run_after) if run_after else run_job
        task.enqueue(job_id)
    except Exception:  # a broken queue must never fail the write that created the job
        log.exception("could not enqueue job %s; recovery will pick it up", job_id)


# A job's bookkeeping is plain SQL: built by the ORM, the reads and updates of the four job runs
# of a block cost more to compile than to run (a quarter of processing's CPU under cProfile).
_JOB_CLAIM_SQL = (
    "UPDATE memory_processingjob SET status = %s, attempts = attempts + 1, "
    "lease_expires_at = %s, updated_at = %s WHERE id = %s AND ("
    "(status = %s AND (run_after IS NULL OR run_after <= %s)) "
    "OR (status = %s AND lease_expires_at < %s)) RETURNING id"
)
_JOB_FINISH_SQL = (
    "UPDATE memory_processingjob SET status = %s, finished_at = %s, lease_expires_at = NULL, "
    "updated_at = %s WHERE id = %s AND status = %s"
)
_EARLIER_BLOCK_NOT_READY_SQL = (
    "SELECT 1 FROM memory_block WHERE session_id = %s AND sequence < %s AND status <> %s LIMIT 1"
)


def _job_read(job_id: int) -> ProcessingJob | None:
    """The job with its block and namespace (what `select_related` would read)."""
    found = read_joined(
        ProcessingJob,
        "j",
        "JOIN memory_namespace n ON n.id = j.namespace_id "
        "LEFT JOIN memory_block b ON b.id = j.block_id WHERE j.id = %s",
        [job_id],
        [(Namespace, "n"), (Block, "b")],
    )
    if not found:
        return None
    job, (namespace, block) = found[0]
    job.namespace = cast(Namespace, namespace)
    job.block = cast(Block | None, block)
    return job


def _waiting_on_earlier_block(job: ProcessingJob) -> bool:
    """Blocks of a session are processed in order, so events never precede earlier ones."""
    if job.kind not in BLOCK_JOB_KINDS or job.block is None:
        return False
    return bool(
        read_rows(
            _EARLIER_BLOCK_NOT_READY_SQL,
            [job.block.session_id, job.block.sequence, BlockStatus.READY],
        )
    )


def job_claim(job_id: int, *, now: datetime) -> ProcessingJob | None:
    """Atomically take a due job (or one whose lease expired); None when someone else has it."""
    lease = now + timedelta(seconds=settings.STRATAGATE_JOB_LEASE_SECONDS)
    at, until = (connection.ops.adapt_datetimefield_value(t) for t in (now, lease))
    claimed = read_rows(
        _JOB_CLAIM_SQL,
        [JobStatus.RUNNING, until, at, job_id, JobStatus.QUEUED, at, JobStatus.RUNNING, at],
    )
    if not claimed:
        return None
    job = _job_read(job_id)
    if job is None:  # deleted with its namespace since the claim
        return None
    job_announce(job, JobStatus.RUNNING)
    return job


def job_run(job_id: int) -> str:
    """Run one job if it is due. Returns the outcome (for workers, tests and benchmarks)."""
    job = _job_read(job_id)
    if job is None:
        return "missing"
    if job.status in (JobStatus.SUCCEEDED, JobStatus.FAILED):
        return "done"
    if _waiting_on_earlier_block(job):
        return "waiting"
    now = timezone.now()
    claimed = job_claim(job_id, now=now)
    if claimed is None:
        return "not_due"
    handler = HANDLERS[claimed.kind]
    try:
        handler(claimed)
    except Exception as exc:
        return _record_failure(claimed, exc)
    at = connection.ops.adapt_datetimefield_value(timezone.now())
    with connection.cursor() as cursor:
        cursor.execute(_JOB_FINISH_SQL, [JobStatus.SUCCEEDED, at, at, job_id, JobStatus.RUNNING])
        finished = cursor.rowcount
    if finished:
        job_announce(claimed, JobStatus.SUCCEEDED)
    return "succeeded"


@task()
def run_job(job_id: int) -> str:
    """The django.tasks entry point of a job trigger. Thin: the job row carries the real state."""
    return job_run(job_id)


def job_announce(job: ProcessingJob, status: str) -> None:
    """Tell the namespace's live pages that a job changed state."""
    publish(
        job.namespace_id,
        "job.changed",
        job_id=job.pk,
        job_kind=job.kind,
        status=status,
        block_id=job.block_id,
        attempts=job.attempts,
    )


def _record_failure(job: ProcessingJob, exc: BaseException) -> str:
    text = "".join(traceback.format_exception(exc))
    preview = getattr(exc, "raw_preview", "") or str(exc)
    permanent = bool(getattr(exc, "permanent", False))
    now = timezone.now()
    with transaction.atomic():
        if permanent or job.attempts >= job.max_attempts:
            ProcessingJob.objects.filter(pk=job.pk).update(
                status=JobStatus.FAILED,
                last_error=text,
                error_preview=preview[:ERROR_PREVIEW_CHARS],
                finished_at=now,
                lease_expires_at=None,
                updated_at=now,
            )
            if job.block_id and job.kind in BLOCK_JOB_KINDS:
                Block.objects.filter(pk=job.block_id).update(status=BlockStatus.FAILED)
                publish(job.namespace_id, "block.failed", block_id=job.block_id, job_id=job.pk)
            job_announce(job, JobStatus.FAILED)
            # Logs are a way out too (SPEC §15.3): the error may quote what the model said.
            log.warning("job %s (%s) failed for good: %s", job.pk, job.kind, redact(str(exc)))
            return "failed"
        run_after = now + timedelta(seconds=backoff_seconds(job.attempts))
        ProcessingJob.objects.filter(pk=job.pk).update(
            status=JobStatus.QUEUED,
            run_after=run_after,
            last_error=text,
            error_preview=preview[:ERROR_PREVIEW_CHARS],
            lease_expires_at=None,
            updated_at=now,
        )
        transaction.on_commit(lambda: job_trigger(job.pk, run_after=run_after))
        job_announce(job, JobStatus.QUEUED)
    log.info(
        "job %s (%s) attempt %s failed; retry at %s", job.pk, job.kind, job.attempts, run_after
    )
    return "retry"


def _requeue(job: ProcessingJob) -> ProcessingJob:
    """A failed job gets three fresh attempts and its block shows as pending again; 409
    `job_not_failed` for any other job. Must run inside the caller's transaction."""
    updated = ProcessingJob.objects.filter(pk=job.pk, status=JobStatus.FAILED).update(
        status=JobStatus.QUEUED,
        attempts=0,
        run_after=None,
        finished_at=None,
        updated_at=timezone.now(),
    )
    if updated != 1:
        raise Conflict("only failed jobs can be retried", code="job_not_failed")
    if job.block_id and job.kind in BLOCK_JOB_KINDS:
        Block.objects.filter(pk=job.block_id, status=BlockStatus.FAILED).update(
            status=BlockStatus.PENDING
        )
    transaction.on_commit(lambda: job_trigger(job.pk))
    job.refresh_from_db()
    job_announce(job, JobStatus.QUEUED)
    return job


def jobs_recover_stalled(*, now: datetime | None = None, grace_seconds: int = 30) -> int:
    """Re-trigger jobs a dead worker left behind or whose trigger was lost. Returns how many."""
    now = now or timezone.now()
    count = 0
    stale = ProcessingJob.objects.filter(status=JobStatus.RUNNING, lease_expires_at__lt=now)
    for job in stale:
        if job.attempts >= job.max_attempts:
            _record_failure(job, RuntimeError("the worker stopped during the last attempt"))
        else:
            job_trigger(job.pk)
        count += 1
    cutoff = now - timedelta(seconds=grace_seconds)
    orphans = ProcessingJob.objects.filter(status=JobStatus.QUEUED, updated_at__lt=cutoff).filter(
        Q(run_after__isnull=True) | Q(run_after__lt=cutoff)
    )
    for job_id in orphans.values_list("pk", flat=True)[:1000]:
        job_trigger(job_id)
        count += 1
    return count


def jobs_drain(*, honour_backoff: bool = False, max_runs: int = 100_000) -> int:
    """Run every runnable job in this process, oldest first, until none is left.

    Used by tests, benchmarks and one-shot commands; `honour_backoff=False` runs retries now.
    Blocks of a session are processed in order: once a block's job waits for an earlier block,
    the session's later blocks would wait too, so the pass skips them without asking (asking
    cost one query per later block per pass: 2,600 job runs for 150 jobs of one session).
    """
    runs = 0
    while runs < max_runs:
        queued = ProcessingJob.objects.filter(status=JobStatus.QUEUED).order_by("pk")
        if honour_backoff:
            queued = queued.filter(Q(run_after__isnull=True) | Q(run_after__lte=timezone.now()))
        progressed = False
        waiting_from: dict[int, int] = {}  # session id → sequence of its first waiting block
        rows = queued.values_list("pk", "kind", "block__session_id", "block__sequence")[:500]
        for job_id, kind, session_id, sequence in list(rows):
            ordered = kind in BLOCK_JOB_KINDS and session_id is not None
            if ordered and sequence > waiting_from.get(session_id, sequence):
                continue
            if not honour_backoff:
                ProcessingJob.objects.filter(pk=job_id).update(run_after=None)
            outcome = job_run(job_id)
            if outcome in ("succeeded", "retry", "failed"):
                progressed = True
                runs += 1
            elif outcome == "waiting" and ordered:
                waiting_from[session_id] = min(sequence, waiting_from.get(session_id, sequence))
        if not progressed:
            return runs
    return runs


# --- retries (SPEC §12.2): the API and the Memory UI alike, each in the admin audit log -------


def _retry_logged(job: ProcessingJob, *, actor: str) -> ProcessingJob:
    """`_requeue` plus its `job_retry` admin row; must run inside the caller's transaction."""
    before = {"status": job.status, "attempts": job.attempts}
    retried = _requeue(job)
    admin_action(
        "job_retry",
        namespace_id=retried.namespace_id,
        actor=actor,
        target=f"job:{retried.pk}",
        details={
            "kind": retried.kind,
            "before": before,
            "after": {"status": retried.status, "attempts": retried.attempts},
        },
    )
    return retried


def job_retry(*, job: ProcessingJob, actor: str) -> ProcessingJob:
    """Retry one failed job (`actor`: `user:<name>` or `token:<prefix>`) and write the
    `job_retry` admin action, in one transaction, so a refused retry (409 `job_not_failed`)
    writes nothing at all."""
    with transaction.atomic():
        locked = ProcessingJob.objects.select_for_update().get(pk=job.pk)
        return _retry_logged(locked, actor=actor)


def jobs_retry_failed(
    *, namespace_id: int, actor: str, up_to_id: int | None = None
) -> list[ProcessingJob]:
    """Retry every failed job of a namespace (those with id ≤ `up_to_id` when given: the ones
    the person saw on the confirmation page), each with its own `job_retry` admin action, all
    in one transaction, the jobs locked. Returns the retried jobs, oldest first."""
    with transaction.atomic():
        failed = ProcessingJob.objects.select_for_update().filter(
            namespace_id=namespace_id, status=JobStatus.FAILED
        )
        if up_to_id is not None:
            failed = failed.filter(pk__lte=up_to_id)
        return [_retry_logged(job, actor=actor) for job in failed.order_by("pk")]
