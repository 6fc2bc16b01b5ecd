"""Long-term memory reads and admin actions: events, the timeline, graph nodes and state."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.http import HttpRequest
from django.utils.dateparse import parse_datetime
from ninja import Query, Router, Schema

from memory.api.auth import namespace_for, request_token
from memory.api.presenters import message_out
from memory.errors import Invalid, NotFound
from memory.models import Event, EventStatus, GraphNode, Message, Namespace, TokenScope
from memory.selectors.events import (
    TimelineFilter,
    event_out,
    event_relations_many,
    event_timeline,
)
from memory.selectors.graph import AsOf, node_neighbours, node_state, node_states
from memory.services.events import event_lifecycle
from memory.services.expansion import event_expand_batch, node_expand_batch

router = Router(tags=["memory"])


def _event(namespace: Namespace, event_id: int) -> Event:
    event = (
        Event.objects.filter(namespace=namespace, pk=event_id)
        .prefetch_related("source_messages")
        .first()
    )
    if event is None:
        raise NotFound(f"event {event_id} not found", code="event_not_found")
    return event


def parse_as_of(value: str | None) -> AsOf | None:
    """`as_of` is a namespace turn (an integer) or an ISO 8601 date/time."""
    if value is None or value == "":
        return None
    if value.isdigit():
        return AsOf(turn=int(value))
    parsed = parse_datetime(value) or parse_datetime(f"{value}T23:59:59.999999+00:00")
    if parsed is None:
        raise Invalid("as_of must be a turn number or an ISO 8601 date", code="invalid_as_of")
    if parsed.tzinfo is None:
        from datetime import UTC

        parsed = parsed.replace(tzinfo=UTC)
    return AsOf(at=parsed)


@router.get("/ns/{ns}/events/{event_id}", operation_id="memory_expand_event")
def expand_event(
    request: HttpRequest,
    ns: str,
    event_id: int,
    batch_id: str | None = None,
    session_id: str | None = None,
) -> dict[str, Any]:
    namespace = namespace_for(request, ns, scope=TokenScope.READ)
    event = _event(namespace, event_id)
    sources = Message.objects.filter(events=event).select_related("session").order_by("pk")
    block = event.source_block
    batch = event_expand_batch(
        namespace=namespace,
        event=event,
        sources=list(sources),
        session_id=session_id,
        from_batch=batch_id,
    )
    shown = event_out(event, current_turn=namespace.current_turn)
    return {
        "batch_id": batch.public_id,
        "ref": f"event:{event.pk}",
        "event": shown,
        "relations": shown["relations"],
        "sources": [message_out(m) for m in sources],
        "source_block": {"block_id": block.pk, "turn_range": [block.first_turn, block.last_turn]},
    }


class TimelineQuery(Schema):
    status: str | None = None
    event_type: str | None = None
    participant: str | None = None
    happened_from: datetime | None = None
    happened_to: datetime | None = None
    limit: int = 200


@router.get("/ns/{ns}/events", operation_id="memory_event_timeline")
def timeline(request: HttpRequest, ns: str, params: Query[TimelineQuery]) -> dict[str, Any]:
    namespace = namespace_for(request, ns, scope=TokenScope.READ)
    statuses: tuple[str, ...] = (EventStatus.ACTIVE, EventStatus.SUPERSEDED)
    if params.status:
        wanted = tuple(s.strip() for s in params.status.split(","))
        unknown = [s for s in wanted if s not in EventStatus.values]
        if unknown:
            raise Invalid(f"unknown status {unknown[0]!r}", code="invalid_status")
        statuses = wanted
    if not 1 <= params.limit <= 1000:
        raise Invalid("limit must be 1–1000", code="invalid_limit")
    events = list(
        event_timeline(
            namespace=namespace,
            filters=TimelineFilter(
                statuses=statuses,
                event_type=params.event_type,
                participant=params.participant,
                happened_from=params.happened_from,
                happened_to=params.happened_to,
            ),
            limit=params.limit,
        )
    )
    relations = event_relations_many(events)
    return {
        "current_turn": namespace.current_turn,
        "events": [
            event_out(e, current_turn=namespace.current_turn, relations=relations[e.pk])
            for e in events
        ],
    }


def _lifecycle(request: HttpRequest, ns: str, event_id: int, action: str) -> dict[str, Any]:
    namespace = namespace_for(request, ns, scope=TokenScope.ADMIN)
    token = request_token(request)
    event = event_lifecycle(
        event=_event(namespace, event_id), action=action, actor=f"token:{token.prefix}"
    )
    return event_out(_event(namespace, event.pk), current_turn=namespace.current_turn)


@router.post("/ns/{ns}/events/{event_id}/pin", operation_id="event_pin")
def pin(request: HttpRequest, ns: str, event_id: int) -> dict[str, Any]:
    return _lifecycle(request, ns, event_id, "pin")


@router.post("/ns/{ns}/events/{event_id}/unpin", operation_id="event_unpin")
def unpin(request: HttpRequest, ns: str, event_id: int) -> dict[str, Any]:
    return _lifecycle(request, ns, event_id, "unpin")


@router.post("/ns/{ns}/events/{event_id}/forget", operation_id="event_forget")
def forget(request: HttpRequest, ns: str, event_id: int) -> dict[str, Any]:
    return _lifecycle(request, ns, event_id, "forget")


@router.post("/ns/{ns}/events/{event_id}/restore", operation_id="event_restore")
def restore(request: HttpRequest, ns: str, event_id: int) -> dict[str, Any]:
    return _lifecycle(request, ns, event_id, "restore")


@router.get("/ns/{ns}/graph/nodes/{node_id}", operation_id="memory_expand_graph_node")
def expand_node(
    request: HttpRequest,
    ns: str,
    node_id: int,
    as_of: str | None = None,
    batch_id: str | None = None,
    session_id: str | None = None,
) -> dict[str, Any]:
    namespace = namespace_for(request, ns, scope=TokenScope.READ)
    node = GraphNode.objects.filter(namespace=namespace, pk=node_id).first()
    if node is None:
        raise NotFound(f"graph node {node_id} not found", code="node_not_found")
    point = parse_as_of(as_of)
    state = node_state(node, point)
    events = Event.objects.filter(pk__in=state["provenance_event_ids"]).prefetch_related(
        "source_messages"
    )
    batch = node_expand_batch(
        namespace=namespace,
        node_id=node.pk,
        state=state,
        provenance_event_ids=state["provenance_event_ids"],
        session_id=session_id,
        from_batch=batch_id,
    )
    for fact in [*state["current_facts"], *state["historical_facts"]]:
        fact["ref"] = f"fact:{fact['id']}"
    return {
        "batch_id": batch.public_id,
        "ref": f"node:{node.pk}",
        **state,
        "neighbours": node_neighbours(node, as_of=point),
        "provenance_events": [
            event_out(e, current_turn=namespace.current_turn, with_relations=False) for e in events
        ],
    }


@router.get("/ns/{ns}/graph", operation_id="memory_graph_state")
def graph_state(request: HttpRequest, ns: str, as_of: str | None = None) -> dict[str, Any]:
    """Every node with its current facts (or as of a turn/date) — the graph's state at a glance."""
    namespace = namespace_for(request, ns, scope=TokenScope.READ)
    point = parse_as_of(as_of)
    rows = list(GraphNode.objects.filter(namespace=namespace).order_by("pk"))
    states = node_states(rows, point)
    nodes = [
        {
            **states[node.pk]["node"],
            "current_facts": states[node.pk]["current_facts"],
            "historical_facts": states[node.pk]["historical_facts"],
            "edges": [e for e in states[node.pk]["edges"] if e["from"] == node.pk],
        }
        for node in rows
    ]
    return {"as_of": as_of, "nodes": nodes}
