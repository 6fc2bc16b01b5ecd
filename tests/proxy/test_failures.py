"""Failures on either side: memory failing fails open, the upstream failing is relayed as it
came (or as 502/504), a cut stream stores nothing, a client leaving cancels the upstream, a
capture that fails is kept and retried, and no key or secret leaks."""

from __future__ import annotations

import logging
import socket
import time

import anthropic
import httpx2
import openai
import pytest
from django.apps import apps
from django.db import OperationalError

from memory.models import Activation, ExchangeState, Message, ProxyCounter, ProxyExchange, Turn
from proxy import memory as proxy_memory
from proxy import spool
from proxy.stats import STATS
from tests.fakes.model_upstream import Answer
from tests.proxy.test_injection import QUESTION, remember

pytestmark = pytest.mark.django_db(transaction=True)

HELLO = [{"role": "user", "content": "hello there"}]


def counters() -> dict[str, int]:
    STATS.flush()
    return dict(ProxyCounter.objects.values_list("name", "count"))


def states() -> list[str]:
    return list(ProxyExchange.objects.order_by("id").values_list("state", flat=True))


@pytest.mark.parametrize(
    ("status", "error"),
    [
        (400, openai.BadRequestError),
        (429, openai.RateLimitError),
        (500, openai.InternalServerError),
    ],
)
def test_upstream_errors_reach_the_openai_sdk_as_they_came(proxy, upstream, status, error):
    body = {"error": {"message": f"upstream says {status}", "type": "x", "code": "upstream_code"}}
    upstream.script(
        Answer(status=status, error=body, headers={"retry-after": "7", "x-request-id": "req_1"})
    )
    with pytest.raises(error) as raised:
        proxy.openai().chat.completions.create(model="m", messages=HELLO)
    assert raised.value.status_code == status
    assert raised.value.body == body["error"]
    assert raised.value.response.headers["retry-after"] == "7"
    assert raised.value.response.headers["x-request-id"] == "req_1"
    proxy.settle()
    assert Turn.objects.count() == 0
    assert states() == [ExchangeState.UPSTREAM_ERROR]
    assert counters()[f"upstream_error:{status}"] == 1


def test_upstream_errors_reach_the_anthropic_sdk_as_they_came(proxy, upstream):
    upstream.script(Answer(status=429, headers={"retry-after": "3"}))
    client = proxy.anthropic()
    with (
        pytest.raises(anthropic.RateLimitError) as raised,
        client.messages.stream(model="c", max_tokens=5, messages=HELLO) as stream,
    ):
        stream.get_final_message()
    assert raised.value.body["error"]["type"] == "rate_limit_error"
    assert raised.value.response.headers["retry-after"] == "3"


def _closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def test_an_unreachable_upstream_is_502_and_a_slow_one_504(proxy, settings, upstream):
    good = settings.STRATAGATE_PROXY_OPENAI_URL
    settings.STRATAGATE_PROXY_OPENAI_URL = f"http://127.0.0.1:{_closed_port()}/v1"
    with pytest.raises(openai.InternalServerError) as raised:
        proxy.openai().chat.completions.create(model="m", messages=HELLO)
    assert (raised.value.status_code, raised.value.code) == (502, "proxy_upstream_unreachable")
    with pytest.raises(anthropic.AuthenticationError):  # the other protocol is unaffected
        anthropic.Anthropic(
            base_url=proxy.anthropic_base, api_key="sg_x", max_retries=0
        ).messages.create(model="c", max_tokens=5, messages=HELLO)
    settings.STRATAGATE_PROXY_OPENAI_URL = good
    settings.STRATAGATE_PROXY_READ_TIMEOUT_SECONDS = 0.5
    from proxy import upstream as connection

    connection._clients.clear()  # a new client with the new timeout
    upstream.script(Answer("too late", delay=2))
    with pytest.raises(openai.InternalServerError) as raised:
        proxy.openai().chat.completions.create(model="m", messages=HELLO)
    assert (raised.value.status_code, raised.value.code) == (504, "proxy_upstream_timeout")
    proxy.settle()
    assert Turn.objects.count() == 0


def test_a_stream_cut_midway_is_an_error_and_stores_nothing(proxy, upstream):
    upstream.script(Answer("this answer will never finish properly", cut_after=3))
    received = []
    with pytest.raises(openai.APIError) as raised:
        for chunk in proxy.openai().chat.completions.create(model="m", messages=HELLO, stream=True):
            received.append(chunk.choices[0].delta.content)
    assert received == ["", "this ", "answer "]  # what arrived was relayed before the error
    assert raised.value.body["code"] == "proxy_upstream_stream_cut"
    upstream.script(Answer("cut too", cut_after=4))
    client = proxy.anthropic()
    with (
        pytest.raises(anthropic.APIStatusError),
        client.messages.stream(model="c", max_tokens=5, messages=HELLO) as stream,
    ):
        stream.get_final_message()
    proxy.settle()
    assert Turn.objects.count() == 0
    assert states() == [ExchangeState.INCOMPLETE, ExchangeState.INCOMPLETE]
    assert counters()["stream_cut"] == 2


