"""Settings page (SPEC §4.6–4.7, §13.6): current values and their source, the preview (schedule,
token estimate, λ suggestion, warning) in the page and as its `preview` partial, staff-only
saving with an audit row, and the model endpoint test against a fake OpenAI-compatible server."""

from __future__ import annotations

import re
import socket
from decimal import Decimal
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse

from memory.engine.decay import display_level, level_schedule
from memory.models import AdminAction, MemorySettings, ModelCall, Namespace, Session
from memory.selectors.blocks import block_display_list, layered_history
from memory.selectors.settings import memory_settings_get
from memory.services.ingest import MessageIn, TurnIn, turn_ingest
from memory.services.jobs import jobs_drain
from memory.services.namespaces import namespace_get_or_create
from memory.services.settings import memory_settings_update
from tests.browser.hostile import PROBES, hostile_namespace_create
from tests.graphui.partials_support import shows, top_level

URL = reverse("graphui:settings")
TEST_MODEL = reverse("graphui:settings_test_model")
PASSWORD = "correct horse battery staple"
SECRET = "api_key=sk-abcdefghijklmnop1234"
# Long enough that a block's six views differ in size, so λ visibly changes the token cost.
QUESTION = (
    "Question {n}: the storage layer keeps growing. Should we move the session archive to "
    "PostgreSQL, keep SQLite with WAL, or split hot and cold data into two databases? "
    "We also need a plan for backups, for migrations and for the nightly export job."
)
ANSWER = (
    "Answer {n}: keep SQLite with WAL for now; it handles our write rate. Move to PostgreSQL "
    "when a second web process is needed. Backups: nightly snapshot plus the JSONL export. "
    "Migrations stay reversible, and the export job runs after the snapshot, never before it."
)


def ingest(namespace: Namespace, session: str, turns: int, *, start: int = 1) -> None:
    for n in range(start, start + turns):
        turn_ingest(
            namespace=namespace,
            turn=TurnIn(
                session_id=session,
                receipt_id=f"{session}-{n}",
                messages=[
                    MessageIn(role="user", content=QUESTION.format(n=n)),
                    MessageIn(role="assistant", content=ANSWER.format(n=n)),
                ],
            ),
        )


@pytest.fixture
def staff(django_user_model: Any) -> Any:
    return django_user_model.objects.create_user(username="ada", password=PASSWORD, is_staff=True)


@pytest.fixture
def member(django_user_model: Any) -> Any:
    return django_user_model.objects.create_user(username="bob", password=PASSWORD)


@pytest.fixture
def staff_client(client: Client, staff: Any) -> Client:
    client.force_login(staff)
    return client


@pytest.fixture
def member_client(client: Client, member: Any) -> Client:
    client.force_login(member)
    return client


@pytest.fixture
def busy(settings: Any, db: None) -> Namespace:
    """Namespace `alpha`: session `long` with 10 ready one-turn blocks (block size 1 from the
    environment), then session `short` (2 turns, the most recently active)."""
    settings.STRATAGATE_BLOCK_TURNS = 1
    namespace = namespace_get_or_create(name="alpha")
    ingest(namespace, "long", 10)
    ingest(namespace, "short", 2)
    jobs_drain()
    settings.STRATAGATE_BLOCK_TURNS = 6
    return namespace


def session(namespace: Namespace, name: str) -> Session:
    return Session.objects.get(namespace=namespace, external_id=name)


def tokens(namespace: Namespace, name: str, lam: float) -> int:
    return layered_history(session=session(namespace, name), lam=lam).tokens


# --- reading -----------------------------------------------------------------------------------


def test_anonymous_visitor_is_sent_to_login(client: Client, db: None) -> None:
    for query in ({}, {"partial": "preview"}):
        response = client.get(URL, query)
        assert response.status_code == 302
        assert response["Location"].startswith(f"/accounts/login/?next={URL}")


def test_page_shows_the_environment_default_when_never_saved(staff_client: Client) -> None:
    response = staff_client.get(URL)
    html = response.content.decode()
    assert response.status_code == 200
    assert 'name="block_lambda" value="0.30"' in html
    assert 'name="block_turns" value="6"' in html
    assert 'step="0.05" min="0" max="1"' in html
    assert "environment default" in html
    assert "How fast older blocks lose detail as the conversation moves on; 0 never decays" in html
    assert "Turns sealed into one block; changes future blocks only" in html
    assert "project" in html  # namespace mode, read-only
    assert "Offline processor (no model configured)" in html


