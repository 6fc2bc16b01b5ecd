"""Event timeline and event page (SPEC §13.3): order by occurrence (mention where unknown), the
filters, both time axes, planned vs happened vs cancelled, supersede/conflict links, weight
sparklines with adoptions, sources one click away, fixed query counts, 404s and escaping."""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import UTC, datetime
from html import unescape
from typing import Any

import pytest
from django.db import connection, transaction
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from memory.engine.prompts.extraction import ExtractedEvent
from memory.models import Block, Event, Message, Namespace
from memory.recall.events import EventSearch
from memory.services.adoption import UseRequest, usage_record
from memory.services.events import (
    EventContext,
    event_conflict,
    event_create,
    event_lifecycle,
    event_supersede,
)
from memory.services.gate import AssessRequest, gate_assess
from memory.services.ingest import MessageIn, TurnIn, turn_ingest
from memory.services.jobs import jobs_drain
from memory.services.namespaces import namespace_get_or_create
from memory.services.retrieval import events_search
from memory.services.settings import memory_settings_update
from tests.browser.hostile import IMG, PROBES, SCRIPT, hostile_namespace_create
from tests.worlds import module_world

pytestmark = pytest.mark.django_db

SECRET = "api_key=sk-abcdefghijklmnop1234"

# (when it was said, what was said), one block each (block size 1).
TURNS = [
    (datetime(2026, 10, 9, 14, 2, tzinfo=UTC), "Use npm for this project."),
    (datetime(2026, 10, 9, 14, 5, tzinfo=UTC), "Let's switch to pnpm."),
    (datetime(2026, 10, 9, 14, 8, tzinfo=UTC), "We will release version 2.0 next Friday."),
    (
        datetime(2026, 10, 9, 14, 12, tzinfo=UTC),
        "We cancelled the team offsite planned for next Monday.",
    ),
    (
        datetime(2026, 9, 1, 9, 0, tzinfo=UTC),
        "We had a meeting yesterday about the database migration.",
    ),
    (datetime(2026, 11, 2, 9, 0, tzinfo=UTC), "The deploy failed with an incident on 2026-10-20."),
    (datetime(2026, 11, 1, 9, 0, tzinfo=UTC), "We decided to use PostgreSQL for production."),
]


@pytest.fixture
def ada(client: Client, django_user_model: Any) -> Client:
    client.force_login(django_user_model.objects.create_user("ada", is_staff=True))
    return client


def say(namespace: Namespace, n: int, text: str, at: datetime, session: str = "s1") -> None:
    turn_ingest(
        namespace=namespace,
        turn=TurnIn(
            session_id=session,
            receipt_id=f"{session}-r{n}",
            occurred_at=at,
            messages=[
                MessageIn(role="user", content=text),
                MessageIn(role="assistant", content="Noted."),
            ],
        ),
    )


def adopt(namespace: Namespace, query: str, event: Event, receipt: str) -> None:
    """The evidence loop: search → sufficient assessment → usage receipt citing the event."""
    found = events_search(namespace=namespace, params=EventSearch(query=query))
    ref = f"event:{event.pk}"
    gate_assess(
        namespace=namespace,
        request=AssessRequest(
            verdict="sufficient",
            evidence_refs=[ref],
            next_strategy="answer",
            batch_id=found.batch.public_id,
        ),
    )
    usage_record(
        namespace=namespace,
        request=UseRequest(receipt_id=receipt, evidence_refs=[ref], batch_id=found.batch.public_id),
    )


def event_titled(text: str) -> Event:
    return Event.objects.get(title__icontains=text)


def extra_event(block: Block, **fields: Any) -> Event:
    messages = {m.pk: m for m in Message.objects.filter(turn__block=block)}
    extracted = ExtractedEvent(source_message_ids=list(messages)[:1], **fields)
    with transaction.atomic():
        return event_create(
            extracted=extracted,
            context=EventContext(block=block, formed_turn=block.turns.count(), messages=messages),
        )


@pytest.fixture(scope="module")
def _proj_world(django_db_setup: None, django_db_blocker: Any) -> Iterator[int]:
    with module_world(django_db_blocker):
        yield _proj_build().pk


@pytest.fixture
def proj(db: None, _proj_world: int) -> Namespace:
    """The module's world (built once: ~1 s per test), read afresh for each test."""
    return Namespace.objects.get(pk=_proj_world)


