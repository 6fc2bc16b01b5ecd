"""Index maintenance: callers invoke these inside the transaction of the write that changed the
text, so the index commits or rolls back with it (SPEC §8, DESIGN §1 "no second index to keep
in sync"). Deleting a message, event or node also drops its index row by trigger (0004)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from itertools import islice

from django.db import transaction
from django.db.models import OuterRef, Subquery

from memory.models import Event, GraphNode, Message, Turn
from memory.search.backend import backend
from memory.search.documents import (
    EVENTS,
    KINDS,
    MESSAGES,
    NODES,
    Document,
    Kind,
    event_document,
    message_document,
    node_documents,
    nodes_touched_by_events,
)

CHUNK = 1000


def _chunks[T](items: Iterable[T], size: int = CHUNK) -> Iterator[list[T]]:
    iterator = iter(items)
    while chunk := list(islice(iterator, size)):
        yield chunk


def _neighbours(messages: list[Message]) -> dict[int, tuple[int | None, int | None]]:
    """message id → (previous, next) message id in the same session, by id order (the order
    messages are stored in). One query however many messages."""
    same_session = Message.objects.filter(session_id=OuterRef("session_id"))
    return {
        pk: (before, after)
        for pk, before, after in Message.objects.filter(pk__in=[m.pk for m in messages])
        .annotate(
            before=Subquery(
                same_session.filter(pk__lt=OuterRef("pk")).order_by("-pk")[:1].values("pk")
            ),
            after=Subquery(
                same_session.filter(pk__gt=OuterRef("pk")).order_by("pk")[:1].values("pk")
            ),
        )
        .values_list("pk", "before", "after")
    }


def _message_documents(messages: list[Message]) -> tuple[list[Document], set[int]]:
    """The messages' documents, and the ids of their neighbours outside the list."""
    around = _neighbours(messages)
    given = {m.pk: m.content for m in messages}
    outside = {i for pair in around.values() for i in pair if i is not None and i not in given}
    text = given | dict(Message.objects.filter(pk__in=outside).values_list("pk", "content"))
    documents = []
    for message in messages:
        before, after = around.get(message.pk, (None, None))
        documents.append(
            message_document(message, text.get(before or 0, ""), text.get(after or 0, ""))
        )
    return documents, outside


def _with_turns(messages: list[Message]) -> list[Message]:
    missing = {m.turn_id for m in messages if not Message.turn.is_cached(m)}
    turns = Turn.objects.in_bulk(missing) if missing else {}
    for message in messages:
        if message.turn_id in turns:
            message.turn = turns[message.turn_id]
    return messages


def index_messages(messages: Iterable[Message]) -> None:
    """(Re)index messages, and their neighbours in the session, whose before/after text is
    theirs. Loads turns not already cached."""
    for chunk in _chunks(messages):
        documents, outside = _message_documents(_with_turns(chunk))
        if outside:
            neighbours = list(Message.objects.filter(pk__in=outside).select_related("turn"))
            documents.extend(_message_documents(neighbours)[0])
        backend().upsert(MESSAGES, documents)


def index_events(events: Iterable[Event]) -> None:
    """(Re)index events. Status is not indexed: searches join it, so lifecycle changes need
    no re-indexing."""
    for chunk in _chunks(events):
        backend().upsert(EVENTS, [event_document(e) for e in chunk])


def index_nodes(node_ids: Iterable[int]) -> None:
    """Recompute each node's document (facts, neighbours, relations) from the database.
    Ids of nodes that no longer exist are unindexed."""
    ids = set(node_ids)
    if not ids:
        return
    for chunk in _chunks(node_documents(ids)):
        backend().upsert(NODES, chunk)
        ids.difference_update(d.object_id for d in chunk)
    if ids:
        backend().delete(NODES, sorted(ids))


def index_nodes_of_events(event_ids: Iterable[int]) -> None:
    """Re-index the nodes whose facts or edges cite these events, after the events' status
    changed (supersede, forget, restore): current vs historical follows it (SPEC §6.4)."""
    index_nodes(nodes_touched_by_events(event_ids))


def unindex_messages(ids: Iterable[int]) -> None:
    backend().delete(MESSAGES, list(ids))


def unindex_events(ids: Iterable[int]) -> None:
    backend().delete(EVENTS, list(ids))


def unindex_nodes(ids: Iterable[int]) -> None:
    backend().delete(NODES, list(ids))


def _upsert_all(documents: Iterable[Document], kind: Kind) -> int:
    count = 0
    for chunk in _chunks(documents):
        backend().upsert(kind, chunk)
        count += len(chunk)
    return count


def reindex_namespace(namespace_id: int) -> dict[str, int]:
    """Drop and rebuild the namespace's index rows in one transaction; counts per kind."""
    with transaction.atomic():
        for kind in KINDS:
            backend().delete_namespace(kind, namespace_id)
        messages = (
            Message.objects.filter(namespace_id=namespace_id)
            .select_related("turn")
            .order_by("pk")
            .iterator(chunk_size=CHUNK)
        )
        events = Event.objects.filter(namespace_id=namespace_id).order_by("pk")
        node_ids = GraphNode.objects.filter(namespace_id=namespace_id).values_list("pk", flat=True)
        return {
            "messages": _upsert_all(
                (d for chunk in _chunks(messages) for d in _message_documents(chunk)[0]),
                MESSAGES,
            ),
            "events": _upsert_all(
                (event_document(e) for e in events.iterator(chunk_size=CHUNK)), EVENTS
            ),
            "nodes": _upsert_all(node_documents(list(node_ids)), NODES),
        }


def reindex_messages() -> int:
    """Rebuild every message's index row (all namespaces), e.g. after its document changed."""
    backend().delete_all(MESSAGES)
    messages = Message.objects.select_related("turn").order_by("pk").iterator(chunk_size=CHUNK)
    return _upsert_all(
        (d for chunk in _chunks(messages) for d in _message_documents(chunk)[0]), MESSAGES
    )


def reindex_all() -> dict[str, int]:
    """Empty every index table (rows of deleted namespaces included) and rebuild them all."""
    from memory.models import Namespace

    totals = {kind.name + "s": 0 for kind in KINDS}
    with transaction.atomic():
        for kind in KINDS:
            backend().delete_all(kind)
        for namespace_id in Namespace.objects.order_by("pk").values_list("pk", flat=True):
            for key, count in reindex_namespace(namespace_id).items():
                totals[key] += count
    return totals
