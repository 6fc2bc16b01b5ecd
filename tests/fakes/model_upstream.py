"""A fake model server speaking OpenAI Chat Completions and Anthropic Messages over real HTTP
(keep-alive, chunked streams), for the proxy's tests and benchmark. It records every request
exactly as received and answers from a script:

    upstream.script(Answer("Hello!"), Answer(tool_calls=[Call("c1", "get", {"x": 1})]), …)

Each item answers one model request (`/v1/chat/completions` or `/v1/messages`, streamed when
the request says `stream: true`); when the script is empty the default answer is "ok".
`GET /v1/models` and `POST /v1/messages/count_tokens` answer fixed bodies.
"""

from __future__ import annotations

import json
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any


@dataclass(frozen=True)
class Call:
    id: str
    name: str
    arguments: dict[str, Any]


@dataclass(frozen=True)
class Answer:
    """One scripted answer. `status` ≥ 400 sends `error` (or a protocol-shaped default) with
    `headers`; `cut_after` ends a stream after that many events, without its terminal event;
    `hang` keeps a stream open (sending pings) for that many seconds before finishing."""

    text: str = ""
    tool_calls: tuple[Call, ...] | list[Call] = ()
    status: int = 200
    error: Any = None
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0
    chunk_delay: float = 0.0
    cut_after: int | None = None
    hang: float = 0.0
    model: str = ""


@dataclass
class Seen:
    method: str
    path: str
    headers: dict[str, str]
    body: bytes
    at: float

    @property
    def json(self) -> Any:
        return json.loads(self.body)


type Script = Answer | Callable[[Seen], Answer]


def _words(text: str) -> list[str]:
    parts = text.split(" ")
    return [p + (" " if i < len(parts) - 1 else "") for i, p in enumerate(parts)] if text else []


def openai_body(answer: Answer, model: str) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": answer.text or None}
    if answer.tool_calls:
        message["tool_calls"] = [
            {
                "id": c.id,
                "type": "function",
                "function": {"name": c.name, "arguments": json.dumps(c.arguments)},
            }
            for c in answer.tool_calls
        ]
    return {
        "id": "chatcmpl-fake",
        "object": "chat.completion",
        "created": 1_700_000_000,
        "model": answer.model or model,
        "choices": [
            {
                "index": 0,
                "message": message,
                "finish_reason": "tool_calls" if answer.tool_calls else "stop",
                "logprobs": None,
            }
        ],
        "usage": {"prompt_tokens": 11, "completion_tokens": 7, "total_tokens": 18},
    }


def openai_events(answer: Answer, model: str, usage: bool) -> list[bytes]:
    def chunk(delta: dict[str, Any], finish: str | None = None, **more: Any) -> bytes:
        body = {
            "id": "chatcmpl-fake",
            "object": "chat.completion.chunk",
            "created": 1_700_000_000,
            "model": answer.model or model,
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
            **more,
        }
        return f"data: {json.dumps(body)}\n\n".encode()

    events = [chunk({"role": "assistant", "content": ""})]
    events += [chunk({"content": word}) for word in _words(answer.text)]
    for index, call in enumerate(answer.tool_calls):
        arguments = json.dumps(call.arguments)
        half = len(arguments) // 2
        events.append(
            chunk(
                {
                    "tool_calls": [
                        {
                            "index": index,
                            "id": call.id,
                            "type": "function",
                            "function": {"name": call.name, "arguments": arguments[:half]},
                        }
                    ]
                }
            )
        )
        events.append(
            chunk({"tool_calls": [{"index": index, "function": {"arguments": arguments[half:]}}]})
        )
    events.append(chunk({}, "tool_calls" if answer.tool_calls else "stop"))
    if usage:
        body = {
            "id": "chatcmpl-fake",
            "object": "chat.completion.chunk",
            "created": 1_700_000_000,
            "model": answer.model or model,
            "choices": [],
            "usage": {"prompt_tokens": 11, "completion_tokens": 7, "total_tokens": 18},
        }
        events.append(f"data: {json.dumps(body)}\n\n".encode())
    events.append(b"data: [DONE]\n\n")
    return events


