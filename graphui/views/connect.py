"""The "Connect an agent" page: the model proxy's base URLs for this namespace (built from the
host the person reached this page by), whether each upstream is configured, snippets to copy,
and for staff a button that creates a read-write agent token for the namespace.

The token is shown once, in the answer to that POST: it is never put in the session, a message,
a URL or a log, and the answer is not cached. Reading the page is open to every logged-in user;
creating a token needs staff, as `manage.py create_agent_token` needs the server."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_http_methods

from graphui.access import actor, staff_required, ui_namespace
from graphui.snippets import TOKEN_PLACEHOLDER, connect_snippets
from memory.models import Namespace
from memory.selectors.connect_view import connect_info
from memory.services.connect import token_create_by_user


def _page(request: HttpRequest, namespace: Namespace, *, token: str = "") -> HttpResponse:
    info = connect_info(namespace, server=request.build_absolute_uri("/"))
    context = {
        "c": info,
        "token": token,
        "placeholder": TOKEN_PLACEHOLDER,
        "snippets": connect_snippets(
            openai_url=info.openai.base_url, anthropic_url=info.anthropic.base_url, token=token
        ),
        "can_create": request.user.is_staff,
    }
    return render(request, "graphui/connect.html", context)


@never_cache
@require_http_methods(["GET", "HEAD", "POST"])
def connect_page(request: HttpRequest, ns: str) -> HttpResponse:
    """GET shows the page; POST (staff) creates a token and shows the page with it, once."""
    if request.method == "POST":
        return _token_create(request, ns)
    return _page(request, ui_namespace(request, ns))


@staff_required
def _token_create(request: HttpRequest, ns: str) -> HttpResponse:
    namespace = ui_namespace(request, ns)
    _, raw = token_create_by_user(namespace=namespace, actor=actor(request))
    return _page(request, namespace, token=raw)
