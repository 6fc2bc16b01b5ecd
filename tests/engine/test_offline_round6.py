"""Offline rules of issue 29's sixth round (2026-12-06): a probe of 40 everyday statements about
people, preferences, stacks and changes (EN and ZH) found four kinds of misses, each a test
here: a cleft ("Sam is the one who maintains …"), what a whole team works in ("We're a Python
shop"), who provides a function (我们的云服务是阿里云提供的) and a function said as a service
(云服务, 邮件服务), which is the team's, not a service node of its own."""

from __future__ import annotations

import pytest

from memory.engine.changes import Use, stated_uses
from memory.engine.offline_entities import Entity, Relation
from memory.engine.offline_graph import project_events
from memory.engine.offline_relations import relations, service_named
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
