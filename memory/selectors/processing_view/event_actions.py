"""What an admin action on an event would do (SPEC §5.4, §6.4): its status and pin afterwards,
as `memory.services.events.event_lifecycle` decides them, and the graph facts and edges whose
state would move, since graph state is derived from the source events' statuses."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Final

from memory.engine.graph_state import CURRENT
from memory.engine.lifecycle import ACTIVE, FORGOTTEN, HIDDEN_STATUSES, SUPERSEDED, VISIBLE_STATUSES
from memory.engine.redact import redact
from memory.errors import NotFound
from memory.models import Event, GraphEdge, GraphFact, Namespace
from memory.selectors.graph_state import Source, item_states, source_statuses
from memory.selectors.out import Out

EVENT_ACTIONS: Final = ("pin", "unpin", "forget", "restore")


class GraphChangeOut(Out):
    """A fact or edge whose state the action would move (current ↔ historical/hidden)."""

    node_id: int
    node_name: str
    text: str  # "package_manager: npm" or "uses → npm"
    other_node_id: int | None  # an edge's other end
    state_before: str
    state_after: str


class LinkedOut(Out):
    id: int
    title: str
    status: str


class EventActionOut(Out):
    action: str
    event_id: int
    title: str
    status: str
    pinned: bool
    status_after: str
    pinned_after: bool
    superseded_by: LinkedOut | None
    graph_changes: list[GraphChangeOut]

    @property
    def changes_anything(self) -> bool:
        return (self.status, self.pinned) != (self.status_after, self.pinned_after)

    @property
    def allowed(self) -> bool:
        """Only restore is refused (409 `event_not_hidden`); the others just change nothing."""
        return self.action != "restore" or self.status in HIDDEN_STATUSES

    @property
    def hidden(self) -> bool:
        return self.status in HIDDEN_STATUSES


def _after(event: Event, action: str) -> tuple[str, bool]:
    """The status and pin an action leaves, as `event_lifecycle` decides them."""
    if action == "pin":
        return event.status, True
    if action == "unpin":
        return event.status, False
    if action == "forget":
        return FORGOTTEN, event.pinned
    if event.status not in HIDDEN_STATUSES:
        return event.status, event.pinned
    superseder = event.superseded_by
    still = superseder is not None and superseder.status in VISIBLE_STATUSES
    return (SUPERSEDED if still else ACTIVE), event.pinned


def _with_status(
    sources: Mapping[int, Sequence[Source]], event_id: int, status: str
) -> dict[int, list[Source]]:
    """`sources` as they would be with event `event_id` in `status`."""
    return {
        item: [(i, status if i == event_id else was) for i, was in events]
        for item, events in sources.items()
    }


_VALIDITY = ("status", "valid_from", "valid_to", "valid_from_turn", "valid_to_turn")


def _graph_changes(event: Event, status_after: str) -> list[GraphChangeOut]:
    """Facts and edges sourced by `event` whose state moves when its status becomes
    `status_after` (SPEC §6.4: state is derived from the source events). Four queries."""
    if status_after == event.status:
        return []
    facts = list(
        GraphFact.objects.filter(source_events=event)
        .order_by("node__name", "key", "pk")
        .values("id", "node_id", "node__name", "key", "value", *_VALIDITY)
    )
    edges = list(
        GraphEdge.objects.filter(source_events=event)
        .order_by("from_node__name", "relation", "pk")
        .values(
            "id", "from_node_id", "from_node__name", "to_node_id", "to_node__name", "relation",
            *_VALIDITY,
        )
    )  # fmt: skip
    fact_sources = source_statuses(GraphFact, [f["id"] for f in facts])
    edge_sources = source_statuses(GraphEdge, [e["id"] for e in edges])
    # Each item's state now, and then: with this event's status changed, the others' as they are.
    facts_now = item_states(facts, sources=fact_sources)
    facts_then = item_states(facts, sources=_with_status(fact_sources, event.pk, status_after))
    edges_now = item_states(edges, sources=edge_sources)
    edges_then = item_states(edges, sources=_with_status(edge_sources, event.pk, status_after))

    changes: list[GraphChangeOut] = []
    for row in facts:
        before, after = facts_now[row["id"]], facts_then[row["id"]]
        if before != after:
            changes.append(
                GraphChangeOut.model_construct(
                    node_id=row["node_id"],
                    node_name=redact(row["node__name"]),
                    text=f"{redact(row['key'])}: {redact(row['value'])}",
                    other_node_id=None,
                    state_before=before,
                    state_after=after,
                )
            )
    for row in edges:
        before, after = edges_now[row["id"]], edges_then[row["id"]]
        if before != after:
            changes.append(
                GraphChangeOut.model_construct(
                    node_id=row["from_node_id"],
                    node_name=redact(row["from_node__name"]),
                    text=f"{redact(row['relation'])} → {redact(row['to_node__name'])}",
                    other_node_id=row["to_node_id"],
                    state_before=before,
                    state_after=after,
                )
            )
    # Leaving or entering the current state matters most; list those first.
    return sorted(changes, key=lambda c: CURRENT not in (c.state_before, c.state_after))


def event_action_preview(namespace: Namespace, event_id: int, action: str) -> EventActionOut:
    """What `event_lifecycle(action)` would do to this event of this namespace: its status and
    pin afterwards, and the graph facts and edges whose state would move. Unknown action or
    event → 404. Five queries."""
    if action not in EVENT_ACTIONS:
        raise NotFound(f"no event action {action!r}", code="action_not_found")
    event = (
        Event.objects.filter(namespace=namespace, pk=event_id)
        .select_related("superseded_by")
        .first()
    )
    if event is None:
        raise NotFound(f"event {event_id} not found", code="event_not_found")
    status_after, pinned_after = _after(event, action)
    superseder = event.superseded_by
    return EventActionOut.model_construct(
        action=action,
        event_id=event.pk,
        title=redact(event.title),
        status=event.status,
        pinned=event.pinned,
        status_after=status_after,
        pinned_after=pinned_after,
        superseded_by=(
            LinkedOut.model_construct(
                id=superseder.pk, title=redact(superseder.title), status=superseder.status
            )
            if superseder is not None
            else None
        ),
        graph_changes=_graph_changes(event, status_after),
    )
