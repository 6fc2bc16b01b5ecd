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

from memory.errors import StrataGateError

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
