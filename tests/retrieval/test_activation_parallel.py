"""Activated memory built with a pool (the model proxy spreads the message ranking and the graph
over threads) is the memory built without one, card for card."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from memory.services.activation import activation_build
from memory.services.namespaces import namespace_get_or_create
from proxy.threads import parts
from tests.conftest import ApiClient
from tests.retrieval.conftest import PROJECT_TURNS, say
from tests.threads import threads_stop

pytestmark = pytest.mark.django_db(transaction=True)  # the pool's threads read committed rows

TALK = (
    *PROJECT_TURNS,
    "Priya owns the billing service; it runs on PostgreSQL 16 in Frankfurt.",
    "We decided to release the mobile app on 12 June.",
    "Carol is on call from Monday; escalate to Dan after 30 minutes.",
)
QUESTIONS = (
    "which package manager do we use?",
    "who owns billing and where does it run",
    "when is the mobile release",
    "who is on call",
    "prototype plan",
    "nothing matches this at all zzqx",
)


def test_the_pool_changes_nothing_but_the_time(
    owner: ApiClient, drain: Callable[[], int], one_turn_blocks: None
) -> None:
    for n, text in enumerate(TALK, start=1):
        say(owner, n, text, session="s1" if n % 2 else "s2")
    drain()
    namespace = namespace_get_or_create(name="proj")
    session = namespace.sessions.get(external_id="s2")
    try:
        for question in QUESTIONS:
            for who in (None, session):
                alone = activation_build(
                    namespace=namespace, session=who, query=question, record=False
                )
                spread = activation_build(
                    namespace=namespace, session=who, query=question, record=False, pool=parts()
                )
                assert spread.as_dict() == alone.as_dict(), question
        assert any(
            activation_build(namespace=namespace, session=None, query=q, record=False).text
            for q in QUESTIONS
        )
    finally:
        threads_stop()
