"""LLM failures, classified so the job runner knows whether a retry can help.

`permanent=True` means retrying the same call cannot succeed (bad credentials, unknown model or
endpoint, rejected request); the job should fail at once. `permanent=False` means the failure
may be transient (network, timeout, 5xx, rate limit, a bad model answer) and the job's
exponential backoff should try again (SPEC §12.2).
"""

from __future__ import annotations

from memory.llm.client import LLMUsage

PREVIEW_LIMIT = 2_000


def bounded_preview(text: str, limit: int = PREVIEW_LIMIT) -> str:
    """Cut `text` to at most `limit` characters, marking the cut with an ellipsis."""
    if len(text) <= limit:
        return text
    return text[: limit - 1] + "…"


class LLMError(Exception):
    """Base of every model-call failure; carries a stable `code` and the `permanent` flag."""

    code: str = "llm_error"
    permanent: bool = False

    def __init__(self, message: str, *, permanent: bool | None = None, code: str | None = None):
        super().__init__(message)
        self.message = message
        if permanent is not None:
            self.permanent = permanent
        if code is not None:
            self.code = code


class LLMTransportError(LLMError):
    """The endpoint could not be reached or answered with an HTTP error.

    Network errors, timeouts, 408/409/429 and 5xx are transient; other 4xx (authentication,
    permission, not found, bad request) are permanent.
    """

    code = "llm_transport_error"

    def __init__(
        self,
        message: str,
        *,
        permanent: bool,
        status_code: int | None = None,
        code: str | None = None,
    ):
        super().__init__(message, permanent=permanent, code=code)
        self.status_code = status_code


class LLMOutputError(LLMError):
    """The model answered, but its output failed JSON parsing or validation after the repair retry.

    `error_text` is the complete parse/validation error (kept whole for diagnostics, SPEC §12.3);
    `raw_preview` is the model's last answer bounded to 2,000 characters; `usage` counts the
    tokens and attempts spent, so failed calls still show up in the per-kind totals.
    """

    code = "llm_output_invalid"
    permanent = False

    def __init__(self, message: str, *, error_text: str, raw_text: str, usage: LLMUsage):
        super().__init__(message, permanent=False)
        self.error_text = error_text
        self.raw_preview = bounded_preview(raw_text)
        self.usage = usage
        self.attempts = usage.attempts

    def __str__(self) -> str:
        return f"{self.message}: {self.error_text}"
