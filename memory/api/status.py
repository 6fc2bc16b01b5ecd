"""Health, installation settings and job retry."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest
from ninja import Router

from memory.api.auth import namespace_for, require_scope
from memory.api.schemas import JobOut, JobsOut, SettingsIn, SettingsOut
from memory.engine.decay import level_schedule
from memory.engine.redact import redact
from memory.errors import NotFound
from memory.models import JobStatus, ProcessingJob, TokenScope
from memory.selectors.health import namespace_health
from memory.services.jobs import job_retry
from memory.services.settings import EffectiveSettings, memory_settings_get, memory_settings_update

router = Router(tags=["status"])


@router.get("/ns/{ns}/health", operation_id="memory_status")
def health(request: HttpRequest, ns: str) -> dict[str, Any]:
    return namespace_health(namespace=namespace_for(request, ns, scope=TokenScope.READ))


def _settings_out(current: EffectiveSettings) -> dict[str, Any]:
    return {
        "block_lambda": current.block_lambda,
        "block_turns": current.block_turns,
        "saved": current.saved,
        "level_schedule": level_schedule(current.block_lambda),
    }


@router.get("/settings", response=SettingsOut, operation_id="settings_get")
def settings_get(request: HttpRequest) -> dict[str, Any]:
    require_scope(request, TokenScope.ADMIN)
    return _settings_out(memory_settings_get())


@router.put("/settings", response=SettingsOut, operation_id="settings_update")
def settings_put(request: HttpRequest, payload: SettingsIn) -> dict[str, Any]:
    token = require_scope(request, TokenScope.ADMIN)
    updated = memory_settings_update(
        block_lambda=payload.block_lambda,
        block_turns=payload.block_turns,
        updated_by=f"token:{token.prefix}",
    )
    return _settings_out(updated)


def _job_out(job: ProcessingJob) -> dict[str, Any]:
    return {
        "id": job.pk,
        "kind": job.kind,
        "status": job.status,
        "block_id": job.block_id,
        "attempts": job.attempts,
        "max_attempts": job.max_attempts,
        "run_after": job.run_after,
        "last_error": redact(job.last_error),
        "error_preview": redact(job.error_preview),
        "created_at": job.created_at,
        "finished_at": job.finished_at,
    }


@router.get("/ns/{ns}/jobs", response=JobsOut, operation_id="jobs_list")
def jobs_list(request: HttpRequest, ns: str, status: str | None = None) -> dict[str, Any]:
    namespace = namespace_for(request, ns, scope=TokenScope.READ)
    jobs = ProcessingJob.objects.filter(namespace=namespace).order_by("-id")
    if status is not None:
        jobs = jobs.filter(status=status)
    return {"jobs": [_job_out(job) for job in jobs[:200]]}


@router.post("/ns/{ns}/jobs/{job_id}/retry", response=JobOut, operation_id="jobs_retry")
def jobs_retry(request: HttpRequest, ns: str, job_id: int) -> dict[str, Any]:
    namespace = namespace_for(request, ns, scope=TokenScope.READ_WRITE)
    job = ProcessingJob.objects.filter(namespace=namespace, pk=job_id).first()
    if job is None:
        raise NotFound(f"job {job_id} not found", code="job_not_found")
    return _job_out(job_retry(job))


@router.post("/ns/{ns}/jobs/retry-failed", response=JobsOut, operation_id="jobs_retry_failed")
def jobs_retry_failed(request: HttpRequest, ns: str) -> dict[str, Any]:
    namespace = namespace_for(request, ns, scope=TokenScope.READ_WRITE)
    failed = ProcessingJob.objects.filter(namespace=namespace, status=JobStatus.FAILED)
    return {"jobs": [_job_out(job_retry(job)) for job in failed.order_by("id")]}
