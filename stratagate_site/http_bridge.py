"""HTTP requests of the ASGI server answered by Django's WSGI handler on a fixed pool of threads.

Every StrataGate view is synchronous (the ORM is). Django's ASGI handler runs such a view in a new
thread per request, crosses between the event loop and that thread twice for every middleware
that can run async (`MiddlewareMixin`) and again for the request signals, and, since a thread
that is gone cannot keep a connection, opens and closes a database connection per request.
Measured under daphne on the 2-core benchmark VM (benchmarks/README.md, "HTTP and ingest"): a
trivial authenticated API request cost 9.6–10.8 ms of server CPU that way and 2.9–3.1 ms this
way.

Here the event loop reads the request body, then one pool thread runs the whole request (the
`request_started` signal, middleware, view, `request_finished`) as a WSGI call, so each thread
keeps its database connection between requests (`CONN_MAX_AGE`), and the loop sends the
answer. A streaming response is produced by that same thread, in chunks of about
`STREAM_CHUNK` bytes, because its generator may hold a cursor of that thread's connection.
The thread runs under asgiref's `sync_to_async`, so `async_to_sync` inside a view (live
updates through the channel layer) runs on the server's event loop, as under the ASGI handler.
Websockets stay with channels (stratagate_site.asgi).

The body is read before anything else looks at the request, authentication included, so it is
capped here: a body over DATA_UPLOAD_MAX_MEMORY_SIZE (the largest any view accepts) is refused
with 413 as soon as that is known, from Content-Length before any of it is read, otherwise
(chunked) as the count passes the limit; a refused body is never written to disk.
"""

from __future__ import annotations

import itertools
import json
import logging
import sys
import tempfile
from collections.abc import Awaitable, Callable, Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import IO, Any, Final

from asgiref.sync import async_to_sync, sync_to_async
from django.conf import settings
from django.core.handlers.wsgi import WSGIHandler

Scope = dict[str, Any]
Message = dict[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]

log = logging.getLogger(__name__)

STREAM_CHUNK: Final = 64 * 1024
API_PREFIX: Final = "/api/"
# Set in every environ made here: the server next to this handler also answers websockets, so a
# page may open its live-updates socket (graphui.context).
SERVED_WITH_WEBSOCKETS: Final = "stratagate.websockets"


class _Answer:
    """What the pool thread hands back: status and headers, and the body unless it streamed."""

    __slots__ = ("body", "headers", "status", "streamed", "written")

    def __init__(self) -> None:
        self.status = 500
        self.headers: list[tuple[bytes, bytes]] = []
        self.body = b""
        self.streamed = False
        self.written: list[bytes] = []  # PEP 3333's write(): sent before the returned iterable

    def start_response(
        self, status: str, headers: list[tuple[str, str]], exc_info: Any = None
    ) -> Callable[[bytes], None]:
        self.status = int(status.split(" ", 1)[0])
        self.headers = [(k.lower().encode("latin-1"), v.encode("latin-1")) for k, v in headers]
        return self.written.append


class WsgiOverAsgi:
    """ASGI HTTP application that runs `WSGIHandler` in `threads` long-lived threads."""

    def __init__(self, threads: int, handler: Callable[..., Iterable[bytes]] | None = None):
        self.handler = handler or WSGIHandler()
        self.pool = ThreadPoolExecutor(max_workers=threads, thread_name_prefix="http")

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            raise ValueError(f"WsgiOverAsgi serves HTTP only, not {scope['type']!r}")
        limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
        try:
            body = await _read_body(receive, limit=limit, declared=_declared_length(scope))
        except BodyTooLarge as refused:
            assert limit is not None  # raised only under a limit
            log.info(
                "refused a request body over %s bytes for %s after reading %s bytes",
                limit,
                scope["path"],
                refused.read,
            )
            await _send_too_large(scope, send, limit)
            return
        if body is None:  # the client went away before it finished sending
            return
        try:
            answer = await sync_to_async(self._run, thread_sensitive=False, executor=self.pool)(
                _environ(scope, body), async_to_sync(send)
            )
        finally:
            body.close()
        if not answer.streamed:
            await send(
                {"type": "http.response.start", "status": answer.status, "headers": answer.headers}
            )
            await send({"type": "http.response.body", "body": answer.body})

    def _run(self, environ: dict[str, Any], send: Callable[[Message], None]) -> _Answer:
        answer = _Answer()
        response = self.handler(environ, answer.start_response)
        try:
            if not getattr(response, "streaming", False):
                answer.body = b"".join([*answer.written, *response])
                return answer
            answer.streamed = True
            send(
                {"type": "http.response.start", "status": answer.status, "headers": answer.headers}
            )
            for chunk in _batched(itertools.chain(answer.written, response)):
                send({"type": "http.response.body", "body": chunk, "more_body": True})
            send({"type": "http.response.body", "body": b""})
            return answer
        finally:
            close = getattr(response, "close", None)
            if close is not None:
                close()  # request_finished: this thread's connection is kept or closed here


