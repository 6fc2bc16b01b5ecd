"""Graph projection: apply a batch's proposal (≤ 8 events) to nodes, facts and edges.

The proposal is the model's draft when the block's extraction call gave one (it travels in the
job's payload), else the offline rules'. Imports and `graph_rebuild` project with the rules: the
drafts are not kept once applied, and a rebuild that called the model again could not promise
to reproduce the graph.

History is kept: a new value for a fact key, or a new target for a single-valued relation,
closes the previous one (`superseded`, valid_to set) instead of overwriting it. When nothing
superseded the events behind an old single value, the new value's events supersede them (a
change) or conflict with them (`services.contradictions`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from datetime import datetime

from django.db import transaction
from django.db.models import Q

from memory.engine.offline_graph import ProjectionEvent, project_events
from memory.engine.own_team import (
    BARE_TEAMS,
    TEAM_RELATIONS,
    Team,
    own_team,
    person_key,
    teams_said,
)
from memory.engine.prompts.graph import GraphProposal, edge_exclusivity_key
from memory.engine.short_names import with_full_names, with_service_names
from memory.models import (
    Event,
    GraphEdge,
    GraphFact,
    GraphItemStatus,
    GraphNode,
    JobKind,
    Namespace,
    ProcessingJob,
)
from memory.search import index_nodes, unindex_nodes
from memory.services.contradictions import values_displaced
from memory.services.db import namespace_events_lock
from memory.services.jobs import job_handler
from memory.services.supersession import speaker_of

PROJECTION_BATCH = 8


def _projection_rows(events: list[Event]) -> list[ProjectionEvent]:
    return [
        ProjectionEvent(
            id=e.pk,
            title=e.title,
            summary=e.summary,
            event_type=e.event_type,
            participants=tuple(e.participants),
            happened_start=e.happened_start,
            mentioned_at=e.mentioned_at,
            temporal_status=e.temporal_status,
        )
        for e in events
    ]


def graph_propose(
    events: list[Event],
    *,
    drafted: GraphProposal | None = None,
    teams: Mapping[str, Team] | None = None,
) -> GraphProposal:
    """The batch's proposal: with a model, the items its extraction call drafted for these
    events (`drafted`, see `prompts.graph_draft`); else the deterministic rules. Either way
    restricted so every item's sources lie inside the batch (SPEC §6.2), and "the team" is
    the speaker's own: as `teams` (earlier batches of a rebuild) or the graph says."""
    proposal = drafted if drafted is not None else project_events(_projection_rows(events))
    proposal = proposal.restricted_to({e.pk for e in events})
    if not events:
        return proposal
    namespace_id = events[0].namespace_id
    speakers = {e.pk: person_key(speaker_of(e.participants)) for e in events}
    proposal = with_full_names(
        proposal, lambda starts: _people_named(namespace_id, starts), set(speakers.values())
    )
    proposal = with_service_names(proposal, lambda keys: _nodes_keyed(namespace_id, keys))
    earlier = teams or {}
    return own_team(
        proposal, speakers, lambda person: earlier.get(person) or _team_of(namespace_id, person)
    )


def _nodes_keyed(namespace_id: int, keys: Sequence[str]) -> list[tuple[str, str]]:
    """(key, name) of the namespace's nodes with one of `keys`."""
    rows = GraphNode.objects.filter(namespace_id=namespace_id, key__in=keys)
    return list(rows.values_list("key", "name"))


def _people_named(namespace_id: int, starts: Sequence[str]) -> list[tuple[str, str]]:
    """(key, name) of the namespace's people whose names begin with one of `starts`."""
    begins = Q()
    for start in starts:
        begins |= Q(name__startswith=start)
    rows = GraphNode.objects.filter(begins, namespace_id=namespace_id, node_type="person")
    return list(rows.order_by("pk").values_list("key", "name")[:50])


