"""What the Memory UI's graph page shows: a pruned, importance-ranked slice of the graph plus the
neighbourhoods asked for (SPEC §13.4: responsive at 2,000 nodes), and one node with its facts,
edges, provenance events and their source messages. Read-only: nothing here records a retrieval
batch or touches weights (the API's node expansion does; a person browsing must not).

Every function reads a fixed number of queries however large the namespace. Ranking needs the
whole graph, so it is read as plain rows (ids, relation, validity, source statuses) and their
states read by `selectors.graph_state` for the whole namespace at once; per-node state
(`node_states`) is only built for the one node a page shows.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

import networkx as nx

from memory.engine.gate import Ref
from memory.engine.graph_state import CURRENT, HIDDEN, HISTORICAL, AsOf
from memory.engine.redact import redact
from memory.models import Event, GraphFact, GraphNode, Namespace
from memory.search import search_nodes
from memory.selectors.events import EventOut, events_by_ids
from memory.selectors.graph import (
    EdgeOut,
    FactOut,
    NeighbourOut,
    NodeStateOut,
    graph_networkx,
    node_get,
    node_state,
)
from memory.selectors.graph_state import item_states, source_statuses, validity_columns
from memory.selectors.messages import MessageOut, messages_by_ids
from memory.selectors.out import Out

DEFAULT_NODES = 150
MAX_NODES = 500
MAX_FOCUS = 20  # neighbourhoods kept on one canvas (each is one `focus` in the URL)
MAX_NEIGHBOURHOOD = 300  # nodes one neighbourhood may add (a hub's depth-2 reach is huge)
SEARCH_CANDIDATES = 20
# A node page lists at most this much (a tool used by 500 projects has 500 edges and events).
EDGES_SHOWN = 50  # per state (current, historical)
NEIGHBOURS_SHOWN = 60
EVENTS_SHOWN = 20  # newest provenance events, each with a few source messages
MESSAGES_PER_EVENT = 3


@dataclass(frozen=True)
class GraphQuery:
    """What the page asks for; the view parses it from the query string."""

    limit: int = DEFAULT_NODES
    history: bool = False
    as_of: AsOf | None = None
    focus: tuple[int, ...] = ()
    depth: int = 1
    search: str = ""


class ViewNodeOut(Out):
    id: int
    name: str
    type: str
    degree: int  # edges in + out in the graph shown (current, or with history)
    current_facts: int
    historical_facts: int
    rank: int  # 1 = most important; the top `limit` are shown without asking
    distance: int | None = None  # hops from the nearest focused node, when reached through one


class ViewEdgeOut(Out):
    id: int
    from_: int
    to: int
    relation: str
    state: str  # current | historical


class GraphViewOut(Out):
    nodes: list[ViewNodeOut]  # most important first, then neighbourhood nodes
    edges: list[ViewEdgeOut]
    total_nodes: int  # nodes visible in this view (current state, or with history / as of)
    focus: list[int]  # focused nodes actually shown (unknown or hidden ones are left out)
    search_hit: int | None  # the node a search focused, if any matched

    @property
    def shown_nodes(self) -> int:
        return len(self.nodes)


# --- the whole graph as plain rows ---------------------------------------------------------------


def _fact_counts(namespace: Namespace, as_of: AsOf | None) -> tuple[Counter[int], Counter[int]]:
    """Current and historical fact counts per node id, in two queries."""
    sources = source_statuses(GraphFact, namespace=namespace)
    facts = list(
        GraphFact.objects.filter(namespace=namespace).values("node_id", *validity_columns(as_of))
    )
    states = item_states(facts, as_of, sources=sources)
    current: Counter[int] = Counter()
    historical: Counter[int] = Counter()
    for row in facts:
        state = states[row["id"]]
        if state == CURRENT:
            current[row["node_id"]] += 1
        elif state == HISTORICAL:
            historical[row["node_id"]] += 1
    return current, historical


def _neighbourhood(graph: nx.MultiDiGraph, node_id: int, depth: int) -> dict[int, int]:
    """Node id → hops within `depth` (edge direction ignored), nearest and most connected
    first, at most MAX_NEIGHBOURHOOD nodes besides the centre."""
    reach = nx.single_source_shortest_path_length(
        graph.to_undirected(as_view=True), node_id, cutoff=depth
    )
    ordered = sorted(reach.items(), key=lambda kv: (kv[1], -graph.degree(kv[0]), kv[0]))
    return dict(ordered[: MAX_NEIGHBOURHOOD + 1])


def _search_hit(namespace: Namespace, text: str, visible: set[int]) -> int | None:
    """The best-ranked node matching `text` that this view shows (full text, read-only)."""
    for hit in search_nodes(namespace.pk, text, limit=SEARCH_CANDIDATES):
        if hit.object_id in visible:
            return hit.object_id
    return None


def graph_view(namespace: Namespace, query: GraphQuery) -> GraphViewOut:
    """The top `limit` visible nodes by degree (ties: more current facts, then older nodes) and
    the neighbourhoods of `focus` (and of the best search hit), with the edges between them.

    A node is visible when it has a visible fact or edge in this view: current state by
    default, historical items too with `history`, the validity intervals with `as_of`."""
    graph = graph_networkx(namespace, include_historical=query.history, as_of=query.as_of)
    current, historical = _fact_counts(namespace, query.as_of)
    degree = dict(graph.degree())
    visible = {n for n in graph if degree[n] or current[n] or (query.history and historical[n])}
    ranked = sorted(visible, key=lambda n: (-degree[n], -current[n], n))
    rank = {n: i for i, n in enumerate(ranked, start=1)}
    shown: dict[int, int | None] = dict.fromkeys(ranked[: max(0, query.limit)])

    search_hit = _search_hit(namespace, query.search, visible) if query.search.strip() else None
    focus = [n for n in dict.fromkeys(query.focus) if n in visible][:MAX_FOCUS]
    if search_hit is not None and search_hit not in focus:
        focus.append(search_hit)
    for centre in focus:
        for node_id, distance in _neighbourhood(graph, centre, query.depth).items():
            known = shown.get(node_id)
            shown[node_id] = distance if known is None else min(known, distance)

    nodes = [
        ViewNodeOut.model_construct(
            id=n,
            name=redact(graph.nodes[n]["name"]),
            type=graph.nodes[n]["type"],
            degree=degree[n],
            current_facts=current[n],
            historical_facts=historical[n],
            rank=rank[n],
            distance=distance,
        )
        for n, distance in shown.items()
    ]
    edges = sorted(
        (
            ViewEdgeOut.model_construct(
                id=key, from_=origin, to=target, relation=data["relation"], state=data["state"]
            )
            for origin, target, key, data in graph.subgraph(shown).edges(keys=True, data=True)
        ),
        key=lambda e: e.id,
    )
    return GraphViewOut.model_construct(
        nodes=nodes, edges=edges, total_nodes=len(visible), focus=focus, search_hit=search_hit
    )


# --- one node ------------------------------------------------------------------------------------


class ProvenanceOut(Out):
    """A source event of the node's facts or edges, with a few of its source messages."""

    event: EventOut
    messages: list[MessageOut]
    more_messages: int  # source messages not shown here (the event page has them all)


