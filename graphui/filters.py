"""What filtered lists share (the timeline, the usage audit): the active filters as removable
chips, links that drop one filter (and the page number), and date-only bounds taken as whole
days in the configured time zone."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, date, datetime, time
from typing import Any

from django import forms
from django.http import QueryDict
from django.utils import timezone
from django.utils.translation import gettext as _


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


def _in_utc_range(moment: datetime, limit: datetime) -> datetime:
    """`moment` (aware), or `limit` when its UTC form falls outside years 1–9999: the first
    and last days of the calendar in a far time zone (the databases store UTC)."""
    try:
        moment.astimezone(UTC)
    except OverflowError:
        return limit
    return moment


def day_start(day: date | None) -> datetime | None:
    if day is None:
        return None
    start = timezone.make_aware(datetime.combine(day, time.min))
    return _in_utc_range(start, datetime.min.replace(tzinfo=UTC))


def day_end(day: date | None) -> datetime | None:
    if day is None:
        return None
    end = timezone.make_aware(datetime.combine(day, time.max))
    return _in_utc_range(end, datetime.max.replace(tzinfo=UTC))


class DateRangeFilterForm(forms.Form):
    """A GET filter form with `from` / `to` dates (checked in order) whose invalid fields are
    reported next to themselves and otherwise ignored, so a bad value never fails the page."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # `from` is a Python keyword, so the dates are added by name.
        date_input = forms.DateInput(attrs={"type": "date"}, format="%Y-%m-%d")
        self.fields["from"] = forms.DateField(label=_("From"), required=False, widget=date_input)
        self.fields["to"] = forms.DateField(label=_("To"), required=False, widget=date_input)

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        start, end = data.get("from"), data.get("to")
        if start and end and start > end:
            self.add_error("to", _("The end date is before the start date."))
        return data

    def valid_part(self) -> dict[str, Any]:
        """The valid part of the request: a field with an error counts as not given."""
        if self.is_valid():
            return self.cleaned_data
        return {k: v for k, v in self.cleaned_data.items() if k not in self.errors}
