"""Settings page (SPEC §13.6): λ, block size and the model proxy's history (layered | native) and
tools (off | memory) with a live preview before saving (level schedule, context tokens of a
chosen session and what a proxied request sends of it, the λ that keeps the per-turn decay when
the block size changes), the model endpoint with a connection test, and the namespace mode. The
preview is rendered here only: `?partial=preview` (graphui.partials) answers with the parts that
follow the form, which settings.js swaps in as you type.

Reading and previewing are open to every logged-in user and write nothing; saving and testing
the model endpoint need staff, as the API needs an admin token for settings."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

from django.conf import settings
from django.contrib import messages
from django.http import HttpRequest, HttpResponse, JsonResponse, QueryDict
from django.shortcuts import redirect
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods, require_POST

from graphui.access import actor, staff_required, visible_namespaces
from graphui.partials import live_page
from memory.engine.decay import (
    BLOCK_TURNS_MAX,
    BLOCK_TURNS_MIN,
    LAMBDA_MAX,
    LAMBDA_MIN,
    LAMBDA_STEP,
    LAMBDA_WARNING_ABOVE,
)
from memory.engine.history_mode import HISTORY_MODES
from memory.engine.tools_mode import TOOLS_MODES
from memory.errors import Invalid
from memory.selectors.settings_view import (
    FieldError,
    SettingsPreview,
    exact_number,
    settings_preview_numbers,
    settings_processing,
)
from memory.services.llm_check import ConnectionReport, llm_connection_test, llm_endpoint
from memory.services.settings import settings_update

FIELDS_BY_CODE = {
    "invalid_block_lambda": "block_lambda",
    "invalid_block_turns": "block_turns",
    "invalid_proxy_history": "proxy_history",
    "invalid_proxy_tools": "proxy_tools",
}
SETTINGS = live_page("graphui:settings", "graphui/settings.html", ("preview",))


def _preview(request: HttpRequest, data: QueryDict) -> SettingsPreview:
    """The preview's namespace and session are picked among those the person may see."""
    return settings_preview_numbers(
        block_lambda=data.get("block_lambda"),
        block_turns=data.get("block_turns"),
        proxy_history=data.get("proxy_history"),
        proxy_tools=data.get("proxy_tools"),
        ns=data.get("ns", ""),
        session=data.get("session", ""),
        namespaces=list(visible_namespaces(request.user).values_list("name", flat=True)),
    )


def _lam(value: float) -> str:
    return f"{value:.2f}"


def _warning_text() -> str:
    return _(
        "⚠ Forgets fast: above λ %(limit)s older blocks drop to titles within a few blocks. "
        "This is advice; you can still save it."
    ) % {"limit": _lam(LAMBDA_WARNING_ABOVE)}


def _suggestion_text(preview: SettingsPreview) -> str:
    suggestion = preview.suggestion
    if suggestion is None:
        return ""
    if suggestion.applied:
        return _("λ = %(lam)s keeps the same decay per turn as today.") % {
            "lam": _lam(suggestion.block_lambda)
        }
    return _("To keep the same decay per turn, use λ = %(lam)s") % {
        "lam": _lam(suggestion.block_lambda)
    }


def _suggestion_detail(preview: SettingsPreview) -> str:
    suggestion = preview.suggestion
    if suggestion is None:
        return ""
    text = _("(λ %(lam)s × %(new)s ÷ %(old)s; never applied automatically)") % {
        "lam": _lam(suggestion.old_block_lambda),
        "new": suggestion.new_block_turns,
        "old": suggestion.old_block_turns,
    }
    if suggestion.capped:
        text += " " + _("Capped at 1.00: the per-turn decay will be slower than today.")
    return text


def _session_text(preview: SettingsPreview) -> str:
    if preview.tokens is None:
        return ""
    return _(
        "Layered history of session “%(session)s” in %(ns)s: ready blocks at their displayed "
        "level, then pending blocks and the open tail as raw messages."
    ) % {"session": preview.tokens.session_label, "ns": preview.tokens.namespace}


def _difference_text(preview: SettingsPreview) -> str:
    """ "−127 (−15%)": a true minus sign, a plus for growth, the share of today's cost."""
    tokens = preview.tokens
    if tokens is None or tokens.difference is None:
        return "—"
    diff = tokens.difference
    sign = "+" if diff > 0 else "−" if diff < 0 else ""
    if not diff or not tokens.current:
        return f"{sign}{abs(diff)}"
    share = round(100 * abs(diff) / tokens.current)
    return f"{sign}{abs(diff)} ({sign}{share}%)"


def _proxy_saved_text(preview: SettingsPreview) -> str:
    """ "9,873 (76%)": the tokens the proxied history saves with the values shown, against
    native (under the label "saved"; a true minus sign when it would cost more)."""
    tokens = preview.tokens
    if tokens is None or tokens.proxy_sent_proposed is None:
        return "—"
    saved = tokens.proxy_native - tokens.proxy_sent_proposed
    if not saved or not tokens.proxy_native:
        return "0"
    sign = "" if saved > 0 else "−"
    share = round(100 * abs(saved) / tokens.proxy_native)
    return f"{sign}{abs(saved):,} ({sign}{share}%)"


