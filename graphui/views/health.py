"""Namespace health page (SPEC §13.1): the namespace's counts, processing state and settings from
`namespace_health` (the same read the API's memory_status answers with), plus three small
server-rendered charts from `health_charts`. Failed jobs and model calls are the processing
page's partials, rendered from the same rows. Its counts, charts and jobs are live regions: each
answers `?partial=<name>` with just its fragment (graphui.partials), which live.js re-reads when
the namespace announces a change (memory.services.live)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.http import HttpRequest, HttpResponse
from django.utils.safestring import SafeString
from django.utils.translation import gettext as _

from graphui.access import may, ui_namespace
from graphui.charts import Bar, bar_chart, line_chart
from graphui.partials import live_page
from graphui.vocabulary import weight_band_label, weight_band_range
from memory.engine.decay import LAMBDA_WARNING_ABOVE
from memory.models import JobKind, JobStatus, Role
from memory.selectors.health import namespace_health
from memory.selectors.health_charts import HealthChartsOut, health_charts
from memory.selectors.paging import first_page
from memory.selectors.processing_rows import FAILED_PER_PAGE

JOB_STATUSES: tuple[str, ...] = tuple(JobStatus.values)  # queued, running, succeeded, failed
JOB_KINDS: tuple[str, ...] = tuple(JobKind.values)


@dataclass(frozen=True)
class JobRow:
    kind: str
    counts: list[tuple[str, int]]  # (status, count) in JOB_STATUSES order
    failed: int


def _job_rows(jobs: dict[str, dict[str, int]]) -> list[JobRow]:
    kinds = [*(k for k in JOB_KINDS if k in jobs), *sorted(k for k in jobs if k not in JOB_KINDS)]
    return [
        JobRow(
            kind=kind,
            counts=[(status, jobs[kind].get(status, 0)) for status in JOB_STATUSES],
            failed=jobs[kind].get(JobStatus.FAILED, 0),
        )
        for kind in kinds
    ]


def _share(part: int, whole: int) -> str:
    return f"{round(100 * part / whole)}%" if whole and part else ""


def _level_chart(charts: HealthChartsOut) -> SafeString:
    ready = charts.ready_blocks
    bars = [Bar(f"L{c.level}", c.blocks, _share(c.blocks, ready)) for c in charts.levels]
    bars += [
        Bar(_("pending"), charts.pending_blocks),
        Bar(_("failed"), charts.failed_blocks),
    ]
    return bar_chart(bars, title=_("Blocks by display level"))


def _band_chart(charts: HealthChartsOut) -> SafeString:
    total = charts.visible_events
    bars = [Bar(weight_band_range(b.band), b.events, _share(b.events, total)) for b in charts.bands]
    return bar_chart(bars, title=_("Events by weight band"))


def _adoption_chart(charts: HealthChartsOut) -> SafeString:
    buckets = charts.adoption_buckets
    return line_chart(
        [(b.first_turn, b.adoptions) for b in buckets],
        marks=[(b.first_turn, b.adoptions) for b in buckets if b.receipts],
        title=_("Adoptions over turns"),
        x_label=(
            _("namespace turn")
            if charts.bucket_turns == 1
            else _("first turn of each %(n)d-turn bucket") % {"n": charts.bucket_turns}
        ),
    )


# The page's live regions (`?partial=<name>`, re-read by live.js) and the reads each one needs:
# a fragment costs only its own queries, not the whole page's.
HEALTH = live_page("graphui:health", "graphui/health.html", ("stats", "charts", "jobs"))
READS: dict[str | None, tuple[bool, bool]] = {  # part → (needs health, needs charts)
    None: (True, True),
    "stats": (True, True),
    "charts": (False, True),
    "jobs": (True, False),
}


def health_page(request: HttpRequest, ns: str) -> HttpResponse:
    namespace = ui_namespace(request.user, ns)
    part = HEALTH.requested(request)
    needs_health, needs_charts = READS[part]
    context: dict[str, Any] = {}
    if needs_health:
        health = namespace_health(namespace=namespace)
        context |= {
            "health": health,
            "job_rows": _job_rows(health.jobs),
            "job_statuses": JOB_STATUSES,
            "batches_total": sum(health.retrieval.batches.values()),
            "assessments_total": sum(health.retrieval.assessments.values()),
            # The processing page's partials for failed jobs and model calls, with their rows
            # from the health read (its newest failed jobs are the processing page's first).
            "can_retry": may(request.user, namespace, Role.ADMIN),
            "failed": first_page(
                health.failed_jobs, total=health.jobs_failed, per_page=FAILED_PER_PAGE
            ),
            "calls": health.model_calls,
        }
    if needs_charts:
        charts = health_charts(namespace=namespace)
        context |= {
            "charts": charts,
            "lambda_fast": charts.block_lambda > LAMBDA_WARNING_ABOVE,
            "level_chart": _level_chart(charts),
            "band_chart": _band_chart(charts),
            "adoption_chart": _adoption_chart(charts) if charts.receipts else None,
            "band_legend": [(weight_band_label(b.band), b.events) for b in charts.bands],
            "used_buckets": [b for b in charts.adoption_buckets if b.receipts],
        }
    return HEALTH.render(request, part, context)
