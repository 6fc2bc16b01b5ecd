"""Processing jobs as the Processing page counts and queues them (SPEC §12.2–12.3, §13.9): jobs
by kind and state, jobs in progress and what "retry all failed" would retry. The failed jobs and
model calls it lists are memory.selectors.processing_rows' (the health page shows the same).
Fixed query counts."""

from __future__ import annotations

from typing import Final

from django.db.models import Case, Count, Max, Value, When

from memory.models import JobKind, JobStatus, Namespace, ProcessingJob
from memory.selectors.out import Out
from memory.selectors.processing_rows import JobRowOut, job_rows, jobs_placed

JOB_KINDS: Final = tuple(
    JobKind.values
)  # block_views, block_extract, graph_project, import_preview
JOB_STATUSES: Final = tuple(JobStatus.values)  # queued, running, succeeded, failed
ACTIVE_SHOWN: Final = 50  # the jobs next in line; the counts table has the rest


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


def jobs_active(namespace: Namespace) -> ActiveJobsOut:
    """Jobs in progress: running ones first, then the queue in the order it is worked; two
    queries."""
    rows = jobs_placed(namespace).filter(status__in=(JobStatus.RUNNING, JobStatus.QUEUED))
    ordered = rows.annotate(
        waiting=Case(When(status=JobStatus.RUNNING, then=Value(0)), default=Value(1))
    ).order_by("waiting", "pk")
    return ActiveJobsOut.model_construct(
        items=job_rows(list(ordered[:ACTIVE_SHOWN])), total=rows.count()
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
