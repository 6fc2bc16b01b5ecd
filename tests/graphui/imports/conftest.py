"""Fixtures of the import pages' tests: a logged-in user, a namespace, a coffee event."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from django.test import Client

from memory.models import Event, Namespace
from memory.services.ingest import MessageIn, TurnIn, turn_ingest
from memory.services.jobs import jobs_drain
from memory.services.namespaces import namespace_get_or_create


@pytest.fixture
def ada(client: Client, django_user_model: Any) -> Client:
    client.force_login(django_user_model.objects.create_user("ada", is_staff=True))
    return client


@pytest.fixture
def proj(settings: Any) -> Namespace:
    settings.STRATAGATE_BLOCK_TURNS = 1  # each statement its own block, so events come at once
    return namespace_get_or_create(name="proj")


@pytest.fixture
def say(proj: Namespace) -> Callable[[str], None]:
    counter = {"n": 0}

    def post(text: str) -> None:
        counter["n"] += 1
        turn_ingest(
            namespace=proj,
            turn=TurnIn(
                session_id="s1",
                receipt_id=f"r{counter['n']}",
                messages=[
                    MessageIn(role="user", content=text),
                    MessageIn(role="assistant", content="Noted."),
                ],
            ),
        )
        jobs_drain()

    return post


@pytest.fixture
def coffee(say: Callable[[str], None]) -> Event:
    say("I prefer coffee in the morning.")
    return Event.objects.get()
