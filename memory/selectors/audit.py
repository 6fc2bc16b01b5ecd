"""The usage audit (SPEC §10.5): from a receipt to the answer turn, the gate verdict, the memories
it used and their source messages — and back, from a memory to every answer that used it.

Three ways a memory meets an answer are kept apart: *injected* (activated memory put in front of
the model; an Activation row), *retrieved* (shown in a batch; a BatchItem) and *cited* (a usage
receipt's ref stood for it; a UsageItem). Only cited memory was reinforced.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.db.models import Q

from memory.engine.gate import Ref
from memory.engine.redact import redact
from memory.errors import NotFound
from memory.models import (
    Activation,
    Assessment,
    BatchItem,
    Event,
    Message,
    MessageRole,
    Namespace,
    RefKind,
    Turn,
    UsageItem,
    UsageReceipt,
)
from memory.selectors.messages import MessageOut, message_out, messages_out
from memory.selectors.out import Out


class RejectedRefOut(Out):
    index: int
    ref: Any
    reason: str
    detail: str


class NoteOut(Out):
    code: str
    message: str


class AdviceOut(Out):
    code: str
    message: str
    refs: list[str]


class AssessmentOut(Out):
    """The agent's verdict as submitted and as validated by code (SPEC §9.2–9.4)."""

    assessment_id: int
    batch_id: str
    submitted_verdict: str
    verdict: str
    accepted_refs: list[str]
    rejected_refs: list[RejectedRefOut]
    fit: str
    missing: str
    submitted_next_strategy: str
    next_strategy: str
    notes: list[NoteOut]
    advice: list[AdviceOut]


def assessment_out(assessment: Assessment, batch_id: str) -> AssessmentOut:
    return AssessmentOut.model_construct(
        assessment_id=assessment.pk,
        batch_id=batch_id,
        submitted_verdict=assessment.submitted_verdict,
        verdict=assessment.verdict,
        accepted_refs=list(assessment.accepted_refs),
        rejected_refs=[
            RejectedRefOut.model_construct(
                index=r.get("index", 0),
                ref=r.get("ref"),
                reason=str(r.get("reason", "")),
                detail=redact(str(r.get("detail", ""))),
            )
            for r in assessment.rejected_refs
        ],
        fit=redact(assessment.fit),
        missing=redact(assessment.missing),
        submitted_next_strategy=assessment.submitted_next_strategy,
        next_strategy=assessment.next_strategy,
        notes=[NoteOut.model_construct(**n) for n in assessment.notes],
        advice=[
            AdviceOut.model_construct(
                code=a["code"], message=redact(a["message"]), refs=list(a.get("refs", []))
            )
            for a in assessment.advice
        ],
    )


def receipt_get(namespace: Namespace, receipt_id: str) -> UsageReceipt:
    receipt = (
        UsageReceipt.objects.filter(namespace=namespace, receipt_id=receipt_id)
        .select_related("batch", "assessment", "session", "answer_turn")
        .first()
    )
    if receipt is None:
        raise NotFound(f"receipt {receipt_id[:200]!r} not found", code="receipt_not_found")
    return receipt


def answer_turn(receipt: UsageReceipt) -> Turn | None:
    """The turn that carries the answer: stored on the receipt, else the session's turn whose
    assistant message is the recorded answer, else the session's first turn ingested after the
    receipt (agents usually record use before they post the finished turn)."""
    if receipt.answer_turn_id is not None:
        return receipt.answer_turn
    if receipt.session_id is None:
        return None
    turns = Turn.objects.filter(session_id=receipt.session_id)
    if receipt.answer_text.strip():
        match = (
            Message.objects.filter(
                session_id=receipt.session_id,
                role=MessageRole.ASSISTANT,
                content__contains=receipt.answer_text.strip()[:2000],
                turn__namespace_turn__gte=receipt.batch.namespace_turn,
            )
            .order_by("turn__namespace_turn")
            .select_related("turn")
            .first()
        )
        if match is not None:
            return match.turn
    return (
        turns.filter(namespace_turn__gt=receipt.namespace_turn).order_by("namespace_turn").first()
    )


class ReceiptOut(Out):
    receipt_id: str
    created_at: datetime
    namespace_turn: int
    session_id: str | None
    evidence_refs: list[str]
    reinforced_event_ids: list[int]
    zero_increment: bool
    answer_text: str
    answer_hash: str


class AnswerTurnOut(Out):
    turn_id: int
    session_turn: int
    namespace_turn: int
    messages: list[MessageOut]


class BatchBriefOut(Out):
    batch_id: str
    tool: str
    query: str
    status: str
    namespace_turn: int


class VerdictOut(Out):
    assessment_id: int
    submitted_verdict: str
    verdict: str
    accepted_refs: list[str]
    rejected_refs: list[RejectedRefOut]
    fit: str
    missing: str
    next_strategy: str
    notes: list[NoteOut]
    advice: list[AdviceOut]


class EventBriefOut(Out):
    id: int
    ref: str
    title: str
    status: str
    adoptions: int
    source_messages: list[MessageOut]


class CitedMemoryOut(Out):
    ref: str
    kind: str
    object_id: int
    block_level: int | None
    expanded: bool
    events: list[EventBriefOut]


class UnusedRefOut(Out):
    ref: str
    kind: str
    rank: int
    expanded: bool


class AuditChainOut(Out):
    receipt: ReceiptOut
    answer_turn: AnswerTurnOut | None
    batch: BatchBriefOut
    verdict: VerdictOut | None
    memories: list[CitedMemoryOut]
    retrieved_unused: list[UnusedRefOut]


