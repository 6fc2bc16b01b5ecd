"""Long-term memory reads and admin actions: events, the timeline, graph nodes and state."""

from __future__ import annotations

from django.http import HttpRequest
from ninja import Query, Router, Schema

from memory.api.auth import ADMIN, request_namespace, request_token
from memory.api.fields import ApiDatetime
from memory.api.schemas import (
    ExpandEventOut,
    ExpandNodeOut,
    GraphNodeStateOut,
    GraphStateOut,
    SourceBlockOut,
    TimelineOut,
)
from memory.errors import Invalid
from memory.models import EventStatus
from memory.selectors.events import (
    EventOut,
    TimelineFilter,
    event_detail,
    event_get,
    event_mentions,
    event_sources,
    event_timeline,
    events_by_ids,
    events_out,
)
from memory.selectors.graph import (
    as_of_from_text,
    graph_nodes,
    node_get,
    node_neighbours,
    node_state,
)
from memory.services.events import event_lifecycle
from memory.services.expansion import event_expand_batch, node_expand_batch

router = Router(tags=["memory"])

TIMELINE_MAX = 1000


@router.get(
    "/ns/{ns}/events/{event_id}", response=ExpandEventOut, operation_id="memory_expand_event"
)
def expand_event(
    request: HttpRequest,
    ns: str,
    event_id: int,
    batch_id: str | None = None,
    session_id: str | None = None,
) -> ExpandEventOut:
    namespace = request_namespace(request)
    event = event_get(namespace, event_id)
    sources = event_sources(event)
    expanded = event_expand_batch(
        namespace=namespace,
        event=event,
        source_ids=[m.id for m in sources],
        session_id=session_id,
        from_batch=batch_id,
    )
    shown = event_detail(event, current_turn=namespace.current_turn)
    block = event.source_block
    return ExpandEventOut(
        batch_id=expanded.batch.public_id,
        ref=expanded.ref,
        event=shown,
        relations=shown.relations,
        sources=sources,
        source_block=SourceBlockOut(
            block_id=block.pk,
            session_id=block.session.external_id,
            turn_range=[block.first_turn, block.last_turn],
        ),
        mentions=event_mentions(event),
    )


class TimelineQuery(Schema):
    status: str | None = None
    event_type: str | None = None
    participant: str | None = None
    happened_from: ApiDatetime | None = None
    happened_to: ApiDatetime | None = None
    limit: int = 200


@router.get("/ns/{ns}/events", response=TimelineOut, operation_id="memory_event_timeline")
def timeline(request: HttpRequest, ns: str, params: Query[TimelineQuery]) -> TimelineOut:
    namespace = request_namespace(request)
    statuses: tuple[str, ...] = TimelineFilter.statuses
    if params.status:
        wanted = tuple(s.strip() for s in params.status.split(","))
        unknown = [s for s in wanted if s not in EventStatus.values]
        if unknown:
            raise Invalid(f"unknown status {unknown[0]!r}", code="invalid_status")
        statuses = wanted
    if not 1 <= params.limit <= TIMELINE_MAX:
        raise Invalid(f"limit must be 1–{TIMELINE_MAX}", code="invalid_limit")
    events = event_timeline(
        namespace=namespace,
        filters=TimelineFilter(
            statuses=statuses,
            event_type=params.event_type,
            participant=params.participant,
            happened_from=params.happened_from,
            happened_to=params.happened_to,
        ),
    )
    return TimelineOut(
        current_turn=namespace.current_turn,
        events=events_out(list(events[: params.limit]), current_turn=namespace.current_turn),
    )


def _lifecycle(request: HttpRequest, ns: str, event_id: int, action: str) -> EventOut:
    namespace = request_namespace(request)
    token = request_token(request)
    event = event_lifecycle(
        event=event_get(namespace, event_id), action=action, actor=f"token:{token.prefix}"
    )
    return event_detail(event_get(namespace, event.pk), current_turn=namespace.current_turn)


@router.post(
    "/ns/{ns}/events/{event_id}/pin", response=EventOut, auth=ADMIN, operation_id="event_pin"
)
def pin(request: HttpRequest, ns: str, event_id: int) -> EventOut:
    return _lifecycle(request, ns, event_id, "pin")


@router.post(
    "/ns/{ns}/events/{event_id}/unpin", response=EventOut, auth=ADMIN, operation_id="event_unpin"
)
def unpin(request: HttpRequest, ns: str, event_id: int) -> EventOut:
    return _lifecycle(request, ns, event_id, "unpin")


@router.post(
    "/ns/{ns}/events/{event_id}/forget", response=EventOut, auth=ADMIN, operation_id="event_forget"
)
def forget(request: HttpRequest, ns: str, event_id: int) -> EventOut:
    return _lifecycle(request, ns, event_id, "forget")


@router.post(
    "/ns/{ns}/events/{event_id}/restore",
    response=EventOut,
    auth=ADMIN,
    operation_id="event_restore",
)
def restore(request: HttpRequest, ns: str, event_id: int) -> EventOut:
    return _lifecycle(request, ns, event_id, "restore")


@router.get(
    "/ns/{ns}/graph/nodes/{node_id}",
    response=ExpandNodeOut,
    by_alias=True,
    operation_id="memory_expand_graph_node",
)
def expand_node(
    request: HttpRequest,
    ns: str,
    node_id: int,
    as_of: str | None = None,
    batch_id: str | None = None,
    session_id: str | None = None,
) -> ExpandNodeOut:
    namespace = request_namespace(request)
    node = node_get(namespace, node_id)
    point = as_of_from_text(as_of)
    state = node_state(node, point)
    expanded = node_expand_batch(
        namespace=namespace,
        node_id=node.pk,
        state=state,
        session_id=session_id,
        from_batch=batch_id,
    )
    provenance = events_by_ids(
        namespace, state.provenance_event_ids, current_turn=namespace.current_turn
    )
    return ExpandNodeOut(
        batch_id=expanded.batch.public_id,
        ref=expanded.ref,
        node=state.node,
        current_facts=state.current_facts,
        historical_facts=state.historical_facts,
        edges=state.edges,
        provenance_event_ids=state.provenance_event_ids,
        neighbours=node_neighbours(node, as_of=point),
        provenance_events=[provenance[i] for i in state.provenance_event_ids if i in provenance],
    )


@router.get(
    "/ns/{ns}/graph", response=GraphStateOut, by_alias=True, operation_id="memory_graph_state"
)
def graph_state(request: HttpRequest, ns: str, as_of: str | None = None) -> GraphStateOut:
    """Every node with its current facts (or as of a turn/date) — the graph's state at a glance."""
    namespace = request_namespace(request)
    states = graph_nodes(namespace, as_of_from_text(as_of))
    return GraphStateOut(
        as_of=as_of,
        nodes=[
            GraphNodeStateOut(
                **state.node.model_dump(),
                current_facts=state.current_facts,
                historical_facts=state.historical_facts,
                edges=[e for e in state.edges if e.from_ == state.node.id],
            )
            for state in states
        ],
    )
