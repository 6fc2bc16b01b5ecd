"""What the Memory UI shows about the model proxy: the health page's traffic panel (counters,
turns waiting in the spool and lost ones, an empty state), which model processes memory and why
(health and settings), the session list's "proxy" badge, and a proxied session's system prompts
and the memory each request was given — escaped, linked, in a bounded number of queries."""

from __future__ import annotations

import re
from html import unescape
from typing import Any

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from memory.models import (
    Event,
    GraphNode,
    Message,
    Namespace,
    ProxyExchange,
    ProxySystemPrompt,
    Turn,
)
from memory.services.ingest import MessageIn, TurnIn, turn_ingest
from memory.services.jobs import jobs_drain
from memory.services.namespaces import namespace_get_or_create
from tests.browser.hostile import IMG, SCRIPT
from tests.graphui.proxy_support import counters_add, proxied_session_create, spool_write

pytestmark = pytest.mark.django_db

HEALTH = "/ns/proj/"


@pytest.fixture(autouse=True)
def _proxy_settings(settings: Any, tmp_path: Any) -> None:
    settings.DATA_DIR = tmp_path  # where the spool is read
    settings.STRATAGATE_LLM_FROM_PROXY = False
    settings.STRATAGATE_PROXY_OPENAI_URL = ""
    settings.STRATAGATE_PROXY_ANTHROPIC_URL = ""


@pytest.fixture
def ada(client: Client, django_user_model: Any) -> Client:
    client.force_login(django_user_model.objects.create_user("ada", is_staff=True))
    return client


DECISIONS = (
    "Use npm for this project.",
    "Let's switch to pnpm for this project.",
    "We decided to keep PostgreSQL as the database.",
)


def ingest(namespace: Namespace, turns: int, *, session: str = "s1") -> None:
    """`turns` turns; the first ones carry decisions the offline processor extracts."""
    for n in range(1, turns + 1):
        text = DECISIONS[n - 1] if n <= len(DECISIONS) else f"Question {n} about Postgres?"
        turn_ingest(
            namespace=namespace,
            turn=TurnIn(
                session_id=session,
                receipt_id=f"{session}-{n}",
                messages=[
                    MessageIn(role="user", content=text),
                    MessageIn(role="assistant", content=f"Answer {n}: we keep PostgreSQL."),
                ],
            ),
        )


@pytest.fixture
def proj() -> Namespace:
    return namespace_get_or_create(name="proj")


def section(html: str, element_id: str) -> str:
    start = html.index(f'id="{element_id}"')
    return html[start : html.index("</section>", start)]


def stat(html: str, label: str) -> str:
    """The value of the proxy panel's stat with this label."""
    panel = section(html, "proxy")
    found = re.search(
        r'<div class="value">(\d+)[^<]*(?:<span[^>]*>[^<]*</span>)?</div><div class="label">'
        r"(?:<a [^>]*>)?" + re.escape(label),
        panel,
    )
    assert found is not None, label
    return found.group(1)


# --- health: the model proxy panel --------------------------------------------------------------


def test_the_panel_shows_the_traffic_counters(ada: Client, proj: Namespace) -> None:
    counters_add(
        proj,
        {
            "requests": 40,
            "memory_off": 2,
            "injected": 30,
            "injected_tokens": 5120,
            "captured": 25,
            "duplicates": 3,
            "tool_steps": 7,
            "stream_cut": 1,
            "client_disconnected": 4,
            "degraded:injection_timeout": 5,
            "degraded:database_error": 1,
            "upstream_error:429": 6,
            "upstream_error:500": 2,
        },
    )
    counters_add(proj, {"requests": 1000, "captured": 900}, days_ago=7)  # outside the 7 days
    counters_add(namespace_get_or_create(name="other"), {"requests": 77})
    html = ada.get(HEALTH).content.decode()
    assert stat(html, "Requests") == "40" and "2 with memory off" in html
    assert stat(html, "Answers captured") == "25" and "3 stored before · 7 tool steps" in html
    assert stat(html, "Tokens injected") == "5120" and "into 30 requests" in html
    assert stat(html, "Requests without memory") == "6"
    assert "memory took too long × 5 · the database failed × 1" in html
    assert stat(html, "Upstream errors") == "8" and "HTTP 429 × 6 · HTTP 500 × 2" in html
    assert stat(html, "Stream cuts") == "1"
    assert stat(html, "Client disconnects") == "4"
    assert stat(html, "Turns waiting to be stored") == "0"
    assert stat(html, "Lost turns") == "0"
    assert "Needs attention" not in html and "proxy-attention" not in html


