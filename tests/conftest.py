"""Shared fixtures: personas (owner / stranger tokens), an API client, job draining, fakes."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from django.test import Client
from pytest_django.plugin import validate_django_db

from memory.services.jobs import jobs_drain
from memory.services.tokens import token_create
from tests.fakes.fixtures import fake_openai  # noqa: F401  (fixture)
from tests.manage_process import (  # noqa: F401  (fixtures)
    migrated,
    migrated_template,
    queued,
    queued_template,
)

BASE_TIME = datetime(2023, 5, 6, 13, 56, tzinfo=UTC)

# Tests that take seconds each (a browser, real processes), longest first. Within each of
# pytest-django's groups (database tests, then transactional ones, then tests without the
# database: the order Django's runner keeps, so no flushed database reaches a test that expects
# migrated data), these files are collected first. A parallel run then starts them early and
# ends on many short tests spread over the workers (scripts/test.sh: --dist worksteal), instead
# of one worker still busy with them. Only the order changes: every test sets up and cleans up
# its own state.
SLOW_FIRST = (
    "tests/browser/test_walkthrough.py",
    "tests/test_serve.py",
    "tests/browser/",
    "tests/agent_tools/test_mcp_server.py",
    "tests/proxy/",
    "tests/security/test_fuzz.py",
    "tests/reliability/",
    "tests/test_checks.py",
    "tests/security/test_secret_key.py",
)


def _django_group(item: pytest.Item) -> int:
    """pytest-django's order: 0 database (rolled back), 1 transactional (flushed), 2 no database."""
    fixtures = getattr(item, "fixturenames", ())
    marker = item.get_closest_marker("django_db")
    transactional = "transactional_db" in fixtures or "live_server" in fixtures
    if marker is not None:
        transaction, reset_sequences, *_ = validate_django_db(marker)
        transactional = transactional or transaction or reset_sequences
    if transactional:
        return 1
    return 0 if marker is not None or "db" in fixtures else 2


def _slowness(item: pytest.Item) -> int:
    path = item.nodeid.split("::", 1)[0]
    for rank, prefix in enumerate(SLOW_FIRST):
        if path.startswith(prefix):
            return rank
    return len(SLOW_FIRST)


@pytest.hookimpl(trylast=True)  # after pytest-django's own sort, whose groups are kept first
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    # Stable: the collected order within each (group, slowness) is kept.
    items.sort(key=lambda item: (_django_group(item), _slowness(item)))


@pytest.fixture(autouse=True)
def _tasks_do_not_run_in_tests(settings: Any) -> None:
    # Tests run jobs explicitly with `drain()`, so every assertion sees a known state.
    settings.TASKS = {"default": {"BACKEND": "django.tasks.backends.dummy.DummyBackend"}}
    settings.STRATAGATE_LLM_BASE_URL = ""
    settings.STRATAGATE_LLM_MODEL = ""
    settings.STRATAGATE_LLM_API_KEY = ""
    settings.STRATAGATE_BLOCK_TURNS = 6
    settings.STRATAGATE_BLOCK_LAMBDA = 0.30
    # PBKDF2 at its production cost takes ~0.35 s per hash here; a browser test hashes twice
    # (its user, its login). Nothing in the suite is about the hash's strength.
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@dataclass
class ApiClient:
    """Django's test client speaking JSON with a bearer token."""

    token: str
    client: Client

    def _headers(self) -> dict[str, str]:
        return {"HTTP_AUTHORIZATION": f"Bearer {self.token}"} if self.token else {}

    def get(self, path: str, **params: Any) -> Any:
        return self.client.get(f"/api/v1{path}", params, **self._headers())

    def post(self, path: str, body: Any = None, *, raw: str | None = None) -> Any:
        data = raw if raw is not None else (body if body is not None else {})
        return self.client.post(
            f"/api/v1{path}", data, content_type="application/json", **self._headers()
        )

    def put(self, path: str, body: Any) -> Any:
        return self.client.put(
            f"/api/v1{path}", body, content_type="application/json", **self._headers()
        )


def make_api(
    scope: str = "read-write",
    namespaces: tuple[str, ...] = ("proj",),
    *,
    installation: bool = False,
) -> ApiClient:
    _, raw = token_create(namespaces=list(namespaces), scope=scope, installation=installation)
    return ApiClient(token=raw, client=Client())


@pytest.fixture
def owner(db: None) -> ApiClient:
    """A read-write token bound to namespace `proj`."""
    return make_api("read-write")


@pytest.fixture
def admin(db: None) -> ApiClient:
    """An installation token bound to `proj`: admin there, and may change λ and block size."""
    return make_api("admin", installation=True)


@pytest.fixture
def namespace_admin(db: None) -> ApiClient:
    """An admin token of `proj` that is not an installation token."""
    return make_api("admin")


@pytest.fixture
def reader(db: None) -> ApiClient:
    return make_api("read")


@pytest.fixture
def stranger(db: None) -> ApiClient:
    """A valid token bound to another namespace."""
    return make_api("admin", namespaces=("elsewhere",))


def turn_body(
    n: int,
    *,
    session: str = "s1",
    user: str | None = None,
    assistant: str | None = None,
    when: datetime | None = None,
    receipt: str | None = None,
) -> dict[str, Any]:
    at = when or BASE_TIME + timedelta(minutes=n)
    return {
        "session_id": session,
        "receipt_id": receipt or f"{session}-r{n}",
        "occurred_at": at.isoformat(),
        "messages": [
            {"role": "user", "content": user or f"Question {n} about the storage layer?"},
            {"role": "assistant", "content": assistant or f"Answer {n}: we keep it simple."},
        ],
    }


@pytest.fixture
def drain(db: None) -> Callable[[], int]:
    """Run every queued job now (retries included, backoff skipped)."""
    return jobs_drain


@pytest.fixture
def post_turns(owner: ApiClient) -> Iterator[Callable[..., list[Any]]]:
    def post(count: int, *, start: int = 1, session: str = "s1") -> list[Any]:
        responses = []
        for n in range(start, start + count):
            response = owner.post("/ns/proj/turns", turn_body(n, session=session))
            assert response.status_code == 201, response.content
            responses.append(response.json())
        return responses

    yield post
