"""Live updates end to end: a page served by the site's web server (tests/browser/asgi_server.py),
an agent posting a turn over the API, and the page changing without a reload, through whichever
channel layer the settings select (in-memory on one process; channels_redis when REDIS_URL is set).

Locally, both ways (PostgreSQL and Redis run on this machine):
    .venv/bin/pytest -p no:xdist tests/browser/test_live.py
    DATABASE_URL=postgres://postgres@127.0.0.1:5432/test REDIS_URL=redis://127.0.0.1:6379/0 \\
        .venv/bin/pytest -p no:xdist tests/browser/test_live.py
"""

from __future__ import annotations

import json
import os
import signal
import time
import urllib.request
from collections.abc import Iterator
from typing import Any
from urllib.parse import quote

import pytest
from playwright.sync_api import expect

from memory.models import Block
from memory.services.ingest import MessageIn, TurnIn, turn_ingest
from memory.services.jobs import jobs_drain
from memory.services.namespaces import namespace_get_or_create
from memory.services.tokens import token_create
from tests.browser.asgi_server import AsgiServer, layer_settings, site_server
from tests.browser.conftest import PageWatch, log_in, screenshot

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

# Data fixtures come before `asgi_server`, which comes before `browser_page`: the server is
# forked before the browser starts, and the test bodies make no ORM calls.

NS = "live"
# Spaces, quotes, markup and Chinese: the page must match this session's turns exactly.
SESSION_ID = 'planning "v2" <b>db</b> & 中文'
OTHER_SESSION = "planning"  # a prefix of SESSION_ID: must not refresh its page
NEW_TEXT = "新消息: we switch the queue to PostgreSQL LISTEN/NOTIFY."
UPDATE_WITHIN_MS = 2000


def _turn(session: str, n: int, text: str) -> TurnIn:
    return TurnIn(
        session_id=session,
        receipt_id=f"{session}-{n}",
        messages=[
            MessageIn(role="user", content=text),
            MessageIn(role="assistant", content=f"Noted ({n}). 已记录。"),
        ],
    )


@pytest.fixture
def live_data(staff_user: Any) -> dict[str, Any]:
    """Namespace `live`: 7 turns of SESSION_ID (one ready block, one turn in the open tail),
    one turn of OTHER_SESSION, and a read-write agent token for the namespace."""
    namespace = namespace_get_or_create(name=NS)
    for n in range(1, 8):
        turn_ingest(
            namespace=namespace, turn=_turn(SESSION_ID, n, f"Turn {n}: which queue do we use?")
        )
    turn_ingest(namespace=namespace, turn=_turn(OTHER_SESSION, 1, "Another session."))
    jobs_drain()
    _, token = token_create(namespaces=[NS], scope="read-write", label="live test")
    block = Block.objects.get(namespace=namespace, session__external_id=SESSION_ID)
    return {
        "token": token,
        "block_id": block.pk,
        "session_path": f"/ns/{NS}/sessions/{quote(SESSION_ID, safe='')}",
    }


@pytest.fixture
def asgi_server(transactional_db: None, settings: Any) -> Iterator[AsgiServer]:
    """The web server serving the whole site (HTTP, static files, websockets) on the test database,
    with the channel layer the settings select (a prefix of its own on Redis)."""
    settings.CHANNEL_LAYERS = layer_settings(settings.CHANNEL_LAYERS)
    with site_server() as server:
        yield server


def _api_post(server: AsgiServer, token: str, path: str, body: dict[str, Any]) -> None:
    """An agent calls the API of the same server the page uses."""
    request = urllib.request.Request(
        f"{server.url}/api/v1/ns/{NS}{path}",
        data=json.dumps(body).encode(),
        headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"},
        method="POST",
    )
    with urllib.request.urlopen(request, timeout=10) as response:
        assert response.status in (200, 201), response.status


def _post_turn(server: AsgiServer, token: str, session: str, n: int, text: str) -> None:
    body = {
        "session_id": session,
        "receipt_id": f"{session}-live-{n}",
        "messages": [
            {"role": "user", "content": text},
            {"role": "assistant", "content": "Noted. 已记录。"},
        ],
    }
    _api_post(server, token, "/turns", body)


def _count_refreshes(page: Any) -> None:
    page.evaluate(
        """() => {
            window.__refreshed = 0;
            document.addEventListener("sg:refreshed", () => { window.__refreshed += 1; });
        }"""
    )


def _connected(page: Any) -> None:
    page.wait_for_selector("html[data-live='connected']")
    assert page.evaluate("window.sgLive.connected") is True


