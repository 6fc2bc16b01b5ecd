"""Issue 29's thirty-first round (2026-12-07, a new tuning set `memory_quality_dev6.json`):
"Owen is a member of the Cardiff rowing club" made Owen work at Cardiff; "I work as a nurse at
St Mary's Hospital" had no employer, nor "I left St Mary's; I'm at the Royal Free now" a
change; "I moved my recipes from Notion to Obsidian" no tool of the speaker's; "我姐姐陈静住在
杭州" no home of 陈静's; "我们的服务都跑在阿里云上" ran a service called 服务; and "Priya handed
the search service over to Tom" left Priya leading it."""

from __future__ import annotations

import pytest

from memory.engine.stated_facts import replaces, stated_facts
from tests.engine.test_offline_round5_events import stored_events
from tests.engine.test_offline_round6 import _edges


@pytest.mark.parametrize(
    ("content", "edge"),
    [
        (
            "Owen is a member of the Cardiff rowing club.",
            ("person:owen", "member_of", "organization:cardiffrowingclub"),
        ),
        (
            "Tom joined the chess club last week.",
            ("person:tom", "member_of", "organization:chessclub"),
        ),
        (
            "Mia is a member of the Leeds cycling society.",
            ("person:mia", "member_of", "organization:leedscyclingsociety"),
        ),
    ],
)
def test_a_club_is_a_membership_not_an_employer(content: str, edge: tuple[str, ...]) -> None:
    edges = _edges(content)
    assert edge in edges
    assert not any(relation == "works_at" for _, relation, _ in edges)


@pytest.mark.parametrize(
    ("content", "edge"),
    [
        (
            "I work as a nurse at St Mary's Hospital.",
            ("person:sam", "works_at", "organization:stmary'shospital"),
        ),
        (
            "Ana works as a data analyst for Globex.",
            ("person:ana", "works_at", "organization:globex"),
        ),
    ],
)
def test_a_role_said_between_work_and_the_employer(content: str, edge: tuple[str, ...]) -> None:
    assert stored_events(content) == [("other", "ongoing")]
    assert _edges(content) == {edge}


def test_working_as_something_somewhere_that_is_no_employer_names_none() -> None:
    assert _edges("I work as a volunteer at weekends.") == set()


@pytest.mark.parametrize(
    "content",
    [
        "I left St Mary's; I'm at the Royal Free now.",
        "I left St Mary's, I'm at the Royal Free now.",
    ],
)
def test_leaving_a_name_with_an_apostrophe_is_a_job_change(content: str) -> None:
    assert stored_events(content) == [("change", "occurred")]
    assert _edges(content) == {("person:sam", "works_at", "organization:royalfree")}


@pytest.mark.parametrize(
    "content",
    [
        "I switched from Notion to Obsidian.",
        "I moved my recipes from Notion to Obsidian.",
        "I switched my notes to Obsidian last week.",
        "I've finally switched over to Obsidian.",
    ],
)
def test_a_persons_own_switch_is_their_tool(content: str) -> None:
    assert stored_events(content) == [("change", "occurred")]
    assert _edges(content) == {("person:sam", "uses", "tool:obsidian")}


@pytest.mark.parametrize(
    ("content", "edges"),
    [
        ("I moved from Paris to Berlin.", {("person:sam", "lives_in", "place:berlin")}),
        ("I switched to decaf.", set()),
        ("We switched from Jenkins to GitHub Actions.",
         {("project:project", "uses", "tool:githubactions")}),
    ],
)  # fmt: skip
def test_a_move_home_or_the_teams_switch_is_no_persons_tool(
    content: str, edges: set[tuple[str, str, str]]
) -> None:
    assert _edges(content) == edges


@pytest.mark.parametrize(
    ("content", "edge"),
    [
        ("我姐姐陈静住在杭州。", ("person:陈静", "lives_in", "place:杭州")),
        ("我同事小王负责支付服务。", ("person:小王", "owns", "project:支付服务")),
        ("我现在改用Strava记录跑步了。", ("person:sam", "uses", "tool:strava")),
        ("小王改用了Vim。", ("person:小王", "uses", "tool:vim")),
        ("我们的服务都跑在阿里云上。", ("project:project", "uses", "tool:阿里云")),
    ],
)
def test_chinese_relatives_by_name_own_switches_and_everything_we_run(
    content: str, edge: tuple[str, ...]
) -> None:
    assert _edges(content) == {edge}


def test_a_services_switch_keeps_its_product_whole() -> None:
    """A service's switch is read by `engine.changes`, not as a person's: 腾讯云短信, not 腾讯云."""
    assert _edges("短信通道改用腾讯云短信了，阿里云那边套餐到期就不续了。") == {
        ("project:短信通道", "uses", "tool:腾讯云短信")
    }


@pytest.mark.parametrize(
    ("old", "new", "expected"),
    [
        ("Priya is the tech lead for the search service.",
         "Priya handed the search service over to Tom.", True),
        ("Priya maintains the search service.", "Priya handed the search service to Tom.", True),
        ("Priya leads the search service.", "Priya handed the billing service over to Tom.", False),
        ("Dana leads the search service.", "Priya handed the search service over to Tom.", False),
    ],
)  # fmt: skip
def test_the_one_who_hands_a_thing_over_holds_it_no_more(
    old: str, new: str, expected: bool
) -> None:
    assert replaces(stated_facts(new, "Sam"), stated_facts(old, "Sam"), new) is expected
