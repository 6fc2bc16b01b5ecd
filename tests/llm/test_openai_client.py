"""The real `openai` SDK against a local HTTP server: parsing, repair, errors, usage (SPEC §12)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from pydantic import ValidationError

from memory.engine.prompts import BlockViewsOut
from memory.llm import (
    LLMClient,
    LLMOutputError,
    LLMTransportError,
    OpenAICompatibleClient,
    llm_client_from_config,
)

# Imported so the module also runs without the project conftest (--noconftest).
from tests.fakes.fixtures import fake_openai as fake_openai
from tests.fakes.openai_server import FakeOpenAIServer, FakeReply

VALID: dict[str, Any] = {
    "title": "Storage choice",
    "tags": ["postgres", "storage"],
    "summary": "The user chose Postgres for storage.",
    "key_points": ["The user decided to use Postgres for storage."],
    "should_extract": True,
}


def answer(**changes: Any) -> str:
    return json.dumps({**VALID, **changes})


def client_for(server: FakeOpenAIServer, **kwargs: Any) -> OpenAICompatibleClient:
    return OpenAICompatibleClient(
        base_url=server.base_url, api_key="sk-test", model="fake-model", **kwargs
    )


def complete(client: OpenAICompatibleClient) -> Any:
    return client.complete_structured(
        kind="block_views", system="compress", user="User: hi", output_model=BlockViewsOut
    )


def test_valid_json_answer_is_validated_and_usage_recorded(fake_openai: FakeOpenAIServer) -> None:
    fake_openai.script(
        [FakeReply(content=answer(), usage={"prompt_tokens": 11, "completion_tokens": 7})]
    )

    result = complete(client_for(fake_openai))

    assert result.value == BlockViewsOut.model_validate(VALID)
    assert result.raw_text == answer()
    assert (result.usage.prompt_tokens, result.usage.completion_tokens) == (11, 7)
    assert result.usage.total_tokens == 18
    assert result.usage.attempts == 1
    assert result.usage.model == "fake-model"
    assert result.usage.latency_ms >= 0
    assert fake_openai.calls == 1


def test_request_carries_json_schema_and_both_messages(fake_openai: FakeOpenAIServer) -> None:
    fake_openai.script([answer()])

    complete(client_for(fake_openai))

    request = fake_openai.requests[0]
    assert request["model"] == "fake-model"
    assert request["messages"] == [
        {"role": "system", "content": "compress"},
        {"role": "user", "content": "User: hi"},
    ]
    fmt = request["response_format"]
    assert fmt["type"] == "json_schema"
    assert fmt["json_schema"]["name"] == "BlockViewsOut"
    assert fmt["json_schema"]["strict"] is False
    assert fmt["json_schema"]["schema"] == BlockViewsOut.model_json_schema()
    assert fake_openai.headers[0]["authorization"] == "Bearer sk-test"


def test_malformed_json_is_repaired_on_the_second_attempt(fake_openai: FakeOpenAIServer) -> None:
    fake_openai.script(["{title: oops", answer()])

    result = complete(client_for(fake_openai))

    assert result.value.title == "Storage choice"
    assert result.usage.attempts == 2
    assert fake_openai.calls == 2
    repair_request = fake_openai.requests[1]["messages"]
    assert repair_request[:2] == fake_openai.requests[0]["messages"]
    assert repair_request[2] == {"role": "assistant", "content": "{title: oops"}
    assert repair_request[3]["role"] == "user"
    assert "not valid JSON" in repair_request[3]["content"]
    assert "Expecting property name enclosed in double quotes" in repair_request[3]["content"]


def test_usage_sums_tokens_over_both_attempts(fake_openai: FakeOpenAIServer) -> None:
    usage = {"prompt_tokens": 10, "completion_tokens": 3}
    fake_openai.script(
        [FakeReply(content="nope", usage=usage), FakeReply(content=answer(), usage=usage)]
    )

    result = complete(client_for(fake_openai))

    assert (result.usage.prompt_tokens, result.usage.completion_tokens) == (20, 6)


def test_malformed_twice_raises_transient_output_error_after_two_calls(
    fake_openai: FakeOpenAIServer,
) -> None:
    fake_openai.script(["not json", "still not json"])

    with pytest.raises(LLMOutputError) as caught:
        complete(client_for(fake_openai))

    assert fake_openai.calls == 2
    error = caught.value
    assert error.permanent is False
    assert error.attempts == 2 and error.usage.attempts == 2
    assert error.raw_preview == "still not json"
    assert "not valid JSON" in error.error_text
    assert "not valid JSON" in str(error)


def test_output_error_preview_is_bounded_but_error_text_is_complete(
    fake_openai: FakeOpenAIServer,
) -> None:
    long_bad = json.dumps({**VALID, "title": ""}) + " " + "x" * 5_000
    fake_openai.script([long_bad, long_bad])

    with pytest.raises(LLMOutputError) as caught:
        complete(client_for(fake_openai))

    assert len(caught.value.raw_preview) == 2_000
    assert long_bad.startswith(caught.value.raw_preview[:-1])
    assert "title" in caught.value.error_text
    assert "must not be empty" in caught.value.error_text


def test_json_object_wrapped_in_prose_is_accepted_without_repair(
    fake_openai: FakeOpenAIServer,
) -> None:
    fake_openai.script([f"Here is the memory block:\n{answer()}\nHope this helps!"])

    result = complete(client_for(fake_openai))

    assert result.value == BlockViewsOut.model_validate(VALID)
    assert fake_openai.calls == 1


@pytest.mark.parametrize(
    "content",
    [
        f"```json\n{answer()}\n```",
        f"```\n{answer()}\n```",
        f"  \n```JSON\n{answer()}```\n",
    ],
)
def test_fenced_json_is_accepted_without_repair(
    fake_openai: FakeOpenAIServer, content: str
) -> None:
    fake_openai.script([content])

    result = complete(client_for(fake_openai))

    assert result.value == BlockViewsOut.model_validate(VALID)
    assert fake_openai.calls == 1


def test_empty_title_is_sent_back_for_repair(fake_openai: FakeOpenAIServer) -> None:
    fake_openai.script([answer(title="   "), answer()])

    result = complete(client_for(fake_openai))

    assert result.value.title == "Storage choice"
    repair = fake_openai.requests[1]["messages"][-1]["content"]
    assert "title" in repair and "must not be empty" in repair


def test_string_should_extract_is_rejected_twice_then_output_error(
    fake_openai: FakeOpenAIServer,
) -> None:
    fake_openai.script([answer(should_extract="yes"), answer(should_extract="true")])

    with pytest.raises(LLMOutputError) as caught:
        complete(client_for(fake_openai))

    assert "should_extract" in caught.value.error_text
    assert "should_extract" in fake_openai.requests[1]["messages"][-1]["content"]


def test_missing_field_and_non_object_answers_fail_validation(
    fake_openai: FakeOpenAIServer,
) -> None:
    without_summary = {k: v for k, v in VALID.items() if k != "summary"}
    fake_openai.script([json.dumps(without_summary), "[1, 2, 3]"])

    with pytest.raises(LLMOutputError) as caught:
        complete(client_for(fake_openai))

    assert "summary" in fake_openai.requests[1]["messages"][-1]["content"]
    assert "valid dictionary" in caught.value.error_text


def test_empty_content_counts_as_malformed(fake_openai: FakeOpenAIServer) -> None:
    fake_openai.script(["", answer()])

    result = complete(client_for(fake_openai))

    assert result.usage.attempts == 2
    assert "empty" in fake_openai.requests[1]["messages"][-1]["content"]


@pytest.mark.parametrize("status", [500, 502, 503, 429, 408])
def test_server_errors_are_transient_and_not_retried_by_the_sdk(
    fake_openai: FakeOpenAIServer, status: int
) -> None:
    fake_openai.script([status])

    with pytest.raises(LLMTransportError) as caught:
        complete(client_for(fake_openai))

    assert caught.value.permanent is False
    assert caught.value.status_code == status
    assert caught.value.code == f"llm_http_{status}"
    assert fake_openai.calls == 1


@pytest.mark.parametrize("status", [400, 401, 403, 404])
def test_client_errors_are_permanent(fake_openai: FakeOpenAIServer, status: int) -> None:
    fake_openai.script([status])

    with pytest.raises(LLMTransportError) as caught:
        complete(client_for(fake_openai))

    assert caught.value.permanent is True
    assert str(status) in str(caught.value)
    assert fake_openai.calls == 1


def test_timeout_is_transient(fake_openai: FakeOpenAIServer) -> None:
    fake_openai.script([FakeReply(content=answer(), delay=1.0)])

    with pytest.raises(LLMTransportError) as caught:
        complete(client_for(fake_openai, timeout=0.2))

    assert caught.value.permanent is False
    assert caught.value.code == "llm_timeout"


def test_a_response_body_cut_off_is_a_transient_transport_error(
    fake_openai: FakeOpenAIServer,
) -> None:
    # HTTP 200 whose JSON body stops half-way: the SDK raises a bare JSONDecodeError.
    fake_openai.script([FakeReply(content=answer(), truncate_body=True)])

    with pytest.raises(LLMTransportError) as caught:
        complete(client_for(fake_openai))

    assert caught.value.permanent is False
    assert caught.value.code == "llm_bad_response"
    assert "unreadable response: JSONDecodeError(" in str(caught.value)
    assert fake_openai.calls == 1


def test_unreachable_endpoint_is_transient() -> None:
    with FakeOpenAIServer() as server:
        base_url = server.base_url
    client = OpenAICompatibleClient(base_url=base_url, api_key=None, model="m", timeout=2.0)

    with pytest.raises(LLMTransportError) as caught:
        complete(client)

    assert caught.value.permanent is False
    assert caught.value.code == "llm_unreachable"


def test_missing_api_key_never_falls_back_to_the_environment(
    fake_openai: FakeOpenAIServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-real-secret")
    fake_openai.script([answer()])
    client = OpenAICompatibleClient(base_url=fake_openai.base_url, api_key=None, model="m")

    complete(client)

    assert "sk-real-secret" not in fake_openai.headers[0]["authorization"]


def test_default_responder_satisfies_the_requested_schema(fake_openai: FakeOpenAIServer) -> None:
    result = complete(client_for(fake_openai))

    assert result.value.should_extract is False
    assert result.value.title


def test_callable_script_items_see_the_request(fake_openai: FakeOpenAIServer) -> None:
    fake_openai.script([lambda request: answer(title=request["messages"][1]["content"])])

    result = complete(client_for(fake_openai))

    assert result.value.title == "User: hi"


def test_factory_returns_none_without_model_or_base_url() -> None:
    assert llm_client_from_config(None, None, None) is None
    assert llm_client_from_config("http://127.0.0.1:1/v1", "k", None) is None
    assert llm_client_from_config(None, "k", "gpt") is None
    assert llm_client_from_config("  ", "k", "gpt") is None
    assert llm_client_from_config("http://127.0.0.1:1/v1", None, "  ") is None


def test_factory_builds_a_model_mode_client(fake_openai: FakeOpenAIServer) -> None:
    fake_openai.script([answer()])

    client = llm_client_from_config(fake_openai.base_url, "", "fake-model")

    assert isinstance(client, LLMClient)
    assert client.mode == "model"
    assert client.complete_structured(
        kind="block_views", system="s", user="u", output_model=BlockViewsOut
    ).value == BlockViewsOut.model_validate(VALID)


def test_block_views_out_normalises_fields() -> None:
    out = BlockViewsOut(
        title="  " + "T" * 200,
        tags=[" Postgres ", "", "postgres", *[f"t{i}" for i in range(20)]],
        summary=" s " + "x" * 3_000,
        key_points=[" a ", "  ", *["p"] * 30],
        should_extract=False,
    )

    assert out.title == "T" * 120
    assert out.tags[:2] == ["Postgres", "t0"] and len(out.tags) == 12
    assert len(out.summary) == 2_000 and out.summary.startswith("s x")
    assert out.key_points[0] == "a" and len(out.key_points) == 20


@pytest.mark.parametrize(
    "changes",
    [{"title": " "}, {"summary": ""}, {"should_extract": "yes"}, {"should_extract": 1}],
)
def test_block_views_out_rejects_invalid_fields(changes: dict[str, Any]) -> None:
    with pytest.raises(ValidationError):
        BlockViewsOut.model_validate({**VALID, **changes})