def test_a_new_turn_appears_on_its_session_page_without_a_reload(
    live_data: dict[str, Any], asgi_server: AsgiServer, browser_page: Any
) -> None:
    page = browser_page
    watch = PageWatch(page, asgi_server.url)
    sockets: list[str] = []
    page.on("websocket", lambda socket: sockets.append(socket.url))
    log_in(page, asgi_server.url)
    page.goto(asgi_server.url + live_data["session_path"])
    _connected(page)
    tail = page.locator("#open-tail")
    expect(tail.locator(".tail-count")).to_have_text("1/6")
    expect(page.get_by_text(NEW_TEXT)).to_have_count(0)
    page.evaluate("window.__sameDocument = 'still here'")
    _count_refreshes(page)
    # Keyboard focus inside the region survives the refresh.
    first_tab = page.locator(".view-tab").first
    first_tab.focus()
    focused_href = first_tab.get_attribute("href")
    screenshot(page, "live-session-before")

    # A turn of another session whose id is a prefix of this one changes nothing here.
    _post_turn(asgi_server, live_data["token"], OTHER_SESSION, 1, "Not for this page.")
    page.wait_for_timeout(800)
    assert page.evaluate("window.__refreshed") == 0

    started = time.monotonic()
    _post_turn(asgi_server, live_data["token"], SESSION_ID, 8, NEW_TEXT)
    expect(tail.get_by_text(NEW_TEXT)).to_be_visible(timeout=UPDATE_WITHIN_MS)
    elapsed = time.monotonic() - started
    assert elapsed < UPDATE_WITHIN_MS / 1000, f"the turn took {elapsed:.2f} s to appear"

    expect(tail.locator(".tail-count")).to_have_text("2/6")
    expect(page.locator(".page-head .sub")).to_contain_text("8 turns")
    assert page.evaluate("window.__sameDocument") == "still here"  # no navigation happened
    assert page.evaluate("window.__refreshed") >= 1
    assert page.evaluate("document.activeElement.getAttribute('href')") == focused_href
    assert sockets == [f"{asgi_server.ws_url}/ws/ns/{NS}/"]  # one socket for the page's life
    screenshot(page, "live-session-after")
    watch.assert_clean()


def test_a_block_expanded_by_an_agent_changes_on_the_page(
    live_data: dict[str, Any], asgi_server: AsgiServer, browser_page: Any
) -> None:
    """block.changed reaches the page through the block card's own trigger (block_id)."""
    page = browser_page
    watch = PageWatch(page, asgi_server.url)
    log_in(page, asgi_server.url)
    page.goto(asgi_server.url + live_data["session_path"])
    _connected(page)
    page.evaluate("window.__sameDocument = 'still here'")
    card = page.locator(f"#block-{live_data['block_id']}")
    expect(card.locator(".block-level .level")).to_have_text("L5")
    expect(card.locator(".lifted")).to_have_text("never lifted")

    _api_post(
        asgi_server, live_data["token"], f"/blocks/{live_data['block_id']}/expand", {"target": "L4"}
    )
    expect(card.locator(".block-level .level")).to_have_text("L4", timeout=UPDATE_WITHIN_MS)
    expect(card.locator(".lifted")).to_contain_text("last lifted by the agent")
    assert page.evaluate("window.__sameDocument") == "still here"
    watch.assert_clean()


@pytest.mark.skipif(not os.environ.get("REDIS_URL"), reason="needs Redis across processes")
def test_with_redis_a_worker_in_another_process_reaches_the_page(
    live_data: dict[str, Any], asgi_server: AsgiServer, background_worker: Any, browser_page: Any
) -> None:
    """Processing runs in this test process (background_worker), the page is served by the
    web server child: only a shared layer carries block.ready from one to the other."""
    page = browser_page
    watch = PageWatch(page, asgi_server.url)
    log_in(page, asgi_server.url)
    page.goto(asgi_server.url + live_data["session_path"])
    _connected(page)
    page.evaluate(
        """() => {
            window.__ready = [];
            window.sgLive.on("block.ready", (payload) => window.__ready.push(payload));
        }"""
    )
    for n in range(8, 13):  # the 12th turn seals block 2
        _post_turn(asgi_server, live_data["token"], SESSION_ID, n, f"Turn {n}: sealing.")
    second = page.locator(".block-card", has=page.locator(".block-seq", has_text="Block 2"))
    expect(second).to_have_count(1)
    # Sealed (pending) on the page first or already ready: either way it ends ready, live.
    expect(second.locator(".block-meta .badge")).to_contain_text("ready", timeout=15_000)
    expect(page.locator("#open-tail .tail-count")).to_have_text("0/6")
    # Published by the worker in this process, heard by the page on the web server child.
    deadline = time.monotonic() + 5
    while not page.evaluate("window.__ready.length") and time.monotonic() < deadline:
        page.wait_for_timeout(100)  # wait_for_function would need 'unsafe-eval' under our CSP
    assert page.evaluate("window.__ready.length") > 0
    watch.assert_clean()


