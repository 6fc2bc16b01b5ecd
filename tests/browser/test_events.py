"""The event timeline and event page in a real browser: filter, page through, open an event,
follow its source link; screenshots wide and narrow; hostile memory stays inert."""

from __future__ import annotations

from datetime import UTC, date, datetime
from typing import Any

import pytest

from memory.models import Block, Event
from memory.services.namespaces import namespace_get_or_create
from tests.browser.conftest import assert_probes_inert, log_in, screenshot
from tests.browser.hostile import hostile_namespace_create

pytestmark = pytest.mark.browser

# Data fixtures come before `browser_page` / `watch` in every signature: see conftest.py.


@pytest.fixture
def timeline_ns(db: None) -> dict[str, Any]:
    """The demo namespace (software project, English and Chinese, superseded decisions, plans,
    a conflict, a forgotten event, receipts, an import) when the demo loader is there, else the
    timeline test data; plus one event with a 200-character title and a 3,000-character source."""
    try:
        from memory.demo import demo_load
    except ImportError:
        demo_load = None
    if demo_load is not None:
        name = demo_load(name="demo", nodes=0).namespace
    else:
        from memory.services.jobs import jobs_drain
        from memory.services.settings import memory_settings_update
        from tests.graphui.test_events import TURNS, say

        memory_settings_update(block_turns=1)
        namespace = namespace_get_or_create(name="demo")
        for n, (at, text) in enumerate(TURNS, start=1):
            say(namespace, n, text, at)
        jobs_drain()
        name = namespace.name
    long_event = _long_event()
    adopted = (
        Event.objects.filter(namespace__name=name, usage_items__isnull=False).order_by("pk").first()
    )
    plan = Event.objects.filter(namespace__name=name, temporal_status="planned").first()
    return {
        "ns": name,
        "long": long_event.pk,
        "event": (adopted or plan or Event.objects.filter(namespace__name=name).first()).pk,
    }


def _long_event() -> Event:
    from memory.services.jobs import jobs_drain
    from memory.services.settings import memory_settings_update
    from tests.graphui.test_events import extra_event, say

    memory_settings_update(block_turns=1)
    namespace = namespace_get_or_create(name="long")
    text = "我们决定把数据库迁移到 PostgreSQL。" + " ".join(["A very long paste line."] * 130)
    say(namespace, 1, text[:3000], datetime(2026, 10, 1, 9, 0, tzinfo=UTC), session="长会话")
    jobs_drain()
    block = Block.objects.get(namespace=namespace)
    return extra_event(
        block,
        title=("中文内容 " + "a very long event title that keeps going " * 6)[:200],
        summary="中文内容：" + "A summary that goes on and on. " * 60,
        event_type="decision",
        participants=["王小明", "Alice"],
        tags=["中文", "long"],
        temporal_status="planned",
        happened_start=datetime(2026, 10, 20, tzinfo=UTC),
        happened_end=datetime(2026, 10, 24, 23, 59, tzinfo=UTC),
        precision="range",
        basis="relative",
        original_text="下周",
    )


@pytest.fixture
def hostile_ns(db: None) -> dict[str, Any]:
    namespace = hostile_namespace_create()
    return {"ns": namespace.name, "event": Event.objects.get(namespace=namespace).pk}


def _cards(page: Any) -> Any:
    return page.locator("#timeline > li.ev")


def _types(page: Any) -> list[str]:
    return [t.strip() for t in page.locator("#timeline .ev-head .badge.info").all_inner_texts()]


def _rail_days(page: Any) -> list[date]:
    days = []
    for value in page.locator("#timeline .ev-rail").evaluate_all(
        "els => els.map(e => e.querySelector('time').getAttribute('datetime'))"
    ):
        days.append(date.fromisoformat(value[:10]))
    return days


