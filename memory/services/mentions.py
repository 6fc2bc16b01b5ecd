"""One event per fact (issue 29): a fact stated again, in the same or another session, adds a
mention to the existing event instead of a second active event. Both extraction paths (offline
rules and model) store their events through `services.extraction._store_events`, which asks
`event_mention_target` first; the rule itself is `memory.engine.event_identity`.

A mention is not use (SPEC §7): it never touches `adoptions`, `last_adopted_turn` or any other
weight field. What it changes: the event gains the mention's source messages (so search hits,
evidence refs and recall count them), its new quotes (re-indexed), `mention_count` and
`last_mentioned_at`; an `EventMention` row keeps the mention's block, time, messages and the
quotes it added, so an import undo can take it back out exactly.

Every function runs inside the caller's transaction.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from typing import Final

from memory.engine.event_identity import FactText, best_match, numbers
from memory.engine.event_types import NOT_CURRENT
from memory.engine.prompts.extraction import MAX_QUOTES, ExtractedEvent
from memory.engine.stated_facts import names_agree, restates, stated_facts
from memory.models import Event, EventMention, EventOrigin, EventStatus, Message
from memory.models.rows import columns_of, insert_values, read_values
from memory.search import index_events
from memory.services.supersession import may_state, speaker_of

# The candidates a new event is compared with: the namespace's most recent active extracted
# events of its type. Bounded, so storing an event costs one indexed read however big the
# namespace is; a fact last said more than this many same-type events ago becomes a new event.
CANDIDATES: Final = 200

_CANDIDATE_COLUMNS = columns_of(
    Event, ["id", "title", "summary", "participants", "happened_start", "happened_end"], "e"
)
_FACT_COLUMNS = columns_of(
    Event, ["id", "title", "summary", "participants", "temporal_status"], "e"
)


def fact_text(extracted: ExtractedEvent | Event) -> FactText:
    """What identity compares of an extracted event or a stored one (same field names)."""
    return FactText(
        event_type=extracted.event_type,
        summary=extracted.summary,
        title=extracted.title,
        participants=tuple(extracted.participants),
        happened_start=extracted.happened_start,
        happened_end=extracted.happened_end,
    )


def event_mention_target(*, namespace_id: int, extracted: ExtractedEvent) -> Event | None:
    """The active extracted event of this namespace that states the same fact, or None.

    Only events from conversations (origin `extraction`) are targets: an imported event can be
    undone whole, which would take a conversation's statement with it."""
    candidates = fact_candidates(
        namespace_id=namespace_id, event_type=extracted.event_type, extracted_only=True
    )
    match = best_match(fact_text(extracted), candidates)
    if match is None:
        match = _relations_restated(namespace_id, extracted)
    if match is None:
        return None
    return Event.objects.select_for_update().get(pk=match)


def fact_candidates(
    *, namespace_id: int, event_type: str, extracted_only: bool
) -> list[tuple[int, FactText]]:
    """The namespace's `CANDIDATES` most recent active events of this type, newest first, as
    identity compares them (only those from conversations when `extracted_only`)."""
    origin = "AND e.origin = %s " if extracted_only else ""
    rows = read_values(
        _CANDIDATE_COLUMNS,
        f"FROM {Event._meta.db_table} e WHERE e.namespace_id = %s AND e.status = %s "
        f"{origin}AND e.event_type = %s ORDER BY e.id DESC LIMIT %s",
        [
            namespace_id,
            EventStatus.ACTIVE,
            *([EventOrigin.EXTRACTION] if extracted_only else []),
            event_type,
            CANDIDATES,
        ],
    )
    return [
        (pk, FactText(event_type, summary, title, tuple(people or ()), start, end))
        for pk, title, summary, people, start, end in rows
    ]


