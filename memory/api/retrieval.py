"""The retrieval tools: search events, graph and raw messages, assess, record use, and the audit.

Every search returns a `batch_id` and one `ref` per result; `assess` validates a verdict against
that batch and `record-use` closes it, reinforcing only what a sufficient assessment accepted.
"""

from __future__ import annotations

from django.http import HttpRequest
from ninja import Router

from memory.api.auth import READ_WRITE, request_namespace
from memory.api.retrieval_schemas import (
    AssessIn,
    EventResultOut,
    GraphResultOut,
    RawResultOut,
    RecordUseIn,
    RecordUseOut,
    SearchEventsIn,
    SearchEventsOut,
    SearchGraphIn,
    SearchGraphOut,
    SearchRawIn,
    SearchRawOut,
)
from memory.recall.events import EventSearch
from memory.recall.graph import GraphSearch
from memory.recall.raw import RawSearch
from memory.selectors.audit import (
    AssessmentOut,
    AuditChainOut,
    EventUsageOut,
    assessment_out,
    audit_chain,
    memory_usage,
    receipt_get,
)
from memory.selectors.events import event_get, events_by_ids
from memory.selectors.graph import as_of_from_text
from memory.selectors.messages import message_out, messages_out
from memory.selectors.namespaces import namespace_turn
from memory.services import retrieval
from memory.services.adoption import UseRequest, usage_record
from memory.services.batches import batch_refs
from memory.services.gate import AssessRequest, gate_assess
from memory.services.retrieval_graph import graph_search

router = Router(tags=["retrieval"])


@router.post(
    "/ns/{ns}/search/events", response=SearchEventsOut, operation_id="memory_search_events"
)
def search_events(request: HttpRequest, ns: str, payload: SearchEventsIn) -> SearchEventsOut:
    namespace = request_namespace(request)
    participants = payload.participants or []
    if isinstance(participants, str):
        participants = [participants]
    found = retrieval.events_search(
        namespace=namespace,
        params=EventSearch(
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
    events = events_by_ids(
        namespace, [h.event.pk for h in found.hits], current_turn=namespace_turn(namespace)
    )
    return SearchEventsOut(
        batch_id=found.batch.public_id,
        evidence_refs=batch_refs(found.batch),
        results=[
            EventResultOut(
                ref=ref,
                score=round(hit.score, 6),
                matched_by=list(hit.matched_by),
                event=events[hit.event.pk],
            )
            for ref, hit in found.shown
        ],
    )


@router.post(
    "/ns/{ns}/search/graph",
    response=SearchGraphOut,
    by_alias=True,
    operation_id="memory_search_graph",
)
def search_graph(request: HttpRequest, ns: str, payload: SearchGraphIn) -> SearchGraphOut:
    namespace = request_namespace(request)
    found = graph_search(
        namespace=namespace,
        params=GraphSearch(
            query=payload.query,
            limit=payload.limit,
            session_id=payload.session_id,
            as_of=as_of_from_text(payload.as_of),
        ),
    )
    return SearchGraphOut(
        batch_id=found.batch.public_id,
        evidence_refs=batch_refs(found.batch),
        results=[
            GraphResultOut(
                ref=ref,
                score=round(hit.score, 6),
                match_type=hit.match_type,
                node=hit.state.node,
                current_facts=hit.state.current_facts,
                historical_facts=hit.state.historical_facts,
                edges=hit.state.edges,
                provenance_event_ids=hit.provenance_event_ids,
                timeline=hit.timeline,
            )
            for ref, hit in found.shown
        ],
    )


@router.post("/ns/{ns}/search/raw", response=SearchRawOut, operation_id="memory_search_raw")
def search_raw(request: HttpRequest, ns: str, payload: SearchRawIn) -> SearchRawOut:
    namespace = request_namespace(request)
    found = retrieval.raw_search(
        namespace=namespace,
        params=RawSearch(query=payload.query, limit=payload.limit, session_id=payload.session_id),
    )
    return SearchRawOut(
        batch_id=found.batch.public_id,
        evidence_refs=batch_refs(found.batch),
        results=[
            RawResultOut(
                ref=ref,
                score=round(hit.score, 6),
                message=message_out(hit.message),
                neighbours=messages_out(hit.neighbours),
                block_id=hit.block.pk if hit.block else None,
                sealed=hit.block is not None,
                turn_range=list(hit.turn_range),
            )
            for ref, hit in found.shown
        ],
    )


@router.post("/ns/{ns}/assess", response=AssessmentOut, operation_id="memory_assess")
def assess(request: HttpRequest, ns: str, payload: AssessIn) -> AssessmentOut:
    namespace = request_namespace(request)
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
    return assessment_out(done.assessment, done.batch.public_id)


@router.post(
    "/ns/{ns}/record-use", response=RecordUseOut, auth=READ_WRITE, operation_id="memory_record_use"
)
def record_use(request: HttpRequest, ns: str, payload: RecordUseIn) -> RecordUseOut:
    namespace = request_namespace(request)
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
    return RecordUseOut(
        receipt_id=receipt.receipt_id,
        duplicate=recorded.duplicate,
        reinforced_event_ids=receipt.reinforced_event_ids,
        batch_id=receipt.batch.public_id,
        batch_closed=True,
        zero_increment=not receipt.evidence_refs,
        verdict=receipt.verdict or None,
    )


@router.get("/ns/{ns}/audit", response=AuditChainOut, operation_id="memory_audit_receipt")
def audit(request: HttpRequest, ns: str, receipt_id: str) -> AuditChainOut:
    """A receipt's chain: answer turn → gate verdict → used memories → source messages."""
    namespace = request_namespace(request)
    return audit_chain(receipt_get(namespace, receipt_id))


@router.get(
    "/ns/{ns}/events/{event_id}/usage", response=EventUsageOut, operation_id="memory_event_usage"
)
def event_usage(request: HttpRequest, ns: str, event_id: int) -> EventUsageOut:
    """Every answer that cited this event, batches that showed it unused, and activations."""
    namespace = request_namespace(request)
    return memory_usage(event_get(namespace, event_id))
