"""The proxy's configuration, read from Django's settings at each use (so a test's override, or a
changed setting in a new process, applies without anything cached)."""

from __future__ import annotations

from dataclasses import dataclass

from django.conf import settings

URL_SETTING = {
    "openai": "STRATAGATE_PROXY_OPENAI_URL",
    "anthropic": "STRATAGATE_PROXY_ANTHROPIC_URL",
}
KEY_SETTING = {
    "openai": "STRATAGATE_PROXY_OPENAI_KEY",
    "anthropic": "STRATAGATE_PROXY_ANTHROPIC_KEY",
}


@dataclass(frozen=True)
class Upstream:
    protocol: str
    base_url: str  # "" when not configured
    key: str  # "" when the server holds none

    @property
    def url_setting(self) -> str:
        return URL_SETTING[self.protocol]

    def url(self, suffix: str, query: bytes) -> str:
        target = self.base_url.rstrip("/") + suffix
        return f"{target}?{query.decode('latin-1')}" if query else target


def upstream(protocol: str) -> Upstream:
    return Upstream(
        protocol=protocol,
        base_url=str(getattr(settings, URL_SETTING[protocol], "") or "").rstrip("/"),
        key=str(getattr(settings, KEY_SETTING[protocol], "") or ""),
    )


def connect_timeout() -> float:
    return float(settings.STRATAGATE_PROXY_CONNECT_TIMEOUT_SECONDS)


def read_timeout() -> float:
    return float(settings.STRATAGATE_PROXY_READ_TIMEOUT_SECONDS)


def inject_deadline() -> float:
    """Seconds."""
    return int(settings.STRATAGATE_PROXY_INJECT_DEADLINE_MS) / 1000


def max_body_bytes() -> int:
    return int(settings.STRATAGATE_PROXY_MAX_BODY_MB) * 1024 * 1024
