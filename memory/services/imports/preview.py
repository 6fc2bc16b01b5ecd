"""Import preview (SPEC §11.3): parse at once, then decide each candidate in a durable job.

`import_create` parses the text in the request (a parse error writes nothing), stores the batch
and its candidates and queues one IMPORT_PREVIEW job. The job decides candidates one at a time,
each in its own short transaction (`ImportCandidate.processed` is the persisted progress), so a
restarted worker resumes where the last one stopped, and no lock is held while the model thinks —
concurrent ingestion is never blocked. Nothing outside the import's own rows is written.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models import F
from django.utils import timezone

from memory.engine.import_similarity import (
    AUTO_APPLY_CONFIDENCE,
    Comparable,
    decide_offline,
    fingerprint,
)
from memory.engine.lifecycle import VISIBLE_STATUSES
from memory.engine.prompts.import_decision import (
    SYSTEM_PROMPT,
    ImportDecisionOut,
    PromptMatch,
    build_user_prompt,
)
from memory.errors import Forbidden, Invalid
from memory.llm.client import LLMClient
from memory.llm.errors import LLMError
from memory.models import (
    Event,
    ImportBatch,
    ImportCandidate,
    ImportStatus,
    JobKind,
    Namespace,
    ProcessingJob,
    Session,
)
from memory.search import search_events
from memory.services.imports import formats
from memory.services.imports.candidates import comparable, search_query
from memory.services.imports.dumpfile import parse_dump
from memory.services.imports.fingerprint import memory_fingerprint
from memory.services.imports.parser import check_size, parse_memories
from memory.services.imports.restore import require_empty
from memory.services.jobs import job_create, job_handler
from memory.services.live import publish
from memory.services.llm_runtime import llm_call, llm_client

DEFAULT_TOP_K = 5
KIND_MEMORIES, KIND_CONVERSATIONS, KIND_DUMP = "memories", "conversations", "dump"


@dataclass(frozen=True)
class Parsed:
    format: str
    kind: str
    source_system: str
    coverage: str
    meta: dict[str, Any]
    candidates: list[dict[str, Any]]
    dropped: int


def import_parse(*, text: str, fmt: str, namespace: Namespace | None = None) -> Parsed:
    """Any supported format to candidates; raises a 4xx StrataGateError naming the problem."""
    if fmt not in formats.FORMATS:
        raise Invalid(
            f"unknown format {fmt!r}",
            code="invalid_format",
            details={"formats": list(formats.FORMATS)},
        )
    chosen = formats.detect_format(text) if fmt == "auto" else fmt
    if chosen in ("v2", "mem0"):
        memories = parse_memories(text) if chosen == "v2" else formats.parse_mem0(text)
        meta = {**memories.meta, "schema_version": memories.schema_version}
        meta["skipped_inactive"] = memories.skipped_inactive
        return Parsed(
            chosen,
            KIND_MEMORIES,
            memories.source_system,
            memories.coverage,
            meta,
            memories.candidates,
            memories.dropped,
        )
    if chosen in formats.CONVERSATION_FORMATS:
        chats = formats.parse_conversations(text, chosen)
        candidates = [c.summary() for c in chats.conversations]
        return Parsed(
            chosen, KIND_CONVERSATIONS, chats.source_system, "", {}, candidates, chats.dropped
        )
    document = parse_dump(text)
    if namespace is not None:
        require_empty(namespace)
    summary = {
        "kind": "dump",
        "title": f"StrataGate dump of namespace {document.header.get('namespace', '?')}",
        "summary": ", ".join(f"{len(v)} {k}" for k, v in document.records.items()) or "empty",
        "counts": {k: len(v) for k, v in document.records.items()},
    }
    return Parsed(
        "jsonl", KIND_DUMP, "StrataGate", "full", {"header": document.header}, [summary], 0
    )


def import_create(
    *,
    namespace: Namespace,
    text: str,
    fmt: str = "auto",
    top_k: int = DEFAULT_TOP_K,
    created_by: str = "",
    check_limits: bool = True,
    may_restore_dump: bool = True,
) -> ImportBatch:
    """Parse and store an import, queue its preview job. Nothing is written on a parse error.
    A StrataGate dump (JSONL) restores pins and the admin log's history, so the API and the UI
    pass `may_restore_dump` only for a namespace admin (403 `restore_needs_admin`)."""
    if not text or not text.strip():
        raise Invalid("the import text is empty", code="empty_import")
    if check_limits:
        check_size(text)
    if isinstance(top_k, bool) or not isinstance(top_k, int) or not 1 <= top_k <= 20:
        raise Invalid("top_k must be an integer from 1 to 20", code="invalid_top_k")
    parsed = import_parse(text=text, fmt=fmt, namespace=namespace)
    if parsed.kind == KIND_DUMP and not may_restore_dump:
        raise Forbidden(
            "a StrataGate dump restores pinned events and the admin log: restoring one needs "
            "an admin token (API) or the namespace's admin role (Memory UI)",
            code="restore_needs_admin",
        )
    with transaction.atomic():
        batch = ImportBatch.objects.create(
            namespace=namespace,
            status=ImportStatus.PROCESSING if parsed.candidates else ImportStatus.READY,
            format=parsed.format,
            source_text=text,
            source_system=parsed.source_system[:200],
            coverage=parsed.coverage,
            meta={**parsed.meta, "kind": parsed.kind},
            total=len(parsed.candidates),
            dropped=parsed.dropped,
            top_k=top_k,
            created_by=created_by[:200],
        )
        ImportCandidate.objects.bulk_create(
            [
                ImportCandidate(
                    batch=batch,
                    index=index,
                    payload=candidate,
                    normalized_key=fingerprint(candidate["title"], candidate["summary"]),
                )
                for index, candidate in enumerate(parsed.candidates)
            ]
        )
        if parsed.candidates:
            job = job_create(
                namespace_id=namespace.pk,
                kind=JobKind.IMPORT_PREVIEW,
                payload={"import_id": batch.pk},
            )
            batch.meta = {**batch.meta, "job_id": job.pk}
        else:
            batch.preview_fingerprint = memory_fingerprint(batch)
        batch.save(update_fields=["meta", "preview_fingerprint"])
    return batch


# --- the preview job ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Decision:
    action: str
    targets: list[int]
    matches: list[int]
    confidence: float
    reason: str
    decided_by: str
    merged: dict[str, str] | None = None


def _live_duplicates(namespace_id: int) -> dict[str, int]:
    """Fingerprint → the oldest live event with it (computed once per job run)."""
    found: dict[str, int] = {}
    events = (
        Event.objects.filter(namespace_id=namespace_id, status__in=VISIBLE_STATUSES)
        .order_by("pk")
        .values_list("pk", "title", "summary")
    )
    for pk, title, summary in events.iterator(chunk_size=2000):
        found.setdefault(fingerprint(title, summary), pk)
    return found


def _matches(namespace_id: int, candidate: dict[str, Any], top_k: int) -> list[Event]:
    hits = search_events(namespace_id, search_query(candidate), limit=top_k)
    by_id = Event.objects.filter(namespace_id=namespace_id, status__in=VISIBLE_STATUSES).in_bulk(
        [h.object_id for h in hits]
    )
    return [by_id[h.object_id] for h in hits if h.object_id in by_id][:top_k]


def _model_decision(
    client: LLMClient, job: ProcessingJob, candidate: dict[str, Any], matches: list[Event]
) -> ImportDecisionOut | None:
    """The model's answer; None when it failed for good (permanently, or on the last attempt)."""
    shown = [
        PromptMatch(
            id=e.pk,
            title=e.title,
            summary=e.summary,
            status=e.status,
            event_type=e.event_type,
            mentioned_at=e.mentioned_at,
            happened_start=e.happened_start,
            happened_end=e.happened_end,
        )
        for e in matches
    ]
    try:
        return llm_call(
            client,
            namespace_id=job.namespace_id,
            job=job,
            kind="import_decide",
            system=SYSTEM_PROMPT,
            user=build_user_prompt(candidate, shown),
            output_model=ImportDecisionOut,
        )
    except LLMError as exc:
        if job.attempts < job.max_attempts and not exc.permanent:
            raise  # the job is retried with backoff
        return None


