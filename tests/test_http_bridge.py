"""stratagate_site.http_bridge: HTTP of the ASGI server answered by Django's WSGI handler on a
fixed thread pool. Unit cases drive `WsgiOverAsgi` with a plain WSGI callable through asgiref's
ApplicationCommunicator; the integration cases send real API requests through
`stratagate_site.asgi.application` and a database-backed bridge."""

from __future__ import annotations

import asyncio
import http.client
import json
import logging
import re
import select
import socket
import tempfile
import threading
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from asgiref.sync import async_to_sync
from asgiref.testing import ApplicationCommunicator
from django.core.handlers.wsgi import WSGIHandler
from django.db import connections
from django.db.backends.signals import connection_created

from memory.models import Turn
from memory.services.tokens import token_create
from stratagate_site import http_bridge
from stratagate_site.http_bridge import STREAM_CHUNK, WsgiOverAsgi
from tests.conftest import turn_body
from tests.reliability.procs import web_on_thread

StartResponse = Callable[..., Any]


def http_scope(
    path: str = "/", method: str = "GET", headers: list[tuple[bytes, bytes]] | None = None
) -> dict[str, Any]:
    return {
        "type": "http",
        "http_version": "1.1",
        "method": method,
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "root_path": "",
        "query_string": b"",
        "headers": headers or [(b"host", b"127.0.0.1")],
        "client": ("127.0.0.1", 50000),
        "server": ("127.0.0.1", 8000),
    }


async def exchange(
    app: Any, scope: dict[str, Any], body_parts: list[bytes] | None = None
) -> list[dict[str, Any]]:
    """Send the request (its body in `body_parts`) and collect every message sent back."""
    comm = ApplicationCommunicator(app, scope)
    parts = body_parts or [b""]
    for index, part in enumerate(parts):
        await comm.send_input(
            {"type": "http.request", "body": part, "more_body": index < len(parts) - 1}
        )
    sent = []
    while True:
        message = await comm.receive_output(timeout=10)
        sent.append(message)
        if message["type"] == "http.response.body" and not message.get("more_body"):
            break
    await comm.wait(timeout=10)
    return sent


class Recorder:
    """A WSGI app that records what it was given and answers with a fixed body."""

    def __init__(self, body: bytes = b"ok") -> None:
        self.environ: dict[str, Any] = {}
        self.read = b""
        self.threads: list[int] = []
        self.closed_in: int | None = None
        self.body = body

    def __call__(self, environ: dict[str, Any], start_response: StartResponse) -> Any:
        self.environ = environ
        self.read = environ["wsgi.input"].read(int(environ["CONTENT_LENGTH"]))
        self.threads.append(threading.get_ident())
        start_response("201 Created", [("Content-Type", "text/plain"), ("X-Seen", "1")])
        recorder = self

        class Body(list[bytes]):
            def close(self) -> None:
                recorder.closed_in = threading.get_ident()

        return Body([self.body])


def test_a_chunked_body_reaches_the_app_whole_with_its_real_length() -> None:
    app = Recorder()
    scope = http_scope("/api/v1/x", "POST", [(b"host", b"h"), (b"content-type", b"text/json")])
    sent = async_to_sync(exchange)(
        WsgiOverAsgi(threads=2, handler=app), scope, [b"ab", b"cd", b"e"]
    )

    assert app.read == b"abcde"
    assert app.environ["CONTENT_LENGTH"] == "5"
    assert app.environ["CONTENT_TYPE"] == "text/json"
    assert app.environ["REQUEST_METHOD"] == "POST"
    assert sent[0] == {
        "type": "http.response.start",
        "status": 201,
        "headers": [(b"content-type", b"text/plain"), (b"x-seen", b"1")],
    }
    assert sent[1] == {"type": "http.response.body", "body": b"ok"}
    assert app.closed_in == app.threads[0]  # request_finished runs where the request ran


def test_a_lying_content_length_is_replaced_by_the_bodys_size() -> None:
    app = Recorder()
    scope = http_scope("/", "POST", [(b"host", b"h"), (b"content-length", b"999")])
    async_to_sync(exchange)(WsgiOverAsgi(threads=1, handler=app), scope, [b"abc"])
    assert app.environ["CONTENT_LENGTH"] == "3"
    assert app.read == b"abc"


