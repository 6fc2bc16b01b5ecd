"""The Processing page and event admin actions in a real browser: a block fails against the fake
model endpoint, its full error is copied and the job retried until it succeeds; an event is
pinned and forgotten and the graph follows; the admin log shows it all; hostile errors stay
inert; screenshots wide and narrow."""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from django.urls import reverse
from playwright.sync_api import expect

from memory.models import Event, GraphNode, JobKind, JobStatus, ModelCall, ProcessingJob
from memory.services.ingest import MessageIn, TurnIn, turn_ingest
from memory.services.namespaces import namespace_get_or_create
from tests.browser.asgi_server import AsgiServer, layer_settings, site_server
from tests.browser.conftest import PageWatch, assert_probes_inert, log_in, screenshot
from tests.browser.hostile import IMG, SCRIPT, hostile_namespace_create
from tests.fakes.openai_server import FakeOpenAIServer, FakeReply

pytestmark = pytest.mark.browser

# Data fixtures come before `background_worker` / `browser_page` / `watch` in every signature,
# and the test bodies make no ORM calls once the browser runs (see tests/browser/conftest.py).

NS = "browser-processing"
SECRET = "api_key=sk-abcdefghijklmnop1234"
GOOD = json.dumps(
    {
        "title": "Storage layer decision",
        "tags": ["storage", "postgres"],
        "summary": "The user and assistant chose PostgreSQL for storage.",
        "key_points": ["Use PostgreSQL for storage"],
        "should_extract": False,
    }
)
TURNS = [
    ("Use npm for this project.", "OK, npm it is."),
    ("Let's switch to pnpm, npm is too slow.", "Switched the package manager to pnpm."),
    ("We decided to move the database to Postgres on 2023-05-08.", "Postgres migration planned."),
    ("Finish the prototype next week.", "Noted, prototype next week."),
    ("我们决定用数据库 PostgreSQL 存储用户数据。", "好的，数据库改为 PostgreSQL。"),
    ("Nothing else today.", "Fine."),
]


def say(namespace: Any, turns: list[tuple[str, str]], session: str = "s1") -> None:
    for n, (user, assistant) in enumerate(turns, start=1):
        turn_ingest(
            namespace=namespace,
            turn=TurnIn(
                session_id=session,
                receipt_id=f"{session}-r{n}",
                messages=[
                    MessageIn(role="user", content=user),
                    MessageIn(role="assistant", content=assistant),
                ],
            ),
        )


@pytest.fixture
def failing_model(settings: Any, fake_openai: FakeOpenAIServer) -> FakeOpenAIServer:
    """The app's model endpoint is the fake server, answering 500s (with a key in the body)
    until a test scripts success; set before the browser and the worker start."""
    settings.STRATAGATE_LLM_BASE_URL = fake_openai.base_url
    settings.STRATAGATE_LLM_MODEL = "fake-model"
    settings.STRATAGATE_LLM_API_KEY = "sk-test"
    body = {"error": {"message": f"upstream broke, {SECRET}", "type": "server_error"}}
    fake_openai.default = lambda request: FakeReply(status=500, body=body)
    return fake_openai


@pytest.fixture
def failing_block(failing_model: FakeOpenAIServer) -> dict[str, int]:
    """Six turns: one sealed block whose L0–L2 job the background worker will fail 3 times."""
    namespace = namespace_get_or_create(name=NS)
    say(namespace, [(f"Question {n} about the storage layer?", f"Answer {n}.") for n in range(6)])
    job = ProcessingJob.objects.get(namespace=namespace, kind=JobKind.BLOCK_VIEWS)
    return {"job": job.pk, "block": job.block_id or 0}


def wait_until(page: Any, url: str, ready: Callable[[], bool], timeout: float = 30.0) -> None:
    """Reload `url` until `ready()` (the page's own Reload link does the same for a person)."""
    deadline = time.monotonic() + timeout
    page.goto(url)
    while not ready():
        assert time.monotonic() < deadline, f"timed out waiting on {url}"
        time.sleep(0.5)
        page.goto(url)


