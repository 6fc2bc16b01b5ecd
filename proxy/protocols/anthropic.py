"""Anthropic Messages (`POST {base}/v1/messages`), streamed and not.

The memory goes in as one more text block at the end of `system` (a string `system` becomes
blocks, the string's JSON kept as it was sent); every existing block and its `cache_control`
stay untouched, so the cached prefix of tools and system is the agent's own. A user message made
of `tool_result` blocks continues the turn; one with text (or media) opens a turn. Thinking
blocks are neither stored nor part of a conversation's digest (clients drop them from earlier
turns). A streamed answer's `input_json_delta`s are reassembled here, for capture only.

Layered history: a run of replaced turns becomes one `user` message holding one text block per
block. A run starts at a turn's user message (after an assistant message, or first) and ends
with the turn's final assistant answer, so the message before it is an assistant's (or none:
the conversation still opens with a user message). The message after it is the next turn's user
message: two user messages in a row, which the Messages API combines into one user turn
(documented behaviour), so the roles still alternate as the model sees them, and not a byte of
the native messages around the run changes (merging into the next user message would rewrite
it, and that message may be the current turn)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from proxy.conversation import FILE, IMAGE, Message, Reply, Request, ToolCall
from proxy.history import Span
from proxy.memory_tools import CallRecord, anthropic_definitions
from proxy.protocols.base import (
    Headers,
    NotUnderstood,
    integer,
    json_object,
    mapping,
    status_type,
    text_of,
)
from proxy.splice import Body, append_items, array_items, encode, extend_list, insert
from proxy.sse import Event

PLACEHOLDERS = {"image": IMAGE, "document": FILE, "file": FILE}
# Stop reasons that are not the end of a turn: tools to run, or a paused server-tool turn.
CONTINUES = ("tool_use", "pause_turn")
ERROR_TYPES = {
    401: "authentication_error",
    403: "permission_error",
    404: "not_found_error",
    413: "request_too_large",
    429: "rate_limit_error",
    529: "overloaded_error",
}


def _is_call(block: dict[str, Any]) -> bool:
    return str(block.get("type", "")).endswith("tool_use")


def _is_result(block: dict[str, Any]) -> bool:
    return str(block.get("type", "")).endswith("tool_result") and "tool_use_id" in block


def _result(block: dict[str, Any]) -> Message:
    return Message(
        "tool",
        text_of(block.get("content"), placeholders=PLACEHOLDERS)
        or (f"[{block['type']}]" if block.get("type") != "tool_result" else ""),
        tool_call_id=str(block.get("tool_use_id") or ""),
        is_error=block.get("is_error") is True,
    )


def _user(content: Any) -> list[Message]:
    if isinstance(content, str):
        return [Message("user", content, opens_turn=True)]
    blocks = [b for b in content if isinstance(b, dict)] if isinstance(content, list) else []
    results = [_result(b) for b in blocks if _is_result(b)]
    rest = [b for b in blocks if not _is_result(b)]
    text = text_of(rest, placeholders=PLACEHOLDERS)
    said = [Message("user", text, opens_turn=not results)] if text else []
    return [*results, *said]


def _assistant(content: Any) -> list[Message]:
    if isinstance(content, str):
        return [Message("assistant", content)]
    blocks = [b for b in content if isinstance(b, dict)] if isinstance(content, list) else []
    calls = tuple(
        ToolCall(str(b.get("id") or ""), str(b.get("name") or ""), b.get("input"))
        for b in blocks
        if _is_call(b)
    )
    text = text_of([b for b in blocks if b.get("type") == "text"], placeholders={})
    # Server tools (web search …) answer inside the assistant's own content.
    results = [_result(b) for b in blocks if _is_result(b)]
    return [Message("assistant", text, tool_calls=calls), *results]


def _system_text(system: Any) -> str:
    return text_of(system, placeholders={}) if system is not None else ""


def _prompt_tokens(usage: dict[str, Any]) -> int | None:
    parts = [
        integer(usage.get(k))
        for k in ("input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens")
    ]
    known = [p for p in parts if p is not None]
    return sum(known) if known else None


def _reply(message: dict[str, Any]) -> Reply | None:
    stop = message.get("stop_reason")
    if not stop:
        return None
    usage = mapping(message.get("usage"))
    return Reply(
        messages=tuple(_assistant(message.get("content"))),
        final=stop not in CONTINUES,
        model=str(message.get("model") or ""),
        prompt_tokens=_prompt_tokens(usage),
        completion_tokens=integer(usage.get("output_tokens")),
    )


class AnthropicStream:
    """A streamed message, rebuilt block by block from its events."""

    def __init__(self) -> None:
        self.message: dict[str, Any] = {}
        self.blocks: dict[int, dict[str, Any]] = {}
        self.partial: dict[int, list[str]] = {}

    def is_terminal(self, event: Event) -> bool:
        return event.name == "message_stop"

    def is_error(self, event: Event) -> bool:
        return event.name == "error"

    def feed(self, event: Event) -> None:
        data = json_object(event.data) if event.data else {}
        kind = data.get("type") or event.name
        index = integer(data.get("index"))
        if kind == "message_start" and isinstance(data.get("message"), dict):
            self.message = dict(data["message"])
        elif kind == "content_block_start" and index is not None:
            block = data.get("content_block")
            self.blocks[index] = dict(block) if isinstance(block, dict) else {}
        elif kind == "content_block_delta" and index is not None:
            self._delta(index, mapping(data.get("delta")))
        elif kind == "message_delta":
            delta = mapping(data.get("delta"))
            self.message.update({k: v for k, v in delta.items() if v is not None})
            if isinstance(data.get("usage"), dict):
                usage = dict(self.message.get("usage") or {})
                usage.update(data["usage"])
                self.message["usage"] = usage

    def _delta(self, index: int, delta: dict[str, Any]) -> None:
        block = self.blocks.setdefault(index, {})
        if delta.get("type") == "text_delta" and isinstance(delta.get("text"), str):
            block["text"] = str(block.get("text") or "") + delta["text"]
        elif delta.get("type") == "input_json_delta":
            self.partial.setdefault(index, []).append(str(delta.get("partial_json") or ""))
        elif delta.get("type") == "thinking_delta" and isinstance(delta.get("thinking"), str):
            block["thinking"] = str(block.get("thinking") or "") + delta["thinking"]
        elif delta.get("type") == "signature_delta" and isinstance(delta.get("signature"), str):
            block["signature"] = str(block.get("signature") or "") + delta["signature"]

    def reply(self) -> Reply | None:
        return _reply(self.answer())

    def answer(self) -> dict[str, Any]:
        """The message as a non-streamed response would have been (thinking blocks and their
        signatures included: a tool round must send them back)."""
        blocks = []
        for index, block in sorted(self.blocks.items()):
            if index in self.partial:
                raw = "".join(self.partial[index])
                try:
                    block = {**block, "input": json.loads(raw) if raw.strip() else {}}
                except ValueError:
                    block = {**block, "input": raw}
            blocks.append(block)
        return {**self.message, "content": blocks}


class AnthropicStreamFilter:
    """Rewrites a streamed message's events without the named tools' `tool_use` blocks: the
    other blocks keep their order under new indexes, and a stop that asked only for dropped
    calls becomes `end_turn`."""

    def __init__(self, names: frozenset[str]) -> None:
        self.names = names
        # upstream block index → the agent's (None: dropped)
        self.blocks: dict[int, int | None] = {}
        self.calls = 0  # tool_use blocks kept

    def classify(self, event: Event) -> str:
        """`memory` when the event starts a named tool's block, `visible` when it carries text
        or starts another tool's, else ""."""
        data = json_object(event.data) if event.data else {}
        kind = data.get("type") or event.name
        if kind == "content_block_start":
            block = mapping(data.get("content_block"))
            if _is_call(block):
                return "memory" if block.get("name") in self.names else "visible"
        if kind == "content_block_delta":
            delta = mapping(data.get("delta"))
            if delta.get("type") == "text_delta" and delta.get("text"):
                return "visible"
        return ""

    def rewrite(self, event: Event) -> bytes | None:
        data = json_object(event.data) if event.data else {}
        kind = data.get("type") or event.name
        index = integer(data.get("index"))
        if kind == "content_block_start" and index is not None:
            block = mapping(data.get("content_block"))
            if _is_call(block) and block.get("name") in self.names:
                self.blocks[index] = None
            else:
                self.blocks[index] = sum(1 for kept in self.blocks.values() if kept is not None)
                self.calls += _is_call(block)
        if kind in ("content_block_start", "content_block_delta", "content_block_stop"):
            if index is None or index not in self.blocks:
                return event.raw
            new = self.blocks[index]
            if new is None:
                return None
            if new == index:
                return event.raw
            data["index"] = new
        elif kind == "message_delta":
            delta = mapping(data.get("delta"))
            if delta.get("stop_reason") != "tool_use" or self.calls:
                return event.raw
            data["delta"] = {**delta, "stop_reason": "end_turn"}
        else:
            return event.raw
        return f"event: {kind}\ndata: {encode(data)}\n\n".encode()


