"""The evidence loop run by the proxy (`X-StrataGate-Tools: memory`), with the real SDKs against a
scripted fake upstream: the model searches, assesses and records its use through the proxy's
memory tools; the agent sees only the final answer; the receipt reinforces exactly the cited
events; the rounds are kept on the exchange, never stored as conversation messages."""

from __future__ import annotations

import json
from typing import Any

import anthropic
import openai
import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.urls import reverse

from memory.agent_tools.registry import PROXY_TOOLS
from memory.models import Event, Message, ProxyExchange, UsageReceipt
from memory.services.ingest import MessageIn, TurnIn, turn_ingest
from memory.services.jobs import jobs_drain
from memory.services.namespaces import namespace_get_or_create
from memory.services.settings import settings_update
from proxy.memory_tools import MAX_ROUNDS
from tests.fakes.model_upstream import Answer, Call, Seen

pytestmark = pytest.mark.django_db(transaction=True)

TOOLS_ON = {"x-stratagate-tools": "memory"}
QUESTION = "Which package manager does the project use now?"
ANSWER = "The project uses pnpm now."
NAMES = {spec.name for spec in PROXY_TOOLS}


def seed_decision() -> Event:
    """A processed block in session `old` whose first turn decides on pnpm."""
    namespace = namespace_get_or_create(name="proj")
    for n in range(1, 7):
        user = "We decided to switch the project from npm to pnpm." if n == 1 else f"Note {n}."
        turn_ingest(
            namespace=namespace,
            turn=TurnIn(
                session_id="old",
                receipt_id=f"old-{n}",
                messages=[MessageIn("user", user), MessageIn("assistant", f"Reply {n}.")],
            ),
        )
    jobs_drain()
    return Event.objects.get(title__icontains="pnpm")


# --- reading the memory tools' results out of what the upstream received ---------------------


def openai_result(seen: Seen) -> dict[str, Any]:
    return json.loads(seen.json["messages"][-1]["content"])


def anthropic_result(seen: Seen) -> dict[str, Any]:
    return json.loads(seen.json["messages"][-1]["content"][-1]["content"])


def evidence_loop(result_of: Any) -> list[Any]:
    """Search, assess the first hit as sufficient, record its use, then answer."""

    def assess(seen: Seen) -> Answer:
        found = result_of(seen)
        arguments = {
            "batch_id": found["batch_id"],
            "verdict": "sufficient",
            "evidence_refs": [found["results"][0]["ref"]],
            "fit": "the decision names the package manager",
            "next_strategy": "answer",
        }
        return Answer(tool_calls=[Call("call_assess", "memory_assess", arguments)])

    def record_use(seen: Seen) -> Answer:
        assessed = result_of(seen)
        arguments = {"batch_id": assessed["batch_id"], "evidence_refs": assessed["accepted_refs"]}
        return Answer(tool_calls=[Call("call_use", "memory_record_use", arguments)])

    search = Call("call_search", "memory_search_events", {"query": "package manager pnpm"})
    return [Answer(tool_calls=[search]), assess, record_use, Answer(ANSWER)]


def stored_turns() -> list[list[tuple[str, str]]]:
    turns: dict[int, list[tuple[str, str]]] = {}
    for turn, role, content in (
        Message.objects.exclude(session__external_id="old")
        .order_by("turn_id", "position")
        .values_list("turn_id", "role", "content")
    ):
        turns.setdefault(turn, []).append((role, content))
    return list(turns.values())


def assert_loop_recorded(event: Event, adoptions_before: int) -> None:
    """One receipt, citing exactly the decision; the decision reinforced once; the rounds kept
    on the exchange; the stored turn is the question and the final answer only."""
    receipt = UsageReceipt.objects.get()
    assert receipt.evidence_refs == [f"event:{event.pk}"]
    assert receipt.reinforced_event_ids == [event.pk]
    assert receipt.receipt_id.startswith("proxy-")  # derived from the turn, not a model id
    event.refresh_from_db()
    assert event.adoptions == adoptions_before + 1
    assert Event.objects.exclude(pk=event.pk).filter(adoptions__gt=0).count() == 0
    exchange = ProxyExchange.objects.get(state="captured")
    assert [[c["name"] for c in r["calls"]] for r in exchange.memory_rounds] == [
        ["memory_search_events"],
        ["memory_assess"],
        ["memory_record_use"],
    ]
    assert all(c["ok"] for r in exchange.memory_rounds for c in r["calls"])
    assert stored_turns() == [[("user", QUESTION), ("assistant", ANSWER)]]


