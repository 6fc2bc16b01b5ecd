"""Picks the full-text backend for the database in use: FTS5 on SQLite, tsvector on PostgreSQL."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from django.core.exceptions import ImproperlyConfigured
from django.db import connection

from memory.search import postgres, sqlite_fts5
from memory.search.documents import Document, Kind, Within


class SearchBackend(Protocol):
    """Both backends store analyzed documents and rank them; they must run inside the
    caller's transaction, so an index write commits or rolls back with the write it follows."""

    def upsert(self, kind: Kind, documents: Sequence[Document]) -> None: ...

    def delete(self, kind: Kind, object_ids: Sequence[int]) -> None: ...

    def delete_namespace(self, kind: Kind, namespace_id: int) -> None: ...

    def delete_all(self, kind: Kind) -> None: ...

    def doc_counts(
        self, kind: Kind, namespace_id: int, terms: Sequence[str], cap: int
    ) -> list[int]: ...

    def document_fields(
        self, kind: Kind, object_ids: Sequence[int], fields: Sequence[str]
    ) -> dict[int, tuple[tuple[str, ...], ...]] | None: ...

    def search(
        self,
        kind: Kind,
        namespace_id: int,
        gate: Sequence[str],
        rank: Sequence[str],
        limit: int,
        *,
        session_id: int | None = None,
        statuses: Sequence[str] | None = None,
        within: Within | None = None,
    ) -> list[tuple[int, float]]: ...


def backend() -> SearchBackend:
    if connection.vendor == "sqlite":
        return sqlite_fts5
    if connection.vendor == "postgresql":
        return postgres
    raise ImproperlyConfigured(
        f"StrataGate supports SQLite and PostgreSQL; {connection.vendor} has no search backend"
    )
