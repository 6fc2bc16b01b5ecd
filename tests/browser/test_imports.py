"""Imports in a real browser (SPEC §13.7): paste another AI's answer, watch the preview reach
the end, choose an action for a low-confidence row, commit and see the new events on the
timeline, undo after the confirmation and see them gone; upload a ChatGPT export; copy the
export prompt. Hostile candidate text stays text throughout."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import memory.services.imports.preview as preview_module
from memory.models import Event
from memory.services.ingest import MessageIn, TurnIn, turn_ingest
from memory.services.jobs import jobs_drain
from memory.services.namespaces import namespace_get_or_create
from tests.browser.conftest import assert_probes_inert, log_in, screenshot

pytestmark = pytest.mark.browser

# Data fixtures come before `browser_page` in every signature: see tests/browser/conftest.py.

NS = "browser-imports"
SAMPLES = Path(__file__).resolve().parents[1] / "imports" / "samples"
SCRIPT = "<script>alert(1)</script>"
IMG = "<img src=x onerror=alert(1)>"
LONG_TITLE = "A very long imported title about the storage layer decisions " * 2
NARROW = {"width": 390, "height": 844}


def _candidate(title: str, summary: str, **extra: Any) -> dict[str, Any]:
    return {
        "memoryKind": "fact",
        "category": "project",
        "title": title,
        "summary": summary,
        **extra,
    }


DOCUMENT = json.dumps(
    {
        "schemaVersion": "stratagate.external-memory.v2",
        "sourceType": "external_ai_memory_export",
        "sourceSystem": "ChatGPT",
        "coverage": "partial",
        "coverageNote": "Saved memories only.",
        "candidates": [
            _candidate("Prefers tea", "I prefer tea in the morning."),
            _candidate("Owns a cat", "The user has a cat called Miso."),
            _candidate(SCRIPT, IMG),
            _candidate("偏好中文回答", "用户希望技术问题用中文回答，中文内容也要能检索。"),
            _candidate(LONG_TITLE.strip(), "The storage layer keeps PostgreSQL 16. " * 12),
        ],
    },
    ensure_ascii=False,
    indent=2,
)


@pytest.fixture
def import_data(settings: Any) -> dict[str, Any]:
    """A namespace that already knows the user prefers coffee (so tea is a low-confidence row)."""
    settings.STRATAGATE_BLOCK_TURNS = 1
    namespace = namespace_get_or_create(name=NS)
    turn_ingest(
        namespace=namespace,
        turn=TurnIn(
            session_id="s1",
            receipt_id="r1",
            messages=[
                MessageIn(role="user", content="I prefer coffee in the morning."),
                MessageIn(role="assistant", content="Noted."),
            ],
        ),
    )
    jobs_drain()
    coffee = Event.objects.get(namespace=namespace)
    return {"coffee_id": coffee.pk, "coffee_title": coffee.title}


@pytest.fixture
def slow_preview(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Each candidate takes a moment to decide, so the page shows the preview in progress."""
    real = preview_module.decide_memory

    def slow(*args: Any, **kwargs: Any) -> Any:
        time.sleep(0.4)
        return real(*args, **kwargs)

    monkeypatch.setattr(preview_module, "decide_memory", slow)
    yield


def _without_expected_noise(watch: Any) -> None:
    """The one console line this test causes on purpose: the broken answer's page is a 422."""
    watch.console_errors[:] = [e for e in watch.console_errors if "status of 422" not in e]


def _drain_in_a_worker_thread() -> None:
    """jobs_drain as a worker would run it: in its own thread (Playwright's loop runs in this
    one, where publishing live updates cannot), with its own connection."""
    from django.db import connections

    def work() -> None:
        try:
            jobs_drain()
        finally:
            connections.close_all()

    thread = threading.Thread(target=work)
    thread.start()
    thread.join(timeout=30)


def test_rows_fetched_before_the_preview_finished_are_fetched_again(
    staff_user: Any, import_data: dict[str, Any], browser_page: Any, live_server: Any, watch: Any
) -> None:
    """The worker finishes while a poll is fetching the rows: once the progress says "done"
    polling stops, so the rows shown with it must not be older than it (undecided, nothing to
    choose). Made deterministic by running the worker while the first rows response is held
    back; the script that fetched the rows before the progress failed here."""
    page, base = browser_page, live_server.url
    log_in(page, base)
    page.goto(f"{base}/ns/{NS}/imports/")
    page.fill("#id_text", DOCUMENT)
    with page.expect_navigation():
        page.click("#import-form button[type=submit]")
    assert page.locator("[data-import-status]").get_attribute("data-import-status") == "processing"
    assert "waiting to be decided" in page.locator("#row-0").inner_text()

    held: list[str] = []

    def hold_first_rows(route: Any) -> None:
        if held:
            route.continue_()
            return
        held.append(route.request.url)
        response = route.fetch()  # the rows as they are now: nothing decided yet
        _drain_in_a_worker_thread()  # the worker finishes the whole preview meanwhile
        route.fulfill(response=response)

    page.route("**/imports/*/?partial=rows", hold_first_rows)
    page.locator("[data-import-status='awaiting_confirmation']").wait_for(timeout=20_000)
    assert held, "the first poll fetched no rows"
    page.locator("#row-0", has_text="needs your choice").wait_for(timeout=10_000)
    assert page.locator("#action-0").input_value() == "ignore"
    assert "waiting to be decided" not in page.locator("#import-candidates").inner_text()
    watch.assert_clean()


