"""Namespace reads: look-ups by name and the namespace's turn counter. (Every namespace with its
counts, for the Namespaces page, is memory.selectors.overview.)"""

from __future__ import annotations

import re

from memory.errors import NotFound
from memory.models import Namespace
from memory.models.namespaces import NAMESPACE_NAME_PATTERN
from memory.models.rows import read_rows

_NAME = re.compile(NAMESPACE_NAME_PATTERN)


def namespace_get(name: str) -> Namespace:
    # A name no namespace can have (a NUL byte, which PostgreSQL refuses even in a query) is
    # not looked up.
    namespace = Namespace.objects.filter(name=name).first() if _NAME.fullmatch(name) else None
    if namespace is None:
        raise NotFound(f"namespace {name[:200]!r} not found", code="namespace_not_found")
    return namespace


def namespace_turn(namespace: Namespace) -> int:
    """The committed turn counter (the instance may be older than the latest ingest). Plain
    SQL: every search, batch and context call reads it."""
    rows = read_rows(
        f"SELECT current_turn FROM {Namespace._meta.db_table} WHERE id = %s", [namespace.pk]
    )
    if not rows:
        raise Namespace.DoesNotExist(f"namespace {namespace.pk} does not exist")
    return int(rows[0][0])


def namespace_id_of(name: str) -> int | None:
    """The id of the namespace of that name, or None."""
    if not _NAME.fullmatch(name):
        return None
    return Namespace.objects.filter(name=name).values_list("id", flat=True).first()