def _team_of(namespace_id: int, person: str) -> Team | None:
    """The team the namespace's graph says `person` (a node key) leads or belongs to now, the
    latest if several."""
    edge = (
        GraphEdge.objects.filter(
            namespace_id=namespace_id,
            from_node__key=person,
            relation__in=sorted(TEAM_RELATIONS),
            status=GraphItemStatus.ACTIVE,
            to_node__node_type="organization",
        )
        .exclude(to_node__key__in=BARE_TEAMS)
        .select_related("to_node")
        .order_by("-valid_from", "-pk")
        .first()
    )
    if edge is None:
        return None
    return Team(edge.to_node.key, edge.to_node.name, edge.to_node.node_type)


@job_handler(JobKind.GRAPH_PROJECT)
def graph_project_job(job: ProcessingJob) -> None:
    ids = [int(i) for i in job.payload.get("event_ids", [])][:PROJECTION_BATCH]
    events = list(
        Event.objects.filter(namespace_id=job.namespace_id, pk__in=ids).order_by(
            "formed_turn", "pk"
        )
    )
    drafted = job.payload.get("proposal")
    proposal = graph_propose(
        events, drafted=GraphProposal.model_validate(drafted) if drafted is not None else None
    )
    with transaction.atomic():
        graph_apply(namespace_id=job.namespace_id, events=events, proposal=proposal)
        ProcessingJob.objects.filter(pk=job.pk).update(
            progress={"projected_event_ids": [e.pk for e in events]}
        )


