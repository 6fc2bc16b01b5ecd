"""What an evidence ref points at, in words, for every ref a page shows: one query per kind."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django.db.models import OuterRef, Subquery

from memory.engine.gate import parse_ref
from memory.engine.redact import redact
from memory.models import Block, BlockView, Event, GraphFact, GraphNode, Message, Namespace
from memory.selectors.out import Out

SNIPPET_CHARS = 300


def snippet(text: str, limit: int = SNIPPET_CHARS) -> str:
    """Redacted first, then cut: a cut must never split a secret out of its pattern."""
    clean = redact(text)
    return clean if len(clean) <= limit else clean[: limit - 1].rstrip() + "…"


class RefTitleOut(Out):
    """What a ref points at: an event's title, a node's name, a fact's key = value, a raw
    message's opening, a block's L0 title. `found` is False when it no longer exists."""

    ref: str
    kind: str
    object_id: int
    level: int | None
    found: bool
    label: str
    detail: str  # event type, node type, the fact's node, a message's turn, a block's turns
    status: str  # event or fact status, a message's role, a block's status
    node_id: int | None = None  # a fact's node
    session_id: str | None = None  # a message's or block's session


def ref_missing(ref: str) -> RefTitleOut:
    """A ref whose object is gone (or that never parsed): shown as the ref itself."""
    parsed = parse_ref(ref)
    return RefTitleOut.model_construct(
        ref=ref,
        kind=parsed.kind if parsed else "",
        object_id=parsed.object_id if parsed else 0,
        level=parsed.level if parsed else None,
        found=False,
        label=ref,
        detail="",
        status="",
    )


def _events(namespace: Namespace, ids: set[int]) -> dict[int, dict[str, Any]]:
    rows = Event.objects.filter(namespace=namespace, pk__in=ids)
    return {
        pk: {"label": redact(title), "detail": kind, "status": status}
        for pk, title, status, kind in rows.values_list("pk", "title", "status", "event_type")
    }


def _nodes(namespace: Namespace, ids: set[int]) -> dict[int, dict[str, Any]]:
    rows = GraphNode.objects.filter(namespace=namespace, pk__in=ids)
    return {
        pk: {"label": redact(name), "detail": kind, "status": ""}
        for pk, name, kind in rows.values_list("pk", "name", "node_type")
    }


def _facts(namespace: Namespace, ids: set[int]) -> dict[int, dict[str, Any]]:
    rows = GraphFact.objects.filter(namespace=namespace, pk__in=ids).values_list(
        "pk", "key", "value", "status", "node_id", "node__name"
    )
    return {
        pk: {
            "label": redact(f"{key} = {value}"),
            "detail": redact(node_name),
            "status": status,
            "node_id": node_id,
        }
        for pk, key, value, status, node_id, node_name in rows
    }


def _messages(namespace: Namespace, ids: set[int]) -> dict[int, dict[str, Any]]:
    rows = Message.objects.filter(namespace=namespace, pk__in=ids).values_list(
        "pk", "role", "content", "session__external_id", "turn__session_turn"
    )
    return {
        pk: {
            "label": snippet(content, 200),
            "detail": str(turn),
            "status": role,
            "session_id": redact(session),
        }
        for pk, role, content, session, turn in rows
    }


def _blocks(namespace: Namespace, ids: set[int]) -> dict[int, dict[str, Any]]:
    title = BlockView.objects.filter(block=OuterRef("pk"), level=0).values("content")[:1]
    rows = (
        Block.objects.filter(namespace=namespace, pk__in=ids)
        .annotate(l0=Subquery(title))
        .values_list("pk", "session__external_id", "first_turn", "last_turn", "status", "l0")
    )
    return {
        pk: {
            "label": snippet(l0 or "", 200),
            "detail": f"{first}–{last}" if last != first else str(first),
            "status": status,
            "session_id": redact(session),
        }
        for pk, session, first, last, status, l0 in rows
    }


_LOOKUPS = {
    "event": _events,
    "node": _nodes,
    "fact": _facts,
    "raw": _messages,
    "block": _blocks,
}


def ref_titles(namespace: Namespace, refs: Iterable[str]) -> dict[str, RefTitleOut]:
    """Titles of these refs in this namespace, one query per kind present (at most five).
    A ref that does not parse is left out; one whose object is gone (or belongs to another
    namespace) comes back `found=False`."""
    parsed = {ref: p for ref in set(refs) if (p := parse_ref(ref)) is not None}
    wanted: dict[str, set[int]] = {}
    for p in parsed.values():
        wanted.setdefault(p.kind, set()).add(p.object_id)
    found = {kind: _LOOKUPS[kind](namespace, ids) for kind, ids in wanted.items()}
    out: dict[str, RefTitleOut] = {}
    for ref, p in parsed.items():
        row = found[p.kind].get(p.object_id)
        out[ref] = (
            ref_missing(ref)
            if row is None
            else RefTitleOut.model_construct(
                ref=ref,
                kind=p.kind,
                object_id=p.object_id,
                level=p.level,
                found=True,
                label=row["label"],
                detail=row["detail"],
                status=row["status"],
                node_id=row.get("node_id"),
                session_id=row.get("session_id"),
            )
        )
    return out


def title_of(titles: dict[str, RefTitleOut], ref: str) -> RefTitleOut:
    return titles.get(ref) or ref_missing(ref)
