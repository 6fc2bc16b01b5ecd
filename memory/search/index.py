"""Index maintenance: callers invoke these inside the transaction of the write that changed the
text, so the index commits or rolls back with it (SPEC §8, DESIGN §1 "no second index to keep
in sync"). Deleting a message, event or node also drops its index row by trigger (0004)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from itertools import islice

from django.db import connection, transaction
from django.db.models import F, QuerySet, Window
from django.db.models.functions import Lag, Lead

from memory.models import Event, GraphNode, Message, Namespace, Turn
from memory.models.rows import read_by_id, read_models_with
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


def _span_ids(messages: list[Message]) -> list[int]:
    """Ids of every message of the given messages' sessions from 2·WINDOW before the first
    given one to 2·WINDOW after the last: all whose document can change with theirs, and all
    those documents read. One query of plain ids (a union of per-session ranges)."""
    spans: dict[int, tuple[int, int]] = {}
    for m in messages:
        lo, hi = spans.get(m.session_id, (m.pk, m.pk))
        spans[m.session_id] = (min(lo, m.pk), max(hi, m.pk))
    table = Message._meta.db_table
    select = f"SELECT id FROM {table} WHERE session_id = %s AND id "
    parts: list[str] = []
    params: list[int] = []
    for session_id, (lo, hi) in spans.items():
        parts += [
            f"{select}BETWEEN %s AND %s",
            f"SELECT id FROM ({select}< %s ORDER BY id DESC LIMIT %s) AS before_span",
            f"SELECT id FROM ({select}> %s ORDER BY id LIMIT %s) AS after_span",
        ]
        params += [session_id, lo, hi, session_id, lo, 2 * WINDOW, session_id, hi, 2 * WINDOW]
    with connection.cursor() as cursor:
        cursor.execute(" UNION ALL ".join(parts), params)
        return [row[0] for row in cursor.fetchall()]


_TURN = Message._meta.get_field("turn")


_OCCURRED = Turn._meta.get_field("occurred_at")
_NEIGHBOURS = f"JOIN {Turn._meta.db_table} t ON t.id = m.turn_id WHERE m.id IN "


def _with_turns(ids: list[int]) -> list[Message]:
    """The messages, each with its turn's date (a document needs it), in one plain read: every
    ingest reads a few neighbours, and compiling the joined query cost more than reading them.
    The turn is attached as Django builds a deferred one, with only its date loaded."""
    rows = read_models_with(
        Message,
        "m",
        _NEIGHBOURS + f"({', '.join(['%s'] * len(ids))})",
        ids,
        [("t.occurred_at", _OCCURRED, "t")],
    )
    for message, (occurred_at,) in rows:
        message.turn = Turn.from_db(
            connection.alias, ["id", "occurred_at"], [message.turn_id, occurred_at]
        )
    return [message for message, _ in rows]


def _message_documents(messages: list[Message]) -> list[Document]:
    """The documents of the given messages and of their neighbours within WINDOW (whose
    before/after text is theirs), in two queries however many messages. Given messages that
    hold their turn (just created, or read with select_related) are not read again: a batch
    of 400 new messages reads only the few older neighbours around them."""
    given = {m.pk for m in messages}
    if not given:
        return []
    held = {m.pk: m for m in messages if _TURN.is_cached(m)}
    missing = [pk for pk in _span_ids(messages) if pk not in held]
    rows = [*held.values()]
    if missing:
        rows += _with_turns(missing)
    sessions: dict[int, list[Message]] = {}
    for message in sorted(rows, key=lambda m: m.pk):
        sessions.setdefault(message.session_id, []).append(message)
    documents: dict[int, Document] = {}
    for ordered in sessions.values():
        for position, message in enumerate(ordered):
            if message.pk not in given:
                continue
            for near in range(max(0, position - WINDOW), min(len(ordered), position + WINDOW + 1)):
                target = ordered[near]
                if target.pk not in documents:
                    before = ordered[max(0, near - WINDOW) : near]
                    after = ordered[near + 1 : near + 1 + WINDOW]
                    documents[target.pk] = message_document(
                        target, [m.content for m in before], [m.content for m in after]
                    )
    return list(documents.values())


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
            [t for t in before if t is not None],
            [t for t in after if t is not None],
        )


def message_documents(messages: list[Message]) -> list[Document]:
    """The documents `index_messages` writes for these messages, in their order."""
    documents = {d.object_id: d for d in _message_documents(messages)}
    return [documents.get(m.pk) or message_document(m) for m in messages]


def index_messages(messages: Iterable[Message]) -> None:
    """(Re)index messages, and their neighbours in the session, whose before/after text is
    theirs."""
    for chunk in _chunks(messages):
        backend().upsert(MESSAGES, _message_documents(chunk))


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


def indexed_fields(
    kind: Kind, object_ids: Iterable[int], fields: Sequence[str]
) -> dict[int, tuple[tuple[str, ...], ...]]:
    """The terms each event's or node's index document holds in `fields` (in that order): read
    from the index where the backend keeps them by field (SQLite), built by the code that
    indexes them where it does not (PostgreSQL). What a card is judged on (activated memory's
    relevance check) is then exactly what its search found. Objects that are gone are left
    out."""
    ids = sorted(set(object_ids))
    if not ids:
        return {}
    stored = backend().document_fields(kind, ids, fields)
    if stored is not None:
        return stored
    if kind is EVENTS:
        documents: Iterable[Document] = map(event_document, read_by_id(Event, ids).values())
    elif kind is NODES:
        documents = node_documents(ids)
    else:
        raise ValueError(f"indexed_fields reads events and nodes, not {kind.name}")
    names = [f.name for f in kind.fields]
    at = [names.index(name) for name in fields]
    return {d.object_id: tuple(d.fields[i] for i in at) for d in documents}


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
    totals = {kind.name + "s": 0 for kind in KINDS}
    with transaction.atomic():
        for kind in KINDS:
            backend().delete_all(kind)
        for namespace_id in Namespace.objects.order_by("pk").values_list("pk", flat=True):
            for key, count in reindex_namespace(namespace_id).items():
                totals[key] += count
    return totals
