"""Sessions and blocks pages (SPEC §13.5): the list, a session's blocks with their six views,
expanding a block from the UI (SPEC §4.5) and the block / message links other pages rely on."""

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
    AdminAction,
    Block,
    BlockStatus,
    BlockView,
    Message,
    Namespace,
    RetrievalBatch,
    Turn,
)
from memory.services.ingest import MessageIn, TurnIn, turn_ingest
from memory.services.jobs import jobs_drain
from memory.services.namespaces import namespace_get_or_create
from tests.browser.hostile import IMG, PROBES, SCRIPT, SESSION, hostile_namespace_create

pytestmark = pytest.mark.django_db

SECRET = "api_key=sk-abcdefghijklmnop1234"


@pytest.fixture
def ada(client: Client, django_user_model: Any) -> Client:
    client.force_login(django_user_model.objects.create_user("ada", is_staff=True))
    return client


def ingest(
    namespace: Namespace,
    turns: int,
    *,
    session: str = "s1",
    start: int = 1,
    user: str = "Question {n} about the storage layer?",
    drain: bool = True,
) -> None:
    for n in range(start, start + turns):
        turn_ingest(
            namespace=namespace,
            turn=TurnIn(
                session_id=session,
                receipt_id=f"{session}-r{n}",
                messages=[
                    MessageIn(role="user", content=user.format(n=n)),
                    MessageIn(
                        role="assistant",
                        content=f"Answer {n}: we keep PostgreSQL.",
                        tool_calls=[
                            {"name": "lookup", "arguments": {"q": f"q{n}"}, "result": "found it"}
                        ],
                    ),
                ],
            ),
        )
    if drain:
        jobs_drain()


@pytest.fixture
def proj() -> Namespace:
    return namespace_get_or_create(name="proj")


def session_url(session_id: str = "s1", ns: str = "proj") -> str:
    return reverse("graphui:session", args=[ns, session_id])


def blocks_of(session: str = "s1") -> list[Block]:
    return list(Block.objects.filter(session__external_id=session).order_by("sequence"))


def shown_levels(html: str) -> list[int]:
    """The level each block card says it shows now (data-level), in page order."""
    return [
        int(n)
        for n in re.findall(
            r'class="card block-card[^"]*" id="block-\d+"[^>]*'
            r'data-level="(\d)"',
            html,
        )
    ]


def view_panel(html: str, block_id: int) -> str:
    """The shown view of one block card: from its panel to its expand form or note."""
    start = html.index(f'id="block-{block_id}-view"')
    end = re.compile(r'<form class="inline expand-form"|class="[a-z]+ block-note"').search(
        html, start
    )
    assert end is not None
    return html[start : end.start()]


# --- access ------------------------------------------------------------------------------------


def test_anonymous_visitor_is_sent_to_log_in(client: Client, proj: Namespace) -> None:
    response = client.get(session_url())
    assert response.status_code == 302
    assert response["Location"].startswith("/accounts/login/?next=")


def test_unknown_namespace_session_block_and_message_are_404_pages(
    ada: Client, proj: Namespace
) -> None:
    ingest(proj, 6)
    cases = {
        reverse("graphui:sessions", args=["nowhere"]): "namespace_not_found",
        session_url("nobody"): "session_not_found",
        reverse("graphui:block", args=["proj", 99999]): "block_not_found",
        reverse("graphui:message", args=["proj", 99999]): "message_not_found",
    }
    for url, code in cases.items():
        response = ada.get(url)
        assert response.status_code == 404, url
        assert code in response.content.decode()


def test_a_block_of_another_namespace_is_not_found(ada: Client, proj: Namespace) -> None:
    other = namespace_get_or_create(name="other")
    ingest(other, 6)
    block = Block.objects.get(namespace=other)
    message = Message.objects.filter(namespace=other).first()
    assert message is not None
    assert ada.get(reverse("graphui:block", args=["proj", block.pk])).status_code == 404
    assert ada.get(reverse("graphui:message", args=["proj", message.pk])).status_code == 404
    response = ada.post(reverse("graphui:expand", args=["proj", block.pk]), {"target": "L5"})
    assert response.status_code == 404
    assert AdminAction.objects.count() == 0


# --- the session list --------------------------------------------------------------------------


def test_an_empty_namespace_says_how_sessions_appear(ada: Client, proj: Namespace) -> None:
    response = ada.get(reverse("graphui:sessions", args=["proj"]))
    assert response.status_code == 200
    body = response.content.decode()
    assert "No sessions yet." in body and "/api/v1/ns/proj/turns" in body


