"""The client of the model that processes memory (`selectors.processing_model` chooses it) and
a call wrapper that logs diagnostics."""

from __future__ import annotations

from django.conf import settings
from pydantic import BaseModel

from memory.llm.client import LLMClient
from memory.llm.errors import LLMError
from memory.llm.factory import llm_client_from_config
from memory.models import ModelCall, ProcessingJob
from memory.selectors.processing_model import processing_model

PREVIEW_CHARS = 2000


def llm_client(namespace_id: int | None = None) -> LLMClient | None:
    """The client for the namespace's processing model, or None for the offline processor."""
    chosen = processing_model(namespace_id)
    if chosen.mode != "model":
        return None
    return llm_client_from_config(
        chosen.base_url,
        chosen.api_key or None,
        chosen.model,
        timeout=float(settings.STRATAGATE_LLM_TIMEOUT_SECONDS),
        protocol=chosen.protocol,
    )


def llm_call[T: BaseModel](
    client: LLMClient,
    *,
    namespace_id: int,
    job: ProcessingJob | None,
    kind: str,
    system: str,
    user: str,
    output_model: type[T],
) -> T:
    """One structured call; success and failure both leave a ModelCall row (SPEC §12.3)."""
    try:
        result = client.complete_structured(
            kind=kind, system=system, user=user, output_model=output_model
        )
    except LLMError as exc:
        spent = getattr(exc, "usage", None)
        ModelCall.objects.create(
            namespace_id=namespace_id,
            job=job,
            kind=kind,
            model=str(getattr(client, "model", "") or settings.STRATAGATE_LLM_MODEL),
            ok=False,
            latency_ms=spent.latency_ms if spent else 0,
            prompt_tokens=(spent.prompt_tokens or 0) if spent else 0,
            completion_tokens=(spent.completion_tokens or 0) if spent else 0,
            attempts=spent.attempts if spent else 1,
            error_text=str(exc),
            preview=(getattr(exc, "raw_preview", "") or "")[:PREVIEW_CHARS],
        )
        raise
    usage = result.usage
    ModelCall.objects.create(
        namespace_id=namespace_id,
        job=job,
        kind=kind,
        model=usage.model,
        ok=True,
        latency_ms=usage.latency_ms,
        prompt_tokens=usage.prompt_tokens or 0,
        completion_tokens=usage.completion_tokens or 0,
        attempts=usage.attempts,
        preview=result.raw_text[:PREVIEW_CHARS],
    )
    return result.value
