"""Tool chains survive layered history: over 300 generated conversations per protocol (tool loops
of several rounds and calls, parallel calls, agent system messages in the middle, a current turn
whose own tool loop is under way), any run of blocks memory may choose for the earlier turns is
written by the real adapters, and what would go upstream is checked: no `tool` message without
the assistant message carrying its call right before it (Anthropic: no `tool_result` without its
`tool_use` in the message before), the conversation still opens with a user message, and every
byte after the last replaced run is the agent's. Memory's choice of blocks (whole, consecutive
turns: memory.selectors.proxy_history) is drawn at random here; the end-to-end path through the
SDKs and the database is tests/proxy/test_history.py."""

from __future__ import annotations

import json
import random
from typing import Any

from memory.selectors.proxy_history import HistoryBlock
from proxy.conversation import conversation_of
from proxy.history import layered
from proxy.protocols import ADAPTERS
from proxy.splice import array_items, body_parse

CONVERSATIONS = 300


def _turn(rng: random.Random, n: int, ids: list[int], *, finished: bool = True) -> list[dict]:
    """One turn in OpenAI form: a user message, 0–3 tool rounds (1–3 calls each), an answer."""
    turn: list[dict[str, Any]] = [{"role": "user", "content": f"question {n} " * rng.randint(1, 9)}]
    if rng.random() < 0.1:
        turn.append({"role": "system", "content": "a reminder the agent put in mid-conversation"})
    for _ in range(rng.choice([0, 0, 1, 1, 2, 3])):
        calls = []
        for _ in range(rng.randint(1, 3)):
            ids[0] += 1
            arguments = json.dumps({"path": f"f{ids[0]}"})
            calls.append(
                {
                    "id": f"call_{ids[0]}",
                    "type": "function",
                    "function": {
                        "name": rng.choice(["ls", "read", "grep"]),
                        "arguments": arguments,
                    },
                }
            )
        turn.append(
            {"role": "assistant", "content": rng.choice([None, "let me look"]), "tool_calls": calls}
        )
        for call in calls:
            turn.append({"role": "tool", "tool_call_id": call["id"], "content": "result " * 5})
    if finished:
        turn.append({"role": "assistant", "content": f"answer {n} " * rng.randint(1, 9)})
    elif turn[-1]["role"] == "user":
        ids[0] += 1
        call = {
            "id": f"call_{ids[0]}",
            "type": "function",
            "function": {"name": "ls", "arguments": "{}"},
        }
        turn += [
            {"role": "assistant", "content": None, "tool_calls": [call]},
            {"role": "tool", "tool_call_id": call["id"], "content": "x"},
        ]
    return turn


def _conversation(rng: random.Random) -> list[dict]:
    ids = [0]
    messages: list[dict] = []
    if rng.random() < 0.3:
        messages.append({"role": "system", "content": "You are the agent."})
    for n in range(rng.randint(1, 12)):
        messages += _turn(rng, n, ids)
    messages += _turn(rng, 99, ids, finished=rng.random() < 0.5)
    return messages


def _anthropic(messages: list[dict]) -> dict[str, Any]:
    """The same conversation as an Anthropic body (system apart, tool results in user turns)."""
    system = [m["content"] for m in messages if m["role"] == "system"]
    out: list[dict[str, Any]] = []
    for m in messages:
        if m["role"] == "user":
            out.append({"role": "user", "content": m["content"]})
        elif m["role"] == "assistant":
            content: list[dict[str, Any]] = []
            if m.get("content"):
                content.append({"type": "text", "text": m["content"]})
            for call in m.get("tool_calls") or []:
                content.append(
                    {
                        "type": "tool_use",
                        "id": call["id"],
                        "name": call["function"]["name"],
                        "input": json.loads(call["function"]["arguments"]),
                    }
                )
            out.append({"role": "assistant", "content": content})
        elif m["role"] == "tool":
            result = {
                "type": "tool_result",
                "tool_use_id": m["tool_call_id"],
                "content": m["content"],
            }
            if out and out[-1]["role"] == "user" and isinstance(out[-1]["content"], list):
                out[-1]["content"].append(result)
            else:
                out.append({"role": "user", "content": [result]})
    body: dict[str, Any] = {"model": "c", "max_tokens": 10, "messages": out}
    if system:
        body["system"] = "\n".join(system)
    return body


