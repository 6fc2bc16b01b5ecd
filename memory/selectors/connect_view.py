"""What the Memory UI's "Connect an agent" page shows for a namespace: the model proxy's two base
URLs, whether each upstream is configured (its URL, never its key), and whether requests have
come through yet. Reads only; creating a token is memory.services.connect."""

from __future__ import annotations

from datetime import datetime
from urllib.parse import quote

from django.conf import settings

from memory.engine.redact import redact
from memory.models import Namespace
from memory.selectors.out import Out
from memory.selectors.processing_model import PROXY_UPSTREAM
from memory.selectors.proxy import proxy_traffic

# Each protocol's base below /proxy/{ns}/, as proxy.app.BASES serves it (a test keeps them equal).
PROXY_BASES = {"openai": "openai/v1", "anthropic": "anthropic"}


class ProxyEndpointOut(Out):
    protocol: str  # openai | anthropic
    base_url: str  # what the agent's SDK takes as its base URL
    upstream_url: str  # where the proxy forwards to, redacted; "" when not configured
    url_setting: str  # the setting naming the upstream (STRATAGATE_PROXY_*_URL)
    key_setting: str  # the setting holding the server's provider key
    server_key: bool  # True: the server holds a key; False: clients send their own

    @property
    def configured(self) -> bool:
        return bool(self.upstream_url)


class ConnectOut(Out):
    namespace: str
    openai: ProxyEndpointOut
    anthropic: ProxyEndpointOut
    requests: int  # proxied requests over the last `days` days
    days: int
    sessions: int  # sessions that came through the proxy (all time)
    last_request_at: datetime | None


def proxy_base_url(server: str, namespace: str, protocol: str) -> str:
    """`{server}/proxy/{ns}/openai/v1` or `…/anthropic`; `server` is the site's absolute URL."""
    return f"{server.rstrip('/')}/proxy/{quote(namespace, safe='')}/{PROXY_BASES[protocol]}"


def _endpoint(server: str, namespace: str, protocol: str) -> ProxyEndpointOut:
    url_setting, key_setting = PROXY_UPSTREAM[protocol]
    return ProxyEndpointOut.model_construct(
        protocol=protocol,
        base_url=proxy_base_url(server, namespace, protocol),
        upstream_url=redact(str(getattr(settings, url_setting, "") or "").strip()),
        url_setting=url_setting,
        key_setting=key_setting,
        server_key=bool(str(getattr(settings, key_setting, "") or "").strip()),
    )


def connect_info(namespace: Namespace, *, server: str) -> ConnectOut:
    traffic = proxy_traffic(namespace)
    return ConnectOut.model_construct(
        namespace=namespace.name,
        openai=_endpoint(server, namespace.name, "openai"),
        anthropic=_endpoint(server, namespace.name, "anthropic"),
        requests=traffic.requests,
        days=traffic.days,
        sessions=traffic.sessions,
        last_request_at=traffic.last_request_at,
    )
