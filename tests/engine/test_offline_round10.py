"""Offline rules of issue 29's tenth round (2026-12-07): 15 pairs of a fact and its change, said
in everyday words (EN and ZH). Before, none of these changed anything: "We relocated to
Manchester in April" (and the graph kept Leeds current), "Raj handed the data pipeline to Mei",
"Lucas switched to the web team", "We rewrote the API in Go", "Maya stepped down as QA lead;
Ben took over", 我跳槽去了阿里; and 订单服务上周迁到了AWS put AWS on the project, not on
订单服务. The supersessions are tested end to end in tests/services/test_contradictions.py.

A probe of facts said again in other words found three that stayed two events: a function said
as the subject (缓存是Redis after 我们用Redis做缓存), "billing" for "the billing service", and "the
billing service is on Fly.io", which stated nothing."""

from __future__ import annotations

import pytest

from memory.engine.change_terms import subject_of
from memory.engine.changes import Change, Use, parse_change, stated_uses
from memory.engine.offline_relations import relations
from memory.engine.person_facts import person_relations
from memory.engine.stated_facts import replaces, restates, stated_facts
from tests.engine.test_offline_round5_events import stored_events
from tests.engine.test_offline_round6 import _edges


@pytest.mark.parametrize(
    "content",
    [
        "We relocated to Manchester in April.",
        "Raj handed the data pipeline to Mei.",
        "We rewrote the API in Go.",
        "Maya stepped down as QA lead; Ben took over.",
        "我跳槽去了阿里。",
    ],
)
def test_a_change_said_in_everyday_words_is_a_change(content: str) -> None:
    assert stored_events(content) == [("change", "occurred")]


def test_handing_over_is_a_change_only_for_something_owned() -> None:
    assert stored_events("He handed the keys to me.") == []


def test_a_rewrite_is_a_change_of_language() -> None:
    assert parse_change("We rewrote the API in Go.") == Change("switch", "API", None, "Go", "use")


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        # A discipline said alone is its team (round 38): "QA lead" leads the QA team.
        ("Maya stepped down as QA lead; Ben took over.", ("Ben", "leads", "QA team")),
        (
            "Maya stepped down as the payments team lead, and Omar took over.",
            ("Omar", "leads", "payments team"),
        ),
    ],
)
def test_who_took_over_holds_the_role(content: str, expected: tuple[str, str, str]) -> None:
    (found,) = relations(content)
    assert (found.subject.name, found.relation, found.object.name) == expected


def test_a_job_hop_in_chinese_names_the_new_employer() -> None:
    assert person_relations("我跳槽去了阿里。", "Alex") == [("Alex", "works_at", "阿里")]
    assert person_relations("我上个月跳槽到了字节跳动。", "Alex") == [
        ("Alex", "works_at", "字节跳动")
    ]


@pytest.mark.parametrize("prefix", ["订单服务上周", "订单服务昨天", "订单服务最近"])
def test_when_it_moved_is_no_part_of_what_moved(prefix: str) -> None:
    assert subject_of(prefix) == "订单服务"


def test_a_move_to_another_team_ends_the_old_membership_only() -> None:
    old = stated_facts("Lucas is on the mobile team.", "Alex")
    moved = "Lucas switched to the web team."
    assert replaces(stated_facts(moved, "Alex"), old, moved)
    joined = "Lucas joined the web team."  # joining another team leaves nothing
    assert not replaces(stated_facts(joined, "Alex"), old, joined)


def test_a_named_thing_written_in_another_language_replaces_the_old_one() -> None:
    old = stated_facts("The API is written in Python.", "Alex")
    said = "We rewrote the API in Go."
    assert replaces(stated_facts(said, "Alex"), old, said)
    # The team may work in several languages: no named thing, nothing replaced.
    team = stated_facts("We use Python for scripts.", "Alex")
    decided = "We decided to use Go for the API."
    assert not replaces(stated_facts(decided, "Alex"), team, decided)


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        ("The billing service is on Fly.io.", [Use("billing service", "Fly.io", "host")]),
        ("Priya is on PTO.", []),  # on no technology
        ("The billing service isn't on Fly.io.", []),
    ],
)
def test_a_thing_on_a_known_technology_runs_there(content: str, expected: list[Use]) -> None:
    assert stated_uses(content) == expected


@pytest.mark.parametrize(
    ("first", "again"),
    [
        ("我们用Redis做缓存。", "再说一次，缓存是Redis。"),  # a function is the team's
        ("We use CircleCI.", "Our CI is CircleCI."),
        ("We deploy the billing service on Fly.io.", "Just a reminder, billing is on Fly.io."),
    ],
)
def test_the_same_fact_said_again_in_other_words_restates_it(first: str, again: str) -> None:
    assert restates(stated_facts(again, "Alex"), stated_facts(first, "Alex"), again)


@pytest.mark.parametrize(
    "content",
    ["他们没有用React，用的是Vue。", "They use Vue.", "They switched from Jenkins to GitLab CI."],
)
def test_what_they_use_is_not_ours(content: str) -> None:
    assert stated_uses(content) == []
    assert not any(relation == "uses" for _, relation, _ in _edges(content))
