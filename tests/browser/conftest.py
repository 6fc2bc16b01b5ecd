"""Browser fixtures: Playwright (sync API) driving Debian's headless Chromium at /usr/bin/chromium.

Outside CI a missing Chromium skips the browser tests; in CI (CI=true) it is a failure, so
browser tests can never silently stop running there.

One Playwright driver and one Chromium serve all the browser tests of a test process; each
test gets a browser context of its own (fresh cookies, storage and cache).

Create test data *before* the browser starts: list data fixtures (users, namespaces) before
`browser_page` in a test's arguments, and avoid ORM calls in the test body once the browser
runs. While a test uses Playwright's sync API, its event loop counts as running in this thread,
so Django hands the ORM a separate connection (asgiref's context-local storage); the fixture
closes those when the test ends (on PostgreSQL an open one blocks dropping the test database),
but they do not see the test's own transaction.
"""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

# Playwright's sync API runs an event loop in this thread; Django would otherwise refuse ORM
# calls made from the test body (fixtures, assertions) as "async unsafe".
os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def _in_ci() -> bool:
    return os.environ.get("CI", "").strip().lower() in ("1", "true", "yes")


@pytest.fixture(scope="session")
def _chromium_per_worker() -> Iterator[tuple[Any, asyncio.AbstractEventLoop]]:
    """Playwright's driver and one Chromium, started once per test process (xdist worker) at its
    first browser test and stopped when the process ends: starting both took about 1.5 s of
    CPU per test. Tests never share more than the browser process: each gets a new context
    (`browser_page`), so cookies, storage and cache are fresh.

    While Playwright's sync API is active, its event loop counts as running in this thread
    (every sync call marks it running again). That would break later non-browser tests on the
    same worker that call asyncio.run() or async_to_sync(), and it would hand the ORM
    context-local connections instead of the test's own. So the loop is marked running only
    for the duration of a browser test (`chromium_browser`) and parked in between."""
    if not CHROMIUM.exists():
        if _in_ci():
            pytest.fail(f"{CHROMIUM} is missing in CI: install Debian's chromium package")
        pytest.skip(f"{CHROMIUM} is missing (apt-get install chromium); browser tests skipped")
    from playwright.sync_api import sync_playwright

    manager = sync_playwright()
    playwright = manager.start()
    loop = asyncio.get_running_loop()  # the driver's loop, marked running by start()
    try:
        browser = playwright.chromium.launch(
            executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS
        )
        asyncio._set_running_loop(None)
        yield browser, loop
        asyncio._set_running_loop(loop)
        browser.close()
    finally:
        asyncio._set_running_loop(loop)
        manager.__exit__()
        asyncio._set_running_loop(None)


@pytest.fixture
def chromium_browser(_chromium_per_worker: tuple[Any, asyncio.AbstractEventLoop]) -> Iterator[Any]:
    """The worker's Chromium, for one test: Playwright's loop counts as running in this thread
    from here until the test's teardown. On the way out, the ORM connections the test body
    opened meanwhile (context-local ones, see above) are closed, or on PostgreSQL they would
    keep the test database from being flushed and dropped."""
    from django.db import connections

    browser, loop = _chromium_per_worker
    asyncio._set_running_loop(loop)
    try:
        yield browser
    finally:
        try:
            connections.close_all()  # only the loop's context-local connections, see above
        finally:
            asyncio._set_running_loop(None)


@pytest.fixture
def browser_page(chromium_browser: Any) -> Iterator[Any]:
    """A fresh page in its own browser context (no cookies shared between tests)."""
    # English unless a test switches: Chromium would otherwise send the machine's locale.
    context = chromium_browser.new_context(locale="en-US", viewport={"width": 1280, "height": 800})
    context.set_default_timeout(15_000)
    page = context.new_page()
    try:
        yield page
    finally:
        context.close()


# --- Memory UI helpers shared by every page's browser tests ------------------------------------

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "test-artifacts" / "screenshots"
PASSWORD = "correct horse battery staple"


@pytest.fixture
def staff_user(django_user_model: Any) -> Any:
    """`ada`, a staff user (settings and admin actions need staff)."""
    return django_user_model.objects.create_user(username="ada", password=PASSWORD, is_staff=True)


def log_in(page: Any, base_url: str, username: str = "ada", password: str = PASSWORD) -> None:
    page.goto(f"{base_url}/accounts/login/")
    page.fill("input[name=username]", username)
    page.fill("input[name=password]", password)
    with page.expect_navigation():
        page.click("form.stack button[type=submit]")


QUIET = 0.15  # seconds without a request starting or ending: the page has settled
POLL_MS = 25