def test_a_failed_job_is_copied_retried_and_succeeds(
    staff_user: Any,
    failing_block: dict[str, int],
    failing_model: FakeOpenAIServer,
    background_worker: Any,
    browser_page: Any,
    live_server: Any,
    watch: Any,
) -> None:
    page, base = browser_page, live_server.url
    page.context.grant_permissions(["clipboard-read", "clipboard-write"], origin=base)
    job = failing_block["job"]
    card = page.locator(f"#job-{job}")
    log_in(page, base)
    url = f"{base}/ns/{NS}/processing/"

    # The worker tries three times (1 s and 2 s apart), then the job shows as failed.
    wait_until(page, url, lambda: card.count() == 1)
    counts = page.locator("#job-counts tr[data-kind='block_views']")
    assert counts.locator("td[data-status='failed']").inner_text().strip().endswith("1")
    assert "3 of 3" in card.inner_text()
    assert card.locator(f"a[href='/ns/{NS}/blocks/{failing_block['block']}/']").count() == 1
    details = card.locator("details.error-full")
    assert not details.evaluate("d => d.open")
    details.locator("summary").click()
    error = card.locator(f"#job-{job}-error")
    assert "Traceback (most recent call last)" in error.inner_text()
    assert "api_key=[REDACTED]" in error.inner_text()
    assert "sk-abcdefghijklmnop1234" not in page.content()
    failed_calls = page.locator("#calls-failed tbody tr")
    assert failed_calls.count() == 3
    screenshot(page, "processing-failed")

    # Copy: the clipboard gets the complete, redacted text and the button says so.
    card.locator("button.copy-error").click()
    expect(card.locator(".copy-status")).to_have_text("Copied")  # the clipboard write is async
    copied = page.evaluate("navigator.clipboard.readText()")
    assert copied == error.text_content()
    assert "Traceback" in copied and "[REDACTED]" in copied

    # The endpoint works again: retry, and the page shows the job succeeded.
    failing_model.default = GOOD
    with page.expect_navigation():
        card.locator("form.retry-form button").click()
    assert (
        f"Job #{job} (Block views (L0–L2)) is queued again"
        in page.locator(".messages").inner_text()
    )
    wait_until(
        page,
        url,
        lambda: counts.locator("td[data-status='succeeded']").inner_text().strip() == "1",
    )
    assert card.count() == 0
    assert page.locator("#failed .empty").inner_text() == "No failed jobs."
    assert page.locator("#calls-ok tbody tr").count() >= 1
    log = page.locator("#admin-log-table tbody tr").first
    assert "Retried a failed job" in log.inner_text() and f"job #{job}" in log.inner_text()
    assert "user:ada" in log.inner_text()
    screenshot(page, "processing")

    page.set_viewport_size({"width": 390, "height": 844})
    page.goto(url)
    overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
    assert overflow <= 0, f"the page scrolls sideways by {overflow}px at 390 px"
    screenshot(page, "processing-narrow")
    watch.assert_clean()


@pytest.fixture
def project(drain: Callable[[], int]) -> dict[str, int]:
    """npm superseded by pnpm (offline processor): the pnpm event alone supports the current
    `package_manager: pnpm` fact of node `project`."""
    namespace = namespace_get_or_create(name="proj")
    say(namespace, TURNS)
    drain()
    return {
        "pnpm": Event.objects.get(namespace=namespace, title__icontains="pnpm").pk,
        "node": GraphNode.objects.get(namespace=namespace, name="project").pk,
    }


def test_pin_and_forget_an_event_and_the_graph_follows(
    staff_user: Any, project: dict[str, int], browser_page: Any, live_server: Any, watch: Any
) -> None:
    page, base = browser_page, live_server.url
    event, node = project["pnpm"], project["node"]
    log_in(page, base)
    node_url = f"{base}{reverse('graphui:node', args=['proj', node])}"
    page.goto(node_url)
    current = page.locator("ul.fact-list:not(.historical)")
    assert "pnpm" in current.inner_text()

    page.goto(f"{base}{reverse('graphui:event', args=['proj', event])}")
    with page.expect_navigation():
        page.locator(".event-actions a[data-action='pin']").click()
    assert page.locator("h1").inner_text().startswith(f"Pin event #{event} ‘")
    with page.expect_navigation():
        page.locator("#confirm-button").click()
    assert f"Event #{event} is pinned" in page.locator(".messages").inner_text()
    assert "pinned" in page.locator(".event-head").inner_text()

    with page.expect_navigation():
        page.locator(".event-actions a[data-action='forget']").click()
    confirm = page.locator("#confirm")
    assert "It leaves retrieval, its weight becomes 0" in confirm.inner_text()
    changes = page.locator("table.graph-changes tbody tr")
    assert changes.count() == 2 and "package_manager: pnpm" in changes.first.inner_text()
    screenshot(page, "event-forget-confirm")
    with page.expect_navigation():
        page.locator("#confirm-button").click()
    assert f"Event #{event} is forgotten" in page.locator(".messages").inner_text()
    assert page.locator(".event-actions a[data-action='restore']").count() == 1

    # Graph state is derived from the event's status: the fact left the current state.
    page.goto(node_url)
    assert "pnpm" not in page.locator("ul.fact-list:not(.historical)").inner_text()
    # … and the timeline (default statuses) no longer shows the event.
    page.goto(f"{base}{reverse('graphui:timeline', args=['proj'])}")
    assert page.locator(f"#event-{event}").count() == 0

    page.goto(f"{base}/ns/proj/processing/#admin-log")
    rows = page.locator("#admin-log-table tbody tr")
    assert rows.count() == 2
    assert "Forgot an event" in rows.nth(0).inner_text()
    assert "Pinned an event" in rows.nth(1).inner_text()
    link = rows.nth(0).locator(f"a[href='/ns/proj/events/{event}/']")
    assert link.inner_text() == f"event #{event}"
    screenshot(page, "admin-log")
    with page.expect_navigation():
        link.click()
    assert page.locator(".event-actions a[data-action='restore']").count() == 1
    watch.assert_clean()


