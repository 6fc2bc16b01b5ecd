"""The retrieval tools: search events, graph and raw messages, assess, record use, and the audit.

Every search returns a `batch_id` and one `ref` per result; `assess` validates a verdict against
that batch and `record-use` closes it, reinforcing only what a sufficient assessment accepted.
"""

from __future__ import annotations

from typing import Any

from django.db.models import Prefetch
from django.http import HttpRequest
from ninja import Router

from memory.api.auth import namespace_for
from memory.api.memory import parse_as_of
from memory.api.presenters import message_out
from memory.api.retrieval_schemas import (
    AssessIn,
    AssessOut,
    RecordUseIn,
    RecordUseOut,
    SearchEventsIn,
    SearchEventsOut,
    SearchGraphIn,
    SearchGraphOut,
    SearchRawIn,
    SearchRawOut,
)
from memory.errors import NotFound
from memory.models import (
    BatchItem,
    Event,
    Message,
    Namespace,
    RetrievalBatch,
    TokenScope,
    UsageReceipt,
)
from memory.selectors.audit import audit_chain, memory_usage
from memory.selectors.events import event_out
from memory.services import retrieval
from memory.services.adoption import UseRequest, usage_record
from memory.services.gate import AssessRequest, gate_assess
from memory.services.retrieval_graph import GraphSearch, graph_search

router = Router(tags=["retrieval"])


def _refs(batch: RetrievalBatch) -> list[str]:
    return list(
        BatchItem.objects.filter(batch=batch).order_by("rank").values_list("ref", flat=True)
    )


def _current_turn(namespace: Namespace) -> int:
    return Namespace.objects.values_list("current_turn", flat=True).get(pk=namespace.pk)


@router.post(
    "/ns/{ns}/search/events", response=SearchEventsOut, operation_id="memory_search_events"
)
def search_events(request: HttpRequest, ns: str, payload: SearchEventsIn) -> dict[str, Any]:
    namespace = namespace_for(request, ns, scope=TokenScope.READ)
    participants = payload.participants or []
    if isinstance(participants, str):
        participants = [participants]
    found = retrieval.events_search(
        namespace=namespace,
        params=retrieval.EventSearch(
            query=payload.query,
            limit=payload.limit,
            session_id=payload.session_id,
            source_session_id=payload.source_session_id,
            participants=tuple(p for p in participants if p.strip()),
            event_type=payload.event_type,
            happened_from=payload.happened_from,
            happened_to=payload.happened_to,
            temporal_intent=payload.temporal_intent or None,
        ),
    )
    turn = _current_turn(namespace)
    events = Event.objects.prefetch_related("source_messages").in_bulk(
        [h.event.pk for h in found.hits]
    )
    return {
        "batch_id": found.batch.public_id,
        "evidence_refs": _refs(found.batch),
        "results": [
            {
                "ref": f"event:{hit.event.pk}",
                "score": round(hit.score, 6),
                "matched_by": list(hit.matched_by),
                "event": event_out(events[hit.event.pk], current_turn=turn),
            }
            for hit in found.hits
        ],
    }


@router.post("/ns/{ns}/search/graph", response=SearchGraphOut, operation_id="memory_search_graph")
def search_graph(request: HttpRequest, ns: str, payload: SearchGraphIn) -> dict[str, Any]:
    namespace = namespace_for(request, ns, scope=TokenScope.READ)
    found = graph_search(
        namespace=namespace,
        params=GraphSearch(
            query=payload.query,
            limit=payload.limit,
            session_id=payload.session_id,
            as_of=parse_as_of(payload.as_of),
        ),
    )
    return {
        "batch_id": found.batch.public_id,
        "evidence_refs": _refs(found.batch),
        "results": [
            {
                "ref": f"node:{hit.node.pk}",
                "score": round(hit.score, 6),
                "match_type": hit.match_type,
                "node": hit.state["node"],
                "current_facts": [
                    {**f, "ref": f"fact:{f['id']}"} for f in hit.state["current_facts"]
                ],
                "historical_facts": [
                    {**f, "ref": f"fact:{f['id']}"} for f in hit.state["historical_facts"]
                ],
                "edges": hit.state["edges"],
                "provenance_event_ids": hit.provenance_event_ids,
                "timeline": hit.timeline,
            }
            for hit in found.hits
        ],
    }


