"""Offline rules of issue 29's sixteenth round (2026-12-07): 15 negations said with what holds
instead (EN and ZH). "I don't use Windows at all, I'm on a Mac" gave the speaker a use of
Windows (round 11's rewrite read "at all" as a place put right); "We don't use MongoDB; our data
lives in Postgres" and 我们没用MongoDB，数据都在PostgreSQL里 named no database; "Tom doesn't work
on the mobile app, he maintains the web app" stored nothing (the "he" had no one to refer to);
我们没用MongoDB alone was no negative fact."""

from __future__ import annotations

import pytest

from memory.engine.changes import Use, stated_uses
from memory.engine.plain_clauses import corrected
from tests.engine.test_offline_round5_events import stored_events
from tests.engine.test_offline_round6 import _edges


def test_a_place_said_another_way_puts_nothing_right() -> None:
    said = "I don't use Windows at all, I'm on a Mac."
    assert corrected(said) is None
    assert _edges(said) == set()


@pytest.mark.parametrize(
    ("content", "edge"),
    [
        (
            "We don't use MongoDB; our data lives in Postgres.",
            ("project:project", "uses", "tool:postgresql"),
        ),
        ("我们没用MongoDB，数据都在PostgreSQL里。", ("project:project", "uses", "tool:postgresql")),
        ("设计稿都在Figma里。", ("project:project", "uses", "tool:figma")),
        (
            "Tom doesn't work on the mobile app, he maintains the web app.",
            ("person:tom", "maintains", "project:webapp"),
        ),
    ],
)
def test_what_holds_beside_a_negation(content: str, edge: tuple[str, str, str]) -> None:
    assert stored_events(content) == [("other", "ongoing")]
    assert _edges(content) == {edge}


def test_a_tool_not_used_is_a_negative_fact() -> None:
    assert stored_events("我们没用MongoDB。") == [("other", "ongoing")]
    assert stated_uses("我们没用MongoDB。") == []


@pytest.mark.parametrize(
    "content", ["我在Google上班。", "小王在GitHub上提了个PR。", "他在Apple Store里。"]
)
def test_being_somewhere_named_is_no_use(content: str) -> None:
    assert stated_uses(content) == []


def test_a_things_data_keeps_its_name() -> None:
    assert stated_uses("订单数据存在MySQL里。") == [Use("订单数据", "MySQL", "use")]