@pytest.fixture
def hostile(db: None) -> dict[str, Any]:
    namespace = hostile_namespace_create()
    ProcessingJob.objects.create(
        namespace=namespace,
        kind=JobKind.BLOCK_EXTRACT,
        status=JobStatus.FAILED,
        attempts=3,
        last_error=f"Traceback: {SCRIPT} {IMG}",
        error_preview=SCRIPT,
    )
    ModelCall.objects.create(
        namespace=namespace, kind="extract_events", model=IMG, ok=False, error_text=SCRIPT
    )
    event = Event.objects.get(namespace=namespace)
    return {"ns": namespace.name, "event": event.pk}


def test_hostile_processing_page_keeps_every_probe_inert(
    staff_user: Any, hostile: dict[str, Any], browser_page: Any, live_server: Any, watch: Any
) -> None:
    page, base = browser_page, live_server.url
    ns, event = hostile["ns"], hostile["event"]
    log_in(page, base)
    page.goto(f"{base}/ns/{ns}/processing/")
    page.locator("details.error-full summary").first.click()
    assert SCRIPT in page.locator("pre.error-text").first.inner_text()
    assert_probes_inert(page)
    # The forget confirmation names the hostile title and graph facts as text.
    page.goto(f"{base}/ns/{ns}/events/{event}/forget/")
    assert SCRIPT in page.locator("h1").inner_text()
    assert_probes_inert(page)
    with page.expect_navigation():
        page.locator("#confirm-button").click()
    page.goto(f"{base}/ns/{ns}/processing/#admin-log")
    assert "Forgot an event" in page.locator("#admin-log-table").inner_text()
    assert_probes_inert(page)
    watch.assert_clean()


# --- live regions, through the ASGI server (websockets need it) -----------------------------------


@pytest.fixture
def two_failed(staff_user: Any) -> dict[str, int]:
    namespace = namespace_get_or_create(name="live-processing")
    jobs = [
        ProcessingJob.objects.create(
            namespace=namespace,
            kind=kind,
            status=JobStatus.FAILED,
            attempts=3,
            last_error=f"Traceback: boom {n}",
            error_preview=f"boom {n}",
        )
        for n, kind in enumerate((JobKind.BLOCK_EXTRACT, JobKind.GRAPH_PROJECT), start=1)
    ]
    return {"first": jobs[0].pk, "second": jobs[1].pk}


@pytest.fixture
def asgi_server(transactional_db: None, settings: Any) -> Iterator[AsgiServer]:
    settings.CHANNEL_LAYERS = layer_settings(settings.CHANNEL_LAYERS)
    with site_server() as server:
        yield server


@pytest.mark.django_db(transaction=True)
def test_a_retry_in_another_tab_updates_the_page_without_a_reload(
    two_failed: dict[str, int], asgi_server: AsgiServer, browser_page: Any
) -> None:
    page, base = browser_page, asgi_server.url
    watch = PageWatch(page, base)
    log_in(page, base)
    url = f"{base}/ns/live-processing/processing/"
    page.goto(url)
    page.wait_for_selector("html[data-live='connected']")
    page.evaluate("window.__sameDocument = 'still here'")
    first, second = two_failed["first"], two_failed["second"]
    expect(page.locator(f"#job-{first}")).to_have_count(1)
    page.locator(f"#job-{second} details.error-full summary").click()  # stays open

    other = page.context.new_page()
    other.goto(url)
    with other.expect_navigation():
        other.locator(f"#job-{first} form.retry-form button").click()
    other.close()

    expect(page.locator(f"#job-{first}")).to_have_count(0, timeout=3000)
    expect(page.locator(f"#active-job-{first}")).to_have_count(1)
    counts = page.locator("#job-counts tr[data-kind='block_extract']")
    expect(counts.locator("td[data-status='queued']")).to_contain_text("1")
    assert page.locator(f"#job-{second} details.error-full").evaluate("d => d.open")
    assert page.locator(f"#job-{second} button.copy-error").is_visible()
    assert page.evaluate("window.__sameDocument") == "still here"  # no reload happened
    watch.assert_clean()
