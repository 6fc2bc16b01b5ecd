"""A person's walk through every Memory UI page on the demo namespace, in English and Chinese, in
a wide and a narrow window: each page loads with nothing from another host, no failed load, no
console error or CSP violation, nothing wider than the window, and a screenshot to look at. The
same pages on the hostile namespace keep every XSS probe inert."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest
from django.urls import reverse

from memory.demo import demo_load
from memory.models import Block, Event, GraphNode, ImportBatch, Session, UsageReceipt
from tests.browser.conftest import PageWatch, assert_probes_inert, log_in, screenshot
from tests.browser.hostile import IMG, SCRIPT, hostile_namespace_create
from tests.browser.hostile import NAMESPACE as HOSTILE
from tests.graphui.proxy_support import counters_add, proxied_session_create

pytestmark = pytest.mark.browser

NARROW = {"width": 390, "height": 844}


@dataclass(frozen=True)
class Stop:
    name: str
    path: str


def _stops(ns: str) -> list[Stop]:
    """Every page of a namespace, with real ids from it (read before the browser starts)."""
    session = Session.objects.filter(namespace__name=ns).order_by("-turn_count").first()
    block = Block.objects.filter(namespace__name=ns, status="ready").order_by("pk").first()
    event = Event.objects.filter(namespace__name=ns).order_by("pk").first()
    node = GraphNode.objects.filter(namespace__name=ns).order_by("pk").first()
    receipt = UsageReceipt.objects.filter(namespace__name=ns).order_by("pk").first()
    batch = ImportBatch.objects.filter(namespace__name=ns).order_by("pk").first()
    assert session and block and event and node
    url = reverse
    stops = [
        Stop("namespaces", url("graphui:namespaces")),
        Stop("health", url("graphui:health", args=[ns])),
        Stop("sessions", url("graphui:sessions", args=[ns])),
        Stop("session", url("graphui:session", args=[ns, session.external_id])),
        Stop("block-l5", url("graphui:block", args=[ns, block.pk]) + "?level=5"),
        Stop("timeline", url("graphui:timeline", args=[ns])),
        Stop("event", url("graphui:event", args=[ns, event.pk])),
        Stop("search", url("graphui:search", args=[ns]) + "?q=pnpm"),
        Stop("graph", url("graphui:graph", args=[ns])),
        Stop("node", url("graphui:node", args=[ns, node.pk])),
        Stop("settings", url("graphui:settings")),
        Stop("imports", url("graphui:imports", args=[ns])),
        Stop("audit", url("graphui:audit", args=[ns])),
        Stop("processing", url("graphui:processing", args=[ns])),
        Stop("connect", url("graphui:connect", args=[ns])),
        Stop("event-usage", url("graphui:event_usage", args=[ns, event.pk])),
        Stop("event-forget", url("graphui:event_action", args=[ns, event.pk, "forget"])),
    ]
    if receipt is not None:
        stops.append(Stop("receipt", url("graphui:receipt", args=[ns, receipt.pk])))
    if batch is not None:
        stops.append(Stop("import", url("graphui:import", args=[ns, batch.pk])))
        stops.append(Stop("import-undo", url("graphui:import_undo", args=[ns, batch.pk])))
    return stops


def _proxied(ns: str, text: str) -> None:
    """The walked session came through the model proxy (its page shows the proxy's part)."""
    session = Session.objects.filter(namespace__name=ns).order_by("-turn_count").first()
    assert session is not None
    namespace = session.namespace
    proxied_session_create(
        namespace,
        session.external_id,
        system=(f"You are a careful assistant. {text} " * 20, text),
        exchanges=(
            {"turn": 1, "injected_text": f"<memory>{text}</memory>", "injected_tokens": 12},
            {"state": "tool_step", "model": text},
            {"turn": 2, "degraded_reason": "injection_timeout"},
        ),
    )
    counters_add(namespace, {"requests": 3, "captured": 2, "degraded:injection_timeout": 1})


@pytest.fixture
def demo_stops(staff_user: Any, settings: Any, tmp_path: Any) -> list[Stop]:
    settings.DATA_DIR = tmp_path  # the proxy's spool, read by the health page
    demo_load(name="demo")
    _proxied("demo", "Keep migrations reversible.")
    return _stops("demo")


@pytest.fixture
def hostile_stops(staff_user: Any, settings: Any, tmp_path: Any) -> list[Stop]:
    settings.DATA_DIR = tmp_path
    hostile_namespace_create()
    _proxied(HOSTILE, f"{SCRIPT} {IMG}")
    return [s for s in _stops(HOSTILE) if s.name != "namespaces"]


def _visit(page: Any, base: str, stop: Stop, watch: PageWatch) -> None:
    response = page.goto(base + stop.path)
    assert response is not None and response.status == 200, (stop, response and response.status)
    watch.settle()  # every request the page made is answered before it is looked at


def _fits(page: Any, width: int) -> bool:
    return bool(page.evaluate(f"document.documentElement.scrollWidth <= {width + 1}"))


def test_every_page_in_english_wide_and_narrow(
    demo_stops: list[Stop], live_server: Any, browser_page: Any, watch: PageWatch
) -> None:
    log_in(browser_page, live_server.url)
    for stop in demo_stops:
        _visit(browser_page, live_server.url, stop, watch)
        assert browser_page.locator("html").get_attribute("lang") == "en"
        screenshot(browser_page, f"walk-{stop.name}")
    browser_page.set_viewport_size(NARROW)
    too_wide = []
    for stop in demo_stops:
        _visit(browser_page, live_server.url, stop, watch)
        screenshot(browser_page, f"walk-narrow-{stop.name}")
        if not _fits(browser_page, NARROW["width"]):
            too_wide.append(stop.name)
    assert too_wide == []
    watch.assert_clean()


def test_every_page_in_chinese(
    demo_stops: list[Stop], live_server: Any, browser_page: Any, watch: PageWatch
) -> None:
    log_in(browser_page, live_server.url)
    _visit(browser_page, live_server.url, demo_stops[1], watch)
    with browser_page.expect_navigation():
        browser_page.click("form.lang button")  # the switcher in the header
    assert browser_page.locator("html").get_attribute("lang") == "zh-hans"
    for stop in demo_stops:
        _visit(browser_page, live_server.url, stop, watch)
        assert browser_page.locator("html").get_attribute("lang") == "zh-hans"
        tabs = browser_page.locator("nav.tabs")
        text = tabs.inner_text() if tabs.count() else ""
        assert "Health" not in text and "Timeline" not in text, (stop.name, text)
        assert "Namespaces" not in browser_page.locator("header.top").inner_text(), stop.name
        screenshot(browser_page, f"walk-zh-{stop.name}")
    watch.assert_clean()


def test_hostile_memory_stays_text_on_every_page(
    hostile_stops: list[Stop], live_server: Any, browser_page: Any, watch: PageWatch
) -> None:
    log_in(browser_page, live_server.url)
    for stop in hostile_stops:
        _visit(browser_page, live_server.url, stop, watch)
        assert_probes_inert(browser_page)
        screenshot(browser_page, f"walk-hostile-{stop.name}")
    assert watch.dialogs == []
    watch.assert_clean()
