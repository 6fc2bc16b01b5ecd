"""The model proxy's tools setting (docs/PROXY.md, "The evidence loop in the proxy") on the
settings page next to the history setting, and in the settings API: `off` by default, saved
audited, an invalid value refused with `invalid_proxy_tools` and nothing stored."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client
from django.urls import reverse

from memory.engine.tools_mode import TOOLS_MAX_ROUNDS, validate_tools_mode
from memory.errors import Invalid
from memory.models import AdminAction, MemorySettings
from memory.selectors.settings import memory_settings_get
from memory.services.settings import settings_update
from tests.graphui.partials_support import top_level

URL = reverse("graphui:settings")
FORM = {"block_lambda": "0.30", "block_turns": "6", "proxy_history": "layered"}


@pytest.fixture
def staff_client(client: Client, django_user_model: Any) -> Client:
    client.force_login(django_user_model.objects.create_user(username="ada", is_staff=True))
    return client


@pytest.mark.parametrize(("value", "mode"), [("off", "off"), (" Memory ", "memory")])
def test_the_engine_accepts_off_and_memory(value: str, mode: str) -> None:
    assert validate_tools_mode(value) == mode


@pytest.mark.parametrize("value", ["on", "", None, 1, "memory,off"])
def test_the_engine_refuses_anything_else(value: object) -> None:
    with pytest.raises(ValueError, match="proxy tools must be 'off' or 'memory'"):
        validate_tools_mode(value)


def test_off_is_the_default_and_the_form_offers_both_next_to_the_history(
    staff_client: Client, db: None
) -> None:
    assert memory_settings_get().proxy_tools == "off"
    html = staff_client.get(URL).content.decode()
    assert html.index('id="id_proxy_history"') < html.index('id="id_proxy_tools"')
    assert '<option value="off" selected>' in html
    assert '<option value="memory">' in html
    assert '<input type="hidden" name="proxy_tools" value="off">' in html
    assert f"at most {TOOLS_MAX_ROUNDS} rounds; the agent never sees them" in html


def test_staff_saves_memory_with_an_audit_row(staff_client: Client, db: None) -> None:
    response = staff_client.post(URL, {**FORM, "proxy_tools": "memory"})
    assert response.status_code == 302
    assert MemorySettings.objects.get().proxy_tools == "memory"
    assert memory_settings_get().proxy_tools == "memory"
    details = AdminAction.objects.get().details
    assert (details["before"]["proxy_tools"], details["after"]["proxy_tools"]) == ("off", "memory")
    html = staff_client.get(URL).content.decode()
    assert '<option value="memory" selected>' in html
    assert "tools memory" in html  # the save button names what it saves


@pytest.mark.parametrize("value", ["on", "", "memory-ish"])
def test_an_invalid_value_is_refused_with_its_code_and_nothing_is_stored(
    staff_client: Client, db: None, value: str
) -> None:
    response = staff_client.post(URL, {**FORM, "proxy_tools": value})
    assert response.status_code == 422
    html = response.content.decode()
    assert '<code class="err-code">invalid_proxy_tools</code>' in html
    assert 'id="save-button" disabled' in html
    assert MemorySettings.objects.count() == 0 and AdminAction.objects.count() == 0
    pieces = top_level(
        staff_client.get(URL, {"proxy_tools": value, "partial": "preview"}).content.decode()
    )
    assert "invalid_proxy_tools" in pieces["tools-error"]
    assert " hidden" not in pieces["tools-error"].split(">", 1)[0]


def test_the_service_refuses_before_writing_anything(db: None) -> None:
    with pytest.raises(Invalid) as refused:
        settings_update(block_lambda=0.5, proxy_tools="always", actor="user:ada")
    assert refused.value.code == "invalid_proxy_tools"
    assert MemorySettings.objects.count() == 0 and AdminAction.objects.count() == 0


def test_the_settings_api_reads_and_changes_it(admin: Any) -> None:
    assert admin.get("/settings").json()["proxy_tools"] == "off"
    response = admin.put("/settings", {"proxy_tools": "memory"})
    assert response.status_code == 200 and response.json()["proxy_tools"] == "memory"
    assert response.json()["proxy_history"] == "layered"  # left out: kept
    refused = admin.put("/settings", {"proxy_tools": "sometimes", "block_lambda": 0.5})
    assert refused.status_code == 422
    assert refused.json()["error"]["code"] == "invalid_proxy_tools"
    assert memory_settings_get().block_lambda == 0.3  # nothing of the refused request stored
    assert memory_settings_get().proxy_tools == "memory"
    assert AdminAction.objects.filter(action="settings").count() == 1
