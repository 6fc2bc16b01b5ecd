"""Issue 29's thirty-ninth round (2026-12-07): a probe of 40 negations put right and everyday
facts. A move to a team read as a home ("she moved to the ML team" → lives in "ML"); a
negated dependency kept its tool as used ("The auth service doesn't depend on Redis anymore");
"I don't like VS Code; I prefer Neovim" read its denial as "I like I prefer Neovim" and
stated nothing; and no edge for "we've always been on Postgres", "The team has always been on
Jira", "…; Raj maintains it now", "I'm not using Notion anymore; I switched to Obsidian",
"I left Berlin and moved to Lyon", 我不用微信办公，用钉钉, or a move to a team said as a squad,
a group or a transfer. A probe of 27 pairs of a fact and its later change found "Standup is at
10 now", "I'm in Manchester now" (no event at all) and "I'm not using Chrome anymore; I
switched to Firefox" superseding nothing (browsers were no known tools either). A third, 12
everyday statements, found "Priya's favourite editor is Helix" (no edge), "My favourite city is
Lisbon" (a tool "Lisbon") and 新同事小周加入了前端组 (no edge)."""

from __future__ import annotations

import pytest

from memory.engine.changes import parse_change
from memory.engine.plain_clauses import corrected
from memory.engine.slots import slot_of
from tests.engine.test_offline_round5_events import stored_events
from tests.engine.test_offline_round6 import _edges

SAM = "person:sam"  # the speaker of tests.engine.test_offline_round6._edges


@pytest.mark.parametrize(
    ("content", "edges"),
    [
        (
            "Lena isn't on the data team anymore, she moved to the ML team.",
            {("person:lena", "member_of", "organization:mlteam")},
        ),
        (
            "Tom moved to the platform squad.",
            {("person:tom", "member_of", "organization:platformsquad")},
        ),
        (
            "Tom transferred to the payments team.",
            {("person:tom", "member_of", "organization:paymentsteam")},
        ),
        (
            "Tom moved from the data group to the ML group.",
            {("person:tom", "member_of", "organization:mlgroup")},
        ),
        (
            "I sold my flat and moved to the Platform team.",
            {(SAM, "member_of", "organization:platformteam")},
        ),
    ],
)
def test_a_team_moved_to_is_a_membership_not_a_home(
    content: str, edges: set[tuple[str, ...]]
) -> None:
    assert _edges(content) == edges


@pytest.mark.parametrize(
    ("content", "edges"),
    [
        ("The auth service doesn't depend on Redis anymore.", set()),
        ("It doesn't talk to Postgres directly.", set()),
        (
            "We don't host on AWS anymore, it's all on GCP now.",
            {("project:project", "uses", "tool:googlecloud")},
        ),
        (
            "The auth service depends on Redis.",
            {("project:authservice", "depends_on", "tool:redis")},
        ),
    ],
)
def test_a_denied_dependency_uses_nothing(content: str, edges: set[tuple[str, ...]]) -> None:
    assert _edges(content) == edges


@pytest.mark.parametrize(
    "content",
    [
        "I don't like VS Code; I prefer Neovim.",
        "I don't like VS Code, I prefer Neovim.",
        "I'm not a fan of Jira, I prefer Neovim.",
    ],
)
def test_what_one_prefers_after_a_denial_is_a_clause_of_its_own(content: str) -> None:
    assert corrected(content) is None
    assert _edges(content) == {(SAM, "prefers", "tool:neovim")}


def test_a_denial_put_right_by_a_thing_is_still_read() -> None:
    assert corrected("Tom isn't on the data team anymore, he's on identity.") == (
        "Tom is on the identity team."
    )


@pytest.mark.parametrize(
    ("content", "edge"),
    [
        ("We've been on Postgres for years.", ("project:project", "uses", "tool:postgresql")),
        ("We've always been on Postgres.", ("project:project", "uses", "tool:postgresql")),
        (
            "We never used MongoDB, we've always been on Postgres.",
            ("project:project", "uses", "tool:postgresql"),
        ),
        ("The team has always been on Jira.", ("project:project", "uses", "tool:jira")),
    ],
)
def test_what_the_team_has_long_been_on_is_used(content: str, edge: tuple[str, ...]) -> None:
    assert _edges(content) == {edge}
    assert stored_events(content) == [("other", "ongoing")]


@pytest.mark.parametrize(
    "content", ["We've been on a call all morning.", "We have been on vacation."]
)
def test_being_on_no_named_thing_uses_nothing(content: str) -> None:
    assert _edges(content) == set()


