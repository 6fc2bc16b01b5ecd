"""The configured model client: STRATAGATE_LLM_TIMEOUT_SECONDS bounds every request."""

from __future__ import annotations

import time

import pytest
from pydantic import BaseModel

from memory.llm import LLMTransportError
from memory.services.llm_runtime import llm_client
from tests.fakes.openai_server import FakeOpenAIServer, FakeReply


class Answer(BaseModel):
    title: str


def test_a_model_slower_than_the_configured_timeout_fails_the_call_transiently(
    settings, fake_openai: FakeOpenAIServer
) -> None:
    settings.STRATAGATE_LLM_BASE_URL = fake_openai.base_url
    settings.STRATAGATE_LLM_MODEL = "fake-model"
    settings.STRATAGATE_LLM_TIMEOUT_SECONDS = 1
    fake_openai.script([FakeReply(content='{"title": "late"}', delay=3.0), '{"title": "t"}'])
    client = llm_client()
    assert client is not None

    started = time.monotonic()
    with pytest.raises(LLMTransportError) as caught:
        client.complete_structured(kind="k", system="s", user="u", output_model=Answer)
    assert time.monotonic() - started < 2.5
    assert (caught.value.code, caught.value.permanent) == ("llm_timeout", False)
    # The next request, answered in time, goes through.
    result = client.complete_structured(kind="k", system="s", user="u", output_model=Answer)
    assert result.value.title == "t"
