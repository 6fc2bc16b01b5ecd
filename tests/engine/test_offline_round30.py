"""Issue 29's thirtieth round (2026-12-07): people joining and moving. "Two new engineers, Ana and
Luis, joined the payments team" made only Luis a member; "The data team hired a new analyst,
Bo" no one; "Hannah is now part of the platform team" was no change; "Ahmed has moved into a
product role" stored nothing."""

from __future__ import annotations

import pytest

from tests.engine.test_offline_round5_events import stored_events
from tests.engine.test_offline_round6 import _edges


@pytest.mark.parametrize(
    ("content", "events", "edges"),
    [
        (
            "Two new engineers, Ana and Luis, joined the payments team.",
            [("change", "occurred")],
            {
                ("person:ana", "member_of", "organization:paymentsteam"),
                ("person:luis", "member_of", "organization:paymentsteam"),
            },
        ),
        (
            "The data team hired a new analyst, Bo.",
            [("change", "occurred")],
            {("person:bo", "member_of", "organization:datateam")},
        ),
        (
            "Hannah is now part of the platform team.",
            [("change", "occurred")],
            {("person:hannah", "member_of", "organization:platformteam")},
        ),
        ("Ahmed has moved into a product role.", [("change", "occurred")], set()),
        ("We hired a new backend engineer, Tariq.", [("change", "occurred")], set()),
    ],
)
def test_people_joining_and_moving(
    content: str, events: list[tuple[str, str]], edges: set[tuple[str, str, str]]
) -> None:
    assert stored_events(content) == events
    assert _edges(content) == edges


@pytest.mark.parametrize(
    ("content", "events", "edges"),
    [
        (
            "新来的后端小周在支付组。",
            [("other", "ongoing")],
            {("person:小周", "member_of", "organization:支付组")},
        ),
        ("我们组招了一个前端叫小雨。", [("change", "occurred")], set()),
        (
            "李娜从上个月开始负责风控。",
            [("other", "ongoing")],
            {("person:李娜", "owns", "project:风控")},
        ),
        ("我招了一个人。", [], set()),
    ],
)
def test_newcomers_and_since_when_in_chinese(
    content: str, events: list[tuple[str, str]], edges: set[tuple[str, str, str]]
) -> None:
    assert stored_events(content) == events
    assert _edges(content) == edges
