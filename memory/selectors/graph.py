"""Graph reads: nodes with their current and historical facts and edges (state derived from the
source events by `selectors.graph_state`, SPEC §6.4), as-of views (§6.7) and networkx
neighbourhoods. Every read here loads a fixed number of queries however many nodes it shows.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import datetime
from typing import Any

import networkx as nx
from pydantic import Field, computed_field

from memory.engine.gate import Ref
from memory.engine.graph_state import (
    CURRENT,
    HIDDEN,
    HISTORICAL,
    ITEM_ACTIVE,
    AsOf,
    parse_as_of,
)
from memory.engine.redact import redact
from memory.errors import Invalid, NotFound
from memory.models import GraphEdge, GraphFact, GraphNode, Namespace
from memory.models.rows import columns_of, in_chunks, marks, read_values
from memory.selectors.graph_state import Source, item_states, source_statuses, validity_columns
from memory.selectors.out import Out

__all__ = [
    "CURRENT",
    "HIDDEN",
    "HISTORICAL",
    "AsOf",
    "EdgeOut",
    "FactOut",
    "NeighbourOut",
    "NodeOut",
    "NodeStateOut",
    "as_of_from_text",
    "graph_networkx",
    "graph_nodes",
    "node_get",
    "node_neighbours",
    "node_state",
    "node_states",
]


class NodeOut(Out):
    id: int
    name: str
    type: str
    aliases: list[str]
    tags: list[str]
    current_state: dict[str, str] = Field(default_factory=dict)

    @computed_field  # type: ignore[prop-decorator]
    @property
    def ref(self) -> str:
        return str(Ref.node(self.id))


class Sourced(Out):
    """A fact or edge: every one names the events it was derived from (SPEC §6.2)."""

    source_event_ids: list[int]


class FactOut(Sourced):
    id: int
    node_id: int
    key: str
    value: str
    status: str
    state: str  # current | historical (hidden facts are never returned)
    confidence: float
    valid_from: datetime
    valid_to: datetime | None
    valid_from_turn: int
    valid_to_turn: int | None

    @computed_field  # type: ignore[prop-decorator]
    @property
    def ref(self) -> str:
        return str(Ref.fact(self.id))


class EdgeOut(Sourced):
    id: int
    # `from` is a Python keyword: the attribute is `from_`, the JSON key `from` (routes that
    # return edges serialise by alias).
    from_: int = Field(alias="from")
    to: int
    from_name: str
    to_name: str
    relation: str
    status: str
    state: str
    valid_from: datetime
    valid_to: datetime | None
    valid_from_turn: int
    valid_to_turn: int | None

    def other_end(self, node_id: int) -> tuple[int, str]:
        """The node at the other end seen from `node_id`: (id, name)."""
        return (self.to, self.to_name) if self.from_ == node_id else (self.from_, self.from_name)


class NodeStateOut(Out):
    """A node with its visible facts and edges (hidden ones left out) and their source events."""

    node: NodeOut
    current_facts: list[FactOut]
    historical_facts: list[FactOut]
    edges: list[EdgeOut]
    provenance_event_ids: list[int]

    @property
    def current_edges(self) -> list[EdgeOut]:
        return [e for e in self.edges if e.state == CURRENT]

    @property
    def historical_edges(self) -> list[EdgeOut]:
        return [e for e in self.edges if e.state == HISTORICAL]

    @property
    def visible(self) -> bool:
        return bool(self.current_facts or self.historical_facts or self.edges)


class NeighbourOut(Out):
    id: int
    name: str
    type: str
    distance: int


def as_of_from_text(value: str | None) -> AsOf | None:
    """`engine.graph_state.parse_as_of`, with 422 `invalid_as_of` for bad input."""
    try:
        return parse_as_of(value)
    except ValueError as exc:
        raise Invalid(str(exc), code="invalid_as_of") from exc


def node_get(namespace: Namespace, node_id: int) -> GraphNode:
    node = GraphNode.objects.filter(namespace=namespace, pk=node_id).first()
    if node is None:
        raise NotFound(f"graph node {node_id} not found", code="node_not_found")
    return node


def node_out(node: GraphNode, current_state: dict[str, str] | None = None) -> NodeOut:
    return NodeOut.model_construct(
        id=node.pk,
        name=redact(node.name),
        type=node.node_type,
        aliases=[redact(a) for a in node.aliases],
        tags=[redact(t) for t in node.tags],
        current_state=current_state or {},
    )


_FACT_COLUMNS = (
    "id", "node_id", "key", "value", "status", "confidence",
    "valid_from", "valid_to", "valid_from_turn", "valid_to_turn",
)  # fmt: skip
_EDGE_COLUMNS = (
    "id", "from_node_id", "to_node_id", "from_node__name", "to_node__name", "relation", "status",
    "valid_from", "valid_to", "valid_from_turn", "valid_to_turn",
)  # fmt: skip


Row = dict[str, Any]
_FACT_FIELDS = columns_of(GraphFact, _FACT_COLUMNS, "f")
_JOINED_NAMES = {"from_node__name": "a", "to_node__name": "b"}  # the edge's two nodes
_EDGE_FIELDS = [
    column
    for name in _EDGE_COLUMNS
    for column in (
        columns_of(GraphNode, ["name"], _JOINED_NAMES[name])
        if name in _JOINED_NAMES
        else columns_of(GraphEdge, [name], "g")
    )
]


def _fact(row: Row, state: str, sources: Sequence[Source]) -> FactOut:
    return FactOut.model_construct(
        id=row["id"],
        node_id=row["node_id"],
        key=row["key"],
        value=redact(row["value"]),
        status=row["status"],
        state=state,
        confidence=row["confidence"],
        valid_from=row["valid_from"],
        valid_to=row["valid_to"],
        valid_from_turn=row["valid_from_turn"],
        valid_to_turn=row["valid_to_turn"],
        source_event_ids=sorted(event_id for event_id, _ in sources),
    )


def _edge(row: Row, state: str, sources: Sequence[Source]) -> EdgeOut:
    return EdgeOut.model_construct(
        id=row["id"],
        from_=row["from_node_id"],
        to=row["to_node_id"],
        from_name=redact(row["from_node__name"]),
        to_name=redact(row["to_node__name"]),
        relation=row["relation"],
        status=row["status"],
        state=state,
        valid_from=row["valid_from"],
        valid_to=row["valid_to"],
        valid_from_turn=row["valid_from_turn"],
        valid_to_turn=row["valid_to_turn"],
        source_event_ids=sorted(event_id for event_id, _ in sources),
    )


def _item_rows(ids: list[int], *, active_only: bool) -> tuple[list[Row], list[Row]]:
    """The facts of these nodes and the edges at either end of them (only active ones when
    asked), each list by (valid_from_turn, id), as dicts of _FACT_COLUMNS / _EDGE_COLUMNS. Plain
    SQL (node states are read on every context call), in chunks of ids for a whole namespace's
    nodes: an edge between two chunks comes twice and is kept once."""
    status = " AND {}.status = %s" if active_only else ""
    extra = [ITEM_ACTIVE] if active_only else []
    facts: dict[int, Row] = {}
    edges: dict[int, Row] = {}
    for chunk in in_chunks(ids):
        within = marks(chunk)
        for values in read_values(
            _FACT_FIELDS,
            f"FROM {GraphFact._meta.db_table} f WHERE f.node_id IN ({within})" + status.format("f"),
            [*chunk, *extra],
        ):
            facts[values[0]] = dict(zip(_FACT_COLUMNS, values, strict=True))
        for values in read_values(
            _EDGE_FIELDS,
            f"FROM {GraphEdge._meta.db_table} g "
            f"JOIN {GraphNode._meta.db_table} a ON g.from_node_id = a.id "
            f"JOIN {GraphNode._meta.db_table} b ON g.to_node_id = b.id "
            f"WHERE (g.from_node_id IN ({within}) OR g.to_node_id IN ({within}))"
            + status.format("g"),
            [*chunk, *chunk, *extra],
        ):
            edges[values[0]] = dict(zip(_EDGE_COLUMNS, values, strict=True))

    def ordered(rows: dict[int, Row]) -> list[Row]:
        return sorted(rows.values(), key=lambda row: (row["valid_from_turn"], row["id"]))

    return ordered(facts), ordered(edges)


def node_states(
    nodes: Iterable[GraphNode], as_of: AsOf | None = None, *, current_only: bool = False
) -> dict[int, NodeStateOut]:
    """Each node's state, keyed by node id, in four queries however many nodes: facts, edges
    and the source events' statuses of each, read as plain rows. `current_only` leaves out
    what can only be history (items no longer active): the current state is the same, the
    historical lists are empty."""
    by_id = {node.pk: node for node in nodes}
    if not by_id:
        return {}
    ids = list(by_id)
    facts, edges = _item_rows(ids, active_only=current_only and as_of is None)
    fact_sources = source_statuses(GraphFact, [f["id"] for f in facts])
    edge_sources = source_statuses(GraphEdge, [e["id"] for e in edges])
    fact_states = item_states(facts, as_of, sources=fact_sources)
    edge_states = item_states(edges, as_of, sources=edge_sources)
    current: dict[int, list[FactOut]] = {pk: [] for pk in ids}
    historical: dict[int, list[FactOut]] = {pk: [] for pk in ids}
    edge_lists: dict[int, list[EdgeOut]] = {pk: [] for pk in ids}
    for row in facts:
        state = fact_states[row["id"]]
        if state != HIDDEN:
            fact = _fact(row, state, fact_sources.get(row["id"], ()))
            (current if state == CURRENT else historical)[row["node_id"]].append(fact)
    for row in edges:
        state = edge_states[row["id"]]
        if state != HIDDEN:
            edge = _edge(row, state, edge_sources.get(row["id"], ()))
            for end in dict.fromkeys((row["from_node_id"], row["to_node_id"])):
                if end in edge_lists:
                    edge_lists[end].append(edge)
    return {
        pk: _state(node, current[pk], historical[pk], edge_lists[pk]) for pk, node in by_id.items()
    }


def node_state(node: GraphNode, as_of: AsOf | None = None) -> NodeStateOut:
    return node_states([node], as_of)[node.pk]


def _state(
    node: GraphNode,
    current_facts: list[FactOut],
    historical_facts: list[FactOut],
    edge_list: list[EdgeOut],
) -> NodeStateOut:
    items: list[Sourced] = [*current_facts, *historical_facts, *edge_list]
    provenance = sorted({i for item in items for i in item.source_event_ids})
    return NodeStateOut.model_construct(
        node=node_out(node, {f.key: f.value for f in current_facts}),
        current_facts=current_facts,
        historical_facts=historical_facts,
        edges=edge_list,
        provenance_event_ids=provenance,
    )


def graph_nodes(namespace: Namespace, as_of: AsOf | None = None) -> list[NodeStateOut]:
    """Every node of the namespace with its state, by id; five queries."""
    nodes = list(GraphNode.objects.filter(namespace=namespace).order_by("pk"))
    states = node_states(nodes, as_of)
    return [states[node.pk] for node in nodes]


def graph_networkx(
    namespace: Namespace, *, include_historical: bool = False, as_of: AsOf | None = None
) -> nx.MultiDiGraph:
    """Nodes (name, type) and visible edges (keyed by id, with relation and state) as a
    networkx graph, for neighbourhoods, paths, importance and the graph page. Three queries:
    nodes, edges (only the columns the state rule reads), and the namespace's edge sources."""
    graph: nx.MultiDiGraph = nx.MultiDiGraph()
    for pk, name, node_type in GraphNode.objects.filter(namespace=namespace).values_list(
        "pk", "name", "node_type"
    ):
        graph.add_node(pk, name=name, type=node_type)
    edges = list(
        GraphEdge.objects.filter(namespace=namespace).values(
            "from_node_id", "to_node_id", "relation", *validity_columns(as_of)
        )
    )
    sources = source_statuses(GraphEdge, namespace=namespace)
    states = item_states(edges, as_of, sources=sources)
    for row in edges:
        state = states[row["id"]]
        if state == CURRENT or (include_historical and state == HISTORICAL):
            graph.add_edge(
                row["from_node_id"],
                row["to_node_id"],
                key=row["id"],
                relation=row["relation"],
                state=state,
            )
    return graph


def node_neighbours(
    node: GraphNode, *, depth: int = 1, as_of: AsOf | None = None
) -> list[NeighbourOut]:
    graph = graph_networkx(node.namespace, include_historical=True, as_of=as_of)
    if node.pk not in graph:
        return []
    reach = nx.single_source_shortest_path_length(
        graph.to_undirected(as_view=True), node.pk, cutoff=depth
    )
    return [
        NeighbourOut.model_construct(
            id=other,
            name=redact(graph.nodes[other]["name"]),
            type=graph.nodes[other]["type"],
            distance=distance,
        )
        for other, distance in sorted(reach.items(), key=lambda kv: (kv[1], kv[0]))
        if other != node.pk
    ]
