"""Access is decided first, as in the API (401, 404 `namespace_not_found`, 403), and every error
the proxy answers itself is written in the client's protocol, so each SDK raises its usual
exception class."""

from __future__ import annotations

import anthropic
import httpx2
import openai
import pytest
from django.utils import timezone

from memory.models import AgentToken, ProxyExchange, Turn
from memory.services.tokens import token_create

pytestmark = pytest.mark.django_db(transaction=True)

HELLO = [{"role": "user", "content": "hello"}]


def openai_client(proxy, key: str, namespace: str = "proj", **kw) -> openai.OpenAI:
    kw.setdefault("max_retries", 0)
    return openai.OpenAI(base_url=f"{proxy.url}/proxy/{namespace}/openai/v1", api_key=key, **kw)


def anthropic_client(proxy, key: str, namespace: str = "proj", **kw) -> anthropic.Anthropic:
    kw.setdefault("max_retries", 0)
    return anthropic.Anthropic(
        base_url=f"{proxy.url}/proxy/{namespace}/anthropic", api_key=key, **kw
    )


def ask_openai(client: openai.OpenAI) -> None:
    client.chat.completions.create(model="m", messages=HELLO)


def ask_anthropic(client: anthropic.Anthropic) -> None:
    client.messages.create(model="m", max_tokens=5, messages=HELLO)


def test_an_unknown_token_is_401_in_both_protocols(proxy, upstream):
    with pytest.raises(openai.AuthenticationError) as raised:
        ask_openai(openai_client(proxy, "sg_deadbeef_nope"))
    assert raised.value.code == "unauthorized"
    with pytest.raises(anthropic.AuthenticationError) as caught:
        ask_anthropic(anthropic_client(proxy, "sg_deadbeef_nope"))
    assert caught.value.body["error"]["code"] == "unauthorized"
    assert upstream.seen == []


def test_a_provider_key_without_a_stratagate_token_is_401(proxy, upstream):
    with pytest.raises(openai.AuthenticationError):
        ask_openai(openai_client(proxy, "sk-real-provider-key"))
    assert upstream.seen == []


def test_a_revoked_token_is_refused_at_once(proxy, upstream):
    ask_openai(proxy.openai())
    AgentToken.objects.update(revoked_at=timezone.now())
    with pytest.raises(openai.AuthenticationError):
        ask_openai(proxy.openai())
    assert len(upstream.model_requests()) == 1


def test_foreign_and_unknown_namespaces_look_the_same(proxy, upstream):
    token_create(namespaces=["elsewhere"], scope="read-write")
    bodies = []
    for name in ("elsewhere", "no-such-namespace"):
        with pytest.raises(openai.NotFoundError) as raised:
            ask_openai(openai_client(proxy, proxy.token, name))
        assert raised.value.code == "namespace_not_found"
        with pytest.raises(anthropic.NotFoundError):
            ask_anthropic(anthropic_client(proxy, proxy.token, name))
        bodies.append(raised.value.body["message"].replace(name, "X"))
    assert bodies[0] == bodies[1]
    assert upstream.seen == []


def test_a_read_only_token_is_403(proxy, upstream):
    _, reader = token_create(namespaces=["proj"], scope="read")
    with pytest.raises(openai.PermissionDeniedError) as raised:
        ask_openai(openai_client(proxy, reader))
    assert raised.value.code == "insufficient_scope"
    with pytest.raises(anthropic.PermissionDeniedError):
        ask_anthropic(anthropic_client(proxy, reader))


def test_access_comes_before_the_request_headers_are_judged(proxy, upstream):
    _, stranger = token_create(namespaces=["elsewhere"], scope="read-write")
    bad = {"X-StrataGate-Memory": "sometimes"}
    with pytest.raises(openai.NotFoundError):
        ask_openai(openai_client(proxy, stranger, default_headers=bad))
    with pytest.raises(openai.BadRequestError) as raised:
        ask_openai(openai_client(proxy, proxy.token, default_headers=bad))
    assert raised.value.code == "invalid_proxy_header"
    with pytest.raises(openai.BadRequestError) as raised:
        ask_openai(
            openai_client(proxy, proxy.token, default_headers={"X-StrataGate-Session": "x" * 201})
        )
    assert raised.value.code == "invalid_session_id"
    assert upstream.seen == []


def test_an_unconfigured_upstream_is_503_naming_the_variable_and_not_retried(
    proxy, settings, upstream
):
    settings.STRATAGATE_PROXY_ANTHROPIC_URL = ""
    response = httpx2.post(
        f"{proxy.anthropic_base}/v1/messages",
        headers={"x-api-key": proxy.token},
        json={"model": "m", "max_tokens": 5, "messages": HELLO},
    )
    assert response.status_code == 503
    assert response.headers["x-should-retry"] == "false"
    error = response.json()["error"]
    assert error["code"] == "proxy_upstream_not_configured"
    assert "STRATAGATE_PROXY_ANTHROPIC_URL" in error["message"]
    sent = []
    http = httpx2.Client(event_hooks={"request": [sent.append]})
    client = anthropic_client(proxy, proxy.token, max_retries=2, http_client=http)
    with pytest.raises(anthropic.InternalServerError):
        ask_anthropic(client)
    assert len(sent) == 1  # x-should-retry: false kept the SDK from retrying twice


def test_a_body_over_the_limit_is_413_without_reaching_the_upstream(proxy, settings, upstream):
    settings.STRATAGATE_PROXY_MAX_BODY_MB = 1
    with pytest.raises(openai.APIStatusError) as raised:
        proxy.openai().chat.completions.create(
            model="m", messages=[{"role": "user", "content": "x" * (1024 * 1024 + 10)}]
        )
    assert raised.value.status_code == 413
    assert upstream.seen == [] and Turn.objects.count() == 0


def test_paths_outside_the_two_bases_are_404(proxy):
    for path in ("/proxy/", "/proxy/proj", "/proxy/proj/gemini/v1/x", "/proxy/proj/openai/v2/chat"):
        response = httpx2.post(
            f"{proxy.url}{path}", headers={"authorization": f"Bearer {proxy.token}"}
        )
        assert response.status_code == 404, path
        assert response.json()["error"]["code"] == "not_found"


def test_memory_off_forwards_untouched_and_stores_nothing(proxy, upstream):
    client = proxy.openai(default_headers={"X-StrataGate-Memory": "off"})
    raw = client.chat.completions.with_raw_response.create(model="m", messages=HELLO)
    assert raw.headers["x-stratagate-memory"] == "off"
    assert "x-stratagate-session" not in raw.headers
    assert upstream.last.json == {"model": "m", "messages": HELLO}
    proxy.settle()
    assert Turn.objects.count() == 0 and ProxyExchange.objects.count() == 0


def test_capture_off_stores_no_turn(proxy, upstream):
    client = proxy.openai(default_headers={"X-StrataGate-Capture": "off"})
    client.chat.completions.create(model="m", messages=HELLO)
    proxy.settle()
    assert Turn.objects.count() == 0
    assert list(ProxyExchange.objects.values_list("state", flat=True)) == ["not_captured"]
