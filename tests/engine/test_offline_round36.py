"""Issue 29's thirty-sixth round (2026-12-07, a probe of people joining, leaving and liking):
"Sofia rejoined the data team", "Ben is back on the mobile team" and 老赵回到了运维组 made no
member (nor the second a change); "Yuki left the search team" and 张伟离开了数据组 ended no
membership; "Tom is a big Rust fan" preferred nothing."""

from __future__ import annotations

import pytest

from memory.engine.stated_facts import Fact, ended_facts
from tests.engine.test_offline_round5_events import stored_events
from tests.engine.test_offline_round6 import _edges


@pytest.mark.parametrize(
    ("content", "edge"),
    [
        ("Sofia rejoined the data team.", ("person:sofia", "member_of", "organization:datateam")),
        ("Ben is back on the mobile team.", ("person:ben", "member_of", "organization:mobileteam")),
        ("老赵回到了运维组。", ("person:老赵", "member_of", "organization:运维组")),
    ],
)
def test_coming_back_to_a_team_is_a_change_and_a_membership(
    content: str, edge: tuple[str, ...]
) -> None:
    assert stored_events(content) == [("change", "occurred")]
    assert _edges(content) == {edge}


@pytest.mark.parametrize(
    ("content", "ended"),
    [
        ("Yuki left the search team.", Fact("yuki", "member_of", "search team")),
        ("张伟离开了数据组。", Fact("张伟", "member_of", "数据组")),
        ("I left the platform team last week.", Fact("kira", "member_of", "platform team")),
    ],
)
def test_leaving_a_team_ends_the_membership(content: str, ended: Fact) -> None:
    assert ended in ended_facts(content, "Kira")


@pytest.mark.parametrize(
    ("content", "edges"),
    [
        ("Tom is a big Rust fan.", {("person:tom", "prefers", "tool:rust")}),
        ("I'm a huge Vim user.", {("person:sam", "prefers", "tool:vim")}),
        ("She's a big fan.", set()),
    ],
)
def test_a_big_fan_of_a_tool_prefers_it(content: str, edges: set[tuple[str, str, str]]) -> None:
    assert _edges(content) == edges
