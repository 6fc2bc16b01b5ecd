"""The site's ASGI application (stratagate_site.asgi: /proxy/ goes to the proxy) served by uvicorn
on a thread of this process: the proxy tests' server (tests/proxy/conftest.py) and the
in-process replay of benchmarks/proxy_history.py."""

from __future__ import annotations

import asyncio
import threading
import time

import uvicorn

from proxy.stats import STATS

START_TIMEOUT = 15.0


class ProxyServer:
    """uvicorn serving the site's ASGI application on 127.0.0.1 in a thread."""

    def __init__(self) -> None:
        from stratagate_site.asgi import application

        self.server = uvicorn.Server(
            uvicorn.Config(
                application,
                host="127.0.0.1",
                port=0,
                http="httptools",
                loop="asyncio",
                lifespan="off",
                log_config=None,
                access_log=False,
            )
        )
        self.thread = threading.Thread(target=self.server.run, daemon=True)
        self.loop: asyncio.AbstractEventLoop | None = None

    def start(self) -> ProxyServer:
        self.thread.start()
        deadline = time.monotonic() + START_TIMEOUT
        while not self.server.started:
            if time.monotonic() > deadline or not self.thread.is_alive():
                raise RuntimeError("the proxy test server did not start")
            time.sleep(0.01)
        return self

    @property
    def url(self) -> str:
        (listener,) = [s for server in self.server.servers for s in server.sockets]
        host, port = listener.getsockname()[:2]
        return f"http://{host}:{port}"

    def settle(self, timeout: float = 10.0) -> None:
        """Wait until the bookkeeping the proxy does after an answer's last byte is done."""
        from proxy import http

        deadline = time.monotonic() + timeout
        while http._background and time.monotonic() < deadline:
            time.sleep(0.01)
        time.sleep(0.02)

    def stop(self) -> None:
        from proxy import http
        from tests.threads import threads_stop

        self.settle()
        self.server.should_exit = True
        self.thread.join(15)
        http._background.clear()
        threads_stop()
        STATS.flush()  # on the test database, before it is flushed (nothing is left for atexit)
