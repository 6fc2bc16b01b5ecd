"""The real `anthropic` SDK through the proxy: streaming with `input_json_delta`, tool use across
requests, `system` as a string or blocks with `cache_control`, relayed endpoints, and a client
that keeps its own key (the StrataGate token in `X-StrataGate-Token`)."""

from __future__ import annotations

import anthropic
import pytest

from memory.models import Message, ProxyExchange, Session, Turn
from tests.fakes.model_upstream import Answer, Call

pytestmark = pytest.mark.django_db(transaction=True)

TOOLS = [{"name": "get_weather", "description": "Weather now.", "input_schema": {"type": "object"}}]


def test_a_streamed_tool_loop_is_one_turn_with_its_call_and_result(proxy, upstream):
    upstream.script(
        Answer(
            "Let me check.",
            tool_calls=[Call("toolu_1", "get_weather", {"city": "Oslo", "unit": "C"})],
        ),
        Answer("It is 3 °C in Oslo."),
    )
    client = proxy.anthropic()
    messages: list[dict] = [{"role": "user", "content": "Weather in Oslo?"}]
    with client.messages.stream(
        model="claude-test", max_tokens=256, messages=messages, tools=TOOLS
    ) as s:
        first = s.get_final_message()
    assert first.stop_reason == "tool_use"
    (use,) = [b for b in first.content if b.type == "tool_use"]
    assert (use.id, use.input) == (
        "toolu_1",
        {"city": "Oslo", "unit": "C"},
    )  # from input_json_delta
    assert Turn.objects.count() == 0
    messages += [
        {"role": "assistant", "content": [b.model_dump(exclude_none=True) for b in first.content]},
        {
            "role": "user",
            "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "3 C"}],
        },
    ]
    with client.messages.stream(
        model="claude-test", max_tokens=256, messages=messages, tools=TOOLS
    ) as s:
        text = "".join(s.text_stream)
        final = s.get_final_message()
    assert text == "It is 3 °C in Oslo." and final.stop_reason == "end_turn"
    rows = list(Message.objects.order_by("position").values("role", "content", "tool_calls"))
    assert [(r["role"], r["content"]) for r in rows] == [
        ("user", "Weather in Oslo?"),
        ("assistant", "Let me check."),
        ("assistant", "It is 3 °C in Oslo."),
    ]
    assert rows[1]["tool_calls"] == [
        {
            "id": "toolu_1",
            "name": "get_weather",
            "arguments": {"city": "Oslo", "unit": "C"},
            "result": "3 C",
        }
    ]
    assert len(set(ProxyExchange.objects.values_list("session_id", flat=True))) == 1


def test_system_blocks_and_cache_control_reach_the_upstream_untouched(proxy, upstream):
    system = [
        {"type": "text", "text": "You are a coding agent.", "cache_control": {"type": "ephemeral"}},
        {"type": "text", "text": "Project: billing."},
    ]
    reply = proxy.anthropic().messages.create(
        model="claude-test",
        max_tokens=64,
        system=system,
        messages=[
            {
                "role": "user",
                "content": [{"type": "text", "text": "hi", "cache_control": {"type": "ephemeral"}}],
            }
        ],
    )
    assert reply.content[0].text == "ok"
    body = upstream.last.json
    assert body["system"] == system  # nothing relevant in memory: nothing added
    assert body["messages"][0]["content"][0]["cache_control"] == {"type": "ephemeral"}
    assert upstream.last.headers["x-api-key"] == "sk-ant-server-key-0000"
    assert "anthropic-version" in upstream.last.headers
    proxy.settle()
    session = Session.objects.get()
    assert list(session.system_prompts.values_list("text", flat=True)) == [
        "You are a coding agent.\n\nProject: billing."
    ]


def test_a_client_with_its_own_key_keeps_it(proxy, upstream):
    client = anthropic.Anthropic(
        base_url=proxy.anthropic_base,
        api_key="sk-ant-users-own-key-1234",
        default_headers={"X-StrataGate-Token": proxy.token},
        max_retries=0,
    )
    client.messages.create(model="c", max_tokens=10, messages=[{"role": "user", "content": "hey"}])
    # In the header this SDK version sends it in, and the server's key is not added.
    headers = upstream.last.headers
    assert "sk-ant-users-own-key-1234" in (
        headers.get("x-api-key"),
        headers.get("authorization", "")[7:],
    )
    assert "sk-ant-server-key-0000" not in str(headers)
    assert "x-stratagate-token" not in headers
    assert Turn.objects.count() == 1


def test_count_tokens_is_relayed(proxy, upstream):
    count = proxy.anthropic().messages.count_tokens(
        model="claude-test", messages=[{"role": "user", "content": "how many?"}]
    )
    assert count.input_tokens == 42
    assert upstream.seen[-1].path == "/v1/messages/count_tokens"
    assert upstream.seen[-1].json == {
        "model": "claude-test",
        "messages": [{"role": "user", "content": "how many?"}],
    }
    assert Turn.objects.count() == 0


def test_images_are_stored_as_a_placeholder_next_to_their_text(proxy, upstream):
    image = {
        "type": "image",
        "source": {"type": "base64", "media_type": "image/png", "data": "iVBORw0KGgo" * 50},
    }
    proxy.anthropic().messages.create(
        model="c",
        max_tokens=10,
        messages=[
            {
                "role": "user",
                "content": [image, {"type": "text", "text": "What is in this picture?"}],
            }
        ],
    )
    assert upstream.last.json["messages"][0]["content"][0] == image  # the upstream gets the image
    assert list(Message.objects.filter(role="user").values_list("content", flat=True)) == [
        "[image]\n\nWhat is in this picture?"
    ]