def test_waiting_and_lost_turns_are_flagged_with_words(ada: Client, proj: Namespace) -> None:
    other = namespace_get_or_create(name="other")
    spool_write(proj, "1-a", age=3600)
    spool_write(proj, "2-b")
    spool_write(other, "3-c")  # another namespace's turn
    spool_write(proj, "4-d", lost=True)
    counters_add(proj, {"capture_failed": 3, "capture_retried": 1, "capture_lost": 1})
    html = ada.get(HEALTH).content.decode()
    assert stat(html, "Turns waiting to be stored") == "2"
    assert stat(html, "Lost turns") == "1"  # the file and its count are the same turn
    assert "3 failed, 1 stored on retry" in html and "oldest" in section(html, "proxy")
    panel = section(html, "proxy")
    assert '<span class="badge bad">⚠ 1 turn lost</span>' in panel
    assert "○ 2 turns waiting to be stored" in panel
    # And at the top of the page, next to failed jobs.
    top = html[: html.index('id="conversation-title"')]
    assert "Needs attention" in top and "1 proxied turn could not be stored and is lost" in top
    assert "2 proxied turns are waiting to be stored." in top and 'href="#proxy"' in top


def test_a_turn_only_waiting_is_a_warning_not_an_alarm(ada: Client, proj: Namespace) -> None:
    spool_write(proj, "1-a")
    html = ada.get(HEALTH).content.decode()
    top = html[: html.index('id="conversation-title"')]
    assert 'class="attention-note warn"' in top and "Needs attention" not in top
    assert "1 proxied turn is waiting to be stored." in top


def test_no_traffic_is_an_empty_state_linking_to_the_connect_page(
    ada: Client, proj: Namespace
) -> None:
    counters_add(proj, {"requests": 5}, days_ago=8)
    html = ada.get(HEALTH).content.decode()
    panel = section(html, "proxy")
    assert "No request has come through the model proxy in the last 7 days." in panel
    assert 'href="/ns/proj/connect/"' in panel and 'class="stats"' not in panel


def test_the_health_page_reads_the_proxy_in_a_fixed_number_of_queries(
    ada: Client, proj: Namespace
) -> None:
    ingest(proj, 2)
    with CaptureQueriesContext(connection) as quiet:
        ada.get(HEALTH)
    ingest(proj, 2, session="s2")
    proxied_session_create(proj, "s2", exchanges=({"turn": 1}, {"turn": 2}))
    counters_add(proj, {"requests": 3, "degraded:memory_error": 1, "upstream_error:502": 1})
    spool_write(proj, "1-a")
    with CaptureQueriesContext(connection) as busy:
        ada.get(HEALTH)
    assert len(busy.captured_queries) == len(quiet.captured_queries)


# --- which model processes memory, and why --------------------------------------------------------


def _processing(html: str) -> str:
    start = html.index(">", html.index('id="processing-model"')) + 1
    return " ".join(
        unescape(re.sub(r"<[^>]+>", "", html[start : html.index("</dd>", start)])).split()
    )


def _answered(namespace: Namespace, protocol: str, model: str) -> None:
    ingest(namespace, 1, session="agent")
    proxied_session_create(
        namespace, "agent", protocol=protocol, exchanges=({"model": model, "turn": 1},)
    )


