"""Index maintenance: callers invoke these inside the transaction of the write that changed the
text, so the index commits or rolls back with it (SPEC §8, DESIGN §1 "no second index to keep
in sync"). Deleting a message, event or node also drops its index row by trigger (0004)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from itertools import islice

from django.db import transaction
from django.db.models import F, OuterRef, QuerySet, Subquery, Window
from django.db.models.functions import Lag, Lead

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


WINDOW = 2  # messages on each side whose text ranks a message (docs/EVALUATION.md)


def _neighbours(messages: list[Message]) -> dict[int, tuple[list[int], list[int]]]:
    """message id → (up to WINDOW messages before it, nearest last; up to WINDOW after it,
    nearest first) in the same session, by id order (the order messages are stored in). One
    query however many messages."""
    same_session = Message.objects.filter(session_id=OuterRef("session_id"))
    earlier = same_session.filter(pk__lt=OuterRef("pk")).order_by("-pk")
    later = same_session.filter(pk__gt=OuterRef("pk")).order_by("pk")
    window = {
        **{f"b{n}": Subquery(earlier[n : n + 1].values("pk")) for n in range(WINDOW)},
        **{f"a{n}": Subquery(later[n : n + 1].values("pk")) for n in range(WINDOW)},
    }
    rows = (
        Message.objects.filter(pk__in=[m.pk for m in messages])
        .annotate(**window)
        .values("pk", *window)
    )
    return {
        row["pk"]: (
            [row[f"b{n}"] for n in reversed(range(WINDOW)) if row[f"b{n}"] is not None],
            [row[f"a{n}"] for n in range(WINDOW) if row[f"a{n}"] is not None],
        )
        for row in rows
    }


def _message_documents(messages: list[Message]) -> tuple[list[Document], set[int]]:
    """The messages' documents, and the ids of their neighbours outside the list."""
    around = _neighbours(messages)
    given = {m.pk: m.content for m in messages}
    outside = {i for before, after in around.values() for i in (*before, *after) if i not in given}
    text = given | dict(Message.objects.filter(pk__in=outside).values_list("pk", "content"))
    documents = []
    for message in messages:
        before, after = around.get(message.pk, ([], []))
        documents.append(
            message_document(
                message, " ".join(text[i] for i in before), " ".join(text[i] for i in after)
            )
        )
    return documents, outside


def session_message_documents(messages: QuerySet[Message]) -> Iterator[Document]:
    """The document of every message in `messages`, which must hold whole sessions (a whole
    namespace, every namespace): neighbours are read with window functions over the rows
    selected, in one streamed query, the same text `index_messages` gives each message."""
    window = {
        **{
            f"b{n}": Window(Lag("content", n), partition_by=[F("session_id")], order_by="id")
            for n in range(1, WINDOW + 1)
        },
        **{
            f"a{n}": Window(Lead("content", n), partition_by=[F("session_id")], order_by="id")
            for n in range(1, WINDOW + 1)
        },
    }
    rows = messages.select_related("turn").annotate(**window).order_by("pk")
    for message in rows.iterator(chunk_size=CHUNK):
        before = [getattr(message, f"b{n}") for n in range(WINDOW, 0, -1)]
        after = [getattr(message, f"a{n}") for n in range(1, WINDOW + 1)]
        yield message_document(
            message,
            " ".join(t for t in before if t is not None),
            " ".join(t for t in after if t is not None),
        )


def _with_turns(messages: list[Message]) -> list[Message]:
    missing = {m.turn_id for m in messages if not Message.turn.is_cached(m)}
    turns = Turn.objects.in_bulk(missing) if missing else {}
    for message in messages:
        if message.turn_id in turns:
            message.turn = turns[message.turn_id]
    return messages


def message_documents(messages: list[Message]) -> list[Document]:
    """The documents `index_messages` writes for these messages, in their order."""
    return _message_documents(_with_turns(messages))[0]


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
        events = Event.objects.filter(namespace_id=namespace_id).order_by("pk")
        node_ids = GraphNode.objects.filter(namespace_id=namespace_id).values_list("pk", flat=True)
        return {
            "messages": _upsert_all(
                session_message_documents(Message.objects.filter(namespace_id=namespace_id)),
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
    return _upsert_all(session_message_documents(Message.objects.all()), MESSAGES)


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
