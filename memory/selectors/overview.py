"""Every namespace's health at a glance for the Namespaces page (SPEC §13.1), in a fixed number of
queries however many namespaces there are.

One page of namespaces is read first; then each family of counts (sessions, turns, blocks by
status, events by status with their adoptions, nodes, edges, receipts, jobs) is one grouped
aggregate over that page's namespace ids — `values("namespace_id").annotate(...)` — so the page
costs 10 queries whether it shows 1 namespace or 50 (a per-row annotate over several joins
would multiply the rows instead).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from django.db.models import Count, F, QuerySet, Sum

from memory.models import (
    Block,
    BlockStatus,
    Event,
    EventStatus,
    GraphEdge,
    GraphNode,
    JobStatus,
    Namespace,
    ProcessingJob,
    Session,
    Turn,
    UsageReceipt,
)
from memory.selectors.out import Out
from memory.selectors.paging import Page, paginate

NAMESPACES_PER_PAGE = 50
_OPEN_JOB_STATUSES = (JobStatus.QUEUED, JobStatus.RUNNING)


class NamespaceOverview(Out):
    name: str
    current_turn: int
    last_activity_at: datetime | None
    sessions: int
    turns: int
    blocks_ready: int
    blocks_pending: int
    blocks_failed: int
    events_active: int
    events_superseded: int
    events_forgotten: int
    events_archived: int
    nodes: int
    edges: int
    receipts: int
    adoptions: int  # Σ (n − 1) over the namespace's events, as namespace_health counts it
    jobs_running: int  # queued + running
    jobs_failed: int

    @property
    def events(self) -> int:
        return (
            self.events_active + self.events_superseded + self.events_forgotten
            + self.events_archived
        )  # fmt: skip

    @property
    def needs_attention(self) -> bool:
        return bool(self.blocks_failed or self.jobs_failed)


def _per_namespace(queryset: QuerySet[Any], ids: Sequence[int]) -> dict[int, int]:
    rows = (
        queryset.filter(namespace_id__in=ids)
        .values("namespace_id")
        .annotate(n=Count("pk"))
        .order_by()
    )
    return {row["namespace_id"]: row["n"] for row in rows}


def _per_namespace_and(
    queryset: QuerySet[Any], ids: Sequence[int], field: str
) -> dict[int, dict[str, int]]:
    rows = (
        queryset.filter(namespace_id__in=ids)
        .values("namespace_id", field)
        .annotate(n=Count("pk"))
        .order_by()
    )
    counts: dict[int, dict[str, int]] = defaultdict(dict)
    for row in rows:
        counts[row["namespace_id"]][row[field]] = row["n"]
    return counts


def _overviews(namespaces: Sequence[dict[str, Any]]) -> list[NamespaceOverview]:
    ids = [ns["id"] for ns in namespaces]
    if not ids:
        return []
    sessions = _per_namespace(Session.objects.all(), ids)
    turns = _per_namespace(Turn.objects.all(), ids)
    nodes = _per_namespace(GraphNode.objects.all(), ids)
    edges = _per_namespace(GraphEdge.objects.all(), ids)
    receipts = _per_namespace(UsageReceipt.objects.all(), ids)
    blocks = _per_namespace_and(Block.objects.all(), ids, "status")
    open_or_failed = ProcessingJob.objects.filter(
        status__in=(*_OPEN_JOB_STATUSES, JobStatus.FAILED)
    )
    jobs = _per_namespace_and(open_or_failed, ids, "status")
    events: dict[int, dict[str, int]] = defaultdict(dict)
    adoptions: dict[int, int] = defaultdict(int)
    event_rows = (
        Event.objects.filter(namespace_id__in=ids)
        .values("namespace_id", "status")
        .annotate(n=Count("pk"), adopted=Sum(F("adoptions") - 1))
        .order_by()
    )
    for row in event_rows:
        events[row["namespace_id"]][row["status"]] = row["n"]
        adoptions[row["namespace_id"]] += int(row["adopted"] or 0)
    return [
        NamespaceOverview.model_construct(
            name=ns["name"],
            current_turn=ns["current_turn"],
            last_activity_at=ns["last_activity_at"],
            sessions=sessions.get(ns["id"], 0),
            turns=turns.get(ns["id"], 0),
            blocks_ready=blocks[ns["id"]].get(BlockStatus.READY, 0),
            blocks_pending=blocks[ns["id"]].get(BlockStatus.PENDING, 0),
            blocks_failed=blocks[ns["id"]].get(BlockStatus.FAILED, 0),
            events_active=events[ns["id"]].get(EventStatus.ACTIVE, 0),
            events_superseded=events[ns["id"]].get(EventStatus.SUPERSEDED, 0),
            events_forgotten=events[ns["id"]].get(EventStatus.FORGOTTEN, 0),
            events_archived=events[ns["id"]].get(EventStatus.ARCHIVED, 0),
            nodes=nodes.get(ns["id"], 0),
            edges=edges.get(ns["id"], 0),
            receipts=receipts.get(ns["id"], 0),
            adoptions=adoptions[ns["id"]],
            jobs_running=sum(jobs[ns["id"]].get(s, 0) for s in _OPEN_JOB_STATUSES),
            jobs_failed=jobs[ns["id"]].get(JobStatus.FAILED, 0),
        )
        for ns in namespaces
    ]


def _namespace_rows(namespaces: QuerySet[Namespace] | None = None) -> QuerySet[Namespace, Any]:
    chosen = Namespace.objects.all() if namespaces is None else namespaces
    return chosen.order_by("name").values("id", "name", "current_turn", "last_activity_at")


def namespace_overview(namespaces: QuerySet[Namespace] | None = None) -> list[NamespaceOverview]:
    """These namespaces (every one when None), by name, with their counts (9 queries)."""
    return _overviews(list(_namespace_rows(namespaces)))


def namespace_overview_page(
    namespaces: QuerySet[Namespace] | None = None,
    *,
    page: int | str | None = 1,
    per_page: int = NAMESPACES_PER_PAGE,
) -> Page[NamespaceOverview]:
    """One page of `namespace_overview`, paginated in SQL (10 queries with the count)."""
    rows = _namespace_rows(namespaces)
    return paginate(rows, page=page, per_page=per_page, convert=_overviews)
