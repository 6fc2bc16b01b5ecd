"""Issue 29's twenty-eighth round (2026-12-07): what holds after what ended. "We no longer run on
Heroku, the API is on Fly.io" kept Heroku as the project's host and placed nothing on the API;
"I no longer live in Boston; I'm in Denver now" gave no home; "推荐服务不是跑在AWS上的，是跑在
阿里云上" placed nothing."""

from __future__ import annotations

import pytest

from memory.engine.changes import Use, stated_uses
from tests.engine.test_offline_round6 import _edges


@pytest.mark.parametrize(
    ("content", "edges"),
    [
        (
            "We no longer run on Heroku, the API is on Fly.io.",
            {("project:api", "runs_on", "tool:fly.io")},
        ),
        ("We no longer run on Heroku.", set()),
        (
            "I no longer live in Boston; I'm in Denver now.",
            {("person:sam", "lives_in", "place:denver")},
        ),
        (
            "推荐服务不是跑在AWS上的，是跑在阿里云上。",
            {("project:推荐服务", "runs_on", "tool:阿里云")},
        ),
        (
            "The backend isn't on Heroku, it's on Render.",
            {("project:backend", "runs_on", "tool:render")},
        ),
    ],
)
def test_what_holds_after_what_ended_or_was_denied(
    content: str, edges: set[tuple[str, str, str]]
) -> None:
    assert _edges(content) == edges


def test_a_denial_put_right_is_read_for_its_use() -> None:
    assert stated_uses("推荐服务不是跑在AWS上的，是跑在阿里云上。") == [
        Use("推荐服务", "阿里云", "host")
    ]