def test_page_shows_saved_values_with_who_and_when(staff_client: Client) -> None:
    memory_settings_update(block_lambda=Decimal("0.35"), block_turns=8, updated_by="user:grace")
    html = staff_client.get(URL).content.decode()
    assert 'name="block_lambda" value="0.35"' in html
    assert 'name="block_turns" value="8"' in html
    assert "saved in the database" in html
    assert "last changed by user:grace" in html
    row = MemorySettings.objects.get()
    assert f'datetime="{row.updated_at.isoformat()}"' in html


def test_preview_get_shows_the_new_schedule_and_the_token_estimate(
    staff_client: Client, busy: Namespace
) -> None:
    response = staff_client.get(URL, {"block_lambda": "0.5", "block_turns": "6"})
    assert response.status_code == 200
    preview = response.context["preview"]
    assert [row.proposed for row in preview.schedule] == level_schedule(0.5)
    assert [row.current for row in preview.schedule] == level_schedule(0.30)
    assert [row.age for row in preview.schedule] == list(range(13))
    # Default session: the most recently active one of the first namespace.
    assert preview.namespace == "alpha" and preview.session_id == "short"
    html = response.content.decode()
    assert "Preview (λ 0.50)" in html
    assert "Now (λ 0.30)" in html
    now, then = level_schedule(0.3), level_schedule(0.5)
    changed = [age for age in range(13) if now[age] != then[age]]
    assert changed and html.count('class="changed"') == len(changed)
    assert "▼ 1 lower" in html


def test_preview_estimates_tokens_of_the_chosen_session_under_both_lambdas(
    staff_client: Client, busy: Namespace
) -> None:
    response = staff_client.get(
        URL, {"block_lambda": "0.50", "block_turns": "6", "ns": "alpha", "session": "long"}
    )
    estimate = response.context["preview"].tokens
    now, then = tokens(busy, "long", 0.30), tokens(busy, "long", 0.50)
    assert then < now  # faster decay, fewer tokens
    assert (estimate.session_id, estimate.current, estimate.proposed) == ("long", now, then)
    assert estimate.difference == then - now
    html = response.content.decode()
    assert f'id="tokens-current">{now}<' in html
    assert f'id="tokens-proposed">{then}<' in html
    share = round(100 * (now - then) / now)
    assert f'id="tokens-difference">−{now - then} (−{share}%)<' in html


# The pieces of `?partial=preview` (graphui.partials), each the page's element of the same id,
# which settings.js puts in its place as the form changes.
PIECES = [
    "lambda-error",
    "turns-error",
    "history-error",
    "tools-error",
    "lambda-warning",
    "lambda-suggestion",
    "id_session",
    "settings-preview",
    "save-form",
]


def preview(client: Client, **values: str) -> dict[str, str]:
    """The preview partial for these form values, piece by piece (id → markup)."""
    response = client.get(URL, {**values, "partial": "preview"})
    assert response.status_code == 200, response.status_code
    html = response.content.decode()
    assert "<html" not in html and "<footer" not in html and "settings-form" not in html
    return top_level(html)


def levels(piece: str, column: str) -> list[int]:
    """The levels of one column ("current" or "proposed") of the schedule table."""
    return [
        int(n)
        for n in re.findall(
            rf'<td class="lv-cell {column}">.*?<span class="level">L(\d)</span>', piece
        )
    ]


def shown_piece(piece: str) -> bool:
    return " hidden" not in piece[: piece.index(">")]


def test_the_preview_partial_is_the_pages_own_elements(
    staff_client: Client, busy: Namespace
) -> None:
    values = {"block_lambda": "0.5", "block_turns": "9", "ns": "alpha", "session": "long"}
    pieces = preview(staff_client, **values)
    assert list(pieces) == PIECES
    page = staff_client.get(URL, values).content.decode()
    for element_id, piece in pieces.items():
        assert shows(page, piece), element_id  # the same markup, from the same template


