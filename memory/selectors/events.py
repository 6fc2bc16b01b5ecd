"""Event reads: one event with relations, weight and sources; the timeline (SPEC §5, §7, §13.3)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime

from django.db import connection
from django.db.models import BooleanField, Q, QuerySet
from django.db.models.expressions import RawSQL
from django.db.models.functions import Coalesce
from pydantic import computed_field

from memory.engine.gate import Ref
from memory.engine.lifecycle import SUPERSEDED, VISIBLE_STATUSES
from memory.engine.redact import redact
from memory.engine.weights import CRITICALITY_FLOORS, SUPERSEDED_CAP, current_weight
from memory.errors import NotFound
from memory.models import (
    Event,
    EventMention,
    EventRelation,
    Message,
    Namespace,
    RelationKind,
)
from memory.selectors.messages import MessageOut, messages_out
from memory.selectors.out import Out


class TemporalOut(Out):
    """The two time axes (SPEC §5.2): when it was said, and when it happens/happened."""

    mentioned_at: datetime  # the first mention
    # The latest later mention (issue 29: the same fact said again); None when said once.
    last_mentioned_at: datetime | None
    happened_start: datetime | None
    happened_end: datetime | None
    original_text: str | None
    precision: str
    basis: str
    status: str


class WeightOut(Out):
    value: float
    adoptions: int
    last_adopted_turn: int
    floor: float
    cap: float | None
    pinned: bool


class RelationsOut(Out):
    supersedes: list[int]
    superseded_by: list[int]
    conflicts_with: list[int]
    same_as: list[int]
    before: list[int]
    after: list[int]
    related: list[int]


EMPTY_RELATIONS = RelationsOut.model_validate({k: [] for k in RelationsOut.model_fields})


class EventOut(Out):
    id: int
    title: str
    summary: str
    event_type: str
    status: str
    superseded_by: int | None
    scope: str
    criticality: str
    pinned: bool
    tags: list[str]
    quotes: list[str]
    participants: list[str]
    temporal: TemporalOut
    relations: RelationsOut
    weight: WeightOut
    source_block_id: int
    source_message_ids: list[int]
    formed_turn: int
    origin: str
    mention_count: int  # how often the fact was stated; a mention is not use (SPEC §7)

    @computed_field  # type: ignore[prop-decorator]
    @property
    def ref(self) -> str:
        return str(Ref.event(self.id))

    @property
    def occurrence(self) -> datetime | None:
        return self.temporal.happened_start or self.temporal.happened_end


TIMELINE_SUMMARY_CHARS = 200


class TimelineEntryOut(Out):
    """An event in a small timeline (graph search provenance): where it sits in time."""

    id: int
    ref: str
    title: str
    summary: str
    event_type: str
    status: str
    temporal_status: str
    time: datetime
    time_basis: str  # occurrence | mention


def timeline_entry(event: Event) -> TimelineEntryOut:
    occurrence = event.happened_start or event.happened_end
    return TimelineEntryOut.model_construct(
        id=event.pk,
        ref=str(Ref.event(event.pk)),
        title=redact(event.title),
        summary=redact(event.summary[:TIMELINE_SUMMARY_CHARS]),
        event_type=event.event_type,
        status=event.status,
        temporal_status=event.temporal_status,
        time=occurrence or event.mentioned_at,
        time_basis="occurrence" if occurrence else "mention",
    )


def event_get(namespace: Namespace, event_id: int) -> Event:
    event = (
        Event.objects.filter(namespace=namespace, pk=event_id)
        .prefetch_related("source_messages")
        .first()
    )
    if event is None:
        raise NotFound(f"event {event_id} not found", code="event_not_found")
    return event


def event_weight(event: Event, current_turn: int) -> WeightOut:
    return WeightOut.model_construct(
        value=round(current_weight(event, current_turn), 4),
        adoptions=event.adoptions,
        last_adopted_turn=event.last_adopted_turn,
        floor=CRITICALITY_FLOORS.get(event.criticality, 0.0),
        cap=SUPERSEDED_CAP if event.status == SUPERSEDED else None,
        pinned=event.pinned,
    )


def event_relations_many(events: Iterable[Event]) -> dict[int, RelationsOut]:
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
    return {
        pk: RelationsOut.model_validate({k: sorted(set(ids)) for k, ids in rel.items()})
        for pk, rel in out.items()
    }


def event_out(
    event: Event, *, current_turn: int, relations: RelationsOut | None = None
) -> EventOut:
    """The shape of an event on every way out. Reads `event.source_messages` (prefetch it for
    many); pass `relations` from `event_relations_many` on list pages, else they stay empty."""
    return EventOut.model_construct(
        id=event.pk,
        title=redact(event.title),
        summary=redact(event.summary),
        event_type=event.event_type,
        status=event.status,
        superseded_by=event.superseded_by_id,
        scope=event.scope,
        criticality=event.criticality,
        pinned=event.pinned,
        tags=[redact(t) for t in event.tags],
        quotes=[redact(q) for q in event.quotes],
        participants=[redact(p) for p in event.participants],
        temporal=TemporalOut.model_construct(
            mentioned_at=event.mentioned_at,
            last_mentioned_at=event.last_mentioned_at,
            happened_start=event.happened_start,
            happened_end=event.happened_end,
            original_text=redact(event.temporal_text) or None,
            precision=event.temporal_precision,
            basis=event.temporal_basis,
            status=event.temporal_status,
        ),
        relations=relations or EMPTY_RELATIONS,
        weight=event_weight(event, current_turn),
        source_block_id=event.source_block_id,
        source_message_ids=sorted(m.pk for m in event.source_messages.all()),
        formed_turn=event.formed_turn,
        origin=event.origin,
        mention_count=event.mention_count,
    )


def events_out(events: list[Event], *, current_turn: int) -> list[EventOut]:
    """`event_out` of many events with their relations, in one extra query."""
    relations = event_relations_many(events)
    return [event_out(e, current_turn=current_turn, relations=relations[e.pk]) for e in events]


def event_detail(event: Event, *, current_turn: int) -> EventOut:
    return events_out([event], current_turn=current_turn)[0]


def event_sources(event: Event) -> list[MessageOut]:
    """The event's source messages in conversation order."""
    rows = Message.objects.filter(events=event).select_related("session")
    return messages_out(rows.order_by("turn__session_turn", "position", "pk"))


