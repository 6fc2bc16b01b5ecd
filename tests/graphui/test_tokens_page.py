"""The staff tokens page (issue 26 §3): every token with what it may do, a token created here is
shown once, revocation is confirmed and refuses the token at once; all audited, staff only."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse

from memory.models import AdminAction, AgentToken, NamespaceGrant
from memory.services.namespaces import namespace_get_or_create
from memory.services.tokens import token_create
from tests.conftest import ApiClient

pytestmark = pytest.mark.django_db

URL = "/tokens/"


@pytest.fixture
def staff(client: Client, django_user_model: Any) -> Client:
    client.force_login(django_user_model.objects.create_user("grace", is_staff=True))
    return client


def test_staff_create_a_token_that_is_shown_once(staff: Client) -> None:
    namespace_get_or_create(name="proj")
    response = staff.post(
        URL,
        {"label": "laptop", "namespaces": ["proj"], "scope": "read", "expires_in": "30d"},
    )
    assert response.status_code == 200
    assert response["Cache-Control"].startswith("max-age=0")
    raw = re.search(r'id="token-value">(sg_[^<]+)<', response.content.decode()).group(1)
    token = AgentToken.objects.get()
    assert (token.label, token.scope, token.installation) == ("laptop", "read", False)
    assert token.expires_at is not None
    assert ApiClient(token=raw, client=Client()).get("/ns/proj/health").status_code == 200
    (row,) = AdminAction.objects.filter(action="token_create")
    assert (row.actor, row.namespace.name) == ("user:grace", "proj")
    listed = staff.get(URL).content.decode()
    assert f"sg_{token.prefix}" in listed and raw not in listed


def test_a_bad_form_is_refused_and_creates_nothing(staff: Client) -> None:
    response = staff.post(URL, {"label": "x", "scope": "read"})  # no namespace
    assert response.status_code == 422
    assert "no_namespace" in response.content.decode()
    assert not AgentToken.objects.exists() and not AdminAction.objects.exists()


def test_revoking_is_confirmed_then_refuses_the_token_at_once(staff: Client) -> None:
    token, raw = token_create(namespaces=["proj"], scope="read-write", label="agent")
    url = reverse("graphui:token_revoke", args=[token.pk])
    confirm = staff.get(url)
    assert confirm.status_code == 200 and "Revoke token" in confirm.content.decode()
    assert AgentToken.objects.get().revoked_at is None  # the page alone changes nothing
    assert staff.post(url).status_code == 302
    assert ApiClient(token=raw, client=Client()).get("/ns/proj/health").status_code == 401
    assert AdminAction.objects.filter(action="token_revoke").count() == 1
    again = staff.post(url)
    assert again.status_code == 409
    assert AdminAction.objects.filter(action="token_revoke").count() == 1


def test_only_staff_see_the_tokens_page(client: Client, django_user_model: Any) -> None:
    namespace = namespace_get_or_create(name="proj")
    owner = django_user_model.objects.create_user("ada")
    NamespaceGrant.objects.create(user=owner, namespace=namespace, role="admin")
    client.force_login(owner)
    token, _ = token_create(namespaces=["proj"], scope="read-write")
    assert client.get(URL).status_code == 403
    assert client.post(URL, {"namespaces": ["proj"], "scope": "read"}).status_code == 403
    assert client.post(reverse("graphui:token_revoke", args=[token.pk])).status_code == 403
    assert AgentToken.objects.count() == 1 and AgentToken.objects.get().revoked_at is None
    assert "/tokens/" not in client.get(reverse("graphui:namespaces")).content.decode()
