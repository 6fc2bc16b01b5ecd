"""Import reads for the API, the CLI and the UI: status, progress and one row per decision.

The status is the stored one, except that a batch whose preview job failed for good reads as
`failed` (with the job's error) until the job is retried — the job row is the truth for work.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.db.models import QuerySet

from memory.engine.import_similarity import AUTO_APPLY_CONFIDENCE
from memory.engine.redact import redact
from memory.errors import NotFound
from memory.models import (
    ImportBatch,
    ImportCandidate,
    ImportStatus,
    JobStatus,
    Namespace,
    ProcessingJob,
)
from memory.selectors.dump import redact_value
from memory.selectors.out import Out


def _job(batch: ImportBatch) -> ProcessingJob | None:
    job_id = batch.meta.get("job_id")
    return ProcessingJob.objects.filter(pk=job_id).first() if job_id else None


def import_status(batch: ImportBatch, job: ProcessingJob | None = None) -> str:
    if batch.status == ImportStatus.PROCESSING:
        job = job or _job(batch)
        if job is not None and job.status == JobStatus.FAILED:
            return str(ImportStatus.FAILED)
    return str(batch.status)


class DecisionOut(Out):
    index: int
    candidate: dict[str, Any]
    processed: bool
    action: str | None
    target_event_ids: list[int]
    match_event_ids: list[int]
    confidence: float | None
    reason: str
    decided_by: str | None
    requires_confirmation: bool
    merged: dict[str, Any] | None
    chosen_action: str | None
    chosen_target_event_ids: list[int]
    created_event_id: int | None


def decision_out(candidate: ImportCandidate) -> DecisionOut:
    payload = redact_value({k: v for k, v in candidate.payload.items() if k != "merged"})
    confidence = candidate.confidence
    return DecisionOut.model_construct(
        index=candidate.index,
        candidate=payload,
        processed=candidate.processed,
        action=candidate.action or None,
        target_event_ids=list(candidate.target_event_ids),
        match_event_ids=list(candidate.match_event_ids),
        confidence=confidence,
        reason=redact(candidate.reason),
        decided_by=candidate.decided_by or None,
        requires_confirmation=candidate.processed and (confidence or 0.0) < AUTO_APPLY_CONFIDENCE,
        merged=redact_value(candidate.payload.get("merged")),
        chosen_action=candidate.chosen_action or None,
        chosen_target_event_ids=list(candidate.chosen_target_event_ids),
        created_event_id=candidate.created_event_id,
    )


class ImportSummaryOut(Out):
    import_id: int
    status: str
    format: str
    kind: str
    source_system: str
    coverage: str | None
    processed: int
    total: int
    dropped: int
    top_k: int
    source_block_id: int | None
    created_at: datetime
    committed_at: datetime | None
    undone_at: datetime | None


def import_summary(batch: ImportBatch, job: ProcessingJob | None = None) -> ImportSummaryOut:
    return ImportSummaryOut.model_construct(
        import_id=batch.pk,
        status=import_status(batch, job),
        format=batch.format,
        kind=batch.meta.get("kind", "memories"),
        source_system=redact(batch.source_system),
        coverage=batch.coverage or None,
        processed=batch.processed,
        total=batch.total,
        dropped=batch.dropped,
        top_k=batch.top_k,
        source_block_id=batch.commit_record.get("block_id"),
        created_at=batch.created_at,
        committed_at=batch.committed_at,
        undone_at=batch.undone_at,
    )


class ImportJobOut(Out):
    id: int
    status: str
    attempts: int
    error: str | None


class ImportOut(ImportSummaryOut):
    """The whole preview: summary, decisions, the preview job and any error."""

    parse_error: dict[str, Any] | None
    meta: dict[str, Any]
    requires_confirmation_count: int
    decisions: list[DecisionOut]
    job: ImportJobOut | None
    created_event_ids: list[int]
    changed_event_ids: list[int]
    undo: dict[str, Any] | None


def import_out(batch: ImportBatch) -> ImportOut:
    job = _job(batch)
    decisions = [decision_out(c) for c in batch.candidates.order_by("index")]
    record = batch.commit_record
    return ImportOut.model_construct(
        **dict(import_summary(batch, job)),
        parse_error=batch.parse_error,
        meta=redact_value({k: v for k, v in batch.meta.items() if k not in ("header", "job_id")}),
        requires_confirmation_count=sum(1 for d in decisions if d.requires_confirmation),
        decisions=decisions,
        job=None
        if job is None
        else ImportJobOut.model_construct(
            id=job.pk,
            status=job.status,
            attempts=job.attempts,
            error=redact(job.error_preview) or None,
        ),
        created_event_ids=list(record.get("created_event_ids", [])),
        changed_event_ids=sorted(int(k) for k in record.get("before", {})),
        undo=record.get("undo"),
    )


def import_get(namespace: Namespace, import_id: int) -> ImportBatch:
    batch = ImportBatch.objects.filter(namespace=namespace, pk=import_id).first()
    if batch is None:
        raise NotFound(f"import {import_id} not found", code="import_not_found")
    return batch


def import_list(namespace: Namespace, *, limit: int = 100) -> QuerySet[ImportBatch]:
    return ImportBatch.objects.filter(namespace=namespace).order_by("-pk")[:limit]
