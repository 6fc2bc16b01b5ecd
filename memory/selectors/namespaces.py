"""Namespace reads: look-ups by name and the namespace's turn counter."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from django.db.models import Count, Q

from memory.errors import NotFound
from memory.models import BlockStatus, Namespace


def namespace_get(name: str) -> Namespace:
    namespace = Namespace.objects.filter(name=name).first()
    if namespace is None:
        raise NotFound(f"namespace {name[:200]!r} not found", code="namespace_not_found")
    return namespace


def namespace_turn(namespace: Namespace) -> int:
    """The committed turn counter (the instance may be older than the latest ingest)."""
    return Namespace.objects.values_list("current_turn", flat=True).get(pk=namespace.pk)


@dataclass(frozen=True)
class NamespaceRow:
    name: str
    current_turn: int
    sessions: int
    blocks_ready: int
    blocks_pending: int
    blocks_failed: int
    last_activity_at: datetime | None


def namespace_overview() -> list[NamespaceRow]:
    rows = Namespace.objects.annotate(
        n_sessions=Count("sessions", distinct=True),
        n_ready=Count("blocks", filter=Q(blocks__status=BlockStatus.READY), distinct=True),
        n_pending=Count("blocks", filter=Q(blocks__status=BlockStatus.PENDING), distinct=True),
        n_failed=Count("blocks", filter=Q(blocks__status=BlockStatus.FAILED), distinct=True),
    ).order_by("name")
    return [
        NamespaceRow(
            name=ns.name,
            current_turn=ns.current_turn,
            sessions=ns.n_sessions,
            blocks_ready=ns.n_ready,
            blocks_pending=ns.n_pending,
            blocks_failed=ns.n_failed,
            last_activity_at=ns.last_activity_at,
        )
        for ns in rows
    ]


def namespace_names() -> list[str]:
    return list(Namespace.objects.order_by("name").values_list("name", flat=True))
