"""Offline rules of issue 29's seventh round (2026-12-07). A probe of 42 everyday statements
(EN and ZH) about stacks, people, preferences and dates found: a title that dropped a person's
name (张伟是我们组的负责人 stored as "<speaker>是我们组的负责人") or read "my sister" as "their
sister"; "I'd rather …" said with a verb; a fact of a named person's ("Marco's birthday is …");
"everything we deploy goes through ArgoCD"; a second tool said with "with"; "she" after the
person a sentence opened with; a person introduced by name in Chinese (新来的实习生叫陈晨，
在前端组); and "is closed on Friday" read as the past. Each is a test here."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from memory.engine.changes import Use, stated_uses
from memory.engine.offline_entities import Entity, Relation
from memory.engine.offline_events import SourceMessage, extract_events
from memory.engine.offline_relations import relations
from memory.engine.temporal import sentence_tense
from tests.engine.test_offline_round5_events import stored_events

SAID_AT = datetime(2026, 6, 1, 10, tzinfo=UTC)  # a Monday


def _titles(content: str, speaker: str = "Alex") -> list[str]:
    out = extract_events([SourceMessage(1, "user", content, SAID_AT, speaker=speaker)])
    return [e.title for e in out.events]


@pytest.mark.parametrize(
    ("content", "title"),
    [
        ("张伟是我们组的负责人。", "张伟是我们组的负责人"),  # 我们 is "we": not the speaker
        ("My sister lives in Toronto.", "Alex's sister lives in Toronto"),
        (
            "I'd rather have meetings in the morning.",
            "Alex would rather have meetings in the morning",
        ),
        ("我是后端组的负责人。", "Alex是后端组的负责人"),
    ],
)
def test_a_title_keeps_who_the_statement_is_about(content: str, title: str) -> None:
    assert _titles(content) == [title]


@pytest.mark.parametrize(
    "content",
    [
        "I'd rather have meetings in the morning.",
        "I'd rather work from home on Fridays.",
        "I'd rather have tea.",
    ],
)
def test_i_d_rather_with_a_verb_is_a_preference(content: str) -> None:
    assert stored_events(content) == [("other", "ongoing")]


@pytest.mark.parametrize(
    "content",
    [
        "I'd rather wait and see.",
        "I'd rather not talk about it.",
        "I'd rather be safe than sorry.",
        "I'd rather do it myself.",
    ],
)
def test_i_d_rather_of_the_moment_is_not(content: str) -> None:
    assert stored_events(content) == []


@pytest.mark.parametrize(
    "content",
    [
        "Marco's birthday is on March 14.",
        "Lena's team has 12 people.",
        "Marco's dog is called Rex.",
    ],
)
def test_a_fact_of_a_named_person_s_is_kept(content: str) -> None:
    assert len(stored_events(content)) == 1


@pytest.mark.parametrize("content", ["It's on March 14.", "Marco's party was great."])
def test_chatter_about_a_named_person_s_is_not(content: str) -> None:
    assert stored_events(content) == []


@pytest.mark.parametrize(
    ("content", "value"),
    [
        ("Everything we deploy goes through ArgoCD.", "ArgoCD"),
        ("Everything is on AWS.", "AWS"),
    ],
)
def test_what_everything_goes_through_is_used(content: str, value: str) -> None:
    (use,) = stated_uses(content)
    assert (use.subject, use.value) == (None, value)
    assert stored_events(content) == [("other", "ongoing")]


@pytest.mark.parametrize("content", ["Everything is fine.", "Everything I own is in storage."])
def test_everything_of_no_named_thing_is_no_use(content: str) -> None:
    assert stated_uses(content) == []


def test_a_known_tool_said_with_another_is_used_too() -> None:
    assert stated_uses("Our frontend uses React with TypeScript.") == [
        Use("frontend", "React", "use"),
        Use("frontend", "TypeScript", "use"),
    ]
    assert [u.value for u in stated_uses("We use Django with Postgres and Redis.")] == [
        "Django",
        "Postgres",
        "Redis",
    ]
    # Not a tool: the clients the team talks to.
    assert stated_uses("We use Slack with our clients.") == [Use(None, "Slack", "use")]


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        (
            "Lena is our new designer; she joined the growth team this week.",
            ("Lena", "member_of", "growth team"),
        ),
        (
            "Omar started on Monday and he now leads the payments team.",
            ("Omar", "leads", "payments team"),
        ),
        ("新来的实习生叫陈晨，在前端组。", ("陈晨", "member_of", "前端组")),
        ("新来的产品经理叫刘洋，加入了增长组。", ("刘洋", "member_of", "增长组")),
        ("我们组新来了一个同事叫王磊，负责支付服务。", ("王磊", "owns", "支付服务")),
    ],
)
def test_a_pronoun_or_a_name_given_first_is_the_person(
    content: str, expected: tuple[str, str, str]
) -> None:
    (found,) = relations(content)
    assert (found.subject.name, found.relation, found.object.name) == expected
    assert found.subject == Entity(expected[0], "person")


@pytest.mark.parametrize(
    "content",
    ["The report is late; she owns the billing service.", "Lena told Maria she joined the team."],
)
def test_a_pronoun_with_no_one_to_refer_to_states_nothing(content: str) -> None:
    assert relations(content) == []


def test_a_relation_rule_reads_the_plain_clause_unchanged() -> None:
    assert relations("陈晨在前端组。") == [
        Relation(Entity("陈晨", "person"), "member_of", Entity("前端组", "organization"))
    ]


@pytest.mark.parametrize(
    ("content", "tense"),
    [
        ("The office is closed on Friday.", None),
        ("The shops are closed on Sunday.", None),
        ("The office closed on Friday.", "past"),
        ("The office was closed on Friday.", "past"),
    ],
)
def test_a_participle_after_is_is_a_state_not_the_past(content: str, tense: str | None) -> None:
    assert sentence_tense(content) == tense


def test_a_bare_weekday_said_as_a_state_is_this_week_s() -> None:
    out = extract_events([SourceMessage(1, "user", "The office is closed on Friday.", SAID_AT)])
    (event,) = out.events
    assert event.happened_start is not None
    assert event.happened_start.date().isoformat() == "2026-06-05"
    assert event.temporal_status == "planned"
