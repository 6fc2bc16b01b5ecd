"""Search page (SPEC §13.2): one box across events, graph, blocks and raw messages, ranked as the
agent tools rank them, matches marked and why each hit matched. Reads only: browsing records
no retrieval batch and changes no weight (`memory.recall.ui_search`)."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from graphui.access import ui_namespace
from memory.errors import Invalid
from memory.recall.ui_search import ALL, SEARCH_KINDS, search_scope, ui_search

TEMPLATE = "graphui/search.html"


def search_page(request: HttpRequest, ns: str) -> HttpResponse:
    namespace = ui_namespace(request.user, ns)
    query = request.GET.get("q", "")
    kind = request.GET.get("kind", ALL)
    context: dict[str, Any] = {
        "query": query,
        "kind": kind if kind in SEARCH_KINDS else ALL,
    }
    try:
        page = ui_search(namespace=namespace, query=query, kind=kind)
    except Invalid as error:
        # A query the product refuses (422 query_too_long) is shown on the page, not a crash.
        context |= {"error": error, "searched": search_scope(namespace)}
        return render(request, TEMPLATE, context, status=error.http_status)
    return render(request, TEMPLATE, context | {"page": page, "searched": page.searched})
