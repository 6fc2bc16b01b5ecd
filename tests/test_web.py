"""stratagate_site.web: the web process `serve` starts. Its connections have Nagle's algorithm off
(uvicorn's own `--fd` left it on: every reply then waited for the client's delayed ACK), the
socket `serve` bound keeps the backlog `serve` gave it, and the server answers over one kept
connection. The whole site under it (API, pages, websockets) is exercised by tests/browser,
tests/reliability and tests/test_serve.py."""

from __future__ import annotations

import gc
import http.client
import os
import socket
from collections.abc import Iterator

import pytest

from stratagate_site import web
from tests.reliability.procs import listening_socket, web_on_thread

STATIC = "/static/graphui/css/search.css"  # answered without the database


@pytest.fixture
def running() -> Iterator[tuple[web.WebServer, int]]:
    """The web server on a thread of this process (so its connections can be inspected)."""
    with web_on_thread() as running:
        yield running


def test_connections_have_nagle_off_and_stay_open(running: tuple[web.WebServer, int]) -> None:
    server, port = running
    client = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    for _ in range(3):
        client.request("GET", STATIC)
        response = client.getresponse()
        assert response.status == 200
        assert b"{" in response.read()
        assert response.getheader("server") is None  # uvicorn does not name itself
    connections = list(server.server_state.connections)
    assert len(connections) == 1  # the three requests shared one kept connection
    sock = connections[0].transport.get_extra_info("socket")
    assert sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY) == 1
    client.close()


def test_what_was_loaded_at_start_is_out_of_the_collectors_reach() -> None:
    """Full collections walk only what came after start (`stratagate_site.long_lived`): Django,
    the site and the URLconf's views are frozen before the web process serves."""
    gc.unfreeze()
    try:
        frozen = web.load_site()
        assert frozen > 50_000  # (other threads of this process may free some of them since)
        assert len(gc.get_objects()) < frozen / 5  # what a full collection still walks
    finally:
        gc.unfreeze()  # this process goes on running tests


def test_a_server_started_inside_a_process_freezes_nothing() -> None:
    gc.unfreeze()
    with web_on_thread():
        assert gc.get_freeze_count() == 0


def test_inherited_socket_keeps_its_family() -> None:
    listener = listening_socket()
    inherited = web.inherited_socket(os.dup(listener.fileno()))
    assert (inherited.family, inherited.type) == (socket.AF_INET, socket.SOCK_STREAM)
    assert inherited.getsockname() == listener.getsockname()
    inherited.close()
    listener.close()
    datagram = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    with pytest.raises(SystemExit, match="not a stream socket"):
        web.inherited_socket(os.dup(datagram.fileno()))
    datagram.close()


def test_the_shared_socket_keeps_the_backlog_serve_gave_it() -> None:
    """asyncio calls listen(backlog) with the server's backlog, which is also its accept batch
    (1 here); the socket's own queue must stay as `serve` set it, or connections made while
    every web process is busy would be refused."""
    assert web.config().backlog == web.ACCEPTS_PER_WAKE == 1
    listener = listening_socket()
    shared = web.SharedListener(fileno=os.dup(listener.fileno()))
    shared.listen(web.ACCEPTS_PER_WAKE)
    waiting = []
    try:
        for _ in range(16):  # none accepted: with a backlog of 1 the third would time out
            waiting.append(socket.create_connection(listener.getsockname(), timeout=2))
    finally:
        for sock in waiting:
            sock.close()
        shared.close()
        listener.close()
    assert len(waiting) == 16
