"""The session page's "What the model saw" for each proxied answer (docs/PROXY.md): the system
prompt in force, the blocks sent in place of earlier turns with their levels (linked), the
injected memory with its tokens, the memory rounds, the turn's messages and the history's tokens
native vs sent; its empty states; the usage audit's link to the right exchange; and the
namespace's access rules."""

from __future__ import annotations

import re
from html import unescape
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse

from memory.models import Block, NamespaceGrant, ProxyExchange, Role, Session
from memory.recall.events import EventSearch
from memory.selectors.blocks import block_display_list
from memory.services.activation import activation_build
from memory.services.adoption import UseRequest, usage_record
from memory.services.batches import caller_session
from memory.services.ingest import MessageIn, TurnIn, turn_ingest
from memory.services.jobs import jobs_drain
from memory.services.namespaces import namespace_get_or_create
from memory.services.retrieval import events_search
from memory.services.settings import memory_settings_update
from tests.browser.hostile import SCRIPT
from tests.graphui.proxy_support import proxied_session_create

pytestmark = pytest.mark.django_db

LONG = "数据库迁移计划：我们把账单分片迁到法兰克福。" * 20


@pytest.fixture
def ada(client: Client, django_user_model: Any) -> Client:
    client.force_login(django_user_model.objects.create_user("ada", is_staff=True))
    return client


@pytest.fixture
def talked() -> Session:
    """Namespace proj, session s1: 6 turns in blocks of 2, processed."""
    memory_settings_update(block_turns=2, block_lambda=1.0)
    namespace = namespace_get_or_create(name="proj")
    for n in range(1, 7):
        turn_ingest(
            namespace=namespace,
            turn=TurnIn(
                session_id="s1",
                receipt_id=f"s1-{n}",
                messages=[
                    MessageIn(
                        "user", f"Question {n}: we keep PostgreSQL? {LONG if n == 5 else ''}"
                    ),
                    MessageIn("assistant", f"Answer {n}: yes, PostgreSQL 16."),
                ],
            ),
        )
    jobs_drain()
    return Session.objects.get(namespace=namespace, external_id="s1")


def page(client: Client, **query: str) -> str:
    url = reverse("graphui:session", args=["proj", "s1"])
    return client.get(url, query).content.decode()


def panel(html: str, exchange_id: int) -> str:
    start = html.index(f'id="saw-{exchange_id}"')
    return html[start : html.index("</details>\n", html.index('saw-tokens"', start))]


def words(html: str) -> str:
    return " ".join(unescape(re.sub(r"<[^>]+>", " ", html)).split())


ROUNDS = [
    {
        "calls": [
            {
                "id": "c1",
                "name": "memory_search_events",
                "arguments": {"query": "database"},
                "status": 200,
                "ok": True,
                "result": {"batch_id": "b1", "events": [{"ref": "event:1"}], "truncated": True},
            },
            {
                "id": "c2",
                "name": "memory_assess",
                "arguments": {"verdict": SCRIPT},
                "status": 422,
                "ok": False,
                "result": {"error": {"code": "invalid_verdict"}},
            },
        ],
        "prompt_tokens": 800,
        "completion_tokens": 30,
    },
    {
        "calls": [
            {
                "id": "c3",
                "name": "memory_record_use",
                "arguments": {},
                "status": 200,
                "ok": True,
                "result": {"receipt_id": "r1"},
            }
        ],
        "prompt_tokens": 900,
        "completion_tokens": 12,
    },
]


def test_a_layered_injected_answer_shows_what_the_model_saw_in_order(
    ada: Client, talked: Session
) -> None:
    shown = block_display_list(session=talked)
    sent = [
        {
            "block_id": b.block.pk,
            "level": b.level,
            "first_turn": b.turn_range[0],
            "last_turn": b.turn_range[1],
            "tokens": 40 + n,
        }
        for n, b in enumerate(shown[:2])
    ]
    proxied_session_create(
        talked.namespace,
        "s1",
        exchanges=(
            {
                "turn": 6,
                "injected_text": "<memory>We use PostgreSQL 16.</memory>",
                "injected_tokens": 42,
                "history_blocks": sent,
                "history_native_tokens": 1000,
                "history_sent_tokens": 400,
                "memory_rounds": ROUNDS,
            },
        ),
    )
    exchange = ProxyExchange.objects.get()
    html = page(ada)
    saw = panel(html, exchange.pk)
    text = words(saw)
    assert "What the model saw · 2 blocks · 2 memory rounds · 400 of 1000 history tokens" in text
    # In the order the model received it.
    order = [
        "The agent's system prompt",
        "Earlier turns, sent as blocks",
        "Injected memory",
        "Memory rounds",
        "This turn, as stored",
        "Tokens",
    ]
    assert [text.index(h) for h in order] == sorted(text.index(h) for h in order)
    assert "Sent: system prompt 1 above" in text and 'href="#system-prompt-1"' in saw
    for block in sent:
        url = f"/ns/proj/blocks/{block['block_id']}/?level={block['level']}"
        assert f'href="{url}"' in saw
        first, last = block["first_turn"], block["last_turn"]
        assert f"block {block['block_id']} · turns {first}–{last} · L{block['level']}" in text
    assert "Memory injected: 42 tokens" in text and "<memory>We use PostgreSQL 16.</memory>" in text
    assert "at most 6 rounds" in text
    assert "Round 1 · 800 tokens in, 30 out" in text and "Round 2" in text
    assert "memory_search_events ✓ ok 200" in text
    assert '"query":"database"' in text and "(cut)" in text  # the proxy cut that result
    assert "memory_assess ✕ failed 422" in text and "invalid_verdict" in text
    assert SCRIPT not in html  # arguments are text, escaped
    assert "Question 6: we keep PostgreSQL?" in text and "Answer 6: yes, PostgreSQL 16." in text
    assert "Question 5" not in text  # only this turn's messages
    assert re.search(
        r"history as the agent sent it 1000 history as sent upstream 400 saved 600 "
        r"\(60%\) injected memory 42",
        text,
    )
    # Closed unless the usage audit asked for it.
    assert f'id="saw-{exchange.pk}" open' not in html
    assert f'id="saw-{exchange.pk}" open' in page(ada, saw=str(exchange.pk))


