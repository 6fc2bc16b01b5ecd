"""Graph search (SPEC §8.5): nodes by BM25, each saying whether the query met its current state,
its history, or both, with bounded facts and edges, ≤ 6 provenance events and a small timeline.

A hit's `match_type` compares the query's terms with the node's current and historical facts and
neighbours; a match on name, aliases, tags or type alone follows the node's state (current when it
has any current fact or edge, else historical). Every node, shown fact and timeline event becomes
a ref of the batch, so the agent can cite exactly what it used.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from memory import search
from memory.engine.redact import redact
from memory.models import Event, GraphNode, Namespace, RefKind
from memory.search.text import analyze
from memory.selectors.graph import AsOf, node_states
from memory.services.batches import (
    BatchEntry,
    batch_create,
    caller_session,
    validate_limit,
    validate_query,
)
from memory.services.retrieval import Found

MAX_FACTS = 8  # per list (current, historical)
MAX_EDGES = 12
PROVENANCE_LIMIT = 6  # notes §8.7 GRAPH_PROVENANCE_LIMIT
TIMELINE_SUMMARY_CHARS = 200


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
    state: dict[str, Any]
    provenance_event_ids: list[int]
    timeline: list[dict[str, Any]]


def _fact_text(fact: dict[str, Any]) -> str:
    return f"{str(fact['key']).replace('_', ' ')} {fact['value']}"


def _edge_text(edge: dict[str, Any], node_id: int) -> str:
    return str(edge["to_name"] if edge["from"] == node_id else edge["from_name"])


def match_type(query_terms: set[str], node_id: int, state: dict[str, Any]) -> str:
    """current | historical | both, from where the query's terms occur in the node's state."""
    current_edges = [e for e in state["edges"] if e["state"] == "current"]
    historical_edges = [e for e in state["edges"] if e["state"] == "historical"]
    current = {
        t
        for text in [
            *(_fact_text(f) for f in state["current_facts"]),
            *(_edge_text(e, node_id) for e in current_edges),
        ]
        for t in analyze(text)
    }
    historical = {
        t
        for text in [
            *(_fact_text(f) for f in state["historical_facts"]),
            *(_edge_text(e, node_id) for e in historical_edges),
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
    return "current" if state["current_facts"] or current_edges else "historical"


def _bounded(state: dict[str, Any]) -> dict[str, Any]:
    edges = sorted(state["edges"], key=lambda e: (e["state"] != "current", -e["id"]))
    return {
        **state,
        "current_facts": state["current_facts"][-MAX_FACTS:],
        "historical_facts": state["historical_facts"][-MAX_FACTS:],
        "edges": edges[:MAX_EDGES],
    }


def _provenance(state: dict[str, Any]) -> list[int]:
    """≤ 6 events, those behind the current state first, newest first within each group."""
    current = [
        i
        for item in [
            *state["current_facts"],
            *(e for e in state["edges"] if e["state"] == "current"),
        ]
        for i in item["source_event_ids"]
    ]
    rest = [
        i
        for item in [*state["historical_facts"], *state["edges"]]
        for i in item["source_event_ids"]
    ]
    chosen: list[int] = []
    for group in (sorted(set(current), reverse=True), sorted(set(rest), reverse=True)):
        for event_id in group:
            if event_id not in chosen and len(chosen) < PROVENANCE_LIMIT:
                chosen.append(event_id)
    return chosen


def timeline_entry(event: Event) -> dict[str, Any]:
    when: datetime = event.happened_start or event.happened_end or event.mentioned_at
    return {
        "id": event.pk,
        "ref": f"event:{event.pk}",
        "title": redact(event.title),
        "summary": redact(event.summary[:TIMELINE_SUMMARY_CHARS]),
        "event_type": event.event_type,
        "status": event.status,
        "temporal_status": event.temporal_status,
        "time": when,
        "time_basis": "occurrence" if event.happened_start or event.happened_end else "mention",
    }


def _visible(state: dict[str, Any]) -> bool:
    return bool(state["current_facts"] or state["historical_facts"] or state["edges"])


def graph_search(*, namespace: Namespace, params: GraphSearch) -> Found[GraphHit]:
    """Search graph nodes and record the batch (SPEC §8.5). Reads only, apart from the batch."""
    validate_query(params.query)
    limit = validate_limit(params.limit, default=8)
    session = caller_session(namespace, params.session_id)
    hits = (
        search.search_nodes(namespace.pk, params.query, limit=limit * 3)
        if params.query.strip()
        else []
    )
    nodes = GraphNode.objects.in_bulk([h.object_id for h in hits])
    ranked = [
        (h, nodes[h.object_id]) for h in sorted(hits, key=lambda h: h.rank) if h.object_id in nodes
    ]
    terms = set(analyze(params.query))
    found: list[GraphHit] = []
    while ranked and len(found) < limit:
        # States load `limit` nodes at a time in rank order: ≤ 3 rounds of 4 queries per call.
        window, ranked = ranked[:limit], ranked[limit:]
        states = node_states((node for _, node in window), params.as_of)
        for text_hit, node in window:
            if len(found) >= limit:
                break
            state = states[node.pk]
            if not _visible(state):
                continue  # every source forgotten/archived, or not yet valid as of that point
            kind = match_type(terms, node.pk, state)
            bounded = _bounded(state)
            provenance = _provenance(bounded)
            found.append(GraphHit(node, text_hit.score, kind, bounded, provenance, []))
    events = Event.objects.in_bulk([i for h in found for i in h.provenance_event_ids])
    hits_out: list[GraphHit] = []
    entries: list[BatchEntry] = []
    for hit in found:
        shown = sorted(
            (events[i] for i in hit.provenance_event_ids if i in events),
            key=lambda e: (e.happened_start or e.happened_end or e.mentioned_at, e.pk),
        )
        timeline = [timeline_entry(e) for e in shown]
        hits_out.append(
            GraphHit(
                hit.node, hit.score, hit.match_type, hit.state, hit.provenance_event_ids, timeline
            )
        )
        entries.append(
            BatchEntry(
                ref=f"node:{hit.node.pk}",
                kind=RefKind.NODE,
                object_id=hit.node.pk,
                score=hit.score,
                events=tuple(e.pk for e in shown),
            )
        )
        for fact in [*hit.state["current_facts"], *hit.state["historical_facts"]]:
            entries.append(
                BatchEntry(
                    ref=f"fact:{fact['id']}",
                    kind=RefKind.FACT,
                    object_id=fact["id"],
                    score=hit.score,
                    events=tuple(fact["source_event_ids"]),
                )
            )
        for event in shown:
            entries.append(
                BatchEntry(
                    ref=f"event:{event.pk}",
                    kind=RefKind.EVENT,
                    object_id=event.pk,
                    score=hit.score,
                    events=(event.pk,),
                )
            )
    batch = batch_create(
        namespace=namespace,
        session=session,
        tool="search_graph",
        query=params.query,
        params={
            "limit": params.limit,
            "as_of": {
                "turn": params.as_of.turn,
                "at": params.as_of.at.isoformat() if params.as_of.at else None,
            }
            if params.as_of
            else None,
        },
        entries=entries,
    )
    return Found(batch=batch, hits=hits_out)