def test_a_client_that_leaves_mid_stream_cancels_the_upstream_within_a_second(proxy, upstream):
    upstream.script(Answer("a long answer", hang=20))
    with (
        httpx2.Client(timeout=10) as http,
        http.stream(
            "POST",
            f"{proxy.openai_base}/chat/completions",
            headers={"authorization": f"Bearer {proxy.token}"},
            json={"model": "m", "messages": HELLO, "stream": True},
        ) as response,
    ):
        first = next(response.iter_bytes())
        assert first.startswith(b"data: ")
        left = time.monotonic()
    assert upstream.client_left.wait(5)
    assert time.monotonic() - left < 1.0
    proxy.settle()
    assert Turn.objects.count() == 0
    assert states() == [ExchangeState.INCOMPLETE]
    assert counters()["client_disconnected"] == 1


def test_a_broken_database_fails_open(proxy, upstream, monkeypatch):
    def broken(*args, **kwargs):
        raise OperationalError("database is locked")

    remember()
    monkeypatch.setattr(proxy_memory, "exchange_open", broken)
    raw = proxy.openai().chat.completions.with_raw_response.create(
        model="m", messages=[{"role": "user", "content": QUESTION}]
    )
    assert raw.parse().choices[0].message.content == "ok"
    assert raw.headers["x-stratagate-memory"] == "degraded; reason=database_error"
    assert upstream.last.json["messages"] == [{"role": "user", "content": QUESTION}]  # no memory
    proxy.settle()
    # Capture had its own way to the session: the turn is stored all the same.
    assert Turn.objects.filter(session__proxy__isnull=False).count() == 1
    assert counters()["degraded:database_error"] == 1


def test_a_failed_capture_is_spooled_and_stored_by_the_retry(
    proxy, upstream, monkeypatch, settings, tmp_path
):
    settings.DATA_DIR = tmp_path

    def broken(capture):
        raise OperationalError("disk I/O error")

    monkeypatch.setattr(proxy_memory, "proxy_turn_capture", broken)
    reply = proxy.openai().chat.completions.create(model="m", messages=HELLO)
    assert reply.choices[0].message.content == "ok"  # the answer is never broken by capture
    proxy.settle()
    assert Turn.objects.count() == 0
    waiting = list((tmp_path / "proxy-spool").glob("*.json"))
    assert len(waiting) == 1 and waiting[0].stat().st_mode & 0o777 == 0o600
    assert states() == [ExchangeState.CAPTURE_FAILED]
    monkeypatch.undo()
    assert spool.spool_retry() == (1, 0)
    assert list(Message.objects.values_list("content", flat=True)) == ["hello there", "ok"]
    assert list((tmp_path / "proxy-spool").glob("*.json")) == []
    assert states() == [ExchangeState.CAPTURED]
    found = counters()
    assert (found["capture_failed"], found["capture_retried"]) == (1, 1)


def test_a_slow_injection_is_given_up_at_its_deadline(proxy, upstream, monkeypatch, settings):
    settings.STRATAGATE_PROXY_INJECT_DEADLINE_MS = 100
    remember()
    real = proxy_memory.injection_build

    def slow(*args, **kwargs):
        time.sleep(0.8)
        return real(*args, **kwargs)

    monkeypatch.setattr(proxy_memory, "injection_build", slow)
    started = time.monotonic()
    raw = proxy.openai().chat.completions.with_raw_response.create(
        model="m", messages=[{"role": "user", "content": QUESTION}]
    )
    assert upstream.last.at - started < 0.6  # forwarded at the deadline, not after the build
    assert raw.headers["x-stratagate-memory"] == "degraded; reason=injection_timeout"
    assert raw.headers["x-stratagate-injected-tokens"] == "0"
    assert upstream.last.json["messages"] == [{"role": "user", "content": QUESTION}]
    proxy.settle()
    time.sleep(0.8)
    assert Activation.objects.count() == 0  # built too late: not recorded as injected
    exchange = ProxyExchange.objects.get()
    assert (exchange.degraded_reason, exchange.injected_text, exchange.state) == (
        "injection_timeout",
        "",
        ExchangeState.CAPTURED,
    )


def _every_stored_value() -> str:
    dump = []
    for model in apps.get_app_config("memory").get_models():
        dump += [str(row) for row in model.objects.values()]
    return "\n".join(dump)


def test_the_provider_key_is_never_stored_or_logged_and_secrets_leave_redacted(
    proxy, upstream, caplog
):
    caplog.set_level(logging.DEBUG)
    secret = "sk-proj-ABCDEFGHIJKLMNOPQRSTUVWX1234567890"
    remember(text=f"Billing deploys with the key {secret} on PostgreSQL 16, said Priya.")
    client = openai.OpenAI(
        base_url=proxy.openai_base,
        api_key="sk-users-own-provider-key-000111222",
        default_headers={"X-StrataGate-Token": proxy.token},
        max_retries=0,
    )
    client.chat.completions.create(model="m", messages=[{"role": "user", "content": QUESTION}])
    memory = upstream.last.json["messages"][0]["content"]
    assert "PostgreSQL 16" in memory and secret not in memory and "[REDACTED]" in memory
    assert upstream.last.headers["authorization"] == "Bearer sk-users-own-provider-key-000111222"
    proxy.settle()
    stored = _every_stored_value()
    assert "sk-users-own-provider-key-000111222" not in stored
    assert proxy.token not in stored
    assert "sk-users-own-provider-key-000111222" not in caplog.text
    assert proxy.token not in caplog.text
