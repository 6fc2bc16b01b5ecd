"""The knowledge graph pages (SPEC §13.4): the graph page (controls, canvas, legend and a table of
the nodes shown, readable without JavaScript), its JSON twin for the canvas script, and the node
page (also served as a fragment for the canvas' side panel, from the same template).

All of them are read-only: no retrieval batch, no weights touched (the API's node expansion
records a batch; a person browsing must not).
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

from django.http import HttpRequest, HttpResponse, JsonResponse, QueryDict
from django.shortcuts import render
from django.urls import reverse
from django.utils.formats import number_format
from django.utils.translation import gettext as _
from django.views.decorators.http import require_safe

from graphui.access import ui_namespace
from graphui.graph_render import legend, render_graph
from graphui.partials import live_page
from memory.errors import Invalid, StrataGateError
from memory.selectors.graph import as_of_from_text
from memory.selectors.graph_view import (
    DEFAULT_NODES,
    MAX_FOCUS,
    MAX_NODES,
    GraphQuery,
    GraphViewOut,
    graph_view,
    node_detail,
)

LIMIT_CHOICES = (50, DEFAULT_NODES, 300, MAX_NODES)
SEARCH_CHARS = 200
NODE = live_page("graphui:node", "graphui/node.html", ("detail",))


def _int(value: str | None, default: int) -> int:
    try:
        return int(value or "")
    except ValueError:
        return default


def graph_query(params: QueryDict) -> GraphQuery:
    """The graph page's query string. Out-of-range numbers are clamped (the controls only offer
    valid ones); a bad `as_of` raises 422 `invalid_as_of`."""
    focus = [int(v) for v in params.getlist("focus") if v.isdigit()]
    return GraphQuery(
        limit=min(MAX_NODES, max(1, _int(params.get("limit"), DEFAULT_NODES))),
        history=params.get("history", "") in ("1", "on", "true"),
        as_of=as_of_from_text(params.get("as_of")),
        focus=tuple(dict.fromkeys(focus))[:MAX_FOCUS],
        depth=2 if params.get("depth") == "2" else 1,
        search=params.get("q", "").strip()[:SEARCH_CHARS],
    )


def _as_of_error(value: str) -> str:
    return _(
        "“%(value)s” is neither a turn nor a date. Use a namespace turn like 42 or a date like "
        "2026-10-01."
    ) % {"value": value}


def _js_strings() -> dict[str, str]:
    """What graph.js says, translated here (the script has no catalog of its own)."""
    return {
        "no_match": _("No node matches “%(text)s”."),
        "focused": _("Focused the best match for “%(text)s”."),
        "matches": _("%(count)s loaded nodes match; press Enter to search the whole graph."),
        "loading": _("Loading…"),
        "failed": _("Could not load the graph (%(status)s)."),
        "panel_failed": _("Could not load this node (%(status)s)."),
    }


@require_safe
def graph_page(request: HttpRequest, ns: str) -> HttpResponse:
    namespace = ui_namespace(request.user, ns)
    as_of_text = request.GET.get("as_of", "").strip()
    context: dict[str, Any] = {
        "namespace": namespace,
        "as_of_text": as_of_text,
        "history": request.GET.get("history", "") in ("1", "on", "true"),
        "legend": legend(),
        "limit_choices": LIMIT_CHOICES,
        "search_text": request.GET.get("q", "").strip()[:SEARCH_CHARS],
        "node_query": urlencode({"as_of": as_of_text}) if as_of_text else "",
        "data_url": reverse("graphui:graph_data", args=[namespace.name]),
        "node_url": reverse("graphui:node", args=[namespace.name, 0]),
        "js_strings": _js_strings(),
    }
    try:
        query = graph_query(request.GET)
    except Invalid as exc:
        context.update(error=exc, error_text=_as_of_error(as_of_text), query=GraphQuery())
        return render(request, "graphui/graph.html", context, status=exc.http_status)
    view = graph_view(namespace, query)
    context.update(
        query=query,
        view=view,
        # The first drawing's data comes with the page (one request, one graph read); the
        # canvas fetches graph_data only for neighbourhoods and searches.
        graph_json=_payload(view, query, as_of_text),
        shown_text=number_format(view.shown_nodes, force_grouping=True),
        total_text=number_format(view.total_nodes, force_grouping=True),
    )
    return render(request, "graphui/graph.html", context)


@require_safe
def graph_data(request: HttpRequest, ns: str) -> JsonResponse:
    """The canvas' data: `{nodes, edges, options, total_nodes, shown_nodes, as_of, history, …}`.
    Errors come back as the API's JSON envelope with their status (422 `invalid_as_of`)."""
    try:
        namespace = ui_namespace(request.user, ns)
        query = graph_query(request.GET)
        view = graph_view(namespace, query)
    except StrataGateError as exc:
        message = _as_of_error(request.GET.get("as_of", "")) if exc.code == "invalid_as_of" else ""
        return JsonResponse(
            {"error": {"code": exc.code, "message": message or exc.message, "details": {}}},
            status=exc.http_status,
        )
    payload = _payload(view, query, request.GET.get("as_of", "").strip())
    return JsonResponse(
        payload, json_dumps_params={"ensure_ascii": False, "separators": (",", ":")}
    )


def _payload(view: GraphViewOut, query: GraphQuery, as_of_text: str) -> dict[str, Any]:
    payload = render_graph(view)
    payload.update(
        total_nodes=view.total_nodes,
        shown_nodes=view.shown_nodes,
        as_of=as_of_text or None,
        history=query.history,
        limit=query.limit,
        depth=query.depth,
        focus=view.focus,
        search=({"query": query.search, "node": view.search_hit} if query.search else None),
    )
    return payload


@require_safe
def node_page(request: HttpRequest, ns: str, node_id: int) -> HttpResponse:
    """One node: current and historical facts and edges, provenance events and their source
    messages, neighbours. `?partial=detail` returns only the fragment the graph page's panel
    shows (graphui.partials), from the same template."""
    namespace = ui_namespace(request.user, ns)
    part = NODE.requested(request)
    as_of_text = request.GET.get("as_of", "").strip()
    detail = node_detail(namespace, node_id, as_of=as_of_from_text(as_of_text))
    context = {
        "namespace": namespace,
        "detail": detail,
        "node": detail.state.node,
        "as_of_text": as_of_text,
        "node_query": urlencode({"as_of": as_of_text}) if as_of_text else "",
        "graph_query": urlencode(
            {"focus": node_id, **({"as_of": as_of_text} if as_of_text else {})}
        ),
        "panel": part == "detail",  # in the graph page's side panel, not a page of its own
    }
    return NODE.render(request, part, context)
