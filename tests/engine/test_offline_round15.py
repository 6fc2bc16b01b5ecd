"""Offline rules of issue 29's fifteenth round (2026-12-07): a probe of 28 preferences (EN and
ZH). "I'd much rather write Go than Java", "I'm more comfortable in TypeScript" and "Tom would
rather use Emacs" named no preferred tool; "I've always preferred Postgres over MySQL", "I'm not
a fan of Kubernetes" and 我不太喜欢用Jira stored nothing (the last one failed the extraction job:
a verb the preference reader had no word for); "My favourite database is SQLite" made a service
called "favourite database"; and how the assistant is to answer ("Please keep your answers
short", "Always answer in English", 以后回答尽量简短) was not kept at all."""

from __future__ import annotations

import pytest

from memory.engine.offline_events import SourceMessage, extract_events
from tests.engine.test_offline_round5_events import AT, stored_events
from tests.engine.test_offline_round6 import _edges


@pytest.mark.parametrize(
    ("content", "tool"),
    [
        ("I'd much rather write Go than Java.", "go"),
        ("I've always preferred Postgres over MySQL.", "postgresql"),
        ("I'm more comfortable in TypeScript.", "typescript"),
        ("My favourite database is SQLite.", "sqlite"),
    ],
)
def test_a_preferred_tool_said_in_other_words(content: str, tool: str) -> None:
    assert stored_events(content) == [("other", "ongoing")]
    assert _edges(content) == {("person:sam", "prefers", f"tool:{tool}")}


def test_someone_elses_rather() -> None:
    assert _edges("Tom would rather use Emacs.") == {("person:tom", "prefers", "tool:emacs")}


@pytest.mark.parametrize(
    "content", ["I'm not a fan of Kubernetes.", "我不太喜欢用Jira。", "我不怎么喜欢开会。"]
)
def test_a_dislike_is_a_preference(content: str) -> None:
    out = extract_events([SourceMessage(1, "user", content, AT, speaker="Sam")])
    assert [(e.event_type, e.temporal_status, e.criticality) for e in out.events] == [
        ("other", "ongoing", "preference")
    ]


@pytest.mark.parametrize(
    "content",
    [
        "Please keep your answers short.",
        "Always answer in English.",
        "Don't use emojis.",
        "From now on, reply in Chinese.",
        "以后回答尽量简短一点。",
        "以后用中文回复我。",
    ],
)
def test_how_the_assistant_is_to_answer_is_kept_as_a_preference(content: str) -> None:
    out = extract_events([SourceMessage(1, "user", content, AT, speaker="Sam")])
    assert [(e.event_type, e.criticality) for e in out.events] == [("other", "preference")]


@pytest.mark.parametrize(
    "content",
    [
        "Please summarise this.",
        "Keep going.",
        "Can you keep your answers short?",
        "Answer the question above.",
    ],
)
def test_a_one_off_request_is_no_preference(content: str) -> None:
    assert stored_events(content) == []


def test_a_decision_said_from_now_on_stays_a_decision() -> None:
    assert stored_events("From now on we deploy on Fridays.") == [("decision", "occurred")]


def test_a_motto_is_no_instruction_about_answers() -> None:
    # LoCoMo's chat is full of these; read as an instruction they cost a multi-hop question.
    assert stored_events("Never give up on your dreams.") == []


def test_an_adverb_opening_a_rule_names_no_project() -> None:
    assert _edges("Always use TypeScript for new services.") == {
        ("project:project", "uses", "tool:typescript")
    }
