"""An error the proxy answers itself (access, headers, upstream unreachable …), written in the
client's protocol by its adapter so the SDK raises its usual exception class."""

from __future__ import annotations


class ProxyError(Exception):
    def __init__(self, status: int, code: str, message: str, *, retry: bool | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        # Sent as `x-should-retry`, which the OpenAI and Anthropic SDKs honour: no retry for
        # what cannot change (a missing upstream configuration), the SDK's own rule otherwise.
        self.retry = retry