def test_the_preview_partial_shows_the_levels_for_the_values_given(
    staff_client: Client, busy: Namespace
) -> None:
    pieces = preview(staff_client, block_lambda="0.5", block_turns="6", ns="alpha", session="long")
    schedule = pieces["settings-preview"]
    assert levels(schedule, "current") == level_schedule(0.30)
    assert levels(schedule, "proposed") == level_schedule(0.5)
    assert 'id="proposed-head">Preview (λ 0.50)<' in schedule
    now, then = level_schedule(0.30), level_schedule(0.5)
    assert schedule.count('class="changed"') == sum(a != b for a, b in zip(now, then, strict=True))
    assert f'id="tokens-current">{tokens(busy, "long", 0.30)}<' in schedule
    assert f'id="tokens-proposed">{tokens(busy, "long", 0.5)}<' in schedule
    assert not shown_piece(pieces["lambda-suggestion"])
    assert shown_piece(pieces["lambda-warning"]) and "Forgets fast" in pieces["lambda-warning"]
    assert not shown_piece(pieces["lambda-error"]) and not shown_piece(pieces["turns-error"])
    assert re.findall(r'<option value="(\w+)"', pieces["id_session"]) == ["short", "long"]
    assert '<option value="long" selected>' in pieces["id_session"]
    assert "Save λ 0.50 · block size 6" in pieces["save-form"]
    assert 'name="block_lambda" value="0.5"' in pieces["save-form"]

    lower = preview(staff_client, block_lambda="0.10", block_turns="6")["settings-preview"]
    assert levels(lower, "proposed") == level_schedule(0.10)
    assert "▲ 1 higher" in lower


@pytest.mark.parametrize(
    ("lam", "turns", "field", "message"),
    [
        ("0.33", "6", "block_lambda", "multiple of 0.05"),
        ("2.5", "6", "block_lambda", "between 0.00 and 1.00"),
        ("abc", "6", "block_lambda", "must be a number"),
        ("", "6", "block_lambda", "must be a number"),
        ("NaN", "6", "block_lambda", "must be a number"),
        ("0.3", "0", "block_turns", "between 1 and 100"),
        ("0.3", "101", "block_turns", "between 1 and 100"),
        ("0.3", "2.5", "block_turns", "whole number"),
        ("0.3", "six", "block_turns", "whole number"),
    ],
)
def test_the_preview_partial_shows_what_a_save_would_refuse_in_the_form(
    staff_client: Client, lam: str, turns: str, field: str, message: str
) -> None:
    pieces = preview(staff_client, block_lambda=lam, block_turns=turns)  # 200, never a 500
    box = pieces["lambda-error" if field == "block_lambda" else "turns-error"]
    other = pieces["turns-error" if field == "block_lambda" else "lambda-error"]
    assert shown_piece(box) and not shown_piece(other)
    assert f'<code class="err-code">invalid_{field}</code>' in box and message in box
    assert 'id="save-button" disabled' in pieces["save-form"]
    assert "Fix the values above to save" in pieces["save-form"]
    if field == "block_lambda":
        assert levels(pieces["settings-preview"], "proposed") == []  # nothing to preview
    # The same message a save gives (the service and the engine agree).
    html = staff_client.get(URL, {"block_lambda": lam, "block_turns": turns}).content.decode()
    assert shows(html, box)


def test_preview_html_shows_both_errors_and_disables_saving(staff_client: Client) -> None:
    html = staff_client.get(URL, {"block_lambda": "0.33", "block_turns": "0"}).content.decode()
    assert "invalid_block_lambda" in html and "invalid_block_turns" in html
    assert 'id="save-button" disabled' in html


def test_block_size_change_suggests_the_lambda_that_keeps_per_turn_decay(
    staff_client: Client,
) -> None:
    pieces = preview(staff_client, block_lambda="0.30", block_turns="9")
    suggestion = pieces["lambda-suggestion"]
    assert shown_piece(suggestion)
    assert "To keep the same decay per turn, use λ = 0.45" in suggestion
    assert 'data-lambda="0.45"' in suggestion
    assert "block_lambda=0.45&amp;block_turns=9" in suggestion  # the no-JS "apply" link
    assert "partial" not in suggestion  # the link leads to the page, not to the fragment
    assert "Save λ 0.30 · block size 9" in pieces["save-form"]  # never applied automatically
    html = staff_client.get(URL, {"block_lambda": "0.30", "block_turns": "9"}).content.decode()
    assert shows(html, suggestion)
    unchanged = preview(staff_client, block_lambda="0.30", block_turns="6")
    assert not shown_piece(unchanged["lambda-suggestion"])


