"""Namespaces page (every namespace with its health at a glance) and the namespace switcher."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render

from graphui.access import ui_namespace, visible_namespaces
from memory.selectors.overview import namespace_overview_page

# Pages that exist for every namespace and take only the namespace: the switcher keeps the page.
NAMESPACE_PAGES = (
    "health",
    "sessions",
    "timeline",
    "graph",
    "search",
    "imports",
    "audit",
    "processing",
    "connect",
)


def namespace_list(request: HttpRequest) -> HttpResponse:
    """Every namespace this person may see with its counts, 50 a page, in a fixed number of
    queries."""
    shown = visible_namespaces(request.user)
    overview = namespace_overview_page(shown, page=request.GET.get("page", 1))
    return render(request, "graphui/namespaces.html", {"overview": overview})


def namespace_switch(request: HttpRequest) -> HttpResponse:
    """The switcher is a plain GET form: open the same kind of page in the chosen namespace."""
    name = request.GET.get("ns", "")
    if not name:
        return redirect("graphui:namespaces")
    namespace = ui_namespace(request.user, name)
    page = request.GET.get("page", "")
    return redirect(f"graphui:{page if page in NAMESPACE_PAGES else 'health'}", ns=namespace.name)
