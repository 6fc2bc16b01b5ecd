"""Namespace health: counts, job states, settings and model mode in one read (SPEC §12.3, §13.1).
Its failed jobs and model calls are memory.selectors.processing_rows' rows, the ones the health
and processing pages render."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.db.models import Count, F, Sum

from memory.models import (
    Activation,
    Assessment,
    Block,
    Event,
    GraphEdge,
    GraphFact,
    GraphNode,
    JobStatus,
    Message,
    Namespace,
    ProcessingJob,
    RetrievalBatch,
    Session,
    Turn,
    UsageReceipt,
)
from memory.selectors.out import Out
from memory.selectors.processing_model import processing_model
from memory.selectors.processing_rows import (
    JobRowOut,
    ModelCallsOut,
    jobs_failed_page,
    model_calls_recent,
)
from memory.selectors.proxy import TrafficOut, proxy_traffic
from memory.selectors.settings import memory_settings_get


class CountsOut(Out):
    sessions: int
    turns: int
    messages: int
    blocks: dict[str, int]  # by status
    events: dict[str, int]  # by lifecycle status
    nodes: int
    facts: int
    edges: int
    receipts: int
    zero_increment_receipts: int
    adoptions: int  # Σ (n − 1): every event starts at n = 1 (SPEC §7.3)


class RetrievalCountsOut(Out):
    batches: dict[str, int]
    assessments: dict[str, int]
    activations: int


class SettingsBriefOut(Out):
    block_lambda: float
    block_turns: int


class ProcessingOut(Out):
    """Which model processes this namespace's memory and why (llm_runtime.ProcessingModel)."""

    mode: str  # model | offline
    why: str  # configured | proxy | no_model | no_proxied_request | no_upstream
    protocol: str
    model: str


class NamespaceHealthOut(Out):
    namespace: str
    current_turn: int
    last_activity_at: datetime | None
    counts: CountsOut
    retrieval: RetrievalCountsOut
    jobs: dict[str, dict[str, int]]  # kind → status → count
    failed_jobs: list[JobRowOut]  # the newest failed jobs: the first page the UI shows
    model_calls: ModelCallsOut
    settings: SettingsBriefOut
    model_mode: str
    processing: ProcessingOut
    proxy: TrafficOut

    @property
    def jobs_running(self) -> int:
        return sum(
            by.get(JobStatus.RUNNING, 0) + by.get(JobStatus.QUEUED, 0) for by in self.jobs.values()
        )

    @property
    def jobs_failed(self) -> int:
        return sum(by.get(JobStatus.FAILED, 0) for by in self.jobs.values())


def _counts_by(queryset: Any, field: str) -> dict[str, int]:
    return {row[field]: row["n"] for row in queryset.values(field).annotate(n=Count("pk"))}


def namespace_health(*, namespace: Namespace) -> NamespaceHealthOut:
    settings = memory_settings_get()
    chosen = processing_model(namespace.pk)
    jobs: dict[str, dict[str, int]] = {}
    rows = (
        ProcessingJob.objects.filter(namespace=namespace)
        .values("kind", "status")
        .annotate(n=Count("pk"))
    )
    for row in rows:
        jobs.setdefault(row["kind"], {})[row["status"]] = row["n"]
    receipts = UsageReceipt.objects.filter(namespace=namespace)
    adopted = Event.objects.filter(namespace=namespace).aggregate(total=Sum(F("adoptions") - 1))
    return NamespaceHealthOut.model_construct(
        namespace=namespace.name,
        current_turn=namespace.current_turn,
        last_activity_at=namespace.last_activity_at,
        counts=CountsOut.model_construct(
            sessions=Session.objects.filter(namespace=namespace).count(),
            turns=Turn.objects.filter(namespace=namespace).count(),
            messages=Message.objects.filter(namespace=namespace).count(),
            blocks=_counts_by(Block.objects.filter(namespace=namespace), "status"),
            events=_counts_by(Event.objects.filter(namespace=namespace), "status"),
            nodes=GraphNode.objects.filter(namespace=namespace).count(),
            facts=GraphFact.objects.filter(namespace=namespace).count(),
            edges=GraphEdge.objects.filter(namespace=namespace).count(),
            receipts=receipts.count(),
            zero_increment_receipts=receipts.filter(evidence_refs=[]).count(),
            adoptions=int(adopted["total"] or 0),
        ),
        retrieval=RetrievalCountsOut.model_construct(
            batches=_counts_by(RetrievalBatch.objects.filter(namespace=namespace), "status"),
            assessments=_counts_by(Assessment.objects.filter(namespace=namespace), "verdict"),
            activations=Activation.objects.filter(namespace=namespace).count(),
        ),
        jobs=jobs,
        failed_jobs=jobs_failed_page(namespace, page=1).items,
        model_calls=model_calls_recent(namespace),
        settings=SettingsBriefOut.model_construct(
            block_lambda=settings.block_lambda, block_turns=settings.block_turns
        ),
        model_mode=chosen.mode,
        processing=ProcessingOut.model_construct(
            mode=chosen.mode, why=chosen.why, protocol=chosen.protocol, model=chosen.model
        ),
        proxy=proxy_traffic(namespace),
    )