def test_warning_appears_above_0_40_only(staff_client: Client) -> None:
    for lam, shown in (("0.40", False), ("0.45", True), ("1", True), ("0", False)):
        warning = preview(staff_client, block_lambda=lam, block_turns="6")["lambda-warning"]
        assert shown_piece(warning) is shown, lam
        html = staff_client.get(URL, {"block_lambda": lam}).content.decode()
        hidden = 'id="lambda-warning" role="status" hidden' in html
        assert hidden is not shown, lam
        assert "⚠ Forgets fast" in html  # text + symbol, not colour alone


def test_preview_and_page_never_write(staff_client: Client, busy: Namespace) -> None:
    before = (
        MemorySettings.objects.count(),
        AdminAction.objects.count(),
        ModelCall.objects.count(),
    )
    staff_client.get(URL, {"block_lambda": "0.9", "block_turns": "3", "session": "long"})
    preview(staff_client, block_lambda="0.9", block_turns="3", session="long")
    after = (MemorySettings.objects.count(), AdminAction.objects.count(), ModelCall.objects.count())
    assert before == after
    assert memory_settings_get().saved is False


def test_unknown_namespace_or_session_falls_back_to_the_default(
    staff_client: Client, busy: Namespace
) -> None:
    pieces = preview(staff_client, ns="nope", session="nope")
    assert '<option value="short" selected>' in pieces["id_session"]
    save = pieces["save-form"]
    assert 'name="ns" value="alpha"' in save and 'name="session" value="short"' in save


def test_unknown_parts_of_the_settings_page_are_404(staff_client: Client) -> None:
    for unknown in ("schedule", "save", "form", "1"):
        response = staff_client.get(URL, {"partial": unknown})
        assert response.status_code == 404 and b"partial_not_found" in response.content
    assert staff_client.get("/settings/preview.json").status_code == 404  # no JSON twin


def test_a_member_previews_without_a_save_form(member_client: Client, busy: Namespace) -> None:
    pieces = preview(member_client, block_lambda="0.5")
    assert "save-form" not in pieces and levels(pieces["settings-preview"], "proposed")


def test_empty_installation_still_previews_the_schedule(staff_client: Client) -> None:
    pieces = preview(staff_client, block_lambda="0.5")
    assert "id_session" not in pieces  # no namespace, no picker
    schedule = pieces["settings-preview"]
    assert 'id="token-estimate" hidden' in schedule and 'id="token-empty"' in schedule
    assert levels(schedule, "proposed") == level_schedule(0.5)
    assert "No namespaces yet" in staff_client.get(URL).content.decode()


def test_page_query_count_does_not_grow_with_sessions(
    staff_client: Client, busy: Namespace, django_assert_max_num_queries: Any
) -> None:
    with django_assert_max_num_queries(20):
        staff_client.get(URL)
    ingest(busy, "more", 1)
    for n in range(30):
        ingest(busy, f"extra-{n}", 1)
    with django_assert_max_num_queries(20):
        response = staff_client.get(URL)
    assert len(response.context["preview"].sessions) == 33
    with django_assert_max_num_queries(18):
        pieces = preview(staff_client, block_lambda="0.5", session="long")
    assert pieces["id_session"].count("<option ") == 33
    assert '<option value="long" selected>' in pieces["id_session"]


def test_session_labels_are_escaped_and_redacted(staff_client: Client, db: None) -> None:
    hostile_namespace_create()
    namespace = namespace_get_or_create(name="leaky")
    ingest(namespace, f"deploy {SECRET}", 1)
    html = staff_client.get(URL, {"ns": "hostile"}).content.decode()
    for probe in PROBES:
        assert probe not in html
    assert "&lt;script&gt;" in html
    html = staff_client.get(URL, {"ns": "leaky"}).content.decode()
    assert "sk-abcdefghijklmnop1234" not in html.replace(
        'value="deploy api_key=sk-abcdefghijklmnop1234"', ""
    )
    assert "[REDACTED]" in html


# --- saving ------------------------------------------------------------------------------------


