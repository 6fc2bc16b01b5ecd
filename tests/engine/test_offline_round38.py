"""Issue 29's thirty-eighth round (2026-12-07): "Maria stepped down as design lead; Kai leads
design now" ended Maria's lead of the design team and gave Kai nothing ("design" said alone
named no team); "Kai heads up engineering" made Kai lead a project called "engine" (a service
noun matched inside a longer word); 李娜现在不在支付组了，去了风控组 stored nothing."""

from __future__ import annotations

import pytest

from memory.engine.offline_entities_en import SERVICE
from memory.engine.stated_facts import Fact, ended_facts
from tests.engine.test_offline_round5_events import stored_events
from tests.engine.test_offline_round6 import _edges


@pytest.mark.parametrize(
    ("content", "edge"),
    [
        ("Kai leads design now.", ("person:kai", "leads", "organization:designteam")),
        ("Kai heads up engineering.", ("person:kai", "leads", "organization:engineeringteam")),
        ("Kai runs marketing.", ("person:kai", "leads", "organization:marketingteam")),
        ("Priya leads the design team.", ("person:priya", "leads", "organization:designteam")),
    ],
)
def test_a_discipline_said_alone_is_its_team(content: str, edge: tuple[str, ...]) -> None:
    assert _edges(content) == {edge}


@pytest.mark.parametrize("text", ["engineering", "the sitemaps", "apiary"])
def test_a_service_noun_inside_a_longer_word_names_no_service(text: str) -> None:
    assert SERVICE.match(text) is None


@pytest.mark.parametrize(
    ("content", "ended"),
    [
        ("Maria stepped down as design lead; Kai leads design now.",
         Fact("maria", "leads", "design team")),
        ("Tom stepped down as maintainer of the SDK.", Fact("tom", "maintains", "sdk")),
        ("Ben stepped down as lead of the mobile team.", Fact("ben", "leads", "mobile team")),
    ],
)  # fmt: skip
def test_stepping_down_ends_the_role(content: str, ended: Fact) -> None:
    assert ended in ended_facts(content, "Sam")


def test_stepping_down_from_a_title_alone_ends_nothing() -> None:
    assert ended_facts("Ana stepped down as CEO.", "Sam") == frozenset()


def test_no_longer_on_one_team_and_gone_to_another() -> None:
    content = "李娜现在不在支付组了，去了风控组。"
    assert stored_events(content) == [("change", "occurred")]
    assert _edges(content) == {("person:李娜", "member_of", "organization:风控组")}
    assert Fact("李娜", "member_of", "支付组") in ended_facts(content, "Sam")


def test_going_to_a_team_for_a_meeting_is_no_move() -> None:
    assert _edges("我去了风控组开会。") == set()
    assert ("change", "occurred") not in stored_events("我去了风控组开会。")
