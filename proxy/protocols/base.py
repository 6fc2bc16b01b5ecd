"""What a protocol adapter gives the protocol-neutral core (proxy.exchange): how to read a
request and an answer into the neutral form, where to put the memory message, how the agent's
credentials travel, and how errors look in that protocol (so the SDKs raise their usual
exception classes)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any, Protocol

from proxy.conversation import Reply, Request
from proxy.history import Span
from proxy.memory_tools import CallRecord
from proxy.splice import Body
from proxy.sse import Event

Headers = list[tuple[str, str]]


class NotUnderstood(ValueError):
    """A request body the adapter cannot read as a chat request: it is forwarded untouched."""


class StreamReader(Protocol):
    """Reads a streamed answer event by event, for capture only (events are relayed as they
    came)."""

    def feed(self, event: Event) -> None:
        """Take one event into the answer."""

    def is_terminal(self, event: Event) -> bool:
        """True for the event that ends a complete stream (`[DONE]`, `message_stop`): the
        proxy stores the turn before relaying it."""

    def is_error(self, event: Event) -> bool:
        """True for an error the upstream sent inside the stream."""

    def reply(self) -> Reply | None:
        """The answer read so far, or None while it is incomplete (no finish/stop reason)."""

    def answer(self) -> dict[str, Any]:
        """The answer read so far as the protocol's non-streamed response would be."""


class StreamFilter(Protocol):
    """Rewrites a streamed answer for the agent without the memory tools' calls (the evidence
    loop, proxy.memory_tools)."""

    def classify(self, event: Event) -> str:
        """`memory` when the event starts a memory call, `visible` when it carries text or
        another call (what the agent would see), else ""."""

    def rewrite(self, event: Event) -> bytes | None:
        """The event as the agent gets it (None: dropped)."""


class Adapter(Protocol):
    name: str  # "openai" | "anthropic"
    # The path below the protocol's base URL that carries conversations (memory applies).
    chat_path: str
    # Headers a client may put its StrataGate token in (`sg_…`), first match wins.
    token_headers: tuple[str, ...]

    def upstream_auth(self, key: str) -> Headers:
        """The header(s) carrying the server's provider key (`STRATAGATE_PROXY_*_KEY`)."""

    def read_request(self, body: Body) -> Request:
        """The request in neutral form; NotUnderstood when it is not a chat request."""

    def inject(self, body: Body, text: str) -> str:
        """The body text with `text` added as one memory message, the agent's prefix kept."""

    def replace_history(self, body: Body, spans: Sequence[Span]) -> str:
        """The body text with each span's items replaced by its blocks' messages (docs/PROXY.md,
        "Layered history"); every other byte as it was sent."""

    def read_reply(self, raw: bytes) -> Reply | None:
        """A non-streamed answer; None when it cannot be read."""

    def add_tools(self, body: Body) -> str | None:
        """The body with the memory tools after the agent's own tools; None when the agent's
        request rules them out (tools turned off, several choices)."""

    def continue_body(self, body: Body, answer: dict[str, Any], calls: Sequence[CallRecord]) -> str:
        """The body with a memory round appended: the answer's assistant message as the
        upstream sent it, then each call's result."""

    def without_calls(self, answer: dict[str, Any], names: frozenset[str]) -> dict[str, Any]:
        """A non-streamed answer without the named tools' calls."""

    def stream_filter(self, names: frozenset[str]) -> StreamFilter: ...

    def stream_reader(self) -> StreamReader: ...

    def error_body(self, status: int, code: str, message: str) -> bytes:
        """An error as this protocol's API writes one, with StrataGate's stable `code`."""

    def stream_error(self, code: str, message: str) -> bytes:
        """An error event for a stream already under way (the SDKs raise on it)."""


def text_of(value: object, *, placeholders: dict[str, str]) -> str:
    """Text of a content value: a string, or a list of parts whose text parts are kept and
    whose media parts (image, audio, file: `placeholders` by part type) become a short mark."""
    if isinstance(value, str):
        return value
    if not isinstance(value, list):
        return ""
    pieces: list[str] = []
    for part in value:
        if isinstance(part, str):
            pieces.append(part)
            continue
        if not isinstance(part, dict):
            continue
        kind = str(part.get("type", ""))
        if kind in ("text", "input_text", "output_text") and isinstance(part.get("text"), str):
            pieces.append(part["text"])
        elif kind == "refusal" and isinstance(part.get("refusal"), str):
            pieces.append(part["refusal"])
        elif kind in placeholders:
            pieces.append(placeholders[kind])
    return "\n\n".join(piece for piece in pieces if piece)


def json_object(text: str | bytes) -> dict[str, Any]:
    """`text` parsed when it is a JSON object, else an empty one (answers are read leniently:
    what cannot be read is relayed all the same, just not captured)."""
    try:
        value = json.loads(text)
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def integer(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def mapping(value: Any) -> dict[str, Any]:
    """`value` when it is a JSON object, else an empty one."""
    return value if isinstance(value, dict) else {}


def status_type(status: int, types: dict[int, str], default_4xx: str, default_5xx: str) -> str:
    return types.get(status, default_5xx if status >= 500 else default_4xx)
