"""Issue 29's thirty-second round (2026-12-07, a new tuning set `memory_quality_dev7.json`):
"We've moved to Lisbon" made a person called "We've" live there; 用户服务调用订单服务 was a
use of 订单服务 by "用户服务调" and no dependency; 数据库用的是MySQL ran a project called
数据库; 李雷不维护支付服务了，交给了韩梅梅 gave it to no one; 我现在在字节跳动做产品 after
我在腾讯做产品经理 was no change."""

from __future__ import annotations

import pytest

from memory.engine.changes import stated_uses
from memory.engine.stated_facts import replaces, stated_facts
from tests.engine.test_offline_round5_events import stored_events
from tests.engine.test_offline_round6 import _edges


@pytest.mark.parametrize(
    "content",
    ["We've moved to Lisbon.", "We have finally moved to Lisbon.", "I've moved to Lisbon."],
)
def test_we_have_moved_is_the_speakers_home(content: str) -> None:
    assert stored_events(content) == [("change", "occurred")]
    assert _edges(content) == {("person:sam", "lives_in", "place:lisbon")}


@pytest.mark.parametrize(
    ("content", "edge"),
    [
        ("用户服务调用订单服务。", ("project:用户服务", "depends_on", "project:订单服务")),
        ("数据库用的是MySQL。", ("project:project", "uses", "tool:mysql")),
        ("订单数据库用的是MySQL。", ("project:订单数据库", "uses", "tool:mysql")),
        ("李雷不维护支付服务了，交给了韩梅梅。", ("person:韩梅梅", "owns", "project:支付服务")),
        (
            "李雷不负责支付服务了，现在交给韩梅梅负责。",
            ("person:韩梅梅", "owns", "project:支付服务"),
        ),
        ("我不管支付服务了，交给了韩梅梅。", ("person:韩梅梅", "owns", "project:支付服务")),
    ],
)
def test_calls_the_teams_database_and_a_hand_over_said_after_letting_go(
    content: str, edge: tuple[str, ...]
) -> None:
    assert _edges(content) == {edge}


@pytest.mark.parametrize("content", ["用户服务调用订单服务。", "这个应用的费用很高。"])
def test_the_yong_of_a_longer_word_is_no_use(content: str) -> None:
    assert stated_uses(content) == []


def test_letting_go_and_handing_over_replaces_the_one_who_looked_after_it() -> None:
    old, new = "支付服务是李雷在维护。", "李雷不维护支付服务了，交给了韩梅梅。"
    assert replaces(stated_facts(new, "王芳"), stated_facts(old, "王芳"), new)


@pytest.mark.parametrize(
    ("content", "events"),
    [
        ("我现在在字节跳动做产品。", [("change", "occurred")]),
        ("我现在住在深圳。", [("change", "occurred")]),
        ("我目前在腾讯工作。", [("other", "ongoing")]),
        ("我现在在公司。", []),
    ],
)
def test_a_job_or_home_said_as_now_is_a_change(content: str, events: list[tuple[str, str]]) -> None:
    assert stored_events(content) == events
