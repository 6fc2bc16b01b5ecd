"""The two hooks django-axes calls for login throttling (settings: AXES_*): who the client is,
and the page a locked-out login gets."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.contrib.auth.forms import AuthenticationForm
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

LOCKED_OUT_STATUS = 429


def client_ip(request: HttpRequest) -> str | None:
    """The address failures are counted against. Directly served, the peer's; behind the TLS
    proxy (STRATAGATE_BEHIND_TLS_PROXY) the peer is the proxy, so it is the last address in
    X-Forwarded-For: the one the proxy itself appended (nginx's $proxy_add_x_forwarded_for,
    Caddy's default). Earlier entries come from the client and are not trusted."""
    if settings.STRATAGATE_BEHIND_TLS_PROXY:
        forwarded = request.META.get("HTTP_X_FORWARDED_FOR", "")
        last = forwarded.rsplit(",", 1)[-1].strip()
        if last:
            return last
    return request.META.get("REMOTE_ADDR")


def locked_out_page(
    request: HttpRequest,
    original_response: HttpResponse | None = None,
    credentials: dict[str, Any] | None = None,
) -> HttpResponse:
    """The login page again, with a fresh form and the lock-out message, as 429 with
    Retry-After (django-axes' AXES_LOCKOUT_CALLABLE)."""
    minutes = settings.STRATAGATE_LOGIN_LOCKOUT_MINUTES
    context = {
        "form": AuthenticationForm(request),
        "locked_out": True,
        "lockout_minutes": minutes,
        "next": request.POST.get("next", "") if request.method == "POST" else "",
    }
    response = render(request, "registration/login.html", context, status=LOCKED_OUT_STATUS)
    response["Retry-After"] = str(minutes * 60)
    return response
