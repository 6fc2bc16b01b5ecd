"""Index maintenance: callers invoke these inside the transaction of the write that changed the
text, so the index commits or rolls back with it (SPEC §8, DESIGN §1 "no second index to keep
in sync"). Deleting a message, event or node also drops its index row by trigger (0004)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from itertools import islice

from django.db import transaction

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


def index_messages(messages: Iterable[Message]) -> None:
    """(Re)index messages: content and their turn's date. Loads turns not already cached."""
    for chunk in _chunks(messages):
        missing = {m.turn_id for m in chunk if not Message.turn.is_cached(m)}
        turns = Turn.objects.in_bulk(missing) if missing else {}
        for message in chunk:
            if message.turn_id in turns:
                message.turn = turns[message.turn_id]
        backend().upsert(MESSAGES, [message_document(m) for m in chunk])


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
            "messages": _upsert_all((message_document(m) for m in messages), MESSAGES),
            "events": _upsert_all(
                (event_document(e) for e in events.iterator(chunk_size=CHUNK)), EVENTS
            ),
            "nodes": _upsert_all(node_documents(list(node_ids)), NODES),
        }


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
