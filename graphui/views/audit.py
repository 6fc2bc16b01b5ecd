"""The usage audit (SPEC §10.5, §13.8): receipts newest first with filters, each receipt's chain
(answer turn → gate verdict → cited memories → their source messages, with what was retrieved
but not used and what was injected kept apart), and a memory's usage page back to the answers
that used it. Read-only; filters and the page number live in the query string."""

from __future__ import annotations

from typing import Any

from django import forms
from django.http import HttpRequest, HttpResponse, QueryDict
from django.shortcuts import render
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_GET

from graphui.access import ui_namespace
from graphui.filters import Chip, DateRangeFilterForm, day_end, day_start, without
from graphui.vocabulary import VERDICTS
from memory.selectors import audit_view
from memory.selectors.audit_view import NO_VERDICT, ReceiptFilter
from memory.selectors.audit_view.receipts import USED_NOTHING, USED_SOMETHING

# The filter's words: the verdicts as the list and the chain show them, and receipts without one.
VERDICT_WORDS = {
    **{verdict: word.label for verdict, word in VERDICTS.items()},
    NO_VERDICT: gettext_lazy("none (no assessment)"),
}
USED_WORDS = {
    USED_SOMETHING: gettext_lazy("cited at least one memory"),
    USED_NOTHING: gettext_lazy("used nothing (zero-increment)"),
}


class ReceiptFilterForm(DateRangeFilterForm):
    session = forms.CharField(label=gettext_lazy("Session"), required=False, max_length=200)
    verdict = forms.ChoiceField(
        label=gettext_lazy("Verdict"),
        required=False,
        choices=[("", gettext_lazy("any verdict")), *VERDICT_WORDS.items()],
    )
    used = forms.ChoiceField(
        label=gettext_lazy("What the answer used"),
        required=False,
        choices=[("", gettext_lazy("anything")), *USED_WORDS.items()],
    )

    def __init__(self, *args: Any, sessions: list[str] | None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        if sessions is not None:
            # Few enough sessions have receipts to list them; a stale id in the URL still
            # filters (to nothing) rather than failing the page.
            current = (self.data.get("session") or "").strip()
            listed = [*sessions, *([current] if current and current not in sessions else [])]
            self.fields["session"] = forms.ChoiceField(
                label=gettext_lazy("Session"),
                required=False,
                choices=[("", _("any session")), *((s, s) for s in listed)],
            )

    def receipt_filter(self) -> ReceiptFilter:
        data = self.valid_part()
        session = (data.get("session") or "").strip()
        return ReceiptFilter(
            session_id=session or None,
            verdict=data.get("verdict") or None,
            used=data.get("used") or None,
            created_from=day_start(data.get("from")),
            created_to=day_end(data.get("to")),
        )


def _chips(form: ReceiptFilterForm, query: QueryDict) -> list[Chip]:
    data = form.valid_part()
    chips = []
    if (data.get("session") or "").strip():
        chips.append(Chip(_("Session"), data["session"].strip(), without(query, "session")))
    if data.get("verdict"):
        word = str(VERDICT_WORDS.get(data["verdict"], data["verdict"]))
        chips.append(Chip(_("Verdict"), word, without(query, "verdict")))
    if data.get("used"):
        word = str(USED_WORDS.get(data["used"], data["used"]))
        chips.append(Chip(_("Used"), word, without(query, "used")))
    for key, label in (("from", _("From")), ("to", _("To"))):
        if data.get(key):
            chips.append(Chip(label, data[key].isoformat(), without(query, key)))
    return chips


@require_GET
def receipt_list_page(request: HttpRequest, ns: str) -> HttpResponse:
    namespace = ui_namespace(request.user, ns)
    form = ReceiptFilterForm(request.GET, sessions=audit_view.receipt_sessions(namespace))
    filters = form.receipt_filter()
    return render(
        request,
        "graphui/audit.html",
        {
            "form": form,
            "chips": _chips(form, request.GET),
            "summary": audit_view.receipt_summary(namespace, filters),
            "page": audit_view.receipt_page(
                namespace=namespace, filters=filters, page=request.GET.get("page")
            ),
        },
    )


@require_GET
def receipt_page(request: HttpRequest, ns: str, receipt_pk: int) -> HttpResponse:
    namespace = ui_namespace(request.user, ns)
    detail = audit_view.receipt_page_detail(namespace=namespace, receipt_pk=receipt_pk)
    return render(
        request,
        "graphui/receipt.html",
        {"detail": detail, "chain": detail.chain},
    )


@require_GET
def event_usage_page(request: HttpRequest, ns: str, event_id: int) -> HttpResponse:
    namespace = ui_namespace(request.user, ns)
    usage = audit_view.event_usage_detail(namespace=namespace, event_id=event_id)
    return render(
        request,
        "graphui/event_usage.html",
        {"usage": usage, "shown": audit_view.USAGE_SHOWN},
    )
