"""Template helpers for the event timeline and event page: words and symbols for every status
(meaning never by colour alone), the two time axes, weight charts and the source link."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import date, datetime, timedelta
from typing import Final

from django import template
from django.urls import reverse
from django.utils import timezone
from django.utils.formats import date_format
from django.utils.functional import Promise
from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from graphui.charts import line_chart, sparkline
from graphui.templatetags.ui import when
from graphui.vocabulary import CRITICALITIES, Text, superseded_cap
from memory.engine.weight_trajectory import CAPPED, HIDDEN, PINNED, WeightTrajectory
from memory.selectors.events import EventOut, MentionOut, TemporalOut

register = template.Library()

EVENT_TYPE_LABELS: Final[Mapping[str, Promise]] = {
    "decision": gettext_lazy("decision"),
    "release": gettext_lazy("release"),
    "task_completed": gettext_lazy("task completed"),
    "plan": gettext_lazy("plan"),
    "change": gettext_lazy("change"),
    "cancellation": gettext_lazy("cancellation"),
    "incident": gettext_lazy("incident"),
    "meeting": gettext_lazy("meeting"),
    "collaboration": gettext_lazy("collaboration"),
    "migration": gettext_lazy("migration"),
    "other": gettext_lazy("other"),
}
# status → (symbol, word, badge class)
LIFECYCLE: Final[Mapping[str, tuple[str, Promise, str]]] = {
    "active": ("✓", gettext_lazy("active"), "ok"),
    "superseded": ("⤳", gettext_lazy("superseded"), "warn"),
    "forgotten": ("⊘", gettext_lazy("forgotten"), "bad"),
    "archived": ("▣", gettext_lazy("archived"), ""),
}
# temporal status → (symbol, word): planned, happened and cancelled must read differently.
TEMPORAL: Final[Mapping[str, tuple[str, Promise]]] = {
    "occurred": ("●", gettext_lazy("happened")),
    "planned": ("◷", gettext_lazy("planned")),
    "cancelled": ("✕", gettext_lazy("cancelled")),
    "ongoing": ("↻", gettext_lazy("ongoing")),
    "unknown": ("?", gettext_lazy("time unknown")),
}
# What the occurrence axis is called for each temporal status.
AXIS: Final[Mapping[str, Promise]] = {
    "occurred": gettext_lazy("Happened"),
    "planned": gettext_lazy("Happens"),
    "cancelled": gettext_lazy("Was planned for"),
    "ongoing": gettext_lazy("Ongoing"),
    "unknown": gettext_lazy("Happens/happened"),
}
PRECISION: Final[Mapping[str, Promise]] = {
    "instant": gettext_lazy("instant"),
    "day": gettext_lazy("day"),
    "month": gettext_lazy("month"),
    "year": gettext_lazy("year"),
    "range": gettext_lazy("range"),
    "unknown": gettext_lazy("precision unknown"),
}
BASIS: Final[Mapping[str, Promise]] = {
    "explicit": gettext_lazy("explicit"),
    "relative": gettext_lazy("relative"),
    "inferred": gettext_lazy("inferred"),
    "unknown": gettext_lazy("basis unknown"),
}
RELATION: Final[Mapping[str, Promise]] = {
    "superseded_by": gettext_lazy("superseded by"),
    "supersedes": gettext_lazy("supersedes"),
    "conflicts_with": gettext_lazy("conflicts with"),
    "same_as": gettext_lazy("same as"),
    "before": gettext_lazy("before"),
    "after": gettext_lazy("after"),
    "related": gettext_lazy("related to"),
}
RELATION_SYMBOL: Final[Mapping[str, str]] = {
    "superseded_by": "⤳",
    "supersedes": "⤶",
    "conflicts_with": "⇄",
    "same_as": "=",
    "before": "←",
    "after": "→",
    "related": "~",
}
# Other closed vocabularies the event page shows, by name.
VOCABULARIES: Final[Mapping[str, Mapping[str, Text]]] = {
    "scope": {
        "user": gettext_lazy("user"),
        "project": gettext_lazy("project"),
        "session": gettext_lazy("session"),
    },
    "criticality": {value: word.label for value, word in CRITICALITIES.items()},
    "origin": {
        "extraction": gettext_lazy("extracted from the conversation"),
        "import": gettext_lazy("imported"),
        "agent": gettext_lazy("written by an agent"),
    },
}
GRAPH_STATE: Final[Mapping[str, tuple[str, Promise, str]]] = {
    "current": ("●", gettext_lazy("current"), "ok"),
    "historical": ("◌", gettext_lazy("historical"), "warn"),
    "hidden": ("⊘", gettext_lazy("hidden"), "bad"),
}


@register.filter
def event_type_label(value: str) -> str:
    return str(EVENT_TYPE_LABELS.get(value, value))


@register.filter
def vocab(value: str, name: str) -> str:
    """`{{ event.scope|vocab:"scope" }}`: the word for a closed-vocabulary value."""
    return str(VOCABULARIES.get(name, {}).get(value, value))


@register.filter
def lifecycle_word(value: str) -> str:
    return str(LIFECYCLE[value][1]) if value in LIFECYCLE else value


@register.filter
def relation_label(value: str) -> str:
    return str(RELATION.get(value, value))


@register.filter
def relation_symbol(value: str) -> str:
    return RELATION_SYMBOL.get(value, "·")


@register.filter
def precision_label(value: str) -> str:
    return str(PRECISION.get(value, value))


@register.filter
def basis_label(value: str) -> str:
    return str(BASIS.get(value, value))


@register.filter
def axis_label(temporal_status: str) -> str:
    return str(AXIS.get(temporal_status, AXIS["unknown"]))


@register.simple_tag
def temporal_marker(status: str) -> SafeString:
    """ "◷ planned", "● happened", "✕ cancelled"…: a symbol and a word, styled per status."""
    symbol, word = TEMPORAL.get(status, TEMPORAL["unknown"])
    return format_html(
        '<span class="tmark tmark-{}"><span aria-hidden="true">{}</span> {}</span>',
        status if status in TEMPORAL else "unknown",
        symbol,
        word,
    )


@register.simple_tag
def lifecycle_badge(status: str) -> SafeString:
    symbol, word, css = LIFECYCLE.get(status, ("·", status, ""))
    return format_html(
        '<span class="badge {}"><span aria-hidden="true">{}</span> {}</span>', css, symbol, word
    )


@register.simple_tag
def graph_state_badge(state: str) -> SafeString:
    symbol, word, css = GRAPH_STATE.get(state, ("·", state, ""))
    return format_html(
        '<span class="badge {}"><span aria-hidden="true">{}</span> {}</span>', css, symbol, word
    )


def _local_day(value: datetime, shift: timedelta) -> date:
    return timezone.localtime(value + shift).date()


def _day(value: date, fmt: str) -> SafeString:
    return format_html('<time datetime="{}">{}</time>', value.isoformat(), date_format(value, fmt))


@register.simple_tag
def occurrence(temporal: TemporalOut) -> SafeString:
    """The occurrence axis as calendar text at its precision.

    Day-precision bounds are 00:00 and 23:59:59.999 of the day in the zone the message was said
    in, stored in UTC. Reading the start 12 hours later and the end 12 hours earlier in the
    configured zone gives the intended calendar days for any zone within ±12 h of the speaker's
    (a plain conversion would show a day-long span as two days)."""
    start, end = temporal.happened_start, temporal.happened_end
    if start is None and end is None:
        return format_html('<span class="faint">{}</span>', _("unknown"))
    if temporal.precision == "instant":
        return when(start or end)
    half = timedelta(hours=12)
    first = _local_day(start, half) if start else _local_day(end, -half)  # type: ignore[arg-type]
    last = _local_day(end, -half) if end else first
    fmt = {"month": "Y-m", "year": "Y"}.get(temporal.precision, "Y-m-d")
    if temporal.precision in ("month", "year") or last <= first:
        return _day(first, fmt)
    return format_html("{} – {}", _day(first, fmt), _day(last, fmt))


@register.simple_tag
def event_source_url(ns: str, event: EventOut) -> str:
    """The source block at L5 with the event's messages highlighted (one click to the sources)."""
    base = reverse("graphui:block", args=[ns, event.source_block_id])
    ids = ",".join(str(i) for i in event.source_message_ids)
    return f"{base}?level=5&hl={ids}"