def _relations_restated(namespace_id: int, extracted: ExtractedEvent) -> int | None:
    """The newest active current event, of any type, that already states every relation fact
    `extracted` states ("Reminder: I own the billing service"; "订单服务现在部署在腾讯云上"
    after the migration to 腾讯云), or None (`memory.engine.stated_facts.restates`)."""
    if extracted.temporal_status in NOT_CURRENT:
        return None
    new = stated_facts(extracted.summary, speaker_of(extracted.participants))
    if not new:
        return None
    rows = read_values(
        _FACT_COLUMNS,
        f"FROM {Event._meta.db_table} e WHERE e.namespace_id = %s AND e.status = %s "
        "AND e.origin = %s ORDER BY e.id DESC LIMIT %s",
        [namespace_id, EventStatus.ACTIVE, EventOrigin.EXTRACTION, CANDIDATES],
    )
    said = numbers(extracted.summary, extracted.title)
    for pk, title, summary, people, status in rows:
        speaker = speaker_of(people)
        if status in NOT_CURRENT or not may_state(new, summary, speaker):
            continue
        if numbers(summary, title) != said:  # "Firm 1" / "Firm 2": a number says another fact
            continue
        if restates(
            new, stated_facts(summary, speaker), extracted.summary, summary
        ) and names_agree(extracted.summary, summary):
            return int(pk)
    return None


def event_mention_add(
    *,
    event: Event,
    extracted: ExtractedEvent,
    block_id: int,
    formed_turn: int,
    messages: dict[int, Message],
) -> EventMention:
    """Record `extracted` as a further mention of `event` (locked by the caller's read)."""
    sources = [messages[i] for i in extracted.source_message_ids if i in messages]
    mentioned_at = min(m.created_at for m in sources)
    have = {q.casefold() for q in event.quotes}
    added: list[str] = []
    for quote in extracted.quotes:
        if len(event.quotes) + len(added) >= MAX_QUOTES:
            break
        if quote.casefold() not in have:
            have.add(quote.casefold())
            added.append(quote)
    mention = EventMention.objects.create(
        namespace_id=event.namespace_id,
        event=event,
        block_id=block_id,
        mentioned_at=mentioned_at,
        formed_turn=formed_turn,
        quotes_added=added,
    )
    source_ids = list(dict.fromkeys(m.pk for m in sources))
    insert_values(
        EventMention.messages.through,
        ["eventmention_id", "message_id"],
        [(mention.pk, i) for i in source_ids],
    )
    cited = set(
        Event.source_messages.through.objects.filter(
            event_id=event.pk, message_id__in=source_ids
        ).values_list("message_id", flat=True)
    )
    insert_values(
        Event.source_messages.through,
        ["event_id", "message_id"],
        [(event.pk, i) for i in source_ids if i not in cited],
    )
    event.mention_count += 1
    event.last_mentioned_at = _later(event.last_mentioned_at, mentioned_at)
    fields = ["mention_count", "last_mentioned_at"]
    if added:
        event.quotes = [*event.quotes, *added]
        fields.append("quotes")
    event.save(update_fields=fields)
    if added:
        index_events([event])  # the quotes are indexed (SPEC §8.2)
    return mention


def _later(a: datetime | None, b: datetime) -> datetime:
    return b if a is None or b > a else a


def mentions_remove(*, block_ids: Iterable[int], except_events: set[int]) -> list[int]:
    """Take the mentions made in these blocks back out of the events that stay (an import
    undo): their source messages, the quotes they added, the count and the last mention time.
    Returns the ids of the events changed; the caller deletes the blocks (rows cascade)."""
    mentions = list(
        EventMention.objects.filter(block_id__in=list(block_ids))
        .exclude(event_id__in=except_events)
        .prefetch_related("messages")
    )
    by_event: dict[int, list[EventMention]] = {}
    for mention in mentions:
        by_event.setdefault(mention.event_id, []).append(mention)
    changed: list[Event] = []
    for event in Event.objects.select_for_update().filter(pk__in=list(by_event)):
        gone = by_event[event.pk]
        Event.source_messages.through.objects.filter(
            event_id=event.pk, message_id__in=[m.pk for g in gone for m in g.messages.all()]
        ).delete()
        dropped = {q for g in gone for q in g.quotes_added}
        event.quotes = [q for q in event.quotes if q not in dropped]
        EventMention.objects.filter(pk__in=[g.pk for g in gone]).delete()
        remaining = EventMention.objects.filter(event_id=event.pk).order_by("-mentioned_at")
        last = remaining.values_list("mentioned_at", flat=True).first()
        event.mention_count = 1 + remaining.count()
        event.last_mentioned_at = last
        event.save(update_fields=["quotes", "mention_count", "last_mentioned_at"])
        changed.append(event)
    index_events(changed)
    return [e.pk for e in changed]
