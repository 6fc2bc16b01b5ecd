"""Memory on the way in: activated memory from other sessions (the context service's), placed so
the agent's prefix stays byte-identical, recorded as an activation, and never stored back."""

from __future__ import annotations

import json

import pytest

from memory.models import Activation, BlockView, Event, Message, ProxyExchange
from memory.services.activation import FRAMING
from memory.services.ingest import MessageIn, TurnIn, turn_ingest
from memory.services.jobs import jobs_drain
from memory.services.namespaces import namespace_get_or_create
from memory.services.tokens import token_create
from tests.fakes.model_upstream import Answer, Call

pytestmark = pytest.mark.django_db(transaction=True)

FACT = "The billing service runs on PostgreSQL 16 in the Frankfurt region, decided by Priya."
QUESTION = "Which database does the billing service run on?"


def remember(namespace: str = "proj", session: str = "earlier", text: str = FACT) -> None:
    turn_ingest(
        namespace=namespace_get_or_create(name=namespace),
        turn=TurnIn(
            session_id=session,
            receipt_id=f"{session}-{abs(hash(text))}",
            messages=[MessageIn("user", text), MessageIn("assistant", "Noted.")],
        ),
    )


def test_memory_from_another_session_is_one_system_message_after_the_agents_own(proxy, upstream):
    remember()
    raw = proxy.openai().chat.completions.with_raw_response.create(
        model="m",
        messages=[
            {"role": "system", "content": "You are a careful assistant."},
            {"role": "user", "content": QUESTION},
        ],
    )
    sent = upstream.last.json["messages"]
    assert [m["role"] for m in sent] == ["system", "system", "user"]
    assert sent[0] == {"role": "system", "content": "You are a careful assistant."}
    memory = sent[1]["content"]
    assert memory.startswith(FRAMING)
    assert "PostgreSQL 16" in memory and "[raw:" in memory
    assert sent[2] == {"role": "user", "content": QUESTION}
    tokens = int(raw.headers["x-stratagate-injected-tokens"])
    assert tokens > 0
    proxy.settle()
    exchange = ProxyExchange.objects.get()
    assert (exchange.injected_text, exchange.injected_tokens) == (memory, tokens)
    activation = Activation.objects.get()
    assert activation.pk == exchange.activation_id
    assert activation.session_id == exchange.session_id
    assert activation.refs == exchange.injected_refs and activation.refs
    # The stored turn is the agent's, without the memory it was shown.
    assert list(
        Message.objects.filter(session=exchange.session).values_list("content", flat=True)
    ) == [
        QUESTION,
        "ok",
    ]


def test_anthropic_memory_is_the_last_system_block(proxy, upstream):
    remember()
    system = [{"type": "text", "text": "Agent rules.", "cache_control": {"type": "ephemeral"}}]
    proxy.anthropic().messages.create(
        model="c", max_tokens=50, system=system, messages=[{"role": "user", "content": QUESTION}]
    )
    body = upstream.last.json
    assert body["system"][0] == system[0]
    assert len(body["system"]) == 2 and body["system"][1]["type"] == "text"
    assert "PostgreSQL 16" in body["system"][1]["text"]
    assert "cache_control" not in body["system"][1]
    assert body["messages"] == [{"role": "user", "content": QUESTION}]


def test_nothing_relevant_means_the_request_goes_up_as_sent(proxy, upstream):
    remember()
    request = '{"model":"m","messages":[{"role":"user","content":"Write a haiku about autumn."}]}'
    proxy.openai().post(
        "/chat/completions", cast_to=object, body=json.loads(request), options={"headers": {}}
    )
    assert upstream.last.body == request.encode()
    assert Activation.objects.count() == 0


def test_a_sessions_own_turns_are_never_injected_into_it(proxy, upstream):
    client = proxy.openai(default_headers={"X-StrataGate-Session": "mine"})
    history = [{"role": "user", "content": "Our mascot is a purple narwhal named Quill."}]
    client.chat.completions.create(model="m", messages=history)
    history += [
        {"role": "assistant", "content": "ok"},
        {"role": "user", "content": "What is our mascot, the narwhal?"},
    ]
    client.chat.completions.create(model="m", messages=history)
    assert [m["role"] for m in upstream.last.json["messages"]] == ["user", "assistant", "user"]


