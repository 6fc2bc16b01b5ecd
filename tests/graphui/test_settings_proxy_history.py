"""The model proxy's history setting (docs/PROXY.md, "Layered history") on the settings page next
to λ, and in the settings API: `layered` by default, saved audited, an invalid value refused with
`invalid_proxy_history` and nothing stored; the preview shows what a proxied request would send
of the chosen session against its native history."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client
from django.urls import reverse

from memory.models import AdminAction, MemorySettings, Namespace, Session
from memory.selectors.blocks import block_display_list
from memory.selectors.proxy_history import proxied_tokens, session_raw_tokens
from memory.selectors.settings import memory_settings_get
from memory.services.ingest import MessageIn, TurnIn, turn_ingest
from memory.services.jobs import jobs_drain
from memory.services.namespaces import namespace_get_or_create
from memory.services.settings import memory_settings_update
from tests.graphui.partials_support import top_level

URL = reverse("graphui:settings")
WORDS = "We moved the billing shard to Frankfurt after the latency review with Priya. " * 6


@pytest.fixture
def staff_client(client: Client, django_user_model: Any) -> Client:
    client.force_login(django_user_model.objects.create_user(username="ada", is_staff=True))
    return client


@pytest.fixture
def talked(db: None) -> Namespace:
    """Namespace `alpha`, session `long`: 8 ready one-turn blocks of long messages."""
    memory_settings_update(block_turns=1)
    namespace = namespace_get_or_create(name="alpha")
    for n in range(8):
        turn_ingest(
            namespace=namespace,
            turn=TurnIn(
                session_id="long",
                receipt_id=f"long-{n}",
                messages=[MessageIn("user", f"{n}: {WORDS}"), MessageIn("assistant", WORDS)],
            ),
        )
    jobs_drain()
    return namespace


def test_layered_is_the_default_and_the_form_offers_both(staff_client: Client, db: None) -> None:
    assert memory_settings_get().proxy_history == "layered"
    html = staff_client.get(URL).content.decode()
    assert 'id="id_proxy_history" name="proxy_history"' in html
    assert '<option value="layered" selected>' in html
    assert '<option value="native">' in html
    assert '<input type="hidden" name="proxy_history" value="layered">' in html


def test_staff_saves_native_with_an_audit_row(staff_client: Client, db: None) -> None:
    response = staff_client.post(
        URL, {"block_lambda": "0.30", "block_turns": "6", "proxy_history": "native"}
    )
    assert response.status_code == 302
    assert MemorySettings.objects.get().proxy_history == "native"
    assert memory_settings_get().proxy_history == "native"
    details = AdminAction.objects.get().details
    assert details["before"]["proxy_history"] == "layered"
    assert details["after"]["proxy_history"] == "native"
    html = staff_client.get(URL).content.decode()
    assert '<option value="native" selected>' in html


@pytest.mark.parametrize("value", ["compressed", "", "NATIVE-ish"])
def test_an_invalid_value_is_refused_with_its_code_and_nothing_is_stored(
    staff_client: Client, db: None, value: str
) -> None:
    response = staff_client.post(
        URL, {"block_lambda": "0.30", "block_turns": "6", "proxy_history": value}
    )
    assert response.status_code == 422
    html = response.content.decode()
    assert '<code class="err-code">invalid_proxy_history</code>' in html
    assert 'id="save-button" disabled' in html
    assert MemorySettings.objects.count() == 0 and AdminAction.objects.count() == 0
    pieces = top_level(
        staff_client.get(URL, {"proxy_history": value, "partial": "preview"}).content.decode()
    )
    assert "invalid_proxy_history" in pieces["history-error"]
    assert " hidden" not in pieces["history-error"].split(">", 1)[0]


def test_the_preview_shows_the_proxied_tokens_sent_against_native(
    staff_client: Client, talked: Namespace
) -> None:
    session = Session.objects.get(namespace=talked, external_id="long")
    native, per_block = session_raw_tokens(session)
    at_half = proxied_tokens(
        block_display_list(session=session, lam=0.5), native, per_block, layered=True
    )
    assert at_half < native
    query = {"block_lambda": "0.50", "block_turns": "1", "ns": "alpha", "session": "long"}
    estimate = staff_client.get(URL, query).context["preview"].tokens
    assert (estimate.proxy_native, estimate.proxy_sent_proposed) == (native, at_half)
    pieces = top_level(staff_client.get(URL, {**query, "partial": "preview"}).content.decode())
    preview = pieces["settings-preview"]
    assert f'id="proxy-native">{native}<' in preview
    assert f'id="proxy-sent-proposed">{at_half}<' in preview
    share = round(100 * (native - at_half) / native)
    assert f'id="proxy-saved">{native - at_half:,} ({share}%)<' in preview
    # Native history: the proxy would send the session as it is.
    native_query = {**query, "proxy_history": "native", "partial": "preview"}
    pieces = top_level(staff_client.get(URL, native_query).content.decode())
    assert f'id="proxy-sent-proposed">{native}<' in pieces["settings-preview"]
    assert 'id="proxy-saved">0<' in pieces["settings-preview"]


def test_the_settings_api_reads_and_changes_it(admin: Any) -> None:
    assert admin.get("/settings").json()["proxy_history"] == "layered"
    response = admin.put("/settings", {"proxy_history": "native"})
    assert response.status_code == 200 and response.json()["proxy_history"] == "native"
    refused = admin.put("/settings", {"proxy_history": "sometimes", "block_lambda": 0.5})
    assert refused.status_code == 422
    assert refused.json()["error"]["code"] == "invalid_proxy_history"
    assert memory_settings_get().block_lambda == 0.3  # nothing of the refused request stored
    assert memory_settings_get().proxy_history == "native"
