"""Which model processes a namespace's memory (or none: the offline processor), and why.

A model configured in the environment (STRATAGATE_LLM_*) always wins. Without one, and with
STRATAGATE_LLM_FROM_PROXY=1, a namespace is processed by the model its proxied requests used
last, through the proxy's upstream for that protocol (docs/PROXY.md): it spends the user's
tokens, so it is off by default.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.conf import settings

from memory.selectors.namespaces import namespace_id_of
from memory.selectors.proxy import latest_proxied_model

# Where each protocol's upstream is configured for the proxy (proxy.config reads the same).
PROXY_UPSTREAM = {
    "openai": ("STRATAGATE_PROXY_OPENAI_URL", "STRATAGATE_PROXY_OPENAI_KEY"),
    "anthropic": ("STRATAGATE_PROXY_ANTHROPIC_URL", "STRATAGATE_PROXY_ANTHROPIC_KEY"),
}


@dataclass(frozen=True)
class ProcessingModel:
    """The model that processes a namespace's memory, and why that one.

    `why`: `configured` (STRATAGATE_LLM_*), `proxy` (the namespace's latest proxied request's
    model), `no_model` (offline: nothing configured), `no_proxied_request` (offline:
    STRATAGATE_LLM_FROM_PROXY is on but no proxied request has named a model yet),
    `no_upstream` (offline: that request's protocol has no upstream URL configured now)."""

    why: str
    protocol: str = ""
    model: str = ""
    base_url: str = ""
    api_key: str = ""

    @property
    def mode(self) -> str:
        return "model" if self.why in ("configured", "proxy") else "offline"


def processing_model(namespace_id: int | None = None) -> ProcessingModel:
    """Read per use from settings and the namespace's traffic, so a change applies without a
    restart."""
    if settings.STRATAGATE_LLM_BASE_URL and settings.STRATAGATE_LLM_MODEL:
        return ProcessingModel(
            why="configured",
            protocol="openai",
            model=settings.STRATAGATE_LLM_MODEL,
            base_url=settings.STRATAGATE_LLM_BASE_URL,
            api_key=settings.STRATAGATE_LLM_API_KEY,
        )
    if not settings.STRATAGATE_LLM_FROM_PROXY:
        return ProcessingModel(why="no_model")
    latest = latest_proxied_model(namespace_id) if namespace_id is not None else None
    if latest is None:
        return ProcessingModel(why="no_proxied_request")
    protocol, model = latest
    url_setting, key_setting = PROXY_UPSTREAM[protocol]
    base_url = str(getattr(settings, url_setting, "") or "")
    if not base_url:
        return ProcessingModel(why="no_upstream", protocol=protocol, model=model)
    return ProcessingModel(
        why="proxy",
        protocol=protocol,
        model=model,
        base_url=base_url,
        api_key=str(getattr(settings, key_setting, "") or ""),
    )


def model_mode(namespace_id: int | None = None) -> str:
    return processing_model(namespace_id).mode


def namespace_model_mode(name: str | None) -> str:
    """`model_mode` for a namespace named in a URL (an unknown name: the installation's)."""
    namespace_id = namespace_id_of(name) if name and settings.STRATAGATE_LLM_FROM_PROXY else None
    return model_mode(namespace_id)