def test_paths_headers_and_client_become_pep_3333_environ() -> None:
    app = Recorder()
    scope = http_scope(
        "/ui/记忆",
        headers=[(b"host", b"h"), (b"accept", b"a/b"), (b"accept", b"c/d"), (b"x-y-z", b"1")],
    )
    scope["query_string"] = b"q=%E8%AE%B0&n=1"
    async_to_sync(exchange)(WsgiOverAsgi(threads=1, handler=app), scope)

    environ = app.environ
    assert environ["PATH_INFO"] == "/ui/记忆".encode().decode("latin-1")  # PEP 3333 bytes-as-str
    assert environ["QUERY_STRING"] == "q=%E8%AE%B0&n=1"
    assert environ["HTTP_ACCEPT"] == "a/b,c/d"
    assert environ["HTTP_X_Y_Z"] == "1"
    assert environ["REMOTE_ADDR"] == "127.0.0.1"
    assert (environ["SERVER_NAME"], environ["SERVER_PORT"]) == ("127.0.0.1", "8000")


def test_a_client_that_leaves_before_its_body_ends_never_reaches_the_app() -> None:
    app = Recorder()

    async def leave() -> bool:
        comm = ApplicationCommunicator(WsgiOverAsgi(threads=1, handler=app), http_scope())
        await comm.send_input({"type": "http.request", "body": b"part", "more_body": True})
        await comm.send_input({"type": "http.disconnect"})
        await comm.wait(timeout=10)
        return await comm.receive_nothing()

    assert async_to_sync(leave)() is True  # nothing was sent back
    assert app.threads == []


def test_a_streaming_response_is_sent_in_batches_by_the_thread_that_made_it() -> None:
    produced_in: list[int] = []
    closed_in: list[int] = []

    class Stream:
        streaming = True

        def __iter__(self) -> Iterator[bytes]:
            for n in range(40):  # 40 chunks of 4 KiB, as FileResponse yields them
                produced_in.append(threading.get_ident())
                yield bytes([65 + n % 26]) * 4096

        def close(self) -> None:
            closed_in.append(threading.get_ident())

    def app(environ: dict[str, Any], start_response: StartResponse) -> Stream:
        start_response("200 OK", [("Content-Type", "application/x-ndjson")])
        return Stream()

    sent = async_to_sync(exchange)(WsgiOverAsgi(threads=3, handler=app), http_scope())

    bodies = [m for m in sent if m["type"] == "http.response.body"]
    assert sent[0]["status"] == 200
    assert [len(m["body"]) for m in bodies] == [
        STREAM_CHUNK,
        STREAM_CHUNK,
        40 * 4096 - 2 * STREAM_CHUNK,
        0,
    ]
    assert b"".join(m["body"] for m in bodies) == b"".join(
        bytes([65 + n % 26]) * 4096 for n in range(40)
    )
    assert set(produced_in) == set(closed_in)  # one thread: a generator's cursor stays valid
    assert len(set(produced_in)) == 1


def test_async_to_sync_in_a_view_runs_on_the_servers_event_loop() -> None:
    """Live updates publish with async_to_sync: the in-memory channel layer's queues belong to
    the server's loop, so the coroutine must run there, not on a loop of its own."""
    loops: list[asyncio.AbstractEventLoop] = []

    async def where() -> None:
        loops.append(asyncio.get_running_loop())

    def app(environ: dict[str, Any], start_response: StartResponse) -> list[bytes]:
        async_to_sync(where)()
        start_response("200 OK", [])
        return [b""]

    async def run() -> asyncio.AbstractEventLoop:
        await exchange(WsgiOverAsgi(threads=1, handler=app), http_scope())
        return asyncio.get_running_loop()

    server_loop = async_to_sync(run)()
    assert loops == [server_loop]


@pytest.mark.django_db(transaction=True)
def test_api_requests_through_the_asgi_application_keep_one_connection_per_thread() -> None:
    """Three requests (one writing, one streaming an export) through one pool thread open one
    database connection between them; Django's ASGI handler opened one per request."""
    _, token = token_create(namespaces=["proj"], scope="read-write")
    bridge = WsgiOverAsgi(threads=1, handler=WSGIHandler())
    auth = (b"authorization", f"Bearer {token}".encode())
    opened: list[object] = []

    def count(sender: Any, connection: Any, **kwargs: Any) -> None:
        opened.append(connection)

    connection_created.connect(count)
    try:
        body = json.dumps(turn_body(1)).encode()
        posted = async_to_sync(exchange)(
            bridge,
            http_scope("/api/v1/ns/proj/turns", "POST", [(b"host", b"127.0.0.1"), auth]),
            [body[:10], body[10:]],
        )
        health = async_to_sync(exchange)(
            bridge, http_scope("/api/v1/ns/proj/health", headers=[(b"host", b"127.0.0.1"), auth])
        )
        export = http_scope("/api/v1/ns/proj/export", headers=[(b"host", b"127.0.0.1"), auth])
        export["query_string"] = b"format=jsonl"
        dumped = async_to_sync(exchange)(bridge, export)
    finally:
        connection_created.disconnect(count)
        bridge.pool.submit(connections.close_all).result()  # the thread's kept connection
        bridge.pool.shutdown()

    assert posted[0]["status"] == 201
    assert json.loads(posted[1]["body"])["duplicate"] is False
    assert health[0]["status"] == 200
    assert json.loads(health[1]["body"])["current_turn"] == 1
    assert dumped[0]["status"] == 200
    lines = b"".join(m.get("body", b"") for m in dumped[1:]).decode().splitlines()
    assert json.loads(lines[0])["type"] == "header"
    assert [json.loads(line)["type"] for line in lines].count("messages") == 2
    assert len(opened) == 1
    assert Turn.objects.count() == 1


