"""Processing jobs and model calls as rows, one read model each for every way they leave: the
agent API's health read (memory_status), the health page and the processing page, which both
render them with the same partials (SPEC §12.2–12.3, §13.1, §13.9).

A job row is the API's job (`JobOut`) plus where it belongs: its block's place in its session. A
model call row is the call with its bounded answer or error. Fixed query counts; every string
from the database leaves redacted."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any, Final

from django.db.models import Count, F

from memory.engine.redact import redact
from memory.models import JobStatus, ModelCall, Namespace, ProcessingJob
from memory.selectors.jobs import JobOut, job_out
from memory.selectors.out import Out
from memory.selectors.paging import Page, paginate

FAILED_PER_PAGE: Final = 20  # each carries a full traceback
MODEL_CALLS_SHOWN: Final = 10  # of each: successful and failed
MODEL_ERROR_CHARS: Final = 2000  # the error of a failed call, bounded like its preview
SESSION_LABEL_CHARS: Final = 80


# --- jobs ---------------------------------------------------------------------------------------


class JobRowOut(JobOut):
    """A job with where it belongs: its block's place in its session."""

    block_sequence: int | None
    session_label: str  # redacted, cut; "" without a block
    updated_at: datetime
    lease_expires_at: datetime | None


def _session_label(job: ProcessingJob) -> str:
    if job.block is None:
        return ""
    label = " ".join(redact(job.block.session.external_id).split())
    return label if len(label) <= SESSION_LABEL_CHARS else label[: SESSION_LABEL_CHARS - 1] + "…"


def job_rows(jobs: Sequence[ProcessingJob]) -> list[JobRowOut]:
    """Rows of jobs read with `jobs_placed` (their block and session come with them)."""
    return [
        JobRowOut.model_construct(
            **dict(job_out(job)),
            block_sequence=job.block.sequence if job.block is not None else None,
            session_label=_session_label(job),
            updated_at=job.updated_at,
            lease_expires_at=job.lease_expires_at,
        )
        for job in jobs
    ]


def jobs_placed(namespace: Namespace) -> Any:
    """The namespace's jobs with their block and session, for `job_rows`."""
    return ProcessingJob.objects.filter(namespace=namespace).select_related("block__session")


def jobs_failed_page(namespace: Namespace, *, page: int | str | None) -> Page[JobRowOut]:
    """Failed jobs, the most recently failed first, paged in SQL; two queries."""
    rows = jobs_placed(namespace).filter(status=JobStatus.FAILED)
    rows = rows.order_by(F("finished_at").desc(nulls_last=True), "-pk")
    return paginate(rows, page=page, per_page=FAILED_PER_PAGE, convert=job_rows)


def jobs_failed_newest(namespace: Namespace, limit: int) -> list[JobRowOut]:
    """The `limit` newest failed jobs (by id: the agent API's order); one query."""
    rows = jobs_placed(namespace).filter(status=JobStatus.FAILED).order_by("-pk")[:limit]
    return job_rows(list(rows))


# --- model calls --------------------------------------------------------------------------------


class ModelCallRowOut(Out):
    id: int
    job_id: int | None
    kind: str
    model: str
    ok: bool
    latency_ms: int
    prompt_tokens: int
    completion_tokens: int
    attempts: int
    created_at: datetime
    preview: str  # the model's answer, bounded at write time (2,000 characters), redacted
    error: str  # failed calls: the error, bounded and redacted
    error_cut: bool


class ModelCallsOut(Out):
    recent: list[ModelCallRowOut]  # the newest successful calls
    failed: list[ModelCallRowOut]  # the newest failed calls
    by_kind: dict[str, int]  # every call of the namespace, successful or not


def _call_row(call: ModelCall) -> ModelCallRowOut:
    error = call.error_text
    return ModelCallRowOut.model_construct(
        id=call.pk,
        job_id=call.job_id,
        kind=call.kind,
        model=redact(call.model),
        ok=call.ok,
        latency_ms=call.latency_ms,
        prompt_tokens=call.prompt_tokens,
        completion_tokens=call.completion_tokens,
        attempts=call.attempts,
        created_at=call.created_at,
        preview=redact(call.preview),
        error=redact(error[:MODEL_ERROR_CHARS]),
        error_cut=len(error) > MODEL_ERROR_CHARS,
    )


def model_calls_recent(namespace: Namespace) -> ModelCallsOut:
    """The newest successful and failed model calls of this namespace, and every call counted
    by kind; three queries."""
    calls = ModelCall.objects.filter(namespace=namespace)
    newest = calls.order_by("-id")
    counted = calls.values("kind").annotate(n=Count("pk")).order_by("kind")
    return ModelCallsOut.model_construct(
        recent=[_call_row(c) for c in newest.filter(ok=True)[:MODEL_CALLS_SHOWN]],
        failed=[_call_row(c) for c in newest.filter(ok=False)[:MODEL_CALLS_SHOWN]],
        by_kind={row["kind"]: row["n"] for row in counted},
    )
