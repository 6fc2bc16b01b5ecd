"""The usage audit in a real browser: filter the receipts, follow a receipt's chain down to a
source message (its block at L5, the message highlighted) and come back from the event through
its usage page; screenshots wide and narrow; long, Chinese and hostile content."""

from __future__ import annotations

from typing import Any

import pytest

from memory.models import Event, Namespace, UsageReceipt
from tests.browser.conftest import assert_probes_inert, log_in, screenshot

pytestmark = pytest.mark.browser

# Data fixtures come before `browser_page` / `watch` in every signature: see conftest.py.


@pytest.fixture
def demo(db: None) -> dict[str, Any]:
    """The demo namespace: five receipts, one zero-increment after a partial assessment with
    rejected refs, activated memory before two of the answers."""
    from memory.demo import demo_load

    name = demo_load(name="demo", nodes=0).namespace
    receipts = {r.receipt_id: r for r in UsageReceipt.objects.filter(namespace__name=name)}
    first = receipts["demo-receipt-1"]
    event = Event.objects.get(pk=first.reinforced_event_ids[0])
    return {
        "ns": name,
        "receipts": len(receipts),
        "first": first.pk,
        "partial": receipts["demo-receipt-3"].pk,
        "graph": receipts["demo-receipt-5"].pk,
        "event": event.pk,
    }


@pytest.fixture
def long_ns(db: None) -> dict[str, Any]:
    """A receipt whose question, answer and session id are long and Chinese."""
    from memory.recall.events import EventSearch
    from memory.services.jobs import jobs_drain
    from memory.services.namespaces import namespace_get_or_create
    from memory.services.retrieval import events_search
    from memory.services.settings import memory_settings_update
    from tests.graphui.test_audit import _assess, _use, say

    memory_settings_update(block_turns=1)
    namespace: Namespace = namespace_get_or_create(name="long")
    say(namespace, "中文会话", 1, "我们决定把数据库迁移到 PostgreSQL。中文内容")
    jobs_drain()
    event = Event.objects.filter(namespace=namespace).first()
    assert event is not None
    session = "中文内容的会话 " + "a-very-long-session-id-" * 7
    question = "中文内容：数据库现在用什么？ " + "Please answer with every detail you have. " * 4
    batch = events_search(
        namespace=namespace, params=EventSearch(query="数据库 PostgreSQL", session_id=session)
    ).batch.public_id
    _assess(namespace, batch, "sufficient", [f"event:{event.pk}"], next_strategy="answer")
    answer = ("中文内容：现在用的是 PostgreSQL。" + "A long answer line that keeps going. " * 85)[
        :3000
    ]
    receipt = _use(namespace, batch, "long-" + "x" * 150, [f"event:{event.pk}"], answer=answer)
    say(namespace, session, 1, question, answer)
    return {"ns": namespace.name, "receipt": receipt.pk}


@pytest.fixture
def hostile(db: None) -> dict[str, int]:
    from tests.graphui.test_audit import hostile_receipt_create

    return hostile_receipt_create()


def _rows(page: Any) -> Any:
    return page.locator("#receipts > li.receipt")


