"""Grow a namespace's graph to at least N nodes for the graph-page benchmark, through services.

The synthetic roster (`bulk_world`) is ingested as ordinary turns (the source messages), the
queued processing makes its blocks ready, then each roster row becomes one event
(`event_create`, quoting its line) and the rows' nodes, facts and edges are applied with
`graph_apply` — a proposal shaped like `graph_propose`'s and restricted to its batch — in
transactions of `GRAPH_BATCH` events. Update rows supersede the row they restate, so moved
employers, cities and switched tools show as history.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta

from django.db import transaction
from django.db.models import Max

from memory.demo.bulk_world import Library, Person, Project, Row, world_rows
from memory.demo.conversation import jobs_settle
from memory.engine.event_types import normalize_key
from memory.engine.prompts.extraction import ExtractedEvent
from memory.engine.prompts.graph import GraphProposal
from memory.models import Event, GraphNode, Message, MessageRole, Namespace, Turn
from memory.selectors.settings import memory_settings_get
from memory.services.events import EventContext, event_create, event_supersede
from memory.services.graph import graph_apply
from memory.services.ingest import MessageIn, TurnIn, turn_ingest

LINES_PER_MESSAGE = 40
GRAPH_BATCH = 1000  # events per projection transaction; hub nodes are re-indexed once per batch
SNAPSHOT_AT = datetime(2026, 10, 12, 9, 0, tzinfo=UTC)
UPDATE_AT = datetime(2026, 11, 2, 9, 0, tzinfo=UTC)
CONFIDENCE = 0.9


def graph_grow(*, namespace: Namespace, nodes: int) -> int:
    """Add synthetic roster data until the graph has ≥ `nodes` nodes; returns nodes added."""
    before = GraphNode.objects.filter(namespace=namespace).count()
    if before >= nodes:
        return 0
    snapshot, updates = world_rows(size=nodes - before, offset=before)
    session_id = f"graph-bulk-{before}"
    parts = _parts(len(snapshot), len(updates), memory_settings_get().block_turns)
    chunks = [*_split(snapshot, parts[0]), *_split(updates, parts[1])]
    for number, chunk in enumerate(chunks, start=1):
        at = (SNAPSHOT_AT if number <= parts[0] else UPDATE_AT) + timedelta(minutes=number)
        turn_ingest(namespace=namespace, turn=_turn(session_id, number, len(chunks), chunk, at))
    jobs_settle(namespace)  # the roster's blocks become ready (its rows state no events)
    by_line = {row.line: row for chunk in chunks for row in chunk}
    _events_store(namespace, session_id, chunks)
    unprojected = list(
        Event.objects.filter(
            namespace=namespace, source_block__session__external_id=session_id, nodes__isnull=True
        ).order_by("pk")
    )
    for start in range(0, len(unprojected), GRAPH_BATCH):
        batch = unprojected[start : start + GRAPH_BATCH]
        proposal = _Proposal()
        for event in batch:
            row = by_line.get(event.quotes[0]) if event.quotes else None
            if row is not None:  # not an event the rules found in the roster text
                proposal.add(row, event)
        with transaction.atomic():
            graph_apply(
                namespace_id=namespace.pk,
                events=batch,
                proposal=proposal.build().restricted_to({e.pk for e in batch}),
            )
    return GraphNode.objects.filter(namespace=namespace).count() - before


def _events_store(namespace: Namespace, session_id: str, chunks: list[list[Row]]) -> None:
    """One event per roster row, quoting it; an update supersedes the row it restates.

    All events (and supersessions) exist before any projection, as after extraction: then a
    supersession re-indexes no graph node, and projection indexes each node once per batch.
    """
    messages = list(
        Message.objects.filter(
            namespace=namespace, session__external_id=session_id, role=MessageRole.USER
        )
        .select_related("turn__block")
        .order_by("turn__session_turn")
    )
    done = set(
        Event.objects.filter(source_messages__in=messages).values_list("source_messages", flat=True)
    )  # an earlier, interrupted run stored these messages' events
    latest: dict[str, Event] = {}
    for message, chunk in zip(messages, chunks, strict=True):
        if message.pk in done:
            continue
        block = message.turn.block
        assert block is not None  # _parts padded the roster to whole blocks
        formed = Turn.objects.filter(block=block).aggregate(top=Max("namespace_turn"))["top"]
        context = EventContext(block=block, formed_turn=formed, messages={message.pk: message})
        with transaction.atomic():
            for row in chunk:
                event = event_create(extracted=_event(row, message.pk), context=context)
                old = latest.get(row.key)
                if row.update and old is not None:
                    event_supersede(new=event, old=old)
                latest[row.key] = event


def _parts(snapshot: int, updates: int, block_turns: int) -> tuple[int, int]:
    """Turns for the snapshot and the updates, padded so every turn is sealed into a block."""
    first = max(1, math.ceil(snapshot / LINES_PER_MESSAGE))
    second = max(1, math.ceil(updates / LINES_PER_MESSAGE))
    second += -(first + second) % block_turns
    return first, second


def _split(rows: Sequence[Row], parts: int) -> list[list[Row]]:
    size = math.ceil(len(rows) / parts) if rows else 0
    return [list(rows[i * size : (i + 1) * size]) for i in range(parts)]


def _turn(session_id: str, number: int, total: int, rows: list[Row], at: datetime) -> TurnIn:
    kind = "changes" if rows and rows[0].update else "export"
    header = f"Directory {kind}, part {number} of {total}:"
    return TurnIn(
        session_id=session_id,
        receipt_id=f"demo:{session_id}:{number}",
        occurred_at=at,
        messages=[
            MessageIn(
                role="user", content="\n".join([header, *(r.line for r in rows)]), created_at=at
            ),
            MessageIn(role="assistant", content=f"Stored {len(rows)} rows.", created_at=at),
        ],
    )


def _event(row: Row, message_id: int) -> ExtractedEvent:
    entity = row.entity
    if isinstance(entity, Person):
        title = f"{entity.name} {'moved to' if row.update else 'works at'} {entity.org}"
        where = f"lives in {entity.place}" if entity.place else "works remotely"
        summary = (
            f"{entity.name} works at {entity.org} as {entity.role}, {where} and takes part in "
            f"{', '.join(entity.projects)}."
        )
        kind, participants = ("change" if row.update else "other"), [entity.name]
    elif isinstance(entity, Project):
        title = f"{entity.name} {'switched its stack' if row.update else 'stack'}"
        summary = (
            f"{entity.name} uses {entity.package_manager}, {entity.database} and "
            f"{entity.framework} with {', '.join(entity.libraries)}."
        )
        kind, participants = ("change" if row.update else "decision"), [entity.name]
    else:
        title, kind, participants = f"{entity.name} dependencies", "other", [entity.name]
        summary = f"{entity.name} depends on {', '.join(entity.depends_on) or 'nothing'}."
    return ExtractedEvent(
        title=title,
        summary=summary,
        event_type=kind,
        tags=["directory", "benchmark"],
        quotes=[row.line],
        scope="project",
        participants=participants,
        source_message_ids=[message_id],
        temporal_status="occurred" if row.update else "ongoing",
    )


class _Proposal:
    """Collects nodes, facts and edges in `GraphProposal`'s shape (keys like the offline rules)."""

    def __init__(self) -> None:
        self.nodes: dict[str, dict[str, object]] = {}
        self.facts: list[dict[str, object]] = []
        self.edges: list[dict[str, object]] = []

    def node(self, kind: str, name: str, event: Event, tag: str = "") -> str:
        key = f"{kind}:{normalize_key(name)}"
        node = self.nodes.setdefault(
            key, {"key": key, "name": name, "type": kind, "tags": [], "source_event_ids": []}
        )
        sources, tags = node["source_event_ids"], node["tags"]
        assert isinstance(sources, list) and isinstance(tags, list)
        if event.pk not in sources:
            sources.append(event.pk)
        if tag and tag not in tags:
            tags.append(tag)
        return key

    def fact(self, node: str, key: str, value: str, event: Event) -> None:
        self.facts.append(
            {"node_key": node, "key": key, "value": value, "confidence": CONFIDENCE,
             "valid_from": event.mentioned_at, "source_event_ids": [event.pk]}
        )  # fmt: skip

    def edge(self, origin: str, target: str, relation: str, event: Event, slot: str = "") -> None:
        self.edges.append(
            {"from_key": origin, "to_key": target, "relation": relation,
             "confidence": CONFIDENCE, "valid_from": event.mentioned_at,
             "source_event_ids": [event.pk], "metadata": {"slot": slot} if slot else {}}
        )  # fmt: skip

    def add(self, row: Row, event: Event) -> None:
        entity = row.entity
        if isinstance(entity, Person):
            person = self.node("person", entity.name, event)
            self.fact(person, "role", entity.role, event)
            org = self.node("organization", entity.org, event, tag="employer")
            self.edge(person, org, "works_at", event)
            if entity.place:
                self.edge(person, self.node("place", entity.place, event), "lives_in", event)
            for project in entity.projects:
                target = self.node("project", project, event, tag="project")
                self.edge(person, target, "participates_in", event)
        elif isinstance(entity, Project):
            project = self.node("project", entity.name, event, tag="project")
            for slot, tool in (
                ("package_manager", entity.package_manager),
                ("database", entity.database),
                ("frontend_framework", entity.framework),
            ):
                self.fact(project, slot, tool, event)
                self.edge(project, self.node("tool", tool, event, tag=slot), "uses", event, slot)
            for library in entity.libraries:
                self.edge(project, self.node("tool", library, event, tag="library"), "uses", event)
            for other in entity.depends_on:
                self.edge(project, self.node("project", other, event), "depends_on", event)
        elif isinstance(entity, Library):
            library = self.node("tool", entity.name, event, tag="library")
            for other in entity.depends_on:
                self.edge(library, self.node("tool", other, event), "depends_on", event)

    def build(self) -> GraphProposal:
        return GraphProposal.model_validate(
            {
                "reason": f"directory rows: {len(self.facts)} facts, {len(self.edges)} edges",
                "nodes": list(self.nodes.values()),
                "facts": self.facts,
                "edges": self.edges,
            }
        )
