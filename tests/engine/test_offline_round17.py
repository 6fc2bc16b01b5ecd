"""Offline rules of issue 29's seventeenth round (2026-12-07): the supersessions the tuning sets
still missed, read as the kinds of statement they are. A job change that names no new employer
(我跳槽到了一家互联网公司) ended no employer; "I left Globex, I'm at Initech now" and "Leo
switched jobs, he's at Accenture now" named none; 家里的宽带是电信的 stored nothing, so
宽带从电信换成了联通 had nothing to end; 记笔记现在改用Notion了，不用印象笔记了 did not say
which tool it dropped, and a person's own note-taking was no function with one tool."""

from __future__ import annotations

import pytest

from memory.engine.change_ends import change_supersedes
from memory.engine.changes import Change, Use, parse_change, stated_uses
from memory.engine.person_facts import person_relations
from memory.engine.stated_facts import UNNAMED_EMPLOYER, Fact, replaces, stated_facts
from tests.engine.test_offline_round5_events import stored_events


@pytest.mark.parametrize(
    "content",
    ["我跳槽到了一家互联网公司。", "I've just changed jobs.", "I quit my job last week."],
)
def test_a_job_change_ends_the_employer_before_though_the_new_one_goes_unnamed(
    content: str,
) -> None:
    new = stated_facts(content, "Alex")
    assert Fact("alex", "works_at", UNNAMED_EMPLOYER) in new
    assert replaces(new, stated_facts("I work at Tencent.", "Alex"), content)


def test_a_named_new_employer_needs_no_stand_in() -> None:
    facts = stated_facts("我跳槽去了阿里。", "Alex")
    assert all(f.value != UNNAMED_EMPLOYER for f in facts)


@pytest.mark.parametrize(
    ("content", "whose", "employer"),
    [
        ("I left Globex, I'm at Initech now.", "Alex", "Initech"),
        ("Leo switched jobs, he's at Accenture now.", "Leo", "Accenture"),
    ],
)
def test_where_someone_is_after_a_job_change(content: str, whose: str, employer: str) -> None:
    assert person_relations(content, "Alex") == [(whose, "works_at", employer)]
    assert stored_events(content) == [("change", "occurred")]


def test_who_provides_a_line() -> None:
    assert stored_events("家里的宽带是电信的。") == [("other", "ongoing")]
    assert stated_uses("家里的宽带是电信的。") == [Use("家里的宽带", "电信", "use")]
    change = parse_change("宽带从电信换成了联通。")
    assert change is not None
    assert change_supersedes(change, ["家里的宽带是电信的。"])


def test_a_dropped_tool_said_after_the_new_one() -> None:
    said = "记笔记现在改用Notion了，不用印象笔记了。"
    assert parse_change(said) == Change("now", "记笔记", "印象笔记", "Notion", "use")
    change = parse_change(said)
    assert change is not None
    assert change_supersedes(change, ["我一直用的印象笔记记东西。"])


def test_a_persons_note_taking_has_one_tool_at_a_time() -> None:
    change = parse_change("笔记我现在全改用Obsidian了，Notion越来越卡")
    assert change is not None
    assert change_supersedes(change, ["记笔记我一般用Notion，Obsidian试过，用不惯。"])
    assert not change_supersedes(change, ["我们用Jira管需求。"])
