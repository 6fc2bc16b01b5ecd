"""Conversation imports go through batch ingest: long exports span several batches in order,
receipts stay those of one-by-one ingest, and committing the same turns again stores nothing."""

from __future__ import annotations

import json
from typing import Any

import pytest

from memory.models import Block, IngestReceipt, Message, Namespace, Session, Turn
from memory.services.imports import commit as commit_module
from tests.imports.conftest import run_import, sample

pytestmark = pytest.mark.django_db

START = 1_700_000_000.0


def _chatgpt(conversation_id: str, turns: int, start: float) -> dict[str, Any]:
    """A linear ChatGPT conversation: user and assistant alternate, a minute apart."""
    mapping: dict[str, Any] = {"root": {"id": "root", "message": None, "parent": None}}
    parent, children = "root", mapping["root"]
    for n in range(turns * 2):
        node = f"{conversation_id}-{n}"
        role = ("user", "assistant")[n % 2]
        mapping[node] = {
            "id": node,
            "parent": parent,
            "message": {
                "id": node,
                "author": {"role": role, "name": None, "metadata": {}},
                "create_time": start + 60 * n,
                "content": {"content_type": "text", "parts": [f"{role} says {n // 2 + 1}"]},
                "metadata": {},
            },
        }
        children["children"] = [node]
        parent, children = node, mapping[node]
    children["children"] = []
    return {
        "title": f"Conversation {conversation_id}",
        "create_time": start,
        "id": conversation_id,
        "conversation_id": conversation_id,
        "current_node": parent,
        "mapping": mapping,
    }


def _commit(owner: Any, preview: dict[str, Any], choices: Any = None) -> dict[str, Any]:
    body = {"choices": choices} if choices is not None else {}
    response = owner.post(f"/ns/proj/imports/{preview['import_id']}/commit", body)
    assert response.status_code == 200, response.content
    return response.json()


def test_a_long_export_is_ingested_in_batches_in_order(owner, drain, monkeypatch) -> None:
    sizes: list[int] = []
    real = commit_module.turn_batch_ingest

    def spy(**kwargs: Any) -> Any:
        sizes.append(len(kwargs["turns"]))
        return real(**kwargs)

    monkeypatch.setattr(commit_module, "turn_batch_ingest", spy)
    export = [_chatgpt("first", 130, START), _chatgpt("second", 130, START + 86_400)]
    preview = run_import(owner, drain, json.dumps(export))
    body = _commit(owner, preview)

    assert sizes == [200, 60]  # the first batch spans both conversations
    assert body["session_ids"] == ["chatgpt:first", "chatgpt:second"]
    assert Namespace.objects.get(name="proj").current_turn == 260
    for name in ("chatgpt:first", "chatgpt:second"):
        turns = list(Turn.objects.filter(session__external_id=name).order_by("session_turn"))
        assert [t.session_turn for t in turns] == list(range(1, 131))
        assert [t.occurred_at for t in turns] == sorted(t.occurred_at for t in turns)
        assert turns[-1].messages.get(position=1).content == "assistant says 130"
        assert Block.objects.filter(session__external_id=name).count() == 130 // 6
    receipts = set(IngestReceipt.objects.values_list("receipt_id", flat=True))
    assert receipts == {f"chatgpt:{c}#{n}" for c in ("first", "second") for n in range(1, 131)}


def test_committing_the_same_conversations_again_stores_nothing(owner, drain) -> None:
    first = run_import(owner, drain, sample("chatgpt_conversations.json"))
    _commit(owner, first)
    counts = (Session.objects.count(), Turn.objects.count(), Message.objects.count())
    receipts = set(IngestReceipt.objects.values_list("receipt_id", "turn_id"))

    again = run_import(owner, drain, sample("chatgpt_conversations.json"))
    # Forced back to "add": the turns are replays of their receipts.
    body = _commit(owner, again, [{"index": 0, "action": "add"}, {"index": 1, "action": "add"}])

    assert len(body["session_ids"]) == 2
    assert (Session.objects.count(), Turn.objects.count(), Message.objects.count()) == counts
    assert set(IngestReceipt.objects.values_list("receipt_id", "turn_id")) == receipts
    assert Namespace.objects.get(name="proj").current_turn == 3
