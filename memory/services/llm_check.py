"""What the settings page says about the model endpoint, and its "Test connection" button: one
short structured call through the project's own client, so the test exercises exactly the path
real jobs take (SPEC §12.1). It writes nothing: no ModelCall row, no memory."""

from __future__ import annotations

import time
from dataclasses import dataclass

from django.conf import settings
from pydantic import BaseModel

from memory.engine.redact import redact
from memory.llm.errors import LLMError, LLMOutputError
from memory.llm.factory import llm_client_from_config

# Per request; the client makes at most one repair request after a malformed answer, so a test
# never takes longer than 2 × 5 s = 10 s.
CONNECTION_TEST_TIMEOUT_SECONDS = 5.0
DETAIL_CHARS = 500
TEST_SYSTEM = "You are a connectivity check. Reply with the JSON object requested, nothing else."
TEST_USER = 'Reply with exactly {"ok": true}.'


class ConnectionPing(BaseModel):
    """The smallest structured answer: proves the endpoint speaks JSON-schema output."""

    ok: bool


@dataclass(frozen=True)
class ModelEndpoint:
    """The configured endpoint as a person may see it: never the key, credentials redacted."""

    mode: str  # "model" | "offline"
    model: str
    base_url: str  # redacted
    api_key_set: bool


@dataclass(frozen=True)
class ConnectionReport:
    ok: bool
    model: str
    latency_ms: int
    detail: str  # redacted; empty on success
    code: str  # "ok", "offline", or the LLM error's stable code


def llm_endpoint() -> ModelEndpoint:
    base_url = (settings.STRATAGATE_LLM_BASE_URL or "").strip()
    model = (settings.STRATAGATE_LLM_MODEL or "").strip()
    configured = bool(base_url and model)
    return ModelEndpoint(
        mode="model" if configured else "offline",
        model=model,
        base_url=redact(base_url),
        api_key_set=bool((settings.STRATAGATE_LLM_API_KEY or "").strip()),
    )


def llm_connection_test() -> ConnectionReport:
    """Call the configured endpoint once with a short timeout; never raises for endpoint
    failures (they are the report). Offline mode reports `code="offline"` without a call."""
    endpoint = llm_endpoint()
    client = llm_client_from_config(
        settings.STRATAGATE_LLM_BASE_URL or None,
        settings.STRATAGATE_LLM_API_KEY or None,
        settings.STRATAGATE_LLM_MODEL or None,
        timeout=CONNECTION_TEST_TIMEOUT_SECONDS,
    )
    if client is None:
        return ConnectionReport(ok=False, model="", latency_ms=0, detail="", code="offline")
    started = time.monotonic()
    try:
        result = client.complete_structured(
            kind="connection_test", system=TEST_SYSTEM, user=TEST_USER, output_model=ConnectionPing
        )
    except LLMError as exc:
        latency = round((time.monotonic() - started) * 1000)
        text = exc.message if isinstance(exc, LLMOutputError) else str(exc)
        return ConnectionReport(
            ok=False,
            model=endpoint.model,
            latency_ms=latency,
            detail=redact(text)[:DETAIL_CHARS],
            code=exc.code,
        )
    finally:
        close = getattr(client, "close", None)
        if callable(close):
            close()
    return ConnectionReport(
        ok=True,
        model=redact(result.usage.model or endpoint.model),
        latency_ms=result.usage.latency_ms,
        detail="",
        code="ok",
    )
