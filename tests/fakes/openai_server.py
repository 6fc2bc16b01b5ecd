"""A real OpenAI-compatible HTTP server on 127.0.0.1 for tests: the SDK is exercised end to end.

Script replies with `.script([...])`; each item is consumed by one `POST /v1/chat/completions`:
- `str`: the assistant message content;
- `int`: an HTTP error status with an OpenAI-style error body;
- a callable `(request_json) -> str | int | FakeReply`: computed from the request;
- `FakeReply`: full control (status, content, body, delay, usage); `tool_calls_reply(...)`
  builds one whose assistant message calls tools.
When the queue is empty the `default` responder answers (by default a minimal JSON object that
satisfies the JSON schema sent in `response_format`, so pipelines run without scripting).
`FaultInjector` is a `default` that fails a share of the calls the ways real endpoints do
(HTTP 500, timeouts, truncated bodies, truncated or schema-violating JSON).
"""

from __future__ import annotations

import json
import random
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any

CHAT_PATH = "/v1/chat/completions"


@dataclass(frozen=True)
class FakeReply:
    """One scripted reply. `body` (any JSON value) replaces the generated response body;
    `truncate_body` sends only the first half of the body's JSON (a complete HTTP response
    whose JSON is cut off, as from a proxy that dropped the rest)."""

    content: str | None = None
    status: int = 200
    body: Any = None
    delay: float = 0.0
    usage: dict[str, int] | None = None
    truncate_body: bool = False


type Responder = Callable[[dict[str, Any]], str | int | FakeReply]
type ScriptItem = str | int | FakeReply | Responder


STRING_FORMATS = {"date-time": "2024-05-01T10:00:00Z", "date": "2024-05-01", "time": "10:00:00"}


def schema_stub(schema: dict[str, Any], defs: dict[str, Any] | None = None) -> Any:
    """A small value valid for a (pydantic-generated) JSON schema: strings, lists of one, false."""
    defs = defs if defs is not None else schema.get("$defs", {})
    if "$ref" in schema:
        return schema_stub(defs[schema["$ref"].rsplit("/", 1)[-1]], defs)
    if "const" in schema:
        return schema["const"]
    if schema.get("enum"):
        return schema["enum"][0]
    for key in ("anyOf", "oneOf", "allOf"):
        options = [o for o in schema.get(key, []) if o.get("type") != "null"]
        if options:
            return schema_stub(options[0], defs)
    kind = schema.get("type")
    if kind == "object" or "properties" in schema:
        props = schema.get("properties", {})
        return {name: schema_stub(sub, defs) for name, sub in props.items()}
    if kind == "array":
        return [schema_stub(schema.get("items", {"type": "string"}), defs)]
    if kind == "boolean":
        return False
    if kind in ("integer", "number"):
        return schema.get("minimum", 0)
    # Formatted strings must parse, or the "valid" stub fails validation (event dates).
    return STRING_FORMATS.get(schema.get("format", ""), "fake")


def schema_stub_content(request: dict[str, Any]) -> str:
    """Default responder: JSON satisfying the request's `response_format` schema, else `{}`."""
    response_format = request.get("response_format") or {}
    schema = (response_format.get("json_schema") or {}).get("schema")
    return json.dumps(schema_stub(schema) if isinstance(schema, dict) else {})


# What FaultInjector does to a failing call (see its docstring).
TRANSPORT_FAULTS = ("http_500", "timeout", "truncated_body")
OUTPUT_FAULTS = ("truncated_json", "schema_violation")
FAULT_KINDS = (*TRANSPORT_FAULTS, *OUTPUT_FAULTS)


def _schema_violation(good: str) -> str:
    """Well-formed JSON of the right top-level shape whose every field has the wrong type."""
    try:
        valid = json.loads(good)
    except json.JSONDecodeError:
        valid = {}
    fields = valid if isinstance(valid, dict) and valid else {"title": ""}
    return json.dumps({name: {"unexpected": [1, 2, 3]} for name in fields})


