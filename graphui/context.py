"""What every Memory UI page's layout needs: the namespace switcher, the page in view, the time
zone and the model mode. One query (the namespace names), made only when the layout renders."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.handlers.asgi import ASGIRequest
from django.http import HttpRequest
from django.utils.functional import SimpleLazyObject

from memory.selectors.namespaces import namespace_names
from memory.services.llm_runtime import namespace_model_mode
from stratagate_site.http_bridge import SERVED_WITH_WEBSOCKETS


def layout(request: HttpRequest) -> dict[str, Any]:
    if not request.user.is_authenticated:
        return {}
    match = request.resolver_match
    ns = match.kwargs.get("ns") if match else None
    return {
        "ui_namespaces": SimpleLazyObject(namespace_names),
        "ui_ns": ns,
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
