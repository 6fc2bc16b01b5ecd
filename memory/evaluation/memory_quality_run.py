"""Drive one labelled conversation through the real product path and read back what it stored.

The path is the API's: `turn_ingest` per turn (sealing full blocks as it does), then the job queue
drained (`jobs_drain`: L0–L2, offline event extraction with its mention and supersession rules,
graph projection). Each session is drained before the next begins, as sessions days apart would
be. One harness choice: at a session's end its open tail, if any, is sealed as a short block of
its own (the product leaves a tail open until more turns come; a labelled session has no more).

Each conversation gets a throwaway namespace, deleted afterwards unless `keep`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta

from memory.evaluation.memory_quality_set import Conversation, Session
from memory.models import (
    Event,
    EventMention,
    GraphEdge,
    GraphNode,
    Namespace,
    Turn,
)
from memory.models import (
    Session as ChatSession,
)
from memory.selectors.processing_model import processing_model
from memory.services.db import write_transaction
from memory.services.ingest import MessageIn, TurnIn, namespace_lock, turn_ingest
from memory.services.jobs import jobs_drain
from memory.services.namespaces import namespace_get_or_create
from memory.services.sealing import block_seal_ready_runs

TURN_GAP = timedelta(minutes=2)


@dataclass(frozen=True, slots=True)
class StoredEvent:
    pk: int
    event_type: str
    status: str  # active | superseded | …
    temporal_status: str
    start: datetime | None
    end: datetime | None
    superseded_by: int | None
    origin: int | None  # index of the statement its first source message holds


@dataclass(frozen=True, slots=True)
class StoredEdge:
    from_names: frozenset[str]  # name and aliases, as stored
    relation: str
    to_names: frozenset[str]
    origin: int | None  # the origin of its first source event


@dataclass(slots=True)
class Observed:
    """What the product stored for one conversation, keyed by statement index."""

    namespace: str
    events: list[StoredEvent] = field(default_factory=list)
    mentioned: dict[int, set[int]] = field(default_factory=dict)  # event pk → statement indexes
    edges: list[StoredEdge] = field(default_factory=list)
    nodes: list[tuple[frozenset[str], str]] = field(default_factory=list)


class ModelConfigured(Exception):
    """The set scores the offline processor; a configured model would be scored instead."""


def conversation_run(conversation: Conversation, *, namespace_name: str, keep: bool) -> Observed:
    namespace = namespace_get_or_create(name=namespace_name)
    if processing_model(namespace.pk).mode == "model":
        raise ModelConfigured(namespace_name)
    if Turn.objects.filter(namespace=namespace).exists():
        namespace_discard(namespace)
        namespace = namespace_get_or_create(name=namespace_name)
    statement_of: dict[int, int] = {}  # message pk → statement index
    try:
        for session in conversation.sessions:
            _session_ingest(namespace, conversation, session, statement_of)
        return _observed(namespace, statement_of)
    finally:
        if not keep:
            namespace_discard(namespace)


def _session_ingest(
    namespace: Namespace,
    conversation: Conversation,
    session: Session,
    statement_of: dict[int, int],
) -> None:
    for number, (user, said) in enumerate(session.turns):
        at = session.at + number * TURN_GAP
        result = turn_ingest(
            namespace=namespace,
            turn=TurnIn(
                session_id=session.id,
                receipt_id=f"quality:{conversation.id}:{session.id}:{number}",
                occurred_at=at,
                messages=[
                    MessageIn(role="user", content=user.text, name=conversation.user_name,
                              created_at=at),
                    MessageIn(role="assistant", content=said.text,
                              created_at=at + timedelta(seconds=30)),
                ],
            ),
        )  # fmt: skip
        messages = result.turn.messages.order_by("position").values_list("pk", flat=True)
        for pk, statement in zip(messages, (user, said), strict=True):
            statement_of[pk] = statement.index
    _seal_tail(namespace, session.id)
    jobs_drain()


def _seal_tail(namespace: Namespace, session_id: str) -> None:
    with write_transaction():
        namespace_lock(namespace.pk)
        chat = ChatSession.objects.get(namespace=namespace, external_id=session_id)
        open_turns = Turn.objects.filter(session=chat, block__isnull=True).count()
        if open_turns:
            block_seal_ready_runs(session=chat, block_turns=open_turns)


def _observed(namespace: Namespace, statement_of: dict[int, int]) -> Observed:
    observed = Observed(namespace=namespace.name)
    origin_of: dict[int, int | None] = {}
    events = Event.objects.filter(namespace=namespace).prefetch_related("source_messages")
    for event in events.order_by("pk"):
        sources = sorted(m.pk for m in event.source_messages.all())
        origin = next((statement_of[pk] for pk in sources if pk in statement_of), None)
        origin_of[event.pk] = origin
        observed.events.append(
            StoredEvent(
                pk=event.pk,
                event_type=event.event_type,
                status=event.status,
                temporal_status=event.temporal_status,
                start=event.happened_start,
                end=event.happened_end,
                superseded_by=event.superseded_by_id,
                origin=origin,
            )
        )
    mentions = EventMention.objects.filter(namespace=namespace).prefetch_related("messages")
    for mention in mentions:
        said = {statement_of[m.pk] for m in mention.messages.all() if m.pk in statement_of}
        observed.mentioned.setdefault(mention.event_id, set()).update(said)
    edges = GraphEdge.objects.filter(namespace=namespace).select_related("from_node", "to_node")
    for edge in edges.prefetch_related("source_events").order_by("pk"):
        first = min((e.pk for e in edge.source_events.all()), default=None)
        observed.edges.append(
            StoredEdge(
                from_names=_names(edge.from_node),
                relation=edge.relation,
                to_names=_names(edge.to_node),
                origin=origin_of.get(first) if first is not None else None,
            )
        )
    for node in GraphNode.objects.filter(namespace=namespace).order_by("pk"):
        observed.nodes.append((_names(node), node.node_type))
    return observed


def _names(node: GraphNode) -> frozenset[str]:
    return frozenset([node.name, *(a for a in node.aliases or () if isinstance(a, str))])


def namespace_discard(namespace: Namespace) -> None:
    """Delete a throwaway namespace and everything in it. Events protect their source blocks
    and turns their blocks, so those go first; the rest cascades from the namespace."""
    with write_transaction():
        Event.objects.filter(namespace=namespace).delete()
        Turn.objects.filter(namespace=namespace).delete()
        namespace.delete()