@dataclass(frozen=True)
class SourceRef:
    id: int
    title: str


@dataclass(frozen=True)
class FactRow:
    fact: FactOut
    sources: list[SourceRef]


@dataclass(frozen=True)
class EdgeRow:
    """An edge seen from the node a page shows: which way it points and who is at the other end."""

    edge: EdgeOut
    outgoing: bool
    other_id: int
    other_name: str
    sources: list[SourceRef]


@dataclass(frozen=True)
class Listed[T]:
    """The first rows of a list a page caps, and how many there are in all."""

    rows: list[T]
    total: int

    @property
    def more(self) -> int:
        return self.total - len(self.rows)


class NodeDetailOut(Out):
    state: NodeStateOut
    neighbours: list[NeighbourOut]  # one hop over current and historical edges, by id
    provenance: list[ProvenanceOut]  # newest first, at most EVENTS_SHOWN
    event_titles: dict[int, str]  # every source event id → its (redacted) title

    def _sources(self, ids: list[int]) -> list[SourceRef]:
        return [SourceRef(i, self.event_titles.get(i, str(Ref.event(i)))) for i in ids]

    def _facts(self, facts: list[FactOut]) -> list[FactRow]:
        return [FactRow(f, self._sources(f.source_event_ids)) for f in facts]

    def _edges(self, state: str) -> Listed[EdgeRow]:
        me = self.state.node.id
        edges = [e for e in self.state.edges if e.state == state]
        rows = []
        for edge in edges[:EDGES_SHOWN]:
            other_id, other_name = edge.other_end(me)
            sources = self._sources(edge.source_event_ids)
            rows.append(EdgeRow(edge, edge.from_ == me, other_id, other_name, sources))
        return Listed(rows, len(edges))

    @property
    def current_facts(self) -> list[FactRow]:
        return self._facts(self.state.current_facts)

    @property
    def historical_facts(self) -> list[FactRow]:
        return self._facts(self.state.historical_facts)

    @property
    def current_edges(self) -> Listed[EdgeRow]:
        return self._edges(CURRENT)

    @property
    def historical_edges(self) -> Listed[EdgeRow]:
        return self._edges(HISTORICAL)

    @property
    def neighbours_shown(self) -> Listed[NeighbourOut]:
        return Listed(self.neighbours[:NEIGHBOURS_SHOWN], len(self.neighbours))

    @property
    def more_events(self) -> int:
        return len(self.state.provenance_event_ids) - len(self.provenance)


