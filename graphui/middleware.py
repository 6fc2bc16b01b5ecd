"""The Memory UI's two cross-cutting rules: every page needs a login, and StrataGate errors
raised by a view become a page with their status and stable code (the API has its own
renderer, the error envelope)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.contrib.auth.middleware import LoginRequiredMiddleware
from django.http import HttpRequest, HttpResponse
from django.http.response import HttpResponseBase
from django.shortcuts import render

from memory.engine.storable import INVALID_TEXT, unstorable, unstorable_message
from memory.errors import Invalid, StrataGateError

API_PREFIX = "/api/"


class UILoginRequired(LoginRequiredMiddleware):
    """Django's LoginRequiredMiddleware for everything but the agent API, which authenticates
    with bearer tokens instead (views opt out with `login_not_required`)."""

    def process_view(
        self,
        request: HttpRequest,
        view_func: Callable[..., Any],
        view_args: Any,
        view_kwargs: Any,
    ) -> HttpResponseBase | None:
        if request.path.startswith(API_PREFIX):
            return None
        return super().process_view(request, view_func, view_args, view_kwargs)


class UnstorableTextRefused:
    """Text no database can store (engine.storable: a NUL character) in a page's path, query
    string or form is a 422 `invalid_text` page, checked after the login: PostgreSQL answered
    a `%00` in a search box, a filter or a session id with a 500. The API checks its own input
    (memory.api.input_guard), after its token."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        return self.get_response(request)

    def process_view(
        self,
        request: HttpRequest,
        view_func: Callable[..., Any],
        view_args: Any,
        view_kwargs: Any,
    ) -> HttpResponse | None:
        if request.path.startswith(API_PREFIX):
            return None
        where = _unstorable_input(request, view_kwargs)
        if where is None:
            return None
        error = Invalid(unstorable_message(where), code=INVALID_TEXT, details={"where": where})
        return render(request, "graphui/error.html", {"error": error}, status=error.http_status)


def _unstorable_input(request: HttpRequest, view_kwargs: dict[str, Any]) -> str | None:
    for name, value in view_kwargs.items():
        if isinstance(value, str) and unstorable(value):
            return f"the address ({name})"
    sources = [("the query string", request.GET)]
    if request.method == "POST":
        sources.append(("the form", request.POST))
    for label, data in sources:
        for key, values in data.lists():
            if unstorable(key) or any(unstorable(v) for v in values):
                return f"{label} ({key!r})" if not unstorable(key) else label
    return None


class StrataGateErrorPages:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        return self.get_response(request)

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        if not isinstance(exception, StrataGateError) or request.path.startswith(API_PREFIX):
            return None
        return render(
            request, "graphui/error.html", {"error": exception}, status=exception.http_status
        )