# --- OpenAI ------------------------------------------------------------------------------------


def test_openai_the_loop_runs_in_the_proxy_and_the_agent_sees_only_the_answer(proxy, upstream):
    event = seed_decision()
    before = event.adoptions
    upstream.script(*evidence_loop(openai_result))
    agent_tool = {
        "type": "function",
        "function": {"name": "get_weather", "parameters": {"type": "object", "properties": {}}},
    }
    raw = proxy.openai().chat.completions.with_raw_response.create(
        model="m",
        messages=[{"role": "user", "content": QUESTION}],
        tools=[agent_tool],
        extra_headers=TOOLS_ON,
    )
    reply = raw.parse()
    assert reply.choices[0].message.content == ANSWER
    assert reply.choices[0].message.tool_calls is None
    assert reply.choices[0].finish_reason == "stop"
    assert raw.headers["x-stratagate-memory-rounds"] == "3"
    first, *rounds = upstream.model_requests()
    assert len(rounds) == 3
    # The agent's tool first, then the memory tools; the note is in the memory message.
    names = [t["function"]["name"] for t in first.json["tools"]]
    assert names[0] == "get_weather" and set(names[1:]) == NAMES
    assert "memory_assess" in first.json["messages"][0]["content"]
    # Each round appends the model's calls and their results, nothing else changes.
    last = rounds[-1].json["messages"]
    assert last[: len(first.json["messages"])] == first.json["messages"]
    added = last[len(first.json["messages"]) :]
    assert [m["role"] for m in added] == ["assistant", "tool"] * 3
    assert [m["tool_calls"][0]["function"]["name"] for m in added[::2]] == [
        "memory_search_events",
        "memory_assess",
        "memory_record_use",
    ]
    proxy.settle()
    assert_loop_recorded(event, before)
    # The usage audit's receipt links to the answer; its session page shows the rounds.
    client = Client()
    client.force_login(User.objects.create_user("ada", is_staff=True))
    exchange = ProxyExchange.objects.get(state="captured")
    receipt = UsageReceipt.objects.get()
    chain = client.get(reverse("graphui:receipt", args=["proj", receipt.pk])).content.decode()
    session_url = reverse("graphui:session", args=["proj", exchange.session.external_id])
    assert f"{session_url}?saw={exchange.pk}#saw-{exchange.pk}" in chain
    shown = client.get(session_url, {"saw": exchange.pk}).content.decode()
    assert f'id="saw-{exchange.pk}" open' in shown
    for name in ("memory_search_events", "memory_assess", "memory_record_use"):
        assert name in shown


def test_openai_streaming_sends_nothing_of_the_memory_rounds(proxy, upstream):
    event = seed_decision()
    before = event.adoptions
    upstream.script(*evidence_loop(openai_result))
    stream = proxy.openai().chat.completions.create(
        model="m",
        messages=[{"role": "user", "content": QUESTION}],
        stream=True,
        extra_headers=TOOLS_ON,
    )
    chunks = list(stream)
    text = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    assert text == ANSWER
    assert not any(c.choices and c.choices[0].delta.tool_calls for c in chunks)
    assert [c.choices[0].finish_reason for c in chunks if c.choices][-1] == "stop"
    assert len(upstream.model_requests()) == 4
    proxy.settle()
    assert_loop_recorded(event, before)


@pytest.mark.parametrize("stream", [False, True])
def test_memory_calls_beside_the_agents_own_are_dropped_and_its_call_passes(
    proxy, upstream, stream
):
    upstream.script(
        Answer(
            tool_calls=[
                Call("m1", "memory_search_events", {"query": "pnpm"}),
                Call("a1", "get_weather", {"city": "Lisbon"}),
            ]
        )
    )
    client = proxy.openai()
    messages = [{"role": "user", "content": "Weather in Lisbon?"}]
    if stream:
        chunks = list(
            client.chat.completions.create(
                model="m", messages=messages, stream=True, extra_headers=TOOLS_ON
            )
        )
        calls = [
            call for c in chunks if c.choices for call in (c.choices[0].delta.tool_calls or [])
        ]
        assert {(c.index, c.function.name) for c in calls if c.function.name} == {
            (0, "get_weather")
        }
        assert [c.choices[0].finish_reason for c in chunks if c.choices][-1] == "tool_calls"
    else:
        reply = client.chat.completions.create(model="m", messages=messages, extra_headers=TOOLS_ON)
        calls = reply.choices[0].message.tool_calls
        assert [(c.id, c.function.name) for c in calls] == [("a1", "get_weather")]
        assert reply.choices[0].finish_reason == "tool_calls"
    assert (
        len(upstream.model_requests()) == 1
    )  # no memory round: the agent's tool call came with it
    proxy.settle()
    assert ProxyExchange.objects.get().memory_rounds == []