class PageWatch:
    """Records what a page did: every request, failed loads (a missing favicon counts), console
    errors, CSP violations, uncaught exceptions and dialogs (an XSS probe that runs would open
    an alert, which is dismissed and recorded)."""

    def __init__(self, page: Any, base_url: str) -> None:
        self.base_url = base_url
        self.requests: list[str] = []
        self.failed: list[str] = []
        self.console_errors: list[str] = []
        self.page_errors: list[str] = []
        self.dialogs: list[str] = []
        self.page = page
        self.in_flight: set[Any] = set()  # requests sent and not yet finished or failed
        self.last_change = time.monotonic()  # when a request last started, finished or failed

        def started(request: Any) -> None:
            self.requests.append(request.url)
            self.in_flight.add(request)
            self.last_change = time.monotonic()

        def ended(request: Any) -> None:
            self.in_flight.discard(request)
            self.last_change = time.monotonic()

        page.on("request", started)
        page.on("requestfinished", ended)
        page.on("requestfailed", ended)
        # A load the page itself cancelled by navigating on (ERR_ABORTED) is not a failure; a
        # missing file still is, through its 404 response below.
        page.on(
            "requestfailed",
            lambda r: (
                self.failed.append(f"failed {r.url} {r.failure}")
                if "ERR_ABORTED" not in (r.failure or "")
                else None
            ),
        )
        page.on(
            "response",
            lambda r: self.failed.append(f"{r.status} {r.url}") if r.status >= 400 else None,
        )
        page.on(
            "console",
            lambda m: (
                self.console_errors.append(m.text)
                if m.type in ("error", "warning") or "Content Security Policy" in m.text
                else None
            ),
        )
        page.on("pageerror", lambda e: self.page_errors.append(str(e)))

        def on_dialog(dialog: Any) -> None:
            self.dialogs.append(dialog.message)
            dialog.dismiss()

        page.on("dialog", on_dialog)

    def settle(self, quiet: float = QUIET, timeout: float = 15.0) -> None:
        """Wait until every request the page has sent is answered (or has failed) and no new one
        started for `quiet` seconds: what Playwright's "networkidle" waits for, without its
        fixed 500 ms of silence after every page (40 s of the walkthrough's 65 s)."""
        deadline = time.monotonic() + timeout
        while self.in_flight or time.monotonic() - self.last_change < quiet:
            if time.monotonic() > deadline:
                pending = sorted(r.url for r in self.in_flight)
                raise AssertionError(f"the page did not settle within {timeout} s: {pending}")
            self.page.wait_for_timeout(POLL_MS)  # events arrive while Playwright waits

    def outside_requests(self) -> list[str]:
        return [
            u
            for u in self.requests
            if not u.startswith(self.base_url) and not u.startswith("data:")
        ]

    def assert_clean(self, *, allow_status: tuple[int, ...] = ()) -> None:
        failed = [f for f in self.failed if not any(f.startswith(f"{s} ") for s in allow_status)]
        assert self.outside_requests() == [], self.outside_requests()
        assert failed == [], failed
        assert self.console_errors == [], self.console_errors
        assert self.page_errors == [], self.page_errors
        assert self.dialogs == [], self.dialogs


@pytest.fixture
def watch(browser_page: Any, live_server: Any) -> PageWatch:
    return PageWatch(browser_page, live_server.url)


def screenshot(page: Any, name: str) -> Path:
    """Full-page PNG under test-artifacts/screenshots/ (ignored by git), for people to look at."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    path = ARTIFACTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)
    return path


def assert_probes_inert(page: Any) -> None:
    """Hostile memory rendered as text: no injected element, no javascript: link, no dialog."""
    assert page.locator("img[src='x']").count() == 0
    assert page.locator("a[href^='javascript:' i]").count() == 0
    assert page.locator("script:not([src]):not([type='application/json'])").count() == 0


@pytest.fixture
def background_worker(live_server: Any) -> Iterator[Any]:
    """A worker for browser tests: drains due processing jobs every 0.2 s in a thread with its
    own database connection (closed when the test ends), like `manage.py db_worker` would.
    List it after the data fixtures and before `browser_page`."""
    import threading

    from django.db import connections

    from memory.services.jobs import jobs_drain

    stop = threading.Event()
    errors: list[BaseException] = []

    def work() -> None:
        try:
            while not stop.is_set():
                jobs_drain(honour_backoff=True)
                stop.wait(0.2)
        except BaseException as exc:  # surfaced in the test, not lost in a thread
            errors.append(exc)
        finally:
            connections.close_all()

    thread = threading.Thread(target=work, name="browser-test-worker", daemon=True)
    thread.start()
    try:
        yield thread
    finally:
        stop.set()
        thread.join(timeout=30)
    assert not errors, errors