def test_what_an_app_writes_through_start_responses_write_comes_first() -> None:
    """PEP 3333's legacy write(): its bytes precede the returned iterable's."""

    def app(environ: dict[str, Any], start_response: StartResponse) -> list[bytes]:
        write = start_response("200 OK", [("Content-Type", "text/plain")])
        write(b"head ")
        return [b"tail"]

    sent = async_to_sync(exchange)(WsgiOverAsgi(threads=1, handler=app), http_scope())
    assert sent[1] == {"type": "http.response.body", "body": b"head tail"}


# --- the body cap: DATA_UPLOAD_MAX_MEMORY_SIZE, checked while reading, before the view -------


class Spools:
    """Records every body file the bridge makes, to tell whether one went to disk."""

    def __init__(self) -> None:
        self.made: list[Any] = []

    def __call__(self, max_size: int) -> Any:
        spool = tempfile.SpooledTemporaryFile(max_size=max_size, mode="w+b")  # noqa: SIM115
        self.made.append(spool)
        return spool

    @property
    def on_disk(self) -> bool:
        return any(spool._rolled for spool in self.made)


@pytest.fixture
def spools(monkeypatch: pytest.MonkeyPatch) -> Spools:
    recorder = Spools()
    monkeypatch.setattr(http_bridge, "_spool", recorder)
    return recorder


async def refused_before_reading(app: Any, scope: dict[str, Any]) -> list[dict[str, Any]]:
    """The answer to a request whose body is never sent: it must come without a receive()."""
    comm = ApplicationCommunicator(app, scope)
    sent = [await comm.receive_output(timeout=10), await comm.receive_output(timeout=10)]
    await comm.wait(timeout=10)
    return sent


def test_a_body_announced_over_the_limit_is_413_before_any_of_it_is_read(
    settings: Any, spools: Spools
) -> None:
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 1000
    app = Recorder()
    scope = http_scope("/api/v1/ns/proj/turns", "POST", [(b"content-length", b"1001")])
    sent = async_to_sync(refused_before_reading)(WsgiOverAsgi(threads=1, handler=app), scope)

    assert sent[0]["status"] == 413
    assert (b"content-type", b"application/json") in sent[0]["headers"]
    assert (b"connection", b"close") in sent[0]["headers"]
    assert json.loads(sent[1]["body"]) == {
        "error": {
            "code": "request_too_large",
            "message": "The request body is too large: at most 1000 bytes.",
            "details": {"max_bytes": 1000},
        }
    }
    assert app.threads == [] and spools.made == []


def test_a_chunked_body_over_the_limit_is_413_and_never_reaches_the_disk(
    settings: Any, spools: Spools, caplog: pytest.LogCaptureFixture
) -> None:
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 10_000
    settings.FILE_UPLOAD_MAX_MEMORY_SIZE = 1_000  # a body this size would otherwise spool
    caplog.set_level(logging.INFO, logger="stratagate_site.http_bridge")
    app = Recorder()
    parts = [b"x" * 3000] * 4  # 12,000 bytes; the fourth part crosses the limit
    sent = async_to_sync(exchange)(
        WsgiOverAsgi(threads=1, handler=app), http_scope("/ns/proj/imports/", "POST"), parts
    )

    assert sent[0]["status"] == 413
    assert (b"content-type", b"text/plain; charset=utf-8") in sent[0]["headers"]
    assert b"at most 10000 bytes" in sent[1]["body"]
    assert app.threads == []
    assert not spools.on_disk and all(spool.closed for spool in spools.made)
    assert "after reading 12000 bytes" in caplog.text