def test_text_streamed_before_a_memory_call_goes_on_and_the_call_is_dropped(proxy, upstream):
    upstream.script(
        Answer("Let me answer directly.", tool_calls=[Call("m1", "memory_search_raw", {})])
    )
    chunks = list(
        proxy.openai().chat.completions.create(
            model="m",
            messages=[{"role": "user", "content": "Hello?"}],
            stream=True,
            extra_headers=TOOLS_ON,
        )
    )
    assert "".join(c.choices[0].delta.content or "" for c in chunks if c.choices) == (
        "Let me answer directly."
    )
    assert not any(c.choices and c.choices[0].delta.tool_calls for c in chunks)
    assert [c.choices[0].finish_reason for c in chunks if c.choices][-1] == "stop"
    assert len(upstream.model_requests()) == 1
    proxy.settle()
    assert stored_turns() == [[("user", "Hello?"), ("assistant", "Let me answer directly.")]]


def test_after_the_last_round_memory_calls_are_dropped(proxy, upstream):
    endless = Answer("Still looking.", tool_calls=[Call("m", "memory_search_raw", {"query": "x"})])
    upstream.script(*[endless] * (MAX_ROUNDS + 1))
    raw = proxy.openai().chat.completions.with_raw_response.create(
        model="m", messages=[{"role": "user", "content": "Find it."}], extra_headers=TOOLS_ON
    )
    reply = raw.parse()
    assert len(upstream.model_requests()) == MAX_ROUNDS + 1
    assert raw.headers["x-stratagate-memory-rounds"] == str(MAX_ROUNDS)
    assert reply.choices[0].message.content == "Still looking."
    assert reply.choices[0].message.tool_calls is None
    assert reply.choices[0].finish_reason == "stop"
    proxy.settle()
    assert len(ProxyExchange.objects.get().memory_rounds) == MAX_ROUNDS


def test_a_bad_call_is_answered_with_the_api_error_and_the_loop_goes_on(proxy, upstream):
    upstream.script(
        Answer(tool_calls=[Call("m1", "memory_expand_event", {"event_id": 999999})]),
        Answer("Nothing in memory about that."),
    )
    reply = proxy.openai().chat.completions.create(
        model="m", messages=[{"role": "user", "content": "Event?"}], extra_headers=TOOLS_ON
    )
    assert reply.choices[0].message.content == "Nothing in memory about that."
    result = json.loads(upstream.model_requests()[1].json["messages"][-1]["content"])
    assert result["error"]["code"] == "event_not_found"
    proxy.settle()
    (round_,) = ProxyExchange.objects.get().memory_rounds
    assert (round_["calls"][0]["status"], round_["calls"][0]["ok"]) == (404, False)


def test_tools_are_off_by_default_and_follow_the_setting_and_the_header(proxy, upstream):
    def tools_sent(**kw: Any) -> list[str]:
        proxy.openai().chat.completions.create(
            model="m", messages=[{"role": "user", "content": "Hi"}], **kw
        )
        return [t["function"]["name"] for t in upstream.last.json.get("tools", [])]

    assert tools_sent() == []
    settings_update(proxy_tools="memory", actor="user:admin")
    assert set(tools_sent()) == NAMES
    assert tools_sent(extra_headers={"x-stratagate-tools": "off"}) == []
    # Only a free choice of tools gets them: not "none", "required" or a named tool.
    weather = {"type": "function", "function": {"name": "get_weather", "parameters": {}}}
    for choice in ("none", "required", {"type": "function", "function": {"name": "get_weather"}}):
        assert tools_sent(tools=[weather], tool_choice=choice) == ["get_weather"]
    assert set(tools_sent(tools=[weather], tool_choice="auto")) == {"get_weather", *NAMES}
    with pytest.raises(openai.BadRequestError) as bad:
        tools_sent(extra_headers={"x-stratagate-tools": "sometimes"})
    assert bad.value.body["code"] == "invalid_proxy_header"


