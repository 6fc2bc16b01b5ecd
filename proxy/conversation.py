"""A proxied conversation in protocol-neutral form: the messages a protocol adapter read from a
request or a response, the current turn, and the digests that recognise a conversation the proxy
has already stored (docs/PROXY.md, "How sessions are recognised"). Plain Python, no Django.

A digest covers what every agent sends back unchanged: roles, text (trimmed), tool calls (id,
name, arguments as canonical JSON) and tool results (the call id and text). It leaves out what
clients are known to rewrite or drop: names, `null` vs empty content, text-part vs string
content, thinking blocks, cache markers, and every system prompt (kept apart, once per session).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

# The digest of "no history yet": every session's chain starts here or at a later link.
SEED = hashlib.sha256(b"stratagate-proxy-conversation-v1").hexdigest()
IMAGE = "[image]"
AUDIO = "[audio]"
FILE = "[file]"


@dataclass(frozen=True)
class ToolCall:
    id: str
    name: str
    arguments: Any  # parsed JSON when it parses, else the raw text as sent


@dataclass(frozen=True)
class Message:
    """One message. `role` is `user`, `assistant` or `tool` (a tool result, linked to its call
    by `tool_call_id`). `opens_turn` marks a user message that starts a turn (the adapter knows:
    an Anthropic user message made of tool results continues one)."""

    role: str
    content: str = ""
    name: str = ""
    tool_calls: tuple[ToolCall, ...] = ()
    tool_call_id: str = ""
    is_error: bool = False
    opens_turn: bool = False


@dataclass(frozen=True)
class Request:
    """What a protocol adapter read from a model request."""

    model: str
    stream: bool
    system: str  # the agent's system prompt as text ("" when none)
    messages: tuple[Message, ...]  # every non-system message, in order
    # For each message, the index in the body's `messages` array of the item it was read from
    # (one item may give several messages); empty when the adapter does not say.
    items: tuple[int, ...] = ()


@dataclass(frozen=True)
class Reply:
    """The assistant's answer as the adapter read it from a response (streamed or not).
    `final` is False when the model asked for tools: the turn goes on in a later request."""

    messages: tuple[Message, ...]
    final: bool
    model: str = ""
    prompt_tokens: int | None = None
    completion_tokens: int | None = None


@dataclass(frozen=True)
class Conversation:
    """A request split into its earlier turns and the current one."""

    system: str
    earlier: tuple[tuple[Message, ...], ...]  # segments: complete turns (a prelude first, if any)
    current: tuple[Message, ...]  # from the turn's user message on ("" turn: no user message)
    history: tuple[str, ...] = field(default=())  # chain digests: SEED, after segment 1, …

    @property
    def earlier_digest(self) -> str:
        return self.history[-1]

    @property
    def opener_digest(self) -> str:
        """Names the current turn among requests with the same history: its user message."""
        return message_digest(self.current[0]) if self.current else ""

    @property
    def query(self) -> str:
        """The current user message's text (what activated memory is looked up with)."""
        return self.current[0].content if self.current else ""


def conversation_of(request: Request) -> Conversation:
    """Split the request at its last turn-opening user message; everything before it is cut
    into segments at each earlier opener (messages before the first opener form a prelude)."""
    messages = request.messages
    last = max((i for i, m in enumerate(messages) if m.opens_turn), default=-1)
    earlier_messages: tuple[Message, ...] = messages if last < 0 else messages[:last]
    current: tuple[Message, ...] = () if last < 0 else messages[last:]
    segments: list[tuple[Message, ...]] = []
    start = 0
    for index, message in enumerate(earlier_messages):
        if message.opens_turn and index > start:
            segments.append(tuple(earlier_messages[start:index]))
            start = index
    if start < len(earlier_messages):
        segments.append(tuple(earlier_messages[start:]))
    return Conversation(
        system=request.system,
        earlier=tuple(segments),
        current=tuple(current),
        history=tuple(history_digests(segments)),
    )


def _canonical(value: Any) -> str:
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except ValueError:
            return value.strip()
    return json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


def _digest_form(message: Message) -> list[Any]:
    return [
        message.role,
        message.content.strip(),
        [[call.id, call.name, _canonical(call.arguments)] for call in message.tool_calls],
        message.tool_call_id,
    ]


def message_digest(message: Message) -> str:
    encoded = json.dumps(_digest_form(message), ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(encoded.encode()).hexdigest()


def chain(previous: str, segment: Sequence[Message]) -> str:
    """The digest of a history after one more segment (a turn)."""
    encoded = json.dumps(
        [previous, [_digest_form(m) for m in segment]], ensure_ascii=False, separators=(",", ":")
    )
    return hashlib.sha256(encoded.encode()).hexdigest()


def history_digests(segments: Sequence[Sequence[Message]]) -> list[str]:
    """[SEED, after the first segment, …, after the last]."""
    digests = [SEED]
    for segment in segments:
        digests.append(chain(digests[-1], segment))
    return digests


def completed_turn(conversation: Conversation, reply: Reply) -> tuple[Message, ...]:
    """The turn as the agent will send it back next time: its request part and the answer."""
    return (*conversation.current, *reply.messages)


def tool_result_value(message: Message) -> Any:
    """How a tool result is kept on its call record (`result`, SPEC §3's tool records)."""
    return {"ok": False, "error": message.content} if message.is_error else message.content


@dataclass(frozen=True)
class Stored:
    """A message as the turn stores it (memory.services.ingest.MessageIn's fields)."""

    role: str
    content: str
    name: str = ""
    tool_calls: tuple[dict[str, Any], ...] = ()


def fold(turn: Sequence[Message]) -> list[Stored]:
    """The turn as stored: each tool result on its call's record (`{id, name, arguments,
    result}`), so the views show one tool line per call and L5 keeps everything; a result
    whose call is not in the turn stays a `tool` message."""
    stored: list[Stored] = []
    calls: dict[str, tuple[int, int]] = {}  # call id → (stored index, call index)
    for message in turn:
        if message.role == "tool":
            where = calls.get(message.tool_call_id) if message.tool_call_id else None
            if where is not None:
                index, position = where
                owner = stored[index]
                updated = list(owner.tool_calls)
                updated[position] = {**updated[position], "result": tool_result_value(message)}
                stored[index] = Stored(owner.role, owner.content, owner.name, tuple(updated))
                continue
            stored.append(Stored("tool", message.content, message.name))
            continue
        records = tuple(
            {"id": call.id, "name": call.name, "arguments": call.arguments}
            for call in message.tool_calls
        )
        for position, call in enumerate(message.tool_calls):
            if call.id:
                calls[call.id] = (len(stored), position)
        stored.append(Stored(message.role, message.content, message.name, records))
    return stored
