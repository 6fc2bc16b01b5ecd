"""Partial refresh, one mechanism for every page that has one.

A page declares its template and the names of the `{% partialdef %}` blocks in it that may be
served alone. `?partial=<name>` renders exactly that block of the page's own template (one
source of markup for the page and its refresh); any other name is a 404 `partial_not_found`,
never the whole page, so a mistyped name cannot put a page inside a page. Every script asks
the same way: live.js re-reads `data-live-src`, imports.js the same regions while the socket is
down, graph.js the node panel (`?partial=detail`) and settings.js the preview
(`?partial=preview`).

    NODE = live_page("graphui:node", "graphui/node.html", ("detail",))

    def node_page(request, ns, node_id):
        namespace = ui_namespace(request.user, ns)  # access first: a 404 says nothing more
        part = NODE.requested(request)
        ...
        return NODE.render(request, part, context)
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from django.http import HttpRequest, HttpResponse, QueryDict
from django.shortcuts import render

from memory.errors import NotFound

PARAMETER = "partial"


@dataclass(frozen=True)
class LivePage:
    name: str  # the URL name of the view that serves it ("graphui:health")
    template: str  # the page template that holds the partials
    partials: tuple[str, ...]  # names of its {% partialdef %} blocks served alone

    def requested(self, request: HttpRequest) -> str | None:
        """The partial `?partial=` asks for, or None for the whole page; any other name → 404
        `partial_not_found`. The parameter is taken out of request.GET, so the links a partial
        builds with {% querystring %} (pagination, Reload) lead to the page, not to the
        fragment."""
        name = request.GET.get(PARAMETER)
        if name is None:
            return None
        if name not in self.partials:
            raise NotFound(f"this page has no part {name[:80]!r}", code="partial_not_found")
        query = request.GET.copy()
        del query[PARAMETER]
        request.GET = QueryDict(query.urlencode())
        return name

    def template_name(self, part: str | None) -> str:
        return f"{self.template}#{part}" if part else self.template

    def render(
        self,
        request: HttpRequest,
        part: str | None,
        context: Mapping[str, Any],
        *,
        status: int = 200,
    ) -> HttpResponse:
        """The page, or only the partial `part` of it, from the same template."""
        return render(request, self.template_name(part), dict(context), status=status)


# Every page with partials, by URL name: tests walk them (each partial must render, and leak
# nothing), and nothing else serves a fragment.
PAGES: dict[str, LivePage] = {}


def live_page(name: str, template: str, partials: tuple[str, ...]) -> LivePage:
    """Declare the page the view `name` renders and the partials it serves alone."""
    page = LivePage(name, template, partials)
    if PAGES.setdefault(name, page) != page:
        raise ValueError(f"{name} already declares other partials")
    return page
