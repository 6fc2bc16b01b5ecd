"""Issue 29's twenty-fourth round (2026-12-07): changes said across two sessions. "The launch has
been pushed to May 17" superseded nothing and was dated May 17 of the year before; "周会改到周三
下午了" was last Wednesday; "我们已经迁到PostgreSQL了" stored nothing; "数据组现在归王芳管" did not
end "数据组由吴刚负责"; "我们的CI用Jenkins" made CI a service."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from memory.engine.changes import Change, parse_change
from memory.engine.offline_entities import Entity, Relation
from memory.engine.offline_relations import relations
from memory.engine.reschedule import habit_moved, moved_thing, names_moved, timed
from memory.engine.stated_facts import Fact, replaces, role_holders, stated_facts
from memory.engine.temporal import resolve_temporal
from tests.engine.test_offline_round5_events import stored_events
from tests.engine.test_offline_round6 import _edges

MARCH_13 = datetime(2026, 3, 13, 10, tzinfo=UTC)  # a Friday


@pytest.mark.parametrize(
    ("content", "moved"),
    [
        ("The launch has been pushed to May 17.", "launch"),
        ("Standup moved to 10 starting next week.", "Standup"),
        ("Our weekly sync was rescheduled to Thursday.", "weekly sync"),
        ("The demo got bumped back to next Friday.", "demo"),
        ("周会改到周三下午了。", "周会"),
        ("发布会推迟到下个月。", "发布会"),
        ("We moved to Berlin.", None),
        ("I moved to the data team.", None),
        ("It was moved to Friday.", None),
    ],
)
def test_what_a_statement_moves_to_another_time(content: str, moved: str | None) -> None:
    assert moved_thing(content) == moved


def test_an_earlier_plan_is_about_what_moved_when_it_names_all_of_it() -> None:
    assert names_moved("launch", "The launch is planned for May 3.")
    assert names_moved("weekly sync", "Our weekly sync is on Tuesdays at 4.")
    assert not names_moved("sprint review", "Sprint planning is scheduled for Monday at 10.")
    assert names_moved("周会", "周会在周一上午")
    assert timed("Our standup is at 9:30.") and timed("周会在周一上午")
    assert not timed("The launch party is booked at the Hilton.")


@pytest.mark.parametrize(
    ("content", "day"),
    [
        ("The launch has been pushed to May 17.", datetime(2026, 5, 17, tzinfo=UTC)),
        ("周会改到周三下午了。", datetime(2026, 3, 18, tzinfo=UTC)),
        ("The review was postponed to Monday.", datetime(2026, 3, 16, tzinfo=UTC)),
    ],
)
def test_a_date_something_is_moved_to_lies_ahead(content: str, day: datetime) -> None:
    resolved = resolve_temporal(content, mentioned_at=MARCH_13, default_status="occurred")
    assert resolved.happened_start is not None
    assert resolved.happened_start.date() == day.date()


@pytest.mark.parametrize(
    ("content", "change", "events"),
    [
        (
            "我们已经迁到PostgreSQL了。",
            Change("switch", None, None, "PostgreSQL", "host"),
            [("migration", "occurred")],
        ),
        (
            "CI已经全部切到GitHub Actions了。",
            Change("switch", "CI", None, "GitHub Actions", "use"),
            [("change", "occurred")],
        ),
        ("我们已经迁到新办公室了。", None, [("migration", "occurred")]),
    ],
)
def test_a_move_to_a_named_tool_in_chinese(
    content: str, change: Change | None, events: list[tuple[str, str]]
) -> None:
    assert parse_change(content) == change
    assert stored_events(content) == events


def test_a_team_someone_is_in_charge_of_is_led_but_a_centre_may_be_a_service() -> None:
    assert relations("数据组现在归王芳管。") == [
        Relation(Entity("王芳", "person"), "leads", Entity("数据组", "organization"))
    ]
    assert relations("用户中心暂时交给孙强。")[0].relation == "owns"


def test_the_teams_function_is_no_service_in_chinese_either() -> None:
    assert _edges("我们的CI用Jenkins。") == {("project:project", "uses", "tool:jenkins")}


@pytest.mark.parametrize(
    ("content", "facts"),
    [
        ("My manager is Laura.", {Fact("alex", "holder:manager", "laura")}),
        ("Laura left, my new manager is Pedro.", {Fact("alex", "holder:manager", "pedro")}),
        ("Omar is our designer now.", {Fact("", "holder:designer", "omar")}),
        ("Our CTO is Mei.", {Fact("", "holder:cto", "mei")}),
        ("我的主管是李明。", {Fact("alex", "holder:主管", "李明")}),
        ("李明走了，现在我的主管是张华。", {Fact("alex", "holder:主管", "张华")}),
        ("My favourite editor is Neovim.", set()),  # a liking, and a tool
        ("My name is Alex.", set()),
        ("My plan is Tuesday.", set()),
    ],
)
def test_who_holds_a_role_of_the_speakers_or_the_teams(content: str, facts: set[Fact]) -> None:
    assert role_holders(content, "Alex") == facts


def test_a_new_holder_of_the_same_role_replaces_the_old_one_and_not_anothers() -> None:
    old = stated_facts("My manager is Laura.", "Alex")
    assert replaces(stated_facts("Laura left, my new manager is Pedro.", "Alex"), old, "")
    assert not replaces(stated_facts("Our manager is Pedro.", "Alex"), old, "")
    assert not replaces(stated_facts("My mentor is Pedro.", "Alex"), old, "")


@pytest.mark.parametrize(
    ("new", "old", "moved"),
    [
        ("From now on we deploy on Thursdays.", "We deploy every Tuesday.", True),
        ("以后改成每周四发版了。", "我们每周二发版。", True),
        ("From now on we deploy on Thursdays.", "We run retros every Tuesday.", False),
        ("We now deploy on Thursdays.", "I go swimming every Tuesday.", False),
        ("We deploy on Thursdays.", "We deploy every Tuesday.", False),  # no "from now on"
        ("From now on we deploy on Thursdays.", "We deployed on Tuesday.", False),  # no habit
    ],
)
def test_a_habit_moved_to_another_day(new: str, old: str, moved: bool) -> None:
    assert habit_moved(new, old) is moved