class FaultInjector:
    """A `default` responder that fails about `rate` of the calls (a seeded draw per call, so
    a sequential run repeats exactly), the failures taking turns through `kinds`:

    - `http_500`: HTTP 500 with an OpenAI-style error body;
    - `timeout`: the valid answer, after `timeout_delay` seconds (set it above the client's
      timeout, STRATAGATE_LLM_TIMEOUT_SECONDS);
    - `truncated_body`: HTTP 200 whose JSON body stops half-way;
    - `truncated_json`: a well-formed completion whose content is the valid answer cut in half;
    - `schema_violation`: content that is JSON but breaks the requested schema.

    The other calls get `good` (by default the schema stub). A request whose messages contain
    `poison` always gets HTTP 500 (a block that keeps failing until the model is healed).
    `log` holds (outcome, request) per call in arrival order, the outcome being "ok" or the
    fault. Set `rate = 0` and `poison = None` to heal the model.
    """

    def __init__(
        self,
        rate: float = 0.3,
        *,
        seed: int = 0,
        timeout_delay: float = 2.0,
        kinds: tuple[str, ...] = FAULT_KINDS,
        good: Responder | None = None,
        poison: str | None = None,
    ) -> None:
        self.rate = rate
        self.timeout_delay = timeout_delay
        self.kinds = kinds
        self.good: Responder = good or schema_stub_content
        self.poison = poison
        self.log: list[tuple[str, dict[str, Any]]] = []
        self._rng = random.Random(seed)
        self._faults = 0
        self._lock = threading.Lock()

    def __call__(self, request: dict[str, Any]) -> str | int | FakeReply:
        with self._lock:
            text = json.dumps(request.get("messages", []))
            if self.poison and self.poison in text:
                fault = "http_500"
            elif self._rng.random() < self.rate:
                fault = self.kinds[self._faults % len(self.kinds)]
                self._faults += 1
            else:
                fault = "ok"
            self.log.append((fault, request))
        if fault == "http_500":
            return 500
        answer = self.good(request)
        if not isinstance(answer, str):
            return answer
        if fault == "timeout":
            return FakeReply(content=answer, delay=self.timeout_delay)
        if fault == "truncated_body":
            return FakeReply(content=answer, truncate_body=True)
        if fault == "truncated_json":
            return answer[: len(answer) // 2]
        if fault == "schema_violation":
            return _schema_violation(answer)
        return answer

    def outcomes(self) -> list[str]:
        with self._lock:
            return [fault for fault, _ in self.log]


def _error_body(status: int, message: str) -> dict[str, Any]:
    kind = "invalid_request_error" if status < 500 else "server_error"
    return {"error": {"message": message, "type": kind, "param": None, "code": str(status)}}


def _rough_tokens(text: str) -> int:
    return max(1, len(text) // 4)


class FakeOpenAIServer:
    """Threaded fake of the chat-completions endpoint; use as a context manager."""

    def __init__(self, default: ScriptItem = schema_stub_content) -> None:
        self.default: ScriptItem = default
        self.requests: list[dict[str, Any]] = []
        self.headers: list[dict[str, str]] = []
        self._queue: deque[ScriptItem] = deque()
        self._lock = threading.Lock()
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # -- lifecycle -------------------------------------------------------------------------
    def start(self) -> FakeOpenAIServer:
        handler = _make_handler(self)
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self._httpd.daemon_threads = True
        # A short poll interval keeps shutdown (one per test) fast.
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, args=(0.02,), name="fake-openai", daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)
        self._httpd = None
        self._thread = None

    def __enter__(self) -> FakeOpenAIServer:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    # -- scripting and inspection -------------------------------------------------------------
    @property
    def base_url(self) -> str:
        if self._httpd is None:
            raise RuntimeError("FakeOpenAIServer is not running")
        host, port = self._httpd.server_address[:2]
        return f"http://{host!s}:{port}/v1"

    def script(self, items: Iterable[ScriptItem]) -> FakeOpenAIServer:
        """Append replies to the queue (first in, first served)."""
        with self._lock:
            self._queue.extend(items)
        return self

    @property
    def calls(self) -> int:
        with self._lock:
            return len(self.requests)

    @property
    def pending(self) -> int:
        """Scripted replies not yet consumed."""
        with self._lock:
            return len(self._queue)

    def last_messages(self) -> list[dict[str, Any]]:
        """The `messages` of the most recent request."""
        with self._lock:
            return list(self.requests[-1]["messages"]) if self.requests else []

    # -- request handling ---------------------------------------------------------------------
    def _next(self, request: dict[str, Any], headers: dict[str, str]) -> FakeReply:
        with self._lock:
            self.requests.append(request)
            self.headers.append(headers)
            item = self._queue.popleft() if self._queue else self.default
        if callable(item):
            item = item(request)
        if isinstance(item, FakeReply):
            return item
        if isinstance(item, bool):
            raise TypeError("script items must be str, int, FakeReply or a callable")
        if isinstance(item, int):
            return FakeReply(status=item)
        return FakeReply(content=item)

    def _completion(self, request: dict[str, Any], reply: FakeReply, number: int) -> Any:
        if reply.body is not None:
            return reply.body
        if reply.status >= 400:
            return _error_body(reply.status, f"fake server scripted HTTP {reply.status}")
        content = reply.content or ""
        prompt_text = "".join(str(m.get("content") or "") for m in request.get("messages", []))
        usage = reply.usage or {
            "prompt_tokens": _rough_tokens(prompt_text),
            "completion_tokens": _rough_tokens(content),
        }
        usage = {**usage, "total_tokens": usage["prompt_tokens"] + usage["completion_tokens"]}
        return {
            "id": f"chatcmpl-fake-{number}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": request.get("model", "fake-model"),
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": content, "refusal": None},
                    "finish_reason": "stop",
                    "logprobs": None,
                }
            ],
            "usage": usage,
        }


