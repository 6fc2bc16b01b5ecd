"""Offline rules of issue 29's ninth round (2026-12-07): people said with an aside or in pairs,
and 30 Chinese statements of teams, stacks and changes. Wrong before: 我们不再使用Jira，改用飞书项目
chose Jira and made a project "改用飞书"; 订单服务不跑在阿里云上了，迁到了腾讯云 chose 阿里云;
我在一家创业公司做产品经理 named "一家创业公司" an employer; "Weights & Biases" was "Weights".
Missed before: "Ravi from the QA team owns …", "My colleague Sam maintains …", "Maria, who runs
the data team, …", "Emma and Liam both work at Spotify", 小张和小李都在测试组, "她" after the
person a clause opened with, a team moved to after a negated clause
(老李不在运维组了，调到了安全组), a new employer said without a subject
(我已经不在阿里工作了，现在在字节), 我们的网站部署在Vercel上; and "Alex never use Emacs" as a
title. A tenth probe, 40 plain facts, found "Most of our users …", "I'm originally from …", a
habit ("I go running three times a week"), an interval (我们两周发一次版), a duration
(构建大概要十分钟), a count of animals (我养了两只猫) and languages spoken, and a schedule said in
the present ("The contract ends in March", said in June) read as the March past."""

from __future__ import annotations

import pytest

from memory.engine.changes import Change, parse_change, stated_uses
from memory.engine.offline_events import SourceMessage, extract_events
from memory.engine.offline_relations import relations
from memory.engine.person_facts import person_relations
from memory.engine.plain_clauses import one_subject_each
from memory.engine.slots import project_name, slot_choices
from tests.engine.test_offline_round5_events import stored_events
from tests.engine.test_offline_round6 import _edges
from tests.engine.test_offline_round7 import SAID_AT, _titles


def _said(content: str) -> set[tuple[str, str, str]]:
    return {(r.subject.name, r.relation, r.object.name) for r in relations(content)}


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        (
            "Ravi from the QA team owns the checkout service.",
            {("Ravi", "member_of", "QA team"), ("Ravi", "owns", "checkout service")},
        ),
        (
            "My colleague Sam maintains the billing service.",
            {("Sam", "maintains", "billing service")},
        ),
        (
            "Maria, who runs the data team, is moving to Berlin.",
            {("Maria", "leads", "data team")},
        ),
        (
            "Emma and Liam maintain the billing service.",
            {("Emma", "maintains", "billing service"), ("Liam", "maintains", "billing service")},
        ),
        (
            "Emma and Liam are on the growth team.",
            {("Emma", "member_of", "growth team"), ("Liam", "member_of", "growth team")},
        ),
        ("陈晨负责前端，她在前端组。", {("陈晨", "owns", "前端"), ("陈晨", "member_of", "前端组")}),
        (
            "小张和小李都在测试组。",
            {("小张", "member_of", "测试组"), ("小李", "member_of", "测试组")},
        ),
        ("老李不在运维组了，调到了安全组。", {("老李", "member_of", "安全组")}),
        ("张伟不负责支付了，现在负责风控服务。", {("张伟", "owns", "风控服务")}),
    ],
)
def test_who_an_aside_a_pair_or_a_pronoun_names(
    content: str, expected: set[tuple[str, str, str]]
) -> None:
    assert _said(content) == expected


def test_a_pair_of_people_is_one_sentence_each() -> None:
    assert one_subject_each("Emma and Liam both work at Spotify.") == [
        "Emma works at Spotify.",
        "Liam works at Spotify.",
    ]
    assert one_subject_each("React and Vue are both popular.") == [
        "React and Vue are both popular."
    ]
    assert person_relations("Emma and Liam both work at Spotify.", "Alex") == [
        ("Emma", "works_at", "Spotify"),
        ("Liam", "works_at", "Spotify"),
    ]
    assert stored_events("Emma and Liam both work at Spotify.") == [("other", "ongoing")]


def test_an_employer_said_after_the_old_one_without_a_subject() -> None:
    assert person_relations("我已经不在阿里工作了，现在在字节。", "Alex") == [
        ("Alex", "works_at", "字节")
    ]


def test_an_unnamed_employer_is_no_employer_but_the_job_is_kept() -> None:
    assert person_relations("我在一家创业公司做产品经理。", "Alex") == []
    assert relations("我在一家创业公司做产品经理。") == []
    assert stored_events("我在一家外企做财务。") == [("other", "ongoing")]


