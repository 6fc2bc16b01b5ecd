"""One adapter per model protocol over the protocol-neutral core (proxy.exchange)."""

from proxy.protocols.anthropic import AnthropicAdapter
from proxy.protocols.base import Adapter, NotUnderstood, StreamReader
from proxy.protocols.openai import OpenAIAdapter

ADAPTERS: dict[str, Adapter] = {"openai": OpenAIAdapter(), "anthropic": AnthropicAdapter()}

__all__ = [
    "ADAPTERS",
    "Adapter",
    "AnthropicAdapter",
    "NotUnderstood",
    "OpenAIAdapter",
    "StreamReader",
]
