"""Token lifecycle from the command line (issue 26 §3): create (installation, expiry), list,
revoke — a revoked or expired token is refused at once — and people's namespace grants."""

from __future__ import annotations

from datetime import timedelta
from io import StringIO

import pytest
from django.contrib.auth import get_user_model
from django.core.management import CommandError, call_command
from django.test import Client
from django.utils import timezone

from memory.models import AdminAction, AgentToken, NamespaceGrant
from memory.services.namespaces import namespace_get_or_create
from tests.conftest import ApiClient

pytestmark = pytest.mark.django_db


def run(*args: str) -> str:
    out = StringIO()
    call_command(*args, stdout=out)
    return out.getvalue().strip()


def api(token: str) -> ApiClient:
    return ApiClient(token=token, client=Client())


def test_an_installation_token_may_change_settings_and_is_audited() -> None:
    raw = run("create_agent_token", "--installation", "--label", "ops")
    token = AgentToken.objects.get()
    assert (token.installation, token.scope, token.label) == (True, "admin", "ops")
    assert api(raw).put("/settings", {"block_turns": 7}).status_code == 200
    created = AdminAction.objects.get(action="token_create")
    assert created.actor.startswith("command:") and created.details["installation"] is True
    assert raw not in str(list(AdminAction.objects.values()))


def test_a_token_needs_a_namespace_unless_it_is_an_installation_token() -> None:
    with pytest.raises(CommandError):
        call_command("create_agent_token")


def test_an_expired_token_is_refused_at_once() -> None:
    raw = run("create_agent_token", "--namespace", "proj", "--expires-in", "2h")
    token = AgentToken.objects.get()
    assert timedelta(hours=1, minutes=59) < token.expires_at - timezone.now() <= timedelta(hours=2)
    assert api(raw).get("/ns/proj/health").status_code == 200
    AgentToken.objects.update(expires_at=timezone.now() - timedelta(seconds=1))
    assert api(raw).get("/ns/proj/health").status_code == 401
    with pytest.raises(CommandError, match="invalid_expiry"):
        call_command("create_agent_token", "--namespace", "proj", "--expires-in", "soon")


def test_list_shows_what_each_token_may_do_and_never_the_token() -> None:
    raw = run("create_agent_token", "--namespace", "proj", "--scope", "read", "--label", "ci")
    listed = run("list_agent_tokens")
    token = AgentToken.objects.get()
    assert f"sg_{token.prefix}" in listed and "ci" in listed and "proj" in listed
    assert raw not in listed and raw.split("_", 2)[2] not in listed


def test_revoke_by_prefix_refuses_the_token_at_once_and_is_audited() -> None:
    raw = run("create_agent_token", "--namespace", "proj")
    token = AgentToken.objects.get()
    assert api(raw).get("/ns/proj/health").status_code == 200
    assert "revoked" in run("revoke_agent_token", f"sg_{token.prefix}")
    assert api(raw).get("/ns/proj/health").status_code == 401
    assert (
        AdminAction.objects.filter(action="token_revoke", target=f"token:{token.pk}").count() == 1
    )
    with pytest.raises(CommandError, match="token_already_revoked"):
        call_command("revoke_agent_token", token.prefix)
    assert run("list_agent_tokens").startswith("prefix") and token.prefix not in run(
        "list_agent_tokens"
    )
    assert token.prefix in run("list_agent_tokens", "--all")


def test_grant_namespace_sets_replaces_and_revokes_a_role() -> None:
    get_user_model().objects.create_user("ada")
    namespace_get_or_create(name="proj")
    assert run("grant_namespace", "ada", "proj", "--role", "viewer") == "ada is viewer of proj"
    assert run("grant_namespace", "ada", "proj", "--role", "editor") == "ada is editor of proj"
    assert list(NamespaceGrant.objects.values_list("role", flat=True)) == ["editor"]
    assert run("grant_namespace", "ada", "proj", "--revoke") == "ada no longer sees proj"
    assert not NamespaceGrant.objects.exists()
    logged = list(AdminAction.objects.order_by("id").values_list("action", "details"))
    assert logged == [
        ("grant", {"user": "ada", "before": None, "after": "viewer"}),
        ("grant", {"user": "ada", "before": "viewer", "after": "editor"}),
        ("grant_revoke", {"user": "ada", "before": "editor", "after": None}),
    ]
    with pytest.raises(CommandError, match="user_not_found"):
        call_command("grant_namespace", "nobody", "proj", "--role", "viewer")
    with pytest.raises(CommandError, match="namespace_not_found"):
        call_command("grant_namespace", "ada", "nowhere", "--role", "viewer")


def test_a_longest_user_name_is_granted_and_logged_whole() -> None:
    """Django allows 150-character user names; the audit target column holds 100, so the
    target is cut and the details keep the name whole (PostgreSQL refuses an overlong value)."""
    name = "a" * 150
    get_user_model().objects.create_user(name)
    namespace_get_or_create(name="proj")
    assert run("grant_namespace", name, "proj", "--role", "admin") == f"{name} is admin of proj"
    row = AdminAction.objects.get(action="grant")
    assert row.target == f"user:{name}"[:100]
    assert row.details["user"] == name
