"""Processing page (SPEC §12, §13.9): jobs by kind and state, failed jobs with their complete
(redacted) error to read and copy, retrying one or all failed jobs, jobs in progress, the last
model responses and the admin audit log.

Reading is open to every logged-in user; retrying needs staff, as the API needs an admin token,
and each retry is recorded in the admin audit log. The jobs sections are also served alone
(`?partial=counts|active|failed|calls`, graphui.partials) for the live regions that re-fetch
them."""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from graphui.access import actor, may, ui_namespace
from graphui.partials import live_page
from graphui.vocabulary import job_kind_label, job_status_label
from memory.errors import Conflict
from memory.models import Namespace, Role
from memory.selectors import processing_view as view
from memory.selectors.jobs import job_get
from memory.selectors.processing_rows import jobs_failed_page, model_calls_recent
from memory.services.jobs import job_retry, jobs_retry_failed

PROCESSING = live_page(
    "graphui:processing", "graphui/processing.html", ("counts", "active", "failed", "calls")
)


def _processing_url(ns: str, anchor: str = "") -> str:
    return reverse("graphui:processing", args=[ns]) + (f"#{anchor}" if anchor else "")


def _section(request: HttpRequest, namespace: Namespace, name: str) -> dict[str, Any]:
    """The context one live region needs, and nothing more (a refresh reads only its part)."""
    if name == "counts":
        return {"counts": view.job_counts(namespace)}
    if name == "active":
        return {"active": view.jobs_active(namespace)}
    if name == "failed":
        return {"failed": jobs_failed_page(namespace, page=request.GET.get("failed_page"))}
    return {"calls": model_calls_recent(namespace)}


@require_GET
def processing_page(request: HttpRequest, ns: str) -> HttpResponse:
    namespace = ui_namespace(request.user, ns)
    part = PROCESSING.requested(request)
    common = {"can_retry": may(request.user, namespace, Role.ADMIN)}
    if part is not None:
        return PROCESSING.render(request, part, {**common, **_section(request, namespace, part)})
    overview = view.processing_overview(
        namespace, failed_page=request.GET.get("failed_page"), log_page=request.GET.get("page")
    )
    return PROCESSING.render(
        request,
        None,
        {
            **common,
            "p": overview,
            "counts": overview.counts,
            "active": overview.active,
            "failed": overview.failed,
            "calls": overview.model_calls,
            "log": overview.admin_log,
        },
    )


@require_POST
def job_retry_action(request: HttpRequest, ns: str, job_id: int) -> HttpResponse:
    """Retry one failed job (three fresh attempts); any other job → 409 `job_not_failed`.
    The namespace's admin role."""
    namespace = ui_namespace(request.user, ns, Role.ADMIN)
    job = job_get(namespace, job_id)
    try:
        retried = job_retry(job=job, actor=actor(request))
    except Conflict as exc:
        raise Conflict(
            _("Job #%(id)s is %(status)s: only failed jobs can be retried.")
            % {"id": job.pk, "status": job_status_label(job.status)},
            code=exc.code,
        ) from exc
    messages.success(
        request,
        _("Job #%(id)s (%(kind)s) is queued again with %(attempts)s fresh attempts.")
        % {
            "id": retried.pk,
            "kind": job_kind_label(retried.kind),
            "attempts": retried.max_attempts,
        },
    )
    return HttpResponseRedirect(_processing_url(namespace.name, "active"))


def _kinds_text(by_kind: list[tuple[str, int]]) -> str:
    return ", ".join(f"{n} × {job_kind_label(kind)}" for kind, n in by_kind)


@require_http_methods(["GET", "HEAD", "POST"])
def jobs_retry_failed_action(request: HttpRequest, ns: str) -> HttpResponse:
    """GET: a confirmation naming how many failed jobs of which kinds would be retried. POST:
    retry those (the ones up to the highest id the confirmation showed). The admin role."""
    namespace = ui_namespace(request.user, ns, Role.ADMIN)
    if request.method != "POST":
        preview = view.retry_all_preview(namespace)
        return render(request, "graphui/jobs_retry_failed.html", {"preview": preview})
    up_to = request.POST.get("up_to", "")
    retried = jobs_retry_failed(
        namespace_id=namespace.pk,
        actor=actor(request),
        up_to_id=int(up_to) if up_to.isdigit() else None,
    )
    if not retried:
        messages.info(request, _("No failed job was left to retry."))
        return HttpResponseRedirect(_processing_url(namespace.name, "failed"))
    counted: dict[str, int] = {}
    for job in retried:
        counted[job.kind] = counted.get(job.kind, 0) + 1
    messages.success(
        request,
        ngettext(
            "%(n)s failed job is queued again (%(kinds)s).",
            "%(n)s failed jobs are queued again (%(kinds)s).",
            len(retried),
        )
        % {"n": len(retried), "kinds": _kinds_text(list(counted.items()))},
    )
    return HttpResponseRedirect(_processing_url(namespace.name, "active"))