@pytest.mark.parametrize(
    ("content", "edges"),
    [
        (
            "Emma no longer maintains the SDK; Raj maintains it now.",
            {("person:raj", "maintains", "project:sdk")},
        ),
        (
            "Emma doesn't maintain the SDK anymore; Raj maintains it now.",
            {("person:raj", "maintains", "project:sdk")},
        ),
        # Another verb says something else of it: no hand-over read.
        ("Emma doesn't own the SDK anymore; Raj reviews it now.", set()),
    ],
)
def test_the_one_who_does_it_now_said_with_the_verb_again(
    content: str, edges: set[tuple[str, ...]]
) -> None:
    assert _edges(content) == edges


@pytest.mark.parametrize(
    ("content", "edge"),
    [
        ("I'm not using Notion anymore; I switched to Obsidian.", (SAM, "uses", "tool:obsidian")),
        ("I'm not using Notion anymore, switched to Obsidian.", (SAM, "uses", "tool:obsidian")),
        ("I stopped using Notion and switched to Obsidian.", (SAM, "uses", "tool:obsidian")),
        ("I don't like VS Code, so I switched to Neovim.", (SAM, "uses", "tool:neovim")),
        ("I left Berlin and moved to Lyon.", (SAM, "lives_in", "place:lyon")),
        ("I quit my job and moved to Lisbon last spring.", (SAM, "lives_in", "place:lisbon")),
        ("我不用微信办公，用钉钉。", (SAM, "uses", "tool:钉钉")),
        ("老王不用Windows，只用Mac。", ("person:老王", "uses", "tool:mac")),
        ("我不喜欢Chrome，用Firefox。", (SAM, "uses", "tool:firefox")),
    ],
)
def test_the_speakers_later_clause_after_a_denial(content: str, edge: tuple[str, ...]) -> None:
    assert _edges(content) == {edge}


@pytest.mark.parametrize(
    ("content", "event"),
    [
        ("I'm in Manchester now.", ("change", "occurred")),
        ("I live in Manchester now.", ("change", "occurred")),
        ("Ravi works at Stripe now.", ("change", "occurred")),
        ("Standup is at 10 now.", ("change", "occurred")),
        ("Retro is on Thursdays now.", ("change", "occurred")),
    ],
)
def test_where_one_is_or_when_a_thing_is_said_as_now_is_a_change(
    content: str, event: tuple[str, str]
) -> None:
    assert stored_events(content) == [event]


@pytest.mark.parametrize("content", ["I'm in London now for the conference.", "I'm in Slack now."])
def test_now_beside_a_visit_or_a_tool_is_no_home(content: str) -> None:
    assert stored_events(content) == []
    assert _edges(content) == set()


@pytest.mark.parametrize(
    ("content", "old"),
    [
        ("I'm not using Chrome anymore.", "Chrome"),
        ("We aren't using Jira anymore.", "Jira"),
        ("We're not using Jira anymore, we moved to Linear.", "Jira"),
    ],
)
def test_not_using_a_thing_anymore_stops_its_use(content: str, old: str) -> None:
    change = parse_change(content)
    assert change is not None and (change.kind, change.old) == ("stop", old)


@pytest.mark.parametrize(
    ("content", "edges"),
    [
        ("Priya's favourite editor is Helix.", {("person:priya", "prefers", "tool:helix")}),
        ("My favourite editor is VS Code.", {(SAM, "prefers", "tool:vscode")}),
        ("Helix is my editor of choice.", {(SAM, "prefers", "tool:helix")}),
        # A favourite that is no kind of tool names no tool.
        ("My favourite city is Lisbon.", set()),
        ("Tom's favourite band is Muse.", set()),
    ],
)
def test_a_favourite_is_a_preferred_tool_only_when_it_is_a_tool(
    content: str, edges: set[tuple[str, ...]]
) -> None:
    assert _edges(content) == edges


@pytest.mark.parametrize(
    ("content", "edge"),
    [
        ("新同事小周加入了前端组。", ("person:小周", "member_of", "organization:前端组")),
        ("新人小李在测试组。", ("person:小李", "member_of", "organization:测试组")),
    ],
)
def test_a_newcomer_is_named_after_how_they_are_known(content: str, edge: tuple[str, ...]) -> None:
    assert _edges(content) == {edge}


@pytest.mark.parametrize(
    ("content", "edge"),
    [
        (
            "Our mobile app is built with React Native.",
            ("project:mobileapp", "uses", "tool:reactnative"),
        ),
        (
            "We moved the mobile app from Flutter to React Native.",
            ("project:mobileapp", "uses", "tool:reactnative"),
        ),
        ("We use React for the web app.", ("project:project", "uses", "tool:react")),
    ],
)
def test_react_native_is_a_mobile_framework_of_its_own(content: str, edge: tuple[str, ...]) -> None:
    assert _edges(content) == {edge}
    assert slot_of("react native") == ("mobile_framework", "React Native")
