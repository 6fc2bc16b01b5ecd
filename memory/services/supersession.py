"""Supersession beyond the fixed slots (issue 29): a stored event that states a change ("switch
the billing service from Heroku to Fly.io", "we no longer use Redis", "把账单服务从MySQL迁移到
PostgreSQL") supersedes the namespace's earlier active events that state the use it ends.

Both extraction paths (offline rules and model) store their events through
`services.extraction._store_events`, which calls `changes_supersede` for every stored event, so
the rule applies whatever the extractor; the rule itself is `memory.engine.changes`. The write
is `services.events.event_supersede`, as for slot supersession: the old event keeps its content
and sources, and its graph facts and edges turn historical (SPEC §5.4, §6.4).

Runs inside the caller's transaction.
"""

from __future__ import annotations

from typing import Final, NamedTuple

from memory.engine.called_off import CALLABLE_OFF_TYPES, called_off, names_called_off
from memory.engine.change_ends import change_supersedes
from memory.engine.change_terms import split_label
from memory.engine.changes import Change, parse_change
from memory.engine.event_types import NOT_CURRENT, SLOT_EVENT_TYPES
from memory.engine.prompts.extraction import ExtractedEvent
from memory.engine.reschedule import (
    MOVABLE_TYPES,
    habit_moved,
    may_move_habit,
    moved_thing,
    names_moved,
    timed,
)
from memory.engine.stated_facts import ANY, HOLDER, Fact, ended_facts, replaces, stated_facts
from memory.models import Event, EventStatus
from memory.models.rows import columns_of, read_values
from memory.services.events import event_supersede

# The earlier events a change is compared with: the namespace's most recent active events, read
# by the (namespace, status) index. Bounded, so storing an event costs one indexed read however
# big the namespace is; a use stated more than this many active events ago stays active.
CANDIDATES: Final = 200

_COLUMNS = columns_of(
    Event,
    ["id", "title", "summary", "quotes", "participants", "temporal_status", "event_type"],
    "e",
)
_GENERIC_SPEAKERS: Final = frozenset({"user", "assistant", "system", "tool", "用户", "助手"})


def speaker_of(participants: object) -> str:
    """The event's speaker as the graph names it: its first named participant, else "user"."""
    for name in participants if isinstance(participants, list | tuple) else ():
        if (
            isinstance(name, str)
            and name.strip()
            and name.strip().casefold() not in (_GENERIC_SPEAKERS)
        ):
            return name.strip()
    return "user"


def may_state(facts: frozenset[Fact], text: str, speaker: str) -> bool:
    """A cheap filter before parsing an earlier event: it names a subject or value of `facts`,
    or its speaker is a subject of theirs ("I live in Portland" said by the same user)."""
    folded, said_by = text.casefold(), speaker.casefold()
    return any(
        f.value in folded
        or (f.subject and (f.subject in folded or f.subject == said_by))
        or (f.role.startswith(HOLDER) and f.role.removeprefix(HOLDER) in folded)
        for f in facts
    )


def change_of(extracted: ExtractedEvent) -> Change | None:
    """The change an extracted event states: its summary first, then its quotes and title."""
    if extracted.temporal_status in NOT_CURRENT:
        return None
    for text in (extracted.summary, *extracted.quotes, extracted.title):
        change = parse_change(text)
        if change is not None:
            return change
    return None


