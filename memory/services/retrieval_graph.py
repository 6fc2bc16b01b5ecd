"""Graph search as the agent's batch (SPEC §8.5): `recall.graph.graph_rank`, with every node,
shown fact and timeline event recorded as a ref the agent may cite."""

from __future__ import annotations

from memory.engine.gate import Ref
from memory.models import Namespace
from memory.recall.graph import GraphHit, GraphSearch, graph_rank
from memory.services.batches import BatchEntry, batch_create, caller_session
from memory.services.retrieval import Found, Shown


def graph_search(*, namespace: Namespace, params: GraphSearch) -> Found[GraphHit]:
    """`graph_rank`, recorded as the agent's batch: every node, shown fact and timeline event
    becomes a ref the agent may cite."""
    hits = graph_rank(namespace=namespace, params=params)
    session = caller_session(namespace, params.session_id)
    entries: list[BatchEntry] = []
    shown: list[Shown[GraphHit]] = []
    for hit in hits:
        node = BatchEntry(
            target=Ref.node(hit.node.pk),
            score=hit.score,
            events=tuple(e.id for e in hit.timeline),
        )
        entries.append(node)
        shown.append(Shown(node.ref, hit))
        for fact in [*hit.state.current_facts, *hit.state.historical_facts]:
            entries.append(
                BatchEntry(
                    target=Ref.fact(fact.id),
                    score=hit.score,
                    events=tuple(fact.source_event_ids),
                )
            )
        for entry in hit.timeline:
            entries.append(
                BatchEntry(
                    target=Ref.event(entry.id),
                    score=hit.score,
                    events=(entry.id,),
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
    return Found(batch=batch, shown=shown)
