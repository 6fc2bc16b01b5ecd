"""Offline rules of issue 29's nineteenth round (2026-12-07): 21 deadlines said as tasks (EN and
ZH). A quarter was no time at all ("due at the end of the quarter", "before Q3", 季度末之前),
nor 本周内 with 必须 or 两周内; and "I've got a dentist appointment Tuesday at 3" was last
Tuesday ("got" read as the past)."""

from __future__ import annotations

from datetime import UTC, date, datetime

import pytest

from memory.engine.temporal import resolve_temporal
from tests.engine.test_offline_round5_events import stored_events

SAID = datetime(2026, 6, 1, 10, tzinfo=UTC)  # a Monday in the second quarter


def _days(text: str) -> tuple[date | None, date | None, str]:
    found = resolve_temporal(text, mentioned_at=SAID, default_status="unknown")
    start = found.happened_start.date() if found.happened_start else None
    end = found.happened_end.date() if found.happened_end else None
    return start, end, found.status


@pytest.mark.parametrize(
    ("text", "first", "last"),
    [
        ("the end of the quarter", date(2026, 6, 1), date(2026, 6, 30)),
        ("next quarter", date(2026, 7, 1), date(2026, 9, 30)),
        ("in Q1 2027", date(2027, 1, 1), date(2027, 3, 31)),
        ("in Q3", date(2026, 7, 1), date(2026, 9, 30)),
        ("本季度末", date(2026, 6, 1), date(2026, 6, 30)),
        ("两周内", date(2026, 6, 1), date(2026, 6, 15)),
    ],
)
def test_a_quarter_and_a_stretch_ahead_are_times(text: str, first: date, last: date) -> None:
    assert _days(text)[:2] == (first, last)


@pytest.mark.parametrize("text", ["a quarter of our users", "quarter past three", "一年四季中"])
def test_a_quarter_that_is_no_time(text: str) -> None:
    assert _days(text) == (None, None, "unknown")


def test_a_past_quarter_is_the_last_one_of_that_number() -> None:
    assert _days("Revenue doubled in Q3.")[:2] == (date(2025, 7, 1), date(2025, 9, 30))


def test_a_quarters_figures_name_no_time() -> None:
    assert _days("Our Q3 numbers were great.") == (None, None, "unknown")
    assert stored_events("Our Q3 numbers were great.") == []


@pytest.mark.parametrize(
    "content",
    [
        "The vendor assessment is due at the end of the quarter.",
        "The audit needs to wrap up before Q3.",
        "本周内必须修复这个线上bug。",
        "季度末之前要完成供应商评估。",
    ],
)
def test_a_deadline_said_with_a_quarter_or_must_is_a_plan(content: str) -> None:
    assert stored_events(content) == [("plan", "planned")]


def test_having_an_appointment_is_ahead() -> None:
    assert _days("I've got a dentist appointment Tuesday at 3.")[:2] == (
        date(2026, 6, 2),
        date(2026, 6, 2),
    )
    said = "I've got a dentist appointment Tuesday at 3."
    assert stored_events(said, SAID) == [("plan", "planned")]


def test_an_appointment_one_has_got_is_the_next_one_of_that_day() -> None:
    said_on_wednesday = datetime(2026, 6, 3, 10, tzinfo=UTC)
    said = "I've got a dentist appointment Tuesday at 3."
    assert stored_events(said, said_on_wednesday) == [("plan", "planned")]