def test_staff_saves_with_an_audit_row_and_every_level_changes_at_once(
    staff_client: Client, busy: Namespace
) -> None:
    long = session(busy, "long")
    levels_before = [b.level for b in block_display_list(session=long)]
    response = staff_client.post(
        URL, {"block_lambda": "0.50", "block_turns": "6", "ns": "alpha", "session": "long"}
    )
    assert response.status_code == 302
    assert response["Location"] == f"{URL}?ns=alpha&session=long"

    row = MemorySettings.objects.get()
    assert (row.block_lambda, row.block_turns, row.updated_by) == (Decimal("0.50"), 6, "user:ada")
    action = AdminAction.objects.get()
    assert action.namespace is None
    assert (action.actor, action.action, action.target) == ("user:ada", "settings", "settings")
    assert action.details == {
        "before": {
            "block_lambda": 0.3,
            "block_turns": 6,
            "proxy_history": "layered",
            "proxy_tools": "off",
            "source": "environment",
        },
        "after": {
            "block_lambda": 0.5,
            "block_turns": 6,
            "proxy_history": "layered",
            "proxy_tools": "off",
            "source": "database",
        },
    }
    # Levels are derived when read: the saved λ shows on every ready block, no re-anchoring.
    levels_after = [b.level for b in block_display_list(session=long)]
    expected = [
        display_level(
            anchor_level=b.block.anchor_level,
            anchor_position=b.block.anchor_position or 0,
            latest=10,
            lam=0.5,
        )
        for b in block_display_list(session=long)
    ]
    assert levels_after == expected
    assert levels_after != levels_before

    page = staff_client.get(response["Location"])
    text = page.content.decode()
    assert (
        "Saved: λ 0.50, block size 6, proxy history layered, proxy tools off. Every "
        "block&#x27;s level was recomputed." in text
    )
    assert "last changed by user:ada" in text
    assert 'name="block_lambda" value="0.50"' in text


def test_member_who_is_not_staff_gets_403_and_nothing_is_saved(
    member_client: Client,
) -> None:
    response = member_client.post(URL, {"block_lambda": "0.50", "block_turns": "6"})
    assert response.status_code == 403
    assert "staff_required" in response.content.decode()
    assert MemorySettings.objects.count() == 0 and AdminAction.objects.count() == 0
    page = member_client.get(URL).content.decode()
    assert 'id="save-form"' not in page
    assert "Only staff accounts can save settings" in page


def test_save_needs_a_csrf_token(staff: Any) -> None:
    client = Client(enforce_csrf_checks=True)
    client.force_login(staff)
    response = client.post(URL, {"block_lambda": "0.50", "block_turns": "6"})
    assert response.status_code == 403
    assert MemorySettings.objects.count() == 0 and AdminAction.objects.count() == 0
    # With the token from the page it works.
    client.get(URL)
    token = client.cookies["csrftoken"].value
    response = client.post(
        URL, {"block_lambda": "0.50", "block_turns": "6", "csrfmiddlewaretoken": token}
    )
    assert response.status_code == 302


@pytest.mark.parametrize(
    ("lam", "turns", "code"),
    [
        ("0.33", "6", "invalid_block_lambda"),
        ("abc", "6", "invalid_block_lambda"),
        ("0.3", "2.5", "invalid_block_turns"),
        ("0.3", "0", "invalid_block_turns"),
    ],
)
def test_invalid_save_rerenders_the_form_and_changes_nothing(
    staff_client: Client, lam: str, turns: str, code: str
) -> None:
    memory_settings_update(block_lambda=Decimal("0.25"), block_turns=5, updated_by="user:grace")
    before = MemorySettings.objects.values().get()
    response = staff_client.post(URL, {"block_lambda": lam, "block_turns": turns})
    assert response.status_code == 422
    html = response.content.decode()
    assert code in html
    assert f'name="block_lambda" value="{lam}"' in html  # what was typed stays in the form
    assert MemorySettings.objects.values().get() == before
    assert AdminAction.objects.count() == 0


def test_lambda_arrives_as_exact_decimal(staff_client: Client) -> None:
    # 0.15 + 0.15 is 0.30000000000000004 in binary floats; the form text must not be.
    staff_client.post(URL, {"block_lambda": "0.35", "block_turns": "7"})
    assert MemorySettings.objects.get().block_lambda == Decimal("0.35")