def _proj_build() -> Namespace:
    """Seven one-turn blocks through ingest and offline extraction (npm superseded by pnpm), a
    conflict, an event with named participants, a usage receipt for pnpm, and turns after."""
    memory_settings_update(block_turns=1)
    namespace = namespace_get_or_create(name="proj")
    for n, (at, text) in enumerate(TURNS, start=1):
        say(namespace, n, text, at)
    jobs_drain()
    with transaction.atomic():
        event_conflict(event=event_titled("PostgreSQL"), other=event_titled("incident"))
    block = Block.objects.filter(namespace=namespace).order_by("pk").first()
    assert block is not None
    extra_event(
        block,
        title="Pairing session with Alice Chen and 王小明",
        summary="Alice Chen and 王小明 paired on the parser.",
        event_type="collaboration",
        participants=["Alice Chen", "王小明"],
        temporal_status="occurred",
        happened_start=datetime(2026, 10, 14, tzinfo=UTC),
        happened_end=datetime(2026, 10, 14, 23, 59, tzinfo=UTC),
        precision="day",
        basis="explicit",
        original_text="on 14 October",
    )
    say(namespace, 8, "What did we pick for packages?", datetime(2026, 11, 3, tzinfo=UTC))
    jobs_drain()
    namespace.refresh_from_db()
    adopt(namespace, "pnpm", event_titled("pnpm"), "answer-1")
    say(namespace, 9, "Thanks, moving on.", datetime(2026, 11, 4, tzinfo=UTC))
    jobs_drain()
    namespace.refresh_from_db()
    return namespace


def timeline_url(ns: str = "proj") -> str:
    return reverse("graphui:timeline", args=[ns])


def event_url(event_id: int, ns: str = "proj") -> str:
    return reverse("graphui:event", args=[ns, event_id])


def shown_ids(html: str) -> list[int]:
    return [int(i) for i in re.findall(r'<li class="ev [^"]*" id="event-(\d+)"', html)]


def get(client: Client, url: str, **params: Any) -> str:
    response = client.get(url, params)
    assert response.status_code == 200, response.content[:500]
    return response.content.decode()


# --- order and the two axes -------------------------------------------------------------------


def test_timeline_orders_by_occurrence_and_by_mention_where_occurrence_is_unknown(ada, proj):
    html = get(ada, timeline_url())
    order = [Event.objects.get(pk=i).title for i in shown_ids(html)]
    assert order == [
        "We had a meeting yesterday about the database migration",  # happened 31 Aug
        "Use npm as package manager",  # said 9 Oct 14:02, no occurrence
        "Use pnpm as package manager",  # said 9 Oct 14:05
        "We cancelled the team offsite planned for next Monday",  # was for 12 Oct
        "Pairing session with Alice Chen and 王小明",  # 14 Oct
        "We will release version 2.0 next Friday",  # happens 16 Oct
        "The deploy failed with an incident on 2026-10-20",  # happened 20 Oct, said 2 Nov
        "Use PostgreSQL as database",  # said 1 Nov, no occurrence
    ]


def test_each_event_shows_both_time_axes(ada, proj):
    html = get(ada, timeline_url())
    release = event_titled("release version")
    card = card_html(html, release.pk)
    assert "Happens" in card and '<time datetime="2026-10-16">2026-10-16</time>' in card
    assert '(day · relative · <q class="wording">next Friday</q>)' in card
    assert "Mentioned" in card and "2026-10-09 14:08" in card
    npm = card_html(html, event_titled("Use npm").pk)
    assert "Happens/happened" not in npm  # occurred without a date
    assert "Happened" in npm and "unknown" in npm and "2026-10-09 14:02" in npm


def card_html(html: str, event_id: int) -> str:
    start = html.index(f'id="event-{event_id}"')
    end = html.find('<li class="ev ', start + 10)
    return html[start : end if end != -1 else len(html)]


def test_planned_happened_and_cancelled_read_differently_in_words(ada, proj):
    html = get(ada, timeline_url())
    assert "◷</span> planned" in card_html(html, event_titled("release version").pk)
    assert "✕</span> cancelled" in card_html(html, event_titled("offsite").pk)
    assert "●</span> happened" in card_html(html, event_titled("incident").pk)
    assert 'class="ev ev-planned' in html and 'class="ev ev-cancelled' in html
    assert 'class="ev ev-occurred' in html


