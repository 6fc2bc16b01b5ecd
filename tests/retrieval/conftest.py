"""Fixtures for the evidence loop: a small project conversation processed by the offline pipeline,
one block per turn, so events, graph and raw messages all exist before a test starts."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import pytest

from tests.conftest import ApiClient, turn_body

MAY_6 = datetime(2023, 5, 6, 10, 0, tzinfo=UTC)  # a Saturday
PROJECT_TURNS = (
    "Use npm for this project.",
    "Let's switch to pnpm.",
    "Finish the prototype next week.",
)


def say(owner: ApiClient, n: int, text: str, *, session: str = "s1", reply: str = "Noted.") -> Any:
    body = turn_body(n, session=session, user=text, assistant=reply, when=MAY_6.replace(minute=n))
    response = owner.post("/ns/proj/turns", body)
    assert response.status_code == 201, response.content
    return response.json()


@pytest.fixture
def one_turn_blocks(admin: ApiClient) -> None:
    assert admin.put("/settings", {"block_turns": 1}).status_code == 200


@pytest.fixture
def project(owner: ApiClient, drain: Callable[[], int], one_turn_blocks: None) -> ApiClient:
    """npm → pnpm → a plan, in session s1, fully processed (SPEC §6.5)."""
    for n, text in enumerate(PROJECT_TURNS, start=1):
        say(owner, n, text)
    drain()
    return owner


def events_by_title(owner: ApiClient) -> dict[str, dict[str, Any]]:
    events = owner.get("/ns/proj/events").json()["events"]
    return {e["title"]: e for e in events}


def the_events(owner: ApiClient) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
    """(npm, pnpm, plan) events of the project conversation."""
    events = owner.get("/ns/proj/events").json()["events"]
    npm = next(
        e for e in events if "npm" in e["title"].lower() and "pnpm" not in e["title"].lower()
    )
    pnpm = next(e for e in events if "pnpm" in e["title"].lower())
    plan = next(e for e in events if e["event_type"] == "plan")
    return npm, pnpm, plan
