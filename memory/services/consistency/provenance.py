"""Every derived row has its sources (SPEC §5.1, §6.1): an event its source messages, all inside
its source block or the blocks of its later mentions; a graph fact or edge at least one source
event; a node its source events or facts/edges that have them — and never sources from another
namespace.

Nothing here is repairable: a source cannot be invented, and dropping the derived row would lose
memory an operator may want to look at first (`rebuild_graph` re-derives the graph from events).
"""

from __future__ import annotations

from collections import defaultdict

from django.db.models import Exists, F, OuterRef, Q

from memory.models import Event, EventMention, GraphEdge, GraphFact, GraphNode
from memory.services.consistency.base import PROVENANCE, Violation, scoped


def events_without_source_messages(namespace_id: int | None) -> list[Violation]:
    through = Event.source_messages.through.objects.filter(event_id=OuterRef("pk"))
    rows = scoped(Event.objects.filter(~Exists(through)), namespace_id).values_list(
        "pk", "namespace_id", "source_block_id"
    )
    return [
        Violation(
            PROVENANCE,
            "event_without_source_messages",
            ns,
            {"event": pk, "block": block},
            f"event {pk} has no source messages",
        )
        for pk, ns, block in rows.order_by("pk")
    ]


def event_sources_outside_block(namespace_id: int | None) -> list[Violation]:
    """Source messages whose turn is neither in the event's source block nor in the block of
    one of its later mentions (issue 29: one event per fact), or in no block at all."""
    mentioned_there = EventMention.objects.filter(
        event_id=OuterRef("event_id"), block_id=OuterRef("message__turn__block_id")
    )
    through = Event.source_messages.through.objects.filter(
        Q(message__turn__block_id__isnull=True)
        | (~Q(message__turn__block_id=F("event__source_block_id")) & ~Exists(mentioned_there))
    )
    outside: dict[tuple[int, int, int], list[int]] = defaultdict(list)
    rows = scoped(through, namespace_id, "event__namespace_id").values_list(
        "event_id", "event__namespace_id", "event__source_block_id", "message_id"
    )
    for event, ns, block, message in rows.order_by("event_id", "message_id"):
        outside[(event, ns, block)].append(message)
    return [
        Violation(
            PROVENANCE,
            "event_source_outside_block",
            ns,
            {"event": event, "block": block, "messages": messages},
            f"event {event} cites messages outside its source block {block}",
        )
        for (event, ns, block), messages in outside.items()
    ]


def events_with_foreign_block(namespace_id: int | None) -> list[Violation]:
    rows = scoped(
        Event.objects.exclude(namespace_id=F("source_block__namespace_id")), namespace_id
    ).values_list("pk", "namespace_id", "source_block_id")
    return [
        Violation(
            PROVENANCE,
            "event_block_in_other_namespace",
            ns,
            {"event": pk, "block": block},
            f"event {pk}'s source block {block} belongs to another namespace",
        )
        for pk, ns, block in rows.order_by("pk")
    ]


GraphModel = type[GraphNode] | type[GraphFact] | type[GraphEdge]
# Each graph model, its label in violations, and its column in the source-events table.
GRAPH: tuple[tuple[GraphModel, str, str], ...] = (
    (GraphNode, "node", "graphnode"),
    (GraphFact, "fact", "graphfact"),
    (GraphEdge, "edge", "graphedge"),
)


def graph_items_without_sources(namespace_id: int | None) -> list[Violation]:
    """Facts and edges (SPEC §6.1: source events ≥ 1); nodes are `nodes_without_provenance`."""
    found: list[Violation] = []
    for model, label, owner in GRAPH[1:]:
        through = model.source_events.through.objects.filter(**{f"{owner}_id": OuterRef("pk")})
        rows = scoped(model.objects.filter(~Exists(through)), namespace_id).values_list(
            "pk", "namespace_id"
        )
        found += [
            Violation(
                PROVENANCE,
                f"{label}_without_source_events",
                ns,
                {label: pk},
                f"graph {label} {pk} names no source event",
            )
            for pk, ns in rows.order_by("pk")
        ]
    return found


def graph_sources_in_other_namespace(namespace_id: int | None) -> list[Violation]:
    found: list[Violation] = []
    for model, label, owner in GRAPH:
        through = model.source_events.through.objects.exclude(
            event__namespace_id=F(f"{owner}__namespace_id")
        )
        rows = scoped(through, namespace_id, f"{owner}__namespace_id").values_list(
            f"{owner}_id", f"{owner}__namespace_id", "event_id"
        )
        found += [
            Violation(
                PROVENANCE,
                "graph_source_in_other_namespace",
                ns,
                {label: pk, "event": event},
                f"graph {label} {pk} cites event {event} of another namespace",
            )
            for pk, ns, event in rows.order_by(f"{owner}_id", "event_id")
        ]
    return found


def nodes_without_provenance(namespace_id: int | None) -> list[Violation]:
    """A node stays legitimately when its own source events went (an import undo) but facts or
    edges still hold it; a node with none of the three comes from nowhere."""
    sources = GraphNode.source_events.through.objects.filter(graphnode_id=OuterRef("pk"))
    bare = GraphNode.objects.filter(
        ~Exists(sources),
        ~Exists(GraphFact.objects.filter(node_id=OuterRef("pk"))),
        ~Exists(GraphEdge.objects.filter(from_node_id=OuterRef("pk"))),
        ~Exists(GraphEdge.objects.filter(to_node_id=OuterRef("pk"))),
    )
    rows = scoped(bare, namespace_id).values_list("pk", "namespace_id", "key")
    return [
        Violation(
            PROVENANCE,
            "node_without_provenance",
            ns,
            {"node": pk, "key": key},
            f"graph node {pk} ({key}) has no source events, facts or edges",
        )
        for pk, ns, key in rows.order_by("pk")
    ]


CHECKS = (
    events_without_source_messages,
    event_sources_outside_block,
    events_with_foreign_block,
    graph_items_without_sources,
    graph_sources_in_other_namespace,
    nodes_without_provenance,
)
