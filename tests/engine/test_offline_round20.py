"""Offline rules of issue 29's twentieth round (2026-12-07): 18 changes of tool said in one
sentence. "We swapped Datadog for Grafana Cloud" stored nothing; "Our CI went from CircleCI to
Buildkite in May" and "Auth is handled by Clerk now instead of Auth0" were no change and named
no tool; "The mobile team now reports to Priya" named no lead."""

from __future__ import annotations

import pytest

from memory.engine.changes import Change, parse_change
from tests.engine.test_offline_round5_events import stored_events
from tests.engine.test_offline_round6 import _edges


@pytest.mark.parametrize(
    ("content", "change", "edge"),
    [
        (
            "We swapped Datadog for Grafana Cloud.",
            Change("replace", None, "Datadog", "Grafana Cloud", "use"),
            ("project:project", "uses", "tool:grafanacloud"),
        ),
        (
            "Our CI went from CircleCI to Buildkite in May.",
            Change("switch", "CI", "CircleCI", "Buildkite", "use"),
            ("project:project", "uses", "tool:buildkite"),
        ),
        (
            "Auth is handled by Clerk now instead of Auth0.",
            Change("instead", "Auth", "Auth0", "Clerk", "use"),
            ("project:project", "uses", "tool:clerk"),
        ),
    ],
)
def test_a_change_of_tool_in_other_words(
    content: str, change: Change, edge: tuple[str, str, str]
) -> None:
    assert parse_change(content) == change
    assert stored_events(content) == [("change", "occurred")]
    assert _edges(content) == {edge}  # the old tool is no use


@pytest.mark.parametrize("content", ["I went to Paris.", "We went from five to ten engineers."])
def test_going_somewhere_or_growing_is_no_change_of_tool(content: str) -> None:
    assert parse_change(content) is None


def test_a_team_that_now_reports_to_someone_is_led_by_them() -> None:
    assert _edges("The mobile team now reports to Priya.") == {
        ("person:priya", "leads", "organization:mobileteam")
    }
