"""Sessions and blocks in a real browser: the list, a session's views as tabs, expanding a block
and following a message link to its highlighted source (SPEC §13.5)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from django.urls import reverse

from memory.models import Block, BlockView, Message
from memory.services.ingest import MessageIn, TurnIn, turn_ingest
from memory.services.namespaces import namespace_get_or_create
from tests.browser.conftest import assert_probes_inert, log_in, screenshot
from tests.browser.hostile import SESSION, hostile_namespace_create

pytestmark = pytest.mark.browser

# Data fixtures come before `browser_page` in every signature: see tests/browser/conftest.py.

NS = "browser-sessions"
SESSION_ID = "team/alpha run? 中文"
LONG = "We compared the storage engines in detail. " * 70  # ~3,000 characters


def _user_text(n: int) -> str:
    if n == 3:
        return f"Paste of the benchmark notes: {LONG}"
    if n % 4 == 0:
        return f"第{n}轮：我们决定存储层使用 PostgreSQL 16，中文内容也要能检索。"
    return f"Question {n}: should the storage layer use PostgreSQL? api_key=sk-abcdefghijklmnop1234"


@pytest.fixture
def session_data(drain: Callable[[], int]) -> dict[str, Any]:
    """26 turns of one session: four ready blocks (levels L3, L4, L5, L5) and a 2-turn tail."""
    namespace = namespace_get_or_create(name=NS)
    for n in range(1, 27):
        turn_ingest(
            namespace=namespace,
            turn=TurnIn(
                session_id=SESSION_ID,
                receipt_id=f"r{n}",
                messages=[
                    MessageIn(role="user", content=_user_text(n)),
                    MessageIn(
                        role="assistant",
                        content=f"Answer {n}: yes, PostgreSQL 16 with JSONB.",
                        tool_calls=[
                            {
                                "name": "search_docs",
                                "arguments": {"query": f"postgres jsonb {n}", "limit": 3},
                                "result": {"summary": "3 pages found", "ok": True},
                            }
                        ],
                    ),
                ],
            ),
        )
    drain()
    blocks = list(Block.objects.filter(namespace=namespace).order_by("sequence"))
    first = blocks[0]
    views = {v.level: v.content for v in BlockView.objects.filter(block=first)}
    linked = Message.objects.filter(turn__block=blocks[1]).order_by("pk")[5]
    return {
        "session_url": reverse("graphui:session", args=[NS, SESSION_ID]),
        "first": first.pk,
        "l0_title": views[0].splitlines()[0],
        "l4_start": views[4].splitlines()[0][:60],
        "linked": linked.pk,
        "linked_block": blocks[1].pk,
    }


@pytest.fixture
def hostile() -> str:
    hostile_namespace_create()
    return reverse("graphui:session", args=["hostile", SESSION])


def _panel(page: Any, block_id: int) -> Any:
    return page.locator(f"#block-{block_id}-view")


def test_browse_switch_views_expand_and_follow_a_message_link(
    staff_user: Any, session_data: dict[str, Any], browser_page: Any, live_server: Any, watch: Any
) -> None:
    page, base = browser_page, live_server.url
    log_in(page, base)
    first = session_data["first"]

    page.goto(f"{base}/ns/{NS}/sessions/")
    row = page.locator("#sessions tbody tr").first
    assert SESSION_ID in row.inner_text() and "4 ready" in row.inner_text()
    assert "[REDACTED]" in row.inner_text()
    screenshot(page, "sessions")

    with page.expect_navigation():
        row.locator("a.session-id").click()
    assert page.locator("h1 .session-name").inner_text() == SESSION_ID
    assert page.locator("#open-tail .tail-count").inner_text() == "2/6"
    card = page.locator(f"#block-{first}")
    assert card.get_attribute("data-level") == "3"
    assert "shown now: L3" in card.locator(".block-level").inner_text()

    # Tabs are links: L0 shows the title, L2 the key facts, L5 the source messages.
    with page.expect_navigation():
        card.locator(".view-tab[data-level='0']").click()
    assert page.url.endswith(f"?block={first}&view=0#block-{first}")
    assert session_data["l0_title"] in _panel(page, first).locator(".view").inner_text()
    assert card.locator(".view-tab[aria-current='true']").get_attribute("data-level") == "0"
    with page.expect_navigation():
        card.locator(".view-tab[data-level='2']").click()
    assert "key facts" in _panel(page, first).locator(".view-caption").inner_text()
    assert _panel(page, first).locator(".view").inner_text().startswith("- ")
    with page.expect_navigation():
        card.locator(".view-tab[data-level='5']").click()
    messages = _panel(page, first).locator("article.msg")
    assert messages.count() == 12
    assert "Tool call: search_docs" in messages.nth(1).inner_text()
    assert "sk-abcdefghijklmnop1234" not in page.content()
    screenshot(page, "session")

    # Expand block 1 (shown at L3) to L4: the success message, the L4 text and the new level.
    form = card.locator("form.expand-form")
    assert form.locator("select").input_value() == "L4"  # default: the next level up
    form.locator("select").select_option("L4")
    with page.expect_navigation():
        form.locator("button[type=submit]").click()
    assert "Block 1 now shows L4" in page.locator(".messages").inner_text()
    assert page.url.endswith(f"?block={first}&view=4#block-{first}")
    card = page.locator(f"#block-{first}")
    assert card.get_attribute("data-level") == "4"
    assert "shown now: L4" in card.locator(".block-level").inner_text()
    assert "last lifted by a person" in card.inner_text()
    assert _panel(page, first).locator(".view").inner_text().startswith(session_data["l4_start"])
    current = card.locator(".view-tab.current")
    assert current.get_attribute("data-level") == "4" and "shown now" in current.inner_text()

    # A message link, as the timeline, search and graph pages use it.
    linked = session_data["linked"]
    page.goto(f"{base}/ns/{NS}/messages/{linked}/")
    assert page.url.endswith(f"&hl={linked}#msg-{linked}")
    message = page.locator(f"#msg-{linked}")
    assert "hl" in (message.get_attribute("class") or "")
    assert message.is_visible()
    in_view = page.evaluate(
        """(id) => { const r = document.getElementById(id).getBoundingClientRect();
                     return r.top >= 0 && r.top < window.innerHeight; }""",
        f"msg-{linked}",
    )
    assert in_view
    screenshot(page, "session-l5-highlight")

    page.set_viewport_size({"width": 390, "height": 844})
    page.goto(f"{base}{session_data['session_url']}")
    overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
    assert overflow <= 0, f"the page scrolls sideways by {overflow}px at 390 px"
    screenshot(page, "session-narrow")
    watch.assert_clean()


def test_hostile_session_page_keeps_every_probe_inert(
    staff_user: Any, hostile: str, browser_page: Any, live_server: Any, watch: Any
) -> None:
    page, base = browser_page, live_server.url
    log_in(page, base)
    page.goto(f"{base}/ns/hostile/sessions/")
    assert_probes_inert(page)
    with page.expect_navigation():
        page.locator("#sessions a.session-id").first.click()
    assert page.locator("h1 .session-name").inner_text() == SESSION
    assert_probes_inert(page)
    block = page.locator("article.block-card").first
    for level in ("0", "3", "5"):
        with page.expect_navigation():
            block.locator(f".view-tab[data-level='{level}']").click()
        assert_probes_inert(page)
    assert "<script>" in page.locator("article.msg .text").first.inner_text()
    watch.assert_clean()