def _make_handler(server: FakeOpenAIServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:
            return

        def _send_json(self, status: int, payload: Any, *, truncate: bool = False) -> None:
            data = json.dumps(payload).encode("utf-8")
            if truncate:
                data = data[: len(data) // 2]
            try:
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client gave up (a timeout test); nothing to answer

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length)
            if self.path.rstrip("/") != CHAT_PATH:
                self._send_json(404, _error_body(404, f"no route {self.path}"))
                return
            try:
                request = json.loads(raw or b"{}")
            except json.JSONDecodeError:
                self._send_json(400, _error_body(400, "request body is not JSON"))
                return
            reply = server._next(request, dict(self.headers.items()))
            if reply.delay:
                time.sleep(reply.delay)
            self._send_json(
                reply.status,
                server._completion(request, reply, server.calls),
                truncate=reply.truncate_body,
            )

        def do_GET(self) -> None:
            self._send_json(404, _error_body(404, f"no route {self.path}"))

    return Handler


def tool_calls_reply(
    calls: Iterable[tuple[str, dict[str, Any]]],
    *,
    content: str | None = None,
    id_prefix: str = "call_fake",
) -> FakeReply:
    """A reply in which the assistant calls tools: `[(name, arguments), …]` → `tool_calls`.

    Call ids are `<id_prefix>_<n>` (n from 1) so tests can predict them. The SDK sees an
    ordinary chat completion with `finish_reason: "tool_calls"`.
    """
    tool_calls = [
        {
            "id": f"{id_prefix}_{n}",
            "type": "function",
            "function": {"name": name, "arguments": json.dumps(arguments)},
        }
        for n, (name, arguments) in enumerate(calls, start=1)
    ]
    body = {
        "id": f"chatcmpl-fake-{id_prefix}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": "fake-model",
        "choices": [
            {
                "index": 0,
                "message": {
                    "role": "assistant",
                    "content": content,
                    "refusal": None,
                    "tool_calls": tool_calls,
                },
                "finish_reason": "tool_calls",
                "logprobs": None,
            }
        ],
        "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
    }
    return FakeReply(body=body)
