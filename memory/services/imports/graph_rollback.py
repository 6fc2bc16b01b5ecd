"""The graph side of an import: queue projection at commit, take it back out at undo.

At commit the projection is only queued (GRAPH_PROJECT jobs, batches of 8, as extraction does),
but its proposal is deterministic given the events, so commit also records which nodes it will
touch and their aliases/tags as they are now — the one thing projection changes in place that
undo cannot otherwise tell apart.

At undo, for the events being removed (SPEC §11.5):
- facts and edges citing only them are deleted; others just lose those sources;
- a fact or edge that one of the deleted ones had *closed* (superseded, valid_to set to the
  deleted one's valid_from by `graph_apply`) is reopened, unless another current item now holds
  the slot — so "pnpm" imported and undone leaves "npm" current again;
- nodes left with no sources, facts or edges are deleted; surviving touched nodes lose the
  aliases/tags the import's projection added (from the commit snapshot).
Must run inside the caller's transaction, before the events are deleted.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from django.db.models import Q

from memory.models import Event, GraphEdge, GraphFact, GraphItemStatus, GraphNode, JobKind
from memory.services.graph import PROJECTION_BATCH, graph_propose
from memory.services.jobs import job_create


def graph_jobs_queue(*, namespace_id: int, events: Sequence[Event]) -> dict[str, Any]:
    """Queue projection for `events`; return the job ids and the node snapshot for undo."""
    ordered = sorted(events, key=lambda e: (e.formed_turn, e.pk))
    job_ids: list[int] = []
    proposed: dict[str, dict[str, list[str]]] = {}
    for start in range(0, len(ordered), PROJECTION_BATCH):
        batch = ordered[start : start + PROJECTION_BATCH]
        job = job_create(
            namespace_id=namespace_id,
            kind=JobKind.GRAPH_PROJECT,
            payload={"event_ids": [e.pk for e in batch]},
        )
        job_ids.append(job.pk)
        for node in graph_propose(list(batch)).nodes:
            seen = proposed.setdefault(node.key, {"aliases": [], "tags": []})
            seen["aliases"] = list(dict.fromkeys([*seen["aliases"], *node.aliases]))
            seen["tags"] = list(dict.fromkeys([*seen["tags"], *node.tags]))
    existing = GraphNode.objects.filter(namespace_id=namespace_id, key__in=list(proposed))
    snapshot = {n.key: {"aliases": list(n.aliases), "tags": list(n.tags)} for n in existing}
    return {
        "graph_job_ids": job_ids,
        "graph_nodes": {
            key: {"proposed": value, "before": snapshot.get(key)} for key, value in proposed.items()
        },
    }


def _closer_matches(row: GraphFact | GraphEdge, closer: dict[str, Any]) -> bool:
    """Did `closer` (a deleted item) close `row`? `_close` sets valid_to = max(start, from)."""
    return (
        row.status == GraphItemStatus.SUPERSEDED
        and row.valid_to == max(closer["valid_from"], row.valid_from)
        and row.valid_to_turn == max(closer["valid_from_turn"], row.valid_from_turn)
    )


def _reopen(rows: list[GraphFact] | list[GraphEdge], closers: list[dict[str, Any]]) -> None:
    if any(r.status == GraphItemStatus.ACTIVE for r in rows):
        return  # the slot has a current value that did not come from the removed events
    for row in rows:
        if any(_closer_matches(row, c) for c in closers):
            row.status = GraphItemStatus.ACTIVE
            row.valid_to = None
            row.valid_to_turn = None
            row.save(update_fields=["status", "valid_to", "valid_to_turn"])


def _sources_left(
    model: type[GraphFact] | type[GraphEdge] | type[GraphNode], ids: list[int], removed: set[int]
) -> set[int]:
    through = model.source_events.through
    owner = f"{model._meta.model_name}_id"
    return set(
        through.objects.filter(**{f"{owner}__in": ids})
        .exclude(event_id__in=removed)
        .values_list(owner, flat=True)
    )


def _detach_facts(namespace_id: int, removed: set[int]) -> tuple[set[int], set[int]]:
    facts = list(
        GraphFact.objects.filter(namespace_id=namespace_id, source_events__in=removed).distinct()
    )
    keep = _sources_left(GraphFact, [f.pk for f in facts], removed)
    doomed = [f for f in facts if f.pk not in keep]
    GraphFact.source_events.through.objects.filter(
        graphfact_id__in=[f.pk for f in facts], event_id__in=removed
    ).delete()
    slots: dict[tuple[int, str], list[dict[str, Any]]] = {}
    for fact in doomed:
        slots.setdefault((fact.node_id, fact.key), []).append(
            {"valid_from": fact.valid_from, "valid_from_turn": fact.valid_from_turn}
        )
    GraphFact.objects.filter(pk__in=[f.pk for f in doomed]).delete()
    for (node_id, key), closers in slots.items():
        _reopen(list(GraphFact.objects.filter(node_id=node_id, key=key).order_by("pk")), closers)
    return {f.node_id for f in facts}, {f.pk for f in doomed}


def _edge_slot(edge: GraphEdge) -> Q:
    if edge.exclusivity_key:
        return Q(from_node_id=edge.from_node_id, exclusivity_key=edge.exclusivity_key)
    return Q(from_node_id=edge.from_node_id, to_node_id=edge.to_node_id, relation=edge.relation)


def _detach_edges(namespace_id: int, removed: set[int]) -> set[int]:
    edges = list(
        GraphEdge.objects.filter(namespace_id=namespace_id, source_events__in=removed).distinct()
    )
    keep = _sources_left(GraphEdge, [e.pk for e in edges], removed)
    doomed = [e for e in edges if e.pk not in keep]
    GraphEdge.source_events.through.objects.filter(
        graphedge_id__in=[e.pk for e in edges], event_id__in=removed
    ).delete()
    GraphEdge.objects.filter(pk__in=[e.pk for e in doomed]).delete()
    for edge in doomed:
        closers = [{"valid_from": edge.valid_from, "valid_from_turn": edge.valid_from_turn}]
        rows = list(GraphEdge.objects.filter(_edge_slot(edge)).order_by("pk"))
        _reopen(rows, closers)
    return {n for e in edges for n in (e.from_node_id, e.to_node_id)}


def _restore_node_labels(node: GraphNode, entry: dict[str, Any]) -> None:
    before, proposed = entry.get("before"), entry.get("proposed") or {}
    if before is None:
        return
    aliases = [
        a for a in node.aliases if a in before["aliases"] or a not in proposed.get("aliases", [])
    ]
    tags = [t for t in node.tags if t in before["tags"] or t not in proposed.get("tags", [])]
    if (aliases, tags) != (node.aliases, node.tags):
        node.aliases, node.tags = aliases, tags
        node.save(update_fields=["aliases", "tags"])


def graph_detach_events(
    *, namespace_id: int, removed: set[int], node_snapshot: dict[str, Any] | None = None
) -> tuple[set[int], set[int], set[int]]:
    """Take `removed` events out of the graph. Returns (touched node ids, deleted fact ids,
    deleted node ids) so callers can re-index nodes and clean receipts."""
    if not removed:
        return set(), set(), set()
    touched, deleted_facts = _detach_facts(namespace_id, removed)
    touched |= _detach_edges(namespace_id, removed)
    nodes = list(
        GraphNode.objects.filter(namespace_id=namespace_id, source_events__in=removed).distinct()
    )
    GraphNode.source_events.through.objects.filter(
        graphnode_id__in=[n.pk for n in nodes], event_id__in=removed
    ).delete()
    touched |= {n.pk for n in nodes}
    deleted_nodes: set[int] = set()
    for node in GraphNode.objects.filter(pk__in=touched):
        bare = (
            not node.source_events.exists()
            and not node.facts.exists()
            and not node.edges_out.exists()
            and not node.edges_in.exists()
        )
        if bare:
            deleted_nodes.add(node.pk)
            node.delete()
        elif node_snapshot and node.key in node_snapshot:
            _restore_node_labels(node, node_snapshot[node.key])
    return touched, deleted_facts, deleted_nodes