def test_the_list_shows_turns_block_states_label_and_imports(ada: Client, proj: Namespace) -> None:
    ingest(proj, 13, session="done", user="Should we use Postgres? {n}")
    ingest(proj, 1, session="imported")
    Turn.objects.filter(session__external_id="imported").update(synthetic=True)
    ingest(proj, 6, session="broken", drain=False)
    Block.objects.filter(session__external_id="broken").update(status=BlockStatus.FAILED)
    ingest(proj, 6, session="waiting", drain=False)

    body = ada.get(reverse("graphui:sessions", args=["proj"])).content.decode()
    done = body[body.index(f'href="{session_url("done")}"') :].split("</tr>")[0]
    assert "Should we use Postgres? 1" in done  # the first user message labels the session
    assert re.search(r'class="num" data-label="Turns">13<', done)
    assert "✓ 2 ready" in done and "processing" not in done
    waiting = body[body.index(f'href="{session_url("waiting")}"') :].split("</tr>")[0]
    assert "○ 1 processing" in waiting
    broken = body[body.index(f'href="{session_url("broken")}"') :].split("</tr>")[0]
    assert "✕ 1 failed" in broken
    imported = body[body.index(f'href="{session_url("imported")}"') :].split("</tr>")[0]
    assert "⇲ import" in imported and "import" not in done
    # Most recently active first.
    assert body.index(session_url("waiting")) < body.index(session_url("imported"))
    assert body.index(session_url("imported")) < body.index(session_url("done"))


def test_the_list_paginates_by_50_with_a_fixed_query_count(ada: Client, proj: Namespace) -> None:
    url = reverse("graphui:sessions", args=["proj"])
    ingest(proj, 1, session="only")
    with CaptureQueriesContext(connection) as one:
        assert ada.get(url).status_code == 200
    for n in range(59):
        ingest(proj, 1, session=f"session-{n:02}", drain=False)
    with CaptureQueriesContext(connection) as sixty:
        first = ada.get(url).content.decode()
    assert len(sixty.captured_queries) == len(one.captured_queries)
    assert first.count('<th scope="row" class="session-cell">') == 50
    assert "Page 1 of 2" in first and "?page=2" in first
    second = ada.get(url, {"page": 2}).content.decode()
    assert second.count('<th scope="row" class="session-cell">') == 10
    assert 'href="/ns/proj/sessions/only"' in second  # the least recently active comes last


# --- the session page --------------------------------------------------------------------------


def test_nine_then_ten_ready_blocks_show_the_spec_levels(
    ada: Client, proj: Namespace, settings: Any
) -> None:
    """SPEC §4.4 with λ 0.30: by ready blocks after it, 0–1 → L5, 2 → L4, 3–4 → L3, 5–6 → L2,
    7–8 → L1, ≥ 9 → L0."""
    settings.STRATAGATE_BLOCK_TURNS = 1
    ingest(proj, 9)
    response = ada.get(session_url())
    assert [b.level for b in response.context["s"].blocks] == [1, 1, 2, 2, 3, 3, 4, 5, 5]
    assert shown_levels(response.content.decode()) == [1, 1, 2, 2, 3, 3, 4, 5, 5]

    ingest(proj, 1, start=10)
    body = ada.get(session_url()).content.decode()
    assert shown_levels(body) == [0, 1, 1, 2, 2, 3, 3, 4, 5, 5]
    oldest = blocks_of()[0]
    card = body[body.index(f'id="block-{oldest.pk}"') :].split("</article>")[0]
    assert re.search(r'shown now: <span class="level">L0</span>', card)
    # The L0 tab carries the "shown now" marker; each block renders its current view.
    assert re.search(r'data-level="0">.*?● shown now', card, re.S)
    assert 'data-shown-level="0"' in card and "Tags:" in card


def test_tabs_switch_the_shown_view_by_query_string(
    ada: Client, proj: Namespace, settings: Any
) -> None:
    settings.STRATAGATE_BLOCK_TURNS = 1
    ingest(proj, 4)
    first, second = blocks_of()[:2]
    views = {v.level: v for v in BlockView.objects.filter(block=first)}

    body = ada.get(session_url(), {"block": first.pk, "view": 0}).content.decode()
    panel = view_panel(body, first.pk)
    assert 'data-shown-level="0"' in panel and "title and tags" in panel
    assert unescape(views[0].content) in unescape(panel)
    assert f'href="?block={first.pk}&amp;view=2#block-{first.pk}"' in body  # a link, no JS

    body = ada.get(session_url(), {"block": first.pk, "view": "L2"}).content.decode()
    panel = view_panel(body, first.pk)
    assert "key facts" in panel and views[2].content.splitlines()[0] in unescape(panel)
    # Other blocks keep showing the level they have in context now.
    other = view_panel(body, second.pk)
    assert 'data-shown-level="4"' in other  # 2 ready blocks after it → L4
    # A view the block does not have, or junk, falls back to the level shown now.
    body = ada.get(session_url(), {"block": first.pk, "view": "9"}).content.decode()
    assert 'data-shown-level="3"' in view_panel(body, first.pk)


