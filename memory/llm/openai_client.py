"""`LLMClient` for any OpenAI-compatible endpoint (OpenAI, DeepSeek, Ollama, vLLM, LM Studio).

Structured output is requested with a JSON schema; the answer is parsed and validated here anyway,
because many compatible servers ignore `response_format`. One repair round-trip is made when the
answer is malformed (SPEC §12.1). Retrying transport failures is the job runner's business (its
backoff, SPEC §12.2), so the SDK's own retries are switched off.
"""

from __future__ import annotations

import json
import re
import time
from dataclasses import dataclass
from types import ModuleType
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ValidationError

from memory.llm.client import LLMResult, LLMUsage
from memory.llm.errors import LLMOutputError, LLMTransportError

if TYPE_CHECKING:
    from openai.types.chat import ChatCompletionMessageParam
    from openai.types.shared_params import ResponseFormatJSONSchema

MAX_ATTEMPTS = 2  # the first answer plus exactly one repair
REPAIR_ERROR_LIMIT = 4_000
# Statuses where the same request may succeed later; every other 4xx is the caller's problem.
TRANSIENT_STATUSES = frozenset({408, 409, 425, 429})
# Placeholder for keyless local servers; also stops the SDK falling back to OPENAI_API_KEY,
# which must never be sent to an arbitrary configured base URL.
NO_API_KEY = "not-needed"

_FENCE_RE = re.compile(r"^```[A-Za-z0-9_-]*[ \t]*\n?(?P<body>.*?)\n?[ \t]*```$", re.DOTALL)
_SCHEMA_NAME_RE = re.compile(r"[^A-Za-z0-9_-]+")


class InvalidAnswerError(Exception):
    """The model's text is not a valid instance of the output model; the message says why."""


def strip_json_fence(text: str) -> str:
    """Return `text` without surrounding whitespace and a surrounding ``` / ```json fence."""
    stripped = text.strip()
    match = _FENCE_RE.match(stripped)
    return match.group("body").strip() if match else stripped


def parse_structured[T: BaseModel](text: str, output_model: type[T]) -> T:
    """Parse `text` as JSON (fence and prose tolerated) and validate; else InvalidAnswerError."""
    body = strip_json_fence(text)
    if not body:
        raise InvalidAnswerError("the answer was empty; expected a JSON object")
    try:
        data = json.loads(body)
    except json.JSONDecodeError as exc:
        data = _embedded_object(body)
        if data is None:
            raise InvalidAnswerError(f"the answer is not valid JSON: {exc}") from exc
    try:
        return output_model.model_validate(data)
    except ValidationError as exc:
        # Each problem without the input pydantic would quote, and not chained to pydantic's
        # error (a job's error text is its whole traceback): that input is the model's answer
        # cut off mid-way, which can keep half a credential redaction no longer recognises.
        # The answer itself is kept, bounded and whole, as the call's preview.
        problems = "; ".join(
            f"{'.'.join(str(part) for part in error['loc']) or 'answer'}: {error['msg']}"
            for error in exc.errors(include_url=False, include_input=False)
        )
        raise InvalidAnswerError(
            f"the JSON does not match the required schema: {exc.error_count()} problems "
            f"in {exc.title}: {problems}"
        ) from None


def _embedded_object(text: str) -> dict[str, Any] | None:
    """The first JSON object inside prose ("Here it is: {...}"), sparing a repair round-trip."""
    start = text.find("{")
    if start < 0:
        return None
    try:
        value, _ = json.JSONDecoder().raw_decode(text, start)
    except json.JSONDecodeError:
        return None
    return value if isinstance(value, dict) else None


def repair_instruction(error_text: str) -> str:
    """The user turn sent after an invalid answer, naming what was wrong."""
    if len(error_text) > REPAIR_ERROR_LIMIT:
        error_text = error_text[:REPAIR_ERROR_LIMIT] + "…"
    return (
        "Your previous answer could not be used.\n"
        f"Error: {error_text}\n"
        "Reply again with only the corrected JSON object matching the required schema: "
        "no prose, no code fences."
    )


def schema_name(output_model: type[BaseModel]) -> str:
    # OpenAI requires ^[a-zA-Z0-9_-]{1,64}$ for json_schema.name.
    return _SCHEMA_NAME_RE.sub("_", output_model.__name__)[:64] or "output"


def transport_error(exc: Exception, sdk: ModuleType) -> LLMTransportError:
    """An SDK's failure classified (the OpenAI and Anthropic SDKs name their errors alike)."""
    if isinstance(exc, sdk.APITimeoutError):
        return LLMTransportError(
            f"model request timed out: {exc}", permanent=False, code="llm_timeout"
        )
    if isinstance(exc, sdk.APIConnectionError):
        return LLMTransportError(
            f"model endpoint unreachable: {exc}", permanent=False, code="llm_unreachable"
        )
    if isinstance(exc, sdk.APIStatusError):
        status = exc.status_code
        permanent = 400 <= status < 500 and status not in TRANSIENT_STATUSES
        return LLMTransportError(
            f"model endpoint returned HTTP {status}: {exc.message}",
            permanent=permanent,
            status_code=status,
            code=f"llm_http_{status}",
        )
    return LLMTransportError(f"model call failed: {exc}", permanent=False)