def test_the_health_page_counts_turns_live(
    live_data: dict[str, Any], asgi_server: AsgiServer, browser_page: Any
) -> None:
    page = browser_page
    watch = PageWatch(page, asgi_server.url)
    log_in(page, asgi_server.url)
    page.goto(f"{asgi_server.url}/ns/{NS}/")
    _connected(page)
    page.evaluate("window.__sameDocument = 'still here'")
    turns = page.locator("#live-stats .stat", has=page.locator(".label", has_text="Turns"))
    expect(turns.locator(".value")).to_have_text("8")

    _post_turn(asgi_server, live_data["token"], "health-check", 1, "A turn for the counts.")
    expect(turns.locator(".value")).to_have_text("9", timeout=UPDATE_WITHIN_MS)
    sessions = page.locator("#live-stats .stat", has=page.locator(".label", has_text="Sessions"))
    expect(sessions.locator(".value")).to_have_text("3")
    assert page.evaluate("window.__sameDocument") == "still here"
    screenshot(page, "live-health-after")
    watch.assert_clean()


def test_a_socket_without_a_login_is_refused_with_4401(
    live_data: dict[str, Any], asgi_server: AsgiServer, browser_page: Any
) -> None:
    page = browser_page
    watch = PageWatch(page, asgi_server.url)
    page.goto(f"{asgi_server.url}/accounts/login/")
    assert page.evaluate("document.body.hasAttribute('data-live-ws')") is False
    close = """(url) => new Promise((resolve) => {
        const socket = new WebSocket(url);
        const heard = [];
        socket.addEventListener("message", (event) => heard.push(event.data));
        socket.addEventListener("close", (event) => resolve({code: event.code, heard}));
    })"""
    refused = page.evaluate(close, f"{asgi_server.ws_url}/ws/ns/{NS}/")
    assert refused == {"code": 4401, "heard": []}

    # Logged in, an unknown namespace is refused with 4404.
    log_in(page, asgi_server.url)
    assert page.evaluate(close, f"{asgi_server.ws_url}/ws/ns/nowhere/")["code"] == 4404
    watch.assert_clean()


def test_the_footer_says_live_updates_are_on_and_how_far_they_reach(
    live_data: dict[str, Any], asgi_server: AsgiServer, settings: Any, browser_page: Any
) -> None:
    page = browser_page
    watch = PageWatch(page, asgi_server.url)
    sockets: list[str] = []
    page.on("websocket", lambda socket: sockets.append(socket.url))
    log_in(page, asgi_server.url)
    page.goto(f"{asgi_server.url}/ns/{NS}/sessions/")
    _connected(page)
    status = page.locator("#live-status")
    expect(status).to_be_visible()
    expect(status.locator(".live-state")).to_have_text("Live updates on")
    note = status.locator(".live-note")
    if settings.REDIS_URL:  # every process reaches every page: nothing to warn about
        assert asgi_server.layer == "channels_redis.core.RedisChannelLayer"
        expect(note).to_have_count(0)
    else:
        assert asgi_server.layer == "channels.layers.InMemoryChannelLayer"
        expect(note).to_have_text(
            "live updates are limited to this process — set REDIS_URL so workers and other "
            "web processes reach every page"
        )
    expect(page.locator(".live-reload")).to_be_hidden()  # the page keeps itself current
    if settings.REDIS_URL:
        # An idle page keeps its one socket: channels_redis waits 5 s per read, longer than
        # redis-py's default read timeout would allow (stratagate_site/settings.py).
        page.wait_for_timeout(6500)
        assert page.evaluate("window.sgLive.connected") is True
        assert sockets == [f"{asgi_server.ws_url}/ws/ns/{NS}/"]
    screenshot(page, "live-indicator")
    page.set_viewport_size({"width": 390, "height": 800})
    screenshot(page, "live-indicator-narrow")
    watch.assert_clean()

    # The server goes away: the page says so and offers a plain reload.
    os.kill(asgi_server.pid, signal.SIGTERM)
    page.wait_for_selector("html[data-live='connecting']")
    expect(status.locator(".live-state")).to_have_text("Live updates reconnecting…")
    expect(page.locator(".live-reload")).to_be_visible()
    assert page.evaluate("window.sgLive.connected") is False


def test_under_a_wsgi_server_pages_stay_quiet_and_offer_a_reload(
    live_data: dict[str, Any], browser_page: Any, live_server: Any
) -> None:
    """live_server cannot hold websockets: no socket is tried (a failed handshake would be a
    console error), sgLive exists but never connects, and the Reload links stay."""
    page = browser_page
    watch = PageWatch(page, live_server.url)
    sockets: list[str] = []
    page.on("websocket", lambda socket: sockets.append(socket.url))
    log_in(page, live_server.url)
    page.goto(live_server.url + live_data["session_path"])
    page.wait_for_selector("html[data-live='offline']")
    assert page.evaluate("window.sgLive.connected") is False
    expect(page.locator("#live-status")).to_have_count(0)
    expect(page.locator(".live-reload")).to_be_visible()
    assert sockets == []
    screenshot(page, "live-session-no-socket")
    watch.assert_clean()
