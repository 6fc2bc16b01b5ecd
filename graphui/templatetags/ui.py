"""Template helpers shared by every Memory UI page: times, levels, shares."""

from __future__ import annotations

from datetime import datetime

from django import template
from django.utils import timezone
from django.utils.formats import date_format
from django.utils.html import format_html
from django.utils.safestring import SafeString
from django.utils.translation import gettext as _

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
