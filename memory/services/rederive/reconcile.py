"""Fold a re-derivation's fresh events into the rows stored before (`services.rederive`).

The replay stored every fact as a new row. Each one that states the same fact as an old event
(`engine.event_identity`) from at least one of the same source messages hands its provenance
to that old row and goes: the old row keeps its id, content, weight, pin and every record that
names it, and takes the replay's source block, source messages, mentions, quotes, status and
relations. A replayed event with no such old event stays as the new row it is.

Every function runs inside the caller's transaction.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from memory.engine.event_identity import same_fact, similarity
from memory.engine.lifecycle import HIDDEN_STATUSES
from memory.models import Event, EventMention, EventOrigin, EventRelation
from memory.models.rows import insert_values
from memory.search import index_events
from memory.search.index import unindex_events
from memory.services.mentions import fact_text
from memory.services.rederive.keep import CITED, FORGOTTEN, PINNED

# What a mention is, whatever its row id: two runs that find the same mention compare equal.
type MentionKey = tuple[int, frozenset[int], tuple[str, ...], datetime, int]
type RelationKey = tuple[int, int, str]
# The provenance fields a kept event takes from the replay (content is never edited, SPEC §5.1).
PROVENANCE = (
    "source_block_id",
    "formed_turn",
    "mentioned_at",
    "quotes",
    "mention_count",
    "last_mentioned_at",
)
_RANK = {PINNED: 3, FORGOTTEN: 2, CITED: 1}


@dataclass(frozen=True)
class Stored:
    """An event as the database holds it: the row, its source messages and its mentions."""

    event: Event
    sources: frozenset[int]
    mentions: frozenset[MentionKey]


def stored_events(events: list[Event]) -> dict[int, Stored]:
    ids = [e.pk for e in events]
    sources: dict[int, set[int]] = {i: set() for i in ids}
    for event_id, message_id in Event.source_messages.through.objects.filter(
        event_id__in=ids
    ).values_list("event_id", "message_id"):
        sources[event_id].add(message_id)
    mentions: dict[int, set[MentionKey]] = {i: set() for i in ids}
    for mention in EventMention.objects.filter(event_id__in=ids).prefetch_related("messages"):
        mentions[mention.event_id].add(_mention_key(mention))
    return {e.pk: Stored(e, frozenset(sources[e.pk]), frozenset(mentions[e.pk])) for e in events}


def _mention_key(mention: EventMention) -> MentionKey:
    return (
        mention.block_id,
        frozenset(m.pk for m in mention.messages.all()),
        tuple(mention.quotes_added),
        mention.mentioned_at,
        mention.formed_turn,
    )


def events_match(
    *, replayed: dict[int, Stored], old: dict[int, Stored], keep: dict[int, str]
) -> dict[int, int]:
    """Replayed event id → the old event id it continues. A pair shares a source message and
    states the same fact; among old duplicates of one fact the one a person or a record holds
    on to wins (pinned, then forgotten, then cited), then the closest text, then the oldest."""
    matched: dict[int, int] = {}
    used: set[int] = set()
    for pk in sorted(replayed):
        new = replayed[pk]
        fact = fact_text(new.event)
        best: tuple[int, float, int] | None = None
        for old_pk, candidate in old.items():
            if old_pk in used or not (new.sources & candidate.sources):
                continue
            if not same_fact(fact, fact_text(candidate.event)):
                continue
            key = (
                _RANK.get(keep.get(old_pk, ""), 0),
                similarity(new.event.summary, candidate.event.summary),
                -old_pk,
            )
            if best is None or key > best:
                best = key
        if best is not None:
            matched[pk] = -best[2]
            used.add(-best[2])
    return matched


@dataclass
class Folded:
    """What folding changed: old events updated (provenance, status or relations)."""

    updated: set[int] = field(default_factory=set)


def relations_fold(*, matched: dict[int, int], replayed_ids: set[int], folded: Folded) -> None:
    """The replay's relations, re-pointed at the old events that stay; the old relations among
    those events that the replay did not make again are dropped. Relations with any other event
    (not derived from blocks, or kept though no longer produced) are left alone."""

    def final(pk: int) -> int:
        return matched.get(pk, pk)

    rows = list(
        EventRelation.objects.filter(from_event_id__in=replayed_ids).values_list(
            "pk", "from_event_id", "to_event_id", "kind"
        )
    )
    wanted: set[RelationKey] = {
        (final(a), final(b), kind) for _, a, b, kind in rows if final(a) != final(b)
    }
    continued = set(matched.values())
    realised: set[RelationKey] = set()
    for pk, a, b, kind in EventRelation.objects.filter(
        from_event_id__in=continued, to_event_id__in=continued
    ).values_list("pk", "from_event_id", "to_event_id", "kind"):
        if (a, b, kind) in wanted:
            realised.add((a, b, kind))
        else:
            EventRelation.objects.filter(pk=pk).delete()
            folded.updated |= {a, b}
    for pk, a, b, kind in rows:
        key = (final(a), final(b), kind)
        if key == (a, b, kind):
            realised.add(key)  # between two new events: the row stays as the replay made it
        elif key[0] == key[1] or key in realised:
            EventRelation.objects.filter(pk=pk).delete()
        else:
            EventRelation.objects.filter(pk=pk).update(from_event_id=key[0], to_event_id=key[1])
            realised.add(key)
            folded.updated |= {key[0], key[1]} & continued


def events_fold(
    *,
    matched: dict[int, int],
    replayed: dict[int, Stored],
    old: dict[int, Stored],
    origins: dict[int, str],
) -> Folded:
    """Move each matched replayed event's provenance, mentions and lifecycle onto its old row,
    then delete the replayed rows. `origins`: every event id of the namespace before the run
    with its origin (a supersession by an imported or agent event is theirs, and stays)."""
    folded = Folded()
    relations_fold(matched=matched, replayed_ids=set(replayed), folded=folded)

    def final(pk: int | None) -> int | None:
        return matched.get(pk, pk) if pk is not None else None

    for pk, new in replayed.items():
        if pk not in matched:
            superseder = final(new.event.superseded_by_id)
            if superseder != new.event.superseded_by_id:
                Event.objects.filter(pk=pk).update(superseded_by_id=superseder)
    reindex: list[Event] = []
    for pk, old_pk in matched.items():
        new, was = replayed[pk], old[old_pk]
        event = was.event
        changes = {
            name: getattr(new.event, name)
            for name in PROVENANCE
            if getattr(new.event, name) != getattr(event, name)
        }
        superseder = event.superseded_by_id
        taken_by_other = (
            superseder is not None and origins.get(superseder) != EventOrigin.EXTRACTION
        )
        status = event.status
        if event.status in HIDDEN_STATUSES:
            superseder = final(new.event.superseded_by_id)  # still forgotten: a person's call
        elif not taken_by_other:
            status, superseder = new.event.status, final(new.event.superseded_by_id)
        if superseder != event.superseded_by_id:
            changes["superseded_by_id"] = superseder
        # The status is compared with the one before the run (rows are hidden meanwhile).
        if status != event.status:
            changes["status"] = status
        Event.objects.filter(pk=old_pk).update(**{**changes, "status": status})
        if new.sources != was.sources:
            through = Event.source_messages.through
            through.objects.filter(event_id=old_pk).delete()
            insert_values(
                through, ["event_id", "message_id"], [(old_pk, m) for m in sorted(new.sources)]
            )
        if new.mentions != was.mentions:
            EventMention.objects.filter(event_id=old_pk).delete()
            EventMention.objects.filter(event_id=pk).update(event_id=old_pk)
        if changes or new.sources != was.sources or new.mentions != was.mentions:
            folded.updated.add(old_pk)
        if "quotes" in changes:
            event.quotes = new.event.quotes
            reindex.append(event)
    unindex_events(matched)
    Event.objects.filter(pk__in=list(matched)).delete()
    index_events(reindex)
    return folded
