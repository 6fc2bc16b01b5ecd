"""ASGI plumbing the proxy's handlers share: reading the body under a cap, noticing a client
that went away, and answering with a body or an error in the client's protocol."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any

from proxy.errors import ProxyError
from proxy.protocols import Adapter

Scope = dict[str, Any]
Message = dict[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]


class ClientGone(Exception):
    """The client disconnected."""


async def read_body(receive: Receive, limit: int) -> bytes:
    """The request body; 413 as soon as it passes `limit` (nothing more is read or kept)."""
    chunks: list[bytes] = []
    size = 0
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            raise ClientGone
        chunk = message.get("body", b"")
        size += len(chunk)
        if size > limit:
            raise ProxyError(
                413,
                "request_too_large",
                f"the request body is larger than {limit // (1024 * 1024)} MiB "
                "(STRATAGATE_PROXY_MAX_BODY_MB)",
            )
        chunks.append(chunk)
        if not message.get("more_body", False):
            return b"".join(chunks)


async def _disconnected(receive: Receive) -> None:
    while (await receive())["type"] != "http.disconnect":
        pass


async def until_disconnect[T](receive: Receive, work: Coroutine[Any, Any, T]) -> T:
    """Run `work`; if the client disconnects first, cancel it (an upstream request under way
    is closed with it) and raise ClientGone. (Once the response is complete the server also
    reports a disconnect: `work` must not await anything after its last byte.)"""
    task = asyncio.ensure_future(work)
    watch = asyncio.ensure_future(_disconnected(receive))
    try:
        done, _ = await asyncio.wait({task, watch}, return_when=asyncio.FIRST_COMPLETED)
    except asyncio.CancelledError:
        task.cancel()
        watch.cancel()
        raise
    if task in done:
        watch.cancel()
        return task.result()
    task.cancel()
    with contextlib.suppress(asyncio.CancelledError, Exception):
        await task
    raise ClientGone


_background: set[asyncio.Task[Any]] = set()


def in_background(work: Coroutine[Any, Any, Any]) -> None:
    """Run `work` without waiting for it (bookkeeping after the answer's last byte), holding a
    reference so it is not collected half-way."""
    task = asyncio.ensure_future(work)
    _background.add(task)
    task.add_done_callback(_background.discard)


def encode_headers(headers: list[tuple[str, str]]) -> list[tuple[bytes, bytes]]:
    return [
        (k.lower().encode("latin-1"), v.encode("latin-1", errors="replace")) for k, v in headers
    ]


async def respond(send: Send, status: int, headers: list[tuple[str, str]], body: bytes) -> None:
    headers = [*headers, ("content-length", str(len(body)))]
    await send(
        {"type": "http.response.start", "status": status, "headers": encode_headers(headers)}
    )
    await send({"type": "http.response.body", "body": body})


async def respond_error(
    send: Send,
    adapter: Adapter,
    error: ProxyError,
    headers: list[tuple[str, str]] = (),  # type: ignore[assignment]
) -> None:
    extra = [("content-type", "application/json"), *headers]
    if error.retry is not None:
        extra.append(("x-should-retry", "true" if error.retry else "false"))
    await respond(
        send, error.status, extra, adapter.error_body(error.status, error.code, error.message)
    )
