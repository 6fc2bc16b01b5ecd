"""The usage audit (SPEC §10.5, §13.8): receipts newest first with filters and a summary, paged in
SQL with a fixed number of queries; each receipt's chain (answer turn → gate verdict → cited
memories → source messages) with retrieved-but-unused and injected memory shown apart; a
memory's usage page; 404s, escaping and redaction. Data comes through the evidence loop."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from memory.models import Activation, Event, Message, Namespace, UsageReceipt
from memory.recall.events import EventSearch
from memory.recall.raw import RawSearch
from memory.selectors.audit import answer_turn
from memory.selectors.audit_view import ReceiptFilter, reinforcement
from memory.selectors.audit_view.receipts import receipts_filtered, with_answer_turn
from memory.services.activation import activation_build
from memory.services.adoption import UseRequest, usage_record
from memory.services.batches import caller_session
from memory.services.gate import AssessRequest, gate_assess
from memory.services.ingest import MessageIn, TurnIn, turn_ingest
from memory.services.jobs import jobs_drain
from memory.services.namespaces import namespace_get_or_create
from memory.services.retrieval import events_search, raw_search
from memory.services.settings import memory_settings_update
from tests.browser.hostile import IMG, PROBES, SCRIPT, hostile_namespace_create

pytestmark = pytest.mark.django_db

SECRET = "api_key=sk-abcdefghijklmnop1234"
HOSTILE_REF = "<img src=x onerror=alert(1)>"
ANSWER_SCRIPT = '<script>alert("answer")</script>'
PROJECT = (
    "Use npm for this project.",
    "Let's switch to pnpm.",
    "We will release version 2.0 next Friday.",
)


@pytest.fixture
def ada(client: Client, django_user_model: Any) -> Client:
    client.force_login(django_user_model.objects.create_user("ada", is_staff=True))
    return client


def say(namespace: Namespace, session: str, n: int, user: str, reply: str = "Noted.") -> None:
    turn_ingest(
        namespace=namespace,
        turn=TurnIn(
            session_id=session,
            receipt_id=f"{namespace.name}-{session}-{n}",
            occurred_at=datetime(2026, 10, 9, 14, 0, tzinfo=UTC) + timedelta(minutes=n),
            messages=[
                MessageIn(role="user", content=user),
                MessageIn(role="assistant", content=reply),
            ],
        ),
    )


@dataclass(frozen=True)
class Proj:
    namespace: Namespace
    npm: Event
    pnpm: Event
    plan: Event
    ok: UsageReceipt  # sufficient, cites the pnpm event, answer carries a secret
    zero: UsageReceipt  # partial with rejected refs, used nothing, answer carries a script
    raw: UsageReceipt  # sufficient, cites a raw message
    source: Message  # "Let's switch to pnpm."


def _use(namespace: Namespace, batch_id: str, receipt: str, refs: list[str], **kw: Any) -> Any:
    return usage_record(
        namespace=namespace,
        request=UseRequest(receipt_id=receipt, evidence_refs=refs, batch_id=batch_id, **kw),
    ).receipt


def _assess(namespace: Namespace, batch_id: str, verdict: str, refs: list[Any], **kw: Any) -> None:
    gate_assess(
        namespace=namespace,
        request=AssessRequest(verdict=verdict, evidence_refs=refs, batch_id=batch_id, **kw),
    )


@pytest.fixture
def proj() -> Proj:
    """npm → pnpm → a plan in session s1 (one block each, processed), then three agent loops:
    s2 gets activated memory, searches events, cites pnpm (sufficient) and answers; s3 assesses
    a batch as partial with a hostile, a foreign and a duplicate ref and records that it used
    nothing; s2 later cites a raw message. Each answer turn is ingested after its receipt."""
    memory_settings_update(block_turns=1)
    namespace = namespace_get_or_create(name="proj")
    for n, text in enumerate(PROJECT, start=1):
        say(namespace, "s1", n, text)
    jobs_drain()
    npm = Event.objects.get(namespace=namespace, title__icontains="use npm")
    pnpm = Event.objects.get(namespace=namespace, title__icontains="pnpm")
    plan = Event.objects.get(namespace=namespace, event_type="plan")

    question = "When did we switch to pnpm?"
    activation_build(namespace=namespace, session=caller_session(namespace, "s2"), query=question)
    found = events_search(
        namespace=namespace, params=EventSearch(query="package manager pnpm npm", session_id="s2")
    )
    batch = found.batch.public_id
    _assess(namespace, batch, "sufficient", [f"event:{pnpm.pk}"], question=question,
            fit="the switch to pnpm", next_strategy="answer")  # fmt: skip
    answer = f"We switched to pnpm. {SECRET}"
    ok = _use(namespace, batch, "call-ok", [f"event:{pnpm.pk}"], answer=answer)
    say(namespace, "s2", 1, question, answer)

    found = events_search(
        namespace=namespace, params=EventSearch(query="release version", session_id="s3")
    )
    batch = found.batch.public_id
    plan_ref = f"event:{plan.pk}"
    submitted = [HOSTILE_REF, "event:999999999", plan_ref, plan_ref]
    _assess(namespace, batch, "partial", submitted, fit="a plan only",
            missing="whether it shipped", next_strategy="search_raw")  # fmt: skip
    zero = _use(namespace, batch, "call-zero", [], answer=f"Not sure yet {ANSWER_SCRIPT}")
    say(namespace, "s3", 1, "Did version 2.0 ship?", f"Not sure yet {ANSWER_SCRIPT}")

    source = Message.objects.get(namespace=namespace, content="Let's switch to pnpm.")
    found_raw = raw_search(namespace=namespace, params=RawSearch(query="pnpm"))
    batch = found_raw.batch.public_id
    _assess(namespace, batch, "sufficient", [f"raw:{source.pk}"], next_strategy="answer")
    raw = _use(namespace, batch, "call-raw", [f"raw:{source.pk}"], session_id="s2",
               answer="You said: let's switch to pnpm.")  # fmt: skip
    say(namespace, "s2", 2, "What exactly did I say?", "You said: let's switch to pnpm.")
    return Proj(namespace, npm, pnpm, plan, ok, zero, raw, source)


def audit_url(ns: str = "proj") -> str:
    return reverse("graphui:audit", args=[ns])


def receipt_url(pk: int, ns: str = "proj") -> str:
    return reverse("graphui:receipt", args=[ns, pk])


def usage_url(event_id: int, ns: str = "proj") -> str:
    return reverse("graphui:event_usage", args=[ns, event_id])


def get(client: Client, url: str, **params: str) -> str:
    response = client.get(url, params)
    assert response.status_code == 200, response.content[:2000]
    return response.content.decode()


def listed(html: str) -> list[int]:
    """Database ids of the receipts in the list, in page order."""
    return [int(i) for i in re.findall(r'id="receipt-(\d+)"', html)]


def section(html: str, element_id: str) -> str:
    """The element with this id, from its opening tag to its matching closing tag."""
    start = html.rindex("<", 0, html.index(f' id="{element_id}"'))
    tag = re.match(r"<(\w+)", html[start:]).group(1)  # type: ignore[union-attr]
    depth = 0
    for match in re.finditer(rf"<(/?){tag}[\s>]", html[start:]):
        depth += -1 if match.group(1) else 1
        if depth == 0:
            return html[start : start + match.end()]
    raise AssertionError(f"#{element_id} is not closed")


# --- the list ----------------------------------------------------------------------------------


def test_receipts_are_listed_newest_first_with_a_summary(ada, proj):
    html = get(ada, audit_url())
    assert listed(html) == [proj.raw.pk, proj.zero.pk, proj.ok.pk]
    summary = section(html, "audit-summary")
    assert re.search(r'class="value">3<', summary)  # receipts
    assert "used nothing (zero-increment)" in summary
    assert "Receipts 1–3 of 3, newest first" in html
    # Each row: verdict in words, what it cited, the question, the query, the answer, the chain.
    assert "✓</span> sufficient" in html and "◐</span> partial" in html
    assert "cited 1 memory · reinforced 1 event" in html
    assert "When did we switch to pnpm?" in html
    assert "package manager pnpm npm" in html
    assert f'href="{receipt_url(proj.ok.pk)}"' in html
    assert f'href="{reverse("graphui:event", args=["proj", proj.pnpm.pk])}"' in html


def test_a_zero_increment_receipt_is_marked_used_nothing(ada, proj):
    html = get(ada, audit_url())
    row = section(html, f"receipt-{proj.zero.pk}")
    assert 'class="receipt zero"' in html
    assert "∅</span> used nothing" in row
    assert "cited" not in row.split("receipt-answer")[0].split("receipt-head")[1]


@pytest.mark.parametrize(
    ("params", "expected"),
    [
        ({"session": "s2"}, ["raw", "ok"]),
        ({"session": "s3"}, ["zero"]),
        ({"verdict": "partial"}, ["zero"]),
        ({"verdict": "sufficient"}, ["raw", "ok"]),
        ({"verdict": "mismatch"}, []),
        ({"verdict": "none"}, []),
        ({"used": "nothing"}, ["zero"]),
        ({"used": "cited"}, ["raw", "ok"]),
        ({"session": "s2", "verdict": "partial"}, []),
    ],
)
def test_filters_narrow_the_list_and_the_summary(ada, proj, params, expected):
    html = get(ada, audit_url(), **params)
    assert listed(html) == [getattr(proj, name).pk for name in expected]
    summary = section(html, "audit-summary")
    assert re.search(rf'class="value">{len(expected)}<', summary)
    assert 'id="filter-chips"' in html


def test_the_date_range_filters_by_the_day_recorded(ada, proj):
    UsageReceipt.objects.filter(pk=proj.zero.pk).update(
        created_at=timezone.now() - timedelta(days=10)
    )
    today = timezone.localdate()
    earlier = (today - timedelta(days=10)).isoformat()
    assert listed(get(ada, audit_url(), **{"from": today.isoformat()})) == [
        proj.raw.pk,
        proj.ok.pk,
    ]
    assert listed(get(ada, audit_url(), to=earlier)) == [proj.zero.pk]
    assert listed(get(ada, audit_url(), **{"from": earlier, "to": earlier})) == [proj.zero.pk]
    tomorrow = (today + timedelta(days=1)).isoformat()
    html = get(ada, audit_url(), **{"from": tomorrow})
    assert listed(html) == [] and "No receipt matches these filters." in html
    # An inverted range is reported next to the field and that end is ignored.
    html = get(ada, audit_url(), **{"from": today.isoformat(), "to": earlier})
    assert "The end date is before the start date." in html
    assert listed(html) == [proj.raw.pk, proj.ok.pk]


def test_the_session_filter_is_a_select_of_sessions_with_receipts(ada, proj):
    html = get(ada, audit_url())
    select = html[
        html.index('name="session"') : html.index("</select>", html.index('name="session"'))
    ]
    assert re.findall(r'<option value="([^"]*)"', select) == ["", "s2", "s3"]
    # An id that is not listed (any more) still filters, to nothing, instead of failing.
    assert listed(get(ada, audit_url(), session="s9")) == []


def test_an_empty_namespace_explains_receipts(ada):
    namespace_get_or_create(name="empty")
    html = get(ada, audit_url("empty"))
    assert "No usage receipts yet." in html and listed(html) == []


def many_receipts(name: str, count: int) -> Namespace:
    """`count` receipts through the loop, cycling through a cited event, a cited raw message
    and a zero-increment receipt, so every page needs the same kinds of look-ups."""
    memory_settings_update(block_turns=1)
    namespace = namespace_get_or_create(name=name)
    say(namespace, "s1", 1, "Let's switch to pnpm.")
    jobs_drain()
    event = Event.objects.get(namespace=namespace)
    message = Message.objects.filter(namespace=namespace, role="user").get()
    for n in range(count):
        session = f"q{n % 4}"
        if n % 3 == 0:
            batch = events_search(
                namespace=namespace, params=EventSearch(query="pnpm", session_id=session)
            ).batch.public_id
            refs = [f"event:{event.pk}"]
        elif n % 3 == 1:
            batch = raw_search(namespace=namespace, params=RawSearch(query="pnpm")).batch.public_id
            refs = [f"raw:{message.pk}"]
        else:
            batch = events_search(
                namespace=namespace, params=EventSearch(query="pnpm", session_id=session)
            ).batch.public_id
            refs = []
        if refs:
            _assess(namespace, batch, "sufficient", refs, next_strategy="answer")
        _use(namespace, batch, f"r{n}", refs, session_id=session, answer=f"answer {n}")
        say(namespace, session, 100 + n, f"question {n}", f"answer {n}")
    return namespace


def count_queries(client: Client, url: str) -> int:
    with CaptureQueriesContext(connection) as queries:
        assert client.get(url).status_code == 200
    return len(queries)


def test_the_list_pages_in_sql_with_a_fixed_number_of_queries(ada, django_assert_max_num_queries):
    small = count_queries(ada, audit_url(many_receipts("few", 3).name))
    large = count_queries(ada, audit_url(many_receipts("many", 40).name))
    assert small == large, (small, large)
    with django_assert_max_num_queries(14):
        ada.get(audit_url("many"))


def test_page_two_holds_the_rest(ada):
    namespace = many_receipts("paged", 55)
    first = get(ada, audit_url(namespace.name))
    second = get(ada, audit_url(namespace.name), page="2")
    assert len(listed(first)) == 50 and len(listed(second)) == 5
    assert set(listed(first)).isdisjoint(listed(second))
    assert "Receipts 51–55 of 55, newest first" in second and "Page 2 of 2" in second
    assert 'href="?page=2"' in first and "Older" in first
    # Filters stay in the pager's links.
    today = timezone.localdate().isoformat()
    filtered = get(ada, audit_url(namespace.name), **{"from": today})
    assert f'href="?from={today}&amp;page=2"' in filtered
    assert "Page 2 of 2" in get(ada, audit_url(namespace.name), page="99")


def test_the_list_finds_each_answer_turn_as_the_chain_does(proj):
    rows = with_answer_turn(receipts_filtered(proj.namespace, ReceiptFilter()))
    for row in rows.select_related("batch", "session", "answer_turn"):
        turn = answer_turn(row)
        assert row.answer_turn_pk == (turn.pk if turn else None), row.receipt_id


# --- the chain ---------------------------------------------------------------------------------


def test_the_chain_walks_answer_verdict_memories_and_source_messages(ada, proj):
    html = get(ada, receipt_url(proj.ok.pk))
    steps = [html.index(f'id="{step}"') for step in ("answer", "verdict", "memories", "sources")]
    assert steps == sorted(steps)
    answer = section(html, "answer")
    assert "When did we switch to pnpm?" in answer  # the answer turn's messages
    assert "Turn 1 of the session" in answer
    verdict = section(html, "verdict")
    assert "✓</span> sufficient" in verdict and "(as submitted)" in verdict
    assert "the switch to pnpm" in verdict  # fit
    assert "package manager pnpm npm" in verdict  # the batch's query
    assert "when_without_occurrence_date" in verdict  # gate advice, code and message
    assert "The question asks when" in verdict
    memories = section(html, "memories")
    assert "Use pnpm as package manager" in memories
    assert "reinforced: n 1 → 2" in memories
    sources = html[html.index('id="sources"') : html.index('id="apart-title"')]
    link = reverse("graphui:message", args=["proj", proj.source.pk])
    assert f'href="{link}"' in sources
    assert "Let&#x27;s switch to pnpm." in sources


def test_the_message_link_opens_the_block_at_l5_highlighted(ada, proj):
    response = ada.get(reverse("graphui:message", args=["proj", proj.source.pk]))
    assert response.status_code == 302
    location = response["Location"]
    assert "view=5" in location and f"hl={proj.source.pk}" in location
    assert location.endswith(f"#msg-{proj.source.pk}")


def test_retrieved_unused_and_injected_memory_are_shown_apart(ada, proj):
    html = get(ada, receipt_url(proj.ok.pk))
    memories = section(html, "memories")
    unused = section(html, "unused")
    injected = section(html, "injected")
    npm = f"event:{proj.npm.pk}"
    pnpm = f"event:{proj.pnpm.pk}"
    assert npm not in memories and npm in unused and "Use npm as package manager" in unused
    assert "Retrieved, not used" in unused
    assert "Injected as background, never counts as use" in injected
    activation = Activation.objects.get(namespace=proj.namespace)
    assert pnpm in activation.refs and pnpm in injected
    assert "also cited by the answer" in injected and "For this question" in injected
    # The three kinds read differently: a symbol and a word each.
    for words in ("cited — reinforced", "retrieved, not used", "injected as background"):
        assert words in html


def test_a_partial_assessment_shows_its_rejected_refs_with_reasons(ada, proj):
    html = get(ada, receipt_url(proj.zero.pk))
    verdict = section(html, "verdict")
    assert "◐</span> partial" in verdict and "(as submitted)" in verdict
    assert "search raw messages" in verdict  # the next strategy in words
    assert "whether it shipped" in verdict  # missing
    assert "3 rejected refs" in verdict
    for words in (
        "not a valid ref",
        "not among what this batch retrieved",
        "a duplicate of a ref cited before it",
    ):
        assert words in verdict
    assert "&lt;img src=x onerror=alert(1)&gt;" in verdict
    assert "event:999999999" in verdict
    memories = section(html, "memories")
    assert "a zero-increment receipt" in memories
    assert f"event:{proj.plan.pk}" in section(html, "unused")


def test_a_downgraded_verdict_says_why(ada, proj):
    namespace = proj.namespace
    batch = events_search(namespace=namespace, params=EventSearch(query="pnpm")).batch.public_id
    _assess(namespace, batch, "sufficient", ["event:999999999"], next_strategy="answer")
    receipt = _use(namespace, batch, "call-downgraded", [])
    verdict = section(get(ada, receipt_url(receipt.pk)), "verdict")
    assert "submitted" in verdict and "validated" in verdict
    assert "downgraded to partial" in verdict
    assert "search events" in verdict and "(changed by the gate)" in verdict


def test_a_raw_message_cited_itself_is_its_own_source(ada, proj):
    html = get(ada, receipt_url(proj.raw.pk))
    memories = section(html, "memories")
    assert "raw message" in memories and f"raw:{proj.source.pk}" in memories
    sources = html[html.index('id="sources"') : html.index('id="apart-title"')]
    assert "A raw message, cited itself" in sources
    assert f'href="{reverse("graphui:message", args=["proj", proj.source.pk])}"' in sources


def test_the_chain_page_query_count_is_bounded(ada, proj, django_assert_max_num_queries):
    with django_assert_max_num_queries(30):
        get(ada, receipt_url(proj.ok.pk))


@pytest.mark.parametrize(
    ("adoptions", "reinforcing", "receipt", "reinforced", "expected"),
    [
        (2, [7], 7, True, (1, 2)),  # the first receipt ever
        (4, [3, 7, 9], 7, True, (2, 3)),  # the middle one of three
        (5, [3, 7, 9], 7, True, (None, None)),  # an adoption without a receipt: unknowable
        (1, [], 7, False, (None, None)),  # cited while forgotten: not reinforced
        (3, [3, 3, 7], 7, True, (2, 3)),  # two refs of one receipt count once
    ],
)
def test_reinforcement_is_told_only_when_the_history_is_all_receipts(
    adoptions, reinforcing, receipt, reinforced, expected
):
    assert (
        reinforcement(
            adoptions=adoptions, reinforcing=reinforcing, receipt_pk=receipt, reinforced=reinforced
        )
        == expected
    )


# --- a memory's usage page ---------------------------------------------------------------------


def test_the_usage_page_lists_the_answers_that_cited_it(ada, proj):
    html = get(ada, usage_url(proj.pnpm.pk))
    cited = section(html, "cited")
    assert f'href="{receipt_url(proj.ok.pk)}"' in cited
    assert "call-ok" in cited
    assert re.search(r'class="value">1<', section(html, "usage-summary"))
    injected = section(html, "injected")
    assert "namespace turn" in injected and "s2" in injected


def test_the_usage_page_counts_retrievals_without_use(ada, proj):
    html = get(ada, usage_url(proj.npm.pk))
    assert "No answer has cited it yet" in section(html, "cited")
    unused = section(html, "unused")
    assert "package manager pnpm npm" in unused
    assert f'href="{receipt_url(proj.ok.pk)}"' in unused  # the answer that used other memory
    summary = section(html, "usage-summary")
    assert re.search(r'class="value">1</div><div class="label"><span aria-hidden="true">○', summary)


def test_an_open_batch_counts_as_retrieved_without_use(ada, proj):
    events_search(namespace=proj.namespace, params=EventSearch(query="npm pnpm"))
    html = get(ada, usage_url(proj.npm.pk))
    assert "open: no receipt yet" in section(html, "unused")
    assert "1 batch still open" in html


def test_pages_link_to_the_usage_page(ada, proj):
    link = f'href="{usage_url(proj.pnpm.pk)}"'
    assert link in get(ada, reverse("graphui:event", args=["proj", proj.pnpm.pk]))
    assert link in get(ada, reverse("graphui:timeline", args=["proj"]))  # "used 1×"
    assert link in get(ada, reverse("graphui:search", args=["proj"]), q="pnpm")


# --- errors, escaping, redaction ---------------------------------------------------------------


def test_unknown_or_foreign_receipts_and_events_are_404(ada, proj):
    other = many_receipts("other", 1)
    foreign = UsageReceipt.objects.get(namespace=other)
    for url in (receipt_url(foreign.pk), receipt_url(999_999)):
        response = ada.get(url)
        assert response.status_code == 404 and b"receipt_not_found" in response.content
    foreign_event = Event.objects.get(namespace=other)
    for url in (usage_url(foreign_event.pk), usage_url(999_999)):
        response = ada.get(url)
        assert response.status_code == 404 and b"event_not_found" in response.content
    response = ada.get(audit_url("nope"))
    assert response.status_code == 404 and b"namespace_not_found" in response.content


def test_anonymous_visitors_are_sent_to_log_in(client, proj):
    for url in (audit_url(), receipt_url(proj.ok.pk), usage_url(proj.pnpm.pk)):
        response = client.get(url)
        assert response.status_code == 302
        assert response["Location"] == f"/accounts/login/?next={url}"


def test_the_pages_only_read(ada, proj):
    before = (UsageReceipt.objects.count(), Activation.objects.count())
    retrieved = Event.objects.get(pk=proj.npm.pk).last_retrieved_at
    for url in (audit_url(), receipt_url(proj.ok.pk), usage_url(proj.pnpm.pk)):
        assert ada.post(url).status_code == 405
        get(ada, url)
    assert (UsageReceipt.objects.count(), Activation.objects.count()) == before
    assert Event.objects.get(pk=proj.npm.pk).last_retrieved_at == retrieved


def test_secrets_in_answers_are_redacted(ada, proj):
    for html in (get(ada, audit_url()), get(ada, receipt_url(proj.ok.pk))):
        assert "sk-abcdefghijklmnop1234" not in html
        assert "[REDACTED]" in html


def test_hostile_answers_and_refs_are_escaped(ada, proj):
    for html in (get(ada, audit_url()), get(ada, receipt_url(proj.zero.pk))):
        assert ANSWER_SCRIPT not in html and HOSTILE_REF not in html
        assert "&lt;script&gt;alert(&quot;answer&quot;)&lt;/script&gt;" in html


def hostile_receipt_create() -> dict[str, int]:
    """The hostile namespace plus one loop in its hostile session: the query, the answer, the
    fit and a rejected ref carry probes, and the cited event is the hostile one."""
    namespace = hostile_namespace_create()
    event = Event.objects.get(namespace=namespace, title__contains="Decision")
    session = Message.objects.filter(namespace=namespace).first().session.external_id  # type: ignore[union-attr]
    batch = events_search(
        namespace=namespace, params=EventSearch(query=f"decision {SCRIPT}", session_id=session)
    ).batch.public_id
    refs = [f"event:{event.pk}"]
    _assess(namespace, batch, "sufficient", [*refs, IMG], fit=SCRIPT, next_strategy="answer")
    receipt = _use(namespace, batch, f"hostile {SCRIPT}", refs, answer=f"{SCRIPT} {IMG}")
    return {"receipt": receipt.pk, "event": event.pk}


@pytest.fixture
def hostile() -> dict[str, int]:
    return hostile_receipt_create()


def test_hostile_memory_is_shown_as_text(ada, hostile):
    pages = (
        audit_url("hostile"),
        receipt_url(hostile["receipt"], "hostile"),
        usage_url(hostile["event"], "hostile"),
    )
    for url in pages:
        html = get(ada, url)
        for probe in PROBES:
            assert probe not in html, (url, probe)
        assert "&lt;script&gt;" in html, url
