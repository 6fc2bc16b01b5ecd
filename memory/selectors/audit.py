"""The usage audit (SPEC §10.5): from a receipt to the answer turn, the gate verdict, the memories
it used and their source messages — and back, from a memory to every answer that used it.

Three ways a memory meets an answer are kept apart: *injected* (activated memory put in front of
the model; an Activation row), *retrieved* (shown in a batch; a BatchItem) and *cited* (a usage
receipt's ref stood for it; a UsageItem). Only cited memory was reinforced.
"""

from __future__ import annotations

from typing import Any

from django.db.models import Q

from memory.engine.redact import redact
from memory.models import (
    Activation,
    BatchItem,
    Event,
    Message,
    MessageRole,
    RefKind,
    Turn,
    UsageItem,
    UsageReceipt,
)


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


def _message(m: Message) -> dict[str, Any]:
    return {
        "id": m.pk,
        "role": m.role,
        "content": redact(m.content),
        "created_at": m.created_at,
        "turn_id": m.turn_id,
        "session_id": m.session.external_id,
    }


def _event_brief(event: Event) -> dict[str, Any]:
    return {
        "id": event.pk,
        "ref": f"event:{event.pk}",
        "title": redact(event.title),
        "status": event.status,
        "adoptions": event.adoptions,
        "source_messages": [
            _message(m) for m in event.source_messages.select_related("session").order_by("pk")
        ],
    }


def audit_chain(receipt: UsageReceipt) -> dict[str, Any]:
    """answer turn → gate verdict → selected memories → their source messages, plus what the
    batch showed but the answer did not cite."""
    batch = receipt.batch
    turn = answer_turn(receipt)
    assessment = receipt.assessment
    cited = list(
        UsageItem.objects.filter(receipt=receipt).prefetch_related("events").order_by("pk")
    )
    cited_refs = {item.ref for item in cited}
    unused = BatchItem.objects.filter(batch=batch).exclude(ref__in=cited_refs).order_by("rank")
    answer_messages = (
        list(turn.messages.select_related("session").order_by("position")) if turn else []
    )
    return {
        "receipt": {
            "receipt_id": receipt.receipt_id,
            "created_at": receipt.created_at,
            "namespace_turn": receipt.namespace_turn,
            "session_id": receipt.session.external_id if receipt.session else None,
            "evidence_refs": receipt.evidence_refs,
            "reinforced_event_ids": receipt.reinforced_event_ids,
            "zero_increment": not receipt.evidence_refs,
            "answer_text": redact(receipt.answer_text),
            "answer_hash": receipt.answer_hash,
        },
        "answer_turn": {
            "turn_id": turn.pk,
            "session_turn": turn.session_turn,
            "namespace_turn": turn.namespace_turn,
            "messages": [_message(m) for m in answer_messages],
        }
        if turn
        else None,
        "batch": {
            "batch_id": batch.public_id,
            "tool": batch.tool,
            "query": redact(batch.query),
            "status": batch.status,
            "namespace_turn": batch.namespace_turn,
        },
        "verdict": {
            "assessment_id": assessment.pk,
            "submitted_verdict": assessment.submitted_verdict,
            "verdict": assessment.verdict,
            "accepted_refs": assessment.accepted_refs,
            "rejected_refs": assessment.rejected_refs,
            "fit": assessment.fit,
            "missing": assessment.missing,
            "next_strategy": assessment.next_strategy,
            "notes": assessment.notes,
            "advice": assessment.advice,
        }
        if assessment
        else None,
        "memories": [
            {
                "ref": item.ref,
                "kind": item.kind,
                "object_id": item.object_id,
                "block_level": item.block_level,
                "expanded": item.expanded,
                "events": [_event_brief(e) for e in item.events.order_by("pk")],
            }
            for item in cited
        ],
        "retrieved_unused": [
            {"ref": item.ref, "kind": item.kind, "rank": item.rank, "expanded": item.expanded}
            for item in unused
        ],
    }


def memory_usage(event: Event) -> dict[str, Any]:
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
    ref = f"event:{event.pk}"
    shown = (
        BatchItem.objects.filter(batch__namespace_id=event.namespace_id)
        .filter(Q(kind=RefKind.EVENT, object_id=event.pk) | Q(ref=ref))
        .select_related("batch", "batch__session")
        .order_by("-batch_id")
    )
    unused = [
        {
            "batch_id": item.batch.public_id,
            "tool": item.batch.tool,
            "query": redact(item.batch.query),
            "session_id": item.batch.session.external_id if item.batch.session else None,
            "rank": item.rank,
            "status": item.batch.status,
            "created_at": item.batch.created_at,
        }
        for item in shown
        if item.batch.public_id not in cited_batches
    ]
    injected = [
        {
            "activation_id": a.pk,
            "session_id": a.session.external_id if a.session else None,
            "namespace_turn": a.namespace_turn,
            "created_at": a.created_at,
        }
        for a in Activation.objects.filter(
            namespace_id=event.namespace_id, refs__icontains=f'"{ref}"'
        )
        .select_related("session")
        .order_by("-id")
        if ref in a.refs
    ]
    return {
        "event_id": event.pk,
        "adoptions": event.adoptions,
        "last_adopted_turn": event.last_adopted_turn,
        "cited": list(cited.values()),
        "retrieved_unused": unused,
        "injected": injected,
    }
