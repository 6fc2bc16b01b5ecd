"""Proxy fixtures: the site's ASGI application (stratagate_site.asgi: /proxy/ goes to the proxy)
served by uvicorn on a thread of this process, a fake model upstream (tests.fakes.model_upstream)
it forwards to, and clients of the real `openai` and `anthropic` SDKs pointed at it.

The server runs in-process so tests can break things on purpose (monkeypatch a service to fail
or to be slow) and read the rows it wrote. Its threads use their own database connections, so
tests run with a transactional database; the server waits for its bookkeeping to finish and
closes those connections before the test's data is flushed.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import anthropic
import openai
import pytest
import uvicorn

from memory.models import Namespace
from memory.services.tokens import token_create
from proxy.stats import STATS
from tests.fakes.model_upstream import FakeUpstream

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


@pytest.fixture
def upstream() -> Iterator[FakeUpstream]:
    with FakeUpstream() as fake:
        yield fake


@dataclass
class Proxy:
    url: str
    token: str
    namespace: str
    server: ProxyServer

    @property
    def openai_base(self) -> str:
        return f"{self.url}/proxy/{self.namespace}/openai/v1"

    @property
    def anthropic_base(self) -> str:
        return f"{self.url}/proxy/{self.namespace}/anthropic"

    def openai(self, **kw: Any) -> openai.OpenAI:
        kw.setdefault("max_retries", 0)
        return openai.OpenAI(base_url=self.openai_base, api_key=self.token, **kw)

    def async_openai(self, **kw: Any) -> openai.AsyncOpenAI:
        kw.setdefault("max_retries", 0)
        return openai.AsyncOpenAI(base_url=self.openai_base, api_key=self.token, **kw)

    def anthropic(self, **kw: Any) -> anthropic.Anthropic:
        kw.setdefault("max_retries", 0)
        return anthropic.Anthropic(base_url=self.anthropic_base, api_key=self.token, **kw)

    def settle(self) -> None:
        self.server.settle()


@pytest.fixture
def proxy_settings(settings: Any, upstream: FakeUpstream) -> Any:
    settings.STRATAGATE_PROXY_OPENAI_URL = f"{upstream.url}/v1"
    settings.STRATAGATE_PROXY_ANTHROPIC_URL = upstream.url
    settings.STRATAGATE_PROXY_OPENAI_KEY = "sk-server-openai-key-0000"
    settings.STRATAGATE_PROXY_ANTHROPIC_KEY = "sk-ant-server-key-0000"
    settings.STRATAGATE_PROXY_INJECT_DEADLINE_MS = 5000  # CI machines are slow; tests set less
    return settings


@pytest.fixture
def proxy(transactional_db: None, proxy_settings: Any) -> Iterator[Proxy]:
    """The proxy in front of the fake upstream, with a read-write token for namespace `proj`."""
    _, raw = token_create(namespaces=["proj"], scope="read-write")
    server = ProxyServer().start()
    try:
        yield Proxy(url=server.url, token=raw, namespace="proj", server=server)
    finally:
        server.stop()


def namespace() -> Namespace:
    return Namespace.objects.get(name="proj")
