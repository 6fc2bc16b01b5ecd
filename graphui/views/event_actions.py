"""Admin actions on an event from the Memory UI (SPEC §5.4, §13, beyond the original): pin,
unpin, forget and restore. GET shows a confirmation saying exactly what will happen — the status
and weight afterwards and the graph facts and edges whose state moves (SPEC §6.4) — and its form
POSTs to the same URL, which runs `event_lifecycle` (it records the admin action and announces
the change) and redirects to the event page. Staff only, as the API needs an admin token."""

from __future__ import annotations

from django.contrib import messages
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from django.views.decorators.http import require_http_methods

from graphui.access import actor, ui_namespace
from graphui.templatetags.events import LIFECYCLE
from memory.errors import Conflict
from memory.models import Role
from memory.selectors.events import event_get
from memory.selectors.processing_view import EventActionOut, event_action_preview
from memory.services.events import event_lifecycle


def _status_word(status: str) -> str:
    found = LIFECYCLE.get(status)
    return str(found[1]) if found else status


def _done_message(before: EventActionOut, status_after: str) -> str:
    """What happened, in the words of the confirmation page."""
    ref = {"id": before.event_id}
    if before.action == "pin":
        return (
            _(
                "Event #%(id)s is pinned: weight 1 whatever its age; it always enters activated "
                "memory."
            )
            % ref
        )
    if before.action == "unpin":
        return _("Event #%(id)s is no longer pinned: its weight decays with age again.") % ref
    moved = len(before.graph_changes)
    graph = (
        ngettext(
            "%(n)s graph fact or edge changed state.",
            "%(n)s graph facts or edges changed state.",
            moved,
        )
        % {"n": moved}
        if moved
        else ""
    )
    if before.action == "forget":
        text = (
            _(
                "Event #%(id)s is forgotten: it left retrieval and its weight is 0. You can "
                "restore it from its page."
            )
            % ref
        )
    else:
        text = _("Event #%(id)s is restored: it is %(status)s again.") % {
            **ref,
            "status": _status_word(status_after),
        }
    return f"{text} {graph}".strip()


@require_http_methods(["GET", "HEAD", "POST"])
def event_action_page(request: HttpRequest, ns: str, event_id: int, action: str) -> HttpResponse:
    """`action` ∈ pin, unpin, forget, restore (anything else → 404 `action_not_found`); the
    namespace's admin role."""
    namespace = ui_namespace(request.user, ns, Role.ADMIN)
    preview = event_action_preview(namespace, event_id, action)
    if request.method != "POST":
        return render(
            request,
            "graphui/event_action.html",
            {"a": preview},
            status=200 if preview.allowed else 409,
        )
    event = event_get(namespace, event_id)
    try:
        changed = event_lifecycle(event=event, action=action, actor=actor(request))
    except Conflict as exc:
        raise Conflict(
            _("Event #%(id)s is %(status)s: only forgotten or archived events can be restored.")
            % {"id": event.pk, "status": _status_word(event.status)},
            code=exc.code,
        ) from exc
    messages.success(request, _done_message(preview, changed.status))
    return HttpResponseRedirect(reverse("graphui:event", args=[namespace.name, changed.pk]))
