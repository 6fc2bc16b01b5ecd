"""Template helpers shared by every Memory UI page: times, levels, shares."""

from __future__ import annotations

import json
from datetime import datetime

from django import template
from django.utils import timezone
from django.utils.formats import date_format
from django.utils.html import format_html
from django.utils.safestring import SafeString
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

register = template.Library()


@register.simple_tag
def when(value: datetime | None, fmt: str = "Y-m-d H:i") -> SafeString:
    """A <time> in the configured time zone, with the full timestamp as its title."""
    if value is None:
        return format_html('<span class="faint">{}</span>', _("unknown"))
    local = timezone.localtime(value) if timezone.is_aware(value) else value
    return format_html(
        '<time datetime="{}" title="{}">{}</time>',
        value.isoformat(),
        date_format(local, "Y-m-d H:i:s T"),
        date_format(local, fmt),
    )


@register.filter
def percent(part: float | int | None, whole: float | int | None) -> str:
    """`part` as a whole-number share of `whole` ("37%"); "—" when there is no whole."""
    if not whole or part is None:
        return "—"
    return f"{round(100 * part / whole)}%"


@register.filter
def level(value: int | None) -> str:
    return "—" if value is None else f"L{value}"


# What each of a block's six views is (SPEC §3), in words a person reads next to "L3".
LEVEL_NAMES = {
    0: gettext_lazy("title and tags"),
    1: gettext_lazy("summary"),
    2: gettext_lazy("key facts"),
    3: gettext_lazy("condensed dialogue"),
    4: gettext_lazy("near-verbatim dialogue"),
    5: gettext_lazy("source messages"),
}


@register.filter
def level_name(value: int | None) -> str:
    return "" if value is None else str(LEVEL_NAMES.get(value, ""))


COMPACT_JSON_CHARS = 100  # short values stay on one line; longer ones are indented to be read


@register.filter
def as_json(value: object) -> str:
    """A tool call's arguments or result as readable text: a string as it is, anything else as
    JSON (indented when long). Plain text: the template escapes it like any memory string."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    compact = json.dumps(value, ensure_ascii=False, default=str)
    if len(compact) <= COMPACT_JSON_CHARS:
        return compact
    return json.dumps(value, indent=2, ensure_ascii=False, default=str)
