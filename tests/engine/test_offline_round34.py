"""Issue 29's thirty-fourth round (2026-12-07, a third new tuning set
`memory_quality_dev8.json`, changes said across sessions): "Standup is now at 10", "The launch
slipped to June 3", 站会改到十点了 and 瑜伽课改到周四了 moved nothing (站会九点半开始 was not even
stored, 我每周三晚上上瑜伽课 was a plan); "Ana took over the mobile team from Ben" left Ben
leading it; "I quit Spotify, I'm freelancing now" and 我辞职了 stored no change or ended no job;
"I switched my running app to Strava", 我平时用印象笔记记东西 and 笔记我换成Notion了 gave the
speaker no tool; "Standup moved to 10" made a person live in a place called 10, and 我们搬到了
新办公室 made an office a home."""

from __future__ import annotations

from datetime import datetime
from zoneinfo import ZoneInfo

import pytest

from memory.engine.offline_events import SourceMessage, extract_events
from memory.engine.reschedule import moved_thing
from memory.engine.stated_facts import ANY, Fact, ended_facts, replaces, stated_facts
from tests.engine.test_offline_round5_events import stored_events
from tests.engine.test_offline_round6 import _edges

EVENING = datetime(2026, 6, 8, 20, 0, tzinfo=ZoneInfo("Asia/Shanghai"))  # a Monday


@pytest.mark.parametrize(
    ("content", "what"),
    [
        ("Standup is now at 10.", "Standup"),
        ("The launch slipped to June 3.", "launch"),
        ("站会改到十点了。", "站会"),
        ("The team is now at capacity.", None),
        ("We are now at 10 engineers.", None),
    ],
)
def test_a_time_said_as_now_or_slipping_moves_the_thing(content: str, what: str | None) -> None:
    assert moved_thing(content) == what
    if what is not None:
        assert stored_events(content) == [("change", "occurred")]


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        ("站会九点半开始。", [("other", "ongoing")]),
        ("我每周三晚上上瑜伽课。", [("other", "ongoing")]),
        ("I do yoga every Wednesday evening.", [("other", "ongoing")]),
        ("I'll start going to the gym every Monday.", [("plan", "planned")]),
        ("我下周三要去上瑜伽课。", [("plan", "planned")]),
    ],
)
def test_a_habit_or_a_standing_time_is_no_plan(
    content: str, expected: list[tuple[str, str]]
) -> None:
    out = extract_events([SourceMessage(1, "user", content, EVENING, speaker="Sam")])
    assert [(e.event_type, e.temporal_status) for e in out.events] == expected


@pytest.mark.parametrize(
    ("content", "ended"),
    [
        ("I quit Spotify, I'm freelancing now.", Fact("kira", "works_at", "spotify")),
        ("I quit my job.", Fact("kira", "works_at", ANY)),
        ("我辞职了，现在在家带娃。", Fact("kira", "works_at", ANY)),
        ("我从京东离职了。", Fact("kira", "works_at", "京东")),
    ],
)
def test_leaving_a_job_ends_where_one_works(content: str, ended: Fact) -> None:
    assert ended in ended_facts(content, "Kira")


def test_quitting_a_named_employer_is_a_change() -> None:
    assert stored_events("I quit Spotify, I'm freelancing now.") == [("change", "occurred")]


def test_taking_over_from_someone_ends_their_lead() -> None:
    old, new = "Ben leads the mobile team.", "Ana took over the mobile team from Ben."
    assert replaces(stated_facts(new, "Dev"), stated_facts(old, "Dev"), new)


@pytest.mark.parametrize(
    ("content", "edges"),
    [
        ("I switched my running app to Strava.", {("person:sam", "uses", "tool:strava")}),
        ("I switched my bank to Monzo.", {("person:sam", "uses", "tool:monzo")}),
        ("I moved my stuff to Berlin.", set()),
        ("我平时用印象笔记记东西。", {("person:sam", "uses", "tool:印象笔记")}),
        ("笔记我换成Notion了。", {("person:sam", "uses", "tool:notion")}),
        ("记账我换成了鲨鱼记账。", {("person:sam", "uses", "tool:鲨鱼记账")}),
        ("我用手机拍照。", set()),
        ("我用电脑写代码。", set()),
        ("Standup moved to 10.", set()),
        ("我们搬到了新办公室，在望京。", set()),
        ("We moved to the new office.", set()),
    ],
)
def test_a_persons_tool_and_what_is_no_home(content: str, edges: set[tuple[str, str, str]]) -> None:
    assert _edges(content) == edges
