"""Graph reads: current vs historical state derived from source events, as-of views, and
networkx neighbourhoods (SPEC §6.4, §6.7)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

import networkx as nx
from django.db.models import Prefetch, Q

from memory.models import (
    Event,
    EventStatus,
    GraphEdge,
    GraphFact,
    GraphItemStatus,
    GraphNode,
    Namespace,
)

HIDDEN_EVENT = (EventStatus.FORGOTTEN, EventStatus.ARCHIVED)
CURRENT, HISTORICAL, HIDDEN = "current", "historical", "hidden"


@dataclass(frozen=True)
class AsOf:
    """A past point: a namespace turn or a date. Validity intervals decide, not today's status."""

    turn: int | None = None
    at: datetime | None = None


def item_state(item: GraphFact | GraphEdge, as_of: AsOf | None = None) -> str:
    """current: its own status is active and ≥ 1 source event is active; historical: otherwise;
    hidden: every source event is forgotten/archived. As-of uses validity at that point."""
    statuses = [e.status for e in item.source_events.all()]
    if not statuses or all(s in HIDDEN_EVENT for s in statuses):
        return HIDDEN
    if as_of is not None:
        if as_of.turn is not None:
            started = item.valid_from_turn <= as_of.turn
            ended = item.valid_to_turn is not None and item.valid_to_turn <= as_of.turn
        else:
            assert as_of.at is not None
            started = item.valid_from <= as_of.at
            ended = item.valid_to is not None and item.valid_to <= as_of.at
        if not started:
            return HIDDEN
        return HISTORICAL if ended else CURRENT
    if item.status == GraphItemStatus.ACTIVE and EventStatus.ACTIVE in statuses:
        return CURRENT
    return HISTORICAL


_SOURCES = Prefetch("source_events", queryset=Event.objects.only("id", "status"))


def fact_out(fact: GraphFact, state: str) -> dict[str, Any]:
    return {
        "id": fact.pk,
        "key": fact.key,
        "value": fact.value,
        "status": fact.status,
        "state": state,
        "confidence": fact.confidence,
        "valid_from": fact.valid_from,
        "valid_to": fact.valid_to,
        "valid_from_turn": fact.valid_from_turn,
        "valid_to_turn": fact.valid_to_turn,
        "source_event_ids": sorted(e.pk for e in fact.source_events.all()),
    }


def edge_out(edge: GraphEdge, state: str) -> dict[str, Any]:
    return {
        "id": edge.pk,
        "from": edge.from_node_id,
        "to": edge.to_node_id,
        "from_name": edge.from_node.name,
        "to_name": edge.to_node.name,
        "relation": edge.relation,
        "status": edge.status,
        "state": state,
        "valid_from": edge.valid_from,
        "valid_to": edge.valid_to,
        "source_event_ids": sorted(e.pk for e in edge.source_events.all()),
    }


def node_out(node: GraphNode) -> dict[str, Any]:
    return {
        "id": node.pk,
        "name": node.name,
        "type": node.node_type,
        "aliases": node.aliases,
        "tags": node.tags,
    }


def node_state(node: GraphNode, as_of: AsOf | None = None) -> dict[str, Any]:
    """A node with its current and historical facts and edges (hidden ones left out)."""
    facts = (
        GraphFact.objects.filter(node=node)
        .prefetch_related(_SOURCES)
        .order_by("valid_from_turn", "pk")
    )
    edge_rows = (
        GraphEdge.objects.filter(Q(from_node=node) | Q(to_node=node))
        .select_related("from_node", "to_node")
        .prefetch_related(_SOURCES)
        .order_by("valid_from_turn", "pk")
    )
    current_facts, historical_facts, edge_list = [], [], []
    for fact in facts:
        state = item_state(fact, as_of)
        if state == CURRENT:
            current_facts.append(fact_out(fact, state))
        elif state == HISTORICAL:
            historical_facts.append(fact_out(fact, state))
    for edge in edge_rows:
        state = item_state(edge, as_of)
        if state != HIDDEN:
            edge_list.append(edge_out(edge, state))
    provenance = sorted(
        {i for f in [*current_facts, *historical_facts, *edge_list] for i in f["source_event_ids"]}
    )
    return {
        "node": {**node_out(node), "current_state": {f["key"]: f["value"] for f in current_facts}},
        "current_facts": current_facts,
        "historical_facts": historical_facts,
        "edges": edge_list,
        "provenance_event_ids": provenance,
    }


def graph_networkx(
    namespace: Namespace, *, include_historical: bool = False, as_of: AsOf | None = None
) -> nx.MultiDiGraph:
    """Nodes and non-hidden edges as a networkx graph (for neighbourhoods, paths, importance)."""
    graph: nx.MultiDiGraph = nx.MultiDiGraph()
    for node in GraphNode.objects.filter(namespace=namespace):
        graph.add_node(node.pk, name=node.name, type=node.node_type)
    for edge in GraphEdge.objects.filter(namespace=namespace).prefetch_related(_SOURCES):
        state = item_state(edge, as_of)
        if state == CURRENT or (include_historical and state == HISTORICAL):
            graph.add_edge(
                edge.from_node_id, edge.to_node_id, key=edge.pk, relation=edge.relation, state=state
            )
    return graph


def node_neighbours(
    node: GraphNode, *, depth: int = 1, as_of: AsOf | None = None
) -> list[dict[str, Any]]:
    graph = graph_networkx(node.namespace, include_historical=True, as_of=as_of)
    if node.pk not in graph:
        return []
    reach = nx.single_source_shortest_path_length(
        graph.to_undirected(as_view=True), node.pk, cutoff=depth
    )
    return [
        {
            "id": other,
            "name": graph.nodes[other]["name"],
            "type": graph.nodes[other]["type"],
            "distance": distance,
        }
        for other, distance in sorted(reach.items(), key=lambda kv: (kv[1], kv[0]))
        if other != node.pk
    ]
