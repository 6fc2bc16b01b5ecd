"""Graph search (SPEC §8.5): nodes by BM25, each saying whether the query met its current state,
its history, or both, with bounded facts and edges, ≤ 6 provenance events and a small timeline.

A hit's `match_type` compares the query's terms with the node's current and historical facts and
neighbours; a match on name, aliases, tags or type alone follows the node's state (current when it
has any current fact or edge, else historical). Reads only:
`services.retrieval_graph.graph_search` records every node, shown fact and timeline event as
a ref of the agent's batch.
"""

from __future__ import annotations

from dataclasses import dataclass

from memory import search
from memory.engine.graph_state import CURRENT, AsOf
from memory.models import Event, GraphNode, Namespace
from memory.models.rows import read_by_id
from memory.recall.query import validate_limit, validate_query
from memory.search.text import analyze
from memory.selectors.events import TimelineEntryOut, timeline_entry
from memory.selectors.graph import FactOut, NodeStateOut, Sourced, node_states

MAX_FACTS = 8  # per list (current, historical)
MAX_EDGES = 12
PROVENANCE_LIMIT = 6  # notes §8.7 GRAPH_PROVENANCE_LIMIT


@dataclass(frozen=True)
class GraphSearch:
    query: str
    limit: int | None = None
    session_id: str | None = None
    as_of: AsOf | None = None


@dataclass(frozen=True)
class GraphHit:
    node: GraphNode
    score: float
    match_type: str
    state: NodeStateOut
    provenance_event_ids: list[int]
    timeline: list[TimelineEntryOut]


def _fact_text(fact: FactOut) -> str:
    return f"{fact.key.replace('_', ' ')} {fact.value}"


def match_type(query_terms: set[str], node_id: int, state: NodeStateOut) -> str:
    """current | historical | both, from where the query's terms occur in the node's state."""
    current = {
        t
        for text in [
            *(_fact_text(f) for f in state.current_facts),
            *(e.other_end(node_id)[1] for e in state.current_edges),
        ]
        for t in analyze(text)
    }
    historical = {
        t
        for text in [
            *(_fact_text(f) for f in state.historical_facts),
            *(e.other_end(node_id)[1] for e in state.historical_edges),
        ]
        for t in analyze(text)
    }
    in_current, in_history = bool(query_terms & current), bool(query_terms & historical)
    if in_current and in_history:
        return "both"
    if in_current:
        return "current"
    if in_history:
        return "historical"
    return "current" if state.current_facts or state.current_edges else "historical"


def _bounded(state: NodeStateOut) -> NodeStateOut:
    edges = sorted(state.edges, key=lambda e: (e.state != CURRENT, -e.id))
    return state.model_copy(
        update={
            "current_facts": state.current_facts[-MAX_FACTS:],
            "historical_facts": state.historical_facts[-MAX_FACTS:],
            "edges": edges[:MAX_EDGES],
        }
    )


def _provenance(state: NodeStateOut) -> list[int]:
    """≤ 6 events, those behind the current state first, newest first within each group."""
    current: list[Sourced] = [*state.current_facts, *state.current_edges]
    rest: list[Sourced] = [*state.historical_facts, *state.edges]
    groups = [
        sorted({i for item in items for i in item.source_event_ids}, reverse=True)
        for items in (current, rest)
    ]
    chosen: list[int] = []
    for group in groups:
        for event_id in group:
            if event_id not in chosen and len(chosen) < PROVENANCE_LIMIT:
                chosen.append(event_id)
    return chosen


def graph_rank(*, namespace: Namespace, params: GraphSearch) -> list[GraphHit]:
    """Graph nodes by BM25 with their bounded state, provenance and timeline (SPEC §8.5).
    Reads only: no batch, nothing recorded (the UI's search uses this directly)."""
    validate_query(params.query)
    limit = validate_limit(params.limit, default=8)
    hits = (
        search.search_nodes(namespace.pk, params.query, limit=limit * 3)
        if params.query.strip()
        else []
    )
    nodes = read_by_id(GraphNode, [h.object_id for h in hits])
    ranked = [
        (h, nodes[h.object_id]) for h in sorted(hits, key=lambda h: h.rank) if h.object_id in nodes
    ]
    terms = set(analyze(params.query))
    found: list[tuple[GraphNode, float, str, NodeStateOut, list[int]]] = []
    while ranked and len(found) < limit:
        # States load `limit` nodes at a time in rank order: ≤ 3 rounds of 4 queries per call.
        window, ranked = ranked[:limit], ranked[limit:]
        states = node_states((node for _, node in window), params.as_of)
        for text_hit, node in window:
            if len(found) >= limit:
                break
            state = states[node.pk]
            if not state.visible:
                continue  # every source forgotten/archived, or not yet valid as of that point
            bounded = _bounded(state)
            kind = match_type(terms, node.pk, state)
            found.append((node, text_hit.score, kind, bounded, _provenance(bounded)))
    events = read_by_id(Event, [i for *_, provenance in found for i in provenance])
    hits_out: list[GraphHit] = []
    for node, score, kind, state, provenance in found:
        shown = sorted(
            (events[i] for i in provenance if i in events),
            key=lambda e: (e.happened_start or e.happened_end or e.mentioned_at, e.pk),
        )
        timeline = [timeline_entry(e) for e in shown]
        hits_out.append(GraphHit(node, score, kind, state, provenance, timeline))
    return hits_out
