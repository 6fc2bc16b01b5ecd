"""SQLite backend: one FTS5 table per kind, ranked by FTS5's own bm25() (k1 1.2, b 0.75) with
per-column weights (SPEC §8.2).

Each table's rowid is the object's id. Every term in the weighted columns is stored as
`<namespace id>_<term>`: the namespace filter is then part of each term, so a query only ever
reads its own namespace's doclists (and a term's document frequency is its namespace's). The
`ns` column (`n<id>`) serves namespace-wide deletes only; messages also have `session`
(`s<id>`). Terms arrive analyzed (memory.search.text) and space-joined; the `ascii` tokenizer
with `-` and `_` as token characters (migration 0004) splits them on spaces and changes nothing
else. Every query term is a quoted string: user input is never FTS5 syntax.
"""

from __future__ import annotations

from collections.abc import Sequence

from django.db import connection

from memory.models.rows import marks
from memory.search.documents import Document, Kind, Within


def _columns(kind: Kind) -> list[str]:
    return ["ns", *(["session"] if kind.has_session else []), *(f.name for f in kind.fields)]


def _weights(kind: Kind) -> str:
    filters = [0.0, *([0.0] if kind.has_session else [])]
    return ", ".join(str(w) for w in [*filters, *(f.weight for f in kind.fields)])


def _scoped(namespace_id: int, term: str) -> str:
    return f"{namespace_id}_{term}"


def _scoped_text(namespace_id: int, terms: Sequence[str]) -> str:
    """The terms scoped and space-joined, as one column's text (joined in C: a batch ingest
    writes about half a million terms)."""
    if not terms:
        return ""
    prefix = f"{namespace_id}_"
    return prefix + f" {prefix}".join(terms)


def _any_of(namespace_id: int, terms: Sequence[str], columns: Sequence[str] | None) -> str:
    """Any of the terms, in `columns` (None: in any column). A scoped term is only ever in the
    weighted columns (`ns` holds `n<id>`, `session` `s<id>`), so a filter naming all of them is
    left out: it changes no row and no score, and FTS5 checks it against each row's positions,
    about a seventh of a message search (docs/ARCHITECTURE.md, "Search")."""
    quoted = ('"' + _scoped(namespace_id, t).replace('"', '""') + '"' for t in terms)
    where = "{" + " ".join(columns) + "} : " if columns is not None else ""
    return where + "(" + " OR ".join(quoted) + ")"


def _hit_columns(kind: Kind) -> tuple[str, ...] | None:
    """The columns a hit needs a term in; None when every weighted column makes hits."""
    return None if kind.all_fields_make_hits else kind.hit_fields


def upsert(kind: Kind, documents: Sequence[Document]) -> None:
    if not documents:
        return
    columns = _columns(kind)
    placeholders = ", ".join(["%s"] * (len(columns) + 1))
    rows: list[tuple[int | str, ...]] = [
        (
            d.object_id,
            f"n{d.namespace_id}",
            *([f"s{d.session_id}"] if kind.has_session else []),
            *(_scoped_text(d.namespace_id, terms) for terms in d.fields),
        )
        for d in documents
    ]
    with connection.cursor() as cursor:
        # FTS5 honours OR REPLACE on the rowid: the old row's terms leave the index.
        cursor.executemany(
            f"INSERT OR REPLACE INTO {kind.table} (rowid, {', '.join(columns)}) "
            f"VALUES ({placeholders})",
            rows,
        )


def delete(kind: Kind, object_ids: Sequence[int]) -> None:
    # One statement per id: FTS5 looks a rowid up directly, but `rowid IN (…)` scans the table.
    with connection.cursor() as cursor:
        cursor.executemany(f"DELETE FROM {kind.table} WHERE rowid = %s", [(i,) for i in object_ids])


def delete_namespace(kind: Kind, namespace_id: int) -> None:
    with connection.cursor() as cursor:
        cursor.execute(
            f"DELETE FROM {kind.table} WHERE rowid IN "
            f"(SELECT rowid FROM {kind.table} WHERE {kind.table} MATCH %s)",
            [f'ns : "n{namespace_id}"'],
        )


def delete_all(kind: Kind) -> None:
    with connection.cursor() as cursor:
        cursor.execute(f"DELETE FROM {kind.table}")


def doc_counts(kind: Kind, namespace_id: int, terms: Sequence[str], cap: int) -> list[int]:
    """How many of the namespace's rows hold each term in a column that makes hits, counting
    no further than `cap` (so a very common term costs at most `cap` steps)."""
    table = kind.table
    names = _hit_columns(kind)
    one = f"(SELECT count(*) FROM (SELECT 1 FROM {table} WHERE {table} MATCH %s LIMIT %s))"
    params: list[str | int] = []
    for term in terms:
        params.extend([_any_of(namespace_id, [term], names), cap])
    with connection.cursor() as cursor:
        cursor.execute("SELECT " + ", ".join([one] * len(terms)), params)
        row = cursor.fetchone()
    return [int(n) for n in row]


# Stored fields are read this many rows a statement (SQLite allows 500 compound SELECTs).
FIELDS_CHUNK = 200