def graph_apply(*, namespace_id: int, events: list[Event], proposal: GraphProposal) -> None:
    """Apply `proposal` (sources already restricted to `events`). Idempotent for a batch."""
    by_id = {e.pk: e for e in events}
    # Workers project at the same time (on PostgreSQL): lock the batch's existing nodes first,
    # in id order so two batches cannot deadlock, or both may find no current value for a
    # fact or single-valued edge and both add one. New nodes queue on their unique key. (Only
    # the callers' transaction makes a lock last; every job applies inside one.)
    if transaction.get_connection().in_atomic_block:
        # First the namespace's lock for derived memory (as extraction takes it): a node's
        # search document is rebuilt from what its transaction sees, so two batches touching
        # one node (a neighbour displaced, an event's status changed) must not both rebuild it
        # from a snapshot without the other's change (check_consistency: index_row_stale).
        namespace_events_lock(namespace_id)
        keys = [n.key for n in proposal.nodes]
        locked = GraphNode.objects.select_for_update().filter(
            namespace_id=namespace_id, key__in=keys
        )
        list(locked.order_by("pk").values_list("pk", flat=True))

    def sources(ids: list[int]) -> list[Event]:
        return [by_id[i] for i in ids if i in by_id]

    nodes: dict[str, GraphNode] = {}
    displaced: set[int] = set()  # old targets of closed edges: their neighbours changed
    # Rows closed for a new value, with that value's events: settled once all are closed.
    closed: list[tuple[Sequence[GraphFact | GraphEdge], list[Event]]] = []
    for proposed in proposal.nodes:
        node, created = GraphNode.objects.get_or_create(
            namespace_id=namespace_id,
            key=proposed.key,
            defaults={
                "name": proposed.name,
                "node_type": proposed.type,
                "aliases": proposed.aliases,
                "tags": proposed.tags,
            },
        )
        if not created:
            aliases = list(dict.fromkeys([*node.aliases, *proposed.aliases]))[:20]
            tags = list(dict.fromkeys([*node.tags, *proposed.tags]))[:12]
            if (aliases, tags) != (node.aliases, node.tags):
                node.aliases, node.tags = aliases, tags
                node.save(update_fields=["aliases", "tags"])
        node.source_events.add(*sources(proposed.source_event_ids))
        nodes[proposed.key] = node

    def validity(ids: list[int], proposed_from: datetime | None) -> tuple[datetime, int]:
        cited = sources(ids)
        turn = max(e.formed_turn for e in cited)
        return proposed_from or max(e.mentioned_at for e in cited), turn

    for fact in sorted(proposal.facts, key=lambda f: validity(f.source_event_ids, None)[1]):
        start, turn = validity(fact.source_event_ids, fact.valid_from)
        node = nodes[fact.node_key]
        active = list(
            GraphFact.objects.filter(node=node, key=fact.key, status=GraphItemStatus.ACTIVE)
        )
        current: GraphFact | None = next((r for r in active if r.value == fact.value), None)
        if current is None:
            outdated = _succeeded(active, sources(fact.source_event_ids))
            if not outdated:
                _close(active, start, turn)
                closed.append((active, sources(fact.source_event_ids)))
            current = GraphFact.objects.create(
                namespace_id=namespace_id,
                node=node,
                key=fact.key,
                value=fact.value,
                confidence=fact.confidence,
                valid_from=start,
                valid_from_turn=turn,
                **_history_only(outdated, start, turn),
            )
        current.source_events.add(*sources(fact.source_event_ids))

    made: dict[int, set[int]] = {}  # edges created here → their source events
    for edge in sorted(proposal.edges, key=lambda e: validity(e.source_event_ids, None)[1]):
        start, turn = validity(edge.source_event_ids, edge.valid_from)
        origin, target = nodes[edge.from_key], nodes[edge.to_key]
        exclusive = edge_exclusivity_key(edge.relation, edge.metadata) or ""
        rivals = GraphEdge.objects.filter(from_node=origin, status=GraphItemStatus.ACTIVE)
        if exclusive:
            rivals = rivals.filter(exclusivity_key=exclusive)
        else:
            rivals = rivals.filter(to_node=target, relation=edge.relation)
        active_edges = list(rivals)
        link: GraphEdge | None = next(
            (r for r in active_edges if r.to_node_id == target.pk and r.relation == edge.relation),
            None,
        )
        if link is None and exclusive:
            # "Our mobile apps are written in Kotlin and Swift": values this proposal gives from
            # the same event hold side by side; a later statement (or a new projection of the
            # same event) displaces them.
            said_with = set(edge.source_event_ids)
            active_edges = [r for r in active_edges if not made.get(r.pk, set()) & said_with]
        if link is None:
            outdated = _succeeded(active_edges, sources(edge.source_event_ids))
            if not outdated:
                displaced.update(r.to_node_id for r in active_edges)
                _close(active_edges, start, turn)
                closed.append((active_edges, sources(edge.source_event_ids)))
            link = GraphEdge.objects.create(
                namespace_id=namespace_id,
                from_node=origin,
                to_node=target,
                relation=edge.relation,
                exclusivity_key=exclusive,
                confidence=edge.confidence,
                valid_from=start,
                valid_from_turn=turn,
                metadata=edge.metadata,
                **_history_only(outdated, start, turn),
            )
            made[link.pk] = set(edge.source_event_ids)
        link.source_events.add(*sources(edge.source_event_ids))
    for rows, new_sources in closed:
        values_displaced(closed=rows, new_sources=new_sources)
    index_nodes({*(n.pk for n in nodes.values()), *displaced})  # same transaction (SPEC §8)


def _succeeded(rows: Sequence[GraphFact | GraphEdge], new_sources: Sequence[Event]) -> bool:
    """Whether a current row already stands on an event that superseded the new value's events.

    Occurrence order can disagree with what was said: "I live in Berlin", then "I moved to
    Lisbon in May" said the same June day, applies the May move first. The events say Lisbon
    replaced Berlin, so Berlin must not close Lisbon; it is kept as history instead."""
    later = {e.superseded_by_id for e in new_sources if e.superseded_by_id is not None}
    return bool(later) and any(row.source_events.filter(pk__in=later).exists() for row in rows)


def _history_only(outdated: bool, start: datetime, turn: int) -> dict[str, object]:
    """A value already replaced when it is projected: recorded as history, never current."""
    if not outdated:
        return {}
    return {"status": GraphItemStatus.SUPERSEDED, "valid_to": start, "valid_to_turn": turn}


