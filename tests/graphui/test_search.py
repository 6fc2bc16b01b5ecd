"""The search page: the product's real ranking over events, graph, blocks and messages, matches
marked, why each hit matched, and a person browsing never becomes an agent's evidence loop."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from graphui.templatetags.events import lifecycle_badge
from memory.engine.prompts.extraction import ExtractedEvent
from memory.engine.prompts.graph import GraphProposal
from memory.models import BatchItem, Block, Event, Message, Namespace, RetrievalBatch
from memory.recall.events import EventSearch
from memory.services.events import EventContext, event_create
from memory.services.graph import graph_apply
from memory.services.ingest import MessageIn, TurnIn, turn_ingest
from memory.services.jobs import jobs_drain
from memory.services.namespaces import namespace_get_or_create
from memory.services.retrieval import events_search
from tests.browser.hostile import IMG, JS_LINK, SCRIPT, hostile_namespace_create

pytestmark = pytest.mark.django_db

ROOT = Path(__file__).resolve().parents[2]

SECRET = "sk-abcdefghijklmnop1234"
# One sealed block: the offline processor turns it into events (npm superseded by pnpm, a
# PostgreSQL decision, plans) and graph nodes (project, PostgreSQL, npm, pnpm).
TURNS = [
    ("Use npm for this project.", "OK, npm it is."),
    ("Let's switch to pnpm, npm is too slow.", "Switched the package manager to pnpm."),
    ("We decided to move the database to Postgres on 2023-05-08.", "Postgres migration planned."),
    ("我们决定用数据库 PostgreSQL 存储用户数据。", "好的，数据库改为 PostgreSQL。"),
    ("Finish the prototype next week.", "Noted, prototype next week."),
    (f"My key is api_key={SECRET} for postgres", "Keep it secret."),
]


def say(namespace: Namespace, session: str, n: int, user: str, assistant: str) -> None:
    turn_ingest(
        namespace=namespace,
        turn=TurnIn(
            session_id=session,
            receipt_id=f"{session}-{n}",
            messages=[
                MessageIn(role="user", content=user),
                MessageIn(role="assistant", content=assistant),
            ],
        ),
    )


@pytest.fixture
def user(client: Any, django_user_model: Any) -> Any:
    person = django_user_model.objects.create_user(username="ada", is_staff=True)
    client.force_login(person)
    return person


@pytest.fixture
def project() -> Namespace:
    namespace = namespace_get_or_create(name="proj")
    for n, (question, answer) in enumerate(TURNS, start=1):
        say(namespace, "s1", n, question, answer)
    jobs_drain()
    return namespace


def search(client: Any, ns: str = "proj", **params: str) -> Any:
    return client.get(reverse("graphui:search", args=[ns]), params)


def ids_in_order(html: str, kind: str) -> list[int]:
    return [int(i) for i in re.findall(rf'<li class="hit card" id="{kind}-(\d+)"', html)]


def hit(html: str, kind: str, pk: int | None = None) -> str:
    """The markup of one hit card (the first of its kind unless `pk` is given)."""
    start = html.index(f'<li class="hit card" id="{kind}-' + ("" if pk is None else f'{pk}"'))
    ends = [
        i
        for i in (html.find('<li class="hit card"', start + 1), html.find("</ol>", start))
        if i > 0
    ]
    return html[start : min(ends)]


# --- finding and explaining ----------------------------------------------------------------


def test_a_query_finds_events_nodes_blocks_and_messages_with_marked_words(client, user, project):
    response = search(client, q="pnpm switched")

    assert response.status_code == 200
    html = response.content.decode()
    assert ids_in_order(html, "event") and ids_in_order(html, "node")
    assert ids_in_order(html, "block") and ids_in_order(html, "message")
    assert "<mark>pnpm</mark>" in html
    assert "<mark>Switched</mark>" in html  # the stem of "switched" marks "Switched"
    assert "<mark>switch</mark>" in html  # … and "switch" in "Let's switch to pnpm"
    pnpm = Event.objects.get(namespace=project, title__icontains="pnpm")
    assert reverse("graphui:event", args=["proj", pnpm.pk]) in html


def test_each_hit_says_why_it_matched(client, user, project):
    html = search(client, q="pnpm switched").content.decode()

    event = hit(html, "event")
    assert "Why" in event and "words in" in event
    assert "<strong>title</strong> (<q>pnpm</q>)" in event
    assert "text relevance (BM25) + long-term weight (RRF)" in event
    assert re.search(r"score <span class=\"num\">0\.\d{4}</span>", event)
    node = hit(html, "node")
    assert "<strong>name</strong> (<q>pnpm</q>)" in node
    assert re.search(r"matched (current state|history)", node)
    message = hit(html, "message")
    assert "<strong>content</strong>" in message
    assert re.search(r"score <span class=\"num\">0\.\d{3}</span>", message)
    # It matched by its own words and is also the source of a matching event: both are said.
    pnpm = Event.objects.get(namespace__name="proj", title__icontains="pnpm")
    assert "source of the matching event" in message
    assert reverse("graphui:event", args=["proj", pnpm.pk]) in message
    block = hit(html, "block")
    assert "ranked by their best message" in block


def test_events_come_in_the_order_agents_get_them(client, user, project):
    query = "postgres pnpm prototype"
    shown = ids_in_order(search(client, q=query).content.decode(), "event")

    agent = events_search(namespace=project, params=EventSearch(query=query, limit=20))
    assert len(shown) >= 3
    assert shown == [hit.event.pk for hit in agent.hits]


def test_a_graph_node_says_whether_it_matched_current_state_or_history(client, user, project):
    html = search(client, q="npm", kind="graph").content.decode()

    project_node = next(
        hit(html, "node", pk)
        for pk in ids_in_order(html, "node")
        if ">project<" in hit(html, "node", pk)
    )
    assert "matched history" in project_node  # package_manager: npm was superseded by pnpm
    assert "<mark>npm</mark>" in project_node


def test_an_event_hit_shows_its_lifecycle_with_the_shared_badge(client, user, project):
    html = search(client, q="npm pnpm", kind="events").content.decode()

    npm = Event.objects.get(namespace=project, title__icontains="npm", status="superseded")
    pnpm = Event.objects.get(namespace=project, title__icontains="pnpm", status="active")
    by = f'<a href="{reverse("graphui:event", args=["proj", pnpm.pk])}">by #{pnpm.pk}</a>'
    assert f'{lifecycle_badge("superseded")} <span class="superseded-by">· {by}</span>' in (
        hit(html, "event", npm.pk)
    )
    assert str(lifecycle_badge("active")) in hit(html, "event", pnpm.pk)
    source = (ROOT / "templates/graphui/partials/_search_event.html").read_text()
    assert "{% lifecycle_badge r.event.status %}" in source and 'class="badge ok"' not in source


def test_a_message_links_to_its_source_and_shows_its_neighbours(client, user, project):
    html = search(client, q="prototype", kind="messages").content.decode()
    message = Message.objects.get(namespace=project, content="Finish the prototype next week.")

    assert reverse("graphui:message", args=["proj", message.pk]) in html
    part = hit(html, "message", message.pk)
    # The previous message (the last answer) and the next one (its own answer), dimmed.
    assert part.count('class="msg assistant context"') == 2
    assert "before · Assistant" in " ".join(part.split())
    assert "after · Assistant" in " ".join(part.split())
    assert "好的，数据库改为 PostgreSQL。" in part
    assert "Noted, <mark>prototype</mark> next week." in part
    assert "<mark>prototype</mark>" in part


def test_a_block_shows_its_title_and_tags_and_links_to_its_levels(client, user, project):
    block = Block.objects.get(namespace=project)
    html = search(client, q="pnpm", kind="blocks").content.decode()

    part = hit(html, "block", block.pk)
    assert f"{reverse('graphui:block', args=['proj', block.pk])}?level=5" in part
    assert f"{reverse('graphui:block', args=['proj', block.pk])}?level=0" in part
    # The title says pnpm (highlighted); the tags add what the title does not say.
    assert block.views.get(level=0).content.startswith("Let's switch to pnpm")
    assert "Let&#x27;s switch to <mark>pnpm</mark>" in part
    assert '<span class="tag"><mark>pnpm</mark></span>' not in part
    assert '<span class="tag">postgres</span>' in part
    assert 'id="events"' not in html and 'id="messages"' not in html


def test_kind_chips_keep_the_query(client, user, project):
    html = search(client, q="pnpm", kind="events").content.decode()

    assert 'href="?q=pnpm&amp;kind=graph"' in html
    assert 'href="?q=pnpm"' in html  # "All" drops the kind
    assert 'id="graph"' not in html and 'id="events"' in html
    assert 'name="kind" value="events"' in html  # a new query stays on the same kind


def test_a_chinese_query_finds_chinese_content(client, user, project):
    html = search(client, q="数据库").content.decode()

    assert "<mark>数据库</mark>" in html
    messages = ids_in_order(html, "message")
    # The two messages that say it come first; after them, their neighbours (whose context
    # field holds it) and the feedback query's finds.
    assert set(messages[:2]) == set(
        Message.objects.filter(namespace=project, content__contains="数据库").values_list(
            "pk", flat=True
        )
    )
    assert "<q>数据</q>, <q>据库</q>" in html  # the character pairs that matched


def test_secrets_in_hits_are_redacted(client, user, project):
    html = search(client, q="postgres secret").content.decode()

    assert SECRET not in html
    assert "api_key=[REDACTED]" in html


# --- states --------------------------------------------------------------------------------


def test_an_empty_query_explains_how_search_matches(client, user, project):
    response = search(client)

    html = response.content.decode()
    assert response.status_code == 200
    assert 'id="search-empty"' in html and "stem" in html
    assert 'class="tag" href="?q=' in html  # tags of this namespace as example queries
    # 4: the assistant's "Noted, prototype next week." restates the plan and adds no event
    assert "Searched 4 events (active and superseded), 4 graph nodes, 1 block and 12 messages" in (
        " ".join(html.split())
    )
    assert "Read-only: no retrieval batch is recorded" in html


def test_a_query_that_matches_nothing_says_so(client, user, project):
    html = search(client, q="xylophone").content.decode()

    assert 'id="search-nothing"' in html
    assert "Nothing matched “xylophone”" in html
    assert "pairs of characters" in html and "not meanings" in html


def test_a_query_of_common_words_only_says_they_are_ignored(client, user, project):
    html = search(client, q="what is the").content.decode()

    assert "only very common words" in html


def test_a_query_over_4000_characters_is_refused_on_the_page(client, user, project):
    response = search(client, q="postgres " * 500)

    assert response.status_code == 422
    html = response.content.decode()
    assert 'id="search-error"' in html and "query_too_long" in html
    assert "It is 4,500 characters long; search takes at most 4,000." in html
    assert RetrievalBatch.objects.count() == 0


# --- read-only -----------------------------------------------------------------------------


def test_searching_records_no_batch_and_changes_no_weight(client, user, project):
    before = list(Event.objects.order_by("pk").values_list("pk", "adoptions", "last_retrieved_at"))
    batches, items = RetrievalBatch.objects.count(), BatchItem.objects.count()

    for query in ("pnpm", "postgres 数据库", "prototype"):
        assert search(client, q=query).status_code == 200

    assert RetrievalBatch.objects.count() == batches == 0
    assert BatchItem.objects.count() == items
    after = list(Event.objects.order_by("pk").values_list("pk", "adoptions", "last_retrieved_at"))
    assert after == before
    assert all(retrieved is None for _, _, retrieved in after)


# --- scale ---------------------------------------------------------------------------------


def zebra_namespace(name: str, hits: int) -> None:
    """24 turns, events and nodes, of which `hits` of each mention zebras."""
    namespace = namespace_get_or_create(name=name)
    for n in range(24):
        word = "zebra" if n < hits else "giraffe"
        say(namespace, "z", n, f"Question {n} about the {word} enclosure", f"Answer {n}")
    block = Block.objects.filter(namespace=namespace).order_by("pk").first()
    assert block is not None
    message = Message.objects.filter(turn__block=block).order_by("pk").first()
    assert message is not None
    with transaction.atomic():
        events = [
            event_create(
                extracted=ExtractedEvent(
                    title=f"{'Zebra' if n < hits else 'Giraffe'} decision {n}",
                    summary=f"We chose enclosure {n}.",
                    source_message_ids=[message.pk],
                ),
                context=EventContext(block=block, formed_turn=6, messages={message.pk: message}),
            )
            for n in range(24)
        ]
        proposal = GraphProposal.model_validate(
            {
                "nodes": [
                    {
                        "key": f"animal-{n}",
                        "name": f"{'Zebra' if n < hits else 'Giraffe'} keeper {n}",
                        "type": "person",
                        "source_event_ids": [events[n].pk],
                    }
                    for n in range(24)
                ],
                "facts": [
                    {
                        "node_key": f"animal-{n}",
                        "key": "role",
                        "value": "keeper",
                        "source_event_ids": [events[n].pk],
                    }
                    for n in range(24)
                ],
            }
        )
        graph_apply(namespace_id=namespace.pk, events=events, proposal=proposal)


def count_queries(client: Any, ns: str) -> tuple[int, str]:
    with CaptureQueriesContext(connection) as queries:
        response = search(client, ns, q="zebra")
    assert response.status_code == 200
    return len(queries), response.content.decode()


def test_query_count_does_not_grow_with_hits(client, user, django_assert_max_num_queries):
    zebra_namespace("few", 3)
    zebra_namespace("many", 20)

    few, few_html = count_queries(client, "few")
    # PostgreSQL's search backend wraps each ranked query in a savepoint with a planner setting
    # (4 statements more per ranked query; message recall ranks up to three times: pool, speaker,
    # feedback), and recall reads the sources of the query's event text hits (one search, its
    # term counts and one read): a constant, not a growth with hits.
    with django_assert_max_num_queries(44 if connection.vendor == "sqlite" else 88):
        many, many_html = count_queries(client, "many")

    assert len(ids_in_order(few_html, "event")) == 3
    assert len(ids_in_order(many_html, "event")) == 20
    assert len(ids_in_order(many_html, "node")) == 20
    assert len(ids_in_order(many_html, "message")) == 20
    assert many == few, (few, many)


def test_a_message_found_through_an_event_says_which(client, user):
    """A message ranked as the source of a matching event (services.recall) names that event,
    linked, in its "Why" line, since none of its own words matched."""
    namespace = namespace_get_or_create(name="via")
    lines = [("Guess what, I signed up for a pottery class.", "Fun!")] + [
        (f"Weather note {n}.", "Noted.") for n in range(5)
    ]
    for n, (user_text, assistant_text) in enumerate(lines, start=1):
        say(namespace, "s1", n, user_text, assistant_text)
    source = Message.objects.get(namespace=namespace, content=lines[0][0])
    block = source.turn.block
    with transaction.atomic():
        event = event_create(
            extracted=ExtractedEvent(
                title="Ana took up a new <b>hobby</b>",
                summary="Pottery class",
                source_message_ids=[source.pk],
            ),
            context=EventContext(
                block=block,
                formed_turn=6,
                messages={m.pk: m for m in Message.objects.filter(turn__block=block)},
            ),
        )
    say(namespace, "s2", 1, "A hobby of mine is chess.", "Nice.")

    html = search(client, "via", q="hobby").content.decode()

    via = hit(html, "message", source.pk)
    assert "source of the matching event" in via
    assert reverse("graphui:event", args=["via", event.pk]) in via
    assert "Ana took up a new &lt;b&gt;hobby&lt;/b&gt;" in via  # a title is text, not markup
    direct = Message.objects.get(namespace=namespace, content="A hobby of mine is chess.")
    assert "source of the matching event" not in hit(html, "message", direct.pk)
    assert ids_in_order(html, "message")[0] == direct.pk  # its own words rank first


# --- access and hostile content ------------------------------------------------------------


def test_anonymous_visitors_are_sent_to_log_in(client, project):
    response = search(client, q="pnpm")

    assert response.status_code == 302
    assert response["Location"].startswith("/accounts/login/?next=/ns/proj/search/")


def test_an_unknown_namespace_is_a_404_page(client, user):
    response = search(client, "nowhere", q="pnpm")

    assert response.status_code == 404
    assert "namespace_not_found" in response.content.decode()


def test_hostile_hits_are_shown_as_text(client, user):
    hostile_namespace_create()

    for query in ("script", "xss alert", "img onerror", SCRIPT):
        response = search(client, "hostile", q=query)
        assert response.status_code == 200
        html = response.content.decode()
        for probe in (SCRIPT, IMG, JS_LINK):
            assert probe not in html
        assert 'href="javascript:' not in html.lower()
        assert "<img" not in html
    html = search(client, "hostile", q="script").content.decode()
    assert ids_in_order(html, "event") and ids_in_order(html, "node")
    assert ids_in_order(html, "message")
    assert "&lt;<mark>script</mark>&gt;" in html
    # The only scripts are our own static files (no inline script, nothing from memory).
    assert re.findall(r'<script(?! src="/static/graphui/js/[a-z]+\.js")', html) == []