# --- filters ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("params", "expected"),
    [
        ({"status": "superseded"}, ["Use npm as package manager"]),
        ({"type": "plan"}, ["We will release version 2.0 next Friday"]),
        ({"temporal": "cancelled"}, ["We cancelled the team offsite planned for next Monday"]),
        ({"participant": "alice"}, ["Pairing session with Alice Chen and 王小明"]),
        ({"participant": "王小明"}, ["Pairing session with Alice Chen and 王小明"]),
        ({"participant": '"'}, []),  # the JSON text is not searched
        (
            {"from": "2026-10-12", "to": "2026-10-16"},
            [
                "We cancelled the team offsite planned for next Monday",
                "Pairing session with Alice Chen and 王小明",
                "We will release version 2.0 next Friday",
            ],
        ),
        ({"from": "2026-11-01"}, ["Use PostgreSQL as database"]),
        ({"to": "2026-09-30"}, ["We had a meeting yesterday about the database migration"]),
        (
            {"type": "decision", "status": ["active", "superseded"]},
            [
                "Use npm as package manager",
                "Use pnpm as package manager",
                "Use PostgreSQL as database",
            ],
        ),
    ],
)
def test_every_filter_narrows_the_timeline(ada, proj, params, expected):
    html = get(ada, timeline_url(), **params)
    assert [Event.objects.get(pk=i).title for i in shown_ids(html)] == expected


def test_active_filters_show_as_removable_chips_and_a_clear_link(ada, proj):
    html = unescape(get(ada, timeline_url(), type="plan", participant="alice", page="1"))
    chips = html[
        html.index('id="filter-chips"') : html.index("</div>", html.index('id="filter-chips"'))
    ]
    assert "Type: <strong>plan</strong>" in chips
    assert "Participant: <strong>alice</strong>" in chips
    assert 'href="?participant=alice"' in chips  # removing the type keeps the rest, drops page
    assert 'href="?type=plan"' in chips
    assert f'href="{timeline_url()}"' in chips  # clear all
    assert 'id="clear-filters"' in html


def test_removing_one_lifecycle_chip_keeps_the_other(ada, proj):
    html = unescape(get(ada, timeline_url(), status=["active", "forgotten"]))
    assert 'href="?status=forgotten"' in html and 'href="?status=active"' in html


def test_an_invalid_filter_value_is_reported_and_ignored(ada, proj):
    html = get(ada, timeline_url(), type="nonsense", to="not a date")
    assert "Select a valid choice" in html and "Enter a valid date." in html
    assert len(shown_ids(html)) == 8
    inverted = get(ada, timeline_url(), **{"from": "2026-11-01", "to": "2026-01-01"})
    assert "The end date is before the start date." in inverted
    assert len(shown_ids(inverted)) == 1  # the valid start still applies


def test_without_filters_there_are_no_chips_and_no_clear_link(ada, proj):
    html = get(ada, timeline_url())
    assert 'id="filter-chips"' not in html and 'id="clear-filters"' not in html


def test_no_match_says_so_with_a_way_back(ada, proj):
    html = get(ada, timeline_url(), participant="nobody")
    assert "No event matches these filters." in html
    assert 'id="timeline-empty"' in html


def test_an_empty_namespace_explains_where_events_come_from(ada):
    namespace_get_or_create(name="empty")
    html = get(ada, timeline_url("empty"))
    assert "No events yet." in html


# --- hidden events ----------------------------------------------------------------------------


def test_forgotten_events_show_only_when_asked_for_and_are_marked(ada, proj):
    meeting = event_titled("meeting")
    event_lifecycle(event=meeting, action="forget", actor="test")
    assert meeting.pk not in shown_ids(get(ada, timeline_url()))
    html = get(ada, timeline_url(), status="forgotten")
    assert shown_ids(html) == [meeting.pk]
    card = card_html(html, meeting.pk)
    assert "forgotten — hidden from retrieval, weight 0" in card
    assert "weight <strong>0.00</strong>" in card
    assert "Showing forgotten or archived events" in html


# --- relations, weight, sources ---------------------------------------------------------------


def test_supersede_and_conflict_links_name_the_linked_events(ada, proj):
    npm, pnpm = event_titled("Use npm"), event_titled("pnpm")
    postgres, incident = event_titled("PostgreSQL"), event_titled("incident")
    html = get(ada, timeline_url())
    npm_card = card_html(html, npm.pk)
    assert "superseded by" in npm_card
    assert (
        f'href="{event_url(pnpm.pk)}">#{pnpm.pk} <span class="ev-link-title">Use pnpm' in npm_card
    )
    assert f'href="{event_url(npm.pk)}">#{npm.pk} <span class="ev-link-title">Use npm' in card_html(
        html, pnpm.pk
    )
    assert "supersedes" in card_html(html, pnpm.pk)
    assert "conflicts with" in card_html(html, postgres.pk)
    assert f'href="{event_url(incident.pk)}"' in card_html(html, postgres.pk)
    assert f'href="{event_url(postgres.pk)}"' in card_html(html, incident.pk)