@router.post("/ns/{ns}/search/raw", response=SearchRawOut, operation_id="memory_search_raw")
def search_raw(request: HttpRequest, ns: str, payload: SearchRawIn) -> dict[str, Any]:
    namespace = namespace_for(request, ns, scope=TokenScope.READ)
    found = retrieval.raw_search(
        namespace=namespace,
        params=retrieval.RawSearch(
            query=payload.query, limit=payload.limit, session_id=payload.session_id
        ),
    )
    return {
        "batch_id": found.batch.public_id,
        "evidence_refs": _refs(found.batch),
        "results": [
            {
                "ref": f"raw:{hit.message.pk}",
                "score": round(hit.score, 6),
                "message": message_out(hit.message),
                "neighbours": [message_out(m) for m in hit.neighbours],
                "block_id": hit.block.pk if hit.block else None,
                "sealed": hit.block is not None,
                "turn_range": list(hit.turn_range),
            }
            for hit in found.hits
        ],
    }


@router.post("/ns/{ns}/assess", response=AssessOut, operation_id="memory_assess")
def assess(request: HttpRequest, ns: str, payload: AssessIn) -> dict[str, Any]:
    namespace = namespace_for(request, ns, scope=TokenScope.READ)
    done = gate_assess(
        namespace=namespace,
        request=AssessRequest(
            verdict=payload.verdict,
            evidence_refs=payload.evidence_refs,
            fit=payload.fit,
            missing=payload.missing,
            next_strategy=payload.next_strategy,
            question=payload.question,
            batch_id=payload.batch_id,
            session_id=payload.session_id,
        ),
    )
    row = done.assessment
    return {
        "assessment_id": row.pk,
        "batch_id": done.batch.public_id,
        "submitted_verdict": row.submitted_verdict,
        "verdict": row.verdict,
        "accepted_refs": row.accepted_refs,
        "rejected_refs": row.rejected_refs,
        "fit": row.fit,
        "missing": row.missing,
        "submitted_next_strategy": row.submitted_next_strategy,
        "next_strategy": row.next_strategy,
        "notes": row.notes,
        "advice": row.advice,
    }


@router.post("/ns/{ns}/record-use", response=RecordUseOut, operation_id="memory_record_use")
def record_use(request: HttpRequest, ns: str, payload: RecordUseIn) -> dict[str, Any]:
    namespace = namespace_for(request, ns, scope=TokenScope.READ_WRITE)
    recorded = usage_record(
        namespace=namespace,
        request=UseRequest(
            receipt_id=payload.receipt_id,
            evidence_refs=payload.evidence_refs,
            batch_id=payload.batch_id,
            session_id=payload.session_id,
            answer=payload.answer,
        ),
    )
    receipt = recorded.receipt
    return {
        "receipt_id": receipt.receipt_id,
        "duplicate": recorded.duplicate,
        "reinforced_event_ids": receipt.reinforced_event_ids,
        "batch_id": receipt.batch.public_id,
        "batch_closed": True,
        "zero_increment": not receipt.evidence_refs,
        "verdict": receipt.verdict or None,
    }


@router.get("/ns/{ns}/audit", operation_id="memory_audit_receipt")
def audit(request: HttpRequest, ns: str, receipt_id: str) -> dict[str, Any]:
    """A receipt's chain: answer turn → gate verdict → used memories → source messages."""
    namespace = namespace_for(request, ns, scope=TokenScope.READ)
    receipt = (
        UsageReceipt.objects.filter(namespace=namespace, receipt_id=receipt_id)
        .select_related("batch", "assessment", "session", "answer_turn")
        .first()
    )
    if receipt is None:
        raise NotFound(f"receipt {receipt_id[:200]!r} not found", code="receipt_not_found")
    return audit_chain(receipt)


@router.get("/ns/{ns}/events/{event_id}/usage", operation_id="memory_event_usage")
def event_usage(request: HttpRequest, ns: str, event_id: int) -> dict[str, Any]:
    """Every answer that cited this event, batches that showed it unused, and activations."""
    namespace = namespace_for(request, ns, scope=TokenScope.READ)
    event = (
        Event.objects.filter(namespace=namespace, pk=event_id)
        .prefetch_related(Prefetch("source_messages", queryset=Message.objects.all()))
        .first()
    )
    if event is None:
        raise NotFound(f"event {event_id} not found", code="event_not_found")
    return memory_usage(event)
