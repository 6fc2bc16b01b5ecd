"""Format detection and the ChatGPT, Claude and Mem0 readers (no database needed)."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import pytest

from memory.errors import Invalid
from memory.services.imports.formats import (
    detect_format,
    parse_conversations,
    parse_mem0,
    parse_time,
)
from tests.imports.conftest import sample


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (sample("v2_export.json"), "v2"),
        (sample("chatgpt_conversations.json"), "chatgpt"),
        (sample("claude_conversations.json"), "claude"),
        (sample("mem0_memories.json"), "mem0"),
        ('[{"memory": "likes tea", "created_at": "2024-01-01"}]', "mem0"),
        ('{"title": "x", "mapping": {}}', "chatgpt"),
        ('{"candidates": []}', "v2"),
        ("[]", "chatgpt"),
        ('{"type": "header", "format": "stratagate.namespace-dump.v1"}\n', "jsonl"),
    ],
)
def test_the_format_is_recognised_by_its_shape(text, expected):
    assert detect_format(text) == expected


def test_an_unrecognised_shape_is_a_named_error():
    with pytest.raises(Invalid) as caught:
        detect_format('{"notes": ["a", "b"]}')
    assert caught.value.code == "unrecognized_format"


def test_times_are_epoch_or_iso_and_naive_means_utc():
    assert parse_time(0) == datetime(1970, 1, 1, tzinfo=UTC)
    assert parse_time("2024-04-02T09:15:00.000000Z") == datetime(2024, 4, 2, 9, 15, tzinfo=UTC)
    assert parse_time("2024-04-02T09:15:00") == datetime(2024, 4, 2, 9, 15, tzinfo=UTC)
    assert parse_time("yesterday") is None and parse_time(True) is None and parse_time(None) is None


def _chatgpt(mapping: dict, current: str | None = None) -> str:
    conversation = {"title": "t", "create_time": 1700000000, "id": "c1", "mapping": mapping}
    if current:
        conversation["current_node"] = current
    return json.dumps([conversation])


def _node(node_id, role, text, parent, children, when=1700000000, kind="text"):
    content = {"content_type": kind, "parts": [text]} if kind == "text" else {"content_type": kind}
    return {
        "id": node_id,
        "parent": parent,
        "children": children,
        "message": {"author": {"role": role}, "create_time": when, "content": content},
    }


def test_chatgpt_without_a_current_node_follows_the_latest_leaf():
    mapping = {
        "a": _node("a", "user", "first?", None, ["b", "c"]),
        "b": _node("b", "assistant", "old answer", "a", [], when=1700000010),
        "c": _node("c", "assistant", "new answer", "a", [], when=1700000020),
    }
    parsed = parse_conversations(_chatgpt(mapping), "chatgpt")
    turn = parsed.conversations[0].turns[0]
    assert [m.content for m in turn] == ["first?", "new answer"]


def test_chatgpt_custom_instructions_are_not_conversation():
    mapping = {
        "a": _node("a", "user", "", None, ["b"], kind="user_editable_context"),
        "b": _node("b", "user", "hello", "a", []),
    }
    parsed = parse_conversations(_chatgpt(mapping, "b"), "chatgpt")
    assert [m.content for m in parsed.conversations[0].turns[0]] == ["hello"]


def test_messages_before_the_first_user_message_join_the_first_turn():
    mapping = {
        "a": _node("a", "assistant", "Welcome!", None, ["b"]),
        "b": _node("b", "user", "hi", "a", ["c"]),
        "c": _node("c", "user", "again", "b", []),
    }
    turns = parse_conversations(_chatgpt(mapping, "c"), "chatgpt").conversations[0].turns
    assert [[m.content for m in t] for t in turns] == [["Welcome!", "hi"], ["again"]]


def test_a_conversation_with_no_messages_is_dropped_and_counted():
    parsed = parse_conversations(sample("claude_conversations.json"), "claude")
    assert (len(parsed.conversations), parsed.dropped) == (2, 1)


def test_a_turn_over_a_turns_limits_is_refused():
    mapping = {"a": _node("a", "user", "x" * (1024 * 1024 + 1), None, [])}
    with pytest.raises(Invalid) as caught:
        parse_conversations(_chatgpt(mapping, "a"), "chatgpt")
    assert caught.value.code == "turn_too_large"


def test_a_chat_export_that_is_not_an_array_is_a_root_error():
    with pytest.raises(Invalid) as caught:
        parse_conversations('"text"', "claude")
    assert caught.value.code == "invalid_import_root"


def test_mem0_takes_a_bare_list_too():
    parsed = parse_mem0('[{"memory": "Likes tea. Every day.", "created_at": "2024-01-01"}]')
    [candidate] = parsed.candidates
    assert candidate["title"] == "Likes tea." and candidate["summary"] == "Likes tea. Every day."
    assert candidate["temporal"]["mentionedAt"] == "2024-01-01T00:00:00+00:00"
    assert parsed.source_system == "Mem0"


def test_a_long_first_sentence_becomes_a_shortened_title():
    parsed = parse_mem0(json.dumps([{"memory": "word " * 40}]))
    assert len(parsed.candidates[0]["title"]) == 80
    assert parsed.candidates[0]["title"].endswith("…")
