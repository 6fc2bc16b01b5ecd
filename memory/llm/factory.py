"""Build the configured model client, or none: no model configured means the offline processor."""

from __future__ import annotations

from memory.llm.anthropic_client import AnthropicClient
from memory.llm.client import LLMClient
from memory.llm.openai_client import OpenAICompatibleClient

PROTOCOLS = ("openai", "anthropic")


def llm_client_from_config(
    base_url: str | None,
    api_key: str | None,
    model: str | None,
    *,
    timeout: float = 60.0,
    protocol: str = "openai",
) -> LLMClient | None:
    """Return a client when both `base_url` and `model` are set (blank counts as unset), for an
    OpenAI-compatible endpoint or (`protocol="anthropic"`) the Anthropic Messages API."""
    base_url = (base_url or "").strip()
    model = (model or "").strip()
    if not base_url or not model:
        return None
    if protocol not in PROTOCOLS:
        raise ValueError(f"unknown model protocol {protocol!r}")
    client = AnthropicClient if protocol == "anthropic" else OpenAICompatibleClient
    return client(
        base_url=base_url, api_key=(api_key or "").strip() or None, model=model, timeout=timeout
    )
