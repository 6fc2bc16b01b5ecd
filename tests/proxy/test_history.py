"""Layered history through the proxy, with the real SDKs against the fake upstream: sealed,
ready blocks whose turns the request holds exactly go upstream as one message each, at the
level SPEC §4 gives them; everything else (pending blocks, the open tail, the current turn,
tool chains, a history the agent changed) goes byte for byte as it came."""

from __future__ import annotations

import json
from types import SimpleNamespace

import httpx2
import pytest
from django.template.loader import render_to_string

from memory.models import Block, BlockStatus, ProxyCounter, Session
from memory.selectors.blocks import block_display_list
from memory.selectors.proxy import proxy_traffic
from memory.selectors.proxy_history import proxied_tokens, session_raw_tokens
from memory.services.blocks import block_expand
from memory.services.jobs import jobs_drain
from memory.services.settings import memory_settings_update
from proxy.history import RUN_NOTE
from tests.fakes.model_upstream import Answer, Call
from tests.proxy.conftest import namespace

pytestmark = pytest.mark.django_db(transaction=True)

SESSION = "layered-run"
PLAIN = {"X-StrataGate-Session": SESSION, "X-StrataGate-Inject": "off"}


def said(n: int) -> str:
    """A turn long enough that a decayed view is shorter than its messages, with fillers that
    L3 drops (SPEC §3), so that L3 is shorter too."""
    return (
        "Ok!\nThanks!\nGot it!\nSure!\nYes!\nThank you!\nOkay!\n"
        f"Turn {n}: please remember fact {n} about project Kestrel. We went through the "
        f"storage layer again today and agreed that shard {n} moves to the Frankfurt region "
        "next sprint, after the backup window, because the latency budget for the checkout "
        "flow is tight and the current region keeps missing it during the evening peak. "
        "Priya owns the migration plan and Tom reviews the runbook before Friday."
    )


def talk(client, history: list[dict], text: str, **kw) -> object:
    history.append({"role": "user", "content": text})
    raw = client.chat.completions.with_raw_response.create(model="m", messages=history, **kw)
    history.append({"role": "assistant", "content": raw.parse().choices[0].message.content})
    return raw


def plain(n: int) -> str:
    """The same turn with no fillers: its L3 and L4 are its messages with a role label each."""
    return said(n).rsplit("\n", 1)[1]


def conversation(proxy, upstream, turns: int, *, lam: float = 1.0, say=said) -> list[dict]:
    """`turns` turns through the proxy in one named session (blocks of 2 turns), then every
    block processed. With λ 1.0 a block drops to L3 once one block is sealed after it and to
    L1 after two; the newest ready block shows L5 (its raw messages) and goes natively."""
    memory_settings_update(block_turns=2, block_lambda=lam)
    upstream.script(*[Answer(f"Noted. {say(n + 1)}") for n in range(turns)])
    client = proxy.openai(default_headers=PLAIN)
    history: list[dict] = []
    for n in range(turns):
        talk(client, history, say(n + 1))
    proxy.settle()
    jobs_drain()
    return history


def blocks() -> list:
    return block_display_list(session=Session.objects.get(external_id=SESSION))


def tokens(raw) -> tuple[int, int]:
    sent, native = raw.headers["x-stratagate-history-tokens"].split("/")
    return int(sent), int(native)


def test_ready_blocks_replace_exactly_their_turns_and_the_tail_stays_native(proxy, upstream):
    history = conversation(proxy, upstream, 7)
    shown = blocks()
    assert [b.block.status for b in shown] == [BlockStatus.READY] * 3
    assert [b.level for b in shown] == [1, 3, 5]
    raw = talk(proxy.openai(default_headers=PLAIN), history, "Turn 8: what was fact 2?")
    sent = upstream.last.json["messages"]
    # Turns 1–2 and 3–4 as one message per block; the L5 block (turns 5–6), the open tail
    # (turn 7) and the current turn as the agent sent them.
    assert len(sent) == 2 + 4 + 2 + 1
    for message, block in zip(sent[:2], shown[:2], strict=True):
        assert message["role"] == "user"
        first, last = block.turn_range
        label = f"[block {block.block.pk}, turns {first}-{last}, L{block.level}]\n"
        assert label in message["content"]
        assert message["content"].endswith(block.content)
    # The run's first message says once what these messages are.
    assert sent[0]["content"].startswith(RUN_NOTE)
    assert not sent[1]["content"].startswith(RUN_NOTE)
    assert "memory_expand_block" in RUN_NOTE
    assert sent[2:] == history[8:15]
    sent_tokens, native_tokens = tokens(raw)
    assert raw.headers["x-stratagate-history"] == "layered; blocks=2"
    assert 0 < sent_tokens < native_tokens


