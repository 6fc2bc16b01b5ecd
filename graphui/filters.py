"""What filtered lists share (the timeline, the usage audit): the active filters as removable
chips, links that drop one filter (and the page number), and date-only bounds taken as whole
days in the configured time zone."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime, time

from django.http import QueryDict
from django.utils import timezone


@dataclass(frozen=True)
class Chip:
    """An active filter, shown above the list with a link that removes just it."""

    label: str
    value: str
    remove_url: str


def without(query: QueryDict, key: str, value: str | None = None) -> str:
    """The query string minus `key` (or only its `value`), the page number and empty fields."""
    kept = QueryDict(mutable=True)
    for name, values in query.lists():
        if name != "page" and (filled := [v for v in values if v.strip()]):
            kept.setlist(name, filled)  # empty fields of the submitted form are left out
    if value is None:
        kept.pop(key, None)
    else:
        kept.setlist(key, [v for v in kept.getlist(key) if v != value])
    encoded = kept.urlencode()
    return f"?{encoded}" if encoded else "?"


def day_start(day: date | None) -> datetime | None:
    return None if day is None else timezone.make_aware(datetime.combine(day, time.min))


def day_end(day: date | None) -> datetime | None:
    return None if day is None else timezone.make_aware(datetime.combine(day, time.max))
