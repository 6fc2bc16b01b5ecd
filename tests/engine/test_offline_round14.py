"""Offline rules of issue 29's fourteenth round (2026-12-07): 20 pairs of a fact and its change
in everyday words (EN and ZH). Before, none of these superseded: "We've moved CI over to GitHub
Actions" after "We use Travis for CI" (a function's tool said with another verb), "I've gone
back to Vim", "I'm now living in Valencia", "Marta now works on the growth team", "Files are in
Google Drive now", 支付服务交给小李了, 数据库已经换成PostgreSQL了 after 我们用MySQL; "Trello got
replaced by Linear" kept Trello current, and "Everything is on Hetzner since March" after "We
host on DigitalOcean" left DigitalOcean current. The supersessions are tested end to end in
tests/services/test_contradictions.py."""

from __future__ import annotations

import pytest

from memory.engine.change_ends import change_supersedes
from memory.engine.changes import Change, parse_change
from memory.engine.offline_relations import relations
from memory.engine.offline_relations_zh import chinese_relations
from memory.engine.slots import SlotChoice, slot_choices
from tests.engine.test_offline_round5_events import stored_events


@pytest.mark.parametrize(
    ("content", "change"),
    [
        ("I've gone back to Vim.", Change("now", None, None, "Vim", "use")),
        ("We went back to Jenkins.", Change("now", None, None, "Jenkins", "use")),
        ("Everything is on Hetzner since March.", Change("now", None, None, "Hetzner", "use")),
        ("Since March, the API runs on Fly.io.", Change("now", "API", None, "Fly.io", "host")),
        ("Files are in Google Drive now.", Change("now", "Files", None, "Google Drive", "use")),
    ],
)
def test_a_change_said_as_what_holds_now(content: str, change: Change) -> None:
    assert parse_change(content) == change


@pytest.mark.parametrize(
    "content", ["I went back to bed.", "I've lived here since 2019.", "这件事交给我吧。"]
)
def test_no_change_of_anything_named(content: str) -> None:
    assert parse_change(content) is None
    assert all(kind != "change" for kind, _ in stored_events(content))


@pytest.mark.parametrize(
    "content",
    [
        "I've gone back to Vim.",
        "Marta now works on the growth team.",
        "Ken is now on the data team.",
        "I'm now living in Valencia.",
        "支付服务交给小李了。",
    ],
)
def test_a_move_said_in_everyday_words_is_a_change(content: str) -> None:
    assert stored_events(content) == [("change", "occurred")]


@pytest.mark.parametrize(
    ("content", "value"),
    [("Trello got replaced by Linear.", "Linear"), ("Jira was swapped out for Linear.", "Linear")],
)
def test_the_passives_agent_is_the_choice(content: str, value: str) -> None:
    assert slot_choices(content) == [SlotChoice("issue_tracker", value)]


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("We use Travis for CI.", "We've moved CI over to GitHub Actions."),
        ("The docs live in Confluence.", "We moved the docs to Notion."),
        ("我们用Jenkins做CI。", "现在CI换成GitHub Actions了。"),
        ("我们用MySQL。", "数据库已经换成PostgreSQL了。"),
    ],
)
def test_a_functions_tool_ends_whatever_verb_said_it(old: str, new: str) -> None:
    change = parse_change(new)
    assert change is not None
    assert change_supersedes(change, [old])


def test_a_use_beside_a_functions_change_stays() -> None:
    change = parse_change("We've moved CI over to GitHub Actions.")
    assert change is not None
    assert not change_supersedes(change, ["We use Sentry for errors."])


@pytest.mark.parametrize(
    ("content", "who"),
    [
        ("吴刚负责支付服务。", "吴刚"),
        ("数据组是吴刚带的。", "吴刚"),
        ("数据组由李娜带领。", "李娜"),
    ],
)
def test_a_name_ending_in_gang_and_who_leads_a_team(content: str, who: str) -> None:
    assert [r.subject.name for r in chinese_relations(content)] == [who]


@pytest.mark.parametrize("content", ["他刚加入数据组。", "她也负责支付服务。"])
def test_a_pronoun_with_an_adverb_names_no_one(content: str) -> None:
    assert relations(content) == []