def anthropic_body(answer: Answer, model: str) -> dict[str, Any]:
    content: list[dict[str, Any]] = []
    if answer.text:
        content.append({"type": "text", "text": answer.text})
    content += [
        {"type": "tool_use", "id": c.id, "name": c.name, "input": c.arguments}
        for c in answer.tool_calls
    ]
    return {
        "id": "msg_fake",
        "type": "message",
        "role": "assistant",
        "model": answer.model or model,
        "content": content,
        "stop_reason": "tool_use" if answer.tool_calls else "end_turn",
        "stop_sequence": None,
        "usage": {"input_tokens": 11, "output_tokens": 7},
    }


def anthropic_events(answer: Answer, model: str) -> list[bytes]:
    def event(name: str, data: dict[str, Any]) -> bytes:
        return f"event: {name}\ndata: {json.dumps(data)}\n\n".encode()

    message = {**anthropic_body(answer, model), "content": [], "stop_reason": None}
    message["usage"] = {"input_tokens": 11, "output_tokens": 1}
    events = [event("message_start", {"type": "message_start", "message": message})]
    events.append(event("ping", {"type": "ping"}))
    index = 0
    if answer.text:
        events.append(
            event(
                "content_block_start",
                {
                    "type": "content_block_start",
                    "index": 0,
                    "content_block": {"type": "text", "text": ""},
                },
            )
        )
        for word in _words(answer.text):
            events.append(
                event(
                    "content_block_delta",
                    {
                        "type": "content_block_delta",
                        "index": 0,
                        "delta": {"type": "text_delta", "text": word},
                    },
                )
            )
        events.append(event("content_block_stop", {"type": "content_block_stop", "index": 0}))
        index = 1
    for offset, call in enumerate(answer.tool_calls):
        at = index + offset
        block = {"type": "tool_use", "id": call.id, "name": call.name, "input": {}}
        events.append(
            event(
                "content_block_start",
                {"type": "content_block_start", "index": at, "content_block": block},
            )
        )
        arguments = json.dumps(call.arguments)
        half = len(arguments) // 2
        for piece in (arguments[:half], arguments[half:]):
            events.append(
                event(
                    "content_block_delta",
                    {
                        "type": "content_block_delta",
                        "index": at,
                        "delta": {"type": "input_json_delta", "partial_json": piece},
                    },
                )
            )
        events.append(event("content_block_stop", {"type": "content_block_stop", "index": at}))
    stop = "tool_use" if answer.tool_calls else "end_turn"
    events.append(
        event(
            "message_delta",
            {
                "type": "message_delta",
                "delta": {"stop_reason": stop, "stop_sequence": None},
                "usage": {"output_tokens": 7},
            },
        )
    )
    events.append(event("message_stop", {"type": "message_stop"}))
    return events


