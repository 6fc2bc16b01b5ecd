"""A real ASGI server for browser tests that need websockets: pytest-django's `live_server` is
a WSGI thread, so live updates (channels) cannot reach a page served by it.

`site_server()` runs the site's web server (stratagate_site.web: uvicorn with
`stratagate_site.asgi.application`, as `manage.py serve` runs it) in a child process forked
after the test database exists (as channels.testing.ChannelsLiveServerTestCase does), so the
child inherits the test database and every `settings` override made before it starts. The
channel layer is whatever the settings select: the in-memory layer (one process: the page's
socket and the API request that publishes share the child) or, with REDIS_URL, channels_redis
under a prefix of its own, so parallel test processes sharing one Redis never hear each other.

A test module wraps it in a fixture: `settings.CHANNEL_LAYERS = layer_settings(...)` (through
pytest-django's `settings`, so it is restored), then `with site_server() as server: yield`.
Use it with a transactional database (`pytest.mark.django_db(transaction=True)`): the child
reads through its own connections and cannot see a test's uncommitted transaction. Create the
data first, list that fixture before `browser_page`, and make no ORM calls in the test body
(see tests/browser/conftest.py). At the end the child is stopped, and on PostgreSQL the fixture
waits until its connections are gone, or the test database could not be flushed and dropped.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import signal
import time
import uuid
import warnings
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from django.db import connection, connections

START_TIMEOUT = 30.0
STOP_TIMEOUT = 10.0
HOST = "127.0.0.1"


@dataclass(frozen=True)
class AsgiServer:
    url: str  # http://127.0.0.1:<port>
    ws_url: str  # ws://127.0.0.1:<port>
    pid: int
    layer: str  # the channel layer backend the child uses


def _serve(port: Any, ready: Any, errors: Any) -> None:
    """The child: the site's web server (stratagate_site.web) on a free port, until SIGTERM."""
    try:
        import socket

        from channels.layers import channel_layers

        from stratagate_site import web

        channel_layers.backends.clear()  # a layer bound to this process's loop, not the parent's
        listener = socket.create_server((HOST, 0))
        port.value = listener.getsockname()[1]
        web.serve(listener, on_ready=ready.set)
    except BaseException as exc:  # reported by the parent instead of a silent hang
        import traceback

        errors.put(f"{exc!r}\n{traceback.format_exc()}")
    finally:
        connections.close_all()


def layer_settings(layers: dict[str, Any]) -> dict[str, Any]:
    """The settings' channel layer, with a prefix of this server's own on Redis."""
    default = dict(layers["default"])
    if default["BACKEND"].startswith("channels_redis."):
        config = dict(default.get("CONFIG", {}))
        config["prefix"] = f"sgtest-{os.getpid()}-{uuid.uuid4().hex[:8]}"
        default["CONFIG"] = config
    return {**layers, "default": default}


def _flush_layer() -> None:
    """Drop this server's keys from Redis (its own prefix only; other runs are untouched)."""
    from channels.layers import get_channel_layer

    from memory.services.live import layer_run

    layer = get_channel_layer()
    if layer is not None and type(layer).__module__.startswith("channels_redis."):
        layer_run(layer.flush())


def _other_postgres_sessions() -> int:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(*) FROM pg_stat_activity "
            "WHERE datname = current_database() AND pid <> pg_backend_pid()"
        )
        row = cursor.fetchone()
    return int(row[0]) if row else 0


def _wait_for_postgres_sessions_to_end() -> None:
    deadline = time.monotonic() + STOP_TIMEOUT
    while _other_postgres_sessions() and time.monotonic() < deadline:
        time.sleep(0.05)
    connection.close()


@contextlib.contextmanager
def site_server() -> Iterator[AsgiServer]:
    from django.conf import settings

    context = multiprocessing.get_context("fork")
    port = context.Value("i", 0)
    ready = context.Event()
    errors = context.Queue()
    # The child must not inherit an open connection: two processes on one socket corrupt it.
    connections.close_all()
    process = context.Process(target=_serve, args=(port, ready, errors), daemon=True)
    with warnings.catch_warnings():
        # Python warns when forking with other threads alive (pytest-django's live_server,
        # xdist's I/O thread). The child touches none of their locks: it starts its own loop
        # and database connections, as channels' own live-server test case does.
        warnings.filterwarnings("ignore", "This process .* is multi-threaded", DeprecationWarning)
        process.start()
    try:
        deadline = time.monotonic() + START_TIMEOUT
        while not ready.wait(0.1):
            if not process.is_alive() or time.monotonic() > deadline:
                detail = errors.get(timeout=1) if not errors.empty() else "no error reported"
                raise RuntimeError(f"the web server did not start: {detail}")
        base = f"{HOST}:{port.value}"
        yield AsgiServer(
            url=f"http://{base}",
            ws_url=f"ws://{base}",
            pid=process.pid or 0,
            layer=settings.CHANNEL_LAYERS["default"]["BACKEND"],
        )
    finally:
        if process.is_alive():
            os.kill(process.pid or 0, signal.SIGTERM)
        process.join(STOP_TIMEOUT)
        if process.is_alive():
            process.kill()
            process.join(STOP_TIMEOUT)
        if connection.vendor == "postgresql":
            _wait_for_postgres_sessions_to_end()
        _flush_layer()