class AnthropicAdapter:
    name = "anthropic"
    chat_path = "/v1/messages"
    token_headers: tuple[str, ...] = ("x-api-key", "authorization")

    def upstream_auth(self, key: str) -> Headers:
        return [("x-api-key", key)]

    def read_request(self, body: Body) -> Request:
        items = body.get("messages")
        if not isinstance(items, list):
            raise NotUnderstood("no messages list")
        messages: list[Message] = []
        indexes: list[int] = []
        for index, item in enumerate(items):
            if not isinstance(item, dict):
                continue
            read: list[Message] = []
            if item.get("role") == "user":
                read = _user(item.get("content"))
            elif item.get("role") == "assistant":
                read = _assistant(item.get("content"))
            messages += read
            indexes += [index] * len(read)
        return Request(
            model=str(body.get("model") or ""),
            stream=body.get("stream") is True,
            system=_system_text(body.get("system")),
            messages=tuple(messages),
            items=tuple(indexes),
        )

    def inject(self, body: Body, text: str) -> str:
        block = encode({"type": "text", "text": text})
        part = body.members.get("system")
        if part is None:
            after = "," if body.members else ""
            return insert(body.text, body.opening + 1, f'"system":[{block}]{after}')
        if isinstance(part.value, str):
            original = body.text[part.start : part.end]
            blocks = f'[{{"type":"text","text":{original}}},{block}]'
            return body.text[: part.start] + blocks + body.text[part.end :]
        if isinstance(part.value, list):
            closing = part.end - 1  # the array's "]"
            return insert(body.text, closing, ("," if part.value else "") + block)
        raise NotUnderstood("system is neither a string nor a list of blocks")

    def replace_history(self, body: Body, spans: Sequence[Span]) -> str:
        items = array_items(body.text, body.members["messages"])
        text = body.text
        for span in sorted(spans, key=lambda s: -s.start):
            blocks = [{"type": "text", "text": t} for t in span.texts]
            message = encode({"role": "user", "content": blocks})
            text = text[: items[span.start].start] + message + text[items[span.end - 1].end :]
        return text

    def read_reply(self, raw: bytes) -> Reply | None:
        message = json_object(raw)
        return _reply(message) if message.get("type") == "message" else None

    def add_tools(self, body: Body) -> str | None:
        """The body with the memory tools after the agent's own; None unless the model chooses
        its tools freely (`tool_choice` absent or `{"type": "auto"}`: `none`, `any` or a named
        tool is the agent's decision, which memory tools would change)."""
        if mapping(body.get("tool_choice")).get("type", "auto") != "auto":
            return None
        return extend_list(body, "tools", anthropic_definitions())

    def continue_body(self, body: Body, answer: dict[str, Any], calls: Sequence[CallRecord]) -> str:
        """The body with the answer's content as the assistant's message (thinking blocks
        included, as the API requires) and one user message holding each call's result."""
        assistant = {"role": "assistant", "content": answer.get("content") or []}
        results = [
            {
                "type": "tool_result",
                "tool_use_id": call.id,
                "content": call.content,
                **({} if call.ok else {"is_error": True}),
            }
            for call in calls
        ]
        added = [encode(assistant), encode({"role": "user", "content": results})]
        return append_items(body.text, body.members["messages"], added)

    def without_calls(self, answer: dict[str, Any], names: frozenset[str]) -> dict[str, Any]:
        """The message without the named tools' `tool_use` blocks (a stop that asked only for
        them becomes `end_turn`)."""
        content = [
            block
            for block in answer.get("content") or []
            if not (isinstance(block, dict) and _is_call(block) and block.get("name") in names)
        ]
        out = {**answer, "content": content}
        if out.get("stop_reason") == "tool_use" and not any(
            isinstance(b, dict) and _is_call(b) for b in content
        ):
            out["stop_reason"] = "end_turn"
        return out

    def stream_filter(self, names: frozenset[str]) -> AnthropicStreamFilter:
        return AnthropicStreamFilter(names)

    def stream_reader(self) -> AnthropicStream:
        return AnthropicStream()

    def error_body(self, status: int, code: str, message: str) -> bytes:
        kind = status_type(status, ERROR_TYPES, "invalid_request_error", "api_error")
        body = {"type": "error", "error": {"type": kind, "message": message, "code": code}}
        return json.dumps(body, ensure_ascii=False).encode()

    def stream_error(self, code: str, message: str) -> bytes:
        body = {"type": "error", "error": {"type": "api_error", "message": message, "code": code}}
        return f"event: error\ndata: {json.dumps(body, ensure_ascii=False)}\n\n".encode()
