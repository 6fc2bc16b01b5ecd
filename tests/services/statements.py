"""One statement per session, through the API: the helpers of the supersession and
contradiction tests (issue 29)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta

from memory.models import Event
from tests.conftest import BASE_TIME, ApiClient, turn_body

BLOCK_TURNS = 6  # a block is sealed after six turns
SMALL_TALK = ("Thanks for the help!", "You're welcome.")


def statement_session(
    owner: ApiClient,
    drain: Callable[[], object],
    session: str,
    statement: str,
    *,
    start: int,
    day: int,
) -> None:
    """One session of namespace `proj`: the statement, then small talk until its block seals;
    the job queue drained."""
    when = BASE_TIME + timedelta(days=day)
    turns = [(statement, "Noted."), *[SMALL_TALK] * (BLOCK_TURNS - 1)]
    for i, (user, assistant) in enumerate(turns):
        body = turn_body(
            start + i, session=session, user=user, assistant=assistant,
            when=when + timedelta(minutes=i),
        )  # fmt: skip
        assert owner.post("/ns/proj/turns", body).status_code == 201
    drain()


def event_quoting(text: str) -> Event:
    """The first event whose summary holds `text`."""
    return next(e for e in Event.objects.order_by("pk") if text in e.summary)
