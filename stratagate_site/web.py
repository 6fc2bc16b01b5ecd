"""A web process: uvicorn serving `stratagate_site.asgi.application` on a listening socket that
`manage.py serve` bound and handed down, so several processes accept on one port.

    python -m stratagate_site.web --fd N

HTTP/1.1 is parsed by httptools (C) and websockets by the `websockets` package; daphne's Twisted
HTTP parsing was a third of a web process's CPU under ingest (benchmarks/README.md, eighth
session). The socket is wrapped with its real family, not through uvicorn's own `--fd`, which
takes every descriptor for a Unix socket: asyncio then leaves TCP_NODELAY off and a reply waits
for the client's delayed ACK (≈ 40 ms per request). Proxy headers are not trusted (the peer is
the client address, as before), uvicorn names no server, and its loggers go through the site's
LOGGING (one redacting handler): the access log is the `uvicorn.access` logger at INFO.
"""

from __future__ import annotations

import argparse
import importlib
import logging
import os
import socket
from collections.abc import Callable, Sequence

import uvicorn
from django.urls import get_resolver

from stratagate_site.long_lived import freeze_loaded

ASGI_APPLICATION = "stratagate_site.asgi:application"
# An idle keep-alive connection is closed after this many seconds (uvicorn's default is 5): an
# agent's client reuses its connection between turns, which come seconds apart.
KEEP_ALIVE_SECONDS = 60
# On SIGTERM or SIGINT, requests under way get this long to finish before their tasks are
# cancelled; `serve` waits 10 s (STOP_GRACE_SECONDS) before it kills a web process.
GRACEFUL_SHUTDOWN_SECONDS = 8
ACCEPTS_PER_WAKE = 1  # see SharedListener

logger = logging.getLogger("stratagate_site.web")


class SharedListener(socket.socket):
    """A listening socket that several web processes accept on. `serve` set its backlog when it
    bound it; asyncio calls `listen(n)` again with the server's backlog and also accepts up to n
    connections each time the socket wakes it, so here `listen` leaves the backlog alone and the
    server's backlog is 1 (ACCEPTS_PER_WAKE). All processes wake for a new connection and the
    idle one takes it first: accepting in bulk, the first process to wake took every connection
    the clients opened at once (four keep-alive clients on two processes: one process served
    all four at 104 turns/s, against 166 when they split two and two)."""

    def listen(self, backlog: int = 0) -> None:
        pass


class WebServer(uvicorn.Server):
    """uvicorn's server on (a duplicate of) `listener`, telling `on_ready` (if given) once it
    accepts connections."""

    def __init__(self, listener: socket.socket, on_ready: Callable[[], None] | None = None) -> None:
        super().__init__(config())
        # Family, type and protocol read from the descriptor: a socket made as (AF_INET,
        # SOCK_STREAM) says protocol 0, which its accepted connections inherit, and asyncio
        # turns Nagle off only where the protocol says TCP.
        self.listener = SharedListener(fileno=os.dup(listener.fileno()))
        self.on_ready = on_ready

    def serve_until_stopped(self) -> None:
        """Serve until SIGTERM or SIGINT (in the main thread) or until `should_exit` is set."""
        self.run(sockets=[self.listener])

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        await super().startup(sockets)
        if self.should_exit:
            return
        for sock in sockets or ():
            logger.info("web process %d serving on %s", os.getpid(), sock.getsockname())
        if self.on_ready is not None:
            self.on_ready()


def config() -> uvicorn.Config:
    return uvicorn.Config(
        ASGI_APPLICATION,
        http="httptools",
        ws="websockets-sansio",
        loop="asyncio",
        lifespan="off",  # neither Django nor channels speak the lifespan protocol
        log_config=None,  # the site's LOGGING, installed when the application is imported
        access_log=True,
        proxy_headers=False,
        server_header=False,
        timeout_keep_alive=KEEP_ALIVE_SECONDS,
        timeout_graceful_shutdown=GRACEFUL_SHUTDOWN_SECONDS,
        backlog=ACCEPTS_PER_WAKE,
    )


def serve(listener: socket.socket, on_ready: Callable[[], None] | None = None) -> None:
    """Serve on `listener` (bound and listening) until SIGTERM or SIGINT."""
    WebServer(listener, on_ready).serve_until_stopped()


def inherited_socket(fd: int) -> socket.socket:
    """The listening socket behind descriptor `fd`, with its own family and protocol."""
    listener = socket.socket(fileno=fd)
    if listener.type != socket.SOCK_STREAM:
        raise SystemExit(f"descriptor {fd} is not a stream socket")
    return listener


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--fd", type=int, required=True, help="a bound, listening socket")
    args = parser.parse_args(argv)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "stratagate_site.settings")
    frozen = load_site()
    logger.info("web process %d: %d objects loaded at start frozen", os.getpid(), frozen)
    serve(inherited_socket(args.fd))


def load_site() -> int:
    """Import the site (the ASGI application, and the URLconf with every view), then freeze
    what is loaded (`stratagate_site.long_lived`). Only a web process's entry point calls it:
    a server started inside another process (the tests') must not freeze that process's
    objects halfway through its life. Returns how many objects were frozen."""
    importlib.import_module(ASGI_APPLICATION.split(":", 1)[0])
    get_resolver().url_patterns  # noqa: B018
    return freeze_loaded()


if __name__ == "__main__":
    main()