def test_filter_receipts_follow_a_chain_to_its_source_and_back(
    staff_user: Any, demo: dict[str, Any], live_server: Any, browser_page: Any, watch: Any
) -> None:
    page, base, ns = browser_page, live_server.url, demo["ns"]
    log_in(page, base)
    page.goto(f"{base}/ns/{ns}/audit/")
    assert page.locator("h1").inner_text() == "Usage audit"
    assert _rows(page).count() == demo["receipts"]
    assert page.locator("#receipts li.receipt.zero").count() == 1
    assert "used nothing" in page.locator("#receipts li.receipt.zero").inner_text()
    screenshot(page, "audit")

    # Filter by verdict: only the partial, zero-increment receipt is left, and the summary
    # counts the filtered set.
    page.select_option("#id_verdict", "partial")
    with page.expect_navigation():
        page.click("#audit-filters button[type=submit]")
    assert "verdict=partial" in page.url
    assert _rows(page).count() == 1
    assert page.locator(f"#receipt-{demo['partial']}").count() == 1
    assert page.locator("#audit-summary .stat .value").first.inner_text() == "1"
    assert "Verdict: partial" in " ".join(page.locator("#filter-chips").inner_text().split())

    # Its chain: the partial verdict with its rejected refs, nothing cited.
    with page.expect_navigation():
        page.locator(f"#receipt-{demo['partial']} a.chain-link").click()
    verdict = page.locator("#verdict").inner_text()
    assert "partial" in verdict and "rejected refs" in verdict
    assert "not among what this batch retrieved" in verdict
    assert page.locator("#zero-increment").count() == 1
    assert page.locator("#unused li.mem-unused").count() > 0

    # Back to the list, clear the filter, open the first receipt's chain.
    page.goto(f"{base}/ns/{ns}/audit/?verdict=partial")
    with page.expect_navigation():
        page.click("#filter-chips a.clear")
    assert _rows(page).count() == demo["receipts"]
    with page.expect_navigation():
        page.locator(f"#receipt-{demo['first']} a.chain-link").click()
    assert page.url == f"{base}/ns/{ns}/audit/{demo['first']}/"
    assert page.locator("#answer .msg").count() >= 2  # the answer turn's messages
    assert "sufficient" in page.locator("#verdict").inner_text()
    assert page.locator("#memories li.mem-cited").count() == 1
    assert page.locator("#injected li.mem-injected").count() > 0
    screenshot(page, "receipt")

    # Down the chain to a source message: its block at L5 with the message highlighted.
    link = page.locator("#sources a.source-link").first
    href = link.get_attribute("href") or ""
    message_id = href.rstrip("/").rsplit("/", 1)[-1]
    with page.expect_navigation():
        link.click()
    assert f"/ns/{ns}/sessions/" in page.url and "view=5" in page.url
    highlighted = page.locator(f"#msg-{message_id}")
    assert highlighted.count() == 1 and "hl" in (highlighted.get_attribute("class") or "")

    # And back from the memory: event page → its usage page → the receipt.
    page.goto(f"{base}/ns/{ns}/events/{demo['event']}/")
    with page.expect_navigation():
        page.click("#usage-page-link")
    assert page.url == f"{base}/ns/{ns}/events/{demo['event']}/usage/"
    assert page.locator("#cited a.chain-link").count() >= 1
    screenshot(page, "event-usage")
    with page.expect_navigation():
        page.locator(f"#cited a.chain-link[href$='/audit/{demo['first']}/']").click()
    assert page.url == f"{base}/ns/{ns}/audit/{demo['first']}/"
    watch.assert_clean()


def test_the_audit_fits_a_narrow_window(
    staff_user: Any, demo: dict[str, Any], live_server: Any, browser_page: Any, watch: Any
) -> None:
    page, base, ns = browser_page, live_server.url, demo["ns"]
    log_in(page, base)
    page.set_viewport_size({"width": 390, "height": 844})
    for url, name in (
        (f"/ns/{ns}/audit/", "audit-narrow"),
        (f"/ns/{ns}/audit/{demo['graph']}/", "receipt-narrow"),
        (f"/ns/{ns}/audit/{demo['partial']}/", "receipt-partial-narrow"),
        (f"/ns/{ns}/events/{demo['event']}/usage/", "event-usage-narrow"),
    ):
        page.goto(base + url)
        width = page.evaluate("document.documentElement.scrollWidth")
        assert width <= 390, f"{url} scrolls sideways at 390 px ({width})"
        screenshot(page, name)
    watch.assert_clean()


def test_long_and_chinese_content_fits(
    staff_user: Any, long_ns: dict[str, Any], live_server: Any, browser_page: Any, watch: Any
) -> None:
    page, base, ns = browser_page, live_server.url, long_ns["ns"]
    log_in(page, base)
    page.goto(f"{base}/ns/{ns}/audit/")
    assert "中文内容" in page.locator("#receipts").inner_text()
    assert page.evaluate("document.documentElement.scrollWidth") <= 1280
    screenshot(page, "audit-long")
    page.goto(f"{base}/ns/{ns}/audit/{long_ns['receipt']}/")
    assert page.evaluate("document.documentElement.scrollWidth") <= 1280
    screenshot(page, "receipt-long")
    page.set_viewport_size({"width": 390, "height": 844})
    page.reload()
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    screenshot(page, "receipt-long-narrow")
    watch.assert_clean()


def test_hostile_memory_stays_inert_in_the_audit(
    staff_user: Any, hostile: dict[str, int], live_server: Any, browser_page: Any, watch: Any
) -> None:
    page, base = browser_page, live_server.url
    log_in(page, base)
    for url in (
        "/ns/hostile/audit/",
        f"/ns/hostile/audit/{hostile['receipt']}/",
        f"/ns/hostile/events/{hostile['event']}/usage/",
    ):
        page.goto(base + url)
        assert_probes_inert(page)
    assert "<script>" in page.locator("h1").inner_text()  # the event title, shown as text
    page.goto(f"{base}/ns/hostile/audit/{hostile['receipt']}/")
    screenshot(page, "receipt-hostile")
    watch.assert_clean()