def test_a_tool_loop_gets_the_same_memory_bytes_at_every_step(proxy, upstream):
    remember()
    upstream.script(Answer("", tool_calls=[Call("c1", "lookup", {})]), Answer("PostgreSQL 16."))
    client = proxy.openai()
    messages = [{"role": "user", "content": QUESTION}]
    first = client.chat.completions.create(model="m", messages=messages).choices[0].message
    messages += [
        first.model_dump(exclude_none=True),
        {"role": "tool", "tool_call_id": "c1", "content": "x"},
    ]
    client.chat.completions.create(model="m", messages=messages)
    one, two = upstream.model_requests()
    assert one.json["messages"][0] == two.json["messages"][0]
    assert one.json["messages"][0]["role"] == "system"
    # The second body starts with the first one's bytes (the provider's cached prefix).
    assert two.body.startswith(one.body[: one.body.index(b"]")])
    proxy.settle()
    assert Activation.objects.count() == 1
    assert len(set(ProxyExchange.objects.values_list("activation_id", flat=True))) == 1


def test_inject_off_captures_without_injecting(proxy, upstream):
    remember()
    client = proxy.openai(default_headers={"X-StrataGate-Inject": "off"})
    raw = client.chat.completions.with_raw_response.create(
        model="m", messages=[{"role": "user", "content": QUESTION}]
    )
    assert raw.headers["x-stratagate-injected-tokens"] == "0"
    assert upstream.last.json["messages"] == [{"role": "user", "content": QUESTION}]
    proxy.settle()
    assert (
        Message.objects.filter(session__external_id=raw.headers["x-stratagate-session"]).count()
        == 2
    )


def _converse(proxy, namespace: str, token: str, turns: int, inject: bool) -> None:
    import openai

    client = openai.OpenAI(
        base_url=f"{proxy.url}/proxy/{namespace}/openai/v1",
        api_key=token,
        max_retries=0,
        default_headers={"X-StrataGate-Inject": "on" if inject else "off"},
    )
    history: list[dict] = []
    for n in range(turns):
        history.append(
            {
                "role": "user",
                "content": f"Step {n}: we decided the billing service keeps its database; "
                f"plan review {n}.",
            }
        )
        answer = (
            client.chat.completions.create(model="m", messages=history).choices[0].message.content
        )
        history.append({"role": "assistant", "content": answer})


def test_fifty_proxied_turns_store_no_injected_text_and_the_same_events(proxy, upstream):
    _, other = token_create(namespaces=["plain"], scope="read-write")
    for name in ("proj", "plain"):
        remember(name, text=FACT + " Marker ZQXV-7781.")
    _converse(proxy, "proj", proxy.token, 50, inject=True)
    _converse(proxy, "plain", other, 50, inject=False)
    proxy.settle()
    jobs_drain()
    injected = ProxyExchange.objects.filter(namespace__name="proj").exclude(injected_text="")
    assert injected.count() == 50  # the fact was relevant to every turn
    assert all("ZQXV-7781" in text for text in injected.values_list("injected_text", flat=True))
    proxied = {"session__proxy__isnull": False}
    texts = [
        *Message.objects.filter(**proxied).values_list("content", flat=True),
        *BlockView.objects.filter(block__session__proxy__isnull=False).values_list(
            "content", flat=True
        ),
        *[
            f"{e.title} {e.summary} {e.quotes}"
            for e in Event.objects.filter(source_block__session__proxy__isnull=False)
        ],
    ]
    assert texts
    assert not [t for t in texts if "ZQXV-7781" in t or "Activated long-term memory" in t]

    def events(name: str) -> list[tuple[str, str]]:
        return sorted(
            Event.objects.filter(namespace__name=name).values_list("event_type", "summary")
        )

    assert events("proj") and events("proj") == events("plain")
    assert (
        Message.objects.filter(namespace__name="proj").count()
        == Message.objects.filter(namespace__name="plain").count()
    )


def test_an_injected_event_counts_as_injected_on_its_usage(proxy, upstream):
    from django.test import Client

    from tests.conftest import ApiClient

    ns = namespace_get_or_create(name="proj")
    for n in range(6):  # a block's worth of turns, so the offline processor extracts events
        turn_ingest(
            namespace=ns,
            turn=TurnIn(
                session_id="planning",
                receipt_id=f"plan-{n}",
                messages=[
                    MessageIn(
                        "user", f"We decided to move the billing service to Kubernetes ({n})."
                    ),
                    MessageIn("assistant", "Agreed."),
                ],
            ),
        )
    jobs_drain()
    event = Event.objects.filter(summary__icontains="Kubernetes").first()
    assert event is not None
    proxy.openai().chat.completions.create(
        model="m", messages=[{"role": "user", "content": "Where does billing run, Kubernetes?"}]
    )
    proxy.settle()
    assert f"event:{event.pk}" in ProxyExchange.objects.get().injected_refs
    api = ApiClient(token=proxy.token, client=Client())
    usage = api.get(f"/ns/proj/events/{event.pk}/usage").json()
    assert len(usage["injected"]) == 1
    assert usage["cited"] == [] and usage["retrieved_unused"] == []