def document_fields(
    kind: Kind, object_ids: Sequence[int], fields: Sequence[str]
) -> dict[int, tuple[tuple[str, ...], ...]]:
    """Each indexed object's terms in `fields` (in that order) as its index row holds them,
    without their namespace prefix; an object with no index row is left out. One rowid
    lookup each (`rowid IN (…)` would scan the table)."""
    known = {f.name for f in kind.fields}
    if not set(fields) <= known:
        raise ValueError(f"{kind.name} has no field {sorted(set(fields) - known)}")
    ids = list(dict.fromkeys(object_ids))
    one = f"SELECT rowid, {', '.join(fields)} FROM {kind.table} WHERE rowid = %s"
    found: dict[int, tuple[tuple[str, ...], ...]] = {}
    with connection.cursor() as cursor:
        for start in range(0, len(ids), FIELDS_CHUNK):
            chunk = ids[start : start + FIELDS_CHUNK]
            cursor.execute(" UNION ALL ".join([one] * len(chunk)), chunk)
            for object_id, *texts in cursor.fetchall():
                found[int(object_id)] = tuple(
                    tuple(term.split("_", 1)[1] for term in (text or "").split()) for text in texts
                )
    return found


# Up to this many of a namespace's rows outside a search's statuses, the search ranks every
# matching row and then looks up the status of only the best `limit` + that many; beyond it,
# each matching row's status is looked up before it is scored.
MAX_SKIPPED = 1000


def _count_capped(kind: Kind, namespace_id: int, statuses: Sequence[str], cap: int) -> int:
    """The namespace's base rows whose status is one of `statuses`, counted to `cap + 1`."""
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT count(*) FROM (SELECT 1 FROM {kind.base_table} WHERE namespace_id = %s "
            f"AND status IN ({marks(statuses)}) LIMIT %s)",
            [namespace_id, *statuses, cap + 1],
        )
        return int(cursor.fetchone()[0])


def search(
    kind: Kind,
    namespace_id: int,
    gate: Sequence[str],
    rank: Sequence[str],
    limit: int,
    *,
    session_id: int | None = None,
    statuses: Sequence[str] | None = None,
    within: Within | None = None,
) -> list[tuple[int, float]]:
    """(object id, positive score) best first, ties by id, over rows holding a `gate` term;
    the other `rank` terms only add to their score (see memory.search.query). `within`: score
    only those rows."""
    table = kind.table
    match = _any_of(namespace_id, gate, None)
    extra = [t for t in rank if t not in gate]
    if extra:
        # "(extra OR gate)" is true on every gated row, so the extra terms are scored without
        # widening the match set (the gate's phrases are counted twice; see query.py).
        match += f" AND ({_any_of(namespace_id, extra, None)} OR {match})"
    if session_id is not None:
        match += f' AND session : "s{session_id}"'
    params: list[str | int] = [match]
    sql = f"SELECT {table}.rowid AS id, bm25({table}, {_weights(kind)}) AS score FROM {table}"
    where = [f"{table} MATCH %s"]
    others: list[str] = []  # the statuses to skip when they are checked after ranking
    if statuses is not None:
        others = [s for s in kind.statuses if s not in statuses]
        if not kind.statuses or (
            others and _count_capped(kind, namespace_id, others, MAX_SKIPPED) > MAX_SKIPPED
        ):
            # CROSS JOIN keeps the FTS5 cursor the outer loop (SQLite never reorders it).
            sql += f" CROSS JOIN {kind.base_table} base ON base.id = {table}.rowid"
            where.append(f"base.status IN ({marks(statuses)})")
            params.extend(statuses)
            others = []
    # The unary + stops SQLite from turning a rowid filter into one FTS5 lookup per rowid.
    matching = f"+{table}.rowid IN (SELECT rowid FROM {table} WHERE {table} MATCH %s)"
    hit = None if kind.all_fields_make_hits else _any_of(namespace_id, gate, kind.hit_fields)
    if within is not None:
        # The rows holding an added term (with a gate term where it makes hits), and the given
        # hits, which passed the hit filter already: the other gated rows are never scored.
        added = _any_of(namespace_id, within.terms, None)
        where.append(
            f"(+{table}.rowid IN ({marks(within.ids)}) OR {matching})" if within.ids else matching
        )
        params.extend([*within.ids, f"{added} AND {hit}" if hit else added])
    elif hit is not None:
        # Ranking counts every column; a hit needs a gate term outside the ranking-only columns
        # (a neighbour's rare word must not let in a row that only holds common ones).
        where.append(matching)
        params.append(hit)
    sql += " WHERE " + " AND ".join(where) + f" ORDER BY score, {table}.rowid LIMIT %s"
    params.append(limit)
    if statuses is not None and others:
        # No more rows of the other statuses than the namespace holds rank above the best
        # `limit` of these, so those are among the first `limit` + that many: only they are
        # looked up. Counted in the same statement, so a concurrent write cannot come between.
        sql += (
            f" + (SELECT count(*) FROM {kind.base_table} "
            f"WHERE namespace_id = %s AND status IN ({marks(others)}))"
        )
        sql = (
            f"SELECT r.id, r.score FROM ({sql}) r CROSS JOIN {kind.base_table} base "
            f"ON base.id = r.id WHERE base.status IN ({marks(statuses)}) "
            "ORDER BY r.score, r.id LIMIT %s"
        )
        params.extend([namespace_id, *others, *statuses, limit])
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        rows = cursor.fetchall()
    # FTS5's bm25 is negative-better; it is never 0 for a row matching a weighted column.
    return [(int(object_id), max(-float(score), 1e-12)) for object_id, score in rows]
