"""Processing jobs as they leave StrataGate: status, attempts and the full (redacted) error."""

from __future__ import annotations

from datetime import datetime

from django.db.models import QuerySet

from memory.engine.redact import redact
from memory.errors import NotFound
from memory.models import Namespace, ProcessingJob
from memory.selectors.out import Out

JOBS_LISTED = 200


class JobOut(Out):
    id: int
    kind: str
    status: str
    block_id: int | None
    attempts: int
    max_attempts: int
    run_after: datetime | None
    last_error: str
    error_preview: str
    created_at: datetime
    finished_at: datetime | None


def job_out(job: ProcessingJob) -> JobOut:
    return JobOut.model_construct(
        id=job.pk,
        kind=job.kind,
        status=job.status,
        block_id=job.block_id,
        attempts=job.attempts,
        max_attempts=job.max_attempts,
        run_after=job.run_after,
        last_error=redact(job.last_error),
        error_preview=redact(job.error_preview),
        created_at=job.created_at,
        finished_at=job.finished_at,
    )


def job_get(namespace: Namespace, job_id: int) -> ProcessingJob:
    job = ProcessingJob.objects.filter(namespace=namespace, pk=job_id).first()
    if job is None:
        raise NotFound(f"job {job_id} not found", code="job_not_found")
    return job


def job_list(namespace: Namespace, *, status: str | None = None) -> QuerySet[ProcessingJob]:
    """Newest first; slice it."""
    jobs = ProcessingJob.objects.filter(namespace=namespace).order_by("-id")
    return jobs if status is None else jobs.filter(status=status)