# --- Anthropic ---------------------------------------------------------------------------------


@pytest.mark.parametrize("stream", [False, True])
def test_anthropic_the_loop_runs_in_the_proxy(proxy, upstream, stream):
    event = seed_decision()
    before = event.adoptions
    upstream.script(*evidence_loop(anthropic_result))
    client: anthropic.Anthropic = proxy.anthropic()
    kw: dict[str, Any] = {
        "model": "claude-test",
        "max_tokens": 200,
        "messages": [{"role": "user", "content": QUESTION}],
        "extra_headers": TOOLS_ON,
    }
    if stream:
        with client.messages.stream(**kw) as events:
            message = events.get_final_message()
    else:
        message = client.messages.create(**kw)
    assert [b.type for b in message.content] == ["text"]
    assert message.content[0].text == ANSWER
    assert message.stop_reason == "end_turn"
    first, *rounds = upstream.model_requests()
    assert {t["name"] for t in first.json["tools"]} == NAMES
    added = rounds[-1].json["messages"][1:]
    assert [m["role"] for m in added] == ["assistant", "user"] * 3
    assert [m["content"][-1]["type"] for m in added] == ["tool_use", "tool_result"] * 3
    proxy.settle()
    assert_loop_recorded(event, before)


def anthropic_ask(proxy: Any, text: str, *, stream: bool) -> Any:
    client: anthropic.Anthropic = proxy.anthropic()
    kw: dict[str, Any] = {
        "model": "claude-test",
        "max_tokens": 200,
        "messages": [{"role": "user", "content": text}],
        "extra_headers": TOOLS_ON,
    }
    if not stream:
        return client.messages.create(**kw)
    with client.messages.stream(**kw) as events:
        return events.get_final_message()


@pytest.mark.parametrize("stream", [False, True])
def test_anthropic_memory_calls_beside_the_agents_own_are_dropped(proxy, upstream, stream):
    upstream.script(
        Answer(
            tool_calls=[
                Call("m2", "memory_search_events", {"query": "y"}),
                Call("a1", "get_weather", {"city": "Porto"}),
            ]
        )
    )
    called = anthropic_ask(proxy, "Weather?", stream=stream)
    assert [(b.type, getattr(b, "name", None)) for b in called.content] == [
        ("tool_use", "get_weather")
    ]
    assert called.stop_reason == "tool_use"
    assert len(upstream.model_requests()) == 1


def test_anthropic_text_streamed_before_a_memory_call_goes_on_and_the_call_is_dropped(
    proxy, upstream
):
    upstream.script(
        Answer("Here it is.", tool_calls=[Call("m1", "memory_search_raw", {"query": "x"})])
    )
    said = anthropic_ask(proxy, "Hello?", stream=True)
    assert [b.type for b in said.content] == ["text"]
    assert (said.content[0].text, said.stop_reason) == ("Here it is.", "end_turn")
    assert len(upstream.model_requests()) == 1


def test_without_a_stream_a_preamble_beside_memory_calls_is_a_memory_round(proxy, upstream):
    upstream.script(
        Answer("Let me check.", tool_calls=[Call("m1", "memory_search_raw", {"query": "x"})]),
        Answer("Found nothing."),
    )
    said = anthropic_ask(proxy, "Hello?", stream=False)
    assert [(b.type, b.text) for b in said.content] == [("text", "Found nothing.")]
    assert len(upstream.model_requests()) == 2


def test_anthropic_gets_the_tools_only_when_the_model_chooses_freely(proxy, upstream):
    client: anthropic.Anthropic = proxy.anthropic()
    weather = {"name": "get_weather", "input_schema": {"type": "object", "properties": {}}}

    def tools_sent(choice: dict[str, Any] | None) -> set[str]:
        extra = {"tool_choice": choice} if choice is not None else {}
        client.messages.create(
            model="claude-test",
            max_tokens=50,
            messages=[{"role": "user", "content": "Hi"}],
            tools=[weather],
            extra_headers=TOOLS_ON,
            **extra,
        )
        return {t["name"] for t in upstream.last.json["tools"]}

    assert tools_sent(None) == tools_sent({"type": "auto"}) == {"get_weather", *NAMES}
    for choice in ({"type": "any"}, {"type": "tool", "name": "get_weather"}, {"type": "none"}):
        assert tools_sent(choice) == {"get_weather"}
