"""One event per fact and supersession by relation facts (issue 29), through the API with the
offline processor: a fact restated in other words or as the outcome of an earlier change is a
mention, whatever the event types; a new owner, home or host supersedes the old statement."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from memory.models import Event, EventStatus
from tests.conftest import ApiClient
from tests.services.statements import BLOCK_TURNS, statement_session

pytestmark = pytest.mark.django_db


def _two_sessions(owner: ApiClient, drain: Callable[[], int], first: str, second: str) -> None:
    statement_session(owner, drain, "s1", first, start=1, day=0)
    statement_session(owner, drain, "s2", second, start=1 + BLOCK_TURNS, day=7)


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("We migrated the orders service from Heroku to Fly.io.",
         "The orders service runs on Fly.io now."),
        ("我们把订单服务从阿里云迁移到腾讯云了。", "订单服务现在部署在腾讯云上。"),
        ("Dana maintains the invoice worker from now on.",
         "So yes, Dana is the maintainer of the invoice worker now."),
    ],
)  # fmt: skip
def test_a_fact_restated_in_other_words_is_a_mention_of_its_event(
    owner: ApiClient, drain: Callable[[], int], first: str, second: str
) -> None:
    _two_sessions(owner, drain, first, second)

    active = list(Event.objects.filter(status=EventStatus.ACTIVE))
    assert len(active) == 1, [e.summary for e in active]
    assert active[0].mention_count == 2
    assert first in active[0].summary


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("Marco maintains the invoice worker.", "Dana maintains the invoice worker from now on."),
        ("I live in Portland, by the way.", "We moved to Seattle last weekend!"),
        ("张伟是数据平台的负责人。", "张伟离开了数据组，数据平台现在由赵敏负责。"),
        ("Priya joined the platform team this week.",
         "Priya moved from the platform team to the data team."),
    ],
)  # fmt: skip
def test_a_new_value_of_a_single_valued_relation_supersedes_the_old_statement(
    owner: ApiClient, drain: Callable[[], int], first: str, second: str
) -> None:
    _two_sessions(owner, drain, first, second)

    old = next(e for e in Event.objects.all() if first in e.summary)
    new = next(e for e in Event.objects.all() if second in e.summary)
    assert (old.status, old.superseded_by_id) == (EventStatus.SUPERSEDED, new.pk)
    assert new.status == EventStatus.ACTIVE
    assert first in old.summary  # history kept, content untouched


def test_a_second_tool_or_a_planned_move_supersedes_nothing(
    owner: ApiClient, drain: Callable[[], int]
) -> None:
    statement_session(owner, drain, "s1", "Atlas uses Jenkins for CI.", start=1, day=0)
    statement_session(owner, drain, "s2", "Atlas uses Grafana for dashboards.", start=7, day=7)
    statement_session(owner, drain, "s3", "I live in Portland.", start=13, day=14)
    statement_session(owner, drain, "s4", "Next month I'm moving to Seattle.", start=19, day=21)

    assert not Event.objects.filter(status=EventStatus.SUPERSEDED).exists()


def test_a_new_owner_said_plainly_is_no_change_and_supersedes_nothing(
    owner: ApiClient, drain: Callable[[], int]
) -> None:
    """Only a change or a decision replaces a value; said plainly, the two answers stay (the
    contradiction rules of `services.contradictions` link them)."""
    _two_sessions(
        owner, drain, "Marco maintains the invoice worker.", "Dana maintains the invoice worker."
    )

    assert not Event.objects.filter(status=EventStatus.SUPERSEDED).exists()