def test_a_manual_supersede_links_both_ways(ada, proj):
    plan, offsite = event_titled("release version"), event_titled("offsite")
    with transaction.atomic():
        event_supersede(new=plan, old=offsite)
    html = get(ada, timeline_url())
    assert f'href="{event_url(plan.pk)}"' in card_html(html, offsite.pk)
    # Not marked hidden (ada is staff: the card's own Forget… action has the same symbol).
    assert "⊘" not in card_html(html, offsite.pk).split('class="event-actions')[0]


def test_the_weight_sparkline_marks_adoptions_after_a_usage_receipt(ada, proj):
    pnpm, npm = event_titled("pnpm"), event_titled("Use npm")
    html = get(ada, timeline_url())
    card = card_html(html, pnpm.pk)
    assert '<svg class="sparkline"' in card
    assert card.count('<circle class="adopt"') == 1
    assert "Adopted at turns 8." in card
    assert "n=2" in card
    npm_card = card_html(html, npm.pk)
    assert '<circle class="adopt"' not in npm_card
    assert "cap 0.1" in npm_card and "Never adopted by an answer." in npm_card


def test_the_source_link_opens_the_block_at_l5_with_the_messages_highlighted(ada, proj):
    pnpm = event_titled("pnpm")
    ids = ",".join(str(m.pk) for m in pnpm.source_messages.order_by("pk"))
    expected = (
        f"{reverse('graphui:block', args=['proj', pnpm.source_block_id])}?level=5&amp;hl={ids}"
    )
    assert f'href="{expected}"' in card_html(get(ada, timeline_url()), pnpm.pk)
    response = ada.get(unescape(expected))
    assert response.status_code == 302  # the block link redirects to its session page


# --- pagination and query counts --------------------------------------------------------------


def many_events(count: int) -> Namespace:
    """`count` events on one block, every third superseding the one before, every fifth in
    conflict with its predecessor, and one receipt citing the first events."""
    memory_settings_update(block_turns=1)
    namespace = namespace_get_or_create(name="many")
    say(namespace, 1, "Alpha notes for the storage layer.", datetime(2026, 1, 1, tzinfo=UTC))
    jobs_drain()
    block = Block.objects.get(namespace=namespace)
    made: list[Event] = []
    for i in range(count - Event.objects.filter(namespace=namespace).count()):
        event = extra_event(
            block,
            title=f"Alpha decision {i}",
            summary=f"Alpha decision number {i} for the storage layer.",
            event_type="decision",
            participants=[f"person {i}"],
        )
        with transaction.atomic():
            if made and i % 3 == 0:
                event_supersede(new=event, old=made[-1])
            if made and i % 5 == 0:
                event_conflict(event=event, other=made[-1])
        made.append(event)
    namespace.refresh_from_db()
    adopt(namespace, "alpha decision", made[0], f"alpha-receipt-{count}")
    namespace.refresh_from_db()
    return namespace


def count_queries(client: Client, url: str) -> int:
    with CaptureQueriesContext(connection) as queries:
        assert client.get(url).status_code == 200
    return len(queries)


def test_the_timeline_pages_in_sql_with_a_fixed_number_of_queries(
    ada, django_assert_max_num_queries
):
    namespace = many_events(5)
    url = timeline_url(namespace.name)
    small = count_queries(ada, url)
    many_events(60)
    large = count_queries(ada, url)
    assert small == large
    # The layout's "may this person act here" reuses the view's lookup (graphui.access).
    with django_assert_max_num_queries(10):
        ada.get(url)


def test_page_two_holds_the_rest(ada):
    namespace = many_events(60)
    html = get(ada, timeline_url(namespace.name), page="2")
    assert len(shown_ids(html)) == 10
    assert "Events 51–60 of 60" in html
    assert "Page 2 of 2" in html and 'rel="prev"' in html and 'rel="next"' not in html
    first = get(ada, timeline_url(namespace.name))
    assert len(shown_ids(first)) == 50 and 'href="?page=2"' in first
    assert set(shown_ids(first)).isdisjoint(shown_ids(html))
    assert "Page 2 of 2" in get(ada, timeline_url(namespace.name), page="99")


def test_paging_keeps_the_filters(ada):
    namespace = many_events(60)
    html = unescape(get(ada, timeline_url(namespace.name), type="decision"))
    assert 'href="?type=decision&page=2"' in html


# --- the event page ---------------------------------------------------------------------------


