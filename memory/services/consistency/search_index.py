"""The search index is in sync with the rows (SPEC §8): every message, event and graph node has
exactly the index row `memory.search` would write for it now, and no index row outlives its
object.

Writes index inside their own transaction and triggers drop the rows of deleted objects
(migration 0004), so a difference means a write path that forgot the index, a restore done
behind StrataGate's back, or a hand edit. Each expected document is built with the same public
functions the writers use and compared with the stored row: on SQLite the FTS5 columns as text,
on PostgreSQL the tsvector by equality. Repair re-indexes missing and stale rows through
`memory.search` and deletes orphan rows; it never touches a message, event or node.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator

from django.db import connection
from django.db.models import Model

from memory.models import Event, GraphNode, Message
from memory.search import (
    index_events,
    index_messages,
    index_nodes,
    unindex_events,
    unindex_messages,
    unindex_nodes,
)
from memory.search.documents import (
    EVENTS,
    KINDS,
    MESSAGES,
    NODES,
    Document,
    Kind,
    event_document,
    node_documents,
)
from memory.search.index import session_message_documents
from memory.search.postgres import vector_literal
from memory.services.consistency.base import (
    SEARCH_INDEX,
    Repair,
    Violation,
    chunks,
    listed,
    scoped,
)
from memory.services.db import write_transaction

CHUNK = 500
MISSING, STALE, ORPHAN = "index_row_missing", "index_row_stale", "index_row_orphan"
MODELS: dict[str, type[Model]] = {"message": Message, "event": Event, "node": GraphNode}


# --- the documents the index should hold ------------------------------------------------------


def _message_documents(namespace_id: int | None) -> Iterator[Document]:
    """Each message's document with its neighbours' text, as `index_messages` builds it."""
    return session_message_documents(scoped(Message.objects.all(), namespace_id))


def _event_documents(namespace_id: int | None) -> Iterator[Document]:
    events = scoped(Event.objects.all(), namespace_id).order_by("pk")
    for event in events.iterator(chunk_size=CHUNK):
        yield event_document(event)


def _node_documents(namespace_id: int | None) -> Iterator[Document]:
    ids = scoped(GraphNode.objects.all(), namespace_id).order_by("pk").values_list("pk", flat=True)
    yield from node_documents(list(ids))


DOCUMENTS: dict[str, Callable[[int | None], Iterator[Document]]] = {
    MESSAGES.name: _message_documents,
    EVENTS.name: _event_documents,
    NODES.name: _node_documents,
}


# --- what the index holds ---------------------------------------------------------------------


def _sqlite_columns(kind: Kind, document: Document) -> tuple[str, ...]:
    """The FTS5 row `memory.search.sqlite_fts5.upsert` writes for a document."""
    ns = document.namespace_id
    return (
        f"n{ns}",
        *([f"s{document.session_id}"] if kind.has_session else []),
        *(" ".join(f"{ns}_{term}" for term in terms) for terms in document.fields),
    )


def _sqlite_compare(kind: Kind, documents: list[Document]) -> tuple[list[int], list[int]]:
    """(missing, stale) object ids among `documents` (sorted by id)."""
    columns = ["ns", *(["session"] if kind.has_session else []), *(f.name for f in kind.fields)]
    with connection.cursor() as cursor:
        # FTS5 serves a rowid range directly; `rowid IN (…)` would scan the table.
        cursor.execute(
            f"SELECT rowid, {', '.join(columns)} FROM {kind.table} WHERE rowid BETWEEN %s AND %s",
            [documents[0].object_id, documents[-1].object_id],
        )
        stored = {int(row[0]): tuple(row[1:]) for row in cursor.fetchall()}
    missing = [d.object_id for d in documents if d.object_id not in stored]
    stale = [
        d.object_id
        for d in documents
        if d.object_id in stored and stored[d.object_id] != _sqlite_columns(kind, d)
    ]
    return missing, stale


def _postgres_compare(kind: Kind, documents: list[Document]) -> tuple[list[int], list[int]]:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT v.id, s.object_id IS NULL, s.namespace_id, s.session_id, "
            f"s.document = v.doc::tsvector FROM unnest(%s::bigint[], %s::text[]) AS v(id, doc) "
            f"LEFT JOIN {kind.table} s ON s.object_id = v.id",
            [[d.object_id for d in documents], [vector_literal(kind, d) for d in documents]],
        )
        rows = {int(row[0]): row[1:] for row in cursor.fetchall()}
    missing: list[int] = []
    stale: list[int] = []
    for d in documents:
        absent, ns, session, same = rows[d.object_id]
        if absent:
            missing.append(d.object_id)
        elif (ns, session if kind.has_session else None, same) != (
            d.namespace_id,
            d.session_id if kind.has_session else None,
            True,
        ):
            stale.append(d.object_id)
    return missing, stale


def _index_rows(kind: Kind, namespace_id: int | None) -> Iterator[list[tuple[int, int]]]:
    """The index's (object id, namespace id) rows of the namespace (or all), by id, in chunks."""
    after = 0
    while True:
        with connection.cursor() as cursor:
            if connection.vendor == "sqlite":
                where, params = "rowid > %s", [after]
                if namespace_id is not None:
                    where += f" AND {kind.table} MATCH %s"
                    params.append(f'ns : "n{namespace_id}"')  # type: ignore[arg-type]
                cursor.execute(
                    f"SELECT rowid, ns FROM {kind.table} WHERE {where} ORDER BY rowid LIMIT %s",
                    [*params, CHUNK],
                )
                rows = [(int(pk), int(str(ns)[1:])) for pk, ns in cursor.fetchall()]
            else:
                where, params = "object_id > %s", [after]
                if namespace_id is not None:
                    where += " AND namespace_id = %s"
                    params.append(namespace_id)
                cursor.execute(
                    f"SELECT object_id, namespace_id FROM {kind.table} WHERE {where} "
                    "ORDER BY object_id LIMIT %s",
                    [*params, CHUNK],
                )
                rows = [(int(pk), int(ns)) for pk, ns in cursor.fetchall()]
        if not rows:
            return
        yield rows
        after = rows[-1][0]


