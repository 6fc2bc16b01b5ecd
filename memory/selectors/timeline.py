"""Reads for the Memory UI's event timeline and event page (SPEC §13.3): events with the titles
of the events they link to, their weight over turns and their sources, in a fixed number of
queries per page however many events it shows.

Adoption turns come from usage receipts: an event's adoptions are the receipts that *reinforced*
it (`UsageReceipt.reinforced_event_ids`, one per receipt however many of its refs pointed at
the event). A receipt that cited a forgotten event did not reinforce it and is not an adoption.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import datetime

from django.db.models import QuerySet

from memory.engine.lifecycle import HIDDEN_STATUSES
from memory.engine.redact import redact
from memory.engine.weight_trajectory import WeightTrajectory, weight_trajectory
from memory.errors import NotFound
from memory.models import Event, GraphEdge, GraphFact, Namespace, UsageItem
from memory.selectors.audit import EventUsageOut, memory_usage
from memory.selectors.events import (
    EventOut,
    MentionOut,
    TimelineFilter,
    event_mentions,
    event_sources,
    event_timeline,
    events_out,
)
from memory.selectors.graph_state import item_states, source_statuses
from memory.selectors.messages import MessageOut
from memory.selectors.out import Out
from memory.selectors.paging import Page, paginate

PAGE_SIZE = 50
# Relation kinds in the order people read them: what replaced it first, then what it replaced.
LINK_KINDS = (
    "superseded_by",
    "supersedes",
    "conflicts_with",
    "same_as",
    "before",
    "after",
    "related",
)


class LinkedEventOut(Out):
    """Just enough of an event another event links to: a title for the link text."""

    id: int
    title: str
    status: str
    event_type: str
    formed_turn: int | None  # None when the linked id no longer exists


class LinkOut(Out):
    kind: str
    event: LinkedEventOut


class TimelineEntry(Out):
    event: EventOut
    trajectory: WeightTrajectory
    links: list[LinkOut]  # every relation, in LINK_KINDS order
    source_session_id: str | None

    @property
    def adoption_turns(self) -> tuple[int, ...]:
        return self.trajectory.adoption_turns

    @property
    def hidden(self) -> bool:
        return self.event.status in HIDDEN_STATUSES


def adoption_turns(event_ids: Iterable[int]) -> dict[int, list[int]]:
    """Namespace turns of the receipts that reinforced each event, ascending; one query."""
    ids = list(event_ids)
    found: dict[int, dict[int, int]] = {i: {} for i in ids}
    rows = UsageItem.events.through.objects.filter(event_id__in=ids).values_list(
        "event_id",
        "usageitem__receipt",
        "usageitem__receipt__namespace_turn",
        "usageitem__receipt__reinforced_event_ids",
    )
    for event_id, receipt_pk, turn, reinforced in rows:
        if event_id in (reinforced or []):
            found[int(event_id)][int(receipt_pk)] = int(turn)
    return {i: sorted(receipts.values()) for i, receipts in found.items()}


def linked_events(namespace: Namespace, ids: Iterable[int]) -> dict[int, LinkedEventOut]:
    """Titles (redacted) of the events with these ids in this namespace; one query."""
    rows = Event.objects.filter(namespace=namespace, pk__in=set(ids)).values_list(
        "pk", "title", "status", "event_type", "formed_turn"
    )
    return {
        pk: LinkedEventOut.model_construct(
            id=pk, title=redact(title), status=status, event_type=kind, formed_turn=formed
        )
        for pk, title, status, kind, formed in rows
    }


def _link_ids(event: EventOut) -> list[tuple[str, int]]:
    return [(kind, i) for kind in LINK_KINDS for i in getattr(event.relations, kind)]


def _missing(event_id: int) -> LinkedEventOut:
    return LinkedEventOut.model_construct(
        id=event_id, title=f"#{event_id}", status="", event_type="", formed_turn=None
    )


def timeline_entries(
    namespace: Namespace, events: list[Event], *, current_turn: int
) -> list[TimelineEntry]:
    """Entries for events already read (with `source_messages` prefetched and
    `source_block__session` selected): relations, linked titles and adoption turns in three
    more queries."""
    outs = events_out(events, current_turn=current_turn)
    linked = linked_events(namespace, (i for out in outs for _, i in _link_ids(out)))
    turns = adoption_turns(e.pk for e in events)
    entries = []
    for row, out in zip(events, outs, strict=True):
        superseder = linked.get(out.superseded_by) if out.superseded_by else None
        entries.append(
            TimelineEntry.model_construct(
                event=out,
                trajectory=weight_trajectory(
                    formed_turn=out.formed_turn,
                    current_turn=current_turn,
                    adoption_turns=turns[out.id],
                    criticality=out.criticality,
                    status=out.status,
                    pinned=out.pinned,
                    adoptions=out.weight.adoptions,
                    last_adopted_turn=out.weight.last_adopted_turn,
                    capped_from_turn=superseder.formed_turn if superseder else None,
                ),
                links=[
                    LinkOut.model_construct(kind=kind, event=linked.get(i) or _missing(i))
                    for kind, i in _link_ids(out)
                ],
                source_session_id=redact(row.source_block.session.external_id),
            )
        )
    return entries


def timeline_events(*, namespace: Namespace, filters: TimelineFilter) -> QuerySet[Event]:
    """`event_timeline` with what an entry reads of the source block (no query per event)."""
    return event_timeline(namespace=namespace, filters=filters).select_related(
        "source_block__session"
    )


def timeline_page(
    *,
    namespace: Namespace,
    filters: TimelineFilter,
    page: int | str | None,
    per_page: int = PAGE_SIZE,
) -> Page[TimelineEntry]:
    """One page of the timeline, paged in SQL: a count, the events, their source message ids,
    relations, linked titles and adoption turns — six queries for any page size. An invalid
    or out-of-range `page` shows the nearest valid page."""
    current_turn = namespace.current_turn

    def entries(events: Sequence[Event]) -> list[TimelineEntry]:
        return timeline_entries(namespace, list(events), current_turn=current_turn)

    return paginate(
        timeline_events(namespace=namespace, filters=filters),
        page=page,
        per_page=per_page,
        convert=entries,
    )


# --- the event page ----------------------------------------------------------------------------


class SupportedFactOut(Out):
    """A graph fact that names this event among its sources, with its state now."""

    id: int
    node_id: int
    node_name: str
    node_type: str
    key: str
    value: str
    status: str
    state: str  # current | historical | hidden
    valid_from: datetime
    valid_to: datetime | None


class SupportedEdgeOut(Out):
    id: int
    from_id: int
    from_name: str
    to_id: int
    to_name: str
    relation: str
    status: str
    state: str
    valid_from: datetime
    valid_to: datetime | None


class EventPageOut(Out):
    entry: TimelineEntry
    sources: list[MessageOut]
    mentions: list[MentionOut]  # every statement of its fact, the first one first (issue 29)
    facts: list[SupportedFactOut]
    edges: list[SupportedEdgeOut]
    usage: EventUsageOut
    current_turn: int


_VALIDITY = ("status", "valid_from", "valid_to", "valid_from_turn", "valid_to_turn")


def event_graph_support(event: Event) -> tuple[list[SupportedFactOut], list[SupportedEdgeOut]]:
    """The facts and edges this event is a source of, each with its state derived from all its
    source events (SPEC §6.4) — hidden ones included, so a forgotten event shows what it hid.
    Four queries."""
    facts = list(
        GraphFact.objects.filter(source_events=event)
        .order_by("node__name", "valid_from_turn", "pk")
        .values("id", "node_id", "node__name", "node__node_type", "key", "value", *_VALIDITY)
    )
    edges = list(
        GraphEdge.objects.filter(source_events=event)
        .order_by("from_node__name", "valid_from_turn", "pk")
        .values(
            "id",
            "from_node_id",
            "from_node__name",
            "to_node_id",
            "to_node__name",
            "relation",
            *_VALIDITY,
        )
    )
    fact_states = item_states(facts, sources=source_statuses(GraphFact, [f["id"] for f in facts]))
    edge_states = item_states(edges, sources=source_statuses(GraphEdge, [e["id"] for e in edges]))
    return (
        [
            SupportedFactOut.model_construct(
                id=row["id"],
                node_id=row["node_id"],
                node_name=redact(row["node__name"]),
                node_type=row["node__node_type"],
                key=redact(row["key"]),
                value=redact(row["value"]),
                status=row["status"],
                state=fact_states[row["id"]],
                valid_from=row["valid_from"],
                valid_to=row["valid_to"],
            )
            for row in facts
        ],
        [
            SupportedEdgeOut.model_construct(
                id=row["id"],
                from_id=row["from_node_id"],
                from_name=redact(row["from_node__name"]),
                to_id=row["to_node_id"],
                to_name=redact(row["to_node__name"]),
                relation=redact(row["relation"]),
                status=row["status"],
                state=edge_states[row["id"]],
                valid_from=row["valid_from"],
                valid_to=row["valid_to"],
            )
            for row in edges
        ],
    )


def event_page_detail(*, namespace: Namespace, event_id: int) -> EventPageOut:
    """Everything the event page shows about one event of this namespace; another namespace's
    id is as unknown as a missing one (404 `event_not_found`)."""
    event = (
        Event.objects.filter(namespace=namespace, pk=event_id)
        .select_related("source_block__session")
        .prefetch_related("source_messages")
        .first()
    )
    if event is None:
        raise NotFound(f"event {event_id} not found", code="event_not_found")
    current_turn = namespace.current_turn
    facts, edges = event_graph_support(event)
    return EventPageOut.model_construct(
        entry=timeline_entries(namespace, [event], current_turn=current_turn)[0],
        sources=event_sources(event),
        mentions=event_mentions(event),
        facts=facts,
        edges=edges,
        usage=memory_usage(event),
        current_turn=current_turn,
    )
