"""Offline rules of issue 29's sixth round (2026-12-06). A probe of 40 everyday statements about
people, preferences, stacks and changes (EN and ZH) found four kinds of misses: a cleft ("Sam is
the one who maintains …"), what a whole team works in ("We're a Python shop"), who provides a
function (我们的云服务是阿里云提供的) and a function said as a service (云服务, 邮件服务), which is
the team's, not a service node of its own. A second probe of 30 deadlines, team moves and tool
changes found deadlines said as a deadline or as work before something, and tools the lexicon
did not know (Kong, Pulumi). A third, 30 plain facts, found a floor, a way to work, a retention
and 大概有 N. A fourth, 14 pairs of a fact and its change, found a job change said as "left A and
joined B", a team handed over, a time said before "I", a function moved (the docs), a team
named with 现在 in front and "X is on B now". Each is a test here."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from memory.engine.changes import Change, Use, parse_change, stated_uses
from memory.engine.offline_entities import Entity, Relation
from memory.engine.offline_entities_en import service_named
from memory.engine.offline_events import SourceMessage, extract_events
from memory.engine.offline_graph import project_events
from memory.engine.offline_relations import relations
from memory.engine.stated_facts import replaces, stated_facts
from tests.engine.test_offline_graph import projected
from tests.engine.test_offline_round5_events import stored_events


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        (
            "Sam is the one who maintains the billing service.",
            ("Sam", "maintains", "billing service"),
        ),
        ("It's Priya who owns the checkout service.", ("Priya", "owns", "checkout service")),
        ("Dana is the person who leads the platform team.", ("Dana", "leads", "platform team")),
    ],
)
def test_a_cleft_states_the_clause_it_stresses(content: str, expected: tuple[str, ...]) -> None:
    (found,) = relations(content)
    assert (found.subject.name, found.relation, found.object.name) == expected
    assert stored_events(content) == [("other", "ongoing")]


@pytest.mark.parametrize(
    "content",
    ["Who is the one who maintains the billing service?", "Sam is who I asked about it."],
)
def test_no_cleft_in_a_question_or_without_a_verb_after_who(content: str) -> None:
    assert relations(content) == []


def _edges(content: str) -> set[tuple[str, str, str]]:
    proposal = project_events(projected(content, speaker="Sam"))
    return {(e.from_key, e.relation, e.to_key) for e in proposal.edges}


@pytest.mark.parametrize(
    ("content", "tool"),
    [("We're a Python shop.", "python"), ("We are a Rails house.", "rails")],
)
def test_what_a_whole_team_works_in(content: str, tool: str) -> None:
    assert _edges(content) == {("project:project", "uses", f"tool:{tool}")}
    assert stored_events(content) == [("other", "ongoing")]


def test_a_shop_of_no_named_thing_is_no_use() -> None:
    assert stated_uses("We're a small shop.") == []
    assert stored_events("We're a small shop.") == []


def test_who_provides_a_function_is_what_the_team_uses() -> None:
    assert stated_uses("我们的云服务是阿里云提供的。") == [Use("云服务", "阿里云", "use")]
    assert _edges("我们的云服务是阿里云提供的。") == {("project:project", "uses", "tool:阿里云")}
    # A meal or a favour provided is no tool used.
    assert stated_uses("午饭是公司提供的。") == []
    assert stored_events("午饭是公司提供的。") == []


@pytest.mark.parametrize("phrase", ["我们的云服务", "邮件服务", "短信服务"])
def test_a_function_said_as_a_service_is_the_teams(phrase: str) -> None:
    assert service_named(phrase) is None
    assert service_named("订单服务") == "订单服务"


def test_a_relation_rule_still_reads_a_plain_chinese_service() -> None:
    assert relations("订单服务依赖Redis。") == [
        Relation(Entity("订单服务", "project"), "depends_on", Entity("Redis", "tool"))
    ]


@pytest.mark.parametrize(
    ("content", "tool"),
    [
        ("We manage our infrastructure with Pulumi.", "pulumi"),
        ("We're on Zoom for standups.", "zoom"),
        ("Our search runs on Qdrant.", "qdrant"),
    ],
)
def test_tools_the_lexicon_knows_now(content: str, tool: str) -> None:
    assert ("project:project", "uses", f"tool:{tool}") in _edges(content)


def test_a_service_moved_to_a_known_tool_uses_it() -> None:
    assert _edges("The API gateway was moved to Kong.") == {
        ("project:apigateway", "uses", "tool:kong")
    }


def test_a_cook_is_no_tool() -> None:
    assert stored_events("The chef made pasta.") == []


SAID_AT = datetime(2026, 6, 1, 10, tzinfo=UTC)  # a Monday


@pytest.mark.parametrize(
    ("content", "last_day"),
    [
        ("The deadline for the conference paper is March 3.", "2027-03-03"),
        ("Submission closes at midnight tonight.", "2026-06-01"),
        ("I have to finish the slides before Thursday's meeting.", "2026-06-04"),
    ],
)
def test_a_deadline_said_as_one_is_a_plan_until_its_day(content: str, last_day: str) -> None:
    out = extract_events([SourceMessage(1, "user", content, SAID_AT, speaker="Sam")])
    (event,) = out.events
    assert (event.event_type, event.temporal_status) == ("plan", "planned")
    assert event.happened_end is not None and event.happened_end.date().isoformat() == last_day


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        ("The store closes at 9.", [("other", "ongoing")]),  # opening hours: no deadline
        ("The deadline is tight.", []),
        ("We had to finish the slides before the meeting.", [("meeting", "occurred")]),
    ],
)
def test_no_deadline_without_a_day_ahead(content: str, expected: list[tuple[str, str]]) -> None:
    assert stored_events(content, SAID_AT) == expected


@pytest.mark.parametrize(
    "content",
    [
        "Our office is on the fourth floor.",
        "I commute by bike most days.",
        "We store logs for 30 days.",
        "我们公司大概有两百人。",
        "我开车上班，单程四十分钟。",
        "我坐地铁上班。",
        "日志保留三十天。",
    ],
)
def test_a_third_probe_s_plain_facts_are_kept(content: str) -> None:
    """A third probe, 30 plain facts (EN and ZH): these seven stored nothing."""
    assert stored_events(content, SAID_AT) == [("other", "ongoing")]


@pytest.mark.parametrize(
    "content",
    [
        "I keep forgetting my keys.",
        "We keep it simple.",
        "The third floor bathroom is broken.",
        "We got there by train, it was lovely.",
        "We store everything in the cloud.",
        "My son likes to zoom around the garden.",
        "我骑车上班的时候摔了一跤。",
        "照片我都保存好了。",
        "大概是三点吧。",
    ],
)
def test_their_chatter_is_not(content: str) -> None:
    assert stored_events(content, SAID_AT) == []


def _replaces(new: str, old: str) -> bool:
    return replaces(stated_facts(new, "Sam"), stated_facts(old, "Sam"), new)


def test_left_one_company_and_joined_another_is_a_job_change() -> None:
    new = "Dana left Stripe and joined Shopify."
    assert relations(new) == [
        Relation(Entity("Dana", "person"), "works_at", Entity("Shopify", "organization"))
    ]
    assert _replaces(new, "Dana works at Stripe.")
    # A company someone works at or left is no tool the project chose (Stripe is a payments tool).
    assert _edges(new) == {("person:dana", "works_at", "organization:shopify")}


def test_a_team_handed_over_is_led_by_its_receiver() -> None:
    new = "Priya handed the mobile team over to Omar."
    assert relations(new) == [
        Relation(Entity("Omar", "person"), "leads", Entity("mobile team", "organization"))
    ]
    assert _replaces(new, "Priya leads the mobile team.")


def test_a_time_said_first_keeps_the_speaker_s_own_tool() -> None:
    assert _edges("These days I mostly use VS Code.") == {("person:sam", "uses", "tool:vscode")}


def test_a_function_moved_is_the_project_s_use() -> None:
    assert _edges("We moved the docs to Notion last week.") == {
        ("project:project", "uses", "tool:notion")
    }


def test_a_team_named_after_now_is_the_team() -> None:
    # A team someone is in charge of is one they lead (as "数据组由吴刚负责"), so the two
    # statements of who is in charge of a team can end one another.
    assert relations("老王走了，现在前端组归小李管。") == [
        Relation(Entity("小李", "person"), "leads", Entity("前端组", "organization"))
    ]


def test_a_service_on_a_platform_now_is_a_move_there() -> None:
    # runs_on is single-valued: the edge closes "runs on Heroku" and its event is superseded.
    assert parse_change("The billing service is on Fly.io now.") == Change(
        "now", "billing service", None, "Fly.io", "use"
    )
    assert _edges("The billing service is on Fly.io now.") == {
        ("project:billingservice", "runs_on", "tool:fly.io")
    }


@pytest.mark.parametrize(
    "content", ["Priya is on PTO now.", "The kids are on holiday now.", "I am on the train now."]
)
def test_on_something_now_that_is_no_technology_is_no_change(content: str) -> None:
    assert _edges(content) == set()
    assert ("change", "occurred") not in stored_events(content, SAID_AT)