def _blocks(rng: random.Random, segments: int) -> list[HistoryBlock]:
    """Consecutive runs of whole turns, some of them chosen (what memory may answer)."""
    blocks: list[HistoryBlock] = []
    index = 0
    while index < segments:
        size = rng.randint(1, 4)
        last = min(index + size, segments) - 1
        if rng.random() < 0.6:
            blocks.append(
                HistoryBlock(
                    block_id=len(blocks) + 1,
                    first_turn=index + 1,
                    last_turn=last + 1,
                    level=rng.randint(0, 4),
                    content=f"view of turns {index + 1}–{last + 1}",
                    segments=(index, last),
                )
            )
        index = last + 1
    return blocks


def _send(protocol: str, raw: bytes, rng: random.Random) -> tuple[str, int]:
    """What goes upstream, and how many runs were replaced."""
    adapter = ADAPTERS[protocol]
    body = body_parse(raw)
    request = adapter.read_request(body)
    conversation = conversation_of(request)
    result = layered(request, conversation, _blocks(rng, len(conversation.earlier)))
    if not result.spans:
        return body.text, 0
    text = adapter.replace_history(body, result.spans)
    items = array_items(body.text, body.members["messages"])
    first = min(span.start for span in result.spans)
    last = max(span.end for span in result.spans)
    # Every byte before the first run and after the last one is the agent's, as sent.
    assert text.startswith(body.text[: items[first].start])
    assert text.endswith(body.text[items[last - 1].end :])
    return text, len(result.spans)


def _openai_orphans(messages: list[dict]) -> int:
    orphans = 0
    carrier: set[str] = set()
    for message in messages:
        if message["role"] == "tool":
            orphans += message["tool_call_id"] not in carrier
            continue
        carrier = {c["id"] for c in message.get("tool_calls") or []}
    return orphans


def _anthropic_orphans(messages: list[dict]) -> int:
    orphans = 0
    previous: list[Any] = []
    for message in messages:
        content = message["content"] if isinstance(message["content"], list) else []
        if message["role"] == "user":
            uses = {
                b["id"] for b in previous if isinstance(b, dict) and b.get("type") == "tool_use"
            }
            orphans += sum(
                1
                for b in content
                if b.get("type") == "tool_result" and b["tool_use_id"] not in uses
            )
        previous = content
    return orphans


def test_openai_tool_messages_always_follow_their_calls():
    rng = random.Random(28)
    orphans = runs = 0
    for _ in range(CONVERSATIONS):
        messages = _conversation(rng)
        raw = json.dumps({"model": "m", "messages": messages}, separators=(",", ":")).encode()
        assert _openai_orphans(messages) == 0
        text, replaced = _send("openai", raw, rng)
        sent = json.loads(text)["messages"]
        orphans += _openai_orphans(sent)
        runs += replaced
    assert orphans == 0
    assert runs > CONVERSATIONS // 2  # the fuzz really replaced turns, many times


def test_anthropic_tool_results_always_follow_their_tool_use():
    rng = random.Random(29)
    orphans = runs = 0
    for _ in range(CONVERSATIONS):
        body = _anthropic(_conversation(rng))
        raw = json.dumps(body, indent=rng.choice([None, 1])).encode()
        text, replaced = _send("anthropic", raw, rng)
        sent = json.loads(text)["messages"]
        assert sent[0]["role"] == "user"
        orphans += _anthropic_orphans(sent)
        runs += replaced
    assert orphans == 0
    assert runs > CONVERSATIONS // 2
