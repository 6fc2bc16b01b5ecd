"""Reads for the Memory UI's Processing page and its admin actions (SPEC §12.2–12.3, §13.9,
§5.4): jobs by kind and state, failed jobs with their complete (redacted) error, jobs in
progress, the last model calls, the admin audit log, what "retry all failed" would retry, and
what an event action (pin, unpin, forget, restore) would change in the graph. Failed jobs and
model calls are memory.selectors.processing_rows' rows, the ones the health read has too.

Every function reads a fixed number of queries however many rows there are; every string from
the database leaves redacted (the templates escape it too)."""

from __future__ import annotations

from memory.models import Namespace
from memory.selectors.out import Out
from memory.selectors.paging import Page
from memory.selectors.processing_rows import (
    JobRowOut,
    ModelCallsOut,
    jobs_failed_page,
    model_calls_recent,
)
from memory.selectors.processing_view.admin_log import (
    ADMIN_LOG_PER_PAGE,
    AdminActionOut,
    DetailChangeOut,
    admin_action_out,
    admin_log_page,
)
from memory.selectors.processing_view.event_actions import (
    EVENT_ACTIONS,
    EventActionOut,
    GraphChangeOut,
    LinkedOut,
    event_action_preview,
)
from memory.selectors.processing_view.jobs import (
    ACTIVE_SHOWN,
    JOB_KINDS,
    JOB_STATUSES,
    ActiveJobsOut,
    JobCountsOut,
    JobKindCountsOut,
    RetryAllOut,
    job_counts,
    jobs_active,
    retry_all_preview,
)

__all__ = [
    "ACTIVE_SHOWN",
    "ADMIN_LOG_PER_PAGE",
    "EVENT_ACTIONS",
    "JOB_KINDS",
    "JOB_STATUSES",
    "ActiveJobsOut",
    "AdminActionOut",
    "DetailChangeOut",
    "EventActionOut",
    "GraphChangeOut",
    "JobCountsOut",
    "JobKindCountsOut",
    "LinkedOut",
    "ProcessingOut",
    "RetryAllOut",
    "admin_action_out",
    "admin_log_page",
    "event_action_preview",
    "job_counts",
    "jobs_active",
    "processing_overview",
    "retry_all_preview",
]


class ProcessingOut(Out):
    namespace: str
    counts: JobCountsOut
    failed: Page[JobRowOut]
    active: ActiveJobsOut
    model_calls: ModelCallsOut
    admin_log: Page[AdminActionOut]


def processing_overview(
    namespace: Namespace, *, failed_page: int | str | None, log_page: int | str | None
) -> ProcessingOut:
    """Everything the Processing page shows; ten queries however many rows."""
    return ProcessingOut.model_construct(
        namespace=namespace.name,
        counts=job_counts(namespace),
        failed=jobs_failed_page(namespace, page=failed_page),
        active=jobs_active(namespace),
        model_calls=model_calls_recent(namespace),
        admin_log=admin_log_page(namespace, page=log_page),
    )
