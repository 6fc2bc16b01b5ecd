"""Partial refresh is one mechanism (graphui.partials): a page declares its template and the
partials it serves; `?partial=<name>` renders exactly that block of the page's own template, an
unknown name is a 404 and never the whole page, and every template and script asks for a
partial with that one parameter."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from django.template.loader import get_template
from django.test import RequestFactory

import graphui.urls  # noqa: F401  (importing the views declares every page)
from graphui.partials import PAGES, LivePage
from memory.errors import NotFound

ROOT = Path(__file__).resolve().parents[2]
# Every page that serves fragments: live regions, the graph's node panel, the settings preview.
EXPECTED = {
    "graphui:health": ("stats", "charts", "jobs"),
    "graphui:sessions": ("list",),
    "graphui:session": ("session",),
    "graphui:processing": ("counts", "active", "failed", "calls"),
    "graphui:import": ("progress", "rows"),
    "graphui:node": ("detail",),
    "graphui:settings": ("preview",),
}


def test_the_pages_with_partials_are_the_ones_expected() -> None:
    for name, partials in EXPECTED.items():
        assert PAGES[name].partials == partials, name


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_every_declared_partial_is_a_block_of_the_page_template(name: str) -> None:
    page = PAGES[name]
    get_template(page.template)
    for part in page.partials:
        get_template(page.template_name(part))  # raises TemplateDoesNotExist for a typo


def test_a_known_name_is_taken_out_of_the_query_and_an_unknown_one_is_a_404() -> None:
    page = LivePage("test:page", "graphui/sessions.html", ("list",))
    request = RequestFactory().get("/x/", {"page": "2", "partial": "list"})
    assert page.requested(request) == "list"
    assert request.GET.urlencode() == "page=2"  # links built from the query lead to the page
    assert page.template_name("list") == "graphui/sessions.html#list"
    assert page.template_name(None) == "graphui/sessions.html"

    plain = RequestFactory().get("/x/", {"page": "2"})
    assert page.requested(plain) is None and plain.GET.urlencode() == "page=2"

    for unknown in ("rows", "", "1", "list#x", "../x"):
        with pytest.raises(NotFound) as refused:
            page.requested(RequestFactory().get("/x/", {"partial": unknown}))
        assert refused.value.code == "partial_not_found"


def _asked_for() -> set[str]:
    """Every partial name the templates and scripts ask for."""
    names: set[str] = set()
    for path in [*(ROOT / "templates").rglob("*.html"), *(ROOT / "static/graphui/js").glob("*.js")]:
        text = path.read_text()
        names |= set(re.findall(r"[?&]partial=(\w+)", text))
        names |= set(re.findall(r"partial='(\w+)'", text))  # {% querystring partial='…' %}
        names |= set(re.findall(r"partial: \"(\w+)\"", text))  # graph.js' nodeUrl(…)
        names |= set(re.findall(r"set\(\"partial\", \"(\w+)\"\)", text))  # settings.js
    return names


def test_templates_and_scripts_ask_only_for_declared_partials() -> None:
    declared = {part for page in PAGES.values() for part in page.partials}
    asked = _asked_for()
    assert {"stats", "list", "session", "counts", "progress", "detail", "preview"} <= asked
    assert asked <= declared, asked - declared