def test_the_processing_row_says_which_model_and_why(
    ada: Client, proj: Namespace, settings: Any
) -> None:
    assert _processing(ada.get(HEALTH).content.decode()).endswith(
        "offline processor no model configured"
    )

    settings.STRATAGATE_LLM_FROM_PROXY = True
    text = _processing(ada.get(HEALTH).content.decode())
    assert text.startswith("offline processor")
    assert "STRATAGATE_LLM_FROM_PROXY is on, but no proxied request" in text

    _answered(proj, "anthropic", "claude-sonnet-4")
    text = _processing(ada.get(HEALTH).content.decode())
    assert "offline processor" in text and "claude-sonnet-4" in text
    assert "STRATAGATE_PROXY_ANTHROPIC_URL" in text  # no upstream: which variable to set

    settings.STRATAGATE_PROXY_ANTHROPIC_URL = "https://api.anthropic.com"
    text = _processing(ada.get(HEALTH).content.decode())
    assert text == (
        "language model claude-sonnet-4 via the proxy's Anthropic upstream: the model this "
        "namespace's requests used last (STRATAGATE_LLM_FROM_PROXY)"
    )

    settings.STRATAGATE_LLM_BASE_URL = "http://llm.local/v1"
    settings.STRATAGATE_LLM_MODEL = "gpt-4o"
    text = _processing(ada.get(HEALTH).content.decode())
    assert text == "language model gpt-4o, configured in STRATAGATE_LLM_*"


def test_the_openai_upstream_is_named_for_an_openai_model(
    ada: Client, proj: Namespace, settings: Any
) -> None:
    settings.STRATAGATE_LLM_FROM_PROXY = True
    settings.STRATAGATE_PROXY_OPENAI_URL = "https://api.openai.com/v1"
    _answered(proj, "openai", "gpt-4.1")
    text = _processing(ada.get(HEALTH).content.decode())
    assert "gpt-4.1 via the proxy's OpenAI upstream" in text


def _model_panel(client: Client, **query: str) -> str:
    html = client.get(reverse("graphui:settings"), query).content.decode()
    return " ".join(unescape(re.sub(r"<[^>]+>", " ", section(html, "model"))).split())


def test_settings_explain_each_source_of_the_model(
    ada: Client, proj: Namespace, settings: Any
) -> None:
    text = _model_panel(ada)
    assert "Offline processor (no model configured)" in text
    assert "STRATAGATE_LLM_FROM_PROXY=1" in text

    settings.STRATAGATE_LLM_FROM_PROXY = True
    settings.STRATAGATE_PROXY_OPENAI_URL = "https://api.openai.com/v1"
    other = namespace_get_or_create(name="zeta")
    _answered(other, "openai", "gpt-4.1")
    text = _model_panel(ada, ns="zeta")
    assert "Per namespace" in text and "each namespace's memory is processed" in text
    assert "In zeta: language model gpt-4.1 via the proxy's OpenAI upstream" in text
    assert "Health of zeta" in text
    text = _model_panel(ada, ns="proj")
    assert "In proj: offline processor STRATAGATE_LLM_FROM_PROXY is on, but no proxied" in text

    settings.STRATAGATE_LLM_BASE_URL = "http://llm.local/v1"
    settings.STRATAGATE_LLM_MODEL = "gpt-4o"
    text = _model_panel(ada, ns="zeta")
    assert "this model processes the memory of every namespace" in text
    assert "a configured model always wins" in text and "In zeta" not in text


# --- the session list -----------------------------------------------------------------------------


def test_the_session_list_marks_proxied_sessions(ada: Client, proj: Namespace) -> None:
    ingest(proj, 1, session="direct")
    ingest(proj, 1, session="agent")
    proxied_session_create(proj, "agent")
    html = ada.get(reverse("graphui:sessions", args=["proj"])).content.decode()
    rows = {
        name: html[html.index(f'href="/ns/proj/sessions/{name}"') :].split("</tr>")[0]
        for name in ("direct", "agent")
    }
    assert "⇄ proxy" in rows["agent"] and "⇄ proxy" not in rows["direct"]


