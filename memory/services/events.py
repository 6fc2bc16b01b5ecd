"""Event lifecycle writes: create with provenance, supersede, conflict, forget/restore/pin.

Content and provenance are never edited; only status, relations and weight fields change.
Every function here must run inside the caller's transaction unless it opens its own.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.db import transaction

from memory.engine.lifecycle import HIDDEN_STATUSES, VISIBLE_STATUSES
from memory.engine.prompts.extraction import ExtractedEvent
from memory.errors import Conflict, Invalid
from memory.models import (
    Block,
    Event,
    EventOrigin,
    EventRelation,
    EventStatus,
    Message,
    RelationKind,
)
from memory.models.rows import insert_rows, insert_values
from memory.search import index_events
from memory.search.index import index_nodes_of_events
from memory.services.audit import admin_action
from memory.services.live import publish


@dataclass(frozen=True)
class EventContext:
    """Where a new event comes from: its block, the turn it was formed at and the mention time."""

    block: Block
    formed_turn: int
    messages: dict[int, Message]
    origin: str = EventOrigin.EXTRACTION


def event_create(*, extracted: ExtractedEvent, context: EventContext) -> Event:
    """Store one grounded event; mention time is its first source message's time (SPEC §5.2)."""
    sources = [context.messages[i] for i in extracted.source_message_ids if i in context.messages]
    if not sources:
        raise Invalid("an event needs at least one source message in its block", code="no_sources")
    # Plain rows (memory.models.rows): the ORM's create and `source_messages.set` were most of
    # storing an extracted event, compiling more than they ran.
    (event,) = insert_rows(
        [
            Event(
                namespace_id=context.block.namespace_id,
                title=extracted.title,
                summary=extracted.summary,
                event_type=extracted.event_type,
                tags=extracted.tags,
                quotes=extracted.quotes,
                participants=extracted.participants,
                scope=extracted.scope,
                criticality=extracted.criticality,
                origin=context.origin,
                source_block=context.block,
                formed_turn=context.formed_turn,
                mentioned_at=min(m.created_at for m in sources),
                happened_start=extracted.happened_start,
                happened_end=extracted.happened_end,
                temporal_text=(extracted.original_text or "")[:300],
                temporal_precision=extracted.precision,
                temporal_basis=extracted.basis,
                temporal_status=extracted.temporal_status,
                last_adopted_turn=context.formed_turn,
            )
        ]
    )
    insert_values(
        Event.source_messages.through,
        ["event_id", "message_id"],
        [(event.pk, message_id) for message_id in dict.fromkeys(m.pk for m in sources)],
    )
    index_events([event])  # same transaction as the event (SPEC §8)
    return event


def _link(event: Event, other: Event, kind: str) -> None:
    EventRelation.objects.get_or_create(
        namespace_id=event.namespace_id, from_event=event, to_event=other, kind=kind
    )


def event_supersede(*, new: Event, old: Event) -> None:
    """Mark `old` superseded by `new` (weight capped at 0.1 by status); content stays."""
    if old.pk == new.pk:
        return
    _link(new, old, RelationKind.SUPERSEDES)
    if old.status == EventStatus.ACTIVE:
        old.status = EventStatus.SUPERSEDED
    old.superseded_by = new
    old.save(update_fields=["status", "superseded_by"])
    index_nodes_of_events([old.pk])  # its facts/edges may turn historical (SPEC §6.4)


def event_conflict(*, event: Event, other: Event) -> None:
    """Both stay active, linked both ways, until new evidence resolves it."""
    if event.pk == other.pk:
        return
    _link(event, other, RelationKind.CONFLICTS_WITH)
    _link(other, event, RelationKind.CONFLICTS_WITH)


def event_relate(*, event: Event, other: Event, kind: str) -> None:
    if kind == RelationKind.SUPERSEDES:
        event_supersede(new=event, old=other)
    elif kind == RelationKind.CONFLICTS_WITH:
        event_conflict(event=event, other=other)
    elif event.pk != other.pk:
        _link(event, other, kind)


LIFECYCLE_ACTIONS = ("pin", "unpin", "forget", "restore", "archive")


def event_lifecycle(*, event: Event, action: str, actor: str) -> Event:
    """Admin actions; hidden events weigh 0 and leave retrieval, restore brings them back."""
    if action not in LIFECYCLE_ACTIONS:
        raise Invalid(f"unknown action {action!r}", code="invalid_action")
    with transaction.atomic():
        locked = Event.objects.select_for_update().get(pk=event.pk)
        before = {"status": locked.status, "pinned": locked.pinned}
        if action == "pin":
            locked.pinned = True
        elif action == "unpin":
            locked.pinned = False
        elif action == "forget":
            locked.status = EventStatus.FORGOTTEN
        elif action == "archive":
            locked.status = EventStatus.ARCHIVED
        else:
            if locked.status not in HIDDEN_STATUSES:
                raise Conflict(
                    f"event {locked.pk} is {locked.status}; only hidden events can be restored",
                    code="event_not_hidden",
                )
            superseder = locked.superseded_by
            still_superseded = superseder is not None and superseder.status in VISIBLE_STATUSES
            locked.status = EventStatus.SUPERSEDED if still_superseded else EventStatus.ACTIVE
        locked.save(update_fields=["status", "pinned"])
        if locked.status != before["status"]:
            index_nodes_of_events([locked.pk])  # graph current/historical follows status
        admin_action(
            action,
            namespace_id=locked.namespace_id,
            actor=actor,
            target=f"event:{locked.pk}",
            details={"before": before, "after": {"status": locked.status, "pinned": locked.pinned}},
        )
        publish(locked.namespace_id, "event.changed", action=action, event_ids=[locked.pk])
    return locked
