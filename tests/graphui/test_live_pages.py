"""Live updates in the pages' HTML: the layout's socket hook and indicator, and the `?partial=`
fragments live.js re-reads (health counts, charts and jobs; a session; the session list)."""

from __future__ import annotations

from html.parser import HTMLParser
from typing import Any
from urllib.parse import quote

import pytest
from asgiref.sync import async_to_sync
from django.db import connection
from django.test import AsyncClient, Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from memory.models import Namespace
from memory.services.ingest import MessageIn, TurnIn, turn_ingest
from memory.services.jobs import jobs_drain
from memory.services.namespaces import namespace_get_or_create
from tests.graphui.partials_support import assert_fragments_are_in_the_page

pytestmark = pytest.mark.django_db

NOTE = (
    "live updates are limited to this process — set REDIS_URL so workers and other web "
    "processes reach every page"
)
HOSTILE_ID = "a \"quoted\" <b>bold</b> & 'single' id with spaces"


@pytest.fixture
def user(django_user_model: Any) -> Any:
    return django_user_model.objects.create_user("ada", is_staff=True)


@pytest.fixture
def ada(client: Client, user: Any) -> Client:
    client.force_login(user)
    return client


@pytest.fixture
def ada_asgi(user: Any) -> AsyncClient:
    """Requests through Django's ASGI handler, as under the ASGI server (websockets exist)."""
    client = AsyncClient()
    client.force_login(user)
    return client


def _asgi_get(client: AsyncClient, url: str) -> str:
    response = async_to_sync(client.get)(url)
    assert response.status_code == 200, response.status_code
    return response.content.decode()


def say(namespace: Namespace, session: str, n: int, text: str) -> None:
    turn_ingest(
        namespace=namespace,
        turn=TurnIn(
            session_id=session,
            receipt_id=f"{session}-{n}",
            messages=[
                MessageIn(role="user", content=text),
                MessageIn(role="assistant", content=f"Answer {n}."),
            ],
        ),
    )


@pytest.fixture
def proj(db: None) -> Namespace:
    """`proj`: 7 turns of s1 (one processed block, one turn in the open tail), 1 turn of s2."""
    namespace = namespace_get_or_create(name="proj")
    for n in range(1, 8):
        say(namespace, "s1", n, f"Question {n} about the queue?")
    say(namespace, "s2", 1, "Another session.")
    jobs_drain()
    return namespace


class Elements(HTMLParser):
    """Every start tag with its (unescaped) attributes, and the text of the document."""

    def __init__(self, html: str) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.text: list[str] = []
        self.feed(html)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))

    def handle_data(self, data: str) -> None:
        self.text.append(data)

    def by_id(self, element_id: str) -> dict[str, str | None]:
        return next(attrs for _, attrs in self.tags if attrs.get("id") == element_id)

    def first(self, tag: str) -> dict[str, str | None]:
        return next(attrs for name, attrs in self.tags if name == tag)


def _get(client: Client, url: str) -> str:
    response = client.get(url)
    assert response.status_code == 200, response.status_code
    return response.content.decode()


# --- the layout ---------------------------------------------------------------------------------


def test_namespace_pages_carry_the_socket_path_the_script_and_a_silent_indicator(
    ada_asgi: AsyncClient, proj: Namespace
) -> None:
    for url in (
        reverse("graphui:health", args=["proj"]),
        reverse("graphui:sessions", args=["proj"]),
        reverse("graphui:timeline", args=["proj"]),
    ):
        page = Elements(_asgi_get(ada_asgi, url))
        assert page.first("body")["data-live-ws"] == "/ws/ns/proj/"
        assert any(
            name == "script" and (attrs.get("src") or "").endswith("graphui/js/live.js")
            for name, attrs in page.tags
        )
        status = page.by_id("live-status")
        # Without JavaScript it says nothing: hidden, and its state is filled in by live.js.
        assert "hidden" in status and status["role"] == "status"
        assert status["data-connected"] == "Live updates on"
        assert status["data-reconnecting"] == "Live updates reconnecting…"
        assert status["data-offline"] == "Live updates off"


def test_pages_outside_a_namespace_and_error_pages_open_no_socket(
    ada_asgi: AsyncClient, proj: Namespace
) -> None:
    for url in (reverse("graphui:namespaces"), reverse("graphui:settings")):
        html = _asgi_get(ada_asgi, url)
        assert "data-live-ws" not in html and "live.js" not in html and "live-status" not in html
    missing = async_to_sync(ada_asgi.get)(reverse("graphui:health", args=["nowhere"]))
    assert missing.status_code == 404
    assert "data-live-ws" not in missing.content.decode()