def _provenance(namespace: Namespace, event_ids: list[int]) -> list[ProvenanceOut]:
    """The newest EVENTS_SHOWN events with their first few source messages (four queries)."""
    ids = sorted(event_ids, reverse=True)[:EVENTS_SHOWN]
    events = events_by_ids(namespace, ids, current_turn=namespace.current_turn)
    wanted = {m for e in events.values() for m in e.source_message_ids[:MESSAGES_PER_EVENT]}
    messages = {m.id: m for m in messages_by_ids(wanted)}
    return [
        ProvenanceOut.model_construct(
            event=event,
            messages=[messages[m] for m in event.source_message_ids[:MESSAGES_PER_EVENT]],
            more_messages=max(0, len(event.source_message_ids) - MESSAGES_PER_EVENT),
        )
        for event in (events[i] for i in ids if i in events)
    ]


def _neighbours(state: NodeStateOut) -> list[NeighbourOut]:
    """What `selectors.graph.node_neighbours(node, depth=1)` returns, read off the node's own
    visible edges (the same set: one hop over current and historical edges) plus one query for
    the types, instead of loading the namespace's whole graph for every node page."""
    me = state.node.id
    names = dict(e.other_end(me) for e in state.edges)
    names.pop(me, None)  # a self-loop is not a neighbour
    types = dict(GraphNode.objects.filter(pk__in=list(names)).values_list("pk", "node_type"))
    return [
        NeighbourOut.model_construct(id=pk, name=names[pk], type=types.get(pk, ""), distance=1)
        for pk in sorted(names)
    ]


def node_detail(namespace: Namespace, node_id: int, *, as_of: AsOf | None = None) -> NodeDetailOut:
    """One node as the node page shows it. Raises NotFound `node_not_found`. Read-only."""
    node = node_get(namespace, node_id)
    state = node_state(node, as_of)
    titles = dict(
        Event.objects.filter(namespace=namespace, pk__in=state.provenance_event_ids).values_list(
            "pk", "title"
        )
    )
    return NodeDetailOut.model_construct(
        state=state,
        neighbours=_neighbours(state),
        provenance=_provenance(namespace, state.provenance_event_ids),
        event_titles={pk: redact(title) for pk, title in titles.items()},
    )


__all__ = [
    "CURRENT",
    "DEFAULT_NODES",
    "HIDDEN",
    "HISTORICAL",
    "MAX_FOCUS",
    "MAX_NODES",
    "EdgeRow",
    "FactRow",
    "GraphQuery",
    "GraphViewOut",
    "Listed",
    "NodeDetailOut",
    "ProvenanceOut",
    "SourceRef",
    "ViewEdgeOut",
    "ViewNodeOut",
    "graph_view",
    "node_detail",
]
