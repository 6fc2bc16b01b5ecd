"""Export a namespace (SPEC §11.7) as `stratagate.external-memory.v2` (events with lifecycle
state and both time axes) — the lossless JSONL dump lives in `dumpfile`.

Each event becomes a v2 candidate; what v2 has no field for (id, lifecycle status, supersede and
conflict links, pin, weight, origin, formed turn) goes in a `stratagate` object that other tools
ignore. Importing the document again brings back the active events only (parser rule). Text is
redacted on the way out (SPEC §15.3).
"""

from __future__ import annotations

from typing import Any

from django.utils import timezone

from memory.engine.redact import redact
from memory.models import Event, EventRelation, Namespace, RelationKind
from memory.selectors.events import event_weight
from memory.services.imports.parser import SCHEMA_V2, SOURCE_TYPE


def _category(event: Event) -> str | None:
    if event.criticality in ("identity", "preference"):
        return str(event.criticality)
    if event.criticality == "safety":
        return "instruction"
    return "project" if event.scope == "project" else None


def _memory_kind(event: Event) -> str:
    if event.event_type != "other":
        return "event"
    return "preference" if event.criticality == "preference" else "fact"


def event_candidate(event: Event, links: dict[str, list[int]], current_turn: int) -> dict[str, Any]:
    temporal: dict[str, Any] = {
        "mentionedAt": event.mentioned_at.isoformat(),
        "precision": event.temporal_precision,
        "basis": event.temporal_basis,
        "status": event.temporal_status,
        "eventType": event.event_type,
    }
    if event.happened_start is not None:
        temporal["happenedStart"] = event.happened_start.isoformat()
    if event.happened_end is not None:
        temporal["happenedEnd"] = event.happened_end.isoformat()
    if event.temporal_text:
        temporal["originalText"] = redact(event.temporal_text)
    if event.participants:
        temporal["participants"] = [redact(p) for p in event.participants]
    candidate: dict[str, Any] = {
        "memoryKind": _memory_kind(event),
        "title": redact(event.title),
        "summary": redact(event.summary),
        "tags": [redact(t) for t in event.tags],
        "quotes": [redact(q) for q in event.quotes],
        "temporal": temporal,
        "scope": event.scope,
        "criticality": event.criticality,
        "stratagate": {
            "id": event.pk,
            "status": event.status,
            "supersededBy": event.superseded_by_id,
            "supersedes": links.get("supersedes", []),
            "conflictsWith": links.get("conflicts_with", []),
            "pinned": event.pinned,
            "origin": event.origin,
            "formedTurn": event.formed_turn,
            "sourceBlockId": event.source_block_id,
            "weight": event_weight(event, current_turn).model_dump(),
        },
    }
    category = _category(event)
    if category:
        candidate["category"] = category
        if category not in candidate["tags"]:
            candidate["tags"] = [category, *candidate["tags"]][:12]
    return candidate


def export_v2(*, namespace: Namespace) -> dict[str, Any]:
    """Every event of the namespace, oldest first, as one v2 document."""
    namespace.refresh_from_db()
    links: dict[int, dict[str, list[int]]] = {}
    relations = EventRelation.objects.filter(
        namespace=namespace, kind__in=[RelationKind.SUPERSEDES, RelationKind.CONFLICTS_WITH]
    ).values_list("from_event_id", "to_event_id", "kind")
    for source, target, kind in relations.order_by("pk"):
        links.setdefault(source, {}).setdefault(kind, []).append(target)
    events = Event.objects.filter(namespace=namespace).order_by("pk")
    candidates = [
        event_candidate(e, links.get(e.pk, {}), namespace.current_turn)
        for e in events.iterator(chunk_size=1000)
    ]
    active = sum(1 for c in candidates if c["stratagate"]["status"] == "active")
    return {
        "schemaVersion": SCHEMA_V2,
        "sourceType": SOURCE_TYPE,
        "sourceSystem": "StrataGate",
        "exportedAt": timezone.now().isoformat(),
        "coverage": "full",
        "coverageNote": (
            f"All {len(candidates)} events of namespace {namespace.name} ({active} active); "
            "stratagate.status gives each one's lifecycle state."
        ),
        "uncertainItems": [],
        "candidates": candidates,
    }


__all__ = ["event_candidate", "export_v2"]
