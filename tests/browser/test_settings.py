"""Settings page in a real browser: the preview follows the form as you type (no reload), the
"forgets fast" warning, the λ suggestion for a new block size, saving, and the saved λ showing
on a session's blocks at once."""

from __future__ import annotations

from typing import Any

import pytest
from django.urls import reverse
from playwright.sync_api import expect

from memory.engine.decay import display_level, level_schedule
from memory.services.ingest import MessageIn, TurnIn, turn_ingest
from memory.services.jobs import jobs_drain
from memory.services.namespaces import namespace_get_or_create
from tests.browser.conftest import log_in, screenshot

pytestmark = pytest.mark.browser

# Data fixtures come before `browser_page` in every signature: see tests/browser/conftest.py.

NAMESPACE = "browser-settings"
BLOCKS = 10
QUESTION = (
    "Question {n}: should the nightly export run before or after the snapshot? We also need "
    "to decide where the archive lives, how long we keep it and who restores it. "
    "中文内容：备份策略。"
)
ANSWER = (
    "Answer {n}: after the snapshot, never before it. Keep thirty days of archives on the NAS, "
    "rotate weekly, and let the on-call engineer restore. 中文内容：每周轮换。"
)


@pytest.fixture
def settings_data(settings: Any, db: None) -> str:
    """`browser-settings` / `s1`: ten ready one-turn blocks (block size 1 while ingesting),
    plus the demo namespace when it is available (for realistic screenshots)."""
    settings.STRATAGATE_BLOCK_TURNS = 1
    namespace = namespace_get_or_create(name=NAMESPACE)
    for n in range(1, BLOCKS + 1):
        turn_ingest(
            namespace=namespace,
            turn=TurnIn(
                session_id="s1",
                receipt_id=f"r{n}",
                messages=[
                    MessageIn(role="user", content=QUESTION.format(n=n)),
                    MessageIn(role="assistant", content=ANSWER.format(n=n)),
                ],
            ),
        )
    jobs_drain()
    settings.STRATAGATE_BLOCK_TURNS = 6
    try:
        from memory.demo import demo_load
    except ImportError:  # the demo is built by another engineer; screenshots still work
        return NAMESPACE
    demo_load(name="demo", nodes=0)
    return NAMESPACE


def levels_for(lam: float) -> list[str]:
    """Block i (1-based, anchored at L5 when it became ready) among BLOCKS ready blocks."""
    return [
        f"L{display_level(anchor_level=5, anchor_position=i, latest=BLOCKS, lam=lam)}"
        for i in range(1, BLOCKS + 1)
    ]


def proposed_levels(page: Any) -> list[str]:
    return [t.strip() for t in page.locator("#schedule td.proposed .level").all_inner_texts()]


def session_levels(page: Any) -> list[str]:
    texts = page.locator(".block-map .level").all_inner_texts()
    return [t.strip() for t in texts]