def _texts() -> dict[str, str]:
    """What the script says itself (placeholders %(n)s / %(total)s), translated here."""
    return {
        "updated": _("Preview updated: %(n)s of %(total)s ages show a different level."),
        "failed": _("The preview could not be loaded; use the Preview button."),
        "testing": _("Testing the connection…"),
    }


def _page(
    request: HttpRequest, preview: SettingsPreview, *, part: str | None = None, status: int = 200
) -> HttpResponse:
    """The page, or its `preview` partial: everything that follows the λ and block size typed
    (errors, warning, suggestion, the session picker, token estimate, schedule, save button),
    which settings.js swaps in as the form changes."""
    context: dict[str, Any] = {
        "preview": preview,
        "can_save": request.user.is_staff,
        "warning_text": _warning_text(),
        "suggestion_text": _suggestion_text(preview),
        "suggestion_detail": _suggestion_detail(preview),
        "session_text": _session_text(preview),
        "difference_text": _difference_text(preview),
        "proxy_saved_text": _proxy_saved_text(preview),
    }
    if part is None:
        context |= {
            "endpoint": llm_endpoint(),
            "processing": settings_processing(preview.namespace),
            "namespace_mode": settings.STRATAGATE_NAMESPACE_MODE,
            "lambda_limits": {"min": LAMBDA_MIN, "max": LAMBDA_MAX, "step": LAMBDA_STEP},
            "turns_limits": {"min": BLOCK_TURNS_MIN, "max": BLOCK_TURNS_MAX},
            "history_modes": HISTORY_MODES,
            "tools_modes": TOOLS_MODES,
            "settings_texts": _texts(),
        }
    return SETTINGS.render(request, part, context, status=status)


def _settings_url(ns: str, session: str, anchor: str = "") -> str:
    query = {key: value for key, value in (("ns", ns), ("session", session)) if value}
    url = reverse("graphui:settings")
    return (f"{url}?{urlencode(query)}" if query else url) + anchor


@require_http_methods(["GET", "HEAD", "POST"])
def settings_page(request: HttpRequest) -> HttpResponse:
    """GET shows the current values, or a preview of `?block_lambda=&block_turns=` (alone with
    `?partial=preview`); POST saves."""
    if request.method == "POST":
        return _settings_save(request)
    part = SETTINGS.requested(request)
    return _page(request, _preview(request, request.GET), part=part)


@staff_required
def _settings_save(request: HttpRequest) -> HttpResponse:
    data = request.POST
    preview = _preview(request, data)
    if not preview.valid:
        return _page(request, preview, status=422)
    try:
        saved = settings_update(
            block_lambda=exact_number(data.get("block_lambda", "")),
            block_turns=exact_number(data.get("block_turns", "")),
            proxy_history=data.get("proxy_history"),
            proxy_tools=data.get("proxy_tools"),
            actor=actor(request),
        )
    except Invalid as exc:  # the service re-validates; the preview above normally catches it
        field = FIELDS_BY_CODE.get(exc.code, "block_lambda")
        errors = {**preview.errors, field: FieldError(code=exc.code, message=exc.message)}
        return _page(request, preview.model_copy(update={"errors": errors}), status=422)
    messages.success(
        request,
        _(
            "Saved: λ %(lam)s, block size %(turns)s, proxy history %(history)s, proxy tools "
            "%(tools)s. Every block's level was recomputed."
        )
        % {
            "lam": _lam(saved.block_lambda),
            "turns": saved.block_turns,
            "history": saved.proxy_history,
            "tools": saved.proxy_tools,
        },
    )
    return redirect(_settings_url(data.get("ns", ""), data.get("session", "")))


def _report_message(report: ConnectionReport) -> str:
    if report.code == "offline":
        return _("Offline processor: no model endpoint is configured, so there is nothing to test.")
    if report.ok:
        return _("Model endpoint reachable: %(model)s answered in %(ms)s ms.") % {
            "model": report.model,
            "ms": report.latency_ms,
        }
    return _("Model endpoint test failed after %(ms)s ms (%(code)s): %(detail)s") % {
        "ms": report.latency_ms,
        "code": report.code,
        "detail": report.detail,
    }


def _wants_json(request: HttpRequest) -> bool:
    return "application/json" in request.headers.get("Accept", "")


@require_POST
@staff_required
def model_test(request: HttpRequest) -> HttpResponse:
    """One short call to the configured endpoint; the result as a message (or JSON)."""
    report = llm_connection_test()
    text = _report_message(report)
    if _wants_json(request):
        return JsonResponse(
            {
                "ok": report.ok,
                "code": report.code,
                "model": report.model,
                "latency_ms": report.latency_ms,
                "detail": report.detail,
                "message": text,
            }
        )
    if report.ok:
        messages.success(request, text)
    elif report.code == "offline":
        messages.info(request, text)
    else:
        messages.error(request, text)
    return redirect(
        _settings_url(request.POST.get("ns", ""), request.POST.get("session", ""), "#model")
    )