def test_under_wsgi_no_page_tries_a_socket_but_live_regions_stay(
    ada: Client, proj: Namespace
) -> None:
    """A WSGI server cannot hold websockets: the page would only log a failed handshake."""
    html = _get(ada, reverse("graphui:health", args=["proj"]))
    assert "data-live-ws" not in html and "live-status" not in html
    assert "live.js" in html  # window.sgLive exists, never connected: page scripts need no guard
    assert 'id="live-stats"' in html and "live-reload" in html


def test_the_socket_path_encodes_the_namespace_name(ada_asgi: AsyncClient) -> None:
    namespace_get_or_create(name="team.a:b_1-x")
    page = Elements(_asgi_get(ada_asgi, reverse("graphui:health", args=["team.a:b_1-x"])))
    assert page.first("body")["data-live-ws"] == "/ws/ns/team.a%3Ab_1-x/"


def test_the_one_process_note_shows_without_redis_and_not_with_it(
    ada_asgi: AsyncClient, proj: Namespace, settings: Any
) -> None:
    url = reverse("graphui:health", args=["proj"])
    settings.REDIS_URL = ""
    assert NOTE in _asgi_get(ada_asgi, url)
    settings.REDIS_URL = "redis://127.0.0.1:6379/0"
    html = _asgi_get(ada_asgi, url)
    assert NOTE not in html and 'id="live-status"' in html


# --- health fragments -------------------------------------------------------------------------


def _stat(html: str, label: str) -> str:
    """The value of the stat card whose label is `label`."""
    marker = f">{label}<"
    before = html[: html.index(marker)]
    value = before[before.rindex('<div class="value">') + len('<div class="value">') :]
    return value[: value.index("<")].strip()


def test_the_health_page_declares_its_three_live_regions(ada: Client, proj: Namespace) -> None:
    page = Elements(_get(ada, reverse("graphui:health", args=["proj"])))
    for part in ("stats", "charts", "jobs"):
        region = page.by_id(f"live-{part}")
        assert region["data-live-src"] == f"/ns/proj/?partial={part}"
        assert "turn.created" in (region["data-live-refresh"] or "").split()
        assert "data-live-match" not in region


def test_health_fragments_are_just_their_part_with_current_numbers(
    ada: Client, proj: Namespace
) -> None:
    url = reverse("graphui:health", args=["proj"])
    stats = _get(ada, url + "?partial=stats")
    assert "<html" not in stats and "<footer" not in stats and "live-region" not in stats
    assert _stat(stats, "Turns") == "8" and _stat(stats, "Sessions") == "2"
    assert "Processing and settings" in stats and "At a glance" not in stats

    charts = _get(ada, url + "?partial=charts")
    assert "At a glance" in charts and 'id="chart-levels"' in charts
    assert "<html" not in charts and "Processing jobs" not in charts

    jobs = _get(ada, url + "?partial=jobs")
    assert "Processing jobs" in jobs and "block_views" in jobs
    assert "<html" not in jobs and "At a glance" not in jobs

    say(proj, "s3", 1, "A new session arrives.")
    stats = _get(ada, url + "?partial=stats")
    assert _stat(stats, "Turns") == "9" and _stat(stats, "Sessions") == "3"


def test_each_fragment_is_what_the_page_shows_in_its_place(ada: Client, proj: Namespace) -> None:
    health = reverse("graphui:health", args=["proj"])
    assert_fragments_are_in_the_page(ada, health, ("stats", "charts", "jobs"))
    sessions = reverse("graphui:sessions", args=["proj"])
    assert_fragments_are_in_the_page(ada, sessions, ("list",))
    session = reverse("graphui:session", args=["proj", "s1"])
    assert_fragments_are_in_the_page(ada, session + "?view=3&hl=1", ("session",))


def test_a_fragment_costs_no_more_than_the_page(ada: Client, proj: Namespace) -> None:
    url = reverse("graphui:health", args=["proj"])

    def queries(path: str) -> int:
        with CaptureQueriesContext(connection) as captured:
            _get(ada, path)
        return len(captured)

    page = queries(url)
    assert queries(url + "?partial=stats") <= page
    assert queries(url + "?partial=charts") < page
    assert queries(url + "?partial=jobs") < page