def _offline_decision(
    payload: dict[str, Any], matches: list[Event], *, fallback: bool
) -> ImportDecisionOut:
    """The similarity heuristic; as a model fallback its confidence is capped so a person
    confirms the row."""
    offline = decide_offline(
        comparable(payload),
        [
            Comparable(
                e.title, e.summary, e.happened_start or e.mentioned_at, e.pk, tuple(e.participants)
            )
            for e in matches
        ],
    )
    return ImportDecisionOut(
        action=offline.action,
        target_event_ids=list(offline.target_ids),
        confidence=min(offline.confidence, 0.5) if fallback else offline.confidence,
        reason=f"model unavailable; {offline.reason}" if fallback else offline.reason,
    )


def decide_memory(
    job: ProcessingJob,
    candidate: ImportCandidate,
    *,
    top_k: int,
    duplicates: dict[str, int],
) -> Decision:
    """Exact duplicate → ignore; no match → add; else the model or the heuristic decides."""
    payload = candidate.payload
    earlier = ImportCandidate.objects.filter(
        batch_id=candidate.batch_id,
        index__lt=candidate.index,
        normalized_key=candidate.normalized_key,
    ).exists()
    if earlier:
        reason = "duplicate of an earlier candidate in this import"
        return Decision("ignore", [], [], 1.0, reason, "exact")
    existing = duplicates.get(candidate.normalized_key)
    if existing is not None:
        reason = f"exact duplicate of event {existing}"
        return Decision("ignore", [existing], [existing], 1.0, reason, "exact")
    matches = _matches(job.namespace_id, payload, top_k)
    match_ids = [e.pk for e in matches]
    if not matches:
        return Decision("add", [], [], 0.9, "no similar memory exists", "search")
    client = llm_client(job.namespace_id)
    answer = _model_decision(client, job, payload, matches) if client is not None else None
    decided_by = (
        "model" if answer is not None else "offline" if client is None else "offline-fallback"
    )
    if answer is None:
        answer = _offline_decision(payload, matches, fallback=client is not None)
    decision = answer.restricted_to(set(match_ids))
    merged = (
        {"title": decision.merged_title, "summary": decision.merged_summary}
        if decision.merged_title and decision.merged_summary
        else None
    )
    return Decision(
        decision.action,
        decision.target_event_ids,
        match_ids,
        decision.confidence if decision.confidence is not None else 0.5,
        decision.reason,
        decided_by,
        merged,
    )


