"""Issue 29's twenty-ninth round (2026-12-07): where the stack's parts live, said plainly.
"Customer support runs on Intercom", "The iOS build runs on Bitrise", "Our DNS is on Route 53",
"Mobile crash reports go to Crashlytics", "The events service publishes to Kafka", 我们的代码都
在GitLab上, 测试环境用的是一台阿里云ECS and 支付走的是微信支付 placed nothing; "The billing service
runs on Mondays" ran on a tool "Mondays"."""

from __future__ import annotations

import pytest

from memory.engine.changes import stated_uses
from tests.engine.test_offline_round5_events import stored_events
from tests.engine.test_offline_round6 import _edges


@pytest.mark.parametrize(
    ("content", "edges"),
    [
        ("Customer support runs on Intercom.", {("project:project", "uses", "tool:intercom")}),
        ("The iOS build runs on Bitrise.", {("project:project", "uses", "tool:bitrise")}),
        ("Our DNS is on Route 53.", {("project:project", "uses", "tool:route53")}),
        (
            "Mobile crash reports go to Crashlytics.",
            {("project:project", "uses", "tool:crashlytics")},
        ),
        (
            "The events service publishes to Kafka.",
            {("project:eventsservice", "depends_on", "tool:kafka")},
        ),
        ("The worker consumes from RabbitMQ.", {("project:worker", "depends_on", "tool:rabbitmq")}),
        ("我们的代码都在GitLab上。", {("project:project", "uses", "tool:gitlab")}),
        ("测试环境用的是一台阿里云ECS。", {("project:project", "uses", "tool:阿里云ecs")}),
        ("支付走的是微信支付和支付宝。", {("project:project", "uses", "tool:微信支付")}),
        ("The billing service runs on Mondays.", set()),
        ("The standup runs on Mondays.", set()),
        ("Tom moved to Lisbon last year.", {("person:tom", "lives_in", "place:lisbon")}),
        ("Our team runs on coffee.", set()),
    ],
)
def test_where_the_stacks_parts_live(content: str, edges: set[tuple[str, str, str]]) -> None:
    assert _edges(content) == edges


@pytest.mark.parametrize(
    ("content", "events"),
    [
        ("我喜欢用Vim，平时都用它写代码。", [("other", "ongoing")]),  # one liking, not two facts
        ("我们都用这个。", []),
    ],
)
def test_a_use_of_it_or_this_names_nothing_of_its_own(
    content: str, events: list[tuple[str, str]]
) -> None:
    assert stored_events(content) == events
    assert not stated_uses(content.split("，")[-1])


@pytest.mark.parametrize(
    ("content", "edges"),
    [
        ("数据组的负责人是何伟。", {("person:何伟", "leads", "organization:数据组")}),
        ("支付服务的负责人是李娜。", {("person:李娜", "owns", "project:支付服务")}),
        (
            "前端是小马和小王在维护。",
            {
                ("person:小马", "maintains", "project:前端"),
                ("person:小王", "maintains", "project:前端"),
            },
        ),
        ("我的主管是李明。", set()),
    ],
)
def test_who_is_in_charge_said_after_what_and_two_people_as_one(
    content: str, edges: set[tuple[str, str, str]]
) -> None:
    assert stored_events(content) == [("other", "ongoing")]
    assert _edges(content) == edges


@pytest.mark.parametrize(
    ("content", "edges"),
    [
        ("We moved the blog from WordPress to Ghost.", {("project:blog", "uses", "tool:ghost")}),
        ("我们把博客从WordPress迁到了Ghost。", {("project:博客", "uses", "tool:ghost")}),
        ("文档站换成了语雀。", {("project:文档站", "uses", "tool:语雀")}),
        ("The shop runs on Shopify.", {("project:shop", "runs_on", "tool:shopify")}),
        ("I went to the shop.", set()),
    ],
)
def test_a_blog_a_shop_and_a_docs_site_are_services(
    content: str, edges: set[tuple[str, str, str]]
) -> None:
    assert _edges(content) == edges
