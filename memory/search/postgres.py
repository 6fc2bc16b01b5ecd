"""PostgreSQL backend: one table per kind with a weighted tsvector under a GIN index, ranked
by ts_rank (SPEC §8.2).

The tsvector is written as a literal built from the analyzed terms (memory.search.text), so no
text-search parser or dictionary touches them and PostgreSQL indexes exactly the terms SQLite
does. PostgreSQL has four weight classes; a field's weight picks its class (×5–6 → A, ×4 → B,
×2–3 → C, ×1 → D) and the ts_rank weights array gives each class its share. The session
(`#s<id>`) is a position-less lexeme in the same vector, so a session filter is part of the GIN
lookup; analyzed terms never contain `#`, so they cannot collide. The namespace is only the
`namespace_id` column: as a lexeme (`#ns<id>`) every query had to intersect the namespace's
whole posting tree, 28 ms of a 29-ms lookup on a 100k-message namespace.

A ranking-only field (a message's neighbours, a node's relation labels) stores its terms as
`~term`: a plain lexeme is then always in a field that makes hits, so counting a term's rows
and the gate filter are exact GIN lookups. (Told apart by weight class instead, `'term':C` made
PostgreSQL recheck every row's tsvector: 13.6 ms for a term in 1,000–5,000 of 100k messages.)
Ranking asks for both forms.
"""

from __future__ import annotations

from collections.abc import Sequence

from django.db import connection

from memory.search.documents import Document, Kind, Within

# ts_rank weights, in PostgreSQL's {D, C, B, A} order: the mid-point of each class's field
# weights, relative to the top class.
RANK_WEIGHTS = "{0.18,0.45,0.73,1.0}"
MAX_POSITION = 16383  # PostgreSQL clamps positions here
MAX_POSITIONS_PER_LEXEME = 255
# A tsvector must stay under 1 MB; stop adding new lexemes well before that.
MAX_VECTOR_BYTES = 800_000
RANK_ONLY = "~"  # the prefix of a ranking-only field's terms; analyzed terms never hold it
# Length normalisation: rank / (1 + log(document length)), closest to BM25's length term.
RANK_NORMALIZATION = 1


def weight_class(weight: float) -> str:
    if weight >= 5:
        return "A"
    if weight >= 4:
        return "B"
    if weight >= 2:
        return "C"
    return "D"


def _lexeme(term: str) -> str:
    return "'" + term.replace("\\", "\\\\").replace("'", "''") + "'"


def vector_literal(kind: Kind, document: Document) -> str:
    """The document as tsvector input: every term with its positions and weight class."""
    positions: dict[str, list[str]] = {}
    size = 0
    position = 0
    for field, terms in zip(kind.fields, document.fields, strict=True):
        label = weight_class(field.weight)
        prefix = "" if field.makes_hit else RANK_ONLY
        for term in terms:
            term = prefix + term
            position = min(position + 1, MAX_POSITION)
            seen = positions.get(term)
            if seen is None:
                cost = len(term.encode()) + 8
                if size + cost > MAX_VECTOR_BYTES:
                    continue
                size += cost
                positions[term] = seen = []
            if len(seen) < MAX_POSITIONS_PER_LEXEME:
                seen.append(f"{position}{label}")
                size += 2
    parts = [f"{_lexeme(term)}:{','.join(marks)}" for term, marks in positions.items()]
    if kind.has_session and document.session_id is not None:
        parts.append(_lexeme(f"#s{document.session_id}"))
    return " ".join(parts)


def _any_of(terms: Sequence[str]) -> str:
    return "(" + " | ".join(_lexeme(t) for t in terms) + ")"


def _ranked(kind: Kind, terms: Sequence[str]) -> str:
    """The ranking query: each term, and its ranking-only form where the kind has such fields."""
    if kind.all_fields_make_hits:
        return _any_of(terms)
    return _any_of([form for t in terms for form in (t, RANK_ONLY + t)])


def upsert(kind: Kind, documents: Sequence[Document]) -> None:
    if not documents:
        return
    rows = [(d.object_id, d.namespace_id, d.session_id, vector_literal(kind, d)) for d in documents]
    with connection.cursor() as cursor:
        cursor.executemany(
            f"INSERT INTO {kind.table} (object_id, namespace_id, session_id, document) "
            "VALUES (%s, %s, %s, %s::tsvector) ON CONFLICT (object_id) DO UPDATE SET "
            "namespace_id = EXCLUDED.namespace_id, session_id = EXCLUDED.session_id, "
            "document = EXCLUDED.document",
            rows,
        )


def delete(kind: Kind, object_ids: Sequence[int]) -> None:
    ids = list(object_ids)
    if ids:
        with connection.cursor() as cursor:
            cursor.execute(f"DELETE FROM {kind.table} WHERE object_id = ANY(%s)", [ids])


def delete_namespace(kind: Kind, namespace_id: int) -> None:
    with connection.cursor() as cursor:
        cursor.execute(f"DELETE FROM {kind.table} WHERE namespace_id = %s", [namespace_id])


def delete_all(kind: Kind) -> None:
    with connection.cursor() as cursor:
        cursor.execute(f"DELETE FROM {kind.table}")


def doc_counts(kind: Kind, namespace_id: int, terms: Sequence[str], cap: int) -> list[int]:
    """How many of the namespace's rows hold each term in a field that makes hits, counting no
    further than `cap`."""
    one = (
        f"(SELECT count(*) FROM (SELECT 1 FROM {kind.table} WHERE namespace_id = %s "
        "AND document @@ %s::tsquery LIMIT %s) c)"
    )
    params: list[str | int] = []
    for term in terms:
        params.extend([namespace_id, _lexeme(term), cap])
    with connection.cursor() as cursor:
        cursor.execute("SELECT " + ", ".join([one] * len(terms)), params)
        row = cursor.fetchone()
    return [int(n) for n in row]


def document_fields(
    kind: Kind, object_ids: Sequence[int], fields: Sequence[str]
) -> dict[int, tuple[tuple[str, ...], ...]] | None:
    """None: a tsvector keeps a term's weight class, not its field (`memory.search.index.
    indexed_fields` builds the documents instead)."""
    return None


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
    the other `rank` terms only add to their score (see memory.search.query). `within`: rank
    only those rows."""
    table = kind.table
    filter_query = _any_of(gate)
    if session_id is not None:
        filter_query += f" & {_lexeme(f'#s{session_id}')}"
    sql = (
        f"SELECT s.object_id, ts_rank(%s::float4[], s.document, %s::tsquery, "
        f"{RANK_NORMALIZATION}) AS score FROM {table} s"
    )
    params: list[str | int | list[str] | list[int]] = [RANK_WEIGHTS, _ranked(kind, rank)]
    where = ["s.document @@ %s::tsquery", "s.namespace_id = %s"]
    params.extend([filter_query, namespace_id])
    if within is not None:
        # The rows holding an added term (in any field) among the gated ones, or given.
        where.append("(s.document @@ %s::tsquery OR s.object_id = ANY(%s))")
        params.extend([f"{filter_query} & {_ranked(kind, within.terms)}", list(within.ids)])
    if statuses is not None:
        sql += f" JOIN {kind.base_table} base ON base.id = s.object_id"
        where.append("base.status = ANY(%s)")
        params.append(list(statuses))
    sql += " WHERE " + " AND ".join(where) + " ORDER BY score DESC, s.object_id LIMIT %s"
    params.append(limit)
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        rows = cursor.fetchall()
    return [(int(object_id), max(float(score), 1e-12)) for object_id, score in rows]