def test_tabs_show_token_counts_and_share_of_l5(ada: Client, proj: Namespace) -> None:
    ingest(proj, 6)
    block = blocks_of()[0]
    views = {v.level: v for v in BlockView.objects.filter(block=block)}
    body = ada.get(session_url()).content.decode()
    for level, view in views.items():
        share = round(100 * view.tokens / views[5].tokens)
        tab = body[body.index(f'data-level="{level}">', body.index('class="view-tabs"')) :]
        tab = tab.split("</a>")[0]
        assert f"{view.tokens} tok · {share}% of L5" in tab
    assert "100% of L5" in body


def test_l5_lists_the_source_messages_and_highlights_linked_ones(
    ada: Client, proj: Namespace
) -> None:
    ingest(proj, 8)
    block = blocks_of()[0]
    ids = list(
        Message.objects.filter(turn__block=block)
        .order_by("turn__session_turn", "position")
        .values_list("pk", flat=True)
    )
    assert len(ids) == 12
    body = ada.get(
        session_url(), {"block": block.pk, "view": 5, "hl": f"{ids[2]},{ids[3]},junk"}
    ).content.decode()
    panel = view_panel(body, block.pk)
    assert panel.count('<article class="msg ') == 12
    assert f'<article class="msg user hl" id="msg-{ids[2]}">' in panel
    assert f'<article class="msg assistant hl" id="msg-{ids[3]}">' in panel
    assert f'<article class="msg user" id="msg-{ids[0]}">' in panel
    assert panel.count(' hl"') == 2
    # Tool calls with their arguments and results, as text.
    assert "Tool call: lookup" in panel and "&quot;q&quot;: &quot;q2&quot;" in panel
    assert "found it" in panel


def test_the_open_tail_shows_turns_of_capacity_and_its_messages(
    ada: Client, proj: Namespace
) -> None:
    ingest(proj, 8)
    body = ada.get(session_url()).content.decode()
    tail = body[body.index('id="open-tail"') :]
    assert '<span class="tail-count">2/6</span>' in tail
    assert tail.count('<article class="msg ') == 4
    assert "Question 7 about" in tail and "Question 8 about" in tail


def test_the_context_cost_is_the_layered_history(ada: Client, proj: Namespace) -> None:
    from memory.selectors.blocks import layered_history, session_get

    ingest(proj, 14)
    history = layered_history(session=session_get(proj, "s1"))
    response = ada.get(session_url())
    assert response.context["s"].context_tokens == history.tokens
    cost = response.content.decode().split('id="context-cost"')[1].split("</div>\n</div>")[0]
    assert f"{history.tokens} <span" in cost


def test_the_session_page_query_count_does_not_grow_with_blocks(
    ada: Client, proj: Namespace, settings: Any
) -> None:
    settings.STRATAGATE_BLOCK_TURNS = 1
    ingest(proj, 3)
    with CaptureQueriesContext(connection) as few:
        assert ada.get(session_url()).status_code == 200
    ingest(proj, 27, start=4)
    with CaptureQueriesContext(connection) as many:
        response = ada.get(session_url())
    assert len(response.context["s"].blocks) == 30
    assert len(many.captured_queries) == len(few.captured_queries)
    assert len(many.captured_queries) <= 14


# --- expand ------------------------------------------------------------------------------------