def _event_brief(event: Event) -> EventBriefOut:
    sources = event.source_messages.select_related("session").order_by("pk")
    return EventBriefOut.model_construct(
        id=event.pk,
        ref=str(Ref.event(event.pk)),
        title=redact(event.title),
        status=event.status,
        adoptions=event.adoptions,
        source_messages=messages_out(sources),
    )


def _verdict(assessment: Assessment) -> VerdictOut:
    full = assessment_out(assessment, batch_id="")
    return VerdictOut.model_construct(
        **{name: getattr(full, name) for name in VerdictOut.model_fields},
    )


def audit_chain(receipt: UsageReceipt) -> AuditChainOut:
    """answer turn → gate verdict → selected memories → their source messages, plus what the
    batch showed but the answer did not cite."""
    batch = receipt.batch
    turn = answer_turn(receipt)
    cited = list(
        UsageItem.objects.filter(receipt=receipt).prefetch_related("events").order_by("pk")
    )
    cited_refs = {item.ref for item in cited}
    unused = BatchItem.objects.filter(batch=batch).exclude(ref__in=cited_refs).order_by("rank")
    answer_messages = turn.messages.select_related("session").order_by("position") if turn else []
    return AuditChainOut.model_construct(
        receipt=ReceiptOut.model_construct(
            receipt_id=receipt.receipt_id,
            created_at=receipt.created_at,
            namespace_turn=receipt.namespace_turn,
            session_id=receipt.session.external_id if receipt.session else None,
            evidence_refs=list(receipt.evidence_refs),
            reinforced_event_ids=list(receipt.reinforced_event_ids),
            zero_increment=not receipt.evidence_refs,
            answer_text=redact(receipt.answer_text),
            answer_hash=receipt.answer_hash,
        ),
        answer_turn=AnswerTurnOut.model_construct(
            turn_id=turn.pk,
            session_turn=turn.session_turn,
            namespace_turn=turn.namespace_turn,
            messages=[message_out(m) for m in answer_messages],
        )
        if turn
        else None,
        batch=BatchBriefOut.model_construct(
            batch_id=batch.public_id,
            tool=batch.tool,
            query=redact(batch.query),
            status=batch.status,
            namespace_turn=batch.namespace_turn,
        ),
        verdict=_verdict(receipt.assessment) if receipt.assessment else None,
        memories=[
            CitedMemoryOut.model_construct(
                ref=item.ref,
                kind=item.kind,
                object_id=item.object_id,
                block_level=item.block_level,
                expanded=item.expanded,
                events=[_event_brief(e) for e in item.events.order_by("pk")],
            )
            for item in cited
        ],
        retrieved_unused=[
            UnusedRefOut.model_construct(
                ref=item.ref, kind=item.kind, rank=item.rank, expanded=item.expanded
            )
            for item in unused
        ],
    )


class CitationOut(Out):
    receipt_id: str
    batch_id: str
    session_id: str | None
    namespace_turn: int
    verdict: str
    created_at: datetime
    refs: list[str]


class ShownUnusedOut(Out):
    batch_id: str
    tool: str
    query: str
    session_id: str | None
    rank: int
    status: str
    created_at: datetime


class InjectedOut(Out):
    activation_id: int
    session_id: str | None
    namespace_turn: int
    created_at: datetime


class EventUsageOut(Out):
    event_id: int
    adoptions: int
    last_adopted_turn: int
    cited: list[CitationOut]
    retrieved_unused: list[ShownUnusedOut]
    injected: list[InjectedOut]


def memory_usage(event: Event) -> EventUsageOut:
    """Every way this event met an answer: cited by receipts (reinforced), retrieved in batches
    but not cited, and injected as activated memory."""
    cited_items = (
        UsageItem.objects.filter(events=event)
        .select_related("receipt", "receipt__batch", "receipt__session")
        .order_by("-receipt_id", "pk")
    )
    cited: dict[int, dict[str, Any]] = {}
    for item in cited_items:
        receipt = item.receipt
        entry = cited.setdefault(
            receipt.pk,
            {
                "receipt_id": receipt.receipt_id,
                "batch_id": receipt.batch.public_id,
                "session_id": receipt.session.external_id if receipt.session else None,
                "namespace_turn": receipt.namespace_turn,
                "verdict": receipt.verdict,
                "created_at": receipt.created_at,
                "refs": [],
            },
        )
        entry["refs"].append(item.ref)
    cited_batches = {entry["batch_id"] for entry in cited.values()}
    ref = str(Ref.event(event.pk))
    shown = (
        BatchItem.objects.filter(batch__namespace_id=event.namespace_id)
        .filter(Q(kind=RefKind.EVENT, object_id=event.pk) | Q(ref=ref))
        .select_related("batch", "batch__session")
        .order_by("-batch_id")
    )
    injected = (
        Activation.objects.filter(namespace_id=event.namespace_id, refs__icontains=f'"{ref}"')
        .select_related("session")
        .order_by("-id")
    )
    return EventUsageOut.model_construct(
        event_id=event.pk,
        adoptions=event.adoptions,
        last_adopted_turn=event.last_adopted_turn,
        cited=[CitationOut.model_construct(**entry) for entry in cited.values()],
        retrieved_unused=[
            ShownUnusedOut.model_construct(
                batch_id=item.batch.public_id,
                tool=item.batch.tool,
                query=redact(item.batch.query),
                session_id=item.batch.session.external_id if item.batch.session else None,
                rank=item.rank,
                status=item.batch.status,
                created_at=item.batch.created_at,
            )
            for item in shown
            if item.batch.public_id not in cited_batches
        ],
        injected=[
            InjectedOut.model_construct(
                activation_id=a.pk,
                session_id=a.session.external_id if a.session else None,
                namespace_turn=a.namespace_turn,
                created_at=a.created_at,
            )
            for a in injected
            if ref in a.refs
        ],
    )
