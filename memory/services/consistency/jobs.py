"""No job stays `running` past its lease (ARCHITECTURE "Jobs: the database row is the truth").

A running job whose lease has expired lost its worker (killed, or cut off from the database).
A db_worker's recovery sweep re-triggers such jobs, but only where a worker runs; a running job
without any lease is never taken over at all (claims look for an expired one). Repair releases
them as the sweep would settle them: back to `queued` while attempts remain, else `failed`
with the reason, retryable like any failed job.
"""

from __future__ import annotations

from datetime import datetime

from django.db import transaction
from django.db.models import Q, QuerySet
from django.utils import timezone

from memory.models import Block, BlockStatus, JobKind, JobStatus, ProcessingJob
from memory.services.consistency.base import JOBS, Repair, Violation, scoped
from memory.services.db import write_transaction
from memory.services.jobs import job_announce, job_trigger
from memory.services.live import publish

BLOCK_JOB_KINDS = (JobKind.BLOCK_VIEWS, JobKind.BLOCK_EXTRACT)
RELEASED_ERROR = (
    "The worker stopped during the last attempt (its lease expired while the job was running); "
    "released by check_consistency --repair."
)


def _expired(now: datetime) -> QuerySet[ProcessingJob]:
    return ProcessingJob.objects.filter(status=JobStatus.RUNNING).filter(
        Q(lease_expires_at__isnull=True) | Q(lease_expires_at__lt=now)
    )


def jobs_past_lease(namespace_id: int | None) -> list[Violation]:
    rows = scoped(_expired(timezone.now()), namespace_id).values_list(
        "pk", "namespace_id", "kind", "block_id", "lease_expires_at", "attempts", "max_attempts"
    )
    found: list[Violation] = []
    for pk, ns, kind, block, lease, attempts, most in rows.order_by("pk"):
        ids: dict[str, int | str | list[int]] = {"job": pk}
        if block is not None:
            ids["block"] = block
        since = f"its lease expired at {lease.isoformat()}" if lease else "it has no lease"
        found.append(
            Violation(
                JOBS,
                "job_lease_expired",
                ns,
                ids,
                f"{kind} job {pk} is running but {since} (attempt {attempts} of {most})",
                fixable=True,
            )
        )
    return found


CHECKS = (jobs_past_lease,)


def _release(job: ProcessingJob, now: datetime) -> str:
    """Queue the job again, or fail it when that was its last attempt. Returns the new status."""
    if job.attempts < job.max_attempts:
        ProcessingJob.objects.filter(pk=job.pk).update(
            status=JobStatus.QUEUED, lease_expires_at=None, run_after=None, updated_at=now
        )
        transaction.on_commit(lambda: job_trigger(job.pk))
        status = JobStatus.QUEUED
    else:
        ProcessingJob.objects.filter(pk=job.pk).update(
            status=JobStatus.FAILED,
            last_error=RELEASED_ERROR,
            error_preview=RELEASED_ERROR,
            lease_expires_at=None,
            finished_at=now,
            updated_at=now,
        )
        if job.block_id and job.kind in BLOCK_JOB_KINDS:
            Block.objects.filter(pk=job.block_id).update(status=BlockStatus.FAILED)
            publish(job.namespace_id, "block.failed", block_id=job.block_id, job_id=job.pk)
        status = JobStatus.FAILED
    job_announce(job, status)
    return status


def jobs_release_expired(violations: list[Violation]) -> list[Repair]:
    """Release the listed jobs that are still running past their lease (a worker may have
    finished or re-claimed one since the check: the lease is re-read under the write lock)."""
    done: list[Repair] = []
    ids = [int(v.ids["job"]) for v in violations]  # type: ignore[arg-type]
    for job_id in ids:
        with write_transaction():
            now = timezone.now()
            job = _expired(now).select_for_update().filter(pk=job_id).first()
            if job is None:
                continue
            status = _release(job, now)
        done.append(
            Repair(
                "job_lease_expired",
                job.namespace_id,
                f"{job.kind} job {job.pk}: running past its lease → {status}"
                + (" (retryable)" if status == JobStatus.FAILED else ""),
                {"job": job.pk},
            )
        )
    return done