def test_a_value_no_longer_used_in_chinese_is_never_chosen() -> None:
    assert slot_choices("我们不再使用Jira，改用飞书项目。") == [slot_choices("飞书")[0]]
    assert project_name("我们不再使用Jira，改用飞书项目。") is None
    assert parse_change("订单服务不跑在阿里云上了，迁到了腾讯云。") == Change(
        "stop", "订单服务", "阿里云", "腾讯云", "host"
    )
    assert [c.value for c in slot_choices("订单服务不跑在阿里云上了，迁到了腾讯云。")] == ["腾讯云"]


@pytest.mark.parametrize(
    ("content", "name"),
    [("我们在做一个电商项目。", "电商"), ("天网项目用Go。", "天网"), ("Atlas项目用Go。", "Atlas")],
)
def test_a_chinese_project_name_is_the_name_not_the_clause(content: str, name: str) -> None:
    assert project_name(content) == name


def test_a_name_joined_with_an_ampersand_is_whole() -> None:
    (use,) = stated_uses("实验管理不再用MLflow了，上周全部迁到了Weights & Biases。")
    assert use.value == "Weights & Biases"


@pytest.mark.parametrize(
    ("content", "edge"),
    [
        ("我们的网站部署在Vercel上。", ("project:网站", "runs_on", "tool:vercel")),
        ("官网跑在阿里云上。", ("project:官网", "runs_on", "tool:阿里云")),
    ],
)
def test_a_chinese_thing_on_a_platform_runs_there(content: str, edge: tuple[str, str, str]) -> None:
    assert edge in _edges(content)


def test_an_activity_moved_to_a_tool_is_still_no_service() -> None:
    assert not any(relation == "runs_on" for _, relation, _ in _edges("记笔记现在改用Notion了。"))


@pytest.mark.parametrize(
    ("content", "title"),
    [
        ("I never use Emacs.", "Alex never uses Emacs"),
        ("I usually take the train to work.", "Alex usually takes the train to work"),
        ("I usually go to the gym at 7.", "Alex usually goes to the gym at 7"),
        ("I never liked Vim.", "Alex never liked Vim"),
    ],
)
def test_a_verb_after_a_frequency_word_agrees_with_the_speaker(content: str, title: str) -> None:
    assert _titles(content) == [title]


@pytest.mark.parametrize(
    "content",
    [
        "Most of our users are on Android.",
        "I'm originally from Chile.",
        "I go running three times a week.",
        "I start work at 8.",
        "I walk the dog every morning.",
        "我们两周发一次版。",
        "构建大概要十分钟。",
        "我养了两只猫。",
        "我会说英语和日语。",
    ],
)
def test_a_fact_probe_s_plain_facts_are_kept(content: str) -> None:
    assert stored_events(content) == [("other", "ongoing")]


@pytest.mark.parametrize(
    "content",
    [
        "I go to bed late.",
        "We go way back.",
        "Most of the time it works.",
        "我大概要走了。",
        "这事大概要三天吧？",
        "这条路很长。",
    ],
)
def test_their_chatter_is_not(content: str) -> None:
    assert stored_events(content) == []


@pytest.mark.parametrize(
    ("content", "first_day", "last_day"),
    [
        ("The contract ends in March.", "2027-03-01", "2027-03-31"),
        ("The course starts on Monday.", "2026-06-08", "2026-06-08"),
    ],
)
def test_a_schedule_said_in_the_present_lies_ahead(
    content: str, first_day: str, last_day: str
) -> None:
    out = extract_events([SourceMessage(1, "user", content, SAID_AT, speaker="Sam")])
    (event,) = out.events
    assert event.temporal_status == "planned"
    assert event.happened_start is not None and event.happened_end is not None
    assert (event.happened_start.date().isoformat(), event.happened_end.date().isoformat()) == (
        first_day,
        last_day,
    )


def test_a_schedule_said_in_the_past_stays_past() -> None:
    out = extract_events([SourceMessage(1, "user", "The contract ended in March.", SAID_AT)])
    (event,) = out.events
    assert event.temporal_status == "occurred"
    assert event.happened_start is not None
    assert event.happened_start.date().isoformat() == "2026-03-01"


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        ("We must ship the fix before the holidays.", [("plan", "planned")]),
        ("I have to finish the slides before Thursday's meeting.", [("plan", "planned")]),
        ("I must admit I was wrong before.", []),
        ("I have to say I have seen it before.", []),
        ("We must finish before we leave.", []),
    ],
)
def test_work_that_must_come_before_a_time_is_a_plan(
    content: str, expected: list[tuple[str, str]]
) -> None:
    assert stored_events(content) == expected
