"""Assess a batch (SPEC §9.2–9.4): validate the agent's verdict in code, store it, advise.

The engine decides which refs count and whether "sufficient" stands; this service supplies the
batch's refs, builds the facts gate advice needs about the accepted evidence (the events behind
each ref), and stores the assessment as submitted and as validated.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass

from django.db.models import Q

from memory.engine.gate import (
    Advice,
    AssessInput,
    AssessOutcome,
    EvidenceFacts,
    GateInputError,
    assess,
    gate_advice,
    parse_ref,
)
from memory.engine.graph_state import CURRENT
from memory.engine.lifecycle import VISIBLE_STATUSES
from memory.errors import Conflict, Invalid
from memory.models import (
    Assessment,
    BatchStatus,
    Block,
    Event,
    EventRelation,
    EventStatus,
    GraphFact,
    GraphNode,
    Message,
    Namespace,
    RelationKind,
    RetrievalBatch,
)
from memory.selectors.graph_state import item_states, source_statuses
from memory.services.batches import batch_behind, batch_items, batch_resolve

MAX_QUESTION_CHARS = 2000


@dataclass(frozen=True)
class AssessRequest:
    verdict: object
    evidence_refs: object
    fit: object = ""
    missing: object = ""
    next_strategy: object = "answer"
    question: str | None = None
    batch_id: str | None = None
    session_id: str | None = None


@dataclass(frozen=True)
class Assessed:
    assessment: Assessment
    batch: RetrievalBatch
    outcome: AssessOutcome
    advice: list[Advice]


def _conflicts(event_ids: Sequence[int]) -> dict[int, set[int]]:
    found: dict[int, set[int]] = {}
    rows = EventRelation.objects.filter(
        Q(from_event_id__in=event_ids) | Q(to_event_id__in=event_ids),
        kind=RelationKind.CONFLICTS_WITH,
        from_event__status=EventStatus.ACTIVE,
        to_event__status=EventStatus.ACTIVE,
    ).values_list("from_event_id", "to_event_id")
    for a, b in rows:
        found.setdefault(a, set()).add(b)
        found.setdefault(b, set()).add(a)
    return found


def _states(facts: list[GraphFact]) -> dict[int, str]:
    """Fact id → its state now (one query, none for no facts)."""
    return item_states(facts, sources=source_statuses(GraphFact, [f.pk for f in facts]))


def _own_text_and_state(ref: str) -> tuple[str, bool | None, tuple[str, ...]]:
    """A ref's own wording, whether it is historical (None: decide from its events) and the
    people it names."""
    parsed = parse_ref(ref)
    assert parsed is not None
    if parsed.kind == "fact":
        found = GraphFact.objects.filter(pk=parsed.object_id).first()
        if found is None:
            return "", None, ()
        return f"{found.key} {found.value}", _states([found])[found.pk] != CURRENT, ()
    if parsed.kind == "node":
        node = GraphNode.objects.filter(pk=parsed.object_id).first()
        if node is None:
            return "", None, ()
        current = CURRENT in _states(list(node.facts.all())).values()
        people = (node.name,) if node.node_type == "person" else ()
        return node.name, None if current else True, people
    if parsed.kind == "raw":
        message = Message.objects.filter(pk=parsed.object_id).first()
        return (message.content if message else ""), False, ()
    if parsed.kind == "block":
        block = Block.objects.filter(pk=parsed.object_id).first()
        view = block.views.filter(level=parsed.level or 0).first() if block else None
        return (view.content if view else ""), False, ()
    return "", None, ()


def evidence_facts(batch: RetrievalBatch, refs: Sequence[str]) -> list[EvidenceFacts]:
    """What gate advice needs to know about each accepted ref (SPEC §9.4)."""
    behind = batch_behind(batch)
    all_ids = sorted({i for ref in refs for i in behind.get(ref, [])})
    events = Event.objects.in_bulk(all_ids)
    conflicts = _conflicts(all_ids)
    facts: list[EvidenceFacts] = []
    for ref in refs:
        evs = [events[i] for i in behind.get(ref, []) if i in events]
        evs = [e for e in evs if e.status in VISIBLE_STATUSES]
        own_text, historical, people = _own_text_and_state(ref)
        texts = [own_text, *(f"{e.title}. {e.summary} {' '.join(e.quotes)}" for e in evs)]
        if historical is None:
            historical = bool(evs) and all(e.status == EventStatus.SUPERSEDED for e in evs)
        facts.append(
            EvidenceFacts(
                ref=ref,
                kind=ref.split(":", 1)[0],
                text=" ".join(t for t in texts if t),
                event_ids=tuple(e.pk for e in evs),
                event_types=tuple(e.event_type for e in evs),
                temporal_statuses=tuple(e.temporal_status for e in evs),
                has_occurrence_date=any(e.happened_start or e.happened_end for e in evs),
                superseded_by=tuple(
                    e.superseded_by_id
                    for e in evs
                    if e.status == EventStatus.SUPERSEDED and e.superseded_by_id
                ),
                conflicts_with=tuple(sorted({c for e in evs for c in conflicts.get(e.pk, ())})),
                participants=(*people, *(str(p) for e in evs for p in e.participants)),
                historical=historical,
            )
        )
    return facts


def gate_assess(*, namespace: Namespace, request: AssessRequest) -> Assessed:
    """Validate and store an assessment of a batch; advice is computed, never enforced.

    409 `batch_closed` when a usage receipt already closed the batch; 422 for an unknown
    verdict or next_strategy (with the allowed values).
    """
    batch = batch_resolve(
        namespace=namespace, batch_id=request.batch_id, session_id=request.session_id
    )
    if batch.status == BatchStatus.CLOSED:
        raise Conflict(
            f"batch {batch.public_id} is closed by a usage receipt",
            code="batch_closed",
            details={"batch_id": batch.public_id},
        )
    try:
        outcome = assess(
            AssessInput(
                verdict=request.verdict,
                evidence_refs=request.evidence_refs,
                fit=request.fit,
                missing=request.missing,
                next_strategy=request.next_strategy,
            ),
            batch_items(batch).keys(),
        )
    except GateInputError as exc:
        raise Invalid(exc.message, code=exc.code, details=exc.details) from exc
    question = (request.question or batch.query or "")[:MAX_QUESTION_CHARS]
    advice = gate_advice(question, evidence_facts(batch, outcome.accepted_refs))
    raw_refs = request.evidence_refs if isinstance(request.evidence_refs, list) else []
    assessment = Assessment.objects.create(
        batch=batch,
        namespace=namespace,
        submitted_verdict=outcome.submitted_verdict,
        verdict=outcome.verdict,
        evidence_refs=[r[:200] if isinstance(r, str) else None for r in raw_refs][:100],
        accepted_refs=outcome.accepted_refs,
        rejected_refs=[asdict(r) for r in outcome.rejected][:100],
        fit=outcome.fit,
        missing=outcome.missing,
        submitted_next_strategy=outcome.submitted_next_strategy,
        next_strategy=outcome.next_strategy,
        notes=[asdict(n) for n in outcome.notes],
        advice=[{**asdict(a), "refs": list(a.refs)} for a in advice],
    )
    return Assessed(assessment=assessment, batch=batch, outcome=outcome, advice=advice)