def decide_conversation(namespace_id: int, candidate: ImportCandidate) -> Decision:
    session_id = candidate.payload.get("session_id", "")
    if Session.objects.filter(namespace_id=namespace_id, external_id=session_id).exists():
        return Decision("ignore", [], [], 1.0, f"session {session_id} already exists", "exact")
    return Decision("add", [], [], 1.0, "a new conversation", "format")


def _renew_lease(job: ProcessingJob) -> None:
    lease = timezone.now() + timedelta(seconds=settings.STRATAGATE_JOB_LEASE_SECONDS)
    ProcessingJob.objects.filter(pk=job.pk).update(lease_expires_at=lease)


@job_handler(JobKind.IMPORT_PREVIEW)
def import_preview_job(job: ProcessingJob) -> None:
    """Decide every unprocessed candidate (idempotent: a processed one is never decided again)."""
    batch = ImportBatch.objects.filter(pk=job.payload.get("import_id")).first()
    if batch is None or batch.status != ImportStatus.PROCESSING:
        return
    kind = batch.meta.get("kind", KIND_MEMORIES)
    duplicates = _live_duplicates(batch.namespace_id) if kind == KIND_MEMORIES else {}
    pending = ImportCandidate.objects.filter(batch=batch, processed=False).order_by("index")
    for candidate in pending:
        if kind == KIND_MEMORIES:
            decision = decide_memory(job, candidate, top_k=batch.top_k, duplicates=duplicates)
        elif kind == KIND_CONVERSATIONS:
            decision = decide_conversation(batch.namespace_id, candidate)
        else:
            decision = Decision(
                "add", [], [], 1.0, "restore the dump into this empty namespace", "format"
            )
        payload = (
            {**candidate.payload, "merged": decision.merged}
            if decision.merged
            else candidate.payload
        )
        with transaction.atomic():
            updated = ImportCandidate.objects.filter(pk=candidate.pk, processed=False).update(
                processed=True,
                action=decision.action,
                target_event_ids=decision.targets,
                match_event_ids=decision.matches,
                confidence=decision.confidence,
                reason=decision.reason[:500],
                decided_by=decision.decided_by,
                payload=payload,
            )
            if updated:
                ImportBatch.objects.filter(pk=batch.pk).update(processed=F("processed") + 1)
                publish(
                    batch.namespace_id,
                    "import.progress",
                    import_id=batch.pk,
                    status=ImportStatus.PROCESSING,
                    processed=ImportBatch.objects.values_list("processed", flat=True).get(
                        pk=batch.pk
                    ),
                    total=batch.total,
                )
        _renew_lease(job)
    import_preview_finish(batch_id=batch.pk)


def import_preview_finish(*, batch_id: int) -> None:
    """All candidates decided: fingerprint the memory they looked at, await confirmation."""
    with transaction.atomic():
        batch = ImportBatch.objects.select_for_update().get(pk=batch_id)
        if (
            batch.status != ImportStatus.PROCESSING
            or batch.candidates.filter(processed=False).exists()
        ):
            return
        low = batch.candidates.filter(confidence__lt=AUTO_APPLY_CONFIDENCE).exists()
        batch.status = ImportStatus.AWAITING_CONFIRMATION if low else ImportStatus.READY
        batch.preview_fingerprint = memory_fingerprint(batch)
        batch.save(update_fields=["status", "preview_fingerprint"])
        publish(
            batch.namespace_id,
            "import.progress",
            import_id=batch.pk,
            status=batch.status,
            processed=batch.processed,
            total=batch.total,
        )
