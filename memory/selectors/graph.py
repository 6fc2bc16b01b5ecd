"""Graph reads: current vs historical state derived from source events, as-of views, and
networkx neighbourhoods (SPEC §6.4, §6.7)."""

from __future__ import annotations

from collections.abc import Iterable
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


_VALIDITY = ("status", "valid_from", "valid_to", "valid_from_turn", "valid_to_turn")


def item_state(item: GraphFact | GraphEdge, as_of: AsOf | None = None) -> str:
    """current: its own status is active and ≥ 1 source event is active; historical: otherwise;
    hidden: every source event is forgotten/archived. As-of uses validity at that point."""
    columns = {c: getattr(item, c) for c in _VALIDITY}
    return _item_state([e.status for e in item.source_events.all()], columns, as_of)


def _item_state(statuses: list[str], item: dict[str, Any], as_of: AsOf | None) -> str:
    """`item_state` over a fact's or edge's column values (`_VALIDITY`)."""
    if not statuses or all(s in HIDDEN_EVENT for s in statuses):
        return HIDDEN
    if as_of is not None:
        if as_of.turn is not None:
            started = item["valid_from_turn"] <= as_of.turn
            ended = item["valid_to_turn"] is not None and item["valid_to_turn"] <= as_of.turn
        else:
            assert as_of.at is not None
            started = item["valid_from"] <= as_of.at
            ended = item["valid_to"] is not None and item["valid_to"] <= as_of.at
        if not started:
            return HIDDEN
        return HISTORICAL if ended else CURRENT
    if item["status"] == GraphItemStatus.ACTIVE and EventStatus.ACTIVE in statuses:
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


_FACT_COLUMNS = (
    "id", "node_id", "key", "value", "status", "confidence",
    "valid_from", "valid_to", "valid_from_turn", "valid_to_turn",
)  # fmt: skip
_EDGE_COLUMNS = (
    "id", "from_node_id", "to_node_id", "from_node__name", "to_node__name", "relation", "status",
    "valid_from", "valid_to", "valid_from_turn", "valid_to_turn",
)  # fmt: skip


def _sources(through: Any, column: str, ids: list[int]) -> dict[int, list[tuple[int, str]]]:
    """item id → (event id, event status) of each of its source events, in one query."""
    found: dict[int, list[tuple[int, str]]] = {i: [] for i in ids}
    rows = through.objects.filter(**{f"{column}__in": ids}).values_list(
        column, "event_id", "event__status"
    )
    for item_id, event_id, status in rows:
        found[item_id].append((event_id, status))
    return found


def _row_out(
    row: dict[str, Any], sources: list[tuple[int, str]], as_of: AsOf | None
) -> dict[str, Any] | None:
    """`fact_out`/`edge_out` of a values row with its state, or None when hidden."""
    state = _item_state([status for _, status in sources], row, as_of)
    if state == HIDDEN:
        return None
    ids = sorted(event_id for event_id, _ in sources)
    if "key" in row:
        return {
            "id": row["id"],
            "key": row["key"],
            "value": row["value"],
            "status": row["status"],
            "state": state,
            "confidence": row["confidence"],
            "valid_from": row["valid_from"],
            "valid_to": row["valid_to"],
            "valid_from_turn": row["valid_from_turn"],
            "valid_to_turn": row["valid_to_turn"],
            "source_event_ids": ids,
        }
    return {
        "id": row["id"],
        "from": row["from_node_id"],
        "to": row["to_node_id"],
        "from_name": row["from_node__name"],
        "to_name": row["to_node__name"],
        "relation": row["relation"],
        "status": row["status"],
        "state": state,
        "valid_from": row["valid_from"],
        "valid_to": row["valid_to"],
        "source_event_ids": ids,
    }


def node_states(nodes: Iterable[GraphNode], as_of: AsOf | None = None) -> dict[int, dict[str, Any]]:
    """`node_state` of many nodes, keyed by node id, in four queries however many nodes: facts,
    edges and the source events' statuses of each, read as plain rows."""
    by_id = {node.pk: node for node in nodes}
    if not by_id:
        return {}
    ids = list(by_id)
    facts = list(
        GraphFact.objects.filter(node_id__in=ids)
        .order_by("valid_from_turn", "pk")
        .values(*_FACT_COLUMNS)
    )
    edges = list(
        GraphEdge.objects.filter(Q(from_node_id__in=ids) | Q(to_node_id__in=ids))
        .order_by("valid_from_turn", "pk")
        .values(*_EDGE_COLUMNS)
    )
    fact_sources = _sources(
        GraphFact.source_events.through, "graphfact_id", [f["id"] for f in facts]
    )
    edge_sources = _sources(
        GraphEdge.source_events.through, "graphedge_id", [e["id"] for e in edges]
    )
    current: dict[int, list[dict[str, Any]]] = {pk: [] for pk in ids}
    historical: dict[int, list[dict[str, Any]]] = {pk: [] for pk in ids}
    edge_lists: dict[int, list[dict[str, Any]]] = {pk: [] for pk in ids}
    for row in facts:
        fact = _row_out(row, fact_sources[row["id"]], as_of)
        if fact is not None:
            (current if fact["state"] == CURRENT else historical)[row["node_id"]].append(fact)
    for row in edges:
        edge = _row_out(row, edge_sources[row["id"]], as_of)
        if edge is not None:
            for end in dict.fromkeys((row["from_node_id"], row["to_node_id"])):
                if end in edge_lists:
                    edge_lists[end].append(edge if end == row["from_node_id"] else dict(edge))
    return {
        pk: _state(node, current[pk], historical[pk], edge_lists[pk]) for pk, node in by_id.items()
    }


def node_state(node: GraphNode, as_of: AsOf | None = None) -> dict[str, Any]:
    """A node with its current and historical facts and edges (hidden ones left out)."""
    return node_states([node], as_of)[node.pk]


def _state(
    node: GraphNode,
    current_facts: list[dict[str, Any]],
    historical_facts: list[dict[str, Any]],
    edge_list: list[dict[str, Any]],
) -> dict[str, Any]:
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
