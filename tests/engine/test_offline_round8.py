"""Offline rules of issue 29's eighth round (2026-12-07): 32 negations, stops and corrections
(EN and ZH). Wrong before: "We decided against Kafka" stored a decision to use Kafka and a
`uses` edge; "We're not on AWS anymore" a `uses` edge to AWS; 我们没有迁移到Kubernetes a
migration. Missed before: a relation said to hold no more ("Tom doesn't work at Google anymore",
"Sara isn't on the design team anymore"); a correction said with "it" or with "… Dana does";
"We aren't on GCP, we're on AWS"; 我不喜欢Java，更喜欢Go; 我不在北京住了，搬到上海了. The
supersession these stops cause is tested in tests/services/test_contradictions.py."""

from __future__ import annotations

import pytest

from memory.engine.changes import parse_change, stated_uses
from memory.engine.negation import affirmed, third_person
from memory.engine.offline_entities import ME
from memory.engine.offline_relations import relations
from memory.engine.person_facts import person_relations
from memory.engine.slots import slot_choices
from memory.engine.stated_facts import Fact, ended_facts
from tests.engine.test_offline_round5_events import stored_events
from tests.engine.test_offline_round6 import _edges


@pytest.mark.parametrize(
    "content",
    [
        "We decided against Kafka.",
        "We ruled out MongoDB.",
        "We're not on AWS anymore.",
        "We aren't using Terraform.",
        "It isn't hosted on Heroku.",
    ],
)
def test_a_value_said_against_or_not_used_is_never_chosen(content: str) -> None:
    assert slot_choices(content) == []
    assert not any(relation == "uses" for _, relation, _ in _edges(content))


def test_a_value_rejected_in_favour_of_another_chooses_the_other() -> None:
    assert [c.value for c in slot_choices("We decided against Kafka and went with RabbitMQ.")] == [
        "RabbitMQ"
    ]


@pytest.mark.parametrize("content", ["We decided against Kafka.", "We ruled out MongoDB."])
def test_deciding_against_is_a_decision(content: str) -> None:
    assert stored_events(content) == [("decision", "occurred")]


def test_a_move_not_made_is_no_migration() -> None:
    assert parse_change("我们没有迁移到Kubernetes。") is None
    assert stored_events("我们没有迁移到Kubernetes。") == [("other", "ongoing")]
    assert stored_events("我们迁移到了Kubernetes。") == [("migration", "occurred")]
    assert stored_events("We did not migrate to Kubernetes.") == []


@pytest.mark.parametrize(
    ("content", "fact"),
    [
        ("Tom doesn't work at Google anymore.", Fact("tom", "works_at", "google")),
        ("Sara isn't on the design team anymore.", Fact("sara", "member_of", "design team")),
        ("Priya no longer leads the mobile team.", Fact("priya", "leads", "mobile team")),
        ("We're not on AWS anymore.", Fact("", "use", "aws")),
        ("I don't live in London anymore.", Fact("alex", "lives_in", "london")),
        ("我已经不在腾讯工作了。", Fact("alex", "works_at", "腾讯")),
        ("张伟不再负责支付模块了。", Fact("张伟", "owns", "支付模块")),
    ],
)
def test_a_relation_said_to_hold_no_more(content: str, fact: Fact) -> None:
    assert ended_facts(content, "Alex") == {fact}
    (event,) = stored_events(content)
    assert event == ("change", "occurred")


@pytest.mark.parametrize(
    "content", ["We don't use Kafka for billing.", "Tom works at Google.", "I don't like Java."]
)
def test_a_plain_negation_or_statement_ends_nothing(content: str) -> None:
    assert ended_facts(content, "Alex") == frozenset()


@pytest.mark.parametrize(
    ("verb", "expected"),
    [("work", "works"), ("go", "goes"), ("have", "has"), ("carry", "carries"), ("play", "plays")],
)
def test_third_person(verb: str, expected: str) -> None:
    assert third_person(verb) == expected


def test_does_not_is_affirmed_with_the_verb_s_s() -> None:
    assert affirmed("Tom doesn't work at Google") == "Tom works at Google"
    assert affirmed("It does not run on Fly.io") == "It runs on Fly.io"


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        (
            "The billing service doesn't run on Heroku, it runs on Render.",
            ("billing service", "runs_on", "Render"),
        ),
        (
            "Sam doesn't maintain the billing service anymore; Dana does.",
            ("Dana", "maintains", "billing service"),
        ),
        ("Omar doesn't lead the payments team, Priya does.", ("Priya", "leads", "payments team")),
        ("Priya no longer leads the mobile team; Omar does now.", ("Omar", "leads", "mobile team")),
    ],
)
def test_a_correction_states_the_right_one(content: str, expected: tuple[str, str, str]) -> None:
    (found,) = relations(content)
    assert (found.subject.name, found.relation, found.object.name) == expected


def test_a_comma_before_a_new_subject_opens_a_clause() -> None:
    assert [u.value for u in stated_uses("We aren't on GCP, we're on AWS.")] == ["AWS"]
    assert stored_events("We aren't on GCP, we're on AWS.") == [("other", "ongoing")]


def test_the_speaker_s_clause_carries_to_the_next_in_chinese() -> None:
    (found,) = relations("我不喜欢Java，更喜欢Go。")
    assert (found.subject.name, found.relation, found.object.name) == (ME, "prefers", "Go")
    assert relations("我们不用Java，更喜欢Go。") == []
    assert relations("如果不行，负责测试平台。") == []  # a condition opens nothing
    assert person_relations("我不在北京住了，搬到上海了。", "Alex") == [
        ("Alex", "lives_in", "上海")
    ]
