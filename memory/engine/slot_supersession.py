"""Supersession on the fixed slots (SPEC §5.4): a decision, change or migration that chooses a
new value for every slot an earlier one chose ("Let's switch to pnpm" after "Use npm") replaces
it. Used by offline extraction within a block and by `services.extraction` against the
timeline; changes beyond the slots are `memory.engine.changes`. Pure rules."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from memory.engine.event_types import NOT_CURRENT, SLOT_EVENT_TYPES
from memory.engine.prompts.extraction import ExtractedEvent
from memory.engine.slots import project_name, slot_choices, slot_of

__all__ = ["TimelineEvent", "detect_batch_supersession", "detect_supersession"]


@dataclass(frozen=True, slots=True)
class TimelineEvent:
    """An existing event shown to extraction (SPEC §5.5), enough to judge supersession."""

    id: int
    title: str
    summary: str
    event_type: str
    tags: tuple[str, ...] = ()
    status: str = "active"


def _choices_of(title: str, summary: str, tags: Sequence[str]) -> dict[str, str]:
    chosen: dict[str, str] = {}
    for choice in slot_choices(f"{title}. {summary}"):
        chosen.setdefault(choice.slot, choice.value)
    if not chosen:
        for tag in tags:
            hit = slot_of(tag)
            if hit is not None:
                chosen.setdefault(hit[0], hit[1])
    return chosen


def _same_project(a: str | None, b: str | None) -> bool:
    return a is None or b is None or a.casefold() == b.casefold()


def _supersedes(
    new_choices: dict[str, str],
    new_project: str | None,
    old: dict[str, str],
    old_project: str | None,
) -> bool:
    """The new choice replaces every slot the old event chose, and differs in at least one."""
    if not old or not set(old) <= set(new_choices) or not _same_project(new_project, old_project):
        return False
    return any(new_choices[slot] != value for slot, value in old.items())


def detect_supersession(new: ExtractedEvent, existing: list[TimelineEvent]) -> list[int]:
    """Ids of active existing events that `new` supersedes on a slot choice (SPEC §5.4).

    Only a current decision/change/migration supersedes (never a plan, a future-dated decision or
    a cancellation), and only active decision/change/migration events are superseded. An old
    event is superseded when the new one chooses a value for *every* slot the old one chose and
    differs in at least one: an old "React with TypeScript" is not superseded by "switch to Go",
    whose graph fact still closes the old language fact by itself. Different named projects
    ("the Atlas project" vs "the Borealis project") never supersede each other.
    """
    if new.event_type not in SLOT_EVENT_TYPES or new.temporal_status in NOT_CURRENT:
        return []
    new_choices = _choices_of(new.title, new.summary, new.tags)
    if not new_choices:
        return []
    new_project = project_name(new.summary) or project_name(new.title)
    ids: list[int] = []
    for event in existing:
        if event.status != "active" or event.event_type not in SLOT_EVENT_TYPES:
            continue
        old = _choices_of(event.title, event.summary, event.tags)
        old_project = project_name(event.summary) or project_name(event.title)
        if _supersedes(new_choices, new_project, old, old_project) and event.id not in ids:
            ids.append(event.id)
    return ids


def detect_batch_supersession(events: Sequence[ExtractedEvent]) -> list[tuple[int, int]]:
    """(later index, earlier index) pairs where a later event of one batch supersedes an earlier.

    For a block that says "use npm" and then "switch to pnpm": relations can only name stored
    events, so the caller stores the batch in order and applies these pairs afterwards.
    """
    pairs: list[tuple[int, int]] = []
    replaced: set[int] = set()
    for later in range(len(events)):
        earlier_events = [
            TimelineEvent(
                i, e.title, e.summary, e.event_type, tuple(e.tags),
                "superseded" if i in replaced else "active",
            )
            for i, e in enumerate(events[:later])
            if e.temporal_status not in NOT_CURRENT
        ]  # fmt: skip
        for earlier in detect_supersession(events[later], earlier_events):
            pairs.append((later, earlier))
            replaced.add(earlier)
    return pairs