def changes_supersede(*, event: Event, extracted: ExtractedEvent) -> list[Event]:
    """Supersede the earlier active events whose use `event`'s change ends, or whose relation
    facts it gives a new value or says hold no more (`_ends`); returns them. The earlier events
    are read once, and each is parsed at most once."""
    stated = _Stated(frozenset(), frozenset(), extracted.summary, change_of(extracted), None, "")
    if extracted.event_type in SLOT_EVENT_TYPES:
        # "The launch has been pushed to May 17": the plan or meeting it names, at its old time;
        # "From now on we deploy on Thursdays": the habit it moves.
        said = split_label(extracted.summary)[1]
        habit = said if may_move_habit(said) else ""  # read the earlier events only if so
        stated = stated._replace(moved=moved_thing(said), habit=habit)
    if extracted.temporal_status not in NOT_CURRENT and extracted.event_type in SLOT_EVENT_TYPES:
        # A new value said plainly ("Maya lives in Munich") is a conflict, not a change
        # (`services.contradictions`): only a change or a decision ends a fact.
        speaker = speaker_of(extracted.participants)
        new = stated_facts(extracted.summary, speaker)
        stated = stated._replace(new=new, stopped=ended_facts(extracted.summary, speaker))
    if extracted.event_type == "cancellation":
        # "成都那个培训取消了": the plan it calls off.
        stated = stated._replace(cancelled=called_off(split_label(extracted.summary)[1]))
    if not (
        stated.new
        or stated.stopped
        or stated.change
        or stated.moved
        or stated.habit
        or stated.cancelled
    ):
        return []
    rows = read_values(
        _COLUMNS,
        f"FROM {Event._meta.db_table} e WHERE e.namespace_id = %s AND e.status = %s "
        "AND e.id < %s ORDER BY e.id DESC LIMIT %s",
        [event.namespace_id, EventStatus.ACTIVE, event.pk, CANDIDATES],
    )
    ended = [row[0] for row in rows if _ends(stated, *row[1:])]
    if not ended:
        return []
    old_events = list(Event.objects.select_for_update().filter(pk__in=ended).order_by("id"))
    for old in old_events:
        event_supersede(new=event, old=old)
    return old_events


class _Stated(NamedTuple):
    """What a new event says that may end earlier ones."""

    new: frozenset[Fact]  # the relation facts a change or a decision states
    stopped: frozenset[Fact]  # the relation facts it says hold no more
    said: str  # its summary
    change: Change | None  # the use it changes
    moved: str | None  # what it moves to another time
    habit: str  # what it says, when it may move a habit (a change or a decision), else ""
    cancelled: str | None = None  # what it calls off (a cancellation)


def _ends(
    stated: _Stated,
    title: str,
    summary: str,
    quotes: list[str] | None,
    participants: list[str],
    temporal_status: str,
    event_type: str,
) -> bool:
    """Whether an earlier active event ends: its use is one `stated.change` ends
    (`change_supersedes`); or, still current, all its relation facts are restated or given a
    new value ("Dana maintains the invoice worker from now on" ends "Marco maintains the
    invoice worker", "we moved to Seattle" ends "I live in Portland": `stated_facts.replaces`)
    or said to hold no more ("Priya no longer leads the mobile team" ends "Priya leads the
    mobile team": `stated_facts.ended_facts`); or it is the plan or meeting, with its time,
    that the new event moves to another time, or the habit it moves to another day
    (`memory.engine.reschedule`); or it is the plan still to come that the new event calls off
    (`memory.engine.called_off`)."""
    if stated.change is not None and change_supersedes(
        stated.change, [summary, title, *(quotes or ())]
    ):
        return True
    said = split_label(summary)[1]
    if (
        stated.moved
        and event_type in MOVABLE_TYPES
        and timed(said)
        and names_moved(stated.moved, said)
    ):
        return True
    if stated.habit and habit_moved(stated.habit, said):
        return True
    if (
        stated.cancelled
        and event_type in CALLABLE_OFF_TYPES
        and temporal_status == "planned"
        and names_called_off(stated.cancelled, said)
    ):
        return True
    facts = stated.new | stated.stopped
    speaker = speaker_of(participants)
    if temporal_status in NOT_CURRENT or not may_state(facts, summary, speaker):
        return False
    old = stated_facts(summary, speaker)
    if stated.new and replaces(stated.new, old, stated.said):
        return True
    # Each of its facts said to hold no more, by value or for any value ("我辞职了").
    return bool(old) and all(
        f in stated.stopped or Fact(f.subject, f.role, ANY) in stated.stopped for f in old
    )