def test_the_session_list_query_count_stays_fixed_with_proxied_sessions(
    ada: Client, proj: Namespace
) -> None:
    url = reverse("graphui:sessions", args=["proj"])
    ingest(proj, 1, session="one")
    with CaptureQueriesContext(connection) as one:
        ada.get(url)
    for n in range(12):
        ingest(proj, 1, session=f"agent-{n}")
        proxied_session_create(proj, f"agent-{n}")
    with CaptureQueriesContext(connection) as many:
        html = ada.get(url).content.decode()
    assert html.count("⇄ proxy") == 12
    assert len(many.captured_queries) == len(one.captured_queries)


# --- the session page -----------------------------------------------------------------------------


def _refs(namespace: Namespace) -> tuple[list[str], Event, GraphNode | None, Message]:
    event = Event.objects.filter(namespace=namespace).order_by("pk").first()
    assert event is not None
    node = GraphNode.objects.filter(namespace=namespace).order_by("pk").first()
    message = Message.objects.filter(namespace=namespace).order_by("pk").first()
    assert message is not None
    refs = [f"event:{event.pk}", f"raw:{message.pk}", "event:999999"]
    if node is not None:
        refs.append(f"node:{node.pk}")
    return refs, event, node, message


def test_a_proxied_session_shows_its_system_prompts_and_what_each_request_was_given(
    ada: Client, proj: Namespace
) -> None:
    ingest(proj, 8)
    jobs_drain()
    refs, event, node, message = _refs(proj)
    long_prompt = "You are Atlas. " + "Keep migrations reversible. " * 40
    proxied_session_create(
        proj,
        "s1",
        system=(long_prompt, "You are Atlas, briefly."),
        exchanges=(
            {
                "turn": 1,
                "injected_text": "<memory>We use PostgreSQL.</memory>",
                "injected_tokens": 42,
                "injected_refs": refs,
                "prompt_tokens": 900,
                "completion_tokens": 40,
            },
            {"state": "tool_step", "model": "gpt-4.1"},
            {"state": "upstream_error", "upstream_status": 429},
            {"turn": 7, "degraded_reason": "injection_timeout"},
        ),
    )
    html = ada.get(reverse("graphui:session", args=["proj", "s1"])).content.decode()
    assert '<a class="badge accent" href="#proxy">⇄ proxy</a>' in html
    panel = section(html, "proxy")
    text = unescape(panel)
    # System prompts, kept once: a long one collapsed, a short one shown.
    assert "2 system prompts" in text
    assert '<details class="long-text">' in panel and long_prompt.strip() in text
    assert "You are Atlas, briefly." in text
    # The first request: its memory, tokens and refs linked to their pages.
    start = text.index('id="exchange-')
    first = text[start : text.index('id="exchange-', start + 1)]
    assert "Memory injected: 42 tokens · 4 refs" in first
    assert "<memory>We use PostgreSQL.</memory>" in first
    assert "900 tokens in, 40 out" in first
    assert f'href="/ns/proj/events/{event.pk}/"' in first
    assert f'href="/ns/proj/messages/{message.pk}/"' in first
    if node is not None:
        assert f'href="/ns/proj/graph/nodes/{node.pk}/"' in first
    assert "no longer exists" in first  # event:999999
    # Each captured request links to its turn's first message (its block's L5 view).
    turn1 = Message.objects.filter(turn__session_turn=1, turn__session__external_id="s1")
    first_message = turn1.order_by("position").first()
    assert first_message is not None
    assert f'<a href="/ns/proj/messages/{first_message.pk}/">turn 1</a>' in first
    assert "turn 7</a>" in text
    # States and degraded memory in words.
    words = " ".join(re.sub(r"<[^>]+>", " ", text).split())
    assert "⚙ tool step" in words and "gpt-4.1" in words
    assert "✕ upstream error HTTP 429" in words
    assert "⚠ without memory memory took too long" in words
    assert "4 proxied requests ⚠ 1 without memory" in words


