"""The model proxy's ASGI application (stratagate_site.asgi sends it every path under /proxy/).

    {server}/proxy/{ns}/openai/v1     an OpenAI client's base URL (chat completions with memory)
    {server}/proxy/{ns}/anthropic     an Anthropic client's base URL (messages with memory)

Every other path under those bases (models, count_tokens, embeddings …) is relayed untouched.
Access is decided first, from the headers alone, as in the API: no or unknown token → 401, a
namespace the token is not bound to → 404 `namespace_not_found`, a read-only token → 403; then
the request headers, the upstream configuration and the body. Errors are written in the
client's protocol (docs/PROXY.md).
"""

from __future__ import annotations

import asyncio
import atexit
import logging
from collections.abc import Callable
from dataclasses import dataclass

from proxy import config, memory, spool
from proxy.errors import ProxyError
from proxy.exchange import Call, ChatExchange, Options, relay
from proxy.history import HISTORY_HEADER, history_header
from proxy.http import (
    ClientGone,
    Message,
    Receive,
    Scope,
    Send,
    read_body,
    respond_error,
    until_disconnect,
)
from proxy.memory_tools import TOOLS_HEADER, tools_header
from proxy.protocols import ADAPTERS, Adapter
from proxy.stats import FLUSH_SECONDS, MEMORY_OFF, REQUESTS, STATS, degraded
from proxy.threads import run_sync
from proxy.upstream import request_headers

log = logging.getLogger(__name__)

PREFIX = "/proxy/"
# Each protocol's base below /proxy/{ns}/: what its SDK's base URL ends with.
BASES = {"openai": "openai/v1", "anthropic": "anthropic"}
TOKEN_HEADER = "x-stratagate-token"
SWITCHES = ("x-stratagate-memory", "x-stratagate-inject", "x-stratagate-capture")
SESSION_HEADER = "x-stratagate-session"
MAX_SESSION_ID = 200
TOKEN_PREFIX = "sg_"


@dataclass(frozen=True)
class Route:
    namespace: str
    protocol: str
    suffix: str  # the path below the protocol's base, e.g. "/chat/completions"


def route_of(path: str) -> Route | None:
    if not path.startswith(PREFIX):
        return None
    namespace, slash, tail = path[len(PREFIX) :].partition("/")
    if not namespace or not slash:
        return None
    for protocol, base in BASES.items():
        if tail == base or tail.startswith(base + "/"):
            return Route(namespace, protocol, tail[len(base) :] or "/")
    return None


def _bearer(value: str) -> str:
    return value[7:].strip() if value[:7].lower() == "bearer " else value.strip()


def credentials(adapter: Adapter, headers: list[tuple[str, str]]) -> tuple[str | None, bool]:
    """The StrataGate token, and whether the client sent a provider key of its own. The token
    is `X-StrataGate-Token`, else the protocol's usual key header when it holds an `sg_…`."""
    token = next((v.strip() for k, v in headers if k == TOKEN_HEADER), None)
    own_key = False
    for name, value in headers:
        if name not in adapter.token_headers:
            continue
        if _bearer(value).startswith(TOKEN_PREFIX):
            token = token or _bearer(value)
        elif value.strip():
            own_key = True
    return token, own_key


def upstream_headers(
    adapter: Adapter, headers: list[tuple[str, str]], key: str, own_key: bool
) -> list[tuple[str, str]]:
    """The client's headers for the upstream: StrataGate's own and hop-by-hop ones removed,
    a StrataGate token never passed on, the client's provider key passed untouched, else the
    server's key (when it has one)."""
    kept = [
        (k, v)
        for k, v in request_headers(headers)
        if not (k in adapter.token_headers and _bearer(v).startswith(TOKEN_PREFIX))
    ]
    if not own_key and key:
        kept += adapter.upstream_auth(key)
    return kept


def options_of(headers: list[tuple[str, str]]) -> Options:
    values = dict(headers)
    switches: dict[str, bool] = {}
    for name in SWITCHES:
        raw = values.get(name)
        if raw is None:
            switches[name] = True
            continue
        if raw.strip().lower() not in ("on", "off"):
            raise ProxyError(400, "invalid_proxy_header", f"{name} must be 'on' or 'off'")
        switches[name] = raw.strip().lower() == "on"
    session = values.get(SESSION_HEADER)
    if session is not None:
        session = session.strip()
        if not session or len(session) > MAX_SESSION_ID or not session.isprintable():
            raise ProxyError(
                400,
                "invalid_session_id",
                f"{SESSION_HEADER} must be 1–{MAX_SESSION_ID} printable characters",
            )
    return Options(
        memory=switches["x-stratagate-memory"],
        inject=switches["x-stratagate-inject"],
        capture=switches["x-stratagate-capture"],
        session=session,
        history=history_header(values.get(HISTORY_HEADER)),
        tools=tools_header(values.get(TOOLS_HEADER)),
    )


