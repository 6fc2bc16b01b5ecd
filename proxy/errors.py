"""An error the proxy answers itself (access, headers, upstream unreachable …), written in the
client's protocol by its adapter so the SDK raises its usual exception class."""

from __future__ import annotations

from collections.abc import Callable


class ProxyError(Exception):
    def __init__(self, status: int, code: str, message: str, *, retry: bool | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        # Sent as `x-should-retry`, which the OpenAI and Anthropic SDKs honour: no retry for
        # what cannot change (a missing upstream configuration), the SDK's own rule otherwise.
        self.retry = retry


def header_choice(name: str, value: str | None, validate: Callable[[object], str]) -> str | None:
    """A per-request header that takes one of a few words (None when absent); a bad value is a
    400 `invalid_proxy_header` naming the header and the words."""
    if value is None:
        return None
    try:
        return validate(value)
    except ValueError as exc:
        raise ProxyError(400, "invalid_proxy_header", f"{name}: {exc}") from exc
