"""Health, installation settings and job retry."""

from __future__ import annotations

from django.http import HttpRequest
from ninja import Router

from memory.api.auth import ADMIN, READ_WRITE, request_namespace, request_token
from memory.api.schemas import (
    HEALTH_FAILED_JOBS,
    HealthOut,
    JobOut,
    JobsOut,
    SettingsIn,
    SettingsOut,
)
from memory.engine.decay import level_schedule
from memory.errors import Forbidden
from memory.selectors.health import namespace_health
from memory.selectors.jobs import JOBS_LISTED, job_get, job_list, job_out
from memory.selectors.processing_rows import jobs_failed_newest
from memory.selectors.settings import EffectiveSettings, memory_settings_get
from memory.services import jobs
from memory.services.settings import settings_update

router = Router(tags=["status"])


@router.get("/ns/{ns}/health", response=HealthOut, operation_id="memory_status")
def health(request: HttpRequest, ns: str) -> HealthOut:
    namespace = request_namespace(request)
    failed = jobs_failed_newest(namespace, HEALTH_FAILED_JOBS)
    return HealthOut.of(namespace_health(namespace=namespace), failed)


def _settings_out(current: EffectiveSettings) -> SettingsOut:
    return SettingsOut(
        block_lambda=current.block_lambda,
        block_turns=current.block_turns,
        saved=current.saved,
        level_schedule=level_schedule(current.block_lambda),
        proxy_history=current.proxy_history,
        proxy_tools=current.proxy_tools,
    )


@router.get("/settings", response=SettingsOut, auth=ADMIN, operation_id="settings_get")
def settings_get(request: HttpRequest) -> SettingsOut:
    return _settings_out(memory_settings_get())


@router.put("/settings", response=SettingsOut, auth=ADMIN, operation_id="settings_update")
def settings_put(request: HttpRequest, payload: SettingsIn) -> SettingsOut:
    """λ, block size and the proxy's history and tools modes apply to every namespace: only an
    installation token may change them (a namespace's admin token gets 403
    `installation_scope_required`)."""
    token = request_token(request)
    if not token.installation:
        raise Forbidden(
            "λ and block size apply to every namespace: changing them needs an installation "
            "token (manage.py create_agent_token --installation)",
            code="installation_scope_required",
        )
    updated = settings_update(
        block_lambda=payload.block_lambda,
        block_turns=payload.block_turns,
        proxy_history=payload.proxy_history,
        proxy_tools=payload.proxy_tools,
        actor=f"token:{token.prefix}",
    )
    return _settings_out(updated)


@router.get("/ns/{ns}/jobs", response=JobsOut, operation_id="jobs_list")
def jobs_list(request: HttpRequest, ns: str, status: str | None = None) -> JobsOut:
    namespace = request_namespace(request)
    return JobsOut(jobs=[job_out(job) for job in job_list(namespace, status=status)[:JOBS_LISTED]])


@router.post(
    "/ns/{ns}/jobs/{job_id}/retry", response=JobOut, auth=READ_WRITE, operation_id="jobs_retry"
)
def jobs_retry(request: HttpRequest, ns: str, job_id: int) -> JobOut:
    namespace = request_namespace(request)
    actor = f"token:{request_token(request).prefix}"
    return job_out(jobs.job_retry(job=job_get(namespace, job_id), actor=actor))


@router.post(
    "/ns/{ns}/jobs/retry-failed",
    response=JobsOut,
    auth=READ_WRITE,
    operation_id="jobs_retry_failed",
)
def jobs_retry_failed(request: HttpRequest, ns: str) -> JobsOut:
    namespace = request_namespace(request)
    actor = f"token:{request_token(request).prefix}"
    return JobsOut(
        jobs=[job_out(j) for j in jobs.jobs_retry_failed(namespace_id=namespace.pk, actor=actor)]
    )