def _headers(scope: Scope) -> list[tuple[str, str]]:
    return [(k.decode("latin-1").lower(), v.decode("latin-1")) for k, v in scope["headers"]]


async def _call(scope: Scope, receive: Receive, route: Route, adapter: Adapter) -> Call:
    headers = _headers(scope)
    token, own_key = credentials(adapter, headers)
    if not token:
        raise ProxyError(
            401,
            "unauthorized",
            "send a StrataGate token as the API key, or in X-StrataGate-Token",
        )
    access = await run_sync(memory.access, token, route.namespace)
    options = options_of(headers)
    upstream = config.upstream(route.protocol)
    if not upstream.base_url:
        raise ProxyError(
            503,
            "proxy_upstream_not_configured",
            f"this server has no {route.protocol} upstream: set {upstream.url_setting}",
            retry=False,
        )
    body = await read_body(receive, config.max_body_bytes())
    return Call(
        adapter=adapter,
        access=access,
        options=options,
        token=token,
        method=scope["method"],
        url=upstream.url(route.suffix, scope.get("query_string", b"")),
        headers=upstream_headers(adapter, headers, upstream.key, own_key),
        body=body,
    )


async def _every(seconds: float, work: Callable[[], object]) -> None:
    while True:
        await asyncio.sleep(seconds)
        try:
            await run_sync(work)
        except Exception:
            log.warning("proxy: background work failed", exc_info=True)


_periodic: dict[asyncio.AbstractEventLoop, list[asyncio.Task[None]]] = {}


def _start_background() -> None:
    """Once per event loop: add the traffic counts to the database, retry spooled turns."""
    loop = asyncio.get_running_loop()
    if loop in _periodic:
        return
    if not _periodic:
        atexit.register(STATS.flush)  # the last counts of a stopping process
    for closed in [other for other in _periodic if other.is_closed()]:
        del _periodic[closed]
    _periodic[loop] = [
        loop.create_task(_every(FLUSH_SECONDS, STATS.flush)),
        loop.create_task(_every(spool.RETRY_SECONDS, spool.spool_retry)),
    ]


class _Tracked:
    """`send`, remembering whether the response has begun (a failure after that cannot be
    answered with an error status)."""

    def __init__(self, send: Send) -> None:
        self._send = send
        self.started = False

    async def __call__(self, message: Message) -> None:
        self.started = True
        await self._send(message)


async def application(scope: Scope, receive: Receive, send: Send) -> None:
    if scope["type"] != "http":
        raise ValueError("the proxy serves HTTP only")
    route = route_of(scope["path"])
    adapter = ADAPTERS[route.protocol if route else "openai"]
    tracked = _Tracked(send)
    try:
        if route is None:
            raise ProxyError(
                404,
                "not_found",
                "proxy URLs are /proxy/{namespace}/openai/v1/… and /proxy/{namespace}/anthropic/…",
            )
        call = await _call(scope, receive, route, adapter)
        _start_background()
        namespace_id = call.namespace_id
        STATS.add(namespace_id, REQUESTS)
        chat = call.method == "POST" and route.suffix == adapter.chat_path
        if not chat:
            await until_disconnect(receive, relay(call, tracked, []))
            return
        if not call.options.memory:
            STATS.add(namespace_id, MEMORY_OFF)
            await until_disconnect(receive, relay(call, tracked, [("x-stratagate-memory", "off")]))
            return
        understood = await run_sync(memory.understand, adapter, call.body)
        if understood is None:
            STATS.add(namespace_id, degraded("unreadable_request"))
            ours = [("x-stratagate-memory", "degraded; reason=unreadable_request")]
            await until_disconnect(receive, relay(call, tracked, ours))
            return
        await until_disconnect(receive, ChatExchange(call, understood).run(tracked))
    except ClientGone:
        return
    except ProxyError as error:
        if not tracked.started:
            await respond_error(tracked, adapter, error)
    except Exception:
        log.exception("proxy: request failed")
        if not tracked.started:
            failure = ProxyError(500, "proxy_error", "StrataGate's proxy failed on this request")
            await respond_error(tracked, adapter, failure)