def test_a_view_no_shorter_than_its_messages_leaves_them_native(proxy, upstream):
    history = conversation(proxy, upstream, 7, say=plain)
    shown = blocks()
    assert [b.level for b in shown] == [1, 3, 5]
    raw = talk(proxy.openai(default_headers=PLAIN), history, "Turn 8")
    sent = upstream.last.json["messages"]
    # Turns 1–2 as their L1 block; turns 3–4 at L3 would cost more than the agent's own
    # messages (nothing to condense, a role label added to each), so they go as they came.
    assert sent[0]["content"].startswith(RUN_NOTE) and ", L1]" in sent[0]["content"]
    assert sent[1:] == history[4:-1]  # the last is the answer to this request
    assert raw.headers["x-stratagate-history"] == "layered; blocks=1"
    sent_tokens, native_tokens = tokens(raw)
    assert 0 < sent_tokens < native_tokens
    # The settings preview counts the same way: the L3 block saves nothing.
    session = Session.objects.get(external_id=SESSION)
    native, per_block = session_raw_tokens(session)
    l1, l3 = shown[0], shown[1]
    assert l3.tokens >= per_block[l3.block.pk]
    assert proxied_tokens(shown, native, per_block, layered=True) == (
        native - per_block[l1.block.pk] + l1.tokens
    )


def test_pending_blocks_stay_native_and_the_body_is_forwarded_byte_for_byte(proxy, upstream):
    memory_settings_update(block_turns=2)
    client = proxy.openai(default_headers=PLAIN)
    history: list[dict] = []
    for n in range(4):
        talk(client, history, f"Turn {n + 1}")
    proxy.settle()
    assert Block.objects.filter(status=BlockStatus.PENDING).count() == 2  # not processed
    body = json.dumps({"model": "m", "messages": [*history, {"role": "user", "content": "5"}]})
    raw = body.replace(",", ",  ").encode()
    answer = httpx2.post(
        f"{proxy.openai_base}/chat/completions",
        content=raw,
        headers={"authorization": f"Bearer {proxy.token}", **PLAIN},
    )
    assert answer.status_code == 200
    assert upstream.last.body == raw
    sent, native = answer.headers["x-stratagate-history-tokens"].split("/")
    assert sent == native


@pytest.mark.parametrize("change", ["edited", "truncated", "reordered"])
def test_a_history_the_agent_changed_is_forwarded_as_it_came(proxy, upstream, change):
    history = conversation(proxy, upstream, 5)
    changed = [dict(m) for m in history]
    if change == "edited":
        changed[1]["content"] = "Answer 0 (edited by the agent)."
    elif change == "truncated":
        changed = changed[2:]
    else:
        changed[0:2], changed[2:4] = changed[2:4], changed[0:2]
    changed.append({"role": "user", "content": "Turn 6"})
    raw = json.dumps({"model": "m", "messages": changed}, indent=1).encode()
    answer = httpx2.post(
        f"{proxy.openai_base}/chat/completions",
        content=raw,
        headers={"authorization": f"Bearer {proxy.token}", **PLAIN},
    )
    assert answer.status_code == 200
    assert upstream.last.body == raw
    assert answer.headers["x-stratagate-history"] == "layered; blocks=0"


def test_a_lambda_change_and_an_expansion_change_the_level_sent(proxy, upstream):
    history = conversation(proxy, upstream, 7, lam=0.5)
    client = proxy.openai(default_headers=PLAIN)
    history.append({"role": "user", "content": "Turn 8"})

    def first_block_message() -> str:
        client.chat.completions.create(model="m", messages=history)
        return upstream.last.json["messages"][0]["content"]

    before = first_block_message()
    assert before == first_block_message()  # stable while the level stays
    assert blocks()[0].level == 3 and ", L3]" in before
    memory_settings_update(block_lambda=1.0)
    oldest = blocks()[0]
    assert oldest.level == 1
    lowered = first_block_message()
    assert ", L1]" in lowered and lowered.endswith(oldest.content)
    block_expand(block=oldest.block, target="L2", lifted_by="agent")
    lifted = first_block_message()
    assert ", L2]" in lifted and lifted.endswith(blocks()[0].content)
    # Lifted to L4 (the messages with their fillers and a role label each: no shorter than
    # what the agent sends) or to L5 (its raw messages), its turns go as the agent sent them.
    for level in ("L4", "L5"):
        block_expand(block=oldest.block, target=level, lifted_by="agent")
        assert blocks()[0].level == int(level[1])
        client.chat.completions.create(model="m", messages=history)
        assert upstream.last.json["messages"][:4] == history[:4]


def test_the_header_and_the_setting_choose_native(proxy, upstream):
    history = conversation(proxy, upstream, 5)
    history.append({"role": "user", "content": "Turn 6"})
    client = proxy.openai(default_headers={**PLAIN, "X-StrataGate-History": "native"})
    raw = client.chat.completions.with_raw_response.create(model="m", messages=history)
    assert upstream.last.json["messages"] == history
    sent, native = tokens(raw)
    assert sent == native and raw.headers["x-stratagate-history"] == "native; blocks=0"

    memory_settings_update(proxy_history="native")
    proxy.openai(default_headers=PLAIN).chat.completions.create(model="m", messages=history)
    assert upstream.last.json["messages"] == history
    layered = proxy.openai(default_headers={**PLAIN, "X-StrataGate-History": "Layered"})
    raw = layered.chat.completions.with_raw_response.create(model="m", messages=history)
    assert len(upstream.last.json["messages"]) == 1 + 4 + 2 + 1
    assert raw.headers["x-stratagate-history"] == "layered; blocks=1"


