"""Traditional Chinese read by the rules written for Simplified text, named as written."""

from __future__ import annotations

from datetime import UTC, datetime

from memory.engine.changes import Change, parse_change
from memory.engine.hant import is_traditional, restored, simplified
from memory.engine.offline_events import SourceMessage, extract_events
from memory.engine.offline_graph import project_events
from tests.engine.test_offline_graph import projected

AT = datetime(2026, 4, 27, 10, tzinfo=UTC)


def test_traditional_text_is_read_in_simplified_form_of_the_same_length() -> None:
    said = "物流我們改用新竹物流了，黑貓這個月開始就不再用"
    read = simplified(said)
    assert read == "物流我们改用新竹物流了，黑猫这个月开始就不再用"
    assert len(read) == len(said)


def test_simplified_text_and_shared_characters_are_left_alone() -> None:
    for said in ("我们改用飞书了", "著名的乾隆年间", "Jira and Linear"):
        assert not is_traditional(said)
        assert simplified(said) == said


def test_what_is_read_out_is_given_back_as_written() -> None:
    said = "出貨都走黑貓宅急便"
    pairs = [(simplified(said), said)]
    assert restored("黑猫宅急便", pairs) == "黑貓宅急便"
    assert restored("project uses 黑猫宅急便!", pairs) == "project uses 黑貓宅急便!"
    assert restored("没见过的字", pairs) == "没见过的字"  # not in the text: as it is


def test_traditional_changes_and_uses_are_read() -> None:
    assert parse_change("物流我們改用新竹物流了，黑貓這個月開始就不再用") == Change(
        "now", "物流", "黑猫", "新竹物流", "use"
    )
    proposal = project_events(projected("出貨都走黑貓宅急便。", speaker="林雅婷"))
    (edge,) = proposal.edges
    names = {n.key: n.name for n in proposal.nodes}
    assert (names[edge.from_key], edge.relation, names[edge.to_key]) == (
        "project",
        "uses",
        "黑貓宅急便",
    )


def test_traditional_events_keep_the_users_characters() -> None:
    said = "我們不賣茶包，也不做調味茶，只賣原片茶葉"
    out = extract_events([SourceMessage(1, "user", said, AT, "林雅婷")])
    (event,) = out.events
    assert event.event_type == "other"
    assert event.quotes == [said]
    assert "茶葉" in event.summary and "茶叶" not in event.summary
    assert event.title == said