class MentionOut(Out):
    """One statement of an event's fact: the first (the event's own source block) or a later
    one that was added to it instead of a second event (issue 29)."""

    mentioned_at: datetime
    block_id: int
    session_id: str
    formed_turn: int
    source_message_ids: list[int]
    first: bool


def event_mentions(event: Event) -> list[MentionOut]:
    """Every mention of the event, oldest first, with its source messages; two queries."""
    later = list(
        EventMention.objects.filter(event=event)
        .select_related("block__session")
        .prefetch_related("messages")
        .order_by("mentioned_at", "pk")
    )
    mentioned = {m.pk for mention in later for m in mention.messages.all()}
    first_sources = sorted(m.pk for m in event.source_messages.all() if m.pk not in mentioned)
    block = event.source_block
    out = [
        MentionOut.model_construct(
            mentioned_at=event.mentioned_at,
            block_id=block.pk,
            session_id=redact(block.session.external_id),
            formed_turn=event.formed_turn,
            source_message_ids=first_sources,
            first=True,
        )
    ]
    out += [
        MentionOut.model_construct(
            mentioned_at=mention.mentioned_at,
            block_id=mention.block_id,
            session_id=redact(mention.block.session.external_id),
            formed_turn=mention.formed_turn,
            source_message_ids=sorted(m.pk for m in mention.messages.all()),
            first=False,
        )
        for mention in later
    ]
    return out


def events_by_ids(
    namespace: Namespace, ids: Iterable[int], *, current_turn: int
) -> dict[int, EventOut]:
    """Events of this namespace by id (unknown ids left out), with relations; two queries
    plus one for their source message ids."""
    rows = list(
        Event.objects.filter(namespace=namespace, pk__in=list(ids)).prefetch_related(
            "source_messages"
        )
    )
    return {e.id: e for e in events_out(rows, current_turn=current_turn)}


@dataclass(frozen=True)
class TimelineFilter:
    statuses: tuple[str, ...] = VISIBLE_STATUSES
    event_type: str | None = None
    temporal_status: str | None = None
    participant: str | None = None
    # Occurrence only: events without an occurrence date never match these (API filters).
    happened_from: datetime | None = None
    happened_to: datetime | None = None
    # The timeline's own axis: occurrence, else mention time (the UI's date range).
    time_from: datetime | None = None
    time_to: datetime | None = None


# Some participant's name contains the wanted text (case-insensitive), like the agent search's
# filter. Not `participants__icontains`: that matches the JSON text, so `"` matches every event
# and on SQLite non-ASCII names (stored as \\u escapes) never match.
_PARTICIPANT_SQL = {
    "sqlite": "EXISTS (SELECT 1 FROM json_each(memory_event.participants) AS p "
    "WHERE instr(lower(p.value), lower(%s)) > 0)",
    "postgresql": "EXISTS (SELECT 1 FROM jsonb_array_elements_text(memory_event.participants) "
    "AS p(value) WHERE strpos(lower(p.value), lower(%s)) > 0)",
}


def _participant_matches(name: str) -> RawSQL:
    return RawSQL(_PARTICIPANT_SQL[connection.vendor], (name,), output_field=BooleanField())


def event_timeline(*, namespace: Namespace, filters: TimelineFilter) -> QuerySet[Event]:
    """Ordered by occurrence (start, else end), mention time where occurrence is unknown
    (SPEC §13.3), then id. Slice it: callers page in SQL."""
    events = Event.objects.filter(namespace=namespace, status__in=filters.statuses)
    if filters.event_type:
        events = events.filter(event_type=filters.event_type)
    if filters.temporal_status:
        events = events.filter(temporal_status=filters.temporal_status)
    if filters.participant:
        events = events.filter(_participant_matches(filters.participant))
    if filters.happened_from:
        events = events.filter(
            Q(happened_end__gte=filters.happened_from)
            | Q(happened_end__isnull=True, happened_start__gte=filters.happened_from)
        )
    if filters.happened_to:
        events = events.filter(happened_start__lte=filters.happened_to)
    events = events.annotate(
        sort_time=Coalesce("happened_start", "happened_end", "mentioned_at"),
        span_end=Coalesce("happened_end", "happened_start", "mentioned_at"),
    )
    if filters.time_from:
        events = events.filter(span_end__gte=filters.time_from)
    if filters.time_to:
        events = events.filter(sort_time__lte=filters.time_to)
    return events.order_by("sort_time", "pk").prefetch_related("source_messages")