def _batched(chunks: Iterable[bytes]) -> Iterator[bytes]:
    """Join small chunks (the JSONL export yields one line each) so the stream crosses to the
    event loop once per `STREAM_CHUNK` bytes; the rest goes when the stream ends."""
    pending: list[bytes] = []
    size = 0
    for chunk in chunks:
        if not chunk:
            continue
        pending.append(chunk)
        size += len(chunk)
        if size >= STREAM_CHUNK:
            yield b"".join(pending)
            pending, size = [], 0
    if pending:
        yield b"".join(pending)


class BodyTooLarge(Exception):
    """The request body is over the limit; `read` bytes of it had been received."""

    def __init__(self, read: int) -> None:
        super().__init__(read)
        self.read = read


def _declared_length(scope: Scope) -> int | None:
    """The Content-Length the client announced, or None (chunked, or not a number: the
    server's parser refuses those before the application sees them)."""
    for name, value in scope.get("headers", []):
        if name.lower() == b"content-length":
            try:
                return int(value)
            except ValueError:
                return None
    return None


async def _read_body(
    receive: Receive, *, limit: int | None = None, declared: int | None = None
) -> IO[bytes] | None:
    """The whole request body, spooled to disk beyond FILE_UPLOAD_MAX_MEMORY_SIZE as Django's
    ASGI handler does; None when the client disconnects first. Raises BodyTooLarge for a body
    over `limit` bytes (None: no limit): before reading any of it when `declared` (its
    Content-Length) says so, otherwise once the bytes received pass the limit. Nothing beyond
    the limit is ever written, and a body of unannounced length is kept in memory until it is
    known to be within the limit, so a refused body never reaches the disk."""
    if limit is not None and declared is not None and declared > limit:
        raise BodyTooLarge(read=0)
    in_memory = settings.FILE_UPLOAD_MAX_MEMORY_SIZE
    if limit is not None and declared is None:
        in_memory = max(in_memory, limit)
    # Returned open: the caller closes it once the request is answered.
    body = _spool(in_memory)
    size = 0
    try:
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                body.close()
                return None
            chunk = message.get("body", b"")
            if chunk:
                size += len(chunk)
                if limit is not None and size > limit:
                    raise BodyTooLarge(read=size)
                body.write(chunk)
            if not message.get("more_body", False):
                break
    except BaseException:
        body.close()
        raise
    body.seek(0)
    return body


def _spool(max_size: int) -> IO[bytes]:
    """A body's file: in memory up to `max_size` bytes, on disk beyond."""
    return tempfile.SpooledTemporaryFile(max_size=max_size, mode="w+b")


async def _send_too_large(scope: Scope, send: Send, limit: int) -> None:
    """413, in the API's error envelope under /api/ and as plain text elsewhere. The rest of
    the body is not read: the connection is closed after the answer."""
    message = f"The request body is too large: at most {limit} bytes."
    if scope["path"].startswith(API_PREFIX):
        error = {"code": "request_too_large", "message": message, "details": {"max_bytes": limit}}
        content = json.dumps({"error": error}).encode()
        content_type = b"application/json"
    else:
        content = f"413 Content Too Large\n\n{message}\n".encode()
        content_type = b"text/plain; charset=utf-8"
    await send(
        {
            "type": "http.response.start",
            "status": 413,
            "headers": [
                (b"content-type", content_type),
                (b"content-length", str(len(content)).encode()),
                (b"connection", b"close"),
            ],
        }
    )
    await send({"type": "http.response.body", "body": content})


def _environ(scope: Scope, body: IO[bytes]) -> dict[str, Any]:
    """PEP 3333's environ for an ASGI HTTP scope. The length is the body's as read, so a
    chunked request body (no Content-Length header) reaches the view whole."""
    size = body.seek(0, 2)
    body.seek(0)
    root_path = scope.get("root_path", "")
    path = scope["path"]
    if root_path and path.startswith(root_path):
        path = path[len(root_path) :]
    server = scope.get("server") or ("localhost", 80)
    environ: dict[str, Any] = {
        "REQUEST_METHOD": scope["method"],
        "SCRIPT_NAME": root_path.encode("utf-8").decode("latin-1"),
        "PATH_INFO": path.encode("utf-8").decode("latin-1"),
        "QUERY_STRING": scope.get("query_string", b"").decode("latin-1"),
        "SERVER_NAME": str(server[0]),
        "SERVER_PORT": str(server[1] or 80),
        "SERVER_PROTOCOL": f"HTTP/{scope.get('http_version', '1.1')}",
        "CONTENT_LENGTH": str(size),
        "wsgi.version": (1, 0),
        "wsgi.url_scheme": scope.get("scheme", "http"),
        "wsgi.input": body,
        "wsgi.errors": sys.stderr,
        "wsgi.multithread": True,
        "wsgi.multiprocess": True,
        "wsgi.run_once": False,
        SERVED_WITH_WEBSOCKETS: True,
    }
    client = scope.get("client")
    if client:
        environ["REMOTE_ADDR"] = str(client[0])
        environ["REMOTE_PORT"] = str(client[1])
    for raw_name, raw_value in scope.get("headers", []):
        name = raw_name.decode("latin-1").upper().replace("-", "_")
        value = raw_value.decode("latin-1")
        if name == "CONTENT_LENGTH":
            continue  # the body's real size, set above
        key = "CONTENT_TYPE" if name == "CONTENT_TYPE" else f"HTTP_{name}"
        environ[key] = f"{environ[key]},{value}" if key in environ else value
    return environ