def test_a_bad_history_header_is_a_stable_error(proxy, upstream):
    client = proxy.openai(default_headers={"X-StrataGate-History": "compressed"})
    with pytest.raises(Exception) as caught:
        client.chat.completions.create(model="m", messages=[{"role": "user", "content": "hi"}])
    assert getattr(caught.value, "status_code", None) == 400
    assert caught.value.body["code"] == "invalid_proxy_header"  # type: ignore[attr-defined]
    assert upstream.model_requests() == []


def test_the_token_header_counts_what_was_saved_and_health_adds_it_up(proxy, upstream):
    history = conversation(proxy, upstream, 9)
    raw = talk(proxy.openai(default_headers=PLAIN), history, "Turn 10")
    sent, native = tokens(raw)
    assert sent < native
    proxy.settle()
    from proxy.stats import STATS

    STATS.flush()
    counts = dict(ProxyCounter.objects.values_list("name", "count"))
    assert counts["history_layered"] == 1
    assert counts["history_native_tokens"] - counts["history_sent_tokens"] >= native - sent
    traffic = proxy_traffic(namespace())
    assert traffic.history_saved_tokens == (
        counts["history_native_tokens"] - counts["history_sent_tokens"]
    )
    assert 0 < traffic.history_saved_percent < 100
    # The health page's proxy panel says so.
    html = render_to_string(
        "graphui/partials/_health_proxy.html",
        {"health": SimpleNamespace(proxy=traffic, namespace="proj")},
    )
    assert f'<div class="value">{traffic.history_saved_tokens}</div>' in html
    assert "History tokens saved" in html


def test_a_tool_loop_in_an_earlier_turn_goes_whole_into_its_block(proxy, upstream):
    memory_settings_update(block_turns=2, block_lambda=1.0)
    client = proxy.openai(default_headers=PLAIN)
    upstream.script(
        Answer(tool_calls=[Call("c1", "read_file", {"path": "a.txt"})]),
        Answer("The file says hello."),
    )
    history: list[dict] = [{"role": "user", "content": "Read a.txt"}]
    first = client.chat.completions.create(model="m", messages=history)
    history.append(first.choices[0].message.model_dump(exclude_none=True))
    history.append({"role": "tool", "tool_call_id": "c1", "content": "hello"})
    answer = client.chat.completions.create(model="m", messages=history)
    history.append({"role": "assistant", "content": answer.choices[0].message.content})
    for n in range(4):
        talk(client, history, said(n + 2))
    proxy.settle()
    jobs_drain()
    assert [b.level for b in blocks()] == [3, 5]
    # The current turn's own tool loop is under way.
    history.append({"role": "user", "content": "Turn 6: list files"})
    history.append(
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {"id": "c9", "type": "function", "function": {"name": "ls", "arguments": "{}"}}
            ],
        }
    )
    history.append({"role": "tool", "tool_call_id": "c9", "content": "a.txt"})
    client.chat.completions.create(model="m", messages=history)
    sent = upstream.last.json["messages"]
    # Turn 1 (its tool loop) and turn 2 are one block message; no tool message lost its call.
    assert sent[0]["content"].startswith(RUN_NOTE)
    assert "read_file" in sent[0]["content"]
    assert sent[1:] == history[6:]
    assert [m["role"] for m in sent].count("tool") == 1


def test_anthropic_blocks_go_as_one_user_message_and_roles_stay_valid(proxy, upstream):
    memory_settings_update(block_turns=2, block_lambda=1.0)
    client = proxy.anthropic(default_headers=PLAIN)
    history: list[dict] = []
    upstream.script(*[Answer(f"Noted. {said(n + 1)}") for n in range(7)])
    for n in range(7):
        history.append({"role": "user", "content": said(n + 1)})
        reply = client.messages.create(model="c", max_tokens=50, messages=history)
        history.append({"role": "assistant", "content": reply.content[0].text})
    proxy.settle()
    jobs_drain()
    shown = blocks()
    assert [b.level for b in shown] == [1, 3, 5]
    history.append({"role": "user", "content": "Turn 8"})
    raw = client.messages.with_raw_response.create(model="c", max_tokens=50, messages=history)
    sent = upstream.last.json["messages"]
    # One user message for the run of two blocks: one text block each.
    assert sent[0]["role"] == "user"
    assert [part["type"] for part in sent[0]["content"]] == ["text", "text"]
    for part, block in zip(sent[0]["content"], shown[:2], strict=True):
        assert f"block {block.block.pk}, " in part["text"]
        assert part["text"].endswith(block.content)
    assert sent[1:] == history[8:]
    # The run is followed by the next turn's user message (the API combines the two); after
    # that the roles alternate as the agent sent them.
    assert [m["role"] for m in sent] == ["user", *["user", "assistant"] * 3, "user"]
    sent_tokens, native_tokens = tokens(raw)
    assert sent_tokens < native_tokens
