"""Proxy fixtures: the site's ASGI application (stratagate_site.asgi: /proxy/ goes to the proxy)
served by uvicorn on a thread of this process, a fake model upstream (tests.fakes.model_upstream)
it forwards to, and clients of the real `openai` and `anthropic` SDKs pointed at it.

The server runs in-process so tests can break things on purpose (monkeypatch a service to fail
or to be slow) and read the rows it wrote. Its threads use their own database connections, so
tests run with a transactional database; the server waits for its bookkeeping to finish and
closes those connections before the test's data is flushed.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import anthropic
import openai
import pytest

from memory.models import Namespace
from memory.services.tokens import token_create
from tests.fakes.model_upstream import FakeUpstream
from tests.proxy.server import ProxyServer


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
