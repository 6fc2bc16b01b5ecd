"""What the model saw, recorded per exchange (docs/PROXY.md, "What the model saw"): the blocks a
layered request sent in place of earlier turns, with their levels and turns and the history's
token figures as sent and as native, written beside the injected memory in the same write,
and also when nothing was injected."""

from __future__ import annotations

import pytest

from memory.engine.tokens import estimate_tokens
from memory.models import ProxyExchange, Session
from tests.proxy.test_history import (
    PLAIN,
    SESSION,
    blocks,
    conversation,
    talk,
    tokens,
)
from tests.proxy.test_injection import FACT, QUESTION, remember

pytestmark = pytest.mark.django_db(transaction=True)


def last_exchange() -> ProxyExchange:
    session = Session.objects.get(external_id=SESSION)
    return ProxyExchange.objects.filter(session=session).order_by("-id").first()


def test_a_layered_request_without_memory_records_its_blocks_and_tokens(proxy, upstream):
    history = conversation(proxy, upstream, 7)
    shown = blocks()
    raw = talk(proxy.openai(default_headers=PLAIN), history, "Turn 8: what was fact 2?")
    proxy.settle()
    exchange = last_exchange()
    assert exchange.injected_text == "" and exchange.activation_id is None
    sent_messages = upstream.last.json["messages"]
    assert exchange.history_blocks == [
        {
            "block_id": block.block.pk,
            "level": block.level,
            "first_turn": block.turn_range[0],
            "last_turn": block.turn_range[1],
            "tokens": estimate_tokens(message["content"]),
        }
        for block, message in zip(shown[:2], sent_messages[:2], strict=True)
    ]
    assert [b["level"] for b in exchange.history_blocks] == [1, 3]
    assert (exchange.history_sent_tokens, exchange.history_native_tokens) == tokens(raw)


def test_a_layered_and_injected_request_records_both(proxy, upstream):
    history = conversation(proxy, upstream, 7)
    remember(session="earlier", text=FACT)
    client = proxy.openai(default_headers={"X-StrataGate-Session": SESSION})
    raw = talk(client, history, QUESTION)
    proxy.settle()
    exchange = last_exchange()
    assert "PostgreSQL 16" in exchange.injected_text and exchange.activation_id is not None
    assert [b["level"] for b in exchange.history_blocks] == [1, 3]
    assert (exchange.history_sent_tokens, exchange.history_native_tokens) == tokens(raw)


def test_a_native_request_records_no_blocks(proxy, upstream):
    history = conversation(proxy, upstream, 7)
    headers = {**PLAIN, "X-StrataGate-History": "native"}
    talk(proxy.openai(default_headers=headers), history, "Turn 8")
    proxy.settle()
    exchange = last_exchange()
    assert exchange.history_blocks == []
    assert (exchange.history_sent_tokens, exchange.history_native_tokens) == (None, None)
