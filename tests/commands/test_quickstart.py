"""`manage.py quickstart`, what scripts/run.sh prints before serving: the admin login and the demo
namespace's agent token are made on the first start only (and shown then); later starts make no
token and say how to make another. Only the token's hash is stored."""

from __future__ import annotations

import hashlib
import io
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.utils import timezone

from memory.management.commands.quickstart import RUN_SH_LABEL
from memory.models import AgentToken

pytestmark = pytest.mark.django_db
ROOT = Path(__file__).resolve().parents[2]
MORE = "manage.py create_agent_token --namespace demo --scope read-write"


def quickstart() -> str:
    out = io.StringIO()
    call_command("quickstart", "--url", "http://127.0.0.1:9000", stdout=out)
    return out.getvalue()


def printed_token(text: str) -> str | None:
    lines = text.splitlines()
    for n, line in enumerate(lines):
        if line.startswith(' Agent token for namespace "demo" (admin scope'):
            return lines[n + 1].strip()
    return None


def test_the_first_start_makes_and_shows_the_login_and_the_token() -> None:
    first = quickstart()
    assert "StrataGate: http://127.0.0.1:9000/" in first
    assert "user: admin   password: " in first
    raw = printed_token(first)
    assert raw and raw.startswith("sg_")
    assert f"export URL=http://127.0.0.1:9000 TOKEN={raw}" in first
    token = AgentToken.objects.get()
    assert (token.label, token.scope, token.installation) == (RUN_SH_LABEL, "admin", True)
    assert list(token.namespaces.values_list("name", flat=True)) == ["demo"]
    assert token.key_hash == hashlib.sha256(raw.encode()).hexdigest()
    stored = [str(v) for v in AgentToken.objects.values_list().get()]
    assert not any(raw in value for value in stored)  # only the hash is kept


def test_a_later_start_makes_no_token_and_says_how_to_make_one() -> None:
    first_token = printed_token(quickstart())
    later = quickstart()
    assert printed_token(later) is None
    assert first_token and first_token not in later
    assert "password: " not in later and "your existing superuser" in later
    assert MORE in later
    assert AgentToken.objects.count() == 1
    assert get_user_model().objects.count() == 1


def test_a_revoked_run_sh_token_is_replaced_at_the_next_start() -> None:
    quickstart()
    AgentToken.objects.update(revoked_at=timezone.now())
    assert printed_token(quickstart())
    assert AgentToken.objects.filter(revoked_at__isnull=True).count() == 1


def test_run_sh_uses_quickstart_and_mints_no_token_itself() -> None:
    script = (ROOT / "scripts" / "run.sh").read_text()
    assert 'manage.py quickstart --url "$URL"' in script
    assert "create_agent_token" not in script
