"""The connection to the real model: one pooled async HTTP client per event loop, and what a
failure to reach it becomes (502 unreachable, 504 timeout, in the client's protocol)."""

from __future__ import annotations

import asyncio
from collections.abc import Iterable

import httpx2

from proxy import config
from proxy.errors import ProxyError

# Hop-by-hop headers (RFC 9110 §7.6.1) and what the proxy recomputes: never relayed.
HOP_BY_HOP = frozenset(
    {
        "connection",
        "keep-alive",
        "proxy-authenticate",
        "proxy-authorization",
        "proxy-connection",
        "te",
        "trailer",
        "trailers",
        "transfer-encoding",
        "upgrade",
        "expect",
        "host",
        "content-length",
    }
)
# The proxy reads the answer, so it lets its own HTTP client negotiate the encoding (the
# client's accepted encodings are not passed on) and relays the decoded bytes (without the
# upstream's content-encoding).
NOT_REQUESTED = HOP_BY_HOP | {"accept-encoding"}
NOT_ANSWERED = HOP_BY_HOP | {"content-encoding"}
KEEPALIVE_SECONDS = 60.0

_clients: dict[asyncio.AbstractEventLoop, httpx2.AsyncClient] = {}


def client() -> httpx2.AsyncClient:
    """This event loop's client (a connection pool is bound to the loop that made it)."""
    loop = asyncio.get_running_loop()
    found = _clients.get(loop)
    if found is None or found.is_closed:
        found = httpx2.AsyncClient(
            timeout=httpx2.Timeout(
                config.read_timeout(),
                connect=config.connect_timeout(),
                pool=config.connect_timeout(),
            ),
            limits=httpx2.Limits(
                max_connections=200,
                max_keepalive_connections=50,
                keepalive_expiry=KEEPALIVE_SECONDS,
            ),
            follow_redirects=False,
        )
        _clients[loop] = found
        for other in [lp for lp in _clients if lp.is_closed()]:
            del _clients[other]
    return found


async def close_clients() -> None:
    for loop, found in list(_clients.items()):
        if loop is asyncio.get_running_loop():
            await found.aclose()
            del _clients[loop]


def _relayable(
    headers: Iterable[tuple[str, str]], dropped: frozenset[str]
) -> list[tuple[str, str]]:
    return [
        (name, value)
        for name, value in headers
        if name.lower() not in dropped and not name.lower().startswith("x-stratagate-")
    ]


def request_headers(headers: Iterable[tuple[str, str]]) -> list[tuple[str, str]]:
    """The client's headers that go upstream (StrataGate's own `x-stratagate-*` removed)."""
    return _relayable(headers, NOT_REQUESTED)


def answer_headers(response: httpx2.Response) -> list[tuple[str, str]]:
    """The upstream's headers that go back to the client."""
    return _relayable(response.headers.multi_items(), NOT_ANSWERED)


async def open_stream(
    method: str, url: str, headers: list[tuple[str, str]], body: bytes
) -> httpx2.Response:
    """Send the request and return the response with its body unread (the caller closes it)."""
    http = client()
    request = http.build_request(method, url, headers=headers, content=body)
    try:
        return await http.send(request, stream=True)
    except httpx2.TimeoutException as exc:
        raise ProxyError(
            504,
            "proxy_upstream_timeout",
            f"the upstream model did not answer in time ({type(exc).__name__})",
        ) from exc
    except httpx2.HTTPError as exc:
        raise ProxyError(
            502,
            "proxy_upstream_unreachable",
            f"the upstream model cannot be reached ({type(exc).__name__})",
        ) from exc