@register.simple_tag
def mention_source_url(ns: str, mention: MentionOut) -> str:
    """A mention's block at L5 with that mention's messages highlighted."""
    base = reverse("graphui:block", args=[ns, mention.block_id])
    ids = ",".join(str(i) for i in mention.source_message_ids)
    return f"{base}?level=5&hl={ids}"


def _n(value: float) -> str:
    return f"{value:.2f}"


def trajectory_summary(trajectory: WeightTrajectory) -> str:
    """The chart's text alternative: the weight now, and when it was adopted."""
    text = _("Weight over turns %(first)s–%(last)s: %(now)s now.") % {
        "first": trajectory.formed_turn,
        "last": trajectory.current_turn,
        "now": _n(trajectory.current_weight),
    }
    if trajectory.adoption_turns:
        turns = ", ".join(str(t) for t in trajectory.adoption_turns)
        text += " " + _("Adopted at turns %(turns)s.") % {"turns": turns}
    else:
        text += " " + _("Never adopted by an answer.")
    return text


def _fresh(trajectory: WeightTrajectory) -> SafeString | None:
    """An event formed this very turn has no curve yet: say so instead of drawing a dot."""
    if trajectory.current_turn > trajectory.formed_turn:
        return None
    return format_html(
        '<span class="chart-empty">{}</span>',
        _("Formed this turn: no decay yet."),
    )