# --- the check --------------------------------------------------------------------------------


def _violation(kind: Kind, code: str, namespace_id: int, object_id: int, why: str) -> Violation:
    return Violation(
        SEARCH_INDEX,
        code,
        namespace_id,
        {kind.name: object_id},
        f"{kind.name} {object_id}: {why}",
        fixable=True,
    )


def _object_side(kind: Kind, namespace_id: int | None) -> Iterator[Violation]:
    compare = _sqlite_compare if connection.vendor == "sqlite" else _postgres_compare
    for documents in chunks(DOCUMENTS[kind.name](namespace_id), CHUNK):
        namespaces = {d.object_id: d.namespace_id for d in documents}
        missing, stale = compare(kind, documents)
        for pk in missing:
            yield _violation(kind, MISSING, namespaces[pk], pk, "no search index row")
        for pk in stale:
            yield _violation(
                kind, STALE, namespaces[pk], pk, "its search index row differs from its content"
            )


def _index_side(kind: Kind, namespace_id: int | None) -> Iterator[Violation]:
    model = MODELS[kind.name]
    for rows in _index_rows(kind, namespace_id):
        owners = dict(
            model._default_manager.filter(pk__in=[pk for pk, _ in rows]).values_list(
                "pk", "namespace_id"
            )
        )
        for pk, ns in rows:
            if pk not in owners:
                yield _violation(
                    kind, ORPHAN, ns, pk, f"index row of namespace {ns} has no {kind.name}"
                )
            elif owners[pk] != ns:
                # The object's own check reports it too when its namespace is in scope.
                yield _violation(
                    kind, STALE, ns, pk, f"index row filed under namespace {ns}, not {owners[pk]}"
                )


def search_index_out_of_sync(namespace_id: int | None) -> list[Violation]:
    found: dict[tuple[str, str, int], Violation] = {}
    for kind in KINDS:
        for violation in [*_object_side(kind, namespace_id), *_index_side(kind, namespace_id)]:
            found.setdefault((violation.code, kind.name, int(violation.ids[kind.name])), violation)  # type: ignore[arg-type]
    return list(found.values())


CHECKS = (search_index_out_of_sync,)


# --- the repair -------------------------------------------------------------------------------


def _reindex(kind: str, ids: list[int]) -> None:
    if kind == "message":
        index_messages(Message.objects.filter(pk__in=ids).select_related("turn").order_by("pk"))
    elif kind == "event":
        index_events(Event.objects.filter(pk__in=ids).order_by("pk"))
    else:
        index_nodes(ids)


UNINDEX: dict[str, Callable[[Iterable[int]], None]] = {
    "message": unindex_messages,
    "event": unindex_events,
    "node": unindex_nodes,
}


def search_index_repair(violations: list[Violation]) -> list[Repair]:
    """Re-index what exists and drop index rows of what does not, re-read in the transaction:
    an object created or deleted since the check is indexed or unindexed as it is now."""
    wanted: dict[tuple[int, str], set[int]] = defaultdict(set)
    for violation in violations:
        kind = next(k for k in MODELS if k in violation.ids)
        wanted[(violation.namespace_id, kind)].add(int(violation.ids[kind]))  # type: ignore[arg-type]
    done: list[Repair] = []
    for (namespace_id, kind), ids in sorted(wanted.items()):
        reindexed: list[int] = []
        dropped: list[int] = []
        for chunk in chunks(sorted(ids), CHUNK):
            with write_transaction():
                present = set(
                    MODELS[kind]._default_manager.filter(pk__in=chunk).values_list("pk", flat=True)
                )
                if present:
                    _reindex(kind, sorted(present))
                gone = [pk for pk in chunk if pk not in present]
                if gone:
                    UNINDEX[kind](gone)
            reindexed += sorted(present)
            dropped += gone
        if reindexed:
            done.append(
                Repair(
                    "index_reindexed",
                    namespace_id,
                    f"re-indexed {len(reindexed)} {kind}s: {listed(reindexed)}",
                    {kind: reindexed},
                )
            )
        if dropped:
            done.append(
                Repair(
                    "index_orphans_removed",
                    namespace_id,
                    f"removed {len(dropped)} orphan {kind} index rows: {listed(dropped)}",
                    {kind: dropped},
                )
            )
    return done
