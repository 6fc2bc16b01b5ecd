"""OpenAI Chat Completions (`POST {base}/chat/completions`), streamed and not.

Layered history: each replaced block is one `user` message (role `user`, not `system`: every
OpenAI-compatible server accepts a user message anywhere in the conversation, while several
reject a system message after the first; its text says it is StrataGate's record of an earlier
part of the conversation). Consecutive user messages are valid in Chat Completions.

The memory message is a `system` message placed right after the agent's leading
`system`/`developer` messages (first when there are none), so everything the agent put before
it stays byte-identical for the provider's prompt cache. Tool calls are read from
`tool_calls` (and the legacy `function_call`), tool results from `tool` (and `function`)
messages; a streamed answer's tool-call argument deltas are reassembled here, for capture
only."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from proxy.conversation import AUDIO, FILE, IMAGE, Message, Reply, Request, ToolCall
from proxy.history import Span
from proxy.memory_tools import CallRecord, openai_definitions
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

PLACEHOLDERS = {"image_url": IMAGE, "input_image": IMAGE, "input_audio": AUDIO, "file": FILE}
SYSTEM_ROLES = ("system", "developer")
# Finish reasons of an answer that asks for tools: the turn goes on in the next request.
TOOL_FINISH = ("tool_calls", "function_call")
ERROR_TYPES = {401: "authentication_error", 403: "permission_error", 404: "not_found_error"}


def _arguments(raw: Any) -> Any:
    if isinstance(raw, str):
        try:
            return json.loads(raw)
        except ValueError:
            return raw
    return raw


def _tool_calls(message: dict[str, Any]) -> tuple[ToolCall, ...]:
    calls: list[ToolCall] = []
    for call in message.get("tool_calls") or []:
        if not isinstance(call, dict):
            continue
        function = mapping(call.get("function"))
        calls.append(
            ToolCall(
                id=str(call.get("id") or ""),
                name=str(function.get("name") or call.get("name") or ""),
                arguments=_arguments(function.get("arguments")),
            )
        )
    legacy = message.get("function_call")
    if isinstance(legacy, dict):
        calls.append(
            ToolCall("", str(legacy.get("name") or ""), _arguments(legacy.get("arguments")))
        )
    return tuple(calls)


def _message(raw: Any) -> Message | None:
    if not isinstance(raw, dict):
        return None
    role = raw.get("role")
    content = text_of(raw.get("content"), placeholders=PLACEHOLDERS)
    name = str(raw.get("name") or "")
    if role == "user":
        return Message("user", content, name=name, opens_turn=True)
    if role == "assistant":
        if not content and isinstance(raw.get("refusal"), str):
            content = raw["refusal"]
        return Message("assistant", content, name=name, tool_calls=_tool_calls(raw))
    if role in ("tool", "function"):
        return Message("tool", content, name=name, tool_call_id=str(raw.get("tool_call_id") or ""))
    return None


def _leading_system(items: list[Any]) -> int:
    count = 0
    for item in items:
        if not (isinstance(item, dict) and item.get("role") in SYSTEM_ROLES):
            break
        count += 1
    return count


class OpenAIStream:
    """The first choice of a streamed answer, assembled from its chunks."""

    def __init__(self) -> None:
        self.content: list[str] = []
        self.refusal: list[str] = []
        self.calls: dict[int, dict[str, Any]] = {}
        self.finish: str | None = None
        self.model = ""
        self.id = ""
        self.usage: dict[str, Any] = {}

    def is_terminal(self, event: Event) -> bool:
        return event.data.strip() == "[DONE]"

    def is_error(self, event: Event) -> bool:
        return (
            event.data.lstrip().startswith("{")
            and '"error"' in event.data
            and bool(json_object(event.data).get("error"))
        )

    def feed(self, event: Event) -> None:
        chunk = json_object(event.data)
        if not chunk:
            return
        self.model = str(chunk.get("model") or self.model)
        self.id = str(chunk.get("id") or self.id)
        if isinstance(chunk.get("usage"), dict):
            self.usage = chunk["usage"]
        for choice in chunk.get("choices") or []:
            if not isinstance(choice, dict) or choice.get("index", 0) != 0:
                continue
            delta = mapping(choice.get("delta"))
            if isinstance(delta.get("content"), str):
                self.content.append(delta["content"])
            if isinstance(delta.get("refusal"), str):
                self.refusal.append(delta["refusal"])
            for call in delta.get("tool_calls") or []:
                if isinstance(call, dict):
                    self._call(call)
            if isinstance(delta.get("function_call"), dict):
                self._call({"index": -1, "function": delta["function_call"]})
            if choice.get("finish_reason"):
                self.finish = str(choice["finish_reason"])

    def _call(self, delta: dict[str, Any]) -> None:
        slot = self.calls.setdefault(int(delta.get("index") or 0), {"id": "", "name": "", "a": []})
        if delta.get("id"):
            slot["id"] = str(delta["id"])
        function = mapping(delta.get("function"))
        if function.get("name"):
            slot["name"] += str(function["name"])
        if isinstance(function.get("arguments"), str):
            slot["a"].append(function["arguments"])

    def reply(self) -> Reply | None:
        return _answer_reply(self.answer()) if self.finish is not None else None

    def answer(self) -> dict[str, Any]:
        """The answer as a non-streamed response would have been."""
        message: dict[str, Any] = {"role": "assistant", "content": "".join(self.content) or None}
        if self.refusal:
            message["refusal"] = "".join(self.refusal)
        if self.calls:
            message["tool_calls"] = [
                {
                    "id": slot["id"],
                    "type": "function",
                    "function": {"name": slot["name"], "arguments": "".join(slot["a"])},
                }
                for _, slot in sorted(self.calls.items())
            ]
        answer: dict[str, Any] = {
            "id": self.id,
            "object": "chat.completion",
            "model": self.model,
            "choices": [{"index": 0, "message": message, "finish_reason": self.finish}],
        }
        if self.usage:
            answer["usage"] = self.usage
        return answer


class OpenAIStreamFilter:
    """Rewrites a streamed answer's chunks without the calls of the named tools: the other
    calls keep their order under new indexes, and a finish that asked only for dropped calls
    becomes `stop`."""

    def __init__(self, names: frozenset[str]) -> None:
        self.names = names
        self.kept: dict[int, int] = {}  # upstream call index → the agent's
        self.dropped: set[int] = set()

    def classify(self, event: Event) -> str:
        """`memory` when the event starts a named tool's call, `visible` when it carries text or
        another call, else ""."""
        for choice in json_object(event.data).get("choices") or []:
            delta = mapping(mapping(choice).get("delta"))
            if delta.get("content") or delta.get("refusal"):
                return "visible"
            for call in delta.get("tool_calls") or []:
                name = mapping(mapping(call).get("function")).get("name")
                if name:
                    return "memory" if name in self.names else "visible"
        return ""

    def rewrite(self, event: Event) -> bytes | None:
        chunk = json_object(event.data) if event.data.lstrip().startswith("{") else {}
        changed = False
        for choice in chunk.get("choices") or []:
            if not isinstance(choice, dict):
                continue
            delta = mapping(choice.get("delta"))
            if isinstance(delta.get("tool_calls"), list):
                calls = [self._call(call) for call in delta["tool_calls"] if isinstance(call, dict)]
                kept = [call for call in calls if call is not None]
                if kept != delta["tool_calls"]:
                    changed = True
                    if kept:
                        delta["tool_calls"] = kept
                    else:
                        del delta["tool_calls"]
            if choice.get("finish_reason") in TOOL_FINISH and not self.kept:
                choice["finish_reason"] = "stop"
                changed = True
        if not changed:
            return event.raw
        return f"data: {encode(chunk)}\n\n".encode()

    def _call(self, call: dict[str, Any]) -> dict[str, Any] | None:
        index = integer(call.get("index")) or 0
        if index not in self.kept and index not in self.dropped:
            name = mapping(call.get("function")).get("name")
            if name in self.names:
                self.dropped.add(index)
            else:
                self.kept[index] = len(self.kept)
        if index in self.dropped:
            return None
        return call if self.kept[index] == index else {**call, "index": self.kept[index]}


def _answer_reply(answer: dict[str, Any]) -> Reply | None:
    choices = answer.get("choices")
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
        return None
    message = _message(choices[0].get("message"))
    if message is None:
        return None
    usage = mapping(answer.get("usage"))
    finish = str(choices[0].get("finish_reason") or "")
    return Reply(
        messages=(message,),
        final=finish not in TOOL_FINISH and not message.tool_calls,
        model=str(answer.get("model") or ""),
        prompt_tokens=integer(usage.get("prompt_tokens")),
        completion_tokens=integer(usage.get("completion_tokens")),
    )


class OpenAIAdapter:
    name = "openai"
    chat_path = "/chat/completions"
    token_headers: tuple[str, ...] = ("authorization",)

    def upstream_auth(self, key: str) -> Headers:
        return [("authorization", f"Bearer {key}")]

    def read_request(self, body: Body) -> Request:
        items = body.get("messages")
        if not isinstance(items, list):
            raise NotUnderstood("no messages list")
        leading = _leading_system(items)
        system = "\n\n".join(
            text_of(item.get("content"), placeholders=PLACEHOLDERS) for item in items[:leading]
        )
        read = [(i, _message(item)) for i, item in enumerate(items) if i >= leading]
        kept = [(i, m) for i, m in read if m is not None]
        return Request(
            model=str(body.get("model") or ""),
            stream=body.get("stream") is True,
            system=system,
            messages=tuple(m for _, m in kept),
            items=tuple(i for i, _ in kept),
        )

    def inject(self, body: Body, text: str) -> str:
        part = body.members["messages"]
        items = array_items(body.text, part)
        leading = _leading_system([item.value for item in items])
        roles = {item.value.get("role") for item in items[:leading]}
        role = "developer" if roles == {"developer"} else "system"
        message = encode({"role": role, "content": text})
        if leading:
            return insert(body.text, items[leading - 1].end, "," + message)
        return insert(body.text, part.start + 1, message + ("," if items else ""))

    def replace_history(self, body: Body, spans: Sequence[Span]) -> str:
        items = array_items(body.text, body.members["messages"])
        text = body.text
        for span in sorted(spans, key=lambda s: -s.start):
            messages = ",".join(encode({"role": "user", "content": t}) for t in span.texts)
            text = text[: items[span.start].start] + messages + text[items[span.end - 1].end :]
        return text

    def read_reply(self, raw: bytes) -> Reply | None:
        return _answer_reply(json_object(raw))

    def add_tools(self, body: Body) -> str | None:
        """The body with the memory tools after the agent's own; None unless the model chooses
        its tools freely (`tool_choice` absent or `auto`: `none`, `required` or a named tool is
        the agent's decision, which memory tools would change) and one choice is asked for."""
        if body.get("tool_choice", "auto") != "auto" or (integer(body.get("n")) or 1) > 1:
            return None
        return extend_list(body, "tools", openai_definitions())

    def continue_body(self, body: Body, answer: dict[str, Any], calls: Sequence[CallRecord]) -> str:
        """The body with the answer's assistant message (its text and calls, as sent) and a
        `tool` message per call's result after the last message."""
        choice = mapping((answer.get("choices") or [{}])[0])
        said = mapping(choice.get("message"))
        assistant: dict[str, Any] = {"role": "assistant", "content": said.get("content")}
        assistant["tool_calls"] = [
            {"id": c.get("id"), "type": "function", "function": mapping(c.get("function"))}
            for c in said.get("tool_calls") or []
            if isinstance(c, dict)
        ]
        results = [{"role": "tool", "tool_call_id": c.id, "content": c.content} for c in calls]
        added = [encode(assistant), *(encode(result) for result in results)]
        return append_items(body.text, body.members["messages"], added)

    def without_calls(self, answer: dict[str, Any], names: frozenset[str]) -> dict[str, Any]:
        """The answer without the named tools' calls (a finish that asked only for them
        becomes `stop`)."""
        choices = [dict(c) if isinstance(c, dict) else c for c in answer.get("choices") or []]
        for choice in choices:
            if not isinstance(choice, dict) or not isinstance(choice.get("message"), dict):
                continue
            message = dict(choice["message"])
            calls = [
                c
                for c in message.get("tool_calls") or []
                if mapping(mapping(c).get("function")).get("name") not in names
            ]
            if calls:
                message["tool_calls"] = calls
            else:
                message.pop("tool_calls", None)
                if choice.get("finish_reason") in TOOL_FINISH:
                    choice["finish_reason"] = "stop"
            choice["message"] = message
        return {**answer, "choices": choices}

    def stream_filter(self, names: frozenset[str]) -> OpenAIStreamFilter:
        return OpenAIStreamFilter(names)

    def stream_reader(self) -> OpenAIStream:
        return OpenAIStream()

    def error_body(self, status: int, code: str, message: str) -> bytes:
        kind = status_type(status, ERROR_TYPES, "invalid_request_error", "server_error")
        error = {"message": message, "type": kind, "param": None, "code": code}
        return json.dumps({"error": error}, ensure_ascii=False).encode()

    def stream_error(self, code: str, message: str) -> bytes:
        error = {"message": message, "type": "server_error", "param": None, "code": code}
        return f"data: {json.dumps({'error': error}, ensure_ascii=False)}\n\n".encode()
