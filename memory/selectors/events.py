"""Event reads: one event with relations and sources, the timeline, and current weights."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.db.models import Q, QuerySet
from django.db.models.functions import Coalesce

from memory.engine.redact import redact
from memory.engine.weights import CRITICALITY_FLOORS, SUPERSEDED_CAP, long_term_weight
from memory.models import Event, EventRelation, EventStatus, Namespace, RelationKind

VISIBLE = (EventStatus.ACTIVE, EventStatus.SUPERSEDED)


def event_weight(event: Event, current_turn: int) -> dict[str, Any]:
    value = long_term_weight(
        current_turn=current_turn,
        last_adopted_turn=event.last_adopted_turn,
        adoptions=event.adoptions,
        criticality=event.criticality,
        status=event.status,
        pinned=event.pinned,
    )
    return {
        "value": round(value, 4),
        "adoptions": event.adoptions,
        "last_adopted_turn": event.last_adopted_turn,
        "floor": CRITICALITY_FLOORS.get(event.criticality, 0.0),
        "cap": SUPERSEDED_CAP if event.status == EventStatus.SUPERSEDED else None,
        "pinned": event.pinned,
    }


def event_relations_many(events: Iterable[Event]) -> dict[int, dict[str, list[int]]]:
    """Relations of several events in one query (list pages must not query per event)."""
    wanted = {e.pk: e for e in events}
    out: dict[int, dict[str, list[int]]] = {}
    for pk, event in wanted.items():
        out[pk] = {kind: [] for kind in RelationKind.values}
        out[pk]["superseded_by"] = [event.superseded_by_id] if event.superseded_by_id else []
    rows = EventRelation.objects.filter(
        Q(from_event_id__in=wanted) | Q(to_event_id__in=wanted)
    ).values_list("from_event_id", "to_event_id", "kind")
    for source, target, kind in rows:
        if source in out:
            out[source][kind].append(target)
        if target not in out:
            continue
        relations = out[target]
        if kind == RelationKind.BEFORE:
            relations[RelationKind.AFTER].append(source)
        elif kind == RelationKind.AFTER:
            relations[RelationKind.BEFORE].append(source)
        elif kind in (RelationKind.SAME_AS, RelationKind.RELATED):
            relations[kind].append(source)
        # supersedes pointing here is shown as superseded_by; conflicts are stored both ways
    return {pk: {k: sorted(set(ids)) for k, ids in rel.items()} for pk, rel in out.items()}


def event_relations(event: Event) -> dict[str, list[int]]:
    return event_relations_many([event])[event.pk]


def event_out(
    event: Event,
    *,
    current_turn: int,
    with_relations: bool = True,
    relations: dict[str, list[int]] | None = None,
) -> dict[str, Any]:
    """The API shape of an event; pass `relations` (from event_relations_many) on list pages."""
    if relations is None and with_relations:
        relations = event_relations(event)
    return {
        "id": event.pk,
        "title": redact(event.title),
        "summary": redact(event.summary),
        "event_type": event.event_type,
        "status": event.status,
        "superseded_by": event.superseded_by_id,
        "scope": event.scope,
        "criticality": event.criticality,
        "pinned": event.pinned,
        "tags": event.tags,
        "quotes": [redact(q) for q in event.quotes],
        "participants": event.participants,
        "temporal": {
            "mentioned_at": event.mentioned_at,
            "happened_start": event.happened_start,
            "happened_end": event.happened_end,
            "original_text": event.temporal_text or None,
            "precision": event.temporal_precision,
            "basis": event.temporal_basis,
            "status": event.temporal_status,
        },
        "relations": relations or {},
        "weight": event_weight(event, current_turn),
        "source_block_id": event.source_block_id,
        "source_message_ids": sorted(m.pk for m in event.source_messages.all()),
        "formed_turn": event.formed_turn,
        "origin": event.origin,
    }


@dataclass(frozen=True)
class TimelineFilter:
    statuses: tuple[str, ...] = VISIBLE
    event_type: str | None = None
    participant: str | None = None
    happened_from: datetime | None = None
    happened_to: datetime | None = None


def event_timeline(
    *, namespace: Namespace, filters: TimelineFilter, limit: int = 200
) -> QuerySet[Event]:
    """Ordered by occurrence, mention time where occurrence is unknown (SPEC §13.3)."""
    events = Event.objects.filter(namespace=namespace, status__in=filters.statuses)
    if filters.event_type:
        events = events.filter(event_type=filters.event_type)
    if filters.participant:
        events = events.filter(participants__icontains=filters.participant)
    if filters.happened_from:
        events = events.filter(
            Q(happened_end__gte=filters.happened_from)
            | Q(happened_end__isnull=True, happened_start__gte=filters.happened_from)
        )
    if filters.happened_to:
        events = events.filter(happened_start__lte=filters.happened_to)
    return (
        events.annotate(sort_time=Coalesce("happened_start", "mentioned_at"))
        .order_by("sort_time", "pk")
        .prefetch_related("source_messages")[:limit]
    )
