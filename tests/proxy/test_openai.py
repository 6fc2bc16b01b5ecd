"""The real `openai` SDK (sync, async, streaming, tools, parallel tool calls) through the proxy to
a fake upstream: what the upstream received, what was stored, what the SDK returned."""

from __future__ import annotations

import asyncio
import json

import pytest

from memory.models import ExchangeState, Message, ProxyExchange, ProxySession, Session, Turn
from tests.fakes.model_upstream import Answer, Call

pytestmark = pytest.mark.django_db(transaction=True)


def stored() -> list[tuple[str, str]]:
    return list(Message.objects.order_by("turn_id", "position").values_list("role", "content"))


def test_a_plain_answer_is_relayed_and_its_turn_stored(proxy, upstream):
    upstream.script(Answer("Hello there!"))
    raw = proxy.openai().chat.completions.with_raw_response.create(
        model="gpt-test",
        messages=[
            {"role": "system", "content": "You are terse."},
            {"role": "user", "content": "Hi, we deploy on Fly.io."},
        ],
    )
    reply = raw.parse()
    assert reply.choices[0].message.content == "Hello there!"
    assert reply.usage.prompt_tokens == 11
    session_id = raw.headers["x-stratagate-session"]
    assert raw.headers["x-stratagate-memory"] == "ok"
    assert raw.headers["x-stratagate-injected-tokens"] == "0"
    # The upstream got the server's key, never the StrataGate token, and the body as sent.
    seen = upstream.last
    assert seen.headers["authorization"] == "Bearer sk-server-openai-key-0000"
    assert proxy.token not in json.dumps(seen.headers)
    assert not any(k.startswith("x-stratagate") for k in seen.headers)
    assert seen.json["messages"][-1] == {"role": "user", "content": "Hi, we deploy on Fly.io."}
    # One turn, without the system prompt, which is kept once for the session.
    proxy.settle()
    assert stored() == [("user", "Hi, we deploy on Fly.io."), ("assistant", "Hello there!")]
    session = Session.objects.get(external_id=session_id)
    assert list(session.system_prompts.values_list("text", flat=True)) == ["You are terse."]
    assert ProxySession.objects.get(session=session).captured_turns == 1
    exchange = ProxyExchange.objects.get()
    assert (exchange.state, exchange.upstream_status, exchange.model) == (
        "captured",
        200,
        "gpt-test",
    )


def test_every_field_is_passed_through_unchanged(proxy, upstream):
    tools = [
        {
            "type": "function",
            "function": {
                "name": "lookup",
                "description": "Look a word up.",
                "parameters": {"type": "object", "properties": {"w": {"type": "string"}}},
            },
        }
    ]
    proxy.openai().chat.completions.create(
        model="gpt-test",
        messages=[{"role": "user", "content": "Define entropy."}],
        tools=tools,
        tool_choice="auto",
        n=2,
        temperature=0.3,
        response_format={"type": "json_object"},
        seed=7,
        extra_body={"vendor_option": {"keep": True}},
    )
    body = upstream.last.json
    assert body["tools"] == tools
    assert (body["tool_choice"], body["n"], body["temperature"], body["seed"]) == (
        "auto",
        2,
        0.3,
        7,
    )
    assert body["response_format"] == {"type": "json_object"}
    assert body["vendor_option"] == {"keep": True}


def test_a_request_without_memory_is_forwarded_byte_for_byte(proxy, upstream):
    client = proxy.openai()
    client.chat.completions.create(model="m", messages=[{"role": "user", "content": "hello"}])
    sent = upstream.last.body
    assert json.loads(sent) == {"model": "m", "messages": [{"role": "user", "content": "hello"}]}
    assert upstream.last.headers["content-length"] == str(len(sent))


def test_async_streaming_relays_every_chunk_and_usage_and_stores_the_turn(proxy, upstream):
    upstream.script(Answer("Streams arrive word by word."))

    async def talk() -> tuple[list[str], object, dict]:
        client = proxy.async_openai()
        raw = await client.chat.completions.with_raw_response.create(
            model="gpt-test",
            messages=[{"role": "user", "content": "Tell me about streams."}],
            stream=True,
            stream_options={"include_usage": True},
        )
        pieces, usage = [], None
        async for chunk in raw.parse():
            if chunk.choices and chunk.choices[0].delta.content:
                pieces.append(chunk.choices[0].delta.content)
            usage = chunk.usage or usage
        await client.close()
        return pieces, usage, dict(raw.headers)

    pieces, usage, headers = asyncio.run(talk())
    assert pieces == ["Streams ", "arrive ", "word ", "by ", "word."]
    assert usage.prompt_tokens == 11 and usage.completion_tokens == 7
    assert headers["x-accel-buffering"] == "no"
    assert headers["content-type"].startswith("text/event-stream")
    # The turn was committed before [DONE] reached the client: no waiting here.
    assert stored() == [
        ("user", "Tell me about streams."),
        ("assistant", "Streams arrive word by word."),
    ]