@pytest.mark.parametrize(
    "url",
    [
        "/ns/proj/?partial=stats",
        "/ns/proj/sessions/?partial=list",
        "/ns/proj/sessions/s1?partial=session",
    ],
)
def test_fragments_need_a_login(client: Client, proj: Namespace, url: str) -> None:
    response = client.get(url)
    assert response.status_code == 302
    assert response["Location"].startswith("/accounts/login/?next=")


@pytest.mark.parametrize(
    "url",
    [
        "/ns/nowhere/?partial=stats",
        "/ns/nowhere/sessions/?partial=list",
        "/ns/nowhere/sessions/s1?partial=session",
        "/ns/other/sessions/s1?partial=session",  # s1 is proj's, not other's
        "/ns/proj/?partial=everything",
        "/ns/proj/sessions/?partial=session",
        "/ns/proj/sessions/s1?partial=list",
        "/ns/proj/sessions/?partial=",
    ],
)
def test_unknown_namespaces_sessions_and_parts_are_404(
    ada: Client, proj: Namespace, url: str
) -> None:
    namespace_get_or_create(name="other")
    response = ada.get(url)
    assert response.status_code == 404
    assert b"<html" in response.content  # the error page, which live.js never puts in a page


# --- session page and list ----------------------------------------------------------------------


def test_the_session_region_matches_its_exact_id_in_an_escaped_attribute(ada: Client) -> None:
    namespace = namespace_get_or_create(name="proj")
    say(namespace, HOSTILE_ID, 1, "Hello <script>alert(1)</script>")
    url = reverse("graphui:session", args=["proj", HOSTILE_ID])
    html = _get(ada, url)
    region = Elements(html).by_id("live-session")
    assert region["data-live-match"] == f"session_id:{HOSTILE_ID}"
    assert region["data-live-refresh"] == "turn.created"
    assert region["data-live-src"] == f"{url}?partial=session"
    assert quote(" ") in url and "<" not in url
    # Escaped in the markup: the id's quotes and tags cannot end the attribute or open a tag.
    assert "<b>bold</b>" not in html and "<script>alert(1)" not in html
    assert "session_id:a &quot;quoted&quot; &lt;b&gt;bold&lt;/b&gt; &amp; &#x27;single&#x27;" in (
        html
    )
    fragment = _get(ada, region["data-live-src"] or "")
    assert "Hello &lt;script&gt;alert(1)&lt;/script&gt;" in fragment
    assert "<script>alert(1)" not in fragment


def test_the_session_fragment_shows_the_new_turn_and_keeps_the_view(
    ada: Client, proj: Namespace
) -> None:
    url = reverse("graphui:session", args=["proj", "s1"])
    page = Elements(_get(ada, url + "?view=3&hl=1"))
    block = next(a for n, a in page.tags if n == "article" and "block-card" in (a["class"] or ""))
    # Each block card is a trigger for its own block's changes.
    assert block["data-live-refresh"] == "block.ready block.failed block.changed"
    assert block["data-live-match"] == f"block_id:{(block['id'] or '').removeprefix('block-')}"
    src = page.by_id("live-session")["data-live-src"] or ""
    assert src == "/ns/proj/sessions/s1?view=3&hl=1&partial=session"

    say(proj, "s1", 8, "The eighth question arrives live.")
    fragment = _get(ada, src)
    assert "<html" not in fragment and "<footer" not in fragment
    assert "The eighth question arrives live." in fragment
    assert "2/6" in fragment and "8 turns" in fragment
    # The Reload link points at the page with its view, not at the fragment.
    assert 'href="/ns/proj/sessions/s1?view=3&amp;hl=1"' in fragment
    assert "partial=" not in fragment


def test_the_session_list_fragment_lists_new_sessions_and_pages_without_partial(
    ada: Client, proj: Namespace
) -> None:
    url = reverse("graphui:sessions", args=["proj"])
    region = Elements(_get(ada, url)).by_id("live-sessions")
    assert region["data-live-src"] == "/ns/proj/sessions/?partial=list"
    assert region["data-live-refresh"] == "turn.created block.ready block.failed"
    for n in range(50):
        say(proj, f"extra-{n:02d}", 1, "One more session.")
    fragment = _get(ada, url + "?partial=list")
    assert "<html" not in fragment and "52 sessions" in fragment
    assert 'href="?page=2"' in fragment  # pagination links lead to the page, not the fragment
    assert "partial" not in fragment
