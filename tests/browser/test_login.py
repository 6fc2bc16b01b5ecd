"""The Memory UI in a real browser: login gate, Namespaces page, error message, CSP, no CDN."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from memory.models import NamespaceGrant, Role
from memory.services.ingest import MessageIn, TurnIn, turn_ingest
from memory.services.namespaces import namespace_get_or_create

pytestmark = pytest.mark.browser

# Data fixtures come before `browser_page` in every signature: see tests/browser/conftest.py.

PASSWORD = "correct horse battery staple"


@pytest.fixture
def user(django_user_model: Any) -> Any:
    return django_user_model.objects.create_user(username="ada", password=PASSWORD)


@pytest.fixture
def project_namespace(user: Any, drain: Callable[[], int]) -> str:
    """Namespace `browser-proj`: one session, 13 turns, two ready blocks after processing; ada
    (not staff) is its viewer, so it is on her Namespaces page."""
    namespace = namespace_get_or_create(name="browser-proj")
    NamespaceGrant.objects.create(user=user, namespace=namespace, role=Role.VIEWER)
    for n in range(1, 14):
        turn_ingest(
            namespace=namespace,
            turn=TurnIn(
                session_id="s1",
                receipt_id=f"r{n}",
                messages=[
                    MessageIn(role="user", content=f"Question {n} about the storage layer?"),
                    MessageIn(role="assistant", content=f"Answer {n}: we keep it simple."),
                ],
            ),
        )
    drain()
    return namespace.name


def log_in(page: Any, username: str, password: str) -> None:
    page.fill("input[name=username]", username)
    page.fill("input[name=password]", password)
    with page.expect_navigation():
        page.click("form.stack button[type=submit]")


def test_anonymous_visitor_is_sent_to_login(live_server: Any, browser_page: Any) -> None:
    response = browser_page.goto(f"{live_server.url}/")
    assert response is not None and response.ok
    assert browser_page.url.startswith(f"{live_server.url}/accounts/login/")
    assert browser_page.locator("h1").inner_text() == "Log in"
    assert browser_page.locator("input[name=username]").is_visible()


def test_login_shows_namespaces_with_counts(
    user: Any, project_namespace: str, live_server: Any, browser_page: Any
) -> None:
    browser_page.goto(f"{live_server.url}/")
    log_in(browser_page, "ada", PASSWORD)

    assert browser_page.url == f"{live_server.url}/"
    assert browser_page.locator("h1").inner_text() == "Namespaces"
    row = browser_page.locator("#namespaces tbody tr", has_text=project_namespace)
    assert row.count() == 1
    cells = [c.strip() for c in row.locator("th, td").all_inner_texts()]
    # Namespace, sessions, turns, blocks ready/pending/failed, events active/superseded/
    # forgotten/archived, nodes, edges, receipts, adoptions, jobs running/failed, last activity
    assert cells[:6] == [project_namespace, "1", "13", "2", "0", "0"]
    assert cells[12:16] == ["0", "0", "0", "0"]


def test_wrong_password_shows_the_error(user: Any, live_server: Any, browser_page: Any) -> None:
    browser_page.goto(f"{live_server.url}/accounts/login/")
    log_in(browser_page, "ada", "not the password")

    assert browser_page.url.startswith(f"{live_server.url}/accounts/login/")
    assert "didn't match" in browser_page.locator("main").inner_text()
    assert browser_page.locator("h1").inner_text() == "Log in"


def test_pages_load_nothing_from_other_hosts_and_send_a_strict_csp(
    user: Any, project_namespace: str, live_server: Any, browser_page: Any
) -> None:
    requested: list[str] = []
    failed: list[str] = []
    csp_violations: list[str] = []
    browser_page.on("request", lambda request: requested.append(request.url))
    browser_page.on(
        "response",
        lambda response: (
            failed.append(f"{response.status} {response.url}")
            if response.status >= 400 and not response.url.endswith("/favicon.ico")
            else None
        ),
    )
    browser_page.on(
        "console",
        lambda message: (
            csp_violations.append(message.text)
            if "Content Security Policy" in message.text
            else None
        ),
    )

    login_response = browser_page.goto(f"{live_server.url}/")
    log_in(browser_page, "ada", PASSWORD)
    namespaces_response = browser_page.reload()
    browser_page.wait_for_load_state("networkidle")

    for response in (login_response, namespaces_response):
        assert response is not None
        policy = response.headers.get("content-security-policy")
        assert policy, f"no Content-Security-Policy on {response.url}"
        assert "'unsafe-inline'" not in policy
        assert "default-src 'self'" in policy
    assert any(url.endswith(".css") for url in requested), requested  # static files are served
    outside = [url for url in requested if not url.startswith(live_server.url)]
    assert outside == []
    assert failed == []
    assert csp_violations == []
