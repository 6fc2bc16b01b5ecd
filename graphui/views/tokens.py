"""Agent tokens (staff): every token with what it may do and whether it still works, a form that
creates one (shown once, in the answer to that POST, never kept in a session, message or URL)
and revocation behind a confirmation page. Each creation and revocation is audited."""

from __future__ import annotations

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_http_methods

from graphui.access import actor, staff_required, visible_namespaces
from memory.errors import Invalid, StrataGateError
from memory.models import TokenScope
from memory.selectors.tokens import token_get, token_list
from memory.services.tokens import expiry_from, token_issue, token_revoke

EXPIRY_CHOICES = ("", "1d", "7d", "30d", "90d", "365d")


def _page(
    request: HttpRequest, *, token: str = "", error: StrataGateError | None = None
) -> HttpResponse:
    context = {
        "tokens": token_list(),
        "namespaces": list(visible_namespaces(request.user).values_list("name", flat=True)),
        "scopes": TokenScope.values,
        "expiries": EXPIRY_CHOICES,
        "token": token,
        "error": error,
        "form": request.POST if request.method == "POST" else {},
    }
    return render(
        request, "graphui/tokens.html", context, status=error.http_status if error else 200
    )


@never_cache
@require_http_methods(["GET", "HEAD", "POST"])
@staff_required
def tokens_page(request: HttpRequest) -> HttpResponse:
    if request.method != "POST":
        return _page(request)
    namespaces = [n for n in request.POST.getlist("namespaces") if n]
    try:
        installation = request.POST.get("installation") == "on"
        if not namespaces and not installation:
            raise Invalid(_("Choose at least one namespace."), code="no_namespace")
        _row, raw = token_issue(
            namespaces=namespaces,
            scope=request.POST.get("scope", ""),
            label=request.POST.get("label", "").strip(),
            installation=installation,
            expires_at=expiry_from(request.POST.get("expires_in", "")),
            actor=actor(request),
        )
    except StrataGateError as exc:
        return _page(request, error=exc)
    return _page(request, token=raw)


@require_http_methods(["GET", "HEAD", "POST"])
@staff_required
def token_revoke_page(request: HttpRequest, token_id: int) -> HttpResponse:
    """GET: what revoking this token stops; POST: revoke it (409 when it already is)."""
    shown = token_get(token_id)
    if request.method != "POST":
        return render(request, "graphui/token_revoke.html", {"t": shown})
    revoked = token_revoke(token_id=token_id, actor=actor(request))
    messages.success(
        request,
        _("Token sg_%(prefix)s is revoked: every request with it is refused from now on.")
        % {"prefix": revoked.prefix},
    )
    return redirect("graphui:tokens")