@pytest.mark.parametrize("stream", [False, True])
def test_a_tool_loop_with_parallel_calls_is_one_turn(proxy, upstream, stream):
    calls = [
        Call("call_a", "read_file", {"path": "a.txt"}),
        Call("call_b", "read_file", {"path": "b.txt"}),
    ]
    upstream.script(Answer("Reading both.", tool_calls=calls), Answer("a says 1, b says 2."))
    client = proxy.openai()
    messages = [{"role": "user", "content": "What do a.txt and b.txt say?"}]
    tools = [
        {"type": "function", "function": {"name": "read_file", "parameters": {"type": "object"}}}
    ]

    def ask():
        if not stream:
            return (
                client.chat.completions.create(model="m", messages=messages, tools=tools)
                .choices[0]
                .message
            )
        content, by_index = [], {}
        for chunk in client.chat.completions.create(
            model="m", messages=messages, tools=tools, stream=True
        ):
            delta = chunk.choices[0].delta
            content.append(delta.content or "")
            for call in delta.tool_calls or []:
                slot = by_index.setdefault(call.index, {"id": "", "name": "", "arguments": ""})
                slot["id"] = call.id or slot["id"]
                slot["name"] += call.function.name or ""
                slot["arguments"] += call.function.arguments or ""
        return {"content": "".join(content), "calls": list(by_index.values())}

    first = ask()
    if stream:
        assert [c["id"] for c in first["calls"]] == ["call_a", "call_b"]
        tool_calls = [
            {
                "id": c["id"],
                "type": "function",
                "function": {"name": c["name"], "arguments": c["arguments"]},
            }
            for c in first["calls"]
        ]
        messages.append(
            {"role": "assistant", "content": first["content"], "tool_calls": tool_calls}
        )
    else:
        assert [c.id for c in first.tool_calls] == ["call_a", "call_b"]
        messages.append(first.model_dump(exclude_none=True))
    assert Turn.objects.count() == 0  # the turn is not over yet
    messages += [
        {"role": "tool", "tool_call_id": "call_a", "content": "1"},
        {"role": "tool", "tool_call_id": "call_b", "content": "2"},
    ]
    final = ask()
    assert (final["content"] if stream else final.content) == "a says 1, b says 2."
    proxy.settle()
    assert Turn.objects.count() == 1
    rows = list(Message.objects.order_by("position").values("role", "content", "tool_calls"))
    assert [r["role"] for r in rows] == ["user", "assistant", "assistant"]
    assert rows[1]["tool_calls"] == [
        {"id": "call_a", "name": "read_file", "arguments": {"path": "a.txt"}, "result": "1"},
        {"id": "call_b", "name": "read_file", "arguments": {"path": "b.txt"}, "result": "2"},
    ]
    assert rows[2]["content"] == "a says 1, b says 2."
    states = list(ProxyExchange.objects.order_by("id").values_list("state", "session_id"))
    assert [s for s, _ in states] == [ExchangeState.TOOL_STEP, ExchangeState.CAPTURED]
    assert len({session for _, session in states}) == 1


def test_models_are_relayed(proxy, upstream):
    models = proxy.openai().models.list()
    assert [m.id for m in models.data] == ["fake-model"]
    assert upstream.seen[-1].path == "/v1/models"
    assert Turn.objects.count() == 0


def test_stratagates_own_memory_tools_are_not_stored(proxy, upstream):
    """An agent that also uses StrataGate's memory tools: their calls and results never become
    evidence again (SPEC §1.5); its other tools are kept."""
    calls = [Call("m1", "memory_search_events", {"query": "db"}), Call("t1", "ls", {"p": "."})]
    upstream.script(Answer("Looking.", tool_calls=calls), Answer("Done."))
    client = proxy.openai()
    messages = [{"role": "user", "content": "Check memory and list files."}]
    first = client.chat.completions.create(model="m", messages=messages).choices[0].message
    messages += [
        first.model_dump(exclude_none=True),
        {"role": "tool", "tool_call_id": "m1", "content": '{"results": ["event:1 recalled"]}'},
        {"role": "tool", "tool_call_id": "t1", "content": "a.txt"},
    ]
    client.chat.completions.create(model="m", messages=messages)
    proxy.settle()
    rows = list(Message.objects.order_by("position").values_list("role", "content", "tool_calls"))
    assert rows[1][2] == [{"id": "t1", "name": "ls", "arguments": {"p": "."}, "result": "a.txt"}]
    assert "recalled" not in json.dumps(rows)