@register.simple_tag
def weight_sparkline(trajectory: WeightTrajectory) -> SafeString:
    if (fresh := _fresh(trajectory)) is not None:
        return fresh
    return sparkline(trajectory.line, title=trajectory_summary(trajectory), marks=trajectory.marks)


@register.simple_tag
def weight_chart(trajectory: WeightTrajectory) -> SafeString:
    if (fresh := _fresh(trajectory)) is not None:
        return fresh
    return line_chart(
        trajectory.line,
        title=trajectory_summary(trajectory),
        marks=trajectory.marks,
        width=640,
        height=200,
        x_label=_("namespace turn"),
        y_max=1.0,
    )


@register.simple_tag
def trajectory_notes(trajectory: WeightTrajectory) -> SafeString:
    """Why the weight now departs from the curve, and whether the history is complete."""
    notes: list[str] = []
    if trajectory.override == HIDDEN:
        notes.append(_("Forgotten or archived: hidden from retrieval, weight 0 whatever else."))
    elif trajectory.override == PINNED:
        notes.append(_("Pinned: weight 1 now; the curve shows the decay it would have without."))
    elif trajectory.override == CAPPED:
        if trajectory.capped_from_turn is not None:
            notes.append(
                _("Superseded at turn %(turn)s: capped at %(cap)s from then on.")
                % {"turn": trajectory.capped_from_turn, "cap": superseded_cap()}
            )
        else:
            notes.append(_("Superseded: capped at %(cap)s.") % {"cap": superseded_cap()})
    if not trajectory.history_complete:
        notes.append(
            _(
                "History incomplete: %(count)s adoption(s) came without a usage receipt "
                "(imported or restored memory), so the curve before the last adoption is an "
                "estimate."
            )
            % {"count": trajectory.unrecorded_adoptions}
        )
    if not notes:
        return SafeString("")
    return format_html_join("", '<p class="note">{}</p>', ((n,) for n in notes))
