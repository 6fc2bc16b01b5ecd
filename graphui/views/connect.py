"""The "Connect an agent" page: the model proxy's base URLs for this namespace (built from the
host the person reached this page by), whether each upstream is configured, snippets to copy,
and for the namespace's admins a button that creates a read-write agent token for it.

The token is shown once, in the answer to that POST: it is never put in the session, a message,
a URL or a log, and the answer is not cached. Reading the page needs the viewer role; creating a
token the admin role (graphui.access)."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_http_methods

from graphui.access import actor, may, ui_namespace
from graphui.snippets import TOKEN_PLACEHOLDER, connect_snippets
from memory.models import Namespace, Role
from memory.selectors.connect_view import connect_info
from memory.services.connect import connect_token_create


def _page(request: HttpRequest, namespace: Namespace, *, token: str = "") -> HttpResponse:
    info = connect_info(namespace, server=request.build_absolute_uri("/"))
    context = {
        "c": info,
        "token": token,
        "placeholder": TOKEN_PLACEHOLDER,
        "snippets": connect_snippets(
            openai_url=info.openai.base_url, anthropic_url=info.anthropic.base_url, token=token
        ),
        "can_create": may(request.user, namespace, Role.ADMIN),
    }
    return render(request, "graphui/connect.html", context)


@never_cache
@require_http_methods(["GET", "HEAD", "POST"])
def connect_page(request: HttpRequest, ns: str) -> HttpResponse:
    """GET shows the page; POST (staff) creates a token and shows the page with it, once."""
    if request.method == "POST":
        return _token_create(request, ns)
    return _page(request, ui_namespace(request.user, ns))


def _token_create(request: HttpRequest, ns: str) -> HttpResponse:
    namespace = ui_namespace(request.user, ns, Role.ADMIN)
    _, raw = connect_token_create(namespace=namespace, actor=actor(request))
    return _page(request, namespace, token=raw)
