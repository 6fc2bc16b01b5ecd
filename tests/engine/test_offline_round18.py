"""Offline rules of issue 29's eighteenth round (2026-12-07): 28 sentences that could make a
wrong edge or miss an obvious one. "Ben is a big fan of the Lakers" made Ben prefer a tool
called "Lake"; 我们组用飞书沟通 named a project "组"; "We use Zoom for standups and Slack for
everything else" used only Zoom."""

from __future__ import annotations

from memory.engine.changes import Use, stated_uses
from tests.engine.test_offline_round6 import _edges


def test_a_fan_of_something_that_is_no_technology_prefers_no_tool() -> None:
    assert _edges("Ben is a big fan of the Lakers.") == set()
    assert _edges("Rahul is a huge fan of Emacs.") == {("person:rahul", "prefers", "tool:emacs")}


def test_our_own_group_is_we() -> None:
    assert stated_uses("我们组用飞书沟通。") == [Use(None, "飞书", "use")]
    assert _edges("我们组用飞书沟通。") == {("project:project", "uses", "tool:飞书")}


def test_a_second_tool_after_a_purpose() -> None:
    assert stated_uses("We use Zoom for standups and Slack for everything else.") == [
        Use(None, "Zoom", "use"),
        Use(None, "Slack", "use"),
    ]
    assert stated_uses("We use Jira for tickets and Confluence for docs.") == [
        Use(None, "Jira", "use"),
        Use(None, "Confluence", "use"),
    ]
