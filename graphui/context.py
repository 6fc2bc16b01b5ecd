"""What every Memory UI page's layout needs: the namespace switcher (the namespaces this person
may see), the page in view, what they may do in its namespace, the time zone and the model
mode. Each is read only when the layout renders it."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.handlers.asgi import ASGIRequest
from django.http import HttpRequest
from django.utils.functional import SimpleLazyObject

from graphui.access import may, visible_namespaces
from memory.models import Role
from memory.selectors.processing_model import namespace_model_mode
from stratagate_site.http_bridge import SERVED_WITH_WEBSOCKETS


def layout(request: HttpRequest) -> dict[str, Any]:
    if not request.user.is_authenticated:
        return {}
    match = request.resolver_match
    ns = match.kwargs.get("ns") if match else None
    user = request.user
    return {
        "ui_namespaces": SimpleLazyObject(
            lambda: list(visible_namespaces(user).values_list("name", flat=True))
        ),
        # Whether to offer the editor's and the admin's actions (the views check again).
        "ui_can_edit": SimpleLazyObject(lambda: bool(ns) and may(user, str(ns), Role.EDITOR)),
        "ui_can_admin": SimpleLazyObject(lambda: bool(ns) and may(user, str(ns), Role.ADMIN)),
        "ns": ns,
        "ui_page": match.url_name if match else None,
        "ui_time_zone": settings.TIME_ZONE,
        # Per namespace: with STRATAGATE_LLM_FROM_PROXY each namespace may use another model.
        "ui_model_mode": SimpleLazyObject(lambda: namespace_model_mode(ns)),
        "ui_live_shared": bool(settings.REDIS_URL),
        # Websockets exist only under the ASGI server (serve's uvicorn, runserver's daphne),
        # which answers HTTP through http_bridge; a plain WSGI server (or the test live_server)
        # would answer the socket with a 404, so pages there don't try.
        "ui_live_socket": isinstance(request, ASGIRequest)
        or bool(request.META.get(SERVED_WITH_WEBSOCKETS)),
    }
