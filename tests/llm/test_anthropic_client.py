"""The Anthropic Messages client (memory processed with the proxy's Anthropic upstream): a forced
tool carries the structured answer, one repair round-trip, errors classified as for OpenAI."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from pydantic import BaseModel

from memory.llm.anthropic_client import AnthropicClient
from memory.llm.errors import LLMOutputError, LLMTransportError
from memory.llm.factory import llm_client_from_config
from tests.fakes.model_upstream import Answer, Call, FakeUpstream


class Verdict(BaseModel):
    title: str
    score: int


@pytest.fixture
def upstream() -> Iterator[FakeUpstream]:
    with FakeUpstream() as fake:
        yield fake


def client(upstream: FakeUpstream) -> AnthropicClient:
    return AnthropicClient(
        base_url=upstream.url, api_key="sk-ant-x", model="claude-test", timeout=5
    )


def test_the_answer_is_the_forced_tools_input(upstream: FakeUpstream) -> None:
    upstream.script(Answer(tool_calls=[Call("t1", "Verdict", {"title": "ok", "score": 3})]))
    result = client(upstream).complete_structured(
        kind="block_views", system="Be exact.", user="Judge this.", output_model=Verdict
    )
    assert result.value == Verdict(title="ok", score=3)
    assert (result.usage.prompt_tokens, result.usage.completion_tokens, result.usage.attempts) == (
        11,
        7,
        1,
    )
    body = upstream.last.json
    assert body["tool_choice"] == {"type": "tool", "name": "Verdict"}
    assert body["tools"][0]["input_schema"] == Verdict.model_json_schema()
    assert body["system"] == "Be exact."
    assert body["messages"] == [{"role": "user", "content": "Judge this."}]
    headers = upstream.last.headers  # the header this SDK version sends the key in
    assert "sk-ant-x" in (headers.get("x-api-key"), headers.get("authorization", "")[7:])


def test_an_invalid_answer_is_repaired_once(upstream: FakeUpstream) -> None:
    upstream.script(
        Answer(tool_calls=[Call("t1", "Verdict", {"title": "ok", "score": "many"})]),
        Answer(tool_calls=[Call("t2", "Verdict", {"title": "ok", "score": 2})]),
    )
    result = client(upstream).complete_structured(
        kind="k", system="s", user="u", output_model=Verdict
    )
    assert result.value.score == 2 and result.usage.attempts == 2
    repair = upstream.last.json["messages"]
    assert [m["role"] for m in repair] == ["user", "assistant", "user"]
    assert "score" in repair[2]["content"]


def test_twice_invalid_is_an_output_error(upstream: FakeUpstream) -> None:
    upstream.script(Answer("no tool at all"), Answer("still none"))
    with pytest.raises(LLMOutputError) as raised:
        client(upstream).complete_structured(kind="k", system="s", user="u", output_model=Verdict)
    assert raised.value.attempts == 2 and not raised.value.permanent


@pytest.mark.parametrize(("status", "permanent"), [(401, True), (429, False), (500, False)])
def test_transport_errors_are_classified(
    upstream: FakeUpstream, status: int, permanent: bool
) -> None:
    upstream.script(Answer(status=status))
    with pytest.raises(LLMTransportError) as raised:
        client(upstream).complete_structured(kind="k", system="s", user="u", output_model=Verdict)
    assert (raised.value.status_code, raised.value.permanent) == (status, permanent)


def test_the_factory_builds_either_protocol(upstream: FakeUpstream) -> None:
    built = llm_client_from_config(upstream.url, "k", "claude", protocol="anthropic")
    assert isinstance(built, AnthropicClient) and built.model == "claude"
    assert llm_client_from_config(upstream.url, None, "", protocol="anthropic") is None
    with pytest.raises(ValueError):
        llm_client_from_config(upstream.url, None, "m", protocol="gemini")
