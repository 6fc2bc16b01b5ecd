"""The one interface every model call goes through (SPEC §12.1), so providers and fakes swap freely.

Contract of `LLMClient.complete_structured`:
- returns an `LLMResult` whose `value` is an instance of `output_model` that passed validation;
- raises `memory.llm.errors.LLMTransportError` when the endpoint fails (see its `permanent`);
- raises `memory.llm.errors.LLMOutputError` when the answer is still invalid after one repair retry.
It never returns partially validated data.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from pydantic import BaseModel


@dataclass(frozen=True, slots=True)
class LLMUsage:
    """What one structured call cost, summed over its attempts (for diagnostics, SPEC §12.3)."""

    model: str
    latency_ms: int
    prompt_tokens: int | None
    completion_tokens: int | None
    attempts: int

    @property
    def total_tokens(self) -> int | None:
        if self.prompt_tokens is None and self.completion_tokens is None:
            return None
        return (self.prompt_tokens or 0) + (self.completion_tokens or 0)


@dataclass(frozen=True, slots=True)
class LLMResult[T: BaseModel]:
    """A validated model answer, its usage, and the raw text it was parsed from."""

    value: T
    usage: LLMUsage
    raw_text: str


@runtime_checkable
class LLMClient(Protocol):
    """A model endpoint that answers with JSON validated against a pydantic model."""

    @property
    def mode(self) -> str:
        """`"model"` for a real endpoint (the offline processor has no client at all)."""
        ...

    def complete_structured[T: BaseModel](
        self, *, kind: str, system: str, user: str, output_model: type[T]
    ) -> LLMResult[T]:
        """Ask for one JSON object matching `output_model`; `kind` names the job for diagnostics."""
        ...
