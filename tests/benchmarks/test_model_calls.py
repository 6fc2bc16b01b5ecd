"""benchmarks/model_calls.py counts the requests the pipeline sends to a configured model; its
fake answers the block call like a model that finds an event, so later jobs run too."""

from __future__ import annotations

import json
from typing import Any

import model_calls
import pytest

from memory.models import Event, ModelCall
from tests.fakes.openai_server import FakeOpenAIServer


@pytest.fixture
def model(settings: Any, fake_openai: FakeOpenAIServer) -> FakeOpenAIServer:
    settings.STRATAGATE_LLM_BASE_URL = fake_openai.base_url
    settings.STRATAGATE_LLM_MODEL = "fake-model"
    settings.STRATAGATE_LLM_API_KEY = "sk-test"
    fake_openai.default = model_calls.block_reply
    return fake_openai


@pytest.mark.django_db
def test_requests_per_turn_are_counted_at_the_server(model: FakeOpenAIServer) -> None:
    figures = model_calls.measure(18, model)
    assert (figures["turns"], figures["expected_blocks"], figures["blocks_ready"]) == (18, 3, 3)
    assert figures["failed_jobs"] == 0
    assert figures["http_requests"] == model.calls >= 3  # at least one call per block
    assert figures["model_calls"] == ModelCall.objects.count()
    assert sum(figures["model_calls_by_kind"].values()) == figures["model_calls"]
    assert figures["requests_per_turn"] == round(model.calls / 18, 4)
    assert figures["goal_met"] is (model.calls / 18 <= 0.25)
    # The reply's event was accepted: one per block, citing that block's first two messages.
    events = list(Event.objects.order_by("pk"))
    assert len(events) == figures["events"] == 3
    assert all(e.source_messages.count() == 2 for e in events)


def test_the_reply_fills_the_block_call_and_stubs_the_rest() -> None:
    block_request = {
        "messages": [
            {"role": "system", "content": "…"},
            {
                "role": "user",
                "content": json.dumps(
                    {"target_block_messages": [{"id": 7, "content": "Use pnpm from now on"}]}
                ),
            },
        ],
        "response_format": {
            "json_schema": {
                "schema": {"properties": {"title": {"type": "string"}, "events": {"type": "array"}}}
            }
        },
    }
    answer = json.loads(model_calls.block_reply(block_request))
    assert answer["should_extract"] is True
    assert answer["events"][0]["source_message_ids"] == [7]
    assert answer["events"][0]["quotes"] == ["Use pnpm from now on"]
    other = {
        "messages": [{"role": "user", "content": "ping"}],
        "response_format": {"json_schema": {"schema": {"properties": {"ok": {"type": "boolean"}}}}},
    }
    assert json.loads(model_calls.block_reply(other)) == {"ok": False}
