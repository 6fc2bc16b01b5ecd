"""The search page in a real browser: typing a query, marked hits in every section, following a
message hit to its source, the header's quick search, narrow windows and hostile memory."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.db import transaction

from memory.demo import demo_load
from memory.engine.prompts.extraction import ExtractedEvent
from memory.models import Block, Message
from memory.services.events import EventContext, event_create
from memory.services.ingest import MessageIn, TurnIn, turn_ingest
from memory.services.jobs import jobs_drain
from memory.services.namespaces import namespace_get_or_create
from tests.browser.conftest import PageWatch, assert_probes_inert, log_in, screenshot
from tests.browser.hostile import hostile_namespace_create

pytestmark = pytest.mark.browser

# Data fixtures come before `browser_page`/`watch` in every signature: see conftest.py.


@pytest.fixture
def demo(transactional_db: None) -> str:
    return demo_load(name="demo").namespace


@pytest.fixture
def hostile(transactional_db: None) -> str:
    return hostile_namespace_create().name


@pytest.fixture
def long_content(transactional_db: None) -> str:
    """A 3,000-character message and a 200-character event title, in English and Chinese."""
    namespace = namespace_get_or_create(name="long")
    filler = "The warehouse routing engine keeps its state in memory between runs. " * 20
    for n in range(1, 7):
        turn_ingest(
            namespace=namespace,
            turn=TurnIn(
                session_id="s-" + "x" * 120,
                receipt_id=f"long-{n}",
                messages=[
                    MessageIn(
                        role="user",
                        content=f"{filler}Turn {n}: the zanzibar cache 中文内容 缓存 {filler}",
                    ),
                    MessageIn(role="assistant", content=f"中文内容 answer {n} about zanzibar."),
                ],
            ),
        )
    jobs_drain()
    block = Block.objects.filter(namespace=namespace).first()
    assert block is not None
    message = Message.objects.filter(turn__block=block).order_by("pk").first()
    assert message is not None
    with transaction.atomic():
        event_create(
            extracted=ExtractedEvent(
                title=("Zanzibar cache decision with a very long title " * 5)[:200],
                summary="We keep the zanzibar cache. 中文内容：缓存保留。" + filler,
                tags=["zanzibar", "缓存"],
                source_message_ids=[message.pk],
            ),
            context=EventContext(block=block, formed_turn=6, messages={message.pk: message}),
        )
    return namespace.name


def search_for(page: Any, query: str) -> None:
    page.fill("#search-q", query)
    with page.expect_navigation():
        page.press("#search-q", "Enter")


def test_a_query_shows_marked_hits_and_a_message_leads_to_its_source(
    staff_user: Any, demo: str, live_server: Any, browser_page: Any, watch: PageWatch
) -> None:
    page = browser_page
    log_in(page, live_server.url)
    page.goto(f"{live_server.url}/ns/{demo}/search/")
    assert page.locator("#search-empty").is_visible()
    assert "Read-only" in page.locator("#search-scope").inner_text()
    screenshot(page, "search-empty")

    search_for(page, "pnpm PostgreSQL")

    assert "q=pnpm+PostgreSQL" in page.url
    for section in ("#events", "#graph", "#blocks", "#messages"):
        assert page.locator(f"{section} .hit").count() >= 1, section
    for section in ("#events", "#graph", "#messages"):
        marks = page.locator(f"{section} mark").all_inner_texts()
        assert {m.lower() for m in marks} & {"pnpm", "postgresql"}, section
    assert "words in" in page.locator("#events .hit .why").first.inner_text()
    screenshot(page, "search")

    # The kind chips keep the query.
    with page.expect_navigation():
        page.click(".kinds a:has-text('Messages')")
    assert "q=pnpm+PostgreSQL" in page.url and "kind=messages" in page.url
    assert page.locator("#events").count() == 0

    first = page.locator("#messages .hit").first
    message_id = re.sub(r"\D", "", first.get_attribute("id") or "")
    link = first.locator(".hit-head h3 a")
    assert link.get_attribute("href") == f"/ns/{demo}/messages/{message_id}/"
    with page.expect_navigation():
        link.click()
    assert f"/ns/{demo}/sessions/" in page.url
    target = page.locator(f"#msg-{message_id}")
    assert "hl" in (target.get_attribute("class") or "").split()
    assert target.is_visible()
    watch.assert_clean()


def test_a_chinese_query_and_the_header_quick_search(
    staff_user: Any, demo: str, live_server: Any, browser_page: Any, watch: PageWatch
) -> None:
    page = browser_page
    log_in(page, live_server.url)
    page.goto(f"{live_server.url}/ns/{demo}/search/")

    page.fill("#quick-q", "缓存")
    with page.expect_navigation():
        page.press("#quick-q", "Enter")

    assert page.locator("#search-q").input_value() == "缓存"
    assert page.locator("#quick-q").input_value() == "缓存"
    assert page.locator("#events .hit").count() >= 1
    assert page.locator("#messages .hit").count() >= 1
    assert "缓存" in page.locator("#messages mark").all_inner_texts()
    assert "缓存" in page.locator("#events mark").all_inner_texts()
    screenshot(page, "search-chinese")

    search_for(page, "xylophone")
    assert "Nothing matched" in page.locator("#search-nothing").inner_text()
    screenshot(page, "search-nothing")
    watch.assert_clean()


def test_a_narrow_window_and_long_content_fit(
    staff_user: Any, demo: str, long_content: str, live_server: Any, browser_page: Any,
    watch: PageWatch,
) -> None:  # fmt: skip
    page = browser_page
    page.set_viewport_size({"width": 390, "height": 844})
    log_in(page, live_server.url)
    page.goto(f"{live_server.url}/ns/{demo}/search/?q=pnpm+PostgreSQL")
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    screenshot(page, "search-narrow")

    page.goto(f"{live_server.url}/ns/{long_content}/search/?q=zanzibar+缓存")
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    text = page.locator("#messages .hit .match.user .text").first.inner_text()
    assert len(text) < 600 and text.startswith("…")  # a window around the match, not 3,000
    screenshot(page, "search-long-narrow")
    page.set_viewport_size({"width": 1280, "height": 800})
    screenshot(page, "search-long")

    watch.assert_clean()

    # A refused query is a 422 page (Chromium logs the status; nothing else may go wrong).
    response = page.goto(f"{live_server.url}/ns/{long_content}/search/?q=" + "zanzibar+" * 500)
    assert response is not None and response.status == 422
    assert "query_too_long" in page.locator("#search-error").inner_text()
    screenshot(page, "search-too-long")
    assert [e for e in watch.console_errors if "422" not in e] == []
    assert watch.page_errors == [] and watch.dialogs == [] and watch.outside_requests() == []


def test_hostile_memory_is_shown_as_text(
    staff_user: Any, hostile: str, live_server: Any, browser_page: Any, watch: PageWatch
) -> None:
    page = browser_page
    log_in(page, live_server.url)
    page.goto(f"{live_server.url}/ns/{hostile}/search/")
    search_for(page, "script xss")

    assert page.locator("#events .hit").count() >= 1
    assert page.locator("#messages .hit").count() >= 1
    assert "script" in [m.lower() for m in page.locator("#messages mark").all_inner_texts()]
    assert "<script>" in page.locator("#messages .hit").first.inner_text()
    assert_probes_inert(page)
    screenshot(page, "search-hostile")

    search_for(page, '<img src=x onerror=alert("q")>')
    assert_probes_inert(page)
    watch.assert_clean()