def test_only_get_head_and_post_are_allowed(staff_client: Client) -> None:
    assert staff_client.put(URL).status_code == 405
    assert staff_client.get(TEST_MODEL).status_code == 405


# --- model endpoint ----------------------------------------------------------------------------


def test_model_endpoint_is_shown_without_its_key_and_with_url_credentials_redacted(
    staff_client: Client, settings: Any
) -> None:
    settings.STRATAGATE_LLM_BASE_URL = "https://bob:hunter2secret@llm.example.com/v1"
    settings.STRATAGATE_LLM_MODEL = "gpt-test"
    settings.STRATAGATE_LLM_API_KEY = "sk-abcdefghijklmnop1234"
    html = staff_client.get(URL).content.decode()
    assert "gpt-test" in html
    assert "https://bob:[REDACTED]@llm.example.com/v1" in html
    assert "hunter2secret" not in html
    assert "sk-abcdefghijklmnop1234" not in html
    assert "set (never shown)" in html
    assert 'id="model-test-button"' in html


def test_connection_test_reaches_the_fake_server(
    staff_client: Client, settings: Any, fake_openai: Any
) -> None:
    settings.STRATAGATE_LLM_BASE_URL = fake_openai.base_url
    settings.STRATAGATE_LLM_MODEL = "fake-model"
    response = staff_client.post(TEST_MODEL, {"ns": "", "session": ""})
    assert response.status_code == 302
    assert response["Location"] == f"{URL}#model"
    assert fake_openai.calls == 1
    page = staff_client.get(URL).content.decode()
    assert "Model endpoint reachable: fake-model answered in" in page
    assert ModelCall.objects.count() == 0  # writes nothing

    data = staff_client.post(TEST_MODEL, HTTP_ACCEPT="application/json").json()
    assert data["ok"] is True and data["code"] == "ok" and data["model"] == "fake-model"
    assert isinstance(data["latency_ms"], int) and data["latency_ms"] >= 0


def test_connection_test_reports_an_http_error_redacted(
    staff_client: Client, settings: Any, fake_openai: Any
) -> None:
    settings.STRATAGATE_LLM_BASE_URL = fake_openai.base_url
    settings.STRATAGATE_LLM_MODEL = "fake-model"
    fake_openai.script([401])
    data = staff_client.post(TEST_MODEL, HTTP_ACCEPT="application/json").json()
    assert data["ok"] is False and data["code"] == "llm_http_401"
    assert "HTTP 401" in data["message"]


def _closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def test_connection_test_against_a_closed_port_shows_the_error(
    staff_client: Client, settings: Any
) -> None:
    settings.STRATAGATE_LLM_BASE_URL = f"http://user:{SECRET}@127.0.0.1:{_closed_port()}/v1"
    settings.STRATAGATE_LLM_MODEL = "fake-model"
    response = staff_client.post(TEST_MODEL, follow=True)
    html = response.content.decode()
    assert "Model endpoint test failed" in html
    assert "llm_unreachable" in html
    assert "sk-abcdefghijklmnop1234" not in html
    data = staff_client.post(TEST_MODEL, HTTP_ACCEPT="application/json").json()
    assert data["ok"] is False and data["code"] == "llm_unreachable"


def test_offline_mode_has_nothing_to_test(staff_client: Client) -> None:
    html = staff_client.get(URL).content.decode()
    assert 'id="model-test-button"' not in html
    assert "There is nothing to test" in html
    response = staff_client.post(TEST_MODEL, follow=True)
    assert "nothing to test" in response.content.decode()
    data = staff_client.post(TEST_MODEL, HTTP_ACCEPT="application/json").json()
    assert (data["ok"], data["code"]) == (False, "offline")


def test_connection_test_needs_staff_and_csrf(
    member_client: Client, staff: Any, settings: Any, fake_openai: Any
) -> None:
    settings.STRATAGATE_LLM_BASE_URL = fake_openai.base_url
    settings.STRATAGATE_LLM_MODEL = "fake-model"
    assert member_client.post(TEST_MODEL).status_code == 403
    strict = Client(enforce_csrf_checks=True)
    strict.force_login(staff)
    assert strict.post(TEST_MODEL).status_code == 403
    assert fake_openai.calls == 0