def test_system_prompts_and_injected_memory_are_escaped(ada: Client, proj: Namespace) -> None:
    ingest(proj, 1)
    proxied_session_create(
        proj,
        "s1",
        system=(f"Be helpful {SCRIPT}", f"Long {IMG} " + "x" * 500),
        exchanges=(
            {
                "turn": 1,
                "injected_text": f"memory {SCRIPT} {IMG}",
                "injected_tokens": 3,
                "injected_refs": [f"event:{SCRIPT}"],
                "model": SCRIPT,
            },
        ),
    )
    html = ada.get(reverse("graphui:session", args=["proj", "s1"])).content.decode()
    for probe in (SCRIPT, IMG):
        assert probe not in html
    assert "&lt;script&gt;alert(&quot;xss-script&quot;)&lt;/script&gt;" in section(html, "proxy")


def test_secrets_in_prompts_and_memory_are_redacted(ada: Client, proj: Namespace) -> None:
    secret = "sk-proj-Q7fZ2kLm9XwR4tYv8NbCaa"
    ingest(proj, 1)
    proxied_session_create(
        proj,
        "s1",
        system=(f"Use api_key={secret}",),
        exchanges=({"turn": 1, "injected_text": f"token {secret}", "injected_tokens": 3},),
    )
    html = ada.get(reverse("graphui:session", args=["proj", "s1"])).content.decode()
    assert "Q7fZ2kLm9XwR4tYv8NbC" not in html and "[REDACTED]" in html


def test_a_session_that_did_not_come_through_the_proxy_has_no_proxy_section(
    ada: Client, proj: Namespace
) -> None:
    ingest(proj, 1)
    html = ada.get(reverse("graphui:session", args=["proj", "s1"])).content.decode()
    assert 'id="proxy"' not in html and "⇄ proxy" not in html


def test_the_session_page_query_count_does_not_grow_with_requests(
    ada: Client, proj: Namespace
) -> None:
    ingest(proj, 8)
    jobs_drain()
    url = reverse("graphui:session", args=["proj", "s1"])
    refs, *_ = _refs(proj)
    kinds = {ref.split(":")[0] for ref in refs}
    proxied_session_create(proj, "s1", exchanges=({"turn": 1, "injected_refs": refs},))
    with CaptureQueriesContext(connection) as one:
        ada.get(url)
    turns = {t.session_turn: t for t in Turn.objects.filter(session__external_id="s1")}
    for n in range(30):
        ProxyExchange.objects.create(
            namespace=proj,
            session=turns[1].session,
            protocol="openai",
            model="m",
            earlier_digest=f"{n:064d}",
            state="captured",
            injected_text="memory",
            injected_refs=refs,
            turn=turns[1 + n % 8],
        )
    ProxySystemPrompt.objects.create(session=turns[1].session, digest="z" * 64, text="Another.")
    with CaptureQueriesContext(connection) as many:
        html = ada.get(url).content.decode()
    assert "31 proxied requests" in html and "2 system prompts" in html
    assert len(many.captured_queries) == len(one.captured_queries)
    assert len(kinds) >= 2


def test_the_proxy_costs_a_non_proxied_session_page_one_query(
    ada: Client, proj: Namespace, settings: Any
) -> None:
    settings.STRATAGATE_BLOCK_TURNS = 1
    ingest(proj, 30)
    jobs_drain()
    with CaptureQueriesContext(connection) as page:
        ada.get(reverse("graphui:session", args=["proj", "s1"]))
    assert len(page.captured_queries) <= 14  # tests/graphui/test_sessions.py's bound