def error_body(protocol: str, status: int) -> dict[str, Any]:
    if protocol == "anthropic":
        kind = {429: "rate_limit_error", 401: "authentication_error"}.get(status, "api_error")
        return {"type": "error", "error": {"type": kind, "message": f"fake error {status}"}}
    return {"error": {"message": f"fake error {status}", "type": "server_error", "code": None}}


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def _read(self) -> Seen:
        length = int(self.headers.get("content-length") or 0)
        body = self.rfile.read(length) if length else b""
        seen = Seen(
            method=self.command,
            path=self.path,
            headers={k.lower(): v for k, v in self.headers.items()},
            body=body,
            at=time.monotonic(),
        )
        self.server.owner.record(seen)
        return seen

    def _send(self, status: int, body: bytes, headers: dict[str, str] | None = None) -> None:
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(body)))
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self) -> None:
        self._read()
        if self.path.startswith("/v1/models"):
            models = {"object": "list", "data": [{"id": "fake-model", "object": "model"}]}
            self._send(200, json.dumps(models).encode(), {"x-upstream": "models"})
        else:
            self._send(404, b'{"error": {"message": "no such path"}}')

    def do_POST(self) -> None:
        seen = self._read()
        path = self.path.split("?", 1)[0]
        if path == "/v1/messages/count_tokens":
            self._send(200, b'{"input_tokens": 42}')
            return
        protocol = {"/v1/chat/completions": "openai", "/v1/messages": "anthropic"}.get(path)
        if protocol is None:
            self._send(404, b'{"error": {"message": "no such path"}}')
            return
        answer = self.server.owner.next_answer(seen)
        if answer.delay:
            time.sleep(answer.delay)
        request = seen.json
        model = request.get("model", "fake-model")
        if answer.status >= 400:
            body = answer.error if answer.error is not None else error_body(protocol, answer.status)
            self._send(answer.status, json.dumps(body).encode(), answer.headers)
            return
        if not request.get("stream"):
            body = (
                openai_body(answer, model)
                if protocol == "openai"
                else anthropic_body(answer, model)
            )
            self._send(200, json.dumps(body).encode(), answer.headers)
            return
        usage = bool((request.get("stream_options") or {}).get("include_usage"))
        events = (
            openai_events(answer, model, usage)
            if protocol == "openai"
            else anthropic_events(answer, model)
        )
        self._stream(events, answer)

    def _chunk(self, data: bytes) -> None:
        self.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
        self.wfile.flush()

    def _stream(self, events: list[bytes], answer: Answer) -> None:
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.send_header("transfer-encoding", "chunked")
        for k, v in answer.headers.items():
            self.send_header(k, v)
        self.end_headers()
        try:
            if answer.cut_after is not None:
                for data in events[: answer.cut_after]:
                    self._chunk(data)
                    self.server.owner.sent(data)
                self.close_connection = True
                self.wfile.flush()
                self.connection.shutdown(2)  # no terminating chunk: the stream is cut
                return
            deadline = time.monotonic() + answer.hang
            for position, data in enumerate(events):
                if answer.chunk_delay:
                    time.sleep(answer.chunk_delay)
                self._chunk(data)
                self.server.owner.sent(data)
                while position == 0 and time.monotonic() < deadline:
                    time.sleep(0.05)
                    self._chunk(b": keep-alive\n\n")
            self.wfile.write(b"0\r\n\r\n")
            self.wfile.flush()
        except (BrokenPipeError, ConnectionResetError):
            self.server.owner.client_left.set()
            self.close_connection = True


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    # socketserver's default backlog of 5 overflows when twenty conversations connect at once
    # on a busy machine: the kernel then answers with SYN cookies and resets the connection.
    request_queue_size = 128
    owner: FakeUpstream


class FakeUpstream:
    def __init__(self) -> None:
        self.seen: list[Seen] = []
        self.sent_at: list[tuple[float, bytes]] = []
        self.client_left = threading.Event()
        self._script: deque[Script] = deque()
        self._lock = threading.Lock()
        self._server = _Server(("127.0.0.1", 0), _Handler)
        self._server.owner = self
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    def __enter__(self) -> FakeUpstream:
        self._thread.start()
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self._server.shutdown()
        self._server.server_close()

    def script(self, *answers: Script) -> FakeUpstream:
        with self._lock:
            self._script.extend(answers)
        return self

    def next_answer(self, seen: Seen) -> Answer:
        with self._lock:
            item = self._script.popleft() if self._script else Answer("ok")
        return item(seen) if callable(item) else item

    def record(self, seen: Seen) -> None:
        with self._lock:
            self.seen.append(seen)

    def sent(self, data: bytes) -> None:
        with self._lock:
            self.sent_at.append((time.monotonic(), data))

    def model_requests(self) -> list[Seen]:
        return [
            s for s in self.seen if s.path.split("?")[0] in ("/v1/chat/completions", "/v1/messages")
        ]

    @property
    def last(self) -> Seen:
        return self.model_requests()[-1]
