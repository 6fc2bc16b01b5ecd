"""Agent tokens: created once, stored as SHA-256, bound to namespaces and a scope."""

from __future__ import annotations

import hashlib
import hmac
import secrets

from django.db import transaction
from django.utils import timezone

from memory.errors import Invalid
from memory.models import AgentToken, Namespace, TokenScope
from memory.models.rows import read_models
from memory.services.namespaces import namespace_get_or_create, namespace_name_is_valid

TOKEN_PREFIX = "sg_"


def _hash(raw: str) -> str:
    return hashlib.sha256(raw.encode()).hexdigest()


def token_create(*, namespaces: list[str], scope: str, label: str = "") -> tuple[AgentToken, str]:
    """Create a token bound to `namespaces` (created when missing). Returns (row, raw token)."""
    if scope not in TokenScope.values:
        raise Invalid(f"unknown scope {scope!r}", code="invalid_scope")
    if not namespaces:
        raise Invalid("a token must be bound to at least one namespace", code="no_namespace")
    public = secrets.token_hex(4)
    raw = f"{TOKEN_PREFIX}{public}_{secrets.token_urlsafe(32)}"
    with transaction.atomic():
        rows = [namespace_get_or_create(name=name) for name in namespaces]
        token = AgentToken.objects.create(
            label=label, prefix=public, key_hash=_hash(raw), scope=scope
        )
        token.namespaces.set(rows)
    return token, raw


# Every API request runs both lookups below: plain SQL read into the same model instances
# (memory.models.rows.read_models, no query compilation), one indexed read each.
_TOKEN_WHERE = "WHERE t.key_hash = %s AND t.revoked_at IS NULL"
_BOUND = AgentToken.namespaces.through._meta
_TOKEN_NAMESPACE_JOIN = (
    f"JOIN {_BOUND.db_table} bound ON bound.{_BOUND.get_field('namespace').column} = n.id "
    f"WHERE bound.{_BOUND.get_field('agenttoken').column} = %s AND n.name = %s"
)


def token_authenticate(raw: str) -> AgentToken | None:
    """The live token for `raw`, or None. Constant-time comparison of the stored hash."""
    if not raw.startswith(TOKEN_PREFIX) or len(raw) > 200:
        return None
    digest = _hash(raw)
    token = next(iter(read_models(AgentToken, "t", _TOKEN_WHERE, [digest])), None)
    if token is None or not hmac.compare_digest(token.key_hash, digest):
        return None
    now = timezone.now()
    if token.last_used_at is None or (now - token.last_used_at).total_seconds() > 60:
        AgentToken.objects.filter(pk=token.pk).update(last_used_at=now)
    return token


def token_namespace(token: AgentToken, name: str) -> Namespace | None:
    """The namespace `name` if this token is bound to it; unknown and foreign look the same.
    A name no namespace can have (a NUL byte, 5,000 characters) is unknown without a query."""
    if not namespace_name_is_valid(name):
        return None
    return next(iter(read_models(Namespace, "n", _TOKEN_NAMESPACE_JOIN, [token.pk, name])), None)
