"""Offline rules of issue 29's eleventh round (2026-12-07): a probe of 90 everyday statements
(EN and ZH) aimed at the blind set's weakest categories (negations, deadlines said as tasks,
third-person facts, plain facts). Deadlines were read; what was missed was a denial put right:
"The analytics service isn't written in Java, it's Scala", "Tom isn't on the payments team,
he's on identity", "I don't work at Stripe anymore, I'm at Shopify now", 订单服务不是用Java写的，
是用Go写的 stored no edge, and two stored no event at all. "Nobody on the team uses a Mac" was
a use of the Mac; "We don't use Docker Swarm, everything is on Kubernetes" gave no use."""

from __future__ import annotations

import pytest

from memory.engine.changes import Use, stated_uses
from memory.engine.offline_entities import Entity, Relation
from memory.engine.offline_relations import relations
from memory.engine.person_facts import person_relations
from memory.engine.plain_clauses import corrected
from tests.engine.test_offline_round5_events import stored_events
from tests.engine.test_offline_round6 import _edges


@pytest.mark.parametrize(
    ("content", "said"),
    [
        (
            "The analytics service isn't written in Java, it's Scala.",
            "The analytics service is written in Scala.",
        ),
        ("Tom isn't on the payments team, he's on identity.", "Tom is on the identity team."),
        ("I don't work at Stripe anymore, I'm at Shopify now.", "I work at Shopify."),
        (
            "The mobile app doesn't talk to the legacy API, only to the gateway.",
            "The mobile app talks to the gateway.",
        ),
        (
            "The billing service doesn't run on Heroku anymore, it's on Render now.",
            "The billing service runs on Render.",
        ),
        ("We don't use Jira, it's Linear.", "We use Linear."),
        ("The bug isn't in the parser, it's in the lexer.", "The bug is in the lexer."),
        # As an event's summary says it: the speaker's label stays in front.
        ("Alex: I don't work at Stripe, I'm at Shopify.", "Alex: I work at Shopify."),
    ],
)
def test_a_denial_put_right_is_read_as_what_holds(content: str, said: str) -> None:
    assert corrected(content) == said


@pytest.mark.parametrize(
    "content",
    [
        "I don't like it, it's too slow.",  # no thing put right
        "It isn't hard, it's easy.",  # a pronoun's quality
        "Maria isn't the lead, Tom is.",  # a clause of its own
        "The app isn't slow, it's just big.",
        "Our CI doesn't run on Jenkins; it runs on Buildkite.",  # the relation rules read it
        "Tom isn't on the payments team.",  # nothing put right
    ],
)
def test_other_denials_are_not_rewritten(content: str) -> None:
    assert corrected(content) is None


@pytest.mark.parametrize(
    ("content", "edge"),
    [
        (
            "Tom isn't on the payments team, he's on identity.",
            ("person:tom", "member_of", "organization:identityteam"),
        ),
        (
            "The analytics service isn't written in Java, it's Scala.",
            ("project:analyticsservice", "uses", "tool:scala"),
        ),
        (
            "The mobile app doesn't talk to the legacy API, only to the gateway.",
            ("project:mobileapp", "depends_on", "project:gateway"),
        ),
        (
            "We don't use Docker Swarm, everything is on Kubernetes.",
            ("project:project", "uses", "tool:kubernetes"),
        ),
        ("订单服务不是用Java写的，是用Go写的。", ("project:订单服务", "uses", "tool:go")),
        ("支付服务不是张伟负责的，是李娜负责的。", ("person:李娜", "owns", "project:支付服务")),
    ],
)
def test_what_a_denial_put_right_states_is_a_fact_with_its_edge(
    content: str, edge: tuple[str, str, str]
) -> None:
    assert stored_events(content) == [("other", "ongoing")]
    assert _edges(content) == {edge}


def test_the_new_employer_of_a_denial_put_right() -> None:
    said = "I don't work at Stripe anymore, I'm at Shopify now."
    assert person_relations(said, "Alex") == [("Alex", "works_at", "Shopify")]
    assert person_relations("I don't work at Stripe anymore.", "Alex") == []


def test_whose_a_thing_is_said_as_a_cleft() -> None:
    assert relations("支付服务是李娜负责的。") == [
        Relation(Entity("李娜", "person"), "owns", Entity("支付服务", "project"))
    ]
    # A language the code is written in is no one's: "后端是Go写的" stays a use.
    assert relations("后端是Go写的。") == [
        Relation(Entity("后端", "project"), "uses", Entity("Go", "tool"))
    ]
    assert relations("这不是我的问题，是网络的问题。") == []


@pytest.mark.parametrize(
    "content",
    ["Nobody on the team uses a Mac.", "Nobody uses Jenkins here.", "None of us drink coffee."],
)
def test_what_nobody_does_is_a_negative_fact_and_no_use(content: str) -> None:
    assert stored_events(content) == [("other", "ongoing")]
    assert stated_uses(content) == []


def test_a_comma_before_everything_opens_a_clause_of_its_own() -> None:
    said = "We don't use Docker Swarm, everything is on Kubernetes."
    assert stated_uses(said) == [Use(None, "Kubernetes", "use")]
