"""ChatGPT and Claude conversation exports become sessions of turns (processed like any
conversation) and Mem0 memories become candidates — all through preview, commit and undo."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from memory.models import (
    Block,
    Event,
    IngestReceipt,
    Message,
    Namespace,
    ProcessingJob,
    Session,
    Turn,
)
from tests.dumps import memory_dump
from tests.imports.conftest import run_import, sample

pytestmark = pytest.mark.django_db

CHATGPT_SESSION = "chatgpt:6553a1f0-1111-4c2a-9d3e-aaaaaaaaaaaa"


def _commit(owner, preview, choices=None):
    response = owner.post(
        f"/ns/proj/imports/{preview['import_id']}/commit",
        {"choices": choices} if choices is not None else {},
    )
    assert response.status_code == 200, response.content
    return response.json()


def test_chatgpt_export_becomes_sessions_with_original_times(owner, drain):
    preview = run_import(owner, drain, sample("chatgpt_conversations.json"))
    assert (preview["format"], preview["kind"], preview["status"]) == (
        "chatgpt",
        "conversations",
        "ready",
    )
    assert [d["candidate"]["title"] for d in preview["decisions"]] == [
        "Choosing a package manager",
        "Trip to Lisbon",
    ]
    assert {d["action"] for d in preview["decisions"]} == {"add"}
    assert not Session.objects.exists()  # nothing is ingested before commit

    body = _commit(owner, preview)
    assert body["session_ids"] == [CHATGPT_SESSION, "chatgpt:6558e2b1-2222-4e7b-8c1a-bbbbbbbbbbbb"]
    session = Session.objects.get(external_id=CHATGPT_SESSION)
    turns = list(Turn.objects.filter(session=session).order_by("session_turn"))
    assert len(turns) == 2 and not any(t.synthetic for t in turns)
    assert turns[0].occurred_at == datetime.fromtimestamp(1699954200.5, tz=UTC)
    contents = list(
        Message.objects.filter(session=session).order_by("turn__session_turn", "position")
    )
    assert [m.role for m in contents] == ["user", "assistant", "user", "assistant", "assistant"]
    assert "regenerated" not in " ".join(m.content for m in contents)  # other branch left out
    assert contents[3].content == "```\ncorepack enable\npnpm import\n```"
    lisbon = Message.objects.filter(session__external_id__endswith="bbbb").order_by("position")
    assert [m.role for m in lisbon] == ["user", "tool", "assistant"]
    assert lisbon[0].content.startswith("[image_asset_pointer]\nI moved to Lisbon")
    assert lisbon[1].name == "browser"
    assert Namespace.objects.get(name="proj").current_turn == 3
    assert IngestReceipt.objects.count() == 3


def test_conversation_import_is_processed_and_undone_exactly(owner, drain, one_turn_blocks, say):
    say("Use npm for the Atlas project.")
    say("I prefer coffee in the morning.")
    drain()
    namespace = Namespace.objects.get(name="proj")
    before = memory_dump(namespace)
    preview = run_import(owner, drain, sample("chatgpt_conversations.json"))
    _commit(owner, preview)
    drain()  # the imported turns are sealed, processed and extracted like any conversation
    imported_blocks = Block.objects.filter(session__external_id__startswith="chatgpt:")
    assert imported_blocks.count() == 3 and {b.status for b in imported_blocks} == {"ready"}
    assert Event.objects.filter(source_block__in=imported_blocks).exists()

    undone = owner.post(f"/ns/proj/imports/{preview['import_id']}/undo")
    assert undone.status_code == 200
    assert undone.json()["removed_event_ids"]
    assert not Session.objects.filter(external_id__startswith="chatgpt:").exists()
    assert not ProcessingJob.objects.filter(block__in=imported_blocks).exists()
    assert memory_dump(namespace) == before


def test_a_conversation_already_imported_is_ignored(owner, drain):
    first = run_import(owner, drain, sample("chatgpt_conversations.json"))
    _commit(owner, first)
    again = run_import(owner, drain, sample("chatgpt_conversations.json"))
    assert [d["action"] for d in again["decisions"]] == ["ignore", "ignore"]
    assert {d["confidence"] for d in again["decisions"]} == {1.0}
    body = _commit(owner, again)
    assert body["session_ids"] == [] and Turn.objects.count() == 3


def test_a_conversation_can_be_left_out_by_choice(owner, drain):
    preview = run_import(owner, drain, sample("chatgpt_conversations.json"))
    body = _commit(owner, preview, [{"index": 1, "action": "ignore"}])
    assert body["session_ids"] == [CHATGPT_SESSION]
    bad = owner.post(
        f"/ns/proj/imports/{preview['import_id']}/commit",
        {"choices": [{"index": 0, "action": "supersede"}]},
    )
    assert bad.status_code == 409  # already committed


def test_a_conversation_import_only_adds_or_ignores(owner, drain):
    preview = run_import(owner, drain, sample("chatgpt_conversations.json"))
    response = owner.post(
        f"/ns/proj/imports/{preview['import_id']}/commit",
        {"choices": [{"index": 0, "action": "merge"}]},
    )
    assert response.status_code == 422
    assert response.json()["error"]["code"] == "invalid_choice"
    assert not Session.objects.exists()


def test_claude_export_keeps_tool_calls_and_attachments(owner, drain):
    preview = run_import(owner, drain, sample("claude_conversations.json"))
    assert preview["format"] == "claude"
    assert (preview["total"], preview["dropped"]) == (2, 1)
    assert preview["decisions"][1]["candidate"]["title"] == "Claude conversation 2"
    _commit(owner, preview)
    session = Session.objects.get(external_id="claude:1b7c2d4e-3333-4f5a-8b6c-cccccccccccc")
    messages = list(
        Message.objects.filter(session=session).order_by("turn__session_turn", "position")
    )
    assert [m.role for m in messages] == ["user", "assistant", "user", "assistant"]
    assert messages[1].tool_calls == [
        {
            "name": "web_search",
            "arguments": {"query": "pgloader mysql to postgres"},
            "result": [{"type": "text", "text": "pgloader docs"}],
        }
    ]
    assert "[attachment schema.sql]\nCREATE TABLE users" in messages[2].content
    assert messages[2].created_at == datetime(2024, 4, 2, 9, 38, tzinfo=UTC)
    assert Turn.objects.filter(session=session).count() == 2


def test_mem0_memories_become_candidates(owner, drain):
    preview = run_import(owner, drain, sample("mem0_memories.json"))
    assert (preview["format"], preview["kind"]) == ("mem0", "memories")
    assert (preview["total"], preview["dropped"]) == (3, 1)
    first, second, third = (d["candidate"] for d in preview["decisions"])
    assert first["title"] == "Is a vegetarian and allergic to peanuts."
    assert first["tags"] == ["mem0", "food", "health"]
    assert first["temporal"]["mentionedAt"] == "2024-07-20T01:23:45.123456-07:00"
    assert second["title"] == "Works at Northwind Labs."
    assert third["title"] == "喜欢在周末爬山。"
    body = _commit(owner, preview)
    assert len(body["created_event_ids"]) == 3
    event = Event.objects.get(pk=body["created_event_ids"][0])
    assert event.mentioned_at == datetime(2024, 7, 20, 8, 23, 45, 123456, tzinfo=UTC)
    assert event.origin == "import"


def test_undo_takes_a_conversation_mention_back_out_of_the_event(
    owner, drain, one_turn_blocks, say
):
    """An imported conversation that restates a known fact adds a mention to its event (issue
    29); undoing the import removes that mention, its sources and quotes: the dump is as before."""
    say("Let's switch to pnpm for Atlas then.")
    drain()
    namespace = Namespace.objects.get(name="proj")
    event = Event.objects.get()
    before = memory_dump(namespace)
    preview = run_import(owner, drain, sample("chatgpt_conversations.json"))
    _commit(owner, preview)
    drain()
    event.refresh_from_db()
    assert event.mention_count == 2
    assert event.source_messages.filter(session__external_id=CHATGPT_SESSION).exists()

    assert owner.post(f"/ns/proj/imports/{preview['import_id']}/undo").status_code == 200
    event.refresh_from_db()
    assert (event.mention_count, event.last_mentioned_at) == (1, None)
    assert memory_dump(namespace) == before
