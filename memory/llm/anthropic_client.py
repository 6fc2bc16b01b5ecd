"""`LLMClient` for the Anthropic Messages API (used when memory is processed with the proxy's
Anthropic upstream, STRATAGATE_LLM_FROM_PROXY).

Structured output is asked for the way that API does it: one tool whose input schema is the
output model, and `tool_choice` forcing it. The tool's input is validated here like any answer,
with the same single repair round-trip as the OpenAI-compatible client (SPEC §12.1); the SDK's
own retries are off, as the job runner retries with backoff (SPEC §12.2).
"""

from __future__ import annotations

import json
import time
from typing import Any

from pydantic import BaseModel

from memory.llm.client import LLMResult, LLMUsage
from memory.llm.errors import LLMOutputError
from memory.llm.openai_client import (
    MAX_ATTEMPTS,
    NO_API_KEY,
    InvalidAnswerError,
    parse_structured,
    repair_instruction,
    schema_name,
    transport_error,
)

MAX_OUTPUT_TOKENS = 8192


def _answer_text(response: Any, tool: str) -> str:
    """The forced tool call's input as JSON text (what gets validated), else the text blocks."""
    texts: list[str] = []
    for block in getattr(response, "content", None) or []:
        if getattr(block, "type", None) == "tool_use" and getattr(block, "name", None) == tool:
            return json.dumps(getattr(block, "input", None), ensure_ascii=False)
        if getattr(block, "type", None) == "text":
            texts.append(str(getattr(block, "text", "")))
    return "\n".join(texts)


class AnthropicClient:
    """Structured answers through the `anthropic` SDK; see `LLMClient` for the contract."""

    def __init__(
        self, base_url: str, api_key: str | None, model: str, timeout: float = 60.0
    ) -> None:
        import anthropic  # imported when used: it costs ~1 s (see OpenAICompatibleClient)

        self._sdk = anthropic
        self._model = model
        self._client = anthropic.Anthropic(
            base_url=base_url, api_key=api_key or NO_API_KEY, timeout=timeout, max_retries=0
        )

    @property
    def mode(self) -> str:
        return "model"

    @property
    def model(self) -> str:
        return self._model

    def close(self) -> None:
        self._client.close()

    def complete_structured[T: BaseModel](
        self, *, kind: str, system: str, user: str, output_model: type[T]
    ) -> LLMResult[T]:
        tool = schema_name(output_model)
        tools: Any = [
            {
                "name": tool,
                "description": f"Return the {kind} result.",
                "input_schema": output_model.model_json_schema(),
            }
        ]
        messages: list[Any] = [{"role": "user", "content": user}]
        started = time.monotonic()
        attempts = prompt = completion = 0
        model = self._model
        for attempt in range(1, MAX_ATTEMPTS + 1):
            try:
                response = self._client.messages.create(
                    model=self._model,
                    max_tokens=MAX_OUTPUT_TOKENS,
                    system=system,
                    messages=messages,
                    tools=tools,
                    tool_choice={"type": "tool", "name": tool},
                )
            except self._sdk.AnthropicError as exc:
                raise transport_error(exc, self._sdk) from exc
            attempts += 1
            usage = getattr(response, "usage", None)
            prompt += int(getattr(usage, "input_tokens", 0) or 0)
            completion += int(getattr(usage, "output_tokens", 0) or 0)
            model = str(getattr(response, "model", "") or model)
            spent = LLMUsage(
                model=model,
                latency_ms=round((time.monotonic() - started) * 1000),
                prompt_tokens=prompt,
                completion_tokens=completion,
                attempts=attempts,
            )
            raw_text = _answer_text(response, tool)
            try:
                value = parse_structured(raw_text, output_model)
            except InvalidAnswerError as exc:
                if attempt == MAX_ATTEMPTS:
                    raise LLMOutputError(
                        f"{kind}: model output invalid after {attempt} attempts",
                        error_text=str(exc),
                        raw_text=raw_text,
                        usage=spent,
                    ) from exc
                messages += [
                    {"role": "assistant", "content": raw_text or "(no answer)"},
                    {"role": "user", "content": repair_instruction(str(exc))},
                ]
                continue
            return LLMResult(value=value, usage=spent, raw_text=raw_text)
        raise AssertionError("unreachable: the loop returns or raises")  # pragma: no cover