def _close(rows: Sequence[GraphFact | GraphEdge], start: datetime, turn: int) -> None:
    """End the validity of rows displaced by a new value: history, not deletion."""
    for row in rows:
        row.status = GraphItemStatus.SUPERSEDED
        row.valid_to = max(start, row.valid_from)
        row.valid_to_turn = max(turn, row.valid_from_turn)
        row.save(update_fields=["status", "valid_to", "valid_to_turn"])


def graph_rebuild(
    *, namespace: Namespace, progress: Callable[[int, int], None] | None = None
) -> int:
    """Re-project the namespace's graph from its events, batch by batch, in one transaction.

    What the rebuild gives again keeps its id, so the usage receipts and retrievals that cite
    `node:` and `fact:` refs still point at it: a node keeps its row when its key is proposed
    again (its name and type are the first proposal's, its aliases, tags and sources the new
    ones), and a fact re-made with the same node, key and value takes back the old fact's id
    (the n-th such fact the n-th old one, in validity order). Nodes no proposal names, edges and
    facts are made anew. One transaction: nobody sees a half-built graph, and on SQLite other
    writers wait until it commits. Returns the number of events projected."""
    events = list(Event.objects.filter(namespace=namespace).order_by("formed_turn", "pk"))
    batches = [
        events[start : start + PROJECTION_BATCH]
        for start in range(0, len(events), PROJECTION_BATCH)
    ]
    proposals: list[GraphProposal] = []
    teams: dict[str, Team] = {}  # whose team "the team" is, as the batches before said
    for batch in batches:
        proposals.append(graph_propose(batch, teams=teams))
        teams.update(teams_said(proposals[-1]))
    first: dict[str, tuple[str, str]] = {}
    for proposal in proposals:
        for proposed in proposal.nodes:
            first.setdefault(proposed.key, (proposed.name, proposed.type))
    with transaction.atomic():
        old_facts = _fact_ids_by_content(namespace)
        GraphEdge.objects.filter(namespace=namespace).delete()
        GraphFact.objects.filter(namespace=namespace).delete()
        nodes = list(GraphNode.objects.filter(namespace=namespace).only("pk", "key"))
        gone = [n.pk for n in nodes if n.key not in first]  # read, not a many-key NOT IN
        unindex_nodes(gone)
        for start in range(0, len(gone), 500):
            GraphNode.objects.filter(pk__in=gone[start : start + 500]).delete()
        GraphNode.source_events.through.objects.filter(graphnode__namespace=namespace).delete()
        kept = [n for n in nodes if n.key in first]
        for node in kept:
            node.name, node.node_type = first[node.key]
            node.aliases, node.tags = [], []
        GraphNode.objects.bulk_update(
            kept, ["name", "node_type", "aliases", "tags"], batch_size=500
        )
        done = 0
        for batch, proposal in zip(batches, proposals, strict=True):
            graph_apply(namespace_id=namespace.pk, events=batch, proposal=proposal)
            done += len(batch)
            if progress is not None:
                progress(done, len(events))
        _restore_fact_ids(namespace, old_facts)
    return done


FactContent = tuple[str, str, str]  # node key, fact key, value


def _fact_ids_by_content(namespace: Namespace) -> dict[FactContent, list[int]]:
    """The namespace's fact ids by what they state, each list in validity order."""
    found: dict[FactContent, list[int]] = {}
    rows = GraphFact.objects.filter(namespace=namespace).order_by("valid_from_turn", "pk")
    for pk, node_key, key, value in rows.values_list("pk", "node__key", "key", "value"):
        found.setdefault((node_key, key, value), []).append(pk)
    return found


def _restore_fact_ids(namespace: Namespace, old: dict[FactContent, list[int]]) -> None:
    """Give each re-made fact the id of the old fact stating the same (see `graph_rebuild`)."""
    through = GraphFact.source_events.through
    for content, pks in _fact_ids_by_content(namespace).items():
        for new_pk, old_pk in zip(pks, old.get(content, ()), strict=False):
            if new_pk == old_pk:
                continue
            through.objects.filter(graphfact_id=new_pk).update(graphfact_id=old_pk)
            GraphFact.objects.filter(pk=new_pk).update(id=old_pk)
