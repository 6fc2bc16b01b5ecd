"""Offline rules of issue 29's twenty-first round (2026-12-07): about 60 statements of who does
what and what runs where, EN and ZH. 我们去年把MongoDB换成了PostgreSQL left MongoDB the
project's database and PostgreSQL superseded; 王强现在带前端组 made "王强现" a member of
"带前端组"; 我搬到杭州已经三年了 made "杭州已经三年" a home; "We rely heavily on Stripe",
"We've standardised on pnpm", "Lena is now heading the design team" stored nothing."""

from __future__ import annotations

import pytest

from memory.engine.changes import Change, parse_change, stated_uses
from memory.engine.slots import SlotChoice, slot_choices
from tests.engine.test_offline_round5_events import stored_events
from tests.engine.test_offline_round6 import _edges


@pytest.mark.parametrize(
    ("content", "old", "new"),
    [
        ("我们去年把MongoDB换成了PostgreSQL。", "MongoDB", "PostgreSQL"),
        ("我们把Jenkins换成了GitLab CI。", "Jenkins", "GitLab CI"),
    ],
)
def test_what_ba_puts_before_the_verb_of_replacing_is_left_behind(
    content: str, old: str, new: str
) -> None:
    assert parse_change(content) == Change("replace", None, old, new, "use")
    assert all(choice.value != old for choice in slot_choices(content))
    edges = _edges(content)
    assert ("project:project", "uses", "tool:" + new.replace(" ", "").lower()) in edges
    assert not any(end.endswith(old.lower()) for _, _, end in edges)


def test_nobody_using_a_tool_chooses_it_for_nothing() -> None:
    assert slot_choices("Nobody uses Jenkins anymore.") == []
    assert stored_events("Nobody uses Jenkins anymore.") == [("change", "occurred")]
    assert _edges("Nobody uses Jenkins anymore.") == set()


@pytest.mark.parametrize(
    ("content", "edges"),
    [
        (
            "订单服务依赖Redis和MySQL。",
            {
                ("project:订单服务", "depends_on", "tool:redis"),
                ("project:订单服务", "depends_on", "tool:mysql"),
            },
        ),
        (
            "订单服务依赖Redis、Kafka和MySQL。",
            {
                ("project:订单服务", "depends_on", "tool:redis"),
                ("project:订单服务", "depends_on", "tool:kafka"),
                ("project:订单服务", "depends_on", "tool:mysql"),
            },
        ),
        (
            "我更喜欢Go和Rust。",
            {("person:sam", "prefers", "tool:go"), ("person:sam", "prefers", "tool:rust")},
        ),
        ("王强现在带前端组。", {("person:王强", "leads", "organization:前端组")}),
        ("王强现在在前端组。", {("person:王强", "member_of", "organization:前端组")}),
        ("陈静是移动端的技术负责人。", {("person:陈静", "leads", "project:移动端")}),
        ("陈静是支付服务的负责人。", {("person:陈静", "owns", "project:支付服务")}),
        ("我搬到杭州已经三年了。", {("person:sam", "lives_in", "place:杭州")}),
        ("我去年搬到了成都，快两年了。", {("person:sam", "lives_in", "place:成都")}),
        ("刘洋离开了我们公司，去了腾讯。", {("person:刘洋", "works_at", "organization:腾讯")}),
        ("刘洋跳槽到了腾讯。", {("person:刘洋", "works_at", "organization:腾讯")}),
        ("小周上个月入职字节跳动。", {("person:小周", "works_at", "organization:字节跳动")}),
        ("我上个月离职了，去了字节跳动。", {("person:sam", "works_at", "organization:字节跳动")}),
        ("我离开了北京，去了上海。", set()),  # a move between cities, not a new employer
    ],
)
def test_chinese_lists_leads_homes_and_new_employers(
    content: str, edges: set[tuple[str, str, str]]
) -> None:
    assert _edges(content) == edges


@pytest.mark.parametrize(
    ("content", "events", "edges"),
    [
        (
            "We rely heavily on Stripe for payments.",
            [("other", "ongoing")],
            {("project:project", "uses", "tool:stripe")},
        ),
        (
            "We've standardised on pnpm for all frontend repos.",
            [("decision", "occurred")],
            {("project:project", "uses", "tool:pnpm")},
        ),
        (
            "I can't stand Jira, we use Linear.",
            [("other", "ongoing")],
            {("project:project", "uses", "tool:linear")},
        ),
        (
            "Nobody uses the old wiki anymore, docs live in Notion.",
            [("change", "occurred")],
            {("project:project", "uses", "tool:notion")},
        ),
        (
            "Instead of Mailchimp we now send newsletters with Buttondown.",
            [("change", "occurred")],
            {("project:project", "uses", "tool:buttondown")},
        ),
        (
            "Lena is now heading the design team.",
            [("other", "ongoing")],
            {("person:lena", "leads", "organization:designteam")},
        ),
        (
            "The billing service is maintained by Rosa and Ian.",
            [("other", "ongoing")],
            {
                ("person:rosa", "maintains", "project:billingservice"),
                ("person:ian", "maintains", "project:billingservice"),
            },
        ),
        (
            "The billing service is maintained by Rosa and the SRE team.",
            [("other", "ongoing")],
            {("person:rosa", "maintains", "project:billingservice")},
        ),
        (
            "Sam, our intern, lives in Utrecht.",
            [("other", "ongoing")],
            {("person:sam", "lives_in", "place:utrecht")},
        ),
        ("Kenji is working on the search service.", [("other", "ongoing")], set()),
        ("Our CTO, Mei, used to work at Netflix.", [("other", "ongoing")], set()),
    ],
)
def test_ordinary_statements_of_use_and_duty(
    content: str, events: list[tuple[str, str]], edges: set[tuple[str, str, str]]
) -> None:
    assert stored_events(content) == events
    assert _edges(content) == edges


@pytest.mark.parametrize(
    "content",
    ["I use Vim at home.", "I can't stand Jira.", "I hate Jira but we use it anyway."],
)
def test_the_speakers_own_clause_gives_the_project_nothing(content: str) -> None:
    assert not any(origin == "project:project" for origin, _, _ in _edges(content))


def test_a_plain_use_beside_what_ended_is_kept_and_the_ended_one_is_not() -> None:
    uses = stated_uses("Nobody uses the old wiki anymore, docs live in Notion.")
    assert [u.value for u in uses] == ["Notion"]
    assert stated_uses("We no longer use Jenkins.") == []


def test_a_duty_of_a_named_person_is_not_a_pronoun_s() -> None:
    assert stored_events("Kenji is working on it.") == []
    assert slot_choices("We moved our CI to GitHub Actions.") == [
        SlotChoice("ci", "GitHub Actions")
    ]
