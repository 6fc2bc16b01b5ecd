"""STRATAGATE_LLM_FROM_PROXY: with no model configured, a namespace's memory is processed by the
model its proxied requests used last, through the proxy's upstream; off by default."""

from __future__ import annotations

import pytest

from memory.models import Block, BlockStatus, ModelCall
from memory.selectors.processing_model import processing_model
from memory.services.jobs import jobs_drain
from tests.fakes.model_upstream import Answer, Call, Seen
from tests.fakes.openai_server import schema_stub
from tests.proxy.conftest import namespace

pytestmark = pytest.mark.django_db(transaction=True)


def structured(seen: Seen) -> Answer:
    """A model that answers a forced-tool request with a valid stub, else plain text."""
    body = seen.json
    if body.get("tool_choice", {}).get("type") == "tool":
        tool = body["tools"][0]
        return Answer(tool_calls=[Call("t", tool["name"], schema_stub(tool["input_schema"]))])
    return Answer(f"answer {len(body['messages'])}")


def test_off_by_default_and_why(proxy, upstream, settings):
    proxy.anthropic().messages.create(
        model="claude-x", max_tokens=5, messages=[{"role": "user", "content": "hi"}]
    )
    proxy.settle()
    ns = namespace()
    assert processing_model(ns.pk).why == "no_model"
    settings.STRATAGATE_LLM_FROM_PROXY = True
    chosen = processing_model(ns.pk)
    assert (chosen.why, chosen.protocol, chosen.model, chosen.mode) == (
        "proxy",
        "anthropic",
        "claude-x",
        "model",
    )
    settings.STRATAGATE_LLM_BASE_URL, settings.STRATAGATE_LLM_MODEL = (
        "http://llm.local/v1",
        "local-model",
    )
    assert processing_model(ns.pk).why == "configured"  # a configured model always wins


def test_before_any_proxied_request_memory_stays_offline(transactional_db, settings):
    from memory.services.namespaces import namespace_get_or_create

    settings.STRATAGATE_LLM_FROM_PROXY = True
    ns = namespace_get_or_create(name="quiet")
    assert (processing_model(ns.pk).why, processing_model(ns.pk).mode) == (
        "no_proxied_request",
        "offline",
    )


def test_blocks_are_processed_with_the_namespaces_latest_anthropic_model(proxy, upstream, settings):
    settings.STRATAGATE_LLM_FROM_PROXY = True
    upstream.script(*[structured] * 40)
    client = proxy.anthropic(default_headers={"X-StrataGate-Session": "work"})
    history: list[dict] = []
    for n in range(6):  # a block's worth of turns
        history.append({"role": "user", "content": f"Step {n} of the migration to PostgreSQL."})
        reply = client.messages.create(model="claude-sonnet-x", max_tokens=100, messages=history)
        history.append({"role": "assistant", "content": reply.content[0].text})
    proxy.settle()
    jobs_drain()
    block = Block.objects.get()
    assert block.status == BlockStatus.READY
    calls = list(ModelCall.objects.values_list("kind", "model", "ok"))
    assert calls and all(model == "claude-sonnet-x" and ok for _, model, ok in calls)
    processing = [s for s in upstream.model_requests() if s.json.get("tool_choice")]
    headers = processing[0].headers if processing else {}
    assert "sk-ant-server-key-0000" in (
        headers.get("x-api-key"),
        headers.get("authorization", "")[7:],
    )