def test_expanding_lifts_the_block_and_logs_who_did_it(ada: Client, proj: Namespace) -> None:
    ingest(proj, 24)
    block = blocks_of()[0]  # 3 ready blocks after it → L3
    batches = RetrievalBatch.objects.count()
    response = ada.post(reverse("graphui:expand", args=["proj", block.pk]), {"target": "L4"})
    assert response.status_code == 302
    assert response["Location"] == f"/ns/proj/sessions/s1?block={block.pk}&view=4#block-{block.pk}"
    block.refresh_from_db()
    assert (block.anchor_level, block.anchor_position) == (4, 4)
    assert block.last_lifted_by == "user" and block.last_lifted_at is not None
    action = AdminAction.objects.get()
    assert (action.namespace_id, action.actor, action.action, action.target) == (
        proj.pk,
        "user:ada",
        "expand_block",
        f"block:{block.pk}",
    )
    assert action.details == {"before": {"level": 3}, "after": {"level": 4}}
    assert RetrievalBatch.objects.count() == batches == 0  # a person is not evidence

    page = ada.get(response["Location"]).content.decode()
    assert "Block 1 now shows L4; it will fade again as the conversation goes on." in page
    card = page[page.index(f'id="block-{block.pk}"') :].split("</article>")[0]
    assert 'data-level="4"' in card and 'data-shown-level="4"' in card
    assert "last lifted by a person" in card


def test_the_expand_form_defaults_to_the_next_level_up(ada: Client, proj: Namespace) -> None:
    ingest(proj, 24)
    block = blocks_of()[0]  # shows L3
    body = ada.get(session_url()).content.decode()
    form = body[body.index(f'action="/ns/proj/blocks/{block.pk}/expand/"') :].split("</form>")[0]
    assert f'<label for="expand-{block.pk}">Expand to</label>' in form
    assert '<option value="L4" selected>' in form and form.count("<option") == 6
    assert 'name="csrfmiddlewaretoken"' in form


def test_expanding_needs_a_csrf_token(django_user_model: Any, proj: Namespace) -> None:
    ingest(proj, 12)
    block = blocks_of()[0]
    strict = Client(enforce_csrf_checks=True)
    strict.force_login(django_user_model.objects.create_user("ada", is_staff=True))
    response = strict.post(reverse("graphui:expand", args=["proj", block.pk]), {"target": "L5"})
    assert response.status_code == 403
    block.refresh_from_db()
    assert block.last_lifted_by == "" and AdminAction.objects.count() == 0


def test_get_on_the_expand_url_changes_nothing(ada: Client, proj: Namespace) -> None:
    ingest(proj, 12)
    block = blocks_of()[0]
    response = ada.get(reverse("graphui:expand", args=["proj", block.pk]), {"target": "L5"})
    assert response.status_code == 405
    block.refresh_from_db()
    assert block.last_lifted_by == "" and AdminAction.objects.count() == 0


def test_a_pending_block_cannot_be_expanded(ada: Client, proj: Namespace) -> None:
    ingest(proj, 6, drain=False)
    block = blocks_of()[0]
    response = ada.post(reverse("graphui:expand", args=["proj", block.pk]), {"target": "L5"})
    assert response.status_code == 409
    assert "block_not_ready" in response.content.decode()
    block.refresh_from_db()
    assert (block.status, block.last_lifted_by) == (BlockStatus.PENDING, "")
    assert AdminAction.objects.count() == 0
    # Its card has only the views written at sealing and no expand form.
    body = ada.get(session_url()).content.decode()
    card = body[body.index(f'id="block-{block.pk}"') :].split("</article>")[0]
    assert re.findall(
        r'class="view-tab[^"]*" href="[^"]*" ?(?:aria-current="true" )?data-level="(\d)"', card
    ) == ["3", "4", "5"]
    assert "○ processing" in card and "<form" not in card


def test_an_invalid_target_is_a_422_and_writes_nothing(ada: Client, proj: Namespace) -> None:
    ingest(proj, 12)
    block = blocks_of()[0]
    before = Block.objects.values().get(pk=block.pk)
    for target in ("L9", "", "up"):
        response = ada.post(reverse("graphui:expand", args=["proj", block.pk]), {"target": target})
        assert response.status_code == 422
        assert "invalid_target" in response.content.decode()
    assert Block.objects.values().get(pk=block.pk) == before
    assert AdminAction.objects.count() == 0


# --- links to sources --------------------------------------------------------------------------


def test_the_block_link_goes_to_the_exact_anchor(ada: Client, proj: Namespace) -> None:
    ingest(proj, 6)
    block = blocks_of()[0]
    url = reverse("graphui:block", args=["proj", block.pk])
    response = ada.get(url, {"level": 5, "hl": "11,12"})
    assert response.status_code == 302
    assert response["Location"] == f"/ns/proj/sessions/s1?block={block.pk}&view=5&hl=11,12#msg-11"
    assert ada.get(url)["Location"] == f"/ns/proj/sessions/s1?block={block.pk}#block-{block.pk}"
    assert ada.get(url, {"level": "L2"})["Location"] == (
        f"/ns/proj/sessions/s1?block={block.pk}&view=2#block-{block.pk}"
    )
    # Highlighted messages are only visible among the sources: hl alone opens L5.
    assert ada.get(url, {"hl": "7"})["Location"] == (
        f"/ns/proj/sessions/s1?block={block.pk}&view=5&hl=7#msg-7"
    )


