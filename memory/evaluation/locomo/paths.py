"""The retrieval paths the harness measures, each as the ordered source messages it surfaces
for a question: a raw hit is its message; an event hit contributes its source messages in
order; a graph hit the source messages of its provenance events. All of them read only: no
batch is recorded, no weight or `last_retrieved_at` changes, so scoring leaves memory as
ingestion left it."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.db.models import Q

from memory.models import Event, GraphEdge, GraphFact, Namespace
from memory.recall.events import EventSearch, events_rank
from memory.recall.graph import GraphSearch, graph_rank
from memory.recall.messages import dedupe
from memory.recall.raw import RawSearch, raw_rank
from memory.services.activation import activation_build

SEARCH_LIMIT = 20  # the agent API's largest limit

Path = Callable[[Namespace, str], list[int]]


def _event_sources(event_ids: list[int]) -> dict[int, list[int]]:
    through = Event.source_messages.through.objects.filter(event_id__in=event_ids)
    sources: dict[int, list[int]] = {}
    for event_id, message_id in through.values_list("event_id", "message_id"):
        sources.setdefault(event_id, []).append(message_id)
    return {event_id: sorted(ids) for event_id, ids in sources.items()}


def raw_path(namespace: Namespace, question: str) -> list[int]:
    hits = raw_rank(namespace=namespace, params=RawSearch(question, limit=SEARCH_LIMIT))
    return [h.message.pk for h in hits]


def events_path(namespace: Namespace, question: str) -> list[int]:
    hits = events_rank(namespace=namespace, params=EventSearch(question, limit=SEARCH_LIMIT))
    sources = _event_sources([h.event.pk for h in hits])
    return dedupe(m for h in hits for m in sources.get(h.event.pk, []))


def graph_path(namespace: Namespace, question: str) -> list[int]:
    hits = graph_rank(namespace=namespace, params=GraphSearch(question, limit=SEARCH_LIMIT))
    order = dedupe(e for h in hits for e in h.provenance_event_ids)
    sources = _event_sources(order)
    return dedupe(m for e in order for m in sources.get(e, []))


PATHS: dict[str, Path] = {
    "raw": raw_path,
    "events": events_path,
    "graph": graph_path,
    # What the product recommends and uses (search/raw, the context's passages): the message
    # ranking with the sources of the query's event text hits fused in (services.recall);
    # graph sources fused in lost recall (docs/EVALUATION.md).
    "recommended": raw_path,
}


def context_messages(namespace: Namespace, question: str, budget: int) -> list[int]:
    """Source messages inside the context assembled for the question within `budget` tokens,
    asked from a new session: the passages it quotes, then the sources of its events."""
    built = activation_build(
        namespace=namespace, session=None, query=question, budget=budget, record=False
    )
    event_ids = [_id(c) for c in built.events]
    sources = _event_sources(event_ids)
    return dedupe(
        [*(_id(p) for p in built.passages), *(m for e in event_ids for m in sources.get(e, []))]
    )


def activated_items(namespace: Namespace, question: str) -> list[tuple[str, list[int]]]:
    """Each item of the default activated memory as (kind, the source messages behind it): an
    event its sources, a node its provenance events' sources, a passage itself."""
    built = activation_build(namespace=namespace, session=None, query=question, record=False)
    node_events = node_provenance([_id(c) for c in built.nodes])
    event_ids = [_id(c) for c in built.events]
    sources = _event_sources([*event_ids, *(e for ids in node_events.values() for e in ids)])
    return [
        *(("events", sources.get(e, [])) for e in event_ids),
        *(
            ("nodes", dedupe(m for e in node_events.get(_id(c), []) for m in sources.get(e, [])))
            for c in built.nodes
        ),
        *(("passages", [_id(p)]) for p in built.passages),
    ]


def node_provenance(node_ids: list[int]) -> dict[int, list[int]]:
    """node id → the events behind its facts and edges, newest first."""
    out: dict[int, list[int]] = {}
    facts = GraphFact.source_events.through.objects.filter(graphfact__node_id__in=node_ids)
    for node_id, event_id in facts.values_list("graphfact__node_id", "event_id"):
        out.setdefault(node_id, []).append(event_id)
    edges = GraphEdge.source_events.through.objects.filter(
        Q(graphedge__from_node_id__in=node_ids) | Q(graphedge__to_node_id__in=node_ids)
    )
    for a, b, event_id in edges.values_list(
        "graphedge__from_node_id", "graphedge__to_node_id", "event_id"
    ):
        for node_id in (a, b):
            if node_id in node_ids:
                out.setdefault(node_id, []).append(event_id)
    return {k: sorted(set(v), reverse=True) for k, v in out.items()}


def _id(card: dict[str, Any]) -> int:
    return int(str(card["ref"]).split(":", 1)[1])