def _answer_text(response: Any) -> str:
    """The first choice's content; a refusal or missing message becomes text that fails to parse."""
    choices = getattr(response, "choices", None) or []
    if not choices:
        return ""
    message = getattr(choices[0], "message", None)
    content = getattr(message, "content", None)
    if isinstance(content, str):
        return content
    refusal = getattr(message, "refusal", None)
    return f"(refused) {refusal}" if isinstance(refusal, str) and refusal else ""


@dataclass(slots=True)
class _Tally:
    """Usage summed over the attempts of one structured call."""

    model: str
    started: float
    attempts: int = 0
    prompt_tokens: int | None = None
    completion_tokens: int | None = None

    def record(self, response: Any) -> None:
        self.attempts += 1
        usage = getattr(response, "usage", None)
        self.prompt_tokens = _add_tokens(self.prompt_tokens, usage, "prompt_tokens")
        self.completion_tokens = _add_tokens(self.completion_tokens, usage, "completion_tokens")
        reported = getattr(response, "model", None)
        if isinstance(reported, str) and reported:
            self.model = reported

    def usage(self) -> LLMUsage:
        return LLMUsage(
            model=self.model,
            latency_ms=round((time.monotonic() - self.started) * 1000),
            prompt_tokens=self.prompt_tokens,
            completion_tokens=self.completion_tokens,
            attempts=self.attempts,
        )


def _add_tokens(total: int | None, usage: Any, field: str) -> int | None:
    value = getattr(usage, field, None) if usage is not None else None
    if not isinstance(value, int):
        return total
    return (total or 0) + value


class OpenAICompatibleClient:
    """Structured completions through the `openai` SDK; see `LLMClient` for the contract."""

    def __init__(
        self, base_url: str, api_key: str | None, model: str, timeout: float = 60.0
    ) -> None:
        # The SDK is imported when a client is made, not with this module: importing it costs
        # ~0.3 s, on every command and worker start, also when no model is configured.
        import openai

        self._sdk = openai
        self._model = model
        self._client = openai.OpenAI(
            base_url=base_url,
            api_key=api_key or NO_API_KEY,
            timeout=timeout,
            max_retries=0,
        )

    @property
    def mode(self) -> str:
        return "model"

    def close(self) -> None:
        """Release the SDK's connection pool."""
        self._client.close()

    @property
    def model(self) -> str:
        return self._model

    def complete_structured[T: BaseModel](
        self, *, kind: str, system: str, user: str, output_model: type[T]
    ) -> LLMResult[T]:
        messages: list[ChatCompletionMessageParam] = [
            {"role": "system", "content": system},
            {"role": "user", "content": user},
        ]
        response_format: ResponseFormatJSONSchema = {
            "type": "json_schema",
            "json_schema": {
                "name": schema_name(output_model),
                "schema": output_model.model_json_schema(),
                "strict": False,
            },
        }
        tally = _Tally(model=self._model, started=time.monotonic())

        for attempt in range(1, MAX_ATTEMPTS + 1):
            try:
                response = self._client.chat.completions.create(
                    model=self._model,
                    messages=messages,
                    response_format=response_format,
                )
            except self._sdk.OpenAIError as exc:
                raise transport_error(exc, self._sdk) from exc
            except ValueError as exc:
                # The SDK lets a body that is not JSON (cut off by a proxy or a crashing
                # server) escape as a bare JSONDecodeError; it is the endpoint's failure and
                # may pass, and it must reach the call log like any other (SPEC §12.3).
                raise LLMTransportError(
                    f"model endpoint sent an unreadable response: {exc!r}",
                    permanent=False,
                    code="llm_bad_response",
                ) from exc

            tally.record(response)
            raw_text = _answer_text(response)
            try:
                value = parse_structured(raw_text, output_model)
            except InvalidAnswerError as exc:
                if attempt == MAX_ATTEMPTS:
                    raise LLMOutputError(
                        f"{kind}: model output invalid after {attempt} attempts",
                        error_text=str(exc),
                        raw_text=raw_text,
                        usage=tally.usage(),
                    ) from exc
                messages.append({"role": "assistant", "content": raw_text})
                messages.append({"role": "user", "content": repair_instruction(str(exc))})
                continue
            return LLMResult(value=value, usage=tally.usage(), raw_text=raw_text)

        raise AssertionError("unreachable: the loop returns or raises")  # pragma: no cover