def test_the_message_link_goes_to_its_block_or_the_open_tail(ada: Client, proj: Namespace) -> None:
    ingest(proj, 7)
    block = blocks_of()[0]
    sealed = Message.objects.filter(turn__block=block).order_by("pk")[3]
    open_one = Message.objects.filter(turn__block__isnull=True).order_by("pk").first()
    assert open_one is not None
    response = ada.get(reverse("graphui:message", args=["proj", sealed.pk]))
    assert response.status_code == 302
    assert response["Location"] == (
        f"/ns/proj/sessions/s1?block={block.pk}&view=5&hl={sealed.pk}#msg-{sealed.pk}"
    )
    page = ada.get(response["Location"]).content.decode()
    assert f'class="msg assistant hl" id="msg-{sealed.pk}"' in page
    response = ada.get(reverse("graphui:message", args=["proj", open_one.pk]))
    assert response["Location"] == f"/ns/proj/sessions/s1?hl={open_one.pk}#open-tail"
    page = ada.get(response["Location"]).content.decode()
    tail = page[page.index('id="open-tail"') :]
    assert f'class="msg user hl" id="msg-{open_one.pk}"' in tail


@pytest.mark.parametrize(
    "session_id",
    [
        "team/alpha/run 1",
        "what? yes&no=1#x",
        "  spaced out  ",
        "中文会话/第一",
        "100%",
        "two\nlines",
    ],
)
def test_any_session_id_round_trips_through_its_url(
    ada: Client, proj: Namespace, session_id: str
) -> None:
    ingest(proj, 7, session=session_id)
    listing = ada.get(reverse("graphui:sessions", args=["proj"])).content.decode()
    href = unescape(re.search(r'<a class="session-id[^"]*" href="([^"]+)"', listing).group(1))
    assert "?" not in href and "#" not in href
    page = ada.get(href)
    assert page.status_code == 200
    assert page.context["s"].session_id == session_id
    # The block and message links land on the same page.
    block = blocks_of(session_id)[0]
    location = ada.get(reverse("graphui:block", args=["proj", block.pk]))["Location"]
    assert location.startswith(href + "?")
    message = Message.objects.filter(session__external_id=session_id).last()
    assert message is not None
    location = ada.get(reverse("graphui:message", args=["proj", message.pk]))["Location"]
    assert location == f"{href}?hl={message.pk}#open-tail"
    assert ada.get(location).context["s"].session_id == session_id
    # The expand redirect too.
    response = ada.post(reverse("graphui:expand", args=["proj", block.pk]), {"target": "L5"})
    assert response["Location"].startswith(href + "?")


# --- escaping and redaction --------------------------------------------------------------------


def test_hostile_memory_is_shown_as_text(ada: Client) -> None:
    hostile_namespace_create()
    listing = ada.get(reverse("graphui:sessions", args=["hostile"])).content.decode()
    block = Block.objects.get(namespace__name="hostile")
    pages = [
        listing,
        ada.get(session_url(SESSION, ns="hostile")).content.decode(),
        ada.get(
            session_url(SESSION, ns="hostile"), {"block": block.pk, "view": 0}
        ).content.decode(),
        ada.get(
            session_url(SESSION, ns="hostile"), {"block": block.pk, "view": 3}
        ).content.decode(),
    ]
    for body in pages:
        for probe in PROBES[:2]:
            assert probe not in body
        assert "&lt;script&gt;" in body
    assert "&lt;img src=x onerror=" in pages[1]
    assert 'href="javascript:' not in "".join(pages).lower()
    assert unescape(SCRIPT) in unescape(pages[1]) and IMG not in pages[1]


def test_secrets_are_redacted_in_views_messages_and_labels(ada: Client, proj: Namespace) -> None:
    ingest(proj, 8, user="Use " + SECRET + " for turn {n}")
    block = blocks_of()[0]
    bodies = [ada.get(reverse("graphui:sessions", args=["proj"])).content.decode()]
    for level in range(6):
        bodies.append(ada.get(session_url(), {"block": block.pk, "view": level}).content.decode())
    for body in bodies:
        assert "sk-abcdefghijklmnop1234" not in body
        assert "[REDACTED]" in body