def test_preview_follows_the_form_and_saving_changes_every_level(
    staff_user: Any, settings_data: str, live_server: Any, browser_page: Any, watch: Any
) -> None:
    page = browser_page
    base = live_server.url
    session_url = base + reverse("graphui:session", kwargs={"ns": NAMESPACE, "session_id": "s1"})
    log_in(page, base)

    page.goto(session_url)
    assert session_levels(page) == levels_for(0.30)

    page.goto(f"{base}/settings/?ns={NAMESPACE}&session=s1")
    assert page.locator("#id_block_lambda").input_value() == "0.30"
    assert "environment default" in page.locator("#settings-source").inner_text()
    assert proposed_levels(page) == [f"L{n}" for n in level_schedule(0.30)]
    assert page.locator("#lambda-warning").is_hidden()
    screenshot(page, "settings")

    # A marker on window survives only if the page is never reloaded.
    page.evaluate("window.__settingsMarker = 'still here'")
    tokens_before = page.locator("#tokens-proposed").inner_text()

    page.fill("#id_block_lambda", "0.35")
    expect(page.locator("#proposed-head")).to_contain_text("0.35")
    assert proposed_levels(page) == [f"L{n}" for n in level_schedule(0.35)]
    assert page.locator("#schedule tr.changed").count() == sum(
        a != b for a, b in zip(level_schedule(0.30), level_schedule(0.35), strict=True)
    )
    assert page.locator("#schedule tr.changed .change").first.inner_text().startswith("▼")
    assert page.locator("#tokens-proposed").inner_text() != tokens_before
    assert page.locator("#lambda-warning").is_hidden()

    page.fill("#id_block_lambda", "0.5")
    page.locator("#lambda-warning").wait_for(state="visible")
    assert "⚠ Forgets fast" in page.locator("#lambda-warning").inner_text()
    assert proposed_levels(page) == [f"L{n}" for n in level_schedule(0.5)]
    assert "block_lambda=0.5" in page.url  # the preview stays a shareable URL
    screenshot(page, "settings-preview-warning")

    page.fill("#id_block_lambda", "0.30")
    page.locator("#lambda-warning").wait_for(state="hidden")
    page.fill("#id_block_turns", "9")
    suggestion = page.locator("#lambda-suggestion")
    suggestion.wait_for(state="visible")
    assert "To keep the same decay per turn, use λ = 0.45" in suggestion.inner_text()
    assert page.locator("#id_block_lambda").input_value() == "0.30"  # never applied by itself
    page.click("#apply-suggestion")
    assert page.locator("#id_block_lambda").input_value() == "0.45"
    expect(page.locator("#save-button")).to_contain_text("0.45")
    assert "block size 9" in page.locator("#save-button").inner_text()
    assert page.evaluate("window.__settingsMarker") == "still here"

    with page.expect_navigation():
        page.click("#save-button")
    assert (
        "Saved: λ 0.45, block size 9, proxy history layered, proxy tools off. Every block's "
        "level was recomputed." in page.locator(".messages").inner_text()
    )
    assert "saved in the database" in page.locator("#settings-source").inner_text()
    assert "last changed by user:ada" in page.locator("#settings-source").inner_text()
    assert page.locator("#id_block_lambda").input_value() == "0.45"

    page.goto(session_url)
    assert session_levels(page) == levels_for(0.45)
    assert session_levels(page) != levels_for(0.30)

    page.set_viewport_size({"width": 390, "height": 844})
    page.goto(f"{base}/settings/?ns=demo&block_lambda=0.6&block_turns=4")
    assert page.locator("#lambda-warning").is_visible()
    screenshot(page, "settings-narrow")
    watch.assert_clean()


def test_invalid_value_shows_the_save_error_in_place(
    staff_user: Any, settings_data: str, live_server: Any, browser_page: Any, watch: Any
) -> None:
    page = browser_page
    log_in(page, live_server.url)
    page.goto(f"{live_server.url}/settings/")
    page.fill("#id_block_lambda", "0.33")
    error = page.locator("#lambda-error")
    error.wait_for(state="visible")
    assert "multiple of 0.05" in error.inner_text()
    assert "invalid_block_lambda" in error.inner_text()
    assert page.locator("#save-button").is_disabled()
    assert page.locator("#id_block_lambda").get_attribute("aria-invalid") == "true"
    assert page.evaluate("document.activeElement.id") == "id_block_lambda"  # typing goes on
    page.fill("#id_block_lambda", "0.35")
    error.wait_for(state="hidden")
    assert page.locator("#save-button").is_enabled()
    assert page.locator("#id_block_lambda").get_attribute("aria-invalid") is None
    # The form's error comes with the preview (HTTP 200), as on the page after a Preview.
    watch.assert_clean()


def test_the_proxy_history_choice_updates_the_preview_and_saves(
    staff_user: Any, settings_data: str, live_server: Any, browser_page: Any, watch: Any
) -> None:
    page = browser_page
    base = live_server.url
    log_in(page, base)
    page.goto(f"{base}/settings/?ns={NAMESPACE}&session=s1")
    assert page.locator("#id_proxy_history").input_value() == "layered"
    native = page.locator("#proxy-native").inner_text()
    layered = page.locator("#proxy-sent-proposed").inner_text()
    assert int(layered.replace(",", "")) < int(native.replace(",", ""))
    page.locator("#proxy-tokens").scroll_into_view_if_needed()
    screenshot(page, "settings-proxy-history")

    page.evaluate("window.__settingsMarker = 'still here'")
    page.select_option("#id_proxy_history", "native")
    expect(page.locator("#proxy-sent-proposed")).to_have_text(native)
    expect(page.locator("#proxy-saved")).to_have_text("0")
    assert "proxy_history=native" in page.url
    assert page.evaluate("window.__settingsMarker") == "still here"
    expect(page.locator("#save-button")).to_contain_text("native history")

    page.set_viewport_size({"width": 380, "height": 900})
    screenshot(page, "settings-proxy-history-narrow")
    overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
    assert overflow <= 1

    page.set_viewport_size({"width": 1280, "height": 900})
    page.click("#save-button")
    expect(page.locator(".messages, [role=status]").first).to_contain_text("proxy history native")
    assert page.locator("#id_proxy_history").input_value() == "native"
