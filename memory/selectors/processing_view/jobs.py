"""Processing jobs and model calls as the Processing page shows them (SPEC §12.2–12.3, §13.9):
jobs by kind and state, failed jobs with their complete (redacted) error, jobs in progress, what
"retry all failed" would retry, and the newest model calls. Fixed query counts; every string
from the database leaves redacted."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any, Final

from django.db.models import Case, Count, F, Max, Value, When

from memory.engine.redact import redact
from memory.models import JobKind, JobStatus, ModelCall, Namespace, ProcessingJob
from memory.selectors.jobs import JobOut, job_out
from memory.selectors.out import Out
from memory.selectors.paging import Page, paginate

JOB_KINDS: Final = tuple(
    JobKind.values
)  # block_views, block_extract, graph_project, import_preview
JOB_STATUSES: Final = tuple(JobStatus.values)  # queued, running, succeeded, failed
FAILED_PER_PAGE: Final = 20  # each carries a full traceback
ACTIVE_SHOWN: Final = 50  # the jobs next in line; the counts table has the rest
MODEL_CALLS_SHOWN: Final = 10  # of each: successful and failed
MODEL_ERROR_CHARS: Final = 2000  # the error of a failed call, bounded like its preview
SESSION_LABEL_CHARS: Final = 80


class JobKindCountsOut(Out):
    kind: str
    counts: dict[str, int]  # every status of JOB_STATUSES, zeros included
    total: int

    @property
    def cells(self) -> list[tuple[str, int]]:
        return [(status, self.counts.get(status, 0)) for status in JOB_STATUSES]


class JobCountsOut(Out):
    kinds: list[JobKindCountsOut]  # the four known kinds first, always, then any other
    totals: dict[str, int]  # status → count over all kinds

    @property
    def total(self) -> int:
        return sum(self.totals.values())

    @property
    def total_cells(self) -> list[tuple[str, int]]:
        return [(status, self.totals.get(status, 0)) for status in JOB_STATUSES]

    @property
    def failed(self) -> int:
        return self.totals.get(JobStatus.FAILED, 0)

    @property
    def in_progress(self) -> int:
        return self.totals.get(JobStatus.QUEUED, 0) + self.totals.get(JobStatus.RUNNING, 0)


class JobRowOut(Out):
    """A job with where it belongs: its block's place in its session."""

    job: JobOut
    block_sequence: int | None
    session_label: str  # redacted, cut; "" without a block
    updated_at: datetime
    lease_expires_at: datetime | None


class ActiveJobsOut(Out):
    items: list[JobRowOut]  # running first, then queued, oldest first
    total: int

    @property
    def more(self) -> int:
        return self.total - len(self.items)


def job_counts(namespace: Namespace) -> JobCountsOut:
    """Jobs by kind and status; one query."""
    found: dict[str, dict[str, int]] = {kind: {} for kind in JOB_KINDS}
    rows = (
        ProcessingJob.objects.filter(namespace=namespace)
        .values("kind", "status")
        .annotate(n=Count("pk"))
        .order_by()
    )
    totals: dict[str, int] = dict.fromkeys(JOB_STATUSES, 0)
    for row in rows:
        found.setdefault(row["kind"], {})[row["status"]] = row["n"]
        totals[row["status"]] = totals.get(row["status"], 0) + row["n"]
    kinds = [*JOB_KINDS, *sorted(k for k in found if k not in JOB_KINDS)]
    return JobCountsOut.model_construct(
        kinds=[
            JobKindCountsOut.model_construct(
                kind=kind,
                counts={s: found[kind].get(s, 0) for s in JOB_STATUSES},
                total=sum(found[kind].values()),
            )
            for kind in kinds
        ],
        totals=totals,
    )


def _session_label(job: ProcessingJob) -> str:
    if job.block is None:
        return ""
    label = " ".join(redact(job.block.session.external_id).split())
    return label if len(label) <= SESSION_LABEL_CHARS else label[: SESSION_LABEL_CHARS - 1] + "…"


def _job_rows(jobs: Sequence[ProcessingJob]) -> list[JobRowOut]:
    return [
        JobRowOut.model_construct(
            job=job_out(job),
            block_sequence=job.block.sequence if job.block is not None else None,
            session_label=_session_label(job),
            updated_at=job.updated_at,
            lease_expires_at=job.lease_expires_at,
        )
        for job in jobs
    ]


def _jobs(namespace: Namespace) -> Any:
    return ProcessingJob.objects.filter(namespace=namespace).select_related("block__session")


def jobs_failed_page(namespace: Namespace, *, page: int | str | None) -> Page[JobRowOut]:
    """Failed jobs, the most recently failed first, paged in SQL; two queries."""
    rows = _jobs(namespace).filter(status=JobStatus.FAILED)
    rows = rows.order_by(F("finished_at").desc(nulls_last=True), "-pk")
    return paginate(rows, page=page, per_page=FAILED_PER_PAGE, convert=_job_rows)


def jobs_active(namespace: Namespace) -> ActiveJobsOut:
    """Jobs in progress: running ones first, then the queue in the order it is worked; two
    queries."""
    rows = _jobs(namespace).filter(status__in=(JobStatus.RUNNING, JobStatus.QUEUED))
    ordered = rows.annotate(
        waiting=Case(When(status=JobStatus.RUNNING, then=Value(0)), default=Value(1))
    ).order_by("waiting", "pk")
    return ActiveJobsOut.model_construct(
        items=_job_rows(list(ordered[:ACTIVE_SHOWN])), total=rows.count()
    )


class RetryAllOut(Out):
    """What "retry all failed" would retry: how many jobs of which kinds, up to which id."""

    total: int
    by_kind: list[tuple[str, int]]  # in JOB_KINDS order
    up_to_id: int | None


def retry_all_preview(namespace: Namespace) -> RetryAllOut:
    rows = (
        ProcessingJob.objects.filter(namespace=namespace, status=JobStatus.FAILED)
        .values("kind")
        .annotate(n=Count("pk"), top=Max("pk"))
        .order_by()
    )
    found = {row["kind"]: (row["n"], row["top"]) for row in rows}
    order = [*JOB_KINDS, *sorted(k for k in found if k not in JOB_KINDS)]
    return RetryAllOut.model_construct(
        total=sum(n for n, _top in found.values()),
        by_kind=[(kind, found[kind][0]) for kind in order if kind in found],
        up_to_id=max((top for _n, top in found.values()), default=None),
    )


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
    ok: list[ModelCallRowOut]
    failed: list[ModelCallRowOut]


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
    """The newest successful and failed model calls of this namespace; two queries."""
    calls = ModelCall.objects.filter(namespace=namespace).order_by("-id")
    return ModelCallsOut.model_construct(
        ok=[_call_row(c) for c in calls.filter(ok=True)[:MODEL_CALLS_SHOWN]],
        failed=[_call_row(c) for c in calls.filter(ok=False)[:MODEL_CALLS_SHOWN]],
    )
