"""Whether a graph fact or edge is current, historical or hidden (SPEC §6.4, §6.7).

Current state is derived from the item's source events, never stored: an item is *current* when
its own status is active and at least one source event is active, *hidden* when every source
event is forgotten or archived (or it has none), *historical* otherwise. Superseding, forgetting
or restoring an event therefore moves graph state without rewriting the graph. *As of* a past
turn or date, the validity interval decides instead of today's status. Pure: no Django.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import UTC, date, datetime, time
from typing import Any, Final, NamedTuple

from memory.engine.lifecycle import ACTIVE, HIDDEN_STATUSES

CURRENT: Final = "current"
HISTORICAL: Final = "historical"
HIDDEN: Final = "hidden"
ITEM_ACTIVE: Final = "active"  # a fact's or edge's own status


@dataclass(frozen=True)
class AsOf:
    """A past point: a namespace turn or a date."""

    turn: int | None = None
    at: datetime | None = None


def parse_as_of(value: str | None) -> AsOf | None:
    """`as_of` as people and agents write it: a namespace turn ("42") or an ISO 8601 date or
    time ("2023-05-10" means the end of that day; a naive time is UTC). Empty → None (now).
    Raises ValueError for anything else."""
    text = (value or "").strip()
    if not text:
        return None
    if text.isdigit():
        return AsOf(turn=int(text))
    try:
        if len(text) == 10:
            at = datetime.combine(date.fromisoformat(text), time.max, tzinfo=UTC)
        else:
            at = datetime.fromisoformat(text.replace("Z", "+00:00").replace(" ", "T"))
    except ValueError as exc:
        raise ValueError(f"as_of must be a turn number or an ISO 8601 date, got {text!r}") from exc
    return AsOf(at=at if at.tzinfo else at.replace(tzinfo=UTC))


class Validity(NamedTuple):
    """What the rule reads of a fact or edge."""

    status: str
    valid_from: datetime
    valid_to: datetime | None
    valid_from_turn: int
    valid_to_turn: int | None

    @classmethod
    def of(cls, item: Any) -> Validity:
        """From a model instance (attributes) or a values() row (keys)."""
        if isinstance(item, Mapping):
            return cls(*(item[name] for name in cls._fields))
        return cls(*(getattr(item, name) for name in cls._fields))


def item_state(source_statuses: Iterable[str], item: Validity, as_of: AsOf | None = None) -> str:
    """current | historical | hidden for a fact or edge with these source event statuses."""
    statuses = list(source_statuses)
    if not statuses or all(s in HIDDEN_STATUSES for s in statuses):
        return HIDDEN
    if as_of is not None:
        if as_of.turn is not None:
            started = item.valid_from_turn <= as_of.turn
            ended = item.valid_to_turn is not None and item.valid_to_turn <= as_of.turn
        else:
            assert as_of.at is not None
            started = item.valid_from <= as_of.at
            ended = item.valid_to is not None and item.valid_to <= as_of.at
        if not started:
            return HIDDEN
        return HISTORICAL if ended else CURRENT
    if item.status == ITEM_ACTIVE and ACTIVE in statuses:
        return CURRENT
    return HISTORICAL