def test_paste_watch_choose_commit_see_undo_and_upload(
    staff_user: Any,
    import_data: dict[str, Any],
    slow_preview: None,
    background_worker: Any,
    browser_page: Any,
    live_server: Any,
    watch: Any,
) -> None:
    page, base = browser_page, live_server.url
    page.context.grant_permissions(["clipboard-read", "clipboard-write"], origin=base)
    log_in(page, base)

    # The three steps, with the prompt and its copy button.
    page.goto(f"{base}/ns/{NS}/imports/")
    assert "No imports yet." in page.locator("main").inner_text()
    page.locator("#step-prompt .copy-button").first.click()
    page.locator("#copied-en", has_text="Copied").wait_for()
    copied = page.evaluate("navigator.clipboard.readText()")
    assert copied.startswith("Please export everything you remember about me")
    screenshot(page, "imports")

    # Paste the answer: the preview starts, and the page follows it to the end.
    page.fill("#id_text", DOCUMENT)
    with page.expect_navigation():
        page.click("#import-form button[type=submit]")
    assert "is being previewed" in page.locator(".messages").inner_text()
    assert page.locator("[data-import-status]").get_attribute("data-import-status") == "processing"
    page.locator("[data-import-status='awaiting_confirmation']").wait_for(timeout=20_000)
    assert "5 of 5 decided" in page.locator("#import-progress").inner_text()
    assert any("/status.json" in u for u in watch.requests)  # polled while the socket is down
    rows = page.locator("#import-candidates tbody tr")
    assert rows.count() == 5
    tea = page.locator("#row-0")
    # Live updates fetch the rows before the progress, but a socket refresh may still be on
    # its way: wait for the row rather than read it once.
    page.locator("#row-0", has_text="needs your choice").wait_for(timeout=10_000)
    assert "conflict" in tea.inner_text() and "needs your choice" in tea.inner_text()
    assert import_data["coffee_title"] in tea.locator("td.matches").inner_text()
    assert "auto-applied" in page.locator("#row-1").inner_text()
    assert SCRIPT in page.locator("#row-2 .cand-title").inner_text()  # shown as text
    assert page.locator("#threshold").inner_text() == "0.85"
    assert_probes_inert(page)
    screenshot(page, "import-preview")

    # Choose "supersede" for the low-confidence row (its match is ticked), and commit.
    assert page.locator("#action-0").input_value() == "ignore"
    page.select_option("#action-0", "supersede")
    assert page.locator(f"input[name='targets-0'][value='{import_data['coffee_id']}']").is_checked()
    with page.expect_navigation():
        page.click("#commit-button")
    assert "5 events created, 1 changed" in page.locator(".messages").inner_text()
    created = page.locator("#created-events li")
    assert created.count() == 5
    assert import_data["coffee_title"] in page.locator("#changed-events").inner_text()
    assert "supersede" in page.locator("#row-0 td.decision").inner_text()
    assert_probes_inert(page)
    screenshot(page, "import-committed")

    # The new events are on the timeline.
    with page.expect_navigation():
        page.click("text=See them in the timeline")
    timeline = page.locator("main").inner_text()
    for title in ("Prefers tea", "Owns a cat", "偏好中文回答", SCRIPT):
        assert title in timeline
    assert_probes_inert(page)

    # Undo, after a confirmation that names what goes.
    page.go_back()
    with page.expect_navigation():
        page.locator("main .page-head a.btn.danger").click()
    removed = page.locator("#undo-removed-events").inner_text()
    assert "Prefers tea" in removed and "Owns a cat" in removed and SCRIPT in removed
    assert import_data["coffee_title"] in page.locator("#undo-restored-events").inner_text()
    assert_probes_inert(page)
    screenshot(page, "import-undo-confirm")
    with page.expect_navigation():
        page.click("#undo-button")
    assert "5 events removed, 1 restored" in page.locator(".messages").inner_text()
    assert "Undone" in page.locator(".import-result").inner_text()

    page.goto(f"{base}/ns/{NS}/events/")
    timeline = page.locator("main").inner_text()
    assert "Prefers tea" not in timeline and "Owns a cat" not in timeline
    assert import_data["coffee_title"] in timeline

    # Upload a ChatGPT export and see its preview.
    page.goto(f"{base}/ns/{NS}/imports/")
    page.set_input_files("#id_file", str(SAMPLES / "chatgpt_conversations.json"))
    with page.expect_navigation():
        page.click("#import-form button[type=submit]")
    page.locator("[data-import-status='ready']").wait_for(timeout=20_000)
    preview = page.locator("#import-candidates").inner_text()
    assert "Choosing a package manager" in preview and "conversation" in preview

    # The list: newest first, the undone import without an Undo button.
    page.goto(f"{base}/ns/{NS}/imports/")
    listed = page.locator("#imports tbody tr")
    assert listed.count() == 2
    assert "ready to commit" in listed.nth(0).inner_text()
    assert "undone" in listed.nth(1).inner_text()
    assert listed.nth(1).locator("a.btn.danger").count() == 0
    screenshot(page, "imports-list")

    # A broken answer: the API's code, where it broke, the text kept, nothing stored.
    page.fill("#id_text", DOCUMENT.replace('"Owns a cat",', '"Owns a cat",,'))
    with page.expect_navigation():
        page.click("#import-form button[type=submit]")
    error = page.locator("#import-error").inner_text()
    assert "invalid_import_json" in error and "Line" in error and "Column" in error
    assert "Owns a cat" in page.locator("#id_text").input_value()
    assert page.locator("#imports tbody tr").count() == 2
    screenshot(page, "imports-error")
    page.set_viewport_size(NARROW)
    page.reload()
    overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
    assert overflow <= 0, f"the page scrolls sideways by {overflow}px at 390 px"
    screenshot(page, "imports-narrow")
    assert_probes_inert(page)
    _without_expected_noise(watch)
    watch.assert_clean(allow_status=(422,))  # the broken answer's page, on purpose
