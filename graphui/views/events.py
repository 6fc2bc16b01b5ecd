"""The event timeline and the event page (SPEC §13.3). Filters and the page number live in the
query string, so every view of the timeline is a URL; invalid filter values are reported next to
their field and ignored rather than failing the page."""

from __future__ import annotations

from django import forms
from django.http import HttpRequest, HttpResponse, QueryDict
from django.shortcuts import render
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_GET

from graphui.access import ui_namespace
from graphui.filters import Chip, DateRangeFilterForm, day_end, day_start, without
from graphui.templatetags.events import EVENT_TYPE_LABELS, LIFECYCLE, TEMPORAL
from memory.engine.lifecycle import VISIBLE_STATUSES
from memory.selectors import timeline
from memory.selectors.events import TimelineFilter


class TimelineFilterForm(DateRangeFilterForm):
    status = forms.MultipleChoiceField(
        label=gettext_lazy("Lifecycle"),
        required=False,
        choices=[(k, word) for k, (_symbol, word, _css) in LIFECYCLE.items()],
        widget=forms.CheckboxSelectMultiple,
    )
    type = forms.ChoiceField(
        label=gettext_lazy("Type"),
        required=False,
        choices=[("", gettext_lazy("any type")), *EVENT_TYPE_LABELS.items()],
    )
    temporal = forms.ChoiceField(
        label=gettext_lazy("Time status"),
        required=False,
        choices=[("", gettext_lazy("any")), *((k, w) for k, (_s, w) in TEMPORAL.items())],
    )
    participant = forms.CharField(label=gettext_lazy("Participant"), required=False, max_length=200)

    def timeline_filter(self) -> TimelineFilter:
        data = self.valid_part()
        return TimelineFilter(
            statuses=tuple(data.get("status") or VISIBLE_STATUSES),
            event_type=data.get("type") or None,
            temporal_status=data.get("temporal") or None,
            participant=(data.get("participant") or "").strip() or None,
            time_from=day_start(data.get("from")),
            time_to=day_end(data.get("to")),
        )


def _with_default_statuses(query: QueryDict) -> QueryDict:
    """No lifecycle box ticked means the default (active and superseded), shown ticked."""
    if query.getlist("status"):
        return query
    data = query.copy()
    data.setlist("status", list(VISIBLE_STATUSES))
    return data


def _chips(form: TimelineFilterForm, query: QueryDict) -> list[Chip]:
    data = form.valid_part()
    statuses = data.get("status") or []
    chips = (
        []
        if set(statuses) in (set(), set(VISIBLE_STATUSES))
        else [
            Chip(_("Lifecycle"), str(LIFECYCLE[s][1]), without(query, "status", s))
            for s in statuses
        ]
    )
    if data.get("type"):
        label = str(EVENT_TYPE_LABELS[data["type"]])
        chips.append(Chip(_("Type"), label, without(query, "type")))
    if data.get("temporal"):
        chips.append(
            Chip(_("Time status"), str(TEMPORAL[data["temporal"]][1]), without(query, "temporal"))
        )
    if (data.get("participant") or "").strip():
        chips.append(
            Chip(_("Participant"), data["participant"].strip(), without(query, "participant"))
        )
    for key, label in (("from", _("From")), ("to", _("To"))):
        if data.get(key):
            chips.append(Chip(label, data[key].isoformat(), without(query, key)))
    return chips


@require_GET
def timeline_page(request: HttpRequest, ns: str) -> HttpResponse:
    namespace = ui_namespace(request.user, ns)
    form = TimelineFilterForm(_with_default_statuses(request.GET))
    filters = form.timeline_filter()
    page = timeline.timeline_page(
        namespace=namespace, filters=filters, page=request.GET.get("page")
    )
    return render(
        request,
        "graphui/timeline.html",
        {
            "form": form,
            "page": page,
            "current_turn": namespace.current_turn,
            "chips": _chips(form, request.GET),
            "showing_hidden": any(s not in VISIBLE_STATUSES for s in filters.statuses),
        },
    )


@require_GET
def event_page(request: HttpRequest, ns: str, event_id: int) -> HttpResponse:
    namespace = ui_namespace(request.user, ns)
    detail = timeline.event_page_detail(namespace=namespace, event_id=event_id)
    return render(
        request,
        "graphui/event.html",
        {
            "detail": detail,
            "entry": detail.entry,
            "event": detail.entry.event,
        },
    )
