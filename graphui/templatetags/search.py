"""Template helpers for the search page: memory text with the query's matches in <mark>.

The only markup built here is `<mark>` around segments whose text `format_html` escapes, so
memory text can never become markup (SPEC §15.4).
"""

from __future__ import annotations

from collections.abc import Iterable

from django import template
from django.utils.functional import Promise
from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString
from django.utils.translation import gettext_lazy as _

from memory.search.highlight import Segment, highlight, snippet

register = template.Library()

# Names of the indexed fields (memory.search.documents) as people read them.
FIELD_LABELS: dict[str, Promise] = {
    "title": _("title"),
    "summary": _("summary"),
    "tags": _("tags"),
    "quotes": _("quotes"),
    "participants": _("participants"),
    "event_type": _("event type"),
    "temporal": _("time wording"),
    "dates": _("occurrence dates"),
    "name": _("name"),
    "aliases": _("aliases"),
    "node_type": _("node type"),
    "facts_current": _("current facts"),
    "facts_historical": _("historical facts"),
    "neighbours_current": _("current neighbours"),
    "neighbours_historical": _("former neighbours"),
    "relations": _("relation labels"),
    "content": _("content"),
    "session_date": _("date of the turn"),
    "speaker": _("speaker"),
    "before": _("the message before"),
    "after": _("the message after"),
}

RANKINGS: dict[str, Promise] = {
    "text": _("text relevance (BM25)"),
    "weight": _("long-term weight"),
    "chronology": _("chronology"),
    "event_type": _("event type"),
    "session": _("session"),
    "participants": _("participants"),
    "happened": _("occurrence"),
}

KINDS: dict[str, Promise] = {
    "all": _("All"),
    "events": _("Events"),
    "graph": _("Graph"),
    "blocks": _("Blocks"),
    "messages": _("Messages"),
}


def _render(segments: Iterable[Segment]) -> SafeString:
    return format_html_join(
        "",
        "{}",
        ((format_html("<mark>{}</mark>", s.text) if s.matched else s.text,) for s in segments),
    )


@register.simple_tag
def highlighted(text: str | None, query: str) -> SafeString:
    """All of `text`, its matches marked."""
    return _render(highlight(text or "", query))


@register.simple_tag
def excerpt(text: str | None, query: str, width: int = 240) -> SafeString:
    """The part of `text` around its densest matches, marked, with "…" where text is left out."""
    return _render(snippet(text or "", query, width))


@register.filter
def field_label(name: str) -> str:
    return str(FIELD_LABELS.get(name, name.replace("_", " ")))


@register.filter
def ranking_label(name: str) -> str:
    return str(RANKINGS.get(name, name.replace("_", " ")))


@register.filter
def kind_label(name: str) -> str:
    return str(KINDS.get(name, name))
