"""A small, fully processed namespace for the consistency tests, built through the real services:
turns (one sealed block and an open turn), offline views, events and graph, and a usage
receipt citing an event and a graph node. Plus helpers that break the index behind its back."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta

from django.db import connection

from memory.models import Event, GraphNode, Namespace, UsageReceipt
from memory.recall.events import EventSearch
from memory.recall.graph import GraphSearch
from memory.search.documents import Kind
from memory.services.adoption import UseRequest, usage_record
from memory.services.consistency import Violation
from memory.services.gate import AssessRequest, gate_assess
from memory.services.ingest import MessageIn, TurnIn, turn_ingest
from memory.services.jobs import jobs_drain
from memory.services.namespaces import namespace_get_or_create
from memory.services.retrieval import events_search
from memory.services.retrieval_graph import graph_search
from tests.conftest import BASE_TIME

LINES = (
    "Use npm for this project.",
    "Let's switch to pnpm, installs are too slow.",
    "Finish the prototype next week.",
    "We decided to deploy Orion on PostgreSQL.",
    "Maya works at Acme on the Orion project.",
    "The release of Orion is planned for Friday.",
    "Anything else for today?",
)


@dataclass(frozen=True)
class World:
    namespace: Namespace
    receipt: UsageReceipt
    cited_event: Event
    cited_node: GraphNode


def ingest(namespace: Namespace, lines: tuple[str, ...], *, session: str = "s1") -> None:
    for n, line in enumerate(lines, start=1):
        turn_ingest(
            namespace=namespace,
            turn=TurnIn(
                session_id=session,
                receipt_id=f"{namespace.name}-{session}-{n}",
                messages=[
                    MessageIn(role="user", content=line),
                    MessageIn(role="assistant", content=f"Noted: {line.lower()}"),
                ],
                occurred_at=BASE_TIME + timedelta(minutes=n),
            ),
        )


def build(name: str = "proj") -> World:
    namespace = namespace_get_or_create(name=name)
    ingest(namespace, LINES)
    jobs_drain()
    found = events_search(namespace=namespace, params=EventSearch(query="pnpm", session_id="s1"))
    graph = graph_search(namespace=namespace, params=GraphSearch(query="pnpm", session_id="s1"))
    assert found.hits and graph.hits, (
        "the offline pipeline should find pnpm in events and the graph"
    )
    event, node = found.hits[0].event, graph.hits[0].node
    # One receipt per batch: the node from the graph search, the event from the event search.
    refs = [f"node:{node.pk}"]
    gate_assess(
        namespace=namespace,
        request=AssessRequest(
            verdict="sufficient",
            evidence_refs=refs,
            fit="pnpm",
            batch_id=graph.batch.public_id,
            session_id="s1",
        ),
    )
    usage_record(
        namespace=namespace,
        request=UseRequest(
            receipt_id=f"{name}-use-node",
            evidence_refs=refs,
            batch_id=graph.batch.public_id,
            session_id="s1",
        ),
    )
    gate_assess(
        namespace=namespace,
        request=AssessRequest(
            verdict="sufficient",
            evidence_refs=[f"event:{event.pk}"],
            fit="pnpm",
            batch_id=found.batch.public_id,
            session_id="s1",
        ),
    )
    recorded = usage_record(
        namespace=namespace,
        request=UseRequest(
            receipt_id=f"{name}-use-event",
            evidence_refs=[f"event:{event.pk}"],
            batch_id=found.batch.public_id,
            session_id="s1",
            answer="pnpm",
        ),
    )
    return World(namespace, recorded.receipt, event, node)


def index_row_delete(kind: Kind, object_id: int) -> None:
    column = "rowid" if connection.vendor == "sqlite" else "object_id"
    with connection.cursor() as cursor:
        cursor.execute(f"DELETE FROM {kind.table} WHERE {column} = %s", [object_id])


def index_row_copy(kind: Kind, source_id: int, new_id: int) -> None:
    """An index row for an object that does not exist: a copy of a real row under a new id."""
    with connection.cursor() as cursor:
        if connection.vendor == "sqlite":
            columns = [
                "ns",
                *(["session"] if kind.has_session else []),
                *(f.name for f in kind.fields),
            ]
            listed = ", ".join(columns)
            cursor.execute(
                f"INSERT INTO {kind.table} (rowid, {listed}) SELECT %s, {listed} "
                f"FROM {kind.table} WHERE rowid = %s",
                [new_id, source_id],
            )
        else:
            cursor.execute(
                f"INSERT INTO {kind.table} (object_id, namespace_id, session_id, document) "
                f"SELECT %s, namespace_id, session_id, document FROM {kind.table} "
                "WHERE object_id = %s",
                [new_id, source_id],
            )


def codes(violations: list[Violation]) -> list[tuple[str, dict[str, object]]]:
    return [(v.code, dict(v.ids)) for v in violations]
