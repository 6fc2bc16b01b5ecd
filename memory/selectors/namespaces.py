"""Namespace reads: look-ups by name and the namespace's turn counter. (Every namespace with its
counts, for the Namespaces page, is memory.selectors.overview.)"""

from __future__ import annotations

import re

from memory.errors import NotFound
from memory.models import Namespace
from memory.models.namespaces import NAMESPACE_NAME_PATTERN

_NAME = re.compile(NAMESPACE_NAME_PATTERN)


def namespace_get(name: str) -> Namespace:
    # A name no namespace can have (a NUL byte, which PostgreSQL refuses even in a query) is
    # not looked up.
    namespace = Namespace.objects.filter(name=name).first() if _NAME.fullmatch(name) else None
    if namespace is None:
        raise NotFound(f"namespace {name[:200]!r} not found", code="namespace_not_found")
    return namespace


def namespace_turn(namespace: Namespace) -> int:
    """The committed turn counter (the instance may be older than the latest ingest)."""
    return Namespace.objects.values_list("current_turn", flat=True).get(pk=namespace.pk)


def namespace_names() -> list[str]:
    return list(Namespace.objects.order_by("name").values_list("name", flat=True))
