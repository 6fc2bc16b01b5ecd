"""How a tool call reaches StrataGate: over HTTP, or in-process through the Django app itself.

Contract of every transport: `send(request)` returns a `ToolResult` and never raises for an API
error or an unreachable server — 4xx/5xx answers come back as the API's error envelope (or one
shaped like it), so a model can read what went wrong and correct itself. Both transports send
the same bearer token through the same middleware and ninja routers, so validation, scopes and
error envelopes are identical.
"""

from __future__ import annotations

import json
import threading
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass, field
from datetime import date, datetime, time
from decimal import Decimal
from typing import TYPE_CHECKING, Any, Protocol
from uuid import UUID

from memory.agent_tools.registry import HttpMethod

if TYPE_CHECKING:
    from django.test import Client

API_PREFIX = "/api/v1"


@dataclass(frozen=True)
class ToolResult:
    """One tool call's outcome: the HTTP status and the JSON body (result or error envelope)."""

    status: int
    body: dict[str, Any]

    @property
    def ok(self) -> bool:
        return 200 <= self.status < 300


@dataclass(frozen=True)
class ToolRequest:
    """One REST call: `path` is relative to `/api/v1` and already percent-encoded."""

    method: HttpMethod
    path: str
    query: dict[str, str] = field(default_factory=dict)
    body: dict[str, Any] | None = None

    @property
    def target(self) -> str:
        """Path plus query string, relative to `/api/v1`."""
        if not self.query:
            return self.path
        return f"{self.path}?{urllib.parse.urlencode(self.query)}"


def error_result(
    status: int, code: str, message: str, details: dict[str, Any] | None = None
) -> ToolResult:
    """A result carrying the API's error envelope, for failures found before or outside the API."""
    return ToolResult(
        status=status,
        body={"error": {"code": code, "message": message, "details": details or {}}},
    )


def result_from_bytes(status: int, raw: bytes) -> ToolResult:
    """Parse an API answer; anything that is not a JSON object becomes an error envelope."""
    try:
        body = json.loads(raw.decode("utf-8")) if raw else {}
    except (UnicodeDecodeError, json.JSONDecodeError):
        body = None
    if isinstance(body, dict):
        return ToolResult(status=status, body=body)
    if status >= 400:
        preview = raw[:300].decode("utf-8", "replace")
        return error_result(
            status, f"http_{status}", f"StrataGate answered HTTP {status}: {preview}"
        )
    return error_result(502, "invalid_response", "StrataGate's answer was not a JSON object.")


def _json_default(value: Any) -> str:
    # Python callers may pass datetimes; they travel as ISO 8601, as Django's encoder sends them.
    if isinstance(value, datetime | date | time):
        return value.isoformat()
    if isinstance(value, Decimal | UUID):
        return str(value)
    raise TypeError(f"{type(value).__name__} is not JSON serialisable")


def json_bytes(body: Any) -> bytes:
    return json.dumps(body, default=_json_default).encode("utf-8")


class Transport(Protocol):
    def send(self, request: ToolRequest) -> ToolResult: ...


class HttpTransport:
    """StrataGate over HTTP (stdlib urllib): `base_url` is the site root or its `/api/v1`."""

    def __init__(self, base_url: str, token: str, *, timeout: float = 30.0) -> None:
        root = base_url.rstrip("/")
        self.api_root = root if root.endswith(API_PREFIX) else root + API_PREFIX
        self.token = token
        self.timeout = timeout

    def send(self, request: ToolRequest) -> ToolResult:
        try:
            data = None if request.body is None else json_bytes(request.body)
        except (TypeError, ValueError) as exc:
            return error_result(400, "malformed_arguments", f"Arguments are not JSON: {exc}")
        http_request = urllib.request.Request(
            self.api_root + request.target,
            data=data,
            method=request.method,
            headers={
                "Authorization": f"Bearer {self.token}",
                "Accept": "application/json",
                "Content-Type": "application/json",
            },
        )
        try:
            with urllib.request.urlopen(http_request, timeout=self.timeout) as response:
                return result_from_bytes(response.status, response.read())
        except urllib.error.HTTPError as exc:
            with exc:
                return result_from_bytes(exc.code, exc.read())
        except (urllib.error.URLError, TimeoutError, OSError) as exc:
            reason = getattr(exc, "reason", exc)
            return error_result(
                503,
                "stratagate_unreachable",
                f"StrataGate at {self.api_root} could not be reached: {reason}",
            )


def internal_host() -> str:
    """A host name the site accepts (ALLOWED_HOSTS), so internal requests pass host validation."""
    from django.conf import settings

    for host in settings.ALLOWED_HOSTS:
        if host == "*":
            break
        return host[1:] if host.startswith(".") else host
    return "localhost"


class InProcessTransport:
    """StrataGate inside this process: requests go through Django's full request handling.

    Uses Django's test client machinery (`django.test.Client`) as an in-process HTTP client —
    the same middleware, auth, ninja validation and error handlers as a real request. One client
    per thread, because a client keeps per-request state. Call from a thread without a running
    event loop (the MCP server hands calls to a worker thread).
    """

    def __init__(self, token: str) -> None:
        self.token = token
        self._local = threading.local()

    def _client(self) -> Client:
        client: Client | None = getattr(self._local, "client", None)
        if client is None:
            from django.test import Client

            client = Client(
                raise_request_exception=False,
                SERVER_NAME=internal_host(),
                HTTP_AUTHORIZATION=f"Bearer {self.token}",
            )
            self._local.client = client
        return client

    def send(self, request: ToolRequest) -> ToolResult:
        client = self._client()
        path = API_PREFIX + request.path
        if request.method == "GET":
            response = client.get(path, request.query)
        else:
            try:
                data = json_bytes(request.body or {})
            except (TypeError, ValueError) as exc:
                return error_result(400, "malformed_arguments", f"Arguments are not JSON: {exc}")
            target = API_PREFIX + request.target
            response = client.post(target, data, content_type="application/json")
        return result_from_bytes(response.status_code, response.content)