def test_a_chunked_body_at_the_limit_reaches_the_app_from_memory(
    settings: Any, spools: Spools
) -> None:
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 10_000
    settings.FILE_UPLOAD_MAX_MEMORY_SIZE = 1_000
    app = Recorder()
    async_to_sync(exchange)(
        WsgiOverAsgi(threads=1, handler=app), http_scope("/", "POST"), [b"y" * 5000] * 2
    )
    assert app.read == b"y" * 10_000
    assert not spools.on_disk


def test_an_announced_body_within_the_limit_spools_as_before(settings: Any, spools: Spools) -> None:
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 10_000
    settings.FILE_UPLOAD_MAX_MEMORY_SIZE = 1_000
    app = Recorder()
    scope = http_scope("/", "POST", [(b"content-length", b"4000")])
    async_to_sync(exchange)(WsgiOverAsgi(threads=1, handler=app), scope, [b"z" * 4000])
    assert app.read == b"z" * 4000
    assert spools.on_disk  # past FILE_UPLOAD_MAX_MEMORY_SIZE, as Django's handler does


# Real HTTP: the site's web server (stratagate_site.web, uvicorn) on a thread of this process.


@pytest.fixture
def site() -> Iterator[int]:
    with web_on_thread() as (_, port):
        yield port


def read_answer(sock: socket.socket) -> tuple[int, dict[str, str], bytes]:
    raw = b""
    while b"\r\n\r\n" not in raw:
        chunk = sock.recv(65536)
        if not chunk:
            break
        raw += chunk
    head, _, body = raw.partition(b"\r\n\r\n")
    status_line, *header_lines = head.decode("latin-1").split("\r\n")
    headers = {k.lower(): v.strip() for k, v in (h.split(":", 1) for h in header_lines)}
    while len(body) < int(headers.get("content-length", 0)):
        chunk = sock.recv(65536)
        if not chunk:
            break
        body += chunk
    return int(status_line.split()[1]), headers, body


def test_over_http_a_body_announced_over_6_mib_is_refused_unread(
    site: int, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="stratagate_site.http_bridge")
    limit = 6 * 1024 * 1024
    with socket.create_connection(("127.0.0.1", site), timeout=10) as sock:
        sock.sendall(
            b"POST /api/v1/ns/proj/turns HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            b"Content-Type: application/json\r\nExpect: 100-continue\r\n"
            + f"Content-Length: {limit + 1}\r\n\r\n".encode()
        )
        status, headers, body = read_answer(sock)
        assert sock.recv(1) == b""  # closed after the answer
    assert status == 413  # no "100 Continue" first: the client never sends the body
    assert headers["connection"] == "close"
    assert json.loads(body)["error"]["code"] == "request_too_large"
    assert "after reading 0 bytes" in caplog.text


def test_over_http_a_chunked_body_is_refused_just_past_6_mib(
    site: int, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="stratagate_site.http_bridge")
    limit = 6 * 1024 * 1024
    chunk = b"x" * 65536
    sent = 0
    with socket.create_connection(("127.0.0.1", site), timeout=10) as sock:
        sock.sendall(
            b"POST /api/v1/ns/proj/turns HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            b"Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"
        )
        # Send until the server answers (it must, just past the limit); stop at 8 MiB.
        while sent < 8 * 1024 * 1024 and not select.select([sock], [], [], 0)[0]:
            try:
                sock.sendall(b"%x\r\n%s\r\n" % (len(chunk), chunk))
            except (BrokenPipeError, ConnectionResetError):
                break
            sent += len(chunk)
        assert select.select([sock], [], [], 10)[0], "no answer"
        status, _, body = read_answer(sock)
    assert status == 413
    assert json.loads(body)["error"] == {
        "code": "request_too_large",
        "message": f"The request body is too large: at most {limit} bytes.",
        "details": {"max_bytes": limit},
    }
    read = int(re.search(r"after reading (\d+) bytes", caplog.text).group(1))  # type: ignore[union-attr]
    # The bridge stops at the first message from the server that crosses the limit: uvicorn
    # hands the body over as the socket gives it, up to 256 KiB at a time.
    assert limit < read <= limit + 512 * 1024, read
    print(f"\nchunked: sent {sent} bytes, the bridge read {read} before refusing")


def test_over_http_a_ui_path_gets_a_plain_413(site: int) -> None:
    client = http.client.HTTPConnection("127.0.0.1", site, timeout=10)
    client.putrequest("POST", "/ns/proj/imports/")
    client.putheader("Content-Length", str(7 * 1024 * 1024))
    client.endheaders()
    response = client.getresponse()
    assert response.status == 413
    assert response.getheader("content-type") == "text/plain; charset=utf-8"
    assert b"The request body is too large" in response.read()
    client.close()