def test_filter_the_timeline_open_an_event_and_follow_its_sources(
    staff_user: Any, timeline_ns: dict[str, Any], live_server: Any, browser_page: Any, watch: Any
) -> None:
    page, base, ns = browser_page, live_server.url, timeline_ns["ns"]
    log_in(page, base)
    page.goto(f"{base}/ns/{ns}/events/")
    assert page.locator("h1").inner_text() == "Event timeline"
    everything = _cards(page).count()
    assert everything > 5
    assert page.locator(".tmark-planned").count() > 0  # "◷ planned" in words
    screenshot(page, "timeline")

    # Filter by type through the sidebar form: the list narrows to plans, shown as a chip.
    page.select_option("#id_type", "plan")
    with page.expect_navigation():
        page.click("#timeline-filters button[type=submit]")
    assert "type=plan" in page.url
    plans = _cards(page).count()
    assert 0 < plans < everything
    assert set(_types(page)) == {"plan"}
    assert "Type: plan" in " ".join(page.locator("#filter-chips").inner_text().split())

    # Then a date range on the timeline axis.
    page.fill("#id_from", "2026-09-01")
    page.fill("#id_to", "2026-09-10")
    with page.expect_navigation():
        page.click("#timeline-filters button[type=submit]")
    days = _rail_days(page)
    assert _cards(page).count() <= plans
    assert days and all(d <= date(2026, 9, 10) for d in days), days
    assert any(d >= date(2026, 9, 1) for d in days), days
    screenshot(page, "timeline-filtered")

    # Remove the type chip: the date range stays.
    with page.expect_navigation():
        page.locator("#filter-chips a.chip", has_text="Type").click()
    assert "type=" not in page.url and "from=2026-09-01" in page.url
    with page.expect_navigation():
        page.click("#filter-chips a.clear")
    assert _cards(page).count() == everything

    # Open an event from its card: both axes and the trajectory chart.
    event_id = timeline_ns["event"]
    with page.expect_navigation():
        page.click(f"#event-{event_id} .ev-title a")
    assert page.url == f"{base}/ns/{ns}/events/{event_id}/"
    axes = page.locator("#event dl.axes").first.inner_text()
    assert "Mentioned" in axes
    assert page.locator("#weight svg.chart").count() == 1
    label = page.locator("#weight svg.chart").get_attribute("aria-label")
    assert label is not None and label.startswith("Weight over turns")
    screenshot(page, "event")

    # Sources one click away: the block at L5 with the event's messages highlighted.
    link = page.locator("#source-block-link")
    href = link.get_attribute("href")
    assert href is not None and "level=5&hl=" in href
    with page.expect_navigation():
        link.click()
    assert f"/ns/{ns}/sessions/" in page.url
    assert page.locator(".msg.hl").count() >= 1

    # Narrow window.
    page.set_viewport_size({"width": 390, "height": 844})
    page.goto(f"{base}/ns/{ns}/events/")
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= 390, f"the timeline scrolls sideways at 390 px ({width})"
    screenshot(page, "timeline-narrow")
    page.goto(f"{base}/ns/{ns}/events/{event_id}/")
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    screenshot(page, "event-narrow")
    watch.assert_clean()


def test_long_and_chinese_content_fits(
    staff_user: Any, timeline_ns: dict[str, Any], live_server: Any, browser_page: Any, watch: Any
) -> None:
    page, base = browser_page, live_server.url
    log_in(page, base)
    page.goto(f"{base}/ns/long/events/")
    assert "中文内容" in page.locator("#timeline").inner_text()
    screenshot(page, "timeline-long")
    page.goto(f"{base}/ns/long/events/{timeline_ns['long']}/")
    assert page.evaluate("document.documentElement.scrollWidth") <= 1280
    screenshot(page, "event-long")
    page.set_viewport_size({"width": 390, "height": 844})
    page.reload()
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    screenshot(page, "event-long-narrow")
    watch.assert_clean()


def test_hostile_memory_stays_inert_on_the_timeline_and_event_page(
    staff_user: Any, hostile_ns: dict[str, Any], live_server: Any, browser_page: Any, watch: Any
) -> None:
    page, base, ns = browser_page, live_server.url, hostile_ns["ns"]
    log_in(page, base)
    page.goto(f"{base}/ns/{ns}/events/")
    assert "<script>" in page.locator("#timeline").inner_text()  # shown as text
    assert_probes_inert(page)
    screenshot(page, "timeline-hostile")
    page.goto(f"{base}/ns/{ns}/events/{hostile_ns['event']}/")
    assert_probes_inert(page)
    screenshot(page, "event-hostile")
    watch.assert_clean()