def test_event_page_shows_everything_about_one_event(ada, proj):
    pnpm, npm = event_titled("pnpm"), event_titled("Use npm")
    html = get(ada, event_url(pnpm.pk))
    assert '<h1 class="ev-title">Use pnpm as package manager</h1>' in html
    for section in (
        "when-title",
        "summary-title",
        "weight",
        "relations",
        "sources",
        "graph-support",
        "usage",
    ):
        assert f'id="{section}"' in html, section
    assert "Mentioned" in html and "2026-10-09 14:05" in html
    assert '<svg class="chart"' in html and 'class="adopt"' in html  # trajectory with adoption
    assert "namespace turn" in html
    assert f'href="{event_url(npm.pk)}">#{npm.pk}' in html  # supersedes npm
    # Source messages rendered with the shared partial, and the block link at L5.
    source = pnpm.source_messages.get()
    assert f'id="msg-{source.pk}"' in html and "Let&#x27;s switch to pnpm." in html
    assert f"?level=5&amp;hl={source.pk}" in html
    assert reverse("graphui:message", args=["proj", source.pk]) in html
    # Graph support: the current package manager fact and the uses edge, linked to nodes.
    assert "package_manager" in html and "● </span>" not in html
    assert "current" in html and reverse("graphui:node", args=["proj", 1])[:-2] in html
    # Usage: cited once by a receipt.
    assert "Cited by 1 answer (reinforced)" in html
    assert "answer-1" in html
    for label in ("Scope", "Criticality", "Origin", "Formed at", "Pinned"):
        assert label in html


def test_a_superseded_events_facts_show_as_historical(ada, proj):
    html = get(ada, event_url(event_titled("Use npm").pk))
    assert "historical" in html
    assert "Superseded at turn 2: capped at 0.1 from then on." in html


def test_a_forgotten_event_page_says_it_is_hidden(ada, proj):
    meeting = event_titled("meeting")
    event_lifecycle(event=meeting, action="forget", actor="test")
    html = get(ada, event_url(meeting.pk))
    assert "forgotten — hidden from retrieval, weight 0" in html
    assert "Forgotten or archived: hidden from retrieval, weight 0" in html


def test_event_page_query_count_is_bounded(ada, proj, django_assert_max_num_queries):
    with django_assert_max_num_queries(24):
        get(ada, event_url(event_titled("pnpm").pk))


def test_unknown_or_foreign_event_ids_are_404(ada, proj):
    other = namespace_get_or_create(name="other")
    say(other, 1, "Use yarn for this project.", datetime(2026, 1, 1, tzinfo=UTC), session="o1")
    jobs_drain()
    foreign = Event.objects.get(namespace=other)
    for url in (event_url(999_999), event_url(foreign.pk)):
        response = ada.get(url)
        assert response.status_code == 404
        assert b"event_not_found" in response.content
    response = ada.get(timeline_url("nope"))
    assert response.status_code == 404 and b"namespace_not_found" in response.content
    assert ada.get(event_url(foreign.pk, ns="nope")).status_code == 404


def test_anonymous_visitors_are_sent_to_log_in(client, proj):
    for url in (timeline_url(), event_url(event_titled("pnpm").pk)):
        response = client.get(url)
        assert response.status_code == 302
        assert response["Location"] == f"/accounts/login/?next={url}"


def test_the_pages_are_read_only(ada, proj):
    before = (Event.objects.count(), list(Event.objects.values_list("adoptions", flat=True)))
    get(ada, timeline_url())
    get(ada, event_url(event_titled("pnpm").pk))
    assert (
        Event.objects.count(),
        list(Event.objects.values_list("adoptions", flat=True)),
    ) == before
    assert ada.post(timeline_url()).status_code == 405


# --- redaction and hostile content ------------------------------------------------------------


def test_secrets_are_redacted_on_both_pages(ada, proj):
    say(
        proj,
        10,
        f"We decided to rotate the deploy key {SECRET} today.",
        datetime(2026, 11, 5, tzinfo=UTC),
    )
    jobs_drain()
    event = Event.objects.get(namespace=proj, source_messages__content__contains="rotate")
    pages = get(ada, timeline_url()) + get(ada, event_url(event.pk))
    assert "sk-abcdefghijklmnop1234" not in pages
    assert "[REDACTED]" in pages


def test_hostile_memory_is_escaped_on_both_pages(ada):
    namespace = hostile_namespace_create()
    event = Event.objects.get(namespace=namespace)
    pages = get(ada, timeline_url(namespace.name)) + get(ada, event_url(event.pk, namespace.name))
    for probe in PROBES:
        assert probe not in pages
    assert "&lt;script&gt;" in pages
    assert 'href="javascript:' not in pages.lower()
    assert IMG not in pages and SCRIPT not in pages
    with_participant = get(ada, timeline_url(namespace.name), participant=SCRIPT)
    assert shown_ids(with_participant) == [event.pk]
    assert SCRIPT not in with_participant
