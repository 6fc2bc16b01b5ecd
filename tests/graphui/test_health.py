"""Namespaces list and namespace health page: the counts, the three charts' numbers, fixed query
counts, 404 / login / redaction / escaping."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from memory.engine.prompts.extraction import ExtractedEvent
from memory.models import Block, Event, Message, Namespace, ProcessingJob, UsageReceipt
from memory.recall.events import EventSearch
from memory.selectors.health import namespace_health
from memory.selectors.health_charts import (
    MAX_ADOPTION_BUCKETS,
    adoption_buckets,
    bucket_width,
    health_charts,
)
from memory.selectors.overview import NamespaceOverview, namespace_overview
from memory.services.adoption import UseRequest, usage_record
from memory.services.events import EventContext, event_create, event_lifecycle
from memory.services.gate import AssessRequest, gate_assess
from memory.services.ingest import MessageIn, TurnIn, turn_ingest
from memory.services.jobs import jobs_drain
from memory.services.namespaces import namespace_get_or_create
from memory.services.retrieval import events_search
from memory.services.settings import memory_settings_update
from tests.browser.hostile import PROBES, hostile_namespace_create
from tests.graphui.partials_support import fragment, shows

pytestmark = pytest.mark.django_db

SECRET = "api_key=sk-abcdefghijklmnop1234"
VIEWS = json.dumps(
    {
        "title": "Storage layer decision",
        "tags": ["storage"],
        "summary": "The user and assistant chose Postgres for storage.",
        "key_points": ["Use Postgres for storage"],
        "should_extract": False,
    }
)
PROJECT_TURNS = (
    "Use npm for this project.",
    "Let's switch to pnpm.",
    "Finish the prototype next week.",
)


# --- building data through the services -----------------------------------------------------


def say(namespace: Namespace, text: str, *, session: str = "s1", receipt: str = "") -> None:
    receipt = receipt or f"{session}-{Namespace.objects.get(pk=namespace.pk).current_turn + 1}"
    turn_ingest(
        namespace=namespace,
        turn=TurnIn(
            session_id=session,
            receipt_id=receipt,
            messages=[
                MessageIn(role="user", content=text),
                MessageIn(role="assistant", content="Noted."),
            ],
        ),
    )


def use_memory(namespace: Namespace, query: str, receipt_id: str) -> UsageReceipt:
    """The evidence loop: search → assess (sufficient, first hit) → record use."""
    found = events_search(namespace=namespace, params=EventSearch(query=query, session_id="s1"))
    assert found.hits, f"nothing found for {query!r}"
    refs = [f"event:{found.hits[0].event.pk}"]
    gate_assess(
        namespace=namespace,
        request=AssessRequest(
            verdict="sufficient",
            evidence_refs=refs,
            fit="It answers the question.",
            batch_id=found.batch.public_id,
        ),
    )
    recorded = usage_record(
        namespace=namespace,
        request=UseRequest(
            receipt_id=receipt_id, evidence_refs=refs, batch_id=found.batch.public_id
        ),
    )
    return recorded.receipt


def project(name: str) -> Namespace:
    """npm → pnpm → a plan in s1 and a greeting in s2, processed (one block per turn); the
    plan is forgotten and one answer used the pnpm decision."""
    namespace = namespace_get_or_create(name=name)
    for text in PROJECT_TURNS:
        say(namespace, text)
    say(namespace, "Hello again.", session="s2")
    jobs_drain()
    plan = Event.objects.get(namespace=namespace, event_type="plan")
    event_lifecycle(event=plan, action="forget", actor="user:test")
    use_memory(namespace, "pnpm", f"{name}-answer-1")
    return Namespace.objects.get(pk=namespace.pk)


@pytest.fixture
def one_turn_blocks(db: None) -> None:
    memory_settings_update(block_turns=1, block_lambda=0.30)


@pytest.fixture
def user(django_user_model: Any) -> Any:
    return django_user_model.objects.create_user(username="ada", is_staff=True)


@pytest.fixture
def ui(client: Any, user: Any) -> Any:
    client.force_login(user)
    return client


@pytest.fixture
def three_namespaces(one_turn_blocks: None) -> list[Namespace]:
    alpha = project("alpha")
    beta = namespace_get_or_create(name="beta")
    say(beta, "Only one turn so far.")  # sealed at once (block size 1), not processed yet
    gamma = namespace_get_or_create(name="gamma")  # no turns at all
    return [alpha, Namespace.objects.get(pk=beta.pk), gamma]


# --- namespaces list ------------------------------------------------------------------------


def _row(rows: list[NamespaceOverview], name: str) -> NamespaceOverview:
    return next(r for r in rows if r.name == name)


def test_the_overview_counts_every_family_per_namespace(three_namespaces):
    rows = namespace_overview()
    assert [r.name for r in rows] == ["alpha", "beta", "gamma"]

    alpha = _row(rows, "alpha")
    assert (alpha.sessions, alpha.turns, alpha.current_turn) == (2, 4, 4)
    assert (alpha.blocks_ready, alpha.blocks_pending, alpha.blocks_failed) == (4, 0, 0)
    assert (alpha.events_superseded, alpha.events_forgotten, alpha.events_archived) == (1, 1, 0)
    assert (alpha.receipts, alpha.adoptions) == (1, 1)
    assert (alpha.jobs_running, alpha.jobs_failed) == (0, 0)
    assert alpha.last_activity_at is not None and not alpha.needs_attention
    # The same numbers as the health read the API serves (an independent implementation).
    health = namespace_health(namespace=three_namespaces[0])
    assert alpha.events_active == health.counts.events["active"]
    assert (alpha.nodes, alpha.edges) == (health.counts.nodes, health.counts.edges)
    assert alpha.nodes > 0 and alpha.edges > 0
    assert alpha.adoptions == health.counts.adoptions

    beta = _row(rows, "beta")
    assert (beta.sessions, beta.turns, beta.blocks_pending, beta.jobs_running) == (1, 1, 1, 1)
    assert (beta.blocks_ready, beta.events, beta.receipts, beta.nodes) == (0, 0, 0, 0)

    gamma = _row(rows, "gamma")
    assert gamma.model_dump(exclude={"name"}) == {
        **{k: 0 for k in gamma.model_dump() if k not in ("name", "last_activity_at")},
        "last_activity_at": None,
    }


def test_the_namespaces_page_shows_the_rows_linked_to_their_health(ui, three_namespaces):
    response = ui.get("/")
    assert response.status_code == 200
    body = response.content.decode()
    for name in ("alpha", "beta", "gamma"):
        assert f'href="{reverse("graphui:health", kwargs={"ns": name})}"' in body
    assert [r.name for r in response.context["overview"].items] == ["alpha", "beta", "gamma"]
    assert "No namespaces yet" not in body


def processed_with_a_model(settings: Any, fake_openai: Any, name: str, answer: str) -> Namespace:
    """Namespace `name`: one block's worth of turns, processed by the fake model answering
    `answer` (a valid views answer succeeds; anything else fails the job)."""
    settings.STRATAGATE_LLM_BASE_URL = fake_openai.base_url
    settings.STRATAGATE_LLM_MODEL = "fake-model"
    settings.STRATAGATE_LLM_API_KEY = "sk-test"
    if answer == VIEWS:
        fake_openai.script([VIEWS])
    else:
        fake_openai.default = answer
    namespace = namespace_get_or_create(name=name)
    for n in range(1, 7):
        say(namespace, f"Question {n} about the storage layer?")
    jobs_drain()
    return namespace


def test_a_failed_job_is_flagged_with_words_and_its_error_is_redacted(ui, settings, fake_openai):
    processed_with_a_model(settings, fake_openai, "broken", f"garbage answer {SECRET}")

    row = _row(namespace_overview(), "broken")
    assert (row.blocks_failed, row.jobs_failed, row.needs_attention) == (1, 1, True)
    listing = ui.get("/").content.decode()
    assert '<span class="badge bad">⚠ 1 failed block</span>' in listing
    assert '<span class="badge bad">⚠ 1 failed job</span>' in listing

    page = ui.get(reverse("graphui:health", kwargs={"ns": "broken"}))
    body = page.content.decode()
    assert page.status_code == 200
    assert "garbage answer" in body and "[REDACTED]" in body
    assert "sk-abcdefghijklmnop1234" not in body
    assert "Needs attention" in body and 'id="failed-jobs"' in body
    assert "language model" in body


def test_recent_successful_model_calls_are_listed(ui, settings, fake_openai):
    processed_with_a_model(settings, fake_openai, "modelled", VIEWS)
    body = ui.get(reverse("graphui:health", kwargs={"ns": "modelled"})).content.decode()
    calls = body[body.index('class="grid model-calls" id="calls-ok"') :].split("</table>")[0]
    assert calls.count('<tr id="call-') == 1
    assert "<td>Block views (L0–L2)" in calls and "fake-model" in calls
    assert " ms</td>" in calls
    assert "All calls, successful or not, by kind:" in body


def test_failed_jobs_and_model_calls_are_the_processing_pages_own_markup(ui, settings, fake_openai):
    """One markup: the health page includes the processing page's partials, so each shows
    exactly what the processing page serves as its `failed` and `calls` fragments."""
    namespace = processed_with_a_model(settings, fake_openai, "broken", f"garbage answer {SECRET}")
    job = ProcessingJob.objects.get(namespace=namespace, status="failed")

    health = ui.get(reverse("graphui:health", kwargs={"ns": "broken"})).content.decode()
    processing = reverse("graphui:processing", kwargs={"ns": "broken"})
    whole = ui.get(processing).content.decode()
    for part in ("failed", "calls"):
        alone = fragment(ui, processing, part)
        assert shows(health, alone) and shows(whole, alone), part
    for html in (health, whole):  # the same elements, from the one include
        assert f'<li class="card failed-job" id="job-{job.pk}">' in html
        assert f'id="job-{job.pk}-error"' in html and 'data-copy="job-' in html
        assert 'id="calls-failed"' in html and 'class="grid model-calls"' in html
        assert "garbage answer" in html and "sk-abcdefghijklmnop1234" not in html
    # The health page's live region serves the same markup again.
    jobs = fragment(ui, reverse("graphui:health", kwargs={"ns": "broken"}), "jobs")
    assert shows(jobs, fragment(ui, processing, "failed"))


def test_no_namespaces_explains_how_to_start(ui):
    body = ui.get("/").content.decode()
    assert "No namespaces yet" in body
    assert "manage.py create_agent_token --namespace demo" in body
    assert "manage.py load_demo" in body
    assert "/api/v1/ns/demo/turns" in body


def _queries(client: Any, url: str) -> int:
    with CaptureQueriesContext(connection) as captured:
        assert client.get(url).status_code == 200
    return len(captured.captured_queries)


def test_the_namespaces_page_costs_the_same_for_one_or_five_namespaces(
    ui, one_turn_blocks, django_assert_max_num_queries
):
    project("ns-1")
    one = _queries(ui, "/")
    for n in range(2, 6):
        project(f"ns-{n}")
    with django_assert_max_num_queries(one):
        response = ui.get("/")
    assert len(response.context["overview"].items) == 5
    assert one <= 13  # session, user, switcher + count, page and 8 grouped families


def test_the_namespaces_page_paginates_in_sql(ui):
    for n in range(52):
        namespace_get_or_create(name=f"n{n:02d}")
    first = ui.get("/").context["overview"]
    assert (len(first.items), first.num_pages, first.total) == (50, 2, 52)
    second = ui.get("/?page=2").context["overview"]
    assert [r.name for r in second.items] == ["n50", "n51"]


# --- health page ----------------------------------------------------------------------------


def test_the_health_page_shows_the_numbers_and_links_out(ui, three_namespaces):
    response = ui.get(reverse("graphui:health", kwargs={"ns": "alpha"}))
    assert response.status_code == 200
    body = response.content.decode()
    health = response.context["health"]
    assert health.counts.blocks == {"ready": 4}
    assert (health.counts.receipts, health.counts.adoptions) == (1, 1)
    timeline = reverse("graphui:timeline", kwargs={"ns": "alpha"})
    for status in ("active", "superseded", "forgotten", "archived"):
        assert f'href="{timeline}?status={status}"' in body
    assert f'href="{reverse("graphui:sessions", kwargs={"ns": "alpha"})}"' in body
    assert f'href="{reverse("graphui:settings")}"' in body
    assert "offline processor" in body and "0.30" in body
    # Three charts, each with its title and numbers as text.
    assert body.count('<svg class="chart"') == 3
    for title in ("Blocks by display level", "Events by weight band", "Adoptions over turns"):
        assert f"<title>{title}</title>" in body
    assert "4 ready blocks: L5 3 · L4 1 · L3 0 · L2 0 · L1 0 · L0 0" in body
    assert "receipts: 1 · events reinforced: 1" in body
    assert 'id="jobs"' in body and 'data-kind="block_views"' in body


def test_an_empty_namespace_has_empty_states_instead_of_charts(ui, three_namespaces):
    body = ui.get(reverse("graphui:health", kwargs={"ns": "gamma"})).content.decode()
    assert '<svg class="chart"' not in body
    assert "No blocks yet" in body and "No events yet" in body
    assert "No answer has used memory yet" in body
    assert "No processing jobs yet" in body


def test_the_health_page_costs_the_same_for_small_and_large_namespaces(ui, one_turn_blocks):
    small = namespace_get_or_create(name="small")
    say(small, "Use npm for this project.")
    jobs_drain()
    large = project("large")
    for n in range(3):
        say(large, f"Question {n} about pnpm?")
    jobs_drain()
    use_memory(large, "pnpm", "large-answer-2")
    assert _queries(ui, "/ns/small/") == _queries(ui, "/ns/large/")


def test_an_unknown_namespace_is_a_404_page(ui):
    response = ui.get(reverse("graphui:health", kwargs={"ns": "nowhere"}))
    assert response.status_code == 404
    assert "namespace_not_found" in response.content.decode()


@pytest.mark.parametrize("url", ["/", "/ns/alpha/"])
def test_anonymous_visitors_are_sent_to_log_in(client, url):
    response = client.get(url)
    assert response.status_code == 302
    assert response["Location"] == f"/accounts/login/?next={url}"


def test_hostile_memory_is_escaped_on_both_pages(ui):
    hostile_namespace_create()
    for url in ("/", reverse("graphui:health", kwargs={"ns": "hostile"})):
        body = ui.get(url).content.decode()
        for probe in PROBES:
            assert probe not in body, (url, probe)


def test_the_pages_only_read(ui, three_namespaces):
    def snapshot() -> tuple[int, ...]:
        return tuple(m.objects.count() for m in (Event, Block, UsageReceipt, Message))

    before = snapshot()
    weights = list(Event.objects.values_list("adoptions", "last_adopted_turn", "last_retrieved_at"))
    ui.get("/")
    ui.get("/ns/alpha/")
    assert snapshot() == before
    assert (
        list(Event.objects.values_list("adoptions", "last_adopted_turn", "last_retrieved_at"))
        == weights
    )


# --- chart numbers (selector) ---------------------------------------------------------------


def test_nine_ready_blocks_at_lambda_030_follow_the_spec_schedule(one_turn_blocks):
    namespace = namespace_get_or_create(name="decay")
    for n in range(1, 10):
        say(namespace, f"Small talk number {n}.")
    jobs_drain()
    say(namespace, "One more, sealed but not processed yet.")
    charts = health_charts(namespace=Namespace.objects.get(pk=namespace.pk))
    # SPEC §4.4: by ready blocks after it, 0–1 → L5, 2 → L4, 3–4 → L3, 5–6 → L2, 7–8 → L1.
    assert {c.level: c.blocks for c in charts.levels} == {5: 2, 4: 1, 3: 2, 2: 2, 1: 2, 0: 0}
    assert [c.level for c in charts.levels] == [5, 4, 3, 2, 1, 0]
    assert (charts.ready_blocks, charts.pending_blocks, charts.failed_blocks) == (9, 1, 0)


def test_lambda_zero_never_decays(one_turn_blocks):
    memory_settings_update(block_lambda=0.0)
    namespace = namespace_get_or_create(name="still")
    for n in range(1, 6):
        say(namespace, f"Small talk number {n}.")
    jobs_drain()
    charts = health_charts(namespace=Namespace.objects.get(pk=namespace.pk))
    assert {c.level: c.blocks for c in charts.levels}[5] == 5


def test_weight_bands_of_events_with_known_adoptions_and_turns():
    namespace = namespace_get_or_create(name="weights")
    for n in range(1, 7):
        say(namespace, f"Turn {n}: small talk.")
    jobs_drain()
    Event.objects.filter(namespace=namespace).update(status="archived")  # offline extractions
    block = Block.objects.get(namespace=namespace)
    messages = {m.pk: m for m in Message.objects.filter(turn__block=block)}
    states = {
        # title: (adoptions, last_adopted_turn, criticality, status, pinned) → weight at turn 20
        "fresh": (1, 20, "routine", "active", False),  # t = 0 → 1.0, high
        "pinned": (1, 0, "routine", "active", True),  # 1.0, high
        "twice": (2, 10, "routine", "active", False),  # t = 10, n = 2 → 0.4794, mid
        "preference": (1, 0, "preference", "active", False),  # floor 0.3, mid
        "once": (1, 10, "routine", "active", False),  # t = 10, n = 1 → 0.2231, low
        "replaced": (1, 20, "routine", "superseded", False),  # capped at 0.1, low
        "forgotten": (5, 20, "safety", "forgotten", True),  # hidden: not counted
    }
    with transaction.atomic():
        for title in states:
            event_create(
                extracted=ExtractedEvent(
                    title=title, summary=title, source_message_ids=list(messages)[:1]
                ),
                context=EventContext(block=block, formed_turn=6, messages=messages),
            )
    for title, (n, last, criticality, status, pinned) in states.items():
        Event.objects.filter(namespace=namespace, title=title).update(
            adoptions=n,
            last_adopted_turn=last,
            criticality=criticality,
            status=status,
            pinned=pinned,
        )
    Namespace.objects.filter(pk=namespace.pk).update(current_turn=20)

    charts = health_charts(namespace=Namespace.objects.get(pk=namespace.pk))
    assert [(b.band, b.events) for b in charts.bands] == [
        ("high", 2),
        ("mid", 2),
        ("low", 2),
        ("zero", 0),
    ]
    assert charts.visible_events == 6


@pytest.mark.parametrize(
    ("current_turn", "width", "buckets"),
    [(0, 1, 1), (1, 1, 2), (29, 1, 30), (30, 2, 16), (59, 2, 30), (60, 3, 21), (299, 10, 30)],
)
def test_adoption_buckets_cover_0_to_the_current_turn_in_at_most_30(
    current_turn: int, width: int, buckets: int
) -> None:
    assert bucket_width(current_turn) == width
    assert current_turn // width + 1 == buckets <= MAX_ADOPTION_BUCKETS


def test_adoptions_are_counted_per_turn_bucket(one_turn_blocks):
    namespace = project("used")  # one receipt at turn 4 reinforcing one event
    say(namespace, "Which package manager again?")
    jobs_drain()
    use_memory(namespace, "pnpm", "used-answer-2")  # turn 5
    # A zero-increment receipt ("retrieved, used nothing") at turn 5 too.
    found = events_search(namespace=namespace, params=EventSearch(query="npm", session_id="s1"))
    usage_record(
        namespace=namespace,
        request=UseRequest(receipt_id="nothing", evidence_refs=[], batch_id=found.batch.public_id),
    )
    # Receipts far apart: move the counter and one receipt to later turns.
    UsageReceipt.objects.filter(receipt_id="used-answer-2").update(namespace_turn=45)
    Namespace.objects.filter(pk=namespace.pk).update(current_turn=59)
    namespace.refresh_from_db()

    buckets = adoption_buckets(namespace=namespace, current_turn=59)
    assert len(buckets) == 30 and (buckets[0].first_turn, buckets[-1].last_turn) == (0, 59)
    used = [(b.first_turn, b.last_turn, b.receipts, b.adoptions) for b in buckets if b.receipts]
    assert used == [(4, 5, 2, 1), (44, 45, 1, 1)]
    charts = health_charts(namespace=namespace)
    assert (charts.receipts, charts.adoptions, charts.bucket_turns) == (3, 2, 2)


def test_charts_read_in_a_fixed_number_of_queries(one_turn_blocks, django_assert_num_queries):
    small = namespace_get_or_create(name="tiny")
    with django_assert_num_queries(4):
        health_charts(namespace=small)
    large = project("big")
    with django_assert_num_queries(4):
        charts = health_charts(namespace=large)
    assert charts.receipts == 1


def test_the_charts_use_the_saved_lambda(one_turn_blocks, ui: Any) -> None:
    memory_settings_update(block_lambda=0.5)
    namespace = namespace_get_or_create(name="fast")
    for n in range(1, 4):
        say(namespace, f"Small talk number {n}.")
    jobs_drain()
    response = ui.get(reverse("graphui:health", kwargs={"ns": "fast"}))
    assert response.context["charts"].block_lambda == 0.5
    assert "forgets fast" in response.content.decode()
