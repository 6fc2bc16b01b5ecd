"""Issue 29's twenty-seventh round (2026-12-07): preferences in other words. "I'd rather we use
Postgres than Mongo" named no preferred tool; "I'm more of a cat person" stored nothing."""

from __future__ import annotations

import pytest

from memory.engine.offline_phrases import Preference, preferences
from tests.engine.test_offline_round5_events import stored_events
from tests.engine.test_offline_round6 import _edges


@pytest.mark.parametrize(
    ("content", "edges"),
    [
        ("I'd rather we use Postgres than Mongo.", {("person:sam", "prefers", "tool:postgresql")}),
        ("I'd rather use Go.", {("person:sam", "prefers", "tool:go")}),
    ],
)
def test_what_the_speaker_would_rather_the_team_used(
    content: str, edges: set[tuple[str, str, str]]
) -> None:
    assert stored_events(content) == [("other", "ongoing")]
    assert _edges(content) == edges


@pytest.mark.parametrize(
    ("content", "topic"),
    [("I'm more of a cat person.", "cat"), ("I'm a morning person.", "morning")],
)
def test_the_kind_of_person_the_speaker_is_is_a_liking(content: str, topic: str) -> None:
    assert preferences(content) == [Preference("likes", topic, f"is a {topic} person")]
    assert stored_events(content) == [("other", "ongoing")]
    assert _edges(content) == set()
