"""Issue 29's twenty-second round (2026-12-07): a preference restated in other words in a later
session was a second event ("I prefer dark mode in every app" / "I like dark mode everywhere",
"I'm a big fan of Go" / "As I said, Go is my favourite for backends"), and "As I said, …" was
titled "Alex said, …"."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from memory.engine.event_identity import FactText, same_fact, same_liking, why_different
from memory.engine.offline_events import SourceMessage, extract_events

AT = datetime(2026, 3, 10, 9, tzinfo=UTC)


def liking(summary: str) -> FactText:
    return FactText(event_type="other", summary=f"Alex: {summary}", participants=("Alex",))


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("I prefer dark mode in every app.", "I like dark mode everywhere."),
        ("I'm a big fan of Go for backend work.", "As I said, Go is my favourite for backends."),
        ("I prefer Postgres.", "I really like Postgres."),
        ("I prefer async communication over meetings.", "I like async communication better."),
        ("我更喜欢用VS Code。", "我还是喜欢VS Code。"),
    ],
)
def test_a_liking_said_again_in_other_words_is_the_same_fact(a: str, b: str) -> None:
    assert same_liking(liking(b), liking(a))
    assert same_fact(liking(b), liking(a))


@pytest.mark.parametrize(
    ("a", "b", "reason"),
    [
        ("I prefer Postgres.", "I prefer MySQL.", "names_or_numbers"),
        ("I like dark mode.", "I dislike dark mode.", "negation"),
        ("I love Go.", "I hate Go.", "negation"),
        ("I like working late on Fridays.", "I like working late on Mondays.", "names_or_numbers"),
        ("I like dark mode.", "I like light mode.", "substitution"),
        ("I like coffee.", "I don't like coffee.", "negation"),
    ],
)
def test_another_liking_is_not_the_same_fact(a: str, b: str, reason: str) -> None:
    assert why_different(liking(b), liking(a)) == reason


def test_a_liking_needs_both_to_be_of_type_other() -> None:
    plan = FactText(event_type="plan", summary="Alex: I like dark mode.", participants=("Alex",))
    assert not same_liking(plan, liking("I like dark mode everywhere."))


@pytest.mark.parametrize(
    ("content", "title"),
    [
        ("As I said, Go is my favourite for backends.", "Go is Sam's favourite for backends"),
        (
            "Go is my favourite language for backends.",
            "Go is Sam's favourite language for backends",
        ),
        ("Like I said, I prefer tea.", "Sam prefers tea"),
    ],
)
def test_a_restatements_opener_is_not_its_subject(content: str, title: str) -> None:
    (event,) = extract_events([SourceMessage(1, "user", content, AT, speaker="Sam")]).events
    assert event.title == title
