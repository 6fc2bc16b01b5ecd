"""Model access: the `LLMClient` interface, the OpenAI-compatible client and classified errors."""

from memory.llm.client import LLMClient, LLMResult, LLMUsage
from memory.llm.errors import LLMError, LLMOutputError, LLMTransportError
from memory.llm.factory import llm_client_from_config
from memory.llm.openai_client import OpenAICompatibleClient

__all__ = [
    "LLMClient",
    "LLMError",
    "LLMOutputError",
    "LLMResult",
    "LLMTransportError",
    "LLMUsage",
    "OpenAICompatibleClient",
    "llm_client_from_config",
]
