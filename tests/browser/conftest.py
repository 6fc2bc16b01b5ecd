"""Browser fixtures: Playwright (sync API) driving Debian's headless Chromium at /usr/bin/chromium.

Outside CI a missing Chromium skips the browser tests; in CI (CI=true) it is a failure, so
browser tests can never silently stop running there.

Create test data *before* the browser starts: list data fixtures (users, namespaces) before
`browser_page` in a test's arguments, and avoid ORM calls in the test body once the browser
runs. While Playwright's sync API is active, its event loop counts as running in this thread,
so Django hands the ORM a separate connection (asgiref's context-local storage), which is never
closed: on PostgreSQL it then blocks dropping the test database.
"""

from __future__ import annotations

import os
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


@pytest.fixture
def chromium_browser() -> Iterator[Any]:
    """Chromium for one test. Not session-scoped on purpose: while Playwright's sync API is
    running, its event loop counts as running in this thread, which would break later
    non-browser tests that call asyncio.run() or async_to_sync() on the same xdist worker."""
    if not CHROMIUM.exists():
        if _in_ci():
            pytest.fail(f"{CHROMIUM} is missing in CI: install Debian's chromium package")
        pytest.skip(f"{CHROMIUM} is missing (apt-get install chromium); browser tests skipped")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS
        )
        try:
            yield browser
        finally:
            browser.close()


@pytest.fixture
def browser_page(chromium_browser: Any) -> Iterator[Any]:
    """A fresh page in its own browser context (no cookies shared between tests)."""
    context = chromium_browser.new_context()
    context.set_default_timeout(15_000)
    page = context.new_page()
    try:
        yield page
    finally:
        context.close()