def test_an_answer_with_nothing_added_says_so_in_each_part(ada: Client, talked: Session) -> None:
    proxied_session_create(talked.namespace, "s1", system=(), exchanges=({"turn": 2},))
    exchange = ProxyExchange.objects.get()
    text = words(panel(page(ada), exchange.pk))
    assert "0 blocks · 0 memory rounds" in text
    assert "None stored up to this turn." in text
    assert "None: the earlier turns went as the agent sent them." in text
    assert "No memory injected." in text
    assert "No memory rounds." in text
    assert "The history went as the agent sent it (native); 0 tokens of memory were added." in text


def test_requests_without_their_turn_have_no_panel(ada: Client, talked: Session) -> None:
    proxied_session_create(
        talked.namespace, "s1", exchanges=({"state": "tool_step"}, {"state": "upstream_error"})
    )
    html = page(ada)
    assert "2 proxied requests" in html and 'class="model-saw"' not in html


def _receipt(session: Session, receipt_id: str) -> Any:
    namespace = session.namespace
    found = events_search(
        namespace=namespace, params=EventSearch(query="PostgreSQL", session_id="s1")
    )
    return usage_record(
        namespace=namespace,
        request=UseRequest(
            receipt_id=receipt_id,
            evidence_refs=[],
            batch_id=found.batch.public_id,
            session_id="s1",
            answer="yes",
        ),
    ).receipt


def test_the_usage_audit_links_to_the_exchange_of_its_receipt(ada: Client, talked: Session) -> None:
    proxied_session_create(
        talked.namespace,
        "s1",
        exchanges=({"turn": 4, "receipt_id": "proxy-r4"}, {"turn": 5, "receipt_id": "proxy-r5"}),
    )
    wanted = ProxyExchange.objects.get(receipt_id="proxy-r4")
    receipt = _receipt(talked, "proxy-r4")
    html = ada.get(reverse("graphui:receipt", args=["proj", receipt.pk])).content.decode()
    session_url = reverse("graphui:session", args=["proj", "s1"])
    link = f"{session_url}?saw={wanted.pk}#saw-{wanted.pk}"
    assert f'class="model-saw-link" href="{link}"' in html
    target = ada.get(link.split("#")[0]).content.decode()
    assert f'id="saw-{wanted.pk}" open' in target


def test_the_usage_audit_falls_back_to_the_activation_it_was_given(
    ada: Client, talked: Session
) -> None:
    activation = activation_build(
        namespace=talked.namespace,
        session=caller_session(talked.namespace, "s1"),
        query="PostgreSQL",
    )
    activation_id = activation.activation_id
    assert activation_id is not None
    proxied_session_create(
        talked.namespace,
        "s1",
        exchanges=({"turn": 3}, {"turn": 6, "activation_id": activation_id}),
    )
    wanted = ProxyExchange.objects.get(activation_id=activation_id)
    receipt = _receipt(talked, "not-a-proxy-receipt")
    html = ada.get(reverse("graphui:receipt", args=["proj", receipt.pk])).content.decode()
    assert f"?saw={wanted.pk}#saw-{wanted.pk}" in html


def test_a_receipt_that_did_not_come_through_the_proxy_has_no_link(
    ada: Client, talked: Session
) -> None:
    receipt = _receipt(talked, "plain")
    html = ada.get(reverse("graphui:receipt", args=["proj", receipt.pk])).content.decode()
    assert "model-saw-link" not in html


def test_a_viewer_of_another_namespace_gets_404(talked: Session, django_user_model: Any) -> None:
    proxied_session_create(talked.namespace, "s1", exchanges=({"turn": 6},))
    other = namespace_get_or_create(name="other")
    user = django_user_model.objects.create_user("bob")
    NamespaceGrant.objects.create(user=user, namespace=other, role=Role.VIEWER)
    client = Client()
    client.force_login(user)
    exchange = ProxyExchange.objects.get()
    assert (
        client.get(
            reverse("graphui:session", args=["proj", "s1"]), {"saw": exchange.pk}
        ).status_code
        == 404
    )
    NamespaceGrant.objects.create(user=user, namespace=talked.namespace, role=Role.VIEWER)
    html = client.get(reverse("graphui:session", args=["proj", "s1"])).content.decode()
    assert f'id="saw-{exchange.pk}"' in html
    assert Block.objects.filter(session=talked).exists()
