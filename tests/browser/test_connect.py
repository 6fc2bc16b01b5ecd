"""The "Connect an agent" page in a real browser: a staff member creates a token and copies it
and a snippet with the copy buttons (copy.js), a viewer of the namespace sees no button, and the
page fits a narrow window; the proxy's part of a session page with hostile text stays text."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import expect

from memory.models import Namespace, NamespaceGrant, Role
from memory.services.ingest import MessageIn, TurnIn, turn_ingest
from memory.services.namespaces import namespace_get_or_create
from tests.browser.conftest import PASSWORD, assert_probes_inert, log_in, screenshot
from tests.browser.hostile import IMG, SCRIPT
from tests.graphui.proxy_support import counters_add, proxied_session_create, spool_write

pytestmark = pytest.mark.browser

NARROW = {"width": 390, "height": 844}


@pytest.fixture
def proj(staff_user: Any, settings: Any, tmp_path: Any) -> str:
    settings.DATA_DIR = tmp_path
    settings.STRATAGATE_PROXY_OPENAI_URL = "https://api.openai.com/v1"
    namespace = namespace_get_or_create(name="proj")
    for n in range(1, 3):
        turn_ingest(
            namespace=namespace,
            turn=TurnIn(
                session_id="agent",
                receipt_id=f"agent-{n}",
                messages=[
                    MessageIn(role="user", content=f"Question {n} {SCRIPT}"),
                    MessageIn(role="assistant", content=f"Answer {n}"),
                ],
            ),
        )
    proxied_session_create(
        namespace,
        "agent",
        system=(f"You are {SCRIPT} " + "careful. " * 80, f"Short {IMG}"),
        exchanges=(
            {"turn": 1, "injected_text": f"<memory>{IMG}</memory>", "injected_tokens": 9},
            {"state": "upstream_error", "upstream_status": 500, "model": SCRIPT},
        ),
    )
    counters_add(namespace, {"requests": 2, "captured": 1, "upstream_error:500": 1})
    spool_write(namespace, "1-a", lost=True)
    return "proj"


def test_staff_creates_a_token_and_copies_it(
    proj: str, browser_page: Any, live_server: Any, watch: Any
) -> None:
    page, base = browser_page, live_server.url
    page.context.grant_permissions(["clipboard-read", "clipboard-write"], origin=base)
    log_in(page, base)
    page.goto(f"{base}/ns/{proj}/connect/")
    assert page.locator("#token-value").count() == 0
    assert page.locator("#snippet-openai-python-text").inner_text().count("sg_…") == 1
    screenshot(page, "connect")
    with page.expect_navigation():
        page.click("#create-token")
    token = page.locator("#token-value").inner_text()
    assert token.startswith("sg_") and len(token) > 40
    assert token in page.locator("#snippet-env-claude-code-text").inner_text()
    screenshot(page, "connect-token")

    page.locator("#new-token button[data-copy]").click()
    expect(page.locator("#new-token .copy-status")).to_have_text("Copied")
    assert page.evaluate("navigator.clipboard.readText()") == token
    card = page.locator("#snippet-openai-curl")
    card.locator("button[data-copy]").click()
    expect(card.locator(".copy-status")).to_have_text("Copied")
    copied = page.evaluate("navigator.clipboard.readText()")
    assert copied.startswith(f"curl {base}/proxy/{proj}/openai/v1/chat/completions")
    assert token in copied

    # Shown once: the page read again has no token.
    page.goto(f"{base}/ns/{proj}/connect/")
    assert page.locator("#token-value").count() == 0 and token not in page.content()
    page.set_viewport_size(NARROW)
    page.goto(f"{base}/ns/{proj}/connect/")
    assert page.evaluate(f"document.documentElement.scrollWidth <= {NARROW['width'] + 1}")
    screenshot(page, "connect-narrow")
    watch.assert_clean()


@pytest.fixture
def bob(proj: str, django_user_model: Any) -> str:
    """A viewer of proj who is not staff, made before the browser starts
    (tests/browser/conftest.py: no ORM call once it runs)."""
    user = django_user_model.objects.create_user(username="bob", password=PASSWORD)
    namespace = Namespace.objects.get(name=proj)
    NamespaceGrant.objects.create(user=user, namespace=namespace, role=Role.VIEWER)
    return "bob"


def test_a_viewer_sees_no_button(
    proj: str, bob: str, browser_page: Any, live_server: Any, watch: Any
) -> None:
    page, base = browser_page, live_server.url
    log_in(page, base, bob)
    page.goto(f"{base}/ns/{proj}/connect/")
    assert page.locator("#create-token").count() == 0
    assert "create_agent_token --namespace proj --scope read-write" in page.content()
    watch.assert_clean()


def test_the_proxy_parts_of_health_and_session_pages_keep_hostile_text_inert(
    proj: str, browser_page: Any, live_server: Any, watch: Any
) -> None:
    page, base = browser_page, live_server.url
    log_in(page, base)
    page.goto(f"{base}/ns/{proj}/")
    assert "1 turn lost" in page.locator("#proxy").inner_text()
    screenshot(page, "health-proxy")
    page.goto(f"{base}/ns/{proj}/sessions/agent")
    section = page.locator("#proxy")
    assert "2 system prompts" in section.inner_text()
    for details in section.locator("details").all():
        details.locator(":scope > summary").click()  # its own, not a nested one
    assert IMG in section.inner_text() and SCRIPT in section.inner_text()
    assert_probes_inert(page)
    screenshot(page, "session-proxy")
    page.set_viewport_size(NARROW)
    page.reload()
    assert page.evaluate(f"document.documentElement.scrollWidth <= {NARROW['width'] + 1}")
    assert watch.dialogs == []
    watch.assert_clean()
